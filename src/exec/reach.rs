//! Stop when it knows: revision pairs that no state left can tell apart.
//!
//! Revisions i and j are equivalent once (1) every comparison of their
//! halted paths settled without a difference (the differentiator's part:
//! `HaltObserver::open_pairs`), (2) nothing was approximated on a path of
//! either, and (3) every live state follows both or neither, and no state
//! that follows both can still split them: it reaches no meta-branch site
//! whose variants give i and j different code, and holds no value that
//! mentions the revision. Then for every input the two revisions' paths
//! are one state from here on, or halted paths already compared: the rest
//! of the run could only repeat that. So the run may stop before
//! exploration ends, with those pairs proved, instead of spending its
//! budget on paths the revisions share (a loop the input bounds after the
//! patched line).
//!
//! Sites reachable from a state: from each frame's block, every block the
//! CFG reaches, the `__klee_meta` calls there and in every function they
//! may call (an indirect call, or a site that is not a constant, may reach
//! any site). Which revisions a site tells apart comes from the meta
//! program's site table (`ExecConfig::site_variants`); a site it does not
//! list tells every pair apart.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use crate::expr::ExprPool;
use crate::ir::cfg::{RegSet, block_insts, block_of, edges};
use crate::ir::{Callee, Const, FuncId, Module, Op, Operand};

use super::executor::Executor;
use super::halt::{FmtArg, OutputEvent};
use super::special::Handler;
use super::state::ExecutionState;
use super::value::Value;
use super::{Control, RevSet};

/// Meta-branch sites; `None`: any site.
type Sites = Option<BTreeSet<u32>>;

fn union(a: &mut Sites, b: &Sites) {
    match (a.as_mut(), b) {
        (Some(x), Some(y)) => x.extend(y),
        (_, None) => *a = None,
        (None, _) => {}
    }
}

/// Sites reachable from functions and blocks, computed on demand.
#[derive(Default)]
pub(super) struct SiteReach {
    /// Per function: the sites its body and its callees call.
    funcs: Option<Vec<Sites>>,
    /// Per instruction (function, pc) asked about.
    from: HashMap<(FuncId, u32), Rc<Sites>>,
}

/// The sites instructions `insts` of `f` call directly, and the functions
/// they call.
fn calls(
    m: &Module,
    handlers: &[Option<Handler>],
    f: FuncId,
    insts: std::ops::Range<usize>,
) -> (Sites, Vec<FuncId>) {
    let body = m.func(f).body.as_ref().expect("defined");
    let mut sites = Some(BTreeSet::new());
    let mut callees = Vec::new();
    for i in insts {
        let Op::Call { callee, args, .. } = &body.insts[i].op else { continue };
        match callee {
            Callee::Direct(g) if matches!(handlers[g.index()], Some(Handler::Meta | Handler::MetaIn)) => {
                let site = match args.first() {
                    Some(Operand::Const(c)) => match &m.consts[c.index()] {
                        Const::Int(s) => Some(*s as u32),
                        _ => None,
                    },
                    _ => None,
                };
                match (site, sites.as_mut()) {
                    (Some(s), Some(set)) => {
                        set.insert(s);
                    }
                    (Some(_), None) => {}
                    (None, _) => sites = None,
                }
            }
            Callee::Direct(g) => {
                if m.func(*g).body.is_some() {
                    callees.push(*g)
                }
            }
            Callee::Indirect(_) => sites = None,
            Callee::Intrinsic(_) => {}
        }
    }
    (sites, callees)
}

