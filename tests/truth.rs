//! Ground truth for `diff-patches`: a sample of the generated corpus
//! (`tests/common/truth.rs`; `benches/truth.rs` runs all of it). Each set's
//! clusters must equal the true partition, found by running every revision's
//! own file natively on every input of its domain.

use crate::common;

use common::Verdict;
use common::truth;

/// One set per base, chosen (from `cargo bench --bench truth`) for a short
/// run with several clusters and, where the base has them, revisions that
/// behave alike but differ in text; `triangle#1` has two clusters that differ
/// on one input of 512.
const SAMPLE: &[usize] = &[64, 1, 2, 83, 20, 21, 54, 87, 120, 89, 10, 107, 60, 13, 110, 79];

#[test]
fn sampled_patch_sets_get_their_true_partition() {
    let results = common::par_map(SAMPLE, |&i| {
        let set = truth::patch_set(i);
        let dir = tempfile::tempdir().unwrap();
        let files = set.write(dir.path());
        let t = truth::ground_truth(&set, &files);
        let run = truth::diff_patches(&files, dir.path(), &[]);
        let v = Verdict::new(&t.partition, &run.report.clusters);
        assert!(truth::tests_in_domain(&run.report, &t.domain), "{}: a test outside the domain", set.name);
        (set.name, t.partition, run.report.clusters, v)
    });
    let mut failures = Vec::new();
    for (name, truth, found, v) in &results {
        // A split of revisions that behave alike would be a soundness bug.
        assert!(v.split.is_empty(), "{name}: revisions {:?} behave alike but were split", v.split);
        if !v.exact() {
            failures.push(format!("{name}: true {truth:?}, found {found:?} (merged {:?})", v.merged));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The sample is not trivial: some set has several clusters, and some
    // cluster holds revisions whose text differs.
    assert!(results.iter().any(|r| r.1.len() >= 4));
}

/// One revision prints a value concretely that another prints through a
/// symbolic `printf`: the difference is the value, not the structure of the
/// events, so the test must land where the values differ (here, only one of
/// two inputs; a blind guess would miss it half the time). Printing the same
/// bytes another way (two calls for one, a special case) is no difference.
#[test]
fn concrete_and_symbolic_printing_compare_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let program = |body: &str| {
        format!(
            "#include <stdio.h>\n#include <klee/klee.h>\nint main(void) {{\n    int x;\n    \
             klee_make_symbolic(&x, sizeof x, \"x\");\n    klee_assume(x >= 3 & x <= 4);\n    {body}\n    \
             return 0;\n}}\n"
        )
    };
    let bodies = [
        "printf(\"%d items\\n\", x);",
        "printf(\"%d items\\n\", 3);",
        "printf(\"%d items\\n\", 4);",
        "printf(\"%d\", x);\n    printf(\" items\\n\");",
        "if (x == 3)\n        printf(\"3 items\\n\");\n    else\n        printf(\"%d items\\n\", x);",
        "printf(\"%c items\\n\", '0' + x);",
    ];
    let files: Vec<std::path::PathBuf> = bodies
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let p = dir.path().join(format!("r{k}.c"));
            std::fs::write(&p, program(b)).unwrap();
            p
        })
        .collect();
    let domain: Vec<psychic::ktest::KTest> = (3..=4i32)
        .map(|x| psychic::ktest::KTest {
            objects: vec![psychic::ktest::Object { name: "x".into(), bytes: x.to_le_bytes().to_vec() }],
            ..Default::default()
        })
        .collect();
    let truth = common::native_partition(&files, &domain);
    assert_eq!(truth, vec![vec![0, 3, 4, 5], vec![1], vec![2]]);
    let run = truth::diff_patches(&files, dir.path(), &[]);
    assert_eq!(run.report.clusters, truth);
    assert_eq!(run.report.stats.disagreements, 0, "every candidate confirms");
}

