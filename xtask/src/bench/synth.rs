//! The synthetic workspace `cargo xtask bench` measures: several crates of service code, a few hundred files
//! of `#[derive(Message)]` types of realistic shape among many more files without any, and a git history of
//! release tags with a PR-sized change left in the working tree. Everything comes from a seeded generator:
//! the same [`Scale`] gives the same bytes, the same commits and the same tags.
//!
//! Per crate (`crates/<name>/`):
//!
//! | file | what |
//! |---|---|
//! | `src/lib.rs` | `pub mod common; pub mod proto; pub mod svc;` |
//! | `src/common.rs` | serde types shared by the crate's messages (no annotation) |
//! | `src/proto/mod.rs` | the crate's three protocols: `<crate>-ctl` (requests and responses, `min_compatible`), `<crate>-events` (events), `<crate>-log` (records) |
//! | `src/proto/gN/mod.rs`, `types.rs` | a group of message files and the serde types they share (no annotation) |
//! | `src/proto/gN/mK.rs` | messages: structs and enums of every serde representation, nested helper types, serde and wire attributes |
//! | `src/svc/sN/fK.rs` | service code: structs, impls, traits, closures, tests; no serde, no annotation |
//!
//! History: release `r` is tagged `v1.r.0` and declares every protocol at `1.r.0` (`min_compatible` of the
//! ctl protocols: two releases back). Between tags, each commit adds an optional field to messages of two
//! files and a function to two service files. The working tree then adds optional fields to three message
//! files and functions to two service files, and bumps the touched protocols (a minor change, declared).
//!
//! With [`Scale::dependencies`], the workspace also depends on that many registry-style packages
//! (`acme-ids`, `acme-geo`, ...; see [`deps`]) vendored in `vendor/` (not in git) that
//! `.cargo/config.toml` puts in place of crates.io, and commits a `Cargo.lock` naming them. One message
//! field in seven reaches one of their types, and in each crate the first message of its first ctl file
//! reaches the type the working tree's upgrade changes. The last tag's final commit upgrades the third
//! package (`acme-money` 1.0.0 to 1.1.0) and the working tree the second (`acme-geo`), each adding an
//! optional field to a reached type; the working tree then bumps every protocol.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, ensure};

mod deps;
mod messages;
mod service;

use deps::Dependencies;
use messages::{MsgWriter, common_rs, group_types_rs};
use service::plain_rs;

/// The size of the synthetic workspace and of its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    /// `#[derive(Message)]` types, over all crates.
    pub messages: usize,
    /// Files holding them.
    pub files: usize,
    /// Files without any annotation (shared types and service code).
    pub plain_files: usize,
    /// Crates.
    pub crates: usize,
    /// Release tags.
    pub tags: usize,
    /// Commits from one tag to the next.
    pub commits_per_tag: usize,
    /// The size of the change left in the working tree: 3 message files and 2 service files per unit.
    pub change: usize,
    /// The generator's seed.
    pub seed: u64,
    /// The size in bytes of one generated file (`crates/<first>/src/generated.rs`, protobuf-style output
    /// that says `wire` in comments and strings but declares nothing), committed in the first release; 0:
    /// none.
    pub generated_bytes: usize,
    /// Dependency crates whose types the messages reach (vendored, see [`deps`]); 0: none.
    pub dependencies: usize,
}

/// What was generated.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Every `.rs` file of the working tree.
    pub rs_files: usize,
    /// Their total size in bytes.
    pub rs_bytes: usize,
    /// `#[derive(Message)]` types.
    pub messages: usize,
    /// Other serde types (helpers, shared types).
    pub helper_types: usize,
    /// Files holding messages.
    pub message_files: usize,
    /// Files without annotations.
    pub plain_files: usize,
    /// Commits.
    pub commits: usize,
    /// Release tags.
    pub tags: usize,
    /// The last tag.
    pub last_tag: String,
    /// Files the working tree changes relative to the last tag.
    pub changed_files: usize,
    /// The crates' names.
    pub crates: Vec<String>,
    /// The size of the generated file (see [`Scale::generated_bytes`]).
    pub generated_bytes: usize,
    /// The dependency packages the working tree locks (`acme-geo 1.1.0`), see [`Scale::dependencies`].
    pub dependencies: Vec<String>,
    /// The working tree's dependency upgrade: the package as the last tag and as the working tree lock
    /// it (`acme-geo 1.0.0`, `acme-geo 1.1.0`).
    pub upgrade: Option<(String, String)>,
}

