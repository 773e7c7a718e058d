//! The skew test of one protocol: its release folders, the files in each, the cases in each file.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use semver::Version;

use super::fixture_file::{FixtureCase, FixtureFile, header_problem, read_folder};
use super::outcome::{Failure, Outcome};
use super::payload::{contains, shorten};
use super::{Directions, Entry, RoundTrip, directions};
use crate::handshake::{in_window, window_minimum};
use crate::{Format, Kind, ProtocolInfo};

/// Checks the fixtures of the protocol `name` (in `dir/name/`) against its listed message types `entries`,
/// adding to `outcome` and `failures`.
pub(super) fn check_protocol(
    dir: &Path,
    name: &str,
    entries: &[&Entry],
    outcome: &mut Outcome,
    failures: &mut Vec<Failure>,
) {
    let info = entries[0].protocol;
    let folder = dir.join(name);
    let current = match Version::parse(info.version) {
        Ok(version) => version,
        Err(e) => {
            failures.push(Failure::without_message(
                name,
                info.version,
                info.version,
                format!("the declared version is not semver: {e}"),
                &folder,
            ));
            return;
        }
    };
    let declared = match info.min_compatible.map(Version::parse) {
        Some(Ok(minimum)) => Some(minimum),
        None => None,
        Some(Err(e)) => {
            failures.push(Failure::without_message(
                name,
                info.version,
                info.version,
                format!("the declared min_compatible is not semver: {e}"),
                &folder,
            ));
            return;
        }
    };
    // The window the checker proves and the handshake accepts: the same function.
    let minimum = window_minimum(&current, declared.as_ref());
    let mut check = ProtocolCheck {
        name,
        info,
        entries,
        current_text: current.to_string(),
        current,
        minimum,
        outcome,
        failures,
    };
    let releases = check.release_folders(&folder);
    check.require_current_fixtures(&folder);
    for (version, release_folder) in &releases {
        check.check_release(version, release_folder);
    }
}

/// One protocol under test, and where its results go.
struct ProtocolCheck<'a> {
    name: &'a str,
    info: ProtocolInfo,
    entries: &'a [&'a Entry],
    /// The current declared version.
    current: Version,
    /// `current`, as folders and failures write it.
    current_text: String,
    /// The oldest release every message must interoperate with (`min_compatible` or the series default).
    minimum: Version,
    outcome: &'a mut Outcome,
    failures: &'a mut Vec<Failure>,
}

impl ProtocolCheck<'_> {
    /// Every release folder of the protocol, oldest first; a folder not named by a version is a failure.
    fn release_folders(&mut self, folder: &Path) -> Vec<(Version, PathBuf)> {
        let mut releases = Vec::new();
        if let Ok(children) = std::fs::read_dir(folder) {
            for child in children.flatten() {
                if !child.path().is_dir() {
                    continue;
                }
                let child_name = child.file_name().to_string_lossy().into_owned();
                match Version::parse(&child_name) {
                    Ok(version) => releases.push((version, child.path())),
                    Err(_) => self.failures.push(Failure::without_message(
                        self.name,
                        &child_name,
                        &self.current_text,
                        format!(
                            "`{child_name}` is not a version: fixture folders are named <protocol>/<version>"
                        ),
                        &child.path(),
                    )),
                }
            }
        }
        releases.sort_by(|a, b| a.0.cmp_precedence(&b.0));
        releases
    }

    /// Every listed message has a fixture in the current version's folder: the step cannot be forgotten.
    fn require_current_fixtures(&mut self, folder: &Path) {
        let current_folder = folder.join(&self.current_text);
        let current_files = read_folder(&current_folder).unwrap_or_default();
        for entry in self.entries {
            let found = current_files.iter().any(|(_, file)| {
                file.as_ref()
                    .is_ok_and(|file| file.topic == entry.topic && file.kind == entry.kind)
            });
            if !found {
                self.failures.push(Failure {
                    protocol: self.name.to_owned(),
                    release: self.current_text.clone(),
                    current: self.current_text.clone(),
                    message: entry.name.clone(),
                    topic: entry.topic.to_owned(),
                    kind: Some(entry.kind),
                    case: None,
                    direction: None,
                    problem: format!(
                        "no fixture of this message for the current version: run `wirecheck fixtures write` and commit {}",
                        current_folder.display()
                    ),
                    payload: None,
                    file: current_folder.clone(),
                    known: None,
                });
            }
        }
    }

    /// Checks the files of the release `version`, or skips the folder when it is newer than the current
    /// version, or holds nothing to check at its age.
    fn check_release(&mut self, version: &Version, folder: &Path) {
        let release = version.to_string();
        if version.cmp_precedence(&self.current) == Ordering::Greater {
            self.outcome.skipped.push((self.name.to_owned(), release));
            return;
        }
        let in_range = in_window(version, &self.minimum);
        let files = match read_folder(folder) {
            Ok(files) => files,
            Err(problem) => {
                self.failures.push(Failure::without_message(
                    self.name,
                    &release,
                    &self.current_text,
                    problem,
                    folder,
                ));
                return;
            }
        };
        let mut checked_any = false;
        for (path, file) in files {
            match file {
                Ok(file) => checked_any |= self.check_file(&release, in_range, &path, &file),
                Err(problem) => self.failures.push(Failure::without_message(
                    self.name,
                    &release,
                    &self.current_text,
                    problem,
                    &path,
                )),
            }
        }
        let name = self.name.to_owned();
        if checked_any {
            self.outcome.releases.push((name, release));
        } else {
            self.outcome.skipped.push((name, release));
        }
    }

    /// Checks every case of one file of `release`; returns whether the file was checked at all (below the
    /// minimum, only records are).
    fn check_file(
        &mut self,
        release: &str,
        in_range: bool,
        path: &Path,
        file: &FixtureFile,
    ) -> bool {
        let needed = if in_range {
            directions(file.kind, self.info.upgrade)
        } else if file.kind == Kind::Record {
            Directions {
                new_reads_old: true,
                old_reads_new: false,
            }
        } else {
            return false;
        };
        self.outcome.files += 1;
        let checked = CheckedFile {
            protocol: self.name,
            release,
            current: &self.current_text,
            path,
            file,
        };
        if let Some(problem) = header_problem(file, self.name, release) {
            self.failures
                .push(checked.failure(None, None, problem, None));
            return true;
        }
        let Some(entry) = find_entry(self.entries, file) else {
            self.failures.push(checked.failure(
                None,
                None,
                format!(
                    "no listed type reads this message: list the current type with `.message::<T>()` (a {} on `{}` may not disappear while release {release} must interoperate)",
                    file.kind, file.topic
                ),
                None,
            ));
            return true;
        };
        for case in &file.cases {
            checked.check_case(entry, case, needed, self.outcome, self.failures);
        }
        true
    }
}

