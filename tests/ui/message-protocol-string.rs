use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = "Sched", topic = "sched.free", kind = "request")]
pub struct FreeRequest;

fn main() {}
