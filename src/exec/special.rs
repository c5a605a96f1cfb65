//! Functions without a body that the engine implements itself (KLEE's
//! SpecialFunctionHandler): the KLEE API, `__klee_meta`, `__assert_fail`,
//! exit/abort, the heap (alloc.rs), and the output functions of stdio
//! (stdio.rs). The rest of the libc model is C, linked in as bitcode
//! (runtime/symbolic/). Each declaration is resolved to a [`Handler`] once,
//! when the executor starts; a function with no handler is
//! `Handler::Unknown`.
//!
//! To model another libc function in the engine: add a variant, its name(s)
//! in [`Handler::lookup`], and its semantics in `Executor::call_special`.
//! Prefer C in the model where the function needs no engine internals.
//!
//! Also here: realloc and free, `psychic_output_bytes`, the libm functions that
//! are intrinsics, and `__psychic_parse_float` (a float text beyond the C
//! model's fast path: concretised, recorded, converted by the host's glibc).
//! Unknown functions are `external` errors, or with `ExternalCalls::Native` a
//! `dlsym` call on up to six concrete integer arguments.

use std::ffi::CString;

use crate::expr::ArrayId;
use crate::expr::fold::mask;
use crate::ir::{FKind, FUnary, FuncId, TyId, TypeKind};

