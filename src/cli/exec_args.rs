//! The engine's flags, shared by every command that explores a program.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use clap::{Args, ValueEnum};

use crate::exec::{ExecConfig, ExternalCalls, SearchKind};
use crate::ktest::KTest;

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Exploration")]
pub struct ExecArgs {
    /// State selection: KLEE's searchers; `default` is random-path interleaved
    /// with covnew, as in KLEE; `parallel` advances revisions in step (the
    /// default of diff-patches).
    #[arg(long, value_enum)]
    pub search: Option<Search>,
    /// Seed of the randomised searchers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop exploring after this many seconds (fractions allowed).
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<f64>,
    /// Stop after this many instructions over all paths.
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// End a path after this many symbolic branches.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Fork at most this many times in all.
    #[arg(long, value_name = "N")]
    pub max_forks: Option<u64>,
    /// Stop when psychic's resident memory exceeds this many MiB.
    #[arg(long, value_name = "MIB")]
    pub max_memory: Option<u64>,
    /// Time limit of one solver query; a query over it ends only its path.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub max_solver_time: f64,
    /// Calls to functions with neither a body nor a model: `none` ends the path
    /// with an error; `all` calls the host's function on concrete integer
    /// arguments (KLEE's --external-calls).
    #[arg(long, value_enum, default_value_t = External::None)]
    pub external_calls: External,
    /// Report shifts by the bit width or more as errors.
    #[arg(long)]
    pub check_overshift: bool,
    /// Seed inputs: every .ktest file in DIR. Paths that agree with a seed are
    /// explored first (KLEE's seeding), which reaches code behind deep or
    /// hard conditions sooner.
    #[arg(long, value_name = "DIR")]
    pub seed_dir: Option<PathBuf>,
    /// A seed input; repeatable.
    #[arg(long = "seed-file", value_name = "KTEST")]
    pub seed_files: Vec<PathBuf>,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum Search {
    Dfs,
    Bfs,
    RandomPath,
    Covnew,
    Default,
    /// psychic's revision-aware scheduler: revisions advance in step.
    Parallel,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum External {
    None,
    All,
}

impl ExecArgs {
    /// Writes the flags into `cfg`, with `search` unless `--search` names
    /// another; an invalid duration is an error message.
    pub fn apply(&self, cfg: &mut ExecConfig, search: SearchKind) -> anyhow::Result<()> {
        cfg.search = match self.search.unwrap_or(Search::from(search)) {
            Search::Dfs => SearchKind::Dfs,
            Search::Bfs => SearchKind::Bfs,
            Search::RandomPath => SearchKind::RandomPath,
            Search::Covnew => SearchKind::CovNew,
            Search::Default => SearchKind::Default,
            Search::Parallel => SearchKind::Parallel,
        };
        cfg.seed = self.seed;
        cfg.max_time = self.max_time.map(|s| seconds("--max-time", s)).transpose()?;
        cfg.max_instructions = self.max_instructions;
        cfg.max_depth = self.max_depth;
        cfg.max_forks = self.max_forks;
        cfg.max_memory_mb = self.max_memory;
        cfg.max_solver_time = seconds("--max-solver-time", self.max_solver_time)?;
        cfg.external_calls = match self.external_calls {
            External::None => ExternalCalls::Error,
            External::All => ExternalCalls::Native,
        };
        cfg.check_overshift = self.check_overshift;
        cfg.seeds = self.seeds()?;
        Ok(())
    }

    fn seeds(&self) -> anyhow::Result<Vec<KTest>> {
        let mut files = self.seed_files.clone();
        if let Some(dir) = &self.seed_dir {
            let entries = std::fs::read_dir(dir)
                .with_context(|| format!("{}: cannot read the seed directory", dir.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
                .collect();
            if found.is_empty() {
                anyhow::bail!("{}: no .ktest files to seed with", dir.display());
            }
            found.sort();
            files.extend(found);
        }
        files.iter().map(|f| KTest::read(f).map_err(Into::into)).collect()
    }
}

impl From<SearchKind> for Search {
    fn from(k: SearchKind) -> Search {
        match k {
            SearchKind::Dfs => Search::Dfs,
            SearchKind::Bfs => Search::Bfs,
            SearchKind::RandomPath => Search::RandomPath,
            SearchKind::CovNew => Search::Covnew,
            SearchKind::Default => Search::Default,
            SearchKind::Parallel => Search::Parallel,
        }
    }
}

fn seconds(flag: &str, s: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| anyhow::anyhow!("{flag} {s}: expected a non-negative number of seconds"))
}
