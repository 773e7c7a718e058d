//! 128-bit digests of values (XXH3-128 over the bytes their `Hash` writes), and of shared type
//! definitions once per definition: the store's ids hash the same `Arc<TypeDef>` for the working tree's
//! model, each release's parts, each part's shape and each comparison's key, and the revisions of a check
//! share most definitions. A definition's digest stands for it in those hashes: equal definitions have
//! equal digests, and a digest tells definitions apart as well as their bytes do (up to a collision of
//! XXH3-128).
//!
//! The digests already taken are remembered per thread by the definition's allocation, next to a `Weak`
//! of it: while it is remembered, the allocation cannot be reused for another definition, and a
//! definition cannot change in place (`Arc::get_mut` refuses, `Arc::make_mut` moves it to a new
//! allocation while a `Weak` exists). Entries of dropped definitions are let go as the table grows.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Weak};

use rustc_hash::FxHashMap;

use super::TypeDef;

/// XXH3-128 of the bytes `value`'s `Hash` writes.
pub fn content_digest(value: &(impl Hash + ?Sized)) -> u128 {
    // What `value` feeds a hasher, once, then hashed in one pass: hashing it piecewise cost a fifth of a
    // warm check (std's `Hasher`s take each integer and string on its own). The buffer is one the
    // thread used before: a cold check takes thousands of digests (two per definition, nested in the
    // digests of the models and parts that hold them), and growing a fresh buffer for each cost more
    // than hashing it.
    let mut bytes = Bytes(BUFFERS.with(|buffers| buffers.borrow_mut().pop().unwrap_or_default()));
    value.hash(&mut bytes);
    let digest = twox_hash::XxHash3_128::oneshot(&bytes.0);
    let mut buffer = bytes.0;
    if buffer.capacity() <= MAX_KEPT_BUFFER {
        buffer.clear();
        BUFFERS.with(|buffers| buffers.borrow_mut().push(buffer));
    }
    digest
}

/// The largest buffer kept for the next digest (a model's digest may take megabytes once).
const MAX_KEPT_BUFFER: usize = 64 * 1024;

thread_local! {
    /// Buffers of finished digests, for the next ones (one per level of nesting in use at once).
    static BUFFERS: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// A [`Hasher`] that keeps what it is fed (see [`content_digest`]): the bytes a hasher would see, so the
/// digest tells values apart as well as hashing them piecewise does.
struct Bytes(Vec<u8>);

impl Hasher for Bytes {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// Not what [`content_digest`] uses: a hash of the bytes kept, for completeness.
    fn finish(&self) -> u64 {
        // The low half of the 128-bit hash.
        twox_hash::XxHash3_128::oneshot(&self.0) as u64
    }
}

/// What a definition's digest is of: the definition itself, or what a comparison reads of it (the store's
/// shape: without locations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestOf {
    /// The definition, locations included.
    Whole,
    /// What a comparison reads of it: without locations.
    Shape,
}

/// A remembered definition: its allocation held by a `Weak`, and its digests taken so far.
struct Digested {
    def: Weak<TypeDef>,
    whole: Option<u128>,
    shape: Option<u128>,
}

/// The digests taken on a thread, by allocation.
#[derive(Default)]
struct Digests {
    by_def: FxHashMap<usize, Digested>,
    /// How many entries were left at the last pruning.
    kept: usize,
}

thread_local! {
    static DIGESTS: RefCell<Digests> = RefCell::default();
}

