//! What the build or the configuration decides: items, fields and variants behind `#[cfg(...)]` and
//! attributes behind `#[cfg_attr(...)]` (present or absent by the features the crate is built with,
//! workspace and dependencies alike), and the wire shapes `wirecheck.toml` declares for types by path.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use syn::Attribute;

use super::super::cfg::{self, Truth};
use super::super::note;
use super::{Lowering, TypeScope};
use crate::model::{ExtractNote, Location, Ty};

/// The shapes of `wirecheck.toml`'s `[shapes]`, parsed, by full path.
#[derive(Default)]
pub(super) struct Shapes {
    by_path: FxHashMap<String, syn::Type>,
    /// Every key declared, in order.
    declared: Vec<String>,
    /// The paths being lowered through their declared shape (a shape naming itself, directly or not,
    /// stops there: the type is then opaque).
    in_progress: Vec<String>,
}

impl Shapes {
    /// Parses each declared shape as a Rust type; one that is not gets a note (the configuration is
    /// checked when it is loaded, so this is only a library caller's mistake).
    pub(super) fn parse(shapes: &BTreeMap<String, String>, notes: &mut Vec<ExtractNote>) -> Self {
        let mut by_path = FxHashMap::default();
        for (path, text) in shapes {
            match syn::parse_str::<syn::Type>(text) {
                Ok(ty) => {
                    by_path.insert(path.clone(), ty);
                }
                Err(error) => notes.push(ExtractNote {
                    message: format!(
                        "[shapes] \"{path}\" = \"{text}\" is not a Rust type ({error}): the type stays opaque"
                    ),
                    location: Location {
                        file: "wirecheck.toml".to_owned(),
                        line: 1,
                        column: 1,
                        start: 0,
                        end: 0,
                    },
                }),
            }
        }
        Shapes {
            by_path,
            declared: shapes.keys().cloned().collect(),
            in_progress: Vec::new(),
        }
    }

    /// The keys declared, parsed or not.
    pub(super) fn keys(&self) -> impl Iterator<Item = &String> {
        self.declared.iter()
    }

    /// The declared shape of the type at `path`, unless it is being lowered already.
    fn get(&self, path: &str) -> Option<&syn::Type> {
        if self.in_progress.iter().any(|p| p == path) {
            return None;
        }
        self.by_path.get(path)
    }
}

/// The note of a `[shapes]` key no type the messages reach has (a misspelled path, or one that
/// is not the type's full path).
pub(super) fn unused_shape_note(key: &str) -> ExtractNote {
    ExtractNote {
        message: format!(
            "[shapes] \"{key}\" in wirecheck.toml is used by no type the messages reach: write the type's full path (`crate::module::Type`, or `package::module::Type` for another crate's)"
        ),
        location: Location {
            file: "wirecheck.toml".to_owned(),
            line: 1,
            column: 1,
            start: 0,
            end: 0,
        },
    }
}

impl Lowering<'_> {
    /// Whether a field or variant with `attrs`, in the crate of `scope.module`, exists in the build
    /// checked; one whose `cfg` depends on the target or profile is kept, with a note at `span` (asked
    /// for only then: the span of a field is found from all its tokens).
    pub(super) fn built(
        &mut self,
        scope: &TypeScope<'_>,
        attrs: &[Attribute],
        span: impl FnOnce() -> proc_macro2::Span,
    ) -> bool {
        match cfg::active(attrs, self.rev.features_of(scope.module)) {
            Truth::Yes => true,
            Truth::No => false,
            Truth::Unknown(predicate) => {
                self.note_undecided(
                    scope,
                    span(),
                    format!(
                        "`#[cfg({predicate})]` depends on the target or profile, which a check does not choose: the field or variant is kept"
                    ),
                );
                true
            }
        }
    }

    /// `attrs` of an item, field or variant in the crate of `scope.module` as the build checked has
    /// them: each `#[cfg_attr(pred, ...)]` applied where `pred` holds, dropped where it does not; one
    /// whose `pred` depends on the target or profile is applied, with a note.
    pub(super) fn applied<'x>(
        &mut self,
        scope: &TypeScope<'_>,
        attrs: &'x [Attribute],
    ) -> Cow<'x, [Attribute]> {
        let mut undecided = Vec::new();
        let applied = cfg::applied(attrs, self.rev.features_of(scope.module), &mut undecided);
        for found in undecided {
            self.note_undecided(
                scope,
                found.span,
                format!(
                    "`#[cfg_attr({}, ...)]` depends on the target or profile, which a check does not choose: its attributes apply",
                    found.predicate
                ),
            );
        }
        applied
    }

    /// The note of a predicate the build cannot decide: at each place in the workspace's code, once per
    /// predicate for a dependency's (named by its package: its code is not the user's to change).
    fn note_undecided(&mut self, scope: &TypeScope<'_>, span: proc_macro2::Span, message: String) {
        match self.rev.dependency_of(scope.module) {
            Some(krate) => self.note_once(
                scope.file,
                span,
                format!("package `{}`: {message}", krate.label()),
            ),
            None => self
                .rev
                .push_note_unless_noted(note(scope.file, span, message)),
        }
    }

    /// The shape `wirecheck.toml` declares for the type at `path`, as written there (its use recorded,
    /// so that a key no type uses is said).
    pub(super) fn configured_shape(&mut self, path: &str) -> Option<syn::Type> {
        let ty = self.shapes.get(path)?.clone();
        self.rev.use_shape(path);
        Some(ty)
    }

    /// The shape `wirecheck.toml` declares for the type at `path`, lowered from the crate root of
    /// `scope` (the crate a path written there starts from).
    pub(super) fn declared_shape(
        &mut self,
        scope: &TypeScope<'_>,
        path: &str,
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let ty = self.configured_shape(path)?;
        let root = [scope.module.first().cloned().unwrap_or_default()];
        let at_root = TypeScope {
            module: &root,
            generics: &[],
            file: scope.file,
        };
        self.shapes.in_progress.push(path.to_owned());
        let lowered = self.ty(&at_root, &ty, reached);
        self.shapes.in_progress.pop();
        Some(lowered)
    }
}

