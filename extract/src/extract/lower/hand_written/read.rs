//! The syntax of hand-written serde impls, read into what they write and read where the body follows
//! a pattern serde users write again and again; anything else is `None` (the impl stays opaque). No
//! type is resolved here: the lowering turns what is read into the model.
//!
//! - `Serialize`: the value the body hands its serializer, through `serializer.serialize_*(value)`,
//!   `serializer.collect_str(value)`, `value.serialize(serializer)` or `Serialize::serialize(value,
//!   serializer)`, in each arm of a `match` or branch of an `if`.
//! - `Deserialize`: one read of the deserializer, `T::deserialize(deserializer)` (then a conversion,
//!   fallible or not), or `deserializer.deserialize_*(visitor)`, whose `visit_*` methods (read by the
//!   lowering from the visitor's impl) say what it accepts.

use syn::{Expr, ImplItem, ItemImpl, Lit, Pat, Stmt};

/// A value a `Serialize` body writes.
#[derive(Clone)]
pub enum Value {
    /// A field of `self` (`self.0`, `self.name`), or of the variant a `match` arm binds (`Id::Number(n)`
    /// then `n`: the variant `Number`, field `0`).
    Field {
        variant: Option<String>,
        member: String,
    },
    /// The text of a value (`x.to_string()`, `x.as_str()`, `format!(..)`, `serialize_str(x)`): the field
    /// it is made of, when it is one (its own serialized text when that is a string).
    Text(Option<Box<Value>>),
    /// A string literal.
    Const(String),
    /// An integer literal, of the primitive its suffix names (`i32` without one, as Rust infers an
    /// unconstrained literal).
    Int(i128, String),
    /// A value serde writes as the primitive named (`serialize_u32(..)`: `u32`; `bytes`, `unit`).
    Primitive(String),
    /// A value cast to the primitive named (`*id as f64`): of that type, but only the values the
    /// cast makes of its operand's (whole numbers only, a narrower range), which the model does not
    /// know: never read exactly.
    Cast(String),
    /// A value of a type named in the impl (`<T as Serialize>::serialize`).
    Type(Box<syn::Type>),
    /// The elements of a value collected into a collection of std's
    /// (`value.iter().collect::<BTreeMap<_, _>>()`, or collected into a `let` of that type).
    Collected { of: Box<Value>, into: Collection },
}

/// The kind of std collection a value is collected into, by what serde writes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    /// `BTreeMap`, `HashMap`, `IndexMap`: a map.
    Map,
    /// `Vec`, `VecDeque`, `LinkedList`: a sequence.
    List,
    /// `BTreeSet`, `HashSet`, `IndexSet`: a sequence, duplicates collapsed.
    Set,
}

/// What a `Deserialize` body reads.
pub enum Reading {
    /// `T::deserialize(deserializer)` (`T` as written, `None` for `Deserialize::deserialize` without an
    /// annotation), then a conversion: `fallible` when the code after the read can fail, and the type it
    /// parses the value into when it does (`Uri::parse(s)`, `s.parse::<Uri>()`, `Uri::try_from(s)`).
    Delegated {
        ty: Option<Box<syn::Type>>,
        fallible: bool,
        parsed_into: Option<syn::Path>,
        /// The item `ty` names when the body defines it (a helper struct inside the function).
        local: Option<Box<syn::Item>>,
        /// The one string literal the body accepts, rejecting every other value (see `constant`).
        only: Option<String>,
    },
    /// `deserializer.deserialize_<method>(visitor)`: the visitor as written, and its `Visitor` impl
    /// when the body defines it (a `struct Visitor;` and its impl inside the function).
    Visitor {
        method: String,
        visitor: syn::Path,
        local: Option<Box<ItemImpl>>,
    },
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Field { variant, member } => write!(f, "Field({variant:?}, {member})"),
            Value::Text(inner) => write!(f, "Text({inner:?})"),
            Value::Const(text) => write!(f, "Const({text:?})"),
            Value::Int(value, ty) => write!(f, "Int({value}{ty})"),
            Value::Primitive(name) => write!(f, "Primitive({name})"),
            Value::Cast(name) => write!(f, "Cast({name})"),
            Value::Type(ty) => write!(f, "Type({})", super::super::super::syntax::tokens_text(ty)),
            Value::Collected { of, into } => write!(f, "Collected({of:?} into {into:?})"),
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        format!("{self:?}") == format!("{other:?}")
    }
}

