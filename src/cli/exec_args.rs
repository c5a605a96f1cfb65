//! The engine's flags, shared by every command that explores a program.
//!
//! `ExecArgs`, the engine's flags with KLEE's names, and `EnvArgs`, the symbolic
//! environment's (`--sym-stdin`, `--sym-files`, `--stdin-model`; a `--sym-arg`
//! before `--` is caught to say where it belongs). On `run` the words after the
//! program (after `--`) are the program's; on `diff-patches` those after `--`
//! (clang flags are `--cflag` there).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;

use clap::{Args, ValueEnum};

use crate::exec::{ExecConfig, ExternalCalls, SearchKind};
use crate::ktest::KTest;
use crate::posix::{self, StdinModel};

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Exploration")]
pub struct ExecArgs {
    /// State selection: KLEE's searchers; `default` is random-path interleaved
    /// with covnew, as in KLEE; `parallel` advances revisions in step and
    /// picks the states of each group of revisions as covnew does (the
    /// default of diff-patches).
    #[arg(long, value_enum)]
    pub search: Option<Search>,
    /// Seed of the randomised searchers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The time budget in seconds (fractions allowed): no solver query runs
    /// past it; exploration stops and what was found is written, marked
    /// partial. For diff-patches it covers the whole command.
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
    /// Keep the states of a revision split apart to the end. By default,
    /// where the variants of a meta branch meet again (the branch's
    /// post-dominator) with the same path condition and effects equal on
    /// every input of it (one solver query where they differ in form), the
    /// revisions go on as one state.
    #[arg(long)]
    pub no_merge: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum Search {
    Dfs,
    Bfs,
    RandomPath,
    Covnew,
    Default,
    /// psychic's revision-aware scheduler: revisions advance in step, covnew within each.
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
        cfg.merge = !self.no_merge;
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

/// The flag Ctrl-C raises: the first stops exploration as a limit would (the
/// work in hand is finished and reported), a second kills, as in KLEE. If the
/// handler cannot be installed, Ctrl-C kills at once.
pub fn interrupt_on_ctrl_c() -> Arc<AtomicBool> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
    interrupt
}

/// The symbolic environment, shared by `run` and `diff-patches`: KLEE's
/// POSIX-runtime options. Program arguments go after `--`.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Symbolic environment (KLEE's POSIX options)")]
pub struct EnvArgs {
    /// stdin of N symbolic bytes (as `--sym-stdin N` after `--`).
    #[arg(long, value_name = "N")]
    pub sym_stdin: Option<u32>,
    /// K symbolic files A, B, ... of N bytes each, which the program opens by
    /// name (as `--sym-files K N` after `--`).
    #[arg(long, num_args = 2, value_names = ["K", "N"])]
    pub sym_files: Option<Vec<u32>>,
    /// How scanf reads symbolic stdin: `tokens` gives each integer conversion
    /// and %s one typed input (paths grow with behaviours, not digit
    /// strings); `bytes` parses stdin byte by byte, exactly as glibc does.
    #[arg(long, value_enum, default_value_t = StdinModel::Tokens)]
    pub stdin_model: StdinModel,
    /// Caught to teach: a symbolic argument belongs after `--`.
    #[arg(long, hide = true, num_args = 0.., allow_hyphen_values = true)]
    sym_arg: Option<Vec<String>>,
    #[arg(long, hide = true, num_args = 0.., allow_hyphen_values = true)]
    sym_args: Option<Vec<String>>,
}

impl EnvArgs {
    /// The program's command line after argv[0]: `program_words` (the words
    /// after `--`) with the environment flags given before it.
    pub fn words(&self, program_words: &[String]) -> anyhow::Result<posix::CommandLine> {
        for (flag, given) in [("--sym-arg", &self.sym_arg), ("--sym-args", &self.sym_args)] {
            if let Some(v) = given {
                anyhow::bail!(
                    "{flag} {} describes a program argument: put it after `--`, as in \
                     `psychic run prog.c -- {flag} {}`",
                    v.join(" "),
                    v.join(" ")
                );
            }
        }
        let files = self.sym_files.as_deref().map(|v| (v[0], v[1]));
        posix::command_words(program_words, self.sym_stdin, files, self.stdin_model)
            .and_then(|words| posix::CommandLine::parse(&words))
            .map_err(|e| anyhow::anyhow!("{e}"))
    }
}
