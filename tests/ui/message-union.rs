use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.raw", kind = "event")]
pub union Raw {
    pub word: u64,
    pub bytes: [u8; 8],
}

fn main() {}
