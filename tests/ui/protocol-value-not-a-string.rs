use wirecheck::Protocol;

#[derive(Protocol)]
#[wire(name = sched, version = "0.88.0")]
pub struct Sched;

fn main() {}
