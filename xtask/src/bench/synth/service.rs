//! The service code of the synthetic workspace: files without serde or annotations.

use std::fmt::Write as _;

use super::{NOUNS, PlainFile, Rng};

/// Service code: no serde, no annotation; the kind of code most files of a service hold.
pub(super) fn plain_rs(seed: u64, f: &PlainFile) -> String {
    let mut rng = Rng::new(seed, 5_000_000 + f.id);
    let mut s = String::with_capacity(8 * 1024);
    let _ = write!(
        s,
        "//! Service code, group {}, file {}.\n//!\n//! Handles requests, keeps state between them and reports progress.\n\n\
         use std::collections::{{BTreeMap, HashMap, VecDeque}};\nuse std::fmt;\n\n",
        f.group, f.index
    );
    let blocks = rng.range(5, 9);
    for b in 0..blocks {
        block(&mut s, &mut rng, b);
    }
    for e in 0..f.extras {
        let _ = write!(
            s,
            "/// Added later ({e}).\npub fn added_{e}(values: &[u64]) -> u64 {{\n    values.iter().copied().filter(|v| v % {} == 0).sum()\n}}\n\n",
            e + 2
        );
    }
    let _ = write!(
        s,
        "#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn smoke() {{\n        let v: Vec<u64> = (0..10).collect();\n        assert_eq!(v.len(), 10);\n    }}\n}}\n"
    );
    s
}

/// One block of service code.
fn block(s: &mut String, rng: &mut Rng, b: usize) {
    let noun = rng.pick(NOUNS);
    match rng.below(6) {
        0 => {
            let _ = write!(
                s,
                r#"/// A registry of {noun} entries.
#[derive(Debug, Default, Clone)]
pub struct {noun}Registry{b} {{
    entries: HashMap<u64, String>,
    order: VecDeque<u64>,
    hits: u64,
}}

impl {noun}Registry{b} {{
    /// An empty registry.
    pub fn new() -> Self {{
        Self::default()
    }}

    /// Adds or replaces an entry; returns the old one.
    pub fn insert(&mut self, id: u64, name: &str) -> Option<String> {{
        self.order.push_back(id);
        if self.order.len() > {cap} {{
            if let Some(old) = self.order.pop_front() {{
                self.entries.remove(&old);
            }}
        }}
        self.entries.insert(id, name.to_owned())
    }}

    /// Looks an entry up, counting hits.
    pub fn lookup(&mut self, id: u64) -> Option<&str> {{
        let found = self.entries.get(&id).map(String::as_str);
        if found.is_some() {{
            self.hits += 1;
        }}
        found
    }}

    /// A score for a text: braces and quotes weigh more ('{{' and '"' are common in payloads).
    pub fn score(text: &str) -> usize {{
        text.chars()
            .map(|c| match c {{
                '{{' | '}}' => 3,
                '"' | '\'' => 2,
                _ => 1,
            }})
            .sum()
    }}
}}

"#,
                cap = rng.range(16, 4096)
            );
        }
        1 => {
            let _ = write!(
                s,
                r#"/// Splits work into batches of at most `size` items.
pub fn batches{b}(items: &[u64], size: usize) -> Vec<Vec<u64>> {{
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(size);
    for &item in items {{
        if current.len() == size {{
            out.push(std::mem::take(&mut current));
        }}
        current.push(item * {m} + {a});
    }}
    if !current.is_empty() {{
        out.push(current);
    }}
    out
}}

/// The median of a batch (`None` when empty).
pub fn median{b}(values: &mut [u64]) -> Option<u64> {{
    if values.is_empty() {{
        return None;
    }}
    values.sort_unstable();
    Some(values[values.len() / 2])
}}

"#,
                m = rng.range(2, 9),
                a = rng.range(0, 99)
            );
        }
        2 => {
            let _ = write!(
                s,
                r#"/// Where a {noun} is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum {noun}Phase{b} {{
    New,
    Pending {{ since: u64 }},
    Running(u32),
    Done,
}}

impl fmt::Display for {noun}Phase{b} {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        match self {{
            Self::New => f.write_str("new"),
            Self::Pending {{ since }} => write!(f, "pending since {{since}}"),
            Self::Running(n) => write!(f, "running on {{n}} ranks"),
            Self::Done => f.write_str("done"),
        }}
    }}
}}

