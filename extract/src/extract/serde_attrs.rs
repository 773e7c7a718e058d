//! Reading `#[serde(...)]` attributes: the parts that change what goes on the wire.

use syn::Attribute;

/// serde's `rename_all` case rules, applied exactly as serde_derive's `internals/case.rs` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenameRule {
    #[default]
    None,
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// A variant name (PascalCase in Rust) on the wire.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::None | RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// A field name (snake_case in Rust) on the wire.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::None | RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// A name with independent serialize and deserialize sides (`rename(serialize = .., deserialize = ..)`).
#[derive(Debug, Clone, Default)]
pub struct SerDe<T> {
    pub ser: Option<T>,
    pub de: Option<T>,
}

impl<T> SerDe<T> {
    /// This pair with each side `later` sets replaced: serde merges the sides of an attribute given
    /// several times (`rename(serialize = "a")` then `rename(deserialize = "b")` sets both).
    fn merge(&mut self, later: SerDe<T>) {
        if later.ser.is_some() {
            self.ser = later.ser;
        }
        if later.de.is_some() {
            self.de = later.de;
        }
    }
}

/// Container attributes.
#[derive(Clone, Default)]
pub struct ContainerSerde {
    pub rename: SerDe<String>,
    pub rename_all: SerDe<RenameRule>,
    pub rename_all_fields: SerDe<RenameRule>,
    pub deny_unknown_fields: bool,
    pub default: bool,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub transparent: bool,
    pub from: Option<syn::Type>,
    pub try_from: Option<syn::Type>,
    pub into: Option<syn::Type>,
    /// serde_with's `#[skip_serializing_none]` (not a serde attribute; set by the lowering).
    pub skip_serializing_none: bool,
}

/// Field and variant attributes.
#[derive(Debug, Clone, Default)]
pub struct MemberSerde {
    pub rename: SerDe<String>,
    pub rename_all: SerDe<RenameRule>,
    pub aliases: Vec<String>,
    pub default: bool,
    pub skip_ser: bool,
    pub skip_de: bool,
    pub skip_ser_if: Option<String>,
    pub flatten: bool,
    pub ser_with: Option<String>,
    pub de_with: Option<String>,
    pub other: bool,
    pub untagged: bool,
}

impl MemberSerde {
    /// The names the member is read by: `de_name` (its deserialize name) and every alias, each once
    /// (serde_derive keeps them in a set).
    pub fn read_names(&self, de_name: String) -> Vec<String> {
        let mut names = vec![de_name];
        for alias in &self.aliases {
            if !names.contains(alias) {
                names.push(alias.clone());
            }
        }
        names
    }
}

/// Problems met while reading serde attributes (reported as notes: the compiler is the authority).
pub type Problems = Vec<(proc_macro2::Span, String)>;

fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<String> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    Ok(lit.value())
}

fn skip_rest(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_rest(&inner))?;
    }
    Ok(())
}

/// `key = "x"` or `key(serialize = "x", deserialize = "y")`: the serialize value and every deserialize
/// value, in order (serde accepts `deserialize` more than once in a list).
fn ser_de_values(
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<(Option<String>, Vec<String>)> {
    if meta.input.peek(syn::Token![=]) {
        let s = lit_str(meta)?;
        return Ok((Some(s.clone()), vec![s]));
    }
    let (mut ser, mut de) = (None, Vec::new());
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            ser = Some(lit_str(&inner)?);
        } else if inner.path.is_ident("deserialize") {
            de.push(lit_str(&inner)?);
        } else {
            skip_rest(&inner)?;
        }
        Ok(())
    })?;
    Ok((ser, de))
}

/// `key = "x"` or `key(serialize = "x", deserialize = "y")`, for keys serde takes one value of per side.
fn ser_de_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<SerDe<String>> {
    let (ser, de) = ser_de_values(meta)?;
    Ok(SerDe {
        ser,
        de: de.into_iter().next(),
    })
}

