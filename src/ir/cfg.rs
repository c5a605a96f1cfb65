//! Control-flow analyses of one function body, for the executor's state
//! merging: the block of an instruction, successors, immediate
//! post-dominators (where the variants of a meta branch meet again) and
//! live registers (what a state carries past such a meeting point).
//!
//! Computed by the executor on demand, once per function. Post-dominators are
//! Cooper, Harvey and Kennedy's iteration on the reverse graph; paths that end
//! in `unreachable` (after `exit`) constrain nothing. A phi's register counts as
//! live from the edge's moves on.

use super::{Body, Edge, Op, Operand, Reg};

/// The block holding instruction `pc`.
pub fn block_of(body: &Body, pc: u32) -> usize {
    body.blocks.partition_point(|b| b.first.0 <= pc) - 1
}

/// The instructions of block `b`, terminator last.
pub fn block_insts(body: &Body, b: usize) -> std::ops::Range<usize> {
    let start = body.blocks[b].first.index();
    let end = body.blocks.get(b + 1).map_or(body.insts.len(), |n| n.first.index());
    start..end
}

/// The edges leaving block `b`.
pub fn edges(body: &Body, b: usize) -> Vec<&Edge> {
    let term = block_insts(body, b).last().expect("a block ends in a terminator");
    match &body.insts[term].op {
        Op::Br { edge } => vec![edge],
        Op::CondBr { t, f, .. } => vec![t, f],
        Op::Switch { cases, default, .. } => cases.iter().map(|(_, e)| e).chain([default]).collect(),
        _ => Vec::new(),
    }
}

/// The immediate post-dominator of every block, over the paths that return
/// (Cooper, Harvey and Kennedy's iteration on the reverse graph). A path that
/// ends in `unreachable` (after `exit`, `abort`) or never ends constrains
/// nothing: a state on it never reaches a meeting point anyway. `None` where
/// the function's return is the first point every path passes (or no path
/// returns).
fn post_dominators(body: &Body) -> Vec<Option<u32>> {
    let n = body.blocks.len();
    let succs: Vec<Vec<usize>> =
        (0..n).map(|b| edges(body, b).iter().map(|e| e.target.index()).collect()).collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let exits: Vec<usize> = (0..n)
        .filter(|&b| {
            let term = block_insts(body, b).last().expect("terminator");
            matches!(body.insts[term].op, Op::Ret { .. })
        })
        .collect();
    // Reverse postorder of the reverse graph from a virtual exit (index n).
    const EXIT: usize = usize::MAX;
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for &e in &exits {
        if seen[e] {
            continue;
        }
        seen[e] = true;
        stack.push((e, 0));
        while let Some((b, i)) = stack.pop() {
            if let Some(&p) = preds[b].get(i) {
                stack.push((b, i + 1));
                if !seen[p] {
                    seen[p] = true;
                    stack.push((p, 0));
                }
            } else {
                order.push(b);
            }
        }
    }
    order.reverse();
    let mut rank = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rank[b] = i;
    }
    // `ipdom[b] == EXIT` means the virtual exit; exits hang below it.
    let mut ipdom = vec![None::<usize>; n];
    for &e in &exits {
        ipdom[e] = Some(EXIT);
    }
    let intersect = |ipdom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            if a == EXIT || b == EXIT {
                return EXIT;
            }
            // Deeper in the post-dominator tree means later in the order.
            while a != EXIT && b != EXIT && rank[a] > rank[b] {
                a = ipdom[a].expect("processed");
            }
            while a != EXIT && b != EXIT && rank[b] > rank[a] {
                b = ipdom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            if exits.contains(&b) {
                continue;
            }
            let mut new: Option<usize> = None;
            for &s in &succs[b] {
                if ipdom[s].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => s,
                    Some(cur) => intersect(&ipdom, cur, s),
                });
            }
            if new.is_some() && ipdom[b] != new {
                ipdom[b] = new;
                changed = true;
            }
        }
    }
    ipdom.into_iter().map(|d| d.filter(|&d| d != EXIT).map(|d| d as u32)).collect()
}

