//! Native differential fuzzing beside symbolic execution.
//!
//! A thread runs LibAFL's fuzzing loop against the fuzz server
//! ([`server::Server`]): one process of the meta program's fuzz build that runs
//! every revision text on each input, in a fork of its own (revisions of one
//! text are one program: [`FuzzConfig::texts`]). An input is kept when it
//! covers a new edge of some revision (the coverage map the children share)
//! or tells apart a pair of texts that no kept input told apart (the pair
//! map, written here from the runs' outcomes: per pair of texts, as 10,000
//! revisions would make every input walk 100 million pairs). An input that
//! tells apart a pair the whole run has not yet told apart waits as a ktest
//! ([`Fuzzer::take_found`]) for the session to hand it to the differentiator,
//! which confirms it by native replay like any candidate.
//!
//! Mutations know the input's shape ([`mutate`]); the corpus starts from a
//! zero input and takes the engine's path inputs, the newest when they come
//! faster than it runs them ([`Fuzzer::seed`]).
//! The other way round, every input a mutation adds to the corpus is offered
//! to the engine as a seed (`FuzzConfig::engine`): hybrid fuzzing, each engine
//! taking the other's inputs.
//!
//! The thread runs from the start of exploration to its end, and on, alone,
//! while `--max-time` lasts and its corpus keeps growing, when exploration left
//! the answer partial. LibAFL's `StdFuzzer` with a `QueueScheduler`, an
//! in-memory corpus, and two `MaxMapFeedback`s: the shared edge map (edges hashed
//! with the revision: a new edge of any revision counts) and the pair map.
//! `DiffExecutor` runs the server; an input outside the `klee_assume`d domain
//! (status 120 on every revision) counts for nothing; an input that tells apart a
//! pair the run has not becomes a candidate ktest (at most three per pair).
//! A run's stdin is the input's tail cut to the command line's `--sym-stdin
//! N`, and empty without it, as the engine's is
//! (`mutate::Layout::split`): a test outside the report's domain would
//! separate revisions that a proof over that domain calls equivalent.
//!
//! Hybrid fuzzing: every input a mutation adds to the corpus is offered to the
//! engine's `SeedInbox` as a ktest of its objects as it enters (`ToEngine`, a
//! feedback that finds nothing interesting itself: LibAFL tells every feedback
//! what it keeps, and a round of mutations runs hundreds of inputs). The
//! engine's own inputs, which it has followed, are not offered back. The fuzzer
//! reaches code behind a program's constants (a tag, a magic number) that the
//! engine's search meets late, and the engine, led there, solves the conditions
//! no mutation guesses. The engine's inputs lie as `posix::SeedShape` says: the
//! program's objects alone, or, with stdin read byte by byte
//! (`--stdin-model bytes`), the environment's `stdin` of N bytes (the text cut
//! or padded with spaces: the engine's stdin is exactly N), its stat and
//! `model_version` first, as `__psychic_posix_main` makes them. In token mode a
//! text maps to nothing the engine makes up front (tokens are made as scanf
//! runs), and symbolic arguments are not offered (the fuzzer's slots,
//! `posix::ArgSlots`, become the engine's objects only in a ktest): those
//! runs get nothing from this half (a gap in speed, not in what is explored:
//! a seed only orders the search). The engine's counts come back into `FuzzStats`
//! (`engine_seeds`, `engine_states`, `engine_paths`). The engine's path inputs
//! come the other way through a `SeedInbox` too, the newest 64, which the fuzzer
//! runs before each round of mutations (the user's `--tests` first, all of
//! them): an engine halts paths far faster than the fuzzer runs inputs, and
//! running every queued one would starve mutation and overrun the deadline
//! (`benches/README.md`, single fixtures).
//!
//! Why LibAFL: the fork-per-revision model that programs which exit, crash and
//! keep global state need is the fuzz server's own; LibAFL supplies the rest
//! (corpus, scheduling, feedbacks, havoc) as a library inside psychic, with
//! custom executors, feedbacks and mutators as first-class parts. libFuzzer runs
//! its target in-process (an `exit` or a crash ends the fuzzer, globals leak
//! from one run into the next, and coverage in a forked child is lost), and
//! AFL++ is a separate program whose Debian package brings its own LLVM;
//! neither takes a differential feedback. `fuzz` knows nothing of `diff`: it is
//! given an `OutputSelection` and gives back ktests.

