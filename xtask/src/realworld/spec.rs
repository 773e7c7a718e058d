//! The per-crate specs of `cargo xtask realworld` (`xtask/realworld/<crate>.toml`) and the injection of
//! wirecheck's annotations into a published release's source.
//!
//! A spec names the crate, the releases replayed and the messages: which types go over the wire, with
//! their kind and topic. The injection writes, in front of each message's declaration,
//! `#[derive(::wirecheck::Message)] #[wire(...)]`, and at the end of the crate root a protocol marker whose
//! version is the release's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail, ensure};
use semver::{Version, VersionReq};
use serde::Deserialize;

/// The name of the protocol marker struct injected at the end of the crate root.
pub const MARKER: &str = "WirecheckReplayProtocol";

/// One crate's spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The package name on crates.io (`lsp-types`).
    #[serde(rename = "crate")]
    pub krate: String,
    /// The protocol name declared by the injected marker.
    pub protocol: String,
    /// What the crate is and why its history is replayed (printed as the crate's heading).
    pub about: String,
    /// The releases, oldest first (each consecutive pair is checked).
    pub versions: Vec<Version>,
    /// Features the side-by-side build enables (default features stay on).
    #[serde(default)]
    pub features: Vec<String>,
    /// The format the crate's messages are sent in: the injected protocol declares it, and the
    /// side-by-side build decodes every witness with its codec (default: `json`).
    #[serde(default)]
    pub format: Format,
    /// The messages.
    #[serde(rename = "message")]
    pub messages: Vec<MessageSpec>,
    /// Packages of the same project released in lockstep with the crate (same version every release, as
    /// its workspace builds them together). In the side-by-side build each release links its siblings at
    /// its own version, staged under aliases like the release, instead of the newest of their semver
    /// range that cargo would otherwise pick for every release of one range.
    #[serde(default)]
    pub siblings: Vec<String>,
    /// Leave the package's `[[bin]]` targets out of the replayed repository's manifest. A workaround for a
    /// checker defect, not a declaration: a binary whose crate name is the library's and whose root file
    /// sorts before the library's hides the library's protocols (docs/realworld.md, tendermint-rpc).
    #[serde(default)]
    pub without_bins: bool,
    /// Wire shapes declared the way a user declares them, written to the repository's `wirecheck.toml`
    /// as its `[shapes]` (a type's full path → the Rust type it is on the wire). Only for types whose
    /// hand-written impls are exactly that shape; docs/realworld.md says which and why.
    #[serde(default)]
    pub shapes: BTreeMap<String, String>,
}

/// A wire format a spec's messages are sent in, as the contract's `format` keyword names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum Format {
    /// serde_json (the default).
    #[default]
    #[serde(rename = "json")]
    Json,
    /// CBOR, through ciborium (`into_writer` / `from_reader`).
    #[serde(rename = "cbor")]
    Cbor,
    /// MessagePack with structs as maps: rmp-serde's `to_vec_named`, read with `from_slice`.
    #[serde(rename = "msgpack")]
    Msgpack,
    /// MessagePack with structs as arrays: rmp-serde's default `to_vec`, read with `from_slice`.
    #[serde(rename = "msgpack-compact")]
    MsgpackCompact,
}

impl Format {
    /// The contract's keyword (`#[wire(format = "...")]`).
    pub fn keyword(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Cbor => "cbor",
            Format::Msgpack => "msgpack",
            Format::MsgpackCompact => "msgpack-compact",
        }
    }
}

/// A message: a type of the crate that goes over the wire.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageSpec {
    /// The type's name as declared (`InitializeParams`).
    #[serde(rename = "type")]
    pub name: String,
    /// The type as the side-by-side build names it from the crate root, with lifetimes or generics where
    /// it has them (`protocol::v7::Event<'static>`); default: `name`.
    pub path: Option<String>,
    /// The file declaring it, relative to the package (default: the one file under `src/` that does).
    pub file: Option<String>,
    /// `request`, `response`, `event` or `record`.
    pub kind: String,
    /// The topic.
    pub topic: String,
    /// The `type` of the message that answers it, if any.
    pub responds: Option<String>,
    /// The releases that declare it here (`"<0.30.0"`; default: every release that has the declaration).
    /// A type a release moved to another module is listed once per place, each with its releases, none
    /// in two (a finding names a message by its type name and topic).
    pub releases: Option<VersionReq>,
}

impl MessageSpec {
    /// The type's path from the crate root, as the side-by-side build writes it.
    pub fn rust_path(&self) -> &str {
        self.path.as_deref().unwrap_or(&self.name)
    }

    /// The path from the crate root without generics (`protocol::v7::Event`). It identifies the message
    /// in the spec: two messages may share a type name (`endpoint::status::Response` and
    /// `endpoint::health::Response`), never a path.
    pub fn plain_path(&self) -> &str {
        let path = self.rust_path();
        path.split('<').next().unwrap_or(path).trim()
    }

    /// Whether `version` may declare this message here (its `releases`).
    pub fn in_release(&self, version: &Version) -> bool {
        self.releases.as_ref().is_none_or(|r| r.matches(version))
    }

