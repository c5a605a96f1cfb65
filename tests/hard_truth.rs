//! The hard ground-truth corpus (`fixtures/hard/`, its README): integer
//! programs whose loops the inputs bound (Newton's root, gcd and long
//! division by repeated subtraction, a year stepped through day by day, a
//! loan paid off month by month, change counted out coin by coin) and
//! fixed-point money (64-bit products, division by a power of ten half up,
//! clamps), each with revisions that differ on fewer than 10 inputs of a
//! domain of 500,000 or more, and equivalent rewrites that look like faults.
//!
//! The truth is exhaustive: every revision's own build runs on every input
//! of the domain (the in-process sweep, `tests/common/sweep.c`, checked
//! against the fork server on a sample). `psychic diff-patches` must find
//! that partition exactly within the case's budget, and every test it
//! reports must replay on the revisions' own builds.

use crate::common;

use common::handwritten;
use common::hard::{SETS, Set, set_dir};

/// The truth of every set is worth checking (as in `tests/float_truth.rs`),
/// and hard: a domain of 500,000 inputs or more, 3 to 6 patches of 50 to
/// 100 lines, and some pair of clusters that differs on fewer than 10
/// inputs. The sweep behaves as the fork server with psychic's replay
/// runtime does, on a sample of the domain and on every rare witness.
#[test]
fn every_set_has_differences_and_equivalences_in_its_domain() {
    // Its sweeps would take the cores a budget-judged set needs.
    let _turn = handwritten::one_at_a_time();
    handwritten::assert_listed(&set_dir(""), SETS);
    for &name in SETS {
        let start = std::time::Instant::now();
        let set = Set::load(name);
        let inputs = set.truth.len();
        let diffs = handwritten::cluster_differences(&set.truth.rows, &set.partition);
        eprintln!(
            "{name}: {inputs} inputs swept in {:.1?}, truth {:?}, differing inputs per cluster pair {diffs:?}",
            start.elapsed(),
            set.partition
        );
        assert!(inputs >= 500_000, "{name}: a domain of {inputs} inputs");
        assert!((3..=6).contains(&(set.revisions.len() - 1)), "{name}: {} patches", set.revisions.len() - 1);
        for r in &set.revisions {
            let lines = std::fs::read_to_string(r).unwrap().lines().count();
            assert!((50..=100).contains(&lines), "{}: {lines} lines", r.display());
        }
        handwritten::assert_worth_checking(name, &set.revisions, &set.partition);
        assert!(
            diffs.iter().any(|&(_, n)| n < 10),
            "{name}: no rare difference (each pair differs on 10 inputs or more): {diffs:?}"
        );

        let rows = &set.truth.rows;
        let mut sample: Vec<usize> = (0..inputs).step_by(inputs / 200).collect();
        for ((a, b), n) in diffs {
            if n < 10 {
                sample.extend((0..inputs).filter(|&i| rows[a][i] != rows[b][i]));
            }
        }
        let tests: Vec<_> = sample.iter().map(|&i| set.truth.input(i)).collect();
        let forked = common::native_outcomes(&set.revisions, &tests);
        for (r, row) in forked.iter().enumerate() {
            for (k, &i) in sample.iter().enumerate() {
                assert_eq!(
                    &row[k],
                    set.truth.outcome(r, i),
                    "{name}: revision {r} on {:?}: the fork server and the sweep disagree",
                    tests[k].objects
                );
            }
        }
    }
}

/// `psychic diff-patches` on one set: the true partition, every reported
/// test replays on the revisions' own builds (fork server, psychic's replay
/// runtime) inside the `klee_assume`d domain, no candidate is refuted, and
/// the answer is a proof: every set's domain is a box small enough for
/// enumeration (`src/fuzz/sweep.rs`), which runs all of it, so the run ends
/// when it knows, not at its budget.
fn check(name: &'static str) {
    let _turn = handwritten::one_at_a_time();
    let set = Set::load(name);
    let flags: Vec<&str> = set.case.args.iter().map(String::as_str).collect();
    handwritten::assert_proved_by_enumeration(name, &set.revisions, &flags, &set.partition, set.truth.len());
}

#[test]
fn isqrt_newton_root() {
    check("isqrt");
}

#[test]
fn fraction_gcd_by_subtraction() {
    check("fraction");
}

#[test]
fn calendar_day_by_day() {
    check("calendar");
}

#[test]
fn invoice_cents_and_limits() {
    check("invoice");
}

#[test]
fn loan_month_by_month() {
    check("loan");
}

#[test]
fn change_by_repeated_subtraction() {
    check("change");
}

#[test]
fn exchange_rate_in_millionths() {
    check("exchange");
}

#[test]
fn decimal_long_division() {
    check("decimal");
}
