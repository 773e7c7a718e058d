// `streams` takes a type path with generic arguments; the kind assertion spans all of it.
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.watch", kind = "request", streams = self::Watch<u64>)]
pub struct WatchRequest;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.watch", kind = "request")]
pub struct Watch<T>(pub T);

fn main() {}
