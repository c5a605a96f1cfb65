//! Object-based memory with copy-on-write objects (KLEE's AddressSpace).
//!
//! Every allocation is an object at a fixed address. Objects are shared
//! between forked states through `Rc` and copied on the first write
//! (`Rc::make_mut`), so a fork copies only the map of objects. The allocator
//! is deterministic, never reuses an address, and leaves gaps between
//! objects, so that an overflow lands outside every object and a dangling
//! pointer never aliases a newer object. The null page holds no object.
//!
//! An object's bytes are concrete, or per-byte symbolic expressions; after a
//! write at a symbolic offset the object is an array term (`const_array` +
//! `store`s) that every later access goes through.
//!
//! `AddressSpace` keeps objects in a `Slab` of `Rc<ObjectState>` indexed by base
//! address, plus recent-lookup hints. Stack and heap regions grow up. An
//! object's `size` is its capacity; `sym_size`, where the input decides the
//! size, is the expression accesses are checked against (`alloc.rs`,
//! `access.rs`).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::expr::{ExprId, ExprPool};

use super::slab::Slab;
use super::value::Byte;

/// Heap objects come from here on (growing up).
pub const HEAP_BASE: u64 = 0x5550_0000_0000;
/// Stack objects (allocas, frames' vararg areas) come from here on.
pub const STACK_BASE: u64 = 0x7ff0_0000_0000;
/// Free bytes left after each dynamic object.
const GAP: u64 = 32;
/// Addresses below this are the unmapped null page.
pub const NULL_PAGE: u64 = 0x1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjKind {
    Global,
    Stack,
    Heap,
    /// Made by the engine for the program (argv, environment).
    Runtime,
}

#[derive(Clone, Debug)]
pub struct ObjectState {
    pub base: u64,
    pub size: u64,
    pub kind: ObjKind,
    pub readonly: bool,
    /// The size, when an input decides it (`alloc.rs`): every
    /// access must end within it. `size` is then a capacity the path proved
    /// no larger, so that addresses past the size still find the object and
    /// fail its bounds check.
    pub sym_size: Option<ExprId>,
    bytes: Vec<u8>,
    /// Symbolic bytes, where any (`None` entries are the concrete byte).
    sym: Option<Box<[Option<ExprId>]>>,
    /// The contents as an array term, once a write at a symbolic offset
    /// happened; then `bytes` and `sym` are stale.
    array: Option<ExprId>,
    /// One bit per byte never written since a stack or heap allocation
    /// (`mark_uninitialised`): natively such a byte is garbage, here 0.
    uninit: Option<Box<[u64]>>,
}

impl ObjectState {
    fn new(base: u64, size: u64, kind: ObjKind, bytes: Vec<u8>) -> ObjectState {
        ObjectState {
            base,
            size,
            kind,
            readonly: false,
            sym_size: None,
            bytes,
            sym: None,
            array: None,
            uninit: None,
        }
    }

    /// Bytes `from..size` hold garbage natively until written. Objects over
    /// a MiB are not tracked (their reads are taken as initialised).
    pub fn mark_uninitialised(&mut self, from: u64) {
        if self.size > 1 << 20 || from >= self.size {
            return;
        }
        let words = self.size.div_ceil(64) as usize;
        let bits = self.uninit.get_or_insert_with(|| vec![0; words].into_boxed_slice());
        for i in from..self.size {
            bits[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    /// Whether any of bytes `off..off+n` was never written.
    pub fn reads_uninitialised(&self, off: u64, n: u64) -> bool {
        let Some(bits) = &self.uninit else { return false };
        (off..off.saturating_add(n).min(self.size)).any(|i| bits[(i / 64) as usize] >> (i % 64) & 1 == 1)
    }

    fn written(&mut self, off: u64, n: u64) {
        if let Some(bits) = &mut self.uninit {
            for i in off..off.saturating_add(n).min(self.size) {
                bits[(i / 64) as usize] &= !(1 << (i % 64));
            }
        }
    }

    pub fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.base && addr.checked_add(len).is_some_and(|end| end <= self.base + self.size)
    }

    /// Whether every byte is concrete.
    pub fn is_concrete(&self) -> bool {
        self.array.is_none() && self.sym.is_none()
    }

    /// A concrete little-endian read of `n <= 16` bytes, if they are all concrete.
    #[inline]
    pub fn read_concrete(&self, off: u64, n: u64) -> Option<u128> {
        if self.array.is_some() {
            return None;
        }
        let (o, n) = (off as usize, n as usize);
        if let Some(sym) = &self.sym
            && sym[o..o + n].iter().any(Option::is_some)
        {
            return None;
        }
        let b = &self.bytes[o..o + n];
        Some(match n {
            1 => u128::from(b[0]),
            2 => u128::from(u16::from_le_bytes([b[0], b[1]])),
            4 => u128::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            8 => u128::from(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])),
            _ => {
                let mut buf = [0u8; 16];
                buf[..n].copy_from_slice(b);
                u128::from_le_bytes(buf)
            }
        })
    }

