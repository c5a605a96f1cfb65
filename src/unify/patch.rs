//! Unified diffs: `diffy` parses them; we apply them the way GNU patch does
//! (each hunk at its line, or at the nearest offset where its old lines match),
//! so that a failure can name the hunk and the line that does not match.

use std::path::Path;

use super::error::UnifyError;

/// ORIG's text with the diff at `diff_path` applied.
pub(crate) fn apply(orig_name: &str, orig: &str, diff_path: &Path, diff: &str) -> Result<String, UnifyError> {
    let (first_line, section) = select_section(orig_name, diff_path, diff)?;
    let patch = diffy::Patch::from_str(section).map_err(|e| {
        let msg = e.to_string();
        // diffy reports a byte offset; turn it into a line of the diff file.
        let byte = msg
            .split("at byte ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .and_then(|n| n.parse::<usize>().ok());
        let line = first_line + byte.map_or(0, |b| section[..b.min(section.len())].matches('\n').count());
        let message = msg.split(": ").skip(1).collect::<Vec<_>>().join(": ");
        UnifyError::DiffSyntax {
            diff: diff_path.to_path_buf(),
            line,
            message: if message.is_empty() { msg } else { message },
        }
    })?;
    let headers = hunk_headers(section);
    let orig_lines: Vec<&str> = orig.split_inclusive('\n').collect();
    // The image being patched; `true` marks lines a hunk produced, which later
    // hunks must not match against.
    let mut image: Vec<(&str, bool)> = orig_lines.iter().map(|l| (*l, false)).collect();
    let mut shift: isize = 0;
    for (i, hunk) in patch.hunks().iter().enumerate() {
        let (pre, post) = (side(hunk, true), side(hunk, false));
        let old = hunk.old_range();
        // `-l,0` inserts after line l; otherwise the hunk starts at line l.
        let base = if old.is_empty() { old.start() } else { old.start().saturating_sub(1) };
        let expected = (base as isize + shift).clamp(0, image.len() as isize) as usize;
        let Some(pos) = find_position(&image, &pre, expected) else {
            let (header_line, header) = headers.get(i).cloned().unwrap_or((0, format!("#{}", i + 1)));
            return Err(mismatch(
                orig_name,
                &orig_lines,
                diff_path,
                first_line + header_line,
                header,
                hunk,
                base,
            ));
        };
        image.splice(pos..pos + pre.len(), post.iter().map(|l| (*l, true)));
        shift = pos as isize - base as isize + post.len() as isize - pre.len() as isize;
    }
    Ok(image.into_iter().map(|(l, _)| l).collect())
}

/// The hunk's lines before (`old`) or after the change.
fn side<'a>(hunk: &diffy::Hunk<'a, str>, old: bool) -> Vec<&'a str> {
    hunk.lines()
        .iter()
        .filter_map(|l| match (l, old) {
            (diffy::Line::Context(s), _)
            | (diffy::Line::Delete(s), true)
            | (diffy::Line::Insert(s), false) => Some(*s),
            _ => None,
        })
        .collect()
}

fn same_line(a: &str, b: &str) -> bool {
    a.trim_end_matches(['\n', '\r']) == b.trim_end_matches(['\n', '\r'])
}

/// The position nearest `expected` where `pre` matches unpatched lines.
fn find_position(image: &[(&str, bool)], pre: &[&str], expected: usize) -> Option<usize> {
    let fits = |pos: usize| {
        image.get(pos..pos + pre.len()).is_some_and(|window| {
            window.iter().zip(pre).all(|((line, patched), want)| !patched && same_line(line, want))
        })
    };
    // expected, expected - 1, expected + 1, expected - 2, ...
    std::iter::once(expected)
        .chain((1..=image.len()).flat_map(|d| [expected.checked_sub(d), Some(expected + d)]).flatten())
        .filter(|&p| p <= image.len())
        .find(|&p| fits(p))
}

