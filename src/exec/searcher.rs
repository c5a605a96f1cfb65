//! State selection (KLEE's Searcher): which live state runs next.
//!
//! The executor tells a searcher which states appeared and disappeared after
//! each step, and asks it for the next one. Searchers see the states, the
//! process tree and the coverage through a [`SearchView`]. A later
//! revision-aware scheduler implements the same trait.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// The searchers `--search` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    Dfs,
    Bfs,
    RandomPath,
    CovNew,
    /// KLEE's default: random-path interleaved with covnew.
    Default,
}

impl SearchKind {
    pub fn parse(s: &str) -> Option<SearchKind> {
        Some(match s {
            "dfs" => SearchKind::Dfs,
            "bfs" => SearchKind::Bfs,
            "random-path" => SearchKind::RandomPath,
            "nurs:covnew" | "covnew" => SearchKind::CovNew,
            "default" => SearchKind::Default,
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
        }
    }
}

/// The live states a searcher holds, in the order they appeared.
#[derive(Default)]
struct Live(Vec<StateId>);

impl Live {
    fn update(&mut self, added: &[StateId], removed: &[StateId]) {
        self.0.extend_from_slice(added);
        if !removed.is_empty() {
            self.0.retain(|s| !removed.contains(s));
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
        *self.live.0.last().expect("not empty")
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
    queue: VecDeque<StateId>,
}

impl Searcher for Bfs {
    fn select(&mut self, _: &SearchView) -> StateId {
        *self.queue.front().expect("not empty")
    }
    fn update(&mut self, _: &SearchView, current: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        if let Some(c) = current
            && !added.is_empty()
            && !removed.contains(&c)
            && self.queue.front() == Some(&c)
        {
            self.queue.pop_front();
            self.queue.push_back(c);
        }
        self.queue.extend(added.iter().copied());
        if !removed.is_empty() {
            self.queue.retain(|s| !removed.contains(s));
        }
    }
    fn is_empty(&self) -> bool {
        self.queue.is_empty()
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
        view.ptree.random_leaf(root, &mut self.rng).filter(|s| self.live.0.contains(s)).unwrap_or(any)
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
}

impl CovNew {
    pub fn new(seed: u64) -> Self {
        CovNew { rng: ChaCha8Rng::seed_from_u64(seed), live: Live::default() }
    }

    fn weight(st: &ExecutionState) -> f64 {
        // As KLEE: 1 / max(1, instructions since new coverage - 1000), squared.
        let since = st.since_new_cover.saturating_sub(1000).max(1) as f64;
        1.0 / (since * since)
    }
}

impl Searcher for CovNew {
    fn select(&mut self, view: &SearchView) -> StateId {
        let weights: Vec<f64> = self.live.0.iter().map(|&s| Self::weight(view.state(s))).collect();
        let total: f64 = weights.iter().sum();
        let mut pick = self.rng.random::<f64>() * total;
        for (i, w) in weights.iter().enumerate() {
            if pick < *w {
                return self.live.0[i];
            }
            pick -= w;
        }
        *self.live.0.last().expect("not empty")
    }
    fn update(&mut self, _: &SearchView, _: Option<StateId>, added: &[StateId], removed: &[StateId]) {
        self.live.update(added, removed);
    }
    fn is_empty(&self) -> bool {
        self.live.0.is_empty()
    }
    fn name(&self) -> &'static str {
        "nurs:covnew"
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
