use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "eventlog", version = "0.1.0")]
pub struct JobEventlog;

#[derive(Message)]
#[wire(protocol = JobEventlog, topic = "job.eventlog", kind = "record")]
pub enum Event {
    Submit,
    #[wire(allow(variant_removed))]
    Alloc,
    Finish {
        #[wire(reason = "status is always written")]
        status: i32,
    },
}

fn main() {}
