#![cfg(feature = "checker")]
//! End-to-end fixtures: `tests/fixtures/<rule>[__<case>]/{old,new}/lib.rs` are real Rust sources run
//! through extraction and the engine. Each fixture must report its rule at the expected level (or
//! nothing, for `none__*`), find nothing against itself, and match the insta snapshot of its findings
//! kept next to it (`findings.snap`).

use std::path::{Path, PathBuf};

use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Finding, Level};
use wirecheck::model::Snapshot;
use wirecheck::rules::Evidence;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn extract(dir: &Path, side: &str) -> Snapshot {
    let file = dir.join(side).join("lib.rs");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => panic!("{}: {e}", file.display()),
    };
    // A fixture side may have its package's Cargo.toml: its features decide its `#[cfg]`s.
    let manifest = std::fs::read_to_string(dir.join(side).join("Cargo.toml")).ok();
    let mut files = vec![("src/lib.rs", text.as_str())];
    if let Some(manifest) = &manifest {
        files.push(("Cargo.toml", manifest.as_str()));
    }
    match snapshot_from_sources("fixture", &files) {
        Ok(s) => s,
        Err(e) => panic!("{}: {e}", file.display()),
    }
}

fn compare(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    let mut names: Vec<&str> = old
        .protocols
        .iter()
        .chain(&new.protocols)
        .map(|p| p.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .flat_map(|p| compare_protocol(old, new, p, "v0.1.0", Scope::Full))
        .collect()
}

fn run(name: &str, level: Level) {
    let dir = fixtures_dir().join(name);
    let (old, new) = (extract(&dir, "old"), extract(&dir, "new"));
    // A fixture whose source wirecheck cannot fully see (a hand-written impl) keeps its notes in
    // `notes.snap`; every other fixture has none.
    let notes: Vec<(&str, &wirecheck::model::ExtractNote)> = old
        .notes
        .iter()
        .map(|n| ("old", n))
        .chain(new.notes.iter().map(|n| ("new", n)))
        .collect();
    if !notes.is_empty() || dir.join("notes.snap").exists() {
        insta::with_settings!({
            snapshot_path => &dir,
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!("notes", notes);
        });
    }
    assert_eq!(compare(&old, &old), vec![], "{name}: old against itself");
    assert_eq!(compare(&new, &new), vec![], "{name}: new against itself");
    let findings = compare(&old, &new);
    let rule = name.split("__").next().unwrap_or(name);
    if level == Level::None {
        assert_eq!(findings, vec![], "{name}: a wire-identical change");
    } else {
        assert!(
            findings
                .iter()
                .any(|f| f.rule.as_str() == rule && f.level == level),
            "{name}: no {level} {rule} in {findings:#?}"
        );
        assert!(
            findings.iter().all(|f| f.level != Level::Major
                || f.witness.is_some()
                // The contract's exception: what a type or function writes is unknown, and the
                // finding says so rather than inventing a value.
                || f.message.contains("(no witness: ")
                || matches!(
                    f.rule.rule().evidence,
                    Evidence::Opaque | Evidence::NoPayload
                )),
            "{name}: a major finding without a witness"
        );
    }
    insta::with_settings!({
        snapshot_path => dir,
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_json_snapshot!("findings", findings);
    });
}

macro_rules! fixtures {
    ($($name:ident: $level:ident,)+) => {
        $(
            #[test]
            #[allow(non_snake_case)]
            fn $name() {
                run(stringify!($name), Level::$level);
            }
        )+

        #[test]
        fn every_fixture_directory_is_listed() {
            let listed = [$(stringify!($name)),+];
            let mut found = Vec::new();
            if let Ok(entries) = std::fs::read_dir(fixtures_dir()) {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        found.push(e.file_name().to_string_lossy().into_owned());
                    }
                }
            }
            found.sort();
            let mut listed: Vec<String> = listed.iter().map(|s| (*s).to_owned()).collect();
            listed.sort();
            assert_eq!(found, listed);
        }
    };
}

