use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

pub struct HelloResponse;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.hello", kind = "request", streams = HelloResponse)]
pub struct HelloRequest;

fn main() {}
