//! `wirecheck matrix --format html`: a self-contained page (inline CSS, no script, no network) that release
//! managers can attach to release notes. One table per protocol; each cell is coloured by verdict, shows
//! the breaking findings on hover (`title`) and lists them on click (`<details>`).

use std::fmt::Write as _;

use crate::findings::Finding;
use crate::matrix::{Matrix, ProtocolMatrix, Revision, Verdict};

/// Escapes text for HTML content and attribute values.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; margin: 2rem; color: #1f2328; background: #ffffff; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .4rem; }
h4 { font-size: 1rem; margin: 1rem 0 .3rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; font-family: ui-monospace, 'DejaVu Sans Mono', monospace; }
p.lead { color: #59636e; margin: 0 0 1rem; max-width: 60rem; }
.legend span { display: inline-block; padding: .15rem .6rem; margin-right: .5rem; border-radius: 4px; border: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: .45rem .8rem; text-align: center; vertical-align: top; min-width: 7rem; }
th { background: #f6f8fa; font-weight: 600; }
th small, td small { display: block; font-weight: normal; color: #59636e; }
.compatible { background: #c9f0d1; color: #0f5323; }
.allowed { background: #fff1b8; color: #6b4e00; }
.breaking { background: #ffc9c4; color: #82071e; font-weight: 600; }
.na { background: #f6f8fa; color: #8c959f; }
.self { background: #eaeef2; color: #59636e; }
details summary { cursor: pointer; }
details ul { text-align: left; font-weight: normal; margin: .4rem 0 0; padding-left: 1.1rem; max-width: 28rem; color: #1f2328; }
details li { margin-bottom: .3rem; }
code { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: .9em; }
ul.revisions { color: #59636e; }
";

/// How a revision is named in sentences: its tag, or "the working tree".
fn side_name(revision: &Revision) -> &str {
    match revision.commit {
        Some(_) => &revision.label,
        None => super::WORKING_TREE,
    }
}

/// `AllocRequest.t_submit (v0.87.0 reads what v0.88.0 writes): message [allowed: reason]`.
fn detail(f: &Finding, newer: &str) -> String {
    let direction = f.direction.map_or(String::new(), |d| {
        format!(" ({})", super::direction_words_between(f, d, newer))
    });
    let allowed = f
        .allow_reason
        .as_ref()
        .map_or(String::new(), |r| format!(" [allowed: {r}]"));
    format!("{}{direction}: {}{allowed}", super::subject(f), f.message)
}

fn cell(out: &mut String, m: &Matrix, p: &ProtocolMatrix, i: usize, j: usize) {
    if i == j {
        let text = if p.versions[i].is_some() {
            "same"
        } else {
            "not declared"
        };
        let _ = write!(out, "<td class=\"self\">{text}</td>");
        return;
    }
    let Some(pair) = p.pair(i, j) else {
        let _ = write!(
            out,
            "<td class=\"na\" title=\"the protocol is not declared in one of the two\">—</td>"
        );
        return;
    };
    let (a, b) = (
        &m.revisions[pair.older].label,
        &m.revisions[pair.newer].label,
    );
    let newer = side_name(&m.revisions[pair.newer]);
    let minor = if pair.minor > 0 {
        format!("<small>{} compatible change(s)</small>", pair.minor)
    } else {
        String::new()
    };
    match pair.verdict {
        Verdict::Compatible => {
            let _ = write!(
                out,
                "<td class=\"compatible\" title=\"{}\">✓ ok{minor}</td>",
                html(&format!(
                    "{a} and {b} interoperate in every needed direction"
                ))
            );
        }
        Verdict::Allowed | Verdict::Breaking => {
            let lines: Vec<String> = pair
                .breaking
                .iter()
                .map(|f| format!("{} {}", f.rule, detail(f, newer)))
                .collect();
            let counted = pair.breaking.iter().filter(|f| !f.allowed).count();
            let label = if pair.verdict == Verdict::Breaking {
                format!("✗ {counted} breaking")
            } else {
                format!("allowed ({})", pair.breaking.len())
            };
            let _ = write!(
                out,
                "<td class=\"{}\" title=\"{}\"><details><summary>{label}</summary><ul>",
                pair.verdict.as_str(),
                html(&format!("{a} ↔ {b}:\n{}", lines.join("\n")))
            );
            for f in &pair.breaking {
                let _ = write!(
                    out,
                    "<li><code>{}</code> {}",
                    html(f.rule.as_str()),
                    html(&detail(f, newer))
                );
                if let Some((who, json)) = super::witness_words_between(f, newer) {
                    let _ = write!(
                        out,
                        "<br><small>witness ({}): <code>{}</code></small>",
                        html(&who),
                        html(&json)
                    );
                }
                out.push_str("</li>");
            }
            let _ = write!(out, "</ul></details>{minor}</td>");
        }
    }
}

fn header(m: &Matrix, p: &ProtocolMatrix, i: usize) -> String {
    let version = p.versions[i]
        .as_ref()
        .map_or("not declared".to_owned(), |v| format!("{} {v}", p.name));
    format!(
        "{}<small>{}</small>",
        html(&m.revisions[i].label),
        html(&version)
    )
}

/// The page; `changelog`, the HTML of the wire changelog's section, after the tables.
pub(super) fn render(m: &Matrix, changelog: Option<String>) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>wirecheck: interoperability matrix</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<h1>Interoperability matrix</h1>\n");
    out.push_str(
        "<p class=\"lead\">Can two versions run side by side, in every direction the protocol's message kinds \
and upgrade order need? Hover over a cell for the findings, click a red or yellow cell to list them.</p>\n",
    );
    out.push_str(
        "<p class=\"legend\"><span class=\"compatible\">✓ ok: they interoperate</span><span class=\"allowed\">allowed: \
only breaks allowed with a reason</span><span class=\"breaking\">✗ breaking: a payload is rejected or misread</span>\
<span class=\"na\">— not declared</span></p>\n",
    );
    let n = m.revisions.len();
    for p in &m.protocols {
        let _ = writeln!(out, "<h2 id=\"{0}\">{0}</h2>", html(&p.name));
        if p.versions.iter().flatten().count() < 2 {
            let at: Vec<String> = (0..n)
                .filter(|&i| p.versions[i].is_some())
                .map(|i| html(&m.revisions[i].label))
                .collect();
            let _ = writeln!(
                out,
                "<p class=\"lead\">Declared only in {}: nothing to compare.</p>",
                at.join(", ")
            );
            continue;
        }
        out.push_str("<table>\n<tr><th></th>");
        for i in 0..n {
            let _ = write!(out, "<th>{}</th>", header(m, p, i));
        }
        out.push_str("</tr>\n");
        for i in 0..n {
            let _ = write!(out, "<tr><th>{}</th>", header(m, p, i));
            for j in 0..n {
                cell(&mut out, m, p, i, j);
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    if let Some(section) = changelog {
        out.push_str(&section);
    }
    out.push_str("<ul class=\"revisions\">\n");
    for r in &m.revisions {
        let commit = r
            .commit
            .as_ref()
            .map_or("uncommitted edits included".to_owned(), |c| {
                format!("commit {}", &c[..c.len().min(12)])
            });
        let _ = writeln!(out, "<li>{}: {}</li>", html(&r.label), html(&commit));
    }
    out.push_str("</ul>\n<p class=\"lead\">Generated by wirecheck ");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str(".</p>\n</body>\n</html>\n");
    out
}
