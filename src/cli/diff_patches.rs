//! `psychic diff-patches`: unify, compile, explore with the differentiator,
//! cluster, report — the whole pipeline in one command.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::exec_args::{self, EnvArgs, ExecArgs};
use super::outdir;
use super::progress::{Progress, Tracked};
use crate::cluster::{self, SearchBudget};
use crate::compile::{NativeOptions, Toolchain};
use crate::diff::confirm::OutputSelection;
use crate::diff::{ConfirmedTest, DiffConfig, Differentiator};
use crate::exec::{self, ExecConfig, Executor, SearchKind};
use crate::ir::Module;
use crate::posix;
use crate::report::{self, Report, diagnostics};
use crate::unify;

/// Find inputs on which candidate patches behave differently, cluster the
/// patches by behaviour, and build a decision tree of tests.
#[derive(Args)]
#[command(after_help = "Revision 0 is ORIG; revision k is the k-th patch in command-line order (files first,
then diffs).

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
per test and outcome class that differs from the original's, with notes at the meta-branch sites
of the diverging path in each revision's own file:
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
  psychic replay out/meta.native out/tests/test000001.ktest --revision 2")]
pub struct DiffPatchesArgs {
    /// The original program: revision 0.
    orig: PathBuf,
    /// Patched versions of ORIG: revisions 1, 2, ...
    revisions: Vec<PathBuf>,
    /// A unified diff against ORIG; repeatable. Applied after the files.
    #[arg(long = "diff", value_name = "PATCH")]
    diffs: Vec<PathBuf>,
    /// Where results go (default: psychic-out-N, with psychic-last linking to it).
    #[arg(long, short = 'o', value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// The behaviour compared between revisions, a comma-separated list of:
    /// stdout, stderr, exit (status and crashes), annotations (psychic_output),
    /// functions (the return value of every function whose body differs
    /// between revisions, and what it leaves behind its non-const pointer
    /// parameters, recorded at each return as `ret!NAME` and `arg!NAME!PARAM`).
    #[arg(long, value_delimiter = ',', default_value = "stdout,exit,annotations")]
    outputs: Vec<OutputKind>,
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
    let mut times = report::StageTimes::default();
    if let Some(p) = &a.sarif {
        check_writable(p)?;
    }
    let words = a.env.words(&a.words)?;
    let entry = posix::entry_point(&words, "main").map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut progress = Progress::on_stderr(!a.quiet);

    let sources = unify::load(&a.orig, &a.revisions, &a.diffs)?;
    let n = sources.len();
    let stage = Instant::now();
    progress.stage("compile", format!("clang: checking {n} revisions"));
    let orig_dir =
        a.orig.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    // The meta program lives in the output directory; its quoted includes are
    // the original's.
    let tc = Toolchain::discover()?
        .with_flags(a.clang_flags.iter().map(String::as_str))
        .with_flags([std::ffi::OsString::from("-I"), orig_dir.into_os_string()]);
    // clang first: what it refuses, its own message explains best.
    check_revisions_compile(&tc, &sources)?;
    let checked = stage.elapsed().as_secs_f64();

    let unified = Instant::now();
    progress.stage("unify", format!("merging {n} revisions"));
    let meta = unify::unify(&sources)?;
    times.unify = unified.elapsed().as_secs_f64();
    // The compile stage's time counts the check before unify too.
    let stage = Instant::now() - Duration::from_secs_f64(checked);
    progress.stage("compile", format!("clang: the meta program ({} sites)", meta.sites.len()));
    let out = outdir::create(a.output_dir.as_deref())?;
    progress.set_budget(a.exec.max_time.and_then(|s| Duration::try_from_secs_f64(s).ok()));
    let run = Program { words, entry };
    let result =
        explore_and_report(&a, &run, &tc, &sources, &meta, &out.path, &progress, start, &mut times, stage);
    if result.is_err() {
        out.discard();
    }
    result
}

/// The command line the meta program runs with, and where it starts.
struct Program {
    words: Vec<String>,
    entry: String,
}

