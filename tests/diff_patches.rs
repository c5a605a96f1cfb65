//! `psychic diff-patches` end to end, through the binary: the seed examples of
//! the design note land in their known divergence regions, the demo's clusters
//! equal the native ground truth, odd patch sets work, bad input is refused.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use psychic::ktest::{KTest, Object};
use psychic::report::Report;

fn psychic(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic")).args(args).current_dir(cwd).output().unwrap()
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel).display().to_string()
}

/// Runs diff-patches into a fresh directory and reads its report.
fn diff_patches(files: &[String], extra: &[&str]) -> (Report, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["diff-patches", "--quiet", "-o", "out"];
    args.extend(files.iter().map(String::as_str));
    args.extend(extra);
    let out = psychic(&args, dir.path());
    assert!(out.status.success(), "diff-patches failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), dir)
}

/// The integer input `name` of a test.
fn input(r: &Report, test: usize, name: &str) -> i32 {
    let t = &r.tests[test];
    t.inputs.iter().find(|i| i.name == name).and_then(|i| i.int).unwrap() as i32
}

fn seed(name: &str) -> Vec<String> {
    vec![fixture(&format!("seeds/{name}/orig.c")), fixture(&format!("seeds/{name}/p1.c"))]
}

/// Checks the shape every report must have, and that every ktest exists.
fn check_report(r: &Report, dir: &Path, revisions: usize) {
    assert_eq!(r.revisions.len(), revisions);
    let mut all: Vec<usize> = r.clusters.iter().flatten().copied().collect();
    all.sort();
    assert_eq!(all, (0..revisions).collect::<Vec<_>>(), "clusters cover every revision once");
    for t in &r.tests {
        assert!(dir.join("out").join(&t.ktest).is_file(), "{} exists", t.ktest);
        assert!(t.outcomes.len() >= 2, "a confirmed test tells some revisions apart");
    }
    assert_eq!(r.decision_tree.is_some(), r.clusters.len() > 1);
    for f in ["report.txt", "tree.dot", "meta.c"] {
        assert!(dir.join("out").join(f).is_file(), "{f} exists");
    }
}

#[test]
fn shadow_intro_tests_lie_in_11_to_20() {
    let (r, dir) = diff_patches(&seed("shadow-intro"), &[]);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    for t in 0..r.tests.len() {
        assert!((11..=20).contains(&input(&r, t, "x")));
    }
}

#[test]
fn shadow_fig1_tests_lie_at_7_8_or_wraparound() {
    let (r, dir) = diff_patches(&seed("shadow-fig1"), &[]);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    let foo = |x: i32, new: bool| {
        let y = if new { x.wrapping_add(1) } else { x.wrapping_sub(1) };
        if y > 7 { if x.wrapping_sub(8) < 4 { (0, x == 7) } else { (0, false) } } else { (1, false) }
    };
    for t in 0..r.tests.len() {
        let x = input(&r, t, "x");
        assert!(foo(x, false) != foo(x, true), "x = {x} is outside the divergence region");
    }
}

#[test]
fn qi_examples_tests_lie_in_their_regions() {
    let (r, dir) = diff_patches(&seed("qi-fig4.1"), &[]);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    for t in 0..r.tests.len() {
        assert!((3..=20).contains(&input(&r, t, "x")));
    }

    let (r, dir) = diff_patches(&seed("qi-fig6.1"), &[]);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    for t in 0..r.tests.len() {
        assert_eq!(input(&r, t, "inp1") % 1000, 0);
    }

    let (r, dir) = diff_patches(&seed("qi-fig5.1"), &[]);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    let old = |x: i32, y: i32| if x + y == 10 && y < 8 { if x > 4 { 1 } else { -1 } } else { 0 };
    let new = |x: i32, y: i32| if y < 8 && x + y == 10 { if x - y >= 1 { 1 } else { -1 } } else { 0 };
    for t in 0..r.tests.len() {
        let (x, y) = (input(&r, t, "x") % 100, input(&r, t, "y") % 100);
        assert_ne!(old(x, y), new(x, y), "({x}, {y}) is outside the divergence region");
    }
}

fn demo_files() -> Vec<String> {
    let mut files = vec![fixture("demo/grade.c")];
    files.extend((1..=6).map(|k| fixture(&format!("demo/fix{k}.c"))));
    files
}

#[test]
fn demo_clusters_equal_the_native_ground_truth() {
    let files = demo_files();
    let (r, dir) = diff_patches(&files, &[]);
    check_report(&r, dir.path(), 7);
    let domain: Vec<KTest> = (0..=100i32)
        .map(|s| KTest {
            objects: vec![Object { name: "score".into(), bytes: s.to_le_bytes().to_vec() }],
            ..Default::default()
        })
        .collect();
    let paths: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    assert_eq!(r.clusters, common::native_partition(&paths, &domain));
    assert_eq!(r.clusters.len(), 3);
    assert!(!r.stats.partial);
}

/// Doubles printed with %.2f compare by value, exactly against concrete
/// text: the revisions that print "0.12"/"0.13" by a branch on the bits are
/// proved alike or told apart at the tie itself, as the native runs on every
/// double of the domain say, and nothing is approximated.
#[test]
fn printed_doubles_partition_as_natively() {
    let files: Vec<String> = ["orig.c", "p1.c", "p2.c", "p3.c", "p4.c"]
        .iter()
        .map(|f| fixture(&format!("printf-float/{f}")))
        .collect();
    let (r, dir) = diff_patches(&files, &[]);
    check_report(&r, dir.path(), 5);
    let tie = 0.125f64.to_bits();
    let domain: Vec<KTest> = (tie - 128..tie + 128)
        .map(|b| KTest {
            objects: vec![Object { name: "price".into(), bytes: b.to_le_bytes().to_vec() }],
            ..Default::default()
        })
        .collect();
    let paths: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    assert_eq!(r.clusters, common::native_partition(&paths, &domain));
    assert_eq!(r.clusters, vec![vec![0, 2, 3], vec![1], vec![4]]);
    assert!(!r.stats.partial, "{:?}", r.stats);
}

#[test]
fn revisions_that_all_behave_alike_make_one_cluster_and_no_tests() {
    let files =
        vec![fixture("demo/fix1.c"), fixture("demo/fix2.c"), fixture("demo/fix4.c"), fixture("demo/fix5.c")];
    let (r, dir) = diff_patches(&files, &[]);
    check_report(&r, dir.path(), 4);
    assert_eq!(r.clusters, vec![vec![0, 1, 2, 3]]);
    assert!(r.tests.is_empty() && r.decision_tree.is_none());
}

/// 25 revisions: the threshold `score >= k` for k = 70..94; two thresholds
/// behave alike exactly when they are equal, so every revision is its own
/// cluster except the duplicates put in on purpose.
#[test]
fn twenty_five_revisions() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("demo/grade.c")).unwrap();
    let ks: Vec<i32> = (0..25).map(|i| 70 + (i * 7) % 20).collect();
    let files: Vec<String> = ks
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let p = dir.path().join(format!("r{i}.c"));
            std::fs::write(&p, text.replace("if (score > 80)", &format!("if (score >= {k})"))).unwrap();
            p.display().to_string()
        })
        .collect();
    let (r, out) = diff_patches(&files, &[]);
    check_report(&r, out.path(), 25);
    let mut expected: Vec<Vec<usize>> = Vec::new();
    for (i, k) in ks.iter().enumerate() {
        match expected.iter_mut().find(|c| ks[c[0]] == *k) {
            Some(c) => c.push(i),
            None => expected.push(vec![i]),
        }
    }
    assert_eq!(r.clusters, expected);
    assert!(!r.stats.partial);
}

