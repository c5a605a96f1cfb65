//! The differentiator on hand-written meta programs: candidate tests from the
//! engine, confirmed natively, land in the known divergence regions.

use crate::common;

use psychic::diff::{DiffConfig, Differentiator};
use psychic::exec::printf::{Arg, parse, render};
use psychic::exec::{ExecConfig, Executor, SearchKind};
use psychic::ir::Module;

struct Outcome {
    tests: Vec<psychic::diff::ConfirmedTest>,
    clusters: Vec<Vec<usize>>,
}

fn diff(fixture: &str) -> Outcome {
    diff_with(fixture, ExecConfig::default())
}

fn diff_with(fixture: &str, cfg: ExecConfig) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture(fixture);
    let bc = common::bitcode(&src, dir.path(), false, &[]);
    let bin = common::native(&src, dir.path(), false, &[]);
    let n =
        Executor::new(&Module::load(&bc).unwrap(), ExecConfig::default()).unwrap().num_revisions() as usize;
    let mut d = Differentiator::new(DiffConfig::default(), &bin, n, dir.path(), vec!["meta".into()]);
    let m = Module::load(&bc).unwrap();
    let mut ex = Executor::new(&m, cfg).unwrap();
    ex.set_observer(Box::new(&mut d));
    ex.run();
    drop(ex);
    assert!(d.error.is_none(), "{:?}", d.error);
    assert_eq!(d.stats.disagreements, 0, "{:?}", d.stats);
    Outcome { clusters: d.clusters(), tests: d.tests }
}

fn int_input(t: &psychic::diff::ConfirmedTest, name: &str) -> i32 {
    let o = t.ktest.objects.iter().find(|o| o.name == name).unwrap();
    i32::from_le_bytes(o.bytes[..4].try_into().unwrap())
}

#[test]
fn shadow_intro_differs_between_11_and_20() {
    let out = diff("diff/shadow_intro.c");
    assert_eq!(out.clusters, vec![vec![0], vec![1]]);
    assert!(!out.tests.is_empty());
    for t in &out.tests {
        let x = int_input(t, "x");
        assert!((11..=20).contains(&x), "x = {x} is outside the divergence region");
    }
}

#[test]
fn shadow_fig1_differs_at_7_8_or_wraparound() {
    let out = diff("diff/shadow_fig1.c");
    assert_eq!(out.clusters, vec![vec![0], vec![1]]);
    for t in &out.tests {
        let x = int_input(t, "x");
        let wraps = x.checked_add(1).is_none() || x.checked_sub(8).is_none() || x.checked_sub(1).is_none();
        assert!(x == 7 || x == 8 || wraps, "x = {x} is outside the divergence region");
    }
}

/// Revisions 0 and 1 walk the same code in step, 2 its own copy; 2^16 paths
/// each, far beyond the budget. The parallel searcher used to pick 0 and 1
/// alternately for ever (each was always parallel to the other) and never ran
/// 2; in rounds, every group gets its turn.
#[test]
fn the_parallel_searcher_starves_no_revision() {
    let cfg =
        ExecConfig { search: SearchKind::Parallel, max_instructions: Some(200_000), ..ExecConfig::default() };
    let out = diff_with("diff/parallel_turns.c", cfg);
    assert_eq!(out.clusters, vec![vec![0, 1], vec![2]]);
    for t in &out.tests {
        let x = t.ktest.objects.iter().find(|o| o.name == "in").unwrap().bytes[0];
        assert_eq!(x, 7, "revision 2 differs only where in[0] == 7");
    }
}

fn double_input(t: &psychic::diff::ConfirmedTest, name: &str) -> f64 {
    let o = t.ktest.objects.iter().find(|o| o.name == name).unwrap();
    f64::from_le_bytes(o.bytes[..8].try_into().unwrap())
}

/// Symbolic doubles in printf compare by value: 1 prints what 0 prints and
/// is not told apart; 2 differs only where n == 7 and x does not print
/// "0.50", 3 only where n == 3 and x and y print differently. Every test
/// replays natively (`diff` checks that no candidate disagreed).
#[test]
fn printed_doubles_compare_by_value() {
    let out = diff("diff/printf_float.c");
    assert_eq!(out.clusters, vec![vec![0, 1], vec![2], vec![3]]);
    for t in &out.tests {
        let (x, y, n) = (double_input(t, "x"), double_input(t, "y"), int_input(t, "n"));
        let apart = |a: usize, b: usize| t.partition.apart(a, b);
        // The formatter, checked against glibc in tests/printf_glibc.rs.
        let text = |v: f64| render(&parse(b"%.2f"), &[Arg::Double(v)]);
        assert!(!apart(0, 1), "0 and 1 print alike");
        assert_eq!(apart(0, 2), n == 7 && text(x) != b"0.50", "x = {x}, n = {n}");
        assert_eq!(apart(0, 3), n == 3 && text(x) != text(y), "x = {x}, y = {y}, n = {n}");
    }
}
