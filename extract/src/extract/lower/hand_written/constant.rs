//! A `Deserialize` that reads a value and accepts one string literal, rejecting every other: the
//! reading half of a type that stands for one constant on the wire (a tag, a schema name), whose
//! `Serialize` writes that literal.

use syn::{BinOp, Expr, Lit, Pat, Stmt};

/// The one string a `Deserialize` body accepts, when after its read it ends in one of:
/// `if value == "text" { Ok(..) } else { Err(..) }`;
/// `if value != "text" { return Err(..); } Ok(..)`;
/// `match value { "text" => Ok(..), _ => Err(..) }` (on `value.as_str()`, `&*value`...).
/// `None` for any other body (more than one literal, another way to succeed).
pub fn accepted_constant(body: &syn::Block) -> Option<String> {
    let (last, before) = body.stmts.split_last()?;
    let Stmt::Expr(tail, None) = last else {
        return None;
    };
    // Everything before the tail is a `let` (the read), or the guard of the second form.
    let mut guard = None;
    for stmt in before {
        match stmt {
            Stmt::Local(_) => {}
            Stmt::Expr(Expr::If(check), _) if guard.is_none() => guard = Some(check),
            _ => return None,
        }
    }
    if let Some(check) = guard {
        let text = compared(&check.cond, false)?;
        let rejects = check.else_branch.is_none() && block_is(&check.then_branch, is_err);
        return (rejects && is_ok(tail)).then_some(text);
    }
    match tail {
        Expr::If(choice) => {
            let text = compared(&choice.cond, true)?;
            let (_, otherwise) = choice.else_branch.as_ref()?;
            (block_is(&choice.then_branch, is_ok) && is_err(otherwise)).then_some(text)
        }
        Expr::Match(matched) => {
            let mut text = None;
            for arm in &matched.arms {
                // A guarded arm is a `Pat::Guard`: not one of these.
                match &arm.pat {
                    Pat::Lit(lit) if text.is_none() && is_ok(&arm.body) => {
                        let Lit::Str(literal) = &lit.lit else {
                            return None;
                        };
                        text = Some(literal.value());
                    }
                    Pat::Wild(_) | Pat::Ident(_) if is_err(&arm.body) => {}
                    _ => return None,
                }
            }
            text
        }
        _ => None,
    }
}

/// The string literal `cond` compares a value with: by `==` when `equal`, else by `!=`.
fn compared(cond: &Expr, equal: bool) -> Option<String> {
    let Expr::Binary(binary) = cond else {
        return None;
    };
    match (&binary.op, equal) {
        (BinOp::Eq(_), true) | (BinOp::Ne(_), false) => {}
        _ => return None,
    }
    [&*binary.left, &*binary.right]
        .into_iter()
        .find_map(|side| match side {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(text) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
}

/// Whether `expr` is `Ok(..)` (in a block or not).
fn is_ok(expr: &Expr) -> bool {
    is_call_of(expr, "Ok")
}

/// Whether `expr` is `Err(..)` or `return Err(..)` (in a block or not).
fn is_err(expr: &Expr) -> bool {
    match expr {
        Expr::Return(ret) => ret.expr.as_deref().is_some_and(is_err),
        _ => is_call_of(expr, "Err"),
    }
}

/// Whether `expr` calls the function `name` (`Ok(..)`), or is a block whose last statement does.
fn is_call_of(expr: &Expr, name: &str) -> bool {
    match expr {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(path) if path.path.is_ident(name)),
        Expr::Block(block) => block_is(&block.block, |last| is_call_of(last, name)),
        _ => false,
    }
}

/// Whether the last statement of `block` is an expression `test` holds for.
fn block_is(block: &syn::Block, test: impl Fn(&Expr) -> bool) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, _)) => test(expr),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(body: &str) -> Option<String> {
        let block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).expect("a block");
        accepted_constant(&block)
    }

    #[test]
    fn one_literal_accepted() {
        for body in [
            "let s = String::deserialize(d)?; if s == \"v1\" { Ok(V1) } else { Err(D::Error::custom(\"no\")) }",
            "let s = String::deserialize(d)?; if \"v1\" != s.as_str() { return Err(Error::custom(s)); } Ok(V1)",
            "let s = String::deserialize(d)?; match s.as_str() { \"v1\" => Ok(V1), other => Err(Error::unknown_variant(other, &[])) }",
        ] {
            assert_eq!(accepted(body).as_deref(), Some("v1"), "{body}");
        }
    }

    #[test]
    fn other_bodies_are_not_one_literal() {
        for body in [
            // Two literals.
            "let s = String::deserialize(d)?; match s.as_str() { \"a\" => Ok(A), \"b\" => Ok(B), _ => Err(e()) }",
            // Another way to succeed.
            "let s = String::deserialize(d)?; if s == \"a\" { Ok(A) } else { s.parse() }",
            "let s = String::deserialize(d)?; match s.as_str() { \"a\" => Ok(A), _ => Ok(B) }",
            // Not a literal.
            "let s = String::deserialize(d)?; if s == NAME { Ok(A) } else { Err(e()) }",
            // Statements besides the read.
            "let s = String::deserialize(d)?; log(&s); if s == \"a\" { Ok(A) } else { Err(e()) }",
            // A guard in the wrong sense.
            "let s = String::deserialize(d)?; if s == \"a\" { return Err(e()); } Ok(A)",
        ] {
            assert_eq!(accepted(body), None, "{body}");
        }
    }
}
