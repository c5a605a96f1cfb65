//! The differentiator: candidate tests from pairs of halted paths of different
//! revisions, confirmed at once by native replay.
//!
//! When a path halts, it is paired with every earlier halted path whose
//! revisions are disjoint from its own and that still holds a revision not yet
//! told apart from one of its own. For each such pair the solver looks for an
//! input that satisfies both path conditions and makes a selected output differ
//! ([`outputs::difference`]). The input becomes a ktest, which runs natively on
//! every revision; the outcomes split the revisions into classes, and every
//! pair in different classes counts as told apart from then on. Revisions that
//! share a path need no query among them: they behave alike on it.
//!
//! Per pair of halted paths: `difference` (a constant false needs no query); a
//! syntactic contradiction check of the two path conditions (a constraint of one
//! whose negation is in the other: no query); the input one path carries
//! (`HaltedPath::input`) if the other accepts it and the difference holds there
//! (no query; cross seeding makes this common); then one solver query
//! `PC_a ∧ PC_b ∧ diff` for the input bytes. Where that input may print alike
//! what the paths print by symbolic doubles, one more query with
//! `outputs::sharpened` (kept if satisfiable); if the engine's own rendering
//! (`outputs::alike_under`) still prints the same on the model, there is no
//! candidate but a `PairGap::PrintsAlike`. The model becomes a ktest, replayed at
//! once on every revision; if the two paths' revisions differ natively the test
//! is kept (`tests/testNNNNNN.ktest` in the output directory) and every revision
//! pair in different outcome classes is told apart from then on; otherwise it is
//! a disagreement (`disagreements/`). Groups whose revisions are told apart from
//! all others are dropped, and the run stops when every pair is told apart.
//!
//! Not compared, or not settled: a path that carries a path-ending approximation
//! (an unmodelled call, an unsupported instruction, a model gap: natively the
//! program goes on where the engine stopped) is not paired at all. Two paths
//! that both crash compare without stdout: natively it is a pipe, fully
//! buffered, and a crash loses what was not flushed (a `PairGap::Crash` where
//! the lost text can differ). A comparison that does not settle (the query
//! failed, the candidate did not replay, the paths read different inputs) is a
//! `PairGap` of every revision pair across the two paths
//! (`Differentiator::gaps`): those revisions, if no test tells them apart, are
//! not proved equivalent. Candidates whose path read uninitialised memory are
//! not replayed but seeded to fuzzing where it runs (`uninitialised_candidates`); a candidate
//! whose input was already replayed is skipped (`repeated_candidates`); one the
//! budget left no time for is `unreplayed_candidates` and a
//! `PairGap::Unreplayed`.
//!
//! Queries: a differential query first gets 100 ms; one that times out waits in
//! `Differentiator::retries` and is asked again with ten times the timeout (up
//! to the solver's own), so that exploration never waits long for one. During
//! exploration retries take at most a quarter of the time; `on_end` asks the
//! rest while the budget lasts, and a pair still waiting at the end has a
//! `PairGap::Solver`. Solver calls are counted and timed by kind (engine
//! branches, differential, seed models) in `report.json`'s `query_kinds`.
//!
//! From fuzzing and enumeration (through the session's `Exchange`, which holds
//! the fuzzer): a fuzz candidate replays like any candidate and is kept
//! (`FoundBy::Fuzzing`) if it tells apart a pair no test has told apart, else it
//! counts as `fuzz_redundant` (never a disagreement: the engine predicted
//! nothing). Every halted path's input (the one it followed, or a model of its
//! condition) is a seed for fuzzing, and every confirmed test's classes tell
//! fuzzing which pairs need no more tests. Enumeration's witnesses are confirmed
//! first (`FoundBy::Enumeration`), then its equal pairs become proofs
//! (`Differentiator::proved`) if it is a proof at all, text by text: a text
//! whose runs crashed or that native replay disagrees with proves nothing by
//! them, and runs natively on every input instead (`recheck`); an unfinished
//! enumeration compares only the revisions that ran every input.
//! `report.json`'s `stats.enumeration` is never absent where the program makes
//! `klee_make_symbolic` inputs: what it ran, or why it did not run
//! (`not_a_proof`: inputs of the symbolic environment, no fuzzing, the
//! engine's reason for no box, stdin, inputs made after the first branch, too
//! little budget left) or finish (`not_finished`). A proved pair counts as
//! settled in `done()`, so the run stops once every pair is told apart or
//! proved; a cluster whose pairs are all proved has no reasons against it. A
//! confirmed test that later tells a proved pair apart voids every proof of
//! the pair's texts.

pub mod confirm;
mod floats;
pub mod outputs;
mod pairs;
pub mod reach;
mod recheck;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cluster::Partition;
use crate::exec::{
    ApproxKind, Control, HaltContext, HaltObserver, HaltedPath, RevSet, SymbolicObject, Termination,
};
use crate::expr::ExprId;
use crate::ktest::KTest;
use crate::posix;

use confirm::{Observation, OutputSelection, ReplayLimits, TestInput};

