//! Revision sets against the paper's ApplyMetaBranch (one revision per state
//! from the first `__klee_meta` call, `ExecConfig::per_revision_states`), on
//! the same meta programs, with the same scheduler (`parallel`):
//! 1. the diff-patches workload: the differentiator as halt observer, which
//!    stops once every pair of revisions is told apart (wall time includes
//!    native confirmation); the partitions must be equal;
//! 2. exhaustive exploration without an observer: the engine alone.
//!
//! `cargo bench --bench apply_meta_branch -- [--only I,J,...] [--max-time S]`
//! The default sets: for each base of the corpus, its largest set among the
//! first 44, and a set of 25 revisions.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::truth::{self, Exploration, PatchSet};
use psychic::exec::{ExecConfig, SearchKind};

fn main() {
    let mut only: Option<Vec<usize>> = None;
    let mut max_time = 60.0;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--only" => only = Some(it.next().unwrap().split(',').map(|v| v.parse().unwrap()).collect()),
            "--max-time" => max_time = it.next().unwrap().parse().unwrap(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let sets: Vec<PatchSet> = match only {
        Some(list) => list.into_iter().map(truth::patch_set).collect(),
        None => truth::benchmark_sets(),
    };
    let cfg = |per_revision_states| ExecConfig {
        search: SearchKind::Parallel,
        max_time: Some(Duration::from_secs_f64(max_time)),
        per_revision_states,
        ..ExecConfig::default()
    };
    let mut totals = [[0.0f64; 4]; 4];
    for (table, differentiate) in
        [("with the differentiator (diff-patches)", true), ("exhaustive, engine alone", false)]
    {
        println!("{table}");
        println!(
            "{:<14} {:>4} | {:>20} | {:>20} | {:>24} | {:>18} | {:>5}",
            "set",
            "revs",
            "seconds sets/apply",
            "states sets/apply",
            "instructions sets/apply",
            "paths sets/apply",
            "equal"
        );
        for set in &sets {
            let dir = tempfile::tempdir().unwrap();
            let files = set.write(dir.path());
            let meta = truth::build_meta(&files, dir.path());
            let runs: Vec<Exploration> = [false, true]
                .iter()
                .enumerate()
                .map(|(k, &apply)| {
                    let out = dir.path().join(format!("out{k}"));
                    truth::explore_meta(&meta, cfg(apply), differentiate, &out)
                })
                .collect();
            let (s, a) = (&runs[0], &runs[1]);
            let t = &mut totals[usize::from(!differentiate) * 2];
            t[0] += s.wall.as_secs_f64();
            t[1] += s.stats.states_created as f64;
            t[2] += s.stats.instructions as f64;
            t[3] += s.stats.completed_paths() as f64;
            let t = &mut totals[usize::from(!differentiate) * 2 + 1];
            t[0] += a.wall.as_secs_f64();
            t[1] += a.stats.states_created as f64;
            t[2] += a.stats.instructions as f64;
            t[3] += a.stats.completed_paths() as f64;
            let equal =
                if differentiate { if s.partition == a.partition { "yes" } else { "NO" } } else { "-" };
            let partial = |e: &Exploration| {
                if e.stopped_early.as_deref().is_some_and(|r| r.contains("max-time")) { "*" } else { "" }
            };
            println!(
                "{:<14} {:>4} | {:>9.2}{:1} {:>9.2}{:1} | {:>10} {:>9} | {:>12} {:>11} | {:>9} {:>8} | {:>5}",
                set.name,
                files.len(),
                s.wall.as_secs_f64(),
                partial(s),
                a.wall.as_secs_f64(),
                partial(a),
                s.stats.states_created,
                a.stats.states_created,
                s.stats.instructions,
                a.stats.instructions,
                s.stats.completed_paths(),
                a.stats.completed_paths(),
                equal
            );
        }
        let (s, a) = (totals[usize::from(!differentiate) * 2], totals[usize::from(!differentiate) * 2 + 1]);
        println!(
            "total: seconds {:.1} / {:.1} ({:.1}x), states {} / {} ({:.1}x), instructions {} / {} ({:.1}x), paths {} / {} ({:.1}x)",
            s[0],
            a[0],
            a[0] / s[0],
            s[1],
            a[1],
            a[1] / s[1],
            s[2],
            a[2],
            a[2] / s[2],
            s[3],
            a[3],
            a[3] / s[3]
        );
        println!("(* hit --max-time)\n");
    }
}
