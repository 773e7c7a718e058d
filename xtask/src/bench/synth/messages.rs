//! The message files of the synthetic workspace, and the serde types they share: structs and enums of
//! every serde representation, nested helper types, serde and wire attributes.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Model, MsgFile, NOUNS, Proto, Rng, VERBS, WORDS};

/// Shared types of a crate (reached from messages, not annotated).
pub(super) fn common_rs(name: &str) -> String {
    format!(
        r#"//! Types shared by the messages of {name}.

use std::collections::BTreeMap;
use std::fmt;

use serde::{{Deserialize, Serialize}};

/// A job id, an integer in payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub u64);

impl fmt::Display for JobId {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        write!(f, "f{{}}", self.0)
    }}
}}

/// Seconds since the epoch.
pub type Timestamp = f64;

/// A set of resources, as R describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceSet {{
    pub version: u32,
    #[serde(default)]
    pub nodelist: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expiration: Option<Timestamp>,
}}

/// How soon a job should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Urgency {{
    Hold,
    Low,
    Default,
    Expedite,
}}

/// Who asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {{
    pub userid: u32,
    #[serde(default)]
    pub rolemask: u32,
}}

impl Credentials {{
    /// The instance owner.
    pub fn owner() -> Self {{
        Credentials {{ userid: 0, rolemask: 1 }}
    }}

    /// Whether these credentials may act on a job of `userid`.
    pub fn may_act_for(&self, userid: u32) -> bool {{
        self.rolemask & 1 == 1 || self.userid == userid
    }}
}}
"#
    )
}

/// Types shared by one message group (reached from messages, not annotated).
pub(super) fn group_types_rs(seed: u64, k: usize, g: usize) -> String {
    let mut rng = Rng::new(seed, 10_000 + (k * 1000 + g) as u64);
    let repr = rng.pick(&[
        "rename_all = \"lowercase\"",
        "rename_all = \"SCREAMING_SNAKE_CASE\"",
        "rename_all = \"kebab-case\"",
    ]);
    format!(
        r#"//! Types shared by the messages of group {g}.

use std::collections::BTreeMap;

use serde::{{Deserialize, Serialize}};

/// Limits of a request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {{
    pub max: u64,
    #[serde(default)]
    pub min: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}}

/// A priority class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde({repr})]
pub enum Priority {{
    Low,
    Normal,
    High,
    Urgent,
}}

/// Free-form labels.
pub type Labels = BTreeMap<String, String>;

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {{
    pub items: Vec<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}}

impl<T> Page<T> {{
    /// A page with every item and no continuation.
    pub fn all(items: Vec<T>) -> Self {{
        Page {{ items, next: None }}
    }}

    /// Whether more pages follow.
    pub fn has_more(&self) -> bool {{
        self.next.is_some()
    }}
}}

/// Clamps `value` into the limits.
pub fn clamp(limits: &Limits, value: u64) -> u64 {{
    value.max(limits.min).min(limits.max.max(limits.min))
}}
"#
    )
}

/// Renders one message file.
pub(super) struct MsgWriter<'m> {
    model: &'m Model,
    file: &'m MsgFile,
    rng: Rng,
    out: String,
    /// Local helper types (name, is generic-free struct).
    helpers: Vec<String>,
    glob: bool,
    /// The next message's first field is still to reach the type the dependency upgrade changes.
    reach_upgrade: bool,
}

/// A field: attributes, name and type.
struct FieldSpec {
    attrs: Vec<String>,
    name: String,
    ty: String,
}

impl<'m> MsgWriter<'m> {
    pub(super) fn new(model: &'m Model, file: &'m MsgFile) -> Self {
        MsgWriter {
            model,
            file,
            rng: Rng::new(model.seed, 1_000_000 + file.id),
            out: String::new(),
            helpers: Vec::new(),
            glob: false,
            reach_upgrade: file.reaches_upgrade,
        }
    }

    fn stem(&self, i: usize) -> String {
        let f = self.file;
        let n = (f.id as usize) * 7 + i * 3;
        format!(
            "{}{}{}",
            NOUNS[n % NOUNS.len()],
            VERBS[(n / NOUNS.len() + i) % VERBS.len()],
            f.id * 10 + i as u64
        )
    }

