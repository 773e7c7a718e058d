//! The build wirecheck checks: which cargo features each workspace crate is built with (`cfg` evaluates
//! `#[cfg(...)]` and `#[cfg_attr(...)]` with them).
//!
//! Features follow cargo: a crate's `default` features (unless `--no-default-features`), those named with
//! `--features` (`name` for every checked package that has it, `package/name` for one), or all of them
//! with `--all-features`; then every feature an enabled one enables, and the implicit feature of an
//! optional dependency (unless the manifest names it with `dep:`). The manifest is the package's
//! `Cargo.toml` at the revision read, so a feature added to `default` in a release is on in that release.
//! A dependency's features (what its dependents ask for, in [`dependency_features`]) are expanded by the
//! same resolver.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use super::{CrateRoot, ExternalCrate, ExtractError, FileReader};

/// The features a check asks for, as cargo's flags name them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FeatureRequest {
    /// `--features`: `name` (every checked package that has it) or `package/name`.
    pub features: Vec<String>,
    /// `--all-features`.
    pub all_features: bool,
    /// `--no-default-features`.
    pub no_default_features: bool,
}

impl FeatureRequest {
    /// A short, stable text of the request (part of the name of what wirecheck's store keeps);
    /// empty for cargo's defaults.
    pub fn key(&self) -> String {
        let mut features = self.features.clone();
        features.sort();
        features.dedup();
        let mut key = features.join(",");
        if self.all_features {
            key.push_str(";all");
        }
        if self.no_default_features {
            key.push_str(";no-default");
        }
        key
    }
}

/// The features of one crate in the build checked.
#[derive(Debug, Clone, Default)]
struct Enabled {
    features: BTreeSet<String>,
}

/// The features of every workspace crate extracted (a dependency's come with its mount).
#[derive(Debug, Clone, Default)]
pub(super) struct CrateFeatures {
    /// By crate name (`flux_protocols`); a crate without a manifest has no feature on.
    crates: FxHashMap<String, Enabled>,
}

impl CrateFeatures {
    /// Reads each crate's manifest at the revision `reader` reads (the nearest `Cargo.toml` above its
    /// root file) and resolves its features for `request`.
    pub(super) fn read(
        crates: &[CrateRoot],
        reader: &dyn FileReader,
        request: &FeatureRequest,
    ) -> Result<CrateFeatures, ExtractError> {
        let mut cfg = CrateFeatures::default();
        for krate in crates {
            let manifest = nearest_manifest(&krate.root_file, reader)?;
            let enabled = match manifest {
                Some((path, text)) => {
                    let table: toml::Table =
                        toml::from_str(&text).map_err(|error| ExtractError::Read {
                            file: path.clone(),
                            message: format!("not a valid Cargo.toml: {error}"),
                        })?;
                    enabled_features(&table, request)
                }
                None => enabled_features(&toml::Table::new(), request),
            };
            cfg.crates.insert(krate.name.clone(), enabled);
        }
        Ok(cfg)
    }

    /// The features `krate` is built with (none for a crate without a manifest, or not asked for).
    pub(super) fn of(&self, krate: &str) -> &BTreeSet<String> {
        static NONE: BTreeSet<String> = BTreeSet::new();
        self.crates
            .get(krate)
            .map_or(&NONE, |enabled| &enabled.features)
    }
}

/// The nearest `Cargo.toml` above a crate's root file (its package's manifest), with its path.
fn nearest_manifest(
    root_file: &str,
    reader: &dyn FileReader,
) -> Result<Option<(String, String)>, ExtractError> {
    let mut dir = root_file;
    while let Some(cut) = dir.rfind('/') {
        dir = &dir[..cut];
        if let Some(found) = read_manifest(&format!("{dir}/Cargo.toml"), reader)? {
            return Ok(Some(found));
        }
    }
    read_manifest("Cargo.toml", reader)
}

fn read_manifest(
    path: &str,
    reader: &dyn FileReader,
) -> Result<Option<(String, String)>, ExtractError> {
    let Some(bytes) = reader.read(path)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(|text| Some((path.to_owned(), text)))
        .map_err(|error| ExtractError::NotUtf8 {
            file: path.to_owned(),
            offset: error.utf8_error().valid_up_to(),
        })
}