mod constants;
mod mutate;
pub mod server;
pub mod sweep;

use std::borrow::Cow;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use libafl::corpus::{Corpus, InMemoryCorpus, Testcase};
use libafl::events::NopEventManager;
use libafl::executors::{Executor, ExitKind, WithObservers};
use libafl::feedback_or;
use libafl::feedbacks::{Feedback, MaxMapFeedback, StateInitializer};
use libafl::fuzzer::{Evaluator, Fuzzer as _, StdFuzzer};
use libafl::inputs::{BytesInput, HasMutatorBytes};
use libafl::mutators::{HavocScheduledMutator, havoc_mutations};
use libafl::observers::StdMapObserver;
use libafl::schedulers::QueueScheduler;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, StdState};
use libafl_bolts::Named;
use libafl_bolts::rands::StdRand;
use libafl_bolts::tuples::tuple_list;

pub use constants::Constants;
use mutate::Layout;
use server::{CoverageMap, Run, Server};
pub use sweep::{BoxInputs, Doubt, Enumeration, EnumerationStats, Equality};

use crate::exec::{InputDomain, SeedInbox};
use crate::ktest::{KTest, Object};
use crate::outcome::OutputSelection;

/// What the fuzzer needs to know of the run.
#[derive(Debug, Clone)]
pub struct FuzzConfig {
    /// The fuzz build (`compile::Toolchain::fuzz_server`).
    pub server: PathBuf,
    /// The program's command line, argv[0] first, as the ktests record it.
    pub argv: Vec<String>,
    /// Its words as a fuzz input holds them.
    pub args: crate::posix::ArgSlots,
    /// `--sym-stdin N`'s N (`mutate::Layout::stdin`).
    pub stdin: Option<usize>,
    pub revisions: usize,
    /// As `diff::DiffConfig::same_as`: revisions of one text run once.
    pub same_as: Vec<usize>,
    pub outputs: OutputSelection,
    /// The limit of one run of one revision.
    pub run_timeout: Duration,
    pub constants: Constants,
    pub seed: u64,
    /// Why running every input of the domain would prove nothing (the
    /// program calls what enumeration cannot put back between runs); none:
    /// it proves.
    pub enumeration_proof: Option<String>,
    /// The end of the run's budget, if it has one.
    pub deadline: Option<Instant>,
    /// Where the engine takes seeds from, and how its inputs lie, if it can
    /// follow this fuzzer's inputs.
    pub engine: Option<(SeedInbox, crate::posix::SeedShape)>,
    /// The user's tests (`--tests`), seeds before any other.
    pub tests: Vec<KTest>,
    /// One more than the largest meta-branch site id: enumeration notes
    /// which sites its runs reach.
    pub sites: u32,
}

impl FuzzConfig {
    /// The first revision of each text, in order: the revisions the server
    /// runs (a text runs once), and the indices of the pair maps.
    pub fn texts(&self) -> Vec<usize> {
        (0..self.revisions).filter(|&r| self.same_as.get(r).is_none_or(|&s| s == r)).collect()
    }
}

/// What fuzzing did, for the report.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct FuzzStats {
    /// Inputs run (each on every revision).
    pub executions: u64,
    /// Inputs kept in the corpus.
    pub corpus: u64,
    /// Inputs handed to the differentiator as candidate tests.
    pub candidates: u64,
    /// Seeds taken: engine path inputs and the user's tests.
    pub seeds: u64,
    /// Inputs mutations added to the corpus, offered to the engine as seeds.
    #[serde(default)]
    pub offered: u64,
    /// Of those, the inputs the engine took (some live state agreed with them
    /// and followed no seed), the live states they were handed to, and the
    /// paths that followed one to their end (`exec::ExecStats::inbox_*`).
    #[serde(default)]
    pub engine_seeds: u64,
    #[serde(default)]
    pub engine_states: u64,
    #[serde(default)]
    pub engine_paths: u64,
    pub seconds: f64,
    /// Why fuzzing stopped before it was told to, if it did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

