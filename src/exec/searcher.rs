//! State selection (KLEE's Searcher): which live state runs next.
//!
//! The executor tells a searcher which states appeared and disappeared after
//! each step, and asks it for the next one. Searchers see the states, the
//! process tree and the coverage through a [`SearchView`]. A later
//! revision-aware scheduler implements the same trait.
//!
//! The `Searcher` trait (select, update, is_empty) works over a `SearchView` of
//! the states and the `ProcessTree`. `Dfs`, `Bfs`, `RandomPath`; `CovNew`
//! (weights in a sum tree, O(log n) sampling, as KLEE's DiscretePDF);
//! `Interleaved` (KLEE's default: random-path with covnew). `Parallel`,
//! diff-patches' scheduler: states are grouped by their revision set, groups
//! take turns, and each group's own covnew picks its state (depth first: groups
//! dive into the first loop an input bounds and stay); a group whose next state
//! stands at the same instruction as another group's, with disjoint revisions,
//! goes first, within rounds in which every group takes one turn (without
//! rounds, two groups that keep meeting starve the rest). Layers around the base
//! searcher: `First::seeds` runs the states that still agree with a seed
//! input before anything else, and `First::stretches`, where revisions are to
//! be told apart, those whose domain stretch is open; `Merging` (`merge.rs`) over `Deferring`
//! (`defer.rs`) over the base: each takes states out of the searcher below and
//! puts them back, forwarding the same `update` calls. Removing one state at
//! either end of a list is O(1); removing many at once goes through a set.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::revset::RevSet;
use super::slab::Slab;
use super::state::ExecutionState;

/// A live state's index in the executor's table.
pub type StateId = usize;

/// What a searcher may look at.
pub struct SearchView<'a> {
    /// Live states (a slot is empty only while its state runs).
    pub states: &'a Slab<Option<Box<ExecutionState>>>,
    pub ptree: &'a ProcessTree,
}

impl SearchView<'_> {
    pub fn state(&self, id: StateId) -> &ExecutionState {
        self.states.get(id).and_then(|s| s.as_deref()).expect("searchers only hold live states")
    }
}

pub trait Searcher {
    /// The next state to run; only called when not empty.
    fn select(&mut self, view: &SearchView) -> StateId;
    /// After a step of `current`: states `added` appeared, `removed` halted
    /// (`current` may be among them).
    fn update(&mut self, view: &SearchView, current: Option<StateId>, added: &[StateId], removed: &[StateId]);
    fn is_empty(&self) -> bool;
    fn name(&self) -> &'static str;
}

/// An update passed on by a layer that took the states `left` out of the
/// search since the searcher below it last heard: they leave it in this
/// update, with the states that halted.
pub(super) fn forward_update(
    inner: &mut dyn Searcher,
    view: &SearchView,
    current: Option<StateId>,
    added: &[StateId],
    removed: &[StateId],
    left: &mut Vec<StateId>,
) {
    if left.is_empty() {
        inner.update(view, current, added, removed);
    } else {
        let removed: Vec<StateId> = removed.iter().copied().chain(left.drain(..)).collect();
        inner.update(view, current, added, &removed);
    }
}

/// The searchers `--search` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    Dfs,
    Bfs,
    RandomPath,
    CovNew,
    /// KLEE's default: random-path interleaved with covnew.
    Default,
    /// psychic's revision-aware scheduler ([`Parallel`]).
    Parallel,
}

impl SearchKind {
    pub fn parse(s: &str) -> Option<SearchKind> {
        Some(match s {
            "dfs" => SearchKind::Dfs,
            "bfs" => SearchKind::Bfs,
            "random-path" => SearchKind::RandomPath,
            "nurs:covnew" | "covnew" => SearchKind::CovNew,
            "default" => SearchKind::Default,
            "parallel" => SearchKind::Parallel,
            _ => return None,
        })
    }

    pub fn build(self, seed: u64) -> Box<dyn Searcher> {
        match self {
            SearchKind::Dfs => Box::new(Dfs::default()),
            SearchKind::Bfs => Box::new(Bfs::default()),
            SearchKind::RandomPath => Box::new(RandomPath::new(seed)),
            SearchKind::CovNew => Box::new(CovNew::new(seed)),
            SearchKind::Default => Box::new(Interleaved::new(vec![
                Box::new(RandomPath::new(seed)),
                Box::new(CovNew::new(seed.wrapping_add(1))),
            ])),
            SearchKind::Parallel => Box::new(Parallel::new(seed)),
        }
    }
}

