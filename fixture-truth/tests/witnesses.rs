//! Every rule fixture's witnesses decoded by the real codec (see the crate's documentation): the tests
//! are written by build.rs, one per fixture directory.

#[path = "../../tests/support/codecs.rs"]
mod codecs;

use codecs::{BincodeLegacy, BincodeStandard, Codec, Json, Postcard, Real, Rel, witness_real};
use serde_json::Value;
use wirecheck_compat::compat::{Scope, compare_protocol};
use wirecheck_extract::extract::snapshot_from_sources;
use wirecheck_fixture_truth::{UNOBSERVABLE, WITNESSES_NOT_DECODED};
use wirecheck_model::findings::{Direction, Finding, Level};
use wirecheck_vocab::rules::Evidence;

use Direction::{NewReadsOld, OldReadsNew};

/// Runs the engine on the fixture `dir` and decodes each major finding's witness with every codec of the
/// fixture's format, in the finding's direction; `real(message, codec, writer, witness)` compiles the
/// fixture's own types. Fails on a witness that decodes whole and unchanged (it shows nothing), and on a
/// major finding without one.
fn check_fixture_witnesses(dir: &str, real: fn(&str, Codec, Rel, &Value) -> Result<Real, String>) {
    let path = format!("{}/../tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
    let read = |side: &str| {
        std::fs::read_to_string(format!("{path}/{side}/lib.rs"))
            .unwrap_or_else(|e| panic!("{path}/{side}/lib.rs: {e}"))
    };
    let (old_text, new_text) = (read("old"), read("new"));
    let codecs: &[Codec] = if old_text.contains("format = \"postcard\"") {
        &[Postcard]
    } else if old_text.contains("format = \"bincode\"") {
        &[BincodeStandard, BincodeLegacy]
    } else {
        &[Json]
    };
    let snap = |text: &str| {
        snapshot_from_sources("fixture", &[("src/lib.rs", text)])
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
    };
    let found = compare_protocol(
        &snap(&old_text),
        &snap(&new_text),
        "p",
        "v0.1.0",
        Scope::Full,
    );
    let mut wrong = Vec::new();
    let mut seen = 0;
    // Message-level breaks (nobody takes or answers the message) have a payload that decodes; opaque
    // ones have no witness.
    let payload_level = |f: &&Finding| {
        let evidence = f.rule.rule().evidence;
        evidence != Evidence::Opaque && !evidence.is_message_level()
    };
    // A release that rejects its own payload (`self_rejected`) has no direction: one release writes and
    // reads; tests/formats_truth.rs decodes such witnesses with the release itself.
    for f in found
        .iter()
        .filter(|f| f.level == Level::Major && f.direction.is_some())
        .filter(payload_level)
    {
        let message = &f.message_type;
        let (Some(witness), Some(direction)) = (&f.witness, f.direction) else {
            // The contract's exception: what the writer writes is unknown, and the finding says so.
            if !f.message.contains("(no witness: ") {
                wrong.push(format!("{}: a major finding without a witness", f.rule));
            }
            continue;
        };
        let writer = match direction {
            OldReadsNew => Rel::New,
            NewReadsOld => Rel::Old,
        };
        for &c in codecs {
            seen += 1;
            match real(message, c, writer, witness) {
                Err(e) => wrong.push(format!("{} ({direction}, {c}): {e}", f.rule)),
                Ok(r)
                    if !r.breaks()
                        && UNOBSERVABLE
                            .iter()
                            .any(|(d, rule, _)| *d == dir && *rule == f.rule.as_str()) =>
                {
                    println!(
                        "| {dir} | {} | {direction} | {c} | {witness} | not observable: {r} |",
                        f.rule
                    );
                }
                Ok(r) if !r.breaks() => wrong.push(format!(
                    "{} ({direction}, {c}): the witness {witness} decodes whole and unchanged: {}",
                    f.rule, f.message
                )),
                Ok(r) => println!(
                    "| {dir} | {} | {direction} | {c} | {witness} | {r} |",
                    f.rule
                ),
            }
        }
    }
    assert!(seen > 0, "{dir}: no major finding with a witness");
    assert!(wrong.is_empty(), "{dir}:\n{}", wrong.join("\n"));
}

/// `fixture_witnesses!(test_name, "fixture_dir", [Message, ...], extra: { items })`, as build.rs writes
/// it: compiles the fixture's `old` and `new` sources (with `items` added to both: the fixture's
/// `witness_items.rs`, functions a source names but, being read only by the extractor, does not define)
/// and a test that decodes its witnesses (see [`check_fixture_witnesses`]).
macro_rules! fixture_witnesses {
    ($name:ident, $dir:literal, [$($msg:ident),+ $(,)?], extra: { $($extra:item)* }) => {
        #[allow(dead_code, non_snake_case)]
        mod $name {
            pub mod old {
                include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/", $dir, "/old/lib.rs"));
                $($extra)*
            }
            pub mod new {
                include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/", $dir, "/new/lib.rs"));
                $($extra)*
            }
        }

        #[test]
        #[allow(non_snake_case)]
        fn $name() {
            fn real(message: &str, c: Codec, writer: Rel, w: &Value) -> Result<Real, String> {
                $(
                    if message == stringify!($msg) {
                        return match writer {
                            Rel::New => witness_real::<$name::new::$msg, $name::old::$msg>(c, w),
                            Rel::Old => witness_real::<$name::old::$msg, $name::new::$msg>(c, w),
                        };
                    }
                )+
                Err(format!("the message `{message}` is not listed for this fixture"))
            }
            check_fixture_witnesses($dir, real);
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/witnesses.rs"));

/// Every fixture directory is decoded or excused with a reason, never both; every excuse names a
/// fixture (build.rs decodes each directory it does not excuse, as it found them when it ran).
#[test]
fn every_fixture_is_decoded_or_says_why() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let dirs: Vec<String> = std::fs::read_dir(&fixtures)
        .unwrap_or_else(|e| panic!("{}: {e}", fixtures.display()))
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(dirs.len() > 50, "{} was not found", fixtures.display());
    let mut wrong = Vec::new();
    for dir in &dirs {
        let decoded = DECODED.contains(&dir.as_str());
        let excused = WITNESSES_NOT_DECODED.iter().any(|(name, _)| name == dir);
        if decoded == excused {
            wrong.push(format!("{dir}: decoded={decoded}, excused={excused}"));
        }
    }
    for (name, why) in WITNESSES_NOT_DECODED {
        if !dirs.contains(&(*name).to_owned()) {
            wrong.push(format!("{name}: excused, but no such fixture"));
        }
        if why.trim().is_empty() {
            wrong.push(format!("{name}: excused without a reason"));
        }
    }
    wrong.sort();
    assert!(
        wrong.is_empty(),
        "each fixture is decoded (a directory of tests/fixtures/) or excused with a reason \
         (fixture-truth/src/excused.rs):\n{}",
        wrong.join("\n")
    );
}