/// The features a manifest's package has on for `request` (cargo's flags), as cargo resolves them.
fn enabled_features(manifest: &toml::Table, request: &FeatureRequest) -> Enabled {
    let table = feature_table(manifest);
    let package = manifest
        .get("package")
        .and_then(|package| package.get("name"))
        .and_then(toml::Value::as_str)
        .unwrap_or_default();
    let mut wanted: Vec<String> = Vec::new();
    if request.all_features {
        wanted.extend(table.keys().cloned());
    }
    if !request.no_default_features {
        wanted.push("default".to_owned());
    }
    for feature in &request.features {
        match feature.split_once('/') {
            Some((owner, name)) if owner == package => wanted.push(name.to_owned()),
            Some(_) => {}
            None => wanted.push(feature.clone()),
        }
    }
    Enabled {
        features: expand(&table, wanted),
    }
}

/// The features a dependency is built with, its manifest being `manifest`: those its dependents ask for
/// (`krate.requested_features`) and `default` unless every dependent turns it off, expanded as cargo's
/// feature resolver does (see `expand`).
pub fn dependency_features(manifest: &toml::Table, krate: &ExternalCrate) -> BTreeSet<String> {
    let mut wanted: Vec<String> = krate.requested_features.iter().cloned().collect();
    if krate.default_features {
        wanted.push("default".to_owned());
    }
    expand(&feature_table(manifest), wanted)
}

/// The features `wanted` turns on in a package whose features are `table` ([`feature_table`]), as
/// cargo's feature resolver decides: a name is a feature only if the package has it (declared, or an
/// optional dependency's implicit one), and it turns on what it lists. Of those values, `dep:x` turns on
/// the dependency `x` and no feature; `x/y` the dependency `x` (with its feature `y`) and the feature
/// `x` if the package has one; `x?/y` nothing of this package.
fn expand(table: &BTreeMap<String, Vec<String>>, mut wanted: Vec<String>) -> BTreeSet<String> {
    let mut features = BTreeSet::new();
    while let Some(feature) = wanted.pop() {
        if !table.contains_key(&feature) || !features.insert(feature.clone()) {
            continue;
        }
        for value in &table[&feature] {
            if value.starts_with("dep:") || value.contains("?/") {
                continue;
            }
            let name = value.split_once('/').map_or(value.as_str(), |(dep, _)| dep);
            wanted.push(name.to_owned());
        }
    }
    features
}

