// `#[wire(as = Type)]` takes a type, written as a type, once.
use wirecheck::Wire;

#[derive(Wire)]
#[wire(as = "String")]
pub struct Name(String);

#[derive(Wire)]
#[wire(as = String, as = u64)]
pub struct Id(u64);

fn main() {}
