//! The output half of stdio, in the engine: the printf family, puts,
//! putchar, putc, fputs and fwrite.
//!
//! Output to stdout and stderr becomes the path's [`OutputEvent`]s: text
//! when every argument is concrete, a structured event otherwise (rendered
//! later under a model), so that printing an input never forks. Output into
//! memory (`sprintf` and friends) must be bytes the program can read back:
//! it is rendered exactly, by the same layout code, with digits and string
//! bytes as expressions. Where the *length* of a conversion's text depends
//! on the input (the sign and number of digits of `%d`, where a symbolic
//! string ends), the path forks once per feasible length, as running glibc's
//! own code symbolically would. There, floating-point arguments and `*`
//! widths are concretised (with a warning); printed to a stream, a symbolic
//! double stays structured like an integer, as its 64 bits.
//!
//! Other `FILE *` streams are not modelled: a write to one is an `external`
//! error.
//!
//! In detail: the printf family is one `PrintFn` (destination, format index,
//! `va_list` or not) for printf, fprintf, sprintf, snprintf, their `v` forms
//! and glibc's `_chk` forms; `va_list`s are read as x86-64 SysV lays them out.
//! A string argument (`Executor::c_string`) ends at the first byte that is 0 on
//! the path, concretely or as an expression the path fixes (a NUL stored at an
//! index the input decides); a byte that may be 0 or not stays in it.
//!
//! **sprintf into memory is exact**: digits are expressions
//! (`'0' + (m / 10^j) % 10`, nibbles for `%x`), laid out by `printf::layout`
//! over `Byte`. Where the length of a conversion's text depends on the input
//! (sign and digit count of `%d`/`%u`/`%x`/`%o`, zero under a precision or
//! `#`, where a symbolic `%s` string ends), the state commits to the shape one
//! solution gives and a copy takes the rest and re-runs the call
//! (`Executor::assume_or_fork`). A `%c` is one byte expression and never
//! forks; doubles, `*` widths and `%p` are concretised (recorded). printf's
//! return value for a structured event, when the program reads it, has its
//! length fixed the same way; a call whose result nobody reads has no register
//! (`NO_REG`), and then nothing forks. **A symbolic double printed to a stream
//! stays structured**: the event's argument is its 64 IEEE bits (C promotes a
//! float to double; a long double, 80 bits, is concretised), and a model
//! renders it with the glibc-exact formatter, so `printf("%.2f", x)` neither
//! forks nor fixes `x`.

use crate::expr::ExprId;
use crate::expr::fold::mask;

use super::executor::{Executor, Res};
use super::halt::{ErrorKind, FmtArg, OutputEvent, Stream};
use super::memory::{byte_expr, to_byte};
use super::printf::{self, Arg, Piece, Slot, Spec, Val};
use super::state::ExecutionState;
use super::value::{Byte, Value};

/// Where a printf-family function writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest {
    Stdout,
    /// The `FILE *` at this argument index.
    Stream(usize),
    /// The buffer at argument `buf`, of the size at argument `size`
    /// (`snprintf`) or unbounded (`sprintf`).
    Buffer {
        buf: usize,
        size: Option<usize>,
    },
}

/// A printf-family function: its destination, the index of its format, and
/// whether a `va_list` follows the format instead of the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PrintFn {
    pub dest: Dest,
    pub fmt: usize,
    pub va_list: bool,
}

impl PrintFn {
    /// The printf family, with glibc's `_FORTIFY_SOURCE` variants (which
    /// take a flag, and for buffers the buffer's size, before the format).
    pub(super) fn lookup(name: &str) -> Option<PrintFn> {
        let buf = |size| Dest::Buffer { buf: 0, size };
        let (dest, fmt, va_list) = match name {
            "printf" => (Dest::Stdout, 0, false),
            "vprintf" => (Dest::Stdout, 0, true),
            "__printf_chk" => (Dest::Stdout, 1, false),
            "__vprintf_chk" => (Dest::Stdout, 1, true),
            "fprintf" => (Dest::Stream(0), 1, false),
            "vfprintf" => (Dest::Stream(0), 1, true),
            "__fprintf_chk" => (Dest::Stream(0), 2, false),
            "__vfprintf_chk" => (Dest::Stream(0), 2, true),
            "sprintf" => (buf(None), 1, false),
            "vsprintf" => (buf(None), 1, true),
            "__sprintf_chk" => (buf(None), 3, false),
            "__vsprintf_chk" => (buf(None), 3, true),
            "snprintf" => (buf(Some(1)), 2, false),
            "vsnprintf" => (buf(Some(1)), 2, true),
            "__snprintf_chk" => (buf(Some(1)), 4, false),
            "__vsnprintf_chk" => (buf(Some(1)), 4, true),
            _ => return None,
        };
        Some(PrintFn { dest, fmt, va_list })
    }
}