/// The error for a hunk that matches nowhere: compares it with the original at
/// the line it names and reports the first line that differs.
fn mismatch(
    orig_name: &str,
    orig_lines: &[&str],
    diff_path: &Path,
    header_line: usize,
    header: String,
    hunk: &diffy::Hunk<'_, str>,
    base: usize,
) -> UnifyError {
    let shown = |s: &str| s.trim_end_matches(['\n', '\r']).to_string();
    let mut k = 0;
    let mut detail = format!("its lines are nowhere in {orig_name}");
    for (j, line) in hunk.lines().iter().enumerate() {
        let want = match line {
            diffy::Line::Context(s) | diffy::Line::Delete(s) => *s,
            diffy::Line::Insert(_) => continue,
        };
        let diff_line = header_line + 1 + j;
        match orig_lines.get(base + k) {
            None => {
                detail = format!(
                    "line {diff_line} expects `{}` but {orig_name} has only {} lines",
                    shown(want),
                    orig_lines.len()
                );
                break;
            }
            Some(have) if !same_line(have, want) => {
                detail = format!(
                    "line {diff_line} expects `{}` but {orig_name}:{} is `{}`",
                    shown(want),
                    base + k + 1,
                    shown(have)
                );
                break;
            }
            Some(_) => k += 1,
        }
    }
    UnifyError::HunkMismatch {
        diff: diff_path.to_path_buf(),
        line: header_line,
        header,
        target: orig_name.to_string(),
        detail,
    }
}

/// `(line within the section, header text)` of each hunk header, in order.
fn hunk_headers(section: &str) -> Vec<(usize, String)> {
    section
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("@@ "))
        .map(|(i, l)| {
            let end = l[3..].find("@@").map_or(l.len(), |e| e + 5);
            (i, l[..end].trim_end().to_string())
        })
        .collect()
}

/// The part of the diff that patches ORIG, and the 1-based line where it starts.
/// A diff of one file is used whole; of several, the one whose target has ORIG's
/// file name.
fn select_section<'d>(
    orig_name: &str,
    diff_path: &Path,
    diff: &'d str,
) -> Result<(usize, &'d str), UnifyError> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
        .collect();
    if starts.len() <= 1 {
        return Ok((1, diff));
    }
    let byte_at = |i: usize| lines[..i].iter().map(|l| l.len()).sum::<usize>();
    let want = Path::new(orig_name).file_name();
    let matching: Vec<usize> = starts
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            let target = lines[**s + 1][4..].split('\t').next().unwrap_or("").trim();
            Path::new(target).file_name() == want
        })
        .map(|(k, _)| k)
        .collect();
    match matching.as_slice() {
        [k] => {
            let start = starts[*k];
            let end = starts.get(k + 1).map_or(diff.len(), |&e| byte_at(e));
            Ok((start + 1, &diff[byte_at(start)..end]))
        }
        _ => Err(UnifyError::DiffSyntax {
            diff: diff_path.to_path_buf(),
            line: starts[0] + 1,
            message: format!(
                "the diff changes {} files and {} of them are {orig_name}; give one diff per patch of {orig_name}",
                starts.len(),
                matching.len()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIG: &str = "a\nb\nc\nd\ne\nf\n";

    #[test]
    fn applies_at_offset_and_reports_mismatch() {
        let diff = "--- x.c\n+++ x.c\n@@ -4,2 +4,2 @@\n d\n-e\n+E\n";
        assert_eq!(apply("x.c", ORIG, Path::new("p.diff"), diff).unwrap(), "a\nb\nc\nd\nE\nf\n");
        // The hunk claims line 1 but its lines are at line 4: an offset of 3.
        let shifted = "--- x.c\n+++ x.c\n@@ -1,2 +1,2 @@\n d\n-e\n+E\n";
        assert_eq!(apply("x.c", ORIG, Path::new("p.diff"), shifted).unwrap(), "a\nb\nc\nd\nE\nf\n");
        let bad = "--- x.c\n+++ x.c\n@@ -4,2 +4,2 @@\n d\n-x\n+E\n";
        let err = apply("x.c", ORIG, Path::new("p.diff"), bad).unwrap_err().to_string();
        assert_eq!(
            err,
            "p.diff:3:1: hunk @@ -4,2 +4,2 @@ does not apply to x.c: line 5 expects `x` but x.c:5 is `e`"
        );
    }
}
