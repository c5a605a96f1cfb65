//! A hash-consed bit-vector expression DAG, KLEE-style.
//!
//! Every expression lives in one [`ExprPool`] and is named by a dense [`ExprId`]. Builders simplify and
//! constant-fold before interning, so structurally equal (simplified) expressions get the same id.
//! Children are always interned before their parents, so a child's id is smaller than its parent's:
//! walking ids in increasing order is a topological order, which `eval`, substitution and the Z3
//! lowering use instead of recursion.
//!
//! Sorts: bit-vectors of width 1..=128 (booleans are width 1) and byte arrays (64-bit index, 8-bit value).
//!
//! The pool owns every node for the whole run (nothing is freed): `nodes`, a
//! `Meta` per node computed once at interning (width, whether it mentions the
//! revision, whether it has array terms, the interned set of input arrays it
//! reads), and a hash-consing table of ids (`hashbrown::HashTable`, hashing the
//! node in `nodes`). `ExprId` and `ArrayId` are dense `u32` indices.
//!
//! Invariants: equal ids mean equal simplified structure, and nodes are
//! immutable; a child's id is smaller than its parent's; bit-vectors are
//! 1..=128 bits wide and stored masked, array terms (width 0) map a 64-bit index
//! to a byte, and a width mismatch is a caller bug that panics; `array(name,
//! size, seq)` is interned by all three, so the same `klee_make_symbolic` call
//! in two states (two revisions) yields one array.

mod build;
mod build_float;
mod eval;
pub mod float;
pub mod fold;
mod print;
mod subst;
#[cfg(test)]
pub(crate) mod testgen;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

pub use eval::Evaluator;
pub use float::FloatOp;

/// The widest bit-vector an expression may have.
pub const MAX_WIDTH: u32 = 128;

/// Width of the meta-revision leaf.
pub const REVISION_WIDTH: u32 = 32;

/// Width of array indices.
pub const INDEX_WIDTH: u32 = 64;

/// Handle of an expression in its [`ExprPool`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ExprId(u32);

impl ExprId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Handle of a symbolic input object (one `klee_make_symbolic` call).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArrayId(u32);

impl ArrayId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Handle of an interned constant byte array.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ConstArrayId(u32);

/// Bit-vector operations with two operands of the same width and a result of that width.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
}

impl BinOp {
    pub fn is_commutative(self) -> bool {
        matches!(self, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor)
    }

    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::UDiv => "udiv",
            BinOp::SDiv => "sdiv",
            BinOp::URem => "urem",
            BinOp::SRem => "srem",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
        }
    }
}

/// Comparisons, in canonical form: `ne`, `ugt`, `uge`, `sgt` and `sge` are built from these.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum CmpOp {
    Eq,
    Ult,
    Ule,
    Slt,
    Sle,
}

impl CmpOp {
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ult => "ult",
            CmpOp::Ule => "ule",
            CmpOp::Slt => "slt",
            CmpOp::Sle => "sle",
        }
    }
}

