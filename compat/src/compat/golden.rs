//! The golden payloads of one message, for `wirecheck fixtures write`, written by the sampler in
//! fixture mode.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use super::sample::{EnumSeen, Extreme, FixtureMode, Sampler};
use super::shape::SideRef;
use crate::Format;
use crate::findings::Side;
use crate::model::{MessageDecl, ModelView, Snapshot, Ty};

/// At most this many cases per message in a fixture file (enums with very many variants, nested).
const MAX_FIXTURE_CASES: usize = 512;

/// Enums forced to a variant: definition path to variant index.
type Forced = BTreeMap<String, usize>;

/// The cases written so far and the notes on what could not be.
struct Golden<'a> {
    side: SideRef<'a>,
    ty: Ty,
    cases: Vec<(String, Value)>,
    notes: BTreeSet<String>,
}

/// The golden payloads of one message, for `wirecheck fixtures write`: `(case, payload)` in a fixed order,
/// and notes on what could not be generated.
///
/// Cases: `minimal` (only what is always written: options null, collections empty, conditionally skipped
/// keys left out), `maximal` (every optional field present, collections with one element), one
/// `variant:Enum::Variant` per writable variant of every enum the message reaches (the rest as in
/// `maximal`; a variant reached only inside another enum's variant forces that one too) followed by its
/// `minimal` form, and for each of `maximal` and the variant cases a `boundary:max` form (integers at their
/// type's maximum) and a `boundary:min` form (signed integers at their minimum). A `minimal` or boundary form
/// is left out when an earlier case has the same payload (a variant case never is). Integers behind an
/// `into`/`from` proxy, and 128-bit ones (beyond JSON's 64-bit numbers), keep their usual value.
pub fn fixture_cases(
    snapshot: &Snapshot,
    message: &MessageDecl,
) -> (Vec<(String, Value)>, Vec<String>) {
    let mut golden = Golden {
        side: SideRef {
            model: ModelView::Whole(snapshot),
            side: Side::New,
            format: snapshot
                .protocol(&message.protocol)
                .map_or(Format::Json, |p| p.format),
        },
        ty: Ty::Named {
            path: message.rust_path.clone(),
            args: Vec::new(),
        },
        cases: Vec::new(),
        notes: BTreeSet::new(),
    };
    let none = Forced::new();
    let (minimal, mode) = golden.sample(&none, None, false);
    match minimal {
        Some(v) => golden.cases.push(("minimal".to_owned(), v)),
        None => golden.notes.extend(mode.opaque),
    }
    let (maximal, mode) = golden.sample(&none, None, true);
    let Some(maximal) = maximal else {
        golden.notes.extend(mode.opaque);
        return golden.finish();
    };
    golden.notes.extend(mode.opaque.iter().cloned());
    golden.add_with_boundaries("maximal".to_owned(), &none, maximal, mode.ints);
    golden.add_variants(mode.enums);
    golden.finish()
}

impl Golden<'_> {
    fn finish(self) -> (Vec<(String, Value)>, Vec<String>) {
        (self.cases, self.notes.into_iter().collect())
    }

    /// A payload of the message with `force`d variants and integers at `boundary`, and what the sampler
    /// saw.
    fn sample(
        &self,
        force: &Forced,
        boundary: Option<Extreme>,
        full: bool,
    ) -> (Option<Value>, FixtureMode) {
        let mode = FixtureMode {
            boundary,
            force: force.clone(),
            ..FixtureMode::default()
        };
        let mut sampler = Sampler::for_fixture(self.side, mode);
        let value = sampler.value(&self.ty, full);
        (value, sampler.into_fixture_mode())
    }

    /// A base case (maximal, or a variant's), then its boundary forms where integers can reach them and
    /// the payload is new. `ints`: signed and unsigned integers were met.
    fn add_with_boundaries(
        &mut self,
        label: String,
        force: &Forced,
        value: Value,
        ints: (bool, bool),
    ) {
        let prefix = if label == "maximal" {
            String::new()
        } else {
            format!("{label} ")
        };
        self.cases.push((label, value));
        for (extreme, name, wanted) in [
            (Extreme::Max, "boundary:max", ints.0 || ints.1),
            (Extreme::Min, "boundary:min", ints.0),
        ] {
            if !wanted {
                continue;
            }
            if let (Some(b), _) = self.sample(force, Some(extreme), true)
                && !self.cases.iter().any(|(_, c)| *c == b)
            {
                self.cases.push((format!("{prefix}{name}"), b));
            }
        }
    }

    /// One case per writable variant of every enum reached, breadth first: enums met inside a forced
    /// variant are forced with it.
    fn add_variants(&mut self, first_met: Vec<EnumSeen>) {
        let mut known: BTreeSet<String> = first_met.iter().map(|e| e.path.clone()).collect();
        let mut queue: VecDeque<(Forced, EnumSeen)> =
            first_met.into_iter().map(|e| (Forced::new(), e)).collect();
        while let Some((base, en)) = queue.pop_front() {
            let name = en.path.rsplit("::").next().unwrap_or(&en.path).to_owned();
            for (index, variant) in &en.variants {
                if self.cases.len() >= MAX_FIXTURE_CASES {
                    self.notes.insert(format!(
                        "more than {MAX_FIXTURE_CASES} cases: the variants after `{name}::{variant}` have none"
                    ));
                    return;
                }
                let mut force = base.clone();
                force.insert(en.path.clone(), *index);
                let (value, mode) = self.sample(&force, None, true);
                for seen in mode.enums {
                    if known.insert(seen.path.clone()) {
                        queue.push_back((force.clone(), seen));
                    }
                }
                match value {
                    Some(v) if mode.hits.contains(&en.path) => {
                        let label = format!("variant:{name}::{variant}");
                        self.add_variant_case(label, &force, &en.path, v, mode.ints);
                    }
                    _ => {
                        self.notes.insert(format!(
                            "no payload writes `{name}::{variant}` (it is only reached through a cycle, or needs a value wirecheck cannot write)"
                        ));
                    }
                }
            }
        }
    }

    /// A variant's case, its boundary forms, and right after it its minimal form when that differs.
    fn add_variant_case(
        &mut self,
        label: String,
        force: &Forced,
        enum_path: &str,
        value: Value,
        ints: (bool, bool),
    ) {
        let at = self.cases.len() + 1;
        let minimal = match self.sample(force, None, false) {
            (Some(m), min_mode)
                if min_mode.hits.contains(enum_path)
                    && m != value
                    && !self.cases.iter().any(|(_, c)| *c == m) =>
            {
                Some(m)
            }
            _ => None,
        };
        self.add_with_boundaries(label.clone(), force, value, ints);
        if let Some(m) = minimal {
            self.cases.insert(at, (format!("{label} minimal"), m));
        }
    }
}