/// The live states a searcher holds, in the order they appeared.
#[derive(Default)]
struct Live(VecDeque<StateId>);

impl Live {
    fn update(&mut self, added: &[StateId], removed: &[StateId]) {
        self.0.extend(added.iter().copied());
        self.remove(removed);
    }

    /// Fast for what steps do: one halted state, at either end (dfs, bfs).
    /// Many at once (the end of a run) go through a set, not a scan each.
    fn remove(&mut self, removed: &[StateId]) {
        match removed {
            [] => {}
            [r] if self.0.back() == Some(r) => {
                self.0.pop_back();
            }
            [r] if self.0.front() == Some(r) => {
                self.0.pop_front();
            }
            [r] => self.0.retain(|s| s != r),
            _ => {
                let gone: std::collections::HashSet<StateId> = removed.iter().copied().collect();
                self.0.retain(|s| !gone.contains(s));
            }
        }
    }
}

/// Depth-first: the newest state.
#[derive(Default)]
pub struct Dfs {
    live: Live,
}

impl Searcher for Dfs {
    fn select(&mut self, _: &SearchView) -> StateId {
        *self.live.0.back().expect("not empty")
    }
    fn update(&mut self, _: &SearchView, _: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        self.live.update(added, removed);
    }
    fn is_empty(&self) -> bool {
        self.live.0.is_empty()
    }
    fn name(&self) -> &'static str {
        "dfs"
    }
}

/// Breadth-first: the current state moves to the back once it forked.
#[derive(Default)]
pub struct Bfs {
    queue: Live,
}

impl Searcher for Bfs {
    fn select(&mut self, _: &SearchView) -> StateId {
        *self.queue.0.front().expect("not empty")
    }
    fn update(&mut self, _: &SearchView, current: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        if let Some(c) = current
            && !added.is_empty()
            && !removed.contains(&c)
            && self.queue.0.front() == Some(&c)
        {
            self.queue.0.pop_front();
            self.queue.0.push_back(c);
        }
        self.queue.update(added, removed);
    }
    fn is_empty(&self) -> bool {
        self.queue.0.is_empty()
    }
    fn name(&self) -> &'static str {
        "bfs"
    }
}

/// The process tree: every fork makes the forking state's leaf an inner node
/// with one child per resulting state. Random-path walks it from the root.
#[derive(Default)]
pub struct ProcessTree {
    nodes: Slab<PNode>,
}

#[derive(Default, Clone)]
struct PNode {
    parent: Option<usize>,
    children: Vec<usize>,
    state: Option<StateId>,
}

impl ProcessTree {
    /// The root leaf, for the initial state.
    pub fn root(&mut self, state: StateId) -> usize {
        self.nodes.clear();
        self.nodes.insert(PNode { parent: None, children: Vec::new(), state: Some(state) })
    }

    /// Splits `leaf` (of `state`) into children for `state` and `new_states`;
    /// returns the new leaves, the first for `state`.
    pub fn split(&mut self, leaf: usize, state: StateId, new_states: &[StateId]) -> Vec<usize> {
        let leaves: Vec<usize> = std::iter::once(&state)
            .chain(new_states)
            .map(|&s| self.nodes.insert(PNode { parent: Some(leaf), children: Vec::new(), state: Some(s) }))
            .collect();
        let node = self.node_mut(leaf);
        node.state = None;
        node.children = leaves.clone();
        leaves
    }

    /// Removes a halted state's leaf, and inner nodes left without children.
    pub fn remove(&mut self, leaf: usize) {
        let mut n = leaf;
        while let Some(Some(p)) = self.nodes.remove(n).map(|node| node.parent) {
            let parent = self.node_mut(p);
            parent.children.retain(|&c| c != n);
            if !parent.children.is_empty() {
                break;
            }
            n = p;
        }
    }

    /// Takes a leaf's state out of the walk while it waits (a state paused
    /// at a merge point); `unpark` puts it back.
    pub fn park(&mut self, leaf: usize) {
        self.node_mut(leaf).state = None;
    }

    pub fn unpark(&mut self, leaf: usize, state: StateId) {
        self.node_mut(leaf).state = Some(state);
    }

    /// A random walk from the root to a leaf, with a fair choice at each node.
    pub fn random_leaf(&self, root: usize, rng: &mut impl Rng) -> Option<StateId> {
        let mut n = root;
        loop {
            let node = self.nodes.get(n)?;
            if let Some(s) = node.state {
                return Some(s);
            }
            if node.children.is_empty() {
                return None;
            }
            n = node.children[rng.random_range(0..node.children.len())];
        }
    }

