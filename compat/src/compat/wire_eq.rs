//! Wire equality of two types from two snapshots, to skip comparing what did not change.

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use super::shape::{MAX_DEPTH, subst, subst_attrs};
use crate::model::{Body, ContainerAttrs, EnumRepr, Field, ModelView, Ty, TypeDef, Variant};

/// Wire equality of two closed types from two snapshots: same definitions up to locations, `since`,
/// `allow` and Rust-only names. Co-inductive on recursive types.
pub struct WireEq<'a> {
    first: ModelView<'a>,
    second: ModelView<'a>,
    /// Pairs assumed equal while their definitions are compared (FxHash: the keys are the models' own
    /// types, and SipHash showed in a cold check's profile).
    assumed: FxHashSet<(Ty, Ty)>,
}

/// A generic definition's parameters and the arguments of one use of it.
#[derive(Clone, Copy)]
struct Instance<'d> {
    params: &'d [String],
    args: &'d [Ty],
}

impl Instance<'_> {
    /// `ty` with the arguments substituted for the parameters: `ty` itself, not a copy, when the
    /// definition has none.
    fn ty<'t>(self, ty: &'t Ty) -> Cow<'t, Ty> {
        if self.params.is_empty() {
            Cow::Borrowed(ty)
        } else {
            Cow::Owned(subst(ty, self.params, self.args))
        }
    }

    /// `attrs` with the arguments substituted (see [`Instance::ty`]).
    fn attrs<'t>(self, attrs: &'t ContainerAttrs) -> Cow<'t, ContainerAttrs> {
        if self.params.is_empty() {
            Cow::Borrowed(attrs)
        } else {
            Cow::Owned(subst_attrs(attrs, self.params, self.args))
        }
    }
}

impl<'a> WireEq<'a> {
    pub fn new(first: ModelView<'a>, second: ModelView<'a>) -> Self {
        WireEq {
            first,
            second,
            assumed: FxHashSet::default(),
        }
    }

    /// Whether `x` (in the first snapshot) and `y` (in the second) are the same on the wire.
    pub fn ty(&mut self, x: &Ty, y: &Ty) -> bool {
        let same = self.same_ty(x, y, 0);
        if !same {
            // Assumptions made on the way may be false: only a successful proof may be kept.
            self.assumed.clear();
        }
        same
    }

