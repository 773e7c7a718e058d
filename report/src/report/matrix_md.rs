//! `wirecheck matrix --format markdown`: one table per protocol (rows and columns are the revisions, the
//! working tree last), then the breaking findings of each pair that does not interoperate.

use std::fmt::Write as _;

use super::markdown::{code, inline};
use crate::matrix::{Matrix, ProtocolMatrix, Verdict};

fn header(m: &Matrix, p: &ProtocolMatrix, i: usize) -> String {
    let version = p.versions[i]
        .as_ref()
        .map_or("—".to_owned(), ToString::to_string);
    format!("{} ({version})", inline(&m.revisions[i].label))
}

fn cell(p: &ProtocolMatrix, i: usize, j: usize) -> String {
    if i == j {
        return if p.versions[i].is_some() { "·" } else { "—" }.to_owned();
    }
    match p.pair(i, j) {
        None => "—".to_owned(),
        Some(pair) => match pair.verdict {
            Verdict::Compatible => "✅".to_owned(),
            Verdict::Allowed => "🔕 allowed".to_owned(),
            Verdict::Breaking => {
                format!("❌ {}", pair.breaking.iter().filter(|f| !f.allowed).count())
            }
        },
    }
}

pub(super) fn render(m: &Matrix) -> String {
    let mut out = String::from("## Interoperability matrix\n\n");
    out.push_str(
        "Can two versions run side by side, in every direction the protocol's message kinds and upgrade \
order need? ✅ yes · 🔕 only breaks allowed with a reason · ❌ no (breaking findings) · — not declared in one \
of them.\n",
    );
    for p in &m.protocols {
        render_protocol(&mut out, m, p);
    }
    out
}

/// One protocol's section: its table, then the pairs that do not interoperate.
fn render_protocol(out: &mut String, m: &Matrix, p: &crate::matrix::ProtocolMatrix) {
    let n = m.revisions.len();
    let _ = writeln!(out, "\n### {}\n", code(&p.name));
    if p.versions.iter().flatten().count() < 2 {
        let at: Vec<String> = (0..n)
            .filter(|&i| p.versions[i].is_some())
            .map(|i| header(m, p, i))
            .collect();
        let _ = writeln!(
            out,
            "Declared only in {}: nothing to compare.",
            at.join(", ")
        );
        return;
    }
    out.push('|');
    for i in 0..n {
        let _ = write!(out, " | {}", header(m, p, i));
    }
    out.push_str(" |\n|---|");
    out.push_str(&"---|".repeat(n));
    out.push('\n');
    for i in 0..n {
        let _ = write!(out, "| **{}**", header(m, p, i));
        for j in 0..n {
            let _ = write!(out, " | {}", cell(p, i, j));
        }
        out.push_str(" |\n");
    }
    let groups = grouped_pairs(p);
    if !groups.is_empty() {
        out.push_str("\n**Pairs that do not interoperate**\n\n");
    }
    for (lines, pairs) in groups {
        let names: Vec<String> = pairs
            .iter()
            .map(|pair| {
                format!(
                    "{} ↔ {}",
                    inline(&m.revisions[pair.older].label),
                    inline(&m.revisions[pair.newer].label)
                )
            })
            .collect();
        let _ = writeln!(out, "- {}:", names.join(", "));
        for line in lines {
            let _ = writeln!(out, "  - {line}");
        }
    }
}

/// The pairs that do not interoperate, those with the same findings together (the lines of the
/// findings, then the pairs).
fn grouped_pairs(
    p: &crate::matrix::ProtocolMatrix,
) -> Vec<(Vec<String>, Vec<&crate::matrix::Pair>)> {
    let mut groups: Vec<(Vec<String>, Vec<&crate::matrix::Pair>)> = Vec::new();
    for pair in p
        .pairs
        .iter()
        .filter(|pair| pair.verdict != Verdict::Compatible)
    {
        let lines: Vec<String> = pair.breaking.iter().map(finding_line).collect();
        match groups.iter_mut().find(|(key, _)| *key == lines) {
            Some((_, pairs)) => pairs.push(pair),
            None => groups.push((lines, vec![pair])),
        }
    }
    groups
}

/// One breaking finding of a pair, on one line.
fn finding_line(f: &crate::findings::Finding) -> String {
    let direction = f.direction.map_or(String::new(), |d| format!(" ({d})"));
    let allowed = f
        .allow_reason
        .as_ref()
        .map_or(String::new(), |r| format!(" — allowed: {}", inline(r)));
    format!(
        "{} {}{direction}: {}{allowed}",
        code(f.rule.as_str()),
        code(&super::subject(f)),
        inline(&f.message)
    )
}
