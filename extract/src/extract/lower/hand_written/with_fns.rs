//! A field's own `serialize_with` / `deserialize_with` functions (or the two of a `with` module),
//! read where they are functions of the crate, with the readers of hand-written impls (`read`).
//!
//! - Every function read exactly (`serializer.serialize_f64(..)`, `value.serialize(serializer)`,
//!   `String::deserialize(deserializer)` with no conversion that may fail): the field's type is what
//!   they write and read, and the field is no longer custom.
//! - Otherwise (a function read in part, or not at all): the field's type is a definition of its
//!   own, named after the functions and the field's type, whose written shape is what the
//!   serializer was read to write (an opaque type named by the function where it was not read), and
//!   whose `from` proxy is what the deserializer reads; the digests of the functions not read
//!   exactly are its `hand_written` sources, so that an unchanged function is no finding and a
//!   changed one is `serde_impl_changed` at both functions' locations. No writer's value is ever
//!   sampled through a function that was not read: its shape is opaque.
//! - A function that is not one of the crate's (another crate's, or not found): the field stays
//!   custom, compared by the functions' names, as before.
//!
//! Every name is resolved through the `Revision` (recorded), and every function's source through
//! `Revision::fn_source` (recorded by its digest).

use super::super::super::names::{FnSource, NameTarget};
use super::super::super::syntax::tokens_text;
use super::super::{Lowering, TypeScope};
use super::ReadSide;
use super::read::{self, Reading, Value};
use crate::model::{Body, ContainerAttrs, Field, HandWritten, Location, Proxy, Ty, TypeDef};

/// One of a field's functions, found in the crate and read as far as it can be.
struct WithFn {
    /// Its full path (`krate::helpers::ts::serialize`).
    path: String,
    /// What it was read to write or accept; `None` when it was not read.
    side: Option<ReadSide>,
    /// The digest of its source.
    digest: String,
    location: Location,
}

impl<'a> Lowering<'a> {
    /// Replaces a custom field's functions by what they write and read where every one of them is
    /// a function of the crate (see the module documentation).
    pub(in crate::extract::lower) fn with_functions(
        &mut self,
        scope: &TypeScope<'_>,
        field: &mut Field,
        reached: &mut Vec<usize>,
    ) {
        let Some(custom) = field.custom.clone() else {
            return;
        };
        let mut found = [None, None];
        for (slot, (path, serializes)) in found
            .iter_mut()
            .zip([(custom.ser.as_deref(), true), (custom.de.as_deref(), false)])
        {
            if let Some(path) = path {
                match self.with_fn(scope, path, serializes, &field.ty, reached) {
                    Some(function) => *slot = Some(function),
                    None => return,
                }
            }
        }
        let [ser, de] = found;
        let exact = |function: &Option<WithFn>| {
            function
                .as_ref()
                .is_none_or(|f| f.side.as_ref().is_some_and(|s| s.exact && !s.fallible))
        };
        // A side not read is opaque, named by the field's functions together: the same opaque type
        // on both sides of an unread pair, so that it is compared by the functions' digests alone.
        let opaque = Ty::external(with_path(&ser, &de, &field.ty));
        let side_ty = |function: &Option<WithFn>| match function {
            None => field.ty.clone(),
            Some(WithFn {
                side: Some(side), ..
            }) => side.ty.clone(),
            Some(WithFn { .. }) => opaque.clone(),
        };
        let (written, read) = (side_ty(&ser), side_ty(&de));
        let ty = if exact(&ser) && exact(&de) {
            if written == read {
                written
            } else {
                Ty::Choice {
                    writes: Box::new(written),
                    reads: vec![read],
                }
            }
        } else {
            self.with_def(&field.ty, &ser, &de, written, read)
        };
        field.custom = None;
        // serde's missing-field rule holds only for derived reads: an `Option` read by a function is
        // required unless the field has a default, which a choice of one reading says.
        field.ty = match ty {
            ty @ Ty::Option { .. } if de.is_some() && !field.default => Ty::Choice {
                writes: Box::new(ty.clone()),
                reads: vec![ty],
            },
            ty => ty,
        };
    }