    pub(super) fn render(mut self) -> String {
        let f = self.file;
        let name = &self.model.crates[f.krate];
        self.glob = self.rng.chance(40);
        let types_import = if self.glob {
            "use super::types::*;".to_owned()
        } else {
            "use super::types::{Labels, Limits, Page, Priority};".to_owned()
        };
        let _ = write!(
            self.out,
            "//! {} messages of {name}, group {}, file {}.\n\n\
             use std::collections::{{BTreeMap, HashMap}};\n\n\
             use serde::{{Deserialize, Serialize}};\nuse wirecheck::Message;\n\n\
             {types_import}\nuse crate::common::{{self, Credentials, JobId, Timestamp}};\nuse crate::proto::{};\n\n",
            f.proto.type_name(),
            f.group,
            f.index,
            f.proto.type_name()
        );
        let mut i = 0;
        // Fields added over the history all go to the first struct message: a message only ever grows.
        let mut extras_left = f.extras;
        while i < f.messages {
            let stem = self.stem(i);
            let topic = format!(
                "{name}.{}.{}",
                stem.to_lowercase(),
                self.rng.pick(&["get", "set", "run", "put", "watch"])
            );
            match f.proto {
                Proto::Ctl if i + 1 < f.messages && self.rng.chance(80) => {
                    self.request_response(&stem, &topic, &mut extras_left);
                    i += 2;
                }
                Proto::Ctl => {
                    self.message(&stem, "Request", &topic, "request", None, &mut extras_left);
                    i += 1;
                }
                Proto::Events => {
                    if self.rng.chance(35) {
                        self.event_enum(&stem, &topic);
                    } else {
                        self.message(&stem, "Event", &topic, "event", None, &mut extras_left);
                    }
                    i += 1;
                }
                Proto::Log => {
                    self.record(&stem, &topic, std::mem::take(&mut extras_left));
                    i += 1;
                }
            }
        }
        self.out
    }

    /// A helper struct or enum for a message, returning its name.
    fn helper(&mut self, stem: &str) -> String {
        if self.rng.chance(50) {
            let name = format!("{stem}Info");
            let n = self.rng.range(2, 5);
            let fields = self.fields(n, false, 0);
            self.derive_line(false);
            if self.rng.chance(30) {
                self.out.push_str("#[serde(rename_all = \"camelCase\")]\n");
            }
            self.struct_body(&name, &fields);
            self.helpers.push(name.clone());
            name
        } else {
            let name = format!("{stem}State");
            self.enum_def(&name);
            self.helpers.push(name.clone());
            name
        }
    }

    fn derive_line(&mut self, message: bool) {
        self.out.push_str(if message {
            "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Message)]\n"
        } else {
            "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n"
        });
    }

    fn struct_body(&mut self, name: &str, fields: &[FieldSpec]) {
        let _ = writeln!(self.out, "pub struct {name} {{");
        for field in fields {
            for attr in &field.attrs {
                let _ = writeln!(self.out, "    {attr}");
            }
            let _ = writeln!(self.out, "    pub {}: {},", field.name, field.ty);
        }
        self.out.push_str("}\n\n");
    }

    /// An enum of a random serde representation.
    fn enum_def(&mut self, name: &str) {
        let repr = self.rng.below(4);
        self.derive_line(false);
        match repr {
            0 => {}
            1 => self
                .out
                .push_str("#[serde(tag = \"type\", rename_all = \"snake_case\")]\n"),
            2 => self
                .out
                .push_str("#[serde(tag = \"t\", content = \"c\")]\n"),
            _ => self.out.push_str("#[serde(untagged)]\n"),
        }
        let _ = writeln!(self.out, "pub enum {name} {{");
        let variants = self.rng.range(2, 5);
        for v in 0..variants {
            let vname = VERBS[(v * 7 + name.len()) % VERBS.len()].to_owned() + &v.to_string();
            match (repr, self.rng.below(3)) {
                // Untagged: distinguishable payloads.
                (3, _) => {
                    let _ = writeln!(
                        self.out,
                        "    {vname} {{ {}_{v}: {} }},",
                        self.rng.pick(WORDS),
                        self.rng.pick(&["u64", "String", "Vec<u32>", "bool"])
                    );
                }
                (_, 0) => {
                    if v == 0 && self.rng.chance(40) {
                        self.out.push_str("    #[serde(rename = \"none\")]\n");
                    }
                    let _ = writeln!(self.out, "    {vname},");
                }
                (1, 1) | (_, 2) => {
                    let _ = writeln!(
                        self.out,
                        "    {vname} {{ {}: {}, #[serde(default)] {}_seq: u64 }},",
                        self.rng.pick(WORDS),
                        self.rng
                            .pick(&["String", "u32", "f64", "JobId", "Option<Priority>"]),
                        self.rng.pick(WORDS)
                    );
                }
                _ => {
                    let _ = writeln!(
                        self.out,
                        "    {vname}({}),",
                        self.rng.pick(&["u64", "String", "Limits", "Vec<String>"])
                    );
                }
            }
        }
        if matches!(repr, 1 | 2) && self.rng.chance(50) {
            self.out.push_str("    #[serde(other)]\n    Unknown,\n");
        }
        self.out.push_str("}\n\n");
    }