/// Registers read by an instruction (not the moves of its edges).
fn reads(op: &Op, f: &mut impl FnMut(Reg)) {
    let mut o = |x: &Operand| {
        if let Operand::Reg(r) = x {
            f(*r)
        }
    };
    match op {
        Op::Bin { a, b, .. } | Op::FBin { a, b, .. } | Op::ICmp { a, b, .. } | Op::FCmp { a, b, .. } => {
            o(a);
            o(b)
        }
        Op::FNeg { a, .. } | Op::Cast { a, .. } | Op::Reshape { a, .. } | Op::Copy { a } => o(a),
        Op::Select { cond, t, f, .. } => {
            o(cond);
            o(t);
            o(f)
        }
        Op::Alloca { count, .. } => o(count),
        Op::Load { ptr, .. } => o(ptr),
        Op::Store { val, ptr, .. } => {
            o(val);
            o(ptr)
        }
        Op::Gep { base, indices, .. } => {
            o(base);
            indices.iter().for_each(|(i, _, _)| o(i))
        }
        Op::Call { callee, args, .. } => {
            if let super::Callee::Indirect(c) = callee {
                o(c)
            }
            args.iter().for_each(&mut o)
        }
        Op::ExtractValue { agg, .. } => o(agg),
        Op::InsertValue { agg, val, .. } => {
            o(agg);
            o(val)
        }
        Op::ExtractElement { vec, idx } => {
            o(vec);
            o(idx)
        }
        Op::InsertElement { vec, val, idx } => {
            o(vec);
            o(val);
            o(idx)
        }
        Op::Shuffle { a, b, .. } => {
            o(a);
            o(b)
        }
        Op::CondBr { cond, .. } => o(cond),
        Op::Switch { val, .. } => o(val),
        Op::Ret { val } => val.iter().for_each(o),
        Op::Br { .. } | Op::Unreachable | Op::Unsupported { .. } => {}
    }
}

/// What the executor asks of a function it runs revisions of apart: the
/// meeting points of branches and the registers live at each instruction.
pub struct Analysis {
    pub ipdom: Vec<Option<u32>>,
    pub live_in: Vec<RegSet>,
}

impl Analysis {
    pub fn of(body: &Body) -> Analysis {
        Analysis { ipdom: post_dominators(body), live_in: live_in(body) }
    }

    /// The registers live before instruction `pc` runs.
    pub fn live_at(&self, body: &Body, pc: u32) -> RegSet {
        let b = block_of(body, pc);
        let mut live = live_out(body, &self.live_in, b);
        for i in (pc as usize..block_insts(body, b).end).rev() {
            let inst = &body.insts[i];
            if inst.dst != super::NO_REG {
                live.remove(inst.dst);
            }
            reads(&inst.op, &mut |r| live.insert(r));
        }
        live
    }
}

/// The registers live at the end of block `b`, before its edges' moves.
fn live_out(body: &Body, live_in: &[RegSet], b: usize) -> RegSet {
    let mut out = RegSet::new(body.num_regs);
    for e in edges(body, b) {
        let mut l = live_in[e.target.index()].clone();
        for &(dst, _) in e.moves.iter() {
            l.remove(dst);
        }
        for (_, src) in e.moves.iter() {
            if let Operand::Reg(r) = src {
                l.insert(*r);
            }
        }
        out.union(&l);
    }
    out
}

/// A set of registers.
#[derive(Clone, PartialEq, Eq)]
pub struct RegSet(Vec<u64>);

impl RegSet {
    fn new(n: u32) -> RegSet {
        RegSet(vec![0; (n as usize).div_ceil(64)])
    }
    fn insert(&mut self, r: Reg) {
        self.0[r as usize / 64] |= 1 << (r % 64);
    }
    fn remove(&mut self, r: Reg) {
        self.0[r as usize / 64] &= !(1 << (r % 64));
    }
    pub fn contains(&self, r: Reg) -> bool {
        self.0.get(r as usize / 64).is_some_and(|w| w >> (r % 64) & 1 == 1)
    }
    fn union(&mut self, o: &RegSet) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a |= b);
    }
    pub fn iter(&self) -> impl Iterator<Item = Reg> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(i, &w)| (0..64).filter(move |k| w >> k & 1 == 1).map(move |k| (i * 64 + k) as Reg))
    }
}