/// What one `visit_*` method of a visitor accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepts {
    Bool,
    /// Integers handed to `visit_u64` (not negative) or `visit_i64` (`negative`: serde_json hands it the
    /// negative ones), within the range of the integer type its body converts them to with `try_from`
    /// (`into`: its sign and bits), when it does.
    Int {
        negative: bool,
        into: Option<(bool, u8)>,
    },
    Float,
    Str {
        parsed: bool,
    },
    Unit,
}

/// The name of the second parameter of `method` in `item` (the serializer or deserializer), and the
/// method's body.
fn method<'i>(item: &'i ItemImpl, name: &str) -> Option<(&'i syn::Block, Option<String>)> {
    item.items.iter().find_map(|impl_item| match impl_item {
        ImplItem::Fn(function) if function.sig.ident == name => {
            let param = function
                .sig
                .inputs
                .iter()
                .rev()
                .find_map(|input| match input {
                    syn::FnArg::Typed(typed) => pat_name(&typed.pat),
                    syn::FnArg::Receiver(_) => None,
                });
            Some((&function.block, param))
        }
        _ => None,
    })
}

fn pat_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(ident) => Some(ident.ident.to_string()),
        Pat::Type(typed) => pat_name(&typed.pat),
        _ => None,
    }
}

/// The tail expression of a block (its last statement, without `;`), and the `let` bindings before
/// it.
fn tail(block: &syn::Block) -> Option<(&Expr, Vec<&syn::Local>)> {
    let mut locals = Vec::new();
    for (index, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Local(local) => locals.push(local),
            Stmt::Expr(expr, None) if index + 1 == block.stmts.len() => {
                return Some((expr, locals));
            }
            Stmt::Expr(Expr::Return(ret), _) => {
                return ret.expr.as_deref().map(|expr| (expr, locals));
            }
            _ => {}
        }
    }
    None
}

/// What the `Serialize` impl `item` writes: one value per branch of its body; `None` when some branch
/// is not a pattern this reads.
pub fn serialized(item: &ItemImpl) -> Option<Vec<Value>> {
    let (body, serializer) = method(item, "serialize")?;
    written_by(body, &serializer?, Vec::new())
}

/// The name a `serialize_with` function's body gives the value it writes (the field, as
/// [`Value::Field`] with no variant), in [`with_serialized`]'s answer.
pub const WITH_VALUE: &str = "<value>";

/// What a `serialize_with` function (`fn serialize<S: Serializer>(value: &T, serializer: S)`)
/// writes, read like a `Serialize` body: one value per branch; the value it is given is the field,
/// [`Value::Field`] named [`WITH_VALUE`]. `None` when some branch is not a pattern this reads.
pub fn with_serialized(function: &syn::ItemFn) -> Option<Vec<Value>> {
    let mut params = typed_params(&function.sig);
    let serializer = params.pop()??;
    let value = params.pop()??;
    let bound = vec![(value, None, WITH_VALUE.to_owned())];
    written_by(&function.block, &serializer, bound)
}

