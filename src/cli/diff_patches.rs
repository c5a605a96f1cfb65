//! `psychic diff-patches`: unify, compile, explore with the differentiator,
//! cluster, report — the whole pipeline in one command.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::exec_args::{self, EnvArgs, ExecArgs};
use super::progress::Progress;
use crate::budget::Budget;
use crate::exec::{ExecConfig, SearchKind};
use crate::outcome::OutputSelection;
use crate::report::{self, diagnostics};
use crate::session::{self, Plan, ProjectPlan};

/// Find inputs on which candidate patches behave differently, cluster the
/// patches by behaviour, and build a decision tree of tests.
#[derive(Args)]
#[command(after_help = "Revision 0 is ORIG; revision k is the k-th patch in command-line order (files first,
then diffs).

A project of several C files that its own build makes: --project DIR --program PATH. DIR is the
original source tree, configured; PATH the executable its build (--build, default `make`) makes,
relative to DIR. psychic builds a private copy of DIR once, learns which translation units with
which flags form PATH (kept for later runs), and unifies only the files the patches touch, with one
site numbering across them. The revisions are --diff patches applied with -p1 at DIR (each may touch
several files), or whole patched trees given as REV_DIR arguments, not both. The meta files go to
OUT/meta/; the native builds are the project's own objects with the touched units' swapped in.
With --project, the default --outputs compares stderr too: a command-line tool's messages are
behaviour. psychic never writes into DIR. Patched trees, built with their own command:
  psychic diff-patches --project calc --program bin/calc --build 'make -j2' calc-fix1 calc-fix2

