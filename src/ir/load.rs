//! Bitcode → [`Module`]: one pass over the LLVM module, then LLVM is dropped.
//!
//! inkwell parses the file; the translation walks the raw `LLVMValueRef`s of
//! inkwell's `llvm_sys` through the thin wrappers of `llvm.rs` (inkwell's typed
//! API lacks GEP source types, call-site `byval` types, shuffle masks and
//! constant-expression opcodes).
//!
//! Load-time resolution: globals get fixed addresses (from `GLOBAL_BASE`, with
//! `GLOBAL_GAP` bytes between them) and their initial byte images; functions get
//! addresses in a region no object occupies (`FUNC_BASE`); constant expressions
//! (GEPs, casts, arithmetic on addresses) fold to integers; GEPs become
//! `base + offset + Σ index·scale`; phis become the parallel moves of each CFG
//! `Edge`; intrinsics resolve to `Intrinsic`; an int-to-float-to-int round trip
//! within a block, through a float type that holds the integer, becomes the
//! integer cast x86's instruction selection folds it into (an out-of-range value
//! keeps its low bits); `!dbg` locations go to a side table parallel to the
//! instructions; a call whose result nobody reads gets no register (`NO_REG`);
//! `__psychic_revisions` is read into `Module::revisions`.
//!
//! Errors: `LoadError::{Read, NotBitcode, NoEntry}`. A construct the engine
//! cannot run becomes `Op::Unsupported { text }` on that instruction (or a
//! module warning for a global initializer); only a path that reaches it ends.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind, LLVMValueKind};
use inkwell::memory_buffer::MemoryBuffer;
use num_bigint::{BigInt, BigUint};

use super::llvm::{self, T, V};
use super::*;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: {msg}", path.display())]
    Read { path: PathBuf, msg: String },
    #[error("{}: not LLVM bitcode that LLVM 19 can read: {msg}", path.display())]
    NotBitcode { path: PathBuf, msg: String },
    #[error("{}: cannot link it into the program: {msg}", path.display())]
    Link { path: PathBuf, msg: String },
    #[error("no function `{name}` defined in the module (choose another entry point)")]
    NoEntry { name: String },
}

/// Loads `paths[0]` and links the others into it (weak definitions yield).
pub(super) fn load(paths: &[&Path]) -> Result<Module, LoadError> {
    let ctx = Context::create();
    Ok(translate(&linked(&ctx, paths)?))
}

/// A linked LLVM module in psychic's IR.
pub(super) fn translate(module: &inkwell::module::Module) -> Module {
    let mut t = Translator::new(module.as_mut_ptr());
    t.run();
    t.out
}

/// The functions the program of `paths` (linked) declares and does not
/// define: what it calls outside itself.
pub(super) fn declarations(paths: &[&Path]) -> Result<Vec<String>, LoadError> {
    let ctx = Context::create();
    Ok(linked(&ctx, paths)?
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect())
}

/// `paths[0]` with the others linked into it.
pub(super) fn linked<'c>(
    ctx: &'c Context,
    paths: &[&Path],
) -> Result<inkwell::module::Module<'c>, LoadError> {
    let (first, rest) = paths.split_first().expect("at least one bitcode file");
    let module = parse(ctx, first)?;
    for p in rest {
        module
            .link_in_module(parse(ctx, p)?)
            .map_err(|e| LoadError::Link { path: p.to_path_buf(), msg: e.to_string() })?;
    }
    Ok(module)
}

pub(super) fn parse<'c>(ctx: &'c Context, path: &Path) -> Result<inkwell::module::Module<'c>, LoadError> {
    let buf = MemoryBuffer::create_from_file(path)
        .map_err(|e| LoadError::Read { path: path.to_path_buf(), msg: e.to_string() })?;
    if !buf.as_slice().starts_with(b"BC\xC0\xDE") && !buf.as_slice().starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Err(LoadError::NotBitcode {
            path: path.to_path_buf(),
            msg: "the file does not start with the bitcode magic".into(),
        });
    }
    inkwell::module::Module::parse_bitcode_from_buffer(&buf, ctx)
        .map_err(|e| LoadError::NotBitcode { path: path.to_path_buf(), msg: e.to_string() })
}

struct Translator {
    m: LLVMModuleRef,
    layout: llvm::Layout,
    out: Module,
    types: HashMap<T, TyId>,
    type_ids: HashMap<Type, TyId>,
    consts: HashMap<V, ConstId>,
    const_ids: HashMap<ConstKey, ConstId>,
    funcs: HashMap<V, FuncId>,
    global_addrs: HashMap<V, u64>,
    files: HashMap<String, FileId>,
    byval_kind: u32,
}

/// Interning key for constants (constants are small; equal ones share an id).
#[derive(PartialEq, Eq, Hash)]
struct ConstKey(String);

/// Per-function translation state.
struct FnCtx {
    regs: HashMap<V, Reg>,
    blocks: HashMap<LLVMBasicBlockRef, BlockId>,
    phis: HashMap<LLVMBasicBlockRef, Vec<V>>,
}

type R<X> = Result<X, String>;

impl Translator {
    fn new(m: LLVMModuleRef) -> Self {
        Translator {
            m,
            layout: llvm::Layout::of(m),
            out: Module::default(),
            types: HashMap::new(),
            type_ids: HashMap::new(),
            consts: HashMap::new(),
            const_ids: HashMap::new(),
            funcs: HashMap::new(),
            global_addrs: HashMap::new(),
            files: HashMap::new(),
            byval_kind: llvm::attr_kind("byval"),
        }
    }

