//! The protocol model: plain, serializable data extracted from source.
//!
//! Nothing here refers to syn or git: extraction converts spans to [`Location`]s and serde attributes to
//! final wire names, so the comparison works on what goes on the wire. `wirecheck snapshot` prints this model.

use std::collections::BTreeMap;
use std::sync::Arc;

use semver::Version;
use serde::{Deserialize, Serialize};

use crate::{Format, Kind, ResponseMode, Upgrade};

mod de;
pub mod digest;
mod ty;

pub use ty::{SeqKind, Ty};

#[cfg(any(test, feature = "derive-check"))]
#[doc(hidden)]
pub use de::reads_as_the_derive;

/// Where something was written: a file relative to the workspace root, 1-based line and column, and the
/// byte range of the span in that file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
pub struct Location {
    /// Path relative to the workspace root, with `/` separators.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset of the span's start in the file.
    pub start: usize,
    /// Byte offset of the span's end in the file.
    pub end: usize,
}

/// Everything extracted from one revision of a workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Snapshot {
    /// The declared protocols, sorted by name.
    pub protocols: Vec<ProtocolDecl>,
    /// The declared messages, sorted by protocol, topic, kind and type path.
    pub messages: Vec<MessageDecl>,
    /// Every type reached from a message, by canonical path (`crate::module::Name`). Shared: the
    /// revisions of one check hold the same definitions (see `extract`), and a store's parts the
    /// definitions of their model.
    pub types: BTreeMap<String, Arc<TypeDef>>,
    /// Things the extraction could not see through (unresolved types, macros); reported, never fatal.
    pub notes: Vec<ExtractNote>,
}

/// A `#[derive(Protocol)]` declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProtocolDecl {
    /// `name = "..."`.
    pub name: String,
    /// Canonical path of the marker type.
    pub rust_path: String,
    /// `version = "..."`.
    pub version: Version,
    /// `min_compatible = "..."`.
    pub min_compatible: Option<Version>,
    /// `upgrade = "..."`.
    pub upgrade: Upgrade,
    /// `format = "..."`.
    pub format: Format,
    /// Where the marker type's name is written.
    pub location: Location,
}

/// A suppression written in the source: `#[wire(allow(rule, ...), reason = "...")]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AllowDecl {
    /// The rule ids allowed.
    pub rules: Vec<String>,
    /// Why the change is acceptable (`reason = "..."`).
    pub reason: String,
}

/// A `#[derive(Message)]` declaration.
#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub struct MessageDecl {
    /// The protocol's `name` (resolved from the `protocol = Path` key).
    pub protocol: String,
    /// The message type's name as written (`AllocRequest`).
    pub name: String,
    /// Canonical path of the message type; its definition is in [`Snapshot::types`].
    pub rust_path: String,
    /// `topic = "..."`.
    pub topic: String,
    /// `kind = "..."`.
    pub kind: Kind,
    /// `responds` / `streams` / neither.
    pub response: ResponseMode,
    /// Canonical path of the response type, when there is one.
    pub response_type: Option<String>,
    /// `since = "..."`.
    pub since: Option<Version>,
    /// `allow(...)` on the message.
    pub allow: Option<AllowDecl>,
    /// Where the message type's name is written.
    pub location: Location,
}

/// A type definition reached from a message.
#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub struct TypeDef {
    /// Canonical path.
    pub path: String,
    /// Generic type parameter names, in order.
    pub generics: Vec<String>,
    /// Container-level serde attributes that change the wire.
    pub attrs: ContainerAttrs,
    /// The fields, the variants or the aliased type.
    pub body: Body,
    /// Where the type's name is written.
    pub location: Location,
    /// The package and version the type comes from (`url 2.5.0`) when it is defined in a dependency
    /// rather than the workspace; `None` for the workspace's own types (and in stores written before
    /// dependencies were followed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
}

/// A type's body.
///
/// `Deserialize` is written by hand (`model/de.rs`): the derive's reading without its buffering.
#[derive(Debug, Clone, PartialEq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    /// A struct.
    Struct {
        /// Named, tuple or unit.
        style: Style,
        /// The fields, in declaration order.
        fields: Vec<Field>,
    },
    /// An enum.
    Enum {
        /// The variants, in declaration order.
        variants: Vec<Variant>,
    },
    /// `type X = Y;`
    Alias {
        /// The aliased type.
        target: Ty,
    },
}

/// The shape of a struct or a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// `{ a: T }`
    Named,
    /// `(T, U)`
    Tuple,
    /// No fields.
    Unit,
}