/// SplitMix64: small, fast, and the same everywhere.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Self {
        let mut rng = Rng(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).expect("fits")
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const CRATE_NAMES: &[&str] = &[
    "broker",
    "sched",
    "exec",
    "kvs",
    "cron",
    "resource",
    "overlay",
    "content",
    "journal",
    "feasibility",
];
const NOUNS: &[&str] = &[
    "Job", "Resource", "Node", "Queue", "Lease", "Shard", "Key", "Session", "Rank", "Slot", "Core",
    "Gpu", "Bank", "User", "Policy", "Event", "Handle", "Stream", "Topic", "Module",
];
const VERBS: &[&str] = &[
    "Alloc",
    "Free",
    "Query",
    "Update",
    "Cancel",
    "Submit",
    "Drain",
    "Watch",
    "List",
    "Register",
    "Release",
    "Annotate",
    "Expire",
    "Hello",
    "Ready",
    "Prioritize",
    "Kill",
    "Attach",
    "Restart",
    "Sync",
];
const WORDS: &[&str] = &[
    "id",
    "name",
    "rank",
    "count",
    "limit",
    "state",
    "reason",
    "owner",
    "queue",
    "priority",
    "urgency",
    "nodes",
    "cores",
    "gpus",
    "expiration",
    "start",
    "end",
    "duration",
    "flags",
    "status",
    "message",
    "userid",
    "path",
    "epoch",
    "seq",
    "hint",
    "label",
    "weight",
    "score",
    "version",
];

/// The kind of a message file's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proto {
    Ctl,
    Events,
    Log,
}

impl Proto {
    fn type_name(self) -> &'static str {
        match self {
            Proto::Ctl => "Ctl",
            Proto::Events => "Events",
            Proto::Log => "Log",
        }
    }
}

/// One message file: its place and the optional fields added to its struct messages so far.
#[derive(Debug, Clone)]
struct MsgFile {
    krate: usize,
    group: usize,
    index: usize,
    id: u64,
    proto: Proto,
    messages: usize,
    extras: usize,
    /// Its first struct message's first field is the type the working tree's dependency upgrade
    /// changes (one file per crate, when the workspace has dependencies).
    reaches_upgrade: bool,
}

/// One service file and the functions added to it so far.
#[derive(Debug, Clone)]
struct PlainFile {
    krate: usize,
    group: usize,
    index: usize,
    id: u64,
    extras: usize,
}

/// The whole workspace as data, rendered to files on demand.
#[derive(Debug, Clone)]
struct Model {
    seed: u64,
    crates: Vec<String>,
    /// Message groups per crate.
    groups: Vec<usize>,
    /// Service groups per crate.
    svc_groups: Vec<usize>,
    msg_files: Vec<MsgFile>,
    plain: Vec<PlainFile>,
    /// The release each crate's protocols declare.
    versions: Vec<usize>,
    /// The dependency crates, when the workspace has some.
    deps: Option<Dependencies>,
    /// The dependency types messages may name.
    dep_types: Vec<String>,
}

const GROUP_SIZE: usize = 20;

/// Marks, in each crate, the first file of requests and responses (whose first message is always a
/// struct): its first message reaches the type the working tree's dependency upgrade changes.
fn mark_upgrade_readers(msg_files: &mut [MsgFile], crates: usize) {
    for k in 0..crates {
        if let Some(f) = msg_files
            .iter_mut()
            .find(|f| f.krate == k && f.proto == Proto::Ctl)
        {
            f.reaches_upgrade = true;
        }
    }
}