    fn run(&mut self) {
        let fns = llvm::functions(self.m);
        for (i, &f) in fns.iter().enumerate() {
            let id = FuncId(i as u32);
            self.funcs.insert(f, id);
            let (ret, params, vararg) = llvm::fn_type_parts(llvm::global_value_type(f));
            let ret = self.ty(ret);
            let params = params.into_iter().map(|p| self.ty(p)).collect();
            let name = llvm::name(f);
            self.out.func_by_name.insert(name.clone(), id);
            self.out.funcs.push(Function { name, params, ret, vararg, body: None });
        }
        // A library's public name is often an alias of its internal one
        // (musl's `weak_alias(__strerror_l, strerror_l)`): both name the
        // same function.
        for a in llvm::aliases(self.m) {
            if let Some(&id) = self.funcs.get(&llvm::aliasee(a)) {
                self.out.func_by_name.entry(llvm::name(a)).or_insert(id);
            }
        }
        self.layout_globals();
        for (i, &f) in fns.iter().enumerate() {
            if !llvm::is_declaration(f) {
                let body = self.body(f);
                self.out.funcs[i].body = Some(body);
            }
        }
    }

    fn layout_globals(&mut self) {
        let globals = llvm::globals(self.m);
        let mut next = GLOBAL_BASE;
        for &g in &globals {
            let vt = llvm::global_value_type(g);
            let size = if llvm::is_sized(vt) { self.layout.alloc_size(vt) } else { 0 };
            let align =
                llvm::alignment(g).max(if llvm::is_sized(vt) { self.layout.align(vt) } else { 1 }).max(1);
            let addr = next.next_multiple_of(u64::from(align).max(16));
            next = addr + size.max(1) + GLOBAL_GAP;
            self.global_addrs.insert(g, addr);
            let name = llvm::name(g);
            self.out.global_by_name.insert(name.clone(), GlobalId(self.out.globals.len() as u32));
            self.out.globals.push(Global {
                name,
                addr,
                size,
                align,
                constant: llvm::is_global_constant(g),
                defined: !llvm::is_declaration(g),
                init: None,
            });
        }
        self.out.globals_end = next;
        for (i, &g) in globals.iter().enumerate() {
            let Some(init) = llvm::initializer(g) else { continue };
            let vt = llvm::global_value_type(g);
            let ty = self.ty(vt);
            let size = self.out.globals[i].size as usize;
            let init_bytes = match self.const_value(init) {
                Ok(Const::Zero(_)) => None,
                Ok(c) => {
                    let mut bytes = vec![0u8; size];
                    self.write_const(&c, ty, &mut bytes);
                    Some(bytes.into_boxed_slice())
                }
                Err(e) => {
                    self.out.warnings.push(format!(
                        "global @{}: initializer not supported ({e}); it reads as zero",
                        self.out.globals[i].name
                    ));
                    None
                }
            };
            if self.out.globals[i].name == "__psychic_revisions" {
                if let Some(b) = &init_bytes {
                    if b.len() >= 4 {
                        self.out.revisions = Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    }
                } else {
                    self.out.revisions = Some(0);
                }
            }
            self.out.globals[i].init = init_bytes;
        }
    }

    /// The byte image of a constant of type `ty`.
    fn write_const(&self, c: &Const, ty: TyId, out: &mut [u8]) {
        let t = self.out.ty(ty);
        match (c, &t.kind) {
            (Const::Zero(_), _) => {}
            (Const::Int(v), _) => {
                let n = (t.store_size as usize).min(out.len()).min(16);
                out[..n].copy_from_slice(&v.to_le_bytes()[..n]);
            }
            (Const::Big(limbs), _) => {
                let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
                let n = (t.store_size as usize).min(out.len()).min(bytes.len());
                out[..n].copy_from_slice(&bytes[..n]);
            }
            (Const::Bytes(b), _) => {
                let n = b.len().min(out.len());
                out[..n].copy_from_slice(&b[..n]);
            }
            (Const::Agg(elems), TypeKind::Struct { fields, offsets }) => {
                for ((e, &f), &off) in elems.iter().zip(fields.iter()).zip(offsets.iter()) {
                    self.write_const(e, f, &mut out[off as usize..]);
                }
            }
            (Const::Agg(elems), TypeKind::Array { elem, .. }) => {
                let step = self.out.ty(*elem).alloc_size as usize;
                for (i, e) in elems.iter().enumerate() {
                    self.write_const(e, *elem, &mut out[i * step..]);
                }
            }
            (Const::Agg(elems), TypeKind::Vector { elem, .. }) => {
                let step = self.out.ty(*elem).store_size as usize;
                for (i, e) in elems.iter().enumerate() {
                    self.write_const(e, *elem, &mut out[i * step..]);
                }
            }
            (Const::Agg(_), _) => {}
        }
    }

    fn intern_type(&mut self, kind: TypeKind, store_size: u64, alloc_size: u64, align: u32) -> TyId {
        let t = Type { kind, store_size, alloc_size, align };
        if let Some(&id) = self.type_ids.get(&t) {
            return id;
        }
        let id = TyId(self.out.types.len() as u32);
        self.out.types.push(t.clone());
        self.type_ids.insert(t, id);
        id
    }

    fn ty(&mut self, t: T) -> TyId {
        if let Some(&id) = self.types.get(&t) {
            return id;
        }
        use LLVMTypeKind::*;
        let kind = match llvm::type_kind(t) {
            LLVMVoidTypeKind => TypeKind::Void,
            LLVMIntegerTypeKind => TypeKind::Int(llvm::int_width(t)),
            LLVMFloatTypeKind => TypeKind::Float,
            LLVMDoubleTypeKind => TypeKind::Double,
            LLVMX86_FP80TypeKind => TypeKind::OtherFloat("x86_fp80"),
            LLVMFP128TypeKind => TypeKind::OtherFloat("fp128"),
            LLVMHalfTypeKind => TypeKind::OtherFloat("half"),
            LLVMBFloatTypeKind => TypeKind::OtherFloat("bfloat"),
            LLVMPPC_FP128TypeKind => TypeKind::OtherFloat("ppc_fp128"),
            LLVMPointerTypeKind => TypeKind::Ptr,
            LLVMArrayTypeKind => {
                let elem = self.ty(llvm::element_type(t));
                TypeKind::Array { elem, len: llvm::array_len(t) }
            }
            LLVMVectorTypeKind => {
                let elem = self.ty(llvm::element_type(t));
                TypeKind::Vector { elem, len: llvm::vector_len(t) }
            }
            LLVMStructTypeKind if llvm::is_sized(t) => {
                let fts = llvm::struct_fields(t);
                let offsets = (0..fts.len() as u32).map(|i| self.layout.field_offset(t, i)).collect();
                let fields = fts.into_iter().map(|f| self.ty(f)).collect();
                TypeKind::Struct { fields, offsets }
            }
            LLVMFunctionTypeKind => TypeKind::Func,
            LLVMLabelTypeKind => TypeKind::Label,
            LLVMMetadataTypeKind => TypeKind::Metadata,
            _ => TypeKind::Token,
        };
        let (store, alloc, align) = if llvm::is_sized(t) {
            (self.layout.store_size(t), self.layout.alloc_size(t), self.layout.align(t))
        } else {
            (0, 0, 1)
        };
        // Types with the same kind and layout share an id (packed and plain
        // structs differ by their sizes and alignment).
        let id = self.intern_type(kind, store, alloc, align);
        self.types.insert(t, id);
        id
    }

