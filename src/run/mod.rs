//! What `psychic run` leaves behind, in KLEE's conventions (KLEE's
//! KleeHandler): a halt observer that turns every halted path into a test in
//! the output directory as it halts, the statistics file, the progress line
//! and the summary.
//!
//! The output directory:
//! - `testNNNNNN.ktest`: the inputs of a path that exited, failed, or was
//!   ended early (KLEE ktest v3; `args` is the program's command line).
//!   Silent paths (`klee_silent_exit`, a contradicting `klee_assume`) have
//!   none.
//! - `testNNNNNN.<kind>.err`: an error path's report (`Error:`, `File:`,
//!   `Line:`, `Stack:`), named by KLEE's suffixes (`ptr`, `div`, ...).
//! - `testNNNNNN.early`: why a path was ended early.
//! - `testNNNNNN.stdout`, `.stderr`: what the path printed, rendered under
//!   the test's inputs (absent when empty).
//! - `tests.csv`: one row per test (see [`TEST_COLUMNS`]).
//! - `run.stats`: statistics once a second and at the end (see
//!   [`STATS_COLUMNS`]).
//! - `info`: the command line, start and end, and the summary;
//!   `messages.txt`: everything psychic printed on stderr;
//!   `warnings.txt`: the engine's warnings.
//!
//! Every error path gets a test (KLEE keeps one per location unless told
//! `--emit-all-errors`); the error message is printed once per kind and
//! location.
//!
//! Path counts are KLEE's (`klee_completed`, `klee_partial`): exits are
//! completed; errors, silent and early paths are partially completed. Paths are
//! not kept in memory (`keep_paths: false`). `tests.csv`'s status is the exit
//! status as a process shows it (0-255); its revisions are those following the
//! path. `TestWriter::finish` prints the warnings, the program's output when the
//! run had a single path, and the summary, and writes `info`. The ktest of a
//! path is `crate::posix::path_ktest`'s, a model restricted to the path's
//! inputs.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::exec::{
    Control, ExecStats, HaltContext, HaltObserver, HaltedPath, OutputEvent, Progress, RunSummary, Stream,
    Termination,
};
use crate::expr::{Assignment, ExprPool};
use crate::solver::SolverStats;

/// The columns of `tests.csv`: the test's number; how its path ended (`exit`,
/// `error`, `early`); the exit status as a process shows it (0-255; empty
/// unless `exit`); the error kind (the `.err` suffix) or why the path ended
/// early; the source location of an error; the revisions that follow the
/// path (space-separated); instructions and symbolic branches along the
/// path.
pub const TEST_COLUMNS: [&str; 8] =
    ["test", "termination", "status", "kind", "location", "revisions", "instructions", "depth"];

/// The columns of `run.stats`: seconds since the start; instructions run;
/// forks; states made, and alive; completed and partially completed paths
/// (KLEE's); tests written; basic blocks covered, of all; solver queries,
/// query-cache and counterexample-cache hits, Z3 calls and seconds in the
/// solver; resident memory in MiB; branch queries that ran out of their
/// first timeout and put their state aside; states merged after a revision
/// split, and the merge queries with their seconds (all solver calls but
/// those are the engine's branch queries: `psychic run` asks no others).
pub const STATS_COLUMNS: [&str; 20] = [
    "WallTime",
    "Instructions",
    "Forks",
    "States",
    "LiveStates",
    "CompletedPaths",
    "PartialPaths",
    "Tests",
    "CoveredBlocks",
    "TotalBlocks",
    "Queries",
    "QueryCacheHits",
    "CexCacheHits",
    "SolverCalls",
    "SolverTime",
    "ResidentMiB",
    "DeferredQueries",
    "MergedStates",
    "MergeQueries",
    "MergeTime",
];

/// Runs of this length or more get a progress line (on a terminal).
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
/// How often `run.stats` gets a row.
const STATS_INTERVAL: Duration = Duration::from_secs(1);

pub struct Options {
    /// The output directory, which exists.
    pub dir: PathBuf,
    /// The program's command line, recorded in every ktest (argv[0] first).
    pub ktest_args: Vec<String>,
    /// Draw a progress line on stderr (if it is a terminal).
    pub progress: bool,
}

/// psychic's own messages: to stderr (around the progress line) and to
/// `messages.txt`.
pub struct Console {
    bar: Option<ProgressBar>,
    log: BufWriter<File>,
}

impl Console {
    pub fn message(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("psychic: {line}")),
            None => eprintln!("psychic: {line}"),
        }
        let _ = writeln!(self.log, "psychic: {line}");
    }
}

