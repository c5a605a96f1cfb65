//! Instruction semantics: what each instruction of the IR does to a state
//! (arithmetic, casts, selects, address arithmetic, branches and switches),
//! and where symbolic values must be made concrete. KLEE keeps these in
//! `Executor::executeInstruction`; here they are a room of their own, so
//! that the loop and the halting logic read apart from the semantics.

use crate::expr::float::FKind;
use crate::expr::fold::mask;
use crate::expr::{ExprId, ExprPool, FloatOp};
use crate::ir::{BinOp, CastOp, Edge, Inst, Op, Operand, TypeKind};
use crate::solver::Validity;

use super::halt::{ApproxKind, ErrorKind, Termination};
use super::state::ExecutionState;
use super::value::{self, DivError, Value};

use super::executor::{Executor, Place, Res, Stop, low_bits};

impl<'m> Executor<'m> {
    pub(super) fn exec(&mut self, st: &mut ExecutionState, inst: &Inst) -> Res<()> {
        let v = match &inst.op {
            Op::Bin { op, width, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                match (&a, &b) {
                    (Value::Agg(_), _) => {
                        self.lift2(st, &a, &b, &mut |ex, st, a, b| ex.binop(st, *op, *width, a, b))?
                    }
                    _ => self.binop(st, *op, *width, &a, &b)?,
                }
            }
            Op::ICmp { pred, width, a, b } if *width > 128 => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let (Some(x), Some(y)) = (value::to_big(&a), value::to_big(&b)) else {
                    return Err(self.wide_symbolic(st));
                };
                Value::Int(value::wide_icmp(*pred, *width, &x, &y) as u128)
            }
            Op::ICmp { pred, width, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    Self::set(st, inst.dst, Value::Int(value::icmp(*pred, *width, *x, *y) as u128));
                    st.frame_mut().pc += 1;
                    return Ok(());
                }
                self.lift2(st, &a, &b, &mut |ex, _, a, b| {
                    Ok(match (a, b) {
                        (Value::Int(x), Value::Int(y)) => {
                            Value::Int(value::icmp(*pred, *width, *x, *y) as u128)
                        }
                        _ => {
                            let (x, y) = (ex.expr(a, *width), ex.expr(b, *width));
                            let e = icmp_expr(&mut ex.pool, *pred, x, y);
                            ex.value_of(e)
                        }
                    })
                })?
            }
            Op::FBin { op, kind, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let fop = FloatOp::Bin(*op, *kind);
                self.lift2(st, &a, &b, &mut |ex, _, a, b| {
                    Ok(ex.float_op(fop, kind.width(), &[a.clone(), b.clone()]))
                })?
            }
            Op::FNeg { kind, a } => {
                let a = self.val(st, *a);
                self.lift1(st, &a, &mut |ex, _, a| Ok(ex.fneg(*kind, a)))?
            }
            Op::FCmp { pred, kind, a, b } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let fop = FloatOp::Cmp(*pred, *kind);
                self.lift2(st, &a, &b, &mut |ex, _, a, b| {
                    Ok(ex.float_op(fop, kind.width(), &[a.clone(), b.clone()]))
                })?
            }
            Op::Select { cond, t, f, width } => {
                let (c, t, f) = (self.val(st, *cond), self.val(st, *t), self.val(st, *f));
                self.select(st, &c, &t, &f, *width)?
            }
            Op::Cast { op, from, to, a } if *from > 128 || *to > 128 => {
                let a = self.val(st, *a);
                match value::to_big(&a).and_then(|x| value::wide_cast(*op, *from, *to, &x)) {
                    Some(v) => v,
                    None => return Err(self.wide_symbolic(st)),
                }
            }
            Op::Cast { op, from, to, a } => {
                let a = self.val(st, *a);
                self.lift1(st, &a, &mut |ex, st, a| ex.cast(st, *op, *from, *to, a))?
            }
            Op::Reshape { from, to, a } => {
                let a = self.val(st, *a);
                let bytes = self.image(&a, *from);
                let v = self.value_from_image(&bytes, *to);
                self.check_unhandled(st)?;
                v
            }
            Op::Copy { a } => self.val(st, *a),
            Op::Alloca { elem_size, count, count_width, align } => {
                let n = self.val(st, *count);
                let base = self.alloca(st, &n, *count_width, *elem_size, u64::from(*align))?;
                Value::Int(u128::from(base))
            }
            Op::Load { ty, ptr } => {
                let p = self.val(st, *ptr);
                let size = self.m.ty(*ty).store_size;
                let place = self.resolve(st, &p, size, false)?;
                if let Place::C { obj, off } = place
                    && matches!(
                        self.m.ty(*ty).kind,
                        TypeKind::Int(_) | TypeKind::Ptr | TypeKind::Float | TypeKind::Double
                    )
                    && st.memory.object(obj).reads_uninitialised(off, size)
                {
                    let what = "read of uninitialised memory (natively garbage, here 0)".to_string();
                    self.approximate(st, ApproxKind::Uninitialised, what);
                }
                let v = self.load(st, place, *ty);
                self.check_unhandled(st)?;
                v
            }
            Op::Store { ty, val, ptr } => {
                let (v, p) = (self.val(st, *val), self.val(st, *ptr));
                let size = self.m.ty(*ty).store_size;
                let place = self.resolve(st, &p, size, true)?;
                self.store(st, place, *ty, &v);
                st.frame_mut().pc += 1;
                return Ok(());
            }
            Op::Gep { base, offset, indices } => self.gep(st, *base, *offset, indices),
            Op::ExtractValue { agg, path } => {
                let mut v = self.val(st, *agg);
                for &i in path.iter() {
                    v = match v {
                        Value::Agg(items) => items.get(i as usize).cloned().unwrap_or(Value::Int(0)),
                        other => other,
                    };
                }
                v
            }
            Op::InsertValue { agg, val, path } => {
                let (a, v) = (self.val(st, *agg), self.val(st, *val));
                insert_at(&a, path, v)
            }
            Op::ExtractElement { vec, idx } => {
                let (v, i) = (self.val(st, *vec), self.val(st, *idx));
                let i = self.concretize(st, &i, 64, "vector index")?;
                match v {
                    Value::Agg(items) => items.get(i as usize).cloned().unwrap_or(Value::Int(0)),
                    other => other,
                }
            }
            Op::InsertElement { vec, val, idx } => {
                let (v, x, i) = (self.val(st, *vec), self.val(st, *val), self.val(st, *idx));
                let i = self.concretize(st, &i, 64, "vector index")?;
                match v {
                    Value::Agg(items) => {
                        let mut items = items.to_vec();
                        if let Some(slot) = items.get_mut(i as usize) {
                            *slot = x;
                        }
                        Value::Agg(items.into())
                    }
                    other => other,
                }
            }
            Op::Shuffle { a, b, mask } => {
                let (a, b) = (self.val(st, *a), self.val(st, *b));
                let items = |v: &Value| match v {
                    Value::Agg(i) => i.to_vec(),
                    other => vec![other.clone()],
                };
                let all: Vec<Value> = items(&a).into_iter().chain(items(&b)).collect();
                let out: Vec<Value> = mask
                    .iter()
                    .map(|m| m.and_then(|i| all.get(i as usize).cloned()).unwrap_or(Value::Int(0)))
                    .collect();
                Value::Agg(out.into())
            }
            Op::Call { callee, args, ret, byval, vararg_tys } => {
                return self.call(st, inst.dst, callee, args, *ret, byval, vararg_tys);
            }
            Op::Br { edge } => {
                self.jump(st, edge);
                return Ok(());
            }
            Op::CondBr { cond, t, f } => {
                let c = self.val(st, *cond);
                return self.cond_br(st, &c, t, f);
            }
            Op::Switch { val, width, cases, default } => {
                let v = self.val(st, *val);
                return self.switch(st, &v, *width, cases, default);
            }
            Op::Ret { val } => {
                let v = val.map(|o| self.val(st, o));
                return self.ret(st, v);
            }
            Op::Unreachable => return Err(self.error(st, ErrorKind::Exec, "reached `unreachable`")),
            Op::Unsupported { text } => return Err(self.error(st, ErrorKind::Unhandled, text.to_string())),
        };
        Self::set(st, inst.dst, v);
        st.frame_mut().pc += 1;
        Ok(())
    }

    /// Applies a scalar operation elementwise to vectors.
    fn lift2(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        b: &Value,
        f: &mut dyn FnMut(&mut Self, &mut ExecutionState, &Value, &Value) -> Res<Value>,
    ) -> Res<Value> {
        match (a, b) {
            (Value::Agg(xs), Value::Agg(ys)) => {
                let mut out = Vec::with_capacity(xs.len());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    out.push(f(self, st, x, y)?);
                }
                Ok(Value::Agg(out.into()))
            }
            _ => f(self, st, a, b),
        }
    }

    fn lift1(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        f: &mut dyn FnMut(&mut Self, &mut ExecutionState, &Value) -> Res<Value>,
    ) -> Res<Value> {
        match a {
            Value::Agg(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs.iter() {
                    out.push(f(self, st, x)?);
                }
                Ok(Value::Agg(out.into()))
            }
            _ => f(self, st, a),
        }
    }

    pub(super) fn binop(
        &mut self,
        st: &mut ExecutionState,
        op: BinOp,
        w: u32,
        a: &Value,
        b: &Value,
    ) -> Res<Value> {
        if w > 128 {
            let (Some(x), Some(y)) = (value::to_big(a), value::to_big(b)) else {
                return Err(self.wide_symbolic(st));
            };
            return match value::wide_bin(op, w, &x, &y) {
                Ok(v) => Ok(v),
                Err(DivError::ByZero) => Err(self.error(st, ErrorKind::Div, "division by zero")),
                Err(DivError::Overflow) => Err(self.error(st, ErrorKind::Div, "division overflow")),
            };
        }
        let shift = matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr);
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            let y = if shift {
                if *y >= u128::from(w) && self.cfg.check_overshift {
                    return Err(self.error(st, ErrorKind::Overshift, format!("shift by {y} of an i{w}")));
                }
                value::x86_shift_count(*y, w)
            } else {
                *y
            };
            return match value::bin(op, w, *x, y) {
                Ok(r) => Ok(Value::Int(r)),
                Err(DivError::ByZero) => Err(self.error(st, ErrorKind::Div, "division by zero")),
                Err(DivError::Overflow) => {
                    Err(self.error(st, ErrorKind::Div, "division overflow (INT_MIN / -1 traps on x86-64)"))
                }
            };
        }
        let (x, mut y) = (self.expr(a, w), self.expr(b, w));
        match op {
            BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem => {
                let zero = self.pool.constant(w, 0);
                let is_zero = self.pool.eq(y, zero);
                self.check_error(st, is_zero, ErrorKind::Div, "division by zero")?;
                if matches!(op, BinOp::SDiv | BinOp::SRem) && w > 1 {
                    let min = self.pool.constant(w, crate::expr::fold::signed_min(w));
                    let m1 = self.pool.constant(w, mask(w));
                    let (c1, c2) = (self.pool.eq(x, min), self.pool.eq(y, m1));
                    let ovf = self.pool.bool_and(c1, c2);
                    self.check_error(
                        st,
                        ovf,
                        ErrorKind::Div,
                        "division overflow (INT_MIN / -1 traps on x86-64)",
                    )?;
                }
            }
            _ if shift => {
                if self.cfg.check_overshift {
                    let wc = self.pool.constant(w, u128::from(w));
                    let over = self.pool.uge(y, wc);
                    self.check_error(
                        st,
                        over,
                        ErrorKind::Overshift,
                        format!("shift of an i{w} by its width or more"),
                    )?;
                } else if w <= 64 {
                    let m = self.pool.constant(w, if w <= 32 { 31 } else { 63 });
                    y = self.pool.and(y, m);
                }
            }
            _ => {}
        }
        let e = self.pool.binary(value::ebin(op), x, y);
        Ok(self.value_of(e))
    }

    /// Fails if the last value construction met something unsupported.
    fn check_unhandled(&mut self, st: &ExecutionState) -> Res<()> {
        match self.unhandled.take() {
            Some(msg) => Err(self.error(st, ErrorKind::Unhandled, msg)),
            None => Ok(()),
        }
    }

    /// A symbolic value where only concrete integers wider than 128 bits work.
    pub(super) fn wide_symbolic(&self, st: &ExecutionState) -> Stop {
        self.error(st, ErrorKind::Unhandled, "symbolic integer wider than 128 bits")
    }

    /// Forks off an error path where `cond` may hold; the current path
    /// continues where it does not.
    pub(super) fn check_error(
        &mut self,
        st: &mut ExecutionState,
        cond: ExprId,
        kind: ErrorKind,
        msg: impl Into<String>,
    ) -> Res<()> {
        let cond = self.split_revisions(st, cond)?;
        match self.pool.as_const(cond) {
            Some(0) => return Ok(()),
            Some(_) => return Err(self.error(st, kind, msg)),
            None => {}
        }
        match self.solver.evaluate(&self.pool, &st.constraints, cond) {
            Ok(Validity::False) => Ok(()),
            Ok(Validity::True) => Err(self.error(st, kind, msg)),
            Ok(Validity::Unknown) => {
                let mut bad = st.clone();
                bad.constraints.push(cond);
                let not = self.pool.bool_not(cond);
                st.constraints.push(not);
                let t = self.error_termination(&bad, kind, msg.into());
                self.halt_forked(bad, t);
                Ok(())
            }
            Err(e) => Err(self.solver_error(st, e)),
        }
    }

    /// A float operand: symbolic floats are concretised (with a warning).
    pub(super) fn concrete_float(&mut self, st: &mut ExecutionState, v: &Value) -> Res<u128> {
        match v {
            Value::Int(x) => Ok(*x),
            Value::Sym(e) => {
                let w = self.pool.width(*e);
                self.concretize(st, v, w, "floating-point value")
            }
            Value::Agg(_) | Value::Wide(_) => Ok(0),
        }
    }

    /// One value of `v` on this path, which is constrained to it.
    pub(super) fn concretize(
        &mut self,
        st: &mut ExecutionState,
        v: &Value,
        width: u32,
        what: &str,
    ) -> Res<u128> {
        let e = match v {
            Value::Int(x) => return Ok(*x),
            Value::Sym(e) => *e,
            Value::Wide(b) => return Ok(low_bits(b)),
            Value::Agg(_) => return Ok(0),
        };
        let e = self.split_revisions(st, e)?;
        if let Some(c) = self.pool.as_const(e) {
            return Ok(c);
        }
        let c = self
            .solver
            .get_value(&self.pool, &st.constraints, e)
            .map_err(|err| self.solver_error(st, err))?;
        self.fix_value(st, e, c, width, what)?;
        Ok(c)
    }

    /// Constrains `e` to its feasible value `c` on this path: recorded as a
    /// concretisation unless the path already fixes it.
    pub(super) fn fix_value(
        &mut self,
        st: &mut ExecutionState,
        e: ExprId,
        c: u128,
        width: u32,
        what: &str,
    ) -> Res<()> {
        let k = self.pool.constant(width.max(self.pool.width(e)), c);
        let eq = self.pool.eq(e, k);
        // A value the path already fixes loses nothing.
        let other = self.pool.bool_not(eq);
        if self.may(st, other)? {
            let what = format!("concretised a symbolic {what}");
            self.warn(what.clone());
            self.approximate(st, ApproxKind::Concretised, what);
        }
        st.constraints.push(eq);
        Ok(())
    }

    pub(super) fn cast(
        &mut self,
        st: &mut ExecutionState,
        op: CastOp,
        from: u32,
        to: u32,
        a: &Value,
    ) -> Res<Value> {
        match a {
            Value::Int(x) => Ok(Value::Int(value::cast(op, from, to, *x))),
            Value::Sym(e) => {
                let e = *e;
                let r = match op {
                    CastOp::Trunc | CastOp::Bits if to < self.pool.width(e) => self.pool.extract(e, 0, to),
                    CastOp::Trunc | CastOp::Bits | CastOp::ZExt => self.pool.zext_or_trunc(e, to),
                    CastOp::SExt => self.pool.sext(e, to),
                    CastOp::FpToSi | CastOp::FpToUi if to <= 64 => {
                        let signed = op == CastOp::FpToSi;
                        let fop = FloatOp::ToInt { signed, from: FKind::of_width(from), width: to as u8 };
                        self.pool.float(fop, &[e])
                    }
                    CastOp::SiToFp | CastOp::UiToFp => {
                        let fop = FloatOp::FromInt { signed: op == CastOp::SiToFp, to: FKind::of_width(to) };
                        self.pool.float(fop, &[e])
                    }
                    CastOp::FpTrunc | CastOp::FpExt => {
                        self.pool.float(FloatOp::Convert { to: FKind::of_width(to) }, &[e])
                    }
                    // fptosi to i128 calls compiler-rt natively: concretised (reported).
                    CastOp::FpToSi | CastOp::FpToUi => {
                        let x = self.concrete_float(st, a)?;
                        return Ok(Value::Int(value::cast(op, from, to, x)));
                    }
                };
                Ok(self.value_of(r))
            }
            Value::Agg(_) | Value::Wide(_) => Ok(a.clone()),
        }
    }

    pub(super) fn select(
        &mut self,
        st: &mut ExecutionState,
        c: &Value,
        t: &Value,
        f: &Value,
        width: u32,
    ) -> Res<Value> {
        match c {
            Value::Int(x) => Ok(if *x & 1 != 0 { t.clone() } else { f.clone() }),
            Value::Wide(_) => Ok(t.clone()),
            Value::Agg(cs) => {
                let (ts, fs) = match (t, f) {
                    (Value::Agg(ts), Value::Agg(fs)) => (ts.clone(), fs.clone()),
                    _ => return Ok(t.clone()),
                };
                let mut out = Vec::with_capacity(cs.len());
                for ((c, t), f) in cs.iter().zip(ts.iter()).zip(fs.iter()) {
                    out.push(self.select(st, c, t, f, width)?);
                }
                Ok(Value::Agg(out.into()))
            }
            Value::Sym(e) => {
                let e = self.split_revisions(st, *e)?;
                if let Some(x) = self.pool.as_const(e) {
                    return Ok(if x & 1 != 0 { t.clone() } else { f.clone() });
                }
                if matches!(t, Value::Wide(_)) || matches!(f, Value::Wide(_)) {
                    return Err(self.wide_symbolic(st));
                }
                self.ite(e, t, f, width)
            }
        }
    }

    /// `c ? t : f` as a value; `width` is that of two constant arms.
    pub(super) fn ite(&mut self, c: ExprId, t: &Value, f: &Value, width: u32) -> Res<Value> {
        Ok(match (t, f) {
            (Value::Agg(ts), Value::Agg(fs)) => {
                let mut out = Vec::with_capacity(ts.len());
                for (x, y) in ts.iter().zip(fs.iter()) {
                    out.push(self.ite(c, x, y, width)?);
                }
                Value::Agg(out.into())
            }
            _ => {
                let w = match (t, f) {
                    (Value::Sym(e), _) | (_, Value::Sym(e)) => self.pool.width(*e),
                    _ if width > 0 => width,
                    _ => {
                        return Err(Stop::Halt(Box::new(Termination::Error {
                            kind: ErrorKind::Unhandled,
                            message: "a symbolic choice between two constant aggregates".into(),
                            location: None,
                            stack: Vec::new(),
                        })));
                    }
                };
                let (x, y) = (self.expr(t, w), self.expr(f, w));
                let e = self.pool.ite(c, x, y);
                self.value_of(e)
            }
        })
    }

    fn gep(
        &mut self,
        st: &mut ExecutionState,
        base: Operand,
        offset: i64,
        indices: &[(Operand, u32, i64)],
    ) -> Value {
        let b = self.val(st, base);
        let mut acc = match b {
            Value::Int(x) => Value::Int((x as u64).wrapping_add(offset as u64) as u128),
            ref other => {
                let e = self.expr(other, 64);
                let k = self.pool.constant(64, offset as u64 as u128);
                Value::Sym(self.pool.add(e, k))
            }
        };
        for &(op, w, scale) in indices {
            let i = self.val(st, op);
            acc = match (&acc, &i) {
                (Value::Int(a), Value::Int(x)) => {
                    let x = value::to_signed(*x, w) as i64;
                    Value::Int(((*a as u64).wrapping_add(x.wrapping_mul(scale) as u64)) as u128)
                }
                _ => {
                    let ie = self.expr(&i, w);
                    let ie = if w < 64 { self.pool.sext(ie, 64) } else { self.pool.zext_or_trunc(ie, 64) };
                    let k = self.pool.constant(64, scale as u64 as u128);
                    let prod = self.pool.mul(ie, k);
                    let ae = self.expr(&acc, 64);
                    let e = self.pool.add(ae, prod);
                    self.value_of(e)
                }
            };
        }
        if let Value::Sym(e) = acc {
            let origin = match b {
                Value::Int(x) => st.memory.find(x as u64).map(|id| st.memory.object(id).base),
                Value::Sym(from) => self.provenance.get(&from).copied().flatten(),
                _ => None,
            };
            if let Some(origin) = origin {
                let known = self.provenance.entry(e).or_insert(Some(origin));
                if *known != Some(origin) {
                    *known = None;
                }
            }
        }
        acc
    }

    pub(super) fn jump(&mut self, st: &mut ExecutionState, edge: &Edge) {
        if !edge.moves.is_empty() {
            let vals: Vec<Value> = edge.moves.iter().map(|&(_, op)| self.val(st, op)).collect();
            let regs = &mut st.frame_mut().regs;
            for (&(r, _), v) in edge.moves.iter().zip(vals) {
                regs[r as usize] = v;
            }
        }
        let f = st.frame().func;
        let body = self.m.func(f).body.as_ref().expect("defined");
        st.frame_mut().pc = body.blocks[edge.target.index()].first.0;
        self.cover(st, f, edge.target.index());
    }

    fn cond_br(&mut self, st: &mut ExecutionState, c: &Value, t: &Edge, f: &Edge) -> Res<()> {
        let e = match c {
            Value::Int(x) => {
                self.jump(st, if x & 1 != 0 { t } else { f });
                return Ok(());
            }
            Value::Sym(e) => *e,
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "branch on a vector"));
            }
        };
        if self.pool.mentions_revision(e) && st.revisions.len() > 1 {
            let mut choose = |ex: &mut Self, r: u32| {
                let c = ex.pool.substitute_revision(e, r);
                ex.pool.as_const(c).map(|c| if c & 1 != 0 { t } else { f })
            };
            if self.revision_jump(st, &mut choose) {
                return Ok(());
            }
        }
        let e = self.split_revisions(st, e)?;
        match self.decide(st, e)? {
            Some(b) => self.jump(st, if b { t } else { f }),
            None => {
                if !self.may_fork(st)? {
                    st.constraints.push(e);
                    self.jump(st, t);
                    return Ok(());
                }
                let mut child = st.clone();
                let not = self.pool.bool_not(e);
                child.constraints.push(not);
                st.constraints.push(e);
                st.depth += 1;
                child.depth += 1;
                self.stats.forks += 1;
                self.jump(&mut child, f);
                self.jump(st, t);
                self.forked.push(child);
            }
        }
        Ok(())
    }

    pub(super) fn switch(
        &mut self,
        st: &mut ExecutionState,
        v: &Value,
        w: u32,
        cases: &[(u128, Edge)],
        default: &Edge,
    ) -> Res<()> {
        let e = match v {
            Value::Int(x) => {
                let edge = cases.iter().find(|(c, _)| c == x).map_or(default, |(_, e)| e);
                self.jump(st, edge);
                return Ok(());
            }
            _ => self.expr(v, w),
        };
        if self.pool.mentions_revision(e) && st.revisions.len() > 1 {
            let mut choose = |ex: &mut Self, r: u32| {
                let c = ex.pool.substitute_revision(e, r);
                let c = ex.pool.as_const(c)?;
                Some(cases.iter().find(|(k, _)| *k == c).map_or(default, |(_, e)| e))
            };
            if self.revision_jump(st, &mut choose) {
                return Ok(());
            }
        }
        let e = self.split_switch_revisions(st, e, cases, default)?;
        if let Some(x) = self.pool.as_const(e) {
            let edge = cases.iter().find(|(c, _)| *c == x).map_or(default, |(_, e)| e);
            self.jump(st, edge);
            return Ok(());
        }
        // One condition per distinct target block, in order of appearance.
        let mut targets: Vec<(&Edge, ExprId)> = Vec::new();
        let mut none = self.pool.true_();
        for (c, edge) in cases {
            let k = self.pool.constant(w, *c);
            let is = self.pool.eq(e, k);
            let isnt = self.pool.bool_not(is);
            none = self.pool.bool_and(none, isnt);
            match targets.iter_mut().find(|(t, _)| t.target == edge.target) {
                Some((_, cond)) => *cond = self.pool.bool_or(*cond, is),
                None => targets.push((edge, is)),
            }
        }
        targets.push((default, none));
        let mut feasible = Vec::new();
        for (edge, cond) in targets {
            if self.branch_query(st, |s, pool, constraints| s.may_be_true(pool, constraints, cond))? {
                feasible.push((edge, cond));
            }
        }
        if feasible.len() > 1 && !self.may_fork(st)? {
            feasible.truncate(1);
        }
        let Some(&(first, first_cond)) = feasible.first() else {
            return Err(self.error(st, ErrorKind::Exec, "switch with no feasible target"));
        };
        if feasible.len() > 1 {
            st.depth += 1;
            for &(edge, cond) in &feasible[1..] {
                let mut child = st.clone();
                child.constraints.push(cond);
                self.stats.forks += 1;
                self.jump(&mut child, edge);
                self.forked.push(child);
            }
            st.constraints.push(first_cond);
        }
        self.jump(st, first);
        Ok(())
    }
}

fn icmp_expr(pool: &mut ExprPool, p: crate::ir::IPred, x: ExprId, y: ExprId) -> ExprId {
    use crate::ir::IPred::*;
    match p {
        Eq => pool.eq(x, y),
        Ne => pool.ne(x, y),
        Ugt => pool.ugt(x, y),
        Uge => pool.uge(x, y),
        Ult => pool.ult(x, y),
        Ule => pool.ule(x, y),
        Sgt => pool.sgt(x, y),
        Sge => pool.sge(x, y),
        Slt => pool.slt(x, y),
        Sle => pool.sle(x, y),
    }
}

fn insert_at(agg: &Value, path: &[u32], v: Value) -> Value {
    let Some((&i, rest)) = path.split_first() else { return v };
    match agg {
        Value::Agg(items) => {
            let mut items = items.to_vec();
            if let Some(slot) = items.get_mut(i as usize) {
                *slot = insert_at(slot, rest, v);
            }
            Value::Agg(items.into())
        }
        other => other.clone(),
    }
}
