//! The floating-point ground-truth corpus (`fixtures/float/`): programs over
//! floats and doubles (bands of a unit conversion, rounding to cents,
//! comparison within a tolerance, averages against a threshold, and
//! IntroClass-style grading read with `scanf("%f")`), each with revisions
//! that differ on rare inputs or are equivalent by design.
//!
//! A set's inputs are `klee_make_symbolic` doubles or floats bounded by
//! `klee_assume` (`objects` in its `case.json`), or stdin text (`stdin`). The
//! truth comes from running every revision's own build natively on every
//! input of a bounded domain: grids of `k / den` over ranges, and chosen
//! values (the rare witnesses, signed zeros, subnormals, NaN and infinities
//! where the program admits them). `psychic diff-patches` must find that
//! partition exactly, every test it reports must replay on the revisions'
//! own builds, and none may lie outside the `klee_assume`d bounds.

use crate::common;

use std::path::{Path, PathBuf};

use common::corpus::{self, Input};
use common::handwritten::{self, Case};
use common::truth;
use psychic::ktest::{KTest, Object};

/// The inputs: `klee_make_symbolic` objects, in call order (the domain is
/// every combination of their values), or stdin.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Domain {
    #[serde(default)]
    objects: Vec<Field>,
    stdin: Option<Stdin>,
}

/// The values one number takes: grids and chosen values, as C text.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Field {
    #[serde(default)]
    name: String,
    /// `double` or `float` (objects only).
    #[serde(default, rename = "type")]
    ty: String,
    #[serde(default)]
    grids: Vec<Grid>,
    #[serde(default)]
    values: Vec<String>,
}

/// `k / den` for every k with `lo <= k / den <= hi`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    lo: i64,
    hi: i64,
    den: i64,
}

/// Stdin: every combination of the fields' texts, joined by `sep`, ended by
/// `end`; then the `extra` texts as they are.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Stdin {
    fields: Vec<Field>,
    sep: String,
    end: String,
    #[serde(default)]
    extra: Vec<String>,
}

impl Field {
    fn texts(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .grids
            .iter()
            .flat_map(|g| {
                // Rust prints the shortest text that reads back as the same
                // double, and k / den is the double nearest the rational.
                (g.lo * g.den..=g.hi * g.den).map(move |k| format!("{}", k as f64 / g.den as f64))
            })
            .collect();
        out.extend(self.values.iter().cloned());
        out
    }

    /// The object's bytes for each value: the C text read as C reads it
    /// (correctly rounded, to a float directly for a `float`).
    fn objects(&self) -> Vec<Vec<u8>> {
        self.texts()
            .iter()
            .map(|t| match self.ty.as_str() {
                "double" => t.parse::<f64>().unwrap_or_else(|e| panic!("{t}: {e}")).to_le_bytes().to_vec(),
                "float" => t.parse::<f32>().unwrap_or_else(|e| panic!("{t}: {e}")).to_le_bytes().to_vec(),
                other => panic!("{}: type {other:?}, not double or float", self.name),
            })
            .collect()
    }
}

/// Every combination of one item of each list, the last varying fastest.
fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    lists.iter().fold(vec![Vec::new()], |acc, list| {
        acc.iter()
            .flat_map(|prefix| {
                list.iter().map(move |x| {
                    let mut v = prefix.clone();
                    v.push(x.clone());
                    v
                })
            })
            .collect()
    })
}

/// A set's revisions, its true partition and what it takes to check a report.
struct Set {
    case: Case<Domain>,
    revisions: Vec<PathBuf>,
    /// Native behaviour, `[revision][input]`, as comparable text.
    rows: Vec<Vec<String>>,
    partition: Vec<Vec<usize>>,
    /// The revisions' own builds (stdin sets), in `_work`.
    bins: Vec<PathBuf>,
    _work: tempfile::TempDir,
}

fn set_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/float").join(name)
}

impl Set {
    /// The set with its truth, computed once per test process.
    fn load(name: &'static str) -> std::sync::Arc<Set> {
        common::once_per_process(&format!("float/{name}"), || Set::run(name))
    }

