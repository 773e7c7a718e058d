//! Fields of structs, tuples and arrays (and of variants) in positional formats: read by position, so
//! their number and order must agree, and none may be skipped.

use serde_json::Value;

use super::super::codec::Codec;
use super::super::issue::{Issue, Place, embedded, placed};
use super::super::sample::Sampler;
use super::super::shape::{Role, Shape, SideRef, resolve};
use super::super::walk::Walk;
use super::super::witness::with_element;
use crate::findings::Side;
use crate::model::{AllowDecl, Field, Location, SkipSer, Ty};
use crate::rules::RuleId;

/// Arrays are compared element by element up to this length.
const MAX_ARRAY_ITEMS: u64 = 64;

/// One item written in sequence: a field, a tuple element or an array element.
#[derive(Clone)]
pub(in crate::compat) struct Item {
    /// The field's Rust name, or the element's index.
    pub(in crate::compat) name: String,
    pub(in crate::compat) ty: Ty,
    pub(in crate::compat) field: Option<Field>,
}

impl Item {
    fn location(&self) -> Option<&Location> {
        self.field.as_ref().map(|f| &f.location)
    }

    fn allows(&self) -> impl Iterator<Item = &AllowDecl> {
        self.field.iter().flat_map(|f| f.allow.iter())
    }
}

/// A field as an item.
pub(in crate::compat) fn field_item(field: &Field) -> Item {
    Item {
        name: field.rust_name.clone(),
        ty: field.ty.clone(),
        field: Some(field.clone()),
    }
}

/// `1 field`, `2 fields`.
fn fields(count: usize) -> String {
    match count {
        1 => "1 field".to_owned(),
        n => format!("{n} fields"),
    }
}

/// The items of a struct, tuple or array shape, as `role` sees them.
fn shape_items(shape: &Shape, role: Role) -> Vec<Item> {
    match shape {
        Shape::Struct(o) => o
            .fields
            .iter()
            .filter(|f| role.sees(f))
            .map(field_item)
            .collect(),
        Shape::Tuple(elems, fields) => elems
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let field = fields.get(i).cloned();
                Item {
                    name: field
                        .as_ref()
                        .map_or_else(|| i.to_string(), |f| f.rust_name.clone()),
                    ty: ty.clone(),
                    field,
                }
            })
            .collect(),
        Shape::Array(elem, len) => (0..(*len).min(MAX_ARRAY_ITEMS))
            .map(|i| Item {
                name: i.to_string(),
                ty: elem.clone(),
                field: None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The items that take bytes: zero-sized ones (`()`, unit structs, `PhantomData`) take none in either
/// format.
fn sized_items(side: SideRef<'_>, role: Role, items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .filter(|item| !matches!(resolve(side, &item.ty, role).shape, Shape::Unit))
        .cloned()
        .collect()
}

/// Two item lists compared: what each side is called in sentences, and the writer's sample of the
/// whole (the base of witnesses).
pub(in crate::compat) struct ItemLists<'l> {
    pub(in crate::compat) writer: &'l [Item],
    pub(in crate::compat) reader: &'l [Item],
    pub(in crate::compat) base: Option<Value>,
    /// The writer's sample with every scalar distinct: the witness of an order change.
    pub(in crate::compat) distinct: Option<Value>,
    pub(in crate::compat) writer_name: String,
    pub(in crate::compat) reader_name: String,
    /// The reader's container has `#[serde(default)]`: a missing trailing field takes the default's
    /// (only `msgpack-compact` readers, which read a shorter array, ask).
    pub(in crate::compat) reader_default: bool,
    /// The same of the writer's container (as its own release reads it).
    pub(in crate::compat) writer_default: bool,
    /// What the writer's items are the items of, to sample its payload with every field present.
    pub(in crate::compat) writer_of: ItemsOf<'l>,
    /// What the reader's items are the items of, to sample the reader's own payload when it needs one.
    pub(in crate::compat) reader_of: ItemsOf<'l>,
}

impl<'l> ItemLists<'l> {
    /// The items of two variants paired by tag, the writer's (`writer_items`, of `writer_variant`) as
    /// `side` writes them.
    pub(in crate::compat) fn of_variants(
        side: SideRef<'_>,
        (writer_items, writer_variant): (&'l [Item], &'l crate::model::Variant),
        (reader_items, reader_variant): (&'l [Item], &'l crate::model::Variant),
    ) -> ItemLists<'l> {
        ItemLists {
            writer: writer_items,
            reader: reader_items,
            base: Sampler::new(side).payload(writer_variant, false).flatten(),
            distinct: Sampler::distinct(side)
                .payload(writer_variant, false)
                .flatten(),
            writer_name: format!("the variant `{}`", writer_variant.rust_name),
            reader_name: format!("the variant `{}`", reader_variant.rust_name),
            reader_default: false,
            writer_default: false,
            writer_of: ItemsOf::Variant(writer_variant),
            reader_of: ItemsOf::Variant(reader_variant),
        }
    }
}

