//! One path of the program: KLEE's ExecutionState, plus the revision set.
//!
//! `ExecutionState` holds the frames with their register files,
//! the path constraints, the `RevSet`, the `AddressSpace`, the output events, the
//! annotations and the log of symbolic objects. Two states of different
//! revisions that make the k-th `klee_make_symbolic` of their path read the same
//! array (`pool.array(name, size, k)`), so states that split late share inputs.

use crate::expr::ExprId;
use crate::ir::{FuncId, Reg};

use super::halt::{Annotation, Approximation, OutputEvent, Stream, SymbolicObject};
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
    /// The `depth` at which this path parted from the last fuzzer input it
    /// followed (an inbox seed, `seeds.rs`): until its next branch it runs
    /// first (`First::seeds`).
    pub(super) left_inbox_seed: Option<u32>,
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
            left_inbox_seed: None,
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
