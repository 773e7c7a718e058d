use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {
    pub id: u64,
    #[wire(since = "0.56")]
    pub priority: u32,
    #[wire(topic = "sched.alloc")]
    pub userid: u32,
}

fn main() {}
