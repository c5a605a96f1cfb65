//! Memory access: resolving a pointer to the objects it may point into
//! (forking per object, with bounds checks as error paths), loads and stores
//! of typed values, and the conversion between values and their byte
//! images. KLEE's `executeMemoryOperation` and `AddressSpace::resolve`.
//!
//! A symbolic address that `getelementptr` computed from an object
//! (`Executor::provenance`, by expression) resolves to that object alone: an
//! access that may leave it is an out-of-bounds error path, never a read of
//! whatever object the engine's layout puts there (C forbids the arithmetic,
//! and natively the address lands wherever the binary's layout puts it, so
//! such a path never replays). Within ASan's least redzone of the object (16
//! bytes around a heap chunk, 32 around stack and global objects) the error is
//! exact; farther out it is an `undefined` approximation too, since ASan may
//! not see it. Addresses without provenance (integer casts, selects of two
//! objects) resolve as KLEE does, to every object they may fall into.
//!
//! Objects are found by their capacity; for an object of symbolic size every
//! bounds check (`in_bounds`: in `resolve_in`, the one-object fast path and
//! `resolve_fork`; a concrete address into it goes through `resolve_in`) also
//! asks `offset + length <= sym_size`, and forks a `ptr` error where that may
//! fail (`check_or_fail`); a string read from it must end within the size.

use crate::expr::ExprId;
use crate::expr::fold::mask;
use crate::ir::{TyId, TypeKind};

use super::halt::{ApproxKind, ErrorKind};
use super::memory::{NULL_PAGE, ObjId, ObjKind, byte_expr, to_byte};
use super::state::ExecutionState;
use super::value::{self, Byte, Value};

use super::executor::{Executor, MAX_RESOLVE, Place, Res, Stop};

/// The least redzone AddressSanitizer puts on either side of an object: 16
/// bytes around a heap chunk, 32 around stack variables, allocas and
/// globals. An access this close is reported natively.
fn redzone(kind: ObjKind) -> u64 {
    if kind == ObjKind::Heap { 16 } else { 32 }
}

/// What a bounds check needs of an object.
#[derive(Clone, Copy)]
struct Bounds {
    base: u64,
    cap: u64,
    sym_size: Option<ExprId>,
    redzone: u64,
}

fn bounds(st: &ExecutionState, id: ObjId) -> Bounds {
    let o = st.memory.object(id);
    Bounds { base: o.base, cap: o.size, sym_size: o.sym_size, redzone: redzone(o.kind) }
}

impl Bounds {
    /// The object with ASan's least redzone on either side.
    fn redzoned(self, pool: &mut crate::expr::ExprPool) -> Bounds {
        let sym_size = self.sym_size.map(|n| {
            let rz = pool.constant(64, u128::from(2 * self.redzone));
            pool.add(n, rz)
        });
        Bounds {
            base: self.base.saturating_sub(self.redzone),
            cap: self.cap + 2 * self.redzone,
            sym_size,
            redzone: self.redzone,
        }
    }

    fn describe(&self) -> String {
        match self.sym_size {
            None => format!("an object of {} bytes", self.cap),
            Some(_) => format!("an object whose size the input decides (at most {} bytes)", self.cap),
        }
    }
}