    /// The definition standing for a field behind functions not all read exactly.
    fn with_def(
        &mut self,
        field_ty: &Ty,
        ser: &Option<WithFn>,
        de: &Option<WithFn>,
        written: Ty,
        read: Ty,
    ) -> Ty {
        let path = with_path(ser, de, field_ty);
        let inexact = |function: &Option<WithFn>| {
            function.as_ref().and_then(|f| {
                f.side
                    .as_ref()
                    .is_none_or(|s| !s.exact || s.fallible)
                    .then(|| f.digest.clone())
            })
        };
        let fallible = de
            .as_ref()
            .and_then(|f| f.side.as_ref())
            .is_some_and(|s| s.fallible);
        let location = [ser, de]
            .into_iter()
            .flatten()
            .map(|f| f.location.clone())
            .next()
            .unwrap_or_default();
        let def = TypeDef {
            path: path.clone(),
            generics: Vec::new(),
            attrs: ContainerAttrs {
                ser_name: path.clone(),
                from: (read != written || fallible).then_some(Proxy { ty: read, fallible }),
                hand_written: Some(HandWritten {
                    ser: inexact(ser),
                    de: inexact(de),
                }),
                ..ContainerAttrs::default()
            },
            body: Body::Alias { target: written },
            location,
            package: None,
        };
        self.rev.add_known_defs(vec![def]);
        Ty::Named {
            path,
            args: Vec::new(),
        }
    }

    /// The function `path` names in the field's scope, when it is a function of the crate, read as
    /// a serializer (`serializes`) or a deserializer of a field of type `field_ty`.
    fn with_fn(
        &mut self,
        scope: &TypeScope<'_>,
        path: &str,
        serializes: bool,
        field_ty: &Ty,
        reached: &mut Vec<usize>,
    ) -> Option<WithFn> {
        let segments: Vec<String> = path
            .trim_start_matches("::")
            .split("::")
            .map(str::to_owned)
            .collect();
        let source = self.fn_named(scope.module, &segments)?;
        let generics: Vec<String> = source
            .item
            .sig
            .generics
            .type_params()
            .map(|param| param.ident.to_string())
            .collect();
        let fn_scope = TypeScope {
            module: &source.module,
            generics: &generics,
            file: source.file,
        };
        let mut full = source.module.clone();
        full.push(source.item.sig.ident.to_string());
        let path = full.join("::");
        let side = if serializes {
            self.with_written(&fn_scope, source.item, &path, field_ty, reached)
        } else {
            self.with_read(&fn_scope, source.item, field_ty, reached)
        };
        Some(WithFn {
            path,
            side,
            digest: source.digest.clone(),
            location: source.location.clone(),
        })
    }