impl Model {
    fn new(scale: &Scale) -> Result<Self> {
        ensure!(scale.crates >= 1, "--crates must be at least 1");
        ensure!(
            scale.files >= scale.crates,
            "--files must be at least the number of crates"
        );
        ensure!(
            scale.messages >= scale.files,
            "--messages must be at least --files"
        );
        // Each crate has a common.rs, and each message group a types.rs: they count as plain files.
        let crates: Vec<String> = (0..scale.crates)
            .map(|i| match CRATE_NAMES.get(i) {
                Some(name) => (*name).to_owned(),
                None => format!("svc{i}"),
            })
            .collect();
        let mut rng = Rng::new(scale.seed, 1);
        let mut msg_files = Vec::new();
        let mut groups = vec![0; scale.crates];
        for (k, group_count) in groups.iter_mut().enumerate() {
            let n = scale.files / scale.crates + usize::from(k < scale.files % scale.crates);
            *group_count = n.div_ceil(GROUP_SIZE);
            for i in 0..n {
                // Mostly requests and responses, a quarter events, one file in twenty eventlog records.
                let proto = match rng.below(20) {
                    0..=13 => Proto::Ctl,
                    14..=18 => Proto::Events,
                    _ => Proto::Log,
                };
                msg_files.push(MsgFile {
                    krate: k,
                    group: i / GROUP_SIZE,
                    index: i % GROUP_SIZE,
                    id: msg_files.len() as u64,
                    proto,
                    messages: 0,
                    extras: 0,
                    reaches_upgrade: false,
                });
            }
        }
        for (i, f) in msg_files.iter_mut().enumerate() {
            f.messages =
                scale.messages / scale.files + usize::from(i < scale.messages % scale.files);
        }
        let shared: usize = scale.crates + groups.iter().sum::<usize>();
        ensure!(
            scale.plain_files >= shared,
            "--plain-files must be at least {shared} (each crate's common.rs and each group's types.rs)"
        );
        let svc = scale.plain_files - shared;
        let mut plain = Vec::new();
        let mut svc_groups = vec![0; scale.crates];
        for (k, group_count) in svc_groups.iter_mut().enumerate() {
            let n = svc / scale.crates + usize::from(k < svc % scale.crates);
            *group_count = n.div_ceil(GROUP_SIZE);
            for i in 0..n {
                plain.push(PlainFile {
                    krate: k,
                    group: i / GROUP_SIZE,
                    index: i % GROUP_SIZE,
                    id: plain.len() as u64,
                    extras: 0,
                });
            }
        }
        let deps =
            (scale.dependencies > 0).then(|| Dependencies::new(scale.seed, scale.dependencies));
        if deps.is_some() {
            mark_upgrade_readers(&mut msg_files, scale.crates);
        }
        Ok(Model {
            seed: scale.seed,
            versions: vec![0; crates.len()],
            dep_types: deps
                .as_ref()
                .map(Dependencies::reachable)
                .unwrap_or_default(),
            deps,
            crates,
            groups,
            svc_groups,
            msg_files,
            plain,
        })
    }

    fn crate_dir(&self, k: usize) -> String {
        format!("crates/{}", self.crates[k])
    }

    fn msg_path(&self, f: &MsgFile) -> String {
        format!(
            "{}/src/proto/g{}/m{}.rs",
            self.crate_dir(f.krate),
            f.group,
            f.index
        )
    }

    fn plain_path(&self, f: &PlainFile) -> String {
        format!(
            "{}/src/svc/s{}/f{}.rs",
            self.crate_dir(f.krate),
            f.group,
            f.index
        )
    }

    fn proto_path(&self, k: usize) -> String {
        format!("{}/src/proto/mod.rs", self.crate_dir(k))
    }

    /// Every file of the working tree at this state, by path.
    fn all_files(&self, wirecheck: &Path) -> Vec<(String, String)> {
        let mut out = self.root_files(wirecheck);
        for k in 0..self.crates.len() {
            out.extend(self.crate_files(k));
        }
        for f in &self.msg_files {
            out.push((self.msg_path(f), self.msg_rs(f)));
        }
        for f in &self.plain {
            out.push((self.plain_path(f), plain_rs(self.seed, f)));
        }
        out
    }

