//! The key namespace of a braced struct (or struct variant): its fields with flattened structs inlined,
//! and the flattened enums, maps and opaque types that share its keys.

use super::shape::{MAX_DEPTH, Role, Shape, SideRef, absent_reads_none, has_custom_de, resolve};
use crate::model::{AllowDecl, ContainerAttrs, EnumRepr, Field, Ty};

/// A field of a struct's flattened key namespace.
#[derive(Clone, Debug)]
pub struct FlatField {
    /// Rust names from the outer struct down (flattened fields add their own name).
    pub path: Vec<String>,
    /// The field.
    pub field: Field,
    /// The container of this field has `#[serde(default)]`.
    pub container_default: bool,
    /// `allow` declarations of the flattened fields this one sits in.
    pub allows: Vec<AllowDecl>,
    /// Sits inside a flattened `Option`: may be absent as a whole.
    pub optional_parent: bool,
    /// Its type reads a missing key as `None` (serde's missing-field rule, `absent_reads_none`).
    pub absent_is_none: bool,
}

impl FlatField {
    /// The key written.
    pub fn key(&self) -> &str {
        &self.field.ser_name
    }

    /// Whether a reader of this field tolerates its key missing (serde's rules: field or container
    /// `default`, or a type that reads a missing key as `None` without `deserialize_with`).
    pub fn tolerates_absence(&self) -> bool {
        self.field.default
            || self.container_default
            || self.optional_parent
            || (self.absent_is_none && !has_custom_de(&self.field))
    }
}

/// A flattened map (or `serde_json::Value`): absorbs unknown keys when read, writes arbitrary ones.
#[derive(Clone, Debug)]
pub struct FlatMap {
    pub key: Ty,
    pub value: Ty,
    /// Rust names of the flattened field holding the map.
    pub path: Vec<String>,
}

/// `#[serde(tag = "...")]` on a struct: the key and the value written.
#[derive(Clone, Debug)]
pub struct StructTag {
    pub key: String,
    pub value: String,
}

/// The key namespace of a braced struct (or struct variant) with flattened fields inlined.
#[derive(Clone, Debug, Default)]
pub struct FlatObject {
    /// Every key's field, flattened structs inlined.
    pub fields: Vec<FlatField>,
    /// A flattened map (or `Value`), which takes every other key.
    pub map: Option<FlatMap>,
    /// Flattened enums.
    pub enums: Vec<FlatField>,
    /// Flattened fields the checker cannot see into.
    pub opaque: Vec<FlatField>,
    /// The fields declared here that the role skips (`skip_deserializing` for a reader): they take no
    /// part on the wire, but the type still has them.
    pub skipped: Vec<FlatField>,
    /// `#[serde(deny_unknown_fields)]` on the container.
    pub deny_unknown_fields: bool,
    /// The tag key and value an internally tagged struct writes.
    pub tag: Option<StructTag>,
    /// serde reads it from a map only, never from an array: a struct with a flattened field, or an
    /// untagged enum's struct variant (the derive gives neither a `visit_seq`).
    pub map_only: bool,
}

/// Where the fields being inlined sit: inside which flattened fields, with what defaults.
struct Enclosing<'p> {
    path: &'p [String],
    allows: &'p [AllowDecl],
    container_default: bool,
    optional_parent: bool,
    depth: usize,
}

/// Builds the flattened namespace of `fields` (with their container's `attrs`) as `role` sees them.
pub fn flatten(
    side: SideRef<'_>,
    role: Role,
    fields: &[Field],
    attrs: &ContainerAttrs,
) -> FlatObject {
    let mut out = FlatObject {
        deny_unknown_fields: attrs.deny_unknown_fields,
        tag: match &attrs.repr {
            EnumRepr::Internal { tag } => Some(StructTag {
                key: tag.clone(),
                value: attrs.ser_name.clone(),
            }),
            _ => None,
        },
        ..FlatObject::default()
    };
    let top = Enclosing {
        path: &[],
        allows: &[],
        container_default: attrs.default,
        optional_parent: false,
        depth: 0,
    };
    inline_fields(side, role, fields, &top, &mut out);
    out.map_only = fields.iter().any(|f| f.flatten && role.sees(f));
    out
}

/// Adds `fields` to `out`, descending into flattened structs.
fn inline_fields(
    side: SideRef<'_>,
    role: Role,
    fields: &[Field],
    enclosing: &Enclosing<'_>,
    out: &mut FlatObject,
) {
    for field in fields {
        let mut path = enclosing.path.to_vec();
        path.push(field.rust_name.clone());
        let flat = FlatField {
            path: path.clone(),
            field: field.clone(),
            container_default: enclosing.container_default,
            allows: enclosing.allows.to_vec(),
            optional_parent: enclosing.optional_parent,
            absent_is_none: absent_reads_none(side, &field.ty),
        };
        if !role.sees(field) {
            out.skipped.push(flat);
            continue;
        }
        if !field.flatten {
            out.fields.push(flat);
            continue;
        }
        let (ty, optional) = match &field.ty {
            Ty::Option { inner } => ((**inner).clone(), true),
            ty => (ty.clone(), enclosing.optional_parent),
        };
        let mut allows = enclosing.allows.to_vec();
        allows.extend(field.allow.iter().cloned());
        match resolve(side, &ty, role).shape {
            Shape::Struct(obj) if enclosing.depth < MAX_DEPTH => {
                let inner = Enclosing {
                    path: &path,
                    allows: &allows,
                    container_default: obj.attrs.default,
                    optional_parent: optional,
                    depth: enclosing.depth + 1,
                };
                inline_fields(side, role, &obj.fields, &inner, out);
            }
            Shape::Map(key, value) => out.map = Some(FlatMap { key, value, path }),
            Shape::Value => {
                out.map = Some(FlatMap {
                    key: Ty::String,
                    value: Ty::Value,
                    path,
                });
            }
            Shape::Enum(_) => out.enums.push(flat),
            _ => out.opaque.push(flat),
        }
    }
}

impl FlatField {
    /// The `allow` declarations that apply to this field: those of the flattened fields it sits in,
    /// then its own.
    pub fn all_allows(&self) -> Vec<AllowDecl> {
        let mut allows = self.allows.clone();
        allows.extend(self.field.allow.iter().cloned());
        allows
    }
}
