use super::*;

/// The derive checks `allow(...)` against the same catalogue.
#[cfg(feature = "checker")]
#[test]
fn the_grammar_knows_every_rule_id() {
    for rule in RULES {
        assert!(wirecheck_grammar::is_known_rule_id(rule.id), "{}", rule.id);
    }
    assert!(!wirecheck_grammar::is_known_rule_id("feld_removed"));
}

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
        assert_eq!(RuleId::from_id(r.id), Some(*id));
        assert!(
            !r.summary.is_empty() && !r.help.is_empty() && r.explanation.contains("before:"),
            "{}",
            r.id
        );
        // `cargo xtask new-rule` scaffolds entries marked TODO: they are not done.
        assert!(
            ![r.summary, r.help, r.explanation]
                .iter()
                .any(|text| text.contains("TODO")),
            "rule {}: fill in the TODOs of its catalogue entry",
            r.id
        );
    }
    assert_eq!(RuleId::from_id("no_such_rule"), None);
}

#[test]
fn a_rule_id_is_serialized_as_its_id_string() {
    for id in RuleId::ALL {
        let json = serde_json::to_string(id).unwrap();
        assert_eq!(json, format!("\"{}\"", id.as_str()));
        assert_eq!(serde_json::from_str::<RuleId>(&json).unwrap(), *id);
    }
    let err = serde_json::from_str::<RuleId>("\"feld_removed\"").unwrap_err();
    assert!(err.to_string().contains("no rule `feld_removed`"), "{err}");
}
