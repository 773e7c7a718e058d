//! The verdict step of a check: the `[[allow]]` entries of `wirecheck.toml` applied to the findings,
//! then each protocol's verdict on them, computed once ([`crate::policy`]), into the report.

use super::changes::ProtocolChanges;
use super::kept::Compared;
use super::skipped;
use crate::config::{AllowNote, Config};
use crate::outcome::{Baseline, ProtocolReport, Report, SkippedRelease, skipped_statements};
use crate::policy::Allows;
use crate::workspace::CheckedReleases;

/// The report of the comparison `compared` against `releases` once `config`'s allows are applied, with
/// the releases `skipped` while reading.
pub(super) fn judge(
    releases: &CheckedReleases,
    compared: Compared,
    config: &Config,
    skipped: Vec<SkippedRelease>,
) -> Report {
    let Compared {
        mut protocols,
        notes,
    } = compared;
    let allow_notes = allow(&mut protocols, config);
    let older = skipped::tags(&releases.older);
    report(
        &releases.baseline,
        protocols,
        notes,
        allow_notes,
        (older, skipped),
    )
}

/// Applies the `[[allow]]` entries of `wirecheck.toml` to the findings (see [`Allows`]), giving the notes
/// on the entries that expired or matched nothing.
fn allow(protocols: &mut [ProtocolChanges], config: &Config) -> Vec<AllowNote> {
    let mut allows = Allows::new(config);
    for protocol in protocols {
        allows.apply(
            &protocol.name,
            protocol.new_version.as_ref(),
            &mut protocol.findings,
        );
    }
    allows.notes()
}

/// The report: each protocol's verdict on its findings (once every allow is applied), with what it must
/// state about its baseline and the releases skipped (`older`, the older releases' tags, and the ones
/// `skipped` while reading), the extraction's notes and the notes on the allows.
pub(super) fn report<'t>(
    baseline: &Baseline,
    protocols: Vec<ProtocolChanges>,
    notes: Vec<String>,
    allow_notes: Vec<AllowNote>,
    (older, mut skipped): (impl IntoIterator<Item = &'t str>, Vec<SkippedRelease>),
) -> Report {
    let protocols: Vec<ProtocolReport> =
        protocols.into_iter().map(ProtocolChanges::judge).collect();
    let outside = skipped::outside_every_window(older, &protocols, &skipped);
    skipped.extend(outside);
    let statements = baseline
        .statements()
        .into_iter()
        .chain(skipped_statements(&skipped));
    Report {
        baseline: baseline.clone(),
        ok: protocols.iter().all(|p| p.ok),
        protocols,
        skipped_releases: skipped,
        notes: statements.chain(notes).collect(),
        allow_notes,
        sources: Default::default(),
    }
}