    /// `n` fields of realistic types; message fields may carry `#[wire(since)]`.
    fn fields(&mut self, n: usize, message: bool, extras: usize) -> Vec<FieldSpec> {
        let mut used = BTreeSet::new();
        let mut out = Vec::new();
        for i in 0..n {
            let mut name = self.rng.pick(WORDS).to_owned();
            if !used.insert(name.clone()) {
                name = format!("{name}_{i}");
                used.insert(name.clone());
            }
            let mut attrs = Vec::new();
            let helper = if message && !self.helpers.is_empty() && self.rng.chance(30) {
                Some(self.helpers[self.rng.below(self.helpers.len())].clone())
            } else {
                None
            };
            let ty = match (self.dependency_type(message), helper, self.rng.below(20)) {
                (Some(dep), _, _) => dep,
                (None, Some(h), 0..=9) => h,
                (None, Some(h), 10..=14) => format!("Option<{h}>"),
                (None, Some(h), _) => format!("Vec<{h}>"),
                (None, None, 0..=2) => "u64".into(),
                (None, None, 3) => "u32".into(),
                (None, None, 4) => "i64".into(),
                (None, None, 5) => "f64".into(),
                (None, None, 6) => "bool".into(),
                (None, None, 7 | 8) => "String".into(),
                (None, None, 9) => {
                    attrs.push("#[serde(skip_serializing_if = \"Option::is_none\")]".into());
                    "Option<String>".into()
                }
                (None, None, 10) => {
                    attrs.push("#[serde(default)]".into());
                    "Vec<u64>".into()
                }
                (None, None, 11) => "HashMap<String, u64>".into(),
                (None, None, 12) => "JobId".into(),
                (None, None, 13) => "Timestamp".into(),
                (None, None, 14) => "common::ResourceSet".into(),
                (None, None, 15) => "Option<Limits>".into(),
                (None, None, 16) => "Priority".into(),
                (None, None, 17) => {
                    attrs.push("#[serde(default)]".into());
                    "Labels".into()
                }
                (None, None, 18) => "Credentials".into(),
                (None, None, _) => "serde_json::Value".into(),
            };
            if self.rng.chance(10) {
                attrs.push(format!("#[serde(rename = \"{}\")]", name.to_uppercase()));
            } else if self.rng.chance(5) {
                attrs.push(format!("#[serde(alias = \"{name}_old\")]"));
            }
            if message && self.rng.chance(8) {
                attrs.push("#[wire(since = \"1.0.0\")]".into());
            }
            out.push(FieldSpec { attrs, name, ty });
        }
        for e in 0..extras {
            out.push(FieldSpec {
                attrs: vec!["#[serde(default, skip_serializing_if = \"Option::is_none\")]".into()],
                name: format!("added_{e}"),
                ty: "Option<u64>".into(),
            });
        }
        out
    }

    /// A field of a message reaching a dependency's type, when the workspace has dependencies: the
    /// changed type for the first one of a marked file, else one in seven picked from all.
    fn dependency_type(&mut self, message: bool) -> Option<String> {
        let deps = self.model.deps.as_ref().filter(|_| message)?;
        if std::mem::take(&mut self.reach_upgrade) {
            return Some(deps.changed_type(deps.upgraded_in_working_tree()));
        }
        let types = &self.model.dep_types;
        self.rng
            .chance(14)
            .then(|| types[self.rng.below(types.len())].clone())
    }

