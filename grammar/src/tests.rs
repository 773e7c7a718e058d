use super::*;

fn attrs(src: &str) -> Vec<Attribute> {
    let item: syn::DeriveInput = syn::parse_str(&format!("{src} struct X;")).unwrap();
    item.attrs
}

/// The attributes of `tokens`, which may hold invisible groups (`parse_str` cannot make those).
fn attrs_of(tokens: TokenStream) -> Vec<Attribute> {
    let item: syn::DeriveInput = syn::parse2(quote::quote!(#tokens struct X;)).unwrap();
    item.attrs
}

/// `tokens` wrapped in an invisible group, as `macro_rules!` passes `$x:literal` or `$p:path` on.
fn invisible(tokens: TokenStream) -> proc_macro2::Group {
    proc_macro2::Group::new(Delimiter::None, tokens)
}

fn messages(error: syn::Error) -> Vec<String> {
    error.into_iter().map(|e| e.to_string()).collect()
}

fn message_errors_of(src: &str) -> Vec<String> {
    match parse_message(&attrs(src), Span::call_site()) {
        Ok(_) => panic!("expected errors for {src}"),
        Err(error) => messages(error),
    }
}

fn member_errors_of(src: &str) -> Vec<String> {
    match parse_member(&attrs(src)) {
        Ok(_) => panic!("expected errors for {src}"),
        Err(error) => messages(error),
    }
}

fn protocol_errors_of(src: &str) -> Vec<String> {
    match parse_protocol(&attrs(src), Span::call_site()) {
        Ok(_) => panic!("expected errors for {src}"),
        Err(error) => messages(error),
    }
}

fn path_text(path: &Path) -> String {
    path.to_token_stream()
        .to_string()
        .split_whitespace()
        .collect()
}

#[test]
fn protocol_with_every_key() {
    let p = parse_protocol(
        &attrs(r#"#[wire(name = "sched", version = "0.88.0", min_compatible = "0.87.0", upgrade = "server-first", format = "postcard")]"#),
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(p.name.value, "sched");
    assert_eq!(p.version.value, semver::Version::new(0, 88, 0));
    assert_eq!(
        p.min_compatible.unwrap().value,
        semver::Version::new(0, 87, 0)
    );
    assert_eq!(p.upgrade, Upgrade::ServerFirst);
    assert_eq!(p.format, Format::Postcard);
}

#[test]
fn every_keyword_of_the_vocabulary_parses_to_its_value() {
    for &kind in Kind::ALL {
        let written = format!(
            r#"#[wire(protocol = P, topic = "t", kind = "{}")]"#,
            kind.as_str()
        );
        let m = parse_message(&attrs(&written), Span::call_site()).unwrap();
        assert_eq!(m.kind.value, kind, "{written}");
    }
    for &upgrade in Upgrade::ALL {
        let written = format!(
            r#"#[wire(name = "p", version = "1.0.0", upgrade = "{}")]"#,
            upgrade.as_str()
        );
        let p = parse_protocol(&attrs(&written), Span::call_site()).unwrap();
        assert_eq!(p.upgrade, upgrade, "{written}");
    }
    for &format in Format::ALL {
        let written = format!(
            r#"#[wire(name = "p", version = "1.0.0", format = "{}")]"#,
            format.as_str()
        );
        let p = parse_protocol(&attrs(&written), Span::call_site()).unwrap();
        assert_eq!(p.format, format, "{written}");
    }
}

#[test]
fn runtime_paths_name_the_wirecheck_enums() {
    let text = |tokens: TokenStream| tokens.to_string().replace(' ', "");
    assert_eq!(
        text(runtime_path(Kind::Request)),
        "::wirecheck::Kind::Request"
    );
    assert_eq!(
        text(runtime_path(Upgrade::ServerFirst)),
        "::wirecheck::Upgrade::ServerFirst"
    );
    assert_eq!(
        text(runtime_path(Format::Msgpack)),
        "::wirecheck::Format::Msgpack"
    );
    assert_eq!(
        text(runtime_path(ResponseMode::Stream)),
        "::wirecheck::ResponseMode::Stream"
    );
}

#[test]
fn protocol_errors_are_all_reported() {
    let err = parse_protocol(
        &attrs(r#"#[wire(name = "s", version = "one", upgrade = "sideways", colour = "red")]"#),
        Span::call_site(),
    )
    .unwrap_err();
    let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(
        messages[0].starts_with("`version` must be a semver version"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("unknown upgrade `sideways`"),
        "{messages:?}"
    );
    assert!(
        messages[2].starts_with("unknown wire protocol key `colour`"),
        "{messages:?}"
    );
}

#[test]
fn message_keys() {
    let m = parse_message(
        &attrs(r#"#[wire(protocol = crate::Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse, since = "0.56.0", allow(field_removed), reason = "never read")]"#),
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(m.topic.value, "sched.alloc");
    assert_eq!(m.kind.value, Kind::Request);
    assert!(m.responds.is_some() && m.streams.is_none());
    assert_eq!(m.allow.rules[0].value, "field_removed");
    assert_eq!(m.allow.reason.unwrap().value, "never read");
}

#[test]
fn message_errors() {
    let Err(err) = parse_message(
        &attrs(
            r#"#[wire(protocol = "Sched", kind = "response", streams = X, allow(field_removed))]"#,
        ),
        Span::call_site(),
    ) else {
        panic!("expected errors")
    };
    let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("takes a type path, not a string")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("needs a `reason")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("missing `#[wire(topic")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("only a `kind = \"request\"`")),
        "{messages:?}"
    );
}

#[test]
fn member_keys() {
    let m = parse_member(&attrs(r#"#[wire(since = "0.70.0")]"#)).unwrap();
    assert_eq!(m.since.unwrap().value, semver::Version::new(0, 70, 0));
    assert!(parse_member(&attrs(r#"#[wire(reason = "x")]"#)).is_err());
    assert!(parse_member(&attrs(r#"#[wire(allow(Bad-Id), reason = "x")]"#)).is_err());
}

#[test]
fn values_from_macro_rules_are_unwrapped() {
    let name = invisible(quote::quote!("sched"));
    let version = invisible(quote::quote!("0.88.0"));
    let p = parse_protocol(
        &attrs_of(quote::quote!(#[wire(name = #name, version = #version)])),
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(p.name.value, "sched");
    assert_eq!(p.version.value, semver::Version::new(0, 88, 0));

    let protocol = invisible(quote::quote!(crate::Sched));
    let streams = invisible(quote::quote!(m::Reply<u8>));
    let topic = invisible(invisible(quote::quote!("t")).into_token_stream());
    let m = parse_message(
        &attrs_of(quote::quote!(
            #[wire(protocol = #protocol, topic = #topic, kind = "request", streams = #streams)]
        )),
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(path_text(&m.protocol), "crate::Sched");
    assert_eq!(m.topic.value, "t");
    assert_eq!(path_text(m.streams.as_ref().unwrap()), "m::Reply<u8>");
}

#[test]
fn response_paths_take_generic_arguments() {
    let m = parse_message(
        &attrs(r#"#[wire(protocol = P, kind = "request", streams = Reply<Vec<u8>, String>, topic = "t")]"#),
        Span::call_site(),
    )
    .unwrap();
    assert_eq!(
        path_text(m.streams.as_ref().unwrap()),
        "Reply<Vec<u8>,String>"
    );
    assert_eq!(m.topic.value, "t", "the keys after a generic path are read");

    for written in ["Reply::<T>", "::m::Reply<T>", "self::Reply<'a, T>"] {
        let m = parse_message(
            &attrs(&format!(
                r#"#[wire(protocol = P, topic = "t", kind = "request", responds = {written})]"#
            )),
            Span::call_site(),
        )
        .unwrap_or_else(|e| panic!("{written}: {e}"));
        assert_eq!(
            path_text(m.responds.as_ref().unwrap()),
            written.replace(' ', "")
        );
    }
}

#[test]
fn non_paths_are_reported_and_the_other_keys_still_read() {
    let errors = message_errors_of(
        r#"#[wire(protocol = "crate::Sched", topic = "t", kind = "request", streams = &Reply<A, B>)]"#,
    );
    assert_eq!(
        errors,
        [
            "`protocol` takes a type path, not a string: write `protocol = crate::Sched`",
            "`streams` takes a type path: write `streams = path::to::Type`",
        ]
    );
    assert_eq!(
        message_errors_of(
            r#"#[wire(protocol = <S as T>::P, topic = "t", kind = "request", responds = "not a path")]"#
        ),
        [
            "`protocol` takes a type path: write `protocol = path::to::Type`",
            "`responds` takes a type path, not a string: write `responds = path::to::Type`",
        ]
    );
    assert_eq!(
        message_errors_of(r#"#[wire(protocol, topic = "t", kind = "request")]"#),
        ["`protocol` takes a type path: write `protocol = path::to::Type`"]
    );
}

#[test]
fn string_values_name_the_key_and_the_fix() {
    assert_eq!(
        protocol_errors_of(r#"#[wire(name = sched, version = "1.0.0")]"#),
        ["`name` takes a string literal: write `name = \"...\"`"]
    );
    assert_eq!(
        protocol_errors_of(r#"#[wire(name("sched"), version = 1.0)]"#),
        [
            "`name` takes a string literal: write `name = \"...\"`",
            "`version` takes a string literal: write `version = \"...\"`",
        ]
    );
    assert_eq!(
        message_errors_of(
            r#"#[wire(protocol = P, topic = a.b, kind = "event", since = "1.0.0" "x")]"#
        ),
        [
            "`topic` takes a string literal: write `topic = \"...\"`",
            "`since` takes a string literal: write `since = \"...\"`",
        ]
    );
}

#[test]
fn a_leading_v_is_pointed_out() {
    assert_eq!(
        message_errors_of(
            r#"#[wire(protocol = P, topic = "t", kind = "event", since = "v0.61.0")]"#
        ),
        ["`since` must be a semver version, without the `v`: write `since = \"0.61.0\"`"]
    );
    assert_eq!(
        protocol_errors_of(r#"#[wire(name = "s", version = "V1.2.3")]"#),
        ["`version` must be a semver version, without the `v`: write `version = \"1.2.3\"`"]
    );
    let errors = protocol_errors_of(r#"#[wire(name = "s", version = "very")]"#);
    assert!(
        errors[0].starts_with("`version` must be a semver version such as \"1.2.3\": "),
        "{errors:?}"
    );
}

#[test]
fn missing_keys_are_one_error() {
    assert_eq!(
        protocol_errors_of(""),
        ["missing `#[wire(name = \"...\", version = \"...\")]` on the protocol"]
    );
    assert_eq!(
        protocol_errors_of(r#"#[wire(version = "1.0.0")]"#),
        ["missing `#[wire(name = \"...\")]` on the protocol"]
    );
    assert_eq!(
        message_errors_of(r#"#[wire(since = "1.0.0")]"#),
        [
            "missing `#[wire(protocol = ..., topic = \"...\", kind = \"...\")]` on the message: \
             `protocol` names the protocol marker type; \
             `kind` is one of \"request\", \"response\", \"event\", \"record\""
        ]
    );
    assert_eq!(
        message_errors_of(r#"#[wire(protocol = P, kind = "event")]"#),
        ["missing `#[wire(topic = \"...\")]` on the message"]
    );
    // A key written with a bad value is not also missing.
    assert_eq!(
        message_errors_of(r#"#[wire(protocol = "P", topic = "t", kind = "reply")]"#).len(),
        2
    );
}

#[test]
fn unknown_keys_are_skipped_whatever_their_value() {
    assert_eq!(
        member_errors_of(r#"#[wire(colour = Reply<A, B>, since = "1.0.0", shade(x, y))]"#),
        [
            "unknown wire field or variant key `colour`: expected one of `since`, `allow`, `reason`",
            "unknown wire field or variant key `shade`: expected one of `since`, `allow`, `reason`",
        ]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(a::b = 1)]"#),
        ["unknown wire field or variant key `a::b`: expected one of `since`, `allow`, `reason`"]
    );
    assert_eq!(
        member_errors_of(r#"#[wire] #[wire = "x"]"#),
        [
            "expected `#[wire(...)]` with field or variant keys",
            "expected `#[wire(...)]` with field or variant keys",
        ]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(since = "1.0.0" reason = "r")]"#),
        ["`since` takes a string literal: write `since = \"...\"`"]
    );
}

#[test]
fn a_bad_rule_id_is_one_error_with_the_snake_case_form() {
    for (written, message) in [
        (
            "FieldRemoved",
            "`FieldRemoved` is not a rule id: rule ids are snake_case, write `field_removed`",
        ),
        (
            "Field-Removed",
            "`Field-Removed` is not a rule id: rule ids are snake_case, write `field_removed`",
        ),
        (
            "\"field_removed\"",
            "rule ids are written without quotes: write `field_removed`",
        ),
        (
            "field_removed = 1",
            "`field_removed=1` is not a rule id: did you mean `field_removed`?",
        ),
    ] {
        // The bad id still counts as an `allow`: `reason` is not reported as orphaned.
        assert_eq!(
            member_errors_of(&format!(r#"#[wire(allow({written}), reason = "r")]"#)),
            [message],
            "{written}"
        );
    }
    let m = parse_member(&attrs(
        r#"#[wire(allow(field_removed, variant_removed,), reason = "r")]"#,
    ))
    .unwrap();
    let rules: Vec<_> = m.allow.rules.iter().map(|r| r.value.as_str()).collect();
    assert_eq!(rules, ["field_removed", "variant_removed"]);
}

#[test]
fn allow_needs_a_list_of_rule_ids() {
    assert_eq!(
        member_errors_of(r#"#[wire(allow(), reason = "r")]"#),
        ["`allow(...)` needs at least one rule id, such as `allow(field_removed)`"]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(allow = "field_removed", reason = "r")]"#),
        ["`allow` takes a list of rule ids: write `allow(rule_id, ...)`"]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(allow(BadId))]"#),
        [
            "`BadId` is not a rule id: rule ids are snake_case, such as `field_removed`; `wirecheck rules` lists them",
            "`allow(...)` needs a `reason = \"...\"` saying why the change is acceptable",
        ]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(allow(field_removed), allow(field_added), reason = "r")]"#),
        ["duplicate wire key `allow`: list every rule in one `allow(...)`"]
    );
    assert_eq!(
        member_errors_of(r#"#[wire(allow(field_removed) b, reason = "r")]"#),
        ["unexpected tokens after the `allow` value: separate keys with `,`"]
    );
}

#[test]
fn an_unknown_rule_id_is_an_error_with_the_closest_id() {
    for (written, message) in [
        (
            "feld_removed",
            "unknown rule id `feld_removed` in `allow(...)`: did you mean `field_removed`? `wirecheck rules` lists the rule ids",
        ),
        (
            "\"variant_remove\"",
            "unknown rule id `variant_remove` in `allow(...)`: did you mean `variant_removed`? `wirecheck rules` lists the rule ids",
        ),
        (
            "no_such_rule",
            "unknown rule id `no_such_rule` in `allow(...)`: `wirecheck rules` lists the rule ids",
        ),
        (
            "FeldRemoved",
            "`FeldRemoved` is not a rule id: did you mean `field_removed`?",
        ),
    ] {
        assert_eq!(
            member_errors_of(&format!(r#"#[wire(allow({written}), reason = "r")]"#)),
            [message],
            "{written}"
        );
    }
    // Known ids next to the unknown one are kept apart: one error, on the unknown id only.
    let errors = parse_member(&attrs(
        r#"#[wire(allow(field_removed, feld_renamed), reason = "r")]"#,
    ))
    .unwrap_err();
    assert_eq!(errors.clone().into_iter().count(), 1);
    assert!(errors.into_iter().all(|e| is_unknown_rule_id(&e)));
    // The same on a message, and only unknown ids are classified as such.
    let errors = message_errors_of(
        r#"#[wire(protocol = P, topic = "t", kind = "event", allow(feld_removed), reason = "r")]"#,
    );
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("did you mean `field_removed`?"));
    let other = parse_member(&attrs(r#"#[wire(since = "1")]"#)).unwrap_err();
    assert!(!is_unknown_rule_id(&other));
}

#[test]
fn rule_ids_are_unique_snake_case_and_known() {
    let mut seen = std::collections::BTreeSet::new();
    for id in RuleId::ALL.iter().map(|rule| rule.as_str()) {
        assert!(is_rule_id(id) && is_known_rule_id(id), "{id}");
        assert!(seen.insert(id), "duplicate {id}");
    }
    assert!(!is_known_rule_id("feld_removed"));
}

#[test]
fn edit_distances() {
    for (a, b, distance) in [
        ("", "", 0),
        ("field_removed", "field_removed", 0),
        ("feld_removed", "field_removed", 1),
        ("field_remvoed", "field_removed", 2),
        ("abc", "", 3),
        ("kitten", "sitting", 3),
    ] {
        assert_eq!(edit_distance(a, b), distance, "{a} {b}");
        assert_eq!(edit_distance(b, a), distance, "{b} {a}");
    }
    assert_eq!(closest_rule_id("field_remvoed"), Some("field_removed"));
    assert_eq!(closest_rule_id("removed"), None);
}

#[test]
fn snake_case_spellings() {
    for (written, snake) in [
        ("FieldRemoved", "field_removed"),
        ("fieldRemoved", "field_removed"),
        ("Field-Removed", "field_removed"),
        ("FIELD_REMOVED", "field_removed"),
        ("Integer2Float", "integer2_float"),
        ("HTTPServerGone", "http_server_gone"),
        ("field_removed", "field_removed"),
    ] {
        assert_eq!(snake_case(written), snake, "{written}");
    }
}

#[test]
fn type_as_takes_any_type() {
    for (src, expected) in [
        ("#[wire(as = String)]", "String"),
        ("#[wire(as = Vec<u8>)]", "Vec < u8 >"),
        (
            "#[wire(as = std::collections::BTreeMap<String, u64>)]",
            "std :: collections :: BTreeMap < String , u64 >",
        ),
        ("#[wire(as = [u8; 16])]", "[u8 ; 16]"),
        ("#[wire(as = (u64, String))]", "(u64 , String)"),
    ] {
        let parsed = parse_type(&attrs(src)).unwrap();
        let ty = parsed.as_type.expect(src);
        assert_eq!(ty.to_token_stream().to_string(), expected, "{src}");
    }
    assert!(parse_type(&attrs("")).unwrap().as_type.is_none());
}

#[test]
fn type_as_from_a_macro_fragment() {
    let ty = invisible(quote::quote!(u64));
    let parsed = parse_type(&attrs_of(quote::quote!(#[wire(as = #ty)]))).unwrap();
    assert_eq!(parsed.as_type.unwrap().to_token_stream().to_string(), "u64");
}

#[test]
fn type_errors() {
    let errors = |src: &str| match parse_type(&attrs(src)) {
        Ok(_) => panic!("expected errors for {src}"),
        Err(error) => messages(error),
    };
    assert_eq!(
        errors(r#"#[wire(as = "String")]"#),
        ["`as` takes a type, not a string: write `as = String`"]
    );
    assert_eq!(
        errors("#[wire(as = String, as = u64)]"),
        ["duplicate wire key `as`"]
    );
    assert_eq!(
        errors("#[wire(as)]"),
        ["`as` takes a type: write `as = String` (the type whose wire shape this one has)"]
    );
    assert_eq!(
        errors(r#"#[wire(since = "1.0.0")]"#),
        ["unknown wire type key `since`: expected one of `as`"]
    );
}
