//! Seeds handed to live states while the run goes on: the input of a halted
//! path, to the states of other revisions (`Executor::cross_seed`), and the
//! inputs another engine found, from the [`SeedInbox`] (hybrid fuzzing: the
//! native fuzzer's corpus leads the engine into code its own search has not
//! reached, and the engine's queries solve what fuzzing cannot there).
//!
//! Seeds from the command line (`ExecConfig::seeds`, KLEE's `--seed-dir`): each
//! state lists the seed ktests it agrees with. A new input binds each seed's
//! bytes for that input (`Executor::seed_values`, one `Assignment` per seed; a
//! seed whose object there has another name or size is dropped for the path);
//! after every step the constraints added since the last check are evaluated
//! under each seed, and seeds they reject are dropped. No solver call is
//! involved.
//!
//! Cross seeding (`ExecConfig::cross_seed`, on in diff-patches): a path that
//! ends takes an input (the seed it followed, or a model of its path
//! condition), and every live state of disjoint revisions whose constraints
//! that input satisfies, and whose inputs so far are a prefix of the path's,
//! gets it as a new seed (`First::seeds` runs it next). So the paths of the other
//! revisions over the same input halt soon after, and the differentiator
//! compares paths that share inputs instead of waiting for each revision's
//! depth-first order to get there (IntroClass digits: the one input, INT_MIN,
//! on which p08 differs). The input travels with the `HaltedPath` (`input`).
//!
//! Seeds from outside (`ExecConfig::seed_inbox`): another thread offers ktests
//! whose objects are the program's `klee_make_symbolic` calls in order; the
//! inbox keeps the newest 64, and at every `PROGRESS_INTERVAL` the engine takes
//! the newest, up to four that some unseeded live state agrees with (its inputs
//! so far a prefix of the ktest's, by name and size, and its constraints true
//! under the bytes: cross seeding's test), which become seeds of all those
//! states. A state that parts from such an input at a branch runs first too,
//! until its next branch (`ExecutionState::left_inbox_seed`): the input's
//! path is what the fuzzer found, the branches it leaves are what the
//! engine is for, and depth first they would wait below every fork of the
//! seeded paths. An input no unseeded live state agrees with is dropped: its path is
//! explored, or a seed already leads a state along it. **Why a few per
//! interval:** seeded states run before every other, and a fuzzer keeps inputs
//! in bursts (a new region opens many new edges at once); the engine's own
//! search keeps its share, and the newest inputs went deepest. None is taken
//! before the input domain is known (`domain.rs`): it waits for every
//! revision's states to branch on an input, which seeded states running first
//! with slow queries would put off. `ExecStats::inbox_seeds`, `inbox_seeded`
//! and `inbox_paths` count the inputs taken, the states they were handed to,
//! and the paths that followed one to an exit or an error. A state waiting to
//! merge or put aside is never handed a seed (`states_on`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::expr::{Assignment, Evaluator};
use crate::ktest::KTest;

use super::executor::Executor;
use super::halt::SymbolicObject;
use super::searcher::StateId;
use super::state::ExecutionState;

/// Inputs one engine hands the other while both run, as ktests: the
/// fuzzer's to the symbolic engine (`ExecConfig::seed_inbox`), which takes
/// some at every progress interval, and the engine's path inputs to the
/// fuzzer (`crate::fuzz::Fuzzer::seed`), which takes what is there between
/// its rounds. Either may find inputs faster than the other runs them.
#[derive(Debug, Clone, Default)]
pub struct SeedInbox(Arc<Mutex<VecDeque<KTest>>>);

/// Inputs the inbox holds: a newer input pushes out the oldest, so a burst
/// (a fuzzer's new region, an engine halting thousands of paths a second)
/// leaves the newest, which went deepest.
const INBOX_CAPACITY: usize = 64;

/// Inputs the engine takes as seeds per progress interval at most: seeded
/// states run before all others (`First::seeds`), and the engine's own search
/// must keep its share.
const TAKEN_PER_INTERVAL: usize = 4;

