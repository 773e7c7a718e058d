//! Objects in self-describing formats: a struct's (or struct variant's) keys paired by wire name, then
//! by Rust path (renames); keys only the writer writes (unknown fields) and keys only the reader reads
//! (missing fields); the struct tag. Flattened parts are in `flatten`.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::collections::map_key_rejected;
use super::decode::Decoder;
use super::issue::{Issue, Place, embedded, placed};
use super::namespace::{FlatField, FlatMap, FlatObject, flatten};
use super::sample::Sampler;
use super::shape::{Role, SideRef, StructDef, option_read_by_function};
use super::walk::Walk;
use super::witness::{with_key, without_key};
use super::wording::quoted_alternatives;
use crate::model::{SkipSer, Ty};
use crate::rules::RuleId;

/// The key namespaces compared, and the writer's minimal payload of them (the base of witnesses).
pub(super) struct ObjectPair<'o> {
    pub writer: &'o FlatObject,
    /// The writer's own namespace as its own release reads it: what that release could not read either
    /// is not this change's doing.
    pub writer_as_read: &'o FlatObject,
    pub reader: &'o FlatObject,
    /// The reader's own namespace as its own release writes it: a key the reader requires that its own
    /// release never writes either is not this change's doing.
    pub reader_as_written: &'o FlatObject,
    /// The side the writer's payloads are sampled on, for [`ObjectPair::base`].
    writer_side: SideRef<'o>,
    base: OnceCell<Option<Map<String, Value>>>,
}

impl ObjectPair<'_> {
    /// A payload of the writer's object (sampled on first use: only a finding's witness embeds it,
    /// and most pairs of a check have none), into which a witness of one of its fields is put.
    pub fn base(&self) -> &Option<Map<String, Value>> {
        self.base
            .get_or_init(|| Sampler::new(self.writer_side).object(self.writer, false))
    }
}

/// How the writer's fields and the reader's fields pair up (indices into their `fields`).
struct FieldPairing {
    /// Same wire name.
    same_key: Vec<(usize, usize)>,
    /// Different wire names, same Rust path.
    renamed: Vec<(usize, usize)>,
    /// Writer's fields the reader has no field for.
    writer_only: Vec<usize>,
    /// Reader's fields paired (or left out as moved by a flatten change).
    reader_taken: Vec<bool>,
}

/// Whether `path` lies under one of the `moved` paths (a field flattened on one side only).
pub(super) fn under_moved(moved: &BTreeSet<Vec<String>>, path: &[String]) -> bool {
    moved.iter().any(|m| path.starts_with(m))
}

fn pair_fields(pair: &ObjectPair<'_>, moved: &BTreeSet<Vec<String>>) -> FieldPairing {
    let (writer, reader) = (&pair.writer.fields, &pair.reader.fields);
    let mut taken: Vec<bool> = reader.iter().map(|f| under_moved(moved, &f.path)).collect();
    let mut same_key = Vec::new();
    let mut writer_only = Vec::new();
    for (i, field) in writer.iter().enumerate() {
        if under_moved(moved, &field.path) {
            continue;
        }
        let found = reader
            .iter()
            .enumerate()
            .position(|(j, g)| !taken[j] && g.field.de_names.iter().any(|n| n == field.key()));
        match found {
            Some(j) => {
                taken[j] = true;
                same_key.push((i, j));
            }
            None => writer_only.push(i),
        }
    }
    let mut renamed = Vec::new();
    writer_only.retain(|&i| {
        let path = &writer[i].path;
        match reader
            .iter()
            .enumerate()
            .position(|(j, g)| !taken[j] && &g.path == path)
        {
            Some(j) => {
                taken[j] = true;
                renamed.push((i, j));
                false
            }
            None => true,
        }
    });
    FieldPairing {
        same_key,
        renamed,
        writer_only,
        reader_taken: taken,
    }
}

