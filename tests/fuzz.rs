//! Native differential fuzzing (`src/fuzz`): the fuzz server runs every
//! revision as the meta program's native build does, and the user's tests
//! (`--tests DIR`) seed it.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::toolchain;
use psychic::compile::NativeOptions;
use psychic::fuzz::server::{CoverageMap, Run, Server, Slot};
use psychic::ktest::{KTest, Object};
use psychic::replay;
use psychic::report::Report;

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo").join(name)
}

/// The meta program of `files` and its native and fuzz builds in `dir`.
fn builds(files: &[PathBuf], dir: &Path) -> (PathBuf, PathBuf, usize) {
    let sources = psychic::unify::load(&files[0], &files[1..], &[]).unwrap();
    let meta = psychic::unify::unify(&sources).unwrap();
    let meta_c = dir.join("meta.c");
    std::fs::write(&meta_c, psychic::unify::encode(&meta.text)).unwrap();
    let (native, fuzz) = (dir.join("meta.native"), dir.join("meta.fuzz"));
    toolchain().native(&meta_c, &native, &NativeOptions::default()).unwrap();
    toolchain().fuzz_server(&meta_c, &fuzz).unwrap();
    (native, fuzz, sources.len())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// What the server reports for a native run of the replay build, its
/// stderr kept or not.
fn as_server_sees(o: &replay::Outcome, stderr: bool) -> Run {
    let status = match (o.exit_status, o.signal) {
        (Some(code), _) => code << 8,
        (None, Some(sig)) => sig,
        (None, None) => panic!("a replay that neither exited nor was killed: {o:?}"),
    };
    Run { status: Some(status), stdout: fnv1a(&o.stdout), stderr: if stderr { fnv1a(&o.stderr) } else { 0 } }
}

/// Each revision of the demo (a grade function and six fixes) on scores
/// inside and outside the assumed domain: the server's status and stdout are
/// the replay build's, run by `psychic replay`'s own code.
#[test]
fn the_fuzz_server_runs_each_revision_as_its_native_build() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = std::iter::once("grade.c".to_string())
        .chain((1..=6).map(|i| format!("fix{i}.c")))
        .map(|f| demo(&f))
        .collect();
    let (native, fuzz, n) = builds(&files, dir.path());
    let map = CoverageMap::new().unwrap();
    let mut server =
        Server::spawn(&fuzz, &[], &map, (0..n).collect(), Duration::from_secs(5), false).unwrap();
    assert_eq!(server.shape, [Slot { name: "score".into(), size: 4 }]);
    assert!(!server.reads_stdin, "the demo reads no stdin");
    let mut kinds = std::collections::BTreeSet::new();
    for score in [-3i32, 0, 69, 70, 79, 80, 81, 85, 89, 90, 100, 101, 12345] {
        let runs = server.run(&[], &score.to_le_bytes()).unwrap();
        let ktest = dir.path().join("t.ktest");
        let objects = vec![Object { name: "score".into(), bytes: score.to_le_bytes().to_vec() }];
        KTest { args: vec!["meta.bc".into()], sym_argvs: 0, sym_argv_len: 0, objects }.write(&ktest).unwrap();
        for (r, run) in runs.iter().enumerate() {
            let outcome = replay::run(&replay::Request::new(&native, Some(&ktest), r)).unwrap();
            assert_eq!(*run, as_server_sees(&outcome, false), "score {score}, revision {r}: {outcome:?}");
            kinds.insert((run.violates_assume(), outcome.stdout.clone()));
        }
    }
    // The check saw outputs that differ and inputs outside the domain.
    assert!(kinds.iter().any(|k| k.0) && kinds.iter().filter(|k| !k.0).count() >= 3, "{kinds:?}");
    // Every revision counted some edges into the shared map.
    let map_bytes = unsafe { std::slice::from_raw_parts(map.as_mut_ptr(), psychic::fuzz::server::MAP_SIZE) };
    assert!(map_bytes.iter().filter(|&&b| b != 0).count() > 10);
}

const WORDS: &str = r#"/* A calculator of one command: "add N", "mul N" or "neg N". */
#include <stdio.h>
#include <string.h>

int main(void) {
    char word[8];
    int n;
    if (scanf("%7s %d", word, &n) != 2)
        return 1;
    if (strcmp(word, "mul") == 0)
        printf("%d\n", n * 3);
    else if (strcmp(word, "neg") == 0)
        printf("%d\n", -n);
    else
        printf("%d\n", n + 3);
    return 0;
}
"#;