/// The names of a signature's typed parameters, in order (`None` for a pattern that is no name).
fn typed_params(sig: &syn::Signature) -> Vec<Option<String>> {
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(pat_name(&typed.pat)),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// What `body` writes to the serializer named `serializer`, with the names `bound` stands for.
fn written_by(
    body: &syn::Block,
    serializer: &str,
    bound: Vec<(String, Option<String>, String)>,
) -> Option<Vec<Value>> {
    let (expr, locals) = tail(body)?;
    let context = SerContext {
        serializer,
        locals,
        bound,
    };
    let mut out = Vec::new();
    context.written(expr, &mut out)?;
    (!out.is_empty()).then_some(out)
}

/// Where a `Serialize` body is read: its serializer's name, its `let`s, and the fields the enclosing
/// `match` arm binds (name, variant, member).
struct SerContext<'b> {
    serializer: &'b str,
    locals: Vec<&'b syn::Local>,
    bound: Vec<(String, Option<String>, String)>,
}

impl SerContext<'_> {
    /// Pushes what `expr`, an expression whose value is the impl's result, writes.
    fn written(&self, expr: &Expr, out: &mut Vec<Value>) -> Option<()> {
        match expr {
            Expr::Paren(inner) => self.written(&inner.expr, out),
            Expr::Block(block) => {
                let (expr, locals) = tail(&block.block)?;
                let mut inner = SerContext {
                    serializer: self.serializer,
                    locals: self.locals.clone(),
                    bound: self.bound.clone(),
                };
                inner.locals.extend(locals);
                inner.written(expr, out)
            }
            Expr::Match(matched) if is_self(&matched.expr) => {
                for arm in &matched.arms {
                    let mut arm_context = SerContext {
                        serializer: self.serializer,
                        locals: self.locals.clone(),
                        bound: self.bound.clone(),
                    };
                    arm_context.bind(&arm.pat);
                    arm_context.written(&arm.body, out)?;
                }
                Some(())
            }
            Expr::If(branch) => {
                let (then, _) = tail(&branch.then_branch)?;
                self.written(then, out)?;
                self.written(&branch.else_branch.as_ref()?.1, out)
            }
            Expr::MethodCall(call) if is_named(&call.receiver, self.serializer) => {
                out.push(self.serializer_call(&call.method.to_string(), call.args.first())?);
                Some(())
            }
            Expr::MethodCall(call)
                if call.method == "serialize"
                    && call.args.len() == 1
                    && is_named(&call.args[0], self.serializer) =>
            {
                out.push(self.value(&call.receiver)?);
                Some(())
            }
            Expr::Call(call)
                if call.args.len() == 2
                    && path_ends_with(&call.func, "serialize")
                    && is_named(&call.args[1], self.serializer) =>
            {
                out.push(match qualified_self(&call.func) {
                    Some(ty) => Value::Type(Box::new(ty)),
                    None => self.value(&call.args[0])?,
                });
                Some(())
            }
            _ => None,
        }
    }

    /// What `serializer.<method>(arg)` writes.
    fn serializer_call(&self, method: &str, arg: Option<&Expr>) -> Option<Value> {
        if method == "collect_str" {
            return Some(text_of(arg.and_then(|arg| self.value(arg))));
        }
        match method.strip_prefix("serialize_")? {
            "str" | "char" => Some(text_of(arg.and_then(|arg| self.value(arg)))),
            primitive @ ("bool" | "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32"
            | "u64" | "u128" | "f32" | "f64" | "bytes" | "unit" | "none") => {
                // What a cast hands it is only some of the primitive's values.
                match arg.and_then(|arg| self.value(arg)) {
                    Some(Value::Cast(_)) => Some(Value::Cast(primitive.to_owned())),
                    _ => Some(Value::Primitive(primitive.to_owned())),
                }
            }
            _ => None,
        }
    }

    /// The value `expr` is, where this can tell.
    fn value(&self, expr: &Expr) -> Option<Value> {
        match expr {
            Expr::Reference(reference) => self.value(&reference.expr),
            Expr::Paren(inner) => self.value(&inner.expr),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
                self.value(&unary.expr)
            }
            Expr::Field(field) if is_self(&field.base) => Some(Value::Field {
                variant: None,
                member: member_name(&field.member),
            }),
            Expr::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                if let Some((_, variant, member)) = self.bound.iter().find(|(n, ..)| *n == name) {
                    return Some(Value::Field {
                        variant: variant.clone(),
                        member: member.clone(),
                    });
                }
                let local = self
                    .locals
                    .iter()
                    .rev()
                    .find(|local| pat_name(&local.pat).as_deref() == Some(&name))?;
                let init = &local.init.as_ref()?.expr;
                match (&local.pat, &**init) {
                    (Pat::Type(typed), Expr::MethodCall(call)) if call.method == "collect" => {
                        self.collected(call, Some(&typed.ty))
                    }
                    _ => self.value(init),
                }
            }
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(text) => Some(Value::Const(text.value())),
                Lit::Int(int) => int_literal(int, false),
                _ => None,
            },
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => match &*unary.expr {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(int), ..
                }) => int_literal(int, true),
                _ => None,
            },
            Expr::MethodCall(call)
                if matches!(
                    call.method.to_string().as_str(),
                    "to_string"
                        | "as_str"
                        | "as_ref"
                        | "to_owned"
                        | "clone"
                        | "borrow"
                        | "as_string"
                ) && call.args.is_empty() =>
            {
                Some(text_of(self.value(&call.receiver)))
            }
            Expr::MethodCall(call) if call.method == "collect" => self.collected(call, None),
            Expr::Macro(mac) if mac.mac.path.is_ident("format") => Some(Value::Text(None)),
            Expr::MethodCall(call) if call.args.is_empty() => {
                numeric_accessor(&call.method.to_string()).map(|name| Value::Primitive(name.into()))
            }
            Expr::Cast(cast) => match &*cast.ty {
                syn::Type::Path(ty) => {
                    let name = ty.path.get_ident()?.to_string();
                    (int_type(&name).is_some() || matches!(name.as_str(), "f32" | "f64")).then_some(
                        Value::Cast(if name.ends_with("size") {
                            name.replace("size", "64")
                        } else {
                            name
                        }),
                    )
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// What `iterable.iter().collect::<C>()` is (`C` from the turbofish, else `annotated`, the type
    /// of the `let` it initializes): the elements of `iterable` in the collection `C`, when the
    /// iterator is the value's own (`iter`, `into_iter`, `cloned`, `copied`: no element changed).
    fn collected(
        &self,
        call: &syn::ExprMethodCall,
        annotated: Option<&syn::Type>,
    ) -> Option<Value> {
        if !call.args.is_empty() {
            return None;
        }
        let into = match &call.turbofish {
            Some(turbofish) => match turbofish.args.first()? {
                syn::GenericArgument::Type(ty) => collection(ty)?,
                _ => return None,
            },
            None => collection(annotated?)?,
        };
        let mut iterable = &*call.receiver;
        let mut adapted = false;
        while let Expr::MethodCall(inner) = iterable {
            let own = matches!(
                inner.method.to_string().as_str(),
                "iter" | "into_iter" | "cloned" | "copied"
            );
            if !own || !inner.args.is_empty() {
                return None;
            }
            adapted = true;
            iterable = &inner.receiver;
        }
        adapted.then_some(())?;
        Some(Value::Collected {
            of: Box::new(self.value(iterable)?),
            into,
        })
    }

    /// Binds the names a `match` arm's pattern gives the fields of a variant of `self`.
    fn bind(&mut self, pat: &Pat) {
        match pat {
            Pat::TupleStruct(tuple) => {
                let variant = tuple.path.segments.last().map(|s| s.ident.to_string());
                for (index, elem) in tuple.elems.iter().enumerate() {
                    if let Some(name) = pat_name(strip_ref(elem)) {
                        self.bound.push((name, variant.clone(), index.to_string()));
                    }
                }
            }
            Pat::Struct(named) => {
                let variant = named.path.segments.last().map(|s| s.ident.to_string());
                for field in &named.fields {
                    let member = member_name(&field.member);
                    let name = pat_name(strip_ref(&field.pat)).unwrap_or_else(|| member.clone());
                    self.bound.push((name, variant.clone(), member));
                }
            }
            Pat::Reference(reference) => self.bind(&reference.pat),
            _ => {}
        }
    }
}

/// The primitive a method of std's time types returns, by its name (`as_secs_f64`: `f64`;
/// `as_millis`: `u128`), whatever its receiver: the names std gives `Duration`'s accessors, which a
/// `serialize_with` function writes a time with.
fn numeric_accessor(method: &str) -> Option<&'static str> {
    Some(match method {
        "as_secs_f64" => "f64",
        "as_secs_f32" => "f32",
        "as_secs" => "u64",
        "as_millis" | "as_micros" | "as_nanos" => "u128",
        "subsec_millis" | "subsec_micros" | "subsec_nanos" => "u32",
        _ => return None,
    })
}

