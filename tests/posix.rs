//! The symbolic environment end to end: diff-patches on unmodified programs
//! that read stdin with scanf or take arguments, whose confirmed tests must
//! replay on each revision's own native build (ground truth: the compiled
//! revisions, fed the test's stdin and argv); and the errors a user meets.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use psychic::compile::{NativeOptions, Toolchain};
use psychic::ktest::KTest;
use psychic::report::Report;

fn psychic(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic")).current_dir(dir).args(args).output().unwrap()
}

fn fixture(rel: &str) -> String {
    common::fixture(&format!("posix/{rel}")).display().to_string()
}

/// diff-patches on `files` with `extra` flags; the report and the directory.
fn diff_patches(files: &[&str], extra: &[&str]) -> (Report, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = files.iter().map(|f| fixture(f)).collect();
    let mut args = vec!["diff-patches", "--quiet", "-o", "out"];
    args.extend(files.iter().map(String::as_str));
    args.extend(extra);
    let out = psychic(dir.path(), &args);
    assert!(out.status.success(), "diff-patches failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), dir)
}

/// Each revision's own native build.
fn natives(files: &[&str], dir: &Path) -> Vec<PathBuf> {
    let tc = Toolchain::discover().unwrap();
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let bin = dir.join(format!("rev{i}"));
            tc.native(Path::new(&fixture(f)), &bin, &NativeOptions::default()).unwrap();
            bin
        })
        .collect()
}

/// Every confirmed test, replayed on each revision's own build with the
/// stdin and argv its ktest describes, prints and exits as the report says,
/// and the revisions differ on it.
fn tests_replay_on_the_revisions(files: &[&str], r: &Report, dir: &Path) {
    assert!(!r.tests.is_empty(), "a differential test is found");
    assert_eq!(r.clusters.len(), files.len(), "the revisions are told apart: {:?}", r.clusters);
    let bins = natives(files, dir);
    for t in &r.tests {
        let kt = KTest::read(&dir.join("out").join(&t.ktest)).unwrap();
        let env = psychic::posix::replay_env(&kt);
        let mut seen = Vec::new();
        for o in &t.outcomes {
            for &rev in &o.revisions {
                let mut req = psychic::replay::Request::new(&bins[rev], None, 0);
                req.env = env.clone();
                let out = psychic::replay::run(&req).unwrap();
                assert_eq!(String::from_utf8_lossy(&out.stdout), o.stdout, "test {} on revision {rev}", t.id);
                assert_eq!(out.exit_status, o.exit_status, "test {} on revision {rev}", t.id);
                seen.push((out.stdout, out.exit_status));
            }
        }
        seen.dedup();
        assert!(seen.len() > 1, "test {} tells revisions apart natively", t.id);
    }
}

#[test]
fn diff_patches_scanf_tokens() {
    let files = ["diff/grade.c", "diff/grade_fix.c"];
    let (r, dir) = diff_patches(&files, &["--sym-stdin", "4"]);
    tests_replay_on_the_revisions(&files, &r, dir.path());
    // The test that separates them reads 90.
    let kt = KTest::read(&dir.path().join("out").join(&r.tests[0].ktest)).unwrap();
    let stdin = psychic::posix::replay_env(&kt).stdin;
    assert!(stdin.starts_with(b"90") && !stdin[2].is_ascii_alphanumeric(), "{stdin:?}");
}

#[test]
fn diff_patches_scanf_bytes() {
    let files = ["diff/grade.c", "diff/grade_fix.c"];
    let (r, dir) = diff_patches(&files, &["--sym-stdin", "2", "--stdin-model", "bytes"]);
    tests_replay_on_the_revisions(&files, &r, dir.path());
}

#[test]
fn diff_patches_symbolic_argument() {
    let files = ["diff/echo_n.c", "diff/echo_n_fix.c"];
    let (r, dir) = diff_patches(&files, &["--", "--sym-arg", "2"]);
    tests_replay_on_the_revisions(&files, &r, dir.path());
    let kt = KTest::read(&dir.path().join("out").join(&r.tests[0].ktest)).unwrap();
    assert!(kt.objects.iter().any(|o| o.name == "arg00"), "{kt:?}");
    assert_eq!(kt.args[1..], ["--sym-arg", "2"]);
}

