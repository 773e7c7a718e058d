//! The rule catalogue.