/// An integer literal's value (negated: written after `-`) and type.
fn int_literal(int: &syn::LitInt, negated: bool) -> Option<Value> {
    let value: i128 = int.base10_parse().ok()?;
    let ty = match int.suffix() {
        "" => "i32",
        suffix => suffix,
    };
    int_type(ty)?;
    Some(Value::Int(
        if negated { -value } else { value },
        ty.to_owned(),
    ))
}

/// The std collection `ty` names, by its last segment.
fn collection(ty: &syn::Type) -> Option<Collection> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    Some(
        match path.path.segments.last()?.ident.to_string().as_str() {
            "BTreeMap" | "HashMap" | "IndexMap" => Collection::Map,
            "Vec" | "VecDeque" | "LinkedList" => Collection::List,
            "BTreeSet" | "HashSet" | "IndexSet" => Collection::Set,
            _ => return None,
        },
    )
}

/// The text of `value`: itself when it is text already.
fn text_of(value: Option<Value>) -> Value {
    match value {
        Some(Value::Text(inner)) => Value::Text(inner),
        other => Value::Text(other.map(Box::new)),
    }
}

fn strip_ref(pat: &Pat) -> &Pat {
    match pat {
        Pat::Reference(reference) => strip_ref(&reference.pat),
        pat => pat,
    }
}