    #[inline]
    pub fn write_concrete(&mut self, pool: &mut ExprPool, off: u64, n: u64, v: u128) {
        self.written(off, n);
        if self.array.is_some() {
            let bytes: Vec<Byte> = v.to_le_bytes()[..n as usize].iter().map(|&b| Byte::C(b)).collect();
            return self.write_array_bytes(pool, off, &bytes);
        }
        let (o, n) = (off as usize, n as usize);
        self.bytes[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
        if let Some(sym) = &mut self.sym {
            sym[o..o + n].fill(None);
        }
    }

    pub fn read_byte(&self, pool: &mut ExprPool, off: u64) -> Byte {
        if let Some(arr) = self.array {
            let idx = pool.constant(64, u128::from(off));
            let e = pool.select(arr, idx);
            return to_byte(pool, e);
        }
        match self.sym.as_ref().and_then(|s| s[off as usize]) {
            Some(e) => Byte::S(e),
            None => Byte::C(self.bytes[off as usize]),
        }
    }

    pub fn write_byte(&mut self, pool: &mut ExprPool, off: u64, b: Byte) {
        self.written(off, 1);
        if self.array.is_some() {
            return self.write_array_bytes(pool, off, &[b]);
        }
        match b {
            Byte::C(c) => {
                self.bytes[off as usize] = c;
                if let Some(s) = &mut self.sym {
                    s[off as usize] = None;
                }
            }
            Byte::S(e) => {
                let size = self.size as usize;
                self.sym.get_or_insert_with(|| vec![None; size].into_boxed_slice())[off as usize] = Some(e);
            }
        }
    }

    /// Writes bytes at a concrete offset of an object in array form.
    fn write_array_bytes(&mut self, pool: &mut ExprPool, off: u64, bytes: &[Byte]) {
        let Some(mut arr) = self.array else { return };
        for (i, b) in bytes.iter().enumerate() {
            let idx = pool.constant(64, u128::from(off + i as u64));
            let v = byte_expr(pool, *b);
            arr = pool.store(arr, idx, v);
        }
        self.array = Some(arr);
    }

    /// The contents as an array term (made on demand, not cached unless the
    /// object switches to array form).
    pub fn as_array(&self, pool: &mut ExprPool) -> ExprId {
        if let Some(a) = self.array {
            return a;
        }
        let mut arr = pool.const_array(&self.bytes);
        if let Some(sym) = &self.sym {
            for (i, e) in sym.iter().enumerate() {
                if let Some(e) = e {
                    let idx = pool.constant(64, i as u128);
                    arr = pool.store(arr, idx, *e);
                }
            }
        }
        arr
    }

    /// Byte `off + i` for a symbolic offset `off` (64-bit).
    pub fn read_sym_byte(&self, pool: &mut ExprPool, off: ExprId, i: u64) -> ExprId {
        let arr = self.as_array(pool);
        let k = pool.constant(64, u128::from(i));
        let idx = pool.add(off, k);
        pool.select(arr, idx)
    }

    /// Writes bytes at a symbolic offset: the object switches to array form.
    pub fn write_sym_bytes(&mut self, pool: &mut ExprPool, off: ExprId, bytes: &[Byte]) {
        let mut arr = self.as_array(pool);
        for (i, b) in bytes.iter().enumerate() {
            let k = pool.constant(64, i as u128);
            let idx = pool.add(off, k);
            let v = byte_expr(pool, *b);
            arr = pool.store(arr, idx, v);
        }
        self.array = Some(arr);
        self.sym = None;
        // Which bytes the write reached is symbolic: none counts as garbage
        // any more (a missed report, never a false one).
        self.uninit = None;
    }

    /// Makes bytes `off..off+n` reads of an input array.
    pub fn make_symbolic(&mut self, pool: &mut ExprPool, off: u64, bytes: &[ExprId]) {
        for (i, &e) in bytes.iter().enumerate() {
            self.write_byte(pool, off + i as u64, Byte::S(e));
        }
    }

    /// Bytes `off..off+n` as concrete values, if they all are.
    pub fn concrete_bytes(&self, off: u64, n: u64) -> Option<&[u8]> {
        if self.array.is_some() {
            return None;
        }
        let r = off as usize..(off + n) as usize;
        if let Some(sym) = &self.sym
            && sym[r.clone()].iter().any(Option::is_some)
        {
            return None;
        }
        Some(&self.bytes[r])
    }
}

pub fn to_byte(pool: &ExprPool, e: ExprId) -> Byte {
    match pool.as_const(e) {
        Some(c) => Byte::C(c as u8),
        None => Byte::S(e),
    }
}

pub fn byte_expr(pool: &mut ExprPool, b: Byte) -> ExprId {
    match b {
        Byte::C(c) => pool.constant(8, u128::from(c)),
        Byte::S(e) => e,
    }
}

/// Lookup hints an address space keeps.
const HINTS: usize = 4;

/// An object's slot in an address space (stable while the object lives).
pub type ObjId = u32;

/// A state's memory: objects in slots, indexed by base address, plus what
/// was freed.
#[derive(Clone, Debug)]
pub struct AddressSpace {
    slots: Slab<Rc<ObjectState>>,
    by_base: BTreeMap<u64, ObjId>,
    /// The objects recent lookups found (most accesses hit one again).
    hints: [Cell<ObjId>; HINTS],
    next_hint: Cell<usize>,
    /// Freed heap objects (base → size), for use-after-free and double-free
    /// reports; addresses are never reused, so entries never go stale.
    freed: BTreeMap<u64, u64>,
    next_heap: u64,
    next_stack: u64,
}

impl Default for AddressSpace {
    fn default() -> Self {
        AddressSpace {
            slots: Slab::default(),
            by_base: BTreeMap::new(),
            hints: Default::default(),
            next_hint: Cell::new(0),
            freed: BTreeMap::new(),
            next_heap: HEAP_BASE,
            next_stack: STACK_BASE,
        }
    }
}

impl AddressSpace {
    fn insert(&mut self, o: ObjectState) -> ObjId {
        let base = o.base;
        let id = self.slots.insert(Rc::new(o)) as ObjId;
        self.by_base.insert(base, id);
        id
    }

