//! A sample of the IntroClass-style corpus (fixtures/introclass), end to end
//! through the binary: `psychic diff-patches --sym-stdin N` on unmodified
//! programs that read stdin with scanf and fgets must find the true partition,
//! computed here by native runs of every revision's own build on concrete
//! inputs, and every test it reports must replay on those builds to the
//! outcomes it records. benches/introclass.rs runs the whole corpus.

use crate::common;

use std::path::PathBuf;

use common::Verdict;
use common::corpus::{self, Behaviour, Input};

/// Random inputs on top of the exhaustive small ones: enough to tell every
/// different pair of the sample apart (checked by `the_truth_tells_...`).
const RANDOM: usize = 300;

fn psychic() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_psychic"))
}

/// Diff-patches one corpus program under a stdin model and checks it against
/// the native truth; the number of candidates that did not replay.
fn check(name: &str, model: &str) -> u64 {
    let p = corpus::introclass().into_iter().find(|p| p.name == name).unwrap();
    let work = tempfile::tempdir().unwrap();
    let revisions = corpus::revisions(&corpus::introclass_dir(name));
    let bins = corpus::build_all(&revisions, work.path());
    let truth = common::partition(&corpus::behaviours(&bins, &corpus::domain(&p.reads, RANDOM)));
    assert!(
        truth.len() > 1 && truth.iter().any(|c| c.len() > 1),
        "{name}: the sample needs both different and equivalent revisions: {truth:?}"
    );

    let n = if model == "bytes" { p.bytes_stdin } else { p.tokens_stdin }.to_string();
    let flags = ["--sym-stdin", &n, "--stdin-model", model, "--max-time", "100", "--fuzz-stall", "3"];
    let r = corpus::diff_patches(&psychic(), &revisions, &flags, work.path()).unwrap();
    let cmp = Verdict::new(&truth, &r.clusters);
    assert_eq!(cmp.split.len(), 0, "{name}: equivalent revisions split: {:?} vs truth {truth:?}", r.clusters);
    assert_eq!(r.clusters, truth, "{name} ({model}): {cmp:?}");
    let bad = corpus::replay_mismatches(&r, &work.path().join("out"), &bins, &[]);
    assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    r.stats.disagreements
}

#[test]
fn median_scanf_tokens_finds_the_true_partition() {
    assert_eq!(check("median", "tokens"), 0, "candidates that did not replay");
}

#[test]
fn grade_scanf_bytes_finds_the_true_partition() {
    assert_eq!(check("grade", "bytes"), 0, "candidates that did not replay");
}

#[test]
fn syllables_fgets_finds_the_true_partition() {
    assert_eq!(check("syllables", "tokens"), 0, "candidates that did not replay");
}

/// p09 prints its character with putchar where the others use printf's %c.
#[test]
fn checksum_fgets_finds_the_true_partition() {
    assert_eq!(check("checksum", "tokens"), 0, "candidates that did not replay");
}

/// Two programs that print the same bytes, one as text and one through %d:
/// the differentiator must compare "0\n" with "%d\n" by value (the digits
/// spell the argument), or it proposes candidates on every input that then
/// fail to replay (digits' p09 against the others), in both stdin models.
#[test]
fn equal_bytes_printed_two_ways_give_no_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let head = "#include <stdio.h>\nint main(void) {\n    int n;\n    if (scanf(\"%d\", &n) != 1)\n        return 1;\n";
    let texts = [
        format!(
            "{head}    if (n == 0)\n        printf(\"0\\n\");\n    else\n        printf(\"%d\\n\", n);\n    return 0;\n}}\n"
        ),
        format!("{head}    printf(\"%d\\n\", n);\n    return 0;\n}}\n"),
    ];
    let files: Vec<PathBuf> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let f = dir.path().join(format!("r{i}.c"));
            std::fs::write(&f, t).unwrap();
            f
        })
        .collect();
    for model in ["tokens", "bytes"] {
        let args = ["--sym-stdin", "3", "--stdin-model", model];
        let cwd = dir.path().join(model);
        std::fs::create_dir(&cwd).unwrap();
        let r = corpus::diff_patches(&psychic(), &files, &args, &cwd).unwrap();
        assert_eq!(r.clusters, vec![vec![0, 1]], "{model}");
        assert_eq!(r.stats.disagreements, 0, "{model}: candidates that did not replay");
    }
}

/// The truth of the sample tells apart what it must: an input domain too
/// small to show a difference would make a wrong merge look right.
#[test]
fn the_truth_tells_known_different_revisions_apart() {
    let dir = tempfile::tempdir().unwrap();
    for (name, a, b) in [("median", 0, 1), ("checksum", 0, 3), ("syllables", 0, 8), ("grade", 0, 5)] {
        let p = corpus::introclass().into_iter().find(|p| p.name == name).unwrap();
        let revisions = corpus::revisions(&corpus::introclass_dir(name));
        let pair = [revisions[a].clone(), revisions[b].clone()];
        let bins = corpus::build_all(&pair, dir.path());
        let truth = common::partition(&corpus::behaviours(&bins, &corpus::domain(&p.reads, RANDOM)));
        assert_eq!(truth, vec![vec![0], vec![1]], "{name}: revisions {a} and {b} differ");
    }
}

#[test]
fn comparison_counts_wrong_merges_and_splits_in_pairs() {
    let truth = vec![vec![0, 1, 2], vec![3], vec![4]];
    assert!(Verdict::new(&truth, &truth).exact());
    let merged = vec![vec![0, 1, 2], vec![3, 4]];
    assert_eq!(Verdict::new(&truth, &merged), Verdict { merged: vec![(3, 4)], split: vec![] });
    let split = vec![vec![0], vec![1, 2], vec![3], vec![4]];
    assert_eq!(Verdict::new(&truth, &split), Verdict { merged: vec![], split: vec![(0, 1), (0, 2)] });
}

#[test]
fn partition_groups_revisions_by_every_behaviour() {
    let b = |out: &str, status| Behaviour {
        stdout: out.as_bytes().to_vec(),
        exit_status: Some(status),
        signal: None,
        timed_out: false,
    };
    let rows =
        vec![vec![b("1\n", 0), b("2\n", 0)], vec![b("1\n", 0), b("2\n", 1)], vec![b("1\n", 0), b("2\n", 0)]];
    assert_eq!(common::partition(&rows), vec![vec![0, 2], vec![1]]);
}

/// A ktest of a run with `-- 3 --sym-arg 2 --sym-stdin 4` stands for argv
/// ["3", arg00 up to its NUL] and stdin cut to stdin-stat's st_size.
#[test]
fn a_ktest_reads_as_argv_and_stdin() {
    use psychic::ktest::{KTest, Object};
    let mut stat = vec![0u8; 144];
    stat[48..56].copy_from_slice(&2u64.to_le_bytes());
    let obj = |name: &str, bytes: &[u8]| Object { name: name.into(), bytes: bytes.to_vec() };
    let kt = KTest {
        objects: vec![obj("arg00", b"7\0\0"), obj("stdin", b"ab\0\0"), obj("stdin-stat", &stat)],
        ..Default::default()
    };
    let input = Input::from_ktest(&kt, &["3", "--sym-arg", "2", "--sym-stdin", "4"]).unwrap();
    assert_eq!(input, Input { args: vec!["3".into(), "7".into()], stdin: b"ab".to_vec() });
    assert!(Input::from_ktest(&kt, &["--sym-arg", "2", "--sym-arg", "2"]).is_err(), "no arg01");
}
