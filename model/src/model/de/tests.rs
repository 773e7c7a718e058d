//! The hand-written readings against serde's derive: every variant round-trips, keys in any order read
//! the same, and on a corpus (every variant's JSON and its mutations, the fuzz corpus's models) the fast
//! reading and the derive's give the same value or both an error. Every fixture's extracted model is
//! read back in `extract::read_back_tests`.

use std::fmt::Debug;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::Tagged;
use super::agreement::{agree_on, derived, entries, object, orders, reads_as_the_derive, walk};
use crate::model::{
    Body, ContainerAttrs, EnumRepr, Field, Location, SeqKind, Style, Ty, TypeDef, Variant,
};

/// The index of a variant of `Ty`; a new variant fails to compile here until it is given one (and a
/// sample in [`tys`], which [`every_variant_has_a_sample`] checks).
fn ty_variant(ty: &Ty) -> usize {
    match ty {
        Ty::Bool => 0,
        Ty::Char => 1,
        Ty::String => 2,
        Ty::Int { .. } => 3,
        Ty::Float { .. } => 4,
        Ty::Unit => 5,
        Ty::Option { .. } => 6,
        Ty::Seq { .. } => 7,
        Ty::Array { .. } => 8,
        Ty::Tuple { .. } => 9,
        Ty::Map { .. } => 10,
        Ty::Value => 11,
        Ty::Named { .. } => 12,
        Ty::Param { .. } => 13,
        Ty::External { .. } => 14,
        Ty::Refined { .. } => 15,
        Ty::Readable { .. } => 16,
        Ty::Bytes => 17,
        Ty::Choice { .. } => 18,
    }
}
const TY_VARIANTS: usize = 19;

/// As [`ty_variant`], for `Body`.
fn body_variant(body: &Body) -> usize {
    match body {
        Body::Struct { .. } => 0,
        Body::Enum { .. } => 1,
        Body::Alias { .. } => 2,
    }
}
const BODY_VARIANTS: usize = 3;

/// As [`ty_variant`], for `EnumRepr`.
fn repr_variant(repr: &EnumRepr) -> usize {
    match repr {
        EnumRepr::External => 0,
        EnumRepr::Internal { .. } => 1,
        EnumRepr::Adjacent { .. } => 2,
        EnumRepr::Untagged => 3,
        EnumRepr::Integer { .. } => 4,
    }
}
const REPR_VARIANTS: usize = 5;

fn named(path: &str, args: Vec<Ty>) -> Ty {
    Ty::Named {
        path: path.to_owned(),
        args,
    }
}

/// Every variant of `Ty`, with optional fields present and absent, nested in one another.
fn tys() -> Vec<Ty> {
    let int = Ty::Int {
        signed: true,
        bits: 32,
    };
    let refined = |within: Vec<String>, outside: Option<&str>, extent: bool| Ty::Refined {
        base: Box::new(int.clone()),
        domain: "nonzero".to_owned(),
        within,
        sample: "1".to_owned(),
        outside: outside.map(str::to_owned),
        extent: extent.then(|| ("-2147483648".to_owned(), "2147483647".to_owned())),
    };
    vec![
        Ty::Bool,
        Ty::Char,
        Ty::String,
        int.clone(),
        Ty::Float { bits: 64 },
        Ty::Unit,
        Ty::Option {
            inner: Box::new(named("c::A", vec![Ty::String])),
        },
        Ty::Seq {
            kind: SeqKind::Set,
            elem: Box::new(Ty::Option {
                inner: Box::new(int.clone()),
            }),
        },
        Ty::Array {
            elem: Box::new(Ty::Bytes),
            len: 16,
        },
        Ty::Tuple {
            elems: vec![Ty::Unit, Ty::Char, Ty::Value],
        },
        Ty::Map {
            key: Box::new(Ty::String),
            value: Box::new(Ty::Seq {
                kind: SeqKind::List,
                elem: Box::new(Ty::Param {
                    name: "T".to_owned(),
                }),
            }),
        },
        Ty::Value,
        named("c::B", vec![]),
        Ty::Param {
            name: "T".to_owned(),
        },
        Ty::external("url::Url"),
        Ty::External {
            path: "uuid::Uuid".to_owned(),
            package: Some("uuid 1.0.0".to_owned()),
            source: None,
        },
        refined(vec![], None, false),
        refined(vec!["integer".to_owned()], Some("0"), true),
        Ty::Readable {
            human: Box::new(Ty::String),
            compact: Box::new(Ty::Array {
                elem: Box::new(Ty::Int {
                    signed: false,
                    bits: 8,
                }),
                len: 4,
            }),
        },
        Ty::Bytes,
        Ty::Choice {
            writes: Box::new(Ty::String),
            reads: vec![Ty::String, Ty::Bytes],
        },
    ]
}

fn field(name: &str, ty: Ty) -> Field {
    Field {
        rust_name: name.to_owned(),
        ser_name: name.to_owned(),
        de_names: vec![name.to_owned()],
        ty,
        default: false,
        skip_ser: Default::default(),
        skip_de: false,
        flatten: false,
        custom: None,
        since: None,
        allow: None,
        location: Location::default(),
    }
}

