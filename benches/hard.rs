//! The hard ground-truth corpus (`fixtures/hard/`): `psychic diff-patches`
//! with each set's own budget against the exhaustive truth. One row per set:
//! clusters true and found, revision pairs that differ and how many were told
//! apart, time, tests by engine (symbolic, fuzzing, enumeration), solver
//! calls by kind (engine branches, differential, seed models) with their
//! seconds, and the enumeration's time.
//!
//! `cargo bench --bench hard -- [--only a,b] [--max-time S] [--no-fuzz]
//! [--search NAME]` (`--no-fuzz`: the symbolic engine alone, for the
//! "before" figures and the searchers' comparison).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use common::hard::{SETS, Set};
use psychic::report::FoundBy;

fn main() {
    let (mut only, mut max_time, mut no_fuzz) = (None::<Vec<String>>, None::<String>, false);
    let mut search = None::<String>;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--only" => only = it.next().map(|v| v.split(',').map(str::to_string).collect()),
            "--max-time" => max_time = it.next(),
            "--no-fuzz" => no_fuzz = true,
            "--search" => search = it.next(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    println!(
        "{:<9} {:>4} {:>5} {:>7} {:>7} {:>11} {:>14} {:>14} {:>6} {:>9} {:>8}  verdict",
        "set",
        "true",
        "found",
        "pairs",
        "seconds",
        "sym/fuzz/en",
        "branch q (s)",
        "diff q (s)",
        "seed q",
        "fuzz runs",
        "enum (s)"
    );
    let (mut exact, mut total_time, mut apart, mut differing, mut n) = (0, 0.0, 0, 0, 0);
    for &name in SETS {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let set = Set::load(name);
        let work = tempfile::tempdir().unwrap();
        let mut flags: Vec<String> = set.case.args.clone();
        if let Some(t) = &max_time {
            let at = flags.iter().position(|f| f == "--max-time").expect("every case has a budget");
            flags[at + 1] = t.clone();
        }
        if no_fuzz {
            flags.push("--no-fuzz".into());
        }
        if let Some(s) = &search {
            flags.extend(["--search".into(), s.clone()]);
        }
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let started = Instant::now();
        let r = common::corpus::diff_patches(&psychic, &set.revisions, &flags, work.path()).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let v = common::Verdict::new(&set.partition, &r.clusters);
        let cluster = |c: &[Vec<usize>], x: usize| c.iter().position(|k| k.contains(&x));
        let revs = set.revisions.len();
        let pairs: Vec<(usize, usize)> = (0..revs).flat_map(|a| (a + 1..revs).map(move |b| (a, b))).collect();
        let differ: Vec<_> = pairs
            .iter()
            .filter(|&&(a, b)| cluster(&set.partition, a) != cluster(&set.partition, b))
            .collect();
        let told =
            differ.iter().filter(|&&&(a, b)| cluster(&r.clusters, a) != cluster(&r.clusters, b)).count();
        let by = |e: FoundBy| r.tests.iter().filter(|t| t.found_by == e).count();
        let q = &r.stats.query_kinds;
        let verdict = if v.exact() && !r.stats.partial {
            "exact, proved".to_string()
        } else if v.exact() {
            "exact".to_string()
        } else {
            format!(
                "merged {:?}{}",
                v.merged,
                if v.split.is_empty() { String::new() } else { format!(" SPLIT {:?}", v.split) }
            )
        };
        println!(
            "{:<9} {:>4} {:>5} {:>3}/{:<3} {:>7.1} {:>3}/{:>3}/{:<3} {:>5} ({:>6.1}) {:>5} ({:>6.1}) {:>6} {:>9} {:>8}  {verdict}",
            name,
            set.partition.len(),
            r.clusters.len(),
            told,
            differ.len(),
            seconds,
            by(FoundBy::Symbolic),
            by(FoundBy::Fuzzing),
            by(FoundBy::Enumeration),
            q.branch.queries,
            q.branch.seconds,
            q.differential.queries,
            q.differential.seconds,
            q.seed.queries,
            r.stats.fuzzing.as_ref().map_or(0, |f| f.executions),
            r.stats.enumeration.as_ref().map_or("-".to_string(), |e| format!("{:.1}", e.seconds)),
        );
        exact += v.exact() as usize;
        total_time += seconds;
        apart += told;
        differing += differ.len();
        n += 1;
    }
    println!(
        "\n{exact} of {n} sets exact; {apart} of {differing} differing pairs told apart; mean {:.1} s a set",
        total_time / n.max(1) as f64
    );
}