/// The calculator and a fix that changes "mul" by 7 only, written in `dir`.
fn calculators(dir: &Path) -> [PathBuf; 2] {
    let orig = dir.join("calc.c");
    let fix = dir.join("fix.c");
    std::fs::write(&orig, WORDS).unwrap();
    std::fs::write(&fix, WORDS.replace("n * 3);", "n == 7 ? 22 : n * 3);")).unwrap();
    [orig, fix]
}

/// The server's runs of every revision on stdin `text`, each checked
/// against the replay build's run on it (its stderr kept or not).
fn run_as_replay_does(server: &mut Server, native: &Path, text: &str, stderr: bool) -> Vec<Run> {
    let runs = server.run(&[], text.as_bytes()).unwrap();
    for (r, run) in runs.iter().enumerate() {
        let mut req = replay::Request::new(native, None, r);
        req.env.stdin = text.as_bytes().to_vec();
        let outcome = replay::run(&req).unwrap();
        assert_eq!(*run, as_server_sees(&outcome, stderr), "{text:?}, revision {r}: {outcome:?}");
    }
    runs
}

/// A stdin program whose fix changes "mul" by 7 only: the server reads the
/// shape (no objects, stdin read), and classes follow the text.
#[test]
fn the_fuzz_server_feeds_stdin_text() {
    let dir = tempfile::tempdir().unwrap();
    let [orig, fix] = calculators(dir.path());
    let (native, fuzz, n) = builds(&[orig, fix], dir.path());
    let map = CoverageMap::new().unwrap();
    let mut server =
        Server::spawn(&fuzz, &[], &map, (0..n).collect(), Duration::from_secs(5), false).unwrap();
    assert!(server.shape.is_empty() && server.reads_stdin);
    for text in ["mul 7\n", "mul 8\n", "neg 7", "add -2", "x"] {
        let runs = run_as_replay_does(&mut server, &native, text, false);
        assert_eq!(runs[0] != runs[1], text == "mul 7\n", "{text:?}: {runs:?}");
    }
}

const SLEEPER: &str = r#"/* Sleeps N ms, then says which revision it is; "-1" never ends. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1)
        return 1;
    while (n < 0)
        ;
    if (n > 0)
        usleep(n * 1000);
    printf("orig %d\n", n);
    return 0;
}
"#;

/// A fuzzing run's limit is ten times the slowest run that ended, at least
/// 50 ms, so that revisions that hang cost little; an input on which every
/// revision ran past it runs again at the full limit. The first input sleeps
/// 300 ms on both revisions, past the 50 ms a fresh server allows: both still
/// end, as their replays do. Then the original hangs where the fix ends.
#[test]
fn an_input_slow_on_every_revision_runs_again_at_the_full_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (orig, fix) = (dir.path().join("sleep.c"), dir.path().join("fix.c"));
    std::fs::write(&orig, SLEEPER).unwrap();
    std::fs::write(&fix, SLEEPER.replace("while (n < 0)", "while (n < -1)").replace("orig", "fix")).unwrap();
    let (native, fuzz, n) = builds(&[orig, fix], dir.path());
    let map = CoverageMap::new().unwrap();
    let mut server =
        Server::spawn(&fuzz, &[], &map, (0..n).collect(), Duration::from_secs(5), false).unwrap();
    let runs = run_as_replay_does(&mut server, &native, "300\n", false);
    assert_ne!(runs[0].stdout, runs[1].stdout, "{runs:?}");
    let runs = server.run(&[], b"-1\n").unwrap();
    assert_eq!(runs[0].status, None, "the original hangs: {runs:?}");
    assert_eq!(runs[1].status, Some(0), "the fix ends: {runs:?}");
}

/// A fix that changes only what the calculator says on stderr (for "neg
/// 7"): the server tells the two apart there when it keeps stderr, as the
/// replay build's runs do, and nowhere when it throws stderr away, as a
/// run that compares stdout does.
#[test]
fn the_fuzz_server_hashes_stderr_when_it_is_compared() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("calc.c");
    let fix = dir.path().join("fix.c");
    let warn = WORDS
        .replace("printf(\"%d\\n\", -n);", "{ fprintf(stderr, \"neg %d\\n\", n); printf(\"%d\\n\", -n); }");
    assert_ne!(warn, WORDS);
    std::fs::write(&orig, &warn).unwrap();
    std::fs::write(&fix, warn.replace("\"neg %d\\n\", n)", "\"neg %d\\n\", n == 7 ? 0 : n)")).unwrap();
    let (native, fuzz, n) = builds(&[orig, fix], dir.path());
    for stderr in [true, false] {
        let map = CoverageMap::new().unwrap();
        let mut server =
            Server::spawn(&fuzz, &[], &map, (0..n).collect(), Duration::from_secs(5), stderr).unwrap();
        for text in ["neg 7\n", "neg 8\n", "mul 7\n"] {
            let runs = run_as_replay_does(&mut server, &native, text, stderr);
            assert_eq!(
                runs[0] != runs[1],
                stderr && text == "neg 7\n",
                "{text:?}, stderr {stderr}: {runs:?}"
            );
        }
    }
}