/// A field's or variant's `rename`, added to what `member` read before: serde_derive reads by the
/// first deserialize name it is given (in any of the member's `rename`s) and by every other one, as
/// by an alias (`MultiName::from_attrs` and `rename_by_rules` in serde_derive's internals).
fn member_rename(
    meta: &syn::meta::ParseNestedMeta<'_>,
    member: &mut MemberSerde,
) -> syn::Result<()> {
    let (ser, de) = ser_de_values(meta)?;
    member.rename.merge(SerDe { ser, de: None });
    for name in de {
        if member.rename.de.is_none() {
            member.rename.de = Some(name);
        } else {
            member.aliases.push(name);
        }
    }
    Ok(())
}

fn rename_rule(
    meta: &syn::meta::ParseNestedMeta<'_>,
    problems: &mut Problems,
) -> syn::Result<SerDe<RenameRule>> {
    let names = ser_de_str(meta)?;
    let mut conv = |s: Option<String>| {
        s.and_then(|s| {
            let rule = RenameRule::parse(&s);
            if rule.is_none() {
                problems.push((
                    meta.path
                        .get_ident()
                        .map_or_else(proc_macro2::Span::call_site, |i| i.span()),
                    format!("unknown serde rename rule `{s}`"),
                ));
            }
            rule
        })
    };
    Ok(SerDe {
        ser: conv(names.ser),
        de: conv(names.de),
    })
}

fn type_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<syn::Type> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    lit.parse()
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("serde"))
}

/// Reads a container's `#[serde(...)]` attributes.
pub fn container(attrs: &[Attribute], problems: &mut Problems) -> ContainerSerde {
    let mut c = ContainerSerde::default();
    for attr in serde_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            match key.as_str() {
                "rename" => c.rename.merge(ser_de_str(&meta)?),
                "rename_all" => c.rename_all.merge(rename_rule(&meta, problems)?),
                "rename_all_fields" => c.rename_all_fields.merge(rename_rule(&meta, problems)?),
                "deny_unknown_fields" => c.deny_unknown_fields = true,
                "default" => {
                    c.default = true;
                    skip_rest(&meta)?;
                }
                "tag" => c.tag = Some(lit_str(&meta)?),
                "content" => c.content = Some(lit_str(&meta)?),
                "untagged" => c.untagged = true,
                "transparent" => c.transparent = true,
                "from" => c.from = Some(type_value(&meta)?),
                "try_from" => c.try_from = Some(type_value(&meta)?),
                "into" => c.into = Some(type_value(&meta)?),
                _ => skip_rest(&meta)?,
            }
            Ok(())
        });
        if let Err(e) = result {
            problems.push((e.span(), format!("cannot read #[serde(...)]: {e}")));
        }
    }
    c
}

/// Reads a field's or a variant's `#[serde(...)]` attributes.
pub fn member(attrs: &[Attribute], problems: &mut Problems) -> MemberSerde {
    let mut m = MemberSerde::default();
    for attr in serde_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            match key.as_str() {
                "rename" => member_rename(&meta, &mut m)?,
                "rename_all" => m.rename_all.merge(rename_rule(&meta, problems)?),
                "alias" => m.aliases.push(lit_str(&meta)?),
                "default" => {
                    m.default = true;
                    skip_rest(&meta)?;
                }
                "skip" => {
                    m.skip_ser = true;
                    m.skip_de = true;
                }
                "skip_serializing" => m.skip_ser = true,
                "skip_deserializing" => m.skip_de = true,
                "skip_serializing_if" => m.skip_ser_if = Some(lit_str(&meta)?),
                "flatten" => m.flatten = true,
                "with" => {
                    let module = lit_str(&meta)?;
                    m.ser_with = Some(format!("{module}::serialize"));
                    m.de_with = Some(format!("{module}::deserialize"));
                }
                "serialize_with" => m.ser_with = Some(lit_str(&meta)?),
                "deserialize_with" => m.de_with = Some(lit_str(&meta)?),
                "other" => m.other = true,
                "untagged" => m.untagged = true,
                _ => skip_rest(&meta)?,
            }
            Ok(())
        });
        if let Err(e) = result {
            problems.push((e.span(), format!("cannot read #[serde(...)]: {e}")));
        }
    }
    m
}