#[cfg(test)]
mod cfg_tests {
    use std::collections::BTreeMap;

    use crate::extract::{CrateRoot, ExtractOptions, FeatureRequest, SourceCache, extract_with};
    use crate::model::{Body, Snapshot, Ty};

    const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {\n    pub id: u64,\n    #[cfg(feature = \"extra\")]\n    pub extra: u32,\n    #[cfg(not(feature = \"extra\"))]\n    pub plain: u32,\n    #[cfg(test)]\n    pub only_in_tests: u8,\n    #[cfg(unix)]\n    pub unix: u8,\n    pub level: Level,\n    pub url: geo::Point,\n}\n#[cfg(feature = \"extra\")]\n#[derive(Serialize, Deserialize)]\npub enum Level { A, #[cfg(feature = \"b\")] B }\n#[cfg(not(feature = \"extra\"))]\n#[derive(Serialize, Deserialize)]\npub struct Level(u8);\n#[cfg(feature = \"extra\")]\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.extra\", kind = \"event\")]\npub struct Extra { pub x: u8 }\n";

    fn extract(manifest: &str, features: FeatureRequest, shapes: &[(&str, &str)]) -> Snapshot {
        let files: BTreeMap<String, String> = [
            ("crates/p/Cargo.toml".to_owned(), manifest.to_owned()),
            ("crates/p/src/lib.rs".to_owned(), LIB.to_owned()),
        ]
        .into();
        let options = ExtractOptions {
            features,
            shapes: shapes
                .iter()
                .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
                .collect(),
        };
        let crates = [CrateRoot {
            name: "p".into(),
            root_file: "crates/p/src/lib.rs".into(),
        }];
        extract_with(
            &crates,
            &files,
            &SourceCache::new(),
            &options,
            &crate::extract::Externals::default,
            None,
        )
        .expect("extracts")
    }

    fn field_names(s: &Snapshot) -> Vec<String> {
        match &s.types["p::M"].body {
            Body::Struct { fields, .. } => fields.iter().map(|f| f.rust_name.clone()).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cfg_fields_variants_and_items_follow_the_features() {
        let manifest =
            "[package]\nname = \"p\"\n[features]\ndefault = [\"extra\"]\nextra = []\nb = []\n";
        let defaults = extract(manifest, FeatureRequest::default(), &[]);
        assert_eq!(
            field_names(&defaults),
            ["id", "extra", "unix", "level", "url"]
        );
        let Body::Enum { variants } = &defaults.types["p::Level"].body else {
            panic!("{:?}", defaults.types["p::Level"].body)
        };
        assert_eq!(variants.len(), 1);
        assert_eq!(defaults.messages.len(), 2);
        // `unix` is kept, with a note saying why.
        assert_eq!(defaults.notes.len(), 1, "{:?}", defaults.notes);
        assert!(
            defaults.notes[0]
                .message
                .contains("`#[cfg(unix)]` depends on the target")
        );

        let without = extract(
            manifest,
            FeatureRequest {
                no_default_features: true,
                ..FeatureRequest::default()
            },
            &[],
        );
        assert_eq!(
            field_names(&without),
            ["id", "plain", "unix", "level", "url"]
        );
        assert!(matches!(
            without.types["p::Level"].body,
            Body::Struct { .. }
        ));

        let all = extract(
            manifest,
            FeatureRequest {
                all_features: true,
                ..FeatureRequest::default()
            },
            &[],
        );
        let Body::Enum { variants } = &all.types["p::Level"].body else {
            panic!()
        };
        assert_eq!(variants.len(), 2);
        // A message behind a feature that is off is not there.
        assert_eq!(without.messages.len(), 1);
        // The default moved: a release whose Cargo.toml has no `default` leaves `extra` off.
        let no_default = extract(
            "[package]\nname = \"p\"\n[features]\nextra = []\n",
            FeatureRequest::default(),
            &[],
        );
        assert_eq!(
            field_names(&no_default),
            ["id", "plain", "unix", "level", "url"]
        );
    }

    /// A crate whose modules are behind cfgs: `a` is `a.rs` with `extra` on, `a_off.rs` without; the
    /// inline `b` and the file module `msgs` (declaring a message) exist only with `extra`.
    fn extract_modules(features: FeatureRequest) -> Snapshot {
        let lib = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M { pub a: a::A, pub b: b::B }\n#[cfg(feature = \"extra\")]\nmod a;\n#[cfg(not(feature = \"extra\"))]\n#[path = \"a_off.rs\"]\nmod a;\n#[cfg(feature = \"extra\")]\nmod b {\n    #[derive(serde::Serialize, serde::Deserialize)]\n    pub struct B { pub x: u8 }\n    #[derive(serde::Serialize, serde::Deserialize, wirecheck::Message)]\n    #[wire(protocol = crate::P, topic = \"t.b\", kind = \"event\")]\n    pub struct InB { pub x: u8 }\n}\n#[cfg(feature = \"extra\")]\nmod msgs;\n";
        let derived = "#[derive(serde::Serialize, serde::Deserialize)]";
        let files: BTreeMap<String, String> = [
            (
                "Cargo.toml",
                "[package]\nname = \"p\"\n[features]\nextra = []\n".to_owned(),
            ),
            ("src/lib.rs", lib.to_owned()),
            ("src/a.rs", format!("{derived}\npub struct A {{ pub on: u8 }}\n")),
            ("src/a_off.rs", format!("{derived}\npub struct A {{ pub off: u8 }}\n")),
            (
                "src/msgs.rs",
                format!("{derived}\n#[derive(wirecheck::Message)]\n#[wire(protocol = crate::P, topic = \"t.m\", kind = \"event\")]\npub struct InMsgs {{ pub x: u8 }}\n"),
            ),
        ]
        .into_iter()
        .map(|(path, text)| (path.to_owned(), text))
        .collect();
        let crates = [CrateRoot {
            name: "p".into(),
            root_file: "src/lib.rs".into(),
        }];
        let options = ExtractOptions {
            features,
            shapes: BTreeMap::new(),
        };
        let externals = crate::extract::Externals::default;
        extract_with(
            &crates,
            &files,
            &SourceCache::new(),
            &options,
            &externals,
            None,
        )
        .expect("extracts")
    }

    #[test]
    fn modules_behind_a_cfg_follow_the_features() {
        let on = extract_modules(FeatureRequest {
            features: vec!["extra".into()],
            ..FeatureRequest::default()
        });
        let Body::Struct { fields, .. } = &on.types["p::a::A"].body else {
            panic!()
        };
        assert_eq!(fields[0].rust_name, "on");
        assert!(on.types.contains_key("p::b::B"));
        let topics: Vec<&str> = on.messages.iter().map(|m| m.topic.as_str()).collect();
        assert_eq!(topics, ["t", "t.b", "t.m"]);

        let off = extract_modules(FeatureRequest::default());
        let Body::Struct { fields, .. } = &off.types["p::a::A"].body else {
            panic!()
        };
        // The other `mod a` (its `#[path]`) is the one there.
        assert_eq!(fields[0].rust_name, "off");
        assert!(!off.types.contains_key("p::b::B"));
        let Body::Struct { fields, .. } = &off.types["p::M"].body else {
            panic!()
        };
        assert!(
            matches!(&fields[1].ty, Ty::External { path, .. } if path == "b::B"),
            "{:?}",
            fields[1].ty
        );
        let topics: Vec<&str> = off.messages.iter().map(|m| m.topic.as_str()).collect();
        assert_eq!(topics, ["t"], "messages in modules left out are not there");
    }

    #[test]
    fn shapes_of_the_configuration_replace_a_path() {
        let s = extract(
            "[package]\nname = \"p\"\n",
            FeatureRequest::default(),
            &[("geo::Point", "String")],
        );
        let Body::Struct { fields, .. } = &s.types["p::M"].body else {
            panic!()
        };
        assert_eq!(fields.last().unwrap().ty, Ty::String);
        // A shape naming its own path stops there: opaque, compared by path.
        let s = extract(
            "[package]\nname = \"p\"\n",
            FeatureRequest::default(),
            &[("geo::Point", "Vec<geo::Point>")],
        );
        let Body::Struct { fields, .. } = &s.types["p::M"].body else {
            panic!()
        };
        assert_eq!(fields.last().unwrap().ty.to_string(), "Vec<geo::Point>");
    }

    /// Declarations win over a derive: a crate type with a shape in `wirecheck.toml` is that shape.
    #[test]
    fn a_declared_shape_wins_over_a_derive() {
        let s = extract(
            "[package]\nname = \"p\"\n",
            FeatureRequest::default(),
            &[("p::Level", "u16")],
        );
        assert_eq!(
            s.types["p::Level"].body,
            Body::Alias {
                target: Ty::Int {
                    signed: false,
                    bits: 16
                }
            }
        );
        assert!(
            s.notes
                .iter()
                .all(|n| !n.message.contains("is used by no type")),
            "{:?}",
            s.notes
        );
    }
}
