//! `psychic batch` on a manifest of generated patch sets (`tests/common/
//! truth.rs`), with a line that is no set and a set whose file is missing.
//! Truth is each set's partition from running every revision natively on
//! every input of its domain; the batch runs in two shards into one output
//! directory, resumes without running a finished set again, reruns a set
//! whose worker was killed (its result gone, its output half written), and
//! `batch merge` gathers the table.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::SystemTime;

use common::truth;
use psychic::batch::{SetResult, Status};

/// Small sets of the corpus that finish in a few seconds.
const SETS: &[usize] = &[1, 2, 20];

fn psychic(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic")).args(args).current_dir(cwd).output().unwrap()
}

fn results(out: &Path) -> Vec<SetResult> {
    psychic::batch::table::gather(&[out]).unwrap()
}

fn stamp(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn a_sharded_batch_resumes_and_equals_the_sets_own_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    let mut truths = Vec::new();
    for &i in SETS {
        let set = truth::patch_set(i);
        let dir = tmp.path().join(format!("set{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let files = set.write(&dir);
        truths.push(truth::ground_truth(&set, &files).partition);
        let args: Vec<String> =
            files.iter().map(|f| format!("set{i}/{}", f.file_name().unwrap().to_string_lossy())).collect();
        lines.push(serde_json::json!({"name": format!("set{i}"), "args": args}).to_string());
    }
    lines.insert(1, "{\"name\": \"broken\", \"args\": [".to_string());
    lines.push(r#"{"name": "missing", "args": ["nowhere/orig.c", "nowhere/p1.c"]}"#.to_string());
    std::fs::write(tmp.path().join("sets.jsonl"), lines.join("\n") + "\n").unwrap();

    for shard in ["0/2", "1/2"] {
        let o = psychic(&["batch", "sets.jsonl", "-o", "out", "--shard", shard], tmp.path());
        assert_eq!(
            o.status.code(),
            Some(1),
            "a shard with a bad line or set: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let out = tmp.path().join("out");
    let all = results(&out);
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["set1", "line-2", "set2", "set20", "missing"]);
    for (k, r) in all.iter().filter(|r| r.name.starts_with("set")).enumerate() {
        assert_eq!(r.status, Status::Done, "{r:?}");
        assert_eq!(
            r.clusters.as_ref(),
            Some(&truths[k]),
            "{}: the batch's clusters against the truth",
            r.name
        );
    }
    let broken = &all[1];
    assert_eq!((broken.status, broken.line), (Status::Invalid, 2));
    assert!(broken.error.as_deref().unwrap().contains("sets.jsonl:2:"), "{broken:?}");
    let missing = &all[4];
    assert_eq!(missing.status, Status::Failed, "{missing:?}");
    let said = missing.error.as_deref().unwrap();
    assert!(
        said.starts_with("sets.jsonl:5: set missing: ") && said.contains("nowhere/orig.c"),
        "{missing:?}"
    );

    // A second call finds every set finished and runs none.
    let before: Vec<SystemTime> =
        all.iter().map(|r| stamp(&out.join(format!("results/{}.json", r.name)))).collect();
    let o = psychic(&["batch", "sets.jsonl", "-o", "out"], tmp.path());
    assert!(String::from_utf8_lossy(&o.stderr).matches("finished before").count() == 5);
    let after: Vec<SystemTime> =
        all.iter().map(|r| stamp(&out.join(format!("results/{}.json", r.name)))).collect();
    assert_eq!(before, after, "a finished set ran again");

    // A worker killed in the middle of set2: no result, a half-written
    // output. The next call runs set2 alone, from a clean directory.
    std::fs::remove_file(out.join("results/set2.json")).unwrap();
    std::fs::write(out.join("sets/set2/report.json"), "{ half").unwrap();
    let o = psychic(&["batch", "sets.jsonl", "-o", "out"], tmp.path());
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(said.matches("finished before").count(), 4, "{said}");
    let again = results(&out);
    assert_eq!(again.len(), 5);
    assert_eq!(again[2].clusters.as_ref(), Some(&truths[1]));
    assert!(std::fs::read_to_string(out.join("sets/set2/report.json")).unwrap().starts_with("{\n"));

    let o = psychic(&["batch", "merge", "out", "-o", "table.md"], tmp.path());
    assert!(o.status.success());
    let table = std::fs::read_to_string(tmp.path().join("table.md")).unwrap();
    assert!(table.contains("5 sets: 3 done, 1 failed, 1 invalid"), "{table}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), table);
}

#[test]
fn a_shard_index_comes_from_the_job_array() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("m.jsonl"), "\n").unwrap();
    let run = |env: &[(&str, &str)], shard: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_psychic"));
        c.args(["batch", "m.jsonl", "-o", "out", "--shard", shard]).current_dir(tmp.path());
        c.env_remove("SLURM_ARRAY_TASK_ID").env_remove("JOB_COMPLETION_INDEX");
        c.envs(env.iter().copied());
        c.output().unwrap()
    };
    assert!(run(&[("SLURM_ARRAY_TASK_ID", "3")], "4").status.success());
    assert!(tmp.path().join("out/summary-shard-3-of-4.md").is_file());
    assert!(run(&[("JOB_COMPLETION_INDEX", "1")], "2").status.success());
    assert!(tmp.path().join("out/summary-shard-1-of-2.md").is_file());
    for (env, shard) in [(&[][..], "4"), (&[("SLURM_ARRAY_TASK_ID", "4")][..], "4"), (&[][..], "5/4")] {
        let o = run(env, shard);
        assert_eq!(o.status.code(), Some(2), "{env:?} {shard}");
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("psychic: error: "));
    }
}
