// `#[wire(as = Type)]` takes a type that exists (checked by the compiler), written as a type, once.
use wirecheck::Wire;

#[derive(Wire)]
#[wire(as = Strng)]
pub struct Level(u8);

#[derive(Wire)]
#[wire(as = "String")]
pub struct Name(String);

#[derive(Wire)]
#[wire(as = String, as = u64)]
pub struct Id(u64);

fn main() {}
