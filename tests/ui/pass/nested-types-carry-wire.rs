// The types a message reaches carry `#[wire(...)]` on their fields and variants with `#[derive(Wire)]`, at
// any depth, in structs, enums and the fields of variants.
use serde::{Deserialize, Serialize};
use wirecheck::{Message, Protocol, Wire};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Serialize, Deserialize, Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request")]
pub struct AllocRequest {
    pub id: u64,
    pub mode: Mode,
}

#[derive(Serialize, Deserialize, Wire)]
pub enum Mode {
    Fast,
    #[wire(allow(variant_added), reason = "every scheduler of 0.87 ignores unknown modes")]
    Batch {
        #[wire(since = "0.88.0")]
        limits: Limits,
    },
}

#[derive(Serialize, Deserialize, Wire)]
pub struct Limits {
    #[wire(allow(integer_narrowed, integer_sign_changed), reason = "no scheduler ever sent more than 2^31 cores")]
    pub cores: i32,
    pub gpus: u32,
}

fn main() {}
