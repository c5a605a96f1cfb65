//! Rebuilding expressions with leaves replaced: the revision made concrete.
//!
//! `substitute_revision` (memoised) and `rebuild`, through the builders, so the
//! result is simplified and hash-consed like any other term.

use super::{ExprId, ExprPool, Node, REVISION_WIDTH};

impl ExprPool {
    /// `e` with `Revision := revision`, re-simplified. Memoised across calls.
    pub fn substitute_revision(&mut self, e: ExprId, revision: u32) -> ExprId {
        if !self.mentions_revision(e) {
            return e;
        }
        if let Some(&done) = self.revision_substs.get(&(e, revision)) {
            return done;
        }
        let substs = &self.revision_substs;
        let pending =
            self.pending_below(e, |x| !self.mentions_revision(x) || substs.contains_key(&(x, revision)));
        for x in pending {
            let node = *self.node(x);
            let substs = &self.revision_substs;
            let map = |c: ExprId| *substs.get(&(c, revision)).unwrap_or(&c);
            let new = match node {
                Node::Revision => self.constant(REVISION_WIDTH, revision as u128),
                _ => {
                    let mapped = node.map_children(map);
                    self.rebuild(mapped)
                }
            };
            self.revision_substs.insert((x, revision), new);
        }
        self.revision_substs[&(e, revision)]
    }

    /// Builds `node` (whose children may have changed) through the simplifying builders.
    pub fn rebuild(&mut self, node: Node) -> ExprId {
        match node {
            Node::Const { width, value } => self.constant(width, value),
            Node::Revision => self.revision(),
            Node::Input { array, index } => self.read_input(array, index),
            Node::ConstArray(_) => self.intern(node),
            Node::InputArray(array) => self.input_array(array),
            Node::Not(a) => self.not(a),
            Node::Bin { op, lhs, rhs } => self.binary(op, lhs, rhs),
            Node::Cmp { op, lhs, rhs } => self.compare(op, lhs, rhs),
            Node::Ite { cond, then, els } => self.ite(cond, then, els),
            Node::Concat { hi, lo } => self.concat(hi, lo),
            Node::Extract { arg, offset, width } => self.extract(arg, offset, width),
            Node::ZExt { arg, width } => self.zext(arg, width),
            Node::SExt { arg, width } => self.sext(arg, width),
            Node::Store { array, index, value } => self.store(array, index, value),
            Node::Select { array, index } => self.select(array, index),
            Node::Float { op, a, b, c } => self.float(op, &[a, b, c][..op.arity()]),
        }
    }
}

impl Node {
    /// The same node with every operand passed through `f`.
    pub fn map_children(self, mut f: impl FnMut(ExprId) -> ExprId) -> Node {
        match self {
            Node::Const { .. } | Node::Revision | Node::Input { .. } => self,
            Node::ConstArray(_) | Node::InputArray(_) => self,
            Node::Not(a) => Node::Not(f(a)),
            Node::Bin { op, lhs, rhs } => Node::Bin { op, lhs: f(lhs), rhs: f(rhs) },
            Node::Cmp { op, lhs, rhs } => Node::Cmp { op, lhs: f(lhs), rhs: f(rhs) },
            Node::Ite { cond, then, els } => Node::Ite { cond: f(cond), then: f(then), els: f(els) },
            Node::Concat { hi, lo } => Node::Concat { hi: f(hi), lo: f(lo) },
            Node::Extract { arg, offset, width } => Node::Extract { arg: f(arg), offset, width },
            Node::ZExt { arg, width } => Node::ZExt { arg: f(arg), width },
            Node::SExt { arg, width } => Node::SExt { arg: f(arg), width },
            Node::Store { array, index, value } => {
                Node::Store { array: f(array), index: f(index), value: f(value) }
            }
            Node::Select { array, index } => Node::Select { array: f(array), index: f(index) },
            Node::Float { op, a, b, c } => {
                let a2 = f(a);
                let b2 = if op.arity() > 1 { f(b) } else { a2 };
                let c2 = if op.arity() > 2 { f(c) } else { a2 };
                Node::Float { op, a: a2, b: b2, c: c2 }
            }
        }
    }
}