Results go to the output directory:
  report.json       revisions, clusters, tests with inputs and outcomes, decision tree, stats
  report.txt        the summary printed on the terminal
  report.html       the same as a page: the decision tree, clusters, tests side by side, the
                    meta program with its sites
  tree.dot          the decision tree for Graphviz
  tests/*.ktest     the confirmed differential tests (KLEE ktest v3)
  meta.c            the meta program (also meta.bc, the native build meta.native, its twin
                    meta.perturbed that fills stack variables with a pattern, for the second
                    replay that tells an outcome resting on memory garbage, and the fuzz build
                    meta.fuzz)
  meta.map.json     its source map: sites, variants and where they are in each revision's file

Diagnostics (--diagnostics gcc, the default when stderr is a terminal) go to stderr, one warning
per test and outcome class that differs from the original's, with a note at each meta-branch site
of the diverging path for each variant the revisions compared run there, in the file of one of
them (a list of more than 12 revisions ends in \"and N more\": report.json lists them whole):
  fix3.c:13:9: warning: revision 3 differs from 0, 1, 2, 4, 5, 6 on input score=70: stdout \"F\\n\" vs \"C\\n\" [psychic]
  fix3.c:13:9: note: revision 3 runs this code at site 3 (condition in grade); no other revision has it

Tests come from two engines at once: the symbolic executor, and native differential fuzzing on a
thread beside it (LibAFL; every revision runs on each input in a fork of the meta program's fuzz
build, meta.fuzz), which takes the engine's path inputs as seeds and gives the engine the inputs it
keeps (klee_make_symbolic inputs, and stdin in bytes mode). Every test of either is replayed
on every revision before it counts; report.json's `found_by` says which engine found it. Fuzzing
finds tests, never proofs. Where the program's first steps bound its input to a box of at most
4,194,304 inputs (klee_assume((0 <= x) & (x < 1000)) on each klee_make_symbolic object), the
fuzz server also runs every input of the box on every revision (enumeration, about 3 us a run):
revisions alike on all of them are proved equivalent, and the run ends once every pair of
revisions is told apart or proved. --no-fuzz leaves the engine alone.

A cluster is \"proved equivalent\" only when every path of its revisions was explored exactly and
every comparison between them settled, or enumeration ran them alike on every input of the
domain (report.json's stats.enumeration says whether its runs are a proof, and if not, why).
Exploration need not end for that: where every state left follows both revisions of a pair and
can reach no meta-branch site that gives them different code, the rest of the run cannot tell
them apart, and the run stops as soon as every pair is told apart or proved.

Where the variants of a meta branch compute the same thing in other words (x * 2 and x + x, a
branch and a conditional expression), their states merge again where the variants meet, if one
solver query proves their effects equal on every input of the path: the code after the patch
then runs once for all of them. --no-merge keeps them apart. Whatever the engine approximated (a concretised value, a
libc-model gap, an unmodelled call, an unsupported instruction, a solver timeout, a path cut by a
limit, states left when the budget ran out) is listed per revision in report.json's `coverage`, and
the clusters it touches are \"not separated\", with the reasons; the report is then partial.

Exit status:
  0  success
  1  with --fail-on-diff: the revisions do not all behave alike (more than one cluster)
  2  a usage or input error
  3  with --fail-on-incomplete: the answer is partial (some cluster is not proved equivalent)

Examples:
  psychic diff-patches orig.c fix1.c fix2.c fix3.c
  psychic diff-patches orig.c --diff a.diff --diff b.diff --max-time 60 --output-dir out
  psychic diff-patches orig.c fix*.c --diagnostics gcc --sarif psychic.sarif --fail-on-diff
  psychic diff-patches median.c fix1.c fix2.c --sym-stdin 12      # programs that scanf
  psychic diff-patches seq.c fix.c -- --sym-arg 2 --sym-arg 2      # programs that read argv
  psychic diff-patches --project calc --program calc --diff a.diff --diff b.diff -- --sym-stdin 8
  psychic replay out/meta.native out/tests/test000001.ktest --revision 2")]
pub struct DiffPatchesArgs {
    /// The original program: revision 0 (with --project, the first REV_DIR).
    #[arg(required_unless_present = "project")]
    orig: Option<PathBuf>,
    /// Patched versions of ORIG: revisions 1, 2, ... (with --project, patched
    /// copies of DIR).
    revisions: Vec<PathBuf>,
    /// A unified diff against ORIG; repeatable. Applied after the files.
    /// With --project, applied with -p1 at DIR.
    #[arg(long = "diff", value_name = "PATCH")]
    diffs: Vec<PathBuf>,
    /// A program of several files built by its own build: DIR is the
    /// original source tree, configured (revision 0).
    #[arg(long, value_name = "DIR", requires = "program")]
    project: Option<PathBuf>,
    /// With --project: the executable the build makes, relative to DIR.
    #[arg(long, value_name = "PATH", requires = "project")]
    program: Option<PathBuf>,
    /// With --project: the command that builds PATH in DIR (default: make).
    #[arg(long, value_name = "CMD", requires = "project")]
    build: Option<String>,
    /// Where results go (default: psychic-out-N, with psychic-last linking to it).
    #[arg(long, short = 'o', value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// The behaviour compared between revisions, a comma-separated list of:
    /// stdout, stderr, exit (status and crashes), annotations (psychic_output),
    /// functions (the return value of every function whose body differs
    /// between revisions, and what it leaves behind its non-const pointer
    /// parameters, recorded at each return as `ret!NAME` and `arg!NAME!PARAM`).
    /// Default: stdout,exit,annotations; with --project, stderr too.
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    outputs: Option<Vec<OutputKind>>,
    /// Replay natively without AddressSanitizer (memory errors may then pass
    /// silently natively while the engine reports them).
    #[arg(long)]
    no_asan: bool,
    /// Time limit of one native replay.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    replay_timeout: f64,
    /// Native replays at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// No native differential fuzzing beside the symbolic engine: every test
    /// then comes from the engine.
    #[arg(long)]
    no_fuzz: bool,
    /// After exploration ends with revisions neither told apart nor proved
    /// equivalent, fuzzing goes on while the budget (--max-time) lasts, until
    /// its corpus has not grown for this long. Without --max-time it ends with
    /// exploration.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    fuzz_stall: f64,
    /// A directory of existing test inputs, as repair benchmarks ship them:
    /// `.ktest` files, and any other file as the text of stdin. They seed
    /// fuzzing, and ktests the engine too (a map of the input format: the
    /// patches usually pass them).
    #[arg(long, value_name = "DIR")]
    tests: Option<PathBuf>,
    /// Print nothing but errors (and diagnostics asked for with --diagnostics gcc):
    /// no summary, no progress line.
    #[arg(long, short)]
    quiet: bool,
    /// A flag for clang (repeatable): --cflag=-DNDEBUG --cflag=-Iinclude.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    clang_flags: Vec<String>,
    /// Compiler-style diagnostics on stderr: `auto` is `gcc` when stderr is a
    /// terminal (and not --quiet), `none` otherwise.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Diagnostics::Auto)]
    diagnostics: Diagnostics,
    /// Also write the diagnostics as SARIF 2.1.0, for code-scanning tools.
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Exit with status 1 when the revisions do not all behave alike (more
    /// than one cluster).
    #[arg(long)]
    fail_on_diff: bool,
    /// Exit with status 3 when the answer is partial: some cluster is not
    /// proved equivalent (approximations, cut paths, budget). Checked after
    /// --fail-on-diff.
    #[arg(long)]
    fail_on_incomplete: bool,
    #[command(flatten)]
    exec: ExecArgs,
    #[command(flatten)]
    env: EnvArgs,
    /// The program's command line after argv[0]: concrete words and KLEE's
    /// --sym-arg N, --sym-args MIN MAX N, --sym-stdin N, --sym-files K N.
    #[arg(last = true, value_name = "WORD")]
    words: Vec<String>,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Diagnostics {
    Auto,
    /// `FILE:LINE:COL: warning: ...` and `note:` lines, as gcc prints them.
    Gcc,
    #[value(name = "none")]
    Off,
}

/// Exit status of a run whose revisions differ, with --fail-on-diff.
const EXIT_DIFFERENT: u8 = 1;
/// Exit status of a partial answer, with --fail-on-incomplete.
const EXIT_INCOMPLETE: u8 = 3;

/// The most reasons of a partial answer the warning names.
const WARNED_REASONS: usize = 5;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OutputKind {
    Stdout,
    Stderr,
    Exit,
    Annotations,
    Functions,
}

fn selection(kinds: &[OutputKind]) -> OutputSelection {
    OutputSelection {
        stdout: kinds.contains(&OutputKind::Stdout),
        stderr: kinds.contains(&OutputKind::Stderr),
        exit: kinds.contains(&OutputKind::Exit),
        // Function outputs are recorded as annotations.
        annotations: kinds.contains(&OutputKind::Annotations) || kinds.contains(&OutputKind::Functions),
    }
}

pub fn diff_patches(a: DiffPatchesArgs) -> Result<ExitCode> {
    let start = Instant::now();
    if let Some(p) = &a.sarif {
        check_writable(p)?;
    }
    let plan = plan(&a, start)?;
    let mut progress = Progress::on_stderr(!a.quiet);
    progress.set_budget(plan.budget);
    let terminal = Terminal { progress, quiet: a.quiet };
    let outcome = session::run(&plan, &terminal)?;
    terminal.progress.finish();
    print_outcome(&a, &outcome)?;
    let report = &outcome.report;
    if a.fail_on_diff && report.clusters.len() > 1 {
        return Ok(ExitCode::from(EXIT_DIFFERENT));
    }
    if a.fail_on_incomplete && report.stats.partial {
        return Ok(ExitCode::from(EXIT_INCOMPLETE));
    }
    Ok(ExitCode::SUCCESS)
}

/// The command line as a session's plan.
pub(super) fn plan(a: &DiffPatchesArgs, start: Instant) -> Result<Plan> {
    let command = a.env.words(&a.words)?;
    let replay_timeout = Duration::try_from_secs_f64(a.replay_timeout).map_err(|_| {
        anyhow::anyhow!("--replay-timeout {}: expected a positive number of seconds", a.replay_timeout)
    })?;
    let mut engine =
        ExecConfig { interrupt: Some(exec_args::interrupt_on_ctrl_c()), ..ExecConfig::default() };
    a.exec.apply(&mut engine, SearchKind::Parallel)?;
    let (orig, revisions, project) = revisions(a)?;
    let outputs = match &a.outputs {
        Some(kinds) => selection(kinds),
        None => session::default_outputs(project.is_some()),
    };
    Ok(Plan {
        orig,
        revisions,
        diffs: a.diffs.clone(),
        project,
        output_dir: a.output_dir.clone(),
        outputs,
        function_outputs: a.outputs.as_ref().is_some_and(|k| k.contains(&OutputKind::Functions)),
        asan: !a.no_asan,
        replay_timeout,
        jobs: a.jobs,
        fuzz: !a.no_fuzz,
        fuzz_stall: Duration::from_secs_f64(a.fuzz_stall.max(0.0)),
        tests: a.tests.clone(),
        clang_flags: a.clang_flags.clone(),
        // The budget holds the limit; the session gives it to the engine.
        budget: Budget::new(start, engine.max_time.take()),
        engine,
        command,
    })
}

/// Revision 0, the patched files or trees, and the project's part.
fn revisions(a: &DiffPatchesArgs) -> Result<(PathBuf, Vec<PathBuf>, Option<ProjectPlan>)> {
    let Some(dir) = &a.project else {
        let orig = a.orig.clone().context("ORIG is required")?;
        return Ok((orig, a.revisions.clone(), None));
    };
    let program = a.program.clone().context("--project needs --program PATH")?;
    if !dir.is_dir() {
        bail!("--project {}: not a directory", dir.display());
    }
    if program.is_absolute() {
        bail!("--program {}: expected a path relative to DIR ({})", program.display(), dir.display());
    }
    let trees: Vec<PathBuf> = a.orig.iter().chain(&a.revisions).cloned().collect();
    if let Some(t) = trees.iter().find(|t| !t.is_dir()) {
        bail!(
            "{}: with --project, a revision is a patched copy of DIR (a directory) or a --diff",
            t.display()
        );
    }
    match (trees.is_empty(), a.diffs.is_empty()) {
        (true, true) => bail!("--project {}: no revisions: give --diff PATCH or REV_DIR", dir.display()),
        (false, false) => {
            bail!("--project {}: give revisions as --diff or as REV_DIRs, not both", dir.display())
        }
        _ => {}
    }
    let build = a.build.clone().unwrap_or_else(|| "make".to_string());
    Ok((dir.clone(), trees, Some(ProjectPlan { program, build })))
}

/// The terminal follows the run: the progress line, and warnings on stderr.
struct Terminal {
    progress: Progress,
    quiet: bool,
}

impl session::Watch for Terminal {
    fn stage(&self, stage: &'static str, what: String) {
        self.progress.stage(stage, what);
    }

    fn explored(&self, p: &crate::exec::Progress<'_>, results: &dyn Fn() -> String) {
        if self.progress.shown() {
            self.progress.explored(p, &results());
        }
    }

    fn warn(&self, message: &str) {
        eprintln!("psychic: warning: {message}");
    }

    fn advise(&self, message: &str) {
        if !self.quiet {
            eprintln!("psychic: warning: {message}");
        }
    }
}

/// The diagnostics, the SARIF log and the summary.
fn print_outcome(a: &DiffPatchesArgs, outcome: &session::Outcome) -> Result<()> {
    let (report, out) = (&outcome.report, &outcome.out);
    let files = report.files(out);
    let on_terminal = std::io::stderr().is_terminal();
    let gcc = match a.diagnostics {
        Diagnostics::Gcc => true,
        Diagnostics::Auto => on_terminal && !a.quiet,
        Diagnostics::Off => false,
    };
    // Findings only for whoever reads them: thousands of revisions make
    // thousands of them.
    let findings = if gcc || a.sarif.is_some() {
        diagnostics::findings(report, &outcome.meta, &files)
    } else {
        Vec::new()
    };
    if let Some(path) = &a.sarif {
        let cwd = std::env::current_dir().context("reading the current directory")?;
        let log = report::sarif::sarif(report, &findings, &files, &cwd);
        report::write_atomic(path, log.as_bytes())
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if gcc {
        eprint!("{}", diagnostics::gcc(&findings, on_terminal && console::colors_enabled_stderr()));
    }
    if !a.quiet {
        print!("{}", report::summary(report));
        println!("results: {}", out.display());
        if report.stats.partial {
            // The first reasons: a pool of thousands has one per cluster,
            // and the report has them all.
            let reasons = &report.stats.partial_reasons;
            let mut shown = reasons.iter().take(WARNED_REASONS).cloned().collect::<Vec<_>>().join("; ");
            if reasons.len() > WARNED_REASONS {
                shown += &format!("; and {} more", reasons.len() - WARNED_REASONS);
            }
            eprintln!(
                "psychic: warning: partial answer: {shown} (see report.txt and coverage in {})",
                out.join("report.json").display()
            );
        }
    }
    Ok(())
}

/// Fails early, before any work, if `path` cannot be written later: its
/// directory must exist.
fn check_writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        bail!("{}: cannot write: no directory {}", path.display(), dir.display());
    }
    if path.is_dir() {
        bail!("{}: is a directory", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_kinds_select() {
        let s = selection(&[OutputKind::Stdout, OutputKind::Exit]);
        assert!(s.stdout && s.exit && !s.stderr && !s.annotations);
    }
}
