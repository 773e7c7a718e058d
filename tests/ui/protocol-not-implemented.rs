// A type used as a protocol without `#[derive(Protocol)]` gets wirecheck's own diagnostic.
use wirecheck::Protocol;

pub struct Sched;

fn name<P: Protocol>() -> &'static str {
    P::NAME
}

fn main() {
    let _ = name::<Sched>();
}
