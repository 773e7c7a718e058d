use proc_macro2::TokenStream;
use quote::ToTokens;

use super::*;

fn expanded_with(src: &str) -> (String, Vec<Unexpanded>) {
    let expanded = expand_file(syn::parse_file(src).unwrap());
    let text = expanded
        .file
        .items
        .iter()
        .map(|item| item.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (text, expanded.unexpanded)
}

fn expanded(src: &str) -> String {
    let (text, unexpanded) = expanded_with(src);
    assert_eq!(unexpanded, Vec::new(), "{src}");
    text
}

/// The tokens of `tokens` one by one, spaced alike whatever their spacing, invisible groups as their
/// content.
fn canonical(tokens: TokenStream) -> String {
    let mut out = Vec::new();
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Group(group) => {
                let inner = canonical(group.stream());
                let (open, close) = match group.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push(format!("{open} {inner} {close}").trim().to_owned());
            }
            other => out.push(other.to_string()),
        }
    }
    out.retain(|token| !token.is_empty());
    out.join(" ")
}

/// The tokens one rule writes for `input`, through the matcher and the transcriber alone.
fn rule(matcher: &str, transcriber: &str, input: &str) -> Option<String> {
    let matcher = matcher::parse(matcher.parse().unwrap()).unwrap();
    let input: Vec<_> = input.parse::<TokenStream>().unwrap().into_iter().collect();
    let bindings = matcher::match_all(&matcher, &input)?;
    let out = transcribe::transcribe(transcriber.parse().unwrap(), &bindings).unwrap();
    Some(canonical(out))
}

/// `text` as [`canonical`] writes it.
fn tokens(text: &str) -> String {
    canonical(text.parse().unwrap())
}

#[test]
fn rules_of_a_body() {
    let body: TokenStream = "(a) => { x }; ($n:ident) => { y }".parse().unwrap();
    assert_eq!(rules_of(&body).map(|rules| rules.len()), Ok(2));
    let bad: TokenStream = "a => b".parse().unwrap();
    assert!(rules_of(&bad).is_err());
    // A rule whose matcher is not read is kept, with why.
    let unknown: TokenStream = "($x:frob) => {}".parse().unwrap();
    let rules = rules_of(&unknown).unwrap();
    assert!(
        rules[0]
            .matcher
            .as_ref()
            .is_err_and(|why| why.contains("frob"))
    );
}

#[test]
fn repetitions_with_and_without_separators() {
    let star = "$($name:ident),*";
    assert_eq!(
        rule(star, "$(struct $name;)*", "A, B, C"),
        Some(tokens("struct A ; struct B ; struct C ;"))
    );
    assert_eq!(rule(star, "$(struct $name;)*", ""), Some(tokens("")));
    // A trailing separator is not the repetition's: the matcher must say `$(,)?`.
    assert_eq!(rule(star, "$(struct $name;)*", "A, B,"), None);
    assert_eq!(
        rule("$($name:ident),* $(,)?", "$($name)|*", "A, B,"),
        Some(tokens("A | B"))
    );
    // `+` needs one iteration, `?` takes at most one.
    assert_eq!(rule("$($n:ident)+", "$($n)*", ""), None);
    assert_eq!(rule("$($n:ident)+", "$($n)*", "a b"), Some(tokens("a b")));
    assert_eq!(rule("$($n:ident)?", "$($n)?", "a b"), None);
    assert_eq!(rule("$($n:ident)?", "[$($n)?]", ""), Some(tokens("[]")));
    // Separators of one and two characters, in the matcher and the transcriber.
    assert_eq!(
        rule(
            "$($k:literal => $v:ty);+",
            "$($k: $v),*",
            "\"a\" => u8; \"b\" => Vec<u8>"
        ),
        Some(tokens("\"a\" : u8 , \"b\" : Vec < u8 >"))
    );
    assert_eq!(
        rule("$($seg:ident)::*", "$($seg)=>*", "a::b::c"),
        Some(tokens("a => b => c"))
    );
}

#[test]
fn nested_repetitions_and_crate() {
    let out = rule(
        "$($name:ident { $($field:ident : $ty:ty),* $(,)? })*",
        "$(pub struct $name { $(pub $field: $crate::Wrap<$ty>,)* })*",
        "A { x: u8, y: String } B {} C { z: Option<u32>, }",
    )
    .unwrap();
    assert_eq!(
        out,
        tokens(
            "pub struct A { pub x : crate :: Wrap < u8 > , pub y : crate :: Wrap < String > , } \
         pub struct B { } pub struct C { pub z : crate :: Wrap < Option < u32 > > , }"
        )
    );
    // An outer metavariable repeated inside an inner repetition.
    assert_eq!(
        rule(
            "$($outer:ident [$($inner:ident)*])*",
            "$($(($outer $inner))*)*",
            "a [x y] b [z]"
        ),
        Some(tokens("(a x) (a y) (b z)"))
    );
}

