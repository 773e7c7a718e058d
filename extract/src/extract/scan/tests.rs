use super::*;

/// The same declarations read from syn's tree.
fn from_syn(text: &str) -> Vec<ModItem> {
    fn walk(items: &[syn::Item], parents: &mut Vec<String>, out: &mut Vec<ModItem>) {
        for item in items {
            if let syn::Item::Mod(m) = item {
                let name = m.ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                let span = m.ident.span();
                let range = span.byte_range();
                out.push(ModItem {
                    parents: parents.clone(),
                    name: name.clone(),
                    inline: m.content.is_some(),
                    path_attr: super::path_attr(&m.attrs),
                    cfg: mod_cfg(&m.attrs),
                    pos: Pos {
                        line: span.start().line as u32,
                        column: span.start().column as u32 + 1,
                        start: range.start,
                        end: range.end,
                    },
                });
                if let Some((_, inner)) = &m.content {
                    parents.push(name);
                    walk(inner, parents, out);
                    parents.pop();
                }
            }
        }
    }
    let file = syn::parse_file(text).expect("test input parses");
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut out);
    out
}

fn agree(text: &str) {
    let content = syn_content(text);
    let scanned = scan(content).unwrap_or_else(|| panic!("scan gave up on:\n{text}"));
    assert_eq!(scanned.mods, from_syn(text), "on:\n{text}");
}

#[test]
fn tricky_lexemes() {
    agree(
        "//! mod no;\n/* mod no; /* nested mod no; */ */\n#[path = \"a/b.rs\"]\npub(crate) mod r#type;\n\
         const S: &str = \"mod no; }\";\nconst R: &str = r##\"mod no; \"# }\"##;\nconst C: char = '}';\n\
         const Q: char = '\\'';\nconst U: char = '\\u{7d}';\nconst B: u8 = b'}';\nfn f<'a>(x: &'a str) -> &'a str { mod inner_fn; x }\n\
         macro_rules! m { () => { mod from_macro; } }\nm!{ mod nope; }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[path = \"t.rs\"] mod t;\n    mod deeper { mod leaf; }\n}\n\
         struct T<const N: usize = { 3 }>;\n#[doc = \"x\"] #[path = r\"odd.rs\"] mod odd;\nmod é;\n/// doc\nmod last;\n",
    );
    agree("#![allow(dead_code)]\nmod a;\n");
    agree("#!/usr/bin/env run-cargo-script\nmod a;\n");
    agree("\u{feff}mod a;\nmod b { mod c; }\n");
    agree(
        "fn main() { let x = 1..2; let y = 1.0e-3f64; let z = 0x1F_u8; 'outer: loop { break 'outer; } }\nmod a;\n",
    );
    agree(
        "const S: &[u8] = br#\"}\"#; const T: &str = \"a\\\n  b\"; const C: &core::ffi::CStr = c\"}\";\nmod a;\n",
    );
}

#[test]
fn mod_cfgs_are_kept_as_syn_prints_them() {
    let text = "#[cfg(feature = \"x\")]\nmod a;\n#[cfg_attr(unix, path = \"b.rs\")]\n#[cfg(any(unix,windows))] #[doc = \"d\"]\nmod b { #[cfg(test)] mod c; }\n#[cfg(feature = \"y\")]\nfn f() {}\nmod d;\n#[cfg(x)] use y;\nmod e;\n";
    agree(text);
    let mods = scan(text).unwrap().mods;
    let cfgs: Vec<(&str, &[String])> = mods
        .iter()
        .map(|m| (m.name.as_str(), m.cfg.as_slice()))
        .collect();
    let texts = |list: &[&str]| list.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    assert_eq!(cfgs[0], ("a", texts(&["cfg (feature = \"x\")"]).as_slice()));
    assert_eq!(
        cfgs[1],
        (
            "b",
            texts(&[
                "cfg_attr (unix , path = \"b.rs\")",
                "cfg (any (unix , windows))"
            ])
            .as_slice()
        )
    );
    assert_eq!(cfgs[2], ("c", texts(&["cfg (test)"]).as_slice()));
    // The attributes of the items before are not theirs.
    assert_eq!(cfgs[3], ("d", &[][..]));
    assert_eq!(cfgs[4], ("e", &[][..]));
}