    fn file(&mut self, dir: &str, file: &str) -> FileId {
        let path =
            if file.starts_with('/') || dir.is_empty() { file.to_string() } else { format!("{dir}/{file}") };
        let next = FileId(self.out.files.len() as u32);
        *self.files.entry(path.clone()).or_insert_with(|| {
            self.out.files.push(path);
            next
        })
    }

    // Constants.

    fn const_id(&mut self, v: V) -> R<ConstId> {
        if let Some(&id) = self.consts.get(&v) {
            return Ok(id);
        }
        let c = self.const_value(v)?;
        let id = self.const_id_of(c);
        self.consts.insert(v, id);
        Ok(id)
    }

    fn const_value(&mut self, c: V) -> R<Const> {
        use LLVMValueKind::*;
        let t = llvm::type_of(c);
        let ty = self.ty(t);
        match llvm::value_kind(c) {
            LLVMConstantIntValueKind => {
                let w = llvm::int_width(t);
                if w <= 64 {
                    Ok(Const::Int(u128::from(llvm::const_int_low(c))))
                } else if w <= 128 {
                    let v = wide_int(&llvm::print(c), w)?;
                    Ok(Const::Int(v.try_into().unwrap_or(0)))
                } else {
                    let v = wide_int(&llvm::print(c), w)?;
                    Ok(Const::Big(v.to_u64_digits().into_boxed_slice()))
                }
            }
            LLVMConstantFPValueKind => {
                let d = llvm::const_real(c);
                match self.out.ty(ty).kind {
                    TypeKind::Float => Ok(Const::Int(u128::from((d as f32).to_bits()))),
                    TypeKind::Double => Ok(Const::Int(u128::from(d.to_bits()))),
                    TypeKind::OtherFloat("x86_fp80") => Ok(Const::Int(f64_to_x87(d))),
                    _ => Err(format!("floating-point constant of an unsupported type: {}", llvm::print(c))),
                }
            }
            LLVMConstantPointerNullValueKind
            | LLVMConstantAggregateZeroValueKind
            | LLVMUndefValueValueKind
            | LLVMPoisonValueKind
            | LLVMConstantTokenNoneValueKind => Ok(match self.out.ty(ty).kind {
                TypeKind::Struct { .. } | TypeKind::Array { .. } | TypeKind::Vector { .. } => Const::Zero(ty),
                _ => Const::Int(0),
            }),
            LLVMConstantDataArrayValueKind | LLVMConstantDataVectorValueKind
                if matches!(self.out.ty(ty).kind, TypeKind::Array { .. })
                    && llvm::const_string(c).is_some() =>
            {
                let bytes = llvm::const_string(c).unwrap_or_default();
                Ok(Const::Bytes(bytes.into_boxed_slice()))
            }
            LLVMConstantArrayValueKind
            | LLVMConstantStructValueKind
            | LLVMConstantVectorValueKind
            | LLVMConstantDataArrayValueKind
            | LLVMConstantDataVectorValueKind => {
                let n = match &self.out.ty(ty).kind {
                    TypeKind::Struct { fields, .. } => fields.len() as u64,
                    TypeKind::Array { len, .. } => *len,
                    TypeKind::Vector { len, .. } => u64::from(*len),
                    k => return Err(format!("aggregate constant of type {k:?}")),
                };
                let elems = (0..n as u32)
                    .map(|i| self.const_value(llvm::aggregate_element(c, i)))
                    .collect::<R<Vec<_>>>()?;
                Ok(Const::Agg(elems.into_boxed_slice()))
            }
            LLVMGlobalVariableValueKind => self
                .global_addrs
                .get(&c)
                .map(|&a| Const::Int(u128::from(a)))
                .ok_or_else(|| "unknown global".into()),
            LLVMFunctionValueKind => {
                let id = self.funcs[&c];
                Ok(Const::Int(u128::from(Module::func_addr(id))))
            }
            LLVMGlobalAliasValueKind => self.const_value(llvm::aliasee(c)),
            LLVMConstantExprValueKind => self.const_expr(c, ty),
            _ => Err(format!("unsupported constant: {}", llvm::print(c))),
        }
    }

    fn const_int(&mut self, c: V) -> R<u128> {
        match self.const_value(c)? {
            Const::Int(v) => Ok(v),
            Const::Zero(_) => Ok(0),
            _ => Err(format!("expected a scalar constant: {}", llvm::print(c))),
        }
    }