/// The digest of `def` as `of`: `compute` (which must give the same for equal definitions) the first
/// time it is asked for this definition, then remembered.
pub fn digest_of(def: &Arc<TypeDef>, of: DigestOf, compute: impl FnOnce(&TypeDef) -> u128) -> u128 {
    let key = Arc::as_ptr(def) as usize;
    let known = DIGESTS.with(|digests| {
        let digests = digests.borrow();
        let entry = digests.by_def.get(&key)?;
        // The entry's `Weak` kept the allocation: an entry at this address is this definition's.
        debug_assert!(Weak::ptr_eq(&entry.def, &Arc::downgrade(def)));
        match of {
            DigestOf::Whole => entry.whole,
            DigestOf::Shape => entry.shape,
        }
    });
    if let Some(known) = known {
        return known;
    }
    let digest = compute(def);
    DIGESTS.with(|digests| {
        let mut digests = digests.borrow_mut();
        let entry = digests.by_def.entry(key).or_insert_with(|| Digested {
            def: Arc::downgrade(def),
            whole: None,
            shape: None,
        });
        match of {
            DigestOf::Whole => entry.whole = Some(digest),
            DigestOf::Shape => entry.shape = Some(digest),
        }
        digests.prune();
    });
    digest
}

impl Digests {
    /// Lets go of the entries of dropped definitions once the table has doubled since the last time.
    fn prune(&mut self) {
        if self.by_def.len() <= (2 * self.kept).max(4096) {
            return;
        }
        self.by_def.retain(|_, entry| entry.def.strong_count() > 0);
        self.kept = self.by_def.len();
    }
}

/// Hashes a map of definitions by path (as a `BTreeMap`'s `Hash` lays it out) with each definition as
/// its digest `of`, computed by `compute`.
pub fn hash_defs<'d, H: Hasher>(
    defs: impl ExactSizeIterator<Item = (&'d str, &'d Arc<TypeDef>)>,
    of: DigestOf,
    compute: impl Fn(&TypeDef) -> u128,
    state: &mut H,
) {
    state.write_usize(defs.len());
    for (path, def) in defs {
        path.hash(state);
        state.write_u128(digest_of(def, of, &compute));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, ContainerAttrs, Location, Style};

    fn def(path: &str) -> Arc<TypeDef> {
        Arc::new(TypeDef {
            path: path.to_owned(),
            generics: Vec::new(),
            attrs: ContainerAttrs::default(),
            body: Body::Struct {
                style: Style::Unit,
                fields: Vec::new(),
            },
            location: Location::default(),
            package: None,
        })
    }

    fn whole(def: &Arc<TypeDef>) -> u128 {
        digest_of(def, DigestOf::Whole, content_digest)
    }

    /// Equal definitions have equal digests whatever their allocation; others differ; and a definition
    /// allocated where a dropped one was gets its own digest, not the remembered one.
    #[test]
    fn a_digest_follows_the_definition_not_its_address() {
        let a = def("A");
        let also_a = def("A");
        assert_eq!(whole(&a), whole(&also_a));
        assert_eq!(whole(&a), content_digest(&*a));
        assert_ne!(whole(&a), whole(&def("B")));
        for round in 0..10_000 {
            let name = format!("T{round}");
            let fresh = def(&name);
            assert_eq!(whole(&fresh), content_digest(&*fresh), "{name}");
        }
        let mut changed = Arc::clone(&a);
        drop(also_a);
        Arc::make_mut(&mut changed).path = "C".to_owned();
        assert_eq!(whole(&changed), content_digest(&*changed));
        assert_ne!(whole(&changed), whole(&a));
        let mut alone = def("D");
        let before = whole(&alone);
        Arc::make_mut(&mut alone).path = "E".to_owned();
        assert_ne!(whole(&alone), before);
        assert_eq!(whole(&alone), content_digest(&*alone));
    }

    /// The two digests of a definition are kept apart.
    #[test]
    fn whole_and_shape_digests_are_kept_apart() {
        let a = def("A");
        let whole_digest = whole(&a);
        let shape = digest_of(&a, DigestOf::Shape, |_| 7);
        assert_eq!(shape, 7);
        assert_eq!(whole(&a), whole_digest);
        assert_eq!(digest_of(&a, DigestOf::Shape, |_| 8), 7);
    }
}
