//! `psychic batch` across a real Slurm job array: a single-node Slurm
//! started on this machine (`benches/slurm/start.sh`: Debian's slurm-wlm and
//! munge), a manifest of generated patch sets (`tests/common/truth.rs`), and
//! `deploy/batch.sbatch` as the array's job. One task is cancelled while a
//! set of it runs; the array is then submitted again and must run only what
//! is left. The merged results must equal a local `psychic batch` of the same
//! manifest, set by set (status and clusters), with every set's result
//! written once. Needs root (it may install and start Slurm).
//!
//! `cargo bench --bench slurm -- [--sets N] [--tasks K]` (default 20 sets,
//! 4 tasks)

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::truth;
use psychic::batch::table;

fn main() {
    let (mut sets, mut tasks) = (20usize, 4usize);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--sets" => sets = it.next().unwrap().parse().unwrap(),
            "--tasks" => tasks = it.next().unwrap().parse().unwrap(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let start = Command::new("bash").arg(root.join("benches/slurm/start.sh")).output().unwrap();
    assert!(start.status.success(), "Slurm did not start: {}", String::from_utf8_lossy(&start.stderr));
    let conf = String::from_utf8_lossy(&start.stdout).trim().to_string();
    let psychic = env!("CARGO_BIN_EXE_psychic");

    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for i in 0..sets {
        let set = truth::patch_set(i);
        let sub = dir.path().join(format!("set{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        let mut args: Vec<String> = set
            .write(&sub)
            .iter()
            .map(|f| format!("set{i}/{}", f.file_name().unwrap().to_string_lossy()))
            .collect();
        args.extend(["--max-time".to_string(), "30".to_string()]);
        lines.push(serde_json::json!({"name": format!("set{i}"), "args": args}).to_string());
    }
    let manifest = dir.path().join("sets.jsonl");
    std::fs::write(&manifest, lines.join("\n") + "\n").unwrap();

    let t = Instant::now();
    let local =
        Command::new(psychic).args(["batch", "sets.jsonl", "-o", "local"]).current_dir(dir.path()).output();
    let local_time = t.elapsed();
    assert!(local.unwrap().status.code().is_some_and(|c| c <= 1));

    let t = Instant::now();
    let submit = |wait: bool| -> String {
        let mut c = Command::new("sbatch");
        c.env("SLURM_CONF", &conf).env("PSYCHIC", psychic).current_dir(dir.path());
        c.args(["--parsable", &format!("--array=0-{}", tasks - 1)]);
        if wait {
            c.arg("--wait");
        }
        c.arg(root.join("deploy/batch.sbatch")).args(["sets.jsonl", "slurm"]);
        let o = c.output().unwrap();
        assert!(o.status.success(), "sbatch: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let job = submit(false);
    // Cancel task 0 while one of its sets (line index 0 modulo the tasks)
    // runs: a set with a log and no result.
    let running = |d: &Path| -> Option<String> {
        let sets = std::fs::read_dir(d.join("slurm/sets")).ok()?;
        sets.filter_map(|e| e.ok()?.path().file_stem().map(|s| s.to_string_lossy().into_owned())).find(|n| {
            let of_task_0 =
                n.strip_prefix("set").and_then(|i| i.parse::<usize>().ok()).is_some_and(|i| i % tasks == 0);
            of_task_0 && !d.join(format!("slurm/results/{n}.json")).exists()
        })
    };
    let mut killed = None;
    while killed.is_none() && t.elapsed() < Duration::from_secs(600) {
        killed = running(dir.path());
        std::thread::sleep(Duration::from_millis(200));
    }
    let killed = killed.expect("task 0 started a set");
    let cancel = Command::new("scancel").env("SLURM_CONF", &conf).arg(format!("{job}_0")).status().unwrap();
    assert!(cancel.success());
    while Command::new("squeue")
        .env("SLURM_CONF", &conf)
        .args(["-h", "-j", &job])
        .output()
        .is_ok_and(|o| !o.stdout.is_empty())
    {
        std::thread::sleep(Duration::from_millis(500));
    }
    let after_cancel = table::gather(&[dir.path().join("slurm")]).unwrap().len();
    submit(true);
    let slurm_time = t.elapsed();

    let mine = table::gather(&[dir.path().join("local")]).unwrap();
    let theirs = table::gather(&[dir.path().join("slurm")]).unwrap();
    let same = mine.len() == sets
        && theirs.len() == sets
        && mine
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a.name == b.name && a.status == b.status && a.clusters == b.clusters);
    for (a, b) in mine.iter().zip(&theirs) {
        if a.clusters != b.clusters || a.status != b.status {
            println!(
                "differs: {} local {:?} {:?}, slurm {:?} {:?}",
                a.name, a.status, a.clusters, b.status, b.clusters
            );
        }
    }
    println!("| sets | tasks | local s | slurm s | cancelled in | results after cancel | equal |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {sets} | {tasks} | {:.0} | {:.0} | {killed} | {after_cancel} | {} |",
        local_time.as_secs_f64(),
        slurm_time.as_secs_f64(),
        if same { "yes" } else { "NO" }
    );
    assert!(same, "the Slurm array's results differ from the local batch");
}
