//! Many revisions in one run: `psychic diff-patches` on repair-style patch
//! pools of the generated corpus (`truth::large_set`: a base program, 1 or 2
//! mutations each from a pool shared by the set, rewrites of earlier
//! revisions, exact copies), against the true partition from running every
//! revision natively on every input of its domain. Prints the stage times
//! (compile, explore, confirm, cluster), whether the partition is exact, and
//! the peak memory of the whole process (the bench and psychic's library in
//! it; the native runs are children).
//!
//! `cargo bench --bench scale -- [--bases B,...] [--sizes N,M,...] [--max-time S]`
//! (default bases grade,account,calc; sizes 150,256,300,1000; --max-time 600)

#[path = "../tests/common/mod.rs"]
mod common;

use common::truth;

fn main() {
    let mut bases = vec!["grade".to_string(), "account".into(), "calc".into()];
    let mut sizes = vec![150, 256, 300, 1000];
    let mut max_time = 600.0;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bases" => bases = it.next().unwrap().split(',').map(str::to_string).collect(),
            "--sizes" => sizes = it.next().unwrap().split(',').map(|v| v.parse().unwrap()).collect(),
            "--max-time" => max_time = it.next().unwrap().parse().unwrap(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    println!(
        "{:>8} {:>6} {:>6} {:>8} | {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} | {:>5} {:>8}",
        "base",
        "revs",
        "texts",
        "clusters",
        "unify",
        "compile",
        "explore",
        "confirm",
        "cluster",
        "wall",
        "exact",
        "peak MiB"
    );
    for (base, size) in bases.iter().flat_map(|b| sizes.iter().map(move |&s| (b, s))) {
        let set = truth::large_set(base, size);
        let dir = tempfile::tempdir().unwrap();
        let files = set.write(dir.path());
        // Truth from each distinct text's own build, once: equal texts are
        // one program (10,000 builds would take longer than psychic).
        let texts: Vec<&String> = {
            let mut t: Vec<&String> = set.revisions.iter().collect();
            t.sort();
            t.dedup();
            t
        };
        let of_text: Vec<usize> = set.revisions.iter().map(|r| texts.binary_search(&r).unwrap()).collect();
        let distinct: Vec<std::path::PathBuf> = texts
            .iter()
            .map(|t| files[set.revisions.iter().position(|r| r == *t).unwrap()].clone())
            .collect();
        // With AddressSanitizer: a mutant that reads past an array aborts,
        // as psychic's replay sees it, rather than going on with whatever
        // lies there, which is no behaviour of the program.
        let sanitize = psychic::compile::NativeOptions { sanitize: true, ..Default::default() };
        let outcomes = common::native_outcomes_as(&distinct, &set.domain(), &sanitize);
        let rows: Vec<_> = of_text.iter().map(|&k| outcomes[k].clone()).collect();
        let partition = common::partition(&rows);
        let run = truth::diff_patches(&files, dir.path(), &["--max-time", &max_time.to_string()]);
        let s = &run.report.stats.seconds;
        println!(
            "{:>8} {:>6} {:>6} {:>8} | {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} | {:>5} {:>8}",
            base,
            size,
            texts.len(),
            partition.len(),
            s.unify,
            s.compile,
            s.explore,
            s.confirm,
            s.cluster,
            run.wall.as_secs_f64(),
            if run.report.clusters == partition { "yes" } else { "NO" },
            peak_mib()
        );
    }
    println!("(texts: distinct revision texts; clusters: the true partition's; wall: the whole run)");
}

/// The process's peak resident memory (`VmHWM`), in MiB.
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0);
    kib / 1024
}
