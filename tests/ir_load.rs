//! The loader translates every construct clang emits for the fixtures, at -O0
//! and -O2, and rejects bad input with clear errors.

use crate::common;

use psychic::ir::{Callee, Intrinsic, LoadError, Module, Op, TypeKind};

fn load(src: &str, opt2: bool) -> (tempfile::TempDir, Module) {
    let dir = tempfile::tempdir().unwrap();
    let bc = common::bitcode(&common::fixture(src), dir.path(), opt2, &[]);
    let m = Module::load(&bc).unwrap_or_else(|e| panic!("{e}"));
    (dir, m)
}

fn unsupported(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for f in &m.funcs {
        for inst in f.body.iter().flat_map(|b| &b.insts) {
            if let Op::Unsupported { text } = &inst.op {
                out.push(format!("{}: {text}", f.name));
            }
        }
    }
    out
}

#[test]
fn every_construct_loads_at_o0_and_o2() {
    for opt2 in [false, true] {
        let (_d, m) = load("concrete/constructs.c", opt2);
        assert_eq!(unsupported(&m), Vec::<String>::new(), "opt2={opt2}");
        let main = m.entry("main").unwrap();
        let body = m.func(main).body.as_ref().unwrap();
        assert!(body.locs.iter().any(|l| l.is_some()), "debug locations are recorded");
        let file = &m.files[body.locs.iter().flatten().next().unwrap().file.index()];
        assert!(file.ends_with("constructs.c"), "{file}");
        assert!(m.func_by_name.contains_key("printf"));
        assert!(m.func(m.func_by_name["printf"]).body.is_none());
        // Globals have distinct, ordered, non-null addresses with gaps.
        let mut addrs: Vec<_> = m.globals.iter().map(|g| (g.addr, g.size)).collect();
        addrs.sort();
        for w in addrs.windows(2) {
            assert!(w[0].0 + w[0].1 < w[1].0, "globals overlap or touch: {w:?}");
        }
        assert!(addrs[0].0 >= 0x1000);
        if !opt2 {
            // A pointer-initialised global holds the address of its target.
            let cp = &m.globals[m.global_by_name["counter_ptr"].index()];
            let counter = &m.globals[m.global_by_name["counter"].index()];
            let init = cp.init.as_ref().unwrap();
            assert_eq!(u64::from_le_bytes(init[..8].try_into().unwrap()), counter.addr);
            let calls: Vec<_> = body
                .insts
                .iter()
                .filter_map(|i| match &i.op {
                    Op::Call { callee: Callee::Intrinsic(k), .. } => Some(*k),
                    _ => None,
                })
                .collect();
            assert!(calls.contains(&Intrinsic::Memcpy), "{calls:?}");
        }
    }
}

#[test]
fn packed_struct_layout_comes_from_the_data_layout() {
    let (_d, m) = load("concrete/constructs.c", false);
    let packed = m
        .types
        .iter()
        .find(|t| matches!(&t.kind, TypeKind::Struct { offsets, .. } if offsets.as_ref() == [0, 1, 5, 7]))
        .expect("the packed struct's field offsets");
    assert_eq!(packed.store_size, 15);
    assert_eq!(packed.align, 1);
}

#[test]
fn not_bitcode_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.bc");
    std::fs::write(&p, "int main() { return 0; }").unwrap();
    let e = Module::load(&p).unwrap_err();
    assert!(matches!(e, LoadError::NotBitcode { .. }), "{e}");
    assert!(e.to_string().contains("x.bc"), "{e}");
    // Right magic, broken body.
    std::fs::write(&p, b"BC\xC0\xDE\x00\x01\x02\x03garbage").unwrap();
    let e = Module::load(&p).unwrap_err();
    assert!(matches!(e, LoadError::NotBitcode { .. }), "{e}");
    let e = Module::load(&dir.path().join("missing.bc")).unwrap_err();
    assert!(matches!(e, LoadError::Read { .. }), "{e}");
}

#[test]
fn missing_entry_and_revision_count() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("lib.c");
    std::fs::write(&src, "const int __psychic_revisions = 5;\nint helper(int x) { return x + 1; }\n")
        .unwrap();
    let bc = common::bitcode(&src, dir.path(), false, &[]);
    let m = Module::load(&bc).unwrap();
    assert_eq!(m.revisions, Some(5));
    let e = m.entry("main").unwrap_err();
    assert!(e.to_string().contains("main"), "{e}");
    assert!(m.entry("helper").is_ok());
}

#[test]
fn unsupported_instruction_is_recorded_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("asm.c");
    std::fs::write(&src, "int main(void) { int x = 1; __asm__ volatile(\"nop\"); return x; }\n").unwrap();
    let bc = common::bitcode(&src, dir.path(), false, &[]);
    let m = Module::load(&bc).unwrap();
    let u = unsupported(&m);
    assert_eq!(u.len(), 1, "{u:?}");
    assert!(u[0].contains("inline assembly"), "{u:?}");
}