#[allow(clippy::too_many_arguments)]
fn explore_and_report(
    a: &DiffPatchesArgs,
    run: &Program,
    tc: &Toolchain,
    sources: &[unify::RevisionSource],
    meta: &unify::MetaProgram,
    out: &Path,
    progress: &Progress,
    start: Instant,
    times: &mut report::StageTimes,
    stage: Instant,
) -> Result<ExitCode> {
    let n = meta.revisions.len();
    let meta_c = out.join("meta.c");
    let text = if a.outputs.contains(&OutputKind::Functions) {
        let (text, notes) = unify::instrument::function_outputs(meta);
        for n in notes {
            eprintln!("psychic: warning: {n}");
        }
        text
    } else {
        meta.text.clone()
    };
    std::fs::write(&meta_c, unify::encode(&text)).with_context(|| format!("writing {}", meta_c.display()))?;
    let meta_bc = out.join("meta.bc");
    let native = out.join("meta.native");
    tc.bitcode(&meta_c, &meta_bc).context(
        "the meta program does not compile, but every revision does: this is a bug in psychic's unify stage",
    )?;
    let perturbed = out.join("meta.perturbed");
    let fuzz_server = out.join("meta.fuzz");
    let mut no_fuzzing = if a.no_fuzz {
        Some("--no-fuzz")
    } else if !fuzzable(&run.words, &run.entry) {
        Some("symbolic arguments or files, which only the engine feeds")
    } else {
        None
    };
    // The native builds are independent: two at once.
    let (replay_build, perturbed_build, fuzz_build) = std::thread::scope(|s| {
        let sanitize = !a.no_asan;
        let fuzz_build = s.spawn(|| no_fuzzing.is_none().then(|| tc.fuzz_server(&meta_c, &fuzz_server)));
        let replay = tc.native(&meta_c, &native, &NativeOptions { sanitize, ..Default::default() });
        let perturbed = tc.native(&meta_c, &perturbed, &NativeOptions { sanitize, pattern_init: true });
        (replay, perturbed, fuzz_build.join().expect("clang runs do not panic"))
    });
    replay_build?;
    perturbed_build?;
    if let Some(Err(e)) = fuzz_build {
        // The engine needs no fuzzing: go on without it, and say so.
        eprintln!("psychic: warning: no fuzzing: the fuzz build failed: {e}");
        no_fuzzing = Some("the fuzz build failed");
    }
    let fuzz = no_fuzzing.is_none();
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    let libc = tc.libc_model_bitcode(scratch.path())?;
    times.compile = stage.elapsed().as_secs_f64();

    let stage = Instant::now();
    let libc: Vec<&Path> = libc.iter().map(PathBuf::as_path).collect();
    let module = Module::load_linked(&meta_bc, &libc)?;
    let interrupt = exec_args::interrupt_on_ctrl_c();
    let argv: Vec<String> = std::iter::once("meta.bc".to_string()).chain(run.words.iter().cloned()).collect();
    let mut cfg = ExecConfig {
        entry: run.entry.clone(),
        argv: argv.clone(),
        keep_paths: false,
        cross_seed: true,
        revisions: Some(n as u32),
        interrupt: Some(interrupt),
        site_variants: meta
            .sites
            .iter()
            .map(|site| {
                let variants = site.variants.iter().map(|v| {
                    let mut set = exec::RevSet::empty();
                    v.revisions.iter().for_each(|&r| set.insert(r as u32));
                    set
                });
                (site.id as u32, variants.collect())
            })
            .collect(),
        ..ExecConfig::default()
    };
    a.exec.apply(&mut cfg, SearchKind::Parallel)?;
    let user_tests = match &a.tests {
        Some(dir) => read_tests(dir, &argv)?,
        None => Vec::new(),
    };
    // ktests seed the engine too; stdin texts only fuzzing, as the engine's
    // stdin model has no text to follow.
    cfg.seeds.extend(
        user_tests.iter().filter(|t| t.objects.iter().any(|o| !o.name.starts_with("stdin"))).cloned(),
    );
    // --max-time bounds the whole command: unify and compile took their share.
    cfg.budget_start = Some(start);
    let dcfg = DiffConfig {
        outputs: selection(&a.outputs),
        replay_timeout: Duration::try_from_secs_f64(a.replay_timeout).map_err(|_| {
            anyhow::anyhow!("--replay-timeout {}: expected a positive number of seconds", a.replay_timeout)
        })?,
        perturbed: Some(perturbed),
        deadline: a.exec.max_time.map(|s| start + Duration::from_secs_f64(s)),
        jobs: a.jobs.max(1),
        same_as: sources
            .iter()
            .map(|s| sources.iter().position(|o| o.text == s.text).unwrap_or(s.index))
            .collect(),
    };
    let fuzz_cfg = crate::fuzz::FuzzConfig {
        server: fuzz_server,
        argv: argv.clone(),
        revisions: n,
        same_as: dcfg.same_as.clone(),
        outputs: dcfg.outputs,
        run_timeout: dcfg.replay_timeout.min(Duration::from_secs(1)),
        constants: crate::fuzz::Constants::of_program(&meta.text),
        seed: 0x5053_5943,
        deadline: a.exec.max_time.map(|s| start + Duration::from_secs_f64(s)),
        enumeration_proof: match Module::declarations(&meta_bc) {
            Ok(f) => crate::fuzz::sweep::proof_blocker(&f),
            Err(e) => Some(e.to_string()),
        },
        engine: posix::seed_shape(&run.words).map(|shape| (exec::SeedInbox::default(), shape)),
        tests: user_tests,
        sites: meta.sites.iter().map(|s| s.id as u32 + 1).max().unwrap_or(0),
    };
    let mut diff = Differentiator::new(dcfg, &native, n, out, argv);
    if run.entry == posix::POSIX_ENTRY {
        diff.without_enumeration(
            "the inputs are the symbolic environment's (stdin, arguments, files), not klee_make_symbolic objects",
        );
    } else if let Some(why) = no_fuzzing {
        diff.without_enumeration(&format!("no fuzzing ({why})"));
    }
    if fuzz {
        cfg.seed_inbox = fuzz_cfg.engine.as_ref().map(|(inbox, _)| inbox.clone());
        diff.attach_fuzzer(crate::fuzz::Fuzzer::start(fuzz_cfg));
    } else if !fuzz_cfg.tests.is_empty() && !a.quiet {
        eprintln!(
            "psychic: warning: --tests seeds fuzzing, which does not run here (--no-fuzz, or symbolic arguments or files)"
        );
    }
    progress.stage("explore", "starting");
    let summary = {
        let mut ex = Executor::new(&module, cfg)?;
        let tracked = Tracked::new(&mut diff, progress, |d: &&mut Differentiator| {
            let classes: Vec<Vec<u32>> = d.tests.iter().map(|t| t.partition.classes.clone()).collect();
            let (tests, clusters) = (d.tests.len(), cluster::clusters(n, &classes).len());
            format!(
                "{tests} test{}, {clusters} cluster{}",
                if tests == 1 { "" } else { "s" },
                if clusters == 1 { "" } else { "s" }
            )
        });
        ex.set_observer(Box::new(tracked));
        ex.run()
    };
    let exact =
        summary.stopped_early.is_none() && summary.coverage.reasons(None).is_empty() && diff.no_gaps();
    if !exact {
        let deadline = a.exec.max_time.map(|s| start + Duration::from_secs_f64(s));
        fuzz_on(&mut diff, deadline, Duration::from_secs_f64(a.fuzz_stall.max(0.0)), progress);
    }
    let fuzzing = diff.finish_fuzzing().map(|f| crate::fuzz::FuzzStats {
        engine_seeds: summary.stats.inbox_seeds,
        engine_states: summary.stats.inbox_seeded,
        engine_paths: summary.stats.inbox_paths,
        ..f
    });
    times.explore = stage.elapsed().as_secs_f64();
    if let Some(e) = diff.error.take() {
        return Err(e).context("native confirmation failed");
    }
    // A budget spent before exploration met an input proves nothing either way.
    if !diff.saw_input() && summary.stopped_early.is_none() {
        bail!(
            "{}: the program makes no symbolic input (no klee_make_symbolic, klee_int or klee_range \
             on any path), so every revision runs on one fixed input; mark the inputs symbolic",
            a.orig.display()
        );
    }

    let stage = Instant::now();
    progress.stage("cluster", format!("{} tests: clusters and the decision tree", diff.tests.len()));
    let clusters = diff.clusters();
    let classes: Vec<Vec<u32>> = diff.tests.iter().map(|t| t.partition.classes.clone()).collect();
    let tree = cluster::decision_tree(&clusters, &classes, SearchBudget::default());
    let separating =
        (clusters.len() > 1).then(|| cluster::separating_set(&clusters, &classes, SearchBudget::default()));
    times.cluster = stage.elapsed().as_secs_f64();
    times.confirm = diff.confirm_time.as_secs_f64();
    times.explore -= times.confirm;
    times.total = start.elapsed().as_secs_f64();

    let stats = &summary.stats;
    let solver = &summary.solver;
    let report = Report {
        psychic_version: env!("CARGO_PKG_VERSION").into(),
        revisions: meta
            .revisions
            .iter()
            .map(|r| report::Revision {
                index: r.index,
                name: r.name.clone(),
                path: r.path.display().to_string(),
                patched: None,
            })
            .collect(),
        tests: diff.tests.iter().map(|t| report_test(t, out)).collect(),
        decision_tree: tree.as_ref().and_then(|t| report::TreeNode::from_tree(&t.value, &clusters)),
        separating_tests: separating
            .as_ref()
            .map(|s| s.value.iter().map(|&i| diff.tests[i].id).collect())
            .unwrap_or_default(),
        clusters,
        cluster_verdicts: Vec::new(),
        coverage: summary.coverage.clone(),
        domain: posix::domain(&run.words),
        stats: report::Stats {
            seconds: times.clone(),
            instructions: stats.instructions,
            states: stats.states_created,
            paths_completed: stats.completed_paths(),
            paths_partial: stats.paths_early,
            queries: solver.queries,
            query_cache_hits: solver.query_cache.hits,
            cex_cache_hits: solver.cex_cache.hits,
            solver_seconds: solver.total_time.as_secs_f64(),
            candidate_tests: diff.stats.candidates,
            confirmed_tests: diff.stats.confirmed,
            disagreements: diff.stats.disagreements,
            candidates_replayed: diff.stats.replayed,
            refuted_share: diff.stats.disagreements as f64 / diff.stats.replayed.max(1) as f64,
            uninitialised_candidates: diff.stats.uninitialised_candidates,
            unreplayed_candidates: diff.stats.unreplayed_candidates,
            tree_optimal: tree.as_ref().is_none_or(|t| t.optimal),
            separating_optimal: separating.as_ref().is_none_or(|s| s.optimal),
            query_kinds: query_kinds(solver, stats, &diff.stats),
            fuzzing,
            merging: report::MergeStats {
                groups: stats.merge_groups,
                expired: stats.merge_groups_expired,
                merged_states: stats.merged_states,
            },
            deferred_branch_queries: stats.deferred_queries,
            pairs_proved_by_exploration: diff.stats.pairs_proved_by_exploration,
            enumeration: diff.enumeration.clone(),
            ..report::Stats::default()
        },
    };
    // Decision-tree test ids are indices into the confirmed tests; the report
    // names tests by id.
    let mut report = renumber_tree(report, &diff.tests);
    progress.stage("report", format!("writing {}", out.display()));
    write_patched(&mut report, sources, out)?;
    let mut plain = plain_runner(a, tc, &meta_c, &native, out);
    judge(&mut report, &diff, sources, meta, &meta_c, out, summary.stopped_early.as_deref(), &mut plain);
    report.write_files(out, meta).with_context(|| format!("writing the report into {}", out.display()))?;
    let files = report.files(out);
    let findings = diagnostics::findings(&report, meta, &files);
    if let Some(path) = &a.sarif {
        let cwd = std::env::current_dir().context("reading the current directory")?;
        let log = report::sarif::sarif(&report, &findings, &files, &cwd);
        report::write_atomic(path, log.as_bytes())
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    progress.finish();
    let on_terminal = std::io::stderr().is_terminal();
    let gcc = match a.diagnostics {
        Diagnostics::Gcc => true,
        Diagnostics::Auto => on_terminal && !a.quiet,
        Diagnostics::Off => false,
    };
    if gcc {
        eprint!("{}", diagnostics::gcc(&findings, on_terminal && console::colors_enabled_stderr()));
    }
    if !a.quiet {
        print!("{}", report::summary(&report));
        println!("results: {}", out.display());
        if report.stats.partial {
            eprintln!(
                "psychic: warning: partial answer: {} (see coverage in {})",
                report.stats.partial_reasons.join("; "),
                out.join("report.json").display()
            );
        }
    }
    if a.fail_on_diff && report.clusters.len() > 1 {
        return Ok(ExitCode::from(EXIT_DIFFERENT));
    }
    if a.fail_on_incomplete && report.stats.partial {
        return Ok(ExitCode::from(EXIT_INCOMPLETE));
    }
    Ok(ExitCode::SUCCESS)
}

fn query_kinds(
    solver: &crate::solver::SolverStats,
    engine: &crate::exec::ExecStats,
    d: &crate::diff::DiffStats,
) -> report::QueryKinds {
    let kind = |queries, seconds| report::QueryKind { queries, seconds };
    let (diff, seed, merge) = (d.differential_seconds, d.seed_seconds, engine.merge_time.as_secs_f64());
    report::QueryKinds {
        branch: kind(
            solver.queries.saturating_sub(d.queries + d.seed_queries + engine.merge_queries),
            (solver.total_time.as_secs_f64() - diff - seed - merge).max(0.0),
        ),
        differential: kind(d.queries, diff),
        seed: kind(d.seed_queries, seed),
        merge: kind(engine.merge_queries, merge),
    }
}

/// The user's tests in `dir` (sorted by name): ktests as they are, any other
/// file as the text of stdin, with the run's command line.
fn read_tests(dir: &Path, argv: &[String]) -> Result<Vec<crate::ktest::KTest>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("--tests {}: cannot read the directory", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).with_context(|| format!("{}: cannot read", f.display()))?;
            if bytes.starts_with(b"KTEST") || bytes.starts_with(b"BOUT\n") {
                return crate::ktest::KTest::parse(&bytes)
                    .map_err(|(at, e)| anyhow::anyhow!("{}: byte {at}: not a ktest: {e}", f.display()));
            }
            let objects = posix::stdin_objects(&bytes).to_vec();
            Ok(crate::ktest::KTest { args: argv.to_vec(), sym_argvs: 0, sym_argv_len: 0, objects })
        })
        .collect()
}