    /// The workspace's own files: its manifest and `.gitignore`; with dependencies, also its
    /// `.cargo/config.toml` (the vendor directory) and `Cargo.lock`.
    fn root_files(&self, wirecheck: &Path) -> Vec<(String, String)> {
        let members: Vec<String> = (0..self.crates.len())
            .map(|k| format!("\"{}\"", self.crate_dir(k)))
            .collect();
        let dependencies = self
            .deps
            .as_ref()
            .map(Dependencies::workspace_entries)
            .unwrap_or_default();
        let mut out = vec![(
            "Cargo.toml".to_owned(),
            format!(
                "# Generated by `cargo xtask bench` (xtask/src/bench/synth.rs).\n[workspace]\nmembers = [{}]\nresolver = \"2\"\n\n\
                 [workspace.dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\
                 wirecheck = {{ path = {:?} }}\n{dependencies}",
                members.join(", "),
                wirecheck.display().to_string()
            ),
        )];
        match &self.deps {
            None => out.push((".gitignore".to_owned(), "/target\n".to_owned())),
            Some(deps) => {
                // The vendored sources stay out of git, as a CI cache would restore them.
                out.push((".gitignore".to_owned(), "/target\n/vendor\n".to_owned()));
                out.push((
                    ".cargo/config.toml".to_owned(),
                    Dependencies::cargo_config(),
                ));
                out.push(("Cargo.lock".to_owned(), deps.lock(&self.crates)));
            }
        }
        out
    }

    /// The files of crate `k` but its message and service files.
    fn crate_files(&self, k: usize) -> Vec<(String, String)> {
        let dir = self.crate_dir(k);
        let name = &self.crates[k];
        let dependencies = self
            .deps
            .as_ref()
            .map(Dependencies::member_entries)
            .unwrap_or_default();
        let mut out = vec![
            (
                format!("{dir}/Cargo.toml"),
                format!(
                    "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
                     [dependencies]\nserde = {{ workspace = true }}\nserde_json = {{ workspace = true }}\nwirecheck = {{ workspace = true }}\n{dependencies}"
                ),
            ),
            (
                format!("{dir}/src/lib.rs"),
                format!(
                    "//! The {name} service (synthetic, generated by `cargo xtask bench`).\n#![allow(dead_code, unused_imports)]\n\n\
                     pub mod common;\npub mod proto;\npub mod svc;\n\n/// The crate's name, for logs.\npub const NAME: &str = \"{name}\";\n"
                ),
            ),
            (format!("{dir}/src/common.rs"), common_rs(name)),
            (self.proto_path(k), self.proto_rs(k)),
        ];
        for g in 0..self.groups[k] {
            let mut m = format!("//! Message group {g} of {name}.\n\npub mod types;\n");
            for f in self
                .msg_files
                .iter()
                .filter(|f| f.krate == k && f.group == g)
            {
                let _ = writeln!(m, "pub mod m{};", f.index);
            }
            out.push((format!("{dir}/src/proto/g{g}/mod.rs"), m));
            out.push((
                format!("{dir}/src/proto/g{g}/types.rs"),
                group_types_rs(self.seed, k, g),
            ));
        }
        let mut svc = format!("//! Service code of {name}.\n\n");
        for g in 0..self.svc_groups[k] {
            let _ = writeln!(svc, "pub mod s{g};");
            let mut m = format!("//! Service group {g}.\n\n");
            for f in self.plain.iter().filter(|f| f.krate == k && f.group == g) {
                let _ = writeln!(m, "pub mod f{};", f.index);
            }
            out.push((format!("{dir}/src/svc/s{g}/mod.rs"), m));
        }
        out.push((format!("{dir}/src/svc/mod.rs"), svc));
        out
    }

    fn proto_rs(&self, k: usize) -> String {
        let name = &self.crates[k];
        let r = self.versions[k];
        let min = r.saturating_sub(2);
        let mut s = format!(
            "//! The protocols of {name}.\n\nuse wirecheck::Protocol;\n\n\
             /// Requests and responses between {name} and its clients.\n\
             #[derive(Protocol)]\n#[wire(name = \"{name}-ctl\", version = \"1.{r}.0\", min_compatible = \"1.{min}.0\")]\npub struct Ctl;\n\n\
             /// Events {name} publishes.\n\
             #[derive(Protocol)]\n#[wire(name = \"{name}-events\", version = \"1.{r}.0\", upgrade = \"server-first\")]\npub struct Events;\n\n\
             /// The eventlog {name} stores: every later release reads it back.\n\
             #[derive(Protocol)]\n#[wire(name = \"{name}-log\", version = \"1.{r}.0\")]\npub struct Log;\n\n"
        );
        for g in 0..self.groups[k] {
            let _ = writeln!(s, "pub mod g{g};");
        }
        s
    }

