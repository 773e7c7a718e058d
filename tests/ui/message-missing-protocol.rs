use wirecheck::Message;

#[derive(Message)]
#[wire(topic = "sched.free", kind = "request")]
pub struct FreeRequest;

fn main() {}