    fn const_expr(&mut self, c: V, ty: TyId) -> R<Const> {
        use LLVMOpcode::*;
        let op = llvm::const_opcode(c);
        let width = self.out.int_width(ty);
        let mask = |v: u128| width.map_or(v, |w| mask(v, w));
        match op {
            LLVMGetElementPtr => {
                let base = self.const_int(llvm::operand(c, 0))? as u64;
                let src = llvm::gep_source_type(c);
                let src = self.ty(src);
                let mut off: i64 = 0;
                let mut cur = src;
                for i in 1..llvm::num_operands(c) {
                    let idx_v = llvm::operand(c, i);
                    let it = self.ty(llvm::type_of(idx_v));
                    let iw = self.out.int_width(it).unwrap_or(64);
                    let idx = sext(self.const_int(idx_v)?, iw) as i64;
                    if i == 1 {
                        off = off.wrapping_add(idx.wrapping_mul(self.out.ty(cur).alloc_size as i64));
                        continue;
                    }
                    match self.out.ty(cur).kind.clone() {
                        TypeKind::Struct { fields, offsets } => {
                            off = off.wrapping_add(offsets[idx as usize] as i64);
                            cur = fields[idx as usize];
                        }
                        TypeKind::Array { elem, .. } => {
                            off = off.wrapping_add(idx.wrapping_mul(self.out.ty(elem).alloc_size as i64));
                            cur = elem;
                        }
                        TypeKind::Vector { elem, .. } => {
                            off = off.wrapping_add(idx.wrapping_mul(self.out.ty(elem).store_size as i64));
                            cur = elem;
                        }
                        k => return Err(format!("GEP into {k:?}")),
                    }
                }
                Ok(Const::Int(u128::from(base.wrapping_add(off as u64))))
            }
            LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMTrunc | LLVMZExt => {
                match self.const_value(llvm::operand(c, 0))? {
                    Const::Int(v) => Ok(Const::Int(mask(v))),
                    other if op == LLVMBitCast => Ok(other),
                    _ => Err(format!("unsupported constant cast: {}", llvm::print(c))),
                }
            }
            LLVMSExt => {
                let a = llvm::operand(c, 0);
                let from = self.ty(llvm::type_of(a));
                let fw = self.out.int_width(from).unwrap_or(64);
                Ok(Const::Int(mask(sext(self.const_int(a)?, fw) as u128)))
            }
            LLVMAdd | LLVMSub | LLVMMul | LLVMXor | LLVMAnd | LLVMOr | LLVMShl => {
                let a = self.const_int(llvm::operand(c, 0))?;
                let b = self.const_int(llvm::operand(c, 1))?;
                let v = match op {
                    LLVMAdd => a.wrapping_add(b),
                    LLVMSub => a.wrapping_sub(b),
                    LLVMMul => a.wrapping_mul(b),
                    LLVMXor => a ^ b,
                    LLVMAnd => a & b,
                    LLVMOr => a | b,
                    _ => a.checked_shl(b as u32).unwrap_or(0),
                };
                Ok(Const::Int(mask(v)))
            }
            _ => Err(format!("unsupported constant expression: {}", llvm::print(c))),
        }
    }

    // Function bodies.

    fn body(&mut self, f: V) -> Body {
        let blocks = llvm::blocks(f);
        let mut cx = FnCtx { regs: HashMap::new(), blocks: HashMap::new(), phis: HashMap::new() };
        let mut next_reg: Reg = 0;
        for p in llvm::params(f) {
            cx.regs.insert(p, next_reg);
            next_reg += 1;
        }
        let insts_of: Vec<Vec<V>> = blocks.iter().map(|&b| llvm::instructions(b)).collect();
        for (bi, (&b, insts)) in blocks.iter().zip(&insts_of).enumerate() {
            cx.blocks.insert(b, BlockId(bi as u32));
            for &i in insts {
                let unread_call = llvm::opcode(i) == LLVMOpcode::LLVMCall && !llvm::has_uses(i);
                if llvm::type_kind(llvm::type_of(i)) != LLVMTypeKind::LLVMVoidTypeKind && !unread_call {
                    cx.regs.insert(i, next_reg);
                    next_reg += 1;
                }
                if llvm::opcode(i) == LLVMOpcode::LLVMPHI {
                    cx.phis.entry(b).or_default().push(i);
                }
            }
        }
        let mut body = Body { blocks: Vec::new(), insts: Vec::new(), locs: Vec::new(), num_regs: next_reg };
        for (&b, insts) in blocks.iter().zip(&insts_of) {
            body.blocks.push(Block { first: InstId(body.insts.len() as u32) });
            for &i in insts {
                if llvm::opcode(i) == LLVMOpcode::LLVMPHI {
                    continue;
                }
                let op = self.inst(&cx, b, i).unwrap_or_else(|e| Op::Unsupported {
                    text: format!("{e}: `{}`", llvm::print(i)).into_boxed_str(),
                });
                let dst = cx.regs.get(&i).copied().unwrap_or(NO_REG);
                let loc = llvm::debug_loc(i).map(|(dir, file, line, col)| SrcLoc {
                    file: self.file(&dir, &file),
                    line,
                    col,
                });
                body.insts.push(Inst { dst, op });
                body.locs.push(loc);
            }
        }
        body
    }

    fn operand(&mut self, cx: &FnCtx, v: V) -> R<Operand> {
        if let Some(&r) = cx.regs.get(&v) {
            return Ok(Operand::Reg(r));
        }
        match llvm::value_kind(v) {
            LLVMValueKind::LLVMInstructionValueKind | LLVMValueKind::LLVMArgumentValueKind => {
                Err("operand defined outside its function".into())
            }
            LLVMValueKind::LLVMMetadataAsValueValueKind => Err("metadata operand".into()),
            _ => self.const_id(v).map(Operand::Const),
        }
    }

    fn edge(&mut self, cx: &FnCtx, from: LLVMBasicBlockRef, to: LLVMBasicBlockRef) -> R<Edge> {
        let target = *cx.blocks.get(&to).ok_or("branch to a block of another function")?;
        let mut moves = Vec::new();
        for &phi in cx.phis.get(&to).map(|v| v.as_slice()).unwrap_or(&[]) {
            let (val, _) = llvm::incoming(phi)
                .into_iter()
                .find(|&(_, b)| b == from)
                .ok_or_else(|| format!("phi without an entry for a predecessor: `{}`", llvm::print(phi)))?;
            moves.push((cx.regs[&phi], self.operand(cx, val)?));
        }
        Ok(Edge { target, moves: moves.into_boxed_slice() })
    }

    fn scalar_width(&mut self, t: T) -> R<u32> {
        let id = self.ty(t);
        let id = match self.out.ty(id).kind {
            TypeKind::Vector { elem, .. } => elem,
            _ => id,
        };
        match self.out.ty(id).kind {
            TypeKind::Int(w) if w <= MAX_INT_WIDTH => Ok(w),
            TypeKind::Int(w) => {
                Err(format!("integers wider than {MAX_INT_WIDTH} bits (i{w}) are not supported"))
            }
            TypeKind::Ptr => Ok(64),
            _ => Err("expected an integer type".into()),
        }
    }