/// Every variant of `Body`.
fn bodies() -> Vec<Body> {
    vec![
        Body::Struct {
            style: Style::Named,
            fields: vec![field("a", Ty::Bool), field("b", named("c::A", vec![]))],
        },
        Body::Struct {
            style: Style::Unit,
            fields: vec![],
        },
        Body::Enum {
            variants: vec![
                Variant::plain("A", Style::Unit, vec![], Location::default()),
                Variant::plain(
                    "B",
                    Style::Tuple,
                    vec![field("0", Ty::String)],
                    Location::default(),
                ),
            ],
        },
        Body::Alias {
            target: Ty::Option {
                inner: Box::new(Ty::Bool),
            },
        },
    ]
}

/// Every variant of `EnumRepr`.
fn reprs() -> Vec<EnumRepr> {
    vec![
        EnumRepr::External,
        EnumRepr::Internal {
            tag: "type".to_owned(),
        },
        EnumRepr::Adjacent {
            tag: "t".to_owned(),
            content: "c".to_owned(),
        },
        EnumRepr::Untagged,
        EnumRepr::Integer {
            signed: true,
            bits: 8,
        },
    ]
}

/// Type definitions holding every sample, so that the enums are also read nested in the model.
fn defs() -> Vec<TypeDef> {
    let def = |body: Body, repr: EnumRepr| TypeDef {
        path: "c::T".to_owned(),
        generics: vec!["T".to_owned()],
        attrs: ContainerAttrs {
            ser_name: "T".to_owned(),
            repr,
            ..ContainerAttrs::default()
        },
        body,
        location: Location::default(),
        package: None,
    };
    let mut defs: Vec<TypeDef> = bodies()
        .into_iter()
        .zip(reprs().into_iter().cycle())
        .map(|(b, r)| def(b, r))
        .collect();
    defs.push(def(
        Body::Struct {
            style: Style::Tuple,
            fields: tys()
                .into_iter()
                .enumerate()
                .map(|(i, t)| field(&i.to_string(), t))
                .collect(),
        },
        EnumRepr::Untagged,
    ));
    defs
}

/// Every sample's JSON, as the derived `Serialize` writes it.
fn samples() -> Vec<String> {
    let json = |v: &dyn erased::Json| v.json();
    let mut out: Vec<String> = tys().iter().map(|t| json(t)).collect();
    out.extend(bodies().iter().map(|b| json(b)));
    out.extend(reprs().iter().map(|r| json(r)));
    out.extend(defs().iter().map(|d| json(d)));
    out
}

mod erased {
    /// A value serialized to JSON, whatever its type.
    pub(super) trait Json {
        fn json(&self) -> String;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).expect("serializes")
        }
    }
}

#[test]
fn every_variant_has_a_sample() {
    let covered = |indices: Vec<usize>, count: usize| {
        (0..count)
            .filter(|i| !indices.contains(i))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        covered(tys().iter().map(ty_variant).collect(), TY_VARIANTS),
        Vec::<usize>::new()
    );
    assert_eq!(
        covered(bodies().iter().map(body_variant).collect(), BODY_VARIANTS),
        Vec::<usize>::new()
    );
    assert_eq!(
        covered(reprs().iter().map(repr_variant).collect(), REPR_VARIANTS),
        Vec::<usize>::new()
    );
}

/// `value` written by the derived `Serialize`, read by the fast reading and the derive's: both give it back.
fn round_trips<T>(value: &T)
where
    T: Tagged + Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
    for<'a> Twin<'a, T>: Serialize,
{
    let json = serde_json::to_string(value).expect("serializes");
    let twin = serde_json::to_string(&Twin(value)).expect("serializes");
    assert_eq!(twin, json, "the twin writes what the enum writes");
    assert_eq!(&serde_json::from_str::<T>(&json).expect(&json), value);
    assert_eq!(&derived::<T>(&json).expect(&json), value);
}

/// A value written by its buffered twin's derived `Serialize` (the twin's attributes are the enum's).
struct Twin<'a, T>(&'a T);

macro_rules! twin_serialize {
    ($($ty:ty => $twin:ty),*) => {$(
        impl Serialize for Twin<'_, $ty> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$twin>::serialize(self.0, s)
            }
        }
    )*};
}

twin_serialize!(Ty => super::TyBuffered, Body => super::BodyBuffered, EnumRepr => super::EnumReprBuffered);

#[test]
fn every_variant_round_trips() {
    tys().iter().for_each(round_trips);
    bodies().iter().for_each(round_trips);
    reprs().iter().for_each(round_trips);
    for def in defs() {
        let json = serde_json::to_string(&def).expect("serializes");
        assert_eq!(serde_json::from_str::<TypeDef>(&json).expect(&json), def);
    }
}

#[test]
fn the_tag_is_written_first() {
    for ty in tys() {
        let json = serde_json::to_string(&ty).expect("serializes");
        assert!(json.starts_with("{\"t\":"), "{json}");
    }
    for json in samples()
        .iter()
        .skip(tys().len())
        .take(bodies().len() + reprs().len())
    {
        assert!(json.starts_with("{\"kind\":"), "{json}");
    }
}

