//! End to end: seeded sequences of the changes a repository goes through between checks (messages and
//! the types they reach edited, service code edited and added, commits, releases tagged, the store
//! damaged or losing files), each followed by a check with the store, which must print what a check
//! without it prints, and the same again when nothing changed. What the store reuses across checks (the
//! working tree's model and scans, release parts, comparisons named by part ids, the whole step) is
//! reused only while what it depended on holds.
#![cfg(feature = "checker")]

use std::path::{Path, PathBuf};

mod support;
use support::{check, git, report, write};

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";

const LIB: &str = "use wirecheck::Protocol;\n\n#[derive(Protocol)]\n#[wire(name = \"sched\", version = \"1.0.0\", min_compatible = \"1.0.0\")]\npub struct Sched;\n\n#[derive(Protocol)]\n#[wire(name = \"ctl\", version = \"1.0.0\")]\npub struct Ctl;\n\npub mod msgs;\npub mod shared;\npub mod service;\n";

/// The message files, each one message of the protocol given, its fields edited by the sequence.
const MESSAGES: [(&str, &str, &str); 3] = [
    ("alloc", "Sched", "record"),
    ("free", "Sched", "event"),
    ("stop", "Ctl", "request"),
];

/// A message file: `name`'s message of `protocol`, with `fields`.
fn message(name: &str, protocol: &str, kind: &str, fields: &[String]) -> String {
    let type_name = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
    let fields: String = fields.iter().map(|f| format!("    pub {f},\n")).collect();
    format!(
        "use serde::{{Deserialize, Serialize}};\nuse wirecheck::Message;\n\n#[derive(Serialize, Deserialize, Message)]\n#[wire(protocol = crate::{protocol}, topic = \"{name}\", kind = \"{kind}\")]\npub struct {type_name} {{\n{fields}}}\n"
    )
}

/// A tiny deterministic generator (xorshift64*): the sequences are the same on every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The workspace being changed: its messages' fields and the shared type's, as last written.
struct Repo {
    dir: PathBuf,
    fields: Vec<Vec<String>>,
    shared: Vec<String>,
    services: usize,
    releases: u32,
}

impl Repo {
    fn new(dir: &Path) -> Repo {
        let mut repo = Repo {
            dir: dir.to_owned(),
            fields: vec![
                vec!["id: u64".into(), "at: crate::shared::Place".into()],
                vec!["id: u64".into()],
                vec!["now: bool".into(), "why: Option<String>".into()],
            ],
            shared: vec!["node: u32".into()],
            services: 1,
            releases: 0,
        };
        write(&dir.join(".gitignore"), "/target\n");
        write(&dir.join("Cargo.toml"), MANIFEST);
        write(&dir.join("src/lib.rs"), LIB);
        let mods: String = MESSAGES
            .iter()
            .map(|(name, _, _)| format!("pub mod {name};\n"))
            .collect();
        write(&dir.join("src/msgs/mod.rs"), &mods);
        write(&dir.join("src/service.rs"), "pub mod s0;\n");
        write(&dir.join("src/service/s0.rs"), "pub fn run() {}\n");
        repo.write_messages();
        git(dir, &["init", "-q"]);
        repo.release();
        repo
    }

    fn write_messages(&self) {
        for ((name, protocol, kind), fields) in MESSAGES.iter().zip(&self.fields) {
            let text = message(name, protocol, kind, fields);
            write(&self.dir.join(format!("src/msgs/{name}.rs")), &text);
        }
        let shared: String = self.shared.iter().map(|f| format!(" pub {f},")).collect();
        write(
            &self.dir.join("src/shared.rs"),
            &format!(
                "/// Reached by the wire messages; declares nothing.\n#[derive(serde::Serialize, serde::Deserialize)]\npub struct Place {{{shared} }}\n"
            ),
        );
    }

