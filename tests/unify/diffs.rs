//! Revisions given as unified diffs: the same meta program as from the patched
//! files, GNU patch's offsets, and hunks that do not apply.

use std::path::{Path, PathBuf};

use psychic::unify::{self, MetaProgram, UnifyError};
use similar::TextDiff;

use super::fidelity::{fixture, fixture_dirs};
use crate::common::mutate::{self, BASES};

fn udiff(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new).unified_diff().context_radius(3).header("a/orig.c", "b/orig.c").to_string()
}

/// The meta program without its header comment, which names the inputs.
fn body(meta: &MetaProgram) -> &str {
    &meta.text[meta.text.find("*/\n").unwrap() + 3..]
}

/// Unifies `revs` from whole files and from diffs, in a temporary directory.
fn both_ways(revs: &[String]) -> (MetaProgram, MetaProgram) {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig.c");
    std::fs::write(&orig, &revs[0]).unwrap();
    let mut files = Vec::new();
    let mut diffs = Vec::new();
    for (k, r) in revs.iter().enumerate().skip(1) {
        let f = dir.path().join(format!("p{k}.c"));
        std::fs::write(&f, r).unwrap();
        files.push(f);
        let d = dir.path().join(format!("p{k}.diff"));
        std::fs::write(&d, udiff(&revs[0], r)).unwrap();
        diffs.push(d);
    }
    let from_files = unify::load(&orig, &files, &[]).unwrap();
    let from_diffs = unify::load(&orig, &[], &diffs).unwrap();
    for (a, b) in from_files.iter().zip(&from_diffs) {
        assert_eq!(a.text, b.text, "{} applied differs from {}", b.name, a.name);
    }
    (unify::unify(&from_files).unwrap(), unify::unify(&from_diffs).unwrap())
}

#[test]
fn unify_from_diffs_equals_unify_from_patched_files() {
    let mut cases: Vec<Vec<String>> = fixture_dirs("seeds")
        .into_iter()
        .chain(fixture_dirs("unify"))
        .map(|d| fixture(&d).files.into_iter().map(|(_, t)| t).collect())
        .collect();
    cases.extend(
        (0..24).map(|seed| mutate::patch_set(BASES[seed as usize % BASES.len()].source, 1000 + seed)),
    );
    for revs in cases {
        let (a, b) = both_ways(&revs);
        assert_eq!(body(&a), body(&b));
        assert_eq!(a.sites, b.sites);
        assert_eq!(a.line_map, b.line_map);
    }
}

#[test]
fn gnu_diff_output_applies() {
    let Ok(out) = std::process::Command::new("diff").arg("--version").output() else { return };
    if !out.status.success() {
        return;
    }
    let f = fixture(&fixture_dirs("unify").into_iter().find(|d| d.ends_with("globals")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let (orig, p2) = (dir.path().join("orig.c"), dir.path().join("p2.c"));
    std::fs::write(&orig, &f.files[0].1).unwrap();
    std::fs::write(&p2, &f.files[2].1).unwrap();
    let diff = std::process::Command::new("diff").arg("-u").arg(&orig).arg(&p2).output().unwrap();
    let d = dir.path().join("p2.diff");
    std::fs::write(&d, &diff.stdout).unwrap();
    let revs = unify::load(&orig, &[], &[d]).unwrap();
    assert_eq!(revs[1].text, f.files[2].1);
}

const ORIG: &str = "int f(int x) {\n    int y = x;\n    y += 1;\n    y *= 2;\n    return y;\n}\n";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn hunks_apply_at_an_offset() {
    let new = ORIG.replace("y *= 2;", "y *= 3;");
    // Made against a file with three more lines on top: every hunk is off by 3.
    let shifted_old = format!("/* a */\n/* b */\n/* c */\n{ORIG}");
    let shifted_new = format!("/* a */\n/* b */\n/* c */\n{new}");
    let dir = tempfile::tempdir().unwrap();
    let orig = write(dir.path(), "orig.c", ORIG);
    let d = write(dir.path(), "late.diff", &udiff(&shifted_old, &shifted_new));
    assert!(std::fs::read_to_string(&d).unwrap().contains("@@ -4,"));
    let revs = unify::load(&orig, &[], &[d]).unwrap();
    assert_eq!(revs[1].text, new);
    // And the other way: ORIG has lines the diff's file lacked.
    let longer = write(dir.path(), "longer.c", &shifted_old);
    let d2 = write(dir.path(), "early.diff", &udiff(ORIG, &new));
    let revs = unify::load(&longer, &[], &[d2]).unwrap();
    assert_eq!(revs[1].text, shifted_new);
}

#[test]
fn a_hunk_that_does_not_apply_names_the_diff_the_hunk_and_the_line() {
    let new = ORIG.replace("y *= 2;", "y *= 3;");
    let diff = udiff(ORIG, &new).replace(" y += 1;", " y += 5;");
    let dir = tempfile::tempdir().unwrap();
    let orig = write(dir.path(), "orig.c", ORIG);
    let d = write(dir.path(), "bad.diff", &diff);
    let err = unify::load(&orig, &[], std::slice::from_ref(&d)).unwrap_err();
    assert!(matches!(err, UnifyError::HunkMismatch { .. }), "{err:?}");
    let msg = err.to_string();
    let header_line = diff.lines().position(|l| l.starts_with("@@")).unwrap() + 1;
    let bad_line = diff.lines().position(|l| l == "     y += 5;").unwrap() + 1;
    let expected = format!(
        "{}:{header_line}:1: hunk @@ -1,6 +1,6 @@ does not apply to {}: line {bad_line} expects `    y += 5;` but {}:3 is `    y += 1;`",
        d.display(),
        orig.display(),
        orig.display()
    );
    assert_eq!(msg, expected);
    assert_eq!(msg.lines().count(), 1);
}

#[test]
fn a_diff_of_several_files_uses_the_one_for_orig() {
    let new = ORIG.replace("y *= 2;", "y *= 3;");
    let other =
        TextDiff::from_lines("a\n", "b\n").unified_diff().header("a/other.c", "b/other.c").to_string();
    let ours =
        TextDiff::from_lines(ORIG, &new).unified_diff().header("a/src/orig.c", "b/src/orig.c").to_string();
    let dir = tempfile::tempdir().unwrap();
    let orig = write(dir.path(), "orig.c", ORIG);
    let d = write(
        dir.path(),
        "git.diff",
        &format!("diff --git a/other.c b/other.c\n{other}diff --git a/src/orig.c b/src/orig.c\n{ours}"),
    );
    assert_eq!(unify::load(&orig, &[], &[d]).unwrap()[1].text, new);
    let only_other = write(dir.path(), "other.diff", &format!("{other}{other}"));
    let err = unify::load(&orig, &[], &[only_other]).unwrap_err().to_string();
    assert!(err.contains("changes 2 files and 0 of them are"), "{err}");
}
