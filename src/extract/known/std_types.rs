//! std types, as serde's own impls write and read them (serde's `ser/impls.rs` and `de/impls.rs`).

use super::Known;
use crate::model::{SeqKind, Ty};

/// The wire shape of a std type (or of `serde_json::Value` and `serde_json::Map`), by its last path
/// segment when the path is std's, serde_json's or a bare prelude name.
pub(super) fn lookup(path: &[String], args: &[Ty]) -> Option<Known> {
    let name = path.last()?.as_str();
    let arg = |i: usize| args.get(i).cloned();
    let int = |signed, bits| Some(Ty::Int { signed, bits });
    let ty = match name {
        "bool" => Some(Ty::Bool),
        "char" => Some(Ty::Char),
        "str" | "String" | "PathBuf" | "Path" | "OsString" => Some(Ty::String),
        "u8" => int(false, 8),
        "u16" => int(false, 16),
        "u32" => int(false, 32),
        "u64" | "usize" => int(false, 64),
        "u128" => int(false, 128),
        "i8" => int(true, 8),
        "i16" => int(true, 16),
        "i32" => int(true, 32),
        "i64" | "isize" => int(true, 64),
        "i128" => int(true, 128),
        "f32" => Some(Ty::Float { bits: 32 }),
        "f64" => Some(Ty::Float { bits: 64 }),
        "Value" if path.first().is_some_and(|f| f == "serde_json") || path.len() == 1 => {
            // A bare `Value` only counts when imported from serde_json; that import resolves to a
            // serde_json path, so a bare unresolved `Value` is someone else's.
            (path.len() > 1).then_some(Ty::Value)
        }
        "Map" if path.first().is_some_and(|f| f == "serde_json") => Some(Ty::Map {
            key: Box::new(Ty::String),
            value: Box::new(Ty::Value),
        }),
        "Option" => Some(Ty::Option {
            inner: Box::new(arg(0)?),
        }),
        "Box" | "Rc" | "Arc" | "Cell" | "RefCell" | "Mutex" | "RwLock" | "Reverse" | "Wrapping"
        | "Cow" => arg(0),
        "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" => Some(Ty::Seq {
            kind: SeqKind::List,
            elem: Box::new(arg(0)?),
        }),
        "HashSet" | "BTreeSet" => Some(Ty::Seq {
            kind: SeqKind::Set,
            elem: Box::new(arg(0)?),
        }),
        "HashMap" | "BTreeMap" => Some(Ty::Map {
            key: Box::new(arg(0)?),
            value: Box::new(arg(1)?),
        }),
        "PhantomData" => Some(Ty::Unit),
        _ => None,
    };
    ty.map(Known::plain)
}
