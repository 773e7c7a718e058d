//! The rule catalogue: every rule the comparison engine can report, with everything the rest of the
//! program needs to know about it: its default level, what its witness shows, a one-line summary, the usual
//! safe migration and an explanation (`wirecheck rules`, `wirecheck explain RULE`).
//!
//! A rule is named by [`RuleId`] everywhere, from the engine to the reports; its id string appears in this
//! file only. Reports and tests read the catalogue's columns instead of keeping lists of rule ids. It lives
//! in this crate so that the derive (`allow(...)`, through `wirecheck-grammar`) and the checker read one
//! list: a new rule is one entry here.

mod id;
mod rule;

pub use id::UnknownRule;
pub use rule::{Evidence, Level, Rule};

macro_rules! catalogue {
    ($(
        $variant:ident {
            id: $id:literal,
            level: $level:ident,
            evidence: $evidence:ident,
            summary: $summary:literal,
            help: $help:literal,
            explanation: $explanation:literal,
        }
    )+) => {
        /// The id of a rule of the catalogue. `RuleId::X as usize` indexes [`RULES`]. It is serialized as
        /// the rule's id string (`field_removed`) and ordered by it, as reports list rules.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $(
                #[doc = $summary]
                $variant,
            )+
        }

        impl RuleId {
            /// Every rule id, in catalogue order.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant),+];
        }

        /// Every rule, in catalogue order.
        pub static RULES: &[Rule] = &[$(
            Rule {
                id: $id,
                level: Level::$level,
                evidence: Evidence::$evidence,
                summary: $summary,
                help: $help,
                explanation: $explanation,
            },
        )+];
    };
}