#[test]
fn keys_in_any_order_read_the_same() {
    let check = |json: String, read: &dyn Fn(&str) -> bool| {
        let entries = entries(&json).expect("an object");
        for order in orders(&entries) {
            assert!(read(&order), "{order} (from {json})");
        }
    };
    for ty in tys() {
        let same = |s: &str| serde_json::from_str::<Ty>(s).ok().as_ref() == Some(&ty);
        check(serde_json::to_string(&ty).expect("serializes"), &same);
    }
    for body in bodies() {
        let same = |s: &str| serde_json::from_str::<Body>(s).ok().as_ref() == Some(&body);
        check(serde_json::to_string(&body).expect("serializes"), &same);
    }
    for repr in reprs() {
        let same = |s: &str| serde_json::from_str::<EnumRepr>(s).ok().as_ref() == Some(&repr);
        check(serde_json::to_string(&repr).expect("serializes"), &same);
    }
}

/// Errors of one fault say what the derive says (without serde_json's position).
#[test]
fn single_faults_give_the_derives_error() {
    let cases = [
        "5",
        "\"int\"",
        "null",
        "{}",
        "[]",
        "{\"t\":\"nope\"}",
        "{\"t\":5}",
        "{\"t\":\"int\",\"signed\":true}",
        "{\"t\":\"int\",\"signed\":true,\"bits\":8,\"t\":\"int\"}",
        "{\"signed\":true,\"t\":\"int\"}",
        "{\"t\":\"int\",\"signed\":true,\"bits\":300}",
        "{\"t\":\"option\",\"inner\":{\"t\":\"bool\",\"t\":\"bool\"}}",
    ];
    let message = |e: serde_json::Error| {
        let text = e.to_string();
        text.split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    for json in cases {
        let fast = serde_json::from_str::<Ty>(json).map_err(message);
        let derived = derived::<Ty>(json).map_err(message);
        assert!(fast.is_err(), "{json}");
        assert_eq!(fast, derived, "{json}");
    }
}

#[test]
fn mutated_samples_read_as_the_derive_reads_them() {
    let mut corpus = Vec::new();
    for json in samples() {
        walk(&json, &mut corpus);
    }
    let mut mutated = Vec::new();
    for json in &corpus {
        mutations(json, &mut mutated);
    }
    assert!(mutated.len() > 1000, "{}", mutated.len());
    corpus.extend(mutated);
    corpus.extend(
        [
            "5",
            "\"bool\"",
            "null",
            "true",
            "[]",
            "[\"int\",true,8]",
            "[\"bool\"]",
            "[\"nope\"]",
        ]
        .map(str::to_owned),
    );
    corpus.extend(
        [
            "[\"alias\",{\"t\":\"bool\"}]",
            "[\"internal\",\"type\"]",
            "{\"\\u0074\":\"bool\"}",
        ]
        .map(str::to_owned),
    );
    corpus.iter().for_each(|json| agree_on(json));
}

#[test]
fn the_fuzz_corpus_reads_as_the_derive_reads_it() {
    // The workspace's fuzz corpus, beside this crate.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/compare");
    let mut models = 0;
    for entry in std::fs::read_dir(&dir).expect("the fuzz corpus") {
        let bytes = std::fs::read(entry.expect("an entry").path()).expect("readable");
        if bytes.first() != Some(&0) {
            continue;
        }
        for part in bytes[1..].split(|&b| b == 0) {
            let Ok(json) = std::str::from_utf8(part) else {
                continue;
            };
            reads_as_the_derive(json);
            models += 1;
        }
    }
    assert!(models >= 2, "{models} models in {}", dir.display());
}

/// Objects with one fault or oddity each: a key left out, null, repeated or moved last; an unknown key
/// first or last; the tag's value of another type; the values as an array; no keys.
fn mutations(json: &str, out: &mut Vec<String>) {
    let Some(entries) = entries(json) else {
        return;
    };
    let raw = |s: &str| RawValue::from_string(s.to_owned()).expect("JSON");
    let (null, unknown, five) = (raw("null"), raw("{\"x\":[1]}"), raw("5"));
    for i in 0..entries.len() {
        let mut e = entries.clone();
        e.remove(i);
        out.push(object(&e));
        let mut e = entries.clone();
        e[i].1 = &null;
        out.push(object(&e));
        let mut e = entries.clone();
        e[i].1 = &five;
        out.push(object(&e));
        let mut e = entries.clone();
        e.push(entries[i].clone());
        out.push(object(&e));
        let mut e = entries.clone();
        let (key, value) = e.remove(i);
        e.push((key, value));
        out.push(object(&e));
    }
    let mut e = entries.clone();
    e.push(("zz".to_owned(), &unknown));
    out.push(object(&e));
    e.rotate_right(1);
    out.push(object(&e));
    let values: Vec<&str> = entries.iter().map(|(_, v)| v.get()).collect();
    out.push(format!("[{}]", values.join(",")));
    out.push("{}".to_owned());
}
