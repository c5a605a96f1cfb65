//! `psychic run` as a user meets it: the output directory's name and link,
//! the program's output passed through for a single path, the summary, and
//! bad input, each a one-line error with exit status 2 and no output
//! directory left behind, or, for what only ends a path, a finished run.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

fn psychic(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic")).current_dir(dir).args(args).output().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `code` as `name` into a fresh directory and runs `psychic run` on
/// it there with `args` (after the program).
fn run_code(name: &str, code: &str, args: &[&str]) -> (tempfile::TempDir, Output, String) {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), name, code);
    let o = psychic(tmp.path(), &[&["run", name], args].concat());
    let err = stderr(&o);
    (tmp, o, err)
}

/// Runs `psychic run` on a fixture, into `out` of a fresh directory.
fn run_fixture(rel: &str, args: &[&str]) -> (tempfile::TempDir, Output, String) {
    let tmp = tempfile::tempdir().unwrap();
    let src = common::fixture(rel);
    let o = psychic(tmp.path(), &[&["run", src.to_str().unwrap(), "--output-dir", "out"], args].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    (tmp, o, err)
}

/// The files of `dir` whose names end with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect()
}

/// A failed run: status 2, one line `psychic: error: ...` naming `what`, no
/// panic, and no output directory.
fn fails(dir: &Path, args: &[&str], what: &str) {
    let o = psychic(dir, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("psychic: error: ") && err.contains(what), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let outs = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("psychic-"))
        .count();
    assert_eq!(outs, 0, "{args:?}: a failed run leaves no output directory");
}

const GET_SIGN: &str = "#include <klee/klee.h>\nint main(void) { int x = klee_int(\"x\"); if (x == 0) return 0; if (x < 0) return -1; return 1; }\n";

#[test]
fn output_directories_are_numbered_and_linked() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "get_sign.c", GET_SIGN);
    for n in 0..2 {
        let o = psychic(tmp.path(), &["run", "get_sign.c"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let dir = tmp.path().join(format!("psychic-out-{n}"));
        assert!(stderr(&o).contains(&format!("output directory is \"{}\"", dir.display())), "{}", stderr(&o));
        assert_eq!(
            std::fs::read_link(tmp.path().join("psychic-last")).unwrap(),
            Path::new(&format!("psychic-out-{n}"))
        );
        for f in ["info", "run.stats", "tests.csv", "messages.txt", "warnings.txt", "test000003.ktest"] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        assert!(!dir.join("test000004.ktest").exists());
    }
    let info = std::fs::read_to_string(tmp.path().join("psychic-last/info")).unwrap();
    assert!(info.lines().next().unwrap().ends_with("run get_sign.c"), "{info}");
    assert!(info.contains("Started: ") && info.contains("psychic: done: generated tests = 3"), "{info}");
    // The statistics: a header and at least the final row, whose columns agree with the summary.
    let mut stats = csv::Reader::from_path(tmp.path().join("psychic-last/run.stats")).unwrap();
    let header = stats.headers().unwrap().clone();
    let last = stats.records().last().unwrap().unwrap();
    let col = |name: &str| &last[header.iter().position(|h| h == name).unwrap()];
    assert_eq!(col("CompletedPaths"), "3");
    assert_eq!(col("Tests"), "3");
    let messages = std::fs::read_to_string(tmp.path().join("psychic-last/messages.txt")).unwrap();
    assert!(messages.contains("psychic: done: completed paths = 3"), "{messages}");
}

#[test]
fn a_single_path_prints_the_programs_output() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "hello.c",
        "#include <stdio.h>\nint main(int argc, char **argv) { printf(\"hello %s\\n\", argv[1]); fprintf(stderr, \"warn\\n\"); puts(\"bye\"); return 3; }\n",
    );
    let o = psychic(tmp.path(), &["run", "hello.c", "world"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "hello world\nbye\n");
    assert!(stderr(&o).contains("warn\n"), "{}", stderr(&o));
    let kt = psychic::ktest::KTest::read(&tmp.path().join("psychic-last/test000001.ktest")).unwrap();
    assert_eq!(kt.args, vec!["hello.c", "world"], "argv is recorded as KLEE does");
    // With several paths, the outputs go only to the test files.
    write(
        tmp.path(),
        "two.c",
        "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) { if (klee_int(\"x\")) puts(\"a\"); else puts(\"b\"); return 0; }\n",
    );
    let o = psychic(tmp.path(), &["run", "two.c"]);
    assert!(o.status.success() && o.stdout.is_empty(), "{}", stderr(&o));
}

#[test]
fn summary_lines_follow_klee() {
    let (tmp, o, err) = run_code(
        "e.c",
        "#include <klee/klee.h>\nint main(void) { int x = klee_int(\"x\"); if (x == 7) return 10 / (x - 7); return 0; }\n",
        &["--output-dir", "out"],
    );
    assert!(o.status.success(), "{err}");
    for line in [
        "psychic: done: completed paths = 1",
        "psychic: done: partially completed paths = 1",
        "psychic: done: generated tests = 2",
        "psychic: done: errors: div 1",
    ] {
        assert!(err.contains(line), "{line}:\n{err}");
    }
    assert!(err.contains("psychic: ERROR: ") && err.contains("e.c:2:"), "{err}");
    for prefix in
        ["psychic: done: total instructions = ", "psychic: done: queries = ", "psychic: done: wall time = "]
    {
        assert!(err.contains(prefix), "{prefix}:\n{err}");
    }
    let e = std::fs::read_to_string(tmp.path().join("out/test000001.div.err"))
        .or_else(|_| std::fs::read_to_string(tmp.path().join("out/test000002.div.err")))
        .unwrap();
    assert!(
        e.starts_with("Error: division by zero\nFile: ") && e.contains("\nLine: 2\nStack:\n\t#0 in main at "),
        "{e}"
    );
}

