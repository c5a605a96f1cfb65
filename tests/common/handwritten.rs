//! Checks shared by the hand-written ground-truth corpora (`fixtures/float/`,
//! `fixtures/hard/`): patch sets whose every patch says in its header
//! comment whether it "differs" or is "Equivalent", with the true partition
//! from native runs over a declared domain.

use std::path::{Path, PathBuf};

use psychic::report::Report;

use super::Verdict;

/// A set's `case.json`: the flags of `diff-patches` and the domain, which
/// each corpus declares in its own way (`D`).
pub struct Case<D> {
    /// What the set checks (documentation only).
    pub why: String,
    /// Flags of `psychic diff-patches`.
    pub args: Vec<String>,
    pub domain: D,
}

impl<D: serde::de::DeserializeOwned> Case<D> {
    /// Reads `dir/case.json`: `why`, `args`, and the other fields as the
    /// domain. Not a `#[serde(flatten)]`, which would let the domain's
    /// `deny_unknown_fields` pass a misspelt field.
    pub fn load(dir: &Path) -> Case<D> {
        let path = dir.join("case.json");
        let parse = || -> Result<Case<D>, String> {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let mut fields: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let mut take = |key: &str| fields.remove(key).ok_or(format!("no `{key}`"));
            let why = serde_json::from_value(take("why")?).map_err(|e| format!("why: {e}"))?;
            let args = serde_json::from_value(take("args")?).map_err(|e| format!("args: {e}"))?;
            let domain = serde_json::from_value(fields.into()).map_err(|e| e.to_string())?;
            Ok(Case { why, args, domain })
        };
        parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
}

/// Every directory of `dir` is a set of `sets`, and every set has one (a
/// set added to the corpus but not to the tests shows here).
pub fn assert_listed(dir: &Path, sets: &[&str]) {
    let mut seen = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            let name = e.file_name().into_string().unwrap();
            assert!(sets.contains(&name.as_str()), "{}/{name} is not in SETS", dir.display());
            seen.insert(name);
        }
    }
    assert_eq!(seen.len(), sets.len(), "a set of SETS has no directory in {}", dir.display());
}

/// Per pair of clusters, on how many inputs their first revisions differ
/// (`rows[revision][input]`).
pub fn cluster_differences<T: PartialEq>(
    rows: &[Vec<T>],
    partition: &[Vec<usize>],
) -> Vec<((usize, usize), usize)> {
    let reps: Vec<usize> = partition.iter().map(|c| c[0]).collect();
    let mut out = Vec::new();
    for (i, &a) in reps.iter().enumerate() {
        for &b in &reps[i + 1..] {
            let n = rows[a].iter().zip(&rows[b]).filter(|(x, y)| x != y).count();
            out.push(((a, b), n));
        }
    }
    out
}

/// The truth is worth checking: revisions that differ, revisions of
/// different text that do not (an equivalence psychic must not split), and
/// every patch that its header says differs (or is equivalent) does so on
/// the domain: a witness missing from the domain shows here, not as a
/// psychic bug.
pub fn assert_worth_checking(name: &str, revisions: &[PathBuf], partition: &[Vec<usize>]) {
    let texts: Vec<String> = revisions.iter().map(|r| std::fs::read_to_string(r).unwrap()).collect();
    assert!(partition.len() >= 2, "{name}: every revision behaves alike: {partition:?}");
    assert!(
        partition.iter().any(|c| c.len() >= 2 && c.iter().any(|&r| texts[r] != texts[c[0]])),
        "{name}: no equivalence to prove: {partition:?}"
    );
    for (r, text) in texts.iter().enumerate().skip(1) {
        let header = &text[..text.find("*/").unwrap()];
        let cluster = partition.iter().find(|c| c.contains(&r)).unwrap();
        if header.contains("Equivalent") {
            assert!(cluster.len() >= 2, "{name}: revision {r} is said to be equivalent, truth {partition:?}");
        } else {
            assert!(header.contains("differs"), "{name}: revision {r}'s header says neither");
            assert!(!cluster.contains(&0), "{name}: revision {r} is said to differ, truth {partition:?}");
        }
    }
}

/// A `diff-patches` report against the truth: every test replays (`bad`
/// lists those that do not), nothing that behaves alike is split, the
/// partition is exact, and no candidate was refuted natively.
pub fn assert_exact(name: &str, report: &Report, partition: &[Vec<usize>], bad: &[String]) {
    assert!(bad.is_empty(), "{name}: tests that do not replay:\n{}", bad.join("\n"));
    let v = Verdict::new(partition, &report.clusters);
    assert!(
        v.split.is_empty(),
        "{name}: psychic told apart {:?} with tests that replay, which the domain has no witness for: \
         add one to case.json",
        v.split
    );
    assert_eq!(
        report.clusters, partition,
        "{name}: merged {:?}; partial: {:?}",
        v.merged, report.stats.partial_reasons
    );
    assert_eq!(report.stats.disagreements, 0, "{name}: candidates that did not replay natively");
}

/// `diff-patches` on a set whose domain is a box of `inputs` inputs that
/// enumeration takes: the true partition, every test replays, and the
/// answer is a proof, not the budget's end. The report, for more checks.
pub fn assert_proved_by_enumeration(
    name: &str,
    revisions: &[PathBuf],
    flags: &[&str],
    partition: &[Vec<usize>],
    inputs: usize,
) -> Report {
    let work = tempfile::tempdir().unwrap();
    let psychic = PathBuf::from(env!("CARGO_BIN_EXE_psychic"));
    let report = super::corpus::diff_patches(&psychic, revisions, flags, work.path()).unwrap();
    let bad = super::truth::replay_mismatches(&report, &work.path().join("out"), revisions);
    assert_exact(name, &report, partition, &bad);
    let e = report.stats.enumeration.as_ref().unwrap_or_else(|| panic!("{name}: no enumeration"));
    assert_eq!(e.in_domain as usize, inputs, "{name}: the box is the domain: {e:?}");
    assert_eq!(e.shortfall(), None, "{name}: {e:?}");
    assert!(!report.stats.partial, "{name}: {:?}", report.stats.partial_reasons);
    for (c, v) in report.clusters.iter().zip(&report.cluster_verdicts) {
        assert!(c.len() == 1 || v.proved_equivalent(), "{name}: {c:?} {v:?}");
    }
    report
}

/// A turn of its own for a set judged within a time budget: the engine and
/// its fuzzer take a core each, and sets run side by side would starve.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}