/// One interned expression. Children are [`ExprId`]s of the same pool.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// A constant, masked to its width.
    Const {
        width: u32,
        value: u128,
    },
    /// The meta-revision of the executing state (width 32).
    Revision,
    /// Byte `index` of an input object (width 8).
    Input {
        array: ArrayId,
        index: u64,
    },
    /// Bitwise complement (boolean negation at width 1).
    Not(ExprId),
    Bin {
        op: BinOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// A comparison, width 1.
    Cmp {
        op: CmpOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    Ite {
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    },
    Concat {
        hi: ExprId,
        lo: ExprId,
    },
    /// Bits `offset .. offset + width` of `arg`.
    Extract {
        arg: ExprId,
        offset: u32,
        width: u32,
    },
    ZExt {
        arg: ExprId,
        width: u32,
    },
    SExt {
        arg: ExprId,
        width: u32,
    },
    /// Array sort: constant contents, index past the end reads 0.
    ConstArray(ConstArrayId),
    /// Array sort: the bytes of an input object.
    InputArray(ArrayId),
    /// Array sort: `array` with byte `index` set to `value`.
    Store {
        array: ExprId,
        index: ExprId,
        value: ExprId,
    },
    /// Byte `index` of an array-sorted term (width 8).
    Select {
        array: ExprId,
        index: ExprId,
    },
    /// An IEEE-754 operation on bit-vectors that hold floats' bits ([`float`]); operands past the
    /// operation's arity repeat `a`.
    Float {
        op: FloatOp,
        a: ExprId,
        b: ExprId,
        c: ExprId,
    },
}

impl Node {
    /// The node's operands, in order.
    pub fn children(&self) -> impl Iterator<Item = ExprId> + use<> {
        let dummy = ExprId(0);
        let (items, n) = match *self {
            Node::Const { .. } | Node::Revision | Node::Input { .. } => ([dummy; 3], 0),
            Node::ConstArray(_) | Node::InputArray(_) => ([dummy; 3], 0),
            Node::Not(a)
            | Node::Extract { arg: a, .. }
            | Node::ZExt { arg: a, .. }
            | Node::SExt { arg: a, .. } => ([a, dummy, dummy], 1),
            Node::Bin { lhs, rhs, .. } | Node::Cmp { lhs, rhs, .. } => ([lhs, rhs, dummy], 2),
            Node::Concat { hi, lo } => ([hi, lo, dummy], 2),
            Node::Select { array, index } => ([array, index, dummy], 2),
            Node::Ite { cond, then, els } => ([cond, then, els], 3),
            Node::Store { array, index, value } => ([array, index, value], 3),
            Node::Float { op, a, b, c } => ([a, b, c], op.arity()),
        };
        items.into_iter().take(n)
    }
}

/// An input object: a `klee_make_symbolic` call.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArrayInfo {
    pub name: String,
    pub size: u64,
    /// Position of the `klee_make_symbolic` call in the path's sequence of such calls.
    pub seq: u32,
}

/// Per-node facts computed once, at interning.
#[derive(Clone, Copy, Debug)]
struct Meta {
    /// Bit-vector width; 0 for array-sorted terms.
    width: u8,
    mentions_revision: bool,
    /// Whether a `Node::Float` is below: the solver needs floating-point theory.
    floats: bool,
    /// Index into `ExprPool::array_sets`: the input arrays the expression reads.
    arrays: u32,
}

static NEXT_POOL_ID: AtomicU64 = AtomicU64::new(0);

/// Owner of every expression of a run. Nodes are never freed.
pub struct ExprPool {
    /// Unique per pool, so that a solver can tell pools apart and never mix their ids.
    uid: u64,
    nodes: Vec<Node>,
    meta: Vec<Meta>,
    /// Hash-consing table: ids only, the nodes themselves are in `nodes`.
    interned: HashTable<ExprId>,
    arrays: Vec<ArrayInfo>,
    array_ids: FxHashMap<ArrayInfo, ArrayId>,
    /// How many arrays carry each name, so that the printer can disambiguate.
    name_counts: FxHashMap<String, u32>,
    const_arrays: Vec<Box<[u8]>>,
    const_array_ids: FxHashMap<Box<[u8]>, ConstArrayId>,
    /// Interned sorted sets of arrays; set 0 is empty.
    array_sets: Vec<Box<[ArrayId]>>,
    array_set_ids: FxHashMap<Box<[ArrayId]>, u32>,
    revision_substs: FxHashMap<(ExprId, u32), ExprId>,
}

impl Default for ExprPool {
    fn default() -> Self {
        Self::new()
    }
}

impl ExprPool {
    pub fn new() -> Self {
        let empty: Box<[ArrayId]> = Box::new([]);
        let mut array_set_ids = FxHashMap::default();
        array_set_ids.insert(empty.clone(), 0);
        ExprPool {
            uid: NEXT_POOL_ID.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            meta: Vec::new(),
            interned: HashTable::new(),
            arrays: Vec::new(),
            array_ids: FxHashMap::default(),
            name_counts: FxHashMap::default(),
            const_arrays: Vec::new(),
            const_array_ids: FxHashMap::default(),
            array_sets: vec![empty],
            array_set_ids,
            revision_substs: FxHashMap::default(),
        }
    }