#[derive(Debug, Clone)]
pub struct DiffConfig {
    pub outputs: OutputSelection,
    /// The limit of one native run.
    pub replay_timeout: Duration,
    /// The build each revision's second, perturbed run replays on
    /// (`confirm::Builds`); the replay build where `None`.
    pub perturbed: Option<PathBuf>,
    /// When the run's budget ends: no native run goes past it.
    pub deadline: Option<Instant>,
    /// Native runs at once.
    pub jobs: usize,
    /// `same_as[r]`: the first revision with revision r's text. Revisions of
    /// one text are one program: one replays for all (empty: all replay).
    pub same_as: Vec<usize>,
}

impl Default for DiffConfig {
    fn default() -> Self {
        DiffConfig {
            outputs: OutputSelection::default(),
            replay_timeout: Duration::from_secs(5),
            perturbed: None,
            deadline: None,
            jobs: 2,
            same_as: Vec::new(),
        }
    }
}

/// A test whose native replay showed the difference the engine predicted.
#[derive(Debug, Clone)]
pub struct ConfirmedTest {
    /// 1-based, in order of confirmation.
    pub id: usize,
    pub ktest_path: PathBuf,
    pub ktest: KTest,
    /// One per revision.
    pub observations: Vec<Observation>,
    /// The outcome class of each revision, and those whose class rests on
    /// an outcome known only in part.
    pub partition: Partition,
    /// The meta-branch sites on the two engine paths the test came from, in
    /// visit order: where the revisions' code on the diverging path differs.
    pub sites: Vec<u32>,
    /// Revisions whose outcome changed when replayed perturbed.
    pub nondeterministic: Vec<usize>,
    pub found_by: FoundBy,
}

/// The engine a test came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FoundBy {
    /// The differential query of two halted paths (or an input one of them
    /// already had).
    Symbolic,
    /// Native differential fuzzing (`crate::fuzz`).
    Fuzzing,
    /// Every input of the domain, run natively (`crate::fuzz::sweep`).
    Enumeration,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DiffStats {
    /// Halted paths kept for pairing (those that end with a test).
    pub halted: u64,
    /// Pairs of halted paths with disjoint revisions.
    pub pairs: u64,
    /// Pairs skipped because every revision pair across them was told apart.
    pub pairs_distinguished: u64,
    /// Pairs whose path conditions contradict each other syntactically.
    pub pairs_contradictory: u64,
    /// Pairs whose outputs are the same expressions: no query needed.
    pub pairs_identical: u64,
    /// Pairs told apart by an input one of the paths already had: no query.
    pub known_inputs: u64,
    pub queries: u64,
    pub queries_unsat: u64,
    pub solver_errors: u64,
    pub candidates: u64,
    pub confirmed: u64,
    /// Candidates of the engine replayed natively (not counting fuzzing's).
    pub replayed: u64,
    /// Candidates whose native runs did not differ where the engine said.
    pub disagreements: u64,
    /// Candidates the engine predicted on a path that read memory it never
    /// wrote (natively garbage, which it took as 0): not replayed as a
    /// difference, but handed to fuzzing, which runs them natively. (Without
    /// fuzzing they replay like any other.)
    pub uninitialised_candidates: u64,
    /// Candidates equal to one replayed before: not replayed again.
    pub repeated_candidates: u64,
    /// Candidates not replayed, or replayed only in part, before the
    /// budget ended.
    pub unreplayed_candidates: u64,
    /// Candidates whose two paths made different input objects.
    pub incompatible_inputs: u64,
    /// Fuzzing's candidates that told apart no pair not yet told apart when
    /// replayed (the fuzz build runs without AddressSanitizer, and another
    /// test may have told the pair apart meanwhile).
    pub fuzz_redundant: u64,
    /// Queries for a model of a halted path, to seed fuzzing with.
    pub seed_queries: u64,
    /// Differential queries that timed out at first and were put off, to be
    /// asked again with a longer timeout (each attempt counts in `queries`).
    pub queries_deferred: u64,
    /// Revision pairs proved equivalent when no state left could tell them
    /// apart, before exploration ended (`HaltObserver::proved_by_exploration`).
    pub pairs_proved_by_exploration: u64,
    /// Seconds in the solver for differential queries and for seeds.
    pub differential_seconds: f64,
    pub seed_seconds: f64,
}

/// Why a pair of revisions that no test tells apart is still not proved
/// equivalent: a comparison of two of their paths that did not settle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairGap {
    /// The differential query timed out or failed.
    Solver,
    /// The engine predicted a difference that native replay did not show:
    /// the input it chose was not one, but another might be.
    Disagreement,
    /// The two paths read different input objects, so no one input runs both.
    IncompatibleInputs,
    /// Both paths crash after printing different text to stdout, which a
    /// crash natively loses unless it was flushed: no test can tell.
    Crash,
    /// The budget ended before a candidate test was replayed.
    Unreplayed,
    /// Their doubles differ, but on no input found do they print different
    /// text (`%.2f` of two nearby values).
    PrintsAlike,
}

impl PairGap {
    pub fn describe(self) -> &'static str {
        match self {
            PairGap::Solver => "a differential query failed (solver timeout or unknown)",
            PairGap::Disagreement => "a candidate test did not replay natively",
            PairGap::IncompatibleInputs => "two of their paths read different inputs and were not compared",
            PairGap::Crash => "two of their paths crash after printing different text, which a crash loses",
            PairGap::Unreplayed => "a candidate test was not replayed before the budget ended",
            PairGap::PrintsAlike => {
                "two of their paths print doubles that differ, but no input was found on which their text does"
            }
        }
    }
}

