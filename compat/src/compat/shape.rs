//! Resolving a model type to its wire shape, one level deep: generic substitution, aliases,
//! `into`/`from` proxies, transparent and newtype structs.

use super::wording::custom_text;
use crate::Format;
use crate::findings::Side;
use crate::model::{
    Body, ContainerAttrs, Field, ModelView, SeqKind, SkipSer, Style, Ty, TypeDef, Variant,
};

/// How deep resolution and comparison go before giving up (generic instantiations can grow forever).
pub const MAX_DEPTH: usize = 64;

/// One revision's model (whole, or the compared protocol's part), which side of the comparison it is,
/// and the protocol's format (which of a [`Ty::Readable`]'s shapes is on the wire, and how the format's
/// codec reads and writes: `codec`).
#[derive(Clone, Copy)]
pub struct SideRef<'a> {
    /// The revision's model.
    pub model: ModelView<'a>,
    /// Old or new.
    pub side: Side,
    /// The protocol's format.
    pub format: Format,
}

impl SideRef<'_> {
    /// The format answers `true` to serde's `is_human_readable()` ([`Format::is_human_readable`]).
    pub fn human(&self) -> bool {
        self.format.is_human_readable()
    }
}

/// Whether a type is looked at as written (`into` applies) or as read (`from` applies).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// As serialized.
    Writer,
    /// As deserialized.
    Reader,
}

impl Role {
    /// Whether a field takes part on the wire in this role (not skipped when writing, or when reading).
    pub fn sees(self, field: &Field) -> bool {
        match self {
            Role::Writer => written(field),
            Role::Reader => !field.skip_de,
        }
    }
}

/// A braced struct, with fields already substituted.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Its fields, in declaration order.
    pub fields: Vec<Field>,
    /// Its container attributes.
    pub attrs: ContainerAttrs,
}

/// An enum, with variant fields already substituted.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// Its variants, in declaration order.
    pub variants: Vec<Variant>,
    /// Its container attributes (the representation among them).
    pub attrs: ContainerAttrs,
}

/// What a type is on the wire, one level deep.
#[derive(Clone, Debug)]
pub enum Shape {
    /// `bool`.
    Bool,
    /// `char`: a one-character string.
    Char,
    /// A string.
    Str,
    /// An integer.
    Int {
        /// Signed or not.
        signed: bool,
        /// Its width.
        bits: u8,
    },
    /// A float.
    Float {
        /// Its width.
        bits: u8,
    },
    /// `()`, a unit struct: `null`.
    Unit,
    /// `serde_json::Value`.
    Value,
    /// `Option<T>`: null or the value.
    Option(Ty),
    /// A sequence of elements (a list or a set).
    Seq(SeqKind, Ty),
    /// A fixed-length array of elements.
    Array(Ty, u64),
    /// Tuples and tuple structs of two or more fields (the fields, for names and locations).
    Tuple(Vec<Ty>, Vec<Field>),
    /// A map of keys to values.
    Map(Ty, Ty),
    /// A braced struct.
    Struct(StructDef),
    /// An enum.
    Enum(EnumDef),
    /// A type whose impls the checker cannot see: compared by path (the first), and by the digest of
    /// its impls' source (the third) where both sides read it; the package version (the second, when
    /// known) is said, never compared.
    External(String, Option<String>, Option<String>),
    /// A value of a base type that readers parse, accepting only a domain of it.
    Refined(Box<RefinedDef>),
    /// `serialize_bytes` / `deserialize_bytes`: on the wire what `Vec<u8>` is, except that a reader also
    /// takes a JSON string (its bytes).
    Bytes,
    /// A reader that tries these types in order and takes the first that decodes (only in the reader
    /// role; a writer writes its `writes` type).
    Choice(Vec<Ty>),
    /// A named type missing from the snapshot, or an unbound generic parameter.
    Unresolved(String),
}

/// What a [`Ty::Refined`] says, resolved: its base type and its domain.
#[derive(Clone, Debug)]
pub struct RefinedDef {
    /// The type on the wire.
    pub base: Ty,
    /// The domain's name (what readers accept).
    pub domain: String,
    /// The domains this one lies within.
    pub within: Vec<String>,
    /// A value of the domain, as JSON text.
    pub sample: String,
    /// A value of the base outside the domain, as JSON text.
    pub outside: Option<String>,
    /// For an integer base, the least and the greatest value of the domain (every integer between is
    /// in it, except `outside`): what the writer writes. `None` when unknown or unreadable.
    pub extent: Option<(i128, i128)>,
    /// For a string base whose domain is one string (its extent from it to it): that string; the
    /// reader rejects every other, the writer writes only it.
    pub only: Option<serde_json::Value>,
}

