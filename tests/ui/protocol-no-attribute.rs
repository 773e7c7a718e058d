use wirecheck::Protocol;

#[derive(Protocol)]
pub struct Sched;

fn main() {}
