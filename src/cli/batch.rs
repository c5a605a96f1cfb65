//! `psychic batch MANIFEST` and `psychic batch merge OUT...`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use crate::batch::{self, BatchPlan, Shard, table};

#[derive(Args)]
#[command(
    about = "Run diff-patches on every patch set of a manifest: resumable, sharded across a job array",
    long_about = "Run `psychic diff-patches` on every patch set of MANIFEST, one child process a set, \
each into OUT/sets/NAME/, and write what each came to into OUT/results/NAME.json and a summary table. \
The manifest is JSON lines, one set a line: {\"name\": \"bug-17\", \"args\": [\"orig.c\", \"p1.c\", \
\"--max-time\", \"60\"]}; `args` are diff-patches' words, paths relative to the manifest's \
directory; `name` (letters, digits, . _ - +) defaults to line-N.\n\n\
A set with a result is finished: a later call skips it, so a batch that was stopped resumes where it \
was. A set whose run crashes, fails or outlives --timeout is reported and the others go on; a line \
that is not a set is reported with its line number.\n\n\
--shard I/N runs the sets whose line index (from 0) is I modulo N; --shard N takes I from \
SLURM_ARRAY_TASK_ID (a Slurm job array, `sbatch --array=0-N-1`) or JOB_COMPLETION_INDEX (a \
Kubernetes Indexed Job). Shards may share one OUT on a shared file system, or write apart and be \
gathered with `psychic batch merge`.",
    after_help = "Examples:
  psychic batch sets.jsonl -o runs                  # every set, one after another
  psychic batch sets.jsonl -o runs --shard 2/8      # the third of eight shares
  sbatch --array=0-7 deploy/batch.sbatch sets.jsonl runs   # eight Slurm tasks
  psychic batch merge runs                          # the table of every finished set

Exit status: 0 when every set of the shard is done; 1 when some set failed, crashed, timed out or
is not a valid line (the table says which); 2 on a usage error or an unreadable manifest.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct BatchArgs {
    #[command(subcommand)]
    command: Option<BatchCommand>,

    /// The manifest: JSON lines, one patch set a line
    #[arg(value_name = "MANIFEST", required = true)]
    manifest: Option<PathBuf>,

    /// Where the sets' runs and results go
    #[arg(short = 'o', long = "output-dir", value_name = "OUT", default_value = "psychic-batch")]
    out: PathBuf,

    /// Run one share of the sets: I/N, or N with I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,

    /// Kill a set's run after this many seconds of wall time
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    timeout: u64,
}

#[derive(Subcommand)]
enum BatchCommand {
    /// Gather the results of batch output directories (shards) into one table
    Merge(MergeArgs),
}

#[derive(Args)]
struct MergeArgs {
    /// Batch output directories
    #[arg(value_name = "OUT", required = true)]
    dirs: Vec<PathBuf>,

    /// Also write the table here
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn batch(a: BatchArgs) -> Result<ExitCode> {
    if let Some(BatchCommand::Merge(m)) = a.command {
        let results = table::gather(&m.dirs)?;
        let text = table::markdown(&results);
        if let Some(o) = &m.output {
            std::fs::write(o, &text).with_context(|| format!("{}: cannot write", o.display()))?;
        }
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let manifest = a.manifest.expect("clap requires MANIFEST without a subcommand");
    let shard = a.shard.as_deref().map(parse_shard).transpose()?;
    let plan = BatchPlan {
        manifest,
        out: a.out.clone(),
        shard,
        timeout: Duration::from_secs(a.timeout),
        psychic: std::env::current_exe().context("finding psychic's own binary")?,
    };
    let mut each = |r: &batch::SetResult, skipped: bool| {
        let what =
            if skipped { "finished before".to_string() } else { table::status_word(r.status).to_string() };
        let clusters = r.clusters.as_ref().map_or(String::new(), |c| format!(", {} clusters", c.len()));
        eprintln!("batch: {} (line {}): {what}{clusters}, {:.1} s", r.name, r.line, r.seconds);
    };
    let outcome = batch::run(&plan, &mut each)?;
    let text = table::markdown(&outcome.results);
    let name = match shard {
        Some(s) => format!("summary-shard-{}-of-{}.md", s.index, s.count),
        None => "summary.md".to_string(),
    };
    let path = a.out.join(name);
    std::fs::write(&path, &text).with_context(|| format!("{}: cannot write", path.display()))?;
    print!("{text}");
    let all_done = outcome.results.iter().all(|r| r.status == batch::Status::Done);
    Ok(if all_done { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn parse_shard(s: &str) -> Result<Shard> {
    let count = |n: &str| -> Result<usize> {
        match n.parse::<usize>() {
            Ok(c) if c > 0 => Ok(c),
            _ => bail!("--shard {s}: N must be a positive count (I/N or N)"),
        }
    };
    match s.split_once('/') {
        None => batch::shard_from_env(count(s)?),
        Some((i, n)) => {
            let count = count(n)?;
            let index: usize = i.parse().map_err(|_| anyhow::anyhow!("--shard {s}: I must be a number"))?;
            if index >= count {
                bail!("--shard {s}: I goes from 0 to {}", count - 1);
            }
            Ok(Shard { index, count })
        }
    }
}
