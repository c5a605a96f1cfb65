//! Shared test support: building C files in parallel, and the revision-fidelity
//! check that compares the meta program with each revision's own binary.

#![allow(dead_code)]

pub mod mutate;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use psychic::compile::{NativeOptions, Toolchain};
use psychic::ktest::KTest;
use psychic::replay::{self, Outcome};
use psychic::unify::{self, MetaProgram, RevisionSource};

/// clang 19 with warnings as errors: revisions and meta programs alike must
/// compile cleanly under `-Wall`.
pub fn strict_toolchain() -> Toolchain {
    Toolchain::discover().expect("clang 19").with_flags(["-Wall", "-Werror"])
}

/// `f` over `items` on every core, results in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= items.len() {
                            break out;
                        }
                        out.push((i, f(&items[i])));
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker panicked")).collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Writes `text` to `path` and builds it natively; the binary's path, or the
/// compiler's diagnostics.
pub fn build(tc: &Toolchain, path: &Path, text: &str) -> Result<PathBuf, String> {
    std::fs::write(path, text).map_err(|e| e.to_string())?;
    let bin = path.with_extension("bin");
    tc.native(path, &bin, &NativeOptions::default()).map_err(|e| e.to_string())?;
    Ok(bin)
}

/// Writes `tests` into `dir` as `test0.ktest`, `test1.ktest`, ...
pub fn write_tests(dir: &Path, tests: &[KTest]) -> Vec<PathBuf> {
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = dir.join(format!("test{i}.ktest"));
            t.write(&p).unwrap();
            p
        })
        .collect()
}

pub fn sources(files: &[(String, String)]) -> Vec<RevisionSource> {
    files
        .iter()
        .enumerate()
        .map(|(index, (name, text))| RevisionSource {
            index,
            name: name.clone(),
            path: PathBuf::from(name),
            text: text.clone(),
        })
        .collect()
}

fn run(bin: &Path, ktest: &Path, revision: usize) -> Outcome {
    let mut req = replay::Request::new(bin, Some(ktest), revision);
    req.timeout = Duration::from_secs(5);
    replay::run(&req).unwrap_or_else(|e| panic!("{}: cannot run: {e}", bin.display()))
}

fn show(o: &Outcome) -> String {
    format!("{} with stdout {:?}", o.status_text(), String::from_utf8_lossy(&o.stdout))
}

/// Revision fidelity: unifies `sources`, builds the meta program in `dir`, and
/// runs it as every revision on every test, against `own[k]`, revision k's own
/// binary. Returns the meta program and the number of runs compared.
pub fn check_fidelity(
    tc: &Toolchain,
    dir: &Path,
    sources: &[RevisionSource],
    own: &[PathBuf],
    tests: &[PathBuf],
) -> Result<(MetaProgram, usize), String> {
    let meta = unify::unify(sources).map_err(|e| format!("unify failed: {e}"))?;
    let meta_c = dir.join("meta.c");
    let meta_bin =
        build(tc, &meta_c, &meta.text).map_err(|e| format!("the meta program does not build: {e}"))?;
    let mut compared = 0;
    for test in tests {
        for (k, bin) in own.iter().enumerate() {
            let want = run(bin, test, k);
            let got = run(&meta_bin, test, k);
            let same = want.stdout == got.stdout
                && want.exit_status == got.exit_status
                && want.signal == got.signal
                && want.timed_out == got.timed_out;
            if !same {
                return Err(format!(
                    "revision {k} ({}) on {}: own build gives {}, meta program gives {}",
                    sources[k].name,
                    test.display(),
                    show(&want),
                    show(&got)
                ));
            }
            compared += 1;
        }
    }
    Ok((meta, compared))
}
