//! `psychic diff-patches --project` end to end on `fixtures/project/calc/`
//! (several files, a static library made by a sub-make, patches that touch
//! two files, equivalent rewrites). Truth never comes from psychic: every
//! revision is a copy of the fixture with its patch applied, built by its own
//! `make`, and run natively on the tests psychic reports and on a fixed set
//! of inputs; revisions alike on all of them share a cluster. psychic's
//! clusters must be exactly those, and every reported test must replay on
//! those builds as the report says. Each run has a cache of its own
//! (`PSYCHIC_CACHE_DIR`), so the capture is built fresh.

use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use common::corpus::Input;
use common::{calc_project as fixture, listing};
use psychic::ktest::KTest;
use psychic::replay;
use psychic::report::Report;

/// The program's command line: `-v` (or anything else) and a line of stdin.
/// Three bytes reach both differences (`-0`, and `-v` with ` 1`) and let
/// exploration finish in seconds; eight kept it busy for the whole budget
/// (60 s in each run) on paths of the parser that show nothing new.
const WORDS: &[&str] = &["--sym-arg", "2", "--sym-stdin", "3"];
/// A line of stdin alone: an input fuzzing feeds too.
const STDIN: &[&str] = &["--sym-stdin", "3"];

fn patches() -> Vec<PathBuf> {
    let mut p: Vec<PathBuf> = std::fs::read_dir(fixture().join("patches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "diff"))
        .collect();
    p.sort();
    p
}

fn psychic(args: &[OsString], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic"))
        .args(args)
        .current_dir(cwd)
        .env("PSYCHIC_CACHE_DIR", cwd.join("cache"))
        .output()
        .unwrap()
}

/// `diff-patches --project` on the fixture with `revisions` (diffs, or
/// trees), its report and stderr.
fn diff_project(cwd: &Path, revisions: &[String], extra: &[&str], words: &[&str]) -> (Report, String) {
    let mut args: Vec<OsString> =
        ["diff-patches", "--quiet", "-o", "out", "--project"].map(OsString::from).into();
    args.push(fixture().into());
    args.extend(["--program", "calc", "--max-time", "60"].map(OsString::from));
    args.extend(extra.iter().map(OsString::from));
    args.extend(revisions.iter().map(OsString::from));
    args.push("--".into());
    args.extend(words.iter().map(OsString::from));
    let _ = std::fs::remove_dir_all(cwd.join("out"));
    let out = psychic(&args, cwd);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "diff-patches --project failed:\n{stderr}");
    let text = std::fs::read_to_string(cwd.join("out/report.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), stderr)
}

fn diffs(which: &[usize]) -> Vec<String> {
    let all = patches();
    which.iter().flat_map(|&k| ["--diff".to_string(), all[k - 1].display().to_string()]).collect()
}

/// Revision k's own tree and build: the fixture copied into `dir/revK`, the
/// k-th patch applied (none for 0), and `make`.
fn own_build(dir: &Path, k: usize, patch: Option<&Path>) -> PathBuf {
    let tree = dir.join(format!("rev{k}"));
    let ok = |c: &mut Command| {
        let o = c.output().unwrap();
        assert!(o.status.success(), "{c:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    ok(Command::new("cp").arg("-a").arg(fixture()).arg(&tree));
    if let Some(p) = patch {
        ok(Command::new("patch").args(["-p1", "-s", "-i"]).arg(p).current_dir(&tree));
    }
    ok(Command::new("make").arg("-s").current_dir(&tree));
    tree
}

/// What a run did, all of it: stdout, stderr, exit status, signal.
type Run = (Vec<u8>, Vec<u8>, Option<i32>, Option<i32>);

fn run(bin: &Path, input: &Input) -> Run {
    let mut req = replay::Request::new(bin, None, 0);
    req.env.args = input.args.clone();
    req.env.stdin = input.stdin.clone();
    req.timeout = Duration::from_secs(5);
    let o = replay::run(&req).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    assert!(!o.timed_out, "{} hung on {input:?}", bin.display());
    (o.stdout, o.stderr, o.exit_status, o.signal)
}

/// Inputs the truth runs beside the reported tests: every operator, both
/// signs of a quotient, division by zero, nesting past the library's
/// depth, bad characters, with and without `-v`.
fn fixed_inputs() -> Vec<Input> {
    let lines = [
        "",
        "0",
        "7",
        "12",
        "1+2",
        "2*3-4",
        "7/2",
        "(0-7)/2",
        "(0-6)/4",
        "(0-1)/2",
        "8/(0-3)",
        "9/0",
        "-3",
        "-0",
        "--4",
        "2*-3",
        "(((((1)))))",
        "((((1))))",
        "(1",
        "1)",
        "a",
        "1 + 2",
        "0-7/2",
        "4/2/2",
    ];
    let mut out = Vec::new();
    for args in [&[][..], &["-v"][..], &["x"][..]] {
        for l in lines {
            let mut i = Input::args(args);
            i.stdin = format!("{l}\n").into_bytes();
            out.push(i);
        }
    }
    out
}

/// The tests of a report, as the program gets them.
fn reported_inputs(report: &Report, out: &Path) -> Vec<Input> {
    report
        .tests
        .iter()
        .map(|t| {
            let k = KTest::read(&out.join(&t.ktest)).unwrap();
            Input::from_ktest(&k, WORDS).unwrap()
        })
        .collect()
}

/// Clusters of revisions alike on every input, as report.json orders them.
fn truth(bins: &[PathBuf], inputs: &[Input]) -> Vec<Vec<usize>> {
    let rows: Vec<Vec<Run>> = bins.iter().map(|b| inputs.iter().map(|i| run(b, i)).collect()).collect();
    common::partition(&rows)
}

/// Every reported test replays on the revisions' own builds into the
/// classes, stdout, stderr and exit statuses the report says.
fn replay_mismatches(report: &Report, inputs: &[Input], bins: &[PathBuf]) -> Vec<String> {
    let mut bad = Vec::new();
    for (t, input) in report.tests.iter().zip(inputs) {
        let runs: Vec<Run> = bins.iter().map(|b| run(b, input)).collect();
        for o in &t.outcomes {
            for &r in &o.revisions {
                let (stdout, stderr, status, signal) = &runs[r];
                // With --project stderr is behaviour, and the report shows it.
                let shown_stderr = o.stderr.as_deref().map(str::as_bytes);
                if *stdout != o.stdout.as_bytes()
                    || shown_stderr != Some(stderr.as_slice())
                    || *status != o.exit_status
                    || *signal != o.signal
                {
                    bad.push(format!(
                        "test #{} on revision {r}: {:?}, reported {:?}",
                        t.id, runs[r], o.stdout
                    ));
                }
            }
            let first = &runs[o.revisions[0]];
            for other in t.outcomes.iter().filter(|x| !std::ptr::eq(*x, o)) {
                if runs[other.revisions[0]] == *first {
                    bad.push(format!(
                        "test #{}: classes {:?} and {:?} run alike",
                        t.id, o.revisions, other.revisions
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn the_fixture_s_clusters_equal_its_own_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let before = listing(&fixture());
    let (report, stderr) =
        diff_project(tmp.path(), &diffs(&[1, 2, 3, 4, 5, 6, 7]), &["--diagnostics", "gcc"], WORDS);
    assert_eq!(listing(&fixture()), before, "psychic wrote into the project directory");
    let out = tmp.path().join("out");
    // One meta file per touched file, beside the builds, never in the tree:
    // lib/errors.c's beside lib/eval.c's, which includes it.
    let metas =
        ["meta/lib/eval.c", "meta/lib/errors.c", "meta/lib/lex.c", "meta/src/main.c", "meta/src/report.c"];
    for f in metas.iter().chain(&["meta.native"]) {
        assert!(out.join(f).is_file(), "{f} exists");
    }
    let builds = tempfile::tempdir().unwrap();
    let patches = patches();
    let bins: Vec<PathBuf> = (0..=patches.len())
        .map(|k| own_build(builds.path(), k, k.checked_sub(1).map(|i| patches[i].as_path())).join("calc"))
        .collect();
    let reported = reported_inputs(&report, &out);
    let inputs: Vec<Input> = reported.iter().cloned().chain(fixed_inputs()).collect();
    let truth = truth(&bins, &inputs);
    // The fixture's README: division that floors and `-v`'s brackets (1),
    // unary minus (4) and the message of a file eval.c includes (6) differ;
    // the others are rewrites.
    assert_eq!(truth, vec![vec![0, 2, 3, 5, 7], vec![1], vec![4], vec![6]], "the fixture's own truth");
    assert_eq!(report.clusters, truth, "psychic's clusters against the revisions' own builds");
    let bad = replay_mismatches(&report, &reported, &bins);
    assert!(bad.is_empty(), "reported tests do not replay:\n{}", bad.join("\n"));
    // Diagnostics name a touched file in the revision's own tree: a diff's
    // patched text in the output directory, the original's in DIR.
    let located: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("psychic: ") && (l.contains(": warning: ") || l.contains(": note: ")))
        .collect();
    assert!(!located.is_empty(), "no diagnostics:\n{stderr}");
    for l in located {
        let file = tmp.path().join(l.split(':').next().unwrap());
        assert!(file.is_file(), "{l}: no such file");
        let in_tree = file.starts_with(fixture()) || file.starts_with(out.join("revisions"));
        assert!(in_tree && file.extension().is_some_and(|x| x == "c"), "{l}: not a revision's file");
    }
}

#[test]
fn a_later_run_compiles_only_the_touched_units_and_takes_patched_trees() {
    let tmp = tempfile::tempdir().unwrap();
    let patches = patches();
    // 02 touches lib/lex.c, 04 lib/eval.c: src/main.c and src/report.c are
    // compiled from the capture, once.
    let trees: Vec<String> = [2, 4]
        .iter()
        .map(|&k| own_build(tmp.path(), k, Some(&patches[k - 1])).display().to_string())
        .collect();
    let (first, _) = diff_project(tmp.path(), &diffs(&[2, 4]), &[], STDIN);
    assert!(first.stats.fuzzing.is_some(), "fuzzing ran on the project's fuzz build");
    // The builds kept beside a capture, in `TREE.units/`.
    let units = |cache: &Path| -> BTreeMap<PathBuf, (u64, SystemTime)> {
        let kept = |d: &Path| d.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".units"));
        listing(cache).into_iter().filter(|(p, _)| p.parent().is_some_and(kept)).collect()
    };
    let cached = units(&tmp.path().join("cache"));
    let names: Vec<String> =
        cached.keys().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for unit in ["main-", "report-"] {
        for ext in [".bc", ".fuzz.o"] {
            assert!(
                names.iter().any(|n| n.starts_with(unit) && n.ends_with(ext)),
                "the untouched units' builds are kept: {names:?}"
            );
        }
    }
    assert!(!names.iter().any(|n| n.starts_with("eval-") || n.starts_with("lex-")), "{names:?}");
    // Their debug information, where the engine's locations come from, names
    // the project's own files (the module's name stays the copy's: nothing
    // shows it).
    let dir = fixture().canonicalize().unwrap().display().to_string();
    for bc in cached.keys().filter(|p| p.extension().is_some_and(|x| x == "bc")) {
        let bytes = String::from_utf8_lossy(&std::fs::read(bc).unwrap()).into_owned();
        assert!(bytes.contains(&dir), "{}: its debug information does not name {dir}", bc.display());
    }
    let (second, _) = diff_project(tmp.path(), &trees, &[], STDIN);
    assert_eq!(units(&tmp.path().join("cache")), cached, "a later run compiled an untouched unit again");
    assert_eq!(first.clusters, vec![vec![0, 1], vec![2]]);
    assert_eq!(second.clusters, first.clusters);
}

#[test]
fn bad_project_input_is_refused_with_the_file_and_the_step() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut a: Vec<OsString> = vec!["diff-patches".into(), "--project".into(), fixture().into()];
        a.extend(args.iter().map(OsString::from));
        let o = psychic(&a, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!tmp.path().join("psychic-out-1").exists(), "an output directory was left");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = run(&["--diff", "x.diff"]);
    assert!(e.contains("--program"), "{e}");
    let e = run(&["--program", "calc", "--diff", "x.diff", "tree"]);
    assert!(e.contains("tree") && e.starts_with("psychic: error:"), "{e}");
    let bad = tmp.path().join("bad.diff");
    std::fs::write(&bad, "--- a/lib/eval.c\n+++ b/lib/eval.c\n@@ -1,1 +1,1 @@\n-no such line\n+x\n").unwrap();
    let e = run(&["--program", "calc", "--diff", bad.to_str().unwrap()]);
    assert!(e.contains("bad.diff") && e.starts_with("psychic: error:"), "{e}");
    let e = run(&["--program", "nothing", "--diff", bad.to_str().unwrap()]);
    assert!(e.contains("nothing") && e.starts_with("psychic: error:"), "{e}");
}
