//! Checks on the named definitions a writer type and a reader type go through, for any format:
//! a fallible `try_from` conversion and `#[serde(transparent)]`.

use super::issue::Issue;
use super::opaque::{custom_code_may_reject, unread_code_changed};
use super::shape::{Shape, is_braced_single};
use super::walk::Walk;
use crate::model::{Body, Ty, TypeDef};
use crate::rules::RuleId;

/// The last segment of a definition's path; for the definition of a field's `with` functions
/// (`<functions for type>`), the functions and the type.
fn short_name(def: &TypeDef) -> &str {
    if let Some(inner) = def.path.strip_prefix('<').and_then(|p| p.strip_suffix('>')) {
        return inner;
    }
    def.path.rsplit("::").next().unwrap_or(&def.path)
}

/// The words for the functions of a field's `with` definition (named `<functions for type>` by the
/// extraction, see `lower/hand_written/with_fns`), `None` for any other definition.
fn with_functions(def: &TypeDef) -> Option<String> {
    let inner = def.path.strip_prefix('<')?.strip_suffix('>')?;
    let (functions, ty) = inner.split_once(" for ")?;
    let named: Vec<String> = functions.split(" and ").map(|f| format!("`{f}`")).collect();
    Some(format!(
        "a field of `{ty}` is written and read through {}",
        named.join(" and ")
    ))
}

impl Walk<'_> {
    /// The issues of the outermost definitions of `writer_ty` on both sides: a reader's fallible
    /// conversion whatever the writer's type (a plain `String` written, a validating type read), the
    /// rest only between two named definitions.
    pub(super) fn compare_definitions(
        &self,
        writer_ty: &Ty,
        writer_def: Option<&TypeDef>,
        reader_def: Option<&TypeDef>,
    ) -> Vec<Issue> {
        let Some(reader_def) = reader_def else {
            return Vec::new();
        };
        let mut out = Vec::new();
        out.extend(self.fallible_conversion_added(writer_def, reader_def));
        if let Some(writer_def) = writer_def {
            out.extend(self.transparent_changed(writer_ty, writer_def, reader_def));
            out.extend(self.hand_written_changed(writer_def, reader_def));
        }
        out
    }

    /// The same type with an impl written by hand (see `ContainerAttrs::hand_written`) whose source
    /// differs between the releases, in the direction that impl serves: a changed `Serialize` where
    /// the new release writes, a changed `Deserialize` where it reads. A side derived in one release
    /// and written by hand in the other is a change too.
    fn hand_written_changed(&self, writer_def: &TypeDef, reader_def: &TypeDef) -> Option<Issue> {
        if writer_def.path != reader_def.path
            || (writer_def.attrs.hand_written.is_none() && reader_def.attrs.hand_written.is_none())
        {
            return None;
        }
        let side = |def: &TypeDef| def.attrs.hand_written.clone().unwrap_or_default();
        let (writer, reader) = (side(writer_def), side(reader_def));
        let (name, changed) = if self.writer_is_new() {
            ("Serialize", writer.ser != reader.ser)
        } else {
            ("Deserialize", writer.de != reader.de)
        };
        if !changed {
            return None;
        }
        let does = if name == "Serialize" {
            "writes"
        } else {
            "accepts"
        };
        let message = match with_functions(reader_def) {
            Some(functions) => format!(
                "{functions}: the {} function (or what it calls) differs between the releases: \
                 the checker cannot read what it {does} now",
                if name == "Serialize" {
                    "serializing"
                } else {
                    "deserializing"
                }
            ),
            None => format!(
                "the `{name}` of `{}` written by hand (or what it calls) differs between the releases: \
                 the checker cannot read what it {does} now",
                short_name(reader_def)
            ),
        };
        // In the direction it serves only, like custom functions: not `Issue::opaque`.
        let mut issue = unread_code_changed(message);
        issue.location = self.location(Some(&writer_def.location), Some(&reader_def.location));
        Some(issue)
    }

    /// The reader converts with `try_from` and the writer's type did not (or is no named definition at
    /// all): values may be rejected, by a function the checker cannot run.
    fn fallible_conversion_added(
        &self,
        writer_def: Option<&TypeDef>,
        reader_def: &TypeDef,
    ) -> Option<Issue> {
        // The writer's own validation counts where it is the same type (or the same functions) as
        // the reader's: then a change of that code is `serde_impl_changed`'s. Another type's
        // validation says nothing of what this reader accepts.
        let writer_fallible = writer_def.is_some_and(|d| {
            d.path == reader_def.path && d.attrs.from.as_ref().is_some_and(|p| p.fallible)
        });
        let reader_fallible = reader_def.attrs.from.as_ref().is_some_and(|p| p.fallible);
        if !reader_fallible || writer_fallible {
            return None;
        }
        let how = if with_functions(reader_def).is_some() {
            "parses what it reads in a way that may fail"
        } else {
            "converts with `try_from`"
        };
        // In the direction whose reader converts, like custom functions: not `Issue::opaque`.
        let mut issue = custom_code_may_reject(format!(
            "`{}` read by {} {how}, which may reject values {} writes",
            short_name(reader_def),
            self.reader_name(),
            self.writer_name()
        ));
        issue.location = self.location(writer_def.map(|d| &d.location), Some(&reader_def.location));
        Some(issue)
    }

    /// A one-field braced struct written as its field's value and read as an object, or the reverse
    /// (self-describing formats only: a positional format writes both alike).
    fn transparent_changed(
        &self,
        writer_ty: &Ty,
        writer_def: &TypeDef,
        reader_def: &TypeDef,
    ) -> Option<Issue> {
        if self.positional
            || writer_def.attrs.transparent == reader_def.attrs.transparent
            || !is_braced_single(writer_def)
            || !is_braced_single(reader_def)
        {
            return None;
        }
        let how = |transparent: bool| {
            if transparent {
                "as its one field's value"
            } else {
                "as an object"
            }
        };
        let mut issue = Issue::breaking(
            RuleId::TransparentChanged,
            format!(
                "`{}` is written {} and read {}",
                short_name(reader_def),
                how(writer_def.attrs.transparent),
                how(reader_def.attrs.transparent),
            ),
            self.sample(writer_ty, true),
        );
        issue.location = self.location(Some(&writer_def.location), Some(&reader_def.location));
        Some(issue)
    }
}

