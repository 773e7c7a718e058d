use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, kind = "request")]
pub struct FreeRequest;

fn main() {}