    /// Places an object at a fixed address (globals).
    pub fn insert_fixed(
        &mut self,
        base: u64,
        size: u64,
        kind: ObjKind,
        bytes: Vec<u8>,
        readonly: bool,
    ) -> ObjId {
        let mut o = ObjectState::new(base, size, kind, bytes);
        o.readonly = readonly;
        self.insert(o)
    }

    /// A new zeroed object of `size` bytes aligned to `align`.
    pub fn allocate(&mut self, size: u64, align: u64, kind: ObjKind) -> ObjId {
        let next = if kind == ObjKind::Heap { &mut self.next_heap } else { &mut self.next_stack };
        let base = next.next_multiple_of(align.clamp(16, 4096));
        *next = base + size.max(1) + GAP;
        self.insert(ObjectState::new(base, size, kind, vec![0; size as usize]))
    }

    /// Removes an object (a stack object going out of scope, a heap free).
    pub fn remove(&mut self, id: ObjId) -> Option<Rc<ObjectState>> {
        let o = self.slots.remove(id as usize)?;
        self.by_base.remove(&o.base);
        if o.kind == ObjKind::Heap {
            self.freed.insert(o.base, o.size);
        }
        Some(o)
    }

    /// The object that holds `addr`.
    #[inline]
    pub fn find(&self, addr: u64) -> Option<ObjId> {
        for h in &self.hints {
            let h = h.get();
            if let Some(o) = self.slots.get(h as usize)
                && addr >= o.base
                && addr < o.base + o.size.max(1)
            {
                return Some(h);
            }
        }
        let (_, &id) = self.by_base.range(..=addr).next_back()?;
        let o = self.object(id);
        (addr < o.base + o.size.max(1)).then(|| {
            let i = self.next_hint.get();
            self.hints[i].set(id);
            self.next_hint.set((i + 1) % HINTS);
            id
        })
    }

