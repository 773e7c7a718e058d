// The type `#[wire(as = Type)]` names must exist: the compiler checks it (a typo is an error on the path).
use wirecheck::Wire;

#[derive(Wire)]
#[wire(as = Strng)]
pub enum Level {
    Debug,
    Info,
}

fn main() {}
