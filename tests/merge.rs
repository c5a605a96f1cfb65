//! State merging where the variants of a meta branch meet again
//! (`fixtures/merge/`): patch sets whose equivalent variants compute one
//! value in other words, or set memory by a branch where another variant
//! computes without one, followed by a loop the input bounds. The truth
//! comes from every revision's own build run natively on every input of
//! the domain. `psychic diff-patches` (the engine alone) must give that
//! partition, prove the equivalent revisions equivalent, replay every test,
//! and have merged states; without merging (`--no-merge`) the same answer
//! takes more paths, which is what merging saves. Where the loop after the
//! site has no end in sight, the run must stop as soon as no state left can
//! tell the equivalent revisions apart, with them proved.

use crate::common;

use std::path::{Path, PathBuf};

use common::corpus::{self, Input};
use common::handwritten::{self, Case};

/// The domain: every integer of `lo..=hi` as a line of stdin.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Ints {
    lo: i64,
    hi: i64,
    /// Exploration cannot finish (a loop the input bounds after the site):
    /// the run must stop once no state left can tell the equivalent
    /// revisions apart, instead of the comparison without merging, which
    /// would only run out of its budget.
    #[serde(default)]
    stops_early: bool,
}

const SETS: &[&str] = &["collatz", "expressions", "statements"];

fn set_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/merge").join(name)
}

fn check(name: &str) {
    let dir = set_dir(name);
    let case: Case<Ints> = Case::load(&dir);
    let work = tempfile::tempdir().unwrap();
    let revisions = corpus::revisions(&dir);
    let bins = corpus::build_all(&revisions, work.path());
    let inputs: Vec<Input> =
        (case.domain.lo..=case.domain.hi).map(|x| Input::stdin(format!("{x}\n"))).collect();
    let truth = common::partition(&corpus::behaviours(&bins, &inputs));
    handwritten::assert_worth_checking(name, &revisions, &truth);

    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let flags: Vec<&str> = case.args.iter().map(String::as_str).collect();
    let run = |extra: &[&str], sub: &str| {
        let cwd = work.path().join(sub);
        std::fs::create_dir_all(&cwd).unwrap();
        let all: Vec<&str> = flags.iter().chain(extra).copied().collect();
        let r = corpus::diff_patches(&psychic, &revisions, &all, &cwd).unwrap();
        let bad = corpus::replay_mismatches(&r, &cwd.join("out"), &bins, &[]);
        handwritten::assert_exact(name, &r, &truth, &bad);
        assert!(!r.stats.partial, "{name} {extra:?}: partial: {:?}", r.stats.partial_reasons);
        for (cluster, verdict) in r.clusters.iter().zip(&r.cluster_verdicts) {
            assert!(
                cluster.len() == 1 || verdict.proved_equivalent(),
                "{name} {extra:?}: {cluster:?} is not proved equivalent"
            );
        }
        r
    };
    let merged = run(&[], "merged");
    if case.domain.stops_early {
        assert!(
            merged.stats.pairs_proved_by_exploration > 0,
            "{name}: the run did not stop on pairs no state could tell apart"
        );
        return;
    }
    let apart = run(&["--no-merge"], "apart");
    assert!(
        merged.stats.merging.merged_states > 0,
        "{name}: no state was merged: {:?}",
        merged.stats.merging
    );
    assert_eq!(apart.stats.merging.merged_states, 0, "{name}: --no-merge merged");
    assert!(
        merged.stats.paths_completed < apart.stats.paths_completed,
        "{name}: merging saved no path ({} merged, {} apart)",
        merged.stats.paths_completed,
        apart.stats.paths_completed
    );
}

#[test]
fn every_set_is_run() {
    handwritten::assert_listed(&set_dir(""), SETS);
}

#[test]
fn the_run_stops_when_no_state_can_tell_the_rewrites_apart() {
    check("collatz");
}

#[test]
fn rewrites_of_one_value_meet_as_one_state() {
    check("expressions");
}

#[test]
fn a_branch_and_its_branchless_rewrite_meet_as_one_state() {
    check("statements");
}