/// How an enum is represented (serde's four representations).
///
/// `Deserialize` is written by hand (`model/de.rs`): the derive's reading without its buffering.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EnumRepr {
    /// `{"Variant": payload}` / `"Variant"` (serde's default).
    #[default]
    External,
    /// `#[serde(tag = "t")]`
    Internal {
        /// The tag key.
        tag: String,
    },
    /// `#[serde(tag = "t", content = "c")]`
    Adjacent {
        /// The tag key.
        tag: String,
        /// The content key.
        content: String,
    },
    /// `#[serde(untagged)]`
    Untagged,
    /// `#[derive(Serialize_repr, Deserialize_repr)]` (the serde_repr crate) on a `#[repr(u8)]`-style enum
    /// of unit variants: each variant is written as its discriminant, an integer of the `repr` type, in
    /// every format. A variant's `ser_name` and `de_names` are its discriminant in decimal (`"0"`, `"-1"`).
    /// Reading an integer no variant has fails, unless a variant is `#[serde(other)]`, which takes it.
    Integer {
        /// The `repr` type is `i*` rather than `u*`.
        signed: bool,
        /// Its width: 8, 16, 32, 64 or 128 (`usize`/`isize` count as 64).
        bits: u8,
    },
}

/// Container attributes that change the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct ContainerAttrs {
    /// The container's wire name (serialize side), after `rename`.
    pub ser_name: String,
    /// `deny_unknown_fields`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deny_unknown_fields: bool,
    /// Container `default`: every missing field is filled in.
    #[serde(default, skip_serializing_if = "is_false")]
    pub default: bool,
    /// `transparent`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub transparent: bool,
    /// The enum representation; for a struct, `Internal` means `#[serde(tag = "...")]` on a struct.
    #[serde(default, skip_serializing_if = "is_external")]
    pub repr: EnumRepr,
    /// `from = "T"` / `try_from = "T"`: the type actually deserialized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Proxy>,
    /// `into = "T"`: the type actually serialized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<Ty>,
    /// The impls written by hand that the model stands in for (the other one derived, or read only in
    /// part): the digest of each one's source, compared between releases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_written: Option<HandWritten>,
}

/// A type's serde impls written by hand where the model stands in for what they do (the derived
/// other side's shape, or what wirecheck read of them in part): the digest of the source of each
/// such impl (see `Ty::External::source`). A changed digest is a change the checker cannot read, in
/// the direction that impl serves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandWritten {
    /// The `Serialize` impl's source, when it is written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ser: Option<String>,
    /// The `Deserialize` impl's source, when it is written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub de: Option<String>,
}

/// A `from`/`try_from` proxy.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Proxy {
    /// The proxy type.
    pub ty: Ty,
    /// `try_from`: the conversion may reject values the proxy type accepts.
    pub fallible: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_external(r: &EnumRepr) -> bool {
    *r == EnumRepr::External
}

/// When a field is left out when serializing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SkipSer {
    /// Always written.
    #[default]
    Never,
    /// `skip_serializing_if = "path"`: sometimes absent.
    If(String),
    /// `skip` / `skip_serializing`: never written.
    Always,
}

/// Custom (de)serialization functions: opaque to the checker.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Custom {
    /// `serialize_with` (or `with`'s `serialize`).
    pub ser: Option<String>,
    /// `deserialize_with` (or `with`'s `deserialize`).
    pub de: Option<String>,
}

/// A field of a struct or a struct/tuple variant.
#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub struct Field {
    /// The Rust name, or the index of a tuple field.
    pub rust_name: String,
    /// The key written on the wire.
    pub ser_name: String,
    /// The keys accepted when reading: the deserialize name and every `alias`.
    pub de_names: Vec<String>,
    /// The field's type.
    pub ty: Ty,
    /// Field-level `default` (or `default = "path"`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub default: bool,
    /// When the field is left out when writing.
    #[serde(default, skip_serializing_if = "is_never")]
    pub skip_ser: SkipSer,
    /// `skip` / `skip_deserializing`: never read (filled from the default).
    #[serde(default, skip_serializing_if = "is_false")]
    pub skip_de: bool,
    /// `flatten`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub flatten: bool,
    /// `with` / `serialize_with` / `deserialize_with`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<Custom>,
    /// `#[wire(since = "...")]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Version>,
    /// `#[wire(allow(...), reason = "...")]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<AllowDecl>,
    /// Where the field's name is written (its type, for a tuple field).
    pub location: Location,
}

fn is_never(s: &SkipSer) -> bool {
    *s == SkipSer::Never
}