    fn run(name: &'static str) -> Set {
        let work = tempfile::tempdir().unwrap();
        let dir = set_dir(name);
        let case = Case::<Domain>::load(&dir);
        let revisions = corpus::revisions(&dir);
        let (rows, bins): (Vec<Vec<String>>, Vec<PathBuf>) = match &case.domain.stdin {
            Some(stdin) => {
                let texts: Vec<Vec<String>> = stdin.fields.iter().map(Field::texts).collect();
                let mut inputs: Vec<Input> = product(&texts)
                    .into_iter()
                    .map(|words| Input::stdin(format!("{}{}", words.join(&stdin.sep), stdin.end)))
                    .collect();
                inputs.extend(stdin.extra.iter().map(|s| Input::stdin(s.as_bytes())));
                let bins = corpus::build_all(&revisions, work.path());
                let rows = corpus::behaviours(&bins, &inputs)
                    .into_iter()
                    .map(|r| r.into_iter().map(|b| format!("{b:?}")).collect())
                    .collect();
                (rows, bins)
            }
            None => {
                let domain = ktests(&case.domain.objects);
                let rows = common::native_outcomes(&revisions, &domain);
                let outside =
                    rows[0].iter().position(|o| o.1 == Some(psychic::runtime::STATUS_ASSUME_VIOLATED));
                if let Some(i) = outside {
                    panic!("{name}: input {:?} of the declared domain violates klee_assume", domain[i]);
                }
                (
                    rows.into_iter().map(|r| r.into_iter().map(|o| format!("{o:?}")).collect()).collect(),
                    vec![],
                )
            }
        };
        let partition = common::partition(&rows);
        Set { case, revisions, rows, partition, bins, _work: work }
    }
}

fn ktests(objects: &[Field]) -> Vec<KTest> {
    let values: Vec<Vec<Vec<u8>>> = objects.iter().map(Field::objects).collect();
    product(&values)
        .into_iter()
        .map(|bytes| KTest {
            args: vec!["prog".into()],
            objects: objects
                .iter()
                .zip(bytes)
                .map(|(f, bytes)| Object { name: f.name.clone(), bytes })
                .collect(),
            ..KTest::default()
        })
        .collect()
}

const SETS: &[&str] = &["thermo", "cents", "near", "average", "grade", "miles"];

/// The truth of every set is worth checking: revisions that differ, and
/// revisions of different text that do not (an equivalence psychic must not
/// split); some difference is rare (some pair of clusters differs on at
/// most 1% of the inputs); and every patch that its header says differs
/// (or is equivalent) does so on the domain.
#[test]
fn every_set_has_differences_and_equivalences_in_its_domain() {
    // Its native runs would take the cores a budget-judged set needs.
    let _turn = handwritten::one_at_a_time();
    handwritten::assert_listed(&set_dir(""), SETS);
    for &name in SETS {
        let set = Set::load(name);
        let diffs = handwritten::cluster_differences(&set.rows, &set.partition);
        let inputs = set.rows[0].len();
        eprintln!(
            "{name}: {inputs} inputs, truth {:?}, differing inputs per cluster pair {diffs:?}",
            set.partition
        );
        handwritten::assert_worth_checking(name, &set.revisions, &set.partition);
        assert!(
            diffs.iter().any(|&(_, n)| n * 100 <= inputs),
            "{name}: no rare difference (each pair differs on over 1% of {inputs} inputs): {diffs:?}"
        );
    }
}

/// `psychic diff-patches` on one set: (a) the true partition, (b) every
/// reported test replays on the revisions' own builds, with no candidate
/// refuted, (c) no test outside the `klee_assume`d bounds.
fn check(name: &'static str) {
    let _turn = handwritten::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let set = Set::load(name);
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let flags: Vec<&str> = set.case.args.iter().map(String::as_str).collect();
    let report = corpus::diff_patches(&psychic, &set.revisions, &flags, work.path()).unwrap();
    let out = work.path().join("out");
    let bad = if set.case.domain.stdin.is_some() {
        corpus::replay_mismatches(&report, &out, &set.bins, &[])
    } else {
        truth::replay_mismatches(&report, &out, &set.revisions)
    };
    let by = |e: psychic::report::FoundBy| report.tests.iter().filter(|t| t.found_by == e).count();
    let fuzzing = report.stats.fuzzing.clone().unwrap_or_default();
    // The figures of fixtures/float/README.md.
    eprintln!(
        "{name}: clusters {:?}, tests sym/fuzz/enum {}/{}/{}, {:.1} s; fuzz inputs the engine took {} \
         ({} states, {} paths)",
        report.clusters,
        by(psychic::report::FoundBy::Symbolic),
        by(psychic::report::FoundBy::Fuzzing),
        by(psychic::report::FoundBy::Enumeration),
        report.stats.seconds.total,
        fuzzing.engine_seeds,
        fuzzing.engine_states,
        fuzzing.engine_paths
    );
    handwritten::assert_exact(name, &report, &set.partition, &bad);
}

#[test]
fn cents_rounding() {
    check("cents");
}

#[test]
fn near_equality_within_a_tolerance() {
    check("near");
}

#[test]
fn thermo_bands_of_a_conversion() {
    check("thermo");
}

/// The differential queries over the float sums time out; native
/// differential fuzzing (`src/fuzz`) finds both rare differences within the
/// budget.
#[test]
fn average_against_a_threshold() {
    check("average");
}

#[test]
fn grade_scanf_f() {
    check("grade");
}

#[test]
fn miles_scanf_lf() {
    check("miles");
}