/// Both paths' conditions, and `extra` if given: one query's literals.
fn both_conditions(h: &HaltedPath, g: &HaltedPath, extra: Option<ExprId>) -> Vec<ExprId> {
    let mut all = Vec::with_capacity(h.constraints.len() + g.constraints.len() + 1);
    all.extend_from_slice(&h.constraints);
    all.extend_from_slice(&g.constraints);
    all.extend(extra);
    all
}

/// The halt observer that generates and confirms differential tests.
pub struct Differentiator<'a> {
    cfg: DiffConfig,
    binary: &'a Path,
    revisions: usize,
    /// Where confirmed tests go (`testNNNNNN.ktest`), and where candidates
    /// that did not confirm go, for inspection.
    tests_dir: PathBuf,
    disagreements_dir: PathBuf,
    /// argv recorded in every ktest.
    program_args: Vec<String>,
    /// Halted paths kept for pairing, by the revisions that follow them, so
    /// that a whole group is skipped with one check.
    groups: Vec<Group>,
    /// Which pairs are told apart, which proved equivalent.
    pairs: pairs::Pairs,
    /// What enumeration did, or why it did not run.
    pub enumeration: Option<crate::fuzz::EnumerationStats>,
    /// Comparisons that did not settle, per pair of texts by their first
    /// revisions (`Pairs::between`).
    gaps: std::collections::BTreeMap<(u32, u32), std::collections::BTreeSet<PairGap>>,
    pub tests: Vec<ConfirmedTest>,
    pub stats: DiffStats,
    /// Which sites the paths of each revision reached, and where they ended.
    pub reach: reach::Reach,
    /// An I/O failure during confirmation; the run stops and reports it.
    pub error: Option<std::io::Error>,
    /// Time spent in native replay.
    pub confirm_time: Duration,
    limits: ReplayLimits,
    /// Hashes of the candidates replayed: an input is replayed once.
    replayed: std::collections::HashSet<u64>,
    saw_input: bool,
    /// Inputs for native fuzzing, while someone takes them (`take_seeds`):
    /// the halted paths' inputs, and candidates better run than replayed.
    seeds: Option<Vec<KTest>>,
    /// Differential queries that timed out, to be asked again with a longer
    /// timeout, so that exploration never waits long for one.
    retries: std::collections::VecDeque<Retry>,
    /// The timeout of the retry being asked; `None`: a first attempt.
    attempt: Option<Duration>,
    /// Time spent on retries during exploration, and when the run started:
    /// retries take at most a quarter of it.
    retry_time: Duration,
    started: std::time::Instant,
}

/// The first timeout of a differential query: most are answered well
/// within it, and one that is not waits in `Differentiator::retries`.
const FIRST_TIMEOUT: Duration = Duration::from_millis(100);

/// What became of a candidate sent to replay.
enum Replayed {
    /// Its file and every revision's observation.
    Ran(PathBuf, Vec<Observation>),
    /// The same input ran before.
    Before,
    /// The budget ended before every revision ran.
    OutOfTime,
}

/// A differential query to ask again.
struct Retry {
    h: HaltedPath,
    g: HaltedPath,
    timeout: Duration,
}

struct Group {
    revisions: RevSet,
    paths: Vec<HaltedPath>,
}

impl<'a> Differentiator<'a> {
    /// `binary` is the meta program's native build; ktests go under `out_dir`.
    pub fn new(
        cfg: DiffConfig,
        binary: &'a Path,
        revisions: usize,
        out_dir: &Path,
        program_args: Vec<String>,
    ) -> Self {
        let limits = ReplayLimits::new(cfg.replay_timeout, cfg.deadline);
        let pairs = pairs::Pairs::new(revisions, &cfg.same_as);
        Differentiator {
            cfg,
            binary,
            revisions,
            tests_dir: out_dir.join("tests"),
            disagreements_dir: out_dir.join("disagreements"),
            program_args,
            groups: Vec::new(),
            pairs,
            enumeration: None,
            gaps: Default::default(),
            tests: Vec::new(),
            stats: DiffStats::default(),
            reach: Default::default(),
            error: None,
            confirm_time: Duration::ZERO,
            limits,
            replayed: Default::default(),
            saw_input: false,
            seeds: None,
            retries: Default::default(),
            attempt: None,
            retry_time: Duration::ZERO,
            started: std::time::Instant::now(),
        }
    }

    /// From now on the halted paths' inputs (and the candidates that
    /// fuzzing should run rather than replay) wait in `take_seeds`.
    pub fn offer_seeds(&mut self) {
        self.seeds.get_or_insert_with(Vec::new);
    }

