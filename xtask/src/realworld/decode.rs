//! The side-by-side build: one cargo project per crate that links every release under a package name of
//! its own and decodes payloads with each release's real types, in the spec's format (serde_json;
//! ciborium for `cbor`; rmp-serde for `msgpack` and `msgpack-compact`), so a witness is tried with the
//! writer's and the reader's published types.
//!
//! In JSON both releases read the witness's text. In a binary format the writer's type reads the witness
//! (a JSON value of the format's data model: read as JSON, else transcoded by the codec, as
//! tests/formats_truth.rs does) and writes it with the codec; the reader's type reads those bytes.
//!
//! The program it builds depends only on the spec and on which messages each release declares, not on the
//! witnesses (it reads them at run time), so a later run reuses the build.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, anyhow, bail};
use semver::Version;
use serde::{Deserialize, Serialize};

use super::sources;
use super::spec::{Format, Spec};

/// A payload to decode with one release's type for a message.
#[derive(Debug, Clone, Serialize)]
pub struct Request {
    /// The release.
    pub version: String,
    /// The message's path from the crate root (its id in the spec, `endpoint::status::Response`).
    pub message: String,
    /// The payload, as JSON text.
    pub json: String,
    /// In a binary format, the bytes (hex) another release's type wrote, read instead of `json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
}

/// What the release's type made of the payload.
#[derive(Debug, Clone, Deserialize)]
pub struct Decoded {
    /// The value re-serialized by the same type, when it decoded.
    pub value: Option<serde_json::Value>,
    /// The codec's error, when it did not.
    pub error: Option<String>,
    /// In a binary format, the bytes (hex) the type wrote the value as: what the reader is given.
    #[serde(default)]
    pub bytes: Option<String>,
}

/// The side-by-side project of one crate.
pub struct Project {
    dir: PathBuf,
    target_dir: PathBuf,
    name: String,
    offline: bool,
}

impl Project {
    /// Writes the project at `dir` for the releases in `declared` (release → its messages), each release
    /// staged under `pkgs`. Files are rewritten only when their text changes, so cargo reuses the build.
    pub fn write(
        spec: &Spec,
        declared: &BTreeMap<Version, Vec<String>>,
        pkgs: &Path,
        dir: &Path,
        target_dir: &Path,
    ) -> Result<Project> {
        let name = format!("realworld-decode-{}", spec.krate);
        let codec = codec_dependency(spec.format, &crate::workspace_root().join("Cargo.toml"))?;
        fs::create_dir_all(dir.join("src"))?;
        write_if_changed(
            &dir.join("Cargo.toml"),
            &manifest(spec, declared, pkgs, &name, codec.as_deref()),
        )?;
        write_if_changed(&dir.join("src/main.rs"), &main_rs(spec, declared))?;
        Ok(Project {
            dir: dir.to_path_buf(),
            target_dir: target_dir.to_path_buf(),
            name,
            offline: false,
        })
    }

    /// Builds without the network (cargo's `--offline`: every dependency from its local cache), as
    /// the offline tests do.
    #[cfg(test)]
    pub fn offline(self) -> Project {
        Project {
            offline: true,
            ..self
        }
    }

