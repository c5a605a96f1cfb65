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

use common::truth::{self, Exploration};
use psychic::exec::{ExecConfig, SearchKind};

fn main() {
    let (sets, max_time) = truth::bench_selection();
    let cfg = |per_revision_states| ExecConfig {
        search: SearchKind::Parallel,
        max_time: Some(Duration::from_secs_f64(max_time)),
        per_revision_states,
        ..ExecConfig::default()
    };
    // Per table and side: seconds, states, instructions, paths, queries.
    let figures = |e: &Exploration| {
        [
            e.wall.as_secs_f64(),
            e.stats.states_created as f64,
            e.stats.instructions as f64,
            e.stats.completed_paths() as f64,
            e.solver_queries as f64,
        ]
    };
    let mut totals = [[0.0f64; 5]; 4];
    for (table, differentiate) in
        [("with the differentiator (diff-patches)", true), ("exhaustive, engine alone", false)]
    {
        println!("{table}");
        println!(
            "{:<14} {:>4} | {:>20} | {:>20} | {:>24} | {:>18} | {:>18} | {:>5}",
            "set",
            "revs",
            "seconds sets/apply",
            "states sets/apply",
            "instructions sets/apply",
            "paths sets/apply",
            "queries sets/apply",
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
            for (k, e) in runs.iter().enumerate() {
                for (t, v) in totals[usize::from(!differentiate) * 2 + k].iter_mut().zip(figures(e)) {
                    *t += v;
                }
            }
            let equal =
                if differentiate { if s.partition == a.partition { "yes" } else { "NO" } } else { "-" };
            let partial = |e: &Exploration| {
                if e.stopped_early.as_deref().is_some_and(|r| r.contains("max-time")) { "*" } else { "" }
            };
            println!(
                "{:<14} {:>4} | {:>9.2}{:1} {:>9.2}{:1} | {:>10} {:>9} | {:>12} {:>11} | {:>9} {:>8} | {:>9} {:>8} | {:>5}",
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
                s.solver_queries,
                a.solver_queries,
                equal
            );
        }
        let (s, a) = (totals[usize::from(!differentiate) * 2], totals[usize::from(!differentiate) * 2 + 1]);
        let gains: Vec<String> = ["seconds", "states", "instructions", "paths", "queries"]
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{name} {:.1} / {:.1} ({:.1}x)", s[i], a[i], a[i] / s[i]))
            .collect();
        println!("total sets / apply (gain): {}", gains.join(", "));
        println!("(* hit --max-time)\n");
    }
}