impl Walk<'_> {
    /// Two braced structs.
    pub(super) fn compare_structs(&mut self, writer: &StructDef, reader: &StructDef) -> Vec<Issue> {
        let writer_flat = flatten(self.writer, Role::Writer, &writer.fields, &writer.attrs);
        let writer_as_read = flatten(self.writer, Role::Reader, &writer.fields, &writer.attrs);
        let reader_flat = flatten(self.reader, Role::Reader, &reader.fields, &reader.attrs);
        let reader_as_written = flatten(self.reader, Role::Writer, &reader.fields, &reader.attrs);
        self.compare_objects(
            &writer_flat,
            &writer_as_read,
            &reader_flat,
            &reader_as_written,
        )
    }

    /// Compares two key namespaces. `writer_as_read` is the writer's own namespace seen as a reader,
    /// `reader_as_written` the reader's own as a writer (to leave out what one release does not do with
    /// itself either).
    pub(super) fn compare_objects(
        &mut self,
        writer: &FlatObject,
        writer_as_read: &FlatObject,
        reader: &FlatObject,
        reader_as_written: &FlatObject,
    ) -> Vec<Issue> {
        let pair = ObjectPair {
            writer,
            writer_as_read,
            reader,
            reader_as_written,
            writer_side: self.writer,
            base: OnceCell::new(),
        };
        let (mut out, moved) = self.flatten_changes(&pair);
        out.extend(self.struct_tag_changed(&pair));
        let mut pairing = pair_fields(&pair, &moved);
        for (i, j) in self.renamed_on_wire(&pair, &mut pairing) {
            out.extend(self.field_renamed_on_wire(&pair, &writer.fields[i], &reader.fields[j]));
        }
        for &(i, j) in &pairing.same_key {
            out.extend(self.paired_field(&pair, &writer.fields[i], &reader.fields[j]));
        }
        for &(i, j) in &pairing.renamed {
            out.extend(self.renamed_field(&pair, &writer.fields[i], &reader.fields[j]));
        }
        let deny_added =
            !self.writer_is_new() && reader.deny_unknown_fields && !writer.deny_unknown_fields;
        for &i in &pairing.writer_only {
            out.extend(self.writer_only_field(&pair, &writer.fields[i], deny_added));
        }
        if deny_added {
            out.push(Issue::change(
                RuleId::DenyUnknownFieldsAdded,
                format!("{} denies unknown fields", self.reader_name()),
            ));
        }
        for (field, _) in reader
            .fields
            .iter()
            .zip(&pairing.reader_taken)
            .filter(|(_, taken)| !**taken)
        {
            out.extend(self.reader_only_field(&pair, field));
        }
        out.extend(self.flattened_enums(&pair, &moved));
        out.extend(self.flattened_map(&pair));
        out.extend(self.flattened_opaque(&pair));
        out
    }

    /// Where the issues of a field (the writer's, the reader's, or both) sit: under the new release's
    /// path, with both fields' allows.
    pub(super) fn field_place(
        &self,
        writer: Option<&FlatField>,
        reader: Option<&FlatField>,
    ) -> Place {
        let mut allows = Vec::new();
        for field in writer.iter().chain(reader.iter()) {
            allows.extend(field.all_allows());
        }
        Place {
            path: self
                .new_side_first(writer, reader)
                .map(|f| f.path.clone())
                .unwrap_or_default(),
            // The field's key only: the flattened fields it sits in add none.
            wire_path: self
                .new_side_first(writer, reader)
                .map(|f| vec![f.key().to_owned()])
                .unwrap_or_default(),
            allows,
            location: self.location(
                writer.map(|f| &f.field.location),
                reader.map(|f| &f.field.location),
            ),
        }
    }

    /// The struct's own tag key. serde writes a struct's tag key but never consumes it when reading, so
    /// a reader that denies unknown fields rejects it, even when the reader declares the same tag. When
    /// the writer's own release rejects its tag as well, its payloads never decoded anywhere: not
    /// something this change breaks.
    fn struct_tag_changed(&self, pair: &ObjectPair<'_>) -> Option<Issue> {
        let denies = |o: &FlatObject, key: &String| {
            o.deny_unknown_fields
                && o.map.is_none()
                && !o.fields.iter().any(|f| f.field.de_names.contains(key))
        };
        let denied = |key: &String| {
            denies(pair.reader, key)
                && !(pair.writer_as_read.tag.is_some() && denies(pair.writer_as_read, key))
        };
        let reader_key = pair.reader.tag.as_ref().map(|t| &t.key);
        match (&pair.writer.tag, reader_key) {
            (Some(tag), _) if denied(&tag.key) => Some(Issue::breaking(
                RuleId::StructTagChanged,
                format!(
                    "{} writes the tag key `{}` and {} denies unknown fields",
                    self.writer_name(),
                    tag.key,
                    self.reader_name()
                ),
                pair.base().clone().map(Value::Object),
            )),
            (Some(tag), reader_key) if reader_key != Some(&tag.key) => Some(Issue::change(
                RuleId::StructTagChanged,
                format!(
                    "{} writes the tag key `{}`; {} ignores it",
                    self.writer_name(),
                    tag.key,
                    self.reader_name()
                ),
            )),
            (None, Some(key)) => Some(Issue::change(
                RuleId::StructTagChanged,
                format!(
                    "{} has the tag key `{key}`, which serde does not check when reading",
                    self.reader_name()
                ),
            )),
            (Some(tag), Some(_)) => {
                let read = pair.reader.tag.as_ref().filter(|r| r.value != tag.value)?;
                Some(Issue::change(
                    RuleId::StructTagChanged,
                    format!(
                        "{} writes the tag `{}` as `{}` where {} writes `{}`; serde does not check it when reading",
                        self.writer_name(),
                        tag.key,
                        tag.value,
                        self.reader_name(),
                        read.value
                    ),
                ))
            }
            _ => None,
        }
    }

    /// A field both sides have under the same key.
    fn paired_field(
        &mut self,
        pair: &ObjectPair<'_>,
        writer: &FlatField,
        reader: &FlatField,
    ) -> Vec<Issue> {
        let own = pair
            .writer_as_read
            .fields
            .iter()
            .find(|o| o.field.de_names.iter().any(|n| n == writer.key()));
        let mut found = self.compare_field(writer, reader, own, pair);
        found.extend(self.key_switched_to_alias(writer, reader));
        placed(found, &self.field_place(Some(writer), Some(reader)))
    }

    /// The writer writes the field under a key the reader takes only as an alias (its own release
    /// writes another): every reader decodes it, but the wire changed.
    fn key_switched_to_alias(&self, writer: &FlatField, reader: &FlatField) -> Option<Issue> {
        if writer.key() == reader.key() || reader.field.skip_ser == SkipSer::Always {
            return None;
        }
        Some(Issue::change(
            RuleId::FieldRenamed,
            format!(
                "{} writes `{}` under the key `{}`, which {} reads as well as `{}`",
                self.writer_name(),
                writer.path.join("."),
                writer.key(),
                self.reader_name(),
                reader.key()
            ),
        ))
    }

    /// Compares one field written by the writer with the field the reader reads from the same key.
    fn compare_field(
        &mut self,
        writer: &FlatField,
        reader: &FlatField,
        own: Option<&FlatField>,
        pair: &ObjectPair<'_>,
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        let custom = writer.field.custom.is_some() || reader.field.custom.is_some();
        if custom {
            out.extend(self.custom_field_changed(writer, reader));
        }
        out.extend(self.field_left_out(writer, reader, own, pair));
        if !custom_on_path(writer, reader) {
            let written_ty = written_ty(&writer.field);
            // A field of a flattened struct is read from serde's buffered content.
            let found = if reader.path.len() > 1 {
                self.buffered(|walk| walk.compare(&written_ty, &reader.field.ty))
            } else {
                self.compare(&written_ty, &reader.field.ty)
            };
            let key = writer.key().to_owned();
            out.extend(embedded(found, |c| with_key(pair.base(), &key, c)));
        }
        out
    }

    /// The writer may leave the field out (`skip_serializing_if`, inside a flattened `Option`) and the
    /// reader requires it. What the writer's own release could not read either is not this change's
    /// doing, unless the skipping itself changed.
    fn field_left_out(
        &self,
        writer: &FlatField,
        reader: &FlatField,
        own: Option<&FlatField>,
        pair: &ObjectPair<'_>,
    ) -> Option<Issue> {
        let may_omit = matches!(writer.field.skip_ser, SkipSer::If(_)) || writer.optional_parent;
        let own_reads_absence = own.is_none_or(FlatField::tolerates_absence)
            || writer.field.skip_ser != reader.field.skip_ser;
        if !may_omit || reader.tolerates_absence() || !own_reads_absence {
            return None;
        }
        let option_custom = option_read_by_function(&reader.field)
            && !reader.field.default
            && !reader.container_default;
        let rule = if option_custom && own.is_some_and(|o| !option_read_by_function(&o.field)) {
            RuleId::OptionDeserializeWith
        } else {
            self.missing_field_rule(&reader.field.skip_ser)
        };
        let key = writer.key();
        Some(Issue::breaking(
            rule,
            format!(
                "{} may leave `{key}` out and {} requires it{}",
                self.writer_name(),
                self.reader_name(),
                if option_custom {
                    " (an Option with deserialize_with and no default)"
                } else {
                    ""
                }
            ),
            without_key(pair.base(), key),
        ))
    }

    /// The pairs of a field only the writer writes and one only the reader reads that are one field
    /// renamed on the wire: at the same place (the same position and parent), of the same wire type,
    /// the reader tolerating its absence and taking the writer's key as an unknown one it ignores. Taken
    /// out of `pairing`'s lone fields.
    fn renamed_on_wire(
        &mut self,
        pair: &ObjectPair<'_>,
        pairing: &mut FieldPairing,
    ) -> Vec<(usize, usize)> {
        let (writer, reader) = (&pair.writer.fields, &pair.reader.fields);
        if pair.reader.deny_unknown_fields || pair.reader.map.is_some() {
            return Vec::new();
        }
        let mut found = Vec::new();
        for &i in &pairing.writer_only {
            let Some(r) = reader.get(i) else {
                continue;
            };
            let w = &writer[i];
            let same_parent = w.path[..w.path.len().saturating_sub(1)]
                == r.path[..r.path.len().saturating_sub(1)];
            if pairing.reader_taken[i]
                || !same_parent
                || w.field.skip_ser == SkipSer::Always
                || r.field.skip_de
                || !r.tolerates_absence()
                || !self.wire_eq.ty(&w.field.ty, &r.field.ty)
            {
                continue;
            }
            found.push((i, i));
        }
        for &(i, j) in &found {
            pairing.writer_only.retain(|&k| k != i);
            pairing.reader_taken[j] = true;
        }
        found
    }

    /// An optional field the writer writes under a new key where the reader, which ignores that key,
    /// looks for the old one: the value is silently lost (the contract's misread).
    fn field_renamed_on_wire(
        &mut self,
        pair: &ObjectPair<'_>,
        writer: &FlatField,
        reader: &FlatField,
    ) -> Vec<Issue> {
        let witness = self
            .sample(&writer.field.ty, true)
            .and_then(|v| with_key(pair.base(), writer.key(), v));
        let issue = Issue::breaking(
            RuleId::FieldRenamedOnWire,
            format!(
                "{} writes `{}` under the key `{}` and {} ignores it, looking for `{}` (its `{}`), which it \
                 reads as absent: the value is lost",
                self.writer_name(),
                writer.path.join("."),
                writer.key(),
                self.reader_name(),
                reader.key(),
                reader.path.join(".")
            ),
            witness,
        );
        placed(vec![issue], &self.field_place(Some(writer), Some(reader)))
    }

    /// A field whose key changed while its Rust path stayed.
    fn renamed_field(
        &mut self,
        pair: &ObjectPair<'_>,
        writer: &FlatField,
        reader: &FlatField,
    ) -> Vec<Issue> {
        let witness = self
            .sample(&writer.field.ty, true)
            .and_then(|v| with_key(pair.base(), writer.key(), v));
        let issue = Issue::breaking(
            RuleId::FieldRenamed,
            format!(
                "{} writes `{}` under the key `{}` and {} looks for {}",
                self.writer_name(),
                writer.path.join("."),
                writer.key(),
                self.reader_name(),
                quoted_alternatives(&reader.field.de_names)
            ),
            witness,
        );
        placed(vec![issue], &self.field_place(Some(writer), Some(reader)))
    }

    /// A key only the writer writes: collected by the reader's flattened map, rejected by a reader that
    /// denies unknown fields, or ignored.
    fn writer_only_field(
        &mut self,
        pair: &ObjectPair<'_>,
        field: &FlatField,
        deny_added: bool,
    ) -> Vec<Issue> {
        let added_or_removed = self.field_only_written_rule();
        let skipped = self.reading_stopped(pair, field);
        let skip_added = skipped.is_some();
        let found = if let Some(map) = &pair.reader.map {
            self.field_into_reader_map(pair, field, map)
        } else if pair.reader.deny_unknown_fields && pair.reader.enums.is_empty() {
            let rule = if deny_added {
                RuleId::DenyUnknownFieldsAdded
            } else if skip_added {
                RuleId::SkipDeserializingAdded
            } else {
                added_or_removed
            };
            vec![Issue::breaking(
                rule,
                format!(
                    "{} writes `{}`, unknown to {}, which denies unknown fields",
                    self.writer_name(),
                    field.key(),
                    self.reader_name()
                ),
                self.sample(&field.field.ty, true)
                    .and_then(|v| with_key(pair.base(), field.key(), v)),
            )]
        } else if skip_added {
            vec![self.value_dropped(pair, field)]
        } else {
            vec![Issue::change(
                added_or_removed,
                format!(
                    "`{}` is written by {} and ignored by {}",
                    field.key(),
                    self.writer_name(),
                    self.reader_name()
                ),
            )]
        };
        placed(found, &self.field_place(Some(field), skipped))
    }

    /// The field of the new release that, reading, skips `field` (`skip_deserializing` or `skip`) that it still
    /// declares and that the old release, which writes it, read: what the old release sends there is
    /// dropped for the field's default.
    fn reading_stopped<'p>(
        &self,
        pair: &'p ObjectPair<'_>,
        field: &FlatField,
    ) -> Option<&'p FlatField> {
        let stopped = !self.writer_is_new() && !field.field.skip_de;
        let skipped = pair.reader.skipped.iter().find(|s| s.path == field.path);
        skipped.filter(|_| stopped)
    }

    /// A field the writer writes and the reader, which still has it, skips when reading: serde fills
    /// the reader's field from its default, whatever was sent (the contract's misread).
    fn value_dropped(&mut self, pair: &ObjectPair<'_>, field: &FlatField) -> Issue {
        let witness = self
            .sample(&field.field.ty, true)
            .and_then(|v| with_key(pair.base(), field.key(), v));
        Issue::breaking(
            RuleId::SkipDeserializingAdded,
            format!(
                "{} writes `{}` and {} skips it when reading (`skip_deserializing`): its `{}` takes the default, whatever was sent",
                self.writer_name(),
                field.key(),
                self.reader_name(),
                field.path.join(".")
            ),
            witness,
        )
    }

    /// A key only the writer writes, collected by the reader's flattened map: the key and the value
    /// must decode as the map's.
    fn field_into_reader_map(
        &mut self,
        pair: &ObjectPair<'_>,
        field: &FlatField,
        map: &FlatMap,
    ) -> Vec<Issue> {
        let mut out = Vec::new();
        if let Err(reason) = Decoder::new(self.reader).decode_key(&map.key, field.key()) {
            out.push(map_key_rejected(
                format!(
                    "the key `{}` goes to the reader's flattened map: {reason}",
                    field.key()
                ),
                self.sample(&field.field.ty, true)
                    .and_then(|v| with_key(pair.base(), field.key(), v)),
            ));
        }
        let found = self.compare(&field.field.ty, &map.value);
        let key = field.key().to_owned();
        out.extend(embedded(found, |c| with_key(pair.base(), &key, c)));
        out.push(Issue::change(
            self.field_only_written_rule(),
            format!(
                "`{}` is written by {} only; {} collects it in its flattened map",
                field.key(),
                self.writer_name(),
                self.reader_name()
            ),
        ));
        out
    }

    /// A key only the reader reads: fine if it tolerates absence, a break otherwise. The question is
    /// only what the reader does with what the writer writes: a field of the writer's own type that
    /// shares the name (an alias, a field the writer stopped sending) excuses nothing. What excuses is
    /// the reader's own release never writing any key of this field either (a required field skipped
    /// when writing): then no payload ever carried it, and this change breaks nothing that worked. A
    /// writer's flattened map could carry this key too, but what it holds comes from payloads of other
    /// schemas, so it is not checked against this field.
    fn reader_only_field(&self, pair: &ObjectPair<'_>, field: &FlatField) -> Vec<Issue> {
        let never_written_by_own_release = !pair
            .reader_as_written
            .fields
            .iter()
            .any(|o| field.field.de_names.iter().any(|n| n == o.key()));
        let issue = if field.tolerates_absence() || never_written_by_own_release {
            Issue::change(
                self.field_only_read_rule(false),
                format!(
                    "`{}` is read by {} only, which tolerates its absence",
                    field.key(),
                    self.reader_name()
                ),
            )
        } else {
            let custom = option_read_by_function(&field.field);
            Issue::breaking(
                self.field_only_read_rule(true),
                format!(
                    "{} requires `{}`{} and {} never writes it",
                    self.reader_name(),
                    field.key(),
                    if custom {
                        " (an Option with deserialize_with and no default)"
                    } else {
                        ""
                    },
                    self.writer_name()
                ),
                pair.base().clone().map(Value::Object),
            )
        };
        placed(vec![issue], &self.field_place(None, Some(field)))
    }
}

