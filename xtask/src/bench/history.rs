//! `check, a real history`: every consecutive pair of releases of the replay `cargo xtask realworld`
//! stages for tendermint-rpc (its messages in tendermint-rpc, nearly every field a type of its lockstep
//! sibling crates, hand-written impls and `with` modules: dependency sources followed, hundreds of
//! types reached), each checked cold (`--no-cache`) and warm (the store a first check of the pair
//! kept). The two must print the same report (the store is only a cache). Targets, per pair: 0.3 s
//! cold, 0.1 s warm. Skipped, saying so, when the replay is not staged (it needs the registry).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context as _, Result, ensure};

use super::{Timing, check_ok, measure};

/// The replay whose history is measured, under `target/realworld/`.
const CRATE: &str = "tendermint-rpc";

/// The per-pair medians of a real history's checks.
pub(super) struct History {
    pub(super) pairs: usize,
    pub(super) cold: Timing,
    pub(super) warm: Timing,
}

impl History {
    /// The report's line.
    pub(super) fn line(&self) -> String {
        let secs = |d: Duration| d.as_secs_f64();
        format!(
            "real history ({CRATE}, {} pairs, sibling crates' sources followed): per pair cold {:.3} s (max {:.3}), warm {:.3} s (max {:.3}); targets 0.3 and 0.1",
            self.pairs,
            secs(self.cold.median()),
            secs(self.cold.max()),
            secs(self.warm.median()),
            secs(self.warm.max()),
        )
    }
}

/// Measures every pair `runs` times each way; `None` when the replay is not staged.
pub(super) fn measure_history(wirecheck: &Path, runs: usize) -> Result<Option<History>> {
    let repo = crate::workspace_root()
        .join("target/realworld")
        .join(CRATE)
        .join("repo");
    if !repo.join(".git").exists() {
        eprintln!(
            "bench: the real history is not staged: run `cargo xtask realworld --crate {CRATE}` once (it needs the registry) to measure it"
        );
        return Ok(None);
    }
    let tags = tags(&repo)?;
    let mut history = History {
        pairs: 0,
        cold: Timing::default(),
        warm: Timing::default(),
    };
    for pair in tags.windows(2) {
        let [old, new] = pair else { continue };
        git(&repo, &["checkout", "--quiet", "--force", new])?;
        let command = |cached: bool| {
            let mut cmd = Command::new(wirecheck);
            cmd.args(["check", "--format", "json", "--against", old])
                .current_dir(&repo)
                .env_remove("CARGO_TARGET_DIR");
            if !cached {
                cmd.arg("--no-cache");
            }
            cmd
        };
        let (cold, cold_report) = measure(runs, false, || command(false), check_ok)?;
        // The first check of the pair fills the store; the timed ones read it.
        measure(1, false, || command(true), check_ok)?;
        let (warm, warm_report) = measure(runs, false, || command(true), check_ok)?;
        ensure!(
            cold_report == warm_report,
            "{old} -> {new}: the warm check's report differs from the cold one's"
        );
        history.cold.runs.push(cold.median());
        history.warm.runs.push(warm.median());
        history.pairs += 1;
    }
    Ok(Some(history))
}

/// The release tags of the staged replay, oldest first.
fn tags(repo: &Path) -> Result<Vec<String>> {
    let out = git(repo, &["tag", "--sort=v:refname"])?;
    Ok(out.lines().map(str::to_owned).collect())
}

fn git(repo: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .output()
        .with_context(|| format!("running git {args:?}"))?;
    ensure!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