impl {noun}Phase{b} {{
    /// The next phase, if any.
    pub fn next(self, now: u64) -> Option<Self> {{
        Some(match self {{
            Self::New => Self::Pending {{ since: now }},
            Self::Pending {{ .. }} => Self::Running({r}),
            Self::Running(_) => Self::Done,
            Self::Done => return None,
        }})
    }}
}}

"#,
                r = rng.range(1, 64)
            );
        }
        3 => {
            let _ = write!(
                s,
                r##"/// Something that can be drained.
pub trait Drain{b} {{
    /// Takes everything out.
    fn drain_all(&mut self) -> Vec<String>;

    /// How many items are waiting.
    fn waiting(&self) -> usize;
}}

/// A queue of messages waiting for a peer.
#[derive(Debug, Default)]
pub struct Outbox{b} {{
    pending: Vec<String>,
    by_topic: BTreeMap<String, usize>,
}}

impl Drain{b} for Outbox{b} {{
    fn drain_all(&mut self) -> Vec<String> {{
        self.by_topic.clear();
        std::mem::take(&mut self.pending)
    }}

    fn waiting(&self) -> usize {{
        self.pending.len()
    }}
}}

impl Outbox{b} {{
    /// Queues a message (the raw text is kept as is: r"{{}}" and r#"a "b""# alike).
    pub fn push<'a>(&mut self, topic: &'a str, text: &'a str) -> &'a str {{
        *self.by_topic.entry(topic.to_owned()).or_default() += 1;
        self.pending.push(format!("{{topic}}: {{text}}"));
        topic
    }}
}}

"##
            );
        }
        4 => {
            let _ = write!(
                s,
                r#"/// Retries `op` up to {tries} times, doubling the delay (in ms) each time.
pub fn retry{b}<T, E: fmt::Debug>(mut op: impl FnMut(u32) -> Result<T, E>) -> Result<T, Vec<E>> {{
    let mut errors = Vec::new();
    let mut delay = {delay}u64;
    for attempt in 0..{tries} {{
        match op(attempt) {{
            Ok(value) => return Ok(value),
            Err(e) => {{
                errors.push(e);
                delay = delay.saturating_mul(2).min(60_000);
            }}
        }}
    }}
    let _ = delay;
    Err(errors)
}}

"#,
                tries = rng.range(2, 8),
                delay = rng.range(10, 500)
            );
        }
        _ => {
            let _ = write!(
                s,
                r#"/// Counters kept per {noun}.
#[derive(Debug, Clone, Default)]
pub struct {noun}Stats{b} {{
    pub requests: u64,
    pub errors: u64,
    pub latency_ms: Vec<f64>,
}}

impl {noun}Stats{b} {{
    /// Records one request.
    pub fn record(&mut self, ok: bool, latency_ms: f64) {{
        self.requests += 1;
        if !ok {{
            self.errors += 1;
        }}
        self.latency_ms.push(latency_ms);
    }}

    /// The error rate, 0 when nothing was recorded.
    pub fn error_rate(&self) -> f64 {{
        if self.requests == 0 {{
            0.0
        }} else {{
            self.errors as f64 / self.requests as f64
        }}
    }}

    /// The mean latency over the last {window} requests.
    pub fn recent_latency(&self) -> f64 {{
        let recent: Vec<f64> = self.latency_ms.iter().rev().take({window}).copied().collect();
        recent.iter().sum::<f64>() / recent.len().max(1) as f64
    }}
}}

"#,
                window = rng.range(8, 128)
            );
        }
    }
}