/// More revisions than a state's set once held (256; 257 ended in a panic,
/// then in a refusal): 260 revisions, `x * K % 5` for K = 0..259, every
/// text different, five behaviours (K modulo 5). The clusters must be the
/// partition of their own native builds on every input. A short budget:
/// one test tells all five apart at once, and what scales with the count of
/// revisions (proofs pair by pair) is `cargo bench --bench scale`'s.
#[test]
fn more_than_256_revisions_get_their_true_partition() {
    let dir = tempfile::tempdir().unwrap();
    let (files, domain, truth) = times_k_mod_5(dir.path(), 260, 8, |k| format!("return x * {k} % 5;"));
    let run = truth::diff_patches(&files, dir.path(), &["--max-time", "15"]);
    assert_eq!(run.report.clusters, truth);
    assert!(truth::tests_in_domain(&run.report, &domain));
}

/// `count` revisions that differ in a constant K = 0..count, x in
/// 0..below, ending in `end(K)`; their inputs, and the partition of their
/// own native builds on them: five classes, K modulo 5.
fn times_k_mod_5(
    dir: &std::path::Path,
    count: i64,
    below: i64,
    end: impl Fn(i64) -> String,
) -> (Vec<std::path::PathBuf>, Vec<psychic::ktest::KTest>, Vec<Vec<usize>>) {
    use common::mutate::{Domain, Input};
    let files = write_revisions(
        dir,
        (0..count).map(|k| {
            format!(
                "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) {{\n    int x;\n    \
                 klee_make_symbolic(&x, sizeof x, \"x\");\n    klee_assume(x >= 0 & x < {below});\n    {}\n}}\n",
                end(k)
            )
        }),
    );
    let domain = common::mutate::domain(&[Input {
        name: "x",
        width: 4,
        count: 1,
        domain: Domain::Range(0, below - 1),
    }]);
    let truth = common::partition(&common::native_outcomes(&files, &domain));
    assert_eq!(truth.len(), 5, "the fixture's own truth");
    (files, domain, truth)
}

/// Forty revisions `x * K % 5`, K = 0..39, on x in 0..1000 without
/// fuzzing, so without enumeration: every proof is exploration's. Five
/// behaviours (K modulo 5), each a cluster proved equivalent. Revisions
/// alike at a site's end merge there (`merging`), so pairs of one class
/// need no differential query: at most 40 in all, where the pairs within
/// classes alone are 140.
#[test]
fn exploration_proves_forty_revisions_of_five_behaviours() {
    let dir = tempfile::tempdir().unwrap();
    let (files, _, truth) =
        times_k_mod_5(dir.path(), 40, 1000, |k| format!("printf(\"%d\\n\", x * {k} % 5);\n    return 0;"));
    let run = truth::diff_patches(&files, dir.path(), &["--no-fuzz", "--max-time", "120"]);
    assert_eq!(run.report.clusters, truth);
    assert!(
        run.report.cluster_verdicts.iter().all(|v| v.proved_equivalent()),
        "{:?}",
        run.report.cluster_verdicts
    );
    let queries = run.report.stats.query_kinds.differential.queries;
    assert!(queries <= 40, "{queries} differential queries");
}

/// An array of integers bounded element by element is a box of one range
/// per element, which enumeration may run (before, an input of 8 bytes was
/// read as one integer, a box of billions, and one of 12 was no box). The
/// branch on `a[0]` comes first, so that the box is known before the run
/// may stop: under load, fuzzing told revisions 2 and 3 apart and
/// exploration proved 0 and 1 before their path halted, with no box.
#[test]
fn an_array_input_is_enumerated_element_by_element() {
    use common::mutate::{Domain, Input};
    let dir = tempfile::tempdir().unwrap();
    let body = |expr: &str| {
        format!(
            "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) {{\n    int a[2];\n    \
             klee_make_symbolic(a, sizeof a, \"a\");\n    klee_assume(a[0] >= 0 & a[0] < 4);\n    \
             klee_assume(a[1] >= -2 & a[1] < 3);\n    if (a[0] > 1)\n        putchar('+');\n    printf(\"%d\\n\", {expr});\n    return 0;\n}}\n"
        )
    };
    let files = write_revisions(
        dir.path(),
        ["a[0] + a[1]", "a[1] + a[0]", "a[0] - a[1]", "a[0] + a[1] * (a[0] != 3)"].map(body),
    );
    let domain = common::mutate::domain(&[Input {
        name: "a",
        width: 4,
        count: 2,
        domain: Domain::Set(&[-2, -1, 0, 1, 2, 3]),
    }]);
    let truth = common::partition(&common::native_outcomes(&files, &domain));
    assert_eq!(truth, [vec![0, 1], vec![2], vec![3]], "the fixture's own truth");
    let run = truth::diff_patches(&files, dir.path(), &["--max-time", "60"]);
    assert_eq!(run.report.clusters, truth);
    let e = run.report.stats.enumeration.as_ref().expect("enumeration's stats");
    assert_eq!(e.domain, "a[0] in 0..=3, a[1] in -2..=2", "{e:?}");
    // Exploration may settle so small a program before enumeration runs.
    assert_eq!(e.inputs, 20);
    assert!(matches!(e.not_a_proof.as_deref(), None | Some("not run: the run ended first")), "{e:?}");
    assert!(run.report.cluster_verdicts[0].proved_equivalent(), "{:?}", run.report.cluster_verdicts[0]);
}

