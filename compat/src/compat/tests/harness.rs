//! Running the engine in tests: every comparison also checks reflexivity, determinism and that each witness
//! is a value of the writer's type that the reader rejects (or one of the misread rules).

use crate::compat::decode::Decoder;
use crate::compat::protocol::root;
use crate::compat::shape::SideRef;
use crate::compat::{Scope, compare_protocol};
use crate::findings::{Direction, Finding, Level, Side};
use crate::model::{ModelView, Snapshot};
use crate::rules::{Evidence, RuleId};

/// Compares, checks invariants (reflexivity, witness soundness, determinism) and returns the findings.
pub(super) fn check(old: &Snapshot, new: &Snapshot) -> Vec<Finding> {
    check_scope(old, new, Scope::Full)
}

pub(super) fn check_scope(old: &Snapshot, new: &Snapshot, scope: Scope) -> Vec<Finding> {
    assert_eq!(
        compare_protocol(old, old, "p", "v", scope),
        vec![],
        "old vs old"
    );
    assert_eq!(
        compare_protocol(new, new, "p", "v", scope),
        vec![],
        "new vs new"
    );
    let out = compare_protocol(old, new, "p", "v", scope);
    assert_eq!(
        out,
        compare_protocol(old, new, "p", "v", scope),
        "deterministic"
    );
    let positional = !new
        .protocol("p")
        .map(|p| p.format.is_self_describing())
        .unwrap_or(true);
    for finding in &out {
        check_finding(old, new, finding, positional);
    }
    out
}

/// A finding's invariants: no witness unless major; a major one has a direction, and its witness is a
/// value of the writer's type that the reader rejects (or one of the rules that may misread).
fn check_finding(old: &Snapshot, new: &Snapshot, finding: &Finding, positional: bool) {
    assert!(!finding.known);
    if finding.level != Level::Major {
        assert_eq!(finding.witness, None, "{finding:?}");
        return;
    }
    if finding.rule == RuleId::SelfRejected {
        check_self_rejected(new, finding);
        return;
    }
    assert!(finding.direction.is_some(), "{finding:?}");
    let Some(witness) = &finding.witness else {
        return;
    };
    let (writer, reader) = match finding.direction {
        Some(Direction::OldReadsNew) => (new, old),
        _ => (old, new),
    };
    let message_of = |snapshot: &Snapshot| {
        snapshot
            .messages
            .iter()
            .find(|m| m.name == finding.message_type || m.topic == finding.topic)
            .cloned()
    };
    let (Some(writer_message), Some(reader_message)) = (message_of(writer), message_of(reader))
    else {
        return;
    };
    let side = |snapshot| SideRef {
        model: ModelView::Whole(snapshot),
        side: Side::Old,
        format: new.protocol("p").map_or(crate::Format::Json, |p| p.format),
    };
    let evidence = finding.rule.rule().evidence;
    if evidence != Evidence::Opaque && !positional {
        let decoded = Decoder::new(side(writer)).decode(&root(&writer_message), witness);
        // A writer whose type requires a key it never writes cannot read its own payloads back.
        if !matches!(&decoded, Err(reason) if never_written_but_required(writer, reason)) {
            assert_eq!(
                decoded,
                Ok(()),
                "the witness of {finding:?} is not a value of the writer's type"
            );
        }
    }
    if evidence.is_message_level() {
        return;
    }
    let rejected = Decoder::new(side(reader))
        .decode(&root(&reader_message), witness)
        .is_err();
    if !positional && !rejected {
        // An `Option` around an untagged value reads a `null` payload as None: a misread too.
        // The reader model knows of a refined domain only its one value outside; that another domain's
        // sample is rejected is shown by the real types (tests/serde_truth.rs).
        let other_domain = finding.rule == RuleId::ValueDomainNarrowed;
        assert!(
            evidence.may_misread()
                || other_domain
                || witness.to_string().contains("null")
                || finding.message.contains("misread"),
            "the witness {witness} of {} is accepted by the reader model: {finding:?}",
            finding.rule
        );
    }
}

/// A release that rejects its own payload: no direction (one release writes and reads), and in a format
/// with field names the new release's reader model rejects the witness.
fn check_self_rejected(new: &Snapshot, finding: &Finding) {
    assert_eq!(finding.direction, None, "{finding:?}");
    let witness = finding.witness.as_ref().expect("a self-rejected payload");
    let Some(protocol) = new.protocol("p") else {
        return;
    };
    if !protocol.format.names_fields() {
        return;
    }
    let message = new
        .messages
        .iter()
        .find(|m| m.name == finding.message_type)
        .expect("the finding's message");
    let side = SideRef {
        model: ModelView::Whole(new),
        side: Side::New,
        format: protocol.format,
    };
    assert!(
        Decoder::new(side).decode(&root(message), witness).is_err(),
        "the new release's reader model accepts its own payload {witness}: {finding:?}"
    );
}

/// `(rule, level, direction, field)` of each finding.
pub(super) fn summary(fs: &[Finding]) -> Vec<(RuleId, Level, Option<Direction>, Option<String>)> {
    fs.iter()
        .map(|f| (f.rule, f.level, f.direction, f.field.clone()))
        .collect()
}

pub(super) fn has(fs: &[Finding], rule: RuleId, level: Level, dir: Option<Direction>) -> bool {
    fs.iter()
        .any(|f| f.rule == rule && f.level == level && f.direction == dir)
}

pub(super) fn only(fs: &[Finding], rule: RuleId) -> Finding {
    let found: Vec<&Finding> = fs.iter().filter(|f| f.rule == rule).collect();
    assert_eq!(found.len(), 1, "{rule} in {:#?}", summary(fs));
    found[0].clone()
}

pub(super) const OLD_READS_NEW: Option<Direction> = Some(Direction::OldReadsNew);

pub(super) const NEW_READS_OLD: Option<Direction> = Some(Direction::NewReadsOld);

/// Whether `reason` is a missing key that some field of `snapshot` requires and never writes
/// (`#[serde(skip_serializing)]` without `default`).
fn never_written_but_required(snapshot: &Snapshot, reason: &str) -> bool {
    snapshot.types.values().any(|def| match &def.body {
        crate::model::Body::Struct { fields, .. } => fields.iter().any(|field| {
            field.skip_ser == crate::model::SkipSer::Always
                && !field.default
                && reason == format!("missing field `{}`", field.ser_name)
        }),
        _ => false,
    })
}
