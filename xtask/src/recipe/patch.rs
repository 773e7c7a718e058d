//! The prepared patch `cargo xtask recipe` applies where CONTRIBUTING.md's "Adding a rule" asks a person
//! to write: a real rule that the catalogue does not have, `bool_to_integer` (a field that was a `bool`
//! became an integer: every integer reader of a self-describing format rejects `true`). Each edit is
//! made at an anchor of today's source and fails, naming the anchor, when the source has moved on.

use std::path::Path;

use anyhow::{Context, Result, ensure};

/// The rule the recipe adds.
pub const NAME: &str = "bool_to_integer";

/// Step 1: the catalogue entry's fields, in place of the scaffold's `TODO`s (from `level` to the end of
/// the entry).
const ENTRY_FIELDS: &str = r#"        level: Major,
        evidence: Rejected,
        summary: "a bool became an integer",
        help: "keep the bool on the wire, or read both (an untagged enum of the bool and the integer) one release ahead of writers",
        explanation: "New readers of the integer reject the `true` and `false` old writers send: serde's integer \
visitors take no boolean in JSON, CBOR or MessagePack.\n\nbefore: struct Job { urgent: bool }\nafter:  struct Job { urgent: u8 }\nwitness (old writer): {\"urgent\": true}",
    }"#;

/// Step 2: the fixture pair's field, in place of the scaffold's `pub id: u64,` (old, new).
const FIXTURE_FIELDS: [&str; 2] = [
    "pub id: u64,\n    pub urgent: bool,",
    "pub id: u64,\n    pub urgent: u8,",
];

/// Step 3: the rule's home, `compat/src/compat/self_describing.rs` (where self-describing formats pair
/// the writer's wire shape with the reader's): the pair of shapes sent to the decision, and the decision.
pub const HOME: &str = "compat/src/compat/self_describing.rs";
const HOME_ARM_ANCHOR: &str =
    "            (S::Str, S::Char) => Some(vec![self.string_to_char(writer_ty, reader_ty)]),\n";
const HOME_ARM: &str = "            (S::Bool, S::Int { .. }) if !self.writer_is_new() => {
                Some(vec![self.bool_to_integer(writer_ty, reader_ty)])
            }
";
const HOME_FN_ANCHOR: &str = "    /// Sends a pair of wire shapes to its comparison.\n";
const HOME_FN: &str = r#"    /// The old release's booleans read as the new release's integers, which reject them.
    fn bool_to_integer(&self, writer_ty: &Ty, reader_ty: &Ty) -> Issue {
        Issue::breaking(
            RuleId::BoolToInteger,
            format!(
                "{} writes `{writer_ty}` and {} reads `{reader_ty}`: an integer reader rejects `true` and `false`",
                self.writer_name(),
                self.reader_name()
            ),
            Some(json!(true)),
        )
    }

"#;

/// Makes steps 1 to 3 of the recipe in the workspace `root`, after `cargo xtask new-rule NAME`.
pub fn apply(root: &Path) -> Result<()> {
    edit(root, crate::new_rule::CATALOGUE, |text| {
        let start = text
            .find(&format!("        id: \"{NAME}\",\n"))
            .context("the scaffolded catalogue entry")?;
        let level = start + text[start..].find("        level:").context("its level")?;
        let end = level + text[level..].find("\n    }").context("its end")? + "\n    }".len();
        Ok(format!("{}{ENTRY_FIELDS}{}", &text[..level], &text[end..]))
    })?;
    for (side, field) in ["old", "new"].into_iter().zip(FIXTURE_FIELDS) {
        edit(
            root,
            &format!("tests/fixtures/{NAME}/{side}/lib.rs"),
            |text| {
                ensure!(text.contains("pub id: u64,"), "the scaffold's field");
                let text = text.replace("pub id: u64,", field);
                // The scaffold's TODO line, done.
                Ok(text
                    .lines()
                    .skip(1)
                    .map(|line| format!("{line}\n"))
                    .collect())
            },
        )?;
    }
    edit(root, HOME, |text| {
        let text = insert_at_anchor(text, HOME_ARM_ANCHOR, HOME_ARM, After)?;
        insert_at_anchor(&text, HOME_FN_ANCHOR, HOME_FN, Before)
    })
}

/// Where an insertion goes, relative to its anchor.
enum Place {
    Before,
    After,
}
use Place::{After, Before};

/// `text` with `insert` placed by the line `anchor`.
fn insert_at_anchor(text: &str, anchor: &str, insert: &str, place: Place) -> Result<String> {
    let at = text
        .find(anchor)
        .with_context(|| format!("{HOME} has no line `{}`", anchor.trim()))?;
    let at = match place {
        Before => at,
        After => at + anchor.len(),
    };
    Ok(format!("{}{insert}{}", &text[..at], &text[at..]))
}

/// Rewrites the file `relative` of `root` with `change`.
fn edit(root: &Path, relative: &str, change: impl FnOnce(&str) -> Result<String>) -> Result<()> {
    let path = root.join(relative);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let changed = change(&text).with_context(|| format!("editing {relative}"))?;
    std::fs::write(&path, changed).with_context(|| format!("writing {}", path.display()))
}