/// The halt observer of `psychic run`: writes each path's test as it halts.
pub struct TestWriter {
    opts: Options,
    pub console: Console,
    tests: u64,
    halted: u64,
    /// The first path's output, in order, for a run that turns out to have
    /// only that path.
    first_output: Vec<(Stream, Vec<u8>)>,
    index: csv::Writer<File>,
    stats: csv::Writer<File>,
    last_stats_row: Option<Duration>,
    reported: HashSet<(String, String)>,
    errors: BTreeMap<String, u64>,
    /// Paths whose inputs the solver could not produce.
    lost: u64,
    /// The first failure to write into the output directory; the run stops.
    pub error: Option<io::Error>,
}

/// What [`TestWriter::finish`] reports.
#[derive(Debug, Clone)]
pub struct Finished {
    pub tests: u64,
    /// Error paths by kind.
    pub errors: BTreeMap<String, u64>,
    /// The summary lines printed (without the `psychic: ` prefix).
    pub summary: Vec<String>,
}

impl TestWriter {
    pub fn new(opts: Options) -> io::Result<TestWriter> {
        let create = |name: &str| File::create(opts.dir.join(name));
        let mut index = csv::Writer::from_writer(create("tests.csv")?);
        index.write_record(TEST_COLUMNS)?;
        let mut stats = csv::Writer::from_writer(create("run.stats")?);
        stats.write_record(STATS_COLUMNS)?;
        let console = Console { bar: None, log: BufWriter::new(create("messages.txt")?) };
        Ok(TestWriter {
            opts,
            console,
            tests: 0,
            halted: 0,
            first_output: Vec::new(),
            index,
            stats,
            last_stats_row: None,
            reported: HashSet::new(),
            errors: BTreeMap::new(),
            lost: 0,
            error: None,
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.opts.dir.join(name)
    }

    /// Writes the test of one path (silent paths have none), and keeps the
    /// first path's output.
    fn write_test(&mut self, p: &HaltedPath, cx: &mut HaltContext<'_>) -> io::Result<()> {
        let first = self.halted == 1;
        if !first {
            self.first_output.clear();
        }
        let silent = matches!(p.termination, Termination::Silent);
        if silent && !first {
            return Ok(());
        }
        let arrays: Vec<_> = p.symbolics.iter().map(|s| s.array).collect();
        let model = match cx.solver.get_model(cx.pool, &p.constraints, &arrays) {
            Ok(Some(m)) => m,
            Ok(None) => return self.lose("its path condition is unsatisfiable"),
            Err(e) => return self.lose(&format!("the solver failed: {e}")),
        };
        let mut assignment = Assignment::new();
        for (s, bytes) in p.symbolics.iter().zip(&model) {
            assignment.set_bytes(s.array, bytes);
        }
        let outputs = render_outputs(cx.pool, &p.outputs, &assignment);
        if first {
            self.first_output = outputs.clone();
        }
        if silent {
            return Ok(());
        }
        self.tests += 1;
        let stem = format!("test{:06}", self.tests);
        let kt = crate::posix::path_ktest(self.opts.ktest_args.clone(), &p.symbolics, model);
        kt.write(&self.path(&format!("{stem}.ktest"))).map_err(io::Error::other)?;
        for (stream, ext) in [(Stream::Stdout, "stdout"), (Stream::Stderr, "stderr")] {
            let text: Vec<u8> =
                outputs.iter().filter(|(s, _)| *s == stream).flat_map(|(_, t)| t.iter().copied()).collect();
            if !text.is_empty() {
                std::fs::write(self.path(&format!("{stem}.{ext}")), text)?;
            }
        }
        let (termination, status, kind, location) = match &p.termination {
            Termination::Exit { status } => {
                let s = cx.pool.eval(*status, &assignment) & 0xff;
                ("exit", s.to_string(), String::new(), String::new())
            }
            Termination::Error { kind, message, location, stack } => {
                let loc = location.as_ref().map(|l| l.to_string()).unwrap_or_default();
                std::fs::write(self.path(&format!("{stem}.{kind}.err")), err_file(message, location, stack))?;
                *self.errors.entry(kind.to_string()).or_default() += 1;
                if self.reported.insert((kind.to_string(), loc.clone())) {
                    let at = if loc.is_empty() { String::new() } else { format!("{loc}: ") };
                    self.console.message(&format!("ERROR: {at}{message}"));
                }
                ("error", String::new(), kind.to_string(), loc)
            }
            Termination::Early { reason, .. } => {
                std::fs::write(self.path(&format!("{stem}.early")), format!("{reason}\n"))?;
                ("early", String::new(), reason.clone(), String::new())
            }
            Termination::Silent => unreachable!("silent paths have no test"),
        };
        let revisions: Vec<String> = p.revisions.iter().map(|r| r.to_string()).collect();
        self.index.write_record([
            self.tests.to_string(),
            termination.to_string(),
            status,
            kind,
            location,
            revisions.join(" "),
            p.instructions.to_string(),
            p.depth.to_string(),
        ])?;
        Ok(())
    }

    fn lose(&mut self, why: &str) -> io::Result<()> {
        self.lost += 1;
        self.console.message(&format!("WARNING: no test for a path: {why}"));
        Ok(())
    }

    fn stats_row(&mut self, stats: &ExecStats, solver: &SolverStats, live: usize) -> io::Result<()> {
        self.last_stats_row = Some(stats.elapsed);
        let row = [
            format!("{:.3}", stats.elapsed.as_secs_f64()),
            stats.instructions.to_string(),
            stats.forks.to_string(),
            stats.states_created.to_string(),
            live.to_string(),
            klee_completed(stats).to_string(),
            klee_partial(stats).to_string(),
            self.tests.to_string(),
            stats.covered_blocks.to_string(),
            stats.total_blocks.to_string(),
            solver.queries.to_string(),
            solver.query_cache.hits.to_string(),
            solver.cex_cache.hits.to_string(),
            solver.z3_calls().to_string(),
            format!("{:.3}", solver.total_time.as_secs_f64()),
            memory().map_or(String::new(), |m| m.resident.to_string()),
            stats.deferred_queries.to_string(),
            stats.merged_states.to_string(),
            stats.merge_queries.to_string(),
            format!("{:.3}", stats.merge_time.as_secs_f64()),
        ];
        self.stats.write_record(row)?;
        self.stats.flush()
    }

    /// Ends the run: the last statistics, the warnings, the program's output
    /// if it had a single path, the summary, and `info`.
    pub fn finish(
        mut self,
        s: &RunSummary,
        command_line: &str,
        started: SystemTime,
        wall: Duration,
    ) -> io::Result<Finished> {
        if let Some(bar) = self.console.bar.take() {
            bar.finish_and_clear();
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut stats = s.stats.clone();
        stats.elapsed = wall;
        self.stats_row(&stats, &s.solver, 0)?;
        self.index.flush()?;
        let mut warnings = BufWriter::new(File::create(self.path("warnings.txt"))?);
        for w in &s.warnings {
            writeln!(warnings, "{w}")?;
            self.console.message(&format!("WARNING: {w}"));
        }
        warnings.flush()?;
        if self.halted == 1 {
            let (mut out, mut err) = (io::stdout().lock(), io::stderr().lock());
            for (stream, text) in &self.first_output {
                match stream {
                    Stream::Stdout => out.write_all(text)?,
                    Stream::Stderr => err.write_all(text)?,
                }
            }
            out.flush()?;
        }
        if let Some(reason) = &s.stopped_early {
            self.console.message(&format!("halted: {reason}"));
        }
        let summary = summary(s, self.tests, wall, &self.errors, self.lost);
        for line in &summary {
            self.console.message(line);
        }
        let mut info = BufWriter::new(File::create(self.path("info"))?);
        writeln!(info, "{command_line}")?;
        writeln!(info, "PID: {}", std::process::id())?;
        writeln!(info, "Started: {}", humantime::format_rfc3339_seconds(started))?;
        writeln!(info, "Finished: {}", humantime::format_rfc3339_seconds(started + wall))?;
        writeln!(info, "Elapsed: {:.3} s", wall.as_secs_f64())?;
        if let Some(reason) = &s.stopped_early {
            writeln!(info, "Halted: {reason}")?;
        }
        for line in &summary {
            writeln!(info, "psychic: {line}")?;
        }
        info.flush()?;
        self.console.log.flush()?;
        Ok(Finished { tests: self.tests, errors: self.errors, summary })
    }
}

impl HaltObserver for TestWriter {
    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
        self.halted += 1;
        match self.write_test(path, cx) {
            Ok(()) => Control::Continue,
            Err(e) => {
                self.error.get_or_insert(e);
                Control::Stop
            }
        }
    }

    fn on_progress(&mut self, p: &Progress<'_>) -> Control {
        let elapsed = p.stats.elapsed;
        if self.last_stats_row.is_none_or(|t| elapsed >= t + STATS_INTERVAL)
            && let Err(e) = self.stats_row(p.stats, p.solver, p.live_states)
        {
            self.error.get_or_insert(e);
        }
        if !self.opts.progress || elapsed < PROGRESS_AFTER {
            return Control::Continue;
        }
        let bar = self.console.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
            bar
        });
        bar.set_message(format!(
            "{:.0}s: {} instructions, {} states, {} paths, {} tests, {} queries",
            elapsed.as_secs_f64(),
            p.stats.instructions,
            p.live_states,
            self.halted,
            self.tests,
            p.solver.queries
        ));
        bar.tick();
        Control::Continue
    }
}

