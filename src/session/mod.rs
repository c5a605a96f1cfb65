//! The diff-patches pipeline as a library: one [`Plan`] in, one [`Outcome`]
//! out. `cli` parses a command line into a plan and prints the outcome; tests
//! and benches that need only results call [`run`].
//!
//! Three stages, data flowing one way:
//! - `prepare`: the revisions loaded and checked one by one, the meta
//!   program, its builds (with `--project`, `project`: the capture, the
//!   touched files, every unit's builds);
//! - `explore`: the engine with the differentiator, and fuzzing with
//!   enumeration beside it, joined by `explore::Exchange`;
//! - `conclude`: clusters, the decision tree, each cluster's verdict, and the
//!   report in the output directory.

mod conclude;
mod explore;
mod prepare;
mod project;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::budget::Budget;
use crate::exec::{self, ExecConfig};
use crate::outcome::OutputSelection;
use crate::posix::CommandLine;
use crate::report::{self, Report};
use crate::unify::MetaProgram;

/// What to compare, and how.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Revision 0: a C file, or with `project` the project's source tree.
    pub orig: PathBuf,
    /// Patched files, or with `project` patched trees: revisions 1, 2, ...
    pub revisions: Vec<PathBuf>,
    /// Unified diffs against `orig`: the revisions after the files. With
    /// `project`, applied with -p1 at its tree, and never with trees.
    pub diffs: Vec<PathBuf>,
    /// A program of several files built by its own build (`--project`).
    pub project: Option<ProjectPlan>,
    /// Where results go; none: `psychic-out-N` (`report::outdir`).
    pub output_dir: Option<PathBuf>,
    /// The behaviour compared.
    pub outputs: OutputSelection,
    /// Every function whose body differs records its outputs as annotations
    /// (`unify::instrument::function_outputs`).
    pub function_outputs: bool,
    /// Native replay under AddressSanitizer.
    pub asan: bool,
    /// The time limit of one native replay.
    pub replay_timeout: Duration,
    /// Native replays at once.
    pub jobs: usize,
    /// Native differential fuzzing beside the engine.
    pub fuzz: bool,
    /// After exploration, fuzzing goes on until its corpus has not grown
    /// for this long (within the budget).
    pub fuzz_stall: Duration,
    /// A directory of the user's tests: ktests, or stdin texts.
    pub tests: Option<PathBuf>,
    /// clang's flags for every build.
    pub clang_flags: Vec<String>,
    /// The engine's settings as the user gave them; the session adds what
    /// the program decides (entry, command line, revisions, sites, seeds)
    /// and the time limit, which `budget` holds.
    pub engine: ExecConfig,
    /// The program's command line after argv[0].
    pub command: CommandLine,
    /// `--max-time`, from the command's start.
    pub budget: Budget,
}

/// How a project makes its program.
#[derive(Debug, Clone)]
pub struct ProjectPlan {
    /// The executable the build makes, relative to the tree.
    pub program: PathBuf,
    /// The build command, run by the shell in a private copy of the tree.
    pub build: String,
}

/// The behaviour compared when the user names none: stdout, the exit status
/// and annotations; for a project (`project`) stderr too, as a command-line
/// tool's messages are behaviour.
pub fn default_outputs(project: bool) -> OutputSelection {
    OutputSelection { stderr: project, ..OutputSelection::default() }
}

impl Plan {
    /// Where the meta program starts: `main`, or the symbolic environment's
    /// entry that calls it.
    pub fn entry(&self) -> String {
        self.command.entry("main").expect("a symbolic environment starts at main")
    }
}

/// What a run produced: the report (also written into `out`) and the meta
/// program its locations refer to.
pub struct Outcome {
    pub report: Report,
    pub meta: MetaProgram,
    pub out: PathBuf,
}

/// Who follows a run: the stages as they start, the engine's progress, and
/// the warnings. Every method may do nothing ([`Unwatched`]).
pub trait Watch {
    /// `stage` starts; `what` says what it does.
    fn stage(&self, _stage: &'static str, _what: String) {}
    /// A snapshot of exploration; `results` says what it found so far.
    fn explored(&self, _progress: &exec::Progress<'_>, _results: &dyn Fn() -> String) {}
    /// Something the user must know of the answer.
    fn warn(&self, _message: &str) {}
    /// A hint on how the command was used.
    fn advise(&self, _message: &str) {}
}

/// Nobody follows the run.
pub struct Unwatched;

impl Watch for Unwatched {}

/// Runs the pipeline. The output directory is created once the revisions
/// are known to compile and unify, and removed again if a later stage fails.
pub fn run(plan: &Plan, watch: &dyn Watch) -> Result<Outcome> {
    let s = prepare::sources(plan, watch)?;
    // A project's first build is counted apart: the budget is for psychic's
    // work, which later runs, with the build cached, do again.
    let first_build = s.project.as_ref().filter(|p| p.capture.fresh).map(|p| p.capture.build_time);
    if let Some(took) = first_build {
        watch.advise(&format!(
            "the project's first build took {:.1} s, not counted in --max-time; later runs reuse it",
            took.as_secs_f64()
        ));
    }
    // So is musl's, once per machine (`crate::libs`).
    let musl_build = s.tc.musl_cached()?.and_then(|m| m.built_in);
    if let Some(took) = musl_build {
        watch.advise(&format!(
            "building musl to bitcode took {:.1} s, not counted in --max-time; later runs reuse it",
            took.as_secs_f64()
        ));
    }
    let shifted;
    let plan = match first_build.into_iter().chain(musl_build).reduce(|a, b| a + b) {
        Some(took) => {
            shifted =
                Plan { budget: Budget::new(plan.budget.start + took, plan.budget.limit), ..plan.clone() };
            &shifted
        }
        None => plan,
    };
    let out = report::outdir::create(plan.output_dir.as_deref())?;
    match stages(plan, &s, &out.path, watch) {
        Ok(report) => Ok(Outcome { report, meta: s.meta, out: out.path }),
        Err(e) => {
            out.discard();
            Err(e)
        }
    }
}

fn stages(plan: &Plan, s: &prepare::Sources, out: &std::path::Path, watch: &dyn Watch) -> Result<Report> {
    let mut times = report::StageTimes { unify: s.unified, ..Default::default() };
    let compiling = Instant::now();
    let builds = prepare::builds(plan, s, out, watch)?;
    // The compile stage's time counts the check before unify too.
    times.compile = s.checked + compiling.elapsed().as_secs_f64();
    std::thread::scope(|scope| {
        let plain = plan.asan.then(|| conclude::PlainBuild::start(scope, s, &builds, out));
        let exploring = Instant::now();
        let explored = explore::explore(plan, s, &builds, out, watch)?;
        times.explore = exploring.elapsed().as_secs_f64();
        conclude::conclude(plan, s, &builds, explored, plain, out, watch, times)
    })
}
