//! `cargo xtask demo`: replays the Flux protocols' history and prints, release by release, wirecheck's
//! findings and the verdict a release manager reads; `--markdown` prints only the summary table.

use std::process::ExitCode;

use anyhow::{Result, bail};
use wirecheck::report::{OutputFormat, render};

use crate::history::{self, StepResult};

/// Runs `cargo xtask demo [--markdown]`.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let markdown = match args {
        [] => false,
        [flag] if flag == "--markdown" => true,
        _ => bail!("usage: cargo xtask demo [--markdown]"),
    };
    let dir = history::history_dir();
    let results = if markdown {
        let results = history::replay(&dir, |_| {})?;
        print!("{}", history::markdown_table(&results));
        results
    } else {
        println!(
            "Replaying the history of the Flux protocols ({}): each flux-core release is written into a \
             scratch git repository, checked by wirecheck against the previous release tag, then committed \
             and tagged.\n",
            dir.display()
        );
        let results = history::replay(&dir, print_step)?;
        println!("Summary\n");
        print!("{}", history::text_table(&results));
        results
    };
    let mismatches: Vec<String> = results.iter().flat_map(StepResult::mismatches).collect();
    if mismatches.is_empty() {
        if !markdown {
            println!(
                "\nEvery release behaves as examples/flux-protocols/history/steps.toml records ({} releases).",
                results.len()
            );
        }
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("\nThe replay disagrees with steps.toml:");
        for m in &mismatches {
            eprintln!("  {m}");
        }
        Ok(ExitCode::from(1))
    }
}

fn print_step(result: &StepResult) {
    let step = &result.step;
    let title = match &result.previous {
        Some(prev) => format!("{} against {prev}", step.tag),
        None => format!("{} (baseline)", step.tag),
    };
    println!(
        "=== {title} {}",
        "=".repeat(100usize.saturating_sub(title.len() + 5))
    );
    println!("changed: {}", step.changed);
    println!("source:  {}\n", step.source);
    if let Some(report) = &result.report {
        // Breaks with older releases that the previous release already had are reported by every later
        // check ("known history", not counted again); the demo shows what this release changes.
        let mut report = report.clone();
        let mut known = 0;
        for p in &mut report.protocols {
            known += p.findings.iter().filter(|f| f.known).count();
            p.findings.retain(|f| !f.known);
        }
        print!("{}", render(&report, OutputFormat::Human));
        if known > 0 {
            println!(
                "({known} break{} with older releases that {} already had: known history, not repeated here)",
                if known == 1 { "" } else { "s" },
                report.baseline.rev
            );
        }
        println!();
    }
    for s in &step.static_blind {
        println!(
            "static-blind ({}, {}): {}\n  declared: {}",
            s.protocol, s.bump, s.what, s.declared
        );
    }
    for g in &step.known_gap {
        println!(
            "known gap ({}): wirecheck should require {} {:?}: {}",
            g.protocol, g.bump, g.rules, g.what
        );
    }
    if !step.static_blind.is_empty() || !step.known_gap.is_empty() {
        println!();
    }
    println!("{}\n", history::verdict(result));
}