#[test]
fn a_revision_that_does_not_compile_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("demo/grade.c")).unwrap();
    std::fs::write(dir.path().join("broken.c"), text.replace("return 'B';", "return B;")).unwrap();
    let orig = fixture("demo/grade.c");
    let out = psychic(&["diff-patches", "-o", "out", &orig, "broken.c"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("revision 1 (broken.c)") && err.contains("use of undeclared identifier 'B'"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists(), "no output directory is left behind");
}

#[test]
fn a_program_without_symbolic_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 2 + 2); return 0; }\n";
    std::fs::write(dir.path().join("a.c"), src).unwrap();
    std::fs::write(dir.path().join("b.c"), src.replace("2 + 2", "2 * 2")).unwrap();
    let out = psychic(&["diff-patches", "-o", "out", "a.c", "b.c"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no symbolic input"), "{err}");
}

/// Two revisions that differ only in whether a byte of 100 counts, plus a
/// copy of the first: 2^24 paths, never all told apart.
fn slow_patch_set(dir: &Path) -> Vec<String> {
    let src = r#"#include <klee/klee.h>
#include <stdio.h>
int main(void) {
    unsigned char b[24];
    klee_make_symbolic(b, sizeof b, "b");
    int n = 0;
    for (int i = 0; i < 24; i++)
        if (b[i] > 100) n++;
    printf("%d\n", n);
    return 0;
}
"#;
    std::fs::write(dir.join("a.c"), src).unwrap();
    std::fs::write(dir.join("b.c"), src.replace("b[i] > 100", "b[i] >= 100")).unwrap();
    // An equivalent rewrite inside the loop: never told apart, and proved
    // only once every path is explored, so exploration goes on to the budget.
    std::fs::write(dir.join("c.c"), src.replace("b[i] > 100", "b[i] >= 101")).unwrap();
    let [a, b, c] = ["a.c", "b.c", "c.c"].map(|f| dir.join(f).display().to_string());
    vec![a.clone(), a, b, c]
}

/// A budget cut short still yields a complete report that says it is partial.
#[test]
fn max_time_gives_a_valid_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    let (r, out) = diff_patches(&slow_patch_set(dir.path()), &["--max-time", "1"]);
    check_report(&r, out.path(), 4);
    assert!(r.stats.partial, "2^24 paths do not fit in one second");
    assert!(r.stats.partial_reason.as_deref().unwrap_or("").contains("max-time"));
}