    fn msg_rs(&self, f: &MsgFile) -> String {
        MsgWriter::new(self, f).render()
    }
}

/// Runs git in `dir` with a fixed identity and dates (commit ids are then the same on every run).
fn git(dir: &Path, args: &[&str], when: u64) -> Result<()> {
    let date = format!("{} +0000", 1_700_000_000 + when * 3600);
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.invalid",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgSign=false",
            "-c",
            "tag.gpgSign=false",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .current_dir(dir)
        .output()
        .with_context(|| format!("running git {args:?}"))?;
    ensure!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

fn write_files(root: &Path, files: &[(String, String)]) -> Result<()> {
    for (path, text) in files {
        let full = root.join(path);
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&full, text).with_context(|| format!("writing {}", full.display()))?;
    }
    Ok(())
}

/// Generates the workspace into `root` (which must not exist or be empty): files, git history, tags and
/// the working-tree change. `wirecheck` is this repository's root (the crates depend on it for the derives).
pub fn generate(root: &Path, scale: &Scale, wirecheck: &Path) -> Result<Summary> {
    fs::create_dir_all(root)?;
    let mut model = Model::new(scale)?;
    let mut rng = Rng::new(scale.seed, 7);
    write_files(root, &model.all_files(wirecheck))?;
    let generated_bytes = if scale.generated_bytes > 0 {
        add_generated_file(root, &model.crate_dir(0), scale.generated_bytes)?
    } else {
        0
    };
    if let Some(deps) = &model.deps {
        write_files(
            &root.join("vendor"),
            &deps.vendor_files(&newest_versions(deps)),
        )?;
    }
    let commits = commit_history(root, scale, &mut model, &mut rng)?;
    let before = model.deps.clone();
    let changed = change_working_tree(root, scale, &mut model, &mut rng)?;
    let all = model.all_files(wirecheck);
    let rs: Vec<&(String, String)> = all.iter().filter(|(p, _)| p.ends_with(".rs")).collect();
    let labels = |deps: &Dependencies| (0..deps.len()).map(|d| deps.label(d)).collect::<Vec<_>>();
    Ok(Summary {
        rs_files: rs.len(),
        rs_bytes: rs.iter().map(|(_, t)| t.len()).sum(),
        messages: count_messages(&all),
        helper_types: all
            .iter()
            .map(|(_, t)| t.matches("Serialize, Deserialize)]").count())
            .sum(),
        message_files: model.msg_files.len(),
        plain_files: scale.plain_files,
        commits,
        tags: scale.tags,
        last_tag: format!("v1.{}.0", scale.tags - 1),
        changed_files: changed,
        crates: model.crates.clone(),
        generated_bytes,
        dependencies: model.deps.as_ref().map(labels).unwrap_or_default(),
        upgrade: before.zip(model.deps.as_ref()).map(|(old, new)| {
            let d = new.upgraded_in_working_tree();
            (old.label(d), new.label(d))
        }),
    })
}

/// The newest version of each dependency package that the history or the working tree locks.
fn newest_versions(deps: &Dependencies) -> Vec<usize> {
    let mut newest = deps.locked.clone();
    newest[deps.upgraded_in_working_tree()] += 1;
    if let Some(h) = deps.upgraded_in_history() {
        newest[h] += 1;
    }
    newest
}

