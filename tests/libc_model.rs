//! The symbolic libc model must be glibc: each function runs natively beside
//! glibc's own on many inputs (tests/c/libc_model_check.c) and every result,
//! end pointer and errno must agree.

use std::process::Command;

use psychic::compile::Toolchain;
use psychic::runtime::Installed;

#[test]
fn libc_model_agrees_with_glibc() {
    let tc = Toolchain::discover().expect("clang 19");
    let rt = Installed::new().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("check");
    let driver = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/libc_model_check.c");
    // env.c and posix.c are left out: natively, errno, the streams and the
    // files must stay glibc's (posix.c is checked by replay, tests/c/posix).
    let sources: Vec<_> = rt
        .libc_model_sources()
        .into_iter()
        .filter(|p| !p.ends_with("env.c") && !p.ends_with("posix.c"))
        .collect();
    let out = Command::new(tc.clang())
        .args(["-fno-builtin", "-O0", "-w", "-o"])
        .arg(&bin)
        .arg(driver)
        .args(&sources)
        .arg("-ldl")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&bin).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "model and glibc disagree:\n{stdout}");
    let checks: u32 = stdout.split_whitespace().next().unwrap().parse().unwrap();
    assert!(checks > 20_000, "{stdout}");
}
