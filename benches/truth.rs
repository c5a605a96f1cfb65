//! Ground truth: `psychic diff-patches` (default budget, `--max-time 60`) on
//! the generated corpus of `tests/common/truth.rs`, against the true
//! partitions from running every revision natively on every input of its
//! domain. Prints one row per patch set and the rates: exact partitions, sets
//! with wrongly merged revisions (differences missed), sets with wrongly split
//! revisions (a soundness bug), and timing.
//!
//! Columns: `alike`, pairs of revisions with different text and the same
//! behaviour; `rare`, the fewest inputs of the domain on which two clusters
//! differ; `true`/`found`, the numbers of clusters.
//!
//! `cargo bench --bench truth -- [--sets N] [--from I] [--only I,J,...] [--max-time S] [--keep] [--show] [--write DIR]`
//! (`--keep` keeps the directories of inexact sets, `--show` prints each patch,
//! `--write` only writes the sets' files into DIR, one directory each).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::Verdict;
use common::truth;

struct Args {
    sets: Vec<usize>,
    max_time: String,
    keep: bool,
    show: bool,
    write: Option<std::path::PathBuf>,
}

fn args() -> Args {
    let mut a = Args { sets: Vec::new(), max_time: "60".into(), keep: false, show: false, write: None };
    let (mut from, mut count, mut only) = (0, truth::CORPUS, None);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--sets" => count = it.next().and_then(|v| v.parse().ok()).expect("--sets N"),
            "--from" => from = it.next().and_then(|v| v.parse().ok()).expect("--from I"),
            "--only" => {
                only = Some(
                    it.next()
                        .expect("--only I,J")
                        .split(',')
                        .map(|v| v.parse().expect("a set number"))
                        .collect(),
                )
            }
            "--max-time" => a.max_time = it.next().expect("--max-time SECS"),
            "--keep" => a.keep = true,
            "--show" => a.show = true,
            "--write" => a.write = Some(it.next().expect("--write DIR").into()),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    a.sets = only.unwrap_or_else(|| (from..from + count).collect());
    a
}

struct Row {
    verdict: Verdict,
    secs: f64,
    partial: bool,
    revisions: usize,
    alike: usize,
    rare: Option<usize>,
    /// Candidate tests the native runs did not confirm.
    disagreements: u64,
}

