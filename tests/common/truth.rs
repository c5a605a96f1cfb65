//! The ground-truth corpus of `diff-patches`: patch sets generated as repair
//! tools make them ([`mutate::truth_set`] over [`mutate::TRUTH_BASES`]), each
//! with its true partition, found by running every revision's own file
//! natively on every input of the (small, `klee_assume`d) input domain.
//!
//! Shared by the test suite (`tests/truth.rs`, a sample) and the benchmarks
//! (`benches/truth.rs`, the whole corpus; `benches/sharing.rs`,
//! `benches/apply_meta_branch.rs`). Only generators and seeds are stored.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use psychic::ktest::KTest;
use psychic::report::Report;

use super::mutate::{self, Base, TRUTH_BASES};
use super::{NativeOutcome, native_outcomes, partition};

/// Patch set `i` of the corpus uses base `i % TRUTH_BASES.len()` and seed
/// `SEED + i`.
pub const SEED: u64 = 40_000;

/// The number of sets `benches/truth.rs` runs by default.
pub const CORPUS: usize = 128;

pub struct PatchSet {
    /// `base#i`.
    pub name: String,
    pub base: &'static Base,
    /// Revision texts; 0 is the base.
    pub revisions: Vec<String>,
}

/// Patch set `i` of the corpus.
pub fn patch_set(i: usize) -> PatchSet {
    let base = &TRUTH_BASES[i % TRUTH_BASES.len()];
    PatchSet {
        name: format!("{}#{i}", base.name),
        base,
        revisions: mutate::truth_set(base.source, SEED + i as u64),
    }
}

/// A set of `size` revisions over the base named `base` (for the benchmarks
/// that need many revisions; its seed lies outside the corpus').
pub fn large_set(base: &str, size: usize) -> PatchSet {
    let base = TRUTH_BASES.iter().find(|b| b.name == base).unwrap_or_else(|| panic!("no base {base}"));
    PatchSet {
        name: format!("{}*{size}", base.name),
        base,
        revisions: mutate::truth_set_sized(base.source, SEED - size as u64, size),
    }
}