    /// Builds the project (every release compiled side by side).
    pub fn build(&self) -> Result<()> {
        let output = Command::new(sources::cargo())
            .args(["build", "--quiet"])
            .args(self.offline.then_some("--offline"))
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .output()
            .context("running cargo build")?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.trim_start().starts_with("warning"))
                .take(60)
                .collect();
            bail!(
                "building the side-by-side decoder {} failed:\n{}",
                self.dir.display(),
                errors.join("\n")
            );
        }
        Ok(())
    }

    /// Decodes every request with the release's type, in order.
    pub fn decode(&self, requests: &[Request]) -> Result<Vec<Decoded>> {
        let input = self.dir.join("requests.json");
        fs::write(&input, serde_json::to_string(requests)?)?;
        let exe = self.target_dir.join("debug").join(format!(
            "{}{}",
            self.name,
            std::env::consts::EXE_SUFFIX
        ));
        let output = Command::new(&exe)
            .arg(&input)
            .output()
            .with_context(|| format!("running {}", exe.display()))?;
        if !output.status.success() {
            bail!(
                "{} failed: {}",
                exe.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        let decoded: Vec<Decoded> = serde_json::from_slice(&output.stdout)
            .with_context(|| format!("reading the answers of {}", exe.display()))?;
        if decoded.len() != requests.len() {
            return Err(anyhow!(
                "{} answered {} of {} requests",
                exe.display(),
                decoded.len(),
                requests.len()
            ));
        }
        Ok(decoded)
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The dependency line of the format's codec (`ciborium = "0.2.2"`), at the version the workspace's
/// dev-dependencies in `workspace_manifest` use (the truth tests' codecs); `None` for JSON.
pub fn codec_dependency(format: Format, workspace_manifest: &Path) -> Result<Option<String>> {
    let package = match format {
        Format::Json => return Ok(None),
        Format::Cbor => "ciborium",
        Format::Msgpack | Format::MsgpackCompact => "rmp-serde",
    };
    let text = fs::read_to_string(workspace_manifest)
        .with_context(|| format!("reading {}", workspace_manifest.display()))?;
    let manifest: toml::Table = text
        .parse()
        .with_context(|| format!("parsing {}", workspace_manifest.display()))?;
    let version = manifest
        .get("dev-dependencies")
        .and_then(|d| d.get(package))
        .and_then(|d| d.as_str().or_else(|| d.get("version")?.as_str()))
        .ok_or_else(|| {
            anyhow!(
                "{} has no version of {package} in [dev-dependencies] (the codec of `format = \"{}\"`)",
                workspace_manifest.display(),
                format.keyword()
            )
        })?;
    Ok(Some(format!("{package} = \"{version}\"")))
}

/// The project's `Cargo.toml`: every release as a path dependency under its alias, and `codec` (the
/// format's dependency line, see [`codec_dependency`]).
pub fn manifest(
    spec: &Spec,
    declared: &BTreeMap<Version, Vec<String>>,
    pkgs: &Path,
    name: &str,
    codec: Option<&str>,
) -> String {
    let mut out = format!(
        "# Generated by `cargo xtask realworld` from xtask/realworld/{krate}.toml: every release of {krate}\n\
         # linked side by side, each under a package name of its own.\n\
         [package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [workspace]\n\n[dependencies]\nserde = \"1\"\nserde_json = \"1\"\n{codec}",
        krate = spec.krate,
        codec = codec.map_or_else(String::new, |line| format!("{line}\n"))
    );
    let features = if spec.features.is_empty() {
        String::new()
    } else {
        format!(", features = {:?}", spec.features)
    };
    for version in declared.keys() {
        let path = pkgs.join(version.to_string());
        let _ = writeln!(
            out,
            "{} = {{ package = \"{}\", path = {:?}{features} }}",
            Spec::alias_crate(version),
            spec.alias_package(version),
            path.display().to_string()
        );
    }
    out
}

/// The project's `main.rs`: reads the requests (a JSON array) from the file named by its argument and
/// prints one answer per request, decoding with the spec's format (see [`codec_rs`]).
pub fn main_rs(spec: &Spec, declared: &BTreeMap<Version, Vec<String>>) -> String {
    let mut arms = String::new();
    for (version, messages) in declared {
        for name in messages {
            let Some(message) = spec.message(name) else {
                continue;
            };
            let _ = writeln!(
                arms,
                "        ({:?}, {:?}) => roundtrip::<{}::{}>(json, bytes),",
                version.to_string(),
                name,
                Spec::alias_crate(version),
                message.rust_path()
            );
        }
    }
    format!(
        r#"//! Generated by `cargo xtask realworld`: decodes payloads with the published types of {krate}
//! ({format}).
use serde_json::{{json, Value}};
{codec}
fn decode(version: &str, message: &str, json: &str, bytes: Option<&str>) -> Value {{
    match (version, message) {{
{arms}        _ => json!({{ "error": format!("{{version}} has no message {{message}}") }}),
    }}
}}

fn main() {{
    let path = std::env::args().nth(1).expect("usage: decode REQUESTS.json");
    let text = std::fs::read_to_string(&path).expect("reading the requests");
    let requests: Vec<Value> = serde_json::from_str(&text).expect("the requests are a JSON array");
    let answers: Vec<Value> = requests
        .iter()
        .map(|r| {{
            let field = |key: &str| r[key].as_str().unwrap_or_default().to_owned();
            decode(&field("version"), &field("message"), &field("json"), r["bytes"].as_str())
        }})
        .collect();
    println!("{{}}", serde_json::to_string(&answers).expect("answers serialize"));
}}
"#,
        krate = spec.krate,
        format = spec.format.keyword(),
        codec = codec_rs(spec.format)
    )
}

/// The generated program's `roundtrip::<T>(json, bytes)` and its helpers for `format`. In JSON it reads
/// the witness's text and writes the value back with serde_json (`bytes` is never sent). In a binary
/// format it reads `bytes` (hex) with the codec when given, else the witness as
/// tests/formats_truth.rs's `codec_witness_value` does (as JSON, else transcoded by the codec); it
/// answers the value as the witness shows it (tests/formats_truth.rs's `shown`) and the bytes the codec
/// writes it as.
pub fn codec_rs(format: Format) -> String {
    let (encode, decode) = match format {
        Format::Json => return JSON_ROUNDTRIP.to_owned(),
        Format::Cbor => (
            "let mut bytes = Vec::new();\n    ciborium::into_writer(value, &mut bytes).map(|()| bytes).map_err(|e| e.to_string())",
            "ciborium::from_reader(bytes).map_err(|e| e.to_string())",
        ),
        Format::Msgpack => (
            "rmp_serde::to_vec_named(value).map_err(|e| e.to_string())",
            "rmp_serde::from_slice(bytes).map_err(|e| e.to_string())",
        ),
        Format::MsgpackCompact => (
            "rmp_serde::to_vec(value).map_err(|e| e.to_string())",
            "rmp_serde::from_slice(bytes).map_err(|e| e.to_string())",
        ),
    };
    let shown = if format == Format::MsgpackCompact {
        "encode(value).ok().and_then(|bytes| decode_bytes::<Shown>(&bytes).ok()).map_or_else(|| serde_json::to_value(value), |s| Ok(s.0))"
    } else {
        "serde_json::to_value(value)"
    };
    format!(
        r#"
const FORMAT: &str = "{keyword}";

fn encode<T: serde::Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {{
    {encode}
}}

fn decode_bytes<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {{
    {decode}
}}
{BINARY_ROUNDTRIP}{SHOWN_VALUE}"#,
        keyword = format.keyword(),
    )
    .replace("SHOWN", shown)
}

/// The JSON program's `roundtrip` (see [`codec_rs`]).
const JSON_ROUNDTRIP: &str = r#"
fn roundtrip<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str, _bytes: Option<&str>) -> Value {
    match serde_json::from_str::<T>(json) {
        Ok(value) => match serde_json::to_value(&value) {
            Ok(value) => json!({ "value": value }),
            Err(e) => json!({ "error": format!("decoded, but re-serializing failed: {e}") }),
        },
        Err(e) => json!({ "error": e.to_string() }),
    }
}
"#;

/// `Shown`: a value of the format's data model read back as JSON, byte strings as arrays of numbers
/// (serde_json's `Value` rejects them), map keys as strings. msgpack-compact's rendering of a value: the
/// arrays its structs are written as.
const SHOWN_VALUE: &str = r#"
struct Shown(Value);

impl<'de> serde::Deserialize<'de> for Shown {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShownVisitor).map(Shown)
    }
}