/// Whether fuzzing can run the program: the fuzz server calls `main` with
/// concrete arguments and feeds stdin and the `klee_make_symbolic` objects,
/// so symbolic arguments and files are the engine's alone.
fn fuzzable(words: &[String], entry: &str) -> bool {
    (entry == "main" || entry == posix::POSIX_ENTRY)
        && posix::parse_words(words).is_ok_and(|ws| {
            ws.iter().all(|w| {
                matches!(
                    w,
                    posix::Word::Concrete(_) | posix::Word::SymStdin { .. } | posix::Word::StdinModel(_)
                )
            })
        })
}

/// Fuzzing alone, after exploration: until every pair is told apart, the
/// budget ends, or the corpus has not grown for `stall`. Without a budget
/// (`--max-time`), fuzzing ends with exploration.
fn fuzz_on(diff: &mut Differentiator, deadline: Option<Instant>, stall: Duration, progress: &Progress) {
    let Some(deadline) = deadline else { return };
    if diff.fuzzer().is_none() || Instant::now() >= deadline {
        return;
    }
    progress.stage("fuzz", "exploration ended; fuzzing on");
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if let Err(e) = diff.confirm_fuzzed() {
            diff.error.get_or_insert(e);
            return;
        }
        let Some(f) = diff.fuzzer() else { return };
        if diff.done() || f.is_finished() || f.stalled_for() >= stall || Instant::now() >= deadline {
            return;
        }
    }
}

