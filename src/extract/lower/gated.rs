//! What the build or the configuration decides: fields and variants behind `#[cfg(...)]` (present or
//! absent by the features checked), and the wire shapes `wirecheck.toml` declares for types by path.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use syn::Attribute;

use super::super::features::Truth;
use super::super::note;
use super::super::syntax::item_attrs;
use super::{Lowering, TypeScope};
use crate::model::{ExtractNote, Location, Ty};

/// The shapes of `wirecheck.toml`'s `[shapes]`, parsed, by full path.
#[derive(Default)]
pub(super) struct Shapes {
    by_path: FxHashMap<String, syn::Type>,
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
            in_progress: Vec::new(),
        }
    }

    /// The declared shape of the type at `path`, unless it is being lowered already.
    pub(super) fn get(&self, path: &str) -> Option<&syn::Type> {
        if self.in_progress.iter().any(|p| p == path) {
            return None;
        }
        self.by_path.get(path)
    }
}

impl Lowering<'_> {
    /// Whether a field or variant with `attrs` exists in the build checked; one whose `cfg` depends on
    /// the target or profile is kept, with a note.
    pub(super) fn built(
        &mut self,
        scope: &TypeScope<'_>,
        attrs: &[Attribute],
        span: proc_macro2::Span,
    ) -> bool {
        if self.names.tree().dependency_mount(scope.module).is_some() {
            return self.present(scope, attrs);
        }
        let krate = scope.module.first().map_or("", String::as_str);
        match self.names.cfg().active(krate, attrs) {
            Truth::Yes => true,
            Truth::No => false,
            Truth::Unknown(predicate) => {
                self.notes.push(note(
                    scope.file,
                    span,
                    format!(
                        "`#[cfg({predicate})]` depends on the target or profile, which a check does not choose: the field or variant is kept"
                    ),
                ));
                true
            }
        }
    }

    /// Whether a message's item exists in the build checked (one whose `cfg` depends on the target or
    /// profile is kept).
    pub(super) fn item_built(&self, module: &[String], item: &syn::Item) -> bool {
        let krate = module.first().map_or("", String::as_str);
        self.names.cfg().active(krate, item_attrs(item)) != Truth::No
    }

    /// The shape `wirecheck.toml` declares for the type at `path` (outside the crates), lowered from the
    /// crate root of `scope`.
    pub(super) fn declared_shape(
        &mut self,
        scope: &TypeScope<'_>,
        path: &str,
        reached: &mut Vec<usize>,
    ) -> Option<Ty> {
        let ty = self.shapes.get(path)?.clone();
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

    const LIB: &str = "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\")]\npub struct P;\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"event\")]\npub struct M {\n    pub id: u64,\n    #[cfg(feature = \"extra\")]\n    pub extra: u32,\n    #[cfg(not(feature = \"extra\"))]\n    pub plain: u32,\n    #[cfg(test)]\n    pub only_in_tests: u8,\n    #[cfg(unix)]\n    pub unix: u8,\n    pub level: Level,\n    pub url: url::Url,\n}\n#[cfg(feature = \"extra\")]\n#[derive(Serialize, Deserialize)]\npub enum Level { A, #[cfg(feature = \"b\")] B }\n#[cfg(not(feature = \"extra\"))]\n#[derive(Serialize, Deserialize)]\npub struct Level(u8);\n#[cfg(feature = \"extra\")]\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = P, topic = \"t.extra\", kind = \"event\")]\npub struct Extra { pub x: u8 }\n";

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

    #[test]
    fn shapes_of_the_configuration_replace_a_path() {
        let s = extract(
            "[package]\nname = \"p\"\n",
            FeatureRequest::default(),
            &[("url::Url", "String")],
        );
        let Body::Struct { fields, .. } = &s.types["p::M"].body else {
            panic!()
        };
        assert_eq!(fields.last().unwrap().ty, Ty::String);
        // A shape naming its own path stops there: opaque, compared by path.
        let s = extract(
            "[package]\nname = \"p\"\n",
            FeatureRequest::default(),
            &[("url::Url", "Vec<url::Url>")],
        );
        let Body::Struct { fields, .. } = &s.types["p::M"].body else {
            panic!()
        };
        assert_eq!(fields.last().unwrap().ty.to_string(), "Vec<url::Url>");
    }
}