/// Bytes of the x86-64 SysV register save area that hold integer registers.
const GP_AREA: u32 = 48;
/// End of the save area's vector registers.
const FP_AREA: u32 = 176;

impl Executor<'_> {
    /// A call of a printf-family function; returns its result.
    /// `used`: the program reads the result (see `print_as`).
    pub(super) fn print_fn(
        &mut self,
        st: &mut ExecutionState,
        f: &PrintFn,
        a: &[Value],
        used: bool,
    ) -> Res<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Int(0));
        let fmt = self.concrete_string(st, &arg(f.fmt), "printf format")?;
        let pieces = printf::parse(&fmt);
        let slots = printf::slots(&pieces);
        let args = if f.va_list {
            self.va_args(st, &arg(f.fmt + 1), &slots)?
        } else {
            a.get(f.fmt + 1..).unwrap_or_default().to_vec()
        };
        match f.dest {
            Dest::Stdout => self.print_as(st, Stream::Stdout, &fmt, &args, used),
            Dest::Stream(i) => {
                let stream = self.std_stream(st, &arg(i), "fprintf")?;
                self.print_as(st, stream, &fmt, &args, used)
            }
            Dest::Buffer { buf, size } => {
                let size = size.map(arg);
                self.sprint(st, &arg(buf), size.as_ref(), &pieces, &slots, &args)
            }
        }
    }

    /// printf with a concrete format: concrete arguments render to text,
    /// symbolic ones make a structured event. When the program reads the
    /// result (`used`), the length of the text is fixed on this path as
    /// sprintf fixes it (one path per feasible length); otherwise it is
    /// taken with every input byte 0, which nobody sees.
    pub(super) fn print_as(
        &mut self,
        st: &mut ExecutionState,
        stream: Stream,
        fmt: &[u8],
        args: &[Value],
        used: bool,
    ) -> Res<Value> {
        let pieces = printf::parse(fmt);
        let slots = printf::slots(&pieces);
        let mut concrete = Vec::with_capacity(slots.len());
        let mut structured = Vec::with_capacity(slots.len());
        let mut symbolic = false;
        for (i, (slot, _)) in slots.iter().enumerate() {
            let v = args.get(i).cloned().unwrap_or(Value::Int(0));
            match slot {
                Slot::Int(bits) => {
                    let e = self.fit(&v, *bits);
                    match self.pool.as_const(e) {
                        Some(x) => concrete.push(Arg::Int(x)),
                        None => symbolic = true,
                    }
                    structured.push(FmtArg::Scalar(e));
                }
                // A double is its 64 bits (C promotes a float); a long
                // double (x87, 80 bits) is concretised.
                Slot::Double => {
                    let e = match v {
                        Value::Sym(e) if self.pool.width(e) == 64 => e,
                        _ => {
                            let bits = self.concrete_float(st, &v)?;
                            self.pool.constant(64, bits & mask(64))
                        }
                    };
                    match self.pool.as_const(e) {
                        Some(bits) => concrete.push(Arg::Double(f64::from_bits(bits as u64))),
                        None => symbolic = true,
                    }
                    structured.push(FmtArg::Scalar(e));
                }
                Slot::Str => {
                    let bytes = if v.as_int() == Some(0) { None } else { Some(self.c_string(st, &v)?) };
                    let exprs: Vec<ExprId> =
                        bytes.iter().flatten().map(|b| byte_expr(&mut self.pool, *b)).collect();
                    match bytes {
                        Some(bs) if bs.iter().all(|b| matches!(b, Byte::C(_))) => concrete.push(Arg::Str(
                            Some(bs.iter().map(|b| if let Byte::C(c) = b { *c } else { 0 }).collect()),
                        )),
                        Some(_) => symbolic = true,
                        None => concrete.push(Arg::Str(None)),
                    }
                    structured.push(FmtArg::Str(exprs));
                }
                Slot::Ignored => {
                    concrete.push(Arg::Int(0));
                    structured.push(FmtArg::Scalar(self.pool.constant(64, 0)));
                }
            }
        }
        if !symbolic {
            let text = printf::render(&pieces, &concrete);
            let n = text.len();
            st.write(stream, &text);
            return Ok(Value::Int(n as u128));
        }
        let ev = OutputEvent::Format { stream, format: fmt.to_vec(), args: structured };
        // Before the event is pushed: fixing a length may fork a copy that
        // re-runs the call.
        let n = if used {
            let mut vals = Vec::with_capacity(slots.len());
            for (i, (slot, spec)) in slots.iter().enumerate() {
                let v = args.get(i).cloned().unwrap_or(Value::Int(0));
                vals.push(self.text_arg(st, *slot, spec.as_ref(), &v)?);
            }
            printf::layout(&pieces, &vals).len()
        } else {
            ev.render(&self.pool, &crate::expr::Assignment::new()).len()
        };
        st.outputs.push(ev);
        Ok(Value::Int(n as u128))
    }

    /// sprintf and snprintf: the exact text, written into memory with its
    /// terminator (snprintf: at most `size` bytes). Returns the text's length.
    fn sprint(
        &mut self,
        st: &mut ExecutionState,
        buf: &Value,
        size: Option<&Value>,
        pieces: &[Piece],
        slots: &[(Slot, Option<Spec>)],
        args: &[Value],
    ) -> Res<Value> {
        let cap = match size {
            Some(v) => Some(self.concretize(st, v, 64, "snprintf size")? as u64),
            None => None,
        };
        let mut vals = Vec::with_capacity(slots.len());
        for (i, (slot, spec)) in slots.iter().enumerate() {
            let v = args.get(i).cloned().unwrap_or(Value::Int(0));
            vals.push(self.text_arg(st, *slot, spec.as_ref(), &v)?);
        }
        let text = printf::layout(pieces, &vals);
        let n = text.len() as u64;
        let keep = match cap {
            None => n,
            Some(0) => {
                return Ok(Value::Int(u128::from(n)));
            }
            Some(c) => n.min(c - 1),
        };
        let place = self.resolve(st, buf, keep + 1, true)?;
        let mut bytes = text[..keep as usize].to_vec();
        bytes.push(Byte::C(0));
        self.write_bytes(st, place, &bytes);
        Ok(Value::Int(u128::from(n)))
    }

    /// One argument of an in-memory printf, with the length of its text
    /// fixed on this path.
    fn text_arg(
        &mut self,
        st: &mut ExecutionState,
        slot: Slot,
        spec: Option<&Spec>,
        v: &Value,
    ) -> Res<Val<Byte>> {
        Ok(match slot {
            Slot::Int(bits) => {
                let e = self.fit(v, bits);
                match (self.pool.as_const(e), spec.map(|s| s.conv)) {
                    (Some(x), _) => Val::Int(x),
                    (None, Some(b'c')) => {
                        let b = self.pool.extract(e, 0, 8);
                        Val::Char(to_byte(&self.pool, b))
                    }
                    (None, Some(b'd' | b'i' | b'u' | b'x' | b'X' | b'o')) => {
                        self.int_text(st, spec.expect("matched"), e)?
                    }
                    // `*` widths and precisions, `%p`.
                    (None, _) => Val::Int(self.concretize(st, v, bits, "printf width or pointer")?),
                }
            }
            Slot::Str if v.as_int() == Some(0) => Val::Str(None),
            Slot::Str => {
                let mut bytes = self.c_string(st, v)?;
                // `%.Ns` reads at most N bytes.
                if let Some(Some(p)) = spec.and_then(|s| s.precision) {
                    bytes.truncate(p);
                }
                let len = self.string_end(st, &bytes)?;
                bytes.truncate(len);
                Val::Str(Some(bytes))
            }
            Slot::Double => Val::Double(f64::from_bits(self.concrete_float(st, v)? as u64)),
            Slot::Ignored => Val::Int(0),
        })
    }

    /// The digits of a symbolic integer conversion. The path first commits
    /// to the text's shape that one solution gives (sign, number of digits,
    /// and zero where the precision or `#` make zero print differently); a
    /// copy of the state takes every other shape and runs the call again.
    fn int_text(&mut self, st: &mut ExecutionState, s: &Spec, e: ExprId) -> Res<Val<Byte>> {
        let e = self.split_revisions(st, e)?;
        let w = self.pool.width(e);
        let signed = matches!(s.conv, b'd' | b'i');
        let base: u128 = match s.conv {
            b'x' | b'X' => 16,
            b'o' => 8,
            _ => 10,
        };
        let zero_w = self.pool.constant(w, 0);
        let neg = if signed { self.pool.slt(e, zero_w) } else { self.pool.false_() };
        let m = if signed {
            let n = self.pool.neg(e);
            self.pool.ite(neg, n, e)
        } else {
            e
        };
        let v = self
            .solver
            .get_value(&self.pool, &st.constraints, e)
            .map_err(|err| self.solver_error(st, err))?;
        let negative = signed && v >> (w - 1) & 1 == 1;
        let magnitude = if negative { v.wrapping_neg() & mask(w) } else { v };
        let mut k = 1u32;
        while base.checked_pow(k).is_some_and(|p| p <= magnitude) {
            k += 1;
        }
        let mut shape = if negative { neg } else { self.pool.bool_not(neg) };
        if k > 1 {
            let lo = self.pool.constant(w, base.pow(k - 1));
            let ge = self.pool.uge(m, lo);
            shape = self.pool.bool_and(shape, ge);
        }
        if let Some(hi) = base.checked_pow(k).filter(|&p| p <= mask(w)) {
            let hi = self.pool.constant(w, hi);
            let lt = self.pool.ult(m, hi);
            shape = self.pool.bool_and(shape, lt);
        }
        if k == 1 && (s.hash || s.precision.is_some()) {
            let zero = self.pool.constant(w, 0);
            let is_zero = if magnitude == 0 { self.pool.eq(m, zero) } else { self.pool.ne(m, zero) };
            shape = self.pool.bool_and(shape, is_zero);
        }
        self.assume_or_fork(st, shape)?;
        let upper = s.conv == b'X';
        let digits = (0..k)
            .rev()
            .map(|j| {
                let d = printf::digit_byte(&mut self.pool, m, base, j, upper);
                to_byte(&self.pool, d)
            })
            .collect();
        Ok(Val::Digits { negative, digits, zero: magnitude == 0 })
    }

    /// Where a string's text ends: its first byte that is 0 on this path.
    /// Where a symbolic byte may be 0 or not, the path continues with it
    /// non-zero and a copy of the state takes the other side.
    fn string_end(&mut self, st: &mut ExecutionState, bytes: &[Byte]) -> Res<usize> {
        for (i, b) in bytes.iter().enumerate() {
            let Byte::S(e) = *b else { continue };
            let zero = self.pool.constant(8, 0);
            let nonzero = self.pool.ne(e, zero);
            if !self.assume_or_fork(st, nonzero)? {
                return Ok(i);
            }
        }
        Ok(bytes.len())
    }

    /// The arguments a `va_list` holds for `slots` (x86-64 SysV: integers
    /// and pointers from the register save area's general registers, then
    /// the overflow area; doubles from its vector registers, then the
    /// overflow area).
    fn va_args(
        &mut self,
        st: &mut ExecutionState,
        va: &Value,
        slots: &[(Slot, Option<Spec>)],
    ) -> Res<Vec<Value>> {
        let p = self.concretize(st, va, 64, "va_list")? as u64;
        let mut gp = self.read_word(st, p, 4)? as u32;
        let mut fp = self.read_word(st, p + 4, 4)? as u32;
        let mut overflow = self.read_word(st, p + 8, 8)? as u64;
        let save = self.read_word(st, p + 16, 8)? as u64;
        let mut out = Vec::with_capacity(slots.len());
        for (slot, _) in slots {
            let addr = match slot {
                Slot::Double if fp < FP_AREA => {
                    fp += 16;
                    save + u64::from(fp - 16)
                }
                Slot::Int(_) | Slot::Str | Slot::Ignored if gp < GP_AREA => {
                    gp += 8;
                    save + u64::from(gp - 8)
                }
                _ => {
                    overflow += 8;
                    overflow - 8
                }
            };
            let place = self.resolve(st, &Value::Int(u128::from(addr)), 8, false)?;
            out.push(self.read_scalar(st, place, 8, 64));
        }
        Ok(out)
    }

    /// A concrete integer of `n` bytes at `addr`.
    fn read_word(&mut self, st: &mut ExecutionState, addr: u64, n: u64) -> Res<u128> {
        let place = self.resolve(st, &Value::Int(u128::from(addr)), n, false)?;
        let v = self.read_scalar(st, place, n, 8 * n as u32);
        self.concretize(st, &v, 8 * n as u32, "va_list field")
    }

    /// putchar/putc: prints one byte, returns it as an unsigned char.
    pub(super) fn put_char(
        &mut self,
        st: &mut ExecutionState,
        stream: Stream,
        c: &Value,
    ) -> Res<Option<Value>> {
        self.print_as(st, stream, b"%c", std::slice::from_ref(c), false)?;
        Ok(Some(match c {
            Value::Int(x) => Value::Int(x & 0xff),
            other => {
                let e = self.expr(other, 32);
                let b = self.pool.extract(e, 0, 8);
                let z = self.pool.zext(b, 32);
                self.value_of(z)
            }
        }))
    }

    /// fwrite(ptr, size, n, stream): the bytes as they are (a structured
    /// `%c` event per byte where some are symbolic). Returns `n`.
    pub(super) fn fwrite(&mut self, st: &mut ExecutionState, a: &[Value]) -> Res<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Int(0));
        let size = self.concretize(st, &arg(1), 64, "fwrite size")? as u64;
        let n = self.concretize(st, &arg(2), 64, "fwrite count")? as u64;
        let stream = self.std_stream(st, &arg(3), "fwrite")?;
        let total = size.saturating_mul(n);
        if total == 0 {
            return Ok(Value::Int(0));
        }
        let place = self.resolve(st, &arg(0), total, false)?;
        let bytes = self.read_bytes(st, place, total);
        if let Some(text) = bytes.iter().map(|b| if let Byte::C(c) = b { Some(*c) } else { None }).collect() {
            let text: Vec<u8> = text;
            st.write(stream, &text);
        } else {
            let args = bytes
                .iter()
                .map(|&b| {
                    let e = byte_expr(&mut self.pool, b);
                    FmtArg::Scalar(self.pool.zext(e, 32))
                })
                .collect();
            st.outputs.push(OutputEvent::Format { stream, format: b"%c".repeat(total as usize), args });
        }
        Ok(Value::Int(u128::from(n)))
    }

    /// The standard stream a `FILE *` names; any other stream is an
    /// `external` error of `what`.
    pub(super) fn std_stream(&mut self, st: &mut ExecutionState, f: &Value, what: &str) -> Res<Stream> {
        let p = self.concretize(st, f, 64, "FILE pointer")? as u64;
        if Some(p) == self.std_streams[1] {
            Ok(Stream::Stdout)
        } else if Some(p) == self.std_streams[2] {
            Ok(Stream::Stderr)
        } else {
            Err(self.error(
                st,
                ErrorKind::External,
                format!("{what} to a stream other than stdout or stderr, which psychic does not model"),
            ))
        }
    }

    /// A scalar argument as an expression of exactly `bits` bits.
    fn fit(&mut self, v: &Value, bits: u32) -> ExprId {
        match v {
            Value::Int(x) => self.pool.constant(bits, *x & mask(bits)),
            other => {
                let e = self.expr(other, bits);
                if self.pool.width(e) > bits {
                    self.pool.extract(e, 0, bits)
                } else {
                    self.pool.zext_or_trunc(e, bits)
                }
            }
        }
    }
}

