use wirecheck::Protocol;

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0", topic = "sched.alloc")]
pub struct Sched;

fn main() {}