impl RefinedDef {
    /// The sample as a JSON value (`None` when its text is not JSON).
    pub fn sample_value(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.sample).ok()
    }

    /// The value outside the domain as a JSON value.
    pub fn outside_value(&self) -> Option<serde_json::Value> {
        self.outside
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok())
    }

    /// Whether the writer of this domain may write `value`: its sample, or an integer of its extent
    /// other than `outside`. Without an extent, only the sample is known to be written.
    pub fn writes(&self, value: &serde_json::Value) -> bool {
        if let Some(only) = &self.only {
            return only == value;
        }
        if self.sample_value().as_ref() == Some(value) {
            return true;
        }
        if self.outside_value().as_ref() == Some(value) {
            return false;
        }
        let integer = value
            .as_i64()
            .map(i128::from)
            .or_else(|| value.as_u64().map(i128::from));
        matches!((self.extent, integer), (Some((least, most)), Some(i)) if least <= i && i <= most)
    }

    /// The scalar this is the text of, when its base is a string and its domain a scalar type's name
    /// (serde_with's `DisplayFromStr` over an integer, a `bool` or a `char`: `Display` when writing,
    /// `FromStr` when reading).
    pub fn printed_scalar(&self) -> Option<Ty> {
        if self.base != Ty::String {
            return None;
        }
        match self.domain.as_str() {
            "bool" => return Some(Ty::Bool),
            "char" => return Some(Ty::Char),
            _ => {}
        }
        let signed = match self.domain.get(..1)? {
            "i" => true,
            "u" => false,
            _ => return None,
        };
        let bits: u8 = self.domain.get(1..)?.parse().ok()?;
        [8, 16, 32, 64, 128]
            .contains(&bits)
            .then_some(Ty::Int { signed, bits })
    }

    /// Whether a reader of `reader`'s domain accepts every value of this one.
    pub fn read_by(&self, reader: &RefinedDef) -> bool {
        self.domain == reader.domain || self.within.contains(&reader.domain)
    }
}

/// A resolved type: its shape, the outermost definition it went through and the last one (whose body
/// or proxy the shape is), if any.
pub struct Resolved<'a> {
    /// What it is on the wire.
    pub shape: Shape,
    /// The outermost definition it went through.
    pub def: Option<&'a TypeDef>,
    /// The last definition, whose body or proxy the shape is.
    pub last: Option<&'a TypeDef>,
}

/// Substitutes generic parameters.
pub fn subst(ty: &Ty, params: &[String], args: &[Ty]) -> Ty {
    if params.is_empty() {
        return ty.clone();
    }
    match ty {
        Ty::Param { name } => match params.iter().position(|p| p == name) {
            Some(i) => args.get(i).cloned().unwrap_or_else(|| ty.clone()),
            None => ty.clone(),
        },
        other => other.map_inner(&|inner: &Ty| subst(inner, params, args)),
    }
}

/// A field with its type's generic parameters substituted.
pub fn subst_field(field: &Field, params: &[String], args: &[Ty]) -> Field {
    let mut field = field.clone();
    field.ty = subst(&field.ty, params, args);
    field
}

/// Container attributes with the proxy types' generic parameters substituted.
pub fn subst_attrs(attrs: &ContainerAttrs, params: &[String], args: &[Ty]) -> ContainerAttrs {
    let mut attrs = attrs.clone();
    if let Some(proxy) = &mut attrs.from {
        proxy.ty = subst(&proxy.ty, params, args);
    }
    if let Some(ty) = &mut attrs.into {
        *ty = subst(ty, params, args);
    }
    attrs
}

/// `Vec<u8>`: what bytes are on the wire to every reader the formats have (serde_json writes
/// `serialize_bytes` as an array of numbers; bincode and postcard write a length and the bytes for both;
/// ciborium and rmp-serde read a byte string as a sequence and an array as bytes).
pub fn bytes_as_seq() -> Ty {
    Ty::Seq {
        kind: SeqKind::List,
        elem: Box::new(Ty::Int {
            signed: false,
            bits: 8,
        }),
    }
}

/// Whether a definition is a braced struct with exactly one field (where `transparent` changes the wire).
pub fn is_braced_single(def: &TypeDef) -> bool {
    matches!(&def.body, Body::Struct { style: Style::Named, fields } if fields.len() == 1)
}

/// Whether a field is written by its writer.
pub fn written(field: &Field) -> bool {
    field.skip_ser != SkipSer::Always
}

/// Whether a field has a custom deserializer.
pub fn has_custom_de(field: &Field) -> bool {
    field.custom.as_ref().is_some_and(|c| c.de.is_some())
}

