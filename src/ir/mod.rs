//! psychic's own compact IR, translated once from LLVM 19 bitcode.
//!
//! Cranelift style: a [`Module`] owns arenas indexed by typed `u32` ids. Every
//! SSA value of a function has a dense register slot; operands are registers
//! or entries of the module's constant table, where global and function
//! addresses (assigned at load time) and constant expressions are already
//! folded to plain integers. Phis are gone: each control-flow edge carries
//! the parallel moves it implies. Debug locations live in a side table. The
//! interpreter never calls into LLVM.
//!
//! The ids: `FuncId`, `GlobalId`, `ConstId`, `TyId`, `FileId`, and `BlockId`/
//! `InstId` per function. Parameters take the first register slots. Types carry
//! their layout from the module's data layout (store and alloc size, alignment,
//! struct field offsets). `Module::load_linked` links the libc model's bitcode
//! before translation; `Module::load_with_archive` then links an archive's
//! members the way a static link does (`archive`). How bitcode becomes this
//! is in `load`.

mod archive;
pub mod cfg;
mod llvm;
mod load;

/// The float vocabulary is the expression DAG's, whose `float` module defines its semantics.
pub use crate::expr::float::{FBinOp, FKind, FPred, FUnary};
pub use archive::{Archive, Pulled};
pub use load::LoadError;

use std::collections::HashMap;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A function of the module (defined or declared).
    FuncId
);
id_type!(
    /// A basic block of one function.
    BlockId
);
id_type!(
    /// An instruction of one function: the index into `Function::insts`.
    InstId
);
id_type!(
    /// A global variable.
    GlobalId
);
id_type!(
    /// An entry of `Module::consts`.
    ConstId
);
id_type!(
    /// An entry of `Module::types`.
    TyId
);
id_type!(
    /// A source file named by debug info.
    FileId
);

/// A register slot of a function frame. Parameters come first.
pub type Reg = u32;

/// The widest integer type the engine runs; up to 128 bits integers may be
/// symbolic, wider ones (bit-field storage of packed structs) only concrete.
pub const MAX_INT_WIDTH: u32 = 4096;

/// Where globals live: above the unmapped null page.
pub const GLOBAL_BASE: u64 = 0x1_0000;
/// Function "addresses": a region no object ever occupies, so that a function
/// pointer is a plain integer and a dereference of it is an error.
pub const FUNC_BASE: u64 = 0x4000_0000;
/// Distance between two function addresses.
pub const FUNC_STRIDE: u64 = 16;
/// Bytes left free after every global, so an overflow lands outside objects.
pub const GLOBAL_GAP: u64 = 64;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Void,
    Int(u32),
    Float,
    Double,
    /// x86_fp80, fp128, half and friends: sized, but not computed on.
    OtherFloat(&'static str),
    Ptr,
    Array {
        elem: TyId,
        len: u64,
    },
    Vector {
        elem: TyId,
        len: u32,
    },
    Struct {
        fields: Box<[TyId]>,
        offsets: Box<[u64]>,
    },
    Func,
    Label,
    Metadata,
    Token,
}

/// A type with its layout from the module's data layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Type {
    pub kind: TypeKind,
    /// Bytes a load or store touches.
    pub store_size: u64,
    /// Distance between array elements.
    pub alloc_size: u64,
    pub align: u32,
}

