//! The rule catalogue: every rule the comparison engine can report, with its default level, a one-line
//! summary and an explanation (`wirecheck rules`, `wirecheck explain RULE`).
//!
//! The engine names rules only through [`RuleId`], so it cannot emit an id that is missing here.

use crate::findings::Level;

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The id (snake_case, like clippy's lints).
    pub id: &'static str,
    /// The level the rule usually has; a finding may carry a lower one (compatible under the declared
    /// upgrade order, or tolerated by the reader) and says so.
    pub level: Level,
    /// One line.
    pub summary: &'static str,
    /// One paragraph and a before/after example.
    pub explanation: &'static str,
}

macro_rules! catalogue {
    ($( $variant:ident => $id:literal, $level:ident, $summary:literal, $explanation:literal; )+) => {
        /// The id of a rule of the catalogue. `RuleId::X as usize` indexes [`RULES`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId {
            $(
                #[doc = $summary]
                $variant,
            )+
        }

        impl RuleId {
            /// Every rule id, in catalogue order.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant),+];

            /// The rule's entry in the catalogue.
            pub fn rule(self) -> &'static Rule {
                &RULES[self as usize]
            }

            /// The id as written in reports and `allow(...)` lists.
            pub fn as_str(self) -> &'static str {
                self.rule().id
            }
        }

        /// Every rule, in catalogue order.
        pub static RULES: &[Rule] = &[$(
            Rule { id: $id, level: Level::$level, summary: $summary, explanation: $explanation },
        )+];
    };
}