/// Whether a progress line can be shown at all.
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// What a path printed under an assignment, event by event.
fn render_outputs(pool: &ExprPool, events: &[OutputEvent], a: &Assignment) -> Vec<(Stream, Vec<u8>)> {
    events.iter().map(|e| (e.stream(), e.render(pool, a))).collect()
}

/// An `.err` file, in KLEE's layout.
fn err_file(
    message: &str,
    location: &Option<crate::exec::Location>,
    stack: &[crate::exec::StackFrame],
) -> String {
    let mut s = format!("Error: {message}\n");
    match location {
        Some(l) => s.push_str(&format!("File: {}\nLine: {}\n", l.file, l.line)),
        None => s.push_str("File: (no debug information)\nLine: 0\n"),
    }
    s.push_str("Stack:\n");
    for (i, f) in stack.iter().enumerate() {
        match &f.location {
            Some(l) => s.push_str(&format!("\t#{i} in {} at {l}\n", f.function)),
            None => s.push_str(&format!("\t#{i} in {}\n", f.function)),
        }
    }
    s
}

/// The summary, KLEE's lines first.
fn summary(
    s: &RunSummary,
    tests: u64,
    wall: Duration,
    errors: &BTreeMap<String, u64>,
    lost: u64,
) -> Vec<String> {
    let st = &s.stats;
    let q = &s.solver;
    let rate = |c: crate::solver::CacheStats| {
        if c.lookups == 0 { 0.0 } else { 100.0 * c.hits as f64 / c.lookups as f64 }
    };
    let mut out = vec![
        format!("done: total instructions = {}", st.instructions),
        format!("done: completed paths = {}", klee_completed(st)),
        format!("done: partially completed paths = {}", klee_partial(st)),
        format!("done: generated tests = {tests}"),
    ];
    if !errors.is_empty() || lost > 0 {
        let mut parts: Vec<String> = errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if lost > 0 {
            parts.push(format!("{lost} paths without a test"));
        }
        out.push(format!("done: errors: {}", parts.join(", ")));
    }
    out.push(format!(
        "done: queries = {} (query cache {:.1}% hits, counterexample cache {:.1}% hits), Z3 calls = {}, solver time = {:.3} s",
        q.queries,
        rate(q.query_cache),
        rate(q.cex_cache),
        q.z3_calls(),
        q.total_time.as_secs_f64()
    ));
    out.extend(coverage_lines(&s.coverage));
    let peak = memory().map_or("unknown".to_string(), |m| format!("{} MiB", m.peak));
    out.push(format!("done: wall time = {:.3} s, peak memory = {peak}", wall.as_secs_f64()));
    out
}

