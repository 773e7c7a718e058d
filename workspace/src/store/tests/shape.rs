//! Shapes (`store/shape.rs`): hashed without a copy, and telling parts apart exactly as comparing their
//! blanked copies does.

use super::*;
use crate::model::{Body, Field, Ty, Variant};

/// What [`shape_of`] must tell apart, as the store computed it before [`Blanked`]: the model copied with
/// every location blanked and without the declarations' versions. Two parts must share a shape exactly
/// when these copies are equal.
fn blanked(model: &Snapshot) -> Snapshot {
    let mut model = model.clone();
    let none = crate::model::Location::default;
    for p in &mut model.protocols {
        p.version = semver::Version::new(0, 0, 0);
        p.min_compatible = None;
        p.location = none();
    }
    for m in &mut model.messages {
        m.location = none();
    }
    for def in model.types.values_mut() {
        let def = std::sync::Arc::make_mut(def);
        def.location = none();
        let fields = match &mut def.body {
            Body::Struct { fields, .. } => fields.iter_mut().collect::<Vec<_>>(),
            Body::Enum { variants } => variants
                .iter_mut()
                .flat_map(|v| {
                    v.location = none();
                    v.fields.iter_mut()
                })
                .collect(),
            Body::Alias { .. } => Vec::new(),
        };
        for f in fields {
            f.location = none();
        }
    }
    model
}

/// An edit of a model, named for the assertion messages.
type Edit = (&'static str, fn(&mut Snapshot));

fn def<'m>(model: &'m mut Snapshot, name: &str) -> &'m mut TypeDef {
    model
        .types
        .values_mut()
        .find(|d| d.path.ends_with(&format!("::{name}")))
        .map(std::sync::Arc::make_mut)
        .unwrap_or_else(|| panic!("no type {name}"))
}

/// The first field of the struct `name`.
fn field<'m>(model: &'m mut Snapshot, name: &str) -> &'m mut Field {
    match &mut def(model, name).body {
        Body::Struct { fields, .. } => &mut fields[0],
        body => panic!("{name} is not a struct: {body:?}"),
    }
}

/// `State::Done`, a tuple variant holding a `Detail`.
fn done(model: &mut Snapshot) -> &mut Variant {
    match &mut def(model, "State").body {
        Body::Enum { variants } => variants.iter_mut().find(|v| v.rust_name == "Done").unwrap(),
        body => panic!("State is not an enum: {body:?}"),
    }
}

fn moved(location: &mut crate::model::Location) {
    location.file = format!("src/moved/{}", location.file);
    location.line += 7;
    location.column += 3;
    location.start += 100;
    location.end += 100;
}

/// Edits of what a comparison does not read: every location, the protocol's versions.
const ALIKE: &[Edit] = &[
    ("the protocol's location", |m| {
        moved(&mut m.protocols[0].location)
    }),
    ("the protocol's version", |m| {
        m.protocols[0].version = semver::Version::new(9, 1, 0)
    }),
    ("the protocol's min_compatible", |m| {
        m.protocols[0].min_compatible = Some(semver::Version::new(1, 1, 0))
    }),
    ("a message's location", |m| {
        moved(&mut m.messages[1].location)
    }),
    ("a type's location", |m| {
        moved(&mut def(m, "State").location)
    }),
    ("a struct field's location", |m| {
        moved(&mut field(m, "Event").location)
    }),
    ("a variant's location", |m| moved(&mut done(m).location)),
    ("a variant field's location", |m| {
        moved(&mut done(m).fields[0].location)
    }),
];

