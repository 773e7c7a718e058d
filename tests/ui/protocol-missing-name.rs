use wirecheck::Protocol;

#[derive(Protocol)]
#[wire(version = "0.88.0")]
pub struct Sched;

fn main() {}
