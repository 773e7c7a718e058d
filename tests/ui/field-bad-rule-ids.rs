// Each bad rule id is one error on its own tokens, with the snake_case spelling to write instead.
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {
    #[wire(allow(Field-Removed), reason = "renamed")]
    pub id: u64,
    #[wire(allow(field_renamed, "field_type_changed"), reason = "widened")]
    pub priority: u64,
    #[wire(allow = "field_removed", reason = "renamed")]
    pub userid: u32,
}

fn main() {}