/// Whether custom code is on this walk's path for the field: the writer's serializer or the reader's
/// deserializer. A `deserialize_with` on the writer's side (or a `serialize_with` on the reader's) is
/// not: the types then meet through derived code, as any others.
fn custom_on_path(writer: &FlatField, reader: &FlatField) -> bool {
    writer
        .field
        .custom
        .as_ref()
        .is_some_and(|custom| custom.ser.is_some())
        || reader
            .field
            .custom
            .as_ref()
            .is_some_and(|custom| custom.de.is_some())
}

/// What a writer writes in a field's place: a field skipped when `None` is never written as null
/// (it is left out), so only its inner type is.
pub(super) fn written_ty(field: &crate::model::Field) -> Ty {
    match (&field.ty, is_none_predicate(&field.skip_ser)) {
        (Ty::Option { inner }, true) => (**inner).clone(),
        (ty, _) => ty.clone(),
    }
}

/// Whether a `skip_serializing_if` predicate is `Option::is_none` (or another `is_none`).
fn is_none_predicate(skip: &SkipSer) -> bool {
    matches!(skip, SkipSer::If(p) if p.ends_with("is_none"))
}

impl Walk<'_> {
    /// The rule of keys the writer writes that a reader denying unknown fields rejects, where the old
    /// release writes them: the new release's denial is the change (`deny_unknown_fields_added`);
    /// `if_writer_new` where the new release writes them.
    pub(super) fn denied_by_new_reader_rule(&self, if_writer_new: RuleId) -> RuleId {
        self.pick_rule(if_writer_new, RuleId::DenyUnknownFieldsAdded)
    }

    /// The rule of a field the writer writes and the reader does not know, named by the change from
    /// the old release to the new.
    pub(super) fn field_only_written_rule(&self) -> RuleId {
        self.pick_rule(RuleId::FieldAdded, RuleId::FieldRemoved)
    }

    /// The rule of a field the reader knows and the writer never writes, named by the change from the
    /// old release to the new; a field the new release reads and `requires` is `required_field_added`.
    pub(super) fn field_only_read_rule(&self, requires: bool) -> RuleId {
        match requires {
            true => self.pick_rule(RuleId::FieldRemoved, RuleId::RequiredFieldAdded),
            false => self.pick_rule(RuleId::FieldRemoved, RuleId::FieldAdded),
        }
    }

    /// The rule of a field the writer may leave out and the reader requires: `skip_serializing_if_added`
    /// where the new release writes it and the reader's own release always wrote it (`reader_skip`
    /// never), else `field_became_required`.
    pub(super) fn missing_field_rule(&self, reader_skip: &SkipSer) -> RuleId {
        if self.writer_is_new() && *reader_skip == SkipSer::Never {
            RuleId::SkipSerializingIfAdded
        } else {
            RuleId::FieldBecameRequired
        }
    }

    /// The rule of a value that may be absent (null, an option tag) on the writer's side
    /// (`writer_optional`) and is required on the reader's, or the other way round: named by the
    /// change from the old release to the new.
    pub(super) fn optionality_rule(&self, writer_optional: bool) -> RuleId {
        if writer_optional == self.writer_is_new() {
            RuleId::FieldBecameOptional
        } else {
            RuleId::FieldBecameRequired
        }
    }
}
