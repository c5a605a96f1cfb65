//! `batch`: many patch sets, one `diff-patches` run each, resumable and
//! sharded, so that a benchmark of hundreds of bugs runs on one machine or
//! across a Slurm job array with no glue of the user's.
//!
//! The manifest is JSON lines, one set a line: `{"name": ..., "args": [...]}`,
//! `args` being the words of `psychic diff-patches` (paths relative to the
//! manifest's directory, where each run starts). A set runs as a child
//! process of psychic itself, with its own output directory
//! `OUT/sets/NAME/`: a crash, an abort or a hang ends that set (`--timeout`
//! kills it), not the batch. What each set came to is `OUT/results/NAME.json`
//! ([`SetResult`]), written aside and renamed into place once the run is
//! over: a set with a result is finished and skipped by a later batch, a
//! set whose worker was killed has none and runs again from a clean output
//! directory. Nothing is written twice, and a result never holds half a run.
//!
//! `--shard I/N` takes the sets whose line number (from 0) is I modulo N.
//! [`shard_from_env`] reads I from `SLURM_ARRAY_TASK_ID` or
//! `JOB_COMPLETION_INDEX` (a Slurm job array, a Kubernetes Indexed Job).
//! [`table`] gathers the results of one or more output directories into
//! one summary (`psychic batch merge`).

mod manifest;
pub mod table;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

pub use manifest::{Entry, read_manifest};

/// Which share of the sets this worker runs: those whose line index is
/// `index` modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn takes(&self, line: usize) -> bool {
        line % self.count == self.index
    }
}

/// The shard index a job array gives its task: Slurm's
/// `SLURM_ARRAY_TASK_ID`, else a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX`.
pub fn shard_from_env(count: usize) -> Result<Shard> {
    for var in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
        if let Ok(v) = std::env::var(var) {
            let index: usize = v.trim().parse().with_context(|| format!("{var}={v}: not a task index"))?;
            if index >= count {
                bail!("{var}={index}, but the batch has {count} shards (index 0 to {})", count - 1);
            }
            return Ok(Shard { index, count });
        }
    }
    bail!(
        "--shard {count} takes its index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX, and neither is set; give --shard I/{count}"
    )
}

/// How a batch runs.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    pub manifest: PathBuf,
    pub out: PathBuf,
    pub shard: Option<Shard>,
    /// Wall-clock limit of one set's run, after which it is killed.
    pub timeout: Duration,
    /// The psychic binary the sets run with.
    pub psychic: PathBuf,
}

/// What one set came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetResult {
    pub name: String,
    /// The set's line in the manifest (from 1).
    pub line: usize,
    pub status: Status,
    /// `diff-patches`' exit status, where it exited.
    pub exit_code: Option<i32>,
    pub seconds: f64,
    /// From the set's report, where it wrote one.
    pub revisions: Option<usize>,
    pub clusters: Option<Vec<Vec<usize>>>,
    pub tests: Option<usize>,
    pub partial: Option<bool>,
    /// What went wrong, for any status but `done`: the manifest's complaint
    /// or the end of the run's stderr.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The run ended with a report.
    Done,
    /// `diff-patches` refused the set (exit 2: a missing file, a bad flag).
    Failed,
    /// The run ended without a report otherwise: a signal, a panic.
    Crashed,
    /// Killed at `--timeout`.
    TimedOut,
    /// The manifest's line is not a set.
    Invalid,
}

/// What a batch did in this call.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    /// The sets of this shard, in manifest order, each with its result.
    pub results: Vec<SetResult>,
    /// How many of them a former call had finished.
    pub skipped: usize,
}

/// Runs every set of the shard that has no result yet; `each` hears of every
/// result as it is written.
pub fn run(plan: &BatchPlan, each: &mut dyn FnMut(&SetResult, bool)) -> Result<BatchOutcome> {
    let entries = read_manifest(&plan.manifest)?;
    let base = plan.manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = if base.as_os_str().is_empty() { PathBuf::from(".") } else { base };
    for dir in ["results", "sets"] {
        let d = plan.out.join(dir);
        std::fs::create_dir_all(&d).with_context(|| format!("{}: cannot create", d.display()))?;
    }
    let mut outcome = BatchOutcome::default();
    for (i, entry) in entries.iter().enumerate() {
        if plan.shard.is_some_and(|s| !s.takes(i)) {
            continue;
        }
        let path = result_path(&plan.out, entry.name());
        if let Some(done) = table::read_result(&path) {
            each(&done, true);
            outcome.skipped += 1;
            outcome.results.push(done);
            continue;
        }
        let result = match entry {
            Entry::Set { name, line, args } => run_set(plan, &base, name, *line, args)?,
            Entry::Invalid { name, line, error } => SetResult {
                name: name.clone(),
                line: *line,
                status: Status::Invalid,
                exit_code: None,
                seconds: 0.0,
                revisions: None,
                clusters: None,
                tests: None,
                partial: None,
                error: Some(format!("{}:{line}: {error}", plan.manifest.display())),
            },
        };
        table::write_result(&path, &result)?;
        each(&result, false);
        outcome.results.push(result);
    }
    Ok(outcome)
}

fn result_path(out: &Path, name: &str) -> PathBuf {
    out.join("results").join(format!("{name}.json"))
}

/// One set's `diff-patches` run, in its own output directory (emptied
/// first: a worker killed in the middle left it half written).
fn run_set(plan: &BatchPlan, base: &Path, name: &str, line: usize, args: &[String]) -> Result<SetResult> {
    let out = std::path::absolute(plan.out.join("sets").join(name)).context("the output directory")?;
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("{}: cannot remove", out.display()))?;
    }
    let log = out.with_extension("stderr");
    let stderr = std::fs::File::create(&log).with_context(|| format!("{}: cannot create", log.display()))?;
    let start = Instant::now();
    let mut child = Command::new(&plan.psychic)
        .arg("diff-patches")
        .arg("--quiet")
        .arg("--output-dir")
        .arg(&out)
        .args(args)
        .current_dir(base)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("running {}", plan.psychic.display()))?;
    let status = wait_timeout::ChildExt::wait_timeout(&mut child, plan.timeout)
        .with_context(|| format!("waiting for set {name}"))?;
    let timed_out = status.is_none();
    if timed_out {
        let _ = child.kill();
    }
    let status = match status {
        Some(s) => s,
        None => child.wait().with_context(|| format!("waiting for set {name}"))?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let report = table::read_report(&out.join("report.json"));
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    let status_of = match (&report, status.code()) {
        _ if timed_out => Status::TimedOut,
        (Some(_), Some(0 | 1 | 3)) => Status::Done,
        (None, Some(2)) => Status::Failed,
        _ => Status::Crashed,
    };
    // Named by its manifest line, as a compiler names a source line.
    let error = (status_of != Status::Done).then(|| {
        let tail: Vec<&str> = said.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        let what = match status_of {
            Status::TimedOut => format!("killed after {} s (--timeout)", plan.timeout.as_secs()),
            _ if tail.is_empty() => format!("exited with {status}"),
            _ => tail.join("\n"),
        };
        format!("{}:{line}: set {name}: {what}", plan.manifest.display())
    });
    Ok(SetResult {
        name: name.to_string(),
        line,
        status: status_of,
        exit_code: status.code(),
        seconds,
        revisions: report.as_ref().map(|r| r.revisions.len()),
        clusters: report.as_ref().map(|r| r.clusters.clone()),
        tests: report.as_ref().map(|r| r.tests.len()),
        partial: report.as_ref().map(|r| r.stats.partial),
        error,
    })
}