    /// The inputs for fuzzing since the last call.
    pub fn take_seeds(&mut self) -> Vec<KTest> {
        self.seeds.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Replays the tests fuzzing found and enumeration's witnesses; keeps
    /// those that tell apart a pair no test has told apart. Then takes
    /// enumeration's proofs.
    pub fn confirm_found(
        &mut self,
        found: Vec<KTest>,
        enumerated: Option<crate::fuzz::Enumeration>,
    ) -> std::io::Result<()> {
        let witnesses = enumerated.as_ref().map(|e| e.witnesses.clone()).unwrap_or_default();
        let tests = found.into_iter().map(|t| (t, FoundBy::Fuzzing));
        for (ktest, by) in witnesses.into_iter().map(|t| (t, FoundBy::Enumeration)).chain(tests) {
            self.try_found(ktest, by)?;
        }
        if let Some(e) = enumerated {
            for ktest in self.take_proofs(e)? {
                self.try_found(ktest, FoundBy::Enumeration)?;
            }
        }
        Ok(())
    }

    /// A test found outside exploration, kept if it tells apart a pair no
    /// test has.
    fn try_found(&mut self, ktest: KTest, by: FoundBy) -> std::io::Result<()> {
        if self.done() {
            return Ok(());
        }
        let Replayed::Ran(candidate, row) = self.replay(&ktest)? else { return Ok(()) };
        let p = confirm::partition(&row, self.cfg.outputs);
        if self.splits_new(&p) {
            self.keep(ktest, candidate, row, p, Vec::new(), by)
        } else {
            self.stats.fuzz_redundant += 1;
            std::fs::remove_file(&candidate)
        }
    }

    /// The clusters of the confirmed tests, where every split rests on what
    /// both sides showed whole (`cluster::settle`); each test's partition
    /// becomes the one the clusters follow.
    pub fn clusters(&mut self) -> Vec<Vec<usize>> {
        let mut partitions: Vec<Partition> = self.tests.iter().map(|t| t.partition.clone()).collect();
        let clusters = crate::cluster::settle(self.revisions, &mut partitions);
        for (t, p) in self.tests.iter_mut().zip(partitions) {
            t.partition = p;
        }
        clusters
    }

    /// Enumeration or exploration proved `a` and `b` equivalent on the
    /// whole domain.
    pub fn proved(&self, a: usize, b: usize) -> bool {
        self.pairs.proved(a, b)
    }

    /// No comparison of two paths failed to settle.
    pub fn no_gaps(&self) -> bool {
        self.gaps.is_empty()
    }

    /// Some path made a symbolic input: without one, there is nothing to vary.
    pub fn saw_input(&self) -> bool {
        self.saw_input
    }

    /// Every pair of revisions is told apart or proved equivalent: nothing
    /// more to learn.
    pub fn done(&self) -> bool {
        self.pairs.done()
    }

    /// Why revisions `a` and `b` are not proved equivalent by the comparisons
    /// made, if they are not told apart: empty when every comparison of their
    /// paths settled.
    pub fn gaps(&self, a: u32, b: u32) -> impl Iterator<Item = PairGap> + '_ {
        self.gaps.get(&self.pairs.key(a, b)).into_iter().flatten().copied()
    }

    /// Records a comparison of `x`'s and `y`'s paths that did not settle.
    fn gap(&mut self, x: &RevSet, y: &RevSet, gap: PairGap) {
        for pair in self.pairs.between(x, y) {
            self.gaps.entry(pair).or_default().insert(gap);
        }
    }

    /// How many revisions it tells apart.
    pub fn revisions(&self) -> usize {
        self.revisions
    }

    /// A confirmed test tells `a` and `b` apart.
    pub fn apart(&self, a: u32, b: u32) -> bool {
        self.pairs.apart(a as usize, b as usize)
    }

    /// Some revision of `x` is not yet told apart from some revision of `y`.
    fn worth_pairing(&self, x: &RevSet, y: &RevSet) -> bool {
        self.pairs.some_open(x, y)
    }

    /// Every revision of `revs` is told apart from every revision outside it:
    /// its paths can never pair usefully again.
    fn settled(&self, revs: &RevSet) -> bool {
        self.pairs.settled(revs)
    }

    /// A confirmed test that tells apart pairs proved equivalent shows that
    /// the runs behind those proofs were not the program's, as a
    /// disagreement found when enumeration's proofs were taken does
    /// (`recheck`): no proof of their texts stands, and the others do.
    fn record(&mut self, p: &Partition) {
        let voided = self.pairs.record(p);
        let Some(&(a, b)) = voided.first() else { return };
        let revs: Vec<usize> = voided.iter().flat_map(|&(a, b)| [a, b]).collect();
        self.pairs.void_proofs_of(&revs);
        if let Some(st) = &mut self.enumeration {
            let more = match voided.len() {
                1 => String::new(),
                n => format!(" (and {} more pairs)", n - 1),
            };
            let why = format!(
                "a confirmed test tells apart revisions {a} and {b}{more}, which were proved equal: no proof of theirs stands"
            );
            st.doubtful = Some(match st.doubtful.take() {
                Some(d) => format!("{d}; {why}"),
                None => why,
            });
        }
    }

