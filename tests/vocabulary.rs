//! One vocabulary: the keywords of `kind`, `upgrade` and `format` are defined once (`wirecheck-vocab`, re-exported
//! as `wirecheck::Kind` ...), and the derive, the checker and the docs agree with that definition on every one.
//!
//! Each list below is compared with the enum's `ALL`, in order: a keyword added to the vocabulary fails here
//! until the derive case, the checker case and the docs mention it.

use wirecheck::{Format, Kind, Message, Protocol, Upgrade};

/// `(keyword, KIND)` of a `#[derive(Message)]` written with each `kind = $keyword`.
macro_rules! derived_kinds {
    ($($keyword:literal),+ $(,)?) => {
        vec![$({
            #[derive(Protocol)]
            #[wire(name = "p", version = "1.0.0")]
            struct P;
            #[derive(Message)]
            #[wire(protocol = P, topic = "t", kind = $keyword)]
            struct M;
            ($keyword, <M as Message>::KIND)
        }),+]
    };
}

/// `(keyword, CONSTANT)` of a `#[derive(Protocol)]` written with each `$key = $keyword`.
macro_rules! derived_protocols {
    ($key:ident, $constant:ident: $($keyword:literal),+ $(,)?) => {
        vec![$({
            #[derive(Protocol)]
            #[wire(name = "p", version = "1.0.0", $key = $keyword)]
            struct P;
            ($keyword, <P as Protocol>::$constant)
        }),+]
    };
}

/// The keywords of `$ty::ALL`, in order.
macro_rules! keywords_of {
    ($ty:ty) => {
        <$ty>::ALL
            .iter()
            .map(|value| value.as_str())
            .collect::<Vec<&str>>()
    };
}

/// Checks `(keyword, value)` pairs against the vocabulary: every keyword of `ALL`, in order, each giving the
/// value whose keyword it is.
macro_rules! assert_every_keyword {
    ($ty:ty, $pairs:expr, $who:literal) => {{
        let pairs: Vec<(&str, $ty)> = $pairs;
        let written: Vec<&str> = pairs.iter().map(|(keyword, _)| *keyword).collect();
        assert_eq!(
            written,
            keywords_of!($ty),
            "{} lists every keyword of {}",
            $who,
            stringify!($ty)
        );
        for (keyword, value) in pairs {
            assert_eq!(
                value.as_str(),
                keyword,
                "{} reads `{keyword}` as {value:?}",
                $who
            );
            assert_eq!(keyword.parse::<$ty>(), Ok(value));
        }
    }};
}

#[test]
fn the_derive_reads_every_keyword_as_its_value() {
    assert_every_keyword!(
        Kind,
        derived_kinds!("request", "response", "event", "record"),
        "the derive"
    );
    assert_every_keyword!(
        Upgrade,
        derived_protocols!(upgrade, UPGRADE: "any-order", "server-first", "client-first"),
        "the derive"
    );
    assert_every_keyword!(
        Format,
        derived_protocols!(format, FORMAT: "json", "cbor", "msgpack", "msgpack-compact", "bincode", "postcard"),
        "the derive"
    );
}

/// The checker reads each keyword from source as the derive does, and writes it in the model's JSON as written.
#[cfg(feature = "checker")]
mod checker {
    use wirecheck::extract::snapshot_from_sources;
    use wirecheck::model::Snapshot;

    use super::*;

    fn extract(protocol_keys: &str, kind: &str) -> Snapshot {
        let text = format!(
            "#[derive(Protocol)]\n#[wire(name = \"p\", version = \"1.0.0\"{protocol_keys})]\npub struct P;\n\
             #[derive(Message)]\n#[wire(protocol = P, topic = \"t\", kind = \"{kind}\")]\npub struct M;\n"
        );
        let snapshot = snapshot_from_sources("case", &[("src/lib.rs", text.as_str())])
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(snapshot.protocols.len(), 1, "{text}");
        assert_eq!(snapshot.messages.len(), 1, "{text}");
        snapshot
    }

    fn json_keyword(value: impl serde::Serialize) -> String {
        match serde_json::to_value(value).unwrap() {
            serde_json::Value::String(keyword) => keyword,
            other => panic!("a keyword is a JSON string, not {other}"),
        }
    }