/// State shared between the fuzzing thread and the run.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    /// `apart[a * k + b]`: the run has told the revisions of texts a and b
    /// apart (`FuzzConfig::texts`, k of them).
    apart: Mutex<Vec<bool>>,
    seeds: SeedInbox,
    found: Mutex<Vec<KTest>>,
    /// When the corpus last grew, in milliseconds since the start;
    /// `NOT_STARTED` until the first input has run.
    last_new_ms: AtomicU64,
    executions: AtomicU64,
    candidates: AtomicU64,
    offered: AtomicU64,
    /// The domain to enumerate, once the engine knows it; then the result.
    /// A round of mutations runs no input while a domain waits: with a
    /// fork per revision and input, a round of many revisions takes tens
    /// of seconds, and enumeration would wait for it.
    domain: Mutex<Option<InputDomain>>,
    enumerated: Mutex<Option<Enumeration>>,
    /// The fuzz server's pid while it lives (the thread clears it before
    /// the server is reaped, so that a kill never reaches another process).
    server_pid: Mutex<Option<u32>>,
    /// An enumeration that may prove runs on every core.
    proving: AtomicBool,
}

/// A fuzzing thread.
pub struct Fuzzer {
    shared: Arc<Shared>,
    thread: JoinHandle<FuzzStats>,
    start: Instant,
    deadline: Option<Instant>,
    revisions: usize,
    /// `FuzzConfig::texts`.
    texts: Vec<usize>,
}

impl Fuzzer {
    pub fn start(cfg: FuzzConfig) -> Fuzzer {
        let n = cfg.revisions;
        let texts = cfg.texts();
        let shared = Arc::new(Shared {
            apart: Mutex::new(vec![false; texts.len() * texts.len()]),
            last_new_ms: AtomicU64::new(NOT_STARTED),
            ..Shared::default()
        });
        let start = Instant::now();
        let deadline = cfg.deadline;
        let thread = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let mut stats = FuzzStats::default();
                if let Err(e) = fuzz(&cfg, &shared, &mut stats, start)
                    && !shared.stop.load(Ordering::Relaxed)
                {
                    stats.error = Some(e.to_string());
                }
                stats.executions = shared.executions.load(Ordering::Relaxed);
                stats.candidates = shared.candidates.load(Ordering::Relaxed);
                stats.offered = shared.offered.load(Ordering::Relaxed);
                stats.seconds = start.elapsed().as_secs_f64();
                stats
            })
        };
        Fuzzer { shared, thread, start, deadline, revisions: n, texts }
    }

    /// An input the engine found (a path's model): a seed for the corpus.
    /// Only the newest wait: an engine that halts thousands of paths a
    /// second would otherwise keep the fuzzer running its inputs alone.
    pub fn seed(&self, test: &KTest) {
        self.shared.seeds.offer(test.clone());
    }

    /// Every input lies in `domain`: the thread runs all of its inputs, if
    /// they are few enough, before it fuzzes on.
    pub fn enumerate(&self, domain: InputDomain) {
        *self.shared.domain.lock().expect("not poisoned") = Some(domain);
    }

    /// Waits while an enumeration that may prove runs (within the budget):
    /// its runs take every core, and what they prove the engine need not
    /// search for.
    pub fn wait_for_proof(&self) {
        while self.shared.proving.load(Ordering::Relaxed) && self.deadline.is_none_or(|d| Instant::now() < d)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The enumeration's result, once.
    pub fn take_enumerated(&self) -> Option<Enumeration> {
        self.shared.enumerated.lock().expect("not poisoned").take()
    }

    /// The pairs a confirmed test tells apart: they need no more tests.
    pub fn told_apart(&self, apart_by_test: impl Fn(usize, usize) -> bool) {
        let mut apart = self.shared.apart.lock().expect("not poisoned");
        let k = self.texts.len();
        for (a, &x) in self.texts.iter().enumerate() {
            for (b, &y) in self.texts.iter().enumerate() {
                if apart_by_test(x, y) {
                    apart[a * k + b] = true;
                }
            }
        }
    }

    /// Candidate tests found since the last call.
    pub fn take_found(&self) -> Vec<KTest> {
        std::mem::take(&mut *self.shared.found.lock().expect("not poisoned"))
    }

    /// How long the corpus has not grown: from the first input's end, for
    /// a program whose every revision hangs takes the time limit of each
    /// before that input is done, and has not stalled, only started.
    pub fn stalled_for(&self) -> Duration {
        match self.shared.last_new_ms.load(Ordering::Relaxed) {
            NOT_STARTED => Duration::ZERO,
            ms => self.start.elapsed().saturating_sub(Duration::from_millis(ms)),
        }
    }

    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops the thread; its statistics, and the enumeration's result if
    /// nobody took it (or why it did not run, if the thread never got to it).
    pub fn finish(self) -> (FuzzStats, Option<Enumeration>) {
        self.shared.stop.store(true, Ordering::Relaxed);
        // The run's end does not wait for the server: an enumeration runs
        // for seconds without a word, and one input runs every revision,
        // each up to its time limit (thirteen revisions that hang, 13 s).
        if let Some(pid) = *self.shared.server_pid.lock().expect("not poisoned") {
            // SAFETY: kill(2) on a live child of ours: the thread clears the
            // pid, under this lock, before its Server reaps the process.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        let stats = self.thread.join().unwrap_or_else(|_| FuzzStats {
            error: Some("the fuzzing thread panicked".into()),
            ..FuzzStats::default()
        });
        let untaken = self.shared.domain.lock().expect("not poisoned").take().map(|d| {
            let why = match &stats.error {
                Some(e) => format!("fuzzing stopped first ({e})"),
                None => "the run ended first".into(),
            };
            Enumeration::nothing(EnumerationStats::not_run(Some(&d), &why), self.revisions)
        });
        let left = self.shared.enumerated.lock().expect("not poisoned").take().or(untaken);
        (stats, left)
    }
}