/// Whether `field` is an `Option` that a `deserialize_with` function reads, so that serde's rule of a
/// missing `Option` read as `None` does not hold for it: a custom function compared by name, or one
/// wirecheck read, whose field is then a choice of that one `Option` reading (`lower/hand_written/
/// with_fns`).
pub fn option_read_by_function(field: &Field) -> bool {
    match &field.ty {
        Ty::Option { .. } => has_custom_de(field),
        Ty::Choice { writes, reads } => {
            matches!(**writes, Ty::Option { .. }) && reads.len() == 1 && reads[0] == **writes
        }
        _ => false,
    }
}

/// Whether two variants are the same one across releases: same Rust name or same wire name.
pub fn same_variant(a: &Variant, b: &Variant) -> bool {
    a.rust_name == b.rust_name || a.ser_name == b.ser_name
}

/// One step of resolution: a shape reached, or another type to follow.
#[expect(
    clippy::large_enum_variant,
    reason = "a step lives on the stack for one iteration of `resolve`; boxing the shape would allocate on every resolution"
)]
enum Step {
    Reached(Shape),
    Follow(Ty),
}

/// Resolves `ty` on `side` one wire level deep.
pub fn resolve<'a>(side: SideRef<'a>, ty: &Ty, role: Role) -> Resolved<'a> {
    let mut current = ty.clone();
    let mut outermost: Option<&'a TypeDef> = None;
    let mut last: Option<&'a TypeDef> = None;
    for _ in 0..MAX_DEPTH {
        let step = match &current {
            Ty::Named { path, args } => {
                let Some(def) = side.model.type_def(path) else {
                    return Resolved {
                        shape: Shape::Unresolved(path.clone()),
                        def: outermost,
                        last,
                    };
                };
                outermost.get_or_insert(def);
                last = Some(def);
                definition_step(def, path, args, role)
            }
            other => structural_step(other, side.human(), role),
        };
        match step {
            Step::Reached(shape) => {
                return Resolved {
                    shape,
                    def: outermost,
                    last,
                };
            }
            Step::Follow(next) => current = next,
        }
    }
    Resolved {
        shape: Shape::Unresolved(format!("{ty} (too deep)")),
        def: outermost,
        last,
    }
}

/// One step through a type that is not a named definition: the shape a format-dependent or
/// role-dependent form stands for here, or the structural shape.
fn structural_step(ty: &Ty, human: bool, role: Role) -> Step {
    match ty {
        Ty::Readable { human: h, compact } => Step::Follow(if human {
            (**h).clone()
        } else {
            (**compact).clone()
        }),
        Ty::Choice { writes, .. } if role == Role::Writer => Step::Follow((**writes).clone()),
        Ty::Choice { reads, .. } => Step::Reached(Shape::Choice(reads.clone())),
        other => Step::Reached(structural_shape(other)),
    }
}

/// The shape of a type that is not a named definition (nor a readable or choice form).
fn structural_shape(ty: &Ty) -> Shape {
    match ty {
        Ty::Bool => Shape::Bool,
        Ty::Char => Shape::Char,
        Ty::String => Shape::Str,
        Ty::Int { signed, bits } => Shape::Int {
            signed: *signed,
            bits: *bits,
        },
        Ty::Float { bits } => Shape::Float { bits: *bits },
        Ty::Unit => Shape::Unit,
        Ty::Value => Shape::Value,
        Ty::Option { inner } => Shape::Option((**inner).clone()),
        Ty::Seq { kind, elem } => Shape::Seq(*kind, (**elem).clone()),
        Ty::Array { elem, len } => Shape::Array((**elem).clone(), *len),
        Ty::Tuple { elems } if elems.is_empty() => Shape::Unit,
        Ty::Tuple { elems } => Shape::Tuple(elems.clone(), Vec::new()),
        Ty::Map { key, value } => Shape::Map((**key).clone(), (**value).clone()),
        Ty::External {
            path,
            package,
            source,
        } => Shape::External(path.clone(), package.clone(), source.clone()),
        Ty::Refined {
            base,
            domain,
            within,
            sample,
            outside,
            extent,
        } => Shape::Refined(Box::new(RefinedDef {
            base: (**base).clone(),
            domain: domain.clone(),
            within: within.clone(),
            sample: sample.clone(),
            outside: outside.clone(),
            extent: extent.as_ref().and_then(|(least, most)| {
                Some((least.trim().parse().ok()?, most.trim().parse().ok()?))
            }),
            only: extent
                .as_ref()
                .filter(|(least, most)| least == most)
                .and_then(|(one, _)| serde_json::from_str(one).ok())
                .filter(serde_json::Value::is_string),
        })),
        Ty::Bytes => Shape::Bytes,
        Ty::Readable { human, .. } => structural_shape(human),
        Ty::Choice { writes, .. } => structural_shape(writes),
        Ty::Param { name } => Shape::Unresolved(name.clone()),
        Ty::Named { path, .. } => Shape::Unresolved(path.clone()),
    }
}

