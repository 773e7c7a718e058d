//! Runtime handshake: peers agree on protocol versions by the rule the checker enforces.
