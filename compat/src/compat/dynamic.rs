//! `serde_json::Value` as a reader in the binary self-describing formats. In JSON it reads anything; in
//! CBOR and MessagePack the codec hands it values JSON has no room for, which its visitor rejects: a byte
//! string (`visit_bytes`: "invalid type: byte array"), a map key that is not a string (its key
//! classifier asks for a string), and in MessagePack a 128-bit integer (written as 16 bytes).

use rustc_hash::FxHashSet;
use serde_json::{Value, json};

use super::codec::Codec;
use super::issue::Issue;
use super::sample::key_string;
use super::sample::{Sampler, wrap_variant};
use super::shape::EnumDef;
use super::shape::{Role, Shape, resolve};
use super::walk::Walk;
use super::witness::{single_entry, with_element};
use crate::model::{Style, Ty, Variant};

/// How many types the search for an unreadable part looks into, at most.
const MAX_SEARCH_TYPES: usize = 256;

impl Walk<'_> {
    /// A dynamic `serde_json::Value` reader against the writer's `writer_ty`: nothing in JSON; in a
    /// typed format, a break when the writer can write a part the value rejects.
    pub(super) fn compare_to_dynamic_value(&mut self, writer_ty: &Ty) -> Vec<Issue> {
        if !self.format.typed_keys() {
            return Vec::new();
        }
        let Some((witness, what)) = self.unreadable_by_value(writer_ty, &mut FxHashSet::default())
        else {
            return Vec::new();
        };
        vec![self.type_changed(
            writer_ty,
            &Ty::Value,
            &format!(
                "the writer can write {what}, which `serde_json::Value` rejects when read from {}",
                self.format
            ),
            Some(witness),
        )]
    }

    /// A value of `ty` holding a part `serde_json::Value` cannot read, and what that part is. Each type
    /// is looked into once (`seen`): recursive types end there.
    fn unreadable_by_value(&self, ty: &Ty, seen: &mut FxHashSet<Ty>) -> Option<(Value, String)> {
        if seen.len() > MAX_SEARCH_TYPES || !seen.insert(ty.clone()) {
            return None;
        }
        match resolve(self.writer, ty, Role::Writer).shape {
            Shape::Bytes => Some((json!([1]), "a byte string".to_owned())),
            Shape::Int { bits: 128, signed } if self.format.wide_integers_as_bytes() => Some((
                json!(if signed { -1 } else { 1 }),
                "a 128-bit integer (16 bytes in MessagePack)".to_owned(),
            )),
            Shape::Map(key, value) => self.unreadable_map(&key, &value, seen),
            Shape::Option(inner) => self.unreadable_by_value(&inner, seen),
            Shape::Seq(_, elem) => {
                let (inner, what) = self.unreadable_by_value(&elem, seen)?;
                Some((json!([inner]), what))
            }
            Shape::Array(elem, _) => {
                let (inner, what) = self.unreadable_by_value(&elem, seen)?;
                let base = self.sample(ty, false);
                Some((with_element(&base, 0, inner)?, what))
            }
            Shape::Tuple(elems, _) => elems.iter().enumerate().find_map(|(i, elem)| {
                let (inner, what) = self.unreadable_by_value(elem, seen)?;
                let base = self.sample(ty, false);
                Some((with_element(&base, i, inner)?, what))
            }),
            Shape::Struct(def) => {
                def.fields
                    .iter()
                    .filter(|f| Role::Writer.sees(f))
                    .find_map(|f| {
                        let (inner, what) = self.unreadable_by_value(&f.ty, seen)?;
                        let mut base = self.sample(ty, true)?;
                        replace_field(&mut base, &f.ser_name, inner)?;
                        Some((base, what))
                    })
            }
            Shape::Enum(en) => en
                .variants
                .iter()
                .filter(|v| !v.skip_ser)
                .find_map(|v| self.unreadable_variant(&en, v, seen)),
            _ => None,
        }
    }

    /// A value of the variant `variant` holding a part `serde_json::Value` cannot read.
    fn unreadable_variant(
        &self,
        en: &EnumDef,
        variant: &Variant,
        seen: &mut FxHashSet<Ty>,
    ) -> Option<(Value, String)> {
        let written: Vec<_> = variant
            .fields
            .iter()
            .filter(|f| Role::Writer.sees(f))
            .collect();
        let (at, (inner, what)) = written
            .iter()
            .enumerate()
            .find_map(|(i, f)| Some((i, self.unreadable_by_value(&f.ty, seen)?)))?;
        let payload = match variant.style {
            Style::Tuple if variant.fields.len() == 1 => inner,
            _ => {
                let mut base = Sampler::new(self.writer).payload(variant, true)??;
                match &mut base {
                    Value::Array(items) => *items.get_mut(at)? = inner,
                    other => replace_field(other, &written[at].ser_name, inner)?,
                }
                base
            }
        };
        Some((wrap_variant(&en.attrs.repr, variant, Some(payload))?, what))
    }

    /// A map whose key type is not written as a string, or whose values hold an unreadable part.
    fn unreadable_map(
        &self,
        key: &Ty,
        value: &Ty,
        seen: &mut FxHashSet<Ty>,
    ) -> Option<(Value, String)> {
        let key_sample = self.sample(key, true)?;
        let string_key = matches!(
            resolve(self.writer, key, Role::Writer).shape,
            Shape::Str | Shape::Char
        ) || key_sample.is_string();
        if !string_key {
            let value_sample = self.sample(value, false)?;
            return Some((
                single_entry(key_string(&key_sample), value_sample),
                format!("a map key of `{key}`, not a string"),
            ));
        }
        let (inner, what) = self.unreadable_by_value(value, seen)?;
        Some((single_entry(key_string(&key_sample), inner), what))
    }
}

/// Puts `inner` in place of the field written as `key` in the sample `base` (an object, or in
/// `msgpack-compact` an array, whose fields the sampler wrote in order; then the key is not found and
/// nothing is put).
fn replace_field(base: &mut Value, key: &str, inner: Value) -> Option<()> {
    let slot = base.as_object_mut()?.get_mut(key)?;
    *slot = inner;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_replaced_only_where_the_sample_names_it() {
        let mut base = json!({"a": 0, "b": 1});
        assert_eq!(replace_field(&mut base, "b", json!([1])), Some(()));
        assert_eq!(base, json!({"a": 0, "b": [1]}));
        assert_eq!(replace_field(&mut json!([0, 1]), "b", json!(2)), None);
    }
}
