//! The compatibility judgement: compares two snapshots of a protocol and reports what breaks.
//!
//! For every message present in both releases and every direction the contract's table needs, the
//! engine decides whether every payload the writer's schema can produce is accepted by the reader's
//! schema, following serde's behaviour for the protocol's format (self-describing: JSON, CBOR, MessagePack;
//! positional: bincode, postcard). Breaks are `major` findings with a witness payload; changes that are
//! visible on the wire but compatible (or break only a direction the upgrade order never uses) are
//! `minor`; wire-identical changes are not reported.
//!
//! The pipeline: `protocol` pairs the messages of the two releases and runs a `walk::Walk` per pair and
//! direction; the walk compares types by concern, each concern an `impl Walk` block producing
//! `issue::Issue`s; `assemble` turns the issues into findings. The modules, top down (a module imports
//! only modules listed below it):
//!
//! - `protocol`: message pairing, message-level rules, the walks; `assemble`: issues to findings, with
//!   the allows read by `allows` (both releases' allows by where they are written).
//! - The walk's concerns: `self_describing` and `positional` (dispatch on a pair of wire shapes),
//!   `scalars`, `collections`, `objects`, `flatten` (uses `objects`' pair of key namespaces), `enums`,
//!   `variants`, `untagged`, `int_enums` (serde_repr's integer enums), `definitions`, `opaque`, `forms`
//!   (refined values, bytes, reader choices, other crates' types at two versions).
//! - `walk`: the walk's state and its perspective (who writes, which rule name applies).
//! - `sample` (writer samples: the witnesses) and `golden` (fixture payloads), `decode` (serde's
//!   reader model), `wire_eq` (wire equality).
//! - `namespace` (a struct's flattened keys), then `shape` (a type's wire shape), then `wording`.
//! - `issue` and `witness` stand alone; `codec` says what each format's codec does where formats differ.

mod allows;
mod assemble;
mod codec;
mod collections;
mod compact;
mod decode;
mod definitions;
mod dynamic;
mod enums;
mod flatten;
mod forms;
mod golden;
mod int_enums;
mod issue;
mod itself;
mod namespace;
mod objects;
mod opaque;
mod positional;
mod protocol;
mod sample;
mod scalars;
mod self_describing;
mod shape;
mod untagged;
mod variants;
mod walk;
mod wire_eq;
mod witness;
mod wording;

#[cfg(test)]
mod tests;

use crate::findings::{Direction, Finding};
use crate::model::{ModelView, Snapshot};
use crate::{Kind, Upgrade};

#[doc(hidden)]
pub use golden::fixture_cases;

// What the schema writer (`wirecheck::schema`) reads of the engine's serde model, so that a schema says what
// the comparison decides: wire shapes per role, a struct's flattened key namespace, the writable variants,
// serde_json's reading (to ask whether a value decodes) and the sampler's payloads.
#[doc(hidden)]
pub use decode::{Decoder, range as int_range};
#[doc(hidden)]
pub use namespace::{FlatField, FlatObject, flatten};
#[doc(hidden)]
pub use sample::{integer_variant_value, writable};
#[doc(hidden)]
pub use shape::{EnumDef, RefinedDef, Resolved, Role, Shape, SideRef, StructDef, resolve};

/// Which pairs and directions to check for one (old, new) pair of snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every message, in the directions of the contract's table.
    Full,
    /// Only `record` messages, only new-reads-old (releases older than `min_compatible`: their records
    /// are still read back).
    RecordsOnly,
}

const BOTH: &[Direction] = &[Direction::OldReadsNew, Direction::NewReadsOld];
const NEW_READS_OLD: &[Direction] = &[Direction::NewReadsOld];
const OLD_READS_NEW: &[Direction] = &[Direction::OldReadsNew];

/// The directions that must work for a message of `kind` under the `upgrade` order (the contract's
/// table; records always need both with the baseline).
pub fn directions(kind: Kind, upgrade: Upgrade) -> &'static [Direction] {
    match (kind, upgrade) {
        (Kind::Event | Kind::Record, _) | (_, Upgrade::AnyOrder) => BOTH,
        (Kind::Request, Upgrade::ServerFirst) | (Kind::Response, Upgrade::ClientFirst) => {
            NEW_READS_OLD
        }
        (Kind::Request, Upgrade::ClientFirst) | (Kind::Response, Upgrade::ServerFirst) => {
            OLD_READS_NEW
        }
    }
}

/// Compares the protocol named `protocol` between `old` and `new`; `against` names the old release in
/// the findings. Findings are sorted and deduplicated; `known` is left false.
pub fn compare_protocol(
    old: &Snapshot,
    new: &Snapshot,
    protocol: &str,
    against: &str,
    scope: Scope,
) -> Vec<Finding> {
    compare_views(
        ModelView::Whole(old),
        ModelView::Whole(new),
        protocol,
        against,
        scope,
    )
}

/// [`compare_protocol`] on borrowed models, such as one protocol's part of each: the comparison reads
/// nothing but what `old` and `new` show.
pub fn compare_views(
    old: ModelView<'_>,
    new: ModelView<'_>,
    protocol: &str,
    against: &str,
    scope: Scope,
) -> Vec<Finding> {
    let (Some(old_protocol), Some(new_protocol)) = (old.protocol(protocol), new.protocol(protocol))
    else {
        return Vec::new();
    };
    let releases = protocol::Releases {
        old,
        new,
        old_protocol,
        new_protocol,
    };
    let candidates = protocol::candidates(releases, protocol, scope);
    let context = assemble::Context {
        protocol,
        against,
        format: new_protocol.format,
        // Read only when there is a finding to allow: most protocols of a check have none.
        allows: match candidates.is_empty() {
            true => allows::AllowsAt::default(),
            false => allows::AllowsAt::of([old, new], protocol),
        },
    };
    assemble::findings(candidates, &context)
}
