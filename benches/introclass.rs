//! The IntroClass-style corpus (fixtures/introclass) against native truth: for
//! each program, every revision is built natively and run on thousands of
//! concrete stdin inputs (tests/common/corpus.rs) to get the true partition;
//! then `psychic diff-patches --sym-stdin N` runs under each stdin model and
//! its clusters are compared with the truth. One table row per program and
//! model; wrong merges and splits count revision pairs; "replay" counts tests
//! whose inputs, run on the revisions' own builds, do not give the outcomes
//! the report records; "sym/fuzz/en" counts the tests by the engine that
//! found them (symbolic, fuzzing, enumeration), "fz>eng" the fuzz inputs the
//! engine took as seeds.
//!
//! `cargo bench --bench introclass [PROGRAM...]`
//! Environment: INTROCLASS_MODELS (default "tokens bytes"), INTROCLASS_MAX_TIME
//! (--max-time per run, default 60), INTROCLASS_RANDOM (random inputs per
//! program, default 2000), INTROCLASS_KEEP (a directory to keep each run's
//! output directory in, as PROGRAM-MODEL/out).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use common::Verdict;
use common::corpus::{self, Program};

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() {
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let models = env_or("INTROCLASS_MODELS", "tokens bytes");
    let max_time = env_or("INTROCLASS_MAX_TIME", "60");
    let random: usize = env_or("INTROCLASS_RANDOM", "2000").parse().expect("INTROCLASS_RANDOM: a number");
    let keep = std::env::var_os("INTROCLASS_KEEP").map(PathBuf::from);
    // `cargo bench` passes `--bench`; other arguments pick programs.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let programs: Vec<Program> = corpus::introclass()
        .into_iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| o == p.name))
        .collect();

    println!(
        "{:<10} {:<6} {:>4} {:>6} {:>5} {:>5} {:>5} {:>6} {:>5} {:>8} {:>11} {:>6} {:>6} {:>7} {:>7} {:>8}",
        "program",
        "model",
        "revs",
        "inputs",
        "true",
        "found",
        "exact",
        "merges",
        "splits",
        "tests",
        "sym/fuzz/en",
        "fz>eng",
        "disagr",
        "replay",
        "partial",
        "time s"
    );
    let mut rows = 0;
    let mut exact = 0;
    let mut details = Vec::new();
    for p in &programs {
        let work = tempfile::tempdir().unwrap();
        let revisions = corpus::revisions(&corpus::introclass_dir(p.name));
        let bins = corpus::build_all(&revisions, work.path());
        let inputs = corpus::domain(&p.reads, random);
        let truth = common::partition(&corpus::behaviours(&bins, &inputs));
        details.push(format!("{} truth: {truth:?}", p.name));
        for model in models.split_whitespace() {
            let n = if model == "bytes" { p.bytes_stdin } else { p.tokens_stdin }.to_string();
            let flags = ["--sym-stdin", &n, "--stdin-model", model, "--max-time", &max_time];
            let tmp = tempfile::tempdir().unwrap();
            let run_dir = match &keep {
                Some(k) => {
                    let d = k.join(format!("{}-{model}", p.name));
                    let _ = std::fs::remove_dir_all(&d);
                    std::fs::create_dir_all(&d).unwrap();
                    d
                }
                None => tmp.path().to_path_buf(),
            };
            let t0 = Instant::now();
            let report = corpus::diff_patches(&psychic, &revisions, &flags, &run_dir);
            let secs = t0.elapsed().as_secs_f64();
            rows += 1;
            let r = match report {
                Ok(r) => r,
                Err(e) => {
                    println!(
                        "{:<10} {:<6} {:>4} {:>6} {:>5} error: {}",
                        p.name,
                        model,
                        revisions.len(),
                        inputs.len(),
                        truth.len(),
                        e.lines().next().unwrap_or("")
                    );
                    continue;
                }
            };
            let cmp = Verdict::new(&truth, &r.clusters);
            let replay = corpus::replay_mismatches(&r, &run_dir.join("out"), &bins, &[]);
            exact += cmp.exact() as usize;
            let by = |e: psychic::report::FoundBy| r.tests.iter().filter(|t| t.found_by == e).count();
            println!(
                "{:<10} {:<6} {:>4} {:>6} {:>5} {:>5} {:>5} {:>6} {:>6} {:>5} {:>5}/{:>2}/{:<2} {:>6} {:>8} {:>6} {:>7} {:>8.1}",
                p.name,
                model,
                revisions.len(),
                inputs.len(),
                truth.len(),
                r.clusters.len(),
                if cmp.exact() { "yes" } else { "no" },
                cmp.merged.len(),
                cmp.split.len(),
                r.tests.len(),
                by(psychic::report::FoundBy::Symbolic),
                by(psychic::report::FoundBy::Fuzzing),
                by(psychic::report::FoundBy::Enumeration),
                r.stats.fuzzing.as_ref().map_or(0, |f| f.engine_seeds),
                r.stats.disagreements,
                replay.len(),
                if r.stats.partial { "yes" } else { "no" },
                secs
            );
            details.push(format!("{} {model} found: {:?}", p.name, r.clusters));
            details.extend(replay.into_iter().map(|l| format!("{} {model} replay: {l}", p.name)));
        }
    }
    println!("exact partitions: {exact}/{rows}");
    for d in details {
        println!("  {d}");
    }
}
