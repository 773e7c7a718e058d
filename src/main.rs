//! The `wirecheck` binary: see `wirecheck --help`.

// The checker allocates many small, short-lived values (syn trees, names, model types): with glibc's
// allocator a third of a cold check's time was malloc and free. mimalloc (without transparent huge pages,
// which raised the peak RSS by 20 MiB for no speed) halves that. Only the binary sets it: a user's xtask
// that links `wirecheck::cli` keeps its own allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    wirecheck::cli::main()
}
