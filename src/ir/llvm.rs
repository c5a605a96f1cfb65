//! Thin safe wrappers over the LLVM C API calls the loader makes many times.
//!
//! inkwell parses the module; its typed wrappers cover only part of what the
//! translation needs (GEP source types, call-site type attributes, shuffle
//! masks, constant-expression opcodes), so the loader works on the raw
//! `LLVMValueRef`s of inkwell's `llvm_sys`, through these helpers. Every
//! reference passed in comes from the live module being translated.

use std::ffi::CStr;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind, LLVMValueKind};

pub type V = LLVMValueRef;
pub type T = LLVMTypeRef;

pub fn type_of(v: V) -> T {
    unsafe { LLVMTypeOf(v) }
}

pub fn type_kind(t: T) -> LLVMTypeKind {
    unsafe { LLVMGetTypeKind(t) }
}

pub fn value_kind(v: V) -> LLVMValueKind {
    unsafe { LLVMGetValueKind(v) }
}

/// Whether anything reads the value (a call whose result nobody reads gets
/// no register, so that the engine knows when a model's result matters).
pub fn has_uses(v: V) -> bool {
    unsafe { !LLVMGetFirstUse(v).is_null() }
}

pub fn opcode(inst: V) -> LLVMOpcode {
    unsafe { LLVMGetInstructionOpcode(inst) }
}

/// The basic block an instruction is in.
pub fn parent_block(inst: V) -> LLVMBasicBlockRef {
    unsafe { LLVMGetInstructionParent(inst) }
}

pub fn const_opcode(c: V) -> LLVMOpcode {
    unsafe { LLVMGetConstOpcode(c) }
}

pub fn num_operands(v: V) -> u32 {
    unsafe { LLVMGetNumOperands(v) as u32 }
}

pub fn operand(v: V, i: u32) -> V {
    unsafe { LLVMGetOperand(v, i) }
}

pub fn int_width(t: T) -> u32 {
    unsafe { LLVMGetIntTypeWidth(t) }
}

pub fn name(v: V) -> String {
    let mut len = 0usize;
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    if p.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The textual IR of a value, for messages (and for wide integer constants).
pub fn print(v: V) -> String {
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s.trim().to_string()
    }
}

pub fn functions(m: LLVMModuleRef) -> Vec<V> {
    chain(unsafe { LLVMGetFirstFunction(m) }, |f| unsafe { LLVMGetNextFunction(f) })
}

pub fn globals(m: LLVMModuleRef) -> Vec<V> {
    chain(unsafe { LLVMGetFirstGlobal(m) }, |g| unsafe { LLVMGetNextGlobal(g) })
}

pub fn aliases(m: LLVMModuleRef) -> Vec<V> {
    chain(unsafe { LLVMGetFirstGlobalAlias(m) }, |a| unsafe { LLVMGetNextGlobalAlias(a) })
}

/// Whether a global is visible only in its own module (`static`).
pub fn is_local(g: V) -> bool {
    use inkwell::llvm_sys::LLVMLinkage::{LLVMInternalLinkage, LLVMPrivateLinkage};
    matches!(unsafe { LLVMGetLinkage(g) }, LLVMInternalLinkage | LLVMPrivateLinkage)
}

/// Whether the module holds top-level (`asm(...)` outside functions) assembly.
pub fn has_module_asm(m: LLVMModuleRef) -> bool {
    let mut len = 0usize;
    unsafe { LLVMGetModuleInlineAsm(m, &mut len) };
    len > 0
}

pub fn blocks(f: V) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut b = unsafe { LLVMGetFirstBasicBlock(f) };
    while !b.is_null() {
        out.push(b);
        b = unsafe { LLVMGetNextBasicBlock(b) };
    }
    out
}

pub fn instructions(b: LLVMBasicBlockRef) -> Vec<V> {
    chain(unsafe { LLVMGetFirstInstruction(b) }, |i| unsafe { LLVMGetNextInstruction(i) })
}

