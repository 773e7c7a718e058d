use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.hello", kind = "request", responds = HelloResponse, streams = HelloResponse)]
pub struct HelloRequest;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.hello", kind = "response")]
pub struct HelloResponse;

fn main() {}