/// The listed type for a fixture's message: same topic and kind, the type name breaking ties.
fn find_entry<'e>(entries: &[&'e Entry], file: &FixtureFile) -> Option<&'e Entry> {
    let same: Vec<&Entry> = entries
        .iter()
        .copied()
        .filter(|entry| entry.topic == file.topic && entry.kind == file.kind)
        .collect();
    match same.as_slice() {
        [one] => Some(one),
        [] => None,
        many => {
            let named: Vec<&&Entry> = many
                .iter()
                .filter(|entry| entry.name == file.message)
                .collect();
            match named.as_slice() {
                [one] => Some(one),
                _ => None,
            }
        }
    }
}

/// A fixture file being checked, and the release it belongs to.
struct CheckedFile<'a> {
    protocol: &'a str,
    release: &'a str,
    current: &'a str,
    path: &'a Path,
    file: &'a FixtureFile,
}

impl CheckedFile<'_> {
    fn failure(
        &self,
        case: Option<&str>,
        direction: Option<&'static str>,
        problem: String,
        payload: Option<String>,
    ) -> Failure {
        Failure {
            protocol: self.protocol.to_owned(),
            release: self.release.to_owned(),
            current: self.current.to_owned(),
            message: self.file.message.clone(),
            topic: self.file.topic.clone(),
            kind: Some(self.file.kind),
            case: case.map(str::to_owned),
            direction,
            problem,
            payload,
            file: self.path.to_path_buf(),
            known: None,
        }
    }

    /// What a failed decode adds for a positional format: the JSON data model was decoded, not its bytes.
    fn positional_note(&self) -> &'static str {
        let positional = self
            .file
            .format
            .parse::<Format>()
            .is_ok_and(|format| !format.is_self_describing());
        if positional {
            " (decoded from the JSON data model; the positional byte layout is not exercised)"
        } else {
            ""
        }
    }

    /// Runs one payload through the current type `entry` in the `directions` that must work.
    fn check_case(
        &self,
        entry: &Entry,
        case: &FixtureCase,
        directions: Directions,
        outcome: &mut Outcome,
        failures: &mut Vec<Failure>,
    ) {
        let text = case.payload.to_string();
        let shown = shorten(&text);
        let fail = |direction, problem: String| {
            self.failure(
                Some(&case.case),
                Some(direction),
                problem,
                Some(shown.clone()),
            )
        };
        match (entry.round_trip)(&text) {
            Err(RoundTrip::Rejected(e)) => {
                if directions.new_reads_old {
                    outcome.decoded += 1;
                    failures.push(fail(
                        "new reads old",
                        format!(
                            "the current `{}` rejects what release {} writes: {e}{}",
                            entry.name,
                            self.release,
                            self.positional_note()
                        ),
                    ));
                } else {
                    outcome.not_representable += 1;
                }
            }
            Err(RoundTrip::Unwritable(e)) => {
                outcome.decoded += 1;
                failures.push(fail(
                    if directions.old_reads_new {
                        "old reads new"
                    } else {
                        "new reads old"
                    },
                    format!(
                        "the current `{}` decodes the payload but cannot encode it again: {e}",
                        entry.name
                    ),
                ));
            }
            Ok(again) => {
                if directions.new_reads_old {
                    outcome.decoded += 1;
                }
                if directions.old_reads_new {
                    outcome.reencoded += 1;
                    let mut path = String::from("$");
                    if let Err(problem) =
                        contains(&case.payload, &again, self.file.strict, &mut path)
                    {
                        failures.push(fail(
                            "old reads new",
                            format!(
                                "the current `{}` writes this release's data differently, so readers of release {} may not read it: at {path}, {problem}; it writes {}",
                                entry.name,
                                self.release,
                                shorten(&again.to_string())
                            ),
                        ));
                    }
                }
            }
        }
    }
}
