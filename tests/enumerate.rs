//! Enumeration (`src/fuzz/sweep.rs`): where the program's first steps bound
//! its input to a small box, every input runs natively on every revision,
//! and revisions that behave alike on all of them are proved equivalent,
//! so the run ends as soon as it knows. The truth here is every input of
//! the domain run on each revision's own build, a process per run (the
//! in-process sweep of `tests/common/sweep.c` for the larger box). Where it
//! does not run or finish, the report says why.

use crate::common;

use std::path::{Path, PathBuf};

use common::sweep::{Dim, Sweep};
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
/// says why: the library call for every revision, the abort for its own.
#[test]
fn enumeration_proves_nothing_where_it_cannot_reset_the_program() {
    let report = check("dice", &[("seed", 0, 50), ("n", 0, 20)]);
    let e = report.stats.enumeration.as_ref().expect("the domain is a box: enumeration ran");
    assert_eq!(e.inputs, 1000, "{e:?}");
    let why = e.not_a_proof.as_deref().expect("no proof");
    assert!(why.contains("rand"), "the library's state is the reason: {why}");
    let doubt = e.doubtful.as_deref().unwrap_or_default();
    assert!(doubt.contains("crashed or ran out of time in enumeration"), "the abort: {e:?}");
    assert!(report.stats.partial, "without a proof, the answer is partial");
}

/// Revisions that divide by zero where b is 0: enumeration's crash outcome
/// lacks what a run flushed before the crash, so those runs alone run
/// natively (three texts, seven inputs each) and the rest of the box keeps
/// enumeration's outcomes. The rewrite that divides first is proved; the
/// revision that flushes first is told apart by its crashes alone; none is in
/// doubt, so nothing reruns the whole box.
#[test]
fn runs_that_divide_by_zero_alone_run_natively() {
    let report = check("divide", &[("a", -3, 7), ("b", -3, 7)]);
    let e = report.stats.enumeration.as_ref().expect("the domain is a box: enumeration ran");
    assert_eq!((e.inputs, e.doubtful.as_deref()), (49, None), "{e:?}");
    let crashes = e.crashes.as_deref().expect("the crashes ran natively");
    assert!(crashes.starts_with("3 texts divided by zero") && crashes.contains("those 21 runs"), "{crashes}");
    assert_eq!(report.clusters, [vec![0, 1], vec![2], vec![3]]);
    assert_eq!(
        report.cluster_verdicts[0].verdict,
        Verdict::ProvedEquivalent,
        "{:?}",
        report.cluster_verdicts[0]
    );
}

/// `steps`: 18 revisions over a box of 100,000 inputs, with loops the input
/// bounds. The engine knows the box within a second, but a round of
/// fuzzing runs hundreds of inputs with a fork per revision each, tens of
/// seconds with 18 revisions on a busy machine, and enumeration used to wait
/// for it (and run at fuzzing's low priority), then be cut by the budget
/// without a word in the report. It starts at once now: every difference
/// is found (p12's one input too, which fuzzing does not guess), the rest
/// proved, and the run ends when it knows.
#[test]
fn a_box_of_many_revisions_is_enumerated_at_once() {
    let _turn = handwritten::one_at_a_time();
    let revisions = corpus::revisions(&set("steps"));
    assert_eq!(revisions.len(), 18);
    let dims = [Dim { name: "n".into(), width: 4, lo: 1, hi: 100_000 }];
    let truth = Sweep::run(&revisions, &dims);
    let want = partition(&truth.rows);
    handwritten::assert_worth_checking("steps", &revisions, &want);
    let report =
        handwritten::assert_proved_by_enumeration("steps", &revisions, &["--max-time", "60"], &want, 100_000);
    let e = report.stats.enumeration.as_ref().expect("checked");
    assert_eq!((e.inputs, e.runs), (100_000, 1_800_000), "{e:?}");
}

/// Where enumeration cannot prove, `stats.enumeration` says why, and so
/// does report.txt: without fuzzing it does not run; within a budget that
/// ends during it (or before the domain is known) it does not finish (or
/// run), and stops in time.
#[test]
fn the_report_says_why_enumeration_did_not_prove() {
    let _turn = handwritten::one_at_a_time();
    let revisions = corpus::revisions(&set("steps"));
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let run = |flags: &[&str]| {
        let work = tempfile::tempdir().unwrap();
        let report = corpus::diff_patches(&psychic, &revisions, flags, work.path()).unwrap();
        let text = std::fs::read_to_string(work.path().join("out/report.txt")).unwrap();
        (report, text)
    };

    let (report, text) = run(&["--no-fuzz", "--max-time", "5"]);
    let e = report.stats.enumeration.as_ref().expect("a reason, not silence");
    assert_eq!(e.not_a_proof.as_deref(), Some("not run: no fuzzing (--no-fuzz)"), "{e:?}");
    assert_eq!((e.domain.as_str(), e.runs), ("n in 1..=100000", 0));
    assert!(text.contains("  enumeration: not run: no fuzzing (--no-fuzz)\n"), "{text}");

    // 1.8 million runs of a few microseconds do not fit into what compiling
    // leaves of 6 s on a machine of a few cores.
    let (report, text) = run(&["--max-time", "6"]);
    let e = report.stats.enumeration.as_ref().expect("a reason, not silence");
    // Compiling is not cut short; what comes after it is.
    let t = &report.stats.seconds;
    assert!(t.total < (t.unify + t.compile).max(6.0) + 1.5, "the budget holds: {t:?}");
    if report.stats.partial {
        let why = e.shortfall().expect("no proof: a reason");
        assert!(why.starts_with("not run: ") || why.starts_with("not finished: "), "{e:?}");
        assert!(text.contains(&format!("  enumeration: {why}\n")), "{text}");
    }
    if let Some(why) = &e.not_finished {
        assert!(e.runs < 1_800_000 && why.contains(&format!("after {} of 1800000 runs", e.runs)), "{e:?}");
    }
}
