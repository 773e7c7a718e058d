//! Unit tests of the readers of hand-written impls.
use super::*;

fn item(text: &str) -> ItemImpl {
    syn::parse_str(text).expect("an impl")
}

fn field(variant: Option<&str>, member: &str) -> Value {
    Value::Field {
        variant: variant.map(str::to_owned),
        member: member.to_owned(),
    }
}

#[test]
fn serialize_bodies_name_what_they_write() {
    let cases = [
        (
            "serializer.serialize_u32(self.0)",
            vec![Value::Primitive("u32".into())],
        ),
        ("s.serialize_str(self.as_str())", vec![Value::Text(None)]),
        (
            "self.0.as_str().serialize(s)",
            vec![Value::Text(Some(Box::new(field(None, "0"))))],
        ),
        (
            "serde::Serialize::serialize(&self.inner, s)",
            vec![field(None, "inner")],
        ),
        (
            "<u64 as Serialize>::serialize(&self.0, s)",
            vec![Value::Type(syn::parse_str("u64").unwrap())],
        ),
        (
            "s.collect_str(&self.0)",
            vec![Value::Text(Some(Box::new(field(None, "0"))))],
        ),
        (
            "{ let text = self.0.to_string(); s.serialize_str(&text) }",
            vec![Value::Text(Some(Box::new(field(None, "0"))))],
        ),
        (
            "match self { Id::Number(n) => s.serialize_u32(*n), Id::Text(t) => s.serialize_str(t) }",
            vec![
                Value::Primitive("u32".into()),
                Value::Text(Some(Box::new(field(Some("Text"), "0")))),
            ],
        ),
        (
            "match self { Level::None => 0.serialize(s), Level::Deep => (-2i64).serialize(s) }",
            vec![Value::Int(0, "i32".into()), Value::Int(-2, "i64".into())],
        ),
        (
            "match *self { Kind::A => \"a\".serialize(s), Kind::B => s.serialize_str(\"b\") }",
            vec![
                Value::Const("a".into()),
                Value::Text(Some(Box::new(Value::Const("b".into())))),
            ],
        ),
    ];
    for (body, expected) in cases {
        let text = format!(
            "impl Serialize for X {{ fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {{ {body} }} }}"
        )
        .replace("s: S", if body.starts_with("serializer") { "serializer: S" } else { "s: S" });
        assert_eq!(serialized(&item(&text)), Some(expected), "{body}");
    }
    for body in [
        "let mut map = s.serialize_map(None)?; map.end()",
        "if self.0 > 1 { s.serialize_u8(1) } else { todo!() }",
        "other(self, s)",
    ] {
        let text = format!(
            "impl Serialize for X {{ fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {{ {body} }} }}"
        );
        assert!(serialized(&item(&text)).is_none(), "{body}");
    }
}

fn text(ty: Option<&syn::Type>) -> String {
    ty.map(crate::extract::syntax::tokens_text)
        .unwrap_or_default()
}

fn reading(body: &str) -> Option<Reading> {
    deserialized(&item(&format!(
        "impl<'de> Deserialize<'de> for X {{ fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{ {body} }} }}"
    )))
}

#[test]
fn deserialize_bodies_name_what_they_read() {
    let Some(Reading::Delegated {
        ty,
        fallible: false,
        parsed_into: None,
        local: None,
        only: None,
    }) = reading("u32::deserialize(d).map(X)")
    else {
        panic!()
    };
    assert_eq!(text(ty.as_deref()), "u32");
    let Some(Reading::Delegated {
        ty,
        fallible: false,
        local: Some(_),
        ..
    }) = reading(
        "#[derive(Deserialize)] struct Helper { a: u8 } let h: Helper = Deserialize::deserialize(d)?; Ok(X { a: h.a })",
    )
    else {
        panic!()
    };
    assert_eq!(text(ty.as_deref()), "Helper");
    let Some(Reading::Delegated {
        fallible: true,
        parsed_into: Some(into),
        ..
    }) = reading(
        "let s = String::deserialize(d)?; Uri::parse(s).map(X).map_err(serde::de::Error::custom)",
    )
    else {
        panic!()
    };
    assert!(into.is_ident("Uri"));
    let Some(Reading::Visitor {
        method, visitor, ..
    }) = reading("d.deserialize_any(IdVisitor)")
    else {
        panic!()
    };
    assert_eq!(
        (method.as_str(), visitor.is_ident("IdVisitor")),
        ("deserialize_any", true)
    );
    assert!(reading("let a = u8::deserialize(d)?; let b = u8::deserialize(d)?; Ok(X)").is_none());
    assert!(reading("d.deserialize_map(X::visitor())").is_some());
}

