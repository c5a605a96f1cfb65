//! The revisions of a captured project: each diff applied with `patch -p1`
//! to a scratch copy of only the files it names, each revision directory
//! read for the units' sources and headers, and every change sorted into a
//! unit's (kept), a header's (kept where one unit includes it from beside
//! itself, refused elsewhere) or another file's (ignored, noted).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Capture, ProjectError, Revisions, Touched};
use crate::unify::{RevisionSource, decode};

/// The files of the program, and what a revision's change to one of them means.
struct Program<'a> {
    name: &'a Path,
    tree: &'a Path,
    sources: BTreeSet<&'a Path>,
    /// Each header a unit includes, with the units (their sources) that do.
    headers: BTreeMap<&'a Path, Vec<&'a Path>>,
}

impl Program<'_> {
    /// Sorts the change of revision `origin` to `file` (`new`: its text, or
    /// `None` when the revision deletes it) into `mine` or `notes`.
    fn classify(
        &self,
        origin: &Path,
        file: &Path,
        new: Option<Vec<u8>>,
        mine: &mut BTreeMap<PathBuf, Vec<u8>>,
        notes: &mut Vec<String>,
    ) -> Result<(), ProjectError> {
        let show = || file.display().to_string();
        if self.sources.contains(file) {
            let new = new
                .ok_or_else(|| ProjectError::DeletesUnit { revision: origin.to_path_buf(), file: show() })?;
            mine.insert(file.to_path_buf(), new);
        } else if let Some(units) = self.headers.get(file) {
            let refused = || ProjectError::TouchesHeader {
                revision: origin.to_path_buf(),
                file: show(),
                units: units.iter().map(|u| u.display().to_string()).collect::<Vec<_>>().join(", "),
            };
            // Its meta file can stand in only where the unit finds it first:
            // beside the unit's source, the first place a quoted name is
            // looked for (gnulib's regex.c includes regexec.c so).
            let [unit] = units[..] else { return Err(refused()) };
            if !includes_beside(self.tree, unit, file) {
                return Err(refused());
            }
            let new = new
                .ok_or_else(|| ProjectError::DeletesUnit { revision: origin.to_path_buf(), file: show() })?;
            mine.insert(file.to_path_buf(), new);
        } else {
            notes.push(format!(
                "{}: ignored its change to {}, which no unit of {} compiles or includes",
                origin.display(),
                show(),
                self.name.display()
            ));
        }
        Ok(())
    }
}