    fn same_ty(&mut self, x: &Ty, y: &Ty, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let next = depth + 1;
        match (x, y) {
            (Ty::Named { path: p, args: a }, Ty::Named { path: q, args: b }) => {
                let key = (x.clone(), y.clone());
                if self.assumed.contains(&key) {
                    return true;
                }
                let (Some(first), Some(second)) = (self.first.type_def(p), self.second.type_def(q))
                else {
                    return false;
                };
                self.assumed.insert(key);
                self.same_definition(first, a, second, b, next)
            }
            (Ty::Option { inner: a }, Ty::Option { inner: b }) => self.same_ty(a, b, next),
            (Ty::Seq { kind: k, elem: a }, Ty::Seq { kind: l, elem: b }) => {
                k == l && self.same_ty(a, b, next)
            }
            (Ty::Array { elem: a, len: n }, Ty::Array { elem: b, len: m }) => {
                n == m && self.same_ty(a, b, next)
            }
            (Ty::Tuple { elems: a }, Ty::Tuple { elems: b }) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| self.same_ty(a, b, next))
            }
            (Ty::Map { key: k, value: v }, Ty::Map { key: l, value: w }) => {
                self.same_ty(k, l, next) && self.same_ty(v, w, next)
            }
            (
                Ty::Refined { .. } | Ty::Readable { .. } | Ty::Choice { .. } | Ty::External { .. },
                _,
            ) => self.same_form(x, y, next),
            (Ty::Named { .. }, _) | (_, Ty::Named { .. }) => false,
            _ => x == y,
        }
    }

    /// Two refined values, readable shapes, reader choices or opaque types of another crate.
    fn same_form(&mut self, x: &Ty, y: &Ty, next: usize) -> bool {
        match (x, y) {
            (
                Ty::Refined {
                    base: a,
                    domain: d,
                    within: w,
                    extent: x,
                    ..
                },
                Ty::Refined {
                    base: b,
                    domain: e,
                    within: v,
                    extent: y,
                    ..
                },
            ) => d == e && w == v && x == y && self.same_ty(a, b, next),
            (
                Ty::Readable {
                    human: a,
                    compact: c,
                },
                Ty::Readable {
                    human: b,
                    compact: d,
                },
            ) => self.same_ty(a, b, next) && self.same_ty(c, d, next),
            (
                Ty::Choice {
                    writes: a,
                    reads: r,
                },
                Ty::Choice {
                    writes: b,
                    reads: s,
                },
            ) => {
                r.len() == s.len()
                    && self.same_ty(a, b, next)
                    && r.iter().zip(s).all(|(a, b)| self.same_ty(a, b, next))
            }
            // As the comparison decides it (`forms`): the same opaque type is the same wire unless both
            // sources were read and differ; a package version is no evidence.
            (
                Ty::External {
                    path: p, source: s, ..
                },
                Ty::External {
                    path: q, source: t, ..
                },
            ) => p == q && (s.is_none() || t.is_none() || s == t),
            _ => false,
        }
    }

    fn same_optional_ty(&mut self, x: Option<&Ty>, y: Option<&Ty>, depth: usize) -> bool {
        match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => self.same_ty(x, y, depth),
            _ => false,
        }
    }

    fn same_definition(
        &mut self,
        first: &TypeDef,
        first_args: &[Ty],
        second: &TypeDef,
        second_args: &[Ty],
        depth: usize,
    ) -> bool {
        let x = Instance {
            params: &first.generics,
            args: first_args,
        };
        let y = Instance {
            params: &second.generics,
            args: second_args,
        };
        if !self.same_attrs(&x.attrs(&first.attrs), &y.attrs(&second.attrs), depth) {
            return false;
        }
        match (&first.body, &second.body) {
            (Body::Alias { target: a }, Body::Alias { target: b }) => {
                self.same_ty(&x.ty(a), &y.ty(b), depth)
            }
            (
                Body::Struct {
                    style: s,
                    fields: f,
                },
                Body::Struct {
                    style: t,
                    fields: g,
                },
            ) => s == t && self.same_fields(f, x, g, y, depth),
            (Body::Enum { variants: v }, Body::Enum { variants: w }) => {
                v.len() == w.len()
                    && v.iter()
                        .zip(w)
                        .all(|(v, w)| self.same_variant(v, x, w, y, depth))
            }
            _ => false,
        }
    }

    fn same_attrs(&mut self, a: &ContainerAttrs, b: &ContainerAttrs, depth: usize) -> bool {
        a.deny_unknown_fields == b.deny_unknown_fields
            && a.default == b.default
            && a.transparent == b.transparent
            && a.repr == b.repr
            && !(matches!(a.repr, EnumRepr::Internal { .. }) && a.ser_name != b.ser_name)
            && a.from.as_ref().map(|p| p.fallible) == b.from.as_ref().map(|p| p.fallible)
            && self.same_optional_ty(
                a.from.as_ref().map(|p| &p.ty),
                b.from.as_ref().map(|p| &p.ty),
                depth,
            )
            && self.same_optional_ty(a.into.as_ref(), b.into.as_ref(), depth)
            && a.hand_written == b.hand_written
    }

    fn same_variant(
        &mut self,
        v: &Variant,
        x: Instance<'_>,
        w: &Variant,
        y: Instance<'_>,
        depth: usize,
    ) -> bool {
        v.ser_name == w.ser_name
            && v.de_names == w.de_names
            && v.style == w.style
            && v.skip_ser == w.skip_ser
            && v.skip_de == w.skip_de
            && v.other == w.other
            && v.untagged == w.untagged
            && v.custom == w.custom
            && self.same_fields(&v.fields, x, &w.fields, y, depth)
    }

    fn same_fields(
        &mut self,
        first: &[Field],
        x: Instance<'_>,
        second: &[Field],
        y: Instance<'_>,
        depth: usize,
    ) -> bool {
        first.len() == second.len()
            && first.iter().zip(second).all(|(f, g)| {
                f.ser_name == g.ser_name
                    && f.de_names == g.de_names
                    && f.default == g.default
                    && f.skip_ser == g.skip_ser
                    && f.skip_de == g.skip_de
                    && f.flatten == g.flatten
                    && f.custom == g.custom
                    && self.same_ty(&x.ty(&f.ty), &y.ty(&g.ty), depth)
            })
    }
}