/// Commits the first release and then, for every later one, `commits_per_tag` commits that each add
/// optional fields to two message files and a function to two service files, the last of them
/// declaring the release in every protocol, and tags it. Returns the number of commits.
fn commit_history(root: &Path, scale: &Scale, model: &mut Model, rng: &mut Rng) -> Result<usize> {
    git(root, &["init", "-q"], 0)?;
    git(root, &["add", "-A"], 0)?;
    git(root, &["commit", "-q", "-m", "release 1.0.0"], 0)?;
    git(root, &["tag", "v1.0.0"], 0)?;
    let mut commits = 1;
    for r in 1..scale.tags {
        for c in 0..scale.commits_per_tag {
            let mut changed = grow_files(model, rng);
            if c + 1 == scale.commits_per_tag {
                changed.extend(declare_release(model, r, r + 1 == scale.tags));
            }
            commit(root, &changed, commits)?;
            commits += 1;
        }
        git(root, &["tag", &format!("v1.{r}.0")], commits as u64)?;
    }
    Ok(commits)
}

/// One commit's growth: optional fields added to two message files (their first messages) and a
/// function to two service files. Returns the changed files.
fn grow_files(model: &mut Model, rng: &mut Rng) -> Vec<(String, String)> {
    let mut changed = Vec::new();
    for _ in 0..2 {
        let i = rng.below(model.msg_files.len());
        model.msg_files[i].extras += 1;
        let f = &model.msg_files[i];
        changed.push((model.msg_path(f), model.msg_rs(f)));
    }
    for _ in 0..2 {
        if model.plain.is_empty() {
            break;
        }
        let i = rng.below(model.plain.len());
        model.plain[i].extras += 1;
        let f = &model.plain[i];
        changed.push((model.plain_path(f), plain_rs(model.seed, f)));
    }
    changed
}

/// Release `r` declared in every protocol; at the `last` release, with dependencies, one package
/// upgraded (a shape change older releases do not have). Returns the changed files.
fn declare_release(model: &mut Model, r: usize, last: bool) -> Vec<(String, String)> {
    let mut changed = Vec::new();
    for k in 0..model.crates.len() {
        model.versions[k] = r;
        changed.push((model.proto_path(k), model.proto_rs(k)));
    }
    if let Some(deps) = model.deps.as_mut().filter(|_| last)
        && let Some(h) = deps.upgraded_in_history()
    {
        deps.locked[h] += 1;
        changed.push(("Cargo.lock".to_owned(), deps.lock(&model.crates)));
    }
    changed
}

/// Writes and commits `changed` as commit number `n` (its date follows from `n`).
fn commit(root: &Path, changed: &[(String, String)], n: usize) -> Result<()> {
    write_files(root, changed)?;
    let mut args = vec!["add", "--"];
    args.extend(changed.iter().map(|(p, _)| p.as_str()));
    git(root, &args, n as u64)?;
    let message = format!("change {n}");
    git(
        root,
        &["commit", "-q", "--allow-empty", "-m", &message],
        n as u64,
    )
}

/// The PR-sized change, left uncommitted: optional fields in three message files, two service files
/// edited (times `change`), and the touched protocols bumped (minor). With dependencies, one package is
/// upgraded too (an optional field added to a type every crate's messages reach), and every protocol
/// bumped. Returns the number of changed files.
fn change_working_tree(
    root: &Path,
    scale: &Scale,
    model: &mut Model,
    rng: &mut Rng,
) -> Result<usize> {
    let mut changed: Vec<(String, String)> = Vec::new();
    let mut touched = BTreeSet::new();
    for i in distinct(rng, 3 * scale.change, model.msg_files.len()) {
        model.msg_files[i].extras += 1;
        touched.insert(model.msg_files[i].krate);
        let f = &model.msg_files[i];
        changed.push((model.msg_path(f), model.msg_rs(f)));
    }
    for i in distinct(rng, 2 * scale.change, model.plain.len()) {
        model.plain[i].extras += 1;
        let f = &model.plain[i];
        changed.push((model.plain_path(f), plain_rs(model.seed, f)));
    }
    if let Some(deps) = model.deps.as_mut() {
        let d = deps.upgraded_in_working_tree();
        deps.locked[d] += 1;
        changed.push(("Cargo.lock".to_owned(), deps.lock(&model.crates)));
        touched.extend(0..model.crates.len());
    }
    for &k in &touched {
        model.versions[k] = scale.tags;
        changed.push((model.proto_path(k), model.proto_rs(k)));
    }
    write_files(root, &changed)?;
    Ok(changed.len())
}

