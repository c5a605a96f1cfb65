//! The manifest: JSON lines, one patch set a line. A line that is not a
//! set (bad JSON, no `args`, a name taken or unfit for a file name, an
//! output directory of its own) is kept as [`Entry::Invalid`] with what is
//! wrong, so that the other sets still run and the result names the line.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Set { name: String, line: usize, args: Vec<String> },
    Invalid { name: String, line: usize, error: String },
}

impl Entry {
    /// The set's name: its own, or `line-N`.
    pub fn name(&self) -> &str {
        match self {
            Entry::Set { name, .. } | Entry::Invalid { name, .. } => name,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    name: Option<String>,
    args: Vec<String>,
}

/// The sets of `path`, one per line that is not blank (lines from 1).
pub fn read_manifest(path: &Path) -> Result<Vec<Entry>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the manifest", path.display()))?;
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let fallback = format!("line-{line}");
        let entry = match serde_json::from_str::<Line>(raw) {
            Err(e) => Entry::Invalid {
                name: fallback,
                line,
                error: format!(
                    "not a set: {e} (a line is {{\"name\": \"...\", \"args\": [\"orig.c\", \"p1.c\", ...]}})"
                ),
            },
            Ok(l) => {
                let name = l.name.unwrap_or(fallback);
                match problem(&name, &l.args, &taken) {
                    Some(error) => Entry::Invalid { name: format!("line-{line}"), line, error },
                    None => Entry::Set { name, line, args: l.args },
                }
            }
        };
        taken.insert(entry.name().to_string());
        out.push(entry);
    }
    Ok(out)
}

/// What makes a line's set unfit to run, if anything.
fn problem(name: &str, args: &[String], taken: &BTreeSet<String>) -> Option<String> {
    let fit = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'));
    if !fit {
        return Some(format!("name {name:?}: a set's name is a file name: letters, digits and . _ - + only"));
    }
    if taken.contains(name) {
        return Some(format!("name {name:?} is taken by an earlier line"));
    }
    if args.is_empty() {
        return Some(
            "\"args\" is empty: give diff-patches' words (ORIG.c REV.c ..., or --project ...)".into(),
        );
    }
    if let Some(a) = args.iter().find(|a| {
        matches!(a.as_str(), "-o" | "--output-dir") || a.starts_with("--output-dir=") || a.starts_with("-o")
    }) {
        return Some(format!("{a}: the batch gives each set its output directory (OUT/sets/NAME)"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_sets_or_say_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("m.jsonl");
        let text = [
            r#"{"name": "a", "args": ["orig.c", "p1.c"]}"#,
            "",
            r#"{"args": ["orig.c", "p2.c", "--max-time", "5"]}"#,
            r#"{"name": "a", "args": ["x.c"]}"#,
            r#"{"name": "../up", "args": ["x.c"]}"#,
            r#"{"name": "b", "args": ["x.c", "-o", "elsewhere"]}"#,
            r#"{"name": "c", "args": ["x.c"], "extra": 1}"#,
            "not json",
        ]
        .join("\n");
        std::fs::write(&m, text).unwrap();
        let e = read_manifest(&m).unwrap();
        assert_eq!(
            e[0],
            Entry::Set { name: "a".into(), line: 1, args: vec!["orig.c".into(), "p1.c".into()] }
        );
        assert!(matches!(&e[1], Entry::Set { name, line: 3, .. } if name == "line-3"));
        let invalid: Vec<(usize, &str)> = e[2..]
            .iter()
            .map(|x| match x {
                Entry::Invalid { line, error, .. } => (*line, error.as_str()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(invalid.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [4, 5, 6, 7, 8]);
        assert!(invalid[0].1.contains("taken") && invalid[1].1.contains("file name"), "{invalid:?}");
        assert!(
            invalid[2].1.contains("-o")
                && invalid[3].1.contains("extra")
                && invalid[4].1.contains("not a set")
        );
        assert!(read_manifest(&dir.path().join("none.jsonl")).is_err());
    }
}