impl Executor<'_> {
    /// Whether the run may stop on every pair of `open`: no state left can
    /// tell them apart, and nothing was approximated on their paths. It asks
    /// at every progress tick, of every open pair (millions, with thousands
    /// of revisions), so it answers at the first pair that is not settled,
    /// and compares the pairs' revisions by the live states that hold them,
    /// not pair by pair and state by state.
    pub(super) fn all_settled(&mut self, open: &[(u32, u32)]) -> bool {
        if !open
            .iter()
            .all(|&(i, j)| self.coverage.is_exact(i as usize) && self.coverage.is_exact(j as usize))
        {
            return false;
        }
        let mut revs: Vec<u32> = open.iter().flat_map(|&(i, j)| [i, j]).collect();
        revs.sort_unstable();
        revs.dedup();
        // Per revision of a pair: the live states that hold it. A pair one
        // state holds apart may still split; one whose state approximated
        // may differ where the engine did not look.
        let ids: Vec<usize> = self.states.keys().collect();
        let mut held_by: Vec<Vec<u32>> = vec![Vec::new(); revs.len()];
        let mut holding = Vec::new();
        for (k, &s) in ids.iter().enumerate() {
            let st = self.states.get(s).and_then(|x| x.as_deref()).expect("live state");
            let mut holds = false;
            for (p, &r) in revs.iter().enumerate() {
                if st.revisions.contains(r) {
                    held_by[p].push(k as u32);
                    holds = true;
                }
            }
            if holds {
                if !st.approximations.is_empty() {
                    return false;
                }
                holding.push(s);
            }
        }
        // Each revision's states as one number: the pairs compare numbers,
        // not lists of hundreds of states each.
        let mut ids = std::collections::HashMap::new();
        let held: Vec<usize> = held_by
            .into_iter()
            .map(|states| {
                let next = ids.len();
                *ids.entry(states).or_insert(next)
            })
            .collect();
        let at = |r: u32| held[revs.binary_search(&r).expect("a revision of a pair")];
        if open.iter().any(|&(i, j)| at(i) != at(j)) {
            return false;
        }
        for s in holding {
            let st = self.states.get(s).and_then(|x| x.as_deref()).expect("live state");
            let revs = st.revisions.clone();
            let frames: Vec<(FuncId, u32)> = st.stack.iter().map(|f| (f.func, f.pc)).collect();
            let live: Vec<RegSet> = frames
                .iter()
                .map(|&(f, pc)| self.analysis(f).live_at(self.m.func(f).body.as_ref().expect("defined"), pc))
                .collect();
            let st = self.states.get(s).and_then(|x| x.as_deref()).expect("live state");
            if mentions_revision(&self.pool, st, &live) {
                return false;
            }
            // A caller's pc is past its call: what it runs after the return.
            let mut sites = Some(BTreeSet::new());
            for (f, pc) in frames {
                union(&mut sites, &self.sites_from(f, pc));
            }
            let variants = &self.cfg.site_variants;
            let Some(sites) = sites else { return false };
            if open
                .iter()
                .any(|&(i, j)| revs.contains(i) && sites.iter().any(|s| splits(variants.get(s), i, j)))
            {
                return false;
            }
        }
        true
    }

    /// At a progress tick: if every pair the observer has left open is
    /// settled, the observer takes them as proved and the run stops.
    pub(super) fn stop_if_settled(&mut self) -> Control {
        let Some(obs) = self.observer.as_mut() else { return Control::Continue };
        let Some(open) = obs.open_pairs() else { return Control::Continue };
        if open.is_empty() || !self.all_settled(&open) {
            return Control::Continue;
        }
        self.observer.as_mut().expect("checked").proved_by_exploration(&open);
        Control::Stop
    }

    /// The sites reachable from instruction `pc` of `f`: the rest of its
    /// block, and every block the CFG reaches from there.
    fn sites_from(&mut self, f: FuncId, pc: u32) -> Rc<Sites> {
        if let Some(s) = self.reach.from.get(&(f, pc)) {
            return Rc::clone(s);
        }
        if self.reach.funcs.is_none() {
            self.reach.funcs = Some(self.function_sites());
        }
        let funcs = self.reach.funcs.as_ref().expect("computed");
        let (m, handlers) = (self.m, &self.handlers);
        let body = m.func(f).body.as_ref().expect("defined");
        let b = block_of(body, pc);
        let rest = pc as usize..block_insts(body, b).end;
        let mut sites = Some(BTreeSet::new());
        let mut seen = vec![false; body.blocks.len()];
        let mut todo: Vec<usize> = Vec::new();
        let mut visit =
            |insts: std::ops::Range<usize>, x: usize, todo: &mut Vec<usize>, seen: &mut Vec<bool>| {
                let (direct, callees) = calls(m, handlers, f, insts);
                union(&mut sites, &direct);
                for g in callees {
                    union(&mut sites, &funcs[g.index()]);
                }
                for e in edges(body, x) {
                    let t = e.target.index();
                    if !seen[t] {
                        seen[t] = true;
                        todo.push(t);
                    }
                }
            };
        visit(rest, b, &mut todo, &mut seen);
        while let Some(x) = todo.pop() {
            visit(block_insts(body, x), x, &mut todo, &mut seen);
        }
        let sites = Rc::new(sites);
        self.reach.from.insert((f, pc), Rc::clone(&sites));
        sites
    }

    /// Per function, the sites its body and everything it calls reach: a
    /// fixpoint over the call graph.
    fn function_sites(&self) -> Vec<Sites> {
        let m = self.m;
        let direct: Vec<(Sites, Vec<FuncId>)> = (0..m.funcs.len())
            .map(|f| {
                let f = FuncId(f as u32);
                let Some(body) = m.func(f).body.as_ref() else { return (Some(BTreeSet::new()), Vec::new()) };
                let mut sites = Some(BTreeSet::new());
                let mut callees = Vec::new();
                for b in 0..body.blocks.len() {
                    let (s, c) = calls(m, &self.handlers, f, block_insts(body, b));
                    union(&mut sites, &s);
                    callees.extend(c);
                }
                (sites, callees)
            })
            .collect();
        let mut all: Vec<Sites> = direct.iter().map(|(s, _)| s.clone()).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for (f, (_, callees)) in direct.iter().enumerate() {
                let mut s = all[f].clone();
                for g in callees {
                    union(&mut s, &all[g.index()]);
                }
                if s != all[f] {
                    all[f] = s;
                    changed = true;
                }
            }
        }
        all
    }
}

