//! Calls and returns: frames, `byval` copies, the x86-64 SysV variadic
//! areas (`va_start` reads them), function pointers, and the LLVM
//! intrinsics the engine runs itself. Special (modelled) functions are
//! `special.rs`'s; this room decides which kind of callee a call reaches.
//!
//! A memcpy, memmove or memset of a symbolic length (`sizeof` an input-sized
//! array) calls the libc model's byte loop, which forks per feasible length,
//! rather than concretising the length.

use crate::expr::FloatOp;
use crate::expr::float::FBinOp;
use crate::expr::fold::mask;
use crate::ir::{BinOp, Callee, FuncId, Intrinsic, NO_REG, Operand, Reg, TyId, TypeKind};

use super::halt::{ErrorKind, Termination};
use super::memory::{ObjKind, to_byte};
use super::state::{ExecutionState, VarArgs};
use super::value::{self, Byte, Value};

use super::executor::{Executor, Place, Res, Stop};
use super::special::MathFn;

impl<'m> Executor<'m> {
    pub(super) fn ret(&mut self, st: &mut ExecutionState, v: Option<Value>) -> Res<()> {
        let frame = st.stack.pop().expect("frame");
        for a in frame.allocas {
            st.memory.remove(a);
        }
        // The run's first function returned: as after `main`, `exit` runs
        // the atexit handlers (the model's `__psychic_exit` never returns).
        if st.stack.is_empty()
            && let Some((runner, _)) = self.atexit
            && frame.func != runner
        {
            self.push_frame(st, runner, vec![v.unwrap_or(Value::Int(0))], NO_REG);
            return Ok(());
        }
        if st.stack.is_empty() {
            let status = match v {
                Some(v) => {
                    let e = self.expr(&v, 32);
                    let w = self.pool.width(e);
                    if w > 32 { self.pool.extract(e, 0, 32) } else { self.pool.zext_or_trunc(e, 32) }
                }
                None => self.pool.constant(32, 0),
            };
            return Err(Stop::Halt(Box::new(Termination::Exit { status })));
        }
        if let Some(v) = v {
            Self::set(st, frame.ret_dst, v);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(
        &mut self,
        st: &mut ExecutionState,
        dst: Reg,
        callee: &Callee,
        args: &[Operand],
        ret: TyId,
        byval: &[(u32, u64, u32)],
        vararg_tys: &[TyId],
    ) -> Res<()> {
        let (fid, vals): (FuncId, Vec<Value>) = match callee {
            Callee::Direct(f) => (*f, args.iter().map(|&a| self.val(st, a)).collect()),
            Callee::Indirect(op) => {
                let p = self.val(st, *op);
                let addr = self.function_pointer(st, &p)?;
                match self.m.func_at(addr) {
                    Some(f) => (f, args.iter().map(|&a| self.val(st, a)).collect()),
                    None => {
                        return Err(self.error(
                            st,
                            ErrorKind::Exec,
                            format!("call through an invalid function pointer {addr:#x}"),
                        ));
                    }
                }
            }
            Callee::Intrinsic(k) => {
                let vals: Vec<Value> = args.iter().map(|&a| self.val(st, a)).collect();
                let Some(model) = self.byte_loop(*k, &vals) else {
                    let r = self.intrinsic(st, *k, &vals, ret)?;
                    if let Some(v) = r {
                        Self::set(st, dst, v);
                    }
                    st.frame_mut().pc += 1;
                    return Ok(());
                };
                model
            }
        };
        // `exit` runs the atexit handlers first (`Executor::atexit`).
        let fid = match self.atexit {
            Some((runner, Some(exit))) if fid == exit => runner,
            _ => fid,
        };
        let func = self.m.func(fid);
        if func.body.is_none() {
            let h = self.handlers[fid.index()].expect("declarations have a handler");
            let r = self.call_special(st, fid, &h, &vals, ret, dst != NO_REG)?;
            if let Some(v) = r {
                Self::set(st, dst, v);
            }
            st.frame_mut().pc += 1;
            return Ok(());
        }
        if vals.len() < func.params.len() {
            return Err(self.error(
                st,
                ErrorKind::Exec,
                format!(
                    "call of `{}` with {} arguments; it takes {}",
                    func.name,
                    vals.len(),
                    func.params.len()
                ),
            ));
        }
        if st.stack.len() >= self.cfg.max_stack_frames {
            return Err(self.error(
                st,
                ErrorKind::Exec,
                format!("stack overflow ({} nested calls)", st.stack.len()),
            ));
        }
        if let Some(Some(why)) = self.m.departures.get(fid.index()) {
            // At the caller's call: where the program asked for it.
            self.approximate(st, super::halt::ApproxKind::Libc, why.clone());
        }
        st.frame_mut().pc += 1;
        let fixed = func.params.len();
        let mut params: Vec<Value> = vals[..fixed].to_vec();
        let extra: Vec<Value> = vals[fixed..].to_vec();
        self.push_frame(st, fid, Vec::new(), dst);
        // By-value aggregates: the callee gets its own copy.
        let mut extra_byval = Vec::new();
        for &(k, size, align) in byval {
            let src = vals[k as usize].clone();
            if (k as usize) < fixed {
                let a = self.stack_copy(st, &src, size, align)?;
                params[k as usize] = Value::Int(u128::from(a));
            } else {
                extra_byval.push((k as usize - fixed, size, align));
            }
        }
        for (r, p) in st.frame_mut().regs.iter_mut().zip(params) {
            *r = p;
        }
        if func.vararg {
            self.setup_varargs(st, fid, &extra, vararg_tys, &extra_byval)?;
        }
        Ok(())
    }

    /// memcpy, memmove and memset of a length the input decides (`sizeof`
    /// an input-sized array) run the libc model's byte loop, which forks per
    /// feasible length as klee-libc's does; without the model linked in,
    /// `intrinsic` concretises the length.
    fn byte_loop(&mut self, k: Intrinsic, a: &[Value]) -> Option<(FuncId, Vec<Value>)> {
        let name = match k {
            Intrinsic::Memcpy => "memcpy",
            Intrinsic::Memmove => "memmove",
            Intrinsic::Memset => "memset",
            _ => return None,
        };
        let Value::Sym(n) = a[2] else { return None };
        let f = *self.m.func_by_name.get(name)?;
        self.m.func(f).body.as_ref()?;
        // memset's byte is an int, the length a size_t.
        let second = match (k, &a[1]) {
            (Intrinsic::Memset, Value::Sym(c)) => Value::Sym(self.pool.zext_or_trunc(*c, 32)),
            (_, v) => v.clone(),
        };
        let n = self.pool.zext_or_trunc(n, 64);
        Some((f, vec![a[0].clone(), second, Value::Sym(n)]))
    }

    /// A fresh stack object of the callee holding a copy of `size` bytes at `src`.
    fn stack_copy(&mut self, st: &mut ExecutionState, src: &Value, size: u64, align: u32) -> Res<u64> {
        let id = st.memory.allocate(size, u64::from(align), ObjKind::Stack);
        st.frame_mut().allocas.push(id);
        let from = self.resolve(st, src, size, false)?;
        let bytes = self.read_bytes(st, from, size);
        self.write_bytes(st, Place::C { obj: id, off: 0 }, &bytes);
        Ok(st.memory.object(id).base)
    }

    /// The x86-64 SysV register save area and overflow area of a variadic
    /// callee, filled as the caller's registers and stack would be.
    fn setup_varargs(
        &mut self,
        st: &mut ExecutionState,
        fid: FuncId,
        extra: &[Value],
        tys: &[TyId],
        byval: &[(usize, u64, u32)],
    ) -> Res<()> {
        let m = self.m;
        let (mut gp, mut fp) = (0u64, 0u64);
        for &p in &m.func(fid).params {
            match m.ty(p).kind {
                TypeKind::Float | TypeKind::Double => fp += 1,
                _ => gp += 1,
            }
        }
        let (gp0, fp0) = (gp.min(6), fp.min(8));
        let mut reg_area: Vec<Byte> = vec![Byte::C(0); 176];
        let mut overflow: Vec<Byte> = Vec::new();
        let (mut gp, mut fp) = (gp0, fp0);
        for (i, v) in extra.iter().enumerate() {
            if let Some(&(_, size, align)) = byval.iter().find(|b| b.0 == i) {
                let from = self.resolve(st, v, size, false)?;
                let bytes = self.read_bytes(st, from, size);
                let at = overflow.len().next_multiple_of((align as usize).max(8));
                overflow.resize(at, Byte::C(0));
                overflow.extend(bytes);
                overflow.resize(overflow.len().next_multiple_of(8), Byte::C(0));
                continue;
            }
            let ty = tys.get(i).copied();
            let kind = ty.map(|t| m.ty(t).kind.clone()).unwrap_or(TypeKind::Int(64));
            let size = ty.map_or(8, |t| m.ty(t).store_size).max(1);
            let image = match ty {
                Some(t) => self.image(v, t),
                None => self.scalar_bytes(v, 8),
            };
            match kind {
                TypeKind::Float | TypeKind::Double if fp < 8 => {
                    let at = 48 + 16 * fp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    fp += 1;
                }
                TypeKind::Int(w) if w <= 64 && gp < 6 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    gp += 1;
                }
                TypeKind::Ptr if gp < 6 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + image.len()].copy_from_slice(&image);
                    gp += 1;
                }
                TypeKind::Int(128) if gp < 5 => {
                    let at = 8 * gp as usize;
                    reg_area[at..at + 16].copy_from_slice(&image);
                    gp += 2;
                }
                _ => {
                    let align = if size > 8 { 16 } else { 8 };
                    let at = overflow.len().next_multiple_of(align);
                    overflow.resize(at, Byte::C(0));
                    overflow.extend(image);
                    overflow.resize(overflow.len().next_multiple_of(8), Byte::C(0));
                }
            }
        }
        let regs = st.memory.allocate(176, 16, ObjKind::Stack);
        let over = st.memory.allocate(overflow.len() as u64, 16, ObjKind::Stack);
        self.write_bytes(st, Place::C { obj: regs, off: 0 }, &reg_area);
        self.write_bytes(st, Place::C { obj: over, off: 0 }, &overflow);
        let (reg_save_area, overflow_area) = (st.memory.object(regs).base, st.memory.object(over).base);
        let f = st.frame_mut();
        f.allocas.extend([regs, over]);
        f.varargs = Some(VarArgs {
            reg_save_area,
            overflow_area,
            gp_offset: 8 * gp0 as u32,
            fp_offset: 48 + 16 * fp0 as u32,
        });
        Ok(())
    }

    /// A concrete function address for an indirect call (forking over the
    /// feasible targets of a symbolic one).
    fn function_pointer(&mut self, st: &mut ExecutionState, p: &Value) -> Res<u64> {
        let e = match p {
            Value::Int(a) => return Ok(*a as u64),
            Value::Sym(e) => self.split_revisions(st, *e)?,
            Value::Agg(_) | Value::Wide(_) => {
                return Err(self.error(st, ErrorKind::Exec, "call through a vector"));
            }
        };
        if let Some(a) = self.pool.as_const(e) {
            return Ok(a as u64);
        }
        let v = self
            .solver
            .get_value(&self.pool, &st.constraints, e)
            .map_err(|err| self.solver_error(st, err))?;
        let k = self.pool.constant(64, v);
        let is = self.pool.eq(e, k);
        match self.decide(st, is)? {
            Some(_) => {}
            None => {
                let mut other = st.clone();
                let not = self.pool.bool_not(is);
                other.constraints.push(not);
                self.stats.forks += 1;
                self.forked.push(other);
                st.constraints.push(is);
            }
        }
        Ok(v as u64)
    }

    pub(super) fn intrinsic(
        &mut self,
        st: &mut ExecutionState,
        k: Intrinsic,
        a: &[Value],
        ret: TyId,
    ) -> Res<Option<Value>> {
        let ints = |ex: &mut Self, st: &mut ExecutionState, w: u32| -> Res<Vec<u128>> {
            let mut out = Vec::new();
            for v in a {
                out.push(ex.concretize_scalar(st, v, w)?);
            }
            Ok(out)
        };
        Ok(match k {
            Intrinsic::Nop => None,
            Intrinsic::Identity => Some(a[0].clone()),
            Intrinsic::Memcpy | Intrinsic::Memmove => {
                let n = self.concretize(st, &a[2], 64, "memcpy length")? as u64;
                if n > 0 {
                    let src = self.resolve(st, &a[1], n, false)?;
                    let dst = self.resolve(st, &a[0], n, true)?;
                    let bytes = self.read_bytes(st, src, n);
                    self.write_bytes(st, dst, &bytes);
                }
                None
            }
            Intrinsic::Memset => {
                let n = self.concretize(st, &a[2], 64, "memset length")? as u64;
                if n > 0 {
                    let dst = self.resolve(st, &a[0], n, true)?;
                    let b = match &a[1] {
                        Value::Int(x) => Byte::C(*x as u8),
                        Value::Sym(e) => {
                            let e = self.pool.extract(*e, 0, 8);
                            to_byte(&self.pool, e)
                        }
                        Value::Agg(_) | Value::Wide(_) => Byte::C(0),
                    };
                    self.write_bytes(st, dst, &vec![b; n as usize]);
                }
                None
            }
            Intrinsic::Overflow(op, w) => {
                let (r, o) = self.lift_int2(st, &a[0], &a[1], w, |x, y| value::overflow(op, w, x, y))?;
                Some(Value::Agg(vec![r, o].into()))
            }
            Intrinsic::Sat(op, w) => {
                Some(self.lift_int2(st, &a[0], &a[1], w, |x, y| (value::saturating(op, w, x, y), false))?.0)
            }
            Intrinsic::MinMax(op, w) => {
                Some(self.lift_int2(st, &a[0], &a[1], w, |x, y| (value::minmax(op, w, x, y), false))?.0)
            }
            Intrinsic::Abs(w) => {
                let zero = Value::Int(0);
                Some(self.lift_int2(st, &a[0], &zero, w, |x, _| (value::abs(w, x), false))?.0)
            }
            Intrinsic::Bit(op, w) => {
                let zero = Value::Int(0);
                Some(self.lift_int2(st, &a[0], &zero, w, |x, _| (value::bitop(op, w, x), false))?.0)
            }
            Intrinsic::Fshl(w) | Intrinsic::Fshr(w) => {
                let left = matches!(k, Intrinsic::Fshl(_));
                let v = ints(self, st, w)?;
                Some(Value::Int(value::funnel(left, w, v[0], v[1], v[2])))
            }
            Intrinsic::FUnary(op, kind) => Some(self.math(st, MathFn::Unary(op), kind, a)?),
            Intrinsic::CopySign(kind) => Some(self.math(st, MathFn::CopySign, kind, a)?),
            Intrinsic::FMinMax { max, kind } => {
                Some(self.math(st, if max { MathFn::Max } else { MathFn::Min }, kind, a)?)
            }
            Intrinsic::Fma(kind) => Some(self.math(st, MathFn::Fma, kind, a)?),
            Intrinsic::FMulAdd(kind) => {
                let w = kind.width();
                let product = self.float_op(FloatOp::Bin(FBinOp::Mul, kind), w, &a[..2]);
                Some(self.float_op(FloatOp::Bin(FBinOp::Add, kind), w, &[product, a[2].clone()]))
            }
            Intrinsic::Reduce(op, w) => {
                let Value::Agg(items) = &a[0] else { return Ok(Some(a[0].clone())) };
                let mut acc = items[0].clone();
                for x in items.iter().skip(1) {
                    acc = match op {
                        crate::ir::Reduce::Add => self.binop(st, BinOp::Add, w, &acc, x)?,
                        crate::ir::Reduce::Mul => self.binop(st, BinOp::Mul, w, &acc, x)?,
                        crate::ir::Reduce::And => self.binop(st, BinOp::And, w, &acc, x)?,
                        crate::ir::Reduce::Or => self.binop(st, BinOp::Or, w, &acc, x)?,
                        crate::ir::Reduce::Xor => self.binop(st, BinOp::Xor, w, &acc, x)?,
                        crate::ir::Reduce::Min(mm) => {
                            self.lift_int2(st, &acc, x, w, |p, q| (value::minmax(mm, w, p, q), false))?.0
                        }
                    };
                }
                Some(acc)
            }
            Intrinsic::VaStart => {
                let Some(va) = st.frame().varargs.clone() else {
                    return Err(self.error(
                        st,
                        ErrorKind::Exec,
                        "va_start in a function that is not variadic",
                    ));
                };
                let place = self.resolve(st, &a[0], 24, true)?;
                let mut img = Vec::with_capacity(24);
                img.extend(u32::to_le_bytes(va.gp_offset).map(Byte::C));
                img.extend(u32::to_le_bytes(va.fp_offset).map(Byte::C));
                img.extend(u64::to_le_bytes(va.overflow_area).map(Byte::C));
                img.extend(u64::to_le_bytes(va.reg_save_area).map(Byte::C));
                self.write_bytes(st, place, &img);
                None
            }
            Intrinsic::VaCopy => {
                let src = self.resolve(st, &a[1], 24, false)?;
                let dst = self.resolve(st, &a[0], 24, true)?;
                let bytes = self.read_bytes(st, src, 24);
                self.write_bytes(st, dst, &bytes);
                None
            }
            Intrinsic::StackSave => Some(Value::Int(0)),
            Intrinsic::Trap => {
                return Err(self.error(st, ErrorKind::Abort, "llvm.trap (__builtin_trap) reached"));
            }
            Intrinsic::ObjectSize => {
                let min = matches!(a.get(1), Some(Value::Int(1)));
                let w = self.m.int_width(ret).unwrap_or(64);
                Some(Value::Int(if min { 0 } else { mask(w) }))
            }
            Intrinsic::LoadRelative => {
                let base = self.concretize_scalar(st, &a[0], 64)? as u64;
                let off = self.concretize_scalar(st, &a[1], 64)? as u64;
                let p = Value::Int(u128::from(base.wrapping_add(off)));
                let place = self.resolve(st, &p, 4, false)?;
                let rel = self.read_scalar(st, place, 4, 32);
                let rel = self.concretize_scalar(st, &rel, 32)?;
                Some(Value::Int(u128::from(base.wrapping_add(value::to_signed(rel, 32) as i64 as u64))))
            }
        })
    }

    fn concretize_scalar(&mut self, st: &mut ExecutionState, v: &Value, w: u32) -> Res<u128> {
        self.concretize(st, v, w, "intrinsic argument")
    }

    /// A two-operand integer intrinsic, elementwise on vectors; symbolic
    /// operands are concretised.
    fn lift_int2(
        &mut self,
        st: &mut ExecutionState,
        a: &Value,
        b: &Value,
        w: u32,
        f: impl Fn(u128, u128) -> (u128, bool) + Copy,
    ) -> Res<(Value, Value)> {
        match (a, b) {
            (Value::Agg(xs), Value::Agg(ys)) => {
                let (mut r, mut o) = (Vec::new(), Vec::new());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    let (p, q) = self.lift_int2(st, x, y, w, f)?;
                    r.push(p);
                    o.push(q);
                }
                Ok((Value::Agg(r.into()), Value::Agg(o.into())))
            }
            (Value::Agg(xs), y) => {
                let ys: Vec<Value> = vec![y.clone(); xs.len()];
                self.lift_int2(st, a, &Value::Agg(ys.into()), w, f)
            }
            _ => {
                let x = self.concretize(st, a, w, "intrinsic argument")?;
                let y = self.concretize(st, b, w, "intrinsic argument")?;
                let (r, o) = f(x, y);
                Ok((Value::Int(r), Value::Int(o as u128)))
            }
        }
    }
}
