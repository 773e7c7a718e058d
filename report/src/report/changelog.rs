//! `wirecheck changelog`: the wire changes per release as Markdown to paste into release notes, as JSON,
//! and as the section the HTML matrix ends with. Every form reads the [`Changelog`] alone.

use std::fmt::Write as _;

use super::markdown::{code, inline};
use super::matrix_html::html;
use crate::changelog::{Changelog, ProtocolEvent, ProtocolNotes, ReleaseNotes};
use crate::findings::{Finding, Level};

/// The changelog as JSON (its serde form), ending in a newline.
pub(super) fn json(changelog: &Changelog) -> String {
    let mut text = serde_json::to_string_pretty(changelog)
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

/// The changelog as Markdown: a section per release, newest first, a subsection per protocol.
pub(super) fn markdown(changelog: &Changelog) -> String {
    let mut out = format!("# Wire changes since {}\n\n", inline(&changelog.since));
    if changelog.releases.is_empty() {
        out.push_str("No release after it.\n");
    }
    for release in &changelog.releases {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        let _ = write!(out, "## {}\n\n", inline(&release_title(release)));
        if release.protocols.is_empty() {
            let _ = writeln!(out, "No wire changes since {}.", inline(&release.previous));
        }
        for protocol in &release.protocols {
            protocol_markdown(&mut out, protocol);
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `v0.61.0`, or `working tree (not released)`.
fn release_title(release: &ReleaseNotes) -> String {
    match release.commit {
        Some(_) => release.release.clone(),
        None => format!("{} (not released)", release.release),
    }
}

/// `sched 0.56.0 → 0.61.0: major, requires 0.57.0 (declared: ok)`.
fn headline(p: &ProtocolNotes) -> String {
    let version = |v: &Option<semver::Version>| v.as_ref().map(ToString::to_string);
    match p.event {
        ProtocolEvent::Added => format!(
            "{} {}: new protocol",
            p.name,
            version(&p.new_version).unwrap_or_default()
        ),
        ProtocolEvent::Removed => format!(
            "{} {}: removed (major)",
            p.name,
            version(&p.old_version).unwrap_or_default()
        ),
        ProtocolEvent::Changed => {
            let required = version(&p.required_version).unwrap_or_default();
            let declared = match p.declared_ok {
                Some(false) => "; the declared version is short of it",
                _ => "",
            };
            format!(
                "{} {} → {}: {} change, requires {required}{declared}",
                p.name,
                version(&p.old_version).unwrap_or_default(),
                version(&p.new_version).unwrap_or_default(),
                level_words(p.required_bump),
            )
        }
    }
}

fn level_words(level: Level) -> &'static str {
    match level {
        Level::Major => "breaking (major)",
        Level::Minor => "compatible (minor)",
        Level::None => "no wire",
    }
}

/// The groups of a protocol's changes, each with its title.
fn groups(p: &ProtocolNotes) -> [(&'static str, &[Finding]); 3] {
    [
        ("Breaking", &p.breaking),
        ("Breaking, allowed", &p.allowed),
        ("Compatible", &p.compatible),
    ]
}

/// An HTML `<code>` element of `name`.
fn code_html(name: &str) -> String {
    format!("<code>{}</code>", html(name))
}

/// Text as Markdown puts it: as it is.
fn plain(text: &str) -> String {
    text.to_owned()
}

/// `` `FreeRequest.r` (`sched.free`): message. Allowed: reason ``: the words written with `text`, the
/// names with `quote`.
fn change_words(
    f: &Finding,
    text: impl Fn(&str) -> String,
    quote: impl Fn(&str) -> String,
) -> String {
    let topic = match f.topic.is_empty() {
        true => String::new(),
        false => format!(" ({})", quote(&f.topic)),
    };
    let allowed = f
        .allow_reason
        .as_ref()
        .map_or(String::new(), |r| format!(" Allowed: {}", text(r)));
    format!(
        "{}{topic}: {}{allowed}",
        quote(&super::subject(f)),
        text(&f.message)
    )
}

fn protocol_markdown(out: &mut String, p: &ProtocolNotes) {
    let _ = write!(
        out,
        "### {}\n\n**Rollout:** {}.\n",
        inline(&headline(p)),
        p.rollout.words()
    );
    for (title, findings) in groups(p) {
        if findings.is_empty() {
            continue;
        }
        let _ = write!(out, "\n{title}:\n");
        for f in findings {
            let _ = writeln!(out, "- {}", inline(&change_words(f, plain, code)));
        }
    }
    out.push('\n');
}

/// The changelog as a section of the HTML matrix.
pub(super) fn html_section(changelog: &Changelog) -> String {
    let mut out = String::from("<h2 id=\"changelog\">Wire changelog</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"lead\">Each release against the one before it, since {}: the changes by level, the bump they \
require and how to roll the release out.</p>",
        html(&changelog.since)
    );
    for release in &changelog.releases {
        let _ = writeln!(out, "<h3>{}</h3>", html(&release_title(release)));
        if release.protocols.is_empty() {
            let _ = writeln!(
                out,
                "<p>No wire changes since {}.</p>",
                html(&release.previous)
            );
        }
        for p in &release.protocols {
            let _ = writeln!(
                out,
                "<h4>{}</h4>\n<p><strong>Rollout:</strong> {}.</p>",
                html(&headline(p)),
                html(p.rollout.words())
            );
            for (title, findings) in groups(p) {
                if findings.is_empty() {
                    continue;
                }
                let _ = write!(out, "<p>{title}:</p>\n<ul>\n");
                for f in findings {
                    let _ = writeln!(out, "<li>{}</li>", change_words(f, html, code_html));
                }
                out.push_str("</ul>\n");
            }
        }
    }
    out
}