    /// Bytes `0..n` of object `to` are unwritten where they are in `from`
    /// (a realloc's copy).
    pub fn copy_uninitialised(&mut self, from: ObjId, to: ObjId, n: u64) {
        let src = Rc::clone(self.slots.get(from as usize).expect("live object"));
        let dst = self.object_mut(to);
        let size = dst.size;
        let Some(bits) = &mut dst.uninit else { return };
        for i in 0..n.min(size) {
            let unwritten = src.reads_uninitialised(i, 1);
            let (w, b) = ((i / 64) as usize, i % 64);
            bits[w] = bits[w] & !(1 << b) | u64::from(unwritten) << b;
        }
    }

    /// The object based exactly at `base`.
    pub fn at_base(&self, base: u64) -> Option<ObjId> {
        self.by_base.get(&base).copied()
    }

    /// A live object.
    #[inline]
    pub fn object(&self, id: ObjId) -> &ObjectState {
        self.slots.get(id as usize).expect("live object")
    }

    /// A live object, for writing (copied first if another state shares it).
    #[inline]
    pub fn object_mut(&mut self, id: ObjId) -> &mut ObjectState {
        Rc::make_mut(self.slots.get_mut(id as usize).expect("live object"))
    }

    /// The freed heap object that held `addr`, as (base, size).
    pub fn freed_at(&self, addr: u64) -> Option<(u64, u64)> {
        let (&b, &s) = self.freed.range(..=addr).next_back()?;
        (addr < b + s.max(1)).then_some((b, s))
    }

    /// Objects at or below `addr`, nearest first.
    pub fn below(&self, addr: u64) -> impl Iterator<Item = ObjId> + '_ {
        self.by_base.range(..=addr).rev().map(|(_, &id)| id)
    }

    /// Objects above `addr`, nearest first.
    pub fn above(&self, addr: u64) -> impl Iterator<Item = ObjId> + '_ {
        self.by_base.range(addr.saturating_add(1)..).map(|(_, &id)| id)
    }

    pub fn len(&self) -> usize {
        self.by_base.len()
    }

    /// Where two address spaces that hold the same objects differ: the pairs
    /// of bytes, at least one of them symbolic, that must be equal for the
    /// two to be one memory. `false` if they cannot be (another set of
    /// objects, a concrete byte against another, written bytes against
    /// unwritten ones, or an object in array form in one of them).
    pub fn differences(&self, other: &AddressSpace, pairs: &mut Vec<(Byte, Byte)>) -> bool {
        if self.by_base.len() != other.by_base.len() || self.freed != other.freed {
            return false;
        }
        for ((ba, &ia), (bb, &ib)) in self.by_base.iter().zip(&other.by_base) {
            let (a, b) = (self.slots.get(ia as usize), other.slots.get(ib as usize));
            let (Some(a), Some(b)) = (a, b) else { return false };
            if ba != bb {
                return false;
            }
            if Rc::ptr_eq(a, b) {
                continue;
            }
            if a.size != b.size
                || a.kind != b.kind
                || a.readonly != b.readonly
                || a.sym_size != b.sym_size
                || a.uninit != b.uninit
                || a.array.is_some()
                || b.array.is_some()
            {
                return false;
            }
            if a.sym.is_none() && b.sym.is_none() {
                if a.bytes != b.bytes {
                    return false;
                }
                continue;
            }
            let byte = |o: &ObjectState, i: usize| match o.sym.as_ref().and_then(|s| s[i]) {
                Some(e) => Byte::S(e),
                None => Byte::C(o.bytes[i]),
            };
            for i in 0..a.size as usize {
                match (byte(a, i), byte(b, i)) {
                    (x, y) if x == y => {}
                    (Byte::C(_), Byte::C(_)) => return false,
                    (x, y) => pairs.push((x, y)),
                }
            }
        }
        true
    }

    /// Every expression the objects hold: symbolic bytes, array terms and
    /// symbolic sizes.
    pub fn exprs(&self) -> impl Iterator<Item = ExprId> + '_ {
        self.by_base.values().flat_map(move |&id| {
            let o = self.object(id);
            let bytes = o.sym.iter().flat_map(|s| s.iter().flatten().copied());
            o.array.into_iter().chain(o.sym_size).chain(bytes)
        })
    }

    /// After `other`'s state is merged into this one: no later allocation
    /// may reuse an address either of them handed out.
    pub fn absorb_allocator(&mut self, other: &AddressSpace) {
        self.next_heap = self.next_heap.max(other.next_heap);
        self.next_stack = self.next_stack.max(other.next_stack);
    }

    pub fn is_empty(&self) -> bool {
        self.by_base.is_empty()
    }
}
