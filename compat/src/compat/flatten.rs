//! Flattened parts of objects: a field flattened on one side only, flattened enums, flattened maps,
//! and flattened types the checker cannot see into.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::issue::{Issue, Place, WIRE_MAP_VALUE, embedded, placed};
use super::namespace::{FlatField, FlatObject};
use super::objects::{ObjectPair, under_moved};
use super::opaque::opaque_type_changed;
use super::walk::Walk;
use super::witness::{merged, with_key};
use crate::model::Ty;
use crate::rules::RuleId;

/// The Rust paths of the flattened fields of a namespace (structs, enums, maps, opaque types).
fn flattened_origins(object: &FlatObject) -> BTreeSet<Vec<String>> {
    let mut origins = BTreeSet::new();
    for field in &object.fields {
        for len in 1..field.path.len() {
            origins.insert(field.path[..len].to_vec());
        }
    }
    for field in object.enums.iter().chain(&object.opaque) {
        origins.insert(field.path.clone());
    }
    if let Some(map) = &object.map {
        origins.insert(map.path.clone());
    }
    origins
}

impl Walk<'_> {
    /// Flatten added or removed: a plain field on one side is a flattened origin on the other. Returns
    /// the issues and the paths of those fields, which the field pairing leaves out.
    pub(super) fn flatten_changes(
        &self,
        pair: &ObjectPair<'_>,
    ) -> (Vec<Issue>, BTreeSet<Vec<String>>) {
        let writer_origins = flattened_origins(pair.writer);
        let reader_origins = flattened_origins(pair.reader);
        let mut moved = BTreeSet::new();
        let mut out = Vec::new();
        for field in &pair.reader.fields {
            if writer_origins.contains(&field.path) {
                moved.insert(field.path.clone());
                out.push(self.flattened_by_writer(pair, field));
            }
        }
        for field in &pair.writer.fields {
            if reader_origins.contains(&field.path) {
                moved.insert(field.path.clone());
                out.push(self.flattened_by_reader(pair, field));
            }
        }
        (out, moved)
    }

    fn flattened_by_writer(&self, pair: &ObjectPair<'_>, reader: &FlatField) -> Issue {
        Issue::breaking(
            RuleId::FlattenChanged,
            format!(
                "{} flattens `{}` into the parent object and {} reads it nested under `{}`",
                self.writer_name(),
                reader.path.join("."),
                self.reader_name(),
                reader.key()
            ),
            pair.base().clone().map(Value::Object),
        )
        .at(
            reader.path.clone(),
            self.location(None, Some(&reader.field.location)),
        )
        .on_wire(vec![reader.key().to_owned()])
    }

    fn flattened_by_reader(&self, pair: &ObjectPair<'_>, writer: &FlatField) -> Issue {
        Issue::breaking(
            RuleId::FlattenChanged,
            format!(
                "{} writes `{}` nested under `{}` and {} reads it flattened into the parent object",
                self.writer_name(),
                writer.path.join("."),
                writer.key(),
                self.reader_name()
            ),
            self.sample(&writer.field.ty, true)
                .and_then(|v| with_key(pair.base(), writer.key(), v)),
        )
        .at(
            writer.path.clone(),
            self.location(Some(&writer.field.location), None),
        )
        .on_wire(vec![writer.key().to_owned()])
    }

    /// Flattened enums, paired by path (or the only one on each side).
    pub(super) fn flattened_enums(
        &mut self,
        pair: &ObjectPair<'_>,
        moved: &BTreeSet<Vec<String>>,
    ) -> Vec<Issue> {
        let (writer, reader) = (&pair.writer.enums, &pair.reader.enums);
        let mut reader_taken = vec![false; reader.len()];
        let mut out = Vec::new();
        for field in writer {
            if under_moved(moved, &field.path) {
                continue;
            }
            let paired = reader
                .iter()
                .enumerate()
                .position(|(j, b)| !reader_taken[j] && b.path == field.path)
                .or_else(|| {
                    (writer.len() == 1 && reader.len() == 1 && !reader_taken[0]).then_some(0)
                });
            if let Some(j) = paired {
                reader_taken[j] = true;
            }
            let found = self.writer_flattened_enum(pair, field, paired.map(|j| &reader[j]));
            out.extend(found);
        }
        for (field, _) in reader
            .iter()
            .zip(&reader_taken)
            .filter(|(field, taken)| !**taken && !under_moved(moved, &field.path))
        {
            out.push(self.reader_only_flattened_enum(pair, field));
        }
        out
    }

    /// One flattened enum of the writer, against the reader's (if any).
    fn writer_flattened_enum(
        &mut self,
        pair: &ObjectPair<'_>,
        writer: &FlatField,
        reader: Option<&FlatField>,
    ) -> Vec<Issue> {
        // The parent's payload without this enum's own keys, to merge another variant into.
        let own_keys: Vec<String> = match self.sample(&writer.field.ty, false) {
            Some(Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        };
        let base: Option<Map<String, Value>> = pair.base().clone().map(|mut m| {
            for key in &own_keys {
                m.remove(key);
            }
            m
        });
        let (found, location) = match reader {
            Some(reader) => {
                let inner = self.buffered(|walk| walk.compare(&writer.field.ty, &reader.field.ty));
                let inner = embedded(inner, |c| merged(&base, c));
                let mut allows = writer.all_allows();
                allows.extend(reader.all_allows());
                let both = Place {
                    allows,
                    ..Place::default()
                };
                let location =
                    self.location(Some(&writer.field.location), Some(&reader.field.location));
                (placed(inner, &both), location)
            }
            None => {
                let witness = self
                    .sample(&writer.field.ty, false)
                    .and_then(|c| merged(&base, c));
                let location = self.location(Some(&writer.field.location), None);
                (
                    vec![self.unknown_flattened_enum(pair, writer, witness)],
                    location,
                )
            }
        };
        // A flattened enum adds no key: its variants' tags and payloads sit in the outer object.
        let place = Place {
            path: writer.path.clone(),
            allows: writer.all_allows(),
            location,
            ..Place::default()
        };
        placed(found, &place)
    }

    /// A flattened enum the reader does not have: rejected by a reader that denies unknown fields.
    fn unknown_flattened_enum(
        &self,
        pair: &ObjectPair<'_>,
        writer: &FlatField,
        witness: Option<Value>,
    ) -> Issue {
        let rule = self.field_only_written_rule();
        if pair.reader.deny_unknown_fields {
            Issue::breaking(
                rule,
                format!(
                    "{} writes the flattened `{}`, unknown to {}, which denies unknown fields",
                    self.writer_name(),
                    writer.path.join("."),
                    self.reader_name()
                ),
                witness,
            )
        } else {
            Issue::change(
                rule,
                format!(
                    "the flattened `{}` is written by {} only",
                    writer.path.join("."),
                    self.writer_name()
                ),
            )
        }
    }

    /// A flattened enum only the reader has: required unless optional.
    fn reader_only_flattened_enum(&self, pair: &ObjectPair<'_>, reader: &FlatField) -> Issue {
        let optional = reader.optional_parent || matches!(reader.field.ty, Ty::Option { .. });
        let issue = if optional {
            Issue::change(
                self.field_only_read_rule(false),
                format!(
                    "the flattened `{}` is read by {} only",
                    reader.path.join("."),
                    self.reader_name()
                ),
            )
        } else {
            Issue::breaking(
                self.field_only_read_rule(true),
                format!(
                    "{} requires the flattened `{}` and {} never writes it",
                    self.reader_name(),
                    reader.path.join("."),
                    self.writer_name()
                ),
                pair.base().clone().map(Value::Object),
            )
        };
        let place = Place {
            path: reader.path.clone(),
            allows: reader.all_allows(),
            location: self.location(None, Some(&reader.field.location)),
            ..Place::default()
        };
        placed(vec![issue], &place).remove(0)
    }

    /// Flattened maps: writers with one write arbitrary keys.
    pub(super) fn flattened_map(&mut self, pair: &ObjectPair<'_>) -> Vec<Issue> {
        let mut out = self.catch_all_keys_typed(pair);
        out.extend(self.flattened_map_pair(pair));
        out
    }

    /// A key the writer's flattened map may hold that the reader reads into a field of its own (a key
    /// of the catch-all map promoted to a typed field): the writer puts any value of the map's under
    /// it, which the field must read. A key the writer has a field of its own for is that field's.
    fn catch_all_keys_typed(&mut self, pair: &ObjectPair<'_>) -> Vec<Issue> {
        let Some(map) = &pair.writer.map else {
            return Vec::new();
        };
        let written: BTreeSet<&str> = pair.writer.fields.iter().map(FlatField::key).collect();
        let mut out = Vec::new();
        for reader in pair.reader.fields.iter().filter(|f| !f.field.skip_de) {
            if reader
                .field
                .de_names
                .iter()
                .any(|name| written.contains(name.as_str()))
            {
                continue;
            }
            let inner = self.buffered(|walk| walk.compare(&map.value, &reader.field.ty));
            let Some(first) = inner.into_iter().find(|issue| issue.breaks) else {
                continue;
            };
            let key = reader.key();
            let issue = self.type_break(
                format!(
                    "{} may write any `{}` under the key `{key}` of its flattened map `{}`, and {} reads that key as `{}`: {}",
                    self.writer_name(),
                    map.value,
                    map.path.join("."),
                    self.reader_name(),
                    reader.field.ty,
                    first.detail
                ),
                first.witness.and_then(|c| with_key(pair.base(), key, c)),
            );
            let place = Place {
                path: reader.path.clone(),
                wire_path: vec![key.to_owned()],
                allows: reader.all_allows(),
                location: self.location(None, Some(&reader.field.location)),
            };
            out.extend(placed(vec![issue], &place));
        }
        out
    }

    fn flattened_map_pair(&mut self, pair: &ObjectPair<'_>) -> Vec<Issue> {
        match (&pair.writer.map, &pair.reader.map) {
            (Some(writer), Some(reader)) => {
                let inner = self.buffered(|walk| walk.compare(&writer.value, &reader.value));
                let inner = embedded(inner, |c| with_key(pair.base(), "extra", c));
                placed(inner, &map_place(&writer.path))
            }
            (Some(writer), None) => {
                let witness = self
                    .sample(&writer.value, true)
                    .and_then(|c| with_key(pair.base(), "extra", c));
                let path = writer.path.join(".");
                let issue = if pair.reader.deny_unknown_fields {
                    Issue::breaking(
                        self.denied_by_new_reader_rule(RuleId::FlattenChanged),
                        format!(
                            "{} writes arbitrary keys from the flattened map `{path}` and {} denies unknown fields",
                            self.writer_name(),
                            self.reader_name()
                        ),
                        witness,
                    )
                } else {
                    Issue::change(
                        RuleId::FlattenChanged,
                        format!(
                            "{} writes arbitrary keys from the flattened map `{path}` that {} ignores",
                            self.writer_name(),
                            self.reader_name()
                        ),
                    )
                };
                placed(vec![issue], &map_place(&writer.path))
            }
            (None, Some(reader)) => {
                let issue = Issue::change(
                    RuleId::FlattenChanged,
                    format!(
                        "{} collects unknown keys in the flattened map `{}`",
                        self.reader_name(),
                        reader.path.join(".")
                    ),
                );
                placed(vec![issue], &map_place(&reader.path))
            }
            (None, None) => Vec::new(),
        }
    }

    /// Flattened fields the checker cannot see into: any change is reported as opaque.
    pub(super) fn flattened_opaque(&mut self, pair: &ObjectPair<'_>) -> Vec<Issue> {
        let mut out = Vec::new();
        for writer in &pair.writer.opaque {
            let same =
                pair.reader.opaque.iter().any(|b| {
                    b.path == writer.path && self.wire_eq.ty(&writer.field.ty, &b.field.ty)
                });
            if !same {
                let issue = opaque_type_changed(format!(
                    "the flattened `{}` (`{}`) is opaque to the checker and changed",
                    writer.path.join("."),
                    writer.field.ty
                ));
                out.push(issue.at(writer.path.clone(), None));
            }
        }
        out
    }
}

/// The place of a flattened map at `path`: on the wire, any key of the outer object.
fn map_place(path: &[String]) -> Place {
    Place {
        path: path.to_vec(),
        wire_path: vec![WIRE_MAP_VALUE.to_owned()],
        ..Place::default()
    }
}