struct ShownVisitor;

impl<'de> serde::de::Visitor<'de> for ShownVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(v.iter().map(|b| Value::from(*b)).collect())
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Shown(v)) = a.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some((Shown(k), Shown(v))) = a.next_entry()? {
            let key = match k {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}
"#;

/// A binary format's `roundtrip` (see [`codec_rs`]), after its `encode`, `decode_bytes` and `FORMAT`;
/// `SHOWN` is replaced by the format's rendering of a value.
const BINARY_ROUNDTRIP: &str = r#"
/// The value as a witness shows it: as JSON renders it, or in msgpack-compact as the arrays it is written as.
fn shown<T: serde::Serialize>(value: &T) -> Result<Value, serde_json::Error> {
    SHOWN
}

/// The writer's value of a witness: read as JSON, else transcoded by the codec.
fn witness_value<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    let witness: Value = serde_json::from_str(json).map_err(|e| format!("the witness is no JSON: {e}"))?;
    serde_json::from_value::<T>(witness.clone()).or_else(|by_json| {
        encode(&witness)
            .and_then(|bytes| decode_bytes::<T>(&bytes))
            .map_err(|by_codec| format!("{by_json}; transcoded by {FORMAT}: {by_codec}"))
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("`{text}` is no hex"))
}

fn roundtrip<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str, bytes: Option<&str>) -> Value {
    let read = match bytes {
        Some(text) => unhex(text).and_then(|bytes| decode_bytes::<T>(&bytes)),
        None => witness_value::<T>(json),
    };
    let value = match read {
        Ok(value) => value,
        Err(e) => return json!({ "error": e }),
    };
    match (encode(&value), shown(&value)) {
        (Ok(bytes), Ok(shown)) => json!({ "value": shown, "bytes": hex(&bytes) }),
        (Err(e), _) => json!({ "error": format!("decoded, but re-encoding failed: {e}") }),
        (_, Err(e)) => json!({ "error": format!("decoded, but rendering it as JSON failed: {e}") }),
    }
}
"#;