    fn fkind(&mut self, t: T) -> R<FKind> {
        let id = self.ty(t);
        let id = match self.out.ty(id).kind {
            TypeKind::Vector { elem, .. } => elem,
            _ => id,
        };
        match self.out.ty(id).kind {
            TypeKind::Float => Ok(FKind::F32),
            TypeKind::Double => Ok(FKind::F64),
            TypeKind::OtherFloat(name) => Err(format!("floating-point type {name} is not supported")),
            _ => Err("expected a floating-point type".into()),
        }
    }

    fn width_of(&mut self, fk: FKind) -> u32 {
        match fk {
            FKind::F32 => 32,
            FKind::F64 => 64,
        }
    }

    /// `fptosi`/`fptoui` (`i`, to `to` bits) of an `sitofp`/`uitofp` in the
    /// same block, through a float type that holds every value the narrower
    /// integer side can: x86's instruction selection folds the pair into an
    /// integer extension or truncation (and -O2's instcombine before it), so
    /// a value the result type cannot hold keeps its low bits natively
    /// (`(int)(double)4000000000u` is -294967296, not cvttsd2si's INT_MIN).
    fn int_round_trip(&mut self, cx: &FnCtx, i: V, fk: FKind, to: u32) -> R<Option<Op>> {
        use LLVMOpcode::*;
        let src = llvm::operand(i, 0);
        if llvm::value_kind(src) != LLVMValueKind::LLVMInstructionValueKind
            || !matches!(llvm::opcode(src), LLVMSIToFP | LLVMUIToFP)
            || llvm::parent_block(src) != llvm::parent_block(i)
        {
            return Ok(None);
        }
        let int = llvm::operand(src, 0);
        let from = self.scalar_width(llvm::type_of(int))?;
        let signed_in = llvm::opcode(src) == LLVMSIToFP;
        let signed_out = llvm::opcode(i) == LLVMFPToSI;
        let precision = if fk == FKind::F32 { 24 } else { 53 };
        if (from - u32::from(signed_in)).min(to) > precision {
            return Ok(None);
        }
        let a = self.operand(cx, int)?;
        Ok(Some(match to.cmp(&from) {
            std::cmp::Ordering::Greater => {
                let op = if signed_in && signed_out { CastOp::SExt } else { CastOp::ZExt };
                Op::Cast { op, from, to, a }
            }
            std::cmp::Ordering::Less => Op::Cast { op: CastOp::Trunc, from, to, a },
            std::cmp::Ordering::Equal => Op::Copy { a },
        }))
    }