/// Ctrl-C stops exploring, keeps the confirmed tests, and writes a partial
/// report.
#[test]
fn interrupt_gives_a_valid_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    let files = slow_patch_set(dir.path());
    let child = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .args(["diff-patches", "--quiet", "-o", "out"])
        .args(&files)
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    // Interrupt once the first difference is confirmed.
    let first = dir.path().join("out/tests/test000001.ktest");
    for _ in 0..1200 {
        if first.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(first.exists(), "a first test within a minute");
    unsafe { libc::kill(child.0.id() as i32, libc::SIGINT) };
    let status = child.0.wait().unwrap();
    assert!(status.success(), "{status}");
    let r: Report =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/report.json")).unwrap()).unwrap();
    check_report(&r, dir.path(), 4);
    assert!(r.stats.partial);
    assert_eq!(r.stats.partial_reasons.first().map(String::as_str), Some("exploration stopped: interrupted"));
    assert_eq!(r.clusters, vec![vec![0, 1, 3], vec![2]], "the difference was found before the interrupt");
    // The rewrite is not proved: paths were left unexplored.
    let v = &r.cluster_verdicts[0];
    assert!(!v.proved_equivalent() && !v.reasons.is_empty(), "{:?}", r.cluster_verdicts);
}

/// Revisions whose difference hides behind a 64-bit multiplicative hash: every
/// differential query is hard for the solver. A running query is cut at the
/// budget, so the whole command ends on time and says why it is partial.
#[test]
fn max_time_holds_while_the_solver_is_busy() {
    let src = r#"#include <stdio.h>
int main(void) {
    unsigned long long a, b;
    if (scanf("%llu %llu", &a, &b) != 2) return 1;
    unsigned long long h = a * b;
    h ^= h >> 29;
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
    if (h % 1000 == 7) printf("lucky\n");
    else printf("%llu\n", h % 10);
    return 0;
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = [("orig.c", src.to_string()), ("p1.c", src.replace(">> 32", ">> 31"))]
        .iter()
        .map(|(name, text)| {
            std::fs::write(dir.path().join(name), text).unwrap();
            dir.path().join(name).display().to_string()
        })
        .collect();
    let started = std::time::Instant::now();
    let (r, out) = diff_patches(&files, &["--sym-stdin", "24", "--max-time", "10"]);
    let took = started.elapsed().as_secs_f64();
    check_report(&r, out.path(), 2);
    assert!(took < 11.0, "--max-time 10 took {took:.1}s");
    if r.clusters.len() == 1 {
        assert!(r.stats.partial, "one cluster without a proof must be partial");
        assert!(
            r.stats.partial_reasons.iter().any(|w| w.contains("max-time")),
            "{:?}",
            r.stats.partial_reasons
        );
    }
}

/// A child process that does not outlive a failing test.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Outputs that only function results show: the revisions print the same,
/// but p1 changes what scale() returns for v = 3 and p2 what move() leaves
/// behind its pointer for k = 3.
#[test]
fn function_outputs_tell_apart_what_stdout_does_not() {
    let files: Vec<String> =
        ["orig.c", "p1.c", "p2.c"].iter().map(|f| fixture(&format!("functions/{f}"))).collect();
    let (r, dir) = diff_patches(&files, &[]);
    check_report(&r, dir.path(), 3);
    assert_eq!(r.clusters, vec![vec![0, 1, 2]], "stdout alone cannot tell them apart");

    let (r, dir) = diff_patches(&files, &["--outputs", "stdout,exit,functions"]);
    check_report(&r, dir.path(), 3);
    assert_eq!(r.clusters, vec![vec![0], vec![1], vec![2]]);
    for t in 0..r.tests.len() {
        let (v, k) = (input(&r, t, "v"), input(&r, t, "k"));
        let alone: Vec<&Vec<usize>> = r.tests[t].outcomes.iter().map(|o| &o.revisions).collect();
        if alone.contains(&&vec![1]) {
            assert_eq!(v, 3, "scale differs only at v = 3");
        }
        if alone.contains(&&vec![2]) {
            assert_eq!(k, 3, "move differs only for n > 2");
        }
        assert!(
            r.tests[t].outcomes.iter().all(|o| o.annotations.iter().any(|a| a.starts_with("ret!scale ")))
        );
    }
    let meta = std::fs::read_to_string(dir.path().join("out/meta.c")).unwrap();
    assert!(meta.contains("scale__psychic_body") && meta.contains("\"arg!move!p\""), "{meta}");
    assert!(!meta.contains("\"arg!move!d\""), "a const pointee is not an output");
}

/// A seed input leads exploration straight to a patch behind 2^20 paths: with
/// the same instruction budget, the run without the seed finds nothing.
/// Without fuzzing, whose inputs would seed the engine too, and depth first:
/// covnew's random choice meets the patch by chance (one path in 39 reaches
/// it).
#[test]
fn seeds_reach_a_deep_patch() {
    let files = vec![fixture("seeding/orig.c"), fixture("seeding/p1.c")];
    let budget = ["--max-instructions", "200000", "--no-fuzz", "--search", "dfs"];
    let (r, _dir) = diff_patches(&files, &budget);
    assert_eq!(r.clusters, vec![vec![0, 1]], "without a seed the budget is too small");

    let seeds = tempfile::tempdir().unwrap();
    let mut b = vec![b'x'];
    b.extend([200u8; 6]);
    b.extend([0u8; 13]);
    KTest { objects: vec![Object { name: "b".into(), bytes: b }], ..Default::default() }
        .write(&seeds.path().join("seed.ktest"))
        .unwrap();
    let seed_dir = seeds.path().display().to_string();
    let mut args = budget.to_vec();
    args.extend(["--seed-dir", &seed_dir]);
    let (r, dir) = diff_patches(&files, &args);
    check_report(&r, dir.path(), 2);
    assert_eq!(r.clusters, vec![vec![0], vec![1]]);
    let b = &r.tests[0].inputs[0].hex;
    assert!(b.starts_with("78"), "the test follows the seed into the patch: b = {b}");
}