/// What the exploration approximated: "exact" only when no path was.
fn coverage_lines(c: &crate::exec::Coverage) -> Vec<String> {
    let (exact, approximated) =
        c.revisions.iter().fold((0, 0), |(e, a), r| (e + r.exact, a + r.approximated));
    let mut out = vec![format!("done: paths explored exactly = {exact}, approximated = {approximated}")];
    out.extend(c.reasons(None).into_iter().map(|r| format!("done: approximated: {r}")));
    out
}

/// KLEE's "completed paths": those that exited (`exit` or a return from the
/// entry function).
pub fn klee_completed(s: &ExecStats) -> u64 {
    s.paths_exited
}

/// KLEE's "partially completed paths": errors, silent exits and paths ended
/// early by a limit.
pub fn klee_partial(s: &ExecStats) -> u64 {
    s.paths_errored + s.paths_silent + s.paths_early
}

/// Resident memory of this process in MiB, now and at its peak.
struct Memory {
    resident: u64,
    peak: u64,
}

/// From `/proc/self/status` (Linux).
fn memory() -> Option<Memory> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib / 1024)
    };
    Some(Memory { resident: field("VmRSS:")?, peak: field("VmHWM:")? })
}

/// The directory's absolute path, for messages.
pub fn display_dir(dir: &Path) -> String {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()).display().to_string()
}
