// Values passed in by `macro_rules!` are read like written ones, and their errors point at the argument.
use wirecheck::Protocol;

macro_rules! protocol {
    ($name:literal, $version:literal) => {
        #[derive(Protocol)]
        #[wire(name = $name, version = $version)]
        pub struct Sched;
    };
}

protocol!("sched", "v0.88.0");

fn main() {}
