//! What a halted path is and how the engine approximated on the way: the
//! types the executor hands the observer at every halt, apart from the live
//! state (`state`) and the per-revision ledger (`coverage`) so that neither
//! of those needs the other.
//!
//! what leaves the engine. `HaltedPath` (revisions, path
//! condition, outputs, `Termination`, the input it followed, its
//! approximations), `Termination` (exit, error, silent, early; an early one says
//! whether the budget cut it, `Termination::Early::cut`), `ErrorKind` (named by
//! KLEE's `.err` suffixes, and `alloc` for an allocation ASan refuses),
//! `Location`, and the approximation types (`ApproxKind`, `Approximation`).
//! Every error is a halt with a kind, a message, the source location of the
//! instruction and the call stack; the rest of the run goes on. A solver failure
//! ends only the state that asked.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::expr::{ArrayId, Assignment, ExprId};
use crate::ktest::Object;

use super::revset::RevSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// An argument of a structured (symbolic) printf event.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FmtArg {
    /// An integer, pointer or double (its bits), at the width the
    /// conversion reads.
    Scalar(ExprId),
    /// The bytes of a `%s` string, without the terminator.
    Str(Vec<ExprId>),
}

/// What a path wrote to stdout or stderr, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OutputEvent {
    /// Concrete text, exactly as glibc's printf renders it.
    Text { stream: Stream, bytes: Vec<u8> },
    /// A printf with symbolic arguments, kept structured.
    Format { stream: Stream, format: Vec<u8>, args: Vec<FmtArg> },
}

/// A `psychic_output_bytes(name, addr, n)` annotation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Annotation {
    pub name: String,
    /// The annotated bytes in memory order, each of width 8.
    pub bytes: Vec<ExprId>,
}

/// An input object, in the order the path made them (a ktest's objects).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SymbolicObject {
    pub name: String,
    pub array: ArrayId,
    pub size: u64,
}

/// The ktest objects of a path's inputs (`symbolics`, in order), with their bytes.
pub fn ktest_objects(symbolics: &[SymbolicObject], bytes: impl IntoIterator<Item = Vec<u8>>) -> Vec<Object> {
    symbolics.iter().zip(bytes).map(|(o, bytes)| Object { name: o.name.clone(), bytes }).collect()
}

/// Error kinds, named by the suffix of KLEE's `.err` files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ErrorKind {
    /// Out-of-bounds, null or dangling (use-after-free) access.
    Ptr,
    /// free() of something not allocated by malloc, or freed twice.
    Free,
    /// An allocation AddressSanitizer refuses and aborts on: larger than it
    /// serves (a negative size made unsigned), or a calloc whose count
    /// times size overflows.
    Alloc,
    /// A write to a read-only object (a string literal).
    ReadOnly,
    /// Division or remainder by zero, or INT_MIN / -1.
    Div,
    /// A shift by the width or more (with `check_overshift`).
    Overshift,
    Assert,
    Abort,
    /// `klee_report_error` with its suffix.
    User(String),
    /// Execution errors: `unreachable`, a call through a bad pointer, stack
    /// exhaustion, misuse of the KLEE API.
    Exec,
    /// A call to a function with no body and no model.
    External,
    /// An instruction or intrinsic the engine does not support.
    Unhandled,
    /// The solver gave up (timeout) on a query this path needed.
    Solver,
}

impl ErrorKind {
    /// The `.err` file suffix, as KLEE names it.
    pub fn suffix(&self) -> &str {
        match self {
            ErrorKind::Ptr => "ptr",
            ErrorKind::Free => "free",
            ErrorKind::Alloc => "alloc",
            ErrorKind::ReadOnly => "readonly",
            ErrorKind::Div => "div",
            ErrorKind::Overshift => "overshift",
            ErrorKind::Assert => "assert",
            ErrorKind::Abort => "abort",
            ErrorKind::User(s) => s,
            ErrorKind::Exec => "exec",
            ErrorKind::External => "external",
            ErrorKind::Unhandled => "unhandled",
            ErrorKind::Solver => "solver",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.suffix())
    }
}

/// A source position, from debug info.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    /// 0 when unknown.
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col != 0 {
            write!(f, ":{}", self.col)?;
        }
        Ok(())
    }
}

/// One frame of an error's call stack.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StackFrame {
    pub function: String,
    /// The instruction the frame was at: the error itself in the innermost
    /// frame, a call in the others.
    pub location: Option<Location>,
}

/// How a path ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// `exit(status)` or a return from the entry function (status width 32).
    Exit { status: ExprId },
    Error {
        kind: ErrorKind,
        message: String,
        /// The instruction's source position, from debug info.
        location: Option<Location>,
        /// Innermost first.
        stack: Vec<StackFrame>,
    },
    /// `klee_silent_exit`, or a provably false `klee_assume`: no test.
    Silent,
    /// Stopped by a limit (`max_instructions`, `max_depth`, time, memory).
    /// `cut` is the approximation that makes (a limit, the budget); `None`
    /// when the observer stopped the run because it knew enough.
    Early { reason: String, cut: Option<ApproxKind> },
}

