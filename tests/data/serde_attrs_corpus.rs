// The corpus of tests/serde_attrs_parity.rs and benches/serde_attrs.rs: every attribute serde documents
// (serde.rs/container-attrs, field-attrs, variant-attrs), alone and combined, on the shapes it applies
// to. Read as text by both readers, never compiled (the paths named in `with`, `default`, ... exist
// nowhere); every item must be accepted by serde_derive (the parity test checks it with
// serde_derive_internals). Items are self-contained: the test reaches each from one message.

#[derive(Serialize, Deserialize)]
struct Plain {
    count: u32,
    r#type: String,
    #[serde()]
    empty: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "Wire", rename_all = "camelCase", deny_unknown_fields)]
struct Renamed {
    user_id: u32,
    #[serde(rename = "ID")]
    id: u32,
    #[serde(alias = "old_name", alias = "older_name")]
    new_name: u32,
    #[serde(rename = "explicit", alias = "implicit")]
    both: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename(serialize = "Out", deserialize = "In"))]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "kebab-case"))]
struct Sides {
    first_field: u32,
    #[serde(rename(serialize = "written"))]
    only_written: u32,
    #[serde(rename(deserialize = "read"))]
    only_read: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all(deserialize = "PascalCase"))]
struct OneSideRule {
    some_field: u32,
}

#[derive(Serialize, Deserialize)]
struct ManyReads {
    #[serde(rename(deserialize = "first"))]
    #[serde(rename(deserialize = "second"), alias = "third")]
    spread: u32,
    #[serde(rename(serialize = "out", deserialize = "in_one", deserialize = "in_two"))]
    listed: u32,
    #[serde(rename(serialize = "kept"))]
    #[serde(rename(deserialize = "later"))]
    split: u32,
    #[serde(rename = "same", alias = "same", alias = "again", alias = "again")]
    repeated: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(default)]
struct Defaults {
    plain: u32,
    #[serde(default)]
    own: u32,
    #[serde(default = "seven")]
    from_path: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(default = "Self::fallback")]
struct DefaultPath {
    plain: u32,
}

#[derive(Serialize, Deserialize)]
struct FieldDefaults {
    required: u32,
    #[serde(default)]
    optional: u32,
    #[serde(default = "seven")]
    seven: u32,
}

#[derive(Serialize, Deserialize)]
struct Skips {
    #[serde(skip)]
    never: u32,
    #[serde(skip_serializing)]
    read_only: u32,
    #[serde(skip_deserializing)]
    write_only: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    sometimes: Option<u32>,
    #[serde(skip_serializing_if = "crate::empty")]
    #[serde(default)]
    sometimes_defaulted: Vec<u32>,
    #[serde(skip_deserializing, default = "seven")]
    filled: u32,
    #[serde(skip_serializing, skip_deserializing)]
    both_ways: u32,
}

#[derive(Serialize, Deserialize)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    rest: BTreeMap<String, u32>,
}

#[derive(Serialize, Deserialize)]
struct Custom {
    #[serde(with = "codec::hex")]
    module: Vec<u8>,
    #[serde(serialize_with = "codec::write")]
    written: u32,
    #[serde(deserialize_with = "codec::read")]
    read: u32,
    #[serde(serialize_with = "codec::write", deserialize_with = "codec::read")]
    pair: u32,
    #[serde(with = "::codec::absolute")]
    absolute: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Transparent {
    inner: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct TransparentTuple(String);

#[derive(Serialize, Deserialize)]
#[serde(from = "u64", into = "u64")]
struct Proxied {
    value: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(try_from = "String")]
struct Checked {
    text: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename = "thing")]
struct TaggedStruct {
    id: u32,
}

#[derive(Serialize, Deserialize)]
struct Tuple(u32, #[serde(skip)] u32, #[serde(default)] u32);

#[derive(Serialize, Deserialize)]
struct Unit;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
enum External {
    UnitOne,
    #[serde(rename = "two")]
    TwoNewtype(u32),
    ThreeStruct { some_field: u32 },
    #[serde(rename_all = "UPPERCASE")]
    FourOwnRule { other_field: u32 },
    #[serde(rename_all(serialize = "kebab-case"))]
    FiveHalfRule { half_field: u32 },
    #[serde(alias = "six_old", alias = "six_older")]
    Six,
    #[serde(skip)]
    Hidden,
    #[serde(skip_serializing)]
    ReadOnly,
    #[serde(skip_deserializing)]
    WriteOnly,
    r#Raw,
    Tuple(u32, u32),
    WithDefault {
        #[serde(default)]
        filled: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<u32>,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all_fields(deserialize = "SCREAMING-KEBAB-CASE"))]
enum FieldsRuleOneSide {
    Only { a_field: u32 },
}

#[derive(Serialize, Deserialize)]
enum VariantNames {
    #[serde(rename(deserialize = "a"), alias = "b")]
    #[serde(rename(deserialize = "c"))]
    First,
    #[serde(rename(serialize = "written", deserialize = "read"))]
    Second,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind")]
enum Internal {
    Alpha { x: u32 },
    Beta,
    #[serde(other)]
    Unknown,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "t", content = "c", rename_all = "kebab-case")]
enum Adjacent {
    FirstOne(u32),
    Second,
    #[serde(other)]
    Rest,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Untagged {
    Number(u32),
    Text(String),
}

#[derive(Serialize, Deserialize)]
enum PartlyUntagged {
    Tagged(u32),
    #[serde(untagged)]
    Fallback(String),
}

#[derive(Serialize, Deserialize)]
enum VariantFunctions {
    #[serde(with = "codec::hex")]
    Bytes(Vec<u8>),
    #[serde(serialize_with = "codec::write_pair")]
    Pair(u32, u32),
    #[serde(deserialize_with = "codec::read_named")]
    Named { a: u32 },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "op")]
enum Closed {
    Add { n: u32 },
}

#[derive(Serialize, Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum FieldKey {
    Alpha,
    Beta,
    Other(String),
}

#[derive(Serialize, Deserialize)]
#[serde(field_identifier)]
enum FieldKeyOther {
    Alpha,
    #[serde(other)]
    Unknown,
}

#[derive(Serialize, Deserialize)]
#[serde(variant_identifier)]
enum VariantKey {
    One,
    #[serde(alias = "two")]
    Two,
}

#[derive(Serialize, Deserialize)]
#[serde(bound = "T: Clone", crate = "serde", expecting = "a thing")]
struct NotOnTheWire<T> {
    #[serde(bound(serialize = "T: Serialize", deserialize = "T: Deserialize<'de>"))]
    value: T,
}

#[derive(Serialize, Deserialize)]
struct Borrowed<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(borrow = "'a")]
    other: Cow<'a, str>,
    owned: Cow<'a, str>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "elsewhere::Span")]
struct SpanDef {
    #[serde(getter = "elsewhere::Span::start")]
    start: u32,
    end: u32,
}

#[derive(Serialize, Deserialize)]
enum BorrowedVariant<'a> {
    #[serde(borrow)]
    Text(Cow<'a, str>),
    #[serde(bound(serialize = "", deserialize = ""))]
    Number(u32),
}
