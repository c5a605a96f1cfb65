//! The input domain, where the program's first steps bound it to a box.
//!
//! Until the run first forks, splits its revisions, approximates or halts,
//! one state stands for every input: each input either follows it or fails
//! a `klee_assume` on the way (natively, status 120, on every revision, as
//! no revision has split off yet). So the constraints of that state at its
//! last `klee_assume` in that stretch hold for every input of the domain,
//! and the range of each object under them is a box that holds the whole
//! domain. Where the box is small, running every input of it natively on
//! every revision is a proof (`crate::fuzz`'s enumeration).

use super::executor::Executor;
use super::state::{ExecutionState, SymbolicObject};
use super::value::Byte;
use crate::expr::ExprId;

/// Every input of the program lies in this box (and those outside it fail
/// a `klee_assume`): the objects of its first `klee_make_symbolic` calls,
/// in order, each a range of integers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDomain {
    pub objects: Vec<DomainObject>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainObject {
    pub name: String,
    /// Bytes: 1, 2, 4 or 8, an integer in the machine's byte order.
    pub size: u32,
    /// The least value, and the number of values from it (two's complement
    /// when `signed`).
    pub first: i64,
    pub count: u64,
    pub signed: bool,
}

impl InputDomain {
    /// The inputs of the box, saturating.
    pub fn inputs(&self) -> u64 {
        self.objects.iter().fold(1u64, |n, o| n.saturating_mul(o.count))
    }

    /// "a in 0..=799, b in 0..=799".
    pub fn describe(&self) -> String {
        let range = |o: &DomainObject| {
            let last = (o.first as i128 + o.count as i128 - 1) as i64;
            if o.signed {
                format!("{} in {}..={}", o.name, o.first, last)
            } else {
                format!("{} in {}..={}", o.name, o.first as u64, last as u64)
            }
        };
        self.objects.iter().map(range).collect::<Vec<_>>().join(", ")
    }
}

/// The stretch of the run in which one state stands for every input.
#[derive(Default)]
pub(super) struct DomainWindow {
    /// The state's inputs and constraints at its latest `klee_assume`.
    seen: Option<(Vec<SymbolicObject>, Vec<ExprId>)>,
    closed: bool,
}

impl Executor<'_> {
    /// After a `klee_assume` (or `klee_range`) on `st`: while `st` is still
    /// the run's only state, exact, and unsplit, its constraints bound the
    /// domain.
    pub(super) fn note_domain(&mut self, st: &ExecutionState) {
        if !self.domain.closed
            && self.stats.states_created == 1
            && self.forked.is_empty()
            && st.approximations.is_empty()
        {
            self.domain.seen = Some((st.symbolics.clone(), st.constraints.clone()));
        }
    }

    /// The window closes at the run's first fork, split, approximation or
    /// halt: the box of what it saw, once.
    pub(super) fn close_domain(&mut self) -> Option<InputDomain> {
        if self.domain.closed {
            return None;
        }
        self.domain.closed = true;
        let (objects, constraints) = self.domain.seen.take()?;
        let objects = objects.iter().map(|o| self.object_range(o, &constraints)).collect::<Option<_>>()?;
        Some(InputDomain { objects })
    }

    /// The narrower of the unsigned and the signed range of `o` under
    /// `constraints`: binary searches of the solver's `may_be_true`.
    fn object_range(&mut self, o: &SymbolicObject, constraints: &[ExprId]) -> Option<DomainObject> {
        if !matches!(o.size, 1 | 2 | 4 | 8) {
            return None;
        }
        let w = o.size as u32 * 8;
        let bytes: Vec<Byte> = (0..o.size).map(|i| Byte::S(self.pool.read_input(o.array, i))).collect();
        let v = self.scalar_from_bytes(&bytes, w);
        let x = self.expr(&v, w);
        let mask = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
        let sign = 1u128 << (w - 1);
        // The least (or greatest) value `x` may take, as an offset in the
        // order searched: signed values are offset ^ sign.
        let mut bound = |signed: bool, upper: bool| -> Option<u128> {
            let (mut lo, mut hi) = (0u128, mask);
            while lo < hi {
                let mid = if upper { lo + (hi - lo).div_ceil(2) } else { lo + (hi - lo) / 2 };
                let m = self.pool.constant(w, if signed { mid ^ sign } else { mid });
                let cond = match (signed, upper) {
                    (false, true) => self.pool.uge(x, m),
                    (false, false) => self.pool.ule(x, m),
                    (true, true) => self.pool.sge(x, m),
                    (true, false) => self.pool.sle(x, m),
                };
                let may = self.solver.may_be_true(&self.pool, constraints, cond).ok()?;
                match (upper, may) {
                    (true, true) => lo = mid,
                    (true, false) => hi = mid - 1,
                    (false, true) => hi = mid,
                    (false, false) => lo = mid + 1,
                }
            }
            Some(lo)
        };
        let (umin, umax) = (bound(false, false)?, bound(false, true)?);
        let (smin, smax) = (bound(true, false)?, bound(true, true)?);
        let (signed, min, count) = if smax - smin < umax - umin {
            (true, smin ^ sign, smax - smin + 1)
        } else {
            (false, umin, umax - umin + 1)
        };
        let count = u64::try_from(count).unwrap_or(u64::MAX);
        // The least value's bits as an i64, sign-extended when signed.
        let first = if signed && min & sign != 0 { (min | !mask) as i64 } else { min as i64 };
        Some(DomainObject { name: o.name.clone(), size: o.size as u32, first, count, signed })
    }
}