    /// A struct message; it takes the file's added fields unless it denies unknown fields (adding a
    /// field to such a message breaks old readers: not the kind of change the history makes).
    fn message(
        &mut self,
        stem: &str,
        suffix: &str,
        topic: &str,
        kind: &str,
        responds: Option<&str>,
        extras_left: &mut usize,
    ) {
        if self.rng.chance(50) {
            self.helper(&format!("{stem}{suffix}"));
        }
        let container = self.rng.below(6);
        let extras = if container == 0 {
            0
        } else {
            std::mem::take(extras_left)
        };
        let n = self.rng.range(3, 9);
        let fields = self.fields(n, true, extras);
        let name = format!("{stem}{suffix}");
        let _ = writeln!(self.out, "/// The `{topic}` {kind}.");
        self.derive_line(true);
        let responds = responds.map_or(String::new(), |r| format!(", responds = {r}"));
        let _ = writeln!(
            self.out,
            "#[wire(protocol = {}, topic = \"{topic}\", kind = \"{kind}\"{responds})]",
            self.file.proto.type_name()
        );
        match container {
            0 => self.out.push_str("#[serde(deny_unknown_fields)]\n"),
            1 => self.out.push_str("#[serde(rename_all = \"camelCase\")]\n"),
            _ => {}
        }
        self.struct_body(&name, &fields);
    }

    fn request_response(&mut self, stem: &str, topic: &str, extras_left: &mut usize) {
        let response = format!("{stem}Response");
        self.message(
            stem,
            "Request",
            topic,
            "request",
            Some(&response),
            extras_left,
        );
        if self.rng.chance(30) {
            // A paged response.
            let _ = writeln!(self.out, "/// The `{topic}` response.");
            self.derive_line(true);
            let _ = writeln!(
                self.out,
                "#[wire(protocol = Ctl, topic = \"{topic}\", kind = \"response\")]\npub struct {response} {{\n    pub page: Page<JobId>,\n    #[serde(default)]\n    pub errors: Vec<String>,\n}}\n"
            );
        } else {
            self.message(stem, "Response", topic, "response", None, &mut 0);
        }
    }

    fn event_enum(&mut self, stem: &str, topic: &str) {
        let name = format!("{stem}Event");
        let _ = writeln!(self.out, "/// The `{topic}` event.");
        self.derive_line(true);
        let _ = writeln!(
            self.out,
            "#[wire(protocol = Events, topic = \"{topic}\", kind = \"event\")]\n#[serde(tag = \"event\", rename_all = \"kebab-case\")]\npub enum {name} {{\n    Started {{ id: JobId, at: Timestamp }},\n    Progress {{ id: JobId, #[serde(default)] percent: u8 }},\n    Finished {{ id: JobId, status: i32, #[serde(skip_serializing_if = \"Option::is_none\")] note: Option<String> }},\n    #[serde(other)]\n    Unknown,\n}}\n"
        );
    }

    fn record(&mut self, stem: &str, topic: &str, extras: usize) {
        let context = format!("{stem}Context");
        let _ = writeln!(self.out, "/// What a `{topic}` entry says.");
        self.derive_line(false);
        let _ = writeln!(
            self.out,
            "#[serde(tag = \"name\", content = \"context\", rename_all = \"kebab-case\")]\npub enum {context} {{\n    Submit {{ userid: u32, urgency: common::Urgency }},\n    Depend {{ description: String }},\n    Alloc {{ #[serde(default)] annotations: BTreeMap<String, String> }},\n    Exception {{ r#type: String, severity: u8, note: String }},\n    Clean,\n}}\n"
        );
        let name = format!("{stem}Entry");
        let mut fields = vec![
            FieldSpec {
                attrs: vec![],
                name: "timestamp".into(),
                ty: "Timestamp".into(),
            },
            FieldSpec {
                attrs: vec!["#[serde(flatten)]".into()],
                name: "event".into(),
                ty: context,
            },
        ];
        fields.extend(self.fields(0, true, extras));
        let _ = writeln!(self.out, "/// An entry of the `{topic}` eventlog.");
        self.derive_line(true);
        let _ = writeln!(
            self.out,
            "#[wire(protocol = Log, topic = \"{topic}\", kind = \"record\")]"
        );
        self.struct_body(&name, &fields);
    }
}