/// A variant of an enum.
#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The Rust name.
    pub rust_name: String,
    /// The tag written on the wire.
    pub ser_name: String,
    /// The tags accepted when reading: the deserialize name and every `alias`.
    pub de_names: Vec<String>,
    /// Named, tuple or unit.
    pub style: Style,
    /// The payload fields.
    pub fields: Vec<Field>,
    /// `skip` / `skip_serializing`: never written.
    #[serde(default, skip_serializing_if = "is_false")]
    pub skip_ser: bool,
    /// `skip` / `skip_deserializing`: never read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub skip_de: bool,
    /// `#[serde(other)]`: catches every unknown tag.
    #[serde(default, skip_serializing_if = "is_false")]
    pub other: bool,
    /// Per-variant `#[serde(untagged)]`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub untagged: bool,
    /// `with` / `serialize_with` / `deserialize_with` on the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<Custom>,
    /// `#[wire(since = "...")]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Version>,
    /// `#[wire(allow(...), reason = "...")]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<AllowDecl>,
    /// Where the variant's name is written.
    pub location: Location,
}

/// Something the extraction could not see through.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExtractNote {
    /// What could not be seen through, in a sentence.
    pub message: String,
    /// Where it is written.
    pub location: Location,
}

/// One protocol's messages and the types they reach, borrowed from a [`Snapshot`]
/// ([`Snapshot::part_of`]): what the store writes of a part and what a comparison's key hashes.
#[derive(Debug, Serialize)]
pub struct PartOf<'s> {
    /// The messages, in the model's order.
    pub messages: Vec<&'s MessageDecl>,
    /// Every type they reach, by path.
    pub types: BTreeMap<&'s str, &'s Arc<TypeDef>>,
}

/// The messages, then each type by path with its definition as its digest ([`digest`]): the store's
/// ids and comparison keys hash a definition the revisions share once.
impl std::hash::Hash for PartOf<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let PartOf { messages, types } = self;
        messages.hash(state);
        digest::hash_defs(
            types.iter().map(|(&path, &def)| (path, def)),
            digest::DigestOf::Whole,
            digest::content_digest,
            state,
        );
    }
}

impl PartOf<'_> {
    /// The part as a model of its own, declared by `decl` (no notes).
    pub fn to_model(&self, decl: &ProtocolDecl) -> Snapshot {
        Snapshot {
            protocols: vec![decl.clone()],
            messages: self.messages.iter().map(|&m| m.clone()).collect(),
            types: self
                .types
                .iter()
                .map(|(&path, &def)| (path.to_owned(), Arc::clone(def)))
                .collect(),
            notes: Vec::new(),
        }
    }
}

/// A model as a comparison reads it, borrowed: a whole [`Snapshot`], or one protocol's part
/// ([`PartOf`]) under its declaration, which reads exactly as [`PartOf::to_model`]'s copy of it would
/// (the same declaration, messages and types, in the same order) without copying anything.
#[derive(Debug, Clone, Copy)]
pub enum ModelView<'s> {
    /// Every protocol, message and type of a model.
    Whole(&'s Snapshot),
    /// One protocol's declaration, its messages and the types they reach: nothing else can be read.
    Part(&'s ProtocolDecl, &'s PartOf<'s>),
}

impl<'s> ModelView<'s> {
    /// The protocol declared with `name`, if any.
    pub fn protocol(self, name: &str) -> Option<&'s ProtocolDecl> {
        match self {
            ModelView::Whole(snapshot) => snapshot.protocol(name),
            ModelView::Part(decl, _) => Some(decl).filter(|d| d.name == name),
        }
    }

    /// The messages of the protocol named `name`, in the model's order.
    pub fn messages_of(self, name: &str) -> impl Iterator<Item = &'s MessageDecl> {
        let (whole, part): (&'s [MessageDecl], &'s [&'s MessageDecl]) = match self {
            ModelView::Whole(snapshot) => (&snapshot.messages, &[]),
            ModelView::Part(_, part) => (&[], &part.messages),
        };
        whole
            .iter()
            .chain(part.iter().copied())
            .filter(move |m| m.protocol == name)
    }

    /// Every type definition the view shows.
    pub fn type_defs(self) -> Box<dyn Iterator<Item = &'s TypeDef> + 's> {
        match self {
            ModelView::Whole(snapshot) => Box::new(snapshot.types.values().map(|def| &**def)),
            ModelView::Part(_, part) => Box::new(part.types.values().map(|def| &***def)),
        }
    }

    /// The definition of the type at `path`, if the model has it.
    pub fn type_def(self, path: &str) -> Option<&'s TypeDef> {
        match self {
            ModelView::Whole(snapshot) => snapshot.types.get(path).map(|def| &**def),
            ModelView::Part(_, part) => part.types.get(path).map(|def| &***def),
        }
    }
}

impl Snapshot {
    /// The protocol declared with `name`, if any.
    pub fn protocol(&self, name: &str) -> Option<&ProtocolDecl> {
        self.protocols.iter().find(|p| p.name == name)
    }

