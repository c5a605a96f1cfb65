//! A readable prefix printer, KQuery-like: `(add 3:w32 (zext w32 x[0]))`.
//!
//! Subexpressions that occur more than once are labelled on first use (`N0:(...)`) and referred to by
//! label afterwards, so that a DAG prints in size linear in its node count. Runs of input bytes that
//! form a little-endian word print as one slice, `x[3:0]`.

use std::cell::RefCell;
use std::fmt;

use rustc_hash::FxHashMap;

use super::{ArrayId, ExprId, ExprPool, Node};

/// Nesting deeper than this prints as `…`.
const MAX_DEPTH: usize = 200;
/// Constant arrays print at most this many bytes.
const MAX_ARRAY_BYTES: usize = 16;

/// [`fmt::Display`] of one expression: `pool.display(e)`.
pub struct ExprDisplay<'a> {
    pool: &'a ExprPool,
    root: ExprId,
}

impl ExprPool {
    pub fn display(&self, e: ExprId) -> ExprDisplay<'_> {
        ExprDisplay { pool: self, root: e }
    }

    /// How the printer names an input array: its name, with `@seq` if another array has the same name.
    pub fn array_label(&self, a: ArrayId) -> String {
        let info = self.array_info(a);
        if self.name_counts.get(&info.name).copied().unwrap_or(0) > 1 {
            format!("{}@{}", info.name, info.seq)
        } else {
            info.name.clone()
        }
    }
}

struct Printer<'a> {
    pool: &'a ExprPool,
    /// Number of parents of each non-leaf node within the printed expression.
    uses: FxHashMap<ExprId, u32>,
    labels: RefCell<FxHashMap<ExprId, usize>>,
}

impl fmt::Display for ExprDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut uses: FxHashMap<ExprId, u32> = FxHashMap::default();
        let mut stack = vec![self.root];
        while let Some(e) = stack.pop() {
            for c in self.pool.node(e).children() {
                let n = uses.entry(c).or_default();
                *n += 1;
                if *n == 1 {
                    stack.push(c);
                }
            }
        }
        let printer = Printer { pool: self.pool, uses, labels: RefCell::default() };
        printer.print(f, self.root, 0)
    }
}

impl Printer<'_> {
    fn print(&self, f: &mut fmt::Formatter<'_>, e: ExprId, depth: usize) -> fmt::Result {
        let p = self.pool;
        let node = *p.node(e);
        let leaf = node.children().next().is_none();
        if !leaf && self.uses.get(&e).copied().unwrap_or(0) > 1 {
            let mut labels = self.labels.borrow_mut();
            if let Some(&label) = labels.get(&e) {
                return write!(f, "N{label}");
            }
            let label = labels.len();
            labels.insert(e, label);
            drop(labels);
            write!(f, "N{label}:")?;
        }
        if depth > MAX_DEPTH {
            return f.write_str("…");
        }
        let d = depth + 1;
        match node {
            Node::Const { width: 1, value } => f.write_str(if value == 1 { "true" } else { "false" }),
            Node::Const { width, value } if value < 1 << 16 => write!(f, "{value}:w{width}"),
            Node::Const { width, value } => write!(f, "{value:#x}:w{width}"),
            Node::Revision => f.write_str("rev"),
            Node::Input { array, index } => write!(f, "{}[{index}]", p.array_label(array)),
            Node::Not(a) => self.list(f, "not", &[], &[a], d),
            Node::Bin { op, lhs, rhs } => self.list(f, op.name(), &[], &[lhs, rhs], d),
            Node::Cmp { op, lhs, rhs } => self.list(f, op.name(), &[], &[lhs, rhs], d),
            Node::Ite { cond, then, els } => self.list(f, "ite", &[], &[cond, then, els], d),
            Node::Concat { hi, lo } => match self.byte_slice(e) {
                Some((array, top, bottom)) => write!(f, "{}[{top}:{bottom}]", p.array_label(array)),
                None => self.list(f, "concat", &[], &[hi, lo], d),
            },
            Node::Extract { arg, offset, width } => {
                self.list(f, "extract", &[offset.to_string(), format!("w{width}")], &[arg], d)
            }
            Node::ZExt { arg, width } => self.list(f, "zext", &[format!("w{width}")], &[arg], d),
            Node::SExt { arg, width } => self.list(f, "sext", &[format!("w{width}")], &[arg], d),
            Node::ConstArray(c) => {
                let bytes = p.const_array_bytes(c);
                f.write_str("[")?;
                for (i, b) in bytes.iter().take(MAX_ARRAY_BYTES).enumerate() {
                    write!(f, "{}{b}", if i > 0 { " " } else { "" })?;
                }
                if bytes.len() > MAX_ARRAY_BYTES {
                    write!(f, " … ({} bytes)", bytes.len())?;
                }
                f.write_str("]")
            }
            Node::InputArray(a) => f.write_str(&p.array_label(a)),
            Node::Store { array, index, value } => self.list(f, "store", &[], &[array, index, value], d),
            Node::Select { array, index } => self.list(f, "select", &[], &[array, index], d),
            Node::Float { op, a, b, c } => self.list(f, &op.name(), &[], &[a, b, c][..op.arity()], d),
        }
    }

    fn list(
        &self,
        f: &mut fmt::Formatter<'_>,
        head: &str,
        params: &[String],
        args: &[ExprId],
        depth: usize,
    ) -> fmt::Result {
        write!(f, "({head}")?;
        for param in params {
            write!(f, " {param}")?;
        }
        for &a in args {
            f.write_str(" ")?;
            self.print(f, a, depth)?;
        }
        f.write_str(")")
    }

    /// `(array, top, bottom)` when `e` is `concat(a[top], concat(a[top-1], ... a[bottom]))`.
    fn byte_slice(&self, e: ExprId) -> Option<(ArrayId, u64, u64)> {
        let p = self.pool;
        let mut parts = Vec::new();
        let mut cur = e;
        loop {
            match *p.node(cur) {
                Node::Concat { hi, lo } => {
                    parts.push(hi);
                    cur = lo;
                }
                _ => {
                    parts.push(cur);
                    break;
                }
            }
        }
        let input = |x: ExprId| match *p.node(x) {
            Node::Input { array, index } => Some((array, index)),
            _ => None,
        };
        let (array, top) = input(parts[0])?;
        for (k, &part) in parts.iter().enumerate() {
            let (a, i) = input(part)?;
            if a != array || top.checked_sub(k as u64) != Some(i) {
                return None;
            }
        }
        Some((array, top, top - (parts.len() as u64 - 1)))
    }
}
