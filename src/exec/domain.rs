//! The input domain, where the program's first steps bound it to a box.
//!
//! Until a path first forks on an input, approximates or halts, it stands
//! for every input of its revisions: each input either follows it or fails
//! a `klee_assume` on the way (natively, status 120). So its constraints at
//! its last `klee_assume` in that stretch hold for every input of its
//! revisions' domain, and the range of each object under them is a box that
//! holds that domain. A split on the revision begins two such paths; the
//! domain is the hull of every revision's box. Where it is small, running
//! every input of it natively on every revision is a proof
//! (`crate::fuzz`'s enumeration).

use super::executor::Executor;
use super::state::{ExecutionState, SymbolicObject};
use super::value::Byte;
use crate::expr::ExprId;

/// The largest box worth enumerating: at a few microseconds a run, seconds
/// per revision.
pub const MAX_INPUTS: u64 = 1 << 22;

/// The timeout of a query that bounds an object, and of all of them: the
/// engine waits for them.
const QUERY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(50);
const BOX_TIME: std::time::Duration = std::time::Duration::from_secs(1);

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
    /// The least box holding both, if they have the same objects.
    fn hull(&self, other: &InputDomain) -> Option<InputDomain> {
        if self.objects.len() != other.objects.len() {
            return None;
        }
        let objects = self.objects.iter().zip(&other.objects).map(|(a, b)| {
            let same = a.name == b.name && a.size == b.size && a.signed == b.signed;
            let last = |o: &DomainObject| o.first as i128 + o.count as i128 - 1;
            let (lo, hi) = ((a.first as i128).min(b.first as i128), last(a).max(last(b)));
            same.then(|| DomainObject {
                first: lo as i64,
                count: u64::try_from(hi - lo + 1).unwrap_or(u64::MAX),
                ..a.clone()
            })
        });
        Some(InputDomain { objects: objects.collect::<Option<_>>()? })
    }

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

/// The stretch of the run in which a path stands for every input of its
/// revisions: from the start until it forks on an input, approximates or
/// halts. A split on the revision does not end it: each side stands for
/// every input of its own revisions.
#[derive(Default)]
pub(super) struct DomainWindow {
    /// Per revision, its path's inputs and constraints at its latest
    /// `klee_make_symbolic` or `klee_assume` in the stretch.
    seen: Vec<Option<Stretch>>,
    /// Live states whose stretch goes on; the initial one to begin with.
    open: usize,
    closed: bool,
}

/// A path's inputs and constraints in its stretch.
type Stretch = (Vec<SymbolicObject>, Vec<ExprId>);

impl DomainWindow {
    pub(super) fn new(revisions: u32) -> DomainWindow {
        DomainWindow { seen: vec![None; revisions as usize], open: 1, closed: false }
    }

    /// Every stretch has closed: the domain was handed over, or there is none.
    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }
}

impl ExecutionState {
    /// This path still stands for every input of its revisions.
    pub(super) fn domain_open(&self) -> bool {
        self.domain_constraints == self.constraints.len() && self.approximations.is_empty()
    }
}

impl Executor<'_> {
    /// After a `klee_make_symbolic`, or a `klee_assume` (or `klee_range`)
    /// that added `added` constraints to `st`: while `st` stands for every
    /// input of its revisions, its constraints bound their domain.
    pub(super) fn note_domain(&mut self, st: &mut ExecutionState, added: usize) {
        if self.domain.closed
            || !st.approximations.is_empty()
            || st.constraints.len() != st.domain_constraints + added
        {
            return;
        }
        st.domain_constraints = st.constraints.len();
        for r in st.revisions.iter() {
            self.domain.seen[r as usize] = Some((st.symbolics.clone(), st.constraints.clone()));
        }
    }

    /// Counts the stretches a step ended (`before`: the stepped state's was
    /// open when it began) and began (its children's); when none is left,
    /// the box of what they saw, once.
    pub(super) fn step_domain(
        &mut self,
        before: bool,
        st: &ExecutionState,
        halted: bool,
        children: &[ExecutionState],
    ) -> Option<InputDomain> {
        let after = !halted && st.domain_open();
        let born = children.iter().filter(|c| c.domain_open()).count();
        self.count_stretches(born + usize::from(after), usize::from(before))
    }

    /// Counts `began` stretches and `ended` ones (also where a merge joins
    /// two states into one); when none is left, the box of what they saw,
    /// once.
    pub(super) fn count_stretches(&mut self, began: usize, ended: usize) -> Option<InputDomain> {
        if self.domain.closed {
            return None;
        }
        self.domain.open = self.domain.open + began - ended;
        if self.domain.open > 0 {
            return None;
        }
        self.domain.closed = true;
        let seen = std::mem::take(&mut self.domain.seen);
        // Each revision's own box; the domain is their hull, over the same
        // objects.
        let mut boxes: Vec<(&Stretch, InputDomain)> = Vec::new();
        for s in &seen {
            let s = s.as_ref()?;
            if boxes.iter().any(|(k, _)| *k == s) {
                continue;
            }
            boxes.push((s, self.revision_box(&s.0, &s.1)?));
        }
        let mut boxes = boxes.into_iter().map(|(_, b)| b);
        let first = boxes.next()?;
        boxes.try_fold(first, |hull, b| hull.hull(&b))
    }

    /// The box of one revision's objects under its constraints, unless it
    /// has more than `MAX_INPUTS` inputs. Each query may take
    /// `QUERY_TIMEOUT`, all of them `BOX_TIME` (float inputs make slow
    /// ones): a box that costs more is not worth what enumeration saves.
    fn revision_box(&mut self, objects: &[SymbolicObject], constraints: &[ExprId]) -> Option<InputDomain> {
        let timeout = self.solver.set_timeout(QUERY_TIMEOUT);
        let started = std::time::Instant::now();
        let mut inputs = 1u64;
        let mut out = Vec::new();
        for o in objects {
            let Some(r) = self.object_range(o, constraints, started) else { break };
            inputs = inputs.saturating_mul(r.count);
            if inputs > MAX_INPUTS {
                break;
            }
            out.push(r);
        }
        self.solver.set_timeout(timeout);
        (out.len() == objects.len()).then_some(InputDomain { objects: out })
    }

    /// The narrower of the unsigned and the signed range of `o` under
    /// `constraints`: binary searches of the solver's `may_be_true`.
    fn object_range(
        &mut self,
        o: &SymbolicObject,
        constraints: &[ExprId],
        started: std::time::Instant,
    ) -> Option<DomainObject> {
        if !matches!(o.size, 1 | 2 | 4 | 8) {
            return None;
        }
        let w = o.size as u32 * 8;
        let bytes: Vec<Byte> = (0..o.size).map(|i| Byte::S(self.pool.read_input(o.array, i))).collect();
        let v = self.scalar_from_bytes(&bytes, w);
        let x = self.expr(&v, w);
        let mask = (1u128 << w) - 1;
        let sign = 1u128 << (w - 1);
        // The least (or greatest) value `x` may take, as an offset in the
        // order searched: signed values are offset ^ sign.
        let mut bound = |signed: bool, upper: bool| -> Option<u128> {
            let (mut lo, mut hi) = (0u128, mask);
            while lo < hi {
                if started.elapsed() > BOX_TIME {
                    return None;
                }
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
        // Values all below the sign bit are one range either way.
        let (smin, smax) =
            if umax < sign { (umin ^ sign, umax ^ sign) } else { (bound(true, false)?, bound(true, true)?) };
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