/// The sets and the budget (seconds) a bench's command line names: `--only
/// I,J` (default: `benchmark_sets`) and `--max-time S` (default 60).
pub fn bench_selection() -> (Vec<PatchSet>, f64) {
    let mut only: Option<Vec<usize>> = None;
    let mut max_time = 60.0;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--only" => only = Some(it.next().unwrap().split(',').map(|v| v.parse().unwrap()).collect()),
            "--max-time" => max_time = it.next().unwrap().parse().unwrap(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let sets = match only {
        Some(list) => list.into_iter().map(patch_set).collect(),
        None => benchmark_sets(),
    };
    (sets, max_time)
}

/// The sets the comparison benchmarks run: for each base, its largest set
/// among the first 44 of the corpus, and a set of 25 revisions.
pub fn benchmark_sets() -> Vec<PatchSet> {
    let bases = TRUTH_BASES.len();
    let mut sets: Vec<PatchSet> = (0..bases)
        .map(|b| {
            (0..4).map(|k| patch_set(b + k * bases)).max_by_key(|s| s.revisions.len()).expect("four sets")
        })
        .collect();
    sets.push(large_set("grade", 25));
    sets
}

impl PatchSet {
    /// Writes the revisions into `dir` as `orig.c`, `p1.c`, ...
    pub fn write(&self, dir: &Path) -> Vec<PathBuf> {
        self.revisions
            .iter()
            .enumerate()
            .map(|(k, text)| {
                let p = dir.join(if k == 0 { "orig.c".to_string() } else { format!("p{k}.c") });
                std::fs::write(&p, text).unwrap();
                p
            })
            .collect()
    }

    /// Every input of the domain.
    pub fn domain(&self) -> Vec<KTest> {
        mutate::domain(self.base.inputs)
    }
}

/// The true behaviour of a patch set.
pub struct Truth {
    pub domain: Vec<KTest>,
    /// `[revision][input]`.
    pub outcomes: Vec<Vec<NativeOutcome>>,
    pub partition: Vec<Vec<usize>>,
}

/// Runs every revision (`files`) on every input of the domain.
pub fn ground_truth(set: &PatchSet, files: &[PathBuf]) -> Truth {
    let domain = set.domain();
    let outcomes = native_outcomes(files, &domain);
    // An input the assumptions exclude exits with 120 natively: the declared
    // domain would be wider than the program's.
    let outside = outcomes[0].iter().position(|o| o.1 == Some(psychic::runtime::STATUS_ASSUME_VIOLATED));
    if let Some(t) = outside {
        panic!("{}: input {:?} of the declared domain violates klee_assume", set.name, domain[t]);
    }
    let partition = partition(&outcomes);
    Truth { domain, outcomes, partition }
}

impl Truth {
    /// Pairs of revisions that behave alike although their texts differ:
    /// the pairs a wrong split could hit.
    pub fn alike_pairs(&self, texts: &[String]) -> usize {
        self.partition
            .iter()
            .map(|c| {
                let mut n = 0;
                for (i, &a) in c.iter().enumerate() {
                    n += c[i + 1..].iter().filter(|&&b| texts[a] != texts[b]).count();
                }
                n
            })
            .sum()
    }

    /// The fewest inputs on which two clusters differ: how rare the rarest
    /// difference is.
    pub fn rarest_difference(&self) -> Option<usize> {
        let reps: Vec<usize> = self.partition.iter().map(|c| c[0]).collect();
        let mut rarest = None;
        for (i, &a) in reps.iter().enumerate() {
            for &b in &reps[i + 1..] {
                let n =
                    (0..self.domain.len()).filter(|&t| self.outcomes[a][t] != self.outcomes[b][t]).count();
                rarest = Some(rarest.map_or(n, |r: usize| r.min(n)));
            }
        }
        rarest
    }

    /// An input on which revisions `a` and `b` behave differently.
    pub fn witness(&self, a: usize, b: usize) -> Option<&KTest> {
        (0..self.domain.len()).find(|&t| self.outcomes[a][t] != self.outcomes[b][t]).map(|t| &self.domain[t])
    }
}

/// One `psychic diff-patches` run.
pub struct Run {
    pub report: Report,
    pub wall: Duration,
}

/// Runs the pipeline (`session::run`) as `psychic diff-patches` would on
/// `files`, into `dir/out`, with `extra` flags.
pub fn diff_patches(files: &[PathBuf], dir: &Path, extra: &[&str]) -> Run {
    let start = Instant::now();
    let out = dir.join("out");
    let files: Vec<String> = files.iter().map(|f| dir.join(f).display().to_string()).collect();
    let mut words = vec!["-o", out.to_str().expect("a UTF-8 path")];
    words.extend(files.iter().map(String::as_str));
    words.extend(extra);
    let plan = psychic::cli::diff_patches_plan(&words).unwrap_or_else(|e| panic!("{e}"));
    let run = psychic::session::run(&plan, &psychic::session::Unwatched).unwrap_or_else(|e| panic!("{e:#}"));
    Run { report: run.report, wall: start.elapsed() }
}

/// Every input of a reported test lies in the domain (psychic explores the
/// `klee_assume`d domain; a test outside it would mean the declared domain
/// and the program's disagree).
pub fn tests_in_domain(report: &Report, domain: &[KTest]) -> bool {
    report.tests.iter().all(|t| {
        domain.iter().any(|d| {
            d.objects.len() == t.inputs.len()
                && d.objects.iter().zip(&t.inputs).all(|(o, i)| {
                    o.name == i.name
                        && o.bytes.iter().map(|b| format!("{b:02x}")).collect::<String>() == i.hex
                })
        })
    })
}

// The pipeline through the library, for the benchmarks that compare ways of
// exploring.

/// A meta program built as `diff-patches` builds it.
pub struct Meta {
    pub module: psychic::ir::Module,
    /// The native build, with AddressSanitizer.
    pub native: PathBuf,
    pub revisions: usize,
}

/// The libc model as bitcode, built once.
fn libc_model() -> &'static [PathBuf] {
    static LIBC: std::sync::OnceLock<(Vec<PathBuf>, tempfile::TempDir)> = std::sync::OnceLock::new();
    &LIBC
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            (super::toolchain().libc_model_bitcode(dir.path()).unwrap(), dir)
        })
        .0
}

/// `file` as bitcode in `dir`, linked with the libc model.
pub fn load(file: &Path, dir: &Path) -> psychic::ir::Module {
    let bc = dir.join(file.file_stem().unwrap()).with_extension("bc");
    super::toolchain().bitcode(file, &bc).unwrap_or_else(|e| panic!("{e}"));
    let libc: Vec<&Path> = libc_model().iter().map(PathBuf::as_path).collect();
    psychic::ir::Module::load_linked(&bc, &libc).unwrap_or_else(|e| panic!("{e}"))
}