    fn inst(&mut self, cx: &FnCtx, b: LLVMBasicBlockRef, i: V) -> R<Op> {
        use LLVMOpcode::*;
        let op = llvm::opcode(i);
        let opnd = |s: &mut Self, k: u32| s.operand(cx, llvm::operand(i, k));
        Ok(match op {
            LLVMRet => Op::Ret { val: if llvm::num_operands(i) == 0 { None } else { Some(opnd(self, 0)?) } },
            LLVMBr => {
                if llvm::is_conditional(i) {
                    // Successor 0 is the true edge (the C API's operand order differs).
                    let cond = self.operand(cx, llvm::condition(i))?;
                    let t = self.edge(cx, b, llvm::successor(i, 0))?;
                    let f = self.edge(cx, b, llvm::successor(i, 1))?;
                    Op::CondBr { cond, t, f }
                } else {
                    Op::Br { edge: self.edge(cx, b, llvm::successor(i, 0))? }
                }
            }
            LLVMSwitch => {
                let v = llvm::operand(i, 0);
                let width = self.scalar_width(llvm::type_of(v))?;
                let val = self.operand(cx, v)?;
                let default = self.edge(cx, b, llvm::switch_default(i))?;
                let mut cases = Vec::new();
                let n = llvm::num_operands(i);
                let mut k = 2;
                while k + 1 < n {
                    let cv = self.const_int(llvm::operand(i, k))?;
                    let e = self.edge(cx, b, llvm::block_of_value(llvm::operand(i, k + 1)))?;
                    cases.push((cv, e));
                    k += 2;
                }
                Op::Switch { val, width, cases: cases.into_boxed_slice(), default }
            }
            LLVMUnreachable => Op::Unreachable,
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                let bop = match op {
                    LLVMAdd => BinOp::Add,
                    LLVMSub => BinOp::Sub,
                    LLVMMul => BinOp::Mul,
                    LLVMUDiv => BinOp::UDiv,
                    LLVMSDiv => BinOp::SDiv,
                    LLVMURem => BinOp::URem,
                    LLVMSRem => BinOp::SRem,
                    LLVMShl => BinOp::Shl,
                    LLVMLShr => BinOp::LShr,
                    LLVMAShr => BinOp::AShr,
                    LLVMAnd => BinOp::And,
                    LLVMOr => BinOp::Or,
                    _ => BinOp::Xor,
                };
                let width = self.scalar_width(llvm::type_of(i))?;
                Op::Bin { op: bop, width, a: opnd(self, 0)?, b: opnd(self, 1)? }
            }
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => {
                let fop = match op {
                    LLVMFAdd => FBinOp::Add,
                    LLVMFSub => FBinOp::Sub,
                    LLVMFMul => FBinOp::Mul,
                    LLVMFDiv => FBinOp::Div,
                    _ => FBinOp::Rem,
                };
                let kind = self.fkind(llvm::type_of(i))?;
                Op::FBin { op: fop, kind, a: opnd(self, 0)?, b: opnd(self, 1)? }
            }
            LLVMFNeg => Op::FNeg { kind: self.fkind(llvm::type_of(i))?, a: opnd(self, 0)? },
            LLVMICmp => {
                use LLVMIntPredicate::*;
                let pred = match llvm::icmp_predicate(i) {
                    LLVMIntEQ => IPred::Eq,
                    LLVMIntNE => IPred::Ne,
                    LLVMIntUGT => IPred::Ugt,
                    LLVMIntUGE => IPred::Uge,
                    LLVMIntULT => IPred::Ult,
                    LLVMIntULE => IPred::Ule,
                    LLVMIntSGT => IPred::Sgt,
                    LLVMIntSGE => IPred::Sge,
                    LLVMIntSLT => IPred::Slt,
                    LLVMIntSLE => IPred::Sle,
                };
                let width = self.scalar_width(llvm::type_of(llvm::operand(i, 0)))?;
                Op::ICmp { pred, width, a: opnd(self, 0)?, b: opnd(self, 1)? }
            }
            LLVMFCmp => {
                let pred = FPred(llvm::fcmp_predicate(i) as LLVMRealPredicate as u8);
                let kind = self.fkind(llvm::type_of(llvm::operand(i, 0)))?;
                Op::FCmp { pred, kind, a: opnd(self, 0)?, b: opnd(self, 1)? }
            }
            LLVMSelect => {
                let t = llvm::type_of(i);
                let width =
                    self.scalar_width(t).or_else(|_| self.fkind(t).map(|k| self.width_of(k))).unwrap_or(0);
                Op::Select { cond: opnd(self, 0)?, t: opnd(self, 1)?, f: opnd(self, 2)?, width }
            }
            LLVMAlloca => {
                let et = llvm::allocated_type(i);
                if !llvm::is_sized(et) {
                    return Err("alloca of an unsized type".into());
                }
                let count = llvm::operand(i, 0);
                let count_width = self.scalar_width(llvm::type_of(count))?;
                Op::Alloca {
                    elem_size: self.layout.alloc_size(et),
                    count: self.operand(cx, count)?,
                    count_width,
                    align: llvm::alignment(i).max(1),
                }
            }
            LLVMLoad => {
                let ty = self.ty(llvm::type_of(i));
                self.check_memory_type(ty)?;
                Op::Load { ty, ptr: opnd(self, 0)? }
            }
            LLVMStore => {
                let ty = self.ty(llvm::type_of(llvm::operand(i, 0)));
                self.check_memory_type(ty)?;
                Op::Store { ty, val: opnd(self, 0)?, ptr: opnd(self, 1)? }
            }
            LLVMGetElementPtr => self.gep(cx, i)?,
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr => {
                let from = self.scalar_width(llvm::type_of(llvm::operand(i, 0)))?;
                let to = self.scalar_width(llvm::type_of(i))?;
                let cop = match op {
                    LLVMTrunc => CastOp::Trunc,
                    LLVMZExt => CastOp::ZExt,
                    LLVMSExt => CastOp::SExt,
                    _ if to < from => CastOp::Trunc,
                    _ if to > from => CastOp::ZExt,
                    _ => return Ok(Op::Copy { a: opnd(self, 0)? }),
                };
                Op::Cast { op: cop, from, to, a: opnd(self, 0)? }
            }
            LLVMFPToSI | LLVMFPToUI => {
                let fk = self.fkind(llvm::type_of(llvm::operand(i, 0)))?;
                let from = self.width_of(fk);
                let to = self.scalar_width(llvm::type_of(i))?;
                if let Some(folded) = self.int_round_trip(cx, i, fk, to)? {
                    return Ok(folded);
                }
                let cop = if op == LLVMFPToSI { CastOp::FpToSi } else { CastOp::FpToUi };
                Op::Cast { op: cop, from, to, a: opnd(self, 0)? }
            }
            LLVMSIToFP | LLVMUIToFP => {
                let from = self.scalar_width(llvm::type_of(llvm::operand(i, 0)))?;
                let fk = self.fkind(llvm::type_of(i))?;
                let to = self.width_of(fk);
                let cop = if op == LLVMSIToFP { CastOp::SiToFp } else { CastOp::UiToFp };
                Op::Cast { op: cop, from, to, a: opnd(self, 0)? }
            }
            LLVMFPTrunc | LLVMFPExt => {
                let fa = self.fkind(llvm::type_of(llvm::operand(i, 0)))?;
                let fb = self.fkind(llvm::type_of(i))?;
                let (from, to) = (self.width_of(fa), self.width_of(fb));
                let cop = if op == LLVMFPTrunc { CastOp::FpTrunc } else { CastOp::FpExt };
                Op::Cast { op: cop, from, to, a: opnd(self, 0)? }
            }
            LLVMBitCast | LLVMAddrSpaceCast => {
                let from = self.ty(llvm::type_of(llvm::operand(i, 0)));
                let to = self.ty(llvm::type_of(i));
                let scalar = |k: &TypeKind| {
                    matches!(k, TypeKind::Int(_) | TypeKind::Ptr | TypeKind::Float | TypeKind::Double)
                };
                if from == to || (scalar(&self.out.ty(from).kind) && scalar(&self.out.ty(to).kind)) {
                    Op::Copy { a: opnd(self, 0)? }
                } else {
                    Op::Reshape { from, to, a: opnd(self, 0)? }
                }
            }
            LLVMFreeze => Op::Copy { a: opnd(self, 0)? },
            LLVMCall => self.call(cx, i)?,
            LLVMExtractValue => {
                Op::ExtractValue { agg: opnd(self, 0)?, path: llvm::indices(i).into_boxed_slice() }
            }
            LLVMInsertValue => Op::InsertValue {
                agg: opnd(self, 0)?,
                val: opnd(self, 1)?,
                path: llvm::indices(i).into_boxed_slice(),
            },
            LLVMExtractElement => Op::ExtractElement { vec: opnd(self, 0)?, idx: opnd(self, 1)? },
            LLVMInsertElement => {
                Op::InsertElement { vec: opnd(self, 0)?, val: opnd(self, 1)?, idx: opnd(self, 2)? }
            }
            LLVMShuffleVector => Op::Shuffle {
                a: opnd(self, 0)?,
                b: opnd(self, 1)?,
                mask: llvm::shuffle_mask(i).into_boxed_slice(),
            },
            _ => return Err(format!("unsupported instruction `{op:?}`")),
        })
    }

    /// Memory operations on types the memory model lays out byte by byte.
    fn check_memory_type(&self, ty: TyId) -> R<()> {
        match &self.out.ty(ty).kind {
            TypeKind::Int(w) if *w > MAX_INT_WIDTH => {
                Err(format!("integers wider than {MAX_INT_WIDTH} bits (i{w})"))
            }
            TypeKind::Int(_) | TypeKind::Ptr | TypeKind::Float | TypeKind::Double => Ok(()),
            TypeKind::OtherFloat(n) => Err(format!("floating-point type {n} is not supported")),
            TypeKind::Array { elem, .. } => self.check_memory_type(*elem),
            TypeKind::Struct { fields, .. } => fields.iter().try_for_each(|&f| self.check_memory_type(f)),
            TypeKind::Vector { elem, .. } => {
                let e = self.out.ty(*elem);
                if matches!(e.kind, TypeKind::Int(w) if w % 8 != 0) {
                    Err("vectors of sub-byte integers in memory are not supported".into())
                } else {
                    self.check_memory_type(*elem)
                }
            }
            k => Err(format!("memory access of type {k:?}")),
        }
    }

    fn gep(&mut self, cx: &FnCtx, i: V) -> R<Op> {
        if llvm::type_kind(llvm::type_of(i)) == LLVMTypeKind::LLVMVectorTypeKind {
            return Err("vector getelementptr is not supported".into());
        }
        let base = self.operand(cx, llvm::operand(i, 0))?;
        let src = llvm::gep_source_type(i);
        let mut cur = self.ty(src);
        let mut offset: i64 = 0;
        let mut indices = Vec::new();
        for k in 1..llvm::num_operands(i) {
            let iv = llvm::operand(i, k);
            let iw = self.scalar_width(llvm::type_of(iv))?;
            let idx = self.operand(cx, iv)?;
            let konst = match idx {
                Operand::Const(c) => match &self.out.consts[c.index()] {
                    Const::Int(v) => Some(sext(*v, iw) as i64),
                    Const::Zero(_) => Some(0),
                    _ => None,
                },
                Operand::Reg(_) => None,
            };
            let scale: i64 = if k == 1 {
                self.out.ty(cur).alloc_size as i64
            } else {
                match self.out.ty(cur).kind.clone() {
                    TypeKind::Struct { fields, offsets } => {
                        let f = konst.ok_or("non-constant struct index")? as usize;
                        offset = offset.wrapping_add(offsets[f] as i64);
                        cur = fields[f];
                        continue;
                    }
                    TypeKind::Array { elem, .. } => {
                        cur = elem;
                        self.out.ty(elem).alloc_size as i64
                    }
                    TypeKind::Vector { elem, .. } => {
                        cur = elem;
                        self.out.ty(elem).store_size as i64
                    }
                    k => return Err(format!("getelementptr into {k:?}")),
                }
            };
            match konst {
                Some(c) => offset = offset.wrapping_add(c.wrapping_mul(scale)),
                None => indices.push((idx, iw, scale)),
            }
        }
        Ok(Op::Gep { base, offset, indices: indices.into_boxed_slice() })
    }

    fn call(&mut self, cx: &FnCtx, i: V) -> R<Op> {
        let target = llvm::called_value(i);
        let n = llvm::num_args(i);
        let ret = self.ty(llvm::type_of(i));
        let callee = if llvm::value_kind(target) == LLVMValueKind::LLVMFunctionValueKind {
            let name = llvm::name(target);
            if let Some(rest) = name.strip_prefix("llvm.") {
                Callee::Intrinsic(self.intrinsic(rest, i)?)
            } else {
                Callee::Direct(self.funcs[&target])
            }
        } else if llvm::value_kind(target) == LLVMValueKind::LLVMInlineAsmValueKind {
            return Err("inline assembly is not supported".into());
        } else {
            Callee::Indirect(self.operand(cx, target)?)
        };
        let mut args = Vec::with_capacity(n as usize);
        let mut byval = Vec::new();
        for k in 0..n {
            let a = llvm::operand(i, k);
            if llvm::value_kind(a) == LLVMValueKind::LLVMMetadataAsValueValueKind {
                // dbg intrinsics take metadata; they are no-ops.
                args.push(Operand::Const(self.const_id_of(Const::Int(0))));
                continue;
            }
            args.push(self.operand(cx, a)?);
            if let Some(t) = llvm::call_site_type_attr(i, k, self.byval_kind) {
                let tid = self.ty(t);
                let ty = self.out.ty(tid);
                byval.push((k, ty.alloc_size, ty.align));
            }
        }
        let (_, fixed, vararg) = llvm::fn_type_parts(llvm::called_function_type(i));
        let vararg_tys = if vararg {
            (fixed.len() as u32..n).map(|k| self.ty(llvm::type_of(llvm::operand(i, k)))).collect()
        } else {
            Vec::new()
        };
        Ok(Op::Call {
            callee,
            args: args.into_boxed_slice(),
            ret,
            byval: byval.into_boxed_slice(),
            vararg_tys: vararg_tys.into_boxed_slice(),
        })
    }

    fn const_id_of(&mut self, c: Const) -> ConstId {
        let key = ConstKey(format!("{c:?}"));
        if let Some(&id) = self.const_ids.get(&key) {
            return id;
        }
        self.out.consts.push(c);
        let id = ConstId(self.out.consts.len() as u32 - 1);
        self.const_ids.insert(key, id);
        id
    }

    /// `name` is the intrinsic's name without `llvm.`.
    fn intrinsic(&mut self, name: &str, call: V) -> R<Intrinsic> {
        let arg_width = |s: &mut Self, k: u32| match s.scalar_width(llvm::type_of(llvm::operand(call, k)))? {
            w if w > 128 => Err(format!("llvm.{name} on integers wider than 128 bits")),
            w => Ok(w),
        };
        let ret_fkind = |s: &mut Self| s.fkind(llvm::type_of(call));
        let base = name.split('.').next().unwrap_or("");
        let second = name.split('.').nth(1).unwrap_or("");
        use Intrinsic as I;
        Ok(match base {
            "lifetime" | "dbg" | "assume" | "prefetch" | "va_end" | "stackrestore" | "donothing"
            | "sideeffect" => I::Nop,
            "experimental" if name.starts_with("experimental.noalias.scope.decl") => I::Nop,
            "memcpy" => I::Memcpy,
            "memmove" => I::Memmove,
            "memset" => I::Memset,
            "expect" | "ssa" | "launder" | "strip" | "threadlocal" => I::Identity,
            "sadd" | "uadd" | "ssub" | "usub" | "smul" | "umul" | "sshl" | "ushl" => {
                let w = arg_width(self, 0)?;
                if second == "with" {
                    let o = match base {
                        "sadd" => OverflowOp::SAdd,
                        "uadd" => OverflowOp::UAdd,
                        "ssub" => OverflowOp::SSub,
                        "usub" => OverflowOp::USub,
                        "smul" => OverflowOp::SMul,
                        "umul" => OverflowOp::UMul,
                        _ => return Err(format!("unsupported intrinsic llvm.{name}")),
                    };
                    I::Overflow(o, w)
                } else if second == "sat" {
                    let o = match base {
                        "sadd" => SatOp::SAdd,
                        "uadd" => SatOp::UAdd,
                        "ssub" => SatOp::SSub,
                        "usub" => SatOp::USub,
                        "sshl" => SatOp::SShl,
                        "ushl" => SatOp::UShl,
                        _ => return Err(format!("unsupported intrinsic llvm.{name}")),
                    };
                    I::Sat(o, w)
                } else {
                    return Err(format!("unsupported intrinsic llvm.{name}"));
                }
            }
            "smin" | "smax" | "umin" | "umax" => I::MinMax(minmax(base), arg_width(self, 0)?),
            "abs" => I::Abs(arg_width(self, 0)?),
            "ctpop" => I::Bit(BitOp::Ctpop, arg_width(self, 0)?),
            "ctlz" => I::Bit(BitOp::Ctlz, arg_width(self, 0)?),
            "cttz" => I::Bit(BitOp::Cttz, arg_width(self, 0)?),
            "bswap" => I::Bit(BitOp::Bswap, arg_width(self, 0)?),
            "bitreverse" => I::Bit(BitOp::Bitreverse, arg_width(self, 0)?),
            "fshl" => I::Fshl(arg_width(self, 0)?),
            "fshr" => I::Fshr(arg_width(self, 0)?),
            "fabs" | "sqrt" | "floor" | "ceil" | "trunc" | "round" | "rint" | "nearbyint" => {
                let u = match base {
                    "fabs" => FUnary::Fabs,
                    "sqrt" => FUnary::Sqrt,
                    "floor" => FUnary::Floor,
                    "ceil" => FUnary::Ceil,
                    "trunc" => FUnary::Trunc,
                    "round" => FUnary::Round,
                    _ => FUnary::Rint,
                };
                I::FUnary(u, ret_fkind(self)?)
            }
            "copysign" => I::CopySign(ret_fkind(self)?),
            "minnum" | "maxnum" => I::FMinMax { max: base == "maxnum", kind: ret_fkind(self)? },
            "fma" => I::Fma(ret_fkind(self)?),
            "fmuladd" => I::FMulAdd(ret_fkind(self)?),
            "vector" if second == "reduce" => {
                let op = name.split('.').nth(2).unwrap_or("");
                let r = match op {
                    "add" => Reduce::Add,
                    "mul" => Reduce::Mul,
                    "and" => Reduce::And,
                    "or" => Reduce::Or,
                    "xor" => Reduce::Xor,
                    "smin" | "smax" | "umin" | "umax" => Reduce::Min(minmax(op)),
                    _ => return Err(format!("unsupported intrinsic llvm.{name}")),
                };
                I::Reduce(r, arg_width(self, 0)?)
            }
            "va_start" => I::VaStart,
            "va_copy" => I::VaCopy,
            "stacksave" => I::StackSave,
            "trap" | "debugtrap" | "ubsantrap" => I::Trap,
            "objectsize" => I::ObjectSize,
            "load" if second == "relative" => I::LoadRelative,
            _ => return Err(format!("unsupported intrinsic llvm.{name}")),
        })
    }
}