/// serde's missing-field rule (`__private::de::missing_field`): an absent field is deserialized from a
/// deserializer that answers `deserialize_option` with `visit_none` and rejects everything else, so it
/// reads as `None` exactly when the field's type, in the reader role, reaches an `Option` through calls
/// that hand the deserializer on unchanged: `from`/`try_from` proxies, aliases, `#[serde(transparent)]`
/// structs, refined and readable forms. A derived newtype struct asks `deserialize_newtype_struct`, which
/// the missing-field deserializer rejects.
pub fn absent_reads_none(side: SideRef<'_>, ty: &Ty) -> bool {
    let mut current = ty.clone();
    for _ in 0..MAX_DEPTH {
        let next = match &current {
            Ty::Option { .. } => return true,
            Ty::Refined { base, .. } => (**base).clone(),
            Ty::Readable { human, compact } => {
                if side.human() {
                    (**human).clone()
                } else {
                    (**compact).clone()
                }
            }
            Ty::Named { path, args } => match side.model.type_def(path) {
                Some(def) => match handed_on(def, args) {
                    Some(next) => next,
                    None => return false,
                },
                None => return false,
            },
            _ => return false,
        };
        current = next;
    }
    false
}

/// The type a definition's derived `Deserialize` hands its deserializer to unchanged, if any.
fn handed_on(def: &TypeDef, args: &[Ty]) -> Option<Ty> {
    let params = &def.generics;
    if let Some(proxy) = &def.attrs.from {
        return Some(subst(&proxy.ty, params, args));
    }
    match &def.body {
        Body::Alias { target } => Some(subst(target, params, args)),
        Body::Struct { fields, .. } if def.attrs.transparent => fields
            .iter()
            .find(|f| !f.skip_de)
            .filter(|f| !has_custom_de(f))
            .map(|f| subst(&f.ty, params, args)),
        _ => None,
    }
}

/// One step through a named definition instantiated with `args`: its proxy for the role, its alias
/// target, its single field, or its shape.
fn definition_step(def: &TypeDef, path: &str, args: &[Ty], role: Role) -> Step {
    let params = &def.generics;
    let proxy = match role {
        Role::Writer => def.attrs.into.as_ref(),
        Role::Reader => def.attrs.from.as_ref().map(|proxy| &proxy.ty),
    };
    if let Some(proxy) = proxy {
        return Step::Follow(subst(proxy, params, args));
    }
    match &def.body {
        Body::Alias { target } => Step::Follow(subst(target, params, args)),
        Body::Struct { style, fields } => struct_step(def, path, *style, fields, args, role),
        Body::Enum { variants } => Step::Reached(Shape::Enum(EnumDef {
            variants: variants
                .iter()
                .map(|variant| {
                    let mut variant = variant.clone();
                    variant.fields = variant
                        .fields
                        .iter()
                        .map(|f| subst_field(f, params, args))
                        .collect();
                    variant
                })
                .collect(),
            attrs: subst_attrs(&def.attrs, params, args),
        })),
    }
}

/// A struct: transparent and newtype structs are their one field; others keep their fields.
fn struct_step(
    def: &TypeDef,
    path: &str,
    style: Style,
    fields: &[Field],
    args: &[Ty],
    role: Role,
) -> Step {
    let params = &def.generics;
    let present: Vec<&Field> = fields.iter().filter(|f| role.sees(f)).collect();
    if def.attrs.transparent {
        return match present.first() {
            Some(field) => Step::Follow(subst(&field.ty, params, args)),
            None => Step::Reached(Shape::Unit),
        };
    }
    Step::Reached(match style {
        Style::Unit => Shape::Unit,
        Style::Tuple if fields.len() == 1 => match present.first() {
            Some(field) if field.custom.is_none() => {
                return Step::Follow(subst(&field.ty, params, args));
            }
            Some(field) => Shape::External(
                format!("{path} (custom: {})", custom_text(field)),
                None,
                None,
            ),
            None => Shape::Unit,
        },
        Style::Tuple => {
            let fields: Vec<Field> = present
                .iter()
                .map(|f| subst_field(f, params, args))
                .collect();
            Shape::Tuple(fields.iter().map(|f| f.ty.clone()).collect(), fields)
        }
        Style::Named => Shape::Struct(StructDef {
            fields: fields
                .iter()
                .map(|f| subst_field(f, params, args))
                .collect(),
            attrs: subst_attrs(&def.attrs, params, args),
        }),
    })
}
