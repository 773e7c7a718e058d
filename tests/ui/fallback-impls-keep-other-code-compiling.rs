// The derives emit placeholder impls with their errors: only the attribute errors below are reported,
// none of the code using the types adds a "trait not implemented" error.
use wirecheck::{Kind, Message, Protocol};

#[derive(Protocol)]
#[wire(name = "sched", version = "0.88")]
pub struct Sched;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "request", responds = AllocResponse)]
pub struct AllocRequest;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.alloc", kind = "reply")]
pub struct AllocResponse;

#[derive(Message)]
#[wire(protocol = Sched, topic = "sched.free", kind = "request")]
pub struct FreeRequest {
    #[wire(since = "later")]
    pub id: u64,
}

#[derive(Message)]
#[wire(protocol = Sched, kind = "event")]
pub struct Generic<T: Clone>(pub T);

fn topic<M: Message>() -> &'static str {
    M::TOPIC
}

fn protocol_name<M: Message>() -> &'static str {
    <M::Protocol as Protocol>::NAME
}

fn main() {
    let _: &str = <Sched as Protocol>::VERSION;
    let _ = Sched::info();
    let _: Kind = <AllocResponse as Message>::KIND;
    let _: <AllocRequest as Message>::Response = AllocResponse;
    let _ = (
        topic::<FreeRequest>(),
        topic::<AllocResponse>(),
        topic::<Generic<u8>>(),
    );
    let _ = protocol_name::<AllocRequest>();
}
