//! The comparison step of a check, kept in the [store](crate::store) under a key that names every model
//! it reads by identity: a check whose working tree and releases are as an earlier check left them reads
//! that check's result back, without reading a model.

use serde::{Deserialize, Serialize};

use super::changes::ProtocolChanges;
use super::compare;
use crate::extract::ExtractError;
use crate::model::ProtocolDecl;
use crate::outcome::BaselineChoice;
use crate::source::Release;
use crate::store::ReleaseSummary;
use crate::workspace::{CheckedReleases, History};

/// What the comparison step gives the steps after it: each protocol's findings (before the fixtures
/// and `wirecheck.toml` are applied) and the extraction's notes.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Compared {
    pub protocols: Vec<ProtocolChanges>,
    pub notes: Vec<String>,
}

/// The protocols of the two models a kept comparison compared, for the steps after it.
pub(super) struct Declared {
    /// The working tree's.
    pub current: Vec<ProtocolDecl>,
    /// The baseline's.
    pub base: Vec<ProtocolDecl>,
    /// The older releases that could not be read, by commit, with the error.
    pub unreadable: Vec<(String, ExtractError)>,
}

/// An older release as a kept comparison names it: as the store holds it, or the error its extraction
/// gave (see [`History::release_unreadable`]).
pub(super) type Older = Result<ReleaseSummary, ExtractError>;

/// Everything the comparison step reads, by identity: the baseline's name (the findings say it), each
/// model's identity in the store (the working tree's model id; of each release its protocols'
/// declarations, kept messages and part ids, and its notes), the older releases by tag and commit, oldest
/// first. Which messages of an older release are compared follows from the working tree's protocols,
/// which its model id names.
#[derive(Hash)]
struct Key<'a> {
    rev: &'a str,
    /// `None`: a first release (nothing to compare with).
    base: Option<(&'a str, &'a ReleaseSummary)>,
    current: &'a str,
    /// An unreadable release by its error's text.
    older: Vec<(&'a str, &'a str, Result<&'a ReleaseSummary, String>)>,
}

impl<'a> Key<'a> {
    /// The key of comparing the working tree's model `current` with the baseline's `base` and the older
    /// releases of `releases` (`older`, in the same order).
    fn new(
        releases: &'a CheckedReleases,
        base: Option<&'a ReleaseSummary>,
        current: &'a str,
        older: &'a [(&'a Release, Older)],
    ) -> Key<'a> {
        Key {
            rev: &releases.baseline.rev,
            base: base.map(|summary| (releases.baseline.commit.as_str(), summary)),
            current,
            older: older
                .iter()
                .map(|(release, older)| {
                    let older = older.as_ref().map_err(ToString::to_string);
                    (release.tag.as_str(), release.commit.as_str(), older)
                })
                .collect(),
        }
    }
}

/// The comparison an earlier check kept for exactly these models, when the store names each of them as
/// it holds it now (the working tree's model still holds; every release is there, with the messages
/// this check reads of it). No model is read.
pub(super) fn read(
    history: &History<'_>,
    releases: &CheckedReleases,
) -> Option<(Compared, Declared)> {
    let current = history.current_summary()?;
    read_for(history, releases, &current.model, current.protocols)
}

/// [`read`], for the working tree's model whose id is `model` and whose protocols are `protocols` (an
/// extraction of the working tree can give the model an earlier check compared: an edit of code no
/// message reaches).
pub(super) fn read_for(
    history: &History<'_>,
    releases: &CheckedReleases,
    model: &str,
    protocols: Vec<ProtocolDecl>,
) -> Option<(Compared, Declared)> {
    let stored = Stored::of(history, releases, &protocols)?;
    let key = Key::new(releases, stored.base.as_ref(), model, &stored.older);
    let compared = history.store().checked(&key)?;
    Some((compared, stored.declared(protocols)))
}

/// The releases a check compares with as the store holds them, without their parts: what names them in
/// a kept comparison's key.
pub(super) struct Stored<'r> {
    /// The baseline's (`None`: a first release).
    pub base: Option<ReleaseSummary>,
    /// Each older release's, oldest first, or the error its extraction gave.
    pub older: Vec<(&'r Release, Older)>,
}

impl<'r> Stored<'r> {
    /// The releases of `releases` as the store holds them, read with what a working tree that declares
    /// `protocols` compares of them; `None` when one is not there.
    pub(super) fn of(
        history: &History<'_>,
        releases: &'r CheckedReleases,
        protocols: &[ProtocolDecl],
    ) -> Option<Stored<'r>> {
        let base = match releases.baseline.chosen {
            BaselineChoice::FirstRelease => None,
            _ => Some(history.release_summary(&releases.baseline.commit, None)?),
        };
        let filter = compare::OlderReleaseKeep::new(protocols);
        let keep = |old: &ProtocolDecl| filter.keep(old);
        let older = releases
            .older
            .iter()
            .map(|release| {
                let older = history
                    .release_summary(&release.commit, Some(&keep))
                    .map(Ok)
                    .or_else(|| {
                        let unreadable = history.release_unreadable(&release.commit, filter.name());
                        unreadable.map(Err)
                    })?;
                Some((release, older))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Stored { base, older })
    }

    /// The protocols of the working tree (`current`) and of the baseline, and the older releases that
    /// could not be read.
    pub(super) fn declared(self, current: Vec<ProtocolDecl>) -> Declared {
        let unreadable = self
            .older
            .into_iter()
            .filter_map(|(release, older)| Some((release.commit.clone(), older.err()?)))
            .collect();
        Declared {
            current,
            base: self
                .base
                .map(|summary| summary.protocols().cloned().collect())
                .unwrap_or_default(),
            unreadable,
        }
    }
}

/// Keeps `compared`, the comparison of the models this process read (as the store served or wrote
/// them: never what it holds afterwards, which another check may have replaced), for the next check.
/// Not kept when a model was not served by the store (`--no-cache`), or an older release was neither
/// read nor found unreadable.
pub(super) fn keep(history: &History<'_>, releases: &CheckedReleases, compared: &Compared) {
    let store = history.store();
    let Some(current) = store.used_working() else {
        return;
    };
    let base = match releases.baseline.chosen {
        BaselineChoice::FirstRelease => None,
        _ => match store.used_release(&releases.baseline.commit) {
            Some(summary) => Some(summary),
            None => return,
        },
    };
    let Some(older) = releases
        .older
        .iter()
        .map(|release| {
            let older = store.used_release(&release.commit).map(Ok);
            let older = older.or_else(|| store.used_unreadable(&release.commit).map(Err))?;
            Some((release, older))
        })
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    store.keep_checked(
        &Key::new(releases, base.as_ref(), &current, &older),
        compared,
    );
}
