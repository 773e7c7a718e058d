// Every invalid annotation of an item is reported in the same compile, in source order.
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(
    name = "sched",
    version = "latest",
    upgrade = "sideways",
    colour = "red"
)]
#[wire(format = "xml")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = "Sched", kind = "reply", allow(field_removed))]
pub enum Alloc {
    #[wire(since = "soon")]
    Request {
        #[wire(allow(field_removed), colour = "red")]
        id: u64,
    },
    Response(#[wire(reason = "no allow")] u64),
}

fn main() {}
