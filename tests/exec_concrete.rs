//! Concrete execution matches the native binary exactly: stdout and exit
//! status, at -O0 and -O2.

use crate::common;

use psychic::exec::{ExecConfig, Executor, Termination};
use psychic::ir::Module;

/// Engine and native run of one C file agree; returns the engine's stdout.
fn agree(src: &std::path::Path, opt2: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let bc = common::bitcode(src, dir.path(), opt2, &[]);
    let bin = common::native_with_libm(src, dir.path(), opt2, &[]);
    let native = common::run_native(&bin, 20).expect("native run finishes");
    let m = Module::load(&bc).unwrap();
    let mut ex = Executor::new(&m, ExecConfig::default()).unwrap();
    let summary = ex.run();
    assert_eq!(summary.paths.len(), 1, "a concrete program has one path: {:?}", summary.paths);
    let p = &summary.paths[0];
    let out = common::stdout_of(p);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&native.stdout),
        "stdout differs for {} (opt2={opt2})",
        src.display()
    );
    match &p.termination {
        Termination::Exit { status } => {
            let s = ex.pool.as_const(*status).expect("concrete status") as u32 as i32;
            assert_eq!(Some(s & 0xff), native.exit_status, "exit status of {}", src.display());
        }
        t => panic!("{}: engine ended with {t:?}, native with {:?}", src.display(), native.status_text()),
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn constructs_match_native_o0() {
    let out = agree(&common::fixture("concrete/constructs.c"), false);
    assert!(out.contains("fib 610"), "{out}");
}

#[test]
fn constructs_match_native_o2() {
    agree(&common::fixture("concrete/constructs.c"), true);
}

#[test]
fn intrinsics_match_native_o0_and_o2() {
    for opt2 in [false, true] {
        let out = agree(&common::fixture("concrete/intrinsics.c"), opt2);
        assert!(out.contains("sat 2147483647"), "{out}");
    }
}

#[test]
fn libc_model_links_in_and_matches_native() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture("concrete/libc_use.c");
    let rt = psychic::runtime::Installed::new().unwrap();
    let mut libs = Vec::new();
    for (i, c) in rt.libc_model_sources().iter().enumerate() {
        let out = dir.path().join(format!("model{i}.bc"));
        common::toolchain().bitcode(c, &out).unwrap();
        libs.push(out);
    }
    let bc = common::bitcode(&src, dir.path(), false, &[]);
    let bin = common::native_with_libm(&src, dir.path(), false, &[]);
    let native = common::run_native(&bin, 10).unwrap();
    let lib_refs: Vec<&std::path::Path> = libs.iter().map(|p| p.as_path()).collect();
    let m = Module::load_linked(&bc, &lib_refs).unwrap();
    let mut ex = Executor::new(&m, ExecConfig::default()).unwrap();
    let s = ex.run();
    assert_eq!(s.paths.len(), 1, "{:?}", s.paths);
    assert_eq!(
        String::from_utf8_lossy(&common::stdout_of(&s.paths[0])),
        String::from_utf8_lossy(&native.stdout)
    );
    match s.paths[0].termination {
        Termination::Exit { status } => {
            assert_eq!(ex.pool.as_const(status).map(|v| v as i32), native.exit_status)
        }
        ref t => panic!("{t:?}"),
    }
}

#[test]
fn integers_wider_than_128_bits_match_native() {
    for opt2 in [false, true] {
        agree(&common::fixture("concrete/wide.c"), opt2);
    }
}