    /// A candidate test for `h` against `g`: an input both paths accept on
    /// which a selected output differs, or `None`.
    fn candidate(&mut self, h: &HaltedPath, g: &HaltedPath, cx: &mut HaltContext<'_>) -> Option<KTest> {
        // Natively stdout is a pipe, fully buffered: what a crashing run
        // printed is lost unless flushed, so two crashes compare without it.
        let both_crash = matches!(
            (&h.termination, &g.termination),
            (Termination::Error { .. }, Termination::Error { .. })
        );
        let lost_stdout = both_crash && self.cfg.outputs.stdout;
        let outputs = OutputSelection { stdout: self.cfg.outputs.stdout && !both_crash, ..self.cfg.outputs };
        let diff = outputs::difference(cx.pool, h, g, outputs)?;
        if cx.pool.as_const(diff) == Some(0) {
            if lost_stdout {
                return self.lost_text(h, g, cx);
            }
            self.stats.pairs_identical += 1;
            return None;
        }
        if contradict(cx.pool, &h.constraints, &g.constraints) {
            self.stats.pairs_contradictory += 1;
            return None;
        }
        let Some(objects) = common_objects(&h.symbolics, &g.symbolics) else {
            self.stats.incompatible_inputs += 1;
            self.gap(&h.revisions, &g.revisions, PairGap::IncompatibleInputs);
            return None;
        };
        let model = match known_input(cx.pool, h, g, diff) {
            Some(input) => {
                self.stats.known_inputs += 1;
                objects.iter().map(|o| input.bytes_padded(o.array, o.size)).collect()
            }
            None => {
                let constraints = both_conditions(h, g, Some(diff));
                self.stats.queries += 1;
                let arrays: Vec<_> = objects.iter().map(|o| o.array).collect();
                let full = cx.solver.timeout();
                let this = self.attempt.unwrap_or(FIRST_TIMEOUT).min(full);
                cx.solver.set_timeout(this);
                let result = cx.solver.get_model(cx.pool, &constraints, &arrays);
                cx.solver.set_timeout(full);
                match result {
                    Ok(Some(model)) => model,
                    Ok(None) => {
                        self.stats.queries_unsat += 1;
                        if lost_stdout {
                            return self.lost_text(h, g, cx);
                        }
                        return None;
                    }
                    Err(crate::solver::SolverError::Timeout) if this < full => {
                        self.stats.queries_deferred += 1;
                        let timeout = (this * 10).min(full);
                        self.retries.push_back(Retry { h: h.clone(), g: g.clone(), timeout });
                        return None;
                    }
                    Err(_) => {
                        self.stats.solver_errors += 1;
                        self.gap(&h.revisions, &g.revisions, PairGap::Solver);
                        return None;
                    }
                }
            }
        };
        let model = self.sharpen(h, g, outputs, &objects, model, cx)?;
        self.stats.candidates += 1;
        Some(posix::path_ktest(self.program_args.clone(), &objects, model))
    }

    /// Two crashing paths alike in all but what stdout lost: a gap where the
    /// lost text can differ.
    fn lost_text(&mut self, h: &HaltedPath, g: &HaltedPath, cx: &mut HaltContext<'_>) -> Option<KTest> {
        let lost = outputs::difference(cx.pool, h, g, self.cfg.outputs)?;
        if cx.pool.as_const(lost) == Some(0) {
            self.stats.pairs_identical += 1;
            return None;
        }
        self.stats.queries += 1;
        match cx.solver.may_be_true(cx.pool, &both_conditions(h, g, None), lost) {
            Ok(false) => {
                self.stats.queries_unsat += 1;
                None
            }
            Ok(true) => {
                self.gap(&h.revisions, &g.revisions, PairGap::Crash);
                None
            }
            Err(_) => {
                self.stats.solver_errors += 1;
                self.gap(&h.revisions, &g.revisions, PairGap::Solver);
                None
            }
        }
    }

    /// A better input than `model` where it may print alike what the paths
    /// print by doubles (`outputs::sharpened`): one more query, for an input
    /// on which they print different text. The stronger condition is no
    /// proof, so where it fails `model` stands, unless the engine's own
    /// rendering says the paths print alike on it: then there is no
    /// candidate, and the pair has a gap (`PairGap::PrintsAlike`) instead of
    /// a test that would not replay.
    fn sharpen(
        &mut self,
        h: &HaltedPath,
        g: &HaltedPath,
        outputs: OutputSelection,
        objects: &[SymbolicObject],
        model: Vec<Vec<u8>>,
        cx: &mut HaltContext<'_>,
    ) -> Option<Vec<Vec<u8>>> {
        let assignment = |model: &[Vec<u8>]| {
            let mut at = crate::expr::Assignment::new();
            for (o, bytes) in objects.iter().zip(model) {
                at.set_bytes(o.array, bytes);
            }
            at
        };
        let at = assignment(&model);
        let Some(sharp) = outputs::sharpened(cx.pool, h, g, outputs, &at) else { return Some(model) };
        if cx.pool.eval(sharp, &at) != 0 {
            return Some(model);
        }
        self.stats.queries += 1;
        let arrays: Vec<_> = objects.iter().map(|o| o.array).collect();
        let model = match cx.solver.get_model(cx.pool, &both_conditions(h, g, Some(sharp)), &arrays) {
            Ok(Some(better)) => better,
            Ok(None) => {
                self.stats.queries_unsat += 1;
                model
            }
            Err(_) => {
                self.stats.solver_errors += 1;
                model
            }
        };
        if outputs::alike_under(cx.pool, h, g, outputs, &assignment(&model)) {
            self.gap(&h.revisions, &g.revisions, PairGap::PrintsAlike);
            return None;
        }
        Some(model)
    }

