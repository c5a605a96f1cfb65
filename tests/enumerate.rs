//! Enumeration (`src/fuzz/sweep.rs`): where the program's first steps bound
//! its input to a small box, every input runs natively on every revision,
//! and revisions that behave alike on all of them are proved equivalent,
//! so the run ends as soon as it knows. The truth here is every input of
//! the domain run on each revision's own build, a process per run.

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, handwritten, native_outcomes, partition, truth};
use psychic::cluster::Verdict;
use psychic::ktest::{KTest, Object};

fn set(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/enumerate").join(name)
}

/// Every input of a box of 4-byte objects `(name, first, count)`, the first
/// varying slowest.
fn inputs(objects: &[(&str, i32, i32)]) -> Vec<KTest> {
    let mut all = vec![Vec::new()];
    for &(name, first, count) in objects {
        all = all
            .into_iter()
            .flat_map(|prefix: Vec<Object>| {
                (first..first + count).map(move |v| {
                    let mut p = prefix.clone();
                    p.push(Object { name: name.into(), bytes: v.to_le_bytes().to_vec() });
                    p
                })
            })
            .collect();
    }
    all.into_iter().map(|objects| KTest { args: vec!["prog".into()], objects, ..KTest::default() }).collect()
}

/// psychic on the set, against the partition of its revisions' own builds
/// on every input.
fn check(name: &str, domain: &[(&str, i32, i32)]) -> psychic::report::Report {
    let _turn = handwritten::one_at_a_time();
    let revisions = corpus::revisions(&set(name));
    let rows = native_outcomes(&revisions, &inputs(domain));
    let truth = partition(&rows);
    let work = tempfile::tempdir().unwrap();
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let report = corpus::diff_patches(&psychic, &revisions, &["--max-time", "30"], work.path()).unwrap();
    let bad = truth::replay_mismatches(&report, &work.path().join("out"), &revisions);
    handwritten::assert_exact(name, &report, &truth, &bad);
    report
}

/// A global counter in the original and a local in its rewrite print the
/// same in a process of their own; the domain's 5,000 inputs prove the two
/// rewrites equivalent (an input-bounded loop the engine cannot finish), and
/// the run ends proved, not at its budget.
#[test]
fn every_input_of_a_small_domain_proves_equivalence() {
    let report = check("counter", &[("n", 0, 5000)]);
    let e = report.stats.enumeration.as_ref().expect("the domain is a box: enumeration ran");
    assert_eq!((e.inputs, e.in_domain), (5000, 5000), "{e:?}");
    assert_eq!(e.domain, "n in 0..=4999");
    assert_eq!(e.shortfall(), None, "{e:?}");
    assert!(!report.stats.partial, "{:?}", report.stats.partial_reasons);
    for (c, v) in report.clusters.iter().zip(&report.cluster_verdicts) {
        if c.len() > 1 {
            assert_eq!(v.verdict, Verdict::ProvedEquivalent, "{c:?}: {:?}", v.reasons);
        }
    }
}

/// rand() keeps its state in the C library, and one revision aborts: the
/// enumeration still finds what tells them apart, but proves nothing, and
/// says why.
#[test]
fn enumeration_proves_nothing_where_it_cannot_reset_the_program() {
    let report = check("dice", &[("seed", 0, 50), ("n", 0, 20)]);
    let e = report.stats.enumeration.as_ref().expect("the domain is a box: enumeration ran");
    assert_eq!(e.inputs, 1000, "{e:?}");
    let why = e.not_a_proof.as_deref().expect("no proof");
    assert!(why.contains("crashed"), "the abort is the first reason: {why}");
    assert!(report.stats.partial, "without a proof, the answer is partial");
}