/// The value whose items a list holds: a struct, tuple or array type, or an enum's variant.
#[derive(Clone, Copy)]
pub(in crate::compat) enum ItemsOf<'l> {
    Type(&'l Ty),
    Variant(&'l crate::model::Variant),
}

impl ItemsOf<'_> {
    /// A payload of it as `side` writes it (`full`: every optional part present).
    fn sample(self, side: SideRef<'_>, full: bool) -> Option<Value> {
        match self {
            ItemsOf::Type(ty) => Sampler::new(side).value(ty, full),
            ItemsOf::Variant(variant) => Sampler::new(side).payload(variant, full).flatten(),
        }
    }
}

impl Walk<'_> {
    /// The item lists of two types read by position (structs, tuples, arrays): each type's `items`, as
    /// its `shape` holds them.
    pub(in crate::compat) fn type_item_lists<'l>(
        &self,
        (writer_ty, writer, writer_items): (&'l Ty, &Shape, &'l [Item]),
        (reader_ty, reader, reader_items): (&'l Ty, &Shape, &'l [Item]),
    ) -> ItemLists<'l> {
        ItemLists {
            writer: writer_items,
            reader: reader_items,
            base: self.sample(writer_ty, false),
            distinct: Sampler::distinct(self.writer).value(writer_ty, false),
            writer_name: format!("`{writer_ty}`"),
            reader_name: format!("`{reader_ty}`"),
            reader_default: matches!(reader, Shape::Struct(s) if s.attrs.default),
            writer_default: matches!(writer, Shape::Struct(s) if s.attrs.default),
            writer_of: ItemsOf::Type(writer_ty),
            reader_of: ItemsOf::Type(reader_ty),
        }
    }

    /// Structs, tuples and arrays against each other.
    pub(super) fn compare_positional_lists(
        &mut self,
        writer_ty: &Ty,
        reader_ty: &Ty,
        writer: &Shape,
        reader: &Shape,
    ) -> Vec<Issue> {
        let writer_items = shape_items(writer, Role::Writer);
        let reader_items = shape_items(reader, Role::Reader);
        let lists = self.type_item_lists(
            (writer_ty, writer, &writer_items),
            (reader_ty, reader, &reader_items),
        );
        self.compare_items(&lists)
    }

    /// Compares two item lists: count, order, then item by item.
    pub(in crate::compat) fn compare_items(&mut self, lists: &ItemLists<'_>) -> Vec<Issue> {
        // In MessagePack every item takes a place in the array, `()` too (`nil`).
        let (writer, reader) = if self.positional {
            (
                sized_items(self.writer, Role::Writer, lists.writer),
                sized_items(self.reader, Role::Reader, lists.reader),
            )
        } else {
            (lists.writer.to_vec(), lists.reader.to_vec())
        };
        if writer.len() != reader.len() && !self.compact_reads_shorter(lists, &writer, &reader) {
            let mut out = vec![self.item_count_changed(lists, &writer, &reader)];
            out.extend(self.added_items_undecodable(lists, &writer, &reader));
            return out;
        }
        if let Some(issue) = self.item_order_changed(lists, &writer, &reader) {
            return vec![issue];
        }
        let mut out = Vec::new();
        if writer.len() < reader.len() {
            let extra = &reader[writer.len()];
            out.push(
                Issue::change(
                    self.field_only_read_rule(false),
                    format!(
                        "{} reads {} fields of {} where {} writes {}: the missing ones take their default",
                        self.reader_name(),
                        reader.len(),
                        lists.reader_name,
                        self.writer_name(),
                        writer.len()
                    ),
                )
                .at(vec![extra.name.clone()], self.item_location(None, Some(extra))),
            );
        }
        for (index, (writer_item, reader_item)) in writer.iter().zip(&reader).enumerate() {
            out.extend(self.item_skipped(lists, writer_item, reader_item));
            out.extend(self.compare_item(lists, (index, writer_item), reader_item));
        }
        out
    }

    /// The items the new release adds at the end (walking new reads old, so once per pair) that it
    /// cannot read back itself (see [`Walk::added_undecodable`]), each placed at its field, with the new
    /// release's own payload of the whole list as witness.
    fn added_items_undecodable(
        &self,
        lists: &ItemLists<'_>,
        writer: &[Item],
        reader: &[Item],
    ) -> Vec<Issue> {
        if self.writer_is_new() || reader.len() <= writer.len() {
            return Vec::new();
        }
        let mut own: Option<Option<Value>> = None;
        reader[writer.len()..]
            .iter()
            .filter_map(|item| {
                let added = format!("the field `{}`", item.name);
                let mut issue = self.added_undecodable(&added, &item.ty, item.field.as_ref())?;
                issue.witness = own
                    .get_or_insert_with(|| lists.reader_of.sample(self.reader, false))
                    .clone();
                let location = issue
                    .location
                    .clone()
                    .or_else(|| self.item_location(None, Some(item)));
                Some(issue.at(vec![item.name.clone()], location))
            })
            .collect()
    }

    fn item_location(
        &self,
        writer: Option<&Item>,
        reader: Option<&Item>,
    ) -> Option<(Location, Side)> {
        self.location(
            writer.and_then(Item::location),
            reader.and_then(Item::location),
        )
    }

    /// In `msgpack-compact`, a reader of more fields than the writer writes reads the missing trailing
    /// ones from their `default` (the derive's `visit_seq`): whether every one of them has one.
    fn compact_reads_shorter(
        &self,
        lists: &ItemLists<'_>,
        writer: &[Item],
        reader: &[Item],
    ) -> bool {
        self.format.structs_as_arrays()
            && writer.len() < reader.len()
            && reader[writer.len()..]
                .iter()
                .all(|item| lists.reader_default || item.field.as_ref().is_some_and(|f| f.default))
    }

    /// A field added or removed: every field after it is read from the wrong bytes. The witness of a
    /// writer with more fields has every optional part present, so that a field it may leave out
    /// (`skip_serializing_if`) is on the wire.
    fn item_count_changed(&self, lists: &ItemLists<'_>, writer: &[Item], reader: &[Item]) -> Issue {
        let writer_longer = writer.len() > reader.len();
        let longer = if writer_longer { writer } else { reader };
        let extra = &longer[writer.len().min(reader.len())];
        let rule = if writer_longer == self.writer_is_new() {
            RuleId::PositionalFieldAdded
        } else {
            RuleId::PositionalFieldRemoved
        };
        let location = if writer_longer {
            self.item_location(Some(extra), None)
        } else {
            self.item_location(None, Some(extra))
        };
        let consequence = if self.format.structs_as_arrays() {
            if writer_longer {
                format!(
                    "{} rejects an array longer than its fields (rmp-serde: \"array length mismatch\")",
                    self.reader_name()
                )
            } else {
                format!(
                    "{} rejects an array without the field, which has no `default`",
                    self.reader_name()
                )
            }
        } else if writer_longer {
            format!(
                "{} leaves the extra bytes unread: at the very end of a message `postcard::from_bytes` and \
                 bincode's `decode_from_slice` accept that without an error and the field is lost (a stream \
                 reader takes the bytes for the next message); anywhere else the fields after it are misread",
                self.reader_name()
            )
        } else {
            format!(
                "{} reads the missing field from the bytes after it, or runs out of bytes",
                self.reader_name()
            )
        };
        Issue::breaking(
            rule,
            format!(
                "{} writes {} with {} and {} reads {} with {}: {} has no field names; {consequence}",
                self.writer_name(),
                lists.writer_name,
                fields(writer.len()),
                self.reader_name(),
                lists.reader_name,
                fields(reader.len()),
                self.format
            ),
            if writer_longer {
                lists
                    .writer_of
                    .sample(self.writer, true)
                    .or_else(|| lists.base.clone())
            } else {
                lists.base.clone()
            },
        )
        .at(vec![extra.name.clone()], location)
    }

    /// The same fields in another order.
    fn item_order_changed(
        &self,
        lists: &ItemLists<'_>,
        writer: &[Item],
        reader: &[Item],
    ) -> Option<Issue> {
        let mut writer_names: Vec<&String> = writer.iter().map(|x| &x.name).collect();
        let mut reader_names: Vec<&String> = reader.iter().map(|x| &x.name).collect();
        let same_order = writer_names == reader_names;
        writer_names.sort();
        reader_names.sort();
        if same_order || writer_names != reader_names || writer.len() <= 1 {
            return None;
        }
        Some(Issue::breaking(
            RuleId::PositionalFieldOrderChanged,
            format!(
                "{} writes the fields of {} in another order than {} reads them: each value is read into \
                 another field, a misread without an error when the types fit",
                self.writer_name(),
                lists.writer_name,
                self.reader_name()
            ),
            lists.distinct.clone(),
        ))
    }

    /// The name of a pair of items: the new release's.
    fn item_name<'i>(&self, writer: &'i Item, reader: &'i Item) -> &'i String {
        if self.writer_is_new() {
            &writer.name
        } else {
            &reader.name
        }
    }

    /// A writer that may skip the field writes nothing where every reader expects it. The writer's own
    /// release cannot read that either: a change only if the skipping changed.
    fn item_skipped(&self, lists: &ItemLists<'_>, writer: &Item, reader: &Item) -> Option<Issue> {
        let (Some(writer_field), Some(reader_field)) = (&writer.field, &reader.field) else {
            return None;
        };
        if !matches!(writer_field.skip_ser, SkipSer::If(_)) {
            return None;
        }
        if self.format.structs_as_arrays() {
            // A shorter array is read from the trailing fields' defaults: a break where the writer's own
            // release reads it so and the reader does not (where neither does, the writer's release
            // rejects its own payloads: `self_rejected`, where the change brings it).
            let writer_reads_it =
                compact_skip_at_end(lists, writer, lists.writer, lists.writer_default);
            let reader_reads_it =
                compact_skip_at_end(lists, writer, lists.reader, lists.reader_default);
            if reader_reads_it || !writer_reads_it {
                return None;
            }
        } else if writer_field.skip_ser == reader_field.skip_ser {
            return None;
        }
        let rule = self.missing_field_rule(&reader_field.skip_ser);
        let witness = match &lists.base {
            Some(Value::Object(m)) => {
                let mut m = m.clone();
                m.remove(&writer_field.ser_name);
                Some(Value::Object(m))
            }
            // `msgpack-compact`: the writer's value, whose bytes leave the field out when skipped.
            Some(Value::Array(_)) => lists.base.clone(),
            _ => None,
        };
        let mut issue = Issue::breaking(
            rule,
            format!(
                "{} may leave `{}` of {} out and {} reads it by position: a positional format cannot skip a field",
                self.writer_name(),
                writer.name,
                lists.writer_name,
                self.reader_name()
            ),
            witness,
        )
        .at(
            vec![self.item_name(writer, reader).clone()],
            self.item_location(Some(writer), Some(reader)),
        );
        issue.allows = writer_field
            .allow
            .iter()
            .chain(&reader_field.allow)
            .cloned()
            .collect();
        Some(issue)
    }

    /// Compares the types of two items in the same position.
    fn compare_item(
        &mut self,
        lists: &ItemLists<'_>,
        (index, writer): (usize, &Item),
        reader: &Item,
    ) -> Vec<Issue> {
        let found = self.compare(&writer.ty, &reader.ty);
        let key = writer.field.as_ref().map(|f| f.ser_name.clone());
        let found = embedded(found, |c| match (&lists.base, &key) {
            (Some(Value::Object(m)), Some(k)) => {
                let mut m = m.clone();
                m.insert(k.clone(), c);
                Some(Value::Object(m))
            }
            // A tuple's elements; in `msgpack-compact` a struct's fields, written as an array of the
            // writer's written fields in order (the items compared, as they are not filtered there).
            (base @ Some(Value::Array(_)), _) => {
                let at = if self.positional {
                    writer.name.parse::<usize>().ok()
                } else {
                    Some(index)
                };
                at.and_then(|i| with_element(base, i, c))
            }
            _ => None,
        });
        let place = Place {
            path: vec![self.item_name(writer, reader).clone()],
            // Positional formats name nothing on the wire.
            wire_path: Vec::new(),
            allows: writer.allows().chain(reader.allows()).cloned().collect(),
            location: self.item_location(Some(writer), Some(reader)),
        };
        placed(found, &place)
    }
}

/// In `msgpack-compact`, whether a release reading `items` (its fields; `container_default`: its
/// container's `default`) reads the array a writer writes without its item `skipped`: the writer's last
/// item (else the items after it shift), and every one of the reading release's fields from that place
/// on has a default.
fn compact_skip_at_end(
    lists: &ItemLists<'_>,
    skipped: &Item,
    items: &[Item],
    container_default: bool,
) -> bool {
    let Some(last) = lists.writer.len().checked_sub(1) else {
        return false;
    };
    if lists.writer[last].name != skipped.name {
        return false;
    }
    let defaulted =
        |item: &Item| container_default || item.field.as_ref().is_some_and(|f| f.default);
    items
        .get(last..)
        .is_some_and(|rest| rest.iter().all(defaulted))
}
