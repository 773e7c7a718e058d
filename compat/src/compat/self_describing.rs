//! The walk in self-describing formats (JSON, CBOR, MessagePack): which comparison a pair of wire
//! shapes goes to, options, and the fallback that decides by decoding the writer's samples.

use serde_json::{Value, json};

use super::codec::Codec;
use super::decode::Decoder;
use super::issue::{Issue, located};
use super::sample::Sampler;
use super::shape::{EnumDef, MAX_DEPTH, Role, Shape, SideRef, resolve, subst};
use super::walk::Walk;
use crate::model::{Body, EnumRepr, Style, Ty};
use crate::rules::RuleId;

impl Walk<'_> {
    /// Compares `writer` with `reader` in a self-describing format.
    pub(super) fn compare_self_describing(&mut self, writer: &Ty, reader: &Ty) -> Vec<Issue> {
        let writer_resolved = resolve(self.writer, writer, Role::Writer);
        let reader_resolved = resolve(self.reader, reader, Role::Reader);
        let mut out = self.compare_definitions(writer, writer_resolved.def, reader_resolved.def);
        if out.iter().any(|i| i.rule == RuleId::TransparentChanged)
            || self.settled_by_definitions(
                &out,
                (writer_resolved.def, &writer_resolved.shape),
                (reader_resolved.def, &reader_resolved.shape),
            )
        {
            return out;
        }
        let location = self.location(
            writer_resolved.def.map(|d| &d.location),
            reader_resolved.def.map(|d| &d.location),
        );
        if let Some(issue) = self.unit_struct_read_as_unit(writer, reader) {
            out.push(issue);
            return located(out, &location);
        }
        let found =
            self.compare_shapes(writer, reader, writer_resolved.shape, reader_resolved.shape);
        out.extend(located(found, &location));
        out
    }

    /// In MessagePack a unit struct is written as an empty array, which `()` (alone or in an option)
    /// rejects; a unit struct reader takes both it and `nil`.
    fn unit_struct_read_as_unit(&self, writer_ty: &Ty, reader_ty: &Ty) -> Option<Issue> {
        if !self.format.unit_struct_is_array()
            || !is_unit_struct(self.writer, writer_ty, Role::Writer)
        {
            return None;
        }
        let mut reader = reader_ty.clone();
        for _ in 0..MAX_DEPTH {
            let resolved = resolve(self.reader, &reader, Role::Reader);
            match resolved.shape {
                Shape::Option(inner) => reader = inner,
                Shape::Unit if !is_unit_struct(self.reader, &reader, Role::Reader) => {
                    return Some(self.type_changed(
                        writer_ty,
                        reader_ty,
                        "rmp-serde writes a unit struct as an empty array, which `()` rejects",
                        self.sample(writer_ty, false),
                    ));
                }
                _ => return None,
            }
        }
        None
    }

    /// Sends a pair of wire shapes to its comparison.
    fn compare_shapes(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: Shape,
        reader: Shape,
    ) -> Vec<Issue> {
        use Shape as S;
        if let Some(found) = self.compare_unions(writer_ty, reader_ty, &writer, &reader) {
            return found;
        }
        if let Some(found) = self.compare_forms(writer_ty, reader_ty, &writer, &reader) {
            return found;
        }
        if let Some(found) = self.compare_compact_structs(writer_ty, reader_ty, &writer, &reader) {
            return found;
        }
        if let Some(found) = self.compare_scalar_shapes(writer_ty, reader_ty, &writer, &reader) {
            return found;
        }
        match (writer, reader) {
            (_, S::Value) => self.compare_to_dynamic_value(writer_ty),
            (S::Unresolved(a), S::Unresolved(b)) if a == b => Vec::new(),
            (S::Unresolved(name), _) | (_, S::Unresolved(name)) => {
                vec![self.unresolved_type(&name, writer_ty, reader_ty)]
            }
            // A reader's option reads the content an external writer writes (a writer skipping its
            // `None` writes the content only): compare the content, not the option against it.
            (S::External(..), S::Option(inner)) => self.compare(writer_ty, &inner),
            (S::External(..), _) | (_, S::External(..)) => {
                vec![self.external_type_changed(writer_ty, reader_ty)]
            }
            (S::Option(a), S::Option(b)) => {
                let written = self.without_inner_options(&a);
                self.compare(&written, &b)
            }
            (S::Option(inner), _) => self.option_to_required(writer_ty, reader_ty, &inner),
            (S::Unit, S::Option(_)) => Vec::new(),
            (writer @ S::Value, S::Option(inner)) => {
                self.value_to_option(writer_ty, reader_ty, &writer, &inner)
            }
            (_, S::Option(inner)) => self.compare(writer_ty, &inner),
            (
                writer @ (S::Int { .. } | S::Float { .. }),
                reader @ (S::Int { .. } | S::Float { .. }),
            ) => self.compare_numbers(writer_ty, reader_ty, &writer, &reader),
            (S::Seq(k1, e1), S::Seq(k2, e2)) => {
                self.compare_sequences(writer_ty, reader_ty, (k1, &e1), (k2, &e2))
            }
            (S::Seq(_, elem), S::Array(_, len)) => {
                vec![self.sequence_to_array(writer_ty, reader_ty, &elem, len)]
            }
            (S::Seq(_, elem), S::Tuple(elems, _)) => {
                vec![self.sequence_to_tuple(writer_ty, reader_ty, &elem, elems.is_empty())]
            }
            (S::Array(e1, n1), S::Array(e2, n2)) => {
                self.compare_arrays(writer_ty, reader_ty, (&e1, n1), (&e2, n2))
            }
            (S::Array(elem, len), S::Seq(kind, reader_elem)) => {
                self.array_to_sequence(writer_ty, reader_ty, (&elem, len), (kind, &reader_elem))
            }
            (S::Tuple(elems, _), S::Seq(kind, reader_elem)) => {
                self.tuple_to_sequence(writer_ty, reader_ty, &elems, (kind, &reader_elem))
            }
            (writer @ (S::Array(..) | S::Tuple(..)), reader @ (S::Array(..) | S::Tuple(..))) => {
                self.compare_fixed(writer_ty, reader_ty, &writer, &reader)
            }
            (S::Map(k1, v1), S::Map(k2, v2)) => self.compare_maps((&k1, &v1), (&k2, &v2)),
            (S::Struct(a), S::Struct(b)) => self.compare_structs(&a, &b),
            (S::Enum(a), S::Enum(b)) => self.compare_enums(writer_ty, reader_ty, &a, &b),
            (writer @ S::Int { .. }, S::Enum(b)) => {
                self.integer_to_enum((writer_ty, reader_ty), &writer, &b)
            }
            (writer, _) => self.compare_by_samples(writer_ty, reader_ty, &writer),
        }
    }

    /// Two of booleans, characters, strings and units (`None`: another pair); numbers are
    /// `compare_numbers`'s.
    fn compare_scalar_shapes(
        &self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Vec<Issue>> {
        use Shape as S;
        match (writer, reader) {
            (S::Bool, S::Bool)
            | (S::Char, S::Char)
            | (S::Char, S::Str)
            | (S::Str, S::Str)
            | (S::Unit, S::Unit) => Some(Vec::new()),
            (S::Str, S::Char) => Some(vec![self.string_to_char(writer_ty, reader_ty)]),
            _ => None,
        }
    }

    /// An integer read as an enum: by its discriminants where the enum is written as integers
    /// (serde_repr), else by samples.
    fn integer_to_enum(
        &mut self,
        (writer_ty, reader_ty): (&Ty, &Ty),
        writer: &Shape,
        reader: &EnumDef,
    ) -> Vec<Issue> {
        match (writer, &reader.attrs.repr) {
            (Shape::Int { signed, bits }, EnumRepr::Integer { .. }) => {
                self.integer_to_integer_enum((writer_ty, reader_ty), (*signed, *bits), reader)
            }
            _ => self.compare_by_samples(writer_ty, reader_ty, writer),
        }
    }

    /// An untagged enum of newtype variants (serde_with's and the ecosystem's "one of these types")
    /// written to a reader that is not an enum, or read from a writer that is not one (`None`: neither).
    fn compare_unions(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Option<Vec<Issue>> {
        if let Shape::Enum(union) = writer
            && union_of_newtypes(union)
            && !matches!(reader, Shape::Enum(_) | Shape::Value)
        {
            return Some(self.compare_union(union, reader_ty));
        }
        if let Shape::Enum(union) = reader
            && union_of_newtypes(union)
            && !matches!(writer, Shape::Enum(_))
        {
            let reads: Vec<Ty> = union
                .variants
                .iter()
                .filter(|v| !v.skip_de)
                .map(|v| v.fields[0].ty.clone())
                .collect();
            return self.compare_by_kind(writer_ty, reader_ty, writer, &reads);
        }
        None
    }

    /// Two numbers: integers by width and sign, floats by width, one read as the other.
    fn compare_numbers(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Vec<Issue> {
        match (writer, reader) {
            (Shape::Int { signed: a, bits: x }, Shape::Int { signed: b, bits: y }) => self
                .compare_integers((*a, *x), (*b, *y))
                .into_iter()
                .collect(),
            (Shape::Float { bits: x }, Shape::Float { bits: y }) => {
                self.float_narrowed(*x, *y).into_iter().collect()
            }
            (Shape::Int { signed, bits }, Shape::Float { bits: float_bits }) => self
                .integer_to_float(writer_ty, (*signed, *bits), *float_bits)
                .into_iter()
                .collect(),
            _ => vec![self.float_to_integer(writer_ty, reader_ty)],
        }
    }

    /// An untagged enum of newtype variants written, read by a type that is not an enum: each variant
    /// writes its content alone, which the reader must read.
    fn compare_union(&mut self, writer: &EnumDef, reader_ty: &Ty) -> Vec<Issue> {
        let mut out: Vec<Issue> = Vec::new();
        for variant in writer.variants.iter().filter(|v| !v.skip_ser) {
            for issue in self.compare(&variant.fields[0].ty, reader_ty) {
                if !out
                    .iter()
                    .any(|seen| seen.rule == issue.rule && seen.witness == issue.witness)
                {
                    out.push(issue);
                }
            }
        }
        out
    }

    /// What an option's content is on the wire inside another option: a `None` inside is written as
    /// `null`, the same as the outer `None`, and the reader's option reads it as its own `None`, so only
    /// the innermost non-option values reach the reader's content (`Option<Option<T>>` writes `T` or
    /// `null`).
    fn without_inner_options(&self, ty: &Ty) -> Ty {
        let mut current = ty.clone();
        for _ in 0..MAX_DEPTH {
            match resolve(self.writer, &current, Role::Writer).shape {
                Shape::Option(inner) => current = inner,
                _ => break,
            }
        }
        current
    }

    /// The writer's `Option<inner>` against a reader that is no option: null is rejected unless the
    /// reader takes it; the inner type is compared as well.
    fn option_to_required(&mut self, writer_ty: &Ty, reader_ty: &Ty, inner: &Ty) -> Vec<Issue> {
        let mut out = Vec::new();
        if Decoder::new(self.reader)
            .decode(reader_ty, &Value::Null)
            .is_err()
        {
            out.push(Issue::breaking(
                self.optionality_rule(true),
                format!(
                    "{} writes `{writer_ty}`, which may be null, and {} reads `{reader_ty}`, which rejects null",
                    self.writer_name(),
                    self.reader_name()
                ),
                Some(Value::Null),
            ));
        }
        out.extend(self.compare(inner, reader_ty));
        out
    }

    /// Anything may be written; an opaque reader type cannot be judged, so say so rather than let the
    /// decoder model accept it.
    fn value_to_option(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        inner: &Ty,
    ) -> Vec<Issue> {
        let inner_shape = resolve(self.reader, inner, Role::Reader).shape;
        if matches!(inner_shape, Shape::External(..) | Shape::Unresolved(_)) {
            self.compare(writer_ty, inner)
        } else {
            self.compare_by_samples(writer_ty, reader_ty, writer)
        }
    }

    /// Samples the writer and asks the reader model; reports the first payload it rejects.
    pub(super) fn compare_by_samples(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
    ) -> Vec<Issue> {
        self.compare_by_candidates(writer_ty, reader_ty, writer, Vec::new())
    }

    /// [`Self::compare_by_samples`], trying the values `extra` (which the writer writes) first.
    pub(super) fn compare_by_candidates(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        extra: Vec<Value>,
    ) -> Vec<Issue> {
        let mut candidates = extra;
        if matches!(writer, Shape::Value) {
            candidates.extend([
                Value::Null,
                json!(true),
                json!(0),
                json!(0.5),
                json!(""),
                json!([]),
                json!({}),
            ]);
        }
        let mut sampler = Sampler::new(self.writer);
        candidates.extend(sampler.value(writer_ty, false));
        candidates.extend(sampler.value(writer_ty, true));
        if let Shape::Enum(en) = writer {
            for variant in en.variants.iter().filter(|v| !v.skip_ser) {
                candidates.extend(sampler.variant(en, variant, false));
                candidates.extend(sampler.variant(en, variant, true));
            }
        }
        let mut decoder = Decoder::new(self.reader);
        for candidate in candidates {
            if let Err(reason) = decoder.decode(reader_ty, &candidate) {
                return vec![self.type_changed(writer_ty, reader_ty, &reason, Some(candidate))];
            }
        }
        Vec::new()
    }
}

/// Whether an enum is untagged with newtype variants only (each writes its content alone).
fn union_of_newtypes(en: &EnumDef) -> bool {
    en.attrs.repr == EnumRepr::Untagged
        && en
            .variants
            .iter()
            .all(|v| v.style == Style::Tuple && v.fields.len() == 1 && v.custom.is_none())
}

/// Whether `ty` is a unit struct on `side` in `role`: the struct itself, or through the newtype structs,
/// transparent structs, aliases and proxies that hand its value on.
fn is_unit_struct(side: SideRef<'_>, ty: &Ty, role: Role) -> bool {
    let mut current = ty.clone();
    for _ in 0..MAX_DEPTH {
        let Ty::Named { path, args } = &current else {
            return false;
        };
        let Some(def) = side.model.type_def(path) else {
            return false;
        };
        let proxy = match role {
            Role::Writer => def.attrs.into.as_ref(),
            Role::Reader => def.attrs.from.as_ref().map(|proxy| &proxy.ty),
        };
        let next = match (proxy, &def.body) {
            (Some(proxy), _) => proxy,
            (
                None,
                Body::Struct {
                    style: Style::Unit, ..
                },
            ) => return true,
            (None, Body::Alias { target }) => target,
            (None, Body::Struct { style, fields })
                if (*style == Style::Tuple && fields.len() == 1 || def.attrs.transparent)
                    && fields.iter().all(|f| f.custom.is_none()) =>
            {
                match fields.iter().find(|f| role.sees(f)) {
                    Some(field) => &field.ty,
                    None => return false,
                }
            }
            _ => return false,
        };
        current = subst(next, &def.generics, args);
    }
    false
}
