//! The `wirecheck` binary: see `wirecheck --help`.
fn main() -> std::process::ExitCode {
    wirecheck::cli::main()
}
