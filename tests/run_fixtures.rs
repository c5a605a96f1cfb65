//! Known path counts, end to end: every fixture runs through `psychic run`
//! (the CLI, on the C file), and the output directory must hold exactly the
//! tests the fixture's header predicts, each of which replays natively to
//! the outcome the engine recorded.
//!
//! The fixtures of `tests/c/musl/` call what musl serves beneath the libc
//! model (src/libs.rs): they need its source, which `.ci/deps` fetches.
//!
//! A fixture's header comment says what to expect, with the reasoning:
//! - `expect: exit=N KIND=N ... silent=N early=N`: tests per termination
//!   (KIND is an `.err` suffix); every count not given is 0. The numbers come
//!   from reasoning about the program, written down beside them, never from
//!   what the engine printed.
//! - `flags: ...`: options of `psychic run`; `argv: ...`: program arguments;
//!   `native: ...`: clang flags of the native build.
//! - `enumerate: N`: the number of paths is also counted natively: the
//!   fixture (built with `-fsanitize-coverage=trace-pc-guard`) runs on every
//!   value of its N input bytes, and the distinct basic-block traces of the
//!   inputs inside its `klee_assume`s are its paths (tests/c/native/enumerate.c).
//!
//! A line that ends with `// ERROR: KIND` is where an error of that kind
//! happens: each `.err` file must name this file and one of those lines.
//!
//! Replay: the fixture's native build (AddressSanitizer, with shifts past
//! the width and `unreachable` trapping) runs on each ktest. An exit test
//! must exit with the recorded status and print the recorded stdout and
//! stderr; an error test must die by a signal (SIGFPE for `div`, or SIGABRT
//! when ASan catches it; SIGILL for the traps; SIGABRT for what ASan and
//! `abort` catch), or ASan must report it. `external`, `unhandled`,
//! `solver` and `model` (a libc-model limit) errors are the engine's own
//! limits: they have no native counterpart and are not replayed. The
//! native run gets the test's command line, stdin and files
//! (`posix::replay_env`).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use psychic::compile::{NativeOptions, Toolchain};

struct Fixture {
    src: PathBuf,
    expect: BTreeMap<String, u64>,
    flags: Vec<String>,
    argv: Vec<String>,
    /// Extra clang flags of the native build.
    native: Vec<String>,
    /// Input bytes to enumerate natively, and whether with the libc model.
    enumerate: Option<(u32, bool)>,
    /// KIND -> the lines marked `// ERROR: KIND`.
    error_lines: BTreeMap<String, Vec<u32>>,
}

fn directive<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.trim_start_matches([' ', '*', '/']).strip_prefix(name)).map(str::trim)
}

fn fixture(rel: &str) -> Fixture {
    let src = common::fixture(rel);
    let text = std::fs::read_to_string(&src).unwrap();
    let expect_line = directive(&text, "expect:").unwrap_or_else(|| panic!("{rel}: no `expect:` line"));
    let mut expect = BTreeMap::new();
    for item in expect_line.split_whitespace() {
        let (k, v) = item.split_once('=').unwrap_or_else(|| panic!("{rel}: bad expect item {item}"));
        expect.insert(k.to_string(), v.parse().unwrap());
    }
    let words =
        |d: Option<&str>| d.map(|s| s.split_whitespace().map(String::from).collect()).unwrap_or_default();
    let mut error_lines: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if let Some((_, kind)) = line.rsplit_once("// ERROR: ") {
            error_lines.entry(kind.trim().to_string()).or_default().push(i as u32 + 1);
        }
    }
    Fixture {
        src,
        expect,
        flags: words(directive(&text, "flags:")),
        argv: words(directive(&text, "argv:")),
        native: words(directive(&text, "native:")),
        enumerate: directive(&text, "enumerate:").map(|d| {
            let mut w = d.split_whitespace();
            (w.next().unwrap().parse().unwrap(), w.next() == Some("model"))
        }),
        error_lines,
    }
}

/// A row of `tests.csv`.
#[derive(Debug)]
struct TestRow {
    id: u32,
    termination: String,
    status: Option<i32>,
    kind: String,
    revisions: Vec<usize>,
}