catalogue! {
    ProtocolRemoved => "protocol_removed", Major,
        "a protocol declared by the baseline release is gone",
        "The working tree no longer declares a protocol the baseline release declared, so peers that still \
speak it find nobody to talk to.\n\nbefore: #[wire(name = \"sched\", version = \"0.87.0\")] pub struct Sched;\nafter:  (removed)";
    ProtocolFormatChanged => "protocol_format_changed", Major,
        "the protocol's serde format changed",
        "Old and new peers encode every message differently, so nothing they send each other decodes.\n\n\
before: #[wire(name = \"sched\", format = \"json\")]\nafter:  #[wire(name = \"sched\", format = \"cbor\")]";
    MessageAdded => "message_added", Minor,
        "a message was added",
        "A new message is visible on the wire; old peers never see it unless they are sent it, which needs \
a minor bump.\n\nbefore: (no sched.cancel)\nafter:  #[wire(protocol = Sched, topic = \"sched.cancel\", kind = \"request\")] pub struct CancelRequest { .. }";
    MessageRemoved => "message_removed", Major,
        "a message was removed",
        "Peers of the old release still send (or store) this message, and the new release no longer \
understands it.\n\nbefore: #[wire(protocol = Sched, topic = \"sched.free\", kind = \"request\")] pub struct FreeRequest { .. }\nafter:  (removed)";
    TopicRenamed => "topic_renamed", Major,
        "a message moved to another topic",
        "Writers of one release send on a topic readers of the other release do not listen on.\n\n\
before: #[wire(topic = \"sched.alloc\")] pub struct AllocRequest\nafter:  #[wire(topic = \"sched.allocate\")] pub struct AllocRequest";
    KindChanged => "kind_changed", Major,
        "a message's kind changed (request, response, event, record)",
        "The kind decides who writes and who reads a message; changing it breaks the peers that rely on the \
old role.\n\nbefore: #[wire(topic = \"job.state\", kind = \"event\")]\nafter:  #[wire(topic = \"job.state\", kind = \"record\")]";
    ResponseAdded => "response_added", Major,
        "a request that had no response now expects one",
        "New clients wait for a response that old servers never send (old servers read the new request \
and stay silent).\n\nbefore: #[wire(kind = \"request\")] pub struct FreeRequest\nafter:  #[wire(kind = \"request\", responds = FreeResponse)] pub struct FreeRequest";
    ResponseRemoved => "response_removed", Major,
        "a request that had a response no longer gets one",
        "Old clients wait for a response that new servers no longer send.\n\n\
before: #[wire(kind = \"request\", responds = FreeResponse)]\nafter:  #[wire(kind = \"request\")]";
    ResponseChanged => "response_changed", Major,
        "a request switched between one response and a stream of responses",
        "A client expecting one response stops reading after the first of a stream, and one expecting a \
stream waits for an end that a single response never sends.\n\nbefore: #[wire(responds = HelloResponse)]\nafter:  #[wire(streams = HelloResponse)]";
    FieldAdded => "field_added", Minor,
        "a field was added that readers without it ignore and readers with it may miss",
        "A new key on the wire. Old readers ignore unknown keys (unless they deny unknown fields: then this \
is major) and new readers tolerate its absence (`Option`, `#[serde(default)]`).\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, #[serde(default)] queue: String }";
    RequiredFieldAdded => "required_field_added", Major,
        "a field was added that new readers require",
        "New readers fail with `missing field` on payloads written by the old release, which never writes \
the key. Make it an `Option` or give it `#[serde(default)]`.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, queue: String }\nwitness (old writer): {\"id\": 0}";
    FieldRemoved => "field_removed", Major,
        "a field was removed",
        "New writers no longer write the key. Old readers that require it fail with `missing field` \
(major); old readers that tolerate its absence only lose the value (minor). New readers that deny unknown \
fields also reject the old writers' key.\n\nbefore: struct AllocRequest { id: u64, t_submit: f64 }\nafter:  struct AllocRequest { id: u64 }\nwitness (new writer): {\"id\": 0}";
    FieldBecameRequired => "field_became_required", Major,
        "a field's readers no longer tolerate its absence (or null)",
        "The old release may leave the key out (or write null: it was an `Option`), and the new reader \
requires a value.\n\nbefore: struct Job { queue: Option<String> }\nafter:  struct Job { queue: String }\nwitness (old writer): {\"queue\": null}";
    FieldBecameOptional => "field_became_optional", Major,
        "a field became optional on the writer side and old readers require a value",
        "The new release writes null (or leaves the key out) where the old reader requires a value: \
`#[serde(default)]` tolerates a missing key but not null.\n\nbefore: struct Job { queue: String }\nafter:  struct Job { queue: Option<String> }\nwitness (new writer): {\"queue\": null}";
    FieldRenamed => "field_renamed", Major,
        "a field's wire name changed",
        "The writer puts the value under a key the reader does not look for: a required field fails, an \
optional one is silently lost. Keep the old name with `#[serde(rename = \"...\")]`, or migrate reader-first \
with `#[serde(alias = \"...\")]`.\n\nbefore: struct Job { t_submit: f64 }\nafter:  struct Job { #[serde(rename = \"submitted\")] t_submit: f64 }\nwitness (new writer): {\"submitted\": 0.0}";
    FieldTypeChanged => "field_type_changed", Major,
        "a value's type changed to one that does not accept what the writer sends",
        "The reader's type rejects (or misreads) values of the writer's type, as serde_json would: a String \
reader rejects numbers, a bool reader rejects 0/1, a fixed-length array rejects other lengths.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: String }\nwitness (old writer): {\"id\": 0}";
    IntegerNarrowed => "integer_narrowed", Major,
        "an integer type became narrower",
        "New readers fail (`invalid value`) on values of the old writers above the new range.\n\n\
before: struct Job { id: u64 }\nafter:  struct Job { id: u32 }\nwitness (old writer): {\"id\": 4294967296}";
    IntegerWidened => "integer_widened", Major,
        "an integer type became wider",
        "New writers can send values above the range old readers accept. In positional formats the \
encoding itself changes: postcard varints let a reader widen from u16 up (not from u8, a raw byte); bincode's \
integer encoding depends on the configuration the program picks (varint in `config::standard()`, fixed \
width in `config::legacy()`), so any width change is reported in both directions.\n\nbefore: struct Job { id: u32 }\nafter:  struct Job { id: u64 }\nwitness (new writer): {\"id\": 4294967296}";
    IntegerSignChanged => "integer_sign_changed", Major,
        "an integer type changed signedness",
        "Unsigned readers reject negative values; signed readers reject values above their maximum.\n\n\
before: struct Job { prio: i32 }\nafter:  struct Job { prio: u32 }\nwitness (old writer): {\"prio\": -1}";
    FloatToInteger => "float_to_integer", Major,
        "a float became an integer",
        "Integer readers reject floating point numbers (`5.0` included), so new readers fail on old \
payloads; old float readers reading the new integers lose precision above 2^53.\n\nbefore: struct Job { t: f64 }\nafter:  struct Job { t: u64 }\nwitness (old writer): {\"t\": 0.5}";
    IntegerToFloat => "integer_to_float", Major,
        "an integer became a float",
        "Old integer readers reject the floats new writers send; a float reader reads integers wider than its \
mantissa inexactly.\n\nbefore: struct Job { t: u64 }\nafter:  struct Job { t: f64 }\nwitness (new writer): {\"t\": 0.5}";
    FloatNarrowed => "float_narrowed", Major,
        "f64 became f32",
        "serde reads an f64 into an f32 by rounding: values are silently misread (1e300 becomes \
infinity; with serde_json's `float_roundtrip` feature it is rejected as out of range instead).\n\nbefore: struct Job { t: f64 }\nafter:  struct Job { t: f32 }\nwitness (old writer): {\"t\": 1e300}";
    SeqToSet => "seq_to_set", Major,
        "a list became a set",
        "Duplicates the writer sends collapse in the reader's set and the order is lost: a silent \
misread.\n\nbefore: struct Job { ranks: Vec<u32> }\nafter:  struct Job { ranks: BTreeSet<u32> }\nwitness (old writer): {\"ranks\": [0, 0]}";
    ArrayLengthChanged => "array_length_changed", Major,
        "a fixed-size array changed length",
        "serde reads `[T; N]` only from arrays of exactly N elements.\n\nbefore: struct Job { ids: [u32; 2] }\nafter:  struct Job { ids: [u32; 3] }\nwitness (old writer): {\"ids\": [0, 0]}";
    TupleLengthChanged => "tuple_length_changed", Major,
        "a tuple (or tuple struct, or tuple variant) changed arity",
        "serde reads tuples only from arrays of exactly their length.\n\nbefore: struct Job { span: (u32, u32) }\nafter:  struct Job { span: (u32, u32, u32) }\nwitness (old writer): {\"span\": [0, 0]}";
    MapKeyChanged => "map_key_changed", Major,
        "a map's key type changed incompatibly",
        "JSON object keys are strings; integer keys are parsed back from them. A reader with integer keys \
rejects keys that are not numbers in its range.\n\nbefore: struct Job { env: HashMap<String, String> }\nafter:  struct Job { env: HashMap<u32, String> }\nwitness (old writer): {\"env\": {\"x\": \"\"}}";
    VariantAdded => "variant_added", Minor,
        "an enum variant was added that old readers tolerate",
        "Old readers have a `#[serde(other)]` catch-all, or never read the enum: the new variant is a \
visible but compatible change.\n\nbefore: #[serde(tag = \"t\")] enum State { Run, #[serde(other)] Unknown }\nafter:  #[serde(tag = \"t\")] enum State { Run, Done, #[serde(other)] Unknown }";
    VariantAddedWithoutOther => "variant_added_without_other", Major,
        "an enum variant was added and old readers have no catch-all",
        "Old readers fail with `unknown variant` on the new tag. Add a `#[serde(other)]` unit variant to the \
readers first (internally or adjacently tagged enums), one release ahead.\n\nbefore: enum State { Run }\nafter:  enum State { Run, Done }\nwitness (new writer): \"Done\"";
    VariantRemoved => "variant_removed", Major,
        "an enum variant was removed",
        "Old writers still send the variant and new readers fail with `unknown variant` (minor when the new \
reader has a `#[serde(other)]` catch-all).\n\nbefore: enum State { Run, Done }\nafter:  enum State { Run }\nwitness (old writer): \"Done\"";
    VariantRenamed => "variant_renamed", Major,
        "an enum variant's wire name changed",
        "Readers fail with `unknown variant` on the other release's tag. Keep the old tag with \
`#[serde(rename = \"...\")]` or migrate reader-first with `#[serde(alias = \"...\")]`.\n\nbefore: enum State { Done }\nafter:  #[serde(rename_all = \"lowercase\")] enum State { Done }\nwitness (new writer): \"done\"";
    EnumReprChanged => "enum_repr_changed", Major,
        "an enum's representation changed (external, tag, tag+content, untagged)",
        "Every variant is written in another shape: `{\"Run\": {..}}` versus `{\"type\": \"Run\", ..}` \
versus `{\"t\": \"Run\", \"c\": {..}}` versus bare content.\n\nbefore: enum Event { Run { id: u64 } }\nafter:  #[serde(tag = \"type\")] enum Event { Run { id: u64 } }\nwitness (new writer): {\"type\": \"Run\", \"id\": 0}";
    StructTagChanged => "struct_tag_changed", Major,
        "a struct's `#[serde(tag = \"...\")]` key changed",
        "serde writes the tag as an extra key and does not check it when reading, so the change only breaks \
readers that deny unknown fields (otherwise it is minor).\n\nbefore: #[serde(deny_unknown_fields)] struct Hello { id: u64 }\nafter:  #[serde(tag = \"type\")] struct Hello { id: u64 }";
    UntaggedVariantOrderChanged => "untagged_variant_order_changed", Major,
        "an untagged enum's variants were reordered so payloads decode as another variant",
        "serde tries untagged variants in order and takes the first that fits: a payload written as one \
variant is read as another.\n\nbefore: #[serde(untagged)] enum Id { Num(u64), Any(f64) }\nafter:  #[serde(untagged)] enum Id { Any(f64), Num(u64) }\nwitness (old writer): 0";
    UntaggedMisread => "untagged_misread", Major,
        "a payload of an untagged enum now decodes as another variant",
        "A change to an untagged enum's variants makes a payload that one release writes as one variant \
decode as another in the other release.\n\nbefore: #[serde(untagged)] enum V { A { x: u32 } }\nafter:  #[serde(untagged)] enum V { B { x: u32, #[serde(default)] y: u32 }, A { x: u32 } }";
    DenyUnknownFieldsAdded => "deny_unknown_fields_added", Major,
        "readers now deny unknown fields",
        "`#[serde(deny_unknown_fields)]` makes new readers reject every key they do not know, including keys \
old writers still send (minor when old writers send none).\n\nbefore: struct Job { id: u64, legacy: u32 }\nafter:  #[serde(deny_unknown_fields)] struct Job { id: u64 }\nwitness (old writer): {\"id\": 0, \"legacy\": 0}";
    TransparentChanged => "transparent_changed", Major,
        "`#[serde(transparent)]` was added to or removed from a braced struct",
        "A transparent braced struct is written as its one field's value; without it, as an object with \
one key.\n\nbefore: struct Id { value: u64 }\nafter:  #[serde(transparent)] struct Id { value: u64 }\nwitness (new writer): 0";
    FlattenChanged => "flatten_changed", Major,
        "`#[serde(flatten)]` was added to or removed from a field",
        "A flattened field's keys sit in the parent object; without flatten they are nested under the \
field's own key.\n\nbefore: struct Entry { event: Event }\nafter:  struct Entry { #[serde(flatten)] event: Event }";
    CustomSerdeChanged => "custom_serde_changed", Major,
        "custom (de)serialization changed: `with`, `serialize_with`, `deserialize_with`, `try_from`",
        "Custom functions are opaque to the checker: a change to them, or to the type they convert, may \
change the wire in any way, and `try_from` may reject values the proxy type accepts. No witness can be \
given; review the functions and allow the finding with a reason when they are compatible.\n\nbefore: #[serde(with = \"ts_seconds\")] t: DateTime<Utc>\nafter:  #[serde(with = \"ts_milliseconds\")] t: DateTime<Utc>";
    OptionDeserializeWith => "option_deserialize_with", Major,
        "an Option field with `deserialize_with` no longer tolerates a missing key",
        "serde treats a missing `Option` field as None only when it has no `deserialize_with`; with one and \
no `#[serde(default)]`, a missing key is an error.\n\nbefore: #[serde(skip_serializing_if = \"Option::is_none\")] t: Option<u64>\nafter:  #[serde(skip_serializing_if = \"Option::is_none\", deserialize_with = \"de_t\")] t: Option<u64>\nwitness (old writer): {}";
    SkipSerializingIfAdded => "skip_serializing_if_added", Major,
        "a field may now be left out by writers and old readers require it",
        "`skip_serializing_if` makes the key sometimes absent; readers without `default` (or `Option`) fail \
with `missing field`.\n\nbefore: struct Job { tags: Vec<String> }\nafter:  struct Job { #[serde(skip_serializing_if = \"Vec::is_empty\")] tags: Vec<String> }\nwitness (new writer): {}";
    PositionalFieldAdded => "positional_field_added", Major,
        "a field was added in a positional format (bincode, postcard)",
        "Positional formats carry no field names and cannot skip or default: every field added breaks both \
directions (zero-sized ones, `()` and `PhantomData`, take no bytes and do not count). A field appended at the \
very end can look harmless, because `postcard::from_bytes` and bincode's `decode_from_slice` leave the extra \
bytes unread without an error, but the field is lost, and anywhere else the fields after it are misread.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, #[serde(default)] prio: u32 }";
    PositionalFieldRemoved => "positional_field_removed", Major,
        "a field was removed in a positional format (bincode, postcard)",
        "Positional formats carry no field names: every field removed shifts the fields after it and breaks \
both directions.\n\nbefore: struct Job { id: u64, prio: u32 }\nafter:  struct Job { id: u64 }";
    PositionalFieldOrderChanged => "positional_field_order_changed", Major,
        "fields were reordered in a positional format (bincode, postcard)",
        "Fields are decoded in declaration order, so reordered fields are read into each other.\n\n\
before: struct Job { id: u64, prio: u32 }\nafter:  struct Job { prio: u32, id: u64 }";
    PositionalVariantReordered => "positional_variant_reordered", Major,
        "enum variants were reordered or inserted in a positional format (bincode, postcard)",
        "A variant is written as its index: inserting or reordering variants makes readers decode another \
variant (or fail). Append new variants at the end.\n\nbefore: enum State { Run, Done }\nafter:  enum State { Queued, Run, Done }";
    ExternalTypeChanged => "external_type_changed", Major,
        "a type from another crate changed",
        "Types from other crates are compared by path: a different path may serialize differently, which \
the checker cannot see. Allow the finding with a reason when the two are wire-compatible.\n\nbefore: t: chrono::NaiveDateTime\nafter:  t: time::OffsetDateTime";
    UnresolvedType => "unresolved_type", Major,
        "a type the checker could not resolve differs between the releases",
        "The extraction could not see through a type on one side (a macro, a missing module), so the \
comparison cannot decide; the finding is reported once. Allow it with a reason after checking by hand.\n\nbefore: id: JobId\nafter:  id: my_macro!(JobId)";
    FixturesMissing => "fixtures_missing", None,
        "the baseline release's wire fixtures are not in the working tree",
        "The protocol keeps golden wire fixtures (its `wire-fixtures/<protocol>/` folder exists), but the folder \
of the baseline release's version lacks the fixture of a message that release declares, so the skew test \
(`wirecheck::testing`) cannot check that the current types still decode what that release writes. This is the \
one rule that is not about the wire: its level is `none`, so it never raises the required bump nor changes the \
exit code (those say whether the declared version is right), but it is reported in every format until the \
fixtures are there. Write them from the release's own source with `wirecheck fixtures write --rev <tag>` (or \
restore them from git when they were deleted) and commit them. CI enforces the step for the current version \
with `wirecheck fixtures write --check` (exit 1) and the skew test.\n\n\
before: wire-fixtures/sched/0.87.0/sched.alloc.request.json (the release v0.87.0 wrote its fixtures)\n\
after:  wire-fixtures/sched/0.88.0/ only (the release v0.88.0 did not; `wirecheck fixtures write --rev v0.88.0`)";
}

/// The catalogue entry for `id`, if there is one.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_the_catalogue_and_are_unique_snake_case() {
        assert_eq!(RuleId::ALL.len(), RULES.len());
        let mut seen = std::collections::BTreeSet::new();
        for (i, id) in RuleId::ALL.iter().enumerate() {
            assert_eq!(*id as usize, i);
            let r = id.rule();
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            assert!(
                r.id.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !r.id.starts_with('_'),
                "{} is not snake_case",
                r.id
            );
            assert_eq!(rule(r.id), Some(r));
            assert!(
                !r.summary.is_empty() && r.explanation.contains("before:"),
                "{}",
                r.id
            );
        }
        assert_eq!(rule("no_such_rule"), None);
    }
}