fn member_name(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// `self`, `*self` or `&self`.
fn is_self(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => path.path.is_ident("self"),
        Expr::Unary(unary) => is_self(&unary.expr),
        Expr::Reference(reference) => is_self(&reference.expr),
        Expr::Paren(inner) => is_self(&inner.expr),
        _ => false,
    }
}

/// Whether `expr` is the local `name`.
fn is_named(expr: &Expr, name: &str) -> bool {
    match expr {
        Expr::Path(path) => path.path.is_ident(name),
        Expr::Paren(inner) => is_named(&inner.expr, name),
        _ => false,
    }
}

/// Whether `expr` is a path whose last segment is `name`.
fn path_ends_with(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == name))
}

/// `T` of `<T as Trait>::method`, or of `T::method` when `T` is not a trait of serde's.
fn qualified_self(func: &Expr) -> Option<syn::Type> {
    let Expr::Path(path) = func else {
        return None;
    };
    if let Some(qself) = &path.qself {
        return Some((*qself.ty).clone());
    }
    let segments = &path.path.segments;
    if segments.len() < 2 {
        return None;
    }
    let owner = &segments[segments.len() - 2];
    if matches!(
        owner.ident.to_string().as_str(),
        "Serialize" | "Deserialize"
    ) || (segments.len() == 2 && owner.ident == "serde")
    {
        return None;
    }
    let mut owner_path = path.path.clone();
    owner_path.segments.pop();
    owner_path.segments.pop_punct();
    Some(syn::Type::Path(syn::TypePath {
        attrs: Vec::new(),
        qself: None,
        path: owner_path,
    }))
}

/// The sign and bits of a primitive integer type's name.
pub fn int_type(name: &str) -> Option<(bool, u8)> {
    crate::extract::syntax::integer_type(name)
}

mod de;
pub use de::{deserialized, visited, with_deserialized};

#[cfg(test)]
mod tests;