    fn node_mut(&mut self, n: usize) -> &mut PNode {
        self.nodes.get_mut(n).expect("live process-tree node")
    }

    pub fn root_of(&self, leaf: usize) -> usize {
        let mut n = leaf;
        while let Some(p) = self.nodes.get(n).and_then(|node| node.parent) {
            n = p;
        }
        n
    }
}

/// KLEE's random-path: a random walk down the process tree, which favours
/// states near the root (shallow in the fork tree).
pub struct RandomPath {
    rng: ChaCha8Rng,
    live: Live,
}

impl RandomPath {
    pub fn new(seed: u64) -> Self {
        RandomPath { rng: ChaCha8Rng::seed_from_u64(seed), live: Live::default() }
    }
}

impl Searcher for RandomPath {
    fn select(&mut self, view: &SearchView) -> StateId {
        let any = self.live.0[0];
        let root = view.ptree.root_of(view.state(any).ptree_node);
        // The tree's leaves are exactly the live states.
        view.ptree.random_leaf(root, &mut self.rng).unwrap_or(any)
    }
    fn update(&mut self, _: &SearchView, _: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        self.live.update(added, removed);
    }
    fn is_empty(&self) -> bool {
        self.live.0.is_empty()
    }
    fn name(&self) -> &'static str {
        "random-path"
    }
}

/// KLEE's `nurs:covnew`: a weighted random choice favouring states that
/// recently covered new code.
pub struct CovNew {
    rng: ChaCha8Rng,
    live: Live,
    weights: WeightTree,
}

impl CovNew {
    pub fn new(seed: u64) -> Self {
        CovNew { rng: ChaCha8Rng::seed_from_u64(seed), live: Live::default(), weights: WeightTree::default() }
    }

    fn weight(st: &ExecutionState) -> f64 {
        // As KLEE: 1 / max(1, instructions since new coverage - 1000), squared.
        let since = st.since_new_cover.saturating_sub(1000).max(1) as f64;
        1.0 / (since * since)
    }
}

impl Searcher for CovNew {
    fn select(&mut self, _: &SearchView) -> StateId {
        let pick = self.rng.random::<f64>() * self.weights.total();
        self.weights.sample(pick).filter(|&s| self.weights.get(s) > 0.0).unwrap_or(self.live.0[0])
    }
    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        self.live.update(added, removed);
        for &r in removed {
            self.weights.set(r, 0.0);
        }
        // Only a state that ran can have changed its weight.
        for &s in current.iter().chain(added).filter(|s| !removed.contains(s)) {
            self.weights.set(s, Self::weight(view.state(s)));
        }
    }
    fn is_empty(&self) -> bool {
        self.live.0.is_empty()
    }
    fn name(&self) -> &'static str {
        "nurs:covnew"
    }
}

/// Weights by state id with sampling in O(log n), KLEE's DiscretePDF: a
/// complete binary tree of partial sums, each recomputed from its children
/// (no drift from subtracting floats).
#[derive(Default)]
struct WeightTree {
    /// Leaves, a power of two.
    cap: usize,
    sums: Vec<f64>,
}

impl WeightTree {
    fn set(&mut self, i: StateId, w: f64) {
        if i >= self.cap {
            let cap = (i + 1).next_power_of_two().max(16);
            let mut sums = vec![0.0; 2 * cap];
            sums[cap..cap + self.cap].copy_from_slice(&self.sums[self.cap..]);
            for k in (1..cap).rev() {
                sums[k] = sums[2 * k] + sums[2 * k + 1];
            }
            (self.cap, self.sums) = (cap, sums);
        }
        let mut k = i + self.cap;
        self.sums[k] = w;
        while k > 1 {
            k /= 2;
            self.sums[k] = self.sums[2 * k] + self.sums[2 * k + 1];
        }
    }

    fn get(&self, i: StateId) -> f64 {
        if i < self.cap { self.sums[i + self.cap] } else { 0.0 }
    }

    fn total(&self) -> f64 {
        self.sums.get(1).copied().unwrap_or(0.0)
    }

    /// The leaf where the running sum passes `x`.
    fn sample(&self, mut x: f64) -> Option<StateId> {
        if self.cap == 0 {
            return None;
        }
        let mut k = 1;
        while k < self.cap {
            if x < self.sums[2 * k] {
                k *= 2;
            } else {
                x -= self.sums[2 * k];
                k = 2 * k + 1;
            }
        }
        Some(k - self.cap)
    }
}

/// Round-robin over several searchers (KLEE's InterleavedSearcher).
pub struct Interleaved {
    inner: Vec<Box<dyn Searcher>>,
    next: usize,
}