/// Runs every revision through the server and turns the outcomes into the
/// pair map and candidate tests.
struct DiffExecutor<'a> {
    /// Shared with the loop, which enumerates with it.
    server: Rc<std::cell::RefCell<Server>>,
    cfg: &'a FuzzConfig,
    shared: &'a Shared,
    layout: Rc<Layout>,
    coverage: *mut u8,
    /// `pairs[a * k + b]`, of texts (`FuzzConfig::texts`, k of them).
    pairs: *mut u8,
    /// Candidates sent per pair of texts: a pair the differentiator could
    /// not confirm gets a few more chances, not thousands.
    sent: Vec<u8>,
}

/// Keeps the prefix hash of a run that ran out of time apart from the whole
/// hash of one that ended.
const HUNG: u64 = 0x6875_6e67;

/// `Shared::last_new_ms` before the first input has run.
const NOT_STARTED: u64 = u64::MAX;

/// Candidates sent for one pair of revisions at most.
const TRIES_PER_PAIR: u8 = 3;

impl<EM, S, Z> Executor<EM, BytesInput, S, Z> for DiffExecutor<'_> {
    fn run_target(
        &mut self,
        _: &mut Z,
        _: &mut S,
        _: &mut EM,
        input: &BytesInput,
    ) -> Result<ExitKind, libafl::Error> {
        // The maps stay as the observers reset them: the input counts for
        // nothing.
        if self.shared.stop.load(Ordering::Relaxed)
            || self.shared.domain.lock().expect("not poisoned").is_some()
        {
            return Ok(ExitKind::Ok);
        }
        let bytes = input.mutator_bytes();
        let runs = run(&mut self.server.borrow_mut(), &self.cfg.argv, &self.layout, bytes)
            .map_err(|e| libafl::Error::unknown(format!("fuzz server: {e}")))?;
        self.shared.executions.fetch_add(1, Ordering::Relaxed);
        if runs.iter().all(Run::violates_assume) {
            // Outside the domain: neither its coverage nor anything else counts.
            // SAFETY: the coverage map is server::MAP_SIZE bytes, alive for the loop.
            unsafe { std::ptr::write_bytes(self.coverage, 0, server::MAP_SIZE) };
            return Ok(ExitKind::Ok);
        }
        self.layout.widen(bytes);
        let outputs = self.cfg.outputs;
        // The server runs each text once, in the order of `FuzzConfig::texts`.
        let behaviour = |run: &Run| {
            // A run that ran out of time printed some start of its output,
            // as far as it got: its hash tells nothing against another's,
            // but that of its first 4096 bytes does against another's that
            // ran out of time (`seq 18446744073709551617 inf` starts with
            // 18446744073709551616 before the fix).
            let stdout = match run.status {
                Some(_) => Some(run.stdout),
                None => (run.stdout != 0).then_some(run.stdout ^ HUNG),
            };
            let stderr = run.status.map(|_| run.stderr);
            (
                outputs.exit.then_some(run.status),
                outputs.stdout.then_some(stdout),
                outputs.stderr.then_some(stderr),
            )
        };
        let behaviours: Vec<_> = runs.iter().map(behaviour).collect();
        let k = behaviours.len();
        let mut new_pair = false;
        {
            let apart = self.shared.apart.lock().expect("not poisoned");
            for a in 0..k {
                for b in a + 1..k {
                    if behaviours[a] != behaviours[b] {
                        // SAFETY: the pair map has k * k bytes.
                        unsafe { *self.pairs.add(a * k + b) = 1 };
                        new_pair |= !apart[a * k + b] && self.sent[a * k + b] < TRIES_PER_PAIR;
                    }
                }
            }
        }
        if new_pair {
            for a in 0..k {
                for b in a + 1..k {
                    if behaviours[a] != behaviours[b] {
                        self.sent[a * k + b] = self.sent[a * k + b].saturating_add(1);
                    }
                }
            }
            self.shared.candidates.fetch_add(1, Ordering::Relaxed);
            let test = ktest(&self.cfg.argv, &self.layout, bytes);
            self.shared.found.lock().expect("not poisoned").push(test);
        }
        Ok(ExitKind::Ok)
    }
}