/// `count` distinct indices below `len` (all of them when `count` is larger), in the order drawn.
fn distinct(rng: &mut Rng, count: usize, len: usize) -> Vec<usize> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    while out.len() < count.min(len) {
        let i = rng.below(len);
        if seen.insert(i) {
            out.push(i);
        }
    }
    out
}

/// Writes `generated.rs` of about `bytes` bytes into the crate at `crate_dir` and mounts it from the crate
/// root: protobuf-style output (types, impls, constants) whose doc comments, comments and strings say
/// `wire` (and `#[wire(...)]`, `#[derive(Message)]`), and at its very end one message of the crate's
/// events protocol that reaches the first and the last generated type: a check needs three items of the
/// file. Returns its size.
fn add_generated_file(root: &Path, crate_dir: &str, bytes: usize) -> Result<usize> {
    let mut text = String::with_capacity(bytes + 1024);
    text.push_str(
        "//! Generated from `gen/v1/*.proto`: the wire types of the generated API. Do not edit.\n\
         //! Every message keeps its wire name in `WIRE_NAME`.\n#![allow(clippy::all)]\n\n",
    );
    let mut i = 0usize;
    while text.len() < bytes {
        write!(
            text,
            "/// The wire format of `gen.v1.Item{i}` (wire type 2, length-delimited).\n\
             /// Not a wirecheck message: `#[derive(Message)] #[wire(protocol = P)]` would make it one.\n\
             #[derive(Clone, PartialEq, Debug, Default, serde::Serialize, serde::Deserialize)]\n\
             pub struct Item{i} {{\n    /// Field 1 on the wire.\n    pub id: u64,\n    \
             /* wire tag 2 */ pub name: ::std::string::String,\n    pub tags: ::std::vec::Vec<u32>,\n}}\n\n\
             impl Item{i} {{\n    /// The name on the wire.\n    \
             pub const WIRE_NAME: &'static str = \"gen.v1.Item{i} #[wire(topic = \\\"gen.{i}\\\")]\";\n    \
             /// Its size on the wire.\n    pub fn wire_size(&self) -> usize {{\n        \
             let _ = r#\"wire\"#;\n        8 + self.name.len() + 4 * self.tags.len()\n    }}\n}}\n\n"
        )?;
        i += 1;
    }
    write!(
        text,
        "/// What the generated API sends on the events protocol.\n\
         #[derive(serde::Serialize, serde::Deserialize, wirecheck::Message)]\n\
         #[wire(protocol = crate::proto::Events, topic = \"gen.envelope\", kind = \"event\")]\n\
         pub struct GenEnvelope {{\n    pub first: Item0,\n    pub last: Item{},\n}}\n",
        i.saturating_sub(1)
    )?;
    let src = Path::new(root).join(crate_dir).join("src");
    fs::write(src.join("generated.rs"), &text).context("writing generated.rs")?;
    let lib = src.join("lib.rs");
    let mut lib_text = fs::read_to_string(&lib)?;
    lib_text.push_str("\n/// Generated protobuf types.\npub mod generated;\n");
    fs::write(&lib, lib_text)?;
    Ok(text.len())
}

fn count_messages(files: &[(String, String)]) -> usize {
    files
        .iter()
        .map(|(_, t)| t.matches("Deserialize, Message)]").count())
        .sum()
}