impl SeedInbox {
    pub fn offer(&self, test: KTest) {
        let mut q = self.0.lock().expect("not poisoned");
        if q.len() == INBOX_CAPACITY {
            q.pop_front();
        }
        q.push_back(test);
    }

    fn take_newest(&self) -> Option<KTest> {
        self.0.lock().expect("not poisoned").pop_back()
    }

    /// Every input there, in the order they came.
    pub fn take_all(&self) -> Vec<KTest> {
        self.0.lock().expect("not poisoned").drain(..).collect()
    }
}

impl Executor<'_> {
    /// Takes the inbox's newest inputs as seeds of the live states that agree
    /// with them. An input no unseeded live state agrees with is dropped: the
    /// engine has explored its path, or follows a seed along it already.
    /// Not before the input domain is known: seeded states run first, and
    /// the domain waits for every revision's states to branch on an input
    /// (`domain`), which a seeded path with slow queries can put off for the
    /// whole budget, and with it enumeration.
    pub(super) fn take_inbox(&mut self) {
        let Some(inbox) = self.cfg.seed_inbox.clone() else { return };
        if !self.domain.is_closed() {
            return;
        }
        let mut taken = 0;
        while taken < TAKEN_PER_INTERVAL
            && let Some(test) = inbox.take_newest()
        {
            let mut values = Assignment::new();
            let symbolics: Vec<SymbolicObject> = (test.objects.iter().enumerate())
                .map(|(seq, o)| {
                    let size = o.bytes.len() as u64;
                    let array = self.pool.array(&o.name, size, seq as u32);
                    values.set_bytes(array, &o.bytes);
                    SymbolicObject { name: o.name.clone(), array, size }
                })
                .collect();
            let targets = self.states_on(&symbolics, &values, |_| true);
            if targets.is_empty() {
                continue;
            }
            taken += 1;
            let id = self.add_seed(test, values, &targets);
            self.inbox_seeds.insert(id);
            self.stats.inbox_seeds += 1;
            self.stats.inbox_seeded += targets.len() as u64;
        }
    }

    /// The unseeded live states `also` admits whose inputs so far are a
    /// prefix of `symbolics` and whose constraints `values` satisfies: those
    /// that run on that input from where they stand. Not a state waiting to
    /// merge or put aside (`merge`, `defer`): the searcher does not hold it,
    /// and a seed would have it run.
    pub(super) fn states_on(
        &self,
        symbolics: &[SymbolicObject],
        values: &Assignment,
        also: impl Fn(&ExecutionState) -> bool,
    ) -> Vec<StateId> {
        // One evaluator for all states: their constraints share most subterms.
        let mut eval = Evaluator::new(&self.pool, values);
        let mut accepts = |s: &ExecutionState| {
            s.seeds.is_empty()
                && also(s)
                && symbolics.starts_with(&s.symbolics)
                // The newest constraints tell siblings apart: most states fail at once.
                && s.constraints.iter().rev().all(|&c| eval.eval(c) != 0)
        };
        self.states
            .keys()
            .filter(|&k| !self.searcher.holds_out(k))
            .filter(|&k| self.states.get(k).and_then(|s| s.as_deref()).is_some_and(&mut accepts))
            .collect()
    }

    /// Makes `test`, whose bytes `values` holds, a seed of `targets`: the
    /// searcher runs them along it next. Its index among the seeds.
    pub(super) fn add_seed(&mut self, test: KTest, values: Assignment, targets: &[StateId]) -> u32 {
        let id = self.seeds.len() as u32;
        self.seeds.push(test);
        self.seed_values.push(values);
        for &t in targets {
            let s = self.slot(t).as_deref_mut().expect("live state");
            s.seeds.push(id);
            s.seeds_checked = s.constraints.len();
            self.update_searcher(Some(t), &[], &[]);
        }
        id
    }
}
