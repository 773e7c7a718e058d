//! Collections with serde impls of their own that write what std's do: `indexmap::IndexMap` is a map
//! and `IndexSet` a set (indexmap 1.x and 2.x, `serde` feature), `smallvec::SmallVec<[T; N]>` a
//! sequence of `T` (smallvec 1.x, `serde` feature).

use super::{Entry, Known};
use crate::model::{SeqKind, Ty};

/// `IndexMap<K, V, S>`: a map of `K` to `V`.
fn index_map(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Map {
        key: Box::new(args.first()?.clone()),
        value: Box::new(args.get(1)?.clone()),
    }))
}

/// `IndexSet<T, S>`: a set of `T`.
fn index_set(args: &[Ty]) -> Option<Known> {
    Some(Known::plain(Ty::Seq {
        kind: SeqKind::Set,
        elem: Box::new(args.first()?.clone()),
    }))
}

/// `SmallVec<[T; N]>`: a list of `T`.
fn small_vec(args: &[Ty]) -> Option<Known> {
    match args.first()? {
        Ty::Array { elem, .. } => Some(Known::plain(Ty::Seq {
            kind: SeqKind::List,
            elem: elem.clone(),
        })),
        _ => None,
    }
}

/// The table.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        krate: "indexmap",
        versions: ">=1.0.0, <3.0.0",
        items: &["IndexMap", "map::IndexMap"],
        shape: index_map,
    },
    Entry {
        krate: "indexmap",
        versions: ">=1.0.0, <3.0.0",
        items: &["IndexSet", "set::IndexSet"],
        shape: index_set,
    },
    Entry {
        krate: "smallvec",
        versions: ">=1.0.0, <2.0.0",
        items: &["SmallVec"],
        shape: small_vec,
    },
];