/// A package's features, each with what it enables, including the implicit feature of every optional
/// dependency that no feature names with `dep:`.
fn feature_table(manifest: &toml::Table) -> BTreeMap<String, Vec<String>> {
    let mut table: BTreeMap<String, Vec<String>> = manifest
        .get("features")
        .and_then(toml::Value::as_table)
        .map(|features| {
            features
                .iter()
                .map(|(name, values)| {
                    let values = values
                        .as_array()
                        .map(|values| {
                            values
                                .iter()
                                .filter_map(|v| v.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    (name.clone(), values)
                })
                .collect()
        })
        .unwrap_or_default();
    let named_by_dep: BTreeSet<String> = table
        .values()
        .flatten()
        .filter_map(|value| value.strip_prefix("dep:").map(str::to_owned))
        .collect();
    for (name, spec) in dependencies(manifest) {
        let optional = spec
            .get("optional")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false);
        if optional && !named_by_dep.contains(name) {
            table.entry(name.clone()).or_default();
        }
    }
    table
}

/// Every dependency a manifest declares that can be optional: `[dependencies]`, `[build-dependencies]`
/// and both under each `[target.'...']` (development dependencies cannot be optional).
fn dependencies(manifest: &toml::Table) -> impl Iterator<Item = (&String, &toml::Value)> {
    let targets = manifest
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|targets| targets.values().filter_map(toml::Value::as_table));
    std::iter::once(manifest)
        .chain(targets)
        .flat_map(|table| {
            ["dependencies", "build-dependencies"]
                .into_iter()
                .filter_map(|section| table.get(section).and_then(toml::Value::as_table))
        })
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enabled(manifest: &str, request: &FeatureRequest) -> Vec<String> {
        let table: toml::Table = toml::from_str(manifest).unwrap();
        enabled_features(&table, request)
            .features
            .into_iter()
            .collect()
    }

    const MANIFEST: &str = r#"
[package]
name = "flux-protocols"
[features]
default = ["std"]
std = []
extra = ["tracing/log", "metrics?/x", "dep:hidden"]
uuid = ["dep:uuid"]
[dependencies]
tracing = { version = "0.1", optional = true }
metrics = { version = "0.1", optional = true }
hidden = { version = "0.1", optional = true }
uuid = { version = "1", optional = true }
"#;

    #[test]
    fn features_resolve_as_cargo_does() {
        let default = FeatureRequest::default();
        assert_eq!(enabled(MANIFEST, &default), ["default", "std"]);
        let no_default = FeatureRequest {
            no_default_features: true,
            features: vec!["extra".into(), "other-package/std".into()],
            ..FeatureRequest::default()
        };
        assert_eq!(enabled(MANIFEST, &no_default), ["extra", "tracing"]);
        let by_package = FeatureRequest {
            no_default_features: true,
            features: vec!["flux-protocols/std".into()],
            ..FeatureRequest::default()
        };
        assert_eq!(enabled(MANIFEST, &by_package), ["std"]);
        let all = FeatureRequest {
            all_features: true,
            ..FeatureRequest::default()
        };
        // `hidden` and `uuid` are named with `dep:`: no implicit feature.
        assert_eq!(
            enabled(MANIFEST, &all),
            ["default", "extra", "metrics", "std", "tracing", "uuid"]
        );
    }

    /// A dependency as its dependents ask for it.
    fn dependency(requested: &[&str], default_features: bool) -> ExternalCrate {
        ExternalCrate {
            package: "dep".into(),
            version: "1.0.0".into(),
            source: String::new(),
            path: None,
            requested_features: requested.iter().map(|name| (*name).to_owned()).collect(),
            default_features,
            deps: std::collections::BTreeMap::new(),
        }
    }

    fn dependency_enabled(manifest: &str, krate: &ExternalCrate) -> Vec<String> {
        let table: toml::Table = toml::from_str(manifest).unwrap();
        dependency_features(&table, krate).into_iter().collect()
    }

    /// A dependency's manifest; `HIDES` is where a feature may name `hidden` with `dep:`.
    const DEPENDENCY: &str = r#"
[package]
name = "dep"
[features]
derive = ["serde/derive", "hidden/x", "std"]
std = []
HIDES
[dependencies]
serde = { version = "1", optional = true }
hidden = { version = "0.1", optional = true }
[target.'cfg(unix)'.dependencies]
nix = { version = "0.29", optional = true }
[build-dependencies]
cc = { version = "1", optional = true }
[dev-dependencies]
tokio = "1"
"#;

    /// What a dependency is built with follows cargo's feature resolver, as the workspace's crates do:
    /// an undeclared name, a `dep:`-only dependency and an undeclared `default` are no features; an
    /// optional dependency (target-specific and build ones too) not named with `dep:` has its implicit
    /// feature, which `x/y` turns on.
    #[test]
    fn dependency_features_resolve_as_cargo_does() {
        let hides = DEPENDENCY.replace("HIDES", "hides = [\"dep:hidden\"]");
        let derive = dependency(&["derive", "undeclared", "hidden"], true);
        // `hidden` is named with `dep:`: no feature `hidden`, and `hidden/x` turns on the dependency
        // only. `default` is not declared: nothing comes of it.
        assert_eq!(
            dependency_enabled(&hides, &derive),
            ["derive", "serde", "std"]
        );
        let implicit = dependency(&["nix", "cc", "tokio"], false);
        assert_eq!(dependency_enabled(&hides, &implicit), ["cc", "nix"]);
        // Without the `dep:` reference, `hidden` has its implicit feature.
        let plain = DEPENDENCY.replace("HIDES", "");
        assert_eq!(
            dependency_enabled(&plain, &derive),
            ["derive", "hidden", "serde", "std"]
        );
    }
}
