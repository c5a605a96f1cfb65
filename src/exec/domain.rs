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
//! (`crate::fuzz`'s enumeration). Where there is no such box, or the run
//! ends before every stretch has, the observer learns why: enumeration's
//! absence is never silent.
//!
//! How: `ExecutionState::domain_constraints` holds while all of a path's
//! constraints came from `klee_assume`; `note_domain` records each revision's
//! inputs and constraints at every `klee_make_symbolic`, `klee_assume` and
//! `klee_range` in that stretch, and `step_domain` counts the stretches still
//! open (a split on the revision opens two) and, when none is, makes the hull of
//! every revision's box. Each bound is a gallop from a solution's value, then
//! a binary search, of queries (signed or unsigned, whichever is narrower)
//! that share 1 s a revision, any one taking
//! what is left of it, since on a busy machine a 10 ms query takes 100; it is
//! given up past `MAX_INPUTS` inputs (float inputs make slow queries and boxes
//! too large to enumerate). The observer hears once (`HaltObserver::on_domain`):
//! the box, or why there is none (an input that is neither an integer of 1,
//! 2, 4 or 8 bytes nor an array of at most 64 of them, found before any
//! query; a box over `MAX_INPUTS`; queries past their time; revisions whose
//! first inputs differ), or, when the run ends with a stretch open
//! (`end_all`), which revisions had not yet branched on an input. An array
//! is a range per element, of the widest element that gives a box small
//! enough.
//! Seeds from outside wait until the domain is known (`seeds.rs`).

use super::executor::Executor;
use super::halt::SymbolicObject;
use super::revset::{RevSet, revisions_named};
use super::state::ExecutionState;
use super::value::Byte;
use crate::expr::ExprId;

/// The largest box worth enumerating: at a few microseconds a run, seconds
/// per revision.
pub const MAX_INPUTS: u64 = 1 << 22;

/// The most integers a box has: what the fuzz server's enumeration takes.
const MAX_INTEGERS: u32 = 64;

/// The time all queries that bound a revision's box may take: the engine
/// waits for them. Any one may take what is left of it: on a busy machine a
/// query the solver answers in 10 ms may take 100.
const BOX_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// Every input of the program lies in this box (and those outside it fail
/// a `klee_assume`): the objects of its first `klee_make_symbolic` calls,
/// in order, each a range of integers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDomain {
    pub objects: Vec<DomainObject>,
}

/// One integer of the box: a whole symbolic object, or an element of one
/// (an array of integers, `int ops[3]`, is a range per element; its
/// elements follow each other, the first with `element` 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainObject {
    /// The symbolic object's name.
    pub name: String,
    pub element: Option<u32>,
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
            let same = a.name == b.name && a.element == b.element && a.size == b.size && a.signed == b.signed;
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

    /// "a in 0..=799, b[0] in -5..=5, b[1] in -5..=5".
    pub fn describe(&self) -> String {
        let range = |o: &DomainObject| {
            let last = (o.first as i128 + o.count as i128 - 1) as i64;
            let name = match o.element {
                Some(i) => format!("{}[{i}]", o.name),
                None => o.name.clone(),
            };
            if o.signed {
                format!("{name} in {}..={}", o.first, last)
            } else {
                format!("{name} in {}..={}", o.first as u64, last as u64)
            }
        };
        self.objects.iter().map(range).collect::<Vec<_>>().join(", ")
    }
}

/// Why a box could not be made, and whether to try no narrower elements of
/// the object: one element's range took every value of its width, more than
/// a box may hold.
struct Why {
    message: String,
    free: bool,
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

    /// The observer knows the domain, or why there is none.
    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }
}