    /// The function `segments` names in `module`, found as rustc finds a value: the path before
    /// its last segment is a module (types and modules are what `resolve` follows), and the last is
    /// a function of that module, or of the module itself for a lone name; else whatever a `use`
    /// leads the whole path to. A name no item of the module answers never resolves through a
    /// glob import to something of the same name elsewhere first (`use crate::prelude::*` brings
    /// no function `serialize`).
    fn fn_named(
        &mut self,
        module: &[String],
        segments: &[String],
    ) -> Option<std::rc::Rc<FnSource<'a>>> {
        let (name, prefix) = segments.split_last()?;
        let owner = if prefix.is_empty() {
            Some(module.to_vec())
        } else {
            match self.rev.resolve(module, prefix).target {
                NameTarget::Module(owner) => Some(owner),
                _ => None,
            }
        };
        if let Some(mut owner) = owner {
            owner.push(name.clone());
            if let Some(found) = self.rev.fn_source(&owner) {
                return Some(found);
            }
        }
        match self.rev.resolve(module, segments).target {
            NameTarget::External(full) => self.rev.fn_source(&full),
            _ => None,
        }
    }

    /// What a `serialize_with` function (at `path`) writes for a field of type `field_ty`.
    fn with_written(
        &mut self,
        fn_scope: &TypeScope<'_>,
        function: &syn::ItemFn,
        path: &str,
        field_ty: &Ty,
        reached: &mut Vec<usize>,
    ) -> Option<ReadSide> {
        let values = read::with_serialized(function)?;
        let mut exact = true;
        let mut written = Vec::new();
        for value in &values {
            let (ty, value_exact) = self.with_value_ty(fn_scope, value, field_ty, reached)?;
            exact &= value_exact;
            if !written.contains(&ty) {
                written.push(ty);
            }
        }
        let ty = match written.as_slice() {
            [one] => one.clone(),
            _ => self.union_of(&format!("{path}<{field_ty}>"), "written", written),
        };
        Some(ReadSide {
            ty,
            exact,
            fallible: false,
        })
    }

    /// The model of a value a `serialize_with` body writes, and whether it is exactly that.
    fn with_value_ty(
        &mut self,
        fn_scope: &TypeScope<'_>,
        value: &Value,
        field_ty: &Ty,
        reached: &mut Vec<usize>,
    ) -> Option<(Ty, bool)> {
        match value {
            Value::Field {
                variant: None,
                member,
            } if member == read::WITH_VALUE => Some((field_ty.clone(), true)),
            Value::Field { .. } => None,
            Value::Text(Some(inner)) => {
                let (ty, exact) = self.with_value_ty(fn_scope, inner, field_ty, reached)?;
                Some(if super::is_text(&ty) {
                    (ty, exact)
                } else {
                    (unknown_text(), false)
                })
            }
            Value::Text(None) => Some((unknown_text(), false)),
            Value::Const(text) => Some((super::constant(text), true)),
            Value::Int(value, ty) => Some((super::int_constant(*value, ty)?, true)),
            Value::Primitive(name) => Some((super::primitive(name)?, true)),
            Value::Cast(name) => Some((super::cast_to(super::primitive(name)?, name), true)),
            Value::Type(ty) => Some((self.fn_ty(fn_scope, ty, field_ty, reached)?, true)),
            Value::Collected { of, into } => {
                let (ty, exact) = self.with_value_ty(fn_scope, of, field_ty, reached)?;
                Some((super::recollected(&ty, *into)?, exact))
            }
        }
    }

    /// What a `deserialize_with` function reads for a field of type `field_ty`.
    fn with_read(
        &mut self,
        fn_scope: &TypeScope<'_>,
        function: &syn::ItemFn,
        field_ty: &Ty,
        reached: &mut Vec<usize>,
    ) -> Option<ReadSide> {
        let (reading, returned) = read::with_deserialized(function)?;
        match reading {
            Reading::Delegated {
                ty,
                fallible,
                local: None,
                ..
            } => {
                let delegated = ty.as_deref().unwrap_or(&returned);
                let base = if same_type(delegated, &returned) {
                    field_ty.clone()
                } else {
                    self.fn_ty(fn_scope, delegated, field_ty, reached)?
                };
                if fallible {
                    // What the conversion accepts of the base is not known.
                    return Some(ReadSide {
                        ty: base,
                        exact: false,
                        fallible: true,
                    });
                }
                Some(ReadSide {
                    ty: base,
                    exact: true,
                    fallible: false,
                })
            }
            Reading::Delegated { local: Some(_), .. } => None,
            Reading::Visitor {
                method,
                visitor,
                local,
            } => self.read_visitor(fn_scope, &method, &visitor, local.as_deref()),
        }
    }

    /// The model of a type named in a function: one of its type parameters is the field's type
    /// (`T::deserialize`, `<T as Serialize>::serialize`); `None` for a type that names one in
    /// another way (`Vec<T>`).
    fn fn_ty(
        &mut self,
        fn_scope: &TypeScope<'_>,
        ty: &syn::Type,
        field_ty: &Ty,
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let text = tokens_text(ty);
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .collect();
        match words.as_slice() {
            [one] if fn_scope.generics.iter().any(|g| g == one) => Some(field_ty.clone()),
            words
                if words
                    .iter()
                    .any(|w| fn_scope.generics.iter().any(|g| g == w)) =>
            {
                None
            }
            _ => Some(self.ty(fn_scope, ty, reached)),
        }
    }
}

