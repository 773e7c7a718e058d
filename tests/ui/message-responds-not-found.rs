use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", responds = AllocReponse)]
pub struct AllocRequest;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "response")]
pub struct AllocResponse;

fn main() {}