impl ExecutionState {
    /// This path still stands for every input of its revisions.
    pub(crate) fn domain_open(&self) -> bool {
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
    /// open when it began) and began (its children's).
    pub(super) fn step_domain(
        &mut self,
        before: bool,
        st: &ExecutionState,
        halted: bool,
        children: &[ExecutionState],
    ) {
        let after = !halted && st.domain_open();
        let born = children.iter().filter(|c| c.domain_open()).count();
        self.count_stretches(born + usize::from(after), usize::from(before));
    }

    /// Counts `began` stretches and `ended` ones (also where a merge joins
    /// two states into one); when none is left, the observer gets the box of
    /// what they saw, or why there is none, once.
    pub(super) fn count_stretches(&mut self, began: usize, ended: usize) {
        if self.domain.closed {
            return;
        }
        self.domain.open = self.domain.open + began - ended;
        if self.domain.open == 0 {
            let domain = self.domain_box();
            self.close_domain(domain.as_ref().map_err(String::as_str));
        }
    }

    /// The run ends (`why`) while some stretch is open: the observer learns
    /// which revisions had not yet branched on an input, once.
    pub(super) fn domain_unknown(&mut self, why: &str) {
        if self.domain.closed {
            return;
        }
        let open: RevSet = (self.states.keys())
            .filter_map(|k| self.states.get(k).and_then(|s| s.as_deref()))
            .filter(|s| s.domain_open())
            .flat_map(|s| s.revisions.iter())
            .collect();
        let mut reason = format!("the domain was not known when the run ended ({why})");
        if !open.is_empty() {
            reason += &format!(": {} had not branched on an input yet", revisions_named(open.iter()));
        }
        self.close_domain(Err(&reason));
    }

    fn close_domain(&mut self, domain: Result<&InputDomain, &str>) {
        self.domain.closed = true;
        if let Some(obs) = self.observer.as_mut() {
            obs.on_domain(domain);
        }
    }

    /// The hull of every revision's own box, over the same objects, unless
    /// it has more than `MAX_INPUTS` inputs.
    fn domain_box(&mut self) -> Result<InputDomain, String> {
        let seen = std::mem::take(&mut self.domain.seen);
        let mut boxes: Vec<(&Stretch, InputDomain)> = Vec::new();
        for (r, s) in seen.iter().enumerate() {
            let s = s.as_ref().ok_or_else(|| {
                format!("revision {r} made no symbolic input while its path stood for all of its inputs")
            })?;
            if boxes.iter().any(|(k, _)| *k == s) {
                continue;
            }
            let b = self.revision_box(&s.0, &s.1).map_err(|e| format!("revision {r}: {e}"))?;
            boxes.push((s, b));
        }
        let mut boxes = boxes.into_iter().map(|(_, b)| b);
        let first = boxes.next().ok_or("the program makes no symbolic input")?;
        let hull = boxes
            .try_fold(first, |hull, b| hull.hull(&b))
            .ok_or("the revisions make different symbolic inputs before their first branch on one")?;
        let inputs = hull.inputs();
        if inputs > MAX_INPUTS {
            return Err(format!("the box ({}) has {inputs} inputs, more than {MAX_INPUTS}", hull.describe()));
        }
        Ok(hull)
    }

    /// The box of one revision's objects under its constraints, unless it
    /// has more than `MAX_INPUTS` inputs. Its queries may take `BOX_TIME`
    /// (float inputs make slow ones): a box that costs more is not worth
    /// what enumeration saves. An object is one integer where it can be (1,
    /// 2, 4 or 8 bytes), else, or where that box is too large, an array of
    /// integers of the widest element that gives a small enough box (`int
    /// ops[3]`, each in -5..5: 1,331 inputs, where 8 bytes read as one
    /// integer would be billions).
    fn revision_box(
        &mut self,
        objects: &[SymbolicObject],
        constraints: &[ExprId],
    ) -> Result<InputDomain, String> {
        // Before any query: the symbolic environment's objects (a stat
        // buffer, stdin's bytes) are seldom arrays of few integers.
        let widths = |size: u32| -> Vec<u32> {
            [8, 4, 2, 1].into_iter().filter(|&w| size.is_multiple_of(w) && size / w <= MAX_INTEGERS).collect()
        };
        if let Some(o) = objects.iter().find(|o| widths(o.size as u32).is_empty()) {
            return Err(format!(
                "input `{}` has {} bytes, not an integer of 1, 2, 4 or 8 or an array of at most {MAX_INTEGERS}",
                o.name, o.size
            ));
        }
        let timeout = self.solver.timeout();
        let started = std::time::Instant::now();
        let mut bounded = InputDomain { objects: Vec::new() };
        let mut result = Ok(());
        for o in objects {
            let before = bounded.objects.len();
            for w in widths(o.size as u32) {
                bounded.objects.truncate(before);
                result = self.elements_range(o, w, constraints, started, timeout, &mut bounded);
                match &result {
                    Ok(()) => break,
                    // An element whose range is its width's every value,
                    // more than a box holds: narrower elements of it would
                    // make a box as large unless its values are sparse at
                    // both ends, and the queries to find out cost what an
                    // input the program leaves free is not worth.
                    Err(Why { free: true, .. }) => break,
                    Err(_) => {}
                }
            }
            if result.is_err() {
                break;
            }
        }
        self.solver.set_timeout(timeout);
        result.map(|()| bounded).map_err(|why| why.message)
    }

    /// Adds the ranges of `o` read as integers of `w` bytes to `bounded`,
    /// unless the box grows past `MAX_INPUTS` or `MAX_INTEGERS`.
    fn elements_range(
        &mut self,
        o: &SymbolicObject,
        w: u32,
        constraints: &[ExprId],
        started: std::time::Instant,
        timeout: std::time::Duration,
        bounded: &mut InputDomain,
    ) -> Result<(), Why> {
        let whole = w == o.size as u32;
        for i in 0..o.size as u32 / w {
            let element = (!whole).then_some(i);
            let range = self
                .object_range(o, element, w, constraints, started, timeout)
                .map_err(|message| Why { message, free: false })?;
            let free = u128::from(range.count) >= (1u128 << (8 * w)).min(u128::from(u64::MAX));
            bounded.objects.push(range);
            if bounded.objects.len() > MAX_INTEGERS as usize {
                return Err(Why {
                    message: format!("the box has more than {MAX_INTEGERS} integers"),
                    free: false,
                });
            }
            if bounded.inputs() > MAX_INPUTS {
                let message =
                    format!("the box has more than {MAX_INPUTS} inputs ({} alone)", bounded.describe());
                return Err(Why { message, free: free && u128::from(MAX_INPUTS) < 1u128 << (8 * w) });
            }
        }
        Ok(())
    }

    /// The narrower of the unsigned and the signed range of `o` (or of its
    /// element `element` of `size` bytes) under `constraints`: searches of
    /// the solver's `may_be_true`.
    fn object_range(
        &mut self,
        o: &SymbolicObject,
        element: Option<u32>,
        size: u32,
        constraints: &[ExprId],
        started: std::time::Instant,
        timeout: std::time::Duration,
    ) -> Result<DomainObject, String> {
        let w = size * 8;
        let at = element.unwrap_or(0) * size;
        let bytes: Vec<Byte> =
            (at..at + size).map(|i| Byte::S(self.pool.read_input(o.array, i as _))).collect();
        let v = self.scalar_from_bytes(&bytes, w);
        let x = self.expr(&v, w);
        let mask = (1u128 << w) - 1;
        let sign = 1u128 << (w - 1);
        let left = |started: std::time::Instant| {
            BOX_TIME
                .checked_sub(started.elapsed())
                .ok_or_else(|| format!("bounding input `{}` took over {BOX_TIME:?} of queries", o.name))
        };
        // What is left of the box's time, never more than a query's own.
        self.solver.set_timeout(left(started)?.min(timeout));
        let seed = (self.solver.get_value(&self.pool, constraints, x))
            .map_err(|e| format!("a query bounding input `{}` failed: {e}", o.name))?
            & mask;
        // The least (or greatest) value `x` may take, as an offset in the
        // order searched (signed values are offset ^ sign): a gallop out
        // from the value of a solution, then a binary search, so that the
        // queries grow with the log of the distance from that value to the
        // bound, not with the width; the range the order wraps (unsigned
        // of a signed -5..=5) still takes about the width's.
        let mut bound = |signed: bool, upper: bool| -> Result<u128, String> {
            let s = if signed { seed ^ sign } else { seed };
            let mut beyond = |m: u128| -> Result<bool, String> {
                self.solver.set_timeout(left(started)?.min(timeout));
                let c = self.pool.constant(w, if signed { m ^ sign } else { m });
                let cond = match (signed, upper) {
                    (false, true) => self.pool.uge(x, c),
                    (false, false) => self.pool.ule(x, c),
                    (true, true) => self.pool.sge(x, c),
                    (true, false) => self.pool.sle(x, c),
                };
                (self.solver.may_be_true(&self.pool, constraints, cond))
                    .map_err(|e| format!("a query bounding input `{}` failed: {e}", o.name))
            };
            // `x` may reach `near`; `far` is past the bound, or the end.
            let (mut near, mut far) = (s, if upper { mask } else { 0 });
            let mut step = 1u128;
            while near != far {
                let m = if upper {
                    near.saturating_add(step).min(far)
                } else {
                    near.saturating_sub(step).max(far)
                };
                if beyond(m)? {
                    near = m;
                    step = step.saturating_mul(2);
                } else {
                    far = if upper { m - 1 } else { m + 1 };
                    break;
                }
            }
            let (mut lo, mut hi) = if upper { (near, far) } else { (far, near) };
            while lo < hi {
                let mid = if upper { lo + (hi - lo).div_ceil(2) } else { lo + (hi - lo) / 2 };
                match (upper, beyond(mid)?) {
                    (true, true) => lo = mid,
                    (true, false) => hi = mid - 1,
                    (false, true) => hi = mid,
                    (false, false) => lo = mid + 1,
                }
            }
            Ok(lo)
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
        Ok(DomainObject { name: o.name.clone(), element, size, first, count, signed })
    }
}
