#![cfg(feature = "checker")]
//! Verdicts that hang on how `#[serde(...)]` is read, checked against real serde_json: each case's old
//! and new types are compiled here and the same text is extracted by wirecheck (`stringify!` of the
//! items). Every witness of a major finding must be written by the writer's release and rejected by
//! the reader's; in a direction wirecheck finds nothing major in, every value the writer writes must be
//! read. tests/serde_attrs_parity.rs compares the attribute reading itself with serde_derive's.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wirecheck::compat::{Scope, compare_protocol};
use wirecheck::extract::snapshot_from_sources;
use wirecheck::findings::{Direction, Finding, Level};

/// A release: its items compiled in module `$name`, and their text as `$name::SOURCE`.
macro_rules! release {
    ($name:ident { $($item:item)* }) => {
        #[allow(dead_code)]
        mod $name {
            use serde::{Deserialize, Serialize};
            use wirecheck::{Message, Protocol};

            #[derive(Protocol)]
            #[wire(name = "p", version = "0.1.0")]
            pub struct P;

            $($item)*

            pub const SOURCE: &str = concat!(
                "use serde::{Deserialize, Serialize};\nuse wirecheck::{Message, Protocol};\n",
                "#[derive(Protocol)]\n#[wire(name = \"p\", version = \"0.1.0\")]\npub struct P;\n",
                $(stringify!($item), "\n"),*
            );
        }
    };
}

// A field read by every `deserialize` name of its `rename`s: serde reads by the first one and by each
// other as by an alias, and a later `rename` attribute does not undo the serialize name an earlier one
// set.
release!(first_name {
    #[derive(Debug, Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "t", kind = "event")]
    pub struct Job {
        #[serde(rename = "id")]
        pub job_id: u64,
    }
});

release!(both_names {
    #[derive(Debug, Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "t", kind = "event")]
    pub struct Job {
        #[serde(rename(serialize = "id", deserialize = "jobid"))]
        #[serde(rename(deserialize = "id"))]
        pub job_id: u64,
    }
});

release!(other_name {
    #[derive(Debug, Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "t", kind = "event")]
    pub struct Job {
        #[serde(rename = "jobid")]
        pub job_id: u64,
    }
});

// The same for a variant: a second `rename(deserialize)` on a variant is one more name it is read by.
release!(variant_first {
    #[derive(Debug, Serialize, Deserialize)]
    pub enum State {
        #[serde(rename = "run")]
        Running,
        Done,
    }

    #[derive(Debug, Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "t", kind = "event")]
    pub struct Update {
        pub state: State,
    }
});

release!(variant_both {
    #[derive(Debug, Serialize, Deserialize)]
    pub enum State {
        #[serde(rename(serialize = "run", deserialize = "running"))]
        #[serde(rename(deserialize = "run"))]
        Running,
        Done,
    }

    #[derive(Debug, Serialize, Deserialize, Message)]
    #[wire(protocol = P, topic = "t", kind = "event")]
    pub struct Update {
        pub state: State,
    }
});

/// wirecheck's findings from `old` to `new`, each source extracted without a note.
fn findings(old: &str, new: &str) -> Vec<Finding> {
    let read = |source: &str| {
        let snapshot = snapshot_from_sources("fixture", &[("src/lib.rs", source)])
            .unwrap_or_else(|e| panic!("{e}\n{source}"));
        assert_eq!(snapshot.notes, Vec::new(), "{source}");
        snapshot
    };
    compare_protocol(&read(old), &read(new), "p", "v0.1.0", Scope::Full)
}

fn majors(found: &[Finding], direction: Direction) -> Vec<&Finding> {
    found
        .iter()
        .filter(|f| f.level == Level::Major && f.direction == Some(direction))
        .collect()
}

/// Whether `W` writes `witness` (it reads it and writes it back the same) and `R` rejects it.
fn rejected<W: Serialize + DeserializeOwned, R: DeserializeOwned>(
    witness: &Value,
) -> Result<(), String> {
    let written: W = serde_json::from_value(witness.clone())
        .map_err(|e| format!("the writer does not produce {witness}: {e}"))?;
    let again = serde_json::to_value(&written).map_err(|e| e.to_string())?;
    if &again != witness {
        return Err(format!("the writer writes {again}, not {witness}"));
    }
    match serde_json::from_value::<R>(witness.clone()) {
        Ok(_) => Err(format!("the reader reads {witness}")),
        Err(_) => Ok(()),
    }
}

/// Whether `R` reads what `W` writes of `value`.
fn reads<W: Serialize, R: DeserializeOwned>(value: &W) -> Result<(), String> {
    let json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    serde_json::from_value::<R>(json.clone())
        .map(|_| ())
        .map_err(|e| format!("{json}: {e}"))
}

#[test]
fn a_second_deserialize_name_keeps_the_first_readable() {
    let found = findings(first_name::SOURCE, both_names::SOURCE);
    assert!(
        majors(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    assert!(
        majors(&found, Direction::NewReadsOld).is_empty(),
        "{found:#?}"
    );
    let (old, new) = (first_name::Job { job_id: 7 }, both_names::Job { job_id: 7 });
    reads::<_, both_names::Job>(&old).unwrap();
    reads::<_, first_name::Job>(&new).unwrap();
    // The new release reads the other name too.
    let other = serde_json::json!({ "jobid": 7 });
    serde_json::from_value::<both_names::Job>(other).unwrap();
}

#[test]
fn a_writer_of_the_second_name_breaks_only_readers_of_the_first() {
    let found = findings(other_name::SOURCE, both_names::SOURCE);
    let breaks = majors(&found, Direction::OldReadsNew);
    assert!(!breaks.is_empty(), "{found:#?}");
    for finding in breaks {
        let witness = finding
            .witness
            .as_ref()
            .expect("a major finding has a witness");
        rejected::<both_names::Job, other_name::Job>(witness)
            .unwrap_or_else(|e| panic!("{}: {e}", finding.message));
    }
    assert!(
        majors(&found, Direction::NewReadsOld).is_empty(),
        "{found:#?}"
    );
    reads::<_, both_names::Job>(&other_name::Job { job_id: 7 }).unwrap();
}

#[test]
fn a_variant_read_by_both_names_reads_the_old_one() {
    let found = findings(variant_first::SOURCE, variant_both::SOURCE);
    assert!(
        majors(&found, Direction::OldReadsNew).is_empty(),
        "{found:#?}"
    );
    assert!(
        majors(&found, Direction::NewReadsOld).is_empty(),
        "{found:#?}"
    );
    for (old, new) in [
        (variant_first::State::Running, variant_both::State::Running),
        (variant_first::State::Done, variant_both::State::Done),
    ] {
        reads::<_, variant_both::Update>(&variant_first::Update { state: old }).unwrap();
        reads::<_, variant_first::Update>(&variant_both::Update { state: new }).unwrap();
    }
    let other = serde_json::json!({ "state": "running" });
    serde_json::from_value::<variant_both::Update>(other).unwrap();
}
