//! The gain of sharing: one `psychic diff-patches` run on a patch set against
//! exploring every revision's own file separately (as `psychic run` would:
//! bitcode, the engine with KLEE's default searcher, one test per path) and
//! then replaying every test natively on every revision to get a partition.
//! Both sides include compiling. Prints both wall times, the ratio, and whether
//! each partition equals the ground truth.
//!
//! `cargo bench --bench sharing -- [--only I,J,...] [--max-time S]`
//! The default sets: for each base of the corpus, its largest set among the
//! first 44, and a set of 25 revisions.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::truth::{self, PatchSet};
use psychic::ktest::KTest;
use psychic::replay;

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
    println!(
        "{:<14} {:>4} | {:>8} {:>5} | {:>8} {:>8} {:>8} {:>8} {:>6} {:>5} | {:>6}",
        "set", "revs", "psychic", "ok", "compile", "explore", "replay", "separate", "runs", "ok", "ratio"
    );
    let (mut sum_p, mut sum_s) = (0.0, 0.0);
    for set in &sets {
        let dir = tempfile::tempdir().unwrap();
        let files = set.write(dir.path());
        let t = truth::ground_truth(set, &files);
        let run = truth::diff_patches(&files, dir.path(), &["--max-time", &max_time.to_string()]);
        let sep = separately(&files, dir.path(), Duration::from_secs_f64(max_time));
        let p = run.wall.as_secs_f64();
        let s = sep.compile + sep.explore + sep.replay;
        sum_p += p;
        sum_s += s;
        println!(
            "{:<14} {:>4} | {:>8.2} {:>5} | {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>6} {:>5} | {:>6.1}",
            set.name,
            files.len(),
            p,
            if run.report.clusters == t.partition { "yes" } else { "NO" },
            sep.compile,
            sep.explore,
            sep.replay,
            s,
            sep.runs,
            if sep.partition == t.partition { "yes" } else { "NO" },
            s / p
        );
    }
    println!();
    println!("total: diff-patches {sum_p:.1} s, separately {sum_s:.1} s, ratio {:.1}", sum_s / sum_p);
    println!(
        "(ok: the partition equals the ground truth; runs: native replays of the separate approach, \
         tests x revisions)"
    );
}

struct Separate {
    compile: f64,
    explore: f64,
    replay: f64,
    runs: usize,
    partition: Vec<Vec<usize>>,
}

/// Each revision explored on its own, then every test replayed natively on
/// every revision (each revision's own build, two at a time as diff-patches
/// confirms).
fn separately(files: &[PathBuf], dir: &Path, max_time: Duration) -> Separate {
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let start = Instant::now();
    let tc = common::toolchain();
    let built: Vec<(psychic::ir::Module, PathBuf)> = files
        .iter()
        .map(|f| {
            let bin = own.join(f.file_stem().unwrap());
            tc.native(f, &bin, &Default::default()).unwrap();
            (truth::load(f, &own), bin)
        })
        .collect();
    let compile = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut tests: Vec<KTest> = Vec::new();
    for (module, _) in &built {
        for t in truth::explore_alone(module, max_time).0 {
            if !tests.contains(&t) {
                tests.push(t);
            }
        }
    }
    let explore = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let paths = common::write_tests(&own, &tests);
    let work: Vec<(usize, usize)> =
        (0..paths.len()).flat_map(|t| (0..built.len()).map(move |r| (t, r))).collect();
    let outcomes = common::par_map(&work, |&(t, r)| {
        let mut req = replay::Request::new(&built[r].1, Some(&paths[t]), 0);
        req.timeout = Duration::from_secs(5);
        let o = replay::run(&req).unwrap();
        (o.stdout, o.exit_status, o.signal)
    });
    let by_revision: Vec<Vec<common::NativeOutcome>> = (0..built.len())
        .map(|r| (0..paths.len()).map(|t| outcomes[t * built.len() + r].clone()).collect())
        .collect();
    let partition = common::partition(&by_revision);
    Separate { compile, explore, replay: start.elapsed().as_secs_f64(), runs: work.len(), partition }
}
