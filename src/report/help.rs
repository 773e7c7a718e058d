//! The usual safe migration for each rule: the `help:` line of the human output, and the help text of
//! SARIF rules and Markdown reports. A test checks that every rule of the catalogue has one.

/// The usual safe migration for findings of `rule`, in one or two sentences.
pub fn migration(rule: &str) -> Option<&'static str> {
    Some(match rule {
        "protocol_removed" => {
            "keep declaring the protocol until no peer speaks it, or allow the finding in wirecheck.toml with the reason no peer is left"
        }
        "protocol_format_changed" => {
            "serve the new format on a new protocol name (or topic) next to the old one, and retire the old one once every peer is upgraded"
        }
        "message_added" => {
            "bump the minor version: readers of older releases never see the new message"
        }
        "message_removed" => {
            "keep the message (answer it with an error if it is obsolete) until no release that sends it is left, then remove it with an allow"
        }
        "topic_renamed" => {
            "listen on both topics for one release (the new one as an alias), then switch writers to the new topic"
        }
        "kind_changed" => {
            "declare a new message for the new role and retire the old one after a release"
        }
        "response_added" => {
            "make the response a new request topic, or have new clients tolerate silence (a timeout) until old servers are gone"
        }
        "response_removed" => "keep sending the response until no client that waits for it is left",
        "response_changed" => {
            "add a new topic for the streaming (or single) form and keep the old one until every peer has moved"
        }
        "field_added" => {
            "bump the minor version; keep the field `Option` or `#[serde(default)]` so older writers stay readable"
        }
        "required_field_added" => {
            "make the field `Option<T>` or give it `#[serde(default)]`, so payloads of older writers (which lack it) still decode"
        }
        "field_removed" => {
            "make the field `Option<T>` with `#[serde(default)]` first and release that; remove it only once no release that requires it is left"
        }
        "field_became_required" => {
            "keep `Option<T>` (or `#[serde(default)]`) in readers until every writer always sends a value"
        }
        "field_became_optional" => {
            "keep writing a value (`skip_serializing_if` for None only once every reader has `#[serde(default)]`), upgrading readers first"
        }
        "field_renamed" => {
            "keep the wire name with `#[serde(rename = \"old\")]`, or add `#[serde(alias = \"new\")]` to readers one release before writers switch"
        }
        "field_type_changed" => {
            "add a new field with the new type next to the old one, write both for a release, then drop the old one"
        }
        "integer_narrowed" => {
            "keep the wider type until no writer sends values outside the narrower range"
        }
        "integer_widened" => {
            "widen readers first (one release ahead), and only then let writers send values beyond the old range"
        }
        "integer_sign_changed" => {
            "widen to a type that holds both ranges (u32 and i32 fit in i64) in readers first, then in writers"
        }
        "float_to_integer" => "keep the float type in readers until every writer sends integers",
        "integer_to_float" => {
            "upgrade readers to the float type first, one release ahead of writers"
        }
        "float_narrowed" => "keep f64 on the wire; convert to f32 after decoding if needed",
        "seq_to_set" => "keep the list on the wire and build the set after decoding",
        "array_length_changed" => {
            "use a `Vec<T>` (readers first) or a new field for the new length"
        }
        "tuple_length_changed" => {
            "add a new field (or variant) for the new arity and keep the old one for a release"
        }
        "map_key_changed" => "keep the key type readers accept; convert keys after decoding",
        "variant_added" => {
            "bump the minor version: readers with a catch-all tolerate the new variant"
        }
        "variant_added_without_other" => {
            "add a `#[serde(other)]` unit variant to readers one release ahead, then add the new variant"
        }
        "variant_removed" => {
            "keep the variant (readers may map it to an error) until no writer sends it, or add `#[serde(other)]` to readers first"
        }
        "variant_renamed" => {
            "keep the wire tag with `#[serde(rename = \"old\")]`, or add `#[serde(alias = \"new\")]` to readers one release before writers switch"
        }
        "enum_repr_changed" => {
            "keep the representation; serve the new one on a new field or topic and retire the old one after a release"
        }
        "struct_tag_changed" => {
            "keep the tag key, or remove `deny_unknown_fields` from readers first"
        }
        "untagged_variant_order_changed" => {
            "restore the order (serde takes the first untagged variant that fits), or make the enum tagged"
        }
        "untagged_misread" => {
            "give the new variant a shape no other variant accepts, or place it after the variants it overlaps"
        }
        "deny_unknown_fields_added" => {
            "keep readers tolerant of unknown keys; deny them only once every writer stopped sending extra keys"
        }
        "transparent_changed" => {
            "keep the representation; introduce a new field for the other shape"
        }
        "flatten_changed" => "keep the representation; introduce a new field for the other shape",
        "custom_serde_changed" => {
            "review the functions; when they stay wire-compatible, allow the finding with a reason"
        }
        "option_deserialize_with" => {
            "add `#[serde(default)]` next to `deserialize_with`, so a missing key reads as None again"
        }
        "skip_serializing_if_added" => {
            "give readers `#[serde(default)]` one release ahead, then let writers skip the field"
        }
        "positional_field_added" => {
            "positional formats cannot evolve in place: add a new message (or topic) with the new layout, or move to a self-describing format"
        }
        "positional_field_removed" => {
            "positional formats cannot evolve in place: add a new message (or topic) with the new layout"
        }
        "positional_field_order_changed" => {
            "restore the declaration order: positional formats decode by position"
        }
        "positional_variant_reordered" => "restore the order and append new variants at the end",
        "external_type_changed" => {
            "check that both types serialize the same way; allow the finding with a reason when they do"
        }
        "unresolved_type" => {
            "check the type by hand (or make it visible to the checker: no macro-generated types); allow the finding with a reason"
        }
        "fixtures_missing" => {
            "run `wirecheck fixtures write --rev <baseline tag>` (it writes the release's fixtures from git objects) and commit them"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_rule_has_a_migration() {
        for rule in crate::rules::RULES {
            let help = super::migration(rule.id);
            assert!(
                help.is_some_and(|h| !h.is_empty()),
                "rule {} has no migration help in src/report/help.rs",
                rule.id
            );
        }
        assert_eq!(super::migration("no_such_rule"), None);
    }
}