fn show(p: &[Vec<usize>]) -> String {
    p.iter()
        .map(|c| c.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Each patch as a diff against the original.
fn show_set(set: &truth::PatchSet) {
    println!("== {}", set.name);
    for (k, text) in set.revisions.iter().enumerate().skip(1) {
        let diff = similar::TextDiff::from_lines(&set.revisions[0], text);
        println!("-- revision {k}");
        for change in diff.iter_all_changes().filter(|c| c.tag() != similar::ChangeTag::Equal) {
            let sign = if change.tag() == similar::ChangeTag::Delete { "-" } else { "+" };
            print!("{sign}{change}");
        }
    }
}

fn main() {
    let a = args();
    if let Some(dir) = &a.write {
        for &i in &a.sets {
            let set = truth::patch_set(i);
            let d = dir.join(set.name.replace('#', "-"));
            std::fs::create_dir_all(&d).unwrap();
            set.write(&d);
        }
        return;
    }
    println!(
        "{:<14} {:>4} {:>7} {:>5} {:>5} {:>5} {:>6} {:>7} {:>7} {:>6}  verdict",
        "set", "revs", "domain", "alike", "rare", "true", "found", "seconds", "explore", "tests"
    );
    let mut rows = Vec::new();
    let started = Instant::now();
    for &i in &a.sets {
        let set = truth::patch_set(i);
        let dir = tempfile::Builder::new().prefix(&format!("truth-{i}-")).tempdir().unwrap();
        let files = set.write(dir.path());
        if a.show {
            show_set(&set);
        }
        let t = truth::ground_truth(&set, &files);
        let run = truth::diff_patches(&files, dir.path(), &["--max-time", &a.max_time]);
        let r = &run.report;
        let v = Verdict::new(&t.partition, &r.clusters);
        let in_domain = truth::tests_in_domain(r, &t.domain);
        let mut verdict = if v.exact() { "exact".to_string() } else { String::new() };
        for &(x, y) in v.merged.iter().take(3) {
            let w = t.witness(x, y).map(|k| format!("{:?}", k.objects)).unwrap_or_default();
            verdict += &format!("merged {x}~{y} (differ on {w}) ");
        }
        for &(x, y) in &v.split {
            verdict += &format!("SPLIT {x}/{y} ");
        }
        if r.stats.partial {
            verdict += &format!(" [partial: {}]", r.stats.partial_reason.clone().unwrap_or_default());
        }
        if r.stats.disagreements > 0 {
            verdict += &format!(" [{} disagreements]", r.stats.disagreements);
        }
        if !in_domain {
            verdict += " [a test lies outside the declared domain]";
        }
        let alike = t.alike_pairs(&set.revisions);
        let rare = t.rarest_difference();
        println!(
            "{:<14} {:>4} {:>7} {:>5} {:>5} {:>5} {:>6} {:>7.2} {:>7.2} {:>6}  {}",
            set.name,
            files.len(),
            t.domain.len(),
            alike,
            rare.map_or("-".to_string(), |r| r.to_string()),
            t.partition.len(),
            r.clusters.len(),
            run.wall.as_secs_f64(),
            r.stats.seconds.explore,
            r.tests.len(),
            verdict.trim_end()
        );
        if !v.exact() {
            println!("    true:  {}\n    found: {}", show(&t.partition), show(&r.clusters));
        }
        if a.keep && !v.exact() {
            println!("    kept in {}", dir.keep().display());
        }
        rows.push(Row {
            verdict: v,
            secs: run.wall.as_secs_f64(),
            partial: r.stats.partial,
            revisions: files.len(),
            alike,
            rare,
            disagreements: r.stats.disagreements,
        });
    }
    let n = rows.len();
    let exact = rows.iter().filter(|r| r.verdict.exact()).count();
    let merged = rows.iter().filter(|r| !r.verdict.merged.is_empty()).count();
    let split = rows.iter().filter(|r| !r.verdict.split.is_empty()).count();
    let partial = rows.iter().filter(|r| r.partial).count();
    let mut secs: Vec<f64> = rows.iter().map(|r| r.secs).collect();
    secs.sort_by(f64::total_cmp);
    let revs: usize = rows.iter().map(|r| r.revisions).sum();
    let alike: usize = rows.iter().map(|r| r.alike).sum();
    let rare = |k: usize| rows.iter().filter(|r| r.rare.is_some_and(|x| x <= k)).count();
    println!();
    println!("patch sets                {n} ({revs} revisions)");
    println!(
        "alike pairs               {alike} pairs of revisions with different text and the same behaviour"
    );
    println!(
        "rare differences          {} sets where two clusters differ on at most 1 input, {} on at most 5",
        rare(1),
        rare(5)
    );
    println!("exact partitions          {exact}/{n} ({:.1}%)", 100.0 * exact as f64 / n.max(1) as f64);
    println!("sets with wrong merges    {merged}");
    println!("sets with wrong splits    {split}");
    println!("partial (budget)          {partial}");
    println!(
        "disagreements             {} candidate tests in {} sets",
        rows.iter().map(|r| r.disagreements).sum::<u64>(),
        rows.iter().filter(|r| r.disagreements > 0).count()
    );
    if n > 0 {
        println!(
            "diff-patches seconds      total {:.1}, mean {:.2}, median {:.2}, p90 {:.2}, max {:.2}",
            secs.iter().sum::<f64>(),
            secs.iter().sum::<f64>() / n as f64,
            secs[n / 2],
            secs[(n * 9 / 10).min(n - 1)],
            secs[n - 1]
        );
    }
    println!("bench wall seconds        {:.1}", started.elapsed().as_secs_f64());
}
