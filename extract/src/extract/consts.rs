//! Constant integer expressions as rustc evaluates them where serde's wire depends on one: an array's
//! length (`[u8; LEN]`, `[T; 2 * N]`) and an explicit discriminant (a serde_repr enum writes it).
//!
//! Literals, parentheses, `-`, the arithmetic and bit operators, `as` casts to an integer type (which
//! wrap to its width, as rustc's do), the `MIN`/`MAX`/`BITS` of a primitive integer type and named
//! constants: a name is the caller's to evaluate (`named`), so that the lowering asks its revision
//! (the recording door) and name resolution evaluates a constant's own expression in its module.
//! Anything else (a function call, `size_of`, a block) is `None`: compared by the text written.

use syn::{BinOp, Expr, Lit, UnOp};

use super::syntax::path_segments;

/// A named constant's value, asked of the caller by the path's segments as written.
pub(super) type Named<'n> = &'n mut dyn FnMut(&[String]) -> Option<i128>;

/// The value of `expr`, its names evaluated by `named`; `None` when it is not an integer expression
/// this evaluator reads, or it overflows (rustc rejects an overflowing constant too).
pub(super) fn evaluate(expr: &Expr, named: Named<'_>) -> Option<i128> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => int.base10_parse().ok(),
            _ => None,
        },
        Expr::Paren(inner) => evaluate(&inner.expr, named),
        Expr::Group(inner) => evaluate(&inner.expr, named),
        Expr::Cast(cast) => {
            let value = evaluate(&cast.expr, named)?;
            match &*cast.ty {
                syn::Type::Path(path) if path.qself.is_none() => {
                    let name = path.path.get_ident()?.to_string();
                    wrap(value, integer_type(&name)?)
                }
                _ => None,
            }
        }
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            evaluate(&unary.expr, named)?.checked_neg()
        }
        Expr::Binary(binary) => {
            let left = evaluate(&binary.left, named)?;
            let right = evaluate(&binary.right, named)?;
            binary_op(binary.op, left, right)
        }
        Expr::Path(path) if path.qself.is_none() => {
            let segments = path_segments(&path.path);
            primitive_const(&segments).or_else(|| named(&segments))
        }
        _ => None,
    }
}

/// `left op right`, `None` on overflow, a division by zero or an operator constants do not use.
fn binary_op(op: BinOp, left: i128, right: i128) -> Option<i128> {
    match op {
        BinOp::Add(_) => left.checked_add(right),
        BinOp::Sub(_) => left.checked_sub(right),
        BinOp::Mul(_) => left.checked_mul(right),
        BinOp::Div(_) => left.checked_div(right),
        BinOp::Rem(_) => left.checked_rem(right),
        BinOp::Shl(_) => u32::try_from(right)
            .ok()
            .filter(|&shift| shift < 128)
            .and_then(|shift| left.checked_mul(1i128.checked_shl(shift)?)),
        BinOp::Shr(_) => u32::try_from(right)
            .ok()
            .and_then(|shift| left.checked_shr(shift)),
        BinOp::BitOr(_) => Some(left | right),
        BinOp::BitAnd(_) => Some(left & right),
        BinOp::BitXor(_) => Some(left ^ right),
        _ => None,
    }
}

/// A primitive integer type's sign and width in bits (see `syntax::integer_type`).
fn integer_type(name: &str) -> Option<(bool, u32)> {
    super::syntax::integer_type(name).map(|(signed, bits)| (signed, u32::from(bits)))
}

/// `value as T`: wrapped to `T`'s width, as rustc's cast does; `None` for a `u128` above `i128::MAX`,
/// which this evaluator does not hold.
fn wrap(value: i128, (signed, bits): (bool, u32)) -> Option<i128> {
    if bits == 128 {
        return (signed || value >= 0).then_some(value);
    }
    let modulus = 1i128 << bits;
    let low = value.rem_euclid(modulus);
    Some(if signed && low >= modulus / 2 {
        low - modulus
    } else {
        low
    })
}

/// `u8::MAX`, `i32::MIN`, `u64::BITS` (also under `core::`/`std::`); `None` for any other path.
fn primitive_const(segments: &[String]) -> Option<i128> {
    let (name, owner) = segments.split_last()?;
    let owner = match owner {
        [owner] | [_, owner] => owner,
        _ => return None,
    };
    let (signed, bits) = integer_type(owner)?;
    if bits == 128 && !signed && name == "MAX" {
        return None;
    }
    match name.as_str() {
        "BITS" => Some(i128::from(bits)),
        "MAX" if signed => Some(i128::MAX >> (128 - bits)),
        "MAX" => Some(i128::MAX >> (127 - bits)),
        "MIN" if signed => Some(i128::MIN >> (128 - bits)),
        "MIN" => Some(0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, consts: &[(&str, i128)]) -> Option<i128> {
        let expr: Expr = syn::parse_str(text).expect("an expression");
        let mut named = |segments: &[String]| {
            let joined = segments.join("::");
            consts
                .iter()
                .find(|(name, _)| *name == joined)
                .map(|&(_, value)| value)
        };
        evaluate(&expr, &mut named)
    }

    #[test]
    fn arithmetic_with_parentheses_and_names() {
        assert_eq!(value("2 * N", &[("N", 16)]), Some(32));
        assert_eq!(value("(LEN + 1) << 2", &[("LEN", 3)]), Some(16));
        assert_eq!(value("wire::SIZE / 4 - 1", &[("wire::SIZE", 64)]), Some(15));
        assert_eq!(value("0x10 | 0b1", &[]), Some(17));
        assert_eq!(value("N as usize", &[("N", 7)]), Some(7));
        assert_eq!(value("-3i16", &[]), Some(-3));
    }

    #[test]
    fn casts_wrap_as_rustc_does() {
        assert_eq!(value("300 as u8", &[]), Some(44));
        assert_eq!(value("255u8 as i8", &[]), Some(-1));
        assert_eq!(value("-1 as u16", &[]), Some(65535));
    }

    #[test]
    fn primitive_bounds() {
        assert_eq!(value("u8::MAX as usize + 1", &[]), Some(256));
        assert_eq!(value("core::i16::MIN", &[]), Some(-32768));
        assert_eq!(value("u32::BITS / 8", &[]), Some(4));
        assert_eq!(value("u64::MAX", &[]), Some(i128::from(u64::MAX)));
        assert_eq!(value("i128::MIN", &[]), Some(i128::MIN));
        assert_eq!(value("i8::MAX", &[]), Some(127));
    }

    #[test]
    fn what_it_does_not_read() {
        assert_eq!(value("N", &[]), None);
        assert_eq!(value("size_of::<u64>()", &[]), None);
        assert_eq!(value("1 / 0", &[]), None);
        assert_eq!(value("i128::MAX + 1", &[]), None);
        assert_eq!(value("1 as f64", &[]), None);
        assert_eq!(value("u128::MAX", &[]), None);
    }
}
