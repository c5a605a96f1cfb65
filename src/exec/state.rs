//! One path of the program: KLEE's ExecutionState, plus the revision set.

use std::fmt;

use crate::expr::{ArrayId, Assignment, ExprId};
use crate::ir::{FuncId, Reg};
use crate::ktest::Object;

use super::coverage::{ApproxKind, Approximation};
use super::memory::{AddressSpace, ObjId};
use super::revset::RevSet;
use super::value::Value;

/// Where a frame's variadic arguments live (x86-64 SysV `va_list` areas).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarArgs {
    pub reg_save_area: u64,
    pub overflow_area: u64,
    /// `gp_offset` and `fp_offset` as `va_start` sets them.
    pub gp_offset: u32,
    pub fp_offset: u32,
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub func: FuncId,
    /// Index of the next instruction in the function's body.
    pub pc: u32,
    pub regs: Vec<Value>,
    /// The caller's register for the return value.
    pub ret_dst: Reg,
    /// Stack objects to free on return.
    pub allocas: Vec<ObjId>,
    pub varargs: Option<VarArgs>,
}

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

#[derive(Clone, Debug)]
pub struct ExecutionState {
    pub stack: Vec<Frame>,
    /// Width-1 expressions, all true on this path. Never mentions the revision.
    pub constraints: Vec<ExprId>,
    pub revisions: RevSet,
    pub memory: AddressSpace,
    pub outputs: Vec<OutputEvent>,
    pub annotations: Vec<Annotation>,
    pub symbolics: Vec<SymbolicObject>,
    /// Meta-branch sites visited, in first-visit order.
    pub sites: Vec<u32>,
    /// Symbolic branches taken (forks along this path).
    pub depth: u32,
    pub instructions: u64,
    /// Instructions since this state last covered a new block.
    pub since_new_cover: u64,
    /// The seeds (indices into `ExecConfig::seeds`) this path agrees with.
    pub seeds: Vec<u32>,
    /// Constraints already checked against `seeds`.
    pub(super) seeds_checked: usize,
    /// The state's leaf in the process tree.
    pub(super) ptree_node: usize,
    /// Where the engine narrowed behaviour on this path so far, each once.
    pub approximations: Vec<Approximation>,
    /// While every constraint so far came from `klee_assume` (their number)
    /// and nothing was approximated, this path stands for every input of
    /// its revisions (`exec::domain`).
    pub(super) domain_constraints: usize,
    /// The merge groups (`exec::merge`) this state belongs to, innermost
    /// last: the revision splits whose variants it may meet again.
    pub(super) merge: Vec<u32>,
    /// Branch queries of this state that ran out of time since its last one
    /// answered: its next one gets ten times the timeout for each (`defer`).
    pub(super) patience: u8,
}

impl ExecutionState {
    pub fn new(revisions: RevSet, memory: AddressSpace) -> ExecutionState {
        ExecutionState {
            stack: Vec::new(),
            constraints: Vec::new(),
            revisions,
            memory,
            outputs: Vec::new(),
            annotations: Vec::new(),
            symbolics: Vec::new(),
            sites: Vec::new(),
            depth: 0,
            instructions: 0,
            since_new_cover: 0,
            seeds: Vec::new(),
            seeds_checked: 0,
            ptree_node: 0,
            approximations: Vec::new(),
            domain_constraints: 0,
            merge: Vec::new(),
            patience: 0,
        }
    }

    pub fn frame(&self) -> &Frame {
        self.stack.last().expect("a running state has a frame")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.stack.last_mut().expect("a running state has a frame")
    }

    /// Records an approximation on this path, once per kind, message and place.
    pub fn approximate(&mut self, a: Approximation) {
        if !self.approximations.contains(&a) {
            self.approximations.push(a);
        }
    }

    /// Appends output, merging consecutive text on the same stream.
    pub fn write(&mut self, stream: Stream, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        if let Some(OutputEvent::Text { stream: s, bytes }) = self.outputs.last_mut()
            && *s == stream
        {
            bytes.extend_from_slice(text);
            return;
        }
        self.outputs.push(OutputEvent::Text { stream, bytes: text.to_vec() });
    }
}