#[test]
fn visitors_accept_what_their_methods_visit() {
    let visitor = item(
        "impl<'de> Visitor<'de> for V { type Value = Id;
         fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result { f.write_str(\"an id\") }
         fn visit_u64<E: Error>(self, v: u64) -> Result<Id, E> { u32::try_from(v).map(Id::Number).map_err(E::custom) }
         fn visit_str<E: Error>(self, v: &str) -> Result<Id, E> { Ok(Id::Text(v.to_owned())) }
         fn visit_string<E: Error>(self, v: String) -> Result<Id, E> { Ok(Id::Text(v)) } }",
    );
    assert_eq!(
        visited(&visitor),
        vec![
            Accepts::Int {
                negative: false,
                into: Some((false, 32))
            },
            Accepts::Str { parsed: false },
        ]
    );
}

fn function(text: &str) -> syn::ItemFn {
    syn::parse_str(text).expect("a function")
}

#[test]
fn with_serializers_name_what_they_write() {
    let value = field(None, WITH_VALUE);
    let cases = [
        ("v.serialize(s)", vec![value.clone()]),
        (
            "s.collect_str(v)",
            vec![Value::Text(Some(Box::new(value.clone())))],
        ),
        (
            "let secs = v.duration_since(UNIX_EPOCH).map_err(Error::custom)?.as_secs_f64(); secs.serialize(s)",
            vec![Value::Primitive("f64".into())],
        ),
        (
            "s.serialize_i64(v.timestamp() as i64)",
            vec![Value::Cast("i64".into())],
        ),
        (
            "(v.as_millis() as u64).serialize(s)",
            vec![Value::Cast("u64".into())],
        ),
        (
            "s.serialize_str(&format!(\"{v:x}\"))",
            vec![Value::Text(None)],
        ),
    ];
    for (body, expected) in cases {
        let text = format!(
            "fn serialize<S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {{ {body} }}"
        );
        assert_eq!(with_serialized(&function(&text)), Some(expected), "{body}");
    }
    // A serializer that writes a map, or a function with no value to write, is not read.
    for text in [
        "fn serialize<S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> { let m = s.serialize_map(None)?; m.end() }",
        "fn serialize<S: Serializer>(s: S) -> Result<S::Ok, S::Error> { s.serialize_u8(1) }",
    ] {
        assert!(with_serialized(&function(text)).is_none(), "{text}");
    }
}

#[test]
fn with_deserializers_name_what_they_read_and_return() {
    let read = |body: &str, returns: &str| {
        with_deserialized(&function(&format!(
            "fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<{returns}, D::Error> {{ {body} }}"
        )))
    };
    let Some((
        Reading::Delegated {
            ty,
            fallible: false,
            ..
        },
        returned,
    )) = read(
        "let secs = f64::deserialize(d)?; Ok(UNIX_EPOCH + Duration::from_secs_f64(secs))",
        "SystemTime",
    )
    else {
        panic!()
    };
    assert_eq!(
        (text(ty.as_deref()), text(Some(&returned))),
        ("f64".to_owned(), "SystemTime".to_owned())
    );
    let Some((Reading::Delegated { fallible: true, .. }, _)) = read(
        "let text = String::deserialize(d)?; text.parse().map_err(serde::de::Error::custom)",
        "u64",
    ) else {
        panic!()
    };
    assert!(read("T::deserialize(d)", "T").is_some());
    assert!(
        with_deserialized(&function(
            "fn deserialize<'de, D: Deserializer<'de>>(d: D) -> u8 { 0 }"
        ))
        .is_none()
    );
}