/// Runs a ktest on one revision of the meta program built without
/// AddressSanitizer (built on first use; the replay build itself with
/// --no-asan).
fn plain_runner<'a>(
    a: &'a DiffPatchesArgs,
    tc: &'a Toolchain,
    meta_c: &'a Path,
    native: &'a Path,
    out: &'a Path,
) -> impl FnMut(&crate::ktest::KTest, usize) -> Option<crate::replay::Outcome> + 'a {
    let plain = out.join("meta.plain");
    let mut built = None;
    move |k, r| {
        let bin = if a.no_asan {
            native.to_path_buf()
        } else {
            if *built.get_or_insert_with(|| tc.native(meta_c, &plain, &NativeOptions::default()).is_ok()) {
                plain.clone()
            } else {
                return None;
            }
        };
        let file = tempfile::NamedTempFile::new().ok()?;
        k.write(file.path()).ok()?;
        let mut req = crate::replay::Request::new(&bin, Some(file.path()), r);
        req.env = posix::replay_env(k);
        req.timeout = Duration::from_secs_f64(a.replay_timeout);
        crate::replay::run(&req).ok()
    }
}

/// The verdict of each cluster, and whether (and why) the answer is partial.
/// A cluster is a proof only if its revisions have the same text, or every
/// path of its revisions was exact, every comparison between them settled,
/// and some path of each pair ran the code where they differ.
#[allow(clippy::too_many_arguments)]
fn judge(
    report: &mut Report,
    diff: &Differentiator,
    sources: &[unify::RevisionSource],
    meta: &unify::MetaProgram,
    meta_c: &Path,
    out: &Path,
    stopped: Option<&str>,
    plain: &mut crate::diff::reach::PlainRun<'_>,
) {
    // Approximations are located in meta.c; a reviewer reads each revision's own file.
    let meta_c = std::fs::canonicalize(meta_c).ok();
    let in_meta = |file: &str| meta_c.is_some() && std::fs::canonicalize(file).ok() == meta_c;
    let files = report.files(out);
    report.coverage.map_locations(|r, l| {
        let origins = if in_meta(&l.file) { meta.origins(l.line as usize) } else { Vec::new() };
        origins.into_iter().find(|o| o.revision == r as usize).map(|o| exec::Location {
            file: files[r as usize].clone(),
            line: o.line as u32,
            col: 0,
        })
    });
    let coverage = &report.coverage;
    let locate = |l: &exec::Location, r: usize| {
        let origin = if in_meta(&l.file) { meta.origins(l.line as usize) } else { Vec::new() };
        match origin.into_iter().find(|o| o.revision == r) {
            Some(o) => format!("{}:{}", files[r], o.line),
            None => l.to_string(),
        }
    };
    // Pairs of one cluster whose differing code no path of both ran.
    let mut unreached = |c: &[usize]| -> Vec<String> {
        let mut pairs = c.iter().enumerate().flat_map(|(i, &a)| c[i + 1..].iter().map(move |&b| (a, b)));
        let open: Vec<(usize, usize, Vec<&unify::Site>)> = pairs
            .by_ref()
            .map(|(a, b)| (a, b, differing_sites(meta, a, b)))
            .filter(|(a, b, sites)| {
                let ids: Vec<u32> = sites.iter().map(|s| s.id as u32).collect();
                !sites.is_empty() && !diff.reach.reached(*a, *b, &ids)
            })
            .collect();
        let Some((a, b, sites)) = open.first() else { return Vec::new() };
        let site = describe_site(sites[0], *a, &files);
        let mut why = diff.reach.unreached(*a, *b, &site, &locate, plain);
        if open.len() > 1 {
            why.push_str(&format!(" (and {} more pairs of this cluster)", open.len() - 1));
        }
        vec![why]
    };
    // Comparisons that did not settle between revisions of one cluster.
    let gaps = |c: &[usize]| {
        let mut by_gap = std::collections::BTreeMap::new();
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                for g in diff.gaps(a as u32, b as u32) {
                    by_gap.entry(g).or_insert_with(Vec::new).push(format!("{a}-{b}"));
                }
            }
        }
        by_gap.into_iter().map(|(g, pairs)| format!("{} (revisions {})", g.describe(), pairs.join(", ")))
    };
    report.cluster_verdicts = cluster::verdicts(&report.clusters, |c| {
        // The same text is the same program, whatever the engine saw of it.
        if c.iter().all(|&r| sources[r].text == sources[c[0]].text) {
            return Vec::new();
        }
        let unreached = unreached(c);
        // Every input of the domain ran alike on them.
        if c.iter().all(|&a| c.iter().all(|&b| a == b || diff.proved(a, b))) {
            return unreached;
        }
        let partial = partial_outcomes(report, c);
        coverage.reasons(Some(c)).into_iter().chain(gaps(c)).chain(partial).chain(unreached).collect()
    });
    // Partial: anything was cut or approximated, unless every pair of
    // revisions is told apart, where nothing is left to miss.
    let mut reasons: Vec<String> = Vec::new();
    if !diff.done() {
        reasons.extend(stopped.map(|stop| format!("exploration stopped: {stop}")));
        reasons.extend(coverage.reasons(None));
        reasons.extend(report.clusters.iter().flat_map(|c| gaps(c)));
    }
    // A cluster that is no proof for a reason of its own (a pair whose
    // differing code no path ran, an outcome known only in part).
    for why in report.cluster_verdicts.iter().flat_map(|v| &v.reasons) {
        if !reasons.contains(why) {
            reasons.push(why.clone());
        }
    }
    let st = &mut report.stats;
    st.partial = !reasons.is_empty();
    st.partial_reason = st.partial.then(|| reasons.join("; "));
    st.partial_reasons = reasons;
}