/// The lexer's tokens of `text` as text, up to where it gives up (`Err`).
fn lexemes(text: &str) -> Vec<Result<&str, ()>> {
    let mut lexer = Lexer::new(text);
    let mut out = Vec::new();
    loop {
        match lexer.next() {
            Ok(Some((Token::Ident(start, end) | Token::Str(start, end), _))) => {
                out.push(Ok(&text[start..end]));
            }
            Ok(Some((_, start))) => out.push(Ok(&text[start..lexer.at])),
            Ok(None) => return out,
            Err(()) => {
                out.push(Err(()));
                return out;
            }
        }
    }
}

#[test]
fn identifiers_are_made_of_the_characters_rustc_takes() {
    // U+0301 (combining acute) is XID_Continue: `e\u{301}` is one identifier, as `é` is.
    assert_eq!(
        lexemes("e\u{301} é _x1"),
        [Ok("e\u{301}"), Ok("é"), Ok("_x1")]
    );
    assert_eq!(lexemes("'e\u{301}"), [Ok("'e\u{301}")]);
    // `²` is numeric but no identifier character: `a²` is `a` and then what rustc rejects.
    assert_eq!(lexemes("a²"), [Ok("a"), Err(())]);
    assert_eq!(lexemes("²"), [Err(())]);
    // Nor does a mark start one.
    assert_eq!(lexemes("\u{301}e"), [Err(())]);
    // What the scan gives up on, syn rejects too.
    for text in ["struct a²;", "struct \u{301}e;"] {
        assert!(syn::parse_file(text).is_err(), "{text}");
        assert_eq!(scan(text), None, "{text}");
    }
    agree("mod e\u{301};\nmod x\u{301}y { mod z; }\n");
}