impl<'m> Executor<'m> {
    /// Resolves a pointer for an access of `size` bytes.
    pub(super) fn resolve(
        &mut self,
        st: &mut ExecutionState,
        p: &Value,
        size: u64,
        write: bool,
    ) -> Res<Place> {
        let e = match p {
            Value::Int(a) => {
                let a = *a as u64;
                if let Some(id) = st.memory.find(a) {
                    let o = st.memory.object(id);
                    if o.contains(a, size) {
                        if o.sym_size.is_some() {
                            let e = self.pool.constant(64, u128::from(a));
                            return self.resolve_in(st, e, id, size, write);
                        }
                        if write && o.readonly {
                            return Err(self.error(
                                st,
                                ErrorKind::ReadOnly,
                                format!("write to read-only memory at {a:#x}"),
                            ));
                        }
                        return Ok(Place::C { obj: id, off: a - o.base });
                    }
                }
                return Err(self.bad_pointer(st, a, size));
            }
            Value::Sym(e) => {
                let origin =
                    self.provenance.get(e).copied().flatten().and_then(|base| {
                        st.memory.find(base).filter(|&id| st.memory.object(id).base == base)
                    });
                let e = self.split_revisions(st, *e)?;
                if let Some(id) = origin
                    && self.pool.as_const(e).is_none()
                {
                    return self.resolve_in(st, e, id, size, write);
                }
                e
            }
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "memory access through a vector"));
            }
        };
        if let Some(a) = self.pool.as_const(e) {
            return self.resolve(st, &Value::Int(a), size, write);
        }
        // Fast path: one object holds every feasible address.
        let v =
            self.solver.get_value(&self.pool, &st.constraints, e).map_err(|err| self.solver_error(st, err))?
                as u64;
        if let Some(id) = st.memory.find(v) {
            let inb = self.in_bounds(e, bounds(st, id), size);
            match self.solver.must_be_true(&self.pool, &st.constraints, inb) {
                Ok(true) => return self.place_in(st, e, id, write),
                Ok(false) => {}
                Err(err) => return Err(self.solver_error(st, err)),
            }
        }
        self.resolve_fork(st, e, size, write)
    }

    /// An address computed from object `id` (`Executor::provenance`), or a
    /// concrete one into an object of symbolic size: an access through it
    /// that may leave the object is an error path, as an out-of-bounds index
    /// is under ASan, never an access to whatever object the engine's layout
    /// puts there.
    fn resolve_in(
        &mut self,
        st: &mut ExecutionState,
        e: ExprId,
        id: ObjId,
        size: u64,
        write: bool,
    ) -> Res<Place> {
        let b = bounds(st, id);
        let inb = self.in_bounds(e, b, size);
        let msg = format!(
            "out of bound pointer: an access of {size} bytes may leave {}, the object its address was \
             computed from",
            b.describe()
        );
        if self.must(st, inb)? {
            return self.place_in(st, e, id, write);
        }
        // Within a redzone of the object ASan reports the access, as the
        // engine does; farther out it may land in another object unseen.
        let zone = b.redzoned(&mut self.pool);
        let near = self.in_bounds(e, zone, size);
        let far = self.pool.bool_not(near);
        if self.may(st, far)? {
            let far_path = |ex: &mut Self, bad: &mut ExecutionState| {
                bad.constraints.push(far);
                let what = format!("an access more than {} bytes outside {}", b.redzone, b.describe());
                ex.approximate(bad, ApproxKind::Undefined, what);
                ex.error_termination(bad, ErrorKind::Ptr, msg.clone())
            };
            if !self.may(st, near)? {
                return Err(Stop::Halt(Box::new(far_path(self, st))));
            }
            let mut bad = st.clone();
            let t = far_path(self, &mut bad);
            self.halt_forked(bad, t);
            st.constraints.push(near);
        }
        self.check_or_fail(st, inb, ErrorKind::Ptr, msg)?;
        self.place_in(st, e, id, write)
    }

    /// Keeps this path where `ok` holds; where it may not, the rest is an
    /// error path of `kind`.
    pub(super) fn check_or_fail(
        &mut self,
        st: &mut ExecutionState,
        ok: ExprId,
        kind: ErrorKind,
        msg: String,
    ) -> Res<()> {
        if self.must(st, ok)? {
            return Ok(());
        }
        let fail = self.pool.bool_not(ok);
        if !self.may(st, ok)? {
            st.constraints.push(fail);
            return Err(self.error(st, kind, msg));
        }
        self.fork_errors(st, kind, vec![(fail, msg)]);
        st.constraints.push(ok);
        Ok(())
    }

    fn place_in(&mut self, st: &ExecutionState, e: ExprId, obj: ObjId, write: bool) -> Res<Place> {
        let o = st.memory.object(obj);
        if write && o.readonly {
            return Err(self.error(st, ErrorKind::ReadOnly, "write to read-only memory"));
        }
        let b = self.pool.constant(64, u128::from(o.base));
        let off = self.pool.sub(e, b);
        Ok(match self.pool.as_const(off) {
            Some(c) => Place::C { obj, off: c as u64 },
            None => Place::S { obj, off },
        })
    }

    /// `base <= e && e + size <= base + cap`, without wrap-around, and for
    /// an object of symbolic size `e - base + size <= sym_size`.
    fn in_bounds(&mut self, e: ExprId, b: Bounds, size: u64) -> ExprId {
        if size > b.cap {
            return self.pool.false_();
        }
        let lo = self.pool.constant(64, u128::from(b.base));
        let ge = self.pool.uge(e, lo);
        let hi = self.pool.constant(64, u128::from(b.base + b.cap - size));
        let le = self.pool.ule(e, hi);
        let inside = self.pool.bool_and(ge, le);
        let Some(n) = b.sym_size else { return inside };
        // Within the capacity `e - base + size` cannot wrap.
        let off = self.pool.sub(e, lo);
        let len = self.pool.constant(64, u128::from(size));
        let end = self.pool.add(off, len);
        let fits = self.pool.ule(end, n);
        self.pool.bool_and(inside, fits)
    }

    /// KLEE's resolve: from an example address, scans the objects below and
    /// above it for those the pointer may point into (stopping where it
    /// must lie above, or below, an object), forks one state per such
    /// object, and an error state where the access may overflow an object
    /// or miss them all.
    fn resolve_fork(&mut self, st: &mut ExecutionState, e: ExprId, size: u64, write: bool) -> Res<Place> {
        let v =
            self.solver.get_value(&self.pool, &st.constraints, e).map_err(|err| self.solver_error(st, err))?
                as u64;
        let mut candidates: Vec<(ObjId, Bounds)> = Vec::new();
        let info = |id: ObjId| (id, bounds(st, id));
        let down: Vec<(ObjId, Bounds)> = st.memory.below(v).map(info).collect();
        let up: Vec<(ObjId, Bounds)> = st.memory.above(v).map(info).collect();
        for (id, b) in down {
            if candidates.len() >= MAX_RESOLVE {
                break;
            }
            let in_range = self.in_range(e, b);
            if self.may(st, in_range)? {
                candidates.push((id, b));
            }
            let lo = self.pool.constant(64, u128::from(b.base));
            let above = self.pool.uge(e, lo);
            if self.must(st, above)? {
                break;
            }
        }
        for (id, b) in up {
            if candidates.len() >= MAX_RESOLVE {
                break;
            }
            let lo = self.pool.constant(64, u128::from(b.base));
            let below = self.pool.ult(e, lo);
            if self.must(st, below)? {
                break;
            }
            let in_range = self.in_range(e, b);
            if self.may(st, in_range)? {
                candidates.push((id, b));
            }
        }
        let mut targets: Vec<(ObjId, ExprId)> = Vec::new();
        let mut errors: Vec<(ExprId, String)> = Vec::new();
        let mut outside = self.pool.true_();
        for &(id, b) in &candidates {
            let inb = self.in_bounds(e, b, size);
            if self.may(st, inb)? {
                targets.push((id, inb));
            }
            let in_range = self.in_range(e, b);
            let not_inb = self.pool.bool_not(inb);
            let partial = self.pool.bool_and(in_range, not_inb);
            if self.may(st, partial)? {
                let msg =
                    format!("out of bound pointer: an access of {size} bytes overflows {}", b.describe());
                errors.push((partial, msg));
            }
            let not_in = self.pool.bool_not(in_range);
            outside = self.pool.bool_and(outside, not_in);
        }
        if self.may(st, outside)? {
            errors.push((outside, "out of bound pointer: the address may lie outside every object".into()));
        }
        if targets.is_empty() {
            // Every feasible address is an error: this state takes the first.
            let Some((c, msg)) = errors.pop() else {
                return Err(self.error(st, ErrorKind::Ptr, "the pointer has no feasible value"));
            };
            self.fork_errors(st, ErrorKind::Ptr, errors);
            st.constraints.push(c);
            return Err(self.error(st, ErrorKind::Ptr, msg));
        }
        self.fork_errors(st, ErrorKind::Ptr, errors);
        let (base, cond) = targets[0];
        for &(_, c) in &targets[1..] {
            let mut child = st.clone();
            child.constraints.push(c);
            self.stats.forks += 1;
            self.forked.push(child);
        }
        st.constraints.push(cond);
        self.place_in(st, e, base, write)
    }

    fn fork_errors(&mut self, st: &ExecutionState, kind: ErrorKind, errors: Vec<(ExprId, String)>) {
        for (c, msg) in errors {
            let mut bad = st.clone();
            bad.constraints.push(c);
            let t = self.error_termination(&bad, kind.clone(), msg);
            self.halt_forked(bad, t);
        }
    }

    /// `base <= e < base + cap`.
    fn in_range(&mut self, e: ExprId, b: Bounds) -> ExprId {
        let lo = self.pool.constant(64, u128::from(b.base));
        let hi = self.pool.constant(64, u128::from(b.base + b.cap.max(1)));
        let (ge, lt) = (self.pool.uge(e, lo), self.pool.ult(e, hi));
        self.pool.bool_and(ge, lt)
    }

    fn bad_pointer(&self, st: &ExecutionState, a: u64, size: u64) -> Stop {
        let msg = if a < NULL_PAGE {
            format!("null pointer dereference (address {a:#x})")
        } else if let Some((b, s)) = st.memory.freed_at(a) {
            format!(
                "use after free: address {a:#x} is in a heap object of {s} bytes at {b:#x} that was freed"
            )
        } else if let Some(b) = st.memory.find(a).map(|id| bounds(st, id)) {
            format!(
                "out of bound pointer: an access of {size} bytes at offset {} of {}",
                a - b.base,
                b.describe()
            )
        } else if self.m.func_at(a).is_some() {
            format!("access to a function's address {a:#x}")
        } else {
            format!("out of bound pointer: address {a:#x} is in no object")
        };
        self.error(st, ErrorKind::Ptr, msg)
    }

    pub(super) fn read_bytes(&mut self, st: &ExecutionState, place: Place, n: u64) -> Vec<Byte> {
        let o = st.memory.object(place.obj());
        match place {
            Place::C { off, .. } => match o.concrete_bytes(off, n) {
                Some(b) => b.iter().map(|&x| Byte::C(x)).collect(),
                None => (0..n).map(|i| o.read_byte(&mut self.pool, off + i)).collect(),
            },
            Place::S { off, .. } => (0..n)
                .map(|i| {
                    let e = o.read_sym_byte(&mut self.pool, off, i);
                    to_byte(&self.pool, e)
                })
                .collect(),
        }
    }

    pub(super) fn write_bytes(&mut self, st: &mut ExecutionState, place: Place, bytes: &[Byte]) {
        let o = st.memory.object_mut(place.obj());
        match place {
            Place::C { off, .. } => {
                for (i, b) in bytes.iter().enumerate() {
                    o.write_byte(&mut self.pool, off + i as u64, *b);
                }
            }
            Place::S { off, .. } => o.write_sym_bytes(&mut self.pool, off, bytes),
        }
    }

    pub(super) fn read_scalar(&mut self, st: &ExecutionState, place: Place, n: u64, w: u32) -> Value {
        if let Place::C { obj, off } = place
            && n <= 16
            && let Some(v) = st.memory.object(obj).read_concrete(off, n)
        {
            return Value::Int(v & mask(w));
        }
        let bytes = self.read_bytes(st, place, n);
        self.scalar_from_bytes(&bytes, w)
    }

    pub(super) fn load(&mut self, st: &ExecutionState, place: Place, ty: TyId) -> Value {
        let t = self.m.ty(ty);
        match t.kind {
            TypeKind::Int(w) => self.read_scalar(st, place, t.store_size, w),
            TypeKind::Ptr => self.read_scalar(st, place, 8, 64),
            TypeKind::Float => self.read_scalar(st, place, 4, 32),
            TypeKind::Double => self.read_scalar(st, place, 8, 64),
            _ => {
                let bytes = self.read_bytes(st, place, t.store_size);
                self.value_from_image(&bytes, ty)
            }
        }
    }

    pub(super) fn store(&mut self, st: &mut ExecutionState, place: Place, ty: TyId, v: &Value) {
        if let (Place::C { obj, off }, Value::Int(x)) = (place, v) {
            let n = self.m.ty(ty).store_size;
            if n <= 16 {
                let o = st.memory.object_mut(obj);
                o.write_concrete(&mut self.pool, off, n, *x);
                return;
            }
        }
        let bytes = self.image(v, ty);
        self.write_bytes(st, place, &bytes);
    }

    /// A scalar of `w` bits from its little-endian bytes.
    pub(super) fn scalar_from_bytes(&mut self, bytes: &[Byte], w: u32) -> Value {
        if bytes.is_empty() {
            return Value::Int(0);
        }
        if w > 128 {
            let concrete: Option<Vec<u8>> =
                bytes.iter().map(|b| if let Byte::C(c) = b { Some(*c) } else { None }).collect();
            return match concrete {
                Some(c) => value::big_value(num_bigint::BigUint::from_bytes_le(&c), w),
                None => {
                    self.unhandled = Some("symbolic bytes read as an integer wider than 128 bits".into());
                    Value::Int(0)
                }
            };
        }
        if bytes.iter().all(|b| matches!(b, Byte::C(_))) && bytes.len() <= 16 {
            let mut buf = [0u8; 16];
            for (i, b) in bytes.iter().enumerate() {
                if let Byte::C(c) = b {
                    buf[i] = *c;
                }
            }
            return Value::Int(u128::from_le_bytes(buf) & mask(w));
        }
        let mut e = byte_expr(&mut self.pool, bytes[bytes.len() - 1]);
        for b in bytes[..bytes.len() - 1].iter().rev() {
            let lo = byte_expr(&mut self.pool, *b);
            e = self.pool.concat(e, lo);
        }
        if self.pool.width(e) > w {
            e = self.pool.extract(e, 0, w);
        }
        self.value_of(e)
    }

    /// The little-endian bytes of a scalar of `n` bytes.
    pub(super) fn scalar_bytes(&mut self, v: &Value, n: u64) -> Vec<Byte> {
        match v {
            Value::Int(x) => {
                let mut b: Vec<Byte> = x.to_le_bytes().iter().take(n as usize).map(|&b| Byte::C(b)).collect();
                b.resize(n as usize, Byte::C(0));
                b
            }
            Value::Sym(e) => {
                let w = self.pool.width(*e);
                let full = if u64::from(w) < 8 * n { self.pool.zext(*e, 8 * n as u32) } else { *e };
                (0..n)
                    .map(|i| {
                        let b = self.pool.extract(full, 8 * i as u32, 8);
                        to_byte(&self.pool, b)
                    })
                    .collect()
            }
            Value::Wide(b) => value::big_bytes(b, n as usize).into_iter().map(Byte::C).collect(),
            Value::Agg(_) => vec![Byte::C(0); n as usize],
        }
    }

    /// A value's in-memory image as type `ty` (padding reads as zero).
    pub(super) fn image(&mut self, v: &Value, ty: TyId) -> Vec<Byte> {
        let m = self.m;
        let t = m.ty(ty);
        match (&t.kind, v) {
            (TypeKind::Struct { fields, offsets }, Value::Agg(items)) => {
                let mut out = vec![Byte::C(0); t.store_size as usize];
                for ((f, off), item) in fields.iter().zip(offsets.iter()).zip(items.iter()) {
                    let img = self.image(item, *f);
                    out[*off as usize..*off as usize + img.len()].copy_from_slice(&img);
                }
                out
            }
            (TypeKind::Array { elem, .. }, Value::Agg(items)) => {
                let step = m.ty(*elem).alloc_size as usize;
                let mut out = vec![Byte::C(0); t.store_size as usize];
                for (i, item) in items.iter().enumerate() {
                    let img = self.image(item, *elem);
                    out[i * step..i * step + img.len()].copy_from_slice(&img);
                }
                out
            }
            (TypeKind::Vector { elem, .. }, Value::Agg(items)) => match m.ty(*elem).kind {
                TypeKind::Int(w) if w % 8 != 0 => {
                    // Sub-byte elements are packed bits, element 0 lowest.
                    let packed = self.pack_bits(items, w);
                    self.scalar_bytes(&packed, t.store_size)
                }
                _ => items.iter().flat_map(|item| self.image(item, *elem)).collect(),
            },
            _ => self.scalar_bytes(v, t.store_size),
        }
    }

    fn pack_bits(&mut self, items: &[Value], w: u32) -> Value {
        if items.iter().all(|v| matches!(v, Value::Int(_))) && items.len() as u32 * w <= 128 {
            let mut acc = 0u128;
            for (i, v) in items.iter().enumerate() {
                acc |= (v.as_int().unwrap_or(0) & mask(w)) << (i as u32 * w);
            }
            return Value::Int(acc);
        }
        let mut e = self.expr(&items[items.len() - 1], w);
        for v in items[..items.len() - 1].iter().rev() {
            let lo = self.expr(v, w);
            e = self.pool.concat(e, lo);
        }
        self.value_of(e)
    }

    /// A value of type `ty` from its in-memory image.
    pub(super) fn value_from_image(&mut self, bytes: &[Byte], ty: TyId) -> Value {
        let m = self.m;
        let t = m.ty(ty);
        match &t.kind {
            TypeKind::Struct { fields, offsets } => Value::Agg(
                fields
                    .iter()
                    .zip(offsets.iter())
                    .map(|(f, off)| {
                        let n = m.ty(*f).store_size as usize;
                        self.value_from_image(&bytes[*off as usize..*off as usize + n], *f)
                    })
                    .collect(),
            ),
            TypeKind::Array { elem, len } => {
                let (step, n) = (m.ty(*elem).alloc_size as usize, m.ty(*elem).store_size as usize);
                Value::Agg(
                    (0..*len as usize)
                        .map(|i| self.value_from_image(&bytes[i * step..i * step + n], *elem))
                        .collect(),
                )
            }
            TypeKind::Vector { elem, len } => match m.ty(*elem).kind {
                TypeKind::Int(w) if w % 8 != 0 => {
                    let all = self.scalar_from_bytes(bytes, len * w);
                    Value::Agg(
                        (0..*len)
                            .map(|i| match &all {
                                Value::Int(x) => Value::Int((x >> (i * w)) & mask(w)),
                                other => {
                                    let e = self.expr(other, len * w);
                                    let x = self.pool.extract(e, i * w, w);
                                    self.value_of(x)
                                }
                            })
                            .collect(),
                    )
                }
                _ => {
                    let n = m.ty(*elem).store_size as usize;
                    Value::Agg(
                        (0..*len as usize)
                            .map(|i| self.value_from_image(&bytes[i * n..(i + 1) * n], *elem))
                            .collect(),
                    )
                }
            },
            TypeKind::Int(w) => self.scalar_from_bytes(bytes, *w),
            TypeKind::Float => self.scalar_from_bytes(bytes, 32),
            _ => self.scalar_from_bytes(bytes, (8 * bytes.len() as u32).clamp(8, 128)),
        }
    }
}