#[test]
fn fragments_as_rustc_takes_them() {
    for (matcher, input, out) in [
        ("$l:lifetime", "'a", "'a"),
        ("$v:vis struct", "pub(crate) struct", "pub (crate)"),
        ("$v:vis struct", "struct", ""),
        (
            "#[$m:meta]",
            "#[serde(rename = \"x\")]",
            "serde (rename = \"x\")",
        ),
        ("$b:block", "{ let x = 1; x }", "{ let x = 1 ; x }"),
        ("$i:item", "pub struct S(u8);", "pub struct S (u8) ;"),
        ("$p:pat => x", "Some(1) | None => x", "Some (1) | None"),
        ("$p:pat_param | x", "Some(1) | x", "Some (1)"),
        ("$l:literal", "-3", "- 3"),
        ("$l:literal", "true", "true"),
        ("$p:path", "a::b::<u8>", "a :: b :: < u8 >"),
        ("$e:expr, $f:expr", "1 + 2, f(x)", "1 + 2"),
        ("$e:expr => $f:expr", "a + b => c", "a + b"),
        ("$e:expr; x", "S { a: 1 }; x", "S { a: 1 }"),
        ("$t:ty => x", "Vec<u8> => x", "Vec<u8>"),
        ("$t:ty = x", "&'a str = x", "&'a str"),
        ("$t:ty, $u:ty", "HashMap<K, V>, u8", "HashMap < K , V >"),
        ("$s:stmt;", "let x = 1;", "let x = 1"),
        ("$x:tt $y:tt", "(a b) c", "(a b)"),
    ] {
        let first = matcher
            .split(['$', ':'])
            .nth(1)
            .unwrap_or_else(|| panic!("{matcher}"));
        let got = rule(matcher, &format!("${first}"), input);
        let got = got.unwrap_or_else(|| panic!("{matcher} does not match {input}"));
        assert_eq!(got, tokens(out), "{matcher} on {input}");
    }
    // What a fragment cannot take.
    assert_eq!(rule("$i:ident", "$i", "_"), None);
    assert_eq!(rule("$i:ident", "$i", "1"), None);
    assert_eq!(rule("$l:literal", "$l", "x"), None);
    assert_eq!(rule("$l:lifetime", "$l", "a"), None);
    assert_eq!(rule("$t:ty", "$t", ","), None);
}

#[test]
fn an_expression_keeps_its_precedence() {
    let expanded = expand_file(
        syn::parse_file(
            "macro_rules! twice { ($name:ident = $e:expr) => { const $name: u8 = $e * 2; }; }\n\
             twice!(A = 1 + 2);",
        )
        .unwrap(),
    );
    // The captured expression is one (invisible) group: `(1 + 2) * 2`, as rustc reads it.
    let syn::Item::Const(item) = &expanded.file.items[0] else {
        panic!("{:?}", expanded.unexpanded);
    };
    assert!(matches!(&*item.expr, syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_))));
}

#[test]
fn simple_macros_are_expanded_in_place() {
    let out = expanded(
        "macro_rules! id_type { ($name:ident, $inner:ty) => { #[derive(Serialize)] pub struct $name(pub $inner); }; }\n\
         id_type!(JobId, Vec<u64>);\n\
         mod inner { id_type!(Other, String); }",
    );
    assert!(
        out.contains("pub struct JobId (pub Vec < u64 >) ;"),
        "{out}"
    );
    assert!(out.contains("pub struct Other (pub String) ;"), "{out}");
    assert!(!out.contains("id_type !"), "{out}");
}

#[test]
fn the_first_matching_rule_and_nested_invocations() {
    let out = expanded(
        "macro_rules! level { (str $name:ident) => { pub enum $name { A } }; ($name:ident = $value:literal) => { pub const $name: u8 = $value; level!(str $name); }; }\n\
         level!(Lvl = 3);",
    );
    assert!(out.contains("pub const Lvl : u8 = 3 ;"), "{out}");
    assert!(out.contains("pub enum Lvl { A }"), "{out}");
    // `$crate::name!` is the crate's exported macro; a macro that defines a macro defines it for what
    // follows.
    let out = expanded(
        "#[macro_export] macro_rules! unit { ($n:ident) => { pub struct $n; }; }\n\
         macro_rules! units { ($($n:ident),+) => { $($crate::unit!($n);)+ }; }\n\
         units!(A, B);\n\
         macro_rules! define { ($made:ident) => { macro_rules! made { ($n:ident) => { pub struct $made($n); }; } }; }\n\
         define!(Made);\nmade!(u8);",
    );
    for written in ["pub struct A ;", "pub struct B ;", "pub struct Made (u8) ;"] {
        assert!(out.contains(written), "{written} in {out}");
    }
    // A macro defined in an inline `#[macro_use]` module is in scope after it.
    let out = expanded(
        "#[macro_use] mod m { macro_rules! gen { ($n:ident) => { pub struct $n; }; } }\ngen!(A);",
    );
    assert!(out.contains("pub struct A ;"), "{out}");
}