/// Reads the `#[serde(...)]` attributes of a struct or an enum, of its fields and of its variants, as
/// the lowering does, and returns the number of members and aliases read and problems met (a count
/// the optimizer cannot drop); any other item has nothing to read. Hidden, not part of the API:
/// benches/serde_attrs.rs measures with it what this reading costs against serde_derive_internals'
/// (see docs/internals.md).
pub fn read_item(item: &syn::Item) -> usize {
    let mut problems = Problems::new();
    let (attrs, fields): (&[Attribute], Vec<&syn::Fields>) = match item {
        syn::Item::Struct(item) => (&item.attrs, vec![&item.fields]),
        syn::Item::Enum(item) => (
            &item.attrs,
            item.variants.iter().map(|v| &v.fields).collect(),
        ),
        _ => return 0,
    };
    let container = container(attrs, &mut problems);
    let mut read = usize::from(container.tag.is_some());
    if let syn::Item::Enum(item) = item {
        for variant in &item.variants {
            read += member(&variant.attrs, &mut problems).aliases.len() + 1;
        }
    }
    for field in fields.into_iter().flatten() {
        read += member(&field.attrs, &mut problems).aliases.len() + 1;
    }
    read + problems.len()
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn rename_rules_match_serde() {
        // The table of serde_derive's internals/case.rs tests.
        for (original, lower, upper, camel, snake, screaming, kebab, screaming_kebab) in [
            (
                "Outcome", "outcome", "OUTCOME", "outcome", "outcome", "OUTCOME", "outcome",
                "OUTCOME",
            ),
            (
                "VeryTasty",
                "verytasty",
                "VERYTASTY",
                "veryTasty",
                "very_tasty",
                "VERY_TASTY",
                "very-tasty",
                "VERY-TASTY",
            ),
            ("A", "a", "A", "a", "a", "A", "a", "A"),
            ("Z42", "z42", "Z42", "z42", "z42", "Z42", "z42", "Z42"),
        ] {
            assert_eq!(None.apply_to_variant(original), original);
            assert_eq!(Lower.apply_to_variant(original), lower);
            assert_eq!(Upper.apply_to_variant(original), upper);
            assert_eq!(Pascal.apply_to_variant(original), original);
            assert_eq!(Camel.apply_to_variant(original), camel);
            assert_eq!(Snake.apply_to_variant(original), snake);
            assert_eq!(ScreamingSnake.apply_to_variant(original), screaming);
            assert_eq!(Kebab.apply_to_variant(original), kebab);
            assert_eq!(ScreamingKebab.apply_to_variant(original), screaming_kebab);
        }
        for (original, upper, pascal, camel, screaming, kebab, screaming_kebab) in [
            (
                "outcome", "OUTCOME", "Outcome", "outcome", "OUTCOME", "outcome", "OUTCOME",
            ),
            (
                "very_tasty",
                "VERY_TASTY",
                "VeryTasty",
                "veryTasty",
                "VERY_TASTY",
                "very-tasty",
                "VERY-TASTY",
            ),
            ("a", "A", "A", "a", "A", "a", "A"),
            ("z42", "Z42", "Z42", "z42", "Z42", "z42", "Z42"),
        ] {
            assert_eq!(None.apply_to_field(original), original);
            assert_eq!(Upper.apply_to_field(original), upper);
            assert_eq!(Pascal.apply_to_field(original), pascal);
            assert_eq!(Camel.apply_to_field(original), camel);
            assert_eq!(Snake.apply_to_field(original), original);
            assert_eq!(ScreamingSnake.apply_to_field(original), screaming);
            assert_eq!(Kebab.apply_to_field(original), kebab);
            assert_eq!(ScreamingKebab.apply_to_field(original), screaming_kebab);
        }
    }
}