    /// The candidate of paths `h` and `g`: replayed as a difference, unless
    /// either path read memory it never wrote. The engine took that garbage
    /// as 0, so what it predicts there is what the program does on one
    /// value of the garbage among many: fuzzing, where it runs, gets the
    /// input instead, and runs it natively on every revision, where a
    /// difference that garbage does not decide shows as one. Without
    /// fuzzing it replays like any candidate (the perturbed run keeps what
    /// garbage decides from separating).
    fn propose(&mut self, h: &HaltedPath, g: &HaltedPath, ktest: KTest) -> std::io::Result<()> {
        let made_up = |p: &HaltedPath| p.approximations.iter().any(|a| a.kind == ApproxKind::Uninitialised);
        if (made_up(h) || made_up(g))
            && let Some(seeds) = &mut self.seeds
        {
            self.stats.uninitialised_candidates += 1;
            seeds.push(ktest);
            return Ok(());
        }
        self.confirm(ktest, &h.revisions, &g.revisions, union(&h.sites, &g.sites))
    }

    /// Replays `ktest` on every revision; keeps it if the revisions of `x` and
    /// `y` differ natively as predicted.
    /// A refuted candidate whose runs still tell apart a pair no test has
    /// is kept as a test too: what it tells apart replayed. (So an input
    /// replayed before can tell apart no pair that is not told apart yet.)
    fn confirm(&mut self, ktest: KTest, x: &RevSet, y: &RevSet, sites: Vec<u32>) -> std::io::Result<()> {
        let (candidate, row) = match self.replay(&ktest)? {
            Replayed::Ran(candidate, row) => (candidate, row),
            Replayed::Before => {
                // Its runs told `x` and `y` apart no more then than now.
                self.gap(x, y, PairGap::Disagreement);
                return Ok(());
            }
            Replayed::OutOfTime => {
                self.gap(x, y, PairGap::Unreplayed);
                return Ok(());
            }
        };
        self.stats.replayed += 1;
        let p = confirm::partition(&row, self.cfg.outputs);
        let confirmed = x.iter().any(|a| y.iter().any(|b| p.apart(a as usize, b as usize)));
        if confirmed {
            return self.keep(ktest, candidate, row, p, sites, FoundBy::Symbolic);
        }
        self.stats.disagreements += 1;
        self.gap(x, y, PairGap::Disagreement);
        if self.splits_new(&p) {
            // Not on the paths' sites: on pairs the query was not about.
            return self.keep(ktest, candidate, row, p, Vec::new(), FoundBy::Symbolic);
        }
        std::fs::create_dir_all(&self.disagreements_dir)?;
        let name = format!("candidate{:06}.ktest", self.stats.candidates);
        std::fs::rename(&candidate, self.disagreements_dir.join(name))
    }

    /// `p` tells apart a pair no confirmed test has.
    fn splits_new(&self, p: &Partition) -> bool {
        self.pairs.splits_new(p)
    }

    /// Writes `ktest` as a candidate and replays it on every revision,
    /// unless it was replayed before or the budget ended before every
    /// revision ran (the candidate file is then gone).
    fn replay(&mut self, ktest: &KTest) -> std::io::Result<Replayed> {
        let hash = input_hash(ktest);
        if self.replayed.contains(&hash) {
            self.stats.repeated_candidates += 1;
            return Ok(Replayed::Before);
        }
        std::fs::create_dir_all(&self.tests_dir)?;
        let candidate = self.tests_dir.join(format!(".candidate{}.ktest", self.stats.candidates));
        ktest.write(&candidate).map_err(std::io::Error::other)?;
        let input = TestInput { ktest: candidate.clone(), env: posix::replay_env(ktest) };
        let started = Instant::now();
        let builds = confirm::Builds { replay: self.binary, perturbed: self.cfg.perturbed.as_deref() };
        let row = confirm::replay_within(
            builds,
            self.revisions,
            &self.cfg.same_as,
            &[input],
            &self.limits,
            self.cfg.jobs,
        )?
        .pop()
        .expect("one test in, one row out");
        self.confirm_time += started.elapsed();
        match row {
            Some(row) => {
                self.replayed.insert(hash);
                Ok(Replayed::Ran(candidate, row))
            }
            None => {
                self.stats.unreplayed_candidates += 1;
                std::fs::remove_file(&candidate)?;
                Ok(Replayed::OutOfTime)
            }
        }
    }

    /// A confirmed test: `candidate` becomes `testNNNNNN.ktest`.
    fn keep(
        &mut self,
        ktest: KTest,
        candidate: PathBuf,
        row: Vec<Observation>,
        partition: Partition,
        sites: Vec<u32>,
        found_by: FoundBy,
    ) -> std::io::Result<()> {
        self.stats.confirmed += 1;
        let id = self.tests.len() + 1;
        let path = self.tests_dir.join(format!("test{id:06}.ktest"));
        std::fs::rename(&candidate, &path)?;
        self.record(&partition);
        let nondeterministic =
            (0..row.len()).filter(|&r| row[r].nondeterministic_under(self.cfg.outputs)).collect();
        self.tests.push(ConfirmedTest {
            id,
            ktest_path: path,
            ktest,
            observations: row,
            partition,
            sites,
            nondeterministic,
            found_by,
        });
        Ok(())
    }