    #[test]
    fn the_checker_reads_every_keyword_as_its_value() {
        let kinds = keywords_of!(Kind)
            .into_iter()
            .map(|keyword| (keyword, extract("", keyword).messages[0].kind))
            .collect();
        assert_every_keyword!(Kind, kinds, "the checker");
        let upgrades = keywords_of!(Upgrade)
            .into_iter()
            .map(|keyword| {
                let keys = format!(", upgrade = \"{keyword}\"");
                (keyword, extract(&keys, "event").protocols[0].upgrade)
            })
            .collect();
        assert_every_keyword!(Upgrade, upgrades, "the checker");
        let formats = keywords_of!(Format)
            .into_iter()
            .map(|keyword| {
                let keys = format!(", format = \"{keyword}\"");
                (keyword, extract(&keys, "event").protocols[0].format)
            })
            .collect();
        assert_every_keyword!(Format, formats, "the checker");
    }

    #[test]
    fn the_model_writes_every_keyword_as_written() {
        for &kind in Kind::ALL {
            assert_eq!(json_keyword(kind), kind.as_str());
            assert_eq!(
                serde_json::from_value::<Kind>(kind.as_str().into()).unwrap(),
                kind
            );
        }
        for &upgrade in Upgrade::ALL {
            assert_eq!(json_keyword(upgrade), upgrade.as_str());
            assert_eq!(
                serde_json::from_value::<Upgrade>(upgrade.as_str().into()).unwrap(),
                upgrade
            );
        }
        for &format in Format::ALL {
            assert_eq!(json_keyword(format), format.as_str());
            assert_eq!(
                serde_json::from_value::<Format>(format.as_str().into()).unwrap(),
                format
            );
        }
        for &mode in wirecheck::ResponseMode::ALL {
            assert_eq!(json_keyword(mode), mode.as_str());
        }
    }
}

fn read(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The one line of `text` that contains `marker`.
fn line_with<'t>(text: &'t str, marker: &str) -> &'t str {
    let lines: Vec<&str> = text.lines().filter(|line| line.contains(marker)).collect();
    match lines.as_slice() {
        [line] => line,
        _ => panic!("expected one line with `{marker}`, found {lines:?}"),
    }
}

/// The `"quoted"` strings of `text`, in order.
fn quoted(text: &str) -> Vec<&str> {
    text.split('"').skip(1).step_by(2).collect()
}

/// The `` `backticked` `` words of `text`, in order.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn the_readme_lists_every_keyword() {
    let readme = read("README.md");
    // `// optional: min_compatible = "0.87.0", upgrade = "any-order" | "server-first" | "client-first",`
    let upgrade_line = line_with(&readme, "upgrade = \"");
    let upgrades = upgrade_line.split("upgrade = ").nth(1).unwrap();
    assert_eq!(quoted(upgrades), keywords_of!(Upgrade), "{upgrade_line}");
    // `//           format = "json" | "cbor" | ...`
    let format_line = line_with(&readme, "format = \"");
    let formats = format_line.split("format = ").nth(1).unwrap();
    assert_eq!(quoted(formats), keywords_of!(Format), "{format_line}");
    // `- `kind`: `request`, `response`, `event` (published, not stored), `record` (stored ...`
    let kind_line = line_with(&readme, "- `kind`: ");
    assert_eq!(
        backticked(kind_line)[1..],
        keywords_of!(Kind),
        "{kind_line}"
    );

    // The table of directions: a row per kind, a column per upgrade order.
    let header = line_with(&readme, "| kind | ");
    let columns: Vec<&str> = header
        .split('|')
        .map(str::trim)
        .filter(|cell| !cell.is_empty())
        .skip(1)
        .map(|cell| cell.trim_end_matches(" (default)"))
        .collect();
    assert_eq!(columns, keywords_of!(Upgrade), "{header}");
    let rows: Vec<&str> = readme
        .lines()
        .skip_while(|line| *line != header)
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.split('|').nth(1).unwrap().trim())
        .collect();
    assert_eq!(
        rows,
        keywords_of!(Kind),
        "the rows of the table under {header}"
    );
}

#[test]
fn the_derive_docs_list_every_keyword() {
    let docs = read("macros/src/lib.rs");
    // `/// | `upgrade` | `"any-order"`, `"server-first"` or `"client-first"` | `"any-order"` |`
    for (key, keywords) in [
        ("upgrade", keywords_of!(Upgrade)),
        ("format", keywords_of!(Format)),
        ("kind", keywords_of!(Kind)),
    ] {
        let row = line_with(&docs, &format!("/// | `{key}` |"));
        let values = row.split('|').nth(2).unwrap();
        assert_eq!(quoted(values), keywords, "{row}");
    }
}