fn read_index(dir: &Path) -> Vec<TestRow> {
    let mut r = csv::Reader::from_path(dir.join("tests.csv")).unwrap();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            TestRow {
                id: rec[0].parse().unwrap(),
                termination: rec[1].to_string(),
                status: rec[2].parse().ok(),
                kind: rec[3].to_string(),
                revisions: rec[5].split_whitespace().map(|r| r.parse().unwrap()).collect(),
            }
        })
        .collect()
}

/// The native build every test of a fixture replays on: AddressSanitizer,
/// and traps for what the engine reports as `overshift` and `exec`.
fn native(src: &Path, extra: &[String], dir: &Path) -> PathBuf {
    let tc = Toolchain::discover().unwrap().with_flags(
        ["-w", "-fsanitize=shift-exponent,unreachable", "-fsanitize-trap=shift-exponent,unreachable"]
            .iter()
            .map(|s| s.to_string())
            .chain(extra.iter().cloned()),
    );
    let bin = dir.join("native");
    tc.native(src, &bin, &NativeOptions { sanitize: true, ..Default::default() }).unwrap();
    bin
}

/// The value of a `psychic: done: NAME = N` summary line.
fn summary_value(stderr: &str, name: &str) -> u64 {
    let prefix = format!("psychic: done: {name} = ");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name}:\n{stderr}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

fn check(rel: &str) {
    let f = fixture(rel);
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .arg("run")
        .arg("--output-dir")
        .arg(&out_dir)
        .args(&f.flags)
        .arg(&f.src)
        .args(&f.argv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(run.status.code(), Some(0), "{rel}: psychic run failed:\n{stderr}");
    let n = |k: &str| f.expect.get(k).copied().unwrap_or(0);
    let errors: u64 = f
        .expect
        .iter()
        .filter(|(k, _)| !["exit", "silent", "early"].contains(&k.as_str()))
        .map(|(_, v)| v)
        .sum();

    // The summary, KLEE's way: errors, silent and early paths are partial.
    assert_eq!(summary_value(&stderr, "completed paths"), n("exit"), "{rel}:\n{stderr}");
    assert_eq!(
        summary_value(&stderr, "partially completed paths"),
        errors + n("silent") + n("early"),
        "{rel}:\n{stderr}"
    );
    assert_eq!(
        summary_value(&stderr, "generated tests"),
        n("exit") + errors + n("early"),
        "{rel}:\n{stderr}"
    );

    // The tests, by how they ended.
    let rows = read_index(&out_dir);
    let mut found: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        let key = if r.termination == "error" { r.kind.clone() } else { r.termination.clone() };
        *found.entry(key).or_default() += 1;
    }
    let mut wanted = f.expect.clone();
    wanted.remove("silent");
    wanted.retain(|_, v| *v > 0);
    assert_eq!(found, wanted, "{rel}: tests by termination\n{stderr}");

    let bin = native(&f.src, &f.native, tmp.path());
    let name = f.src.file_name().unwrap().to_string_lossy().into_owned();
    for r in &rows {
        let stem = out_dir.join(format!("test{:06}", r.id));
        let ktest = stem.with_extension("ktest");
        let kt = psychic::ktest::KTest::read(&ktest).unwrap();
        // The words after `--`, then the environment flags given before it.
        let mut args = vec![f.src.display().to_string()];
        args.extend(f.argv.iter().filter(|w| *w != "--").cloned());
        assert!(kt.args.starts_with(&args), "{rel}: the ktest records the command line: {:?}", kt.args);
        // A meta program's test replays on every revision of its path.
        for &rev in &r.revisions {
            let mut req = psychic::replay::Request::new(&bin, Some(&ktest), rev);
            req.env = psychic::posix::replay_env(&kt);
            let what = format!("{rel}: test {} ({}) on revision {rev}", r.id, r.termination);
            match r.termination.as_str() {
                "exit" => {
                    let out = psychic::replay::run(&req).unwrap();
                    let read = |ext: &str| std::fs::read(stem.with_extension(ext)).unwrap_or_default();
                    assert_eq!(out.exit_status, r.status, "{what} replays to {}", out.status_text());
                    assert_eq!(lossy(&out.stdout), lossy(&read("stdout")), "{what}: stdout");
                    assert_eq!(lossy(&out.stderr), lossy(&read("stderr")), "{what}: stderr");
                }
                "error" => {
                    let err =
                        std::fs::read_to_string(stem.with_extension(format!("{}.err", r.kind))).unwrap();
                    let line: u32 =
                        err.lines().find_map(|l| l.strip_prefix("Line: ")).unwrap().parse().unwrap();
                    let file = err.lines().find_map(|l| l.strip_prefix("File: ")).unwrap();
                    assert!(err.starts_with("Error: ") && err.contains("Stack:\n\t#0 in "), "{what}: {err}");
                    assert!(file.ends_with(&name), "{what}: {err}");
                    let marked = f.error_lines.get(&r.kind).cloned().unwrap_or_default();
                    assert!(
                        marked.contains(&line),
                        "{what}: error at line {line}, marked: {marked:?}\n{err}"
                    );
                    let signals: &[i32] = match r.kind.as_str() {
                        "external" | "unhandled" | "solver" | "model" => continue,
                        "div" => &[8, 6],
                        "overshift" => &[4],
                        "exec" => &[4, 6, 11],
                        _ => &[6],
                    };
                    let out = psychic::replay::run(&req).unwrap();
                    // A jump to a bad address can make ASan exit (status 1)
                    // after its report instead of aborting.
                    let asan = lossy(&out.stderr).contains("ERROR: AddressSanitizer");
                    assert!(
                        out.signal.is_some_and(|s| signals.contains(&s)) || asan,
                        "{what} replays to {}",
                        out.status_text()
                    );
                }
                _ => {}
            }
        }
    }

    if let Some((bytes, model)) = f.enumerate {
        let native_paths = common::native_path_count(&f.src, bytes, model, tmp.path());
        assert_eq!(native_paths, n("exit") + errors + n("silent"), "{rel}: paths vs distinct native traces");
    }
}

fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// KLEE's regular-expression tutorial through the CLI: as many tests as
/// there are distinct native traces of the matcher, none an error.
#[test]
fn regexp() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .args(["run", "--search", "dfs", "--output-dir"])
        .arg(&out)
        .arg(common::fixture("symbolic/regexp.c"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let expected = common::native_trace_count() as u64;
    assert_eq!(summary_value(&stderr, "completed paths"), expected, "{stderr}");
    assert_eq!(summary_value(&stderr, "partially completed paths"), 0, "{stderr}");
    let rows = read_index(&out);
    assert_eq!(rows.len() as u64, expected);
    assert!(rows.iter().all(|r| r.termination == "exit"));
}

/// `psychic run` says which library served the program: musl beneath the
/// model, for the functions the model lacks.
#[test]
fn musl_serves_what_the_model_lacks() {
    let tmp = tempfile::tempdir().unwrap();
    let f = fixture("musl/getopt_long.c");
    let run = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .arg("run")
        .arg("--output-dir")
        .arg(tmp.path().join("out"))
        .arg(&f.src)
        .args(&f.argv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let line = stderr.lines().find_map(|l| l.strip_prefix("psychic: libc: ")).expect(&stderr);
    let served = line.strip_prefix("psychic model, with musl 1.2.3 for ").unwrap_or_else(|| panic!("{line}"));
    let served: Vec<&str> = served.split(", ").collect();
    for f in ["getopt_long", "strsep", "memmem", "strcasestr", "qsort_r", "lfind", "isatty", "write"] {
        assert!(served.contains(&f), "{f} is not among {served:?}");
    }
    assert!(!served.contains(&"strlen"), "the model serves strlen: {served:?}");
}

macro_rules! fixtures {
    ($($name:ident => $rel:literal,)*) => {
        $(#[test] fn $name() { check($rel); })*
    };
}

fixtures! {
    posix_argv_words => "posix/argv_words.c",
    posix_atexit_handlers => "posix/atexit_handlers.c",
    posix_fgets_line => "posix/fgets_line.c",
    posix_getchar_loop => "posix/getchar_loop.c",
    posix_getline_read => "posix/getline_read.c",
    posix_scanf_bytes => "posix/scanf_bytes.c",
    posix_scanf_float_bytes => "posix/scanf_float_bytes.c",
    posix_scanf_float_tokens => "posix/scanf_float_tokens.c",
    posix_scanf_ints => "posix/scanf_ints.c",
    posix_scanf_tokens => "posix/scanf_tokens.c",
    posix_scanf_unsupported => "posix/scanf_unsupported.c",
    posix_scanf_word => "posix/scanf_word.c",
    posix_scanset_fscanf => "posix/scanset_fscanf.c",
    posix_sym_args => "posix/sym_args.c",
    posix_sscanf_arg => "posix/sscanf_arg.c",
    posix_sscanf_floats => "posix/sscanf_floats.c",
    posix_sym_files => "posix/sym_files.c",
    posix_strtod_arg => "posix/strtod_arg.c",
    posix_strtoimax_words => "posix/strtoimax_words.c",
    musl_getopt_long => "musl/getopt_long.c",
    musl_strsep_arg => "musl/strsep_arg.c",
    musl_syscall_unmodelled => "musl/syscall_unmodelled.c",
    musl_tail_functions => "musl/tail_functions.c",
    array_index => "symbolic/array_index.c",
    get_sign => "symbolic/get_sign.c",
    loops => "symbolic/loops.c",
    meta => "symbolic/meta.c",
    meta_chain => "symbolic/meta_chain.c",
    meta_in => "symbolic/meta_in.c",
    meta_outputs => "symbolic/meta_outputs.c",
    pointers => "symbolic/pointers.c",
    ranges => "symbolic/ranges.c",
    symbolic_write => "symbolic/symbolic_write.c",
    argv => "run/argv.c",
    array_2d => "run/array_2d.c",
    array_rw => "run/array_rw.c",
    atoi => "run/atoi.c",
    binary_search => "run/binary_search.c",
    bitfields => "run/bitfields.c",
    branches => "run/branches.c",
    ctype => "run/ctype.c",
    entry_point => "run/entry_point.c",
    err_abort => "run/err_abort.c",
    err_alloc => "run/err_alloc.c",
    err_assert => "run/err_assert.c",
    err_div => "run/err_div.c",
    err_double_free => "run/err_double_free.c",
    err_exec => "run/err_exec.c",
    err_external => "run/err_external.c",
    err_invalid_free => "run/err_invalid_free.c",
    err_null => "run/err_null.c",
    err_oob => "run/err_oob.c",
    err_oob_far => "run/err_oob_far.c",
    err_overshift => "run/err_overshift.c",
    err_readonly => "run/err_readonly.c",
    err_stack_overflow => "run/err_stack_overflow.c",
    err_uaf => "run/err_uaf.c",
    err_unhandled => "run/err_unhandled.c",
    err_user => "run/err_user.c",
    printf_float => "run/printf_float.c",
    exit_status => "run/exit_status.c",
    floats => "run/floats.c",
    float_edges => "run/float_edges.c",
    function_pointers => "run/function_pointers.c",
    globals => "run/globals.c",
    goto_loops => "run/goto_loops.c",
    heap_objects => "run/heap_objects.c",
    klee_api => "run/klee_api.c",
    linked_list => "run/linked_list.c",
    logic => "run/logic.c",
    loop_search => "run/loop_search.c",
    memory_model => "run/memory_model.c",
    mutual_recursion => "run/mutual_recursion.c",
    nested_loops => "run/nested_loops.c",
    qsort_callback => "run/qsort_callback.c",
    recursion => "run/recursion.c",
    snprintf => "run/snprintf.c",
    sprintf_formats => "run/sprintf_formats.c",
    sprintf_string => "run/sprintf_string.c",
    sprintf_symbolic => "run/sprintf_symbolic.c",
    stdio_output => "run/stdio_output.c",
    strchr => "run/strchr.c",
    strcmp => "run/strcmp.c",
    strlen => "run/strlen.c",
    structs => "run/structs.c",
    switch => "run/switch.c",
    sym_calloc => "run/sym_calloc.c",
    sym_malloc => "run/sym_malloc.c",
    sym_realloc => "run/sym_realloc.c",
    sym_string => "run/sym_string.c",
    sym_vla => "run/sym_vla.c",
    sym_vla_memset => "run/sym_vla_memset.c",
    varargs => "run/varargs.c",
}