#[test]
fn string_literals_decode_as_rustc_decodes_them() {
    let cases = [
        (r#""a\tb\n\\\"\'\0""#, Some("a\tb\n\\\"'\0")),
        (r#""\x41\u{e9}\u{1F600}""#, Some("A\u{e9}\u{1F600}")),
        ("\"a\\\n   \t b\"", Some("ab")),
        (r##"r#"a\n"b"#"##, Some("a\\n\"b")),
        (r#"r"\x41""#, Some("\\x41")),
        (r#"b"a.rs""#, None),
        (r#"c"a.rs""#, None),
        (r#""\q""#, None),
        (r#""\u{d800}""#, None),
    ];
    for (lit, value) in cases {
        assert_eq!(string_value(lit).as_deref(), value, "{lit}");
    }
    // The scan reads a `#[path]` as syn's tree does.
    agree(
        "#[path = \"\\x41\\u{e9}.rs\"] mod a;\n#[path = r#\"b\"c.rs\"#] mod b;\n\
         #[path = \"d\\\n   e.rs\"] mod c;\n",
    );
}

#[test]
fn gives_up_on_what_it_cannot_read() {
    assert_eq!(scan("struct {"), None);
    assert_eq!(scan("const S: &str = \"open"), None);
    assert_eq!(scan("/* open"), None);
    assert_eq!(scan("fn f() { ) }"), None);
    assert_eq!(scan("mod a"), None);
    assert_eq!(scan("#[path = b\"a.rs\"] mod a;"), None);
}

fn declares(text: &str) -> bool {
    scan(syn_content(text))
        .unwrap_or_else(|| panic!("scan gave up on:\n{text}"))
        .declares
}

/// `wire` in comments, doc comments, strings, raw strings, byte strings, char literals, identifiers
/// or other attributes' arguments is not a declaration; nor is a derive of `Message` alone (prost's).
#[test]
fn wire_outside_attribute_paths_does_not_declare() {
    for text in [
        "// #[wire(protocol = \"a\")] #[derive(Message)]\nstruct A;\n",
        "/* #[derive(Message)] #[wire(protocol = \"a\")] */ struct A;\n",
        "/// #[derive(Message)]\n/// #[wire(protocol = \"a\")]\nstruct A;\n",
        "//! wire wire\n#[doc = \"#[wire] #[derive(Message)]\"]\nstruct A;\n",
        "const S: &str = \"#[derive(Message)] #[wire(protocol = \\\"a\\\")] struct A;\";\n",
        "const R: &str = r#\"#[derive(Protocol)] #[wire(name = \"a\")] struct P;\"#;\n",
        "const B: &[u8] = b\"#[derive(Message)] #[wire]\";\nconst C: char = 'w';\n",
        "#[derive(Clone, PartialEq, ::prost::Message)]\npub struct Gen { #[prost(uint64, tag = \"1\")] pub wire: u64 }\n",
        "#[derive(Message)]\nstruct A;\n#[wire(protocol = \"a\")]\nstruct B;\n",
        "#[serde(rename = \"wire\")] #[derive(Message)] struct A;\n",
        "#[cfg_attr(wire, derive(Debug))] #[derive(Message)] struct A;\n",
        "#[wirecheck::wire(protocol = \"a\")] #[derive(Message)] struct A;\n",
        "fn f() { #[derive(Message)] #[wire(protocol = \"a\")] struct Local; }\n",
        "impl X { fn wire(&self) -> Message { todo!() } }\n",
        "macro_rules! m { () => { \"wire\" Message }; }\n",
    ] {
        assert!(!declares(text), "declares:\n{text}");
    }
}

/// A `wire` attribute with a derive naming `Protocol` or `Message`, however written, declares.
#[test]
fn wire_attributes_declare() {
    for text in [
        "#[derive(Message)]\n#[wire(protocol = \"a\")]\nstruct A;\n",
        "#[wire(name = \"p\", version = \"1.0.0\")] #[derive(Debug, Protocol)] pub struct P;\n",
        "#[derive(serde::Serialize, wirecheck::Message)]\n/// doc\n#[wire(protocol = \"a\")]\nenum A {}\n",
        "#[cfg_attr(feature = \"wire\", derive(Message))]\n#[wire(protocol = \"a\")]\nstruct A;\n",
        "#[derive(Message)]\n#[cfg_attr(all(), wire(protocol = \"a\"))]\ntype A = B;\n",
        "#[cfg_attr(x, cfg_attr(y, derive(Message), wire(protocol = \"a\")))] struct A;\n",
        "mod inner {\n    use super::*;\n    #[derive(Message)] #[wire] pub struct A(u8);\n}\n",
        "macro_rules! messages { ($n:ident) => { #[derive(wirecheck::Message)] #[wire(protocol = \"a\")] struct $n; }; }\n",
    ] {
        assert!(declares(text), "does not declare:\n{text}");
    }
}

/// The attributes of one item do not carry over to the next (nor into an inline module's items).
#[test]
fn attributes_belong_to_their_item() {
    assert!(!declares(
        "#[derive(Message)] struct A;\n#[wire(protocol = \"a\")] struct B;\n"
    ));
    assert!(!declares(
        "#[derive(Message)] fn f() {}\n#[wire(protocol = \"a\")] struct B;\n"
    ));
    assert!(!declares(
        "#[derive(Message)] mod m { #[wire(protocol = \"a\")] struct B; }\n"
    ));
}

/// Every Rust file of this repository reads the same through the scan and through syn.
#[test]
fn scan_agrees_with_syn() {
    let mut checked = 0;
    for (path, text) in repository_texts() {
        if syn::parse_file(&text).is_err() {
            continue; // compile-fail fixtures
        }
        let content = syn_content(&text);
        let scanned =
            scan(content).unwrap_or_else(|| panic!("the scan gave up on {}", path.display()));
        assert_eq!(scanned.mods, from_syn(&text), "{}", path.display());
        checked += 1;
    }
    assert!(checked > 20);
}

/// The pass that also records items reads the same `mod` declarations and "may declare" as the plain
/// one, on every file of this repository (those syn rejects included).
#[test]
fn the_recording_pass_scans_alike() {
    let mut checked = 0;
    for (path, text) in repository_texts() {
        let content = syn_content(&text);
        assert_eq!(
            scan_with_items(content).map(|(scan, _)| scan),
            scan(content),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked > 100, "checked {checked} files");
}

/// The items syn reads, flattened as [`items`] reports them (an inline module, then its items), with
/// their kinds and their tokens.
/// An item as the tests compare it: its inline modules, its kind, and its tokens (none for an inline
/// module).
type Compared = (Vec<String>, ItemKind, Option<String>);

/// What the scan should say of an `impl`: the last identifiers of its self type and its trait.
fn syn_impl_kind(item: &syn::ItemImpl) -> ItemKind {
    fn last_name(ty: &syn::Type) -> Option<String> {
        match ty {
            syn::Type::Path(path) => path
                .path
                .segments
                .last()
                .map(|s| crate::extract::syntax::unraw(&s.ident)),
            syn::Type::Reference(reference) => last_name(&reference.elem),
            syn::Type::Paren(paren) => last_name(&paren.elem),
            _ => None,
        }
    }
    ItemKind::Impl {
        self_name: last_name(&item.self_ty),
        trait_name: item
            .trait_
            .as_ref()
            .and_then(|(path, _)| path.segments.last())
            .map(|s| crate::extract::syntax::unraw(&s.ident)),
    }
}

fn syn_items(text: &str) -> Vec<Compared> {
    fn walk(items: &[syn::Item], parents: &mut Vec<String>, out: &mut Vec<Compared>) {
        use quote::ToTokens;
        for item in items {
            let unraw = |ident: &syn::Ident| crate::extract::syntax::unraw(ident);
            let kind = match item {
                syn::Item::Struct(i) => ItemKind::Type(unraw(&i.ident)),
                syn::Item::Enum(i) => ItemKind::Type(unraw(&i.ident)),
                syn::Item::Type(i) => ItemKind::Type(unraw(&i.ident)),
                syn::Item::Use(_) => ItemKind::Use,
                syn::Item::Mod(i) => ItemKind::Mod(unraw(&i.ident)),
                syn::Item::Macro(i) if i.ident.is_none() => {
                    let last = i.mac.path.segments.last().expect("a macro path");
                    ItemKind::MacroCall(
                        unraw(&last.ident),
                        pos_of(i.mac.path.segments.first().unwrap().ident.span()),
                    )
                }
                syn::Item::Macro(i) if i.mac.path.is_ident("macro_rules") => {
                    ItemKind::MacroRules(unraw(i.ident.as_ref().expect("a macro_rules! name")))
                }
                syn::Item::Impl(i) => syn_impl_kind(i),
                syn::Item::Fn(i) => ItemKind::Fn(unraw(&i.sig.ident)),
                syn::Item::Const(i) if i.ident == "_" => ItemKind::Other,
                syn::Item::Const(i) => ItemKind::Value(unraw(&i.ident)),
                syn::Item::Static(i) => ItemKind::Value(unraw(&i.ident)),
                _ => ItemKind::Other,
            };
            match item {
                syn::Item::Mod(syn::ItemMod {
                    content: Some((_, inner)),
                    ident,
                    ..
                }) => {
                    out.push((parents.clone(), kind, None));
                    parents.push(unraw(ident));
                    walk(inner, parents, out);
                    parents.pop();
                }
                _ => out.push((
                    parents.clone(),
                    kind,
                    Some(item.to_token_stream().to_string()),
                )),
            }
        }
    }
    let file = syn::parse_file(text).expect("test input parses");
    let mut out = Vec::new();
    walk(&file.items, &mut Vec::new(), &mut out);
    out
}

/// What [`items`] reads, in the terms of [`syn_items`]: each item parsed alone.
fn scanned_items(text: &str) -> Option<Vec<Compared>> {
    use quote::ToTokens;
    let content = syn_content(text);
    let items = items(content)?;
    Some(
        items
            .into_iter()
            .map(|item| {
                let tokens = match &item.kind {
                    ItemKind::Mod(_) if content[item.start..item.end].ends_with('{') => None,
                    _ => {
                        let alone: syn::Item = syn::parse_str(&content[item.start..item.end])
                            .unwrap_or_else(|e| {
                                panic!("{e}: {:?}", &content[item.start..item.end])
                            });
                        Some(alone.to_token_stream().to_string())
                    }
                };
                let kind = match item.kind {
                    // Positions differ: syn's are relative to the item parsed alone; compare the name.
                    ItemKind::MacroCall(name, pos) => {
                        ItemKind::MacroCall(name, pos_of_text(content, pos.start))
                    }
                    kind => kind,
                };
                (item.parents, kind, tokens)
            })
            .collect(),
    )
}

/// The position of the byte `at` of `text`, as proc-macro2 reports a span there (the end: the first
/// identifier's end).
fn pos_of_text(text: &str, at: usize) -> Pos {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = at
        + text[at..]
            .find(|c: char| !(c == '#' || unicode_ident::is_xid_continue(c)))
            .unwrap_or(text.len() - at);
    Pos {
        line: u32::try_from(text[..at].matches('\n').count() + 1).unwrap(),
        column: u32::try_from(text[line_start..at].chars().count() + 1).unwrap(),
        start: at,
        end,
    }
}

fn items_agree(text: &str) {
    let scanned = scanned_items(text).unwrap_or_else(|| panic!("items gave up on:\n{text}"));
    assert_eq!(scanned, syn_items(text), "on:\n{text}");
}

#[test]
fn items_split_as_syn_reads_them() {
    items_agree(
        "//! Inner doc.\n#![allow(dead_code)]\n\n/// Doc.\n#[derive(Debug)]\npub(crate) struct A { x: u8 }\n\
         /** Block doc. */ pub enum E { X = { 1 }, Y }\ntype T = [u8; { 3 }];\nuse a::{b, c::{self, d}};\n\
         const C: u8 = { 1 + 2 };\nstatic S: &str = \"}\";\nfn f() -> u8 { 3 }\nimpl A { fn g(&self) {} }\n\
         unsafe impl Send for A {}\nextern \"C\" { fn h(); }\nextern crate core as c;\n\
         macro_rules! m { () => {}; }\nm!{}\nm!();\nself::m![];\n::core::column!();\npub mod inner {\n    \
         #![allow(unused)]\n    /// Doc.\n    pub struct r#B;\n    mod deeper { pub type X = u8; }\n    fn i() {}\n}\n\
         mod file;\ntrait Tr { fn t(&self); }\nunion U { a: u8 }\n",
    );
    items_agree("#![allow(x)]\n");
    items_agree("");
    items_agree("struct A;\n/// trailing doc on nothing? no: on B\nstruct B(u8);");
}

#[test]
fn impls_are_named_by_their_self_type_and_trait() {
    items_agree(
        "impl<'de> serde::Deserialize<'de> for Id<'de> { fn f() {} }\n\
         impl<T: Fn() -> u8, const N: usize> ::core::fmt::Display for crate::a::Wrap<T, N> where T: Clone {}\n\
         impl<'a> From<&'a str> for &'a mut r#Raw {}\nimpl dyn Tr {}\nimpl [u8; 4] {}\nimpl (A, B) {}\n\
         unsafe impl<T> Send for Box<T> {}\nimpl !Sync for Plain {}\nconst fn cf() {}\nunsafe extern \"C\" fn ef() {}\n\
         static mut COUNT: u8 = 0;\nconst _: () = ();\n",
    );
}

#[test]
fn items_give_up_where_a_brace_group_does_not_end_its_item() {
    assert_eq!(items("struct T<const N: usize = { 3 }>;\nstruct U;"), None);
    assert_eq!(items("fn f() -> A<{ 3 }> {}\n"), None);
    assert_eq!(items("const C: u8 = { 1 } + 2;\n"), None);
    assert_eq!(items("mod a { struct }\n"), None);
    assert_eq!(items(";\n"), None);
    assert_eq!(
        items("fn f() {}\nstruct ;\n"),
        None,
        "a type without a name"
    );
}

/// Every Rust file of this repository splits into the items syn reads (or the scan says it cannot).
#[test]
fn items_agree_with_syn_on_this_repository() {
    let mut split = 0;
    for (path, text) in repository_texts() {
        if syn::parse_file(&text).is_err() || scanned_items(&text).is_none() {
            continue;
        }
        assert_eq!(
            scanned_items(&text).unwrap(),
            syn_items(&text),
            "{}",
            path.display()
        );
        split += 1;
    }
    assert!(split > 100, "split {split} files");
}

/// Every `.rs` file of this repository.
/// Every Rust file of this repository read as UTF-8 (one that is not, a fuzzing input say, left out),
/// with its path.
fn repository_texts() -> impl Iterator<Item = (std::path::PathBuf, String)> {
    let files = repository_files();
    assert!(files.len() > 20, "found the repository's sources");
    files.into_iter().filter_map(|path| {
        let text = std::fs::read_to_string(&path).ok()?;
        Some((path, text))
    })
}

/// The paths of every `.rs` file of this repository (`target/` and `.git/` left out).
fn repository_files() -> Vec<std::path::PathBuf> {
    fn visit(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" {
                continue;
            }
            if path.is_dir() {
                visit(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    // The whole repository, this crate's parent.
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        &mut files,
    );
    files
}