/// A revision that reads past its array: natively AddressSanitizer aborts
/// it, while enumeration's fuzz build goes on with whatever lies there. Two
/// such revisions that differ only past the read run alike natively and
/// apart in enumeration: those two are in doubt, not the enumeration. The
/// other pairs keep their proofs, and the two are run natively on every
/// input, which proves them equivalent (before, the disagreement voided
/// every proof of the enumeration). The branch on `a[0]` comes first, so
/// that the box is known, and enumeration proves, before exploration ends.
#[test]
fn revisions_that_read_past_an_array_are_rechecked_natively() {
    use common::mutate::{Domain, Input};
    let dir = tempfile::tempdir().unwrap();
    let body = |head: &str, step: &str| {
        format!(
            "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) {{\n    int a[3];\n    \
             klee_make_symbolic(a, sizeof a, \"a\");\n    klee_assume(a[0] >= 0 & a[0] < 4);\n    \
             klee_assume(a[1] >= 0 & a[1] < 4);\n    klee_assume(a[2] >= 0 & a[2] < 4);\n    \
             int s = 0;\n    if (a[0] > 1)\n        s = 10;\n    for (int i = 0; {head}; i++)\n        s += {step};\n    \
             printf(\"%d\\n\", s);\n    return 0;\n}}\n"
        )
    };
    let files = write_revisions(
        dir.path(),
        [
            body("i < 3", "a[i & 3]"),
            body("i <= 2", "a[i & 3]"),
            body("i < 4", "a[i & 3]"),
            body("i < 4", "a[i & 3] + (i == 3)"),
            body("i < 3", "a[i & 3] * 2"),
        ],
    );
    let domain = common::mutate::domain(&[Input {
        name: "a",
        width: 4,
        count: 3,
        domain: Domain::Set(&[0, 1, 2, 3]),
    }]);
    let sanitize = psychic::compile::NativeOptions { sanitize: true, ..Default::default() };
    let truth = common::partition(&common::native_outcomes_as(&files, &domain, &sanitize));
    assert_eq!(truth, [vec![0, 1], vec![2, 3], vec![4]], "the fixture's own truth");
    let run = truth::diff_patches(&files, dir.path(), &["--max-time", "60"]);
    assert_eq!(run.report.clusters, truth);
    let e = run.report.stats.enumeration.as_ref().expect("enumeration's stats");
    assert_eq!((e.inputs, e.not_a_proof.as_deref()), (64, None), "{e:?}");
    let doubtful = e.doubtful.as_deref().unwrap_or_default();
    assert!(
        doubtful.starts_with(
            "no proof by enumeration for revisions 2, 3 ran otherwise in enumeration than natively;"
        ) && doubtful.contains("ran natively on every input"),
        "{e:?}"
    );
    for v in &run.report.cluster_verdicts[..2] {
        assert!(v.proved_equivalent(), "{v:?}");
    }
    assert!(!run.report.stats.partial, "{:?}", run.report.stats.partial_reasons);
}

/// `texts` as the files `r0.c`, `r1.c`, ... in `dir`.
fn write_revisions(
    dir: &std::path::Path,
    texts: impl IntoIterator<Item = String>,
) -> Vec<std::path::PathBuf> {
    texts
        .into_iter()
        .enumerate()
        .map(|(k, text)| {
            let f = dir.join(format!("r{k}.c"));
            std::fs::write(&f, text).unwrap();
            f
        })
        .collect()
}