/// Every unit some revision changes, with its text in each revision:
/// revision 0 is the tree's, revision k the k-th of `diffs` then `rev_dirs`.
/// Each diff applies with -p1 at the project and may touch several files; a
/// revision directory is a whole patched tree, of which the units' sources
/// and the headers they include are read.
pub fn revisions(c: &Capture, diffs: &[PathBuf], rev_dirs: &[PathBuf]) -> Result<Revisions, ProjectError> {
    if diffs.is_empty() && rev_dirs.is_empty() {
        return Err(ProjectError::NoRevisions { program: c.program.clone() });
    }
    let mut program =
        Program { name: &c.program, tree: &c.tree, sources: BTreeSet::new(), headers: BTreeMap::new() };
    for u in &c.units {
        program.sources.insert(&u.source);
        for h in &u.headers {
            program.headers.entry(h.as_path()).or_default().push(&u.source);
        }
    }
    let read = |p: &Path| std::fs::read(p).map_err(|e| ProjectError::io(p, "reading a revision", e));
    // For each revision after the original: the unit sources it changes.
    let mut changed: Vec<BTreeMap<PathBuf, Vec<u8>>> = Vec::new();
    let mut notes = Vec::new();
    for d in diffs {
        let mut mine = BTreeMap::new();
        for (file, new) in apply_diff(&c.tree, d)? {
            program.classify(d, &file, new, &mut mine, &mut notes)?;
        }
        changed.push(mine);
    }
    for r in rev_dirs {
        if !r.is_dir() {
            return Err(ProjectError::NoRevisionDir { dir: r.clone() });
        }
        let mut mine = BTreeMap::new();
        for s in &program.sources {
            let new = r.join(s).is_file().then(|| read(&r.join(s))).transpose()?;
            if new.as_deref() != Some(&read(&c.tree.join(s))?[..]) {
                program.classify(r, s, new, &mut mine, &mut notes)?;
            }
        }
        // A header the directory lacks is taken to be one configure makes.
        for h in program.headers.keys().filter(|h| !program.sources.contains(*h)) {
            if r.join(h).is_file() {
                let new = read(&r.join(h))?;
                if new != read(&c.tree.join(h))? {
                    program.classify(r, h, Some(new), &mut mine, &mut notes)?;
                }
            }
        }
        changed.push(mine);
    }
    let mut touched = Vec::new();
    for (i, u) in c.units.iter().enumerate() {
        // The unit's source first, then the files it includes.
        for file in std::iter::once(&u.source).chain(&u.headers) {
            if !changed.iter().any(|m| m.contains_key(file)) {
                continue;
            }
            let orig_path = c.tree.join(file);
            let orig = read(&orig_path)?;
            let source = |index: usize, path: PathBuf, bytes: &[u8]| RevisionSource {
                index,
                name: format!("rev{index}:{}", file.display()),
                path,
                text: decode(bytes),
            };
            let mut sources = vec![source(0, orig_path.clone(), &orig)];
            for (k, m) in changed.iter().enumerate() {
                let path = match diffs.get(k) {
                    Some(d) => d.clone(),
                    None => rev_dirs[k - diffs.len()].join(file),
                };
                sources.push(source(k + 1, path, m.get(file).map_or(&orig[..], |b| &b[..])));
            }
            touched.push(Touched { unit: i, file: file.clone(), sources });
        }
    }
    Ok(Revisions { touched, notes })
}

/// Whether the unit of `source` includes `file` by a quoted name from the
/// directory they share (`#include "regexec.c"`), where it looks first.
fn includes_beside(tree: &Path, source: &Path, file: &Path) -> bool {
    let (Some(name), true) = (file.file_name(), file.parent() == source.parent()) else { return false };
    let Ok(text) = std::fs::read(tree.join(source)) else { return false };
    let quoted = format!("\"{}\"", name.to_string_lossy());
    String::from_utf8_lossy(&text).lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix('#').is_some_and(|d| {
            let d = d.trim_start();
            d.strip_prefix("include").is_some_and(|rest| rest.trim() == quoted)
        })
    })
}

/// A file a revision changes, relative to the tree, with its new text
/// (`None`: the revision deletes it).
type Change = (PathBuf, Option<Vec<u8>>);

/// The files `diff` changes (relative to the tree) with their new text
/// (`None`: deleted): `patch -p1` on a scratch copy of the files it names.
fn apply_diff(tree: &Path, diff: &Path) -> Result<Vec<Change>, ProjectError> {
    let bytes = std::fs::read(diff).map_err(|e| ProjectError::io(diff, "reading the diff", e))?;
    let files = diff_files(diff, &String::from_utf8_lossy(&bytes))?;
    if files.is_empty() {
        return Err(ProjectError::EmptyDiff { diff: diff.to_path_buf() });
    }
    let step = "copying the files the diff changes";
    let scratch = tempfile::tempdir().map_err(|e| ProjectError::io(std::env::temp_dir(), step, e))?;
    for f in &files {
        let (from, to) = (tree.join(f), scratch.path().join(f));
        if from.is_file() {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| ProjectError::io(parent, step, e))?;
            }
            std::fs::copy(&from, &to).map_err(|e| ProjectError::io(&from, step, e))?;
        }
    }
    let diff_abs = std::fs::canonicalize(diff).map_err(|e| ProjectError::io(diff, "reading the diff", e))?;
    // --forward: a diff applied already is a failure, not a reversal.
    let output = Command::new("patch")
        .args(["-p1", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-", "-d"])
        .arg(scratch.path())
        .arg("-i")
        .arg(&diff_abs)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| ProjectError::io(diff, "running `patch -p1` (is GNU patch installed?)", e))?;
    if !output.status.success() {
        let text =
            format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let file = failing_file(&text)
            .unwrap_or_else(|| files.first().expect("a diff that names files").display().to_string());
        return Err(ProjectError::DiffDoesNotApply { diff: diff.to_path_buf(), file, output: text });
    }
    let mut out = Vec::new();
    for f in files {
        let read =
            |p: PathBuf| p.is_file().then(|| std::fs::read(&p).map_err(|e| ProjectError::io(&p, step, e)));
        let old = read(tree.join(&f)).transpose()?;
        let new = read(scratch.path().join(&f)).transpose()?;
        if old != new {
            out.push((f, new));
        }
    }
    Ok(out)
}

