//! The rule catalogue (`wirecheck rules`, `wirecheck explain RULE`): every rule the comparison engine
//! can report, with its default level, what its witness shows, a summary, the usual safe migration and an
//! explanation. The catalogue is written once, in `wirecheck-vocab` (`vocab/src/rules.rs`), which the
//! derive reads too; this module is its name in the checker.

pub use wirecheck_vocab::rules::{Evidence, Level, RULES, Rule, RuleId, UnknownRule};

#[cfg(test)]
mod tests;
