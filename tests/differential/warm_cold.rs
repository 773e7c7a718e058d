//! The differential corpus's pairs checked warm and cold (`support::warm_cold`): every pair's old and
//! new source as a release of its own module, one repository for all.

use super::support::warm_cold::{Case, assert_warm_equals_cold};
use super::{PAIRS, SEED, engine_source, env_or, mutate};

#[test]
fn warm_and_cold_checks_agree_on_every_pair() {
    let seed = env_or("WIRECHECK_DIFFERENTIAL_SEED", SEED);
    let pairs = mutate::pairs(env_or("WIRECHECK_DIFFERENTIAL_PAIRS", PAIRS), seed);
    let cases: Vec<Case> = pairs
        .iter()
        .map(|pair| {
            Case::new(
                format!("pair {} ({})", pair.id, pair.base),
                engine_source(&pair.old.render_defs()),
                engine_source(&pair.new.render_defs()),
            )
        })
        .collect();
    let reports = assert_warm_equals_cold(&cases);
    // Every pair is checked: each protocol is in the report of the new release over the old.
    for index in 0..cases.len() {
        assert!(
            reports[0].contains(&format!("\"name\": \"p_c{index}\"")),
            "protocol p_c{index} is missing from the report"
        );
    }
}