fn chain(first: V, next: impl Fn(V) -> V) -> Vec<V> {
    let mut out = Vec::new();
    let mut v = first;
    while !v.is_null() {
        out.push(v);
        v = next(v);
    }
    out
}

pub fn is_declaration(g: V) -> bool {
    unsafe { LLVMIsDeclaration(g) != 0 }
}

pub fn global_value_type(g: V) -> T {
    unsafe { LLVMGlobalGetValueType(g) }
}

pub fn initializer(g: V) -> Option<V> {
    let i = unsafe { LLVMGetInitializer(g) };
    (!i.is_null()).then_some(i)
}

pub fn is_global_constant(g: V) -> bool {
    unsafe { LLVMIsGlobalConstant(g) != 0 }
}

pub fn alignment(v: V) -> u32 {
    unsafe { LLVMGetAlignment(v) }
}

pub fn params(f: V) -> Vec<V> {
    let n = unsafe { LLVMCountParams(f) };
    (0..n).map(|i| unsafe { LLVMGetParam(f, i) }).collect()
}

pub fn fn_type_parts(ft: T) -> (T, Vec<T>, bool) {
    unsafe {
        let ret = LLVMGetReturnType(ft);
        let n = LLVMCountParamTypes(ft) as usize;
        let mut ps = vec![std::ptr::null_mut(); n];
        if n > 0 {
            LLVMGetParamTypes(ft, ps.as_mut_ptr());
        }
        (ret, ps, LLVMIsFunctionVarArg(ft) != 0)
    }
}

pub fn block_of_value(v: V) -> LLVMBasicBlockRef {
    unsafe { LLVMValueAsBasicBlock(v) }
}

pub fn successor(term: V, i: u32) -> LLVMBasicBlockRef {
    unsafe { LLVMGetSuccessor(term, i) }
}

pub fn is_conditional(br: V) -> bool {
    unsafe { LLVMIsConditional(br) != 0 }
}

pub fn condition(br: V) -> V {
    unsafe { LLVMGetCondition(br) }
}

pub fn switch_default(sw: V) -> LLVMBasicBlockRef {
    unsafe { LLVMGetSwitchDefaultDest(sw) }
}

pub fn incoming(phi: V) -> Vec<(V, LLVMBasicBlockRef)> {
    let n = unsafe { LLVMCountIncoming(phi) };
    (0..n).map(|i| unsafe { (LLVMGetIncomingValue(phi, i), LLVMGetIncomingBlock(phi, i)) }).collect()
}

pub fn allocated_type(a: V) -> T {
    unsafe { LLVMGetAllocatedType(a) }
}

pub fn gep_source_type(g: V) -> T {
    unsafe { LLVMGetGEPSourceElementType(g) }
}

pub fn icmp_predicate(v: V) -> inkwell::llvm_sys::LLVMIntPredicate {
    unsafe { LLVMGetICmpPredicate(v) }
}

pub fn fcmp_predicate(v: V) -> inkwell::llvm_sys::LLVMRealPredicate {
    unsafe { LLVMGetFCmpPredicate(v) }
}

pub fn called_value(call: V) -> V {
    unsafe { LLVMGetCalledValue(call) }
}

pub fn called_function_type(call: V) -> T {
    unsafe { LLVMGetCalledFunctionType(call) }
}

pub fn num_args(call: V) -> u32 {
    unsafe { LLVMGetNumArgOperands(call) }
}

/// The type of a type attribute (`byval(T)`) on call-site argument `arg`.
pub fn call_site_type_attr(call: V, arg: u32, kind: u32) -> Option<T> {
    unsafe {
        let a = LLVMGetCallSiteEnumAttribute(call, arg + 1, kind);
        (!a.is_null()).then(|| LLVMGetTypeAttributeValue(a))
    }
}

