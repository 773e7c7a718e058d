use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.status", kind = "event", responds = Ack)]
pub struct StatusEvent;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.status", kind = "response")]
pub struct Ack;

fn main() {}