/// The files a unified diff names, `-p1` stripped: the names of each
/// `---`/`+++` pair of lines (`/dev/null` for a created or deleted file).
fn diff_files(diff: &Path, text: &str) -> Result<BTreeSet<PathBuf>, ProjectError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeSet::new();
    for pair in lines.windows(2) {
        let (Some(old), Some(new)) = (pair[0].strip_prefix("--- "), pair[1].strip_prefix("+++ ")) else {
            continue;
        };
        for name in [old, new] {
            let name = name.split('\t').next().unwrap_or(name).trim().trim_matches('"');
            if name == "/dev/null" {
                continue;
            }
            let bad = || ProjectError::DiffPath { diff: diff.to_path_buf(), file: name.to_string() };
            let (_, rest) = name.split_once('/').ok_or_else(bad)?;
            let rel = PathBuf::from(rest);
            if rest.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                return Err(bad());
            }
            out.insert(rel);
        }
    }
    Ok(out)
}

/// The file GNU patch failed on, from what it said: the last `patching
/// file` before the first failure, or the file it could not find.
fn failing_file(output: &str) -> Option<String> {
    let mut last = None;
    for line in output.lines() {
        if let Some(f) = line.strip_prefix("patching file ") {
            last = Some(f.trim_matches(['\'', '"']).to_string());
        } else if let Some(f) = line.strip_prefix("|+++ ").or_else(|| line.strip_prefix("|--- ")) {
            let f = f.split('\t').next().unwrap_or(f).trim();
            last = Some(f.split_once('/').map_or(f, |(_, r)| r).to_string());
        } else if line.contains("FAILED")
            || line.contains("can't find file")
            || line.contains("Skipping patch")
        {
            if line.contains("can't find file") {
                continue; // the name follows, in the quoted header
            }
            return last;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_a_diff() {
        let text = "diff --git a/x.c b/x.c\n--- a/src/x.c\t2024-01-01\n+++ b/src/x.c\n@@ -1 +1 @@\n--- a\n+b\n--- /dev/null\n+++ b/new.c\n";
        let files = diff_files(Path::new("p.diff"), text).unwrap();
        assert_eq!(files.into_iter().collect::<Vec<_>>(), [PathBuf::from("new.c"), PathBuf::from("src/x.c")]);
        assert!(matches!(
            diff_files(Path::new("p.diff"), "--- a/../x.c\n+++ b/../x.c\n"),
            Err(ProjectError::DiffPath { .. })
        ));
    }

    #[test]
    fn the_file_patch_failed_on() {
        assert_eq!(
            failing_file("patching file a/f.c\nHunk #1 FAILED at 1.\n1 out of 1 hunk FAILED\n").as_deref(),
            Some("a/f.c")
        );
        let missing = "can't find file to patch at input line 3\nPerhaps you used the wrong -p or --strip option?\nThe text leading up to this was:\n--------------------------\n|--- a/a/g.c\n|+++ b/a/g.c\n--------------------------\nNo file to patch.  Skipping patch.\n";
        assert_eq!(failing_file(missing).as_deref(), Some("a/g.c"));
    }
}