impl Walk<'_> {
    /// Whether the definitions compared settle the pair, so that its shapes are not compared: they
    /// said that code wirecheck cannot read changed (`serde_impl_changed`) and one side's shape is
    /// that code's opaque type (comparing would only say again that it cannot be compared), or the
    /// side of code written by hand that this walk's direction puts in play is the same in both
    /// releases (see [`Walk::hand_written_side_kept`]).
    pub(super) fn settled_by_definitions(
        &self,
        found: &[Issue],
        (writer_def, writer): (Option<&TypeDef>, &Shape),
        (reader_def, reader): (Option<&TypeDef>, &Shape),
    ) -> bool {
        let opaque_said = found.iter().any(|i| i.rule == RuleId::SerdeImplChanged)
            && (matches!(writer, Shape::External(..)) || matches!(reader, Shape::External(..)));
        opaque_said
            || matches!((writer_def, reader_def), (Some(w), Some(r)) if self.hand_written_side_kept(w, r))
    }

    /// For one type with code written by hand (a digest of its source in either release): whether
    /// the side this walk puts in play is the same in both releases, its source and its shape. Where
    /// the new release writes, a kept serializer writes what the old release wrote, which the old
    /// reader read; where it reads, a kept deserializer reads what the old release read from the
    /// old writer. Either way the pair is the old release talking to itself.
    fn hand_written_side_kept(&self, writer_def: &TypeDef, reader_def: &TypeDef) -> bool {
        if writer_def.path != reader_def.path
            || (writer_def.attrs.hand_written.is_none() && reader_def.attrs.hand_written.is_none())
        {
            return false;
        }
        let side = |def: &TypeDef| def.attrs.hand_written.clone().unwrap_or_default();
        let (writer, reader) = (side(writer_def), side(reader_def));
        // A side is the same by its digest (where it was not read exactly) and its shape, when that
        // shape names no other definition (which may have changed under the same name).
        let closed = |ty: &Ty| {
            let mut named = Vec::new();
            ty.named_paths(&mut named);
            named.is_empty()
        };
        let written_kept = || {
            matches!(&writer_def.body, Body::Alias { target } if closed(target))
                && writer_def.body == reader_def.body
        };
        if self.writer_is_new() {
            writer.ser == reader.ser && written_kept()
        } else {
            // Without a `from` proxy the reader reads what the type writes.
            writer.de == reader.de
                && writer_def.attrs.from == reader_def.attrs.from
                && match &writer_def.attrs.from {
                    Some(from) => closed(&from.ty),
                    None => written_kept(),
                }
        }
    }
}