#[test]
fn bitcode_that_is_not_bitcode() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "text.bc", "hello\n");
    fails(tmp.path(), &["run", "text.bc"], "text.bc: not LLVM bitcode");
}

#[test]
fn a_missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    fails(tmp.path(), &["run", "nothere.bc"], "nothere.bc: no such file");
}

#[test]
fn bitcode_without_main_runs_from_the_entry_point_it_is_given() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "lib.c", "#include <klee/klee.h>\nint start(void) { return klee_int(\"x\") > 0; }\n");
    let c = psychic(tmp.path(), &["compile", "lib.c", "-o", "lib.bc"]);
    assert!(c.status.success(), "{}", stderr(&c));
    fails(tmp.path(), &["run", "lib.bc"], "no function `main` to start in; name one with --entry-point");
    fails(tmp.path(), &["run", "--entry-point", "nowhere", "lib.bc"], "no function `nowhere`");
    let o = psychic(tmp.path(), &["run", "--entry-point", "start", "lib.bc", "--output-dir", "out"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("completed paths = 1"), "{}", stderr(&o));
}

#[test]
fn other_bad_input_is_one_line_too() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "four.c", "int start(int a, int b, int c, int d) { return a + b + c + d; }\n");
    fails(
        tmp.path(),
        &["run", "--entry-point", "start", "four.c"],
        "takes parameters psychic cannot provide",
    );
    write(tmp.path(), "ok.c", GET_SIGN);
    fails(tmp.path(), &["run", "ok.c", "--max-time", "-1"], "--max-time -1");
    std::fs::create_dir(tmp.path().join("full")).unwrap();
    write(&tmp.path().join("full"), "x", "");
    let o = psychic(tmp.path(), &["run", "--output-dir", "full", "ok.c"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("full: output directory exists and is not empty"), "{}", stderr(&o));
    // A C syntax error: clang's diagnostic, with file:line.
    write(tmp.path(), "bad.c", "int main(void) { return x; }\n");
    let o = psychic(tmp.path(), &["run", "bad.c"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("psychic: error: bad.c: does not compile:\nbad.c:1:25: error:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_unsupported_instruction_ends_its_path_only() {
    let (tmp, o, err) = run_code(
        "asm.c",
        "#include <klee/klee.h>\nint main(void) {\n  int x = klee_int(\"x\");\n  if (x == 5) __asm__ volatile(\"nop\");\n  return 0;\n}\n",
        &["--output-dir", "out"],
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("psychic: ERROR: ") && err.contains("asm.c:4:") && err.contains("inline assembly"),
        "{err}"
    );
    assert!(err.contains("completed paths = 1") && err.contains("errors: unhandled 1"), "{err}");
    let errs = files_ending(&tmp.path().join("out"), ".unhandled.err");
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = std::fs::read_to_string(tmp.path().join("out").join(&errs[0])).unwrap();
    assert!(e.contains("inline assembly") && e.contains("\nLine: 4\n"), "{e}");
}

#[test]
fn a_solver_timeout_ends_only_the_path_that_asked() {
    let (tmp, _, err) = run_fixture("symbolic/solver_hard.c", &["--max-solver-time", "0.2"]);
    assert!(err.contains("errors: solver"), "{err}");
    assert!(!err.contains("completed paths = 0"), "the other paths go on: {err}");
    assert_eq!(files_ending(&tmp.path().join("out"), ".solver.err").len(), 1, "{err}");
}

#[test]
fn help_teaches_with_examples() {
    let tmp = tempfile::tempdir().unwrap();
    let o = psychic(tmp.path(), &["run", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    for flag in [
        "--output-dir",
        "--search",
        "--seed",
        "--max-time",
        "--max-instructions",
        "--max-depth",
        "--max-forks",
        "--max-memory",
        "--max-solver-time",
        "--entry-point",
        "--external-calls",
        "--check-overshift",
        "--revisions",
        "--libc",
        "Examples:",
        "testNNNNNN.ktest",
    ] {
        assert!(out.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn a_limit_ends_the_remaining_paths_early_with_tests() {
    let (tmp, _, err) = run_fixture("symbolic/regexp.c", &["--max-instructions", "2000"]);
    assert!(err.contains("psychic: halted: max-instructions (2000) reached"), "{err}");
    let early = files_ending(&tmp.path().join("out"), ".early");
    assert!(!early.is_empty(), "{err}");
    for name in &early {
        let text = std::fs::read_to_string(tmp.path().join("out").join(name)).unwrap();
        assert_eq!(text, "max-instructions (2000) reached\n");
        assert!(tmp.path().join("out").join(name.replace(".early", ".ktest")).is_file());
    }
    let done = |name: &str| -> usize {
        let prefix = format!("psychic: done: {name} = ");
        err.lines().find_map(|l| l.strip_prefix(prefix.as_str())).unwrap().parse().unwrap()
    };
    let (completed, generated) = (done("completed paths"), done("generated tests"));
    assert_eq!(generated, completed + early.len(), "{err}");
}