/// diff-patches on `files` in `dir` with `tests` (name and stdin text each)
/// as `--tests`, stdin of `stdin_len` bytes, and the engine cut off at once
/// (`--max-instructions 1`): the tests are the fuzzer's.
fn fuzz_users_tests(files: &[PathBuf], tests: &[(&str, &str)], stdin_len: &str, dir: &Path) -> Report {
    std::fs::create_dir(dir.join("tests")).unwrap();
    for (name, text) in tests {
        std::fs::write(dir.join("tests").join(name), text).unwrap();
    }
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let flags = [
        "--sym-stdin",
        stdin_len,
        "--tests",
        "tests",
        "--max-instructions",
        "1",
        "--max-time",
        "30",
        "--fuzz-stall",
        "2",
    ];
    common::corpus::diff_patches(&psychic, files, &flags, dir).unwrap()
}

/// `--tests DIR`: a benchmark's test is a seed, and the one that shows the
/// difference becomes a test found by fuzzing, with the engine cut off at
/// once (`--max-instructions 1`).
#[test]
fn the_users_tests_seed_fuzzing() {
    let dir = tempfile::tempdir().unwrap();
    let files = calculators(dir.path());
    let tests = [("1.in", "add 4\n"), ("2.in", "mul 7\n"), ("3.in", "neg 1\n")];
    let report = fuzz_users_tests(&files, &tests, "8", dir.path());
    assert_eq!(report.clusters, [[0], [1]]);
    let found = report.tests.iter().find(|t| t.found_by == psychic::report::FoundBy::Fuzzing);
    let found = found.expect("a test found by fuzzing");
    let ktest = KTest::read(&dir.path().join("out").join(&found.ktest)).unwrap();
    assert_eq!(psychic::posix::replay_env(&ktest).stdin, b"mul 7\n");
    assert_eq!(found.outcomes[0].stdout, "21\n");
}

/// 100,000 lines of "1" on an empty stdin, else the first character 100,000
/// times. The engine's stdin is never empty (`--sym-stdin 1` is one byte),
/// and there the revisions below are alike: without the second loop, which
/// outlasts its budget, it would prove so and end the run, perhaps before
/// the fuzzer's test of the empty stdin is confirmed.
const ONES: &str = r#"#include <stdio.h>

int main(void) {
    int c = getchar();
    if (c == EOF) {
        for (int i = 0; i < 100000; i++)
            printf("1\n");
        return 0;
    }
    for (int i = 0; i < 100000; i++)
        putchar(c);
    return 0;
}
"#;

