//! Allocation: `alloca` (variable-length arrays too), malloc, calloc,
//! realloc and free, with sizes concrete or decided by the input.
//!
//! A symbolic size up to `SYM_CAP` bytes stays symbolic: the object gets a
//! concrete capacity no feasible size exceeds and the size as an expression
//! (`ObjectState::sym_size`), which every bounds check compares against, so
//! one path covers every size its constraints allow and an access past the
//! size is an error path where it may happen (ASan's buffer overflows). A
//! larger feasible size is a path of its own, concretised to the least such
//! size and recorded as such. Sizes natively refused are errors: a stack larger than
//! `MAX_ALLOC`, a heap object larger than AddressSanitizer's limit, a
//! calloc whose count times size overflows.
//!
//! In detail: a size the input decides is a count times a concrete unit
//! (calloc's symbolic factor; where both are symbolic the size is concretised).
//! Where it may exceed what the native build serves it is an error path: over
//! `MAX_ALLOC` for the stack (`exec`, natively a stack overflow), over ASan's
//! 1 TiB for the heap (`alloc`: ASan aborts there, a negative `n * sizeof` and
//! an overflowing calloc included). Up to `SYM_CAP` (64 KiB) the state commits
//! to that range (a copy takes the rest, `assume_or_fork`, and concretises it to
//! the least of those sizes, whose loops are shortest; recorded), and the object
//! gets the smallest power-of-two capacity no feasible size exceeds. **Why an
//! object of symbolic size, not a fork per size:** loops over the array fork per
//! size anyway where the program's behaviour depends on it, and a path that
//! does not depend on it (a read of `a[n - 1]`) stays one path; no bound on the
//! number of sizes is needed. The capacity is what every copy of the state
//! holds, hence the cap. As ASan does, malloc(0) serves one byte
//! (`ite(n == 0, 1, n)`), and realloc to 0 frees and returns NULL. realloc
//! copies the smaller capacity with its unwritten marks (past either size no
//! access succeeds) and marks the bytes from the least old size the path allows
//! as unwritten (natively garbage; recorded as an approximation).

use crate::expr::ExprId;
use crate::expr::fold::mask;

use super::executor::{Executor, Place, Res, Stop};
use super::halt::{ApproxKind, ErrorKind};
use super::memory::{ObjId, ObjKind};
use super::state::ExecutionState;
use super::value::Value;

/// The largest allocation (alloca, malloc) the engine makes; a larger
/// alloca is an `exec` error (natively the stack overflows), a larger
/// malloc returns NULL, a recorded approximation.
const MAX_ALLOC: u64 = 1 << 28;
/// The largest malloc AddressSanitizer (psychic's replay build) serves; a
/// larger one aborts ("requested allocation size exceeds maximum supported
/// size").
const ASAN_MAX_ALLOC: u64 = 1 << 40;
/// The largest capacity of an object of symbolic size: every state that
/// holds the object holds that many bytes, so a larger feasible size is
/// concretised instead.
const SYM_CAP: u64 = 1 << 16;

/// A new object's size on this path.
enum Size {
    Bytes(u64),
    /// `n` bytes, at most `cap`.
    Symbolic {
        n: ExprId,
        cap: u64,
    },
}

/// What a size may not exceed, and the error beyond it.
struct Limit {
    bytes: u64,
    kind: ErrorKind,
    what: &'static str,
}

const STACK: Limit = Limit { bytes: MAX_ALLOC, kind: ErrorKind::Exec, what: "the stack the engine allows" };
const ASAN_HEAP: Limit = Limit {
    bytes: ASAN_MAX_ALLOC,
    kind: ErrorKind::Alloc,
    what: "the largest allocation AddressSanitizer makes",
};

impl<'m> Executor<'m> {
    /// `alloca` of `count` elements of `elem` bytes: the new object's address.
    pub(super) fn alloca(
        &mut self,
        st: &mut ExecutionState,
        count: &Value,
        width: u32,
        elem: u64,
        align: u64,
    ) -> Res<u64> {
        let size = self.size_of(st, count, width, elem, &STACK, "alloca")?;
        let id = self.allocate(st, size, align, ObjKind::Stack);
        st.memory.object_mut(id).mark_uninitialised(0);
        st.frame_mut().allocas.push(id);
        Ok(st.memory.object(id).base)
    }