    /// Identity of this pool, unique in the process.
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// Number of interned expressions.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, e: ExprId) -> &Node {
        &self.nodes[e.index()]
    }

    /// Bit-vector width of `e`; 0 for an array-sorted term.
    pub fn width(&self, e: ExprId) -> u32 {
        self.meta[e.index()].width as u32
    }

    pub fn is_array(&self, e: ExprId) -> bool {
        self.meta[e.index()].width == 0
    }

    pub fn as_const(&self, e: ExprId) -> Option<u128> {
        match self.nodes[e.index()] {
            Node::Const { value, .. } => Some(value),
            _ => None,
        }
    }

    pub fn is_const(&self, e: ExprId) -> bool {
        matches!(self.nodes[e.index()], Node::Const { .. })
    }

    /// Whether `e` depends on the meta-revision.
    pub fn mentions_revision(&self, e: ExprId) -> bool {
        self.meta[e.index()].mentions_revision
    }

    /// Whether `e` computes on floats (a `Node::Float` is below it).
    pub fn mentions_float(&self, e: ExprId) -> bool {
        self.meta[e.index()].floats
    }

    /// The input arrays `e` reads, sorted.
    pub fn arrays_of(&self, e: ExprId) -> &[ArrayId] {
        &self.array_sets[self.meta[e.index()].arrays as usize]
    }

    /// The input object named `name` of `size` bytes created by the `seq`-th `klee_make_symbolic` call of
    /// a path. Interned, so that the same object in two states is the same array.
    pub fn array(&mut self, name: &str, size: u64, seq: u32) -> ArrayId {
        let info = ArrayInfo { name: name.to_owned(), size, seq };
        if let Some(&id) = self.array_ids.get(&info) {
            return id;
        }
        let id = ArrayId(u32::try_from(self.arrays.len()).expect("more than 2^32 arrays"));
        *self.name_counts.entry(info.name.clone()).or_default() += 1;
        self.arrays.push(info.clone());
        self.array_ids.insert(info, id);
        id
    }

    pub fn array_info(&self, a: ArrayId) -> &ArrayInfo {
        &self.arrays[a.index()]
    }

    /// Every input array, in creation order.
    pub fn arrays(&self) -> impl Iterator<Item = (ArrayId, &ArrayInfo)> {
        self.arrays.iter().enumerate().map(|(i, info)| (ArrayId(i as u32), info))
    }

    pub fn const_array_bytes(&self, c: ConstArrayId) -> &[u8] {
        &self.const_arrays[c.0 as usize]
    }

    /// The nodes reachable from `root` without passing through a node for which `done` holds, in
    /// increasing id order: children before parents, for bottom-up passes without recursion.
    pub fn pending_below(&self, root: ExprId, mut done: impl FnMut(ExprId) -> bool) -> Vec<ExprId> {
        let mut pending = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            if done(e) || !seen.insert(e) {
                continue;
            }
            pending.push(e);
            stack.extend(self.node(e).children());
        }
        pending.sort_unstable();
        pending
    }

    /// Interns `node`, whose operands must already be valid and simplified. The only place nodes are made.
    fn intern(&mut self, node: Node) -> ExprId {
        let hash = FxBuildHasher.hash_one(node);
        let nodes = &self.nodes;
        if let Some(&id) = self.interned.find(hash, |&id| nodes[id.index()] == node) {
            return id;
        }
        let meta = self.compute_meta(&node);
        let id = ExprId(u32::try_from(self.nodes.len()).expect("more than 2^32 expressions"));
        self.nodes.push(node);
        self.meta.push(meta);
        let nodes = &self.nodes;
        self.interned.insert_unique(hash, id, |&id| FxBuildHasher.hash_one(nodes[id.index()]));
        id
    }

    fn compute_meta(&mut self, node: &Node) -> Meta {
        let w = |p: &Self, e: ExprId| p.meta[e.index()].width as u32;
        let width = match *node {
            Node::Const { width, .. } => width,
            Node::Revision => REVISION_WIDTH,
            Node::Input { .. } | Node::Select { .. } => 8,
            Node::Not(a) => w(self, a),
            Node::Bin { lhs, .. } => w(self, lhs),
            Node::Cmp { .. } => 1,
            Node::Ite { then, .. } => w(self, then),
            Node::Concat { hi, lo } => w(self, hi) + w(self, lo),
            Node::Extract { width, .. } | Node::ZExt { width, .. } | Node::SExt { width, .. } => width,
            Node::ConstArray(_) | Node::InputArray(_) | Node::Store { .. } => 0,
            Node::Float { op, .. } => op.width(),
        };
        let mut mentions_revision = matches!(node, Node::Revision);
        let mut floats = matches!(node, Node::Float { .. });
        let mut arrays = match *node {
            Node::Input { array, .. } | Node::InputArray(array) => self.intern_array_set(&[array]),
            _ => 0,
        };
        for child in node.children() {
            let m = self.meta[child.index()];
            mentions_revision |= m.mentions_revision;
            floats |= m.floats;
            arrays = self.union_array_sets(arrays, m.arrays);
        }
        Meta { width: width as u8, mentions_revision, floats, arrays }
    }

    fn intern_array_set(&mut self, set: &[ArrayId]) -> u32 {
        if let Some(&id) = self.array_set_ids.get(set) {
            return id;
        }
        let id = self.array_sets.len() as u32;
        let boxed: Box<[ArrayId]> = set.into();
        self.array_sets.push(boxed.clone());
        self.array_set_ids.insert(boxed, id);
        id
    }

    fn union_array_sets(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == 0 {
            return a;
        }
        if a == 0 {
            return b;
        }
        let (sa, sb) = (&self.array_sets[a as usize], &self.array_sets[b as usize]);
        let mut merged: Vec<ArrayId> = sa.iter().chain(sb.iter()).copied().collect();
        merged.sort_unstable();
        merged.dedup();
        if merged.len() == sa.len() {
            return a;
        }
        if merged.len() == sb.len() {
            return b;
        }
        self.intern_array_set(&merged)
    }
}