fn minmax(name: &str) -> MinMax {
    match name {
        "smin" => MinMax::SMin,
        "smax" => MinMax::SMax,
        "umin" => MinMax::UMin,
        _ => MinMax::UMax,
    }
}

/// `v` masked to `w` bits.
pub fn mask(v: u128, w: u32) -> u128 {
    if w >= 128 { v } else { v & ((1u128 << w) - 1) }
}

/// `v` (of `w` bits) sign-extended to 128.
pub fn sext(v: u128, w: u32) -> i128 {
    if w == 0 || w >= 128 {
        v as i128
    } else {
        let s = 128 - w;
        ((v << s) as i128) >> s
    }
}

/// An integer wider than 64 bits, from its textual IR (`i128 -5`).
fn wide_int(text: &str, w: u32) -> R<BigUint> {
    let num = text.rsplit(' ').next().unwrap_or("");
    let v: BigInt = num.parse().map_err(|_| format!("cannot read integer constant `{text}`"))?;
    // Two's complement at width w.
    let modulus = BigInt::from(1u8) << w;
    let v = ((v % &modulus) + &modulus) % &modulus;
    Ok(v.to_biguint().unwrap_or_default())
}

/// A double as an x87 80-bit extended value (exact: every double is one).
fn f64_to_x87(d: f64) -> u128 {
    let bits = d.to_bits();
    let sign = u128::from(bits >> 63);
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (e, m): (u128, u128) = if exp == 0 && frac == 0 {
        (0, 0)
    } else if exp == 0x7ff {
        (0x7fff, (1u128 << 63) | (u128::from(frac) << 11))
    } else if exp == 0 {
        // Subnormal double: normalise.
        let shift = frac.leading_zeros() - 11;
        let m = u128::from(frac << shift) << 11;
        ((1 - 1023 + 16383 - shift as i32) as u128, m)
    } else {
        ((exp - 1023 + 16383) as u128, (1u128 << 63) | (u128::from(frac) << 11))
    };
    (sign << 79) | (e << 64) | m
}