#[test]
fn a_macro_not_expanded_is_said_with_why() {
    for (src, why) in [
        (
            "macro_rules! gen { ($name:ident) => { pub struct $name; }; }\ngen!(A);\ngen!(1);",
            "no rule of its `macro_rules!` matches",
        ),
        (
            "macro_rules! gen { ($x:frob) => {}; ($n:ident) => { pub struct $n; }; }\ngen!(A);",
            "its rule 1 is not read: the fragment specifier `frob` is not supported",
        ),
        (
            "macro_rules! gen { ($name:ident) => { 1 + 1 }; }\ngen!(A);",
            "what its rule 1 writes is not items",
        ),
        (
            "macro_rules! gen { ($($a:ident)* ; $($b:ident)*) => { $(struct $a($b);)* }; }\ngen!(A B ; C);",
            "its rule 1 does not transcribe: metavariables repeat 2 and 1 times",
        ),
        (
            "macro_rules! gen { () => { gen!(); }; }\ngen!();",
            "the recursion limit (128 nested expansions) is reached",
        ),
        ("macro_rules! gen { x }\ngen!();", "its body is not"),
    ] {
        let (out, unexpanded) = expanded_with(src);
        assert!(
            unexpanded
                .iter()
                .any(|left| left.name == "gen" && left.reason.contains(why)),
            "{src}: {unexpanded:?}"
        );
        // The invocation stays as written, and so does the definition.
        assert!(out.contains("gen !"), "{src}: {out}");
        assert!(out.contains("macro_rules ! gen"), "{src}: {out}");
    }
    // Where: the invocation's path.
    let (_, unexpanded) = expanded_with("macro_rules! gen { () => {}; }\n\n  gen!(1);");
    assert_eq!(unexpanded[0].at, (3, 2));
}

#[test]
fn what_is_not_the_files_own_macro_is_left_as_written() {
    for src in [
        // Defined below the invocation.
        "gen!(A);\nmacro_rules! gen { ($name:ident) => { pub struct $name; }; }",
        // Another file's macro.
        "other_file!(A);",
        // In a module that is not `#[macro_use]`, out of scope after it.
        "mod m { macro_rules! gen { ($n:ident) => { pub struct $n; }; } }\ngen!(A);",
    ] {
        let written = syn::parse_file(src).unwrap();
        let expanded = expand_file(written.clone());
        assert_eq!(expanded.unexpanded, Vec::new(), "{src}");
        let invocations = |file: &syn::File| {
            file.items
                .iter()
                .filter(|item| matches!(item, Item::Macro(m) if m.ident.is_none()))
                .count()
        };
        assert_eq!(invocations(&expanded.file), 1, "{src}");
        assert_eq!(invocations(&written), 1, "{src}");
    }
}

#[test]
fn expansions_that_multiply_stop() {
    // Each level writes two invocations of the next: 2^128 without a budget. What is left is said
    // once per place.
    let expanded = expand_file(
        syn::parse_file("macro_rules! gen { () => { gen!(); gen!(); }; }\ngen!();").unwrap(),
    );
    assert_eq!(expanded.unexpanded.len(), 2, "{:?}", expanded.unexpanded);
    assert!(expanded.file.items.len() <= 2 * MAX_EXPANSIONS);
    // The budget alone.
    let mut expansion = Expansion {
        expansions: MAX_EXPANSIONS,
        ..Expansion::default()
    };
    let mut file = syn::parse_file("macro_rules! gen { () => {}; }\ngen!();").unwrap();
    expansion.items(&mut file.items, &Macros::default(), 0);
    assert!(
        expansion.unexpanded[0]
            .reason
            .contains("exceed 10000 invocations"),
        "{:?}",
        expansion.unexpanded
    );
}

