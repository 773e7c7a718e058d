//! Unit tests of what a source digest reads.
use super::*;

#[test]
fn code_that_differs_in_its_lifetimes_alone_is_the_same_source() {
    let same = [
        (
            "impl<'de> Visitor<'de> for V { type Value = u8; }",
            "impl Visitor<'_> for V { type Value = u8; }",
        ),
        (
            "impl<'a> TryFrom<&'a str> for Id { fn f(s: &'a str) {} }",
            "impl TryFrom<&str> for Id { fn f(s: &str) {} }",
        ),
        (
            "impl<'a, T: 'a + Clone> X<'a, T> {}",
            "impl<T: Clone> X<T> {}",
        ),
        (
            "fn f<'a>(x: &'a str) -> &'a str { x }",
            "fn f(x: &str) -> &str { x }",
        ),
    ];
    for (with, without) in same {
        assert_eq!(text(with), text(without), "{with}");
    }
    // What the code does still counts, and so do char literals.
    assert_ne!(
        text("fn f() -> char { 'a' }"),
        text("fn f() -> char { 'b' }")
    );
    assert_ne!(
        text("impl<'a> TryFrom<&'a str> for Id {}"),
        text("impl<'a> TryFrom<&'a [u8]> for Id {}")
    );
    assert_ne!(
        text("fn f() -> bool { 1 < 2 }"),
        text("fn f() -> bool { 1 > 2 }")
    );
}

fn text(source: &str) -> String {
    let mut out = String::new();
    write_tokens(&mut out, source.parse().expect("tokens"));
    out
}

#[test]
fn doc_comments_and_whitespace_are_not_the_source() {
    assert_eq!(
        text("/// Writes it.\nimpl  X { fn f(&self) {} }"),
        text("#[doc = \"other\"] impl X {\n    fn f(&self) {}\n}")
    );
    assert_ne!(
        text("impl X { fn f(&self) -> u8 { 1 } }"),
        text("impl X { fn f(&self) -> u8 { 2 } }")
    );
    assert_ne!(text("#[serde(x)] impl X {}"), text("impl X {}"));
}

#[test]
fn a_path_is_one_name_followed_whole() {
    let mut found = Vec::new();
    let tokens = "fn f() -> std::result::Result<Option<Version>, D::Error> { \
                  ::serde::de::Error::custom(x); buf.push_str(\".0\"); helper(a: b) }";
    paths(tokens.parse().expect("tokens"), &mut found);
    let text: Vec<String> = found.iter().map(|path| path.join("::")).collect();
    for expected in [
        "std::result::Result",
        "Option",
        "Version",
        "D::Error",
        "::serde::de::Error::custom",
        "push_str",
        "helper",
        "a",
        "b",
    ] {
        assert!(
            text.contains(&expected.to_owned()),
            "{expected} in {text:?}"
        );
    }
    // `Result` alone is no path here: the crate's own `Result` is not what the code names.
    assert!(!text.contains(&"Result".to_owned()), "{text:?}");
}

#[test]
fn an_inert_derive_is_not_the_source() {
    let digest = |source: &str| {
        let item: Item = syn::parse_str(source).expect("an item");
        let mut out = String::new();
        write_tokens(&mut out, without_inert_derives(&item));
        out
    };
    assert_eq!(
        digest("#[derive(Serialize, Debug, Clone)] struct Id(u64);"),
        digest("#[derive(Serialize, Clone)] struct Id(u64);")
    );
    assert_eq!(
        digest("#[derive(Debug)] #[serde(transparent)] struct Id(u64);"),
        digest("#[serde(transparent)] struct Id(u64);")
    );
    assert_ne!(
        digest("#[derive(Serialize)] struct Id(u64);"),
        digest("#[derive(Deserialize)] struct Id(u64);")
    );
}
