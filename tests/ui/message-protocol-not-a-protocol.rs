use wirecheck::Message;

pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest;

fn main() {}
