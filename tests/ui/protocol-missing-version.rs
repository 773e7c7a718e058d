use wirecheck::Protocol;

#[derive(Protocol)]
#[wire(name = "sched")]
pub struct Sched;

fn main() {}