/// Unifies `files` and builds the meta program in `dir`.
pub fn build_meta(files: &[PathBuf], dir: &Path) -> Meta {
    let sources = psychic::unify::load(&files[0], &files[1..], &[]).unwrap();
    let meta = psychic::unify::unify(&sources).unwrap();
    let c = dir.join("meta.c");
    std::fs::write(&c, &meta.text).unwrap();
    let native = dir.join("meta.native");
    let opts = psychic::compile::NativeOptions { sanitize: true, ..Default::default() };
    super::toolchain().native(&c, &native, &opts).unwrap_or_else(|e| panic!("{e}"));
    Meta { module: load(&c, dir), native, revisions: files.len() }
}

/// What one exploration did.
pub struct Exploration {
    pub stats: psychic::exec::ExecStats,
    pub solver_queries: u64,
    pub wall: Duration,
    /// The partition from the confirmed tests, with the differentiator.
    pub partition: Option<Vec<Vec<usize>>>,
    pub confirmed: usize,
    pub stopped_early: Option<String>,
}

/// Explores the meta program with `cfg` (revisions and search set as
/// `diff-patches` sets them), with the differentiator as halt observer when
/// `differentiate`, writing its tests under `dir`.
pub fn explore_meta(
    meta: &Meta,
    mut cfg: psychic::exec::ExecConfig,
    differentiate: bool,
    dir: &Path,
) -> Exploration {
    use psychic::diff::{DiffConfig, Differentiator};
    cfg.revisions = Some(meta.revisions as u32);
    cfg.keep_paths = false;
    let mut diff = Differentiator::new(DiffConfig::default(), &meta.native, meta.revisions, dir, vec![]);
    let start = Instant::now();
    let summary = {
        let mut ex = psychic::exec::Executor::new(&meta.module, cfg).unwrap();
        if differentiate {
            ex.set_observer(Box::new(&mut diff));
        }
        ex.run()
    };
    let wall = start.elapsed();
    assert!(diff.error.is_none(), "{:?}", diff.error);
    let partition = differentiate.then(|| diff.clusters());
    Exploration {
        stats: summary.stats,
        // The differentiator asks the engine's solver: its queries are counted there.
        solver_queries: summary.solver.queries,
        wall,
        partition,
        confirmed: diff.tests.len(),
        stopped_early: summary.stopped_early,
    }
}

/// Replays every test of a report whose inputs are `klee_make_symbolic`
/// objects on the revisions' own builds (`files`, through the fork server):
/// the revisions must fall into exactly the outcome classes the report
/// records, with the recorded stdout and status, and no test may lie outside
/// the `klee_assume`d domain (status 120 natively). One line per test that
/// does not.
pub fn replay_mismatches(report: &Report, out_dir: &Path, files: &[PathBuf]) -> Vec<String> {
    let tests: Vec<KTest> =
        report.tests.iter().map(|t| KTest::read(&out_dir.join(&t.ktest)).unwrap()).collect();
    if tests.is_empty() {
        return Vec::new();
    }
    let native = native_outcomes(files, &tests);
    let mut bad = Vec::new();
    for (i, t) in report.tests.iter().enumerate() {
        if native.iter().any(|rev| rev[i].1 == Some(psychic::runtime::STATUS_ASSUME_VIOLATED)) {
            bad.push(format!("test {}: {:?} lies outside the domain", t.id, tests[i].objects));
            continue;
        }
        for o in &t.outcomes {
            for &r in &o.revisions {
                let n = &native[r][i];
                let members = (0..files.len()).filter(|&q| native[q][i] == *n).count();
                let same_class =
                    o.revisions.iter().all(|&q| native[q][i] == *n) && members == o.revisions.len();
                if !same_class
                    || String::from_utf8_lossy(&n.0) != o.stdout
                    || n.1 != o.exit_status
                    || n.2 != o.signal
                {
                    bad.push(format!(
                        "test {} on {:?}, revision {r}: report says exit {:?} stdout {:?} with {:?}; its own \
                         build gives exit {:?} signal {:?} stdout {:?}",
                        t.id,
                        tests[i].objects,
                        o.exit_status,
                        o.stdout,
                        o.revisions,
                        n.1,
                        n.2,
                        String::from_utf8_lossy(&n.0)
                    ));
                }
            }
        }
    }
    bad
}
