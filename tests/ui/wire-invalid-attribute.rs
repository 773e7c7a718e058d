// `#[derive(Wire)]` checks the `#[wire(...)]` of fields and variants as `#[derive(Message)]` does; on the type
// itself it accepts only `as = Type`.
use wirecheck::Wire;

#[derive(Wire)]
#[wire(allow(field_removed), reason = "renamed")]
pub struct Limits {
    #[wire(since = "1")]
    pub cores: u32,
    #[wire(allow(feld_removed), reason = "renamed")]
    pub gpus: u32,
}

#[derive(Wire)]
pub enum Mode {
    #[wire(topic = "sched.alloc")]
    Fast,
    Slow(#[wire(allow(field_removed))] u8),
}

fn main() {}