fixtures! {
    array_length_changed: Major,
    array_length_changed__named_const: Major,
    custom_serde_changed: Major,
    custom_serde_changed__string_to_try_from: Major,
    deny_unknown_fields_added: Major,
    enum_repr_changed: Major,
    enum_repr_changed__externally_tagged_to_serde_repr: Major,
    external_type_changed: Major,
    external_type_changed__value_written: Major,
    external_type_changed__hand_written_impl: Major,
    external_type_changed__macro_type_of_the_same_name: Major,
    field_added: Minor,
    field_added__deserialize_written_by_hand_through_a_helper: Minor,
    field_became_optional: Major,
    field_became_required: Major,
    field_removed: Major,
    field_removed__allowed: Major,
    field_removed__renamed_with_old_name_as_alias: Major,
    field_removed__skip_serializing_added: Major,
    field_renamed: Major,
    field_renamed__alias_first: Major,
    field_renamed__nested_in_vec: Major,
    field_renamed__onto_an_accepted_alias: Minor,
    field_renamed_on_wire: Major,
    field_type_changed: Major,
    field_type_changed__catch_all_key_promoted: Major,
    field_type_changed__postcard_string_to_bytes: Major,
    field_type_changed__declared_shape: Major,
    field_type_changed__macro_generated_type_of_the_same_name: Major,
    field_type_changed__unit_variant_to_newtype_of_option: Major,
    field_type_changed__serde_with_one_or_many: Major,
    field_type_changed__with_function_text_to_number: Major,
    flatten_changed: Major,
    float_narrowed: Major,
    float_to_integer: Major,
    integer_narrowed: Major,
    integer_narrowed__generic_and_nested: Major,
    integer_narrowed__beside_a_validated_try_from: Major,
    integer_sign_changed: Major,
    integer_sign_changed__hand_written_impl: Major,
    integer_sign_changed__hand_written_visitor: Major,
    integer_to_float: Major,
    integer_widened: Major,
    kind_changed: Major,
    map_key_changed: Major,
    message_added: Minor,
    message_removed: Major,
    none__double_option_to_option: None,
    none__wire_identical: None,
    none__array_length_spelled_by_consts: None,
    none__declared_shape_kept: None,
    none__field_behind_a_feature_not_checked: None,
    none__hand_written_impl_unchanged: None,
    none__macro_generated_tags_rewritten: None,
    none__with_function_unread_unchanged: None,
    option_deserialize_with: Major,
    positional_field_added: Major,
    positional_field_order_changed: Major,
    positional_field_removed: Major,
    positional_undecodable: Major,
    positional_undecodable__added_field: Major,
    positional_undecodable__added_message: Major,
    positional_undecodable__added_variant: Major,
    positional_variant_reordered: Major,
    protocol_format_changed: Major,
    required_field_added: Major,
    required_field_added__eventlog_record: Major,
    required_field_added__client_first_request: Minor,
    required_field_added__feature_on_by_default: Major,
    response_added: Major,
    response_changed: Major,
    response_removed: Major,
    self_rejected: Major,
    seq_to_set: Major,
    serde_impl_changed: Major,
    serde_impl_changed__called_function: Major,
    serde_impl_changed__with_function_unread: Major,
    skip_serializing_if_added: Major,
    struct_tag_changed: Major,
    struct_tag_changed__denied_own_tag: Major,
    topic_renamed: Major,
    transparent_changed: Major,
    tuple_length_changed: Major,
    untagged_misread: Major,
    untagged_variant_order_changed: Major,
    upgrade_order_changed: Major,
    upgrade_order_changed__widened: Minor,
    value_domain_narrowed: Major,
    variant_added: Minor,
    variant_added_without_other: Major,
    variant_added_without_other__external_struct_past_other: Major,
    variant_added_without_other__serde_repr: Major,
    variant_added_without_other__macro_generated_tags: Major,
    variant_added_without_other__header_written_with_writeln: Major,
    variant_removed: Major,
    variant_renamed: Major,
    variant_renamed__onto_an_accepted_alias: Minor,
    variant_renamed__serde_repr_discriminant_changed: Major,
    variant_renamed__serde_repr_const_discriminant: Major,
    unresolved_type: Major,
}

/// A finding names its place twice: by Rust path (`field`) and as peers in other languages see it on the
/// wire (`wire_path`: the keys after `rename_all`, `[]` for the elements of a `Vec`).
#[test]
fn wire_path_names_a_renamed_key_inside_a_vec() {
    let dir = fixtures_dir().join("field_renamed__nested_in_vec");
    let findings = compare(&extract(&dir, "old"), &extract(&dir, "new"));
    assert!(!findings.is_empty());
    for finding in &findings {
        assert_eq!(
            finding.field.as_deref(),
            Some("signatures.active_parameter")
        );
        assert_eq!(
            finding.wire_path.as_deref(),
            Some("signatures[].activeParameter")
        );
        let json = serde_json::to_value(finding).expect("a finding serializes");
        assert_eq!(json["wire_path"], "signatures[].activeParameter");
    }
}

/// Rules that no source pair of one crate can show, and the test that covers each instead.
const COVERED_ELSEWHERE: &[(&str, &str)] = &[
    (
        "protocol_removed",
        "tests/check_git.rs removed_protocol_is_major (a protocol is compared only when both sides declare it)",
    ),
    (
        "fixtures_missing",
        "tests/fixtures_cli.rs check_reports_a_release_without_fixtures (about the committed fixture files, not the source)",
    ),
    (
        "since_above_version",
        "tests/check_policy.rs a_since_above_the_declared_version_fails_the_check (the check compares a `since` with its protocol's version, not two releases)",
    ),
    (
        "min_compatible_spans_break",
        "tests/check_window.rs (a window reaches releases of a git history, not one pair of sources); the Flux history's every window in xtask's tests::windows",
    ),
];

#[test]
fn every_rule_has_a_fixture() {
    let dirs: Vec<String> = std::fs::read_dir(fixtures_dir())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for rule in wirecheck::rules::RULES {
        let has_fixture = dirs.iter().any(|d| d.split("__").next() == Some(rule.id));
        let elsewhere = COVERED_ELSEWHERE.iter().any(|(id, _)| *id == rule.id);
        assert!(
            has_fixture ^ elsewhere,
            "rule `{}`: needs exactly one of a tests/fixtures/{}/ pair or a COVERED_ELSEWHERE entry",
            rule.id,
            rule.id
        );
    }
    for dir in &dirs {
        let rule = dir.split("__").next().unwrap_or(dir);
        assert!(
            rule == "none" || wirecheck::rules::RuleId::from_id(rule).is_some(),
            "fixture `{dir}` names no rule of the catalogue"
        );
    }
}
