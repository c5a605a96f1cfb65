//! The "must not lie" corpus (`fixtures/honesty/`): patch sets where the
//! engine approximates (an unmodelled external call, an
//! unsupported instruction, a path deeper than `--max-depth`, a libc
//! function the engine runs as musl does and the native build as glibc does) or where real
//! C trips the front end (renamed mains that fall off their end,
//! statement-like macros, Latin-1 bytes, uninitialised reads), or where
//! engine and native run once disagreed (an index outside its array) or the
//! engine once approximated and now must be exact (`exact`: input-sized
//! arrays and allocations, float scanf). For each, the truth comes from native runs of
//! every revision's own build on a domain of inputs (`case.json`), and
//! `psychic diff-patches` must either find it or say that its answer is
//! partial, and why; it may never split revisions that behave alike, and
//! every test it reports replays.
//!
//! A binary of its own (`cargo test --release --test honesty`): some cases
//! are exact only within timeouts that tests running beside them, as they
//! would in `tests/suite.rs`, can break (see `check`).

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Verdict;
use common::corpus::{self, Input};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case reproduces (documentation only).
    #[allow(dead_code)]
    why: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    stdin: Vec<String>,
    ints: Option<Ints>,
    /// A kind every partial report of this case must name among its reasons
    /// (`coverage` kinds: concretised, model, external, unsupported, ...).
    #[serde(default)]
    expect_reason: Option<String>,
    /// The engine follows this case exactly: the report must be complete,
    /// and so its clusters the truth.
    #[serde(default)]
    exact: bool,
    /// More clang flags for the revisions' own builds, which give the truth
    /// and replay every test: `-fsanitize=address` where out-of-bounds
    /// accesses must end as they do in psychic's replay build, not read
    /// whatever the stack layout puts there.
    #[serde(default)]
    cflags: Vec<String>,
    /// Seconds a run of the truth may take before it counts as hanging
    /// (default `corpus::TIMEOUT`): cases whose revisions hang keep it short.
    #[serde(default)]
    truth_timeout: Option<f64>,
    /// `diff-patches` must end within this many seconds of wall time: its
    /// `--max-time` plus a few seconds.
    #[serde(default)]
    max_seconds: Option<f64>,
    /// Text that some cluster's "not separated" reasons must contain, where
    /// the report is partial and merges revisions the truth tells apart.
    #[serde(default)]
    verdict_mentions: Option<String>,
}

/// Every `count`-tuple of integers in `lo..=hi`, joined by `sep`, ended by `end`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Ints {
    lo: i64,
    hi: i64,
    count: usize,
    sep: String,
    end: String,
}

impl Case {
    fn read(dir: &Path) -> Case {
        let path = dir.join("case.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn domain(&self) -> Vec<Input> {
        let mut inputs: Vec<Input> = self.stdin.iter().map(|s| Input::stdin(s.as_bytes())).collect();
        if let Some(ints) = &self.ints {
            let mut tuple = vec![ints.lo; ints.count];
            loop {
                let words: Vec<String> = tuple.iter().map(i64::to_string).collect();
                inputs.push(Input::stdin(format!("{}{}", words.join(&ints.sep), ints.end)));
                let Some(i) = tuple.iter().rposition(|&v| v < ints.hi) else { break };
                tuple[i] += 1;
                tuple[i + 1..].fill(ints.lo);
            }
        }
        assert!(!inputs.is_empty(), "a case needs a domain: `stdin` or `ints`");
        inputs
    }
}

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/honesty").join(name)
}