    /// Whether `reference` (a `responds` value) names this message: its type name or its path.
    fn is_named(&self, reference: &str) -> bool {
        self.name == reference || self.plain_path() == reference
    }
}

impl Spec {
    /// Parses and validates a spec.
    pub fn parse(text: &str) -> Result<Spec> {
        let spec: Spec = toml::from_str(text)?;
        spec.validate()?;
        Ok(spec)
    }

    /// Reads the spec at `path`.
    pub fn load(path: &Path) -> Result<Spec> {
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Spec::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    fn validate(&self) -> Result<()> {
        ensure!(
            self.versions.len() >= 2,
            "{}: a replay needs at least two versions",
            self.krate
        );
        ensure!(
            self.versions.windows(2).all(|w| w[0] < w[1]),
            "{}: the versions must be in increasing order, without duplicates",
            self.krate
        );
        ensure!(!self.messages.is_empty(), "{}: no message", self.krate);
        for (i, m) in self.messages.iter().enumerate() {
            ensure!(
                is_ident(&m.name),
                "{}: `{}` is not a type name",
                self.krate,
                m.name
            );
            ensure!(
                self.messages[..i]
                    .iter()
                    .all(|o| o.plain_path() != m.plain_path()),
                "{}: message {} is listed twice",
                self.krate,
                m.plain_path()
            );
            let both = |o: &MessageSpec| {
                self.versions
                    .iter()
                    .find(|v| o.in_release(v) && m.in_release(v))
            };
            if let Some(o) = self.messages[..i]
                .iter()
                .find(|o| o.name == m.name && o.topic == m.topic && both(o).is_some())
            {
                bail!(
                    "{}: two messages named {} have the topic `{}` in {}: a finding names a message by \
                     its type name and topic (a type moved to another module is listed once per place, \
                     each with the `releases` that declare it there, none in two)",
                    self.krate,
                    m.name,
                    m.topic,
                    both(o).map(Version::to_string).unwrap_or_default()
                );
            }
            ensure!(
                ["request", "response", "event", "record"].contains(&m.kind.as_str()),
                "{}: {}: kind `{}` is none of request, response, event, record",
                self.krate,
                m.name,
                m.kind
            );
            if let Some(responds) = &m.responds {
                let answers = self
                    .messages
                    .iter()
                    .filter(|o| o.is_named(responds))
                    .count();
                ensure!(
                    answers == 1,
                    "{}: {} responds with {responds}, which names {answers} messages of the spec \
                     (name the one by its `path`)",
                    self.krate,
                    m.plain_path()
                );
            }
        }
        Ok(())
    }

    /// The text of the `wirecheck.toml` the repository holds: the spec's `[shapes]`, or `None` when it
    /// declares none.
    pub fn wirecheck_toml(&self) -> Option<String> {
        if self.shapes.is_empty() {
            return None;
        }
        let mut text = String::from(
            "# Written by `cargo xtask realworld` from the spec's [shapes] (docs/realworld.md).\n[shapes]\n",
        );
        for (path, shape) in &self.shapes {
            let _ = writeln!(text, "{} = {}", toml_string(path), toml_string(shape));
        }
        Some(text)
    }

    /// The message whose path (see [`MessageSpec::plain_path`]) is `id`.
    pub fn message(&self, id: &str) -> Option<&MessageSpec> {
        self.messages.iter().find(|m| m.plain_path() == id)
    }

    /// Every place of the message a finding names, by its type name and topic: one, or one per module a
    /// release moved the type to.
    pub fn messages_of(&self, name: &str, topic: &str) -> Vec<&MessageSpec> {
        self.messages
            .iter()
            .filter(|m| m.name == name && m.topic == topic)
            .collect()
    }

    /// The message a `responds` value names (its type name or its path).
    fn answer(&self, reference: &str) -> Option<&MessageSpec> {
        self.messages.iter().find(|m| m.is_named(reference))
    }

    /// The package name each version gets in the side-by-side build (`lsp-types-0-94-1`).
    pub fn alias_package(&self, version: &Version) -> String {
        Spec::alias_of(&self.krate, version)
    }

    /// The package name `package` `version` gets in the side-by-side build (`tendermint-0-40-1`).
    pub fn alias_of(package: &str, version: &Version) -> String {
        format!("{package}-{}", version_slug(version))
    }

    /// The name the side-by-side build uses for a version's library (`v0_94_1`).
    pub fn alias_crate(version: &Version) -> String {
        format!("v{}", version_slug(version).replace('-', "_"))
    }
}

/// `0.94.1` as `0-94-1` (pre-release and build metadata kept, made name-safe).
fn version_slug(version: &Version) -> String {
    version
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Where a message type is declared in a package: the file (relative to the package) and the byte
/// offset of the line of its `struct`/`enum` keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The file, relative to the package root, with `/` separators.
    pub file: String,
    /// The byte offset of the start of the declaring line.
    pub line_start: usize,
}

/// The result of injecting the annotations into one release: the files rewritten (relative path →
/// new text) and the messages the release does not declare.
#[derive(Debug, Default)]
pub struct Injection {
    /// Rewritten files, by path relative to the package.
    pub files: BTreeMap<String, String>,
    /// The messages injected (by [`MessageSpec::plain_path`]).
    pub injected: Vec<String>,
    /// The messages the release does not declare (left out of its protocol), by path.
    pub missing: Vec<String>,
}

/// Finds the line declaring `pub struct NAME` or `pub enum NAME` in `text` (outside comments), returning
/// the byte offsets of the starts of the matching lines.
pub fn find_declarations(text: &str, name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if declares(line, name) {
            out.push(offset);
        }
        offset += line.len();
    }
    out
}