use super::executor::{Executor, Place, Res, Stop};
use super::halt::{Annotation, ErrorKind, Location, Stream, SymbolicObject, Termination};
use super::memory::byte_expr;
use super::state::ExecutionState;
use super::stdio::PrintFn;
use super::value::{Byte, Value};
use super::{ExternalCalls, RevSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Handler {
    MakeSymbolic,
    KleeInt,
    KleeRange,
    Assume,
    SilentExit,
    KleeAbort,
    ReportError,
    /// `__psychic_model_error(message)`: the libc model met something it
    /// does not support (a scanf conversion); a `model` error at the
    /// program's call.
    ModelError,
    /// `__psychic_parse_float(text, len, size, out)`: the libc model's
    /// strtod beyond Clinger's fast path (more digits, larger exponents,
    /// hex, NaN payloads, long double). The text is made concrete and
    /// converted by the host's glibc, which the native replay runs.
    ParseFloat,
    /// `__psychic_unmodelled(what)`: the libc model met a call it does not
    /// model (a system call of musl's); the path ends as an unmodelled call.
    Unmodelled,
    IsSymbolic,
    IsReplay,
    PreferCex,
    GetValue,
    Warning,
    WarningOnce,
    Meta,
    /// `__klee_meta_in(site, set)`: the state splits by whether each of its
    /// revisions is in the set, once, where a chain of `__klee_meta(site)
    /// == r` tests costs a comparison per revision.
    MetaIn,
    AssertFail,
    Abort,
    Exit,
    Malloc,
    Calloc,
    Realloc,
    Free,
    /// The printf family (stdio.rs).
    Print(PrintFn),
    Puts,
    Fputs,
    Putchar,
    /// putc/fputc(c, stream): what -O2 makes of putchar.
    Putc,
    Fwrite,
    OutputBytes,
    /// libm functions that are LLVM intrinsics too (`floor`, `sqrtf`, ...).
    Math(MathFn, FKind),
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MathFn {
    Unary(FUnary),
    CopySign,
    Min,
    Max,
    Fma,
    /// `fmod`: exact, as LLVM's `frem`.
    Rem,
    /// A libm function with no exact model (glibc's are not correctly rounded): its arguments are
    /// concretised (reported) and the host's glibc computes it, as the native build's does.
    Libm(Libm),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Libm {
    Pow,
    Atan2,
    Hypot,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Cbrt,
}

/// One libm function on `x` (and `y`), at the precision of their type.
macro_rules! libm_apply {
    ($g:expr, $x:expr, $y:expr) => {
        match $g {
            Libm::Pow => $x.powf($y),
            Libm::Atan2 => $x.atan2($y),
            Libm::Hypot => $x.hypot($y),
            Libm::Exp => $x.exp(),
            Libm::Exp2 => $x.exp2(),
            Libm::Expm1 => $x.exp_m1(),
            Libm::Log => $x.ln(),
            Libm::Log2 => $x.log2(),
            Libm::Log10 => $x.log10(),
            Libm::Log1p => $x.ln_1p(),
            Libm::Sin => $x.sin(),
            Libm::Cos => $x.cos(),
            Libm::Tan => $x.tan(),
            Libm::Asin => $x.asin(),
            Libm::Acos => $x.acos(),
            Libm::Atan => $x.atan(),
            Libm::Sinh => $x.sinh(),
            Libm::Cosh => $x.cosh(),
            Libm::Tanh => $x.tanh(),
            Libm::Cbrt => $x.cbrt(),
        }
    };
}

impl Libm {
    pub(crate) fn arity(self) -> usize {
        match self {
            Libm::Pow | Libm::Atan2 | Libm::Hypot => 2,
            _ => 1,
        }
    }

    /// The function at double precision, through Rust's std, which calls the host's libm.
    pub(crate) fn f64(self, x: f64, y: f64) -> f64 {
        libm_apply!(self, x, y)
    }

    /// The same at single precision (`powf`, ...).
    pub(crate) fn f32(self, x: f32, y: f32) -> f32 {
        libm_apply!(self, x, y)
    }
}

/// Whether the engine itself implements `name`: no library may define it,
/// or its body would hide the engine's.
pub fn engine_provides(name: &str) -> bool {
    Handler::lookup(name) != Handler::Unknown
}

impl Handler {
    pub(super) fn lookup(name: &str) -> Handler {
        use Handler::*;
        match name {
            "klee_make_symbolic" => MakeSymbolic,
            "klee_int" => KleeInt,
            "klee_range" => KleeRange,
            "klee_assume" => Assume,
            "klee_silent_exit" => SilentExit,
            "klee_abort" => KleeAbort,
            "klee_report_error" => ReportError,
            "__psychic_model_error" => ModelError,
            "__psychic_parse_float" => ParseFloat,
            "__psychic_unmodelled" => Unmodelled,
            "klee_is_symbolic" => IsSymbolic,
            "klee_is_replay" => IsReplay,
            "klee_prefer_cex" => PreferCex,
            "klee_get_valuef" | "klee_get_valued" | "klee_get_valuel" | "klee_get_valuell"
            | "klee_get_value_i32" | "klee_get_value_i64" => GetValue,
            "klee_warning" => Warning,
            "klee_warning_once" => WarningOnce,
            "__klee_meta" => Meta,
            "__klee_meta_in" => MetaIn,
            "__assert_fail" | "__assert_rtn" => AssertFail,
            "abort" => Abort,
            "exit" | "_exit" | "_Exit" => Exit,
            "malloc" => Malloc,
            "calloc" => Calloc,
            "realloc" => Realloc,
            "free" => Free,
            "puts" => Puts,
            "fputs" | "fputs_unlocked" => Fputs,
            "putchar" | "putchar_unlocked" => Putchar,
            "putc" | "fputc" | "_IO_putc" | "putc_unlocked" | "fputc_unlocked" => Putc,
            "fwrite" | "fwrite_unlocked" => Fwrite,
            "psychic_output_bytes" => OutputBytes,
            _ => PrintFn::lookup(name).map(Print).or_else(|| Self::math(name)).unwrap_or(Unknown),
        }
    }
}

impl Handler {
    /// `floor` (double) or `floorf` (float), and the like.
    fn math(name: &str) -> Option<Handler> {
        let f = |base: &str| {
            Some(match base {
                "fabs" => MathFn::Unary(FUnary::Fabs),
                "sqrt" => MathFn::Unary(FUnary::Sqrt),
                "floor" => MathFn::Unary(FUnary::Floor),
                "ceil" => MathFn::Unary(FUnary::Ceil),
                "trunc" => MathFn::Unary(FUnary::Trunc),
                "round" => MathFn::Unary(FUnary::Round),
                "rint" | "nearbyint" => MathFn::Unary(FUnary::Rint),
                "copysign" => MathFn::CopySign,
                "fmin" => MathFn::Min,
                "fmax" => MathFn::Max,
                "fma" => MathFn::Fma,
                "fmod" => MathFn::Rem,
                "pow" => MathFn::Libm(Libm::Pow),
                "atan2" => MathFn::Libm(Libm::Atan2),
                "hypot" => MathFn::Libm(Libm::Hypot),
                "exp" => MathFn::Libm(Libm::Exp),
                "exp2" => MathFn::Libm(Libm::Exp2),
                "expm1" => MathFn::Libm(Libm::Expm1),
                "log" => MathFn::Libm(Libm::Log),
                "log2" => MathFn::Libm(Libm::Log2),
                "log10" => MathFn::Libm(Libm::Log10),
                "log1p" => MathFn::Libm(Libm::Log1p),
                "sin" => MathFn::Libm(Libm::Sin),
                "cos" => MathFn::Libm(Libm::Cos),
                "tan" => MathFn::Libm(Libm::Tan),
                "asin" => MathFn::Libm(Libm::Asin),
                "acos" => MathFn::Libm(Libm::Acos),
                "atan" => MathFn::Libm(Libm::Atan),
                "sinh" => MathFn::Libm(Libm::Sinh),
                "cosh" => MathFn::Libm(Libm::Cosh),
                "tanh" => MathFn::Libm(Libm::Tanh),
                "cbrt" => MathFn::Libm(Libm::Cbrt),
                _ => return None,
            })
        };
        match f(name) {
            Some(m) => Some(Handler::Math(m, FKind::F64)),
            None => f(name.strip_suffix('f')?).map(|m| Handler::Math(m, FKind::F32)),
        }
    }
}

impl Executor<'_> {
    pub(super) fn call_special(
        &mut self,
        st: &mut ExecutionState,
        fid: FuncId,
        h: &Handler,
        a: &[Value],
        ret: TyId,
        used: bool,
    ) -> Res<Option<Value>> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Int(0));
        let int = |v: u128| Some(Value::Int(v));
        if matches!(h, Handler::Meta | Handler::MetaIn) {
            let site = self.concretize(st, &arg(0), 32, "meta-branch site")? as u32;
            if !st.sites.contains(&site) {
                st.sites.push(site);
            }
        }
        Ok(match h {
            Handler::MakeSymbolic => {
                let n = self.concretize(st, &arg(1), 64, "klee_make_symbolic size")? as u64;
                let name = self.name_arg(st, &arg(2))?;
                let place = self.resolve(st, &arg(0), n, true)?;
                let Place::C { .. } = place else {
                    return Err(self.error(st, ErrorKind::Exec, "klee_make_symbolic on a symbolic address"));
                };
                self.make_symbolic(st, place, n, name);
                None
            }
            Handler::KleeInt => {
                let name = self.name_arg(st, &arg(0))?;
                Some(self.fresh_int(st, name))
            }
            Handler::KleeRange => {
                let lo = self.concretize(st, &arg(0), 32, "klee_range bound")?;
                let hi = self.concretize(st, &arg(1), 32, "klee_range bound")?;
                let (l, h) = (lo as u32 as i32, hi as u32 as i32);
                if l >= h {
                    return Err(self.error(
                        st,
                        ErrorKind::User("user".into()),
                        format!("invalid klee_range({l}, {h})"),
                    ));
                }
                // Always an input object, as the native replay runtime reads one.
                let name = self.name_arg(st, &arg(2))?;
                let x = self.fresh_int(st, name);
                let e = self.expr(&x, 32);
                let (kl, kh) = (self.pool.constant(32, lo), self.pool.constant(32, hi));
                let ge = self.pool.sge(e, kl);
                let lt = self.pool.slt(e, kh);
                st.constraints.extend([ge, lt]);
                self.note_domain(st, 2);
                Some(x)
            }
            Handler::Assume => {
                let v = arg(0);
                let e = self.expr(&v, 64);
                let w = self.pool.width(e);
                let zero = self.pool.constant(w, 0);
                let cond = self.pool.ne(e, zero);
                let cond = self.split_revisions(st, cond)?;
                match self.pool.as_const(cond) {
                    Some(0) => return Err(Stop::Halt(Box::new(Termination::Silent))),
                    Some(_) => {}
                    None => match self.solver.may_be_true(&self.pool, &st.constraints, cond) {
                        Ok(false) => return Err(Stop::Halt(Box::new(Termination::Silent))),
                        Ok(true) => {
                            st.constraints.push(cond);
                            self.note_domain(st, 1);
                        }
                        Err(e) => return Err(self.solver_error(st, e)),
                    },
                }
                None
            }
            Handler::SilentExit => return Err(Stop::Halt(Box::new(Termination::Silent))),
            Handler::KleeAbort => return Err(self.error(st, ErrorKind::Abort, "klee_abort() called")),
            Handler::Abort => return Err(self.error(st, ErrorKind::Abort, "abort() called")),
            Handler::ReportError => {
                let file = self.string_arg(st, &arg(0), "klee_report_error file")?;
                let line = self.concretize(st, &arg(1), 32, "klee_report_error line")?;
                let msg = self.string_arg(st, &arg(2), "klee_report_error message")?;
                let suffix = self.string_arg(st, &arg(3), "klee_report_error suffix")?;
                let mut t = self.error_termination(st, ErrorKind::User(suffix), msg);
                if let Termination::Error { location, .. } = &mut t {
                    *location = Some(Location { file, line: line as u32, col: 0 });
                }
                return Err(Stop::Halt(Box::new(t)));
            }
            Handler::ModelError | Handler::Unmodelled => {
                let (kind, msg) = if *h == Handler::Unmodelled {
                    let what = self.string_arg(st, &arg(0), "unmodelled call")?;
                    (ErrorKind::External, format!("call to {what}, which psychic does not model"))
                } else {
                    (ErrorKind::User("model".into()), self.string_arg(st, &arg(0), "model error message")?)
                };
                let mut t = self.error_termination(st, kind, msg);
                // Point at the program's call, not into the model.
                if let Termination::Error { location, .. } = &mut t
                    && let Some(caller) = self.program_location(st)
                {
                    *location = Some(caller);
                }
                return Err(Stop::Halt(Box::new(t)));
            }
            Handler::ParseFloat => {
                let n = self.concretize(st, &arg(1), 64, "float text length")? as u64;
                let size = self.concretize(st, &arg(2), 32, "float size")? as usize;
                let text = if n == 0 {
                    Vec::new()
                } else {
                    let place = self.resolve(st, &arg(0), n, false)?;
                    self.read_bytes(st, place, n)
                };
                let what = "byte of a float's text off the fast path (too many digits, a large \
                            exponent, hex, a NaN payload, long double)";
                let concrete = self.concrete_of(st, text, what)?;
                let Some((bytes, errno)) = host_parse_float(&concrete, size) else {
                    return Err(self.error(
                        st,
                        ErrorKind::Exec,
                        format!("__psychic_parse_float of size {size}"),
                    ));
                };
                let place = self.resolve(st, &arg(3), bytes.len() as u64, true)?;
                let bytes: Vec<Byte> = bytes.into_iter().map(Byte::C).collect();
                self.write_bytes(st, place, &bytes);
                int(errno as u32 as u128)
            }
            Handler::AssertFail => {
                let assertion = self.string_arg(st, &arg(0), "assertion text")?;
                return Err(self.error(st, ErrorKind::Assert, format!("ASSERTION FAIL: {assertion}")));
            }
            Handler::IsSymbolic => int(arg(0).is_symbolic() as u128),
            Handler::IsReplay => int(0),
            Handler::PreferCex => None,
            Handler::GetValue => {
                let w = self.m.int_width(ret).unwrap_or(64);
                let w = match self.m.ty(ret).kind {
                    TypeKind::Float => 32,
                    TypeKind::Double => 64,
                    _ => w,
                };
                int(self.concretize(st, &arg(0), w, "klee_get_value argument")?)
            }
            Handler::Warning | Handler::WarningOnce => {
                let msg = self.string_arg(st, &arg(0), "klee_warning message")?;
                self.warn(format!("klee_warning: {msg}"));
                None
            }
            Handler::Meta | Handler::MetaIn if self.cfg.per_revision_states && st.revisions.len() > 1 => {
                // The paper's ApplyMetaBranch: from here on, one state per revision.
                let mut revs = st.revisions.iter();
                let first = revs.next().expect("more than one revision");
                for r in revs {
                    let mut child = st.clone();
                    child.revisions = RevSet::singleton(r);
                    self.forked.push(child);
                }
                st.revisions = RevSet::singleton(first);
                self.stats.revision_splits += 1;
                return Err(Stop::Restart);
            }
            Handler::Meta => match st.revisions.single() {
                Some(r) => int(u128::from(r)),
                None => Some(Value::Sym(self.pool.revision())),
            },
            Handler::MetaIn => {
                let set = self.meta_set(st, &arg(1))?;
                let (inside, outside) = super::meta::meta_in(&set, &st.revisions);
                match (inside.is_empty(), outside.is_empty()) {
                    (false, true) => int(1),
                    (true, _) => int(0),
                    (false, false) => {
                        self.note_split(st);
                        let mut child = st.clone();
                        child.revisions = outside;
                        self.forked.push(child);
                        st.revisions = inside;
                        return Err(Stop::Restart);
                    }
                }
            }
            Handler::Exit => {
                let e = self.expr(&arg(0), 32);
                let w = self.pool.width(e);
                let status =
                    if w > 32 { self.pool.extract(e, 0, 32) } else { self.pool.zext_or_trunc(e, 32) };
                return Err(Stop::Halt(Box::new(Termination::Exit { status })));
            }
            Handler::Malloc => int(u128::from(self.heap_alloc(st, &arg(0), 1, false, "malloc")?)),
            Handler::Calloc => int(u128::from(self.calloc(st, &arg(0), &arg(1))?)),
            Handler::Realloc => {
                let p = self.concretize(st, &arg(0), 64, "realloc pointer")? as u64;
                int(u128::from(self.realloc(st, p, &arg(1))?))
            }
            Handler::Free => {
                let p = self.concretize(st, &arg(0), 64, "free pointer")? as u64;
                self.free(st, p)?;
                None
            }
            Handler::Print(f) => Some(self.print_fn(st, f, a, used)?),
            Handler::Puts => Some(self.print_as(st, Stream::Stdout, b"%s\n", &[arg(0)], used)?),
            Handler::Fputs => {
                let stream = self.std_stream(st, &arg(1), "fputs")?;
                self.print_as(st, stream, b"%s", &[arg(0)], false)?;
                int(1)
            }
            Handler::Putchar => self.put_char(st, Stream::Stdout, &arg(0))?,
            Handler::Putc => {
                let stream = self.std_stream(st, &arg(1), "putc")?;
                self.put_char(st, stream, &arg(0))?
            }
            Handler::Fwrite => Some(self.fwrite(st, a)?),
            Handler::OutputBytes => {
                let name = self.string_arg(st, &arg(0), "psychic_output_bytes name")?;
                let n = self.concretize(st, &arg(2), 64, "psychic_output_bytes size")? as u64;
                let bytes = if n == 0 {
                    Vec::new()
                } else {
                    let place = self.resolve(st, &arg(1), n, false)?;
                    self.read_bytes(st, place, n)
                };
                let bytes = bytes.into_iter().map(|b| byte_expr(&mut self.pool, b)).collect();
                st.annotations.push(Annotation { name, bytes });
                None
            }
            Handler::Math(f, kind) => Some(self.math(st, *f, *kind, a)?),
            Handler::Unknown => return self.call_external(st, fid, a),
        })
    }

    fn make_symbolic(&mut self, st: &mut ExecutionState, place: Place, n: u64, name: String) {
        let seq = st.symbolics.len() as u32;
        let array = self.pool.array(&name, n, seq);
        self.bind_seeds(st, seq, array, n, &name);
        let bytes: Vec<Byte> = (0..n).map(|i| Byte::S(self.pool.read_input(array, i))).collect();
        self.write_bytes(st, place, &bytes);
        st.symbolics.push(SymbolicObject { name, array, size: n });
        self.note_domain(st, 0);
    }

    /// A fresh symbolic 32-bit input (`klee_int`).
    fn fresh_int(&mut self, st: &mut ExecutionState, name: String) -> Value {
        let seq = st.symbolics.len() as u32;
        let array = self.pool.array(&name, 4, seq);
        self.bind_seeds(st, seq, array, 4, &name);
        st.symbolics.push(SymbolicObject { name, array, size: 4 });
        self.note_domain(st, 0);
        let bytes: Vec<Byte> = (0..4).map(|i| Byte::S(self.pool.read_input(array, i))).collect();
        self.scalar_from_bytes(&bytes, 32)
    }

    /// A new input `seq`: each seed of the state gives its bytes, or, if its
    /// object there has another name or size, stops guiding this path.
    fn bind_seeds(&mut self, st: &mut ExecutionState, seq: u32, array: ArrayId, n: u64, name: &str) {
        let seeds = &self.seeds;
        st.seeds.retain(|&s| {
            seeds[s as usize]
                .objects
                .get(seq as usize)
                .is_some_and(|o| o.name == name && o.bytes.len() as u64 == n)
        });
        for &s in &st.seeds {
            self.seed_values[s as usize].set_bytes(array, &seeds[s as usize].objects[seq as usize].bytes);
        }
    }

    /// The bytes of a NUL-terminated string (without the NUL), symbolic ones
    /// included; the string ends at the first byte that is 0 on this path:
    /// concretely, or an expression the path fixes (a NUL written at an
    /// index the input decides). A byte that may be 0 or not is part of the
    /// string, so that printing an input never forks.
    pub(super) fn c_string(&mut self, st: &mut ExecutionState, p: &Value) -> Res<Vec<Byte>> {
        let place = self.resolve(st, p, 1, false)?;
        let Place::C { obj, off } = place else {
            let addr = self.concretize(st, p, 64, "string address")?;
            return self.c_string(st, &Value::Int(addr));
        };
        let o = st.memory.object(obj);
        let (base, size, sym_size) = (o.base, o.size, o.sym_size);
        let bytes = self.read_bytes(st, Place::C { obj, off }, size - off);
        let mut end = None;
        for (i, b) in bytes.iter().enumerate() {
            let nul = match *b {
                Byte::C(c) => c == 0,
                Byte::S(e) => {
                    let zero = self.pool.constant(8, 0);
                    let is_zero = self.pool.eq(e, zero);
                    self.decide(st, is_zero)? == Some(true)
                }
            };
            if nul {
                end = Some(i);
                break;
            }
        }
        let Some(end) = end else {
            return Err(self.error(st, ErrorKind::Ptr, "string without a terminating NUL in its object"));
        };
        if let Some(n) = sym_size {
            // The string must end within the object's size, not only its
            // capacity: some byte up to `end` is 0 and lies below the size.
            let mut ok = self.pool.false_();
            for (i, b) in bytes[..=end].iter().enumerate() {
                let nul = match *b {
                    Byte::C(0) => self.pool.true_(),
                    Byte::C(_) => continue,
                    Byte::S(e) => {
                        let zero = self.pool.constant(8, 0);
                        self.pool.eq(e, zero)
                    }
                };
                let at = self.pool.constant(64, u128::from(off + i as u64));
                let inside = self.pool.ult(at, n);
                let here = self.pool.bool_and(nul, inside);
                ok = self.pool.bool_or(ok, here);
            }
            let msg =
                format!("out of bound pointer: a string at {:#x} may not end within its object", base + off);
            self.check_or_fail(st, ok, ErrorKind::Ptr, msg)?;
        }
        Ok(bytes[..end].to_vec())
    }

    /// A string argument made concrete (format strings).
    pub(super) fn concrete_string(&mut self, st: &mut ExecutionState, p: &Value, what: &str) -> Res<Vec<u8>> {
        let bytes = self.c_string(st, p)?;
        self.concrete_of(st, bytes, what)
    }

    /// `bytes` made concrete, each symbolic one fixed to a value the path allows (recorded).
    fn concrete_of(&mut self, st: &mut ExecutionState, bytes: Vec<Byte>, what: &str) -> Res<Vec<u8>> {
        let mut out = Vec::with_capacity(bytes.len());
        for b in bytes {
            out.push(match b {
                Byte::C(c) => c,
                Byte::S(e) => self.concretize(st, &Value::Sym(e), 8, what)? as u8,
            });
        }
        Ok(out)
    }

    /// A string argument made concrete, as text (names, messages).
    fn string_arg(&mut self, st: &mut ExecutionState, p: &Value, what: &str) -> Res<String> {
        Ok(String::from_utf8_lossy(&self.concrete_string(st, p, what)?).into_owned())
    }

    /// An object name; NULL is "unnamed", as in KLEE.
    fn name_arg(&mut self, st: &mut ExecutionState, p: &Value) -> Res<String> {
        if p.as_int() == Some(0) {
            return Ok("unnamed".into());
        }
        self.string_arg(st, p, "object name")
    }

    /// A function with neither body nor model.
    fn call_external(&mut self, st: &mut ExecutionState, fid: FuncId, a: &[Value]) -> Res<Option<Value>> {
        let m = self.m;
        let f = m.func(fid);
        if self.cfg.external_calls != ExternalCalls::Native {
            return Err(self.error(
                st,
                ErrorKind::External,
                format!(
                    "call to external function `{}`, which psychic does not model (--external-calls=all calls it natively)",
                    f.name
                ),
            ));
        }
        let int_ty = |t: TyId| matches!(m.ty(t).kind, TypeKind::Int(w) if w <= 64);
        let ret_ok = int_ty(f.ret) || m.ty(f.ret).kind == TypeKind::Void;
        if f.vararg || a.len() > 6 || !f.params.iter().all(|&p| int_ty(p)) || !ret_ok {
            return Err(self.error(
                st,
                ErrorKind::External,
                format!(
                    "cannot call `{}` natively: only up to six integer arguments and an integer result are supported",
                    f.name
                ),
            ));
        }
        let mut args = [0u64; 6];
        for (i, v) in a.iter().enumerate() {
            args[i] = self.concretize(st, v, 64, "external call argument")? as u64;
        }
        let Some(r) = native_call(&f.name, args) else {
            return Err(self.error(
                st,
                ErrorKind::External,
                format!("external function `{}` not found", f.name),
            ));
        };
        self.warn(format!("called external function `{}` natively", f.name));
        Ok(m.int_width(f.ret).map(|w| Value::Int(u128::from(r) & mask(w))))
    }
}