/// Offers the engine (`FuzzConfig::engine`) every input a mutation adds to
/// the corpus, as it enters: a feedback that finds nothing interesting
/// itself, for LibAFL tells feedbacks what it keeps. Not the engine's own
/// inputs (`mutating` is off while they run), which it has followed.
struct ToEngine<'a> {
    cfg: &'a FuzzConfig,
    shared: &'a Shared,
    layout: Rc<Layout>,
    mutating: Rc<std::cell::Cell<bool>>,
}

impl Named for ToEngine<'_> {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("ToEngine");
        &NAME
    }
}

impl<S> StateInitializer<S> for ToEngine<'_> {}

impl<EM, OT, S> Feedback<EM, BytesInput, OT, S> for ToEngine<'_> {
    fn append_metadata(
        &mut self,
        _: &mut S,
        _: &mut EM,
        _: &OT,
        testcase: &mut Testcase<BytesInput>,
    ) -> Result<(), libafl::Error> {
        if let (Some((inbox, shape)), true, Some(input)) =
            (&self.cfg.engine, self.mutating.get(), testcase.input())
        {
            let bytes = input.mutator_bytes();
            let (_, _, text) = self.layout.split(bytes);
            let mut test =
                ktest(&self.cfg.argv, &self.layout, &bytes[..bytes.len().min(self.layout.text_start())]);
            test.objects = shape.objects(test.objects, text);
            inbox.offer(test);
            self.shared.offered.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Runs every revision on a fuzz input: the server gets the command line its
/// argument slots make, and the objects and stdin.
fn run(server: &mut Server, argv: &[String], layout: &Layout, bytes: &[u8]) -> std::io::Result<Vec<Run>> {
    let (objects, slots, text) = layout.split(bytes);
    server.run(&words(argv, &layout.args, slots), &[objects, text].concat())
}

/// The words after argv[0] that the argument slots `slots` give, as replay
/// reads them from the engine's objects.
fn words(argv: &[String], args: &crate::posix::ArgSlots, slots: &[u8]) -> Vec<std::ffi::OsString> {
    let test = KTest { args: argv.to_vec(), sym_argvs: 0, sym_argv_len: 0, objects: args.objects(slots) };
    crate::posix::replay_env(&test).args
}

/// The ktest of a fuzz input: its arguments and objects as the engine and
/// the shape name them, and stdin.
fn ktest(argv: &[String], layout: &Layout, bytes: &[u8]) -> KTest {
    let mut own = Vec::new();
    let mut at = 0;
    for slot in &layout.slots {
        let mut b = bytes.get(at..(at + slot.size).min(bytes.len())).unwrap_or_default().to_vec();
        b.resize(slot.size, 0);
        own.push(Object { name: slot.name.clone(), bytes: b });
        at += slot.size;
    }
    let (_, slots, text) = layout.split(bytes);
    let mut objects = layout.args.objects(slots);
    objects.extend(own);
    if !text.is_empty() {
        objects.extend(crate::posix::stdin_objects(text));
    }
    KTest { args: argv.to_vec(), sym_argvs: 0, sym_argv_len: 0, objects }
}

/// A ktest (an engine path's input) as a fuzz input: its own objects in
/// order, fitted to the shape, its arguments, then its stdin text.
fn fuzz_input(layout: &Layout, test: &KTest) -> Vec<u8> {
    let mut out = Vec::with_capacity(layout.text_start());
    let mut own = test.objects.iter().filter(|o| !crate::posix::is_environment_object(&o.name));
    for slot in &layout.slots {
        let mut b = own.next().map(|o| o.bytes.clone()).unwrap_or_default();
        b.resize(slot.size, 0);
        out.extend_from_slice(&b);
    }
    out.extend(layout.args.of_test(test));
    out.extend_from_slice(&crate::posix::replay_env(test).stdin);
    out
}

/// Clears `Shared::server_pid` when the server is about to go.
struct ForgetPid<'a>(&'a Shared);

impl Drop for ForgetPid<'_> {
    fn drop(&mut self) {
        *self.0.server_pid.lock().expect("not poisoned") = None;
    }
}

