// `#[wire(as = Type)]` declares the wire shape of a type whose serde impls are written by hand: any type,
// generic arguments of the item included.
use std::marker::PhantomData;

use wirecheck::Wire;

#[derive(Wire)]
#[wire(as = String)]
pub enum Level {
    Debug,
    Info,
}

#[derive(Wire)]
#[wire(as = Vec<T>)]
pub struct Batch<T>(PhantomData<T>);

#[derive(Wire)]
#[wire(as = std::collections::BTreeMap<String, [u8; 4]>)]
pub struct Table;

fn main() {}