    /// The messages of the protocol named `name`.
    pub fn messages_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a MessageDecl> {
        self.messages.iter().filter(move |m| m.protocol == name)
    }

    /// What a comparison of the protocol named `name` reads: its declaration, the messages `keep`
    /// accepts, and every type they reach (no notes). An empty model when the protocol is not declared.
    pub fn protocol_part(&self, name: &str, keep: impl Fn(&MessageDecl) -> bool) -> Snapshot {
        match self.protocol(name) {
            Some(decl) => self.part_of(name, keep).to_model(decl),
            None => Snapshot::default(),
        }
    }

    /// The messages of the protocol named `name` that `keep` accepts and every type they reach, borrowed
    /// (a [`Snapshot::protocol_part`] without its declaration).
    pub fn part_of(&self, name: &str, keep: impl Fn(&MessageDecl) -> bool) -> PartOf<'_> {
        let messages: Vec<&MessageDecl> = self.messages_of(name).filter(|m| keep(m)).collect();
        let types = self.shared_from(&messages);
        PartOf { messages, types }
    }

    /// The definitions of every type reached from `messages`, by path.
    pub fn reached_from<'s>(&'s self, messages: &[&MessageDecl]) -> BTreeMap<&'s str, &'s TypeDef> {
        self.shared_from(messages)
            .into_iter()
            .map(|(path, def)| (path, &**def))
            .collect()
    }

    /// [`Snapshot::reached_from`], each definition as the model shares it.
    fn shared_from<'s>(&'s self, messages: &[&MessageDecl]) -> BTreeMap<&'s str, &'s Arc<TypeDef>> {
        let mut types = BTreeMap::new();
        let mut stack: Vec<&str> = messages.iter().map(|m| m.rust_path.as_str()).collect();
        while let Some(path) = stack.pop() {
            if types.contains_key(path) {
                continue;
            }
            if let Some((path, def)) = self.types.get_key_value(path) {
                def.push_named_types(&mut stack);
                types.insert(path.as_str(), def);
            }
        }
        types
    }

    /// Joins models of distinct protocols (such as [`Snapshot::protocol_part`]s) into one, with `notes`.
    pub fn join<'a>(
        parts: impl IntoIterator<Item = &'a Snapshot>,
        notes: Vec<ExtractNote>,
    ) -> Snapshot {
        let mut joined = Snapshot {
            notes,
            ..Snapshot::default()
        };
        for part in parts {
            joined.protocols.extend(part.protocols.iter().cloned());
            joined.messages.extend(part.messages.iter().cloned());
            for (path, def) in &part.types {
                joined
                    .types
                    .entry(path.clone())
                    .or_insert_with(|| def.clone());
            }
        }
        joined.sort();
        joined
    }

    /// Puts protocols, messages and notes in the model's order (see the fields).
    pub fn sort(&mut self) {
        self.protocols.sort_by(|a, b| a.name.cmp(&b.name));
        self.messages.sort_by(|a, b| {
            (&a.protocol, &a.topic, a.kind, &a.rust_path).cmp(&(
                &b.protocol,
                &b.topic,
                b.kind,
                &b.rust_path,
            ))
        });
        self.notes.sort();
        self.notes.dedup();
    }
}

impl Variant {
    /// A variant written and read under its Rust name, with no serde or wirecheck attribute: the
    /// variants of the types the checker knows without reading a derive (std, the catalogue, serde_with).
    pub fn plain(name: &str, style: Style, fields: Vec<Field>, location: Location) -> Variant {
        Variant {
            rust_name: name.to_owned(),
            ser_name: name.to_owned(),
            de_names: vec![name.to_owned()],
            style,
            fields,
            skip_ser: false,
            skip_de: false,
            other: false,
            untagged: false,
            custom: None,
            since: None,
            allow: None,
            location,
        }
    }
}

impl TypeDef {
    /// The paths of the types this definition names: in fields, payloads, an alias's target and the
    /// `from`/`into` proxies, with generic arguments.
    pub fn named_types(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.push_named_types(&mut out);
        out
    }

    /// Pushes [`TypeDef::named_types`] onto `out` (no list of its own: [`Snapshot::reached_from`]
    /// walks every type a part reaches).
    pub fn push_named_types<'a>(&'a self, out: &mut Vec<&'a str>) {
        if let Some(from) = &self.attrs.from {
            from.ty.named_paths(out);
        }
        if let Some(into) = &self.attrs.into {
            into.named_paths(out);
        }
        match &self.body {
            Body::Struct { fields, .. } => fields.iter().for_each(|f| f.ty.named_paths(out)),
            Body::Enum { variants } => variants
                .iter()
                .flat_map(|v| &v.fields)
                .for_each(|f| f.ty.named_paths(out)),
            Body::Alias { target } => target.named_paths(out),
        }
    }
}