impl Termination {
    pub fn error_kind(&self) -> Option<&ErrorKind> {
        match self {
            Termination::Error { kind, .. } => Some(kind),
            _ => None,
        }
    }
}

/// How the engine narrowed or dropped behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApproxKind {
    /// A symbolic value fixed to one of its values (an allocation size, a
    /// float, a pointer, a `*` width, an external call's argument): the path
    /// goes on, narrowed to that value.
    Concretised,
    /// The libc model does not support what the program asked for (a scanf
    /// conversion); the path ends.
    Model,
    /// A call to a function with neither a body nor a model; the path ends.
    External,
    /// An instruction or intrinsic the engine does not run; the path ends.
    Unsupported,
    /// The solver timed out or gave up on a query the path needed.
    Solver,
    /// A path cut by a per-path limit (`--max-depth`, `--max-forks`).
    Limit,
    /// A state still live when the run's budget ended it (time,
    /// instructions, memory, interrupt).
    Budget,
    /// A bug in the engine ended the path.
    Internal,
    /// The path read memory it never wrote: natively garbage, which the
    /// engine takes as 0.
    Uninitialised,
    /// A call to a library function that is not known to behave as the one
    /// the native build runs (musl's, where glibc runs natively:
    /// `Module::departures`): the path goes on with the engine's library.
    Libc,
    /// An access far outside the object its address was computed from,
    /// beyond the redzones AddressSanitizer guards: natively it lands
    /// wherever the binary's layout puts it, so what follows is not known;
    /// the path ends as an out-of-bounds error.
    Undefined,
}

impl ApproxKind {
    pub fn name(self) -> &'static str {
        match self {
            ApproxKind::Concretised => "concretised",
            ApproxKind::Model => "model",
            ApproxKind::External => "external",
            ApproxKind::Unsupported => "unsupported",
            ApproxKind::Solver => "solver",
            ApproxKind::Limit => "limit",
            ApproxKind::Budget => "budget",
            ApproxKind::Internal => "internal",
            ApproxKind::Uninitialised => "uninitialised",
            ApproxKind::Libc => "libc",
            ApproxKind::Undefined => "undefined",
        }
    }

    /// The engine could not follow the path on: where it ended, the native
    /// program goes on.
    pub fn ends_path(self) -> bool {
        matches!(
            self,
            ApproxKind::Model
                | ApproxKind::External
                | ApproxKind::Unsupported
                | ApproxKind::Solver
                | ApproxKind::Internal
                | ApproxKind::Undefined
        )
    }

    /// The approximation an engine-side error stands for: the program did
    /// not fail there, the engine could not follow it. Errors the program
    /// itself makes (a bad pointer, an assertion) are behaviour.
    pub fn of_error(kind: &ErrorKind) -> Option<ApproxKind> {
        match kind {
            ErrorKind::External => Some(ApproxKind::External),
            ErrorKind::Unhandled => Some(ApproxKind::Unsupported),
            ErrorKind::Solver => Some(ApproxKind::Solver),
            ErrorKind::User(s) if s == "model" => Some(ApproxKind::Model),
            _ => None,
        }
    }
}

impl fmt::Display for ApproxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One approximation on one path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Approximation {
    pub kind: ApproxKind,
    /// What was approximated, e.g. "concretised a symbolic malloc size".
    pub what: String,
    /// Where in the program (for a libc-model function, the program's call).
    pub location: Option<Location>,
}

impl Approximation {
    /// The approximation a termination itself stands for, if any.
    pub fn of_termination(t: &Termination) -> Option<Approximation> {
        match t {
            Termination::Error { kind, message, location, .. } => ApproxKind::of_error(kind)
                .map(|kind| Approximation { kind, what: message.clone(), location: location.clone() }),
            Termination::Early { reason, cut: Some(kind) } => {
                Some(Approximation { kind: *kind, what: reason.clone(), location: None })
            }
            _ => None,
        }
    }
}

/// A halted path, as the differentiator sees it. Nothing in it mentions the
/// revision: outputs that did were split per revision group at the halt.
#[derive(Debug, Clone)]
pub struct HaltedPath {
    pub revisions: RevSet,
    /// Width-1 constraints; their conjunction is the path condition.
    pub constraints: Vec<ExprId>,
    pub symbolics: Vec<SymbolicObject>,
    /// The meta-branch sites (`__klee_meta` arguments) the path went through,
    /// in first-visit order.
    pub sites: Vec<u32>,
    pub termination: Termination,
    /// Where in the program it ended (outside the libc model).
    pub end: Option<Location>,
    pub outputs: Vec<OutputEvent>,
    pub annotations: Vec<Annotation>,
    /// Instructions this path executed, counting those its ancestors ran.
    pub instructions: u64,
    /// Symbolic branches forked along the path.
    pub depth: u32,
    /// With `ExecConfig::cross_seed`, an input that takes this path: the seed
    /// it followed, or a model of its path condition.
    pub input: Option<Assignment>,
    /// Where the engine narrowed or dropped behaviour on this path, including
    /// what its termination stands for (an unmodelled call, a cut); empty
    /// when the path is exact.
    pub approximations: Vec<Approximation>,
}