/// The registers live on entry to every block, once the moves of the edge
/// into it are done (a phi's register is live there if something reads it).
fn live_in(body: &Body) -> Vec<RegSet> {
    let n = body.blocks.len();
    // Per block: registers read before written, and registers written.
    let mut uses = vec![RegSet::new(body.num_regs); n];
    let mut defs = vec![RegSet::new(body.num_regs); n];
    for b in 0..n {
        for i in block_insts(body, b) {
            let inst = &body.insts[i];
            let (u, d) = (&mut uses[b], &defs[b]);
            reads(&inst.op, &mut |r| {
                if !d.contains(r) {
                    u.insert(r)
                }
            });
            if inst.dst != super::NO_REG {
                defs[b].insert(inst.dst);
            }
        }
    }
    let mut live = uses.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = live_out(body, &live, b);
            for (w, d) in out.0.iter_mut().zip(&defs[b].0) {
                *w &= !d;
            }
            out.union(&uses[b]);
            if out != live[b] {
                live[b] = out;
                changed = true;
            }
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, BlockId, Inst, InstId, NO_REG};

    fn edge(b: u32, moves: &[(Reg, Reg)]) -> Edge {
        Edge { target: BlockId(b), moves: moves.iter().map(|&(d, s)| (d, Operand::Reg(s))).collect() }
    }

    /// 0: if r0 -> 1 | 2;  1: r1 = r0, -> 3 (r5 = r1);  2: r2 = r0, -> 3 (r5 = r2);
    /// 3: if r5 -> 4 | 5;  4: unreachable (after exit);  5: return r0.
    fn diamond() -> Body {
        let i = |dst, op| Inst { dst, op };
        let blocks = [
            vec![i(NO_REG, Op::CondBr { cond: Operand::Reg(0), t: edge(1, &[]), f: edge(2, &[]) })],
            vec![i(1, Op::Copy { a: Operand::Reg(0) }), i(NO_REG, Op::Br { edge: edge(3, &[(5, 1)]) })],
            vec![i(2, Op::Copy { a: Operand::Reg(0) }), i(NO_REG, Op::Br { edge: edge(3, &[(5, 2)]) })],
            vec![i(NO_REG, Op::CondBr { cond: Operand::Reg(5), t: edge(4, &[]), f: edge(5, &[]) })],
            vec![i(NO_REG, Op::Unreachable)],
            vec![i(NO_REG, Op::Ret { val: Some(Operand::Reg(0)) })],
        ];
        let mut body = Body { blocks: Vec::new(), insts: Vec::new(), locs: Vec::new(), num_regs: 6 };
        for b in blocks {
            body.blocks.push(Block { first: InstId(body.insts.len() as u32) });
            body.insts.extend(b);
        }
        body.locs = vec![None; body.insts.len()];
        body
    }

    #[test]
    fn variants_meet_where_every_returning_path_passes() {
        let body = diamond();
        // Block 4 never returns, so block 3's paths that matter go to 5.
        assert_eq!(post_dominators(&body), vec![Some(3), Some(3), Some(3), Some(5), None, None]);
        assert_eq!((block_of(&body, 0), block_of(&body, 2), block_of(&body, 5)), (0, 1, 3));
    }

    #[test]
    fn a_phi_register_is_live_where_the_edges_meet_and_the_arms_registers_are_not() {
        let live = live_in(&diamond());
        let set = |b: usize| live[b].iter().collect::<Vec<_>>();
        assert_eq!(set(3), vec![0, 5]);
        assert_eq!(set(1), vec![0]);
        assert_eq!(set(0), vec![0]);
        assert_eq!(set(4), Vec::<Reg>::new());
    }
}