impl OutputEvent {
    pub fn stream(&self) -> Stream {
        match self {
            OutputEvent::Text { stream, .. } | OutputEvent::Format { stream, .. } => *stream,
        }
    }

    /// The exact bytes this event prints under an assignment of the inputs.
    pub fn render(&self, pool: &crate::expr::ExprPool, a: &crate::expr::Assignment) -> Vec<u8> {
        match self {
            OutputEvent::Text { bytes, .. } => bytes.clone(),
            OutputEvent::Format { format, args, .. } => {
                let pieces = printf::parse(format);
                let slots = printf::slots(&pieces);
                let vals = slots
                    .iter()
                    .zip(args)
                    .map(|((slot, _), arg)| match (slot, arg) {
                        (Slot::Double, FmtArg::Scalar(e)) => {
                            Arg::Double(f64::from_bits(pool.eval(*e, a) as u64))
                        }
                        (_, FmtArg::Scalar(e)) => Arg::Int(pool.eval(*e, a)),
                        (_, FmtArg::Str(bytes)) => Arg::Str(Some(
                            bytes.iter().map(|&b| pool.eval(b, a) as u8).take_while(|&b| b != 0).collect(),
                        )),
                    })
                    .collect::<Vec<_>>();
                printf::render(&pieces, &vals)
            }
        }
    }
}
