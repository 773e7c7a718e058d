//! The `wirecheck` binary: see `wirecheck --help`.

// The checker allocates many small, short-lived values (syn trees, names, model types): with glibc's
// allocator a third of a cold check's time was malloc and free. mimalloc (without transparent huge pages,
// which raised the peak RSS by 20 MiB for no speed) halves that. Only the binary sets it: a user's xtask
// that links `wirecheck::cli` keeps its own allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let status = wirecheck::cli::main_status();
    end(status)
}

/// Ends the process with `status` at once: everything the command writes is written and flushed (its
/// store writes joined) when `main_status` returns, and nothing needs the C runtime's exit handlers,
/// of which mimalloc's walked every page the process still held to free it (13 ms of a 0.6 s cold
/// check), for memory the operating system takes back whole.
#[cfg(unix)]
fn end(status: u8) -> std::process::ExitCode {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` only ends the process; no Rust state is observed after it.
    unsafe { libc::_exit(i32::from(status)) }
}

/// Elsewhere, the process ends as usual.
#[cfg(not(unix))]
fn end(status: u8) -> std::process::ExitCode {
    std::process::ExitCode::from(status)
}