    fn commit(&self) {
        git(&self.dir, &["add", "-A"]);
        git(
            &self.dir,
            &["commit", "-q", "--allow-empty", "-m", "change"],
        );
    }

    fn release(&mut self) {
        self.commit();
        git(&self.dir, &["tag", &format!("v1.{}.0", self.releases)]);
        self.releases += 1;
    }

    /// The stored files of the store's folder `folder`.
    fn stored(&self, folder: &str) -> Vec<PathBuf> {
        let Ok(builds) = std::fs::read_dir(self.dir.join("target/wirecheck/store")) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = builds
            .filter_map(|build| std::fs::read_dir(build.ok()?.path().join(folder)).ok())
            .flatten()
            .filter_map(|file| Some(file.ok()?.path()))
            .collect();
        files.sort();
        files
    }

    /// One change, chosen by `seeded`; what it was.
    fn change(&mut self, seeded: &mut Seeded) -> String {
        match seeded.below(9) {
            0 | 1 => {
                let m = seeded.below(MESSAGES.len());
                let n = self.fields[m].len();
                self.fields[m].push(format!("f{n}: Option<u32>"));
                self.write_messages();
                format!("an optional field added to {}", MESSAGES[m].0)
            }
            2 => {
                let m = seeded.below(MESSAGES.len());
                let field = &mut self.fields[m][0];
                *field = match field.as_str() {
                    "id: u64" => "id: u32".into(),
                    "id: u32" => "id: String".into(),
                    "now: bool" => "now: u8".into(),
                    other => format!("{}: i64", other.split(':').next().unwrap_or("x")),
                };
                self.write_messages();
                format!("a field retyped in {}", MESSAGES[m].0)
            }
            3 => {
                let n = self.shared.len();
                self.shared.push(format!("s{n}: u16"));
                self.write_messages();
                "a field added to the shared type".into()
            }
            4 => {
                let s = seeded.below(self.services);
                let path = self.dir.join(format!("src/service/s{s}.rs"));
                let mut text = std::fs::read_to_string(&path).unwrap();
                text.push_str("// edited\n");
                write(&path, &text);
                format!("service file s{s} edited")
            }
            5 => {
                let s = self.services;
                self.services += 1;
                let mods: String = (0..self.services)
                    .map(|i| format!("pub mod s{i};\n"))
                    .collect();
                write(&self.dir.join("src/service.rs"), &mods);
                write(
                    &self.dir.join(format!("src/service/s{s}.rs")),
                    "// wire up the worker\npub fn run() {}\n",
                );
                format!("service file s{s} added")
            }
            6 => {
                self.release();
                format!("released v1.{}.0", self.releases - 1)
            }
            7 => {
                let parts = self.stored("parts");
                if parts.is_empty() {
                    return "nothing stored to damage".into();
                }
                let part = &parts[seeded.below(parts.len())];
                std::fs::write(part, b"{ damaged").unwrap();
                "a stored part damaged".into()
            }
            _ => {
                for folder in ["scans", "compared", "checked"] {
                    if let Some(file) = self.stored(folder).first() {
                        std::fs::remove_file(file).unwrap();
                    }
                }
                "stored scans and comparisons lost".into()
            }
        }
    }
}

#[test]
fn every_check_of_a_changing_repository_prints_what_a_check_without_the_store_prints() {
    for seed in [1_u64, 2, 3, 7, 42, 1234] {
        let tmp = tempfile::tempdir().unwrap();
        let mut repo = Repo::new(&tmp.path().join("ws"));
        let mut seeded = Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut done = Vec::new();
        for _ in 0..12 {
            done.push(repo.change(&mut seeded));
            // `report` checks with and without the store; once more, the store reads everything back.
            let with_store = report(&repo.dir);
            let again = String::from_utf8(check(&repo.dir, &[]).stdout).unwrap();
            assert_eq!(again, with_store, "seed {seed}, after: {done:?}");
        }
    }
}