/// Edits of what a comparison reads: each must change the shape.
const APART: &[Edit] = &[
    ("the protocol's name", |m| {
        m.protocols[0].name = "jobs2".to_owned()
    }),
    ("the protocol's path", |m| {
        m.protocols[0].rust_path.push('2')
    }),
    ("the protocol's upgrade", |m| {
        m.protocols[0].upgrade = crate::Upgrade::ServerFirst
    }),
    ("the protocol's format", |m| {
        m.protocols[0].format = crate::Format::Cbor
    }),
    ("a message's protocol", |m| {
        m.messages[0].protocol = "ctl".to_owned()
    }),
    ("a message's name", |m| m.messages[0].name.push('2')),
    ("a message's path", |m| m.messages[0].rust_path.push('2')),
    ("a message's topic", |m| m.messages[0].topic.push('2')),
    ("a message's kind", |m| {
        m.messages[0].kind = crate::Kind::Event
    }),
    ("a message's response", |m| {
        m.messages[0].response = crate::ResponseMode::Stream
    }),
    ("a message's response type", |m| {
        m.messages[1].response_type = None
    }),
    ("a message's since", |m| {
        m.messages[0].since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a message's allow", |m| {
        m.messages[0].allow = Some(crate::model::AllowDecl {
            rules: vec![crate::rules::RuleId::FieldRemoved.as_str().to_owned()],
            reason: "gone".to_owned(),
        })
    }),
    ("a message less", |m| {
        m.messages.pop();
    }),
    ("a type's key", |m| {
        let (path, def) = m.types.pop_last().unwrap();
        m.types.insert(format!("{path}2"), def);
    }),
    ("a type's path", |m| def(m, "Detail").path.push('2')),
    ("a type's generics", |m| {
        def(m, "Detail").generics.push("T".to_owned())
    }),
    ("a type's wire name", |m| {
        def(m, "Detail").attrs.ser_name.push('2')
    }),
    ("deny_unknown_fields", |m| {
        def(m, "Detail").attrs.deny_unknown_fields = true
    }),
    ("a container default", |m| {
        def(m, "Detail").attrs.default = true
    }),
    ("transparent", |m| def(m, "Detail").attrs.transparent = true),
    ("an enum's representation", |m| {
        def(m, "State").attrs.repr = crate::model::EnumRepr::Untagged
    }),
    ("from", |m| {
        def(m, "Detail").attrs.from = Some(crate::model::Proxy {
            ty: Ty::String,
            fallible: true,
        })
    }),
    ("into", |m| def(m, "Detail").attrs.into = Some(Ty::String)),
    ("a type's package", |m| {
        def(m, "Detail").package = Some("url 2.5.0".to_owned())
    }),
    ("a struct's style", |m| {
        if let Body::Struct { style, .. } = &mut def(m, "Detail").body {
            *style = crate::model::Style::Tuple;
        }
    }),
    ("a struct field less", |m| {
        if let Body::Struct { fields, .. } = &mut def(m, "Event").body {
            fields.pop();
        }
    }),
    ("a struct as an alias", |m| {
        def(m, "Detail").body = Body::Alias { target: Ty::String }
    }),
    ("a field's Rust name", |m| {
        field(m, "Detail").rust_name.push('2')
    }),
    ("a field's name", |m| field(m, "Detail").ser_name.push('2')),
    ("a field's aliases", |m| {
        field(m, "Detail").de_names.push("c".to_owned())
    }),
    ("a field's type", |m| {
        field(m, "Detail").ty = Ty::Int {
            signed: false,
            bits: 32,
        }
    }),
    ("a field's default", |m| field(m, "Detail").default = true),
    ("a field's skip_serializing", |m| {
        field(m, "Detail").skip_ser = crate::model::SkipSer::Always
    }),
    ("a field's skip_deserializing", |m| {
        field(m, "Detail").skip_de = true
    }),
    ("a field's flatten", |m| field(m, "Detail").flatten = true),
    ("a field's with", |m| {
        field(m, "Detail").custom = Some(crate::model::Custom {
            ser: Some("f".to_owned()),
            de: None,
        })
    }),
    ("a field's since", |m| {
        field(m, "Detail").since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a field's allow", |m| {
        field(m, "Detail").allow = Some(crate::model::AllowDecl {
            rules: Vec::new(),
            reason: "r".to_owned(),
        })
    }),
    ("a variant's Rust name", |m| done(m).rust_name.push('2')),
    ("a variant's name", |m| done(m).ser_name.push('2')),
    ("a variant's aliases", |m| {
        done(m).de_names.push("d".to_owned())
    }),
    ("a variant's style", |m| {
        done(m).style = crate::model::Style::Named
    }),
    ("a variant's field", |m| done(m).fields[0].ty = Ty::Bool),
    ("a variant's skip_serializing", |m| done(m).skip_ser = true),
    ("a variant's skip_deserializing", |m| done(m).skip_de = true),
    ("a variant's other", |m| done(m).other = true),
    ("a variant's untagged", |m| done(m).untagged = true),
    ("a variant's with", |m| {
        done(m).custom = Some(crate::model::Custom::default())
    }),
    ("a variant's since", |m| {
        done(m).since = Some(semver::Version::new(1, 1, 0))
    }),
    ("a variant's allow", |m| {
        done(m).allow = Some(crate::model::AllowDecl {
            rules: Vec::new(),
            reason: "r".to_owned(),
        })
    }),
];

/// Shapes are hashed without copying the model ([`Blanked`]), and tell parts apart exactly as comparing
/// their blanked copies does: over every pair of the models below (the `jobs` part of a real extraction,
/// edited in each field a comparison reads or does not read), equal shapes iff equal blanked copies.
#[test]
fn a_shape_is_the_model_without_locations_and_versions() {
    let base = full(&sources(false, "pub note: String", "1.2.0")).protocol_part("jobs", |_| true);
    let mut models = vec![("the model as extracted", base.clone(), Keep::All)];
    for (what, edit) in ALIKE.iter().chain(APART) {
        let mut model = base.clone();
        edit(&mut model);
        assert!(model != base, "{what}: the edit changes nothing");
        models.push((what, model, Keep::All));
    }
    models.push(("only records kept", base.clone(), Keep::Records));
    for (a_what, a, a_keep) in &models {
        for (b_what, b, b_keep) in &models {
            let same = blanked(a) == blanked(b) && a_keep == b_keep;
            assert_eq!(
                shape_of(a, *a_keep) == shape_of(b, *b_keep),
                same,
                "{a_what} / {b_what}"
            );
        }
    }
    // What the oracle says of each edit, spelled out.
    let shape = shape_of(&base, Keep::All);
    for (what, model, keep) in &models {
        let alike = ALIKE.iter().any(|(w, _)| w == what) || *what == "the model as extracted";
        assert_eq!(shape_of(model, *keep) == shape, alike, "{what}");
    }
}