    /// `HaltObserver::on_halt`, with `between` run before each comparison
    /// of the path with a kept one: one halt may pair with thousands of
    /// paths, and what fuzzing and enumeration found meanwhile may settle
    /// their pairs (a finished enumeration settles every pair).
    pub fn halt_with(
        &mut self,
        path: &HaltedPath,
        cx: &mut HaltContext<'_>,
        between: &mut Between<'_, 'a>,
    ) -> Control {
        self.saw_input |= !path.symbolics.is_empty();
        let args = &self.program_args;
        self.reach.record(path, || {
            let input = path.input.as_ref()?;
            let bytes = path.symbolics.iter().map(|o| input.bytes_padded(o.array, o.size)).collect();
            Some(posix::path_ktest(args.clone(), &path.symbolics, bytes))
        });
        let before = cx.solver.stats().total_time;
        self.seed_fuzzer(path, cx);
        let seeded = cx.solver.stats().total_time;
        self.stats.seed_seconds += (seeded - before).as_secs_f64();
        // A path the engine could not follow to its end (an unmodelled call,
        // an unsupported instruction) ends where the native program does not:
        // its termination is no behaviour to compare. Its revisions' clusters
        // say so through the coverage.
        let engine_end = path.approximations.iter().any(|a| a.kind.ends_path());
        if engine_end || matches!(path.termination, Termination::Silent | Termination::Early { .. }) {
            return Control::Continue;
        }
        self.stats.halted += 1;
        for gi in 0..self.groups.len() {
            let revs = self.groups[gi].revisions.clone();
            if self.done() {
                break;
            }
            if !path.revisions.disjoint(&revs) {
                continue;
            }
            if !self.worth_pairing(&path.revisions, &revs) {
                self.stats.pairs_distinguished += self.groups[gi].paths.len() as u64;
                continue;
            }
            if let Err(e) = self.pair_with_group(path, gi, cx, between) {
                self.error = Some(e);
                return Control::Stop;
            }
        }
        while !self.retries.is_empty() && self.retry_time < self.started.elapsed() / 4 && !self.done() {
            if let Err(e) = self.retry_one(cx) {
                self.error = Some(e);
                return Control::Stop;
            }
        }
        self.stats.differential_seconds += (cx.solver.stats().total_time - seeded).as_secs_f64();
        // Groups told apart from every other revision are done with: their
        // paths are dropped, and a new path of theirs is not kept.
        let settled: Vec<bool> = self.groups.iter().map(|g| self.settled(&g.revisions)).collect();
        let mut flags = settled.into_iter();
        self.groups.retain(|_| !flags.next().unwrap_or(false));
        if !self.settled(&path.revisions) {
            match self.groups.iter_mut().find(|g| g.revisions == path.revisions) {
                Some(g) => g.paths.push(path.clone()),
                None => {
                    self.groups.push(Group { revisions: path.revisions.clone(), paths: vec![path.clone()] })
                }
            }
        }
        if self.done() { Control::Stop } else { Control::Continue }
    }

    /// Pairs `path` with the kept paths of group `gi`, while that can still
    /// tell revisions apart.
    fn pair_with_group(
        &mut self,
        path: &HaltedPath,
        gi: usize,
        cx: &mut HaltContext<'_>,
        between: &mut Between<'_, 'a>,
    ) -> std::io::Result<()> {
        let revs = self.groups[gi].revisions.clone();
        // Detached while we pair, so that confirming may update `self`.
        let kept = std::mem::take(&mut self.groups[gi].paths);
        let mut result = Ok(());
        for g in &kept {
            if let Err(e) = between(self) {
                result = Err(e);
                break;
            }
            if self.done() || !self.worth_pairing(&path.revisions, &revs) {
                break;
            }
            self.stats.pairs += 1;
            if let Some(ktest) = self.candidate(path, g, cx)
                && let Err(e) = self.propose(path, g, ktest)
            {
                result = Err(e);
                break;
            }
        }
        self.groups[gi].paths = kept;
        result
    }
}

/// What runs between two comparisons of a halt (`Differentiator::halt_with`).
pub type Between<'b, 'a> = dyn FnMut(&mut Differentiator<'a>) -> std::io::Result<()> + 'b;

impl Differentiator<'_> {
    /// The put-off differential queries, while the budget lasts; those left
    /// are gaps of their pairs. `between` runs before each (what fuzzing
    /// found meanwhile may settle the pairs they are for).
    pub fn end_with(
        &mut self,
        cx: &mut HaltContext<'_>,
        mut between: impl FnMut(&mut Self) -> std::io::Result<()>,
    ) {
        let before = cx.solver.stats().total_time;
        // Exploration no longer waits: each put-off query gets the full
        // timeout at once, not another short attempt the budget may not fit.
        let full = cx.solver.timeout();
        for r in &mut self.retries {
            r.timeout = full;
        }
        while !self.retries.is_empty() && !self.done() && !cx.solver.past_deadline() && self.error.is_none() {
            if let Err(e) = between(self).and_then(|()| self.retry_one(cx)) {
                self.error = Some(e);
            }
        }
        for r in std::mem::take(&mut self.retries) {
            if self.worth_pairing(&r.h.revisions, &r.g.revisions) {
                self.stats.solver_errors += 1;
                self.gap(&r.h.revisions, &r.g.revisions, PairGap::Solver);
            }
        }
        self.stats.differential_seconds += (cx.solver.stats().total_time - before).as_secs_f64();
    }
}