fn fuzz(cfg: &FuzzConfig, shared: &Shared, stats: &mut FuzzStats, start: Instant) -> std::io::Result<()> {
    let map = CoverageMap::new()?;
    let reps = cfg.texts();
    // The server learns the input's shape from the command line of an input
    // of zeros: symbolic arguments empty, the fewest of them.
    let args = words(&cfg.argv, &cfg.args, &[]);
    let server = Server::spawn(&cfg.server, &args, &map, reps, cfg.run_timeout, cfg.outputs.stderr)?;
    *shared.server_pid.lock().expect("not poisoned") = Some(server.id());
    let layout = Rc::new(Layout::new(
        server.shape.clone(),
        cfg.args.clone(),
        cfg.stdin,
        server.reads_stdin,
        cfg.constants.clone(),
    ));
    let server = Rc::new(std::cell::RefCell::new(server));
    // Dropped before `server` (locals drop in reverse order).
    let _forget_pid = ForgetPid(shared);
    let k = server.borrow().revisions.len();
    let mut pairs = vec![0u8; (k * k).max(1)];
    // SAFETY: both maps outlive the observers, which live in this function.
    let edges = unsafe { StdMapObserver::from_mut_ptr("edges", map.as_mut_ptr(), server::MAP_SIZE) };
    let pair_map = unsafe { StdMapObserver::from_mut_ptr("pairs", pairs.as_mut_ptr(), pairs.len()) };
    let mutating = Rc::new(std::cell::Cell::new(false));
    let to_engine = ToEngine { cfg, shared, layout: layout.clone(), mutating: mutating.clone() };
    let mut feedback = feedback_or!(MaxMapFeedback::new(&edges), MaxMapFeedback::new(&pair_map), to_engine);
    let mut objective = ();
    let err = |e: libafl::Error| std::io::Error::other(e.to_string());
    let mut state = StdState::new(
        StdRand::with_seed(cfg.seed),
        InMemoryCorpus::<BytesInput>::new(),
        InMemoryCorpus::new(),
        &mut feedback,
        &mut objective,
    )
    .map_err(err)?;
    let mut fuzzer = StdFuzzer::new(QueueScheduler::new(), feedback, objective);
    let mut mgr = NopEventManager::new();
    let executor = DiffExecutor {
        coverage: map.as_mut_ptr(),
        pairs: pairs.as_mut_ptr(),
        sent: vec![0; k * k],
        server: server.clone(),
        cfg,
        shared,
        layout: layout.clone(),
    };
    let mut executor = WithObservers::new(executor, tuple_list!(edges, pair_map));
    let mut stages = tuple_list!(
        StdMutationalStage::new(HavocScheduledMutator::new(tuple_list!(
            mutate::ObjectValue::new(layout.clone()),
            mutate::StdinNumber::new(layout.clone()),
            mutate::StdinWord::new(layout.clone()),
            mutate::ArgWord::new(layout.clone())
        ))),
        // Unstacked: a further mutation would undo what it sets up. Four
        // times the others' runs: its inputs are fresh, theirs are near
        // the corpus, which the engine's seeds keep near too.
        StdMutationalStage::with_max_iterations(
            mutate::AllObjects::new(layout.clone()),
            std::num::NonZero::new(512).expect("not zero"),
        ),
        StdMutationalStage::new(HavocScheduledMutator::new(havoc_mutations())),
    );
    let zero = BytesInput::new(vec![0; layout.text_start()]);
    fuzzer.add_input(&mut state, &mut executor, &mut mgr, zero).map_err(err)?;
    shared.last_new_ms.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
    let mut corpus = state.corpus().count();
    let mut tests = cfg.tests.clone();
    while !shared.stop.load(Ordering::Relaxed) {
        let domain = shared.domain.lock().expect("not poisoned").take();
        if let Some(domain) = domain {
            let e = sweep::enumerate(&mut server.borrow_mut(), cfg, &layout, &domain, shared);
            *shared.enumerated.lock().expect("not poisoned") = Some(e);
        }
        for s in std::mem::take(&mut tests).into_iter().chain(shared.seeds.take_all()) {
            stats.seeds += 1;
            let input = fuzz_input(&layout, &s);
            layout.learn(&input);
            let input = BytesInput::new(input);
            fuzzer.evaluate_input(&mut state, &mut executor, &mut mgr, &input).map_err(err)?;
        }
        mutating.set(true);
        fuzzer.fuzz_one(&mut stages, &mut executor, &mut state, &mut mgr).map_err(err)?;
        mutating.set(false);
        let now = state.corpus().count();
        if now > corpus {
            corpus = now;
            shared.last_new_ms.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
        }
        stats.corpus = corpus as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(stdin: Option<usize>) -> Layout {
        let slots = vec![server::Slot { name: "x".into(), size: 4 }];
        Layout::new(slots, Default::default(), stdin, true, Constants::default())
    }

    /// Havoc grows an input past its objects; that tail is stdin only as far
    /// as `--sym-stdin N` makes stdin an input: a test that carried more
    /// would lie outside the domain the report names (and a proof over it).
    #[test]
    fn an_input_s_tail_is_stdin_only_within_the_command_line_s() {
        let bytes = b"\x01\0\0\0hello";
        let names = |t: &KTest| t.objects.iter().map(|o| o.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&ktest(&["p".into()], &layout(None), bytes)), ["x"]);
        let t = ktest(&["p".into()], &layout(Some(3)), bytes);
        assert_eq!(names(&t), ["x", "stdin", "stdin-stat"]);
        assert_eq!(crate::posix::replay_env(&t).stdin, b"hel");
        assert_eq!(layout(Some(8)).split(bytes), (&b"\x01\0\0\0"[..], &b""[..], &b"hello"[..]));
    }
}
