// A response that is not a type path is one error on the whole value; the keys after it are still read.
use wirecheck::{Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88.0")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, kind = "request", streams = &[Watch<u64>], topic = "sched.watch")]
pub struct WatchRequest;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.watch", kind = "response")]
pub struct Watch<T>(pub T);

fn main() {}