/// A type a macro of the file would write, left unexpanded: the note on the field that names it says
/// which macro, where, and why.
#[test]
fn an_unexpanded_macro_is_named_where_its_type_is_missing() {
    let lib = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
macro_rules! tags {
    ($($name:ident),+) => { $(#[derive(Serialize, Deserialize)] pub struct $name;)+ };
}
tags!(A, B);
#[cfg(feature = \"never\")]
tags!(1);
tags!(\"C\");
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.m\", kind = \"event\")]
pub struct M { pub a: A, pub c: C }
";
    let s = crate::extract::snapshot_from_sources("demo", &[("src/lib.rs", lib)]).unwrap();
    assert!(s.types.contains_key("demo::A"), "{:?}", s.types.keys());
    let notes: Vec<String> = s
        .notes
        .iter()
        .map(|n| format!("{}:{}: {}", n.location.file, n.location.line, n.message))
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("src/lib.rs:15: type `C`")
                && n.contains(
                    "macro `tags!` (no rule of its `macro_rules!` matches) at src/lib.rs:12"
                )),
        "{notes:#?}"
    );
}

/// The same through a path into the module that invokes the macro.
#[test]
fn an_unexpanded_macro_is_named_where_a_path_to_its_type_leads() {
    let lib = "use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol};
#[derive(Protocol)]
#[wire(name = \"p\", version = \"1.0.0\")]
pub struct P;
mod tags {
    use super::*;
    macro_rules! tags {
        ($($name:ident),+) => { $(#[derive(Serialize, Deserialize)] pub struct $name;)+ };
    }
    tags!(\"C\");
}
#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = P, topic = \"t.m\", kind = \"event\")]
pub struct M { pub c: tags::C, pub d: crate::tags::D }
";
    let s = crate::extract::snapshot_from_sources("demo", &[("src/lib.rs", lib)]).unwrap();
    let notes: Vec<String> = s
        .notes
        .iter()
        .map(|n| format!("{}:{}: {}", n.location.file, n.location.line, n.message))
        .collect();
    for path in ["tags::C", "crate::tags::D"] {
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with(&format!("src/lib.rs:15: type `{path}`"))
                    && n.contains(
                        "macro `tags!` (no rule of its `macro_rules!` matches) at src/lib.rs:11"
                    )),
            "{path}: {notes:#?}"
        );
    }
}

/// Doc comments inside an invocation are `#[doc = "..."]` attributes, which a repetition of `#[$meta]`
/// or `#[doc = $text:literal]` takes (a newtype macro of a published crate has this shape).
#[test]
fn doc_comments_in_an_invocation_are_attributes() {
    let out = expanded(
        "macro_rules! name_type {
            ($(#[doc = $docs:literal])* $name:ident) => {
                $(#[doc = $docs])*
                #[derive(Serialize)]
                #[serde(transparent)]
                pub struct $name<T: AsRef<str> = String>(T);
                impl<'de, T: AsRef<str> + serde::Deserialize<'de>> serde::Deserialize<'de> for $name<T> {
                    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        Ok(Self(T::deserialize(d)?))
                    }
                }
            };
        }
        name_type!(
            /// A name.
            ///
            /// Not checked.
            Name
        );",
    );
    assert!(
        out.contains("# [doc = \" A name.\"] # [doc = \"\"] # [doc = \" Not checked.\"]"),
        "{out}"
    );
    assert!(
        out.contains("pub struct Name < T : AsRef < str > = String > (T) ;"),
        "{out}"
    );
    assert!(out.contains("for Name < T >"), "{out}");
}

/// The window a fragment is parsed in first never changes what it takes: the same as parsing the whole
/// input, for every fragment syn parses, on inputs with separators inside and after it.
#[test]
fn a_fragment_takes_the_same_in_its_window_as_in_the_whole_input() {
    use matcher::Fragment as F;
    let inputs = [
        "HashMap<K, V>, u8",
        "Vec<Option<(u8, u16)>> => x",
        "fn(A, B) -> C<D, E>, f",
        "impl Fn(u8) -> Vec<u8>, g",
        "a < b, c > (d)",
        "a << b, c",
        "f::<A, B>(x) => y",
        "|x| x + 1, y",
        "S { a: 1, b: 2 }; T",
        "match x { A => 1, _ => 2 }, z",
        "Some(1) | None => x",
        "struct A<B, C>(B, C); next",
        "fn f<T>() where T: Clone, U: Copy {} next",
        "pub(crate) struct",
        "serde(rename = \"x\"), y",
        "{ let a = 1; a }, b",
        "let x = 1; y",
        "a::b::<u8>, c",
    ];
    let fragments = [
        F::Ty,
        F::Path,
        F::Expr,
        F::Pat,
        F::PatParam,
        F::Vis,
        F::Meta,
        F::Block,
        F::Item,
        F::Stmt,
    ];
    for input in inputs {
        let tokens: Vec<_> = input.parse::<TokenStream>().unwrap().into_iter().collect();
        for fragment in fragments {
            assert_eq!(
                matcher::take_fragment(fragment, &tokens),
                matcher::take_fragment_whole(fragment, &tokens),
                "{fragment:?} on {input}"
            );
        }
    }
}