/// Runs one case; panics with what psychic got wrong. `float-scanf` runs
/// alone: it is exact only if a merge query of about 1.5 s finishes within
/// the first merge timeout (2 s), which a case running beside it can break.
fn check(name: &str) {
    static ROOM: std::sync::RwLock<()> = std::sync::RwLock::new(());
    let _alone = (name == "float-scanf").then(|| ROOM.write().unwrap_or_else(|e| e.into_inner()));
    let _shared = (name != "float-scanf").then(|| ROOM.read().unwrap_or_else(|e| e.into_inner()));
    let dir = case_dir(name);
    let case = Case::read(&dir);
    let work = tempfile::tempdir().unwrap();
    let revisions = corpus::revisions(&dir);
    let bins = corpus::build_all_with(&revisions, work.path(), &case.cflags);
    let timeout = case.truth_timeout.map_or(corpus::TIMEOUT, Duration::from_secs_f64);
    let truth = common::partition(&corpus::behaviours_within(&bins, &case.domain(), timeout));

    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    // Fuzzing after an unfinished exploration stops 3 s after its corpus
    // last grew, not 10: the cases are about what the engine says.
    let flags: Vec<&str> = case.args.iter().map(String::as_str).chain(["--fuzz-stall", "3"]).collect();
    let started = Instant::now();
    let r = corpus::diff_patches(&psychic, &revisions, &flags, work.path()).unwrap();
    let took = started.elapsed().as_secs_f64();
    if let Some(max) = case.max_seconds {
        assert!(took <= max, "{name}: diff-patches took {took:.1} s, more than {max} s ({flags:?})");
    }
    let cmp = Verdict::new(&truth, &r.clusters);
    assert!(
        cmp.split.is_empty(),
        "{name}: revisions that behave alike were split: {:?}, truth {truth:?}",
        r.clusters
    );
    assert!(
        !(case.exact && r.stats.partial),
        "{name}: an exact case got a partial report: {:?}",
        r.stats.partial_reasons
    );
    if r.stats.partial {
        assert!(!r.stats.partial_reasons.is_empty(), "{name}: a partial report must say why");
        if let Some(text) = &case.verdict_mentions
            && r.clusters != truth
        {
            let reasons: Vec<&String> = r.cluster_verdicts.iter().flat_map(|v| &v.reasons).collect();
            assert!(
                reasons.iter().any(|w| w.contains(text.as_str())),
                "{name}: no cluster's reasons mention {text:?}: {reasons:?}"
            );
        }
        if let Some(kind) = &case.expect_reason
            && r.clusters != truth
        {
            assert!(
                r.coverage.kinds().any(|k| k.name() == kind),
                "{name}: the report misses the {kind} approximation that hides a difference: {:?}",
                r.stats.partial_reasons
            );
        }
    } else {
        assert_eq!(r.clusters, truth, "{name}: a complete report with the wrong clusters: {cmp:?}");
    }
    for (cluster, verdict) in r.clusters.iter().zip(&r.cluster_verdicts) {
        if verdict.proved_equivalent() {
            assert!(
                truth.contains(cluster),
                "{name}: {cluster:?} proved equivalent, but the truth is {truth:?}"
            );
        }
    }
    // A candidate that does not replay is a place where engine and binary
    // disagree: every kind met so far has a case here, and none may come back.
    assert_eq!(r.stats.disagreements, 0, "{name}: candidates that did not replay natively");
    let bad = corpus::replay_mismatches_within(&r, &work.path().join("out"), &bins, &[], timeout);
    assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
}

macro_rules! cases {
    ($($test:ident => $dir:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($dir);
            }
        )*

        /// Every case directory has its test.
        #[test]
        fn every_case_is_run() {
            let listed = [$($dir),*];
            for e in std::fs::read_dir(case_dir("")).unwrap() {
                let name = e.unwrap().file_name().into_string().unwrap();
                assert!(listed.contains(&name.as_str()), "fixtures/honesty/{name} has no test in tests/honesty.rs");
            }
        }
    };
}

cases! {
    variable_length_array => "vla",
    heap_array_sized_by_input => "malloc",
    zeroed_heap_array_sized_by_input => "calloc",
    heap_array_resized_by_input => "realloc",
    float_scanf => "float-scanf",
    unmodelled_external_call => "external",
    inline_assembly => "inline-asm",
    loop_deeper_than_max_depth => "max-depth",
    renamed_mains_fall_off_their_end => "main-falls-off",
    uninitialised_reads => "uninit",
    latin1_bytes_in_comments_and_strings => "latin1",
    statement_like_macros_as_loop_headers => "macros",
    an_index_outside_its_array => "index-provenance",
    text_printed_before_a_crash => "crash-output",
    printf_result_of_a_symbolic_value => "printf-result",
    two_hangs_that_printed_different_amounts => "hang-output",
    an_output_that_changes_with_memory_garbage => "garbage-output",
    a_patch_behind_an_error_every_input_hits => "patch-behind-error",
    hanging_revisions_under_max_time => "hang-budget",
    a_libc_function_musl_and_glibc_run_otherwise => "musl-departure",
}