/// `text` as glibc's strtof, strtod or strtold (`size` 4, 8, 16) converts
/// it: the value's bytes (10 for a long double, as x87 stores it) and the
/// errno it set. psychic runs where the native replay runs, on glibc.
fn host_parse_float(text: &[u8], size: usize) -> Option<(Vec<u8>, i32)> {
    let text = CString::new(text).ok()?;
    // SAFETY: the text is NUL-terminated; errno is this thread's; each call
    // writes only its own result (sscanf's `%Lf` the 16-byte buffer).
    unsafe {
        *libc::__errno_location() = 0;
        let bytes = match size {
            4 => libc::strtof(text.as_ptr(), std::ptr::null_mut()).to_le_bytes().to_vec(),
            8 => libc::strtod(text.as_ptr(), std::ptr::null_mut()).to_le_bytes().to_vec(),
            16 => {
                // Rust has no x87 type: glibc's scanf stores its strtold result.
                let mut out = [0u8; 16];
                libc::sscanf(text.as_ptr(), c"%Lf".as_ptr(), out.as_mut_ptr());
                out[..10].to_vec()
            }
            _ => return None,
        };
        Some((bytes, *libc::__errno_location()))
    }
}

/// Calls a function of the host process with up to six integer arguments.
fn native_call(name: &str, args: [u64; 6]) -> Option<u64> {
    let sym = CString::new(name).ok()?;
    // SAFETY: dlsym with RTLD_DEFAULT looks the symbol up in the loaded objects.
    let ptr = unsafe { libc::dlsym(libc::RTLD_DEFAULT, sym.as_ptr()) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: on x86-64 SysV, a function taking up to six integer arguments
    // and returning an integer (or nothing) reads them from the first six
    // argument registers; extra arguments are ignored. The caller checked
    // the declared signature.
    let f: extern "C" fn(u64, u64, u64, u64, u64, u64) -> u64 = unsafe { std::mem::transmute(ptr) };
    Some(f(args[0], args[1], args[2], args[3], args[4], args[5]))
}
