//! This repository's own tasks: `cargo xtask check`, `cargo xtask demo`, `cargo xtask bench`.
fn main() -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
