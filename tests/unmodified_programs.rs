//! Unmodified programs through `psychic diff-patches`: Qi's Fig. 5.1 and 6.1
//! reading their inputs with scanf (fixtures/seeds-scanf) land in their known
//! divergence regions, and a seq-like tool (fixtures/argv/seq) diff-patched
//! with a symbolic argument gives the partition native runs give over every
//! short argument. The reported inputs are checked by native runs of the
//! revisions' own builds, never by psychic's replay.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Verdict;
use common::corpus::{self, Input};
use psychic::ktest::KTest;
use psychic::report::Report;

fn psychic() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_psychic"))
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel)
}

/// The inputs of every test of a report, as their stdin and argv.
fn test_inputs(r: &Report, out: &Path, words: &[&str]) -> Vec<Input> {
    r.tests
        .iter()
        .map(|t| Input::from_ktest(&KTest::read(&out.join(&t.ktest)).unwrap(), words).unwrap())
        .collect()
}

/// What a probe program, reading stdin as the fixture does, prints: the
/// values the fixture computes with.
fn probe(dir: &Path, src: &str, input: &Input) -> Vec<i64> {
    let c = dir.join("probe.c");
    let bin = dir.join("probe");
    if !bin.exists() {
        std::fs::write(&c, src).unwrap();
        let st = Command::new(common::toolchain().clang()).arg("-w").arg(&c).arg("-o").arg(&bin).status();
        assert!(st.unwrap().success());
    }
    let out = corpus::run(&bin, input);
    assert_eq!(out.exit_status, Some(0), "the probe reads {input:?}");
    String::from_utf8(out.stdout).unwrap().split_whitespace().map(|v| v.parse().unwrap()).collect()
}

/// Diff-patches a scanf seed; each test's stdin, checked to tell the two
/// revisions apart natively.
fn seed(name: &str, work: &Path) -> Vec<Input> {
    let revisions = corpus::revisions(&fixture(&format!("seeds-scanf/{name}")));
    let r = corpus::diff_patches(&psychic(), &revisions, &["--sym-stdin", "24"], work).unwrap();
    assert_eq!(r.clusters, vec![vec![0], vec![1]], "{name}");
    assert!(!r.tests.is_empty());
    assert_eq!(r.stats.disagreements, 0);
    let bins = corpus::build_all(&revisions, work);
    assert!(corpus::replay_mismatches(&r, &work.join("out"), &bins, &[]).is_empty());
    let inputs = test_inputs(&r, &work.join("out"), &[]);
    for i in &inputs {
        assert_ne!(corpus::run(&bins[0], i), corpus::run(&bins[1], i), "{name}: {i:?} tells nothing apart");
    }
    inputs
}

#[test]
fn qi_fig5_1_with_scanf_tests_lie_in_the_divergence_region() {
    let work = tempfile::tempdir().unwrap();
    let src = "#include <stdio.h>\nint main(void) { int x, y; if (scanf(\"%d %d\", &x, &y) != 2) return 1;\n\
               printf(\"%d %d\\n\", x % 100, y % 100); return 0; }\n";
    for input in seed("qi-fig5.1", work.path()) {
        let v = probe(work.path(), src, &input);
        let (x, y) = (v[0], v[1]);
        assert!(x + y == 10 && y < 8, "({x}, {y}) from {input:?} is outside x + y == 10, y < 8");
        assert_ne!(x > 4, x - y >= 1, "({x}, {y}): both revisions print the same");
    }
}

#[test]
fn qi_fig6_1_with_scanf_tests_lie_at_zero() {
    let work = tempfile::tempdir().unwrap();
    let src = "#include <stdio.h>\nint main(void) { int v; if (scanf(\"%d\", &v) != 1) return 1;\n\
               printf(\"%d\\n\", v % 1000); return 0; }\n";
    for input in seed("qi-fig6.1", work.path()) {
        assert_eq!(probe(work.path(), src, &input), vec![0], "{input:?}");
    }
}

/// Every argument of up to two bytes over the characters strtol and the
/// patches treat differently.
fn short_words() -> Vec<String> {
    const CHARS: &str = "0123456789 +-x\t";
    let mut words = vec![String::new()];
    for a in CHARS.chars() {
        words.push(a.to_string());
        for b in CHARS.chars() {
            words.push(format!("{a}{b}"));
        }
    }
    words
}

/// `seq [FIRST] LAST` with the concrete words `fixed` before LAST, a
/// symbolic word of up to two bytes: the partition native runs give over
/// every such LAST.
fn check_seq(fixed: &[&str]) {
    let work = tempfile::tempdir().unwrap();
    let revisions = corpus::revisions(&fixture("argv/seq"));
    let bins = corpus::build_all(&revisions, work.path());
    let inputs: Vec<Input> = short_words()
        .iter()
        .map(|w| Input::args(&fixed.iter().copied().chain([w.as_str()]).collect::<Vec<_>>()))
        .collect();
    let truth = common::partition(&corpus::behaviours(&bins, &inputs));
    assert!(truth.len() > 2 && truth.iter().any(|c| c.len() > 1), "{truth:?}");

    let mut words = fixed.to_vec();
    words.extend(["--sym-arg", "2"]);
    let mut flags = vec!["--max-time", "100", "--"];
    flags.extend(&words);
    let r = corpus::diff_patches(&psychic(), &revisions, &flags, work.path()).unwrap();
    assert_eq!(r.clusters, truth, "{fixed:?}: {:?}", Verdict::new(&truth, &r.clusters));
    assert_eq!(r.stats.disagreements, 0);
    let bad = corpus::replay_mismatches(&r, &work.path().join("out"), &bins, &words);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn seq_first_last_with_a_symbolic_last_finds_the_true_partition() {
    check_seq(&["3"]);
}

#[test]
fn seq_last_alone_symbolic_finds_the_true_partition() {
    check_seq(&[]);
}