    /// A heap object of `n` times `unit` bytes: zeroed (calloc), or garbage
    /// natively (malloc, realloc).
    pub(super) fn heap_alloc(
        &mut self,
        st: &mut ExecutionState,
        n: &Value,
        unit: u64,
        zeroed: bool,
        what: &'static str,
    ) -> Res<u64> {
        let size = self.size_of(st, n, 64, unit, &ASAN_HEAP, what)?;
        if let Size::Bytes(b) = size
            && b > MAX_ALLOC
        {
            let what = format!("{what} of {b} bytes fails (larger than the engine's limit)");
            self.warn(what.clone());
            // Natively such a malloc succeeds, or ASan runs out of memory.
            self.approximate(st, ApproxKind::Limit, what);
            return Ok(0);
        }
        // ASan serves a request of 0 bytes with 1 (consecutive mallocs
        // differ, and the byte may be used).
        let size = match size {
            Size::Bytes(b) => Size::Bytes(b.max(1)),
            Size::Symbolic { n, cap } => {
                let zero = self.pool.constant(64, 0);
                let is_zero = self.pool.eq(n, zero);
                if self.may(st, is_zero)? {
                    let one = self.pool.constant(64, 1);
                    Size::Symbolic { n: self.pool.ite(is_zero, one, n), cap }
                } else {
                    Size::Symbolic { n, cap }
                }
            }
        };
        let id = self.allocate(st, size, 16, ObjKind::Heap);
        if !zeroed {
            st.memory.object_mut(id).mark_uninitialised(0);
        }
        Ok(st.memory.object(id).base)
    }

    /// calloc(count, size): the symbolic factor is the count (both symbolic:
    /// the size is concretised).
    pub(super) fn calloc(&mut self, st: &mut ExecutionState, count: &Value, size: &Value) -> Res<u64> {
        let (count, unit) = match (count, size) {
            (Value::Sym(_), Value::Int(u)) => (count, *u as u64),
            (_, Value::Sym(_)) if !matches!(count, Value::Sym(_)) => {
                let u = self.concretize(st, count, 64, "calloc count")? as u64;
                (size, u)
            }
            _ => (count, self.concretize(st, size, 64, "calloc size")? as u64),
        };
        self.heap_alloc(st, count, unit, true, "calloc")
    }

    pub(super) fn realloc(&mut self, st: &mut ExecutionState, p: u64, n: &Value) -> Res<u64> {
        if p == 0 {
            return self.heap_alloc(st, n, 1, false, "realloc");
        }
        let old_id = match st.memory.at_base(p) {
            Some(id) if st.memory.object(id).kind == ObjKind::Heap => id,
            _ => return Err(self.bad_free(st, p, "realloc")),
        };
        // realloc(p, 0) frees p and returns NULL (glibc, and ASan by default).
        let freed = match n {
            Value::Sym(e) => {
                let zero = self.pool.constant(self.pool.width(*e), 0);
                let nonzero = self.pool.ne(*e, zero);
                !self.assume_or_fork(st, nonzero)?
            }
            v => v.as_int() == Some(0),
        };
        if freed {
            st.memory.remove(old_id);
            return Ok(0);
        }
        let q = self.heap_alloc(st, n, 1, false, "realloc")?;
        if q == 0 {
            return Ok(0);
        }
        let new_id = st.memory.at_base(q).expect("just allocated");
        // Past either size the bytes are never read: every access there is
        // an error path.
        let keep = st.memory.object(old_id).size.min(st.memory.object(new_id).size);
        if keep > 0 {
            let bytes = self.read_bytes(st, Place::C { obj: old_id, off: 0 }, keep);
            self.write_bytes(st, Place::C { obj: new_id, off: 0 }, &bytes);
            st.memory.copy_uninitialised(old_id, new_id, keep);
        }
        // Natively the bytes past the old size are garbage, even where the
        // old object's capacity held zeros (calloc) or lost its marks (a
        // write at a symbolic offset): from the least old size the path
        // allows on, a read of them is recorded.
        if let Some(n_old) = st.memory.object(old_id).sym_size {
            let least = self.least_value(st, n_old)?;
            st.memory.object_mut(new_id).mark_uninitialised(least);
        }
        st.memory.remove(old_id);
        Ok(q)
    }

    pub(super) fn free(&mut self, st: &mut ExecutionState, p: u64) -> Res<()> {
        if p == 0 {
            return Ok(());
        }
        match st.memory.at_base(p) {
            Some(id) if st.memory.object(id).kind == ObjKind::Heap => {
                st.memory.remove(id);
                Ok(())
            }
            _ => Err(self.bad_free(st, p, "free")),
        }
    }