impl Interleaved {
    pub fn new(inner: Vec<Box<dyn Searcher>>) -> Self {
        Interleaved { inner, next: 0 }
    }
}

impl Searcher for Interleaved {
    fn select(&mut self, view: &SearchView) -> StateId {
        let i = self.next;
        self.next = (self.next + 1) % self.inner.len();
        self.inner[i].select(view)
    }
    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        for s in &mut self.inner {
            s.update(view, current, added, removed);
        }
    }
    fn is_empty(&self) -> bool {
        self.inner[0].is_empty()
    }
    fn name(&self) -> &'static str {
        "interleaved"
    }
}

/// psychic's scheduler for differential testing, after seed 001's state
/// selection: revisions advance together, so that halted paths of different
/// revisions over the same inputs appear close in time and can be compared.
///
/// States are grouped by the revisions that follow them; the groups take
/// turns, and within a group KLEE's covnew picks the state. Depth first, as
/// this scheduler first was, each group dived into the first loop bounded by
/// an input and stayed there: on `fixtures/hard` with the engine alone (20 s
/// a set) it told 26 of 93 pairs apart, covnew inside the groups 41, KLEE's
/// default 26 and covnew alone 40 (the table is in `fixtures/hard/README.md`).
/// A group whose next state is *parallel* to another group's (at the same
/// instruction, with disjoint revisions) is preferred: such pairs are the
/// ones that yield differential tests soon. The preference acts within
/// rounds in which every group takes one turn; without them, two groups that
/// keep meeting at the same instruction would starve all the others.
pub struct Parallel {
    groups: Vec<Group>,
    /// `group_of[state]`: the group holding a live state.
    group_of: Vec<Option<usize>>,
    turn: usize,
    seed: u64,
}

struct Group {
    revisions: RevSet,
    searcher: CovNew,
    /// Had its turn in the current round.
    served: bool,
}

impl Parallel {
    pub fn new(seed: u64) -> Self {
        Parallel { groups: Vec::new(), group_of: Vec::new(), turn: 0, seed }
    }

    fn group(&mut self, revisions: &RevSet) -> usize {
        match self.groups.iter().position(|g| g.revisions == *revisions) {
            Some(g) => g,
            None => {
                let seed = self.seed.wrapping_add(self.groups.len() as u64);
                self.groups.push(Group {
                    revisions: revisions.clone(),
                    searcher: CovNew::new(seed),
                    served: false,
                });
                self.groups.len() - 1
            }
        }
    }

    fn set_group(&mut self, s: StateId, g: Option<usize>) {
        if self.group_of.len() <= s {
            self.group_of.resize(s + 1, None);
        }
        self.group_of[s] = g;
    }

    /// Where a group's next state stands: its function and instruction.
    fn position(view: &SearchView, s: StateId) -> Option<(crate::ir::FuncId, u32)> {
        view.state(s).stack.last().map(|f| (f.func, f.pc))
    }
}

impl Searcher for Parallel {
    fn select(&mut self, view: &SearchView) -> StateId {
        let n = self.groups.len();
        let tops: Vec<Option<StateId>> = self
            .groups
            .iter_mut()
            .map(|g| (!g.searcher.is_empty()).then(|| g.searcher.select(view)))
            .collect();
        let positions: Vec<_> = tops.iter().map(|t| t.and_then(|s| Self::position(view, s))).collect();
        let live: Vec<usize> = (0..n).map(|k| (self.turn + k) % n).filter(|&i| tops[i].is_some()).collect();
        // A new round when every group with states has had its turn.
        if live.iter().all(|&i| self.groups[i].served) {
            self.groups.iter_mut().for_each(|g| g.served = false);
        }
        let order: Vec<usize> = live.into_iter().filter(|&i| !self.groups[i].served).collect();
        let groups = &self.groups;
        let parallel = |i: usize| {
            let Some(pi) = positions[i] else { return false };
            (0..n).any(|j| {
                j != i && positions[j] == Some(pi) && groups[i].revisions.disjoint(&groups[j].revisions)
            })
        };
        let chosen = order.iter().copied().find(|&i| parallel(i)).unwrap_or(order[0]);
        self.groups[chosen].served = true;
        self.turn = (chosen + 1) % n;
        tops[chosen].expect("chosen group is not empty")
    }

    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        // Each group's searcher hears of its own states only: what left it
        // (halted, or moved away when its revisions split) and what joined.
        let mut gone: Vec<Vec<StateId>> = vec![Vec::new(); self.groups.len()];
        let mut joined: Vec<(usize, StateId)> = Vec::new();
        for &r in removed {
            if let Some(g) = self.group_of.get(r).copied().flatten() {
                gone[g].push(r);
                self.set_group(r, None);
            }
        }
        let mut ran = None;
        if let Some(c) = current.filter(|c| !removed.contains(c)) {
            let old = self.group_of.get(c).copied().flatten();
            let g = self.group(&view.state(c).revisions);
            if old == Some(g) {
                ran = Some((g, c));
            } else {
                if let Some(o) = old {
                    gone[o].push(c);
                }
                joined.push((g, c));
            }
        }
        for &a in added {
            let g = self.group(&view.state(a).revisions);
            joined.push((g, a));
        }
        gone.resize(self.groups.len(), Vec::new());
        for (g, group) in self.groups.iter_mut().enumerate() {
            let new: Vec<StateId> = joined.iter().filter(|&&(j, _)| j == g).map(|&(_, s)| s).collect();
            let current = ran.filter(|&(r, _)| r == g).map(|(_, c)| c);
            if current.is_some() || !new.is_empty() || !gone[g].is_empty() {
                group.searcher.update(view, current, &new, &gone[g]);
            }
        }
        for (g, s) in joined {
            self.set_group(s, Some(g));
        }
    }

    fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.searcher.is_empty())
    }

    fn name(&self) -> &'static str {
        "parallel"
    }
}