/// Two revisions that differ on one double, 2.5, read by scanf("%lf"):
/// tokens (the bits are the input) and bytes (glibc's gathering, the digits
/// as an integer, one exact IEEE division) both reach the comparison with a
/// symbolic double, and the solver finds 2.5; the test replays on the
/// revisions' own builds.
#[test]
fn diff_patches_float_threshold() {
    let files = ["diff/threshold.c", "diff/threshold_fix.c"];
    for (model, n) in [("tokens", "4"), ("bytes", "3")] {
        let (r, dir) = diff_patches(&files, &["--sym-stdin", n, "--stdin-model", model]);
        assert!(!r.stats.partial, "{model}: {:?}", r.stats.partial_reasons);
        tests_replay_on_the_revisions(&files, &r, dir.path());
        let kt = KTest::read(&dir.path().join("out").join(&r.tests[0].ktest)).unwrap();
        let stdin = psychic::posix::replay_env(&kt).stdin;
        let text = String::from_utf8_lossy(&stdin);
        let word = text.split(|c: char| !c.is_ascii_graphic()).next().and_then(|w| w.parse::<f64>().ok());
        assert_eq!(word, Some(2.5), "{model}: {text:?}");
    }
}

/// Byte mode over 3 symbolic bytes: each of `%f%n` then `%3lg` gathers what
/// glibc gathers and converts it to glibc's bits (fast path or hook), so
/// every test, replayed on the native build, prints what the engine
/// recorded: results, counts consumed, bits, and the next byte.
#[test]
fn float_conversions_replay_in_byte_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = fixture("scanf_float_replay.c");
    let o = psychic(
        tmp.path(),
        &["run", &prog, "--output-dir", "out", "--sym-stdin", "3", "--stdin-model", "bytes"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bin = tmp.path().join("native");
    Toolchain::discover().unwrap().native(Path::new(&prog), &bin, &NativeOptions::default()).unwrap();
    let mut outputs = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(tmp.path().join("out")).unwrap() {
        let ktest = e.unwrap().path();
        if ktest.extension().is_none_or(|x| x != "ktest") {
            continue;
        }
        let kt = KTest::read(&ktest).unwrap();
        let mut req = psychic::replay::Request::new(&bin, None, 0);
        req.env = psychic::posix::replay_env(&kt);
        let out = psychic::replay::run(&req).unwrap();
        let want = std::fs::read(ktest.with_extension("stdout")).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&want),
            "{}",
            ktest.display()
        );
        outputs.insert(want);
    }
    // Results 1, 0 and EOF, of both conversions, and many values.
    assert!(outputs.len() > 50, "{} distinct outputs", outputs.len());
    for r in ["1 ", "0 ", "-1 "] {
        assert!(outputs.iter().any(|o| o.starts_with(r.as_bytes())), "no result {r}");
    }
}

/// A failed command: status 2, one line naming `what`.
fn fails(args: &[&str], what: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let o = psychic(tmp.path(), args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("psychic: error: ") && err.contains(what), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none(), "no output directory");
}

#[test]
fn environment_errors_teach() {
    let prog = fixture("scanf_ints.c");
    let (orig, fix) = (fixture("diff/grade.c"), fixture("diff/grade_fix.c"));
    fails(&["run", &prog, "--sym-arg", "3"], "put it after `--`, as in `psychic run prog.c -- --sym-arg 3`");
    fails(&["diff-patches", &orig, &fix, "--sym-args", "0", "2", "3"], "put it after `--`");
    fails(&["run", &prog, "--sym-stdin", "4", "--", "--sym-stdin", "8"], "stdin asked for twice");
    fails(
        &["diff-patches", &orig, &fix, "--", "--sym-stdin", "2", "--sym-stdin", "2"],
        "stdin asked for twice",
    );
    fails(&["run", &prog, "--", "--sym-arg", "x"], "expected `--sym-arg N`");
    fails(&["run", &prog, "--", "--sym-args", "3", "1", "2"], "MIN is above MAX");
    fails(&["run", &prog, "--sym-stdin", "4", "--entry-point", "f"], "starts the program at `main`");
}