    fn bad_free(&self, st: &ExecutionState, p: u64, what: &str) -> Stop {
        let msg = if st.memory.freed_at(p).is_some_and(|(b, _)| b == p) {
            format!("double free: {what}() of {p:#x}, which was already freed")
        } else if st.memory.find(p).is_some() {
            format!("{what}() of {p:#x}, which malloc did not return")
        } else {
            format!("{what}() of an invalid pointer {p:#x}")
        };
        self.error(st, ErrorKind::Free, msg)
    }

    fn allocate(&mut self, st: &mut ExecutionState, size: Size, align: u64, kind: ObjKind) -> ObjId {
        match size {
            Size::Bytes(b) => st.memory.allocate(b, align, kind),
            Size::Symbolic { n, cap } => {
                let id = st.memory.allocate(cap, align, kind);
                st.memory.object_mut(id).sym_size = Some(n);
                id
            }
        }
    }

    /// The size of `count` (`width` bits, unsigned) times `unit` bytes on
    /// this path. Where it may exceed `limit`, that is an error path; where
    /// it may exceed `SYM_CAP`, a copy of the state takes those sizes, one
    /// of them concretised, and runs the instruction again.
    fn size_of(
        &mut self,
        st: &mut ExecutionState,
        count: &Value,
        width: u32,
        unit: u64,
        limit: &Limit,
        what: &str,
    ) -> Res<Size> {
        let too_big = |b: &str| format!("{what} of {b} exceeds {}", limit.what);
        let count = match count {
            Value::Sym(e) => self.split_revisions(st, *e)?,
            v => {
                let c = self.concretize(st, v, width, what)? & mask(width);
                self.pool.constant(width, c)
            }
        };
        let Some(c) = self.pool.as_const(count) else {
            return self.symbolic_size(st, count, unit, limit, what);
        };
        let bytes = c.saturating_mul(u128::from(unit));
        if bytes > u128::from(limit.bytes) {
            return Err(self.error(st, limit.kind.clone(), too_big(&format!("{bytes} bytes"))));
        }
        Ok(Size::Bytes(bytes as u64))
    }

    fn symbolic_size(
        &mut self,
        st: &mut ExecutionState,
        count: ExprId,
        unit: u64,
        limit: &Limit,
        what: &str,
    ) -> Res<Size> {
        if unit == 0 {
            return Ok(Size::Bytes(0));
        }
        let w = self.pool.width(count);
        // `count * unit <= k` exactly when `count <= k / unit`, without a
        // product that could wrap.
        let at_most = |ex: &mut Self, k: u64| {
            let q = u128::from(k / unit);
            if q >= mask(w) {
                return ex.pool.true_();
            }
            let q = ex.pool.constant(w, q);
            ex.pool.ule(count, q)
        };
        let fits = at_most(self, limit.bytes);
        let msg = format!("{what} of a size the input decides may exceed {}", limit.what);
        self.check_or_fail(st, fits, limit.kind.clone(), msg)?;
        let small = at_most(self, SYM_CAP);
        if !self.assume_or_fork(st, small)? {
            // The least size past the cap: of the sizes this path stands
            // for, the one whose loops are shortest.
            let c = self.least_value(st, count)?;
            self.fix_value(st, count, u128::from(c), w, &format!("{what} size"))?;
            return Ok(Size::Bytes(c * unit));
        }
        let count = self.pool.zext_or_trunc(count, 64);
        let k = self.pool.constant(64, u128::from(unit));
        let n = self.pool.mul(count, k);
        let cap = self.capacity(st, n)?;
        Ok(Size::Symbolic { n, cap })
    }

    /// The least value of `n` on this path.
    fn least_value(&mut self, st: &ExecutionState, n: ExprId) -> Res<u64> {
        let v =
            self.solver.get_value(&self.pool, &st.constraints, n).map_err(|e| self.solver_error(st, e))?;
        let (mut lo, mut hi) = (0u64, v as u64);
        let w = self.pool.width(n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let k = self.pool.constant(w, u128::from(mid));
            let below = self.pool.ule(n, k);
            if self.may(st, below)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }

    /// A power of two no feasible value of `n` exceeds, at most `SYM_CAP`
    /// (which the path already ensures): the bytes every copy of the
    /// object holds.
    fn capacity(&mut self, st: &ExecutionState, n: ExprId) -> Res<u64> {
        let v =
            self.solver.get_value(&self.pool, &st.constraints, n).map_err(|e| self.solver_error(st, e))?;
        let mut cap = (v as u64).max(16).next_power_of_two().min(SYM_CAP);
        while cap < SYM_CAP {
            let k = self.pool.constant(64, u128::from(cap));
            let below = self.pool.ule(n, k);
            if self.must(st, below)? {
                break;
            }
            cap *= 2;
        }
        Ok(cap)
    }
}