/// The most instructions a state runs ahead of the others while its domain
/// stretch is open: a revision that loops on concrete values before its
/// first branch on an input must not starve the rest.
const STRETCH_INSTRUCTIONS: u64 = 1_000_000;

/// A layer that runs the live states its predicate picks first, the newest
/// first, and the inner searcher's choice when there is none. The inner
/// searcher sees every state throughout.
pub struct First {
    inner: Box<dyn Searcher>,
    picked: Live,
    picks: fn(&ExecutionState) -> bool,
    name: &'static str,
}

impl First {
    /// Seeded states first (KLEE's seeding): while some live state still
    /// agrees with a seed input, the newest such state runs. So does a
    /// state that has just parted from a fuzzer's input, until its next
    /// branch (Driller's and QSYM's step: the branches off the fuzzer's path
    /// are the frontier its input opened). Its children join the base
    /// search: under `dfs` the seeded path's own forks would otherwise bury
    /// it below every state they lead to (`fixtures/hybrid`: 2^24 paths).
    pub fn seeds(inner: Box<dyn Searcher>) -> Self {
        let picks = |s: &ExecutionState| !s.seeds.is_empty() || s.left_inbox_seed == Some(s.depth);
        First { inner, picked: Live::default(), picks, name: "seeds-first" }
    }

    /// States whose domain stretch is open (`ExecutionState::domain_open`:
    /// they still stand for every input of their revisions), each until it
    /// branches on an input or has run `STRETCH_INSTRUCTIONS`. The box is
    /// known only once every stretch has ended (`domain.rs`), and it is what
    /// enumeration proves with: among the states of 2,805 revision texts,
    /// the base searcher left 53 revisions' first branch unreached for
    /// 600 s. A stretch ends within a few branches. Only where there are
    /// revisions to tell apart: a lone program's run has no use for the box,
    /// and keeps its searcher's order.
    pub fn stretches(inner: Box<dyn Searcher>) -> Self {
        let picks = |s: &ExecutionState| s.domain_open() && s.instructions < STRETCH_INSTRUCTIONS;
        First { inner, picked: Live::default(), picks, name: "stretches-first" }
    }
}

impl Searcher for First {
    fn select(&mut self, view: &SearchView) -> StateId {
        match self.picked.0.back() {
            Some(&s) => s,
            None => self.inner.select(view),
        }
    }

    fn update(
        &mut self,
        view: &SearchView,
        current: Option<StateId>,
        added: &[StateId],
        removed: &[StateId],
    ) {
        self.inner.update(view, current, added, removed);
        self.picked.remove(removed);
        // The current state may no longer be picked (a seed lost at a
        // branch, a stretch ended), or be picked anew (a cross seed).
        if let Some(c) = current.filter(|c| !removed.contains(c)) {
            if !(self.picks)(view.state(c)) {
                self.picked.remove(&[c]);
            } else if self.picked.0.back() != Some(&c) && !self.picked.0.contains(&c) {
                self.picked.0.push_back(c);
            }
        }
        self.picked.0.extend(added.iter().copied().filter(|&a| (self.picks)(view.state(a))));
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn name(&self) -> &'static str {
        self.name
    }
}