/// The name of what a field's functions write and read: `<functions for type>`.
fn with_path(ser: &Option<WithFn>, de: &Option<WithFn>, field_ty: &Ty) -> String {
    let names: Vec<&str> = [ser, de]
        .into_iter()
        .flatten()
        .map(|f| f.path.as_str())
        .collect();
    format!(
        "<{} for {}>",
        names.join(" and "),
        field_ty.without_packages()
    )
}

/// A string whose text is not known (`format!(..)`, `x.to_string()`): a refined string without a
/// sample, so that no witness is built from it.
fn unknown_text() -> Ty {
    Ty::Refined {
        base: Box::new(Ty::String),
        domain: "the text a custom serializer writes".to_owned(),
        within: Vec::new(),
        sample: String::new(),
        outside: None,
        extent: None,
    }
}

/// Whether two types as written are the same, a turbofish aside (`Option::<T>` and `Option<T>`).
fn same_type(a: &syn::Type, b: &syn::Type) -> bool {
    let text = |ty: &syn::Type| tokens_text(ty).replace(' ', "").replace("::<", "<");
    text(a) == text(b)
}

#[cfg(test)]
mod tests {
    use crate::extract::snapshot_from_sources;
    use crate::model::{Body, Snapshot, Ty, TypeDef};

    const HEADER: &str = "use serde::{Deserialize, Deserializer, Serialize, Serializer};\nuse std::time::{Duration, SystemTime, UNIX_EPOCH};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n";

    fn snap(rest: &str) -> Snapshot {
        let lib = format!("{HEADER}{rest}");
        snapshot_from_sources(
            "demo",
            &[
                ("src/lib.rs", &lib),
                ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ],
        )
        .expect("extracts")
    }

    fn message(fields: &str) -> String {
        format!(
            "#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {{ {fields} }}\n"
        )
    }

    fn field_ty(s: &Snapshot) -> &Ty {
        let Body::Struct { fields, .. } = &s.types["demo::M"].body else {
            panic!("a struct")
        };
        assert!(fields[0].custom.is_none(), "{:?}", fields[0]);
        &fields[0].ty
    }