/// The reports a person reads, on a fuzz-found test of an empty stdin (a
/// ktest with no objects at all) where the revisions print 200,000 and
/// 200,002 bytes: the summary shortens both outputs to their head, length
/// and hash and says the stdin was empty; `report.json` and the page keep
/// them whole; the tree's edges show where the outputs part, not the
/// 200,000 bytes they share.
#[test]
fn long_outputs_and_an_empty_stdin_read_well() {
    let dir = tempfile::tempdir().unwrap();
    let files = [dir.path().join("ones.c"), dir.path().join("more.c")];
    std::fs::write(&files[0], ONES).unwrap();
    std::fs::write(&files[1], ONES.replacen("i < 100000", "i <= 100000", 1)).unwrap();
    let report = fuzz_users_tests(&files, &[("empty.in", "")], "1", dir.path());
    assert_eq!(report.clusters, [[0], [1]]);
    let t = &report.tests[0];
    assert_eq!((t.found_by, t.inputs.len()), (psychic::report::FoundBy::Fuzzing, 0));
    let stdout: Vec<&str> = t.outcomes.iter().map(|o| o.stdout.as_str()).collect();
    assert_eq!(stdout, ["1\n".repeat(100_000), "1\n".repeat(100_001)], "report.json keeps outputs whole");

    let out = dir.path().join("out");
    let text = std::fs::read_to_string(out.join("report.txt")).unwrap();
    assert!(text.contains(&format!("#{} stdin: empty", t.id)), "{text}");
    for s in &stdout {
        let len = if s.len() == 200_000 { "200,000" } else { "200,002" };
        let shown = format!(r#""{}"… ({len} bytes, fnv1a {:016x})"#, r"1\n".repeat(50), fnv1a(s.as_bytes()));
        assert!(text.contains(&shown), "{shown} in {text}");
    }
    assert!(text.len() < 8000, "the summary is {} bytes", text.len());

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("stdin: empty"));
    assert!(html.matches("1\n").count() > 200_000, "the page keeps outputs whole");
    // The edges: one output ends where the other goes on.
    let labels: Vec<String> = html
        .match_indices("class=\"edge-label\"")
        .map(|(i, _)| html[i..].chars().take(300).collect())
        .collect();
    assert_eq!(labels.len(), 2);
    assert!(labels[0].contains("…(end)") && labels[1].contains("…&quot;1\\n&quot;"), "{labels:#?}");
    let dot = std::fs::read_to_string(out.join("tree.dot")).unwrap();
    assert!(dot.contains(r#"label="…(end)""#) && dot.contains(r#"label="…\"1\\n\"""#), "{dot}");
}

/// Hybrid fuzzing, the fuzzer's half: an input its mutations keep seeds the
/// engine while it runs. In `fixtures/hybrid` the rare record (tag 48611, a
/// constant the fuzzer writes) waits behind 2^24 paths the engine explores
/// first, and there the revisions differ on one value in 2^32 (416041631),
/// which only the engine's query finds. The engine alone, depth first, does
/// not get there (a budget of instructions, so that this holds on any
/// machine; the default searcher's covnew meets the tag's branch by chance,
/// as it is the first); with the fuzzer's input it does, and its test replays
/// on each revision's own build, where the inputs next to it give both
/// revisions one outcome.
#[test]
fn fuzzing_leads_the_engine_to_a_rare_record() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hybrid");
    let files = [root.join("orig.c"), root.join("p1.c")];
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let alone = tempfile::tempdir().unwrap();
    let flags = ["--no-fuzz", "--max-instructions", "2000000", "--search", "dfs"];
    let report = common::corpus::diff_patches(&psychic, &files, &flags, alone.path()).unwrap();
    assert_eq!(report.clusters, [[0, 1]], "the engine alone reaches the rare record");

    let dir = tempfile::tempdir().unwrap();
    let report =
        common::corpus::diff_patches(&psychic, &files, &["--max-time", "120", "--search", "dfs"], dir.path())
            .unwrap();
    // What each engine did, should they not meet (a CI run once saw 19
    // paths in 120 s).
    let (st, fuzzing) = (&report.stats, report.stats.fuzzing.as_ref().expect("fuzzing ran"));
    assert_eq!(
        report.clusters,
        [[0], [1]],
        "partial: {:?}; {} instructions, {} paths, {} queries in {:?}; enumeration {:?}; fuzzing {fuzzing:?}",
        st.partial_reasons,
        st.instructions,
        st.paths_completed,
        st.queries,
        st.seconds,
        st.enumeration
    );
    assert!(
        fuzzing.engine_seeds >= 1 && fuzzing.engine_paths >= 1,
        "no fuzz input led the engine: {fuzzing:?}"
    );
    let test = &report.tests[0];
    assert_eq!(test.found_by, psychic::report::FoundBy::Symbolic);
    let int = |name: &str| test.inputs.iter().find(|i| i.name == name).and_then(|i| i.int).unwrap();
    assert_eq!((int("tag"), int("value")), (48611, 416041631));
    let bad = common::truth::replay_mismatches(&report, &dir.path().join("out"), &files);
    assert!(bad.is_empty(), "{bad:#?}");
    let record = |tag: i32, value: i32| KTest {
        objects: vec![
            Object { name: "tag".into(), bytes: tag.to_le_bytes().to_vec() },
            Object { name: "flags".into(), bytes: vec![0; 24] },
            Object { name: "value".into(), bytes: value.to_le_bytes().to_vec() },
        ],
        ..KTest::default()
    };
    let near = [record(48611, 416041630), record(48611, 416041632), record(48612, 416041631)];
    let native = common::native_outcomes(&files, &near);
    assert_eq!(native[0], native[1], "the revisions differ next to the rare value");
}

/// A directory that is not there is an error that names it.
#[test]
fn a_missing_tests_directory_is_an_error() {
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let out = std::process::Command::new(&psychic)
        .args(["diff-patches", "--quiet", "--tests", "/nonexistent/tests"])
        .arg(demo("grade.c"))
        .arg(demo("fix1.c"))
        .arg("-o")
        .arg(tempfile::tempdir().unwrap().path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--tests /nonexistent/tests: cannot read the directory"), "{stderr}");
}

/// Symbolic arguments are fuzzed: with the engine cut off at once
/// (`--max-instructions 1`), the fuzzer must spell the option from the
/// program's strings and find a number past the bound; the test it found
/// replays on the revisions' own builds as the report says.
#[test]
fn symbolic_arguments_are_fuzzed() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz-args");
    let files = [fixture.join("orig.c"), fixture.join("fix.c")];
    let words = ["--sym-arg", "8", "--sym-arg", "2"];
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let mut flags = vec!["--max-instructions", "1", "--max-time", "60", "--fuzz-stall", "20", "--"];
    flags.extend(words);
    let report = common::corpus::diff_patches(&psychic, &files, &flags, dir.path()).unwrap();
    assert_eq!(report.clusters, [[0], [1]]);
    let found = report.tests.iter().find(|t| t.found_by == psychic::report::FoundBy::Fuzzing);
    let ktest =
        KTest::read(&dir.path().join("out").join(&found.expect("a test found by fuzzing").ktest)).unwrap();
    assert_eq!(psychic::posix::replay_env(&ktest).args[0], "--limit");
    let bins: Vec<PathBuf> = files.iter().map(|f| common::native(f, dir.path(), false, &[])).collect();
    let bad = common::corpus::replay_mismatches(&report, &dir.path().join("out"), &bins, &words);
    assert!(bad.is_empty(), "{bad:?}");
}

/// Runs that never end are told apart by the start of what they print, as
/// `seq 18446744073709551617 inf` is by its first line: every revision
/// hangs, the fuzz server compares the first 4096 bytes of runs that ran out
/// of time, and the engine is cut off at once. The rewrite stays with the
/// original, and the test replays on the revisions' own builds as reported.
#[test]
fn hanging_runs_are_told_apart_by_the_start_of_their_output() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz-hang");
    let files = ["orig.c", "fix.c", "same.c"].map(|f| fixture.join(f));
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let flags = [
        "--max-instructions",
        "1",
        "--max-time",
        "60",
        "--fuzz-stall",
        "2",
        "--replay-timeout",
        "1",
        "--",
        "--sym-stdin",
        "1",
    ];
    let report = common::corpus::diff_patches(&psychic, &files, &flags, dir.path()).unwrap();
    assert_eq!(report.clusters, [vec![0, 2], vec![1]]);
    let found = report.tests.iter().find(|t| t.found_by == psychic::report::FoundBy::Fuzzing);
    assert!(found.is_some(), "a test found by fuzzing: {:?}", report.tests);
    let bins: Vec<PathBuf> = files.iter().map(|f| common::native(f, dir.path(), false, &[])).collect();
    let out = dir.path().join("out");
    let bad =
        common::corpus::replay_mismatches_within(&report, &out, &bins, &flags[9..], Duration::from_secs(1));
    assert!(bad.is_empty(), "{bad:?}");
}