#[test]
fn an_unsupported_conversion_names_the_format_and_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let o = psychic(
        tmp.path(),
        &["run", &fixture("scanf_unsupported.c"), "--output-dir", "out", "--sym-stdin", "4"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("scanf_unsupported.c:15:5: scanf: unsupported conversion \"%p\" in format \"%p\""),
        "{err}"
    );
    let errs: Vec<_> = std::fs::read_dir(tmp.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".model.err"))
        .collect();
    assert_eq!(errs.len(), 1);
    let text = std::fs::read_to_string(&errs[0]).unwrap();
    assert!(text.contains("Line: 15"), "{text}");
}

/// `psychic replay` feeds a test's command line and stdin to the program.
#[test]
fn replay_feeds_the_command_line_and_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = fixture("sscanf_arg.c");
    let o = psychic(tmp.path(), &["run", &prog, "--output-dir", "out", "--", "--sym-arg", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut replayed = 0;
    for e in std::fs::read_dir(tmp.path().join("out")).unwrap() {
        let ktest = e.unwrap().path();
        if ktest.extension().is_none_or(|x| x != "ktest") {
            continue;
        }
        let want = std::fs::read(ktest.with_extension("stdout")).unwrap_or_default();
        let r = psychic(tmp.path(), &["replay", &prog, ktest.to_str().unwrap()]);
        assert_eq!(String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&want), "{}", ktest.display());
        replayed += 1;
    }
    assert_eq!(replayed, 6);
}

/// A fuzz input's stdin text as a seed of a byte-mode run, as diff-patches
/// hands it over (`posix::SeedShape`): its objects are those the engine
/// makes, and the engine follows it first, so its first test takes the
/// seed's branch and replays natively to what the program prints on it.
#[test]
fn a_fuzz_text_seeds_a_byte_mode_run() {
    let tmp = tempfile::tempdir().unwrap();
    let words: Vec<String> = ["--sym-stdin", "10", "--stdin-model", "bytes"].map(String::from).to_vec();
    let shape = psychic::posix::seed_shape(&words).expect("byte-mode stdin takes seeds");
    let seed = KTest { objects: shape.objects(Vec::new(), b"-73\n"), ..KTest::default() };
    seed.write(&tmp.path().join("seed.ktest")).unwrap();
    let prog = fixture("seed_number.c");
    let mut args = vec!["run", &prog, "--output-dir", "out", "--seed-file", "seed.ktest"];
    args.extend(["--max-instructions", "10000", "--"]);
    args.extend(words.iter().map(String::as_str));
    let o = psychic(tmp.path(), &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = tmp.path().join("out/test000001.ktest");
    let made = KTest::read(&first).unwrap();
    let shape_of = |k: &KTest| k.objects.iter().map(|o| (o.name.clone(), o.bytes.len())).collect::<Vec<_>>();
    assert_eq!(shape_of(&made), shape_of(&seed), "the seed's objects are not the engine's");
    assert_eq!(std::fs::read_to_string(first.with_extension("stdout")).unwrap(), "the seed's\n");
    let r = psychic(tmp.path(), &["replay", &prog, first.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "the seed's\n");
}

/// Output is compared as the bytes it prints: printf("%c") and putchar of
/// the same byte, or a %c argument that differs above its low byte, are
/// alike, with no candidate that native replay would refute.
#[test]
fn printed_bytes_not_the_way_they_are_printed() {
    let files = ["diff/char_out.c", "diff/char_out_putchar.c", "diff/char_out_wide.c", "diff/char_out_off.c"];
    let (r, dir) = diff_patches(&files, &["--sym-stdin", "2"]);
    assert_eq!(r.clusters, vec![vec![0, 1, 2], vec![3]]);
    assert_eq!(r.stats.disagreements, 0, "every candidate replays");
    let bins = natives(&files, dir.path());
    let kt = KTest::read(&dir.path().join("out").join(&r.tests[0].ktest)).unwrap();
    let outs: Vec<Vec<u8>> = bins
        .iter()
        .map(|b| {
            let mut req = psychic::replay::Request::new(b, None, 0);
            req.env = psychic::posix::replay_env(&kt);
            psychic::replay::run(&req).unwrap().stdout
        })
        .collect();
    assert!(outs[0] == outs[1] && outs[1] == outs[2] && outs[2] != outs[3], "{outs:?}");
}