    fn def<'s>(s: &'s Snapshot, ty: &Ty) -> &'s TypeDef {
        let Ty::Named { path, .. } = ty else {
            panic!("{ty:?}")
        };
        &s.types[path]
    }

    const TS_FLOAT: &str = "mod ts {\n    use super::*;\n    pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {\n        let secs = t.duration_since(UNIX_EPOCH).map_err(serde::ser::Error::custom)?.as_secs_f64();\n        s.serialize_f64(secs)\n    }\n    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {\n        let secs = f64::deserialize(d)?;\n        Ok(UNIX_EPOCH + Duration::from_secs_f64(secs))\n    }\n}\n";

    #[test]
    fn a_with_module_read_exactly_is_what_it_writes() {
        let s = snap(&format!(
            "{}{TS_FLOAT}",
            message("#[serde(with = \"ts\")] pub at: SystemTime")
        ));
        assert_eq!(field_ty(&s), &Ty::Float { bits: 64 });
        // `SystemTime`'s own definition, known before the functions were read, is reached by nothing:
        // the model holds what its messages reach, so its protocol's part joins back into it.
        assert!(
            !s.types.contains_key("std::time::SystemTime"),
            "{:?}",
            s.types.keys()
        );
        let part = s.protocol_part("p", |_| true);
        assert_eq!(Snapshot::join([&part], s.notes.clone()), s);
    }

    #[test]
    fn generic_pass_through_functions_are_the_field_type() {
        let helpers = "pub mod helpers {\n    use serde::{Deserialize, Deserializer, Serialize, Serializer};\n    pub fn de_opt<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> { Option::<T>::deserialize(d) }\n    pub mod same {\n        use serde::{Deserialize, Deserializer, Serialize, Serializer};\n        pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> { v.serialize(s) }\n        pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> { T::deserialize(d) }\n    }\n}\n";
        let s = snap(&format!(
            "{}{helpers}",
            message("#[serde(with = \"crate::helpers::same\")] pub n: u32")
        ));
        assert_eq!(
            field_ty(&s),
            &Ty::Int {
                signed: false,
                bits: 32
            }
        );
        let s = snap(&format!(
            "{}{helpers}",
            message("#[serde(deserialize_with = \"crate::helpers::de_opt\")] pub n: Option<u8>")
        ));
        let option = Ty::Option {
            inner: Box::new(Ty::Int {
                signed: false,
                bits: 8,
            }),
        };
        // Required: serde's missing-field rule is the derive's only.
        assert_eq!(
            field_ty(&s),
            &Ty::Choice {
                writes: Box::new(option.clone()),
                reads: vec![option]
            }
        );
    }

    #[test]
    fn text_written_and_parsed_is_a_definition_with_the_functions_digests() {
        let module = "mod hex {\n    use super::*;\n    pub fn ser<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(&format!(\"{id:x}\")) }\n    pub fn de<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {\n        let text = String::deserialize(d)?;\n        u64::from_str_radix(&text, 16).map_err(serde::de::Error::custom)\n    }\n}\n";
        let s = snap(&format!(
            "{}{module}",
            message(
                "#[serde(serialize_with = \"self::hex::ser\", deserialize_with = \"hex::de\")] pub id: u64"
            )
        ));
        let ty = field_ty(&s).clone();
        let def = def(&s, &ty);
        assert_eq!(def.path, "<demo::hex::ser and demo::hex::de for u64>");
        let Body::Alias {
            target: Ty::Refined { base, sample, .. },
        } = &def.body
        else {
            panic!("{:?}", def.body)
        };
        assert_eq!((&**base, sample.as_str()), (&Ty::String, ""));
        let from = def.attrs.from.as_ref().expect("a proxy");
        assert!(from.fallible);
        assert_eq!(from.ty, Ty::String);
        let sources = def.attrs.hand_written.as_ref().expect("digests");
        assert!(sources.ser.is_some() && sources.de.is_some());
        assert_eq!(def.location.line, 12);
    }

    #[test]
    fn a_deserializer_through_a_visitor_reads_what_its_visit_methods_accept() {
        let module = "mod flex {\n    use super::*;\n    struct V;\n    impl<'de> serde::de::Visitor<'de> for V {\n        type Value = u32;\n        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { f.write_str(\"a count\") }\n        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u32, E> { u32::try_from(v).map_err(E::custom) }\n        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u32, E> { v.parse().map_err(E::custom) }\n    }\n    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> { d.deserialize_any(V) }\n}\n";
        let s = snap(&format!(
            "{}{module}",
            message("#[serde(deserialize_with = \"flex::deserialize\")] pub n: u32")
        ));
        let ty = field_ty(&s).clone();
        let def = def(&s, &ty);
        // Written as the derive writes a u32; read as a u32 or a string it parses.
        assert_eq!(
            def.body,
            Body::Alias {
                target: Ty::Int {
                    signed: false,
                    bits: 32
                }
            }
        );
        let from = def.attrs.from.as_ref().expect("a proxy");
        assert!(from.fallible);
        let Ty::Choice { reads, .. } = &from.ty else {
            panic!("{:?}", from.ty)
        };
        assert_eq!(
            reads,
            &vec![
                Ty::Int {
                    signed: false,
                    bits: 32
                },
                Ty::String
            ]
        );
    }

    #[test]
    fn an_unread_function_is_opaque_and_another_crates_stays_custom() {
        let module = "mod odd {\n    use super::*;\n    pub fn serialize<S: Serializer>(v: &u8, s: S) -> Result<S::Ok, S::Error> { let mut m = s.serialize_map(None)?; m.end() }\n}\n";
        let s = snap(&format!(
            "{}{module}",
            message("#[serde(serialize_with = \"odd::serialize\")] pub v: u8")
        ));
        let ty = field_ty(&s).clone();
        let def = def(&s, &ty);
        assert_eq!(
            def.body,
            Body::Alias {
                target: Ty::external("<demo::odd::serialize for u8>")
            }
        );
        assert_eq!(
            def.attrs.from.as_ref().map(|p| &p.ty),
            Some(&Ty::Int {
                signed: false,
                bits: 8
            })
        );
        let s = snap(&message(
            "#[serde(with = \"other_crate::codec\")] pub v: u8",
        ));
        let Body::Struct { fields, .. } = &s.types["demo::M"].body else {
            panic!()
        };
        assert!(fields[0].custom.is_some());
    }
}