/// Concrete values for input bytes and, optionally, the revision: a model or a test.
/// Bytes never assigned read as 0 (KLEE completes models the same way).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Assignment {
    bytes: BTreeMap<ArrayId, Vec<u8>>,
    revision: Option<u32>,
}

impl Assignment {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn byte(&self, array: ArrayId, index: u64) -> u8 {
        self.bytes.get(&array).and_then(|b| b.get(usize::try_from(index).ok()?)).copied().unwrap_or(0)
    }

    pub fn set_byte(&mut self, array: ArrayId, index: u64, value: u8) {
        let bytes = self.bytes.entry(array).or_default();
        let i = index as usize;
        if bytes.len() <= i {
            bytes.resize(i + 1, 0);
        }
        bytes[i] = value;
    }

    /// Sets the first bytes of `array` (the rest keep their values).
    pub fn set_bytes(&mut self, array: ArrayId, values: &[u8]) {
        let bytes = self.bytes.entry(array).or_default();
        if bytes.len() < values.len() {
            bytes.resize(values.len(), 0);
        }
        bytes[..values.len()].copy_from_slice(values);
    }

    /// The bytes of `array` up to its highest assigned one (shorter than the array if its tail is 0).
    pub fn bytes(&self, array: ArrayId) -> &[u8] {
        self.bytes.get(&array).map_or(&[], |b| b.as_slice())
    }

    /// `size` bytes of `array`, zero-completed.
    pub fn bytes_padded(&self, array: ArrayId, size: u64) -> Vec<u8> {
        let mut out = self.bytes(array).to_vec();
        out.resize(size as usize, 0);
        out
    }

    /// Arrays with at least one assigned byte, in id order.
    pub fn arrays(&self) -> impl Iterator<Item = ArrayId> + '_ {
        self.bytes.keys().copied()
    }

    pub fn revision(&self) -> Option<u32> {
        self.revision
    }

    /// Adds the non-zero bytes and the revision of `other`, an assignment of other variables.
    pub fn merge(&mut self, other: &Assignment) {
        for (&array, bytes) in &other.bytes {
            for (i, &b) in bytes.iter().enumerate() {
                if b != 0 {
                    self.set_byte(array, i as u64, b);
                }
            }
        }
        if let Some(r) = other.revision {
            self.revision = Some(r);
        }
    }

    pub fn set_revision(&mut self, revision: u32) {
        self.revision = Some(revision);
    }
}