/// A constant, fully resolved at load time.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    /// Integers, pointers (addresses) and floats (IEEE bits), masked to width.
    Int(u128),
    /// Structs, arrays and vectors, element by element.
    Agg(Box<[Const]>),
    /// An integer wider than 128 bits: 64-bit limbs, least significant first.
    Big(Box<[u64]>),
    /// An `i8` array (string literals).
    Bytes(Box<[u8]>),
    /// `zeroinitializer`, `undef` and `poison` (all read as zero) of a type.
    Zero(TyId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg),
    Const(ConstId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    /// Bit-preserving: bitcast, ptrtoint, inttoptr, addrspacecast of equal
    /// width, and the rest of the pointer casts (which zext or trunc).
    Bits,
    FpToSi,
    FpToUi,
    SiToFp,
    UiToFp,
    FpTrunc,
    FpExt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverflowOp {
    SAdd,
    UAdd,
    SSub,
    USub,
    SMul,
    UMul,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SatOp {
    SAdd,
    UAdd,
    SSub,
    USub,
    SShl,
    UShl,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinMax {
    SMin,
    SMax,
    UMin,
    UMax,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    Ctpop,
    Ctlz,
    Cttz,
    Bswap,
    Bitreverse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Add,
    Mul,
    And,
    Or,
    Xor,
    Min(MinMax),
}

/// LLVM intrinsics, resolved by name at load time. Widths are of the
/// (element) integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intrinsic {
    /// lifetime, dbg.*, assume, prefetch, noalias scope declarations, va_end.
    Nop,
    Memcpy,
    Memmove,
    Memset,
    /// expect, ssa.copy, launder/strip.invariant.group, threadlocal.address.
    Identity,
    Overflow(OverflowOp, u32),
    Sat(SatOp, u32),
    MinMax(MinMax, u32),
    Abs(u32),
    Bit(BitOp, u32),
    Fshl(u32),
    Fshr(u32),
    FUnary(FUnary, FKind),
    CopySign(FKind),
    FMinMax {
        max: bool,
        kind: FKind,
    },
    Fma(FKind),
    /// llvm.fmuladd, which clang emits for `a * b + c` (-ffp-contract=on): on x86-64 without FMA
    /// a multiplication and an addition, each rounded.
    FMulAdd(FKind),
    Reduce(Reduce, u32),
    VaStart,
    VaCopy,
    /// stacksave: a token the matching stackrestore ignores.
    StackSave,
    Trap,
    /// objectsize: "unknown" (-1 or 0 per its `min` flag).
    ObjectSize,
    /// load.relative(p, off): `p + sext(load i32 (p + off))` (relative
    /// lookup tables at -O2).
    LoadRelative,
}

/// One successor of a terminator, with the phi moves the edge implies
/// (evaluated in parallel, then assigned).
#[derive(Debug, Clone)]
pub struct Edge {
    pub target: BlockId,
    pub moves: Box<[(Reg, Operand)]>,
}

#[derive(Debug, Clone)]
pub enum Callee {
    Direct(FuncId),
    Indirect(Operand),
    Intrinsic(Intrinsic),
}

#[derive(Debug, Clone)]
pub enum Op {
    Bin {
        op: BinOp,
        width: u32,
        a: Operand,
        b: Operand,
    },
    FBin {
        op: FBinOp,
        kind: FKind,
        a: Operand,
        b: Operand,
    },
    FNeg {
        kind: FKind,
        a: Operand,
    },
    ICmp {
        pred: IPred,
        width: u32,
        a: Operand,
        b: Operand,
    },
    FCmp {
        pred: FPred,
        kind: FKind,
        a: Operand,
        b: Operand,
    },
    Select {
        cond: Operand,
        t: Operand,
        f: Operand,
        /// Bits of the (element) value chosen, for building a symbolic choice
        /// between two constants; 0 for other types (structs).
        width: u32,
    },
    /// Integer and pointer widths in bits; floats by kind (`from`/`to` are
    /// then 32 or 64).
    Cast {
        op: CastOp,
        from: u32,
        to: u32,
        a: Operand,
    },
    /// A bitcast that changes shape (vector <-> integer, vector <-> vector):
    /// through the in-memory byte image.
    Reshape {
        from: TyId,
        to: TyId,
        a: Operand,
    },
    Alloca {
        elem_size: u64,
        count: Operand,
        count_width: u32,
        align: u32,
    },
    Load {
        ty: TyId,
        ptr: Operand,
    },
    Store {
        ty: TyId,
        val: Operand,
        ptr: Operand,
    },
    /// `base + offset + sum(sext(index) * scale)`.
    Gep {
        base: Operand,
        offset: i64,
        indices: Box<[(Operand, u32, i64)]>,
    },
    /// `byval` lists (argument, size, align) of arguments passed by value in
    /// memory; `vararg_tys` are the types of the arguments past the called
    /// type's fixed parameters.
    Call {
        callee: Callee,
        args: Box<[Operand]>,
        ret: TyId,
        byval: Box<[(u32, u64, u32)]>,
        vararg_tys: Box<[TyId]>,
    },
    ExtractValue {
        agg: Operand,
        path: Box<[u32]>,
    },
    InsertValue {
        agg: Operand,
        val: Operand,
        path: Box<[u32]>,
    },
    ExtractElement {
        vec: Operand,
        idx: Operand,
    },
    InsertElement {
        vec: Operand,
        val: Operand,
        idx: Operand,
    },
    /// `mask[i]` selects from the concatenation of `a` and `b`; `None` is undef.
    Shuffle {
        a: Operand,
        b: Operand,
        mask: Box<[Option<u32>]>,
    },
    /// freeze, and identity casts.
    Copy {
        a: Operand,
    },
    Br {
        edge: Edge,
    },
    CondBr {
        cond: Operand,
        t: Edge,
        f: Edge,
    },
    Switch {
        val: Operand,
        width: u32,
        cases: Box<[(u128, Edge)]>,
        default: Edge,
    },
    Ret {
        val: Option<Operand>,
    },
    Unreachable,
    /// Reaching it ends the state with this text and the instruction's location.
    Unsupported {
        text: Box<str>,
    },
}

#[derive(Debug, Clone)]
pub struct Inst {
    /// The register the result goes to, `NO_REG` for none (void, or a call
    /// whose result nobody reads).
    pub dst: Reg,
    pub op: Op,
}

pub const NO_REG: Reg = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// The block's first instruction (phis are compiled into edges).
    pub first: InstId,
}

/// A source location from `!dbg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone)]
pub struct Body {
    pub blocks: Vec<Block>,
    pub insts: Vec<Inst>,
    /// Parallel to `insts`.
    pub locs: Vec<Option<SrcLoc>>,
    pub num_regs: u32,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub params: Vec<TyId>,
    pub ret: TyId,
    pub vararg: bool,
    /// `None` for a declaration: the executor resolves it to a handler.
    pub body: Option<Body>,
}

#[derive(Debug, Clone)]
pub struct Global {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    pub align: u32,
    pub constant: bool,
    /// Defined in the module (not an `extern` declaration).
    pub defined: bool,
    /// The initial bytes; `None` for zero (and for external declarations).
    pub init: Option<Box<[u8]>>,
}

#[derive(Debug, Default)]
pub struct Module {
    pub funcs: Vec<Function>,
    pub globals: Vec<Global>,
    pub consts: Vec<Const>,
    pub types: Vec<Type>,
    pub files: Vec<String>,
    pub func_by_name: HashMap<String, FuncId>,
    pub global_by_name: HashMap<String, GlobalId>,
    /// First address past the globals.
    pub globals_end: u64,
    /// `const int __psychic_revisions = N;` if the module defines it.
    pub revisions: Option<u32>,
    /// Problems found at load time that do not stop the run (unsupported
    /// global initializers).
    pub warnings: Vec<String>,
    /// Library functions the engine runs where the native build runs another
    /// library's (musl's, where glibc runs natively) that is not known to
    /// behave alike, with why: a call to one is an approximation
    /// (`crate::libs` decides which). Indexed by `FuncId`, as the calls of
    /// the interpreter's loop look it up; empty when there is none.
    pub departures: Vec<Option<String>>,
}

impl Module {
    /// Reads and translates a bitcode file.
    pub fn load(path: &std::path::Path) -> Result<Module, LoadError> {
        load::load(&[path])
    }

    /// The functions the program of the bitcode files `paths`, linked,
    /// declares and does not define.
    pub fn declarations(paths: &[&std::path::Path]) -> Result<Vec<String>, LoadError> {
        load::declarations(paths)
    }

    /// Reads a program's bitcode, links libraries' bitcode into it (such as
    /// the libc model; weak definitions yield to the program's), and
    /// translates the result. A program of several units is the first and
    /// the others before the libraries: a definition twice is an error, as
    /// in a native link.
    pub fn load_linked(
        program: &std::path::Path,
        libraries: &[&std::path::Path],
    ) -> Result<Module, LoadError> {
        let mut all = vec![program];
        all.extend_from_slice(libraries);
        load::load(&all)
    }

    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.index()]
    }

    pub fn ty(&self, id: TyId) -> &Type {
        &self.types[id.index()]
    }

    /// The function to start in: a defined function of that name.
    pub fn entry(&self, name: &str) -> Result<FuncId, LoadError> {
        match self.func_by_name.get(name) {
            Some(&id) if self.funcs[id.index()].body.is_some() => Ok(id),
            _ => Err(LoadError::NoEntry { name: name.to_string() }),
        }
    }

    pub fn func_addr(id: FuncId) -> u64 {
        FUNC_BASE + u64::from(id.0) * FUNC_STRIDE
    }

    /// The function whose address is `addr`, if any.
    pub fn func_at(&self, addr: u64) -> Option<FuncId> {
        let off = addr.checked_sub(FUNC_BASE)?;
        if off % FUNC_STRIDE != 0 {
            return None;
        }
        let idx = off / FUNC_STRIDE;
        (idx < self.funcs.len() as u64).then_some(FuncId(idx as u32))
    }

    /// The integer width of a type, for scalar integer and pointer types.
    pub fn int_width(&self, ty: TyId) -> Option<u32> {
        match self.ty(ty).kind {
            TypeKind::Int(w) => Some(w),
            TypeKind::Ptr => Some(64),
            _ => None,
        }
    }
}