/// The program's strings are the fuzzer's dictionary for stdin too: with
/// the engine cut off at once, a line must spell the command `reset` for
/// the revisions to differ. The test replays as reported.
#[test]
fn stdin_words_come_from_the_program_s_strings() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz-words");
    let files = [fixture.join("orig.c"), fixture.join("fix.c")];
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let flags =
        ["--max-instructions", "1", "--max-time", "60", "--fuzz-stall", "20", "--", "--sym-stdin", "8"];
    let report = common::corpus::diff_patches(&psychic, &files, &flags, dir.path()).unwrap();
    assert_eq!(report.clusters, [[0], [1]]);
    let found = report.tests.iter().find(|t| t.found_by == psychic::report::FoundBy::Fuzzing);
    let ktest =
        KTest::read(&dir.path().join("out").join(&found.expect("a test found by fuzzing").ktest)).unwrap();
    let stdin = psychic::posix::replay_env(&ktest).stdin;
    assert!(stdin.split(|&b| b == b'\n').any(|l| l == b"reset"), "{:?}", String::from_utf8_lossy(&stdin));
    let bins: Vec<PathBuf> = files.iter().map(|f| common::native(f, dir.path(), false, &[])).collect();
    let bad = common::corpus::replay_mismatches(&report, &dir.path().join("out"), &bins, &flags[7..]);
    assert!(bad.is_empty(), "{bad:?}");
}