/// Whether `line` declares the struct or enum `name` (`pub struct Name<'a> {`, `pub(crate) enum Name`).
fn declares(line: &str, name: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    let mut words = code.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    if !first.starts_with("pub") {
        return false;
    }
    let Some(keyword) = words.next() else {
        return false;
    };
    if keyword != "struct" && keyword != "enum" {
        return false;
    }
    let Some(rest) = words.next() else {
        return false;
    };
    let ident: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    ident == name
}

/// The `.rs` files under `dir/src`, relative to `dir`, sorted.
pub fn rust_files(dir: &Path) -> Result<Vec<String>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
        for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                out.push(
                    relative
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/"),
                );
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &dir.join("src"), &mut out)?;
    out.sort();
    Ok(out)
}

/// The attribute lines injected in front of a message's declaration, indented like it.
pub fn message_attrs(spec: &Spec, message: &MessageSpec, indent: &str) -> String {
    let mut wire = format!(
        "protocol = crate::{MARKER}, topic = {:?}, kind = {:?}",
        message.topic, message.kind
    );
    if let Some(responds) = message.responds.as_deref().and_then(|r| spec.answer(r)) {
        let _ = write!(wire, ", responds = crate::{}", responds.plain_path());
    }
    format!("{indent}#[derive(::wirecheck::Message)]\n{indent}#[wire({wire})]\n")
}

/// The protocol marker appended to the crate root.
pub fn protocol_marker(spec: &Spec, version: &Version) -> String {
    let format = match spec.format {
        Format::Json => String::new(),
        other => format!(", format = {:?}", other.keyword()),
    };
    format!(
        "\n/// Injected by `cargo xtask realworld`: the protocol the replay checks.\n\
         #[derive(::wirecheck::Protocol)]\n\
         #[wire(name = {:?}, version = \"{version}\"{format})]\n\
         pub struct {MARKER};\n",
        spec.protocol
    )
}

/// Plans the injection into the package at `dir` (its `src/` as published): reads the files, finds each
/// message's declaration and returns the rewritten texts. A message declared more than once (in files the
/// spec does not choose between) is an error; one not declared is listed as missing. `root_file` is the
/// crate root relative to `dir` (`src/lib.rs`).
pub fn inject(spec: &Spec, version: &Version, dir: &Path, root_file: &str) -> Result<Injection> {
    let files = rust_files(dir)?;
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut read = |file: &str| -> Result<String> {
        if let Some(text) = texts.get(file) {
            return Ok(text.clone());
        }
        let path: PathBuf = dir.join(file);
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        texts.insert(file.to_owned(), text.clone());
        Ok(text)
    };
    let mut sites: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    let mut injection = Injection::default();
    for message in spec.messages.iter().filter(|m| m.in_release(version)) {
        let candidates: Vec<&String> = match &message.file {
            Some(file) => files.iter().filter(|f| *f == file).collect(),
            None => files.iter().collect(),
        };
        let mut found = Vec::new();
        for file in candidates {
            let text = read(file)?;
            for offset in find_declarations(&text, &message.name) {
                found.push(Site {
                    file: file.clone(),
                    line_start: offset,
                });
            }
        }
        match found.as_slice() {
            [] => injection.missing.push(message.plain_path().to_owned()),
            [site] => {
                let text = read(&site.file)?;
                let indent: String = text[site.line_start..]
                    .chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect();
                sites
                    .entry(site.file.clone())
                    .or_default()
                    .push((site.line_start, message_attrs(spec, message, &indent)));
                injection.injected.push(message.plain_path().to_owned());
            }
            many => bail!(
                "{} {version}: {} is declared {} times ({}); name the file with `file = ...` in the spec",
                spec.krate,
                message.name,
                many.len(),
                many.iter()
                    .map(|s| s.file.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    for (file, mut inserts) in sites {
        let mut text = read(&file)?;
        inserts.sort_by_key(|insert| std::cmp::Reverse(insert.0));
        for (offset, attrs) in inserts {
            text.insert_str(offset, &attrs);
        }
        injection.files.insert(file, text);
    }
    let mut root = match injection.files.remove(root_file) {
        Some(text) => text,
        None => read(root_file)?,
    };
    root.push_str(&protocol_marker(spec, version));
    injection.files.insert(root_file.to_owned(), root);
    Ok(injection)
}