/// The sites where revisions `a` and `b` run different code.
fn differing_sites(meta: &unify::MetaProgram, a: usize, b: usize) -> Vec<&unify::Site> {
    let variant = |s: &unify::Site, r: usize| s.variants.iter().position(|v| v.revisions.contains(&r));
    meta.sites
        .iter()
        .filter(|s| matches!((variant(s, a), variant(s, b)), (Some(x), Some(y)) if x != y))
        .collect()
}

/// "site 3 in grade, fix3.c:13": where revision `r`'s code at the site is.
fn describe_site(site: &unify::Site, r: usize, files: &[String]) -> String {
    let span = site.variants.iter().flat_map(|v| &v.code).find(|c| c.revision == r);
    match span {
        Some(c) => format!("site {} in {}, {}:{}", site.id, site.function, files[r], c.start.line),
        None => format!("site {} in {}", site.id, site.function),
    }
}

/// A cluster's revisions whose outcome on some test was known only in part:
/// they are in it by what they showed, which is no proof. One line per test
/// and way of being partial.
fn partial_outcomes(report: &Report, cluster: &[usize]) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &report.tests {
        let mut groups: Vec<(cluster::Partial, &[usize], Vec<usize>)> = Vec::new();
        for p in t.partial.iter().filter(|p| cluster.contains(&p.revision)) {
            match groups.iter_mut().find(|(why, alike, _)| *why == p.why && *alike == p.alike.as_slice()) {
                Some((_, _, revs)) => revs.push(p.revision),
                None => groups.push((p.why, &p.alike, vec![p.revision])),
            }
        }
        lines.extend(groups.into_iter().map(|(why, alike, revisions)| {
            format!("on test #{}, {}", t.id, report::partial_line(&revisions, why, alike))
        }));
    }
    lines
}

