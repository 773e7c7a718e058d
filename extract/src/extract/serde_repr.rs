//! Reading enums that derive serde_repr's `Serialize_repr`/`Deserialize_repr`: each variant is written
//! as its discriminant, an integer of the enum's `#[repr(...)]` type (serde_repr's `lib.rs` serializes
//! `Self::Variant as repr`, and deserializes the `repr` integer, then matches it against every
//! discriminant, falling back to the `#[serde(other)]` variant). serde_repr reads no other serde
//! attribute: `rename`, `alias` and `skip` have no effect on such an enum.

use syn::Attribute;

use super::consts::{self, Named};
use super::syntax::derives_named;

/// An enum written as integers: its `repr` type and each variant's discriminant, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IntegerEnum {
    /// The `repr` type is signed.
    pub signed: bool,
    /// The `repr` type's width (`usize`/`isize` count as 64).
    pub bits: u8,
    /// The discriminant of each variant, in declaration order.
    pub discriminants: Vec<i128>,
    /// Only one of the two derives is present: the other side is serde's derive, by name.
    pub one_sided: bool,
}

/// The integer type of `#[repr(u8)]` (and `#[repr(C, u8)]`-style lists), as serde_repr accepts it.
fn repr_int(attrs: &[Attribute]) -> Option<(bool, u8)> {
    let mut found = None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if let Some(int) = super::syntax::integer_type(&name) {
                found = Some(int);
            } else if meta.input.peek(syn::token::Paren) {
                let _group: proc_macro2::TokenTree = meta.input.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// The discriminants of an enum's variants: explicit ones evaluated, implicit ones one more than the
/// variant before (the first is 0), named constants by `named`. `Err` names the variant whose
/// discriminant cannot be evaluated.
fn discriminants(item: &syn::ItemEnum, named: Named<'_>) -> Result<Vec<i128>, String> {
    let mut next: i128 = 0;
    let mut out = Vec::with_capacity(item.variants.len());
    for variant in &item.variants {
        let value = match &variant.discriminant {
            Some((_, expr)) => {
                consts::evaluate(expr, named).ok_or_else(|| variant.ident.to_string())?
            }
            None => next,
        };
        out.push(value);
        next = value.saturating_add(1);
    }
    Ok(out)
}

/// serde_repr's reading of an enum (`attrs` with `cfg_attr` expanded): `None` when it derives neither
/// `Serialize_repr` nor `Deserialize_repr`; an error saying what cannot be read otherwise (serde_repr
/// itself requires a `#[repr]` integer and unit variants). Named constants in discriminants are
/// evaluated by `named`.
pub(super) fn integer_enum(
    item: &syn::ItemEnum,
    attrs: &[Attribute],
    named: Named<'_>,
) -> Option<Result<IntegerEnum, String>> {
    let (ser, de) = (
        derives_named(attrs, "Serialize_repr"),
        derives_named(attrs, "Deserialize_repr"),
    );
    if !ser && !de {
        return None;
    }
    let name = item.ident.to_string();
    let Some((signed, bits)) = repr_int(attrs) else {
        return Some(Err(format!(
            "enum `{name}` derives serde_repr without a `#[repr(u8)]`-style integer (serde_repr rejects it too): compared by path"
        )));
    };
    let discriminants = match discriminants(item, named) {
        Ok(discriminants) => discriminants,
        Err(variant) => {
            return Some(Err(format!(
                "the discriminant of `{name}::{variant}` is not an integer expression wirecheck can evaluate: the serde_repr enum is compared by path"
            )));
        }
    };
    Some(Ok(IntegerEnum {
        signed,
        bits,
        discriminants,
        one_sided: ser != de,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str) -> Option<Result<IntegerEnum, String>> {
        let item: syn::ItemEnum = syn::parse_str(source).expect("an enum");
        integer_enum(&item, &item.attrs, &mut |_| None)
    }

    #[test]
    fn implicit_discriminants_count_on_from_the_last_explicit_one() {
        let read = read(
            "#[derive(Serialize_repr, serde_repr::Deserialize_repr)] #[repr(i16)]
             enum E { A, B = -3, C, D = 0x10, E = 1 << 6, F = (2 + 3) * 2 }",
        );
        assert_eq!(
            read,
            Some(Ok(IntegerEnum {
                signed: true,
                bits: 16,
                discriminants: vec![0, -3, -2, 16, 64, 10],
                one_sided: false,
            }))
        );
    }

    #[test]
    fn not_serde_repr_or_unreadable() {
        assert_eq!(read("#[derive(Serialize)] #[repr(u8)] enum E { A }"), None);
        assert!(matches!(
            read("#[derive(Serialize_repr)] enum E { A }"),
            Some(Err(e)) if e.contains("#[repr(u8)]")
        ));
        assert!(matches!(
            read("#[derive(Deserialize_repr)] #[repr(C, u32)] enum E { A = K }"),
            Some(Err(e)) if e.contains("E::A")
        ));
        let one_sided =
            read("#[derive(Serialize_repr, Deserialize)] #[repr(C, usize)] enum E { A }");
        assert!(matches!(
            one_sided,
            Some(Ok(IntegerEnum {
                one_sided: true,
                signed: false,
                bits: 64,
                ..
            }))
        ));
    }
}
