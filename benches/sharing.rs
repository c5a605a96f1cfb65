//! The gain of sharing: one `psychic diff-patches` run on a patch set against
//! `psychic run` on every revision's own file (KLEE's default searcher, one
//! test per path, the same time budget each) and then replaying every test
//! natively on every revision to get a partition. Both sides include
//! compiling. Prints both wall times, the ratio, and whether each partition
//! equals the ground truth.
//!
//! `cargo bench --bench sharing -- [--only I,J,...] [--max-time S]`
//! The default sets: for each base of the corpus, its largest set among the
//! first 44, and a set of 25 revisions.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::truth;
use psychic::ktest::KTest;
use psychic::replay;

fn main() {
    let (sets, max_time) = truth::bench_selection();
    println!(
        "{:<14} {:>4} | {:>8} {:>5} | {:>8} {:>8} {:>8} {:>6} {:>5} | {:>6}",
        "set", "revs", "diff", "ok", "run", "replay", "separate", "runs", "ok", "ratio"
    );
    let (mut sum_p, mut sum_s) = (0.0, 0.0);
    for set in &sets {
        let dir = tempfile::tempdir().unwrap();
        let files = set.write(dir.path());
        let t = truth::ground_truth(set, &files);
        let run = truth::diff_patches(&files, dir.path(), &["--max-time", &max_time.to_string()]);
        let sep = separately(&files, dir.path(), Duration::from_secs_f64(max_time));
        let p = run.wall.as_secs_f64();
        let s = sep.run + sep.replay;
        sum_p += p;
        sum_s += s;
        println!(
            "{:<14} {:>4} | {:>8.2} {:>5} | {:>8.2} {:>8.2} {:>8.2} {:>6} {:>5} | {:>6.1}",
            set.name,
            files.len(),
            p,
            if run.report.clusters == t.partition { "yes" } else { "NO" },
            sep.run,
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
        "(diff: diff-patches seconds; run: psychic run on each revision; replay: native builds and \
         cross-replay; ok: the partition equals the ground truth; runs: tests x revisions)"
    );
}

struct Separate {
    /// `psychic run` on every revision, in turn.
    run: f64,
    /// Native builds and the cross-replay.
    replay: f64,
    runs: usize,
    partition: Vec<Vec<usize>>,
}

/// `psychic run` on each revision, then every distinct test replayed
/// natively on every revision (each revision's own build, on every core, as
/// diff-patches confirms).
fn separately(files: &[PathBuf], dir: &Path, max_time: Duration) -> Separate {
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let start = Instant::now();
    let mut tests: Vec<KTest> = Vec::new();
    for (k, f) in files.iter().enumerate() {
        let out = own.join(format!("run{k}"));
        let run = Command::new(env!("CARGO_BIN_EXE_psychic"))
            .args(["run", "--max-time", &max_time.as_secs_f64().to_string(), "--output-dir"])
            .arg(&out)
            .arg(f)
            .output()
            .expect("run psychic");
        assert!(
            run.status.success(),
            "psychic run {}: {}",
            f.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let mut found: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
            .collect();
        found.sort();
        for p in found {
            let t = KTest::read(&p).unwrap();
            if !tests.iter().any(|u| u.objects == t.objects) {
                tests.push(t);
            }
        }
    }
    let run = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let tc = common::toolchain();
    let bins = common::par_map(&files.iter().enumerate().collect::<Vec<_>>(), |&(k, f)| {
        let bin = own.join(format!("rev{k}"));
        tc.native(f, &bin, &Default::default()).unwrap();
        bin
    });
    let paths = common::write_tests(&own, &tests);
    let work: Vec<(usize, usize)> =
        (0..paths.len()).flat_map(|t| (0..bins.len()).map(move |r| (t, r))).collect();
    let outcomes = common::par_map(&work, |&(t, r)| {
        let mut req = replay::Request::new(&bins[r], Some(&paths[t]), 0);
        req.timeout = Duration::from_secs(5);
        let o = replay::run(&req).unwrap();
        (o.stdout, o.exit_status, o.signal)
    });
    let by_revision: Vec<Vec<common::NativeOutcome>> = (0..bins.len())
        .map(|r| (0..paths.len()).map(|t| outcomes[t * bins.len() + r].clone()).collect())
        .collect();
    let partition = common::partition(&by_revision);
    Separate { run, replay: start.elapsed().as_secs_f64(), runs: work.len(), partition }
}