/// Revisions given as diffs exist only in memory: their patched text goes to
/// `OUT/revisions/K/NAME`, so that source positions in them can be opened.
fn write_patched(report: &mut Report, sources: &[unify::RevisionSource], out: &Path) -> Result<()> {
    for (s, r) in sources.iter().zip(&mut report.revisions) {
        if on_disk(s) {
            continue;
        }
        let name = sources[0].path.file_name().unwrap_or("revision.c".as_ref());
        let rel = Path::new("revisions").join(s.index.to_string()).join(name);
        let path = out.join(&rel);
        std::fs::create_dir_all(path.parent().expect("has a parent"))
            .and_then(|()| std::fs::write(&path, unify::encode(&s.text)))
            .with_context(|| format!("{}: cannot write", path.display()))?;
        r.patched = Some(rel.display().to_string());
    }
    Ok(())
}

/// The revision's text is its file's (it was not made by applying a diff).
fn on_disk(s: &unify::RevisionSource) -> bool {
    s.path.is_file() && std::fs::read(&s.path).is_ok_and(|t| t == unify::encode(&s.text))
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

/// The tree refers to tests by their index among the confirmed tests; the
/// report by id.
fn renumber_tree(mut report: Report, tests: &[ConfirmedTest]) -> Report {
    fn walk(node: &mut report::TreeNode, tests: &[ConfirmedTest]) {
        node.test = tests[node.test].id;
        for b in &mut node.branches {
            if let Some(sub) = b.subtree.as_deref_mut() {
                walk(sub, tests);
            }
        }
    }
    if let Some(t) = report.decision_tree.as_mut() {
        walk(t, tests);
    }
    report
}

fn report_test(t: &ConfirmedTest, out: &Path) -> report::Test {
    let p = &t.partition;
    let classes = p.classes.iter().copied().max().map_or(0, |m| m as usize + 1);
    let members = |c: u32| (0..p.classes.len()).filter(move |&r| p.classes[r] == c);
    let outcomes = (0..classes)
        .map(|c| {
            let revisions: Vec<usize> = members(c as u32).collect();
            // What the class shows is what a revision in it showed whole.
            let whole = revisions.iter().find(|&&r| !p.loose.iter().any(|l| l.revision == r));
            let first = &t.observations[*whole.unwrap_or(&revisions[0])];
            report::Outcome {
                revisions,
                stdout: String::from_utf8_lossy(&first.outcome.stdout).into_owned(),
                exit_status: first.outcome.exit_status,
                signal: first.outcome.signal,
                timed_out: first.outcome.timed_out,
                annotations: first.annotations.clone(),
            }
        })
        .collect();
    report::Test {
        id: t.id,
        ktest: t.ktest_path.strip_prefix(out).unwrap_or(&t.ktest_path).display().to_string(),
        inputs: t.ktest.objects.iter().map(report::Input::from_object).collect(),
        outcomes,
        sites: t.sites.clone(),
        nondeterministic: t.nondeterministic.clone(),
        partial: p
            .loose
            .iter()
            .map(|l| {
                let mut alike: Vec<usize> = l.alike.iter().flat_map(|&c| members(c)).collect();
                alike.sort_unstable();
                report::PartialOutcome { revision: l.revision, why: l.why, alike }
            })
            .collect(),
        found_by: t.found_by,
    }
}

/// Every revision must compile on its own; a failure names the revision and
/// gives clang's message. (The meta program is checked afterwards.)
fn check_revisions_compile(tc: &Toolchain, sources: &[unify::RevisionSource]) -> Result<()> {
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    for s in sources {
        // Patched text from a diff exists only in memory: check it under the
        // original's file name, so clang's messages read naturally.
        let file = if on_disk(s) {
            s.path.clone()
        } else {
            let dir = scratch.path().join(format!("rev{}", s.index));
            std::fs::create_dir_all(&dir)?;
            let f = dir.join(s.path.file_name().unwrap_or("revision.c".as_ref()));
            std::fs::write(&f, unify::encode(&s.text))?;
            f
        };
        tc.syntax_check(&file).with_context(|| format!("revision {} ({})", s.index, s.name))?;
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