impl HaltObserver for Differentiator<'_> {
    fn on_end(&mut self, cx: &mut HaltContext<'_>) {
        self.end_with(cx, |_| Ok(()));
    }

    /// Alone, a differentiator has no fuzzer to enumerate the domain with.
    fn on_domain(&mut self, domain: Result<&crate::exec::InputDomain, &str>) {
        let why = domain.err().unwrap_or("no fuzzing");
        self.enumeration = Some(crate::fuzz::EnumerationStats::not_run(domain.ok(), why));
    }

    fn open_pairs(&mut self) -> Option<Vec<(u32, u32)>> {
        if !self.retries.is_empty() {
            return None;
        }
        // A pair with a gap is open for good; the gaps are few, the pairs
        // millions.
        let gap_open =
            self.gaps.keys().any(|&(a, b)| !self.apart(a, b) && !self.pairs.proved(a as usize, b as usize));
        (!gap_open).then(|| self.pairs.open())
    }

    fn proved_by_exploration(&mut self, pairs: &[(u32, u32)]) {
        for &(a, b) in pairs {
            if self.pairs.prove(a as usize, b as usize) {
                self.stats.pairs_proved_by_exploration += 1;
            }
        }
    }

    /// Exploration may not halt a path for a long while: a run whose pairs
    /// were all settled meanwhile (by fuzzing's tests) stops here.
    fn on_progress(&mut self, _: &crate::exec::Progress<'_>) -> Control {
        if self.done() { Control::Stop } else { Control::Continue }
    }

    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
        self.halt_with(path, cx, &mut |_| Ok(()))
    }
}

impl Differentiator<'_> {
    /// Asks the first put-off differential query again, if its pair is still
    /// worth it.
    fn retry_one(&mut self, cx: &mut HaltContext<'_>) -> std::io::Result<()> {
        let Some(r) = self.retries.pop_front() else { return Ok(()) };
        if !self.worth_pairing(&r.h.revisions, &r.g.revisions) {
            return Ok(());
        }
        let started = std::time::Instant::now();
        self.attempt = Some(r.timeout);
        let candidate = self.candidate(&r.h, &r.g, cx);
        self.attempt = None;
        self.retry_time += started.elapsed();
        match candidate {
            Some(ktest) => self.propose(&r.h, &r.g, ktest),
            None => Ok(()),
        }
    }

    /// The path's input, as a seed for fuzzing: the one it followed, or a
    /// model of its condition (one query, mostly answered by the caches).
    fn seed_fuzzer(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) {
        // Past the deadline fuzzing has stopped too, and the budget's end
        // halts every live state at once: tens of thousands of models for
        // nobody would overrun --max-time by seconds.
        if cx.solver.past_deadline() {
            return;
        }
        let Some(seeds) = &mut self.seeds else { return };
        let bytes = match &path.input {
            Some(input) => path.symbolics.iter().map(|o| input.bytes_padded(o.array, o.size)).collect(),
            None => {
                let arrays: Vec<_> = path.symbolics.iter().map(|o| o.array).collect();
                self.stats.seed_queries += 1;
                match cx.solver.get_model(cx.pool, &path.constraints, &arrays) {
                    Ok(Some(model)) => model,
                    _ => return,
                }
            }
        };
        seeds.push(posix::path_ktest(self.program_args.clone(), &path.symbolics, bytes));
    }
}

/// Some constraint of one path is the negation of a constraint of the other:
/// the paths share no input, and the solver need not be asked. Revisions
/// branch on the same hash-consed conditions, so this is common.
fn contradict(pool: &mut crate::expr::ExprPool, a: &[ExprId], b: &[ExprId]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let set: std::collections::HashSet<ExprId> = long.iter().copied().collect();
    short.iter().any(|&c| {
        let n = pool.bool_not(c);
        set.contains(&n)
    })
}

/// An input of one path (`HaltedPath::input`) that the other path accepts
/// and on which their outputs differ (`diff` holds): a candidate without the
/// solver. Cross seeding makes such pairs common: a seeded path runs on the
/// input of a path of other revisions.
fn known_input<'p>(
    pool: &crate::expr::ExprPool,
    h: &'p HaltedPath,
    g: &'p HaltedPath,
    diff: ExprId,
) -> Option<&'p crate::expr::Assignment> {
    [(h, g), (g, h)].into_iter().find_map(|(x, y)| {
        let input = x.input.as_ref()?;
        let mut eval = crate::expr::Evaluator::new(pool, input);
        let mut holds = |c: &ExprId| eval.eval(*c) != 0;
        (holds(&diff) && y.constraints.iter().all(holds)).then_some(input)
    })
}

/// `a` then the sites of `b` that `a` lacks.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = a.to_vec();
    out.extend(b.iter().filter(|s| !a.contains(s)));
    out
}

/// The input objects of a test that both paths accept: one path's sequence must
/// be a prefix of the other's (the same arrays at the same positions); the
/// longer one is the test's.
fn common_objects(a: &[SymbolicObject], b: &[SymbolicObject]) -> Option<Vec<SymbolicObject>> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    (long[..short.len()] == *short).then(|| long.to_vec())
}

/// The inputs of a test, hashed: two candidates with equal hashes run alike.
fn input_hash(k: &KTest) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    k.args.hash(&mut h);
    for o in &k.objects {
        o.name.hash(&mut h);
        o.bytes.hash(&mut h);
    }
    h.finish()
}