/// The `.rs` files of a generated workspace's crates, relative to its root.
pub fn rs_files(root: &Path) -> Result<Vec<PathBuf>> {
    fn visit(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                visit(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(&root.join("crates"), &mut out)?;
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_scale_gives_the_same_files() {
        let scale = Scale {
            messages: 60,
            files: 12,
            plain_files: 20,
            crates: 2,
            tags: 2,
            commits_per_tag: 1,
            change: 1,
            seed: 42,
            generated_bytes: 0,
            dependencies: 0,
        };
        let a = Model::new(&scale).unwrap().all_files(Path::new("/w"));
        let b = Model::new(&scale).unwrap().all_files(Path::new("/w"));
        assert_eq!(a, b);
        assert_eq!(count_messages(&a), 60);
        let plain = a
            .iter()
            .filter(|(p, t)| p.ends_with(".rs") && !t.contains("wire") && !p.ends_with("mod.rs"))
            .filter(|(p, _)| !p.ends_with("lib.rs"))
            .count();
        assert_eq!(
            plain, 20,
            "common.rs, types.rs and service files carry no annotation"
        );
    }

    fn small_with_dependencies() -> Scale {
        Scale {
            messages: 40,
            files: 8,
            plain_files: 12,
            crates: 2,
            tags: 3,
            commits_per_tag: 1,
            change: 1,
            seed: 7,
            generated_bytes: 0,
            dependencies: 5,
        }
    }

    #[test]
    fn messages_of_every_crate_reach_the_type_the_upgrade_changes() {
        let model = Model::new(&small_with_dependencies()).unwrap();
        let deps = model.deps.as_ref().unwrap();
        let changed = deps.changed_type(deps.upgraded_in_working_tree());
        assert!(changed.starts_with("acme_geo::"), "{changed}");
        let files = model.all_files(Path::new("/w"));
        for krate in &model.crates {
            let reaching = files
                .iter()
                .filter(|(p, t)| p.starts_with(&format!("crates/{krate}/")) && t.contains(&changed))
                .count();
            assert!(reaching > 0, "no message of {krate} reaches {changed}");
        }
        let text = |path: &str| &files.iter().find(|(p, _)| p == path).unwrap().1;
        assert!(text(".cargo/config.toml").contains("directory = \"vendor\""));
        assert!(text(".gitignore").contains("/vendor"));
        let lock = text("Cargo.lock");
        for d in 0..deps.len() {
            let label = deps.label(d);
            let (name, version) = label.split_once(' ').unwrap();
            assert!(
                lock.contains(&format!(
                    "name = \"{name}\"\nversion = \"{version}\"\nsource = \"registry+"
                )),
                "{label} is not locked from the registry:\n{lock}"
            );
        }
    }

    #[test]
    fn the_history_and_the_working_tree_upgrade_a_vendored_package() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let summary = generate(&root, &small_with_dependencies(), Path::new("/w")).unwrap();
        assert_eq!(summary.dependencies.len(), 5);
        assert_eq!(
            summary.upgrade,
            Some(("acme-geo 1.0.0".to_owned(), "acme-geo 1.1.0".to_owned()))
        );
        // Both versions of each upgraded package are vendored, the newest under its plain name.
        let vendor = root.join("vendor");
        for dir in [
            "acme-geo",
            "acme-geo-1.0.0",
            "acme-money",
            "acme-money-1.0.0",
            "acme-ids",
        ] {
            assert!(vendor.join(dir).join("Cargo.toml").is_file(), "{dir}");
            assert!(
                vendor.join(dir).join(".cargo-checksum.json").is_file(),
                "{dir}"
            );
        }
        let manifest = fs::read_to_string(vendor.join("acme-geo/Cargo.toml")).unwrap();
        assert!(manifest.contains("version = \"1.1.0\""), "{manifest}");
        // The working tree's change upgrades acme-geo; the last tag upgraded acme-money.
        let show = |rev: &str| {
            let out = Command::new("git")
                .args(["show", &format!("{rev}:Cargo.lock")])
                .current_dir(&root)
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let locked = |lock: &str, name: &str| {
            let at = lock.find(&format!("name = \"{name}\"\n")).unwrap();
            lock[at..].lines().nth(1).unwrap().to_owned()
        };
        let (first, last) = (show("v1.0.0"), show(&summary.last_tag));
        let now = fs::read_to_string(root.join("Cargo.lock")).unwrap();
        assert_eq!(locked(&first, "acme-money"), "version = \"1.0.0\"");
        assert_eq!(locked(&last, "acme-money"), "version = \"1.1.0\"");
        assert_eq!(locked(&last, "acme-geo"), "version = \"1.0.0\"");
        assert_eq!(locked(&now, "acme-geo"), "version = \"1.1.0\"");
        let status = Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(&root)
            .output()
            .unwrap();
        let status = String::from_utf8(status.stdout).unwrap();
        assert!(
            !status.contains("vendor"),
            "vendor/ is not in git: {status}"
        );
        assert!(status.contains("Cargo.lock"), "{status}");
    }
}
