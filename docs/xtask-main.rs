// xtask/src/main.rs: wirecheck as a subcommand of your own `cargo xtask`.
//
// xtask/Cargo.toml:
//     [dependencies]
//     wirecheck = { version = "0.1", features = ["checker"] }
//     clap = { version = "4", features = ["derive"] }
// .cargo/config.toml:
//     [alias]
//     xtask = "run --quiet --package xtask --"
//
// Then: cargo xtask wire check --format github
//       cargo xtask wire matrix --releases 5 --format html --output matrix.html
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// This workspace's tasks.
#[derive(Parser)]
#[command(name = "xtask")]
struct Xtask {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Wire-protocol compatibility: check, baseline, snapshot, matrix, rules, explain.
    #[command(subcommand)]
    Wire(wirecheck::cli::Command),
    /// One of your own tasks.
    Dist,
}

fn main() -> ExitCode {
    match Xtask::parse().task {
        // The one line: wirecheck parses nothing more, prints its report and returns its exit code
        // (0 ok, 1 a protocol's declared version is short, 2 the check could not run).
        Task::Wire(command) => wirecheck::cli::run_command(command),
        Task::Dist => ExitCode::SUCCESS,
    }
}
