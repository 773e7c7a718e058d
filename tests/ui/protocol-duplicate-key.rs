use wirecheck::Protocol;

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
#[wire(version = "0.89.0")]
pub struct Sched;

fn main() {}