catalogue! {
    ProtocolRemoved {
        id: "protocol_removed",
        level: Major,
        evidence: NoPayload,
        summary: "a protocol declared by the baseline release is gone",
        help: "keep declaring the protocol until no peer speaks it, or allow the finding in wirecheck.toml with the reason no peer is left",
        explanation: "The working tree no longer declares a protocol the baseline release declared, so peers that still \
speak it find nobody to talk to.\n\nbefore: #[wire(name = \"sched\", version = \"0.87.0\")] pub struct Sched;\nafter:  (removed)",
    }
    ProtocolFormatChanged {
        id: "protocol_format_changed",
        level: Major,
        evidence: NoPayload,
        summary: "the protocol's serde format changed",
        help: "serve the new format on a new protocol name (or topic) next to the old one, and retire the old one once every peer is upgraded",
        explanation: "Old and new peers encode every message differently, so nothing they send each other decodes.\n\n\
before: #[wire(name = \"sched\", format = \"json\")]\nafter:  #[wire(name = \"sched\", format = \"cbor\")]",
    }
    MessageAdded {
        id: "message_added",
        level: Minor,
        evidence: NoPayload,
        summary: "a message was added",
        help: "a semver-compatible version is enough: readers of older releases never see the new message",
        explanation: "A new message is visible on the wire; old peers never see it unless they are sent it, which needs \
a new semver-compatible version.\n\nbefore: (no sched.cancel)\nafter:  #[wire(protocol = Sched, topic = \"sched.cancel\", kind = \"request\")] pub struct CancelRequest { .. }",
    }
    MessageRemoved {
        id: "message_removed",
        level: Major,
        evidence: MessageGone,
        summary: "a message was removed",
        help: "keep the message (answer it with an error if it is obsolete) until no release that sends it is left, then remove it with an allow",
        explanation: "Peers of the old release still send (or store) this message, and the new release no longer \
understands it.\n\nbefore: #[wire(protocol = Sched, topic = \"sched.free\", kind = \"request\")] pub struct FreeRequest { .. }\nafter:  (removed)",
    }
    TopicRenamed {
        id: "topic_renamed",
        level: Major,
        evidence: NotTaken,
        summary: "a message moved to another topic",
        help: "listen on both topics for one release (the new one as an alias), then switch writers to the new topic",
        explanation: "Writers of one release send on a topic readers of the other release do not listen on.\n\n\
before: #[wire(topic = \"sched.alloc\")] pub struct AllocRequest\nafter:  #[wire(topic = \"sched.allocate\")] pub struct AllocRequest",
    }
    KindChanged {
        id: "kind_changed",
        level: Major,
        evidence: NotTaken,
        summary: "a message's kind changed (request, response, event, record)",
        help: "declare a new message for the new role and retire the old one after a release",
        explanation: "The kind decides who writes and who reads a message; changing it breaks the peers that rely on the \
old role.\n\nbefore: #[wire(topic = \"job.state\", kind = \"event\")]\nafter:  #[wire(topic = \"job.state\", kind = \"record\")]",
    }
    ResponseAdded {
        id: "response_added",
        level: Major,
        evidence: Unanswered,
        summary: "a request that had no response now expects one",
        help: "make the response a new request topic, or have new clients tolerate silence (a timeout) until old servers are gone",
        explanation: "New clients wait for a response that old servers never send (old servers read the new request \
and stay silent).\n\nbefore: #[wire(kind = \"request\")] pub struct FreeRequest\nafter:  #[wire(kind = \"request\", responds = FreeResponse)] pub struct FreeRequest",
    }
    ResponseRemoved {
        id: "response_removed",
        level: Major,
        evidence: Unanswered,
        summary: "a request that had a response no longer gets one",
        help: "keep sending the response until no client that waits for it is left",
        explanation: "Old clients wait for a response that new servers no longer send.\n\n\
before: #[wire(kind = \"request\", responds = FreeResponse)]\nafter:  #[wire(kind = \"request\")]",
    }
    ResponseChanged {
        id: "response_changed",
        level: Major,
        evidence: OtherResponsePattern,
        summary: "a request switched between one response and a stream of responses",
        help: "add a new topic for the streaming (or single) form and keep the old one until every peer has moved",
        explanation: "A client expecting one response stops reading after the first of a stream, and one expecting a \
stream waits for an end that a single response never sends.\n\nbefore: #[wire(responds = HelloResponse)]\nafter:  #[wire(streams = HelloResponse)]",
    }
    FieldAdded {
        id: "field_added",
        level: Minor,
        evidence: Rejected,
        summary: "a field was added that readers without it ignore and readers with it may miss",
        help: "a semver-compatible version is enough; keep the field `Option` or `#[serde(default)]` so older writers stay readable",
        explanation: "A new key on the wire. Old readers ignore unknown keys (unless they deny unknown fields: then this \
is major) and new readers tolerate its absence (`Option`, `#[serde(default)]`).\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, #[serde(default)] queue: String }",
    }
    RequiredFieldAdded {
        id: "required_field_added",
        level: Major,
        evidence: Rejected,
        summary: "a field was added that new readers require",
        help: "make the field `Option<T>` or give it `#[serde(default)]`, so payloads of older writers (which lack it) still decode",
        explanation: "New readers fail with `missing field` on payloads written by the old release, which never writes \
the key. Make it an `Option` or give it `#[serde(default)]`.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, queue: String }\nwitness (old writer): {\"id\": 0}",
    }
    FieldRemoved {
        id: "field_removed",
        level: Major,
        evidence: Rejected,
        summary: "a field was removed",
        help: "make the field `Option<T>` with `#[serde(default)]` first and release that; remove it only once no release that requires it is left",
        explanation: "New writers no longer write the key. Old readers that require it fail with `missing field` \
(major); old readers that tolerate its absence only lose the value (minor). New readers that deny unknown \
fields also reject the old writers' key.\n\nbefore: struct AllocRequest { id: u64, t_submit: f64 }\nafter:  struct AllocRequest { id: u64 }\nwitness (new writer): {\"id\": 0}",
    }
    FieldBecameRequired {
        id: "field_became_required",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field's readers no longer tolerate its absence (or null)",
        help: "keep `Option<T>` (or `#[serde(default)]`) in readers until every writer always sends a value",
        explanation: "The old release may leave the key out (or write null: it was an `Option`), and the new reader \
requires a value.\n\nbefore: struct Job { queue: Option<String> }\nafter:  struct Job { queue: String }\nwitness (old writer): {\"queue\": null}",
    }
    FieldBecameOptional {
        id: "field_became_optional",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field became optional on the writer side and old readers require a value",
        help: "keep writing a value (`skip_serializing_if` for None only once every reader has `#[serde(default)]`), upgrading readers first",
        explanation: "The new release writes null (or leaves the key out) where the old reader requires a value: \
`#[serde(default)]` tolerates a missing key but not null.\n\nbefore: struct Job { queue: String }\nafter:  struct Job { queue: Option<String> }\nwitness (new writer): {\"queue\": null}",
    }
    FieldRenamed {
        id: "field_renamed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field's wire name changed",
        help: "keep the wire name with `#[serde(rename = \"old\")]`, or add `#[serde(alias = \"new\")]` to readers one release before writers switch",
        explanation: "The writer puts the value under a key the reader does not look for: a required field fails, an \
optional one is silently lost. Keep the old name with `#[serde(rename = \"...\")]`, or migrate reader-first \
with `#[serde(alias = \"...\")]`.\n\nbefore: struct Job { t_submit: f64 }\nafter:  struct Job { #[serde(rename = \"submitted\")] t_submit: f64 }\nwitness (new writer): {\"submitted\": 0.0}",
    }
    FieldTypeChanged {
        id: "field_type_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a value's type changed to one that does not accept what the writer sends",
        help: "add a new field with the new type next to the old one, write both for a release, then drop the old one",
        explanation: "The reader's type rejects (or misreads) values of the writer's type, as serde_json would: a String \
reader rejects numbers, a bool reader rejects 0/1, a fixed-length array rejects other lengths.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: String }\nwitness (old writer): {\"id\": 0}",
    }
    IntegerNarrowed {
        id: "integer_narrowed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an integer type became narrower",
        help: "keep the wider type until no writer sends values outside the narrower range",
        explanation: "New readers fail (`invalid value`) on values of the old writers above the new range.\n\n\
before: struct Job { id: u64 }\nafter:  struct Job { id: u32 }\nwitness (old writer): {\"id\": 4294967296}",
    }
    IntegerWidened {
        id: "integer_widened",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an integer type became wider",
        help: "widen readers first (one release ahead), and only then let writers send values beyond the old range",
        explanation: "New writers can send values above the range old readers accept. In positional formats the \
encoding itself changes: postcard varints let a reader widen from u16 up (not from u8, a raw byte); bincode's \
integer encoding depends on the configuration the program picks (varint in `config::standard()`, fixed \
width in `config::legacy()`), so any width change is reported in both directions.\n\nbefore: struct Job { id: u32 }\nafter:  struct Job { id: u64 }\nwitness (new writer): {\"id\": 4294967296}",
    }
    IntegerSignChanged {
        id: "integer_sign_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an integer type changed signedness",
        help: "widen to a type that holds both ranges (u32 and i32 fit in i64) in readers first, then in writers",
        explanation: "Unsigned readers reject negative values; signed readers reject values above their maximum.\n\n\
before: struct Job { prio: i32 }\nafter:  struct Job { prio: u32 }\nwitness (old writer): {\"prio\": -1}",
    }
    FloatToInteger {
        id: "float_to_integer",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a float became an integer",
        help: "keep the float type in readers until every writer sends integers",
        explanation: "Integer readers reject floating point numbers (`5.0` included), so new readers fail on old \
payloads; old float readers reading the new integers lose precision above 2^53.\n\nbefore: struct Job { t: f64 }\nafter:  struct Job { t: u64 }\nwitness (old writer): {\"t\": 0.5}",
    }
    IntegerToFloat {
        id: "integer_to_float",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an integer became a float",
        help: "upgrade readers to the float type first, one release ahead of writers",
        explanation: "Old integer readers reject the floats new writers send; a float reader reads integers wider than its \
mantissa inexactly.\n\nbefore: struct Job { t: u64 }\nafter:  struct Job { t: f64 }\nwitness (new writer): {\"t\": 0.5}",
    }
    FloatNarrowed {
        id: "float_narrowed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "f64 became f32",
        help: "keep f64 on the wire; convert to f32 after decoding if needed",
        explanation: "serde reads an f64 into an f32 by rounding: values are silently misread (1e300 becomes \
infinity; with serde_json's `float_roundtrip` feature it is rejected as out of range instead).\n\nbefore: struct Job { t: f64 }\nafter:  struct Job { t: f32 }\nwitness (old writer): {\"t\": 1e300}",
    }
    SeqToSet {
        id: "seq_to_set",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a list became a set",
        help: "keep the list on the wire and build the set after decoding",
        explanation: "Duplicates the writer sends collapse in the reader's set and the order is lost: a silent \
misread.\n\nbefore: struct Job { ranks: Vec<u32> }\nafter:  struct Job { ranks: BTreeSet<u32> }\nwitness (old writer): {\"ranks\": [0, 0]}",
    }
    ArrayLengthChanged {
        id: "array_length_changed",
        level: Major,
        evidence: Rejected,
        summary: "a fixed-size array changed length",
        help: "use a `Vec<T>` (readers first) or a new field for the new length",
        explanation: "serde reads `[T; N]` only from arrays of exactly N elements.\n\nbefore: struct Job { ids: [u32; 2] }\nafter:  struct Job { ids: [u32; 3] }\nwitness (old writer): {\"ids\": [0, 0]}",
    }
    TupleLengthChanged {
        id: "tuple_length_changed",
        level: Major,
        evidence: Rejected,
        summary: "a tuple (or tuple struct, or tuple variant) changed arity",
        help: "add a new field (or variant) for the new arity and keep the old one for a release",
        explanation: "serde reads tuples only from arrays of exactly their length.\n\nbefore: struct Job { span: (u32, u32) }\nafter:  struct Job { span: (u32, u32, u32) }\nwitness (old writer): {\"span\": [0, 0]}",
    }
    MapKeyChanged {
        id: "map_key_changed",
        level: Major,
        evidence: Rejected,
        summary: "a map's key type changed incompatibly",
        help: "keep the key type readers accept; convert keys after decoding",
        explanation: "JSON object keys are strings; integer keys are parsed back from them. A reader with integer keys \
rejects keys that are not numbers in its range.\n\nbefore: struct Job { env: HashMap<String, String> }\nafter:  struct Job { env: HashMap<u32, String> }\nwitness (old writer): {\"env\": {\"x\": \"\"}}",
    }
    VariantAdded {
        id: "variant_added",
        level: Minor,
        evidence: Rejected,
        summary: "an enum variant was added that old readers tolerate",
        help: "a semver-compatible version is enough: readers with a catch-all tolerate the new variant",
        explanation: "Old readers have a `#[serde(other)]` catch-all, or never read the enum: the new variant is a \
visible but compatible change.\n\nbefore: #[serde(tag = \"t\")] enum State { Run, #[serde(other)] Unknown }\nafter:  #[serde(tag = \"t\")] enum State { Run, Done, #[serde(other)] Unknown }",
    }
    VariantAddedWithoutOther {
        id: "variant_added_without_other",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an enum variant was added and old readers have no catch-all",
        help: "give readers the new variant one release before writers send it; a `#[serde(other)]` unit variant takes unknown unit variants, and any variant of an internally tagged enum",
        explanation: "Old readers fail with `unknown variant` on the new tag. Readers must take the new variant one \
release before writers send it: the variant itself, or a `#[serde(other)]` unit variant where it takes it. Such a \
catch-all takes any unknown variant of an internally tagged enum, but only unit variants of an externally or \
adjacently tagged one (serde_json rejects a payload: `invalid type: map, expected unit`).\n\nbefore: enum State { Run }\nafter:  enum State { Run, Done }\nwitness (new writer): \"Done\"",
    }
    VariantRemoved {
        id: "variant_removed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an enum variant was removed",
        help: "keep the variant (readers may map it to an error) until no writer sends it, or add `#[serde(other)]` to readers first",
        explanation: "Old writers still send the variant and new readers fail with `unknown variant` (minor when the new \
reader has a `#[serde(other)]` catch-all).\n\nbefore: enum State { Run, Done }\nafter:  enum State { Run }\nwitness (old writer): \"Done\"",
    }
    VariantRenamed {
        id: "variant_renamed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an enum variant's wire name changed",
        help: "keep the wire tag with `#[serde(rename = \"old\")]` (of an enum written as integers by serde_repr, keep its discriminant, `Done = 3`: `rename` does not apply), or add `#[serde(alias = \"new\")]` to readers one release before writers switch",
        explanation: "Readers fail with `unknown variant` on the other release's tag. Keep the old tag with \
`#[serde(rename = \"...\")]` or migrate reader-first with `#[serde(alias = \"...\")]`. An enum that serde_repr \
writes as integers has its discriminant as its tag (`Done = 3`): keep the discriminant; serde's `rename` and \
`alias` do not apply to it.\n\nbefore: enum State { Done }\nafter:  #[serde(rename_all = \"lowercase\")] enum State { Done }\nwitness (new writer): \"done\"",
    }
    EnumReprChanged {
        id: "enum_repr_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an enum's representation changed (external, tag, tag+content, untagged)",
        help: "keep the representation; serve the new one on a new field or topic and retire the old one after a release",
        explanation: "Every variant is written in another shape: `{\"Run\": {..}}` versus `{\"type\": \"Run\", ..}` \
versus `{\"t\": \"Run\", \"c\": {..}}` versus bare content.\n\nbefore: enum Event { Run { id: u64 } }\nafter:  #[serde(tag = \"type\")] enum Event { Run { id: u64 } }\nwitness (new writer): {\"type\": \"Run\", \"id\": 0}",
    }
    StructTagChanged {
        id: "struct_tag_changed",
        level: Major,
        evidence: Rejected,
        summary: "a struct's `#[serde(tag = \"...\")]` key changed",
        help: "keep the tag key, or remove `deny_unknown_fields` from readers first",
        explanation: "serde writes the tag as an extra key and does not check it when reading, so the change only breaks \
readers that deny unknown fields (otherwise it is minor).\n\nbefore: #[serde(deny_unknown_fields)] struct Hello { id: u64 }\nafter:  #[serde(tag = \"type\")] struct Hello { id: u64 }",
    }
    UntaggedVariantOrderChanged {
        id: "untagged_variant_order_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an untagged enum's variants were reordered so payloads decode as another variant",
        help: "restore the order (serde takes the first untagged variant that fits), or make the enum tagged",
        explanation: "serde tries untagged variants in order and takes the first that fits: a payload written as one \
variant is read as another.\n\nbefore: #[serde(untagged)] enum Id { Num(u64), Any(f64) }\nafter:  #[serde(untagged)] enum Id { Any(f64), Num(u64) }\nwitness (old writer): 0",
    }
    UntaggedMisread {
        id: "untagged_misread",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a payload of an untagged enum now decodes as another variant",
        help: "give the new variant a shape no other variant accepts, or place it after the variants it overlaps",
        explanation: "A change to an untagged enum's variants makes a payload that one release writes as one variant \
decode as another in the other release.\n\nbefore: #[serde(untagged)] enum V { A { x: u32 } }\nafter:  #[serde(untagged)] enum V { B { x: u32, #[serde(default)] y: u32 }, A { x: u32 } }",
    }
    DenyUnknownFieldsAdded {
        id: "deny_unknown_fields_added",
        level: Major,
        evidence: Rejected,
        summary: "readers now deny unknown fields",
        help: "keep readers tolerant of unknown keys; deny them only once every writer stopped sending extra keys",
        explanation: "`#[serde(deny_unknown_fields)]` makes new readers reject every key they do not know, including keys \
old writers still send (minor when old writers send none).\n\nbefore: struct Job { id: u64, legacy: u32 }\nafter:  #[serde(deny_unknown_fields)] struct Job { id: u64 }\nwitness (old writer): {\"id\": 0, \"legacy\": 0}",
    }
    TransparentChanged {
        id: "transparent_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "`#[serde(transparent)]` was added to or removed from a braced struct",
        help: "keep the representation; introduce a new field for the other shape",
        explanation: "A transparent braced struct is written as its one field's value; without it, as an object with \
one key.\n\nbefore: struct Id { value: u64 }\nafter:  #[serde(transparent)] struct Id { value: u64 }\nwitness (new writer): 0",
    }
    FlattenChanged {
        id: "flatten_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "`#[serde(flatten)]` was added to or removed from a field",
        help: "keep the representation; introduce a new field for the other shape",
        explanation: "A flattened field's keys sit in the parent object; without flatten they are nested under the \
field's own key.\n\nbefore: struct Entry { event: Event }\nafter:  struct Entry { #[serde(flatten)] event: Event }",
    }
    CustomSerdeChanged {
        id: "custom_serde_changed",
        level: Major,
        evidence: Opaque,
        summary: "custom (de)serialization changed: `with`, `serialize_with`, `deserialize_with`, `try_from`",
        help: "review the functions; when they stay wire-compatible, allow the finding with a reason",
        explanation: "Custom functions are opaque to the checker: a change to them, or to the type they convert, may \
change the wire in any way, and `try_from` may reject values the proxy type accepts. No witness can be \
given; review the functions and allow the finding with a reason when they are compatible.\n\nbefore: #[serde(with = \"ts_seconds\")] t: DateTime<Utc>\nafter:  #[serde(with = \"ts_milliseconds\")] t: DateTime<Utc>",
    }
    OptionDeserializeWith {
        id: "option_deserialize_with",
        level: Major,
        evidence: Rejected,
        summary: "an Option field with `deserialize_with` no longer tolerates a missing key",
        help: "add `#[serde(default)]` next to `deserialize_with`, so a missing key reads as None again",
        explanation: "serde treats a missing `Option` field as None only when it has no `deserialize_with`; with one and \
no `#[serde(default)]`, a missing key is an error.\n\nbefore: #[serde(skip_serializing_if = \"Option::is_none\")] t: Option<u64>\nafter:  #[serde(skip_serializing_if = \"Option::is_none\", deserialize_with = \"de_t\")] t: Option<u64>\nwitness (old writer): {}",
    }
    SkipSerializingIfAdded {
        id: "skip_serializing_if_added",
        level: Major,
        evidence: Rejected,
        summary: "a field may now be left out by writers and old readers require it",
        help: "give readers `#[serde(default)]` one release ahead, then let writers skip the field",
        explanation: "`skip_serializing_if` makes the key sometimes absent; readers without `default` (or `Option`) fail \
with `missing field`.\n\nbefore: struct Job { tags: Vec<String> }\nafter:  struct Job { #[serde(skip_serializing_if = \"Vec::is_empty\")] tags: Vec<String> }\nwitness (new writer): {}",
    }
    PositionalFieldAdded {
        id: "positional_field_added",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field was added in a positional format (bincode, postcard)",
        help: "positional formats cannot evolve in place: add a new message (or topic) with the new layout, or move to a self-describing format",
        explanation: "Positional formats carry no field names and cannot skip or default: every field added breaks both \
directions (zero-sized ones, `()` and `PhantomData`, take no bytes and do not count). A field appended at the \
very end can look harmless, because `postcard::from_bytes` and bincode's `decode_from_slice` leave the extra \
bytes unread without an error, but the field is lost, and anywhere else the fields after it are misread.\n\nbefore: struct Job { id: u64 }\nafter:  struct Job { id: u64, #[serde(default)] prio: u32 }",
    }
    PositionalFieldRemoved {
        id: "positional_field_removed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field was removed in a positional format (bincode, postcard)",
        help: "positional formats cannot evolve in place: add a new message (or topic) with the new layout",
        explanation: "Positional formats carry no field names: every field removed shifts the fields after it and breaks \
both directions.\n\nbefore: struct Job { id: u64, prio: u32 }\nafter:  struct Job { id: u64 }",
    }
    PositionalFieldOrderChanged {
        id: "positional_field_order_changed",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "fields were reordered in a positional format (bincode, postcard)",
        help: "restore the declaration order: positional formats decode by position",
        explanation: "Fields are decoded in declaration order, so reordered fields are read into each other.\n\n\
before: struct Job { id: u64, prio: u32 }\nafter:  struct Job { prio: u32, id: u64 }",
    }
    PositionalVariantReordered {
        id: "positional_variant_reordered",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "enum variants were reordered or inserted in a positional format (bincode, postcard)",
        help: "restore the order and append new variants at the end",
        explanation: "A variant is written as its index: inserting or reordering variants makes readers decode another \
variant (or fail). Append new variants at the end.\n\nbefore: enum State { Run, Done }\nafter:  enum State { Queued, Run, Done }",
    }
    ExternalTypeChanged {
        id: "external_type_changed",
        level: Major,
        evidence: Opaque,
        summary: "a type the checker cannot see into (of another crate, or with hand-written serde impls) changed",
        help: "check that both types serialize the same way; declare a hand-written type's shape with `#[wire(as = T)]` (or `[shapes]` in wirecheck.toml for another crate's type), or allow the finding with a reason",
        explanation: "Types from other crates that the checker cannot see into, and types of the crate whose serde \
impls are written by hand or by a macro (no `#[derive(Serialize, Deserialize)]`), are compared by their full path \
and package version: a different path may serialize differently, which the checker cannot see. For a type of \
your own, declare its wire shape at the type: `#[derive(Wire)]` with `#[wire(as = T)]`, T the type it is on the \
wire (`as = String` for a type written as a string); for another crate's type, the same in `wirecheck.toml`'s \
`[shapes]` (`\"geo_types::Point\" = \"(f64, f64)\"`). A declared shape is compared like any other. Otherwise allow \
the finding with a reason when the two are wire-compatible.\n\nbefore: t: geo_types::Point<f64>\nafter:  t: glam::DVec2",
    }
    UnresolvedType {
        id: "unresolved_type",
        level: Major,
        evidence: Opaque,
        summary: "a type the checker could not resolve differs between the releases",
        help: "check the type by hand (or make it visible to the checker: no macro-generated types); allow the finding with a reason",
        explanation: "The extraction could not see through a type on one side (a macro, a missing module), so the \
comparison cannot decide; the finding is reported once. Allow it with a reason after checking by hand.\n\nbefore: id: JobId\nafter:  id: my_macro!(JobId)",
    }
    FixturesMissing {
        id: "fixtures_missing",
        level: None,
        evidence: NoPayload,
        summary: "the baseline release's wire fixtures are not in the working tree",
        help: "run `wirecheck fixtures write --rev <baseline tag>` (it writes the release's fixtures from git objects) and commit them",
        explanation: "The protocol keeps golden wire fixtures (its `wire-fixtures/<protocol>/` folder exists), but the folder \
of the baseline release's version lacks the fixture of a message that release declares, so the skew test \
(`wirecheck::testing`) cannot check that the current types still decode what that release writes. This is the \
one rule that is not about the wire: its level is `none`, so it never raises the required bump nor changes the \
exit code (those say whether the declared version is right), but it is reported in every format until the \
fixtures are there. Write them from the release's own source with `wirecheck fixtures write --rev <tag>` (or \
restore them from git when they were deleted) and commit them. CI enforces the step for the current version \
with `wirecheck fixtures write --check` (exit 1) and the skew test.\n\n\
before: wire-fixtures/sched/0.87.0/sched.alloc.request.json (the release v0.87.0 wrote its fixtures)\n\
after:  wire-fixtures/sched/0.88.0/ only (the release v0.88.0 did not; `wirecheck fixtures write --rev v0.88.0`)",
    }
    PositionalUndecodable {
        id: "positional_undecodable",
        level: Major,
        evidence: Rejected,
        summary: "a positional format (bincode, postcard) meets a shape it cannot decode at all",
        help: "use an externally tagged enum (the default) and named fields instead of untagged, internally or adjacently tagged enums, `flatten` or `serde_json::Value`, or switch the protocol to a self-describing format",
        explanation: "bincode and postcard carry no field names, tags or types, so they cannot serve serde's `deserialize_any` \
or identifiers: an untagged, internally tagged or adjacently tagged enum, an enum with an untagged variant, or \
`serde_json::Value` is rejected whatever was written (postcard: `This is a feature that PostCard will never \
implement`; bincode: `AnyNotSupported`, `IdentifierNotSupported`), and a struct with a `flatten` field cannot even \
be written (a map of unknown length). A release whose type has such a shape cannot read any message that reaches \
it, its own included: one finding is reported where the reader's type has the shape, instead of reasoning about \
variant indices or fields below it.\n\n\
before: enum Event { Start(u8), Stop }\nafter:  #[serde(untagged)] enum Event { Start(u8), Stop }",
    }
    ValueDomainNarrowed {
        id: "value_domain_narrowed",
        level: Major,
        evidence: Rejected,
        summary: "a reader accepts fewer values of the same wire type: a plain value became a validated one, or a domain narrowed",
        help: "keep the old type (or one whose domain holds every value the other release writes) until no release writes values outside it",
        explanation: "The wire type is the same (a string, an integer), but the reader's type parses it and accepts only \
a domain of it: a `NonZeroU32` rejects 0, a URL or UUID type rejects other strings. A release whose field was \
the plain type writes values the other release rejects: new-reads-old breaks when the new release \
validates, old-reads-new when the old one did; a reader of the plain type accepts every value of the \
validated one, so only the direction in which the validating release reads breaks. The witness is a value the writer can write and the reader rejects (the reader's known \
value outside its domain, or the writer's domain sample). A writer whose values are validated by a \
fallible `try_from` and written through `into` (`#[serde(try_from = \"String\", into = \"String\")]` on an id \
of 16 hex digits) writes only what `into` makes of a valid value, which wirecheck cannot run: no value of \
it is invented (never `\"\"`), and a break that needs one is reported at its level without a witness, \
saying why.\n\nbefore: count: u32\nafter:  count: std::num::NonZeroU32",
    }
    SerdeImplChanged {
        id: "serde_impl_changed",
        level: Major,
        evidence: Opaque,
        summary: "the source of hand-written serde impls changed",
        help: "check that the new impls write what old readers accept and read what old writers wrote; declare the type's wire shape with `#[wire(as = T)]` (or `[shapes]` in wirecheck.toml) to have it compared, or allow the finding with a reason",
        explanation: "A type whose `Serialize` or `Deserialize` is written by hand (or by a macro, or a `with` \
function) is compared by its source: the type item, its impls in its crate (but those of traits that cannot \
change what serde does, like `Debug` or `Clone`) and the items they name there (helper types, visitors, \
functions, constants, the methods they call). The same source is the same wire, whatever the package version \
says, so an upgrade that changed nothing is no finding. A changed source is a change wirecheck cannot read: \
it may accept less or write more, in either direction, so it is reported once, at the level of a break, \
without a witness. Declare the shape the impls write (`#[derive(Wire)] #[wire(as = String)]` for a type \
written as a string) to have it compared like any other type. A field's own `with` / `serialize_with` / \
`deserialize_with` functions of the crate are read like impls where they follow a common pattern (a \
serializer's `serialize_f64(..)`, a deserializer's `String::deserialize(..)` then a parse); one that cannot \
be read is compared by its source and what it calls: unchanged is no finding, changed is this finding, \
in the direction the changed function serves (a serializer where the new release writes, a deserializer \
where it reads), at both functions' locations; no witness is ever sampled through it.\n\n\
before: impl Serialize for Id { .. serializer.serialize_u32(self.0) }\n\
after:  impl Serialize for Id { .. serializer.serialize_i64(self.0) }",
    }
    FieldRenamedOnWire {
        id: "field_renamed_on_wire",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "an optional field was renamed on the wire: readers of the other name lose its value",
        help: "keep the wire name with `#[serde(rename = \"old\")]`, or add `#[serde(alias = \"new\")]` to readers one release before writers switch to the new name",
        explanation: "An optional field left one name for another at the same place, with the same type (a \
field removed and one added, or renamed with `rename`). A reader of the old name takes the new key as an \
unknown one, ignores it, and reads the field as absent: no error, the value is silently lost, in both \
directions of a mixed upgrade. This is the contract's misread, a break, not an optional field added and \
another removed.\n\nbefore: struct Doc { timestamp: Option<String> }\nafter:  struct Doc { #[serde(rename = \"lastModified\")] last_modified: Option<String> }\nwitness (new writer): {\"lastModified\": \"x\"}",
    }
    MinCompatibleSpansBreak {
        id: "min_compatible_spans_break",
        level: Major,
        evidence: NoPayload,
        summary: "the protocol's window (min_compatible, else its series) reaches a release this one cannot talk to",
        help: "raise min_compatible above the broken release (the handshake then refuses its peers), or undo the break; a version bump does not help",
        explanation: "A release declares which older releases it interoperates with: from its `min_compatible` on, \
else from the first release of its series (`x.0.0`, or `0.y.0` for `0.y.z`). The handshake accepts exactly \
those peers, and the skew test decodes their fixtures, so the check proves the same window: every release tag \
inside it is compared in full with the working tree, and a break against one of them (not allowed) is this \
finding, whatever the declared version, since no version makes that pair talk. It names the broken release and \
the break (whose own finding has the witness). A break this change makes inside a declared `min_compatible` \
(the version bumped to the next major but `min_compatible` left behind) is one; so is a `min_compatible` \
lowered below a break that an earlier release paid for (known history against the baseline, but inside the \
new window again): the finding names the release whose window left the broken one out. A new break inside \
the series' default window is left to the version: its bump moves the window past the release.\n\n\
before: #[wire(name = \"sched\", version = \"0.87.0\")]\n\
after:  #[wire(name = \"sched\", version = \"0.88.0\", min_compatible = \"0.87.0\")] and a field v0.87.0 requires removed",
    }
    UpgradeOrderChanged {
        id: "upgrade_order_changed",
        level: Major,
        evidence: NoPayload,
        summary: "the protocol's upgrade order changed",
        help: "keep the upgrade order until no release relies on the old one, or declare the version the change requires and tell operators the new order",
        explanation: "The upgrade order (`upgrade = \"any-order\" | \"server-first\" | \"client-first\"`) says which \
mixed pairs of releases must work: the check compares each request and response only in the directions the \
order needs, and the handshake refuses the other pairings. An order that drops a direction an older order \
needed (any-order to server-first: a client upgraded before its server is no longer proven, nor accepted) \
changes what operators may do, and would let a break in the dropped direction pass unseen: `major`. An order \
that needs more directions than before (server-first to any-order) is proven in all of them: `minor`. A \
protocol of events and records alone needs both directions under every order: `minor`.\n\n\
before: #[wire(name = \"sched\", version = \"0.87.0\")]\n\
after:  #[wire(name = \"sched\", version = \"0.87.1\", upgrade = \"server-first\")]",
    }
    SinceAboveVersion {
        id: "since_above_version",
        level: None,
        evidence: NoPayload,
        summary: "a `since` names a release after the protocol's declared version",
        help: "declare the protocol's version at or above the `since` (the release that brings the change), or correct the `since`",
        explanation: "`#[wire(since = \"...\")]` on a message, field or variant says in which release it entered the \
protocol, for the maintainers of peers. It cannot be later than the version the working tree declares: \
either the version was not bumped for the change, or the `since` is wrong. The compiler cannot tell (the \
derive of a message does not see its protocol's version), so the check does: the finding fails it until the \
two agree. Its level is `none`: it is about the declaration, not the wire, so it raises no bump.\n\n\
before: #[wire(name = \"sched\", version = \"0.87.0\")] ... pub t: u32\n\
after:  #[wire(name = \"sched\", version = \"0.87.0\")] ... #[wire(since = \"0.88.0\")] pub t: u32",
    }
    SelfRejected {
        id: "self_rejected",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "the new release cannot read a payload it writes itself",
        help: "drop the attribute that makes the type reject its own output (`deny_unknown_fields` next to a struct `tag`, a struct `tag` in a format that reads structs by position, `skip_serializing_if` on a field without `default`, or on a field a positional format reads by position), or give the field a `default`",
        explanation: "A message whose release rejects (or, by position, misreads) what it writes is broken for every \
peer, its own version included, whatever the upgrade order: serde writes a struct's `tag` key and never consumes \
it, so `deny_unknown_fields` rejects it; a field under `skip_serializing_if` without `default` is left out and then \
missing; bincode, postcard and `msgpack-compact` read fields by position, so a field left out shifts every field \
after it (in `msgpack-compact` a last field with `default` is read from its default), and a struct's `tag`, \
written as its first element, is read as its first field. Reported where the change \
introduces it (the old release read its own payloads), with the payload the new release writes and rejects as \
witness, in no direction: the writer and the reader are the same release.\n\n\
before: #[serde(skip_serializing_if = \"Vec::is_empty\", default)] tags: Vec<String>\n\
after:  #[serde(skip_serializing_if = \"Vec::is_empty\")] tags: Vec<String>",
    }
    SkipDeserializingAdded {
        id: "skip_deserializing_added",
        level: Major,
        evidence: RejectedOrMisread,
        summary: "a field the new release still has is no longer read (`skip_deserializing` or `skip` added)",
        help: "keep reading the field until no release that sends it is left (or remove the field with a release that ignores it), and give it a `default` a reader can tell from a real value",
        explanation: "serde fills a field marked `skip_deserializing` (or `skip`) from its default and treats \
its key as unknown: what an old writer sends there is silently replaced by the default, and a reader that \
denies unknown fields rejects the message. Old readers still get the field from new writers (serializing is \
unchanged).\n\n\
before: pub priority: u32\nafter:  #[serde(skip_deserializing)] pub priority: u32",
    }
}
