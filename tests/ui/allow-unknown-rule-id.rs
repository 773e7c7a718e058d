// A rule id that does not exist is an error on its token, with the closest rule id when there is one: a typo
// must not silently allow nothing.
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", allow(feld_removed), reason = "renamed")]
pub struct AllocRequest {
    #[wire(allow(field_removed, variant_remove), reason = "renamed")]
    pub id: u64,
    #[wire(allow(no_such_rule), reason = "widened")]
    pub priority: u64,
}

fn main() {}