pub fn attr_kind(name: &str) -> u32 {
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

pub fn indices(v: V) -> Vec<u32> {
    unsafe {
        let n = LLVMGetNumIndices(v) as usize;
        let p = LLVMGetIndices(v);
        std::slice::from_raw_parts(p, n).to_vec()
    }
}

pub fn shuffle_mask(v: V) -> Vec<Option<u32>> {
    unsafe {
        let n = LLVMGetNumMaskElements(v);
        let undef = LLVMGetUndefMaskElem();
        (0..n)
            .map(|i| {
                let m = LLVMGetMaskValue(v, i);
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }
}

pub fn const_int_low(c: V) -> u64 {
    unsafe { LLVMConstIntGetZExtValue(c) }
}

pub fn const_real(c: V) -> f64 {
    let mut lost = 0;
    unsafe { LLVMConstRealGetDouble(c, &mut lost) }
}

pub fn aggregate_element(c: V, i: u32) -> V {
    unsafe { LLVMGetAggregateElement(c, i) }
}

pub fn const_string(c: V) -> Option<Vec<u8>> {
    unsafe {
        if LLVMIsConstantString(c) == 0 {
            return None;
        }
        let mut len = 0usize;
        let p = LLVMGetAsString(c, &mut len);
        Some(std::slice::from_raw_parts(p as *const u8, len).to_vec())
    }
}

pub fn aliasee(a: V) -> V {
    unsafe { LLVMAliasGetAliasee(a) }
}

/// `(directory, file, line, column)` of an instruction's `!dbg`, if any.
pub fn debug_loc(inst: V) -> Option<(String, String, u32, u32)> {
    unsafe {
        let line = LLVMGetDebugLocLine(inst);
        if line == 0 {
            return None;
        }
        let col = LLVMGetDebugLocColumn(inst);
        let read = |p: *const std::ffi::c_char, len: u32| {
            if p.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
            }
        };
        let mut flen = 0u32;
        let f = LLVMGetDebugLocFilename(inst, &mut flen);
        let mut dlen = 0u32;
        let d = LLVMGetDebugLocDirectory(inst, &mut dlen);
        Some((read(d, dlen), read(f, flen), line, col))
    }
}

// Types.

pub fn is_sized(t: T) -> bool {
    unsafe { LLVMTypeIsSized(t) != 0 }
}

pub fn element_type(t: T) -> T {
    unsafe { LLVMGetElementType(t) }
}

pub fn array_len(t: T) -> u64 {
    unsafe { LLVMGetArrayLength2(t) }
}

pub fn vector_len(t: T) -> u32 {
    unsafe { LLVMGetVectorSize(t) }
}

pub fn struct_fields(t: T) -> Vec<T> {
    unsafe {
        let n = LLVMCountStructElementTypes(t);
        (0..n).map(|i| LLVMStructGetTypeAtIndex(t, i)).collect()
    }
}

pub struct Layout(inkwell::llvm_sys::target::LLVMTargetDataRef);

impl Layout {
    pub fn of(m: LLVMModuleRef) -> Layout {
        Layout(unsafe { inkwell::llvm_sys::target::LLVMGetModuleDataLayout(m) })
    }
    pub fn store_size(&self, t: T) -> u64 {
        unsafe { inkwell::llvm_sys::target::LLVMStoreSizeOfType(self.0, t) }
    }
    pub fn alloc_size(&self, t: T) -> u64 {
        unsafe { inkwell::llvm_sys::target::LLVMABISizeOfType(self.0, t) }
    }
    pub fn align(&self, t: T) -> u32 {
        unsafe { inkwell::llvm_sys::target::LLVMABIAlignmentOfType(self.0, t) }
    }
    pub fn field_offset(&self, t: T, i: u32) -> u64 {
        unsafe { inkwell::llvm_sys::target::LLVMOffsetOfElement(self.0, t, i) }
    }
}
