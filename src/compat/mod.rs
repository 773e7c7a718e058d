//! The compatibility judgement.