/// Whether site `s`, with these variants, gives `i` and `j` different code.
/// A site the table does not list may.
fn splits(variants: Option<&Vec<RevSet>>, i: u32, j: u32) -> bool {
    let Some(variants) = variants else { return true };
    let of = |r: u32| variants.iter().position(|v| v.contains(r));
    match (of(i), of(j)) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// Whether some value of the state mentions the revision: registers live
/// in its frames (`live`, innermost last; a dead one may still hold the
/// `__klee_meta` result its branch tested), memory, outputs, annotations.
fn mentions_revision(pool: &ExprPool, st: &ExecutionState, live: &[RegSet]) -> bool {
    fn value(pool: &ExprPool, v: &Value) -> bool {
        match v {
            Value::Sym(e) => pool.mentions_revision(*e),
            Value::Agg(items) => items.iter().any(|x| value(pool, x)),
            Value::Int(_) | Value::Wide(_) => false,
        }
    }
    st.stack.iter().zip(live).any(|(f, l)| l.iter().any(|r| value(pool, &f.regs[r as usize])))
        || st.memory.exprs().any(|e| pool.mentions_revision(e))
        || st.outputs.iter().any(|o| match o {
            OutputEvent::Text { .. } => false,
            OutputEvent::Format { args, .. } => args.iter().any(|a| match a {
                FmtArg::Scalar(e) => pool.mentions_revision(*e),
                FmtArg::Str(bytes) => bytes.iter().any(|&e| pool.mentions_revision(e)),
            }),
        })
        || st.annotations.iter().any(|a| a.bytes.iter().any(|&e| pool.mentions_revision(e)))
}
