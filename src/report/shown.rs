//! Outputs as a person reads them: shortened where they are long (a program
//! that loops printing makes megabytes; `report.json` and the page keep them
//! whole), and on the decision tree's edges, the part of an outcome that
//! tells it apart from its siblings rather than what they all share.
//!
//! In the summary an output (or `psychic_output` record) over 200 bytes shows
//! its first 100, its length and its FNV-1a hash. `edge_labels`: each edge of a
//! tree node says what tells its outcome apart from its siblings: the status
//! where some sibling's differs; where one of the same status prints otherwise,
//! a window of stdout from the first byte they part at (`…` before it unless
//! that is byte 0, `…(end)` where this output stops); the first
//! `psychic_output` record that differs where only those do.

use super::{Outcome, Test, TreeNode};

/// Outputs up to this many bytes are shown whole.
const WHOLE: usize = 200;
/// The bytes shown of a longer output.
const HEAD: usize = 100;
/// The characters of an edge label's line.
const LABEL_CHARS: usize = 24;

/// `s` escaped, whole when it is short; otherwise its head, its length and
/// its FNV-1a hash (of the UTF-8 text, as `report.json` has it), so that two
/// long outputs can be told apart or matched: `"1\n1\n"… (4,194,304 bytes,
/// fnv1a 0123456789abcdef)`.
pub fn output(s: &str) -> String {
    abridged(s, |t| format!("{t:?}"))
}

/// A `psychic_output` record (`NAME SIZE HEX`), shortened as [`output`] is.
pub fn annotation(a: &str) -> String {
    abridged(a, str::to_string)
}

fn abridged(s: &str, show: impl Fn(&str) -> String) -> String {
    if s.len() <= WHOLE {
        return show(s);
    }
    let head = &s[..s.floor_char_boundary(HEAD)];
    format!("{}… ({} bytes, fnv1a {:016x})", show(head), grouped(s.len()), fnv1a(s.as_bytes()))
}

/// `4194304` as `4,194,304`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 64-bit FNV-1a, the hash the fuzz server compares outputs by.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// `s` cut to `max` characters, the last one `…` when cut.
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max { s.to_string() } else { s.chars().take(max - 1).chain(['…']).collect() }
}

/// The label of each of `node`'s edges (one per branch, in order): what
/// tells its outcome apart from the others, in lines of at most 24
/// characters (`distinguishing`).
pub fn edge_labels(test: Option<&Test>, node: &TreeNode) -> Vec<Vec<String>> {
    let outcomes: Vec<Option<&Outcome>> =
        node.branches.iter().map(|b| test.and_then(|t| t.outcomes.get(b.outcome))).collect();
    outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let Some(o) = o else { return Vec::new() };
            let others: Vec<&Outcome> =
                outcomes.iter().enumerate().filter(|&(j, _)| j != i).filter_map(|(_, s)| *s).collect();
            distinguishing(o, &others)
        })
        .collect()
}

/// What tells `o` apart from `others` (the other outcomes at a node of the
/// decision tree), a line each: its status where some other's status differs;
/// where one with the same status prints something else, a window of `o`'s
/// stdout from the first byte where they part (`…` before it when that is not
/// byte 0, `…(end)` when `o`'s output ends there); where only
/// `psychic_output` differs, the first record that does. The prefix they
/// share is what every edge would read alike, so it is left out.
fn distinguishing(o: &Outcome, others: &[&Outcome]) -> Vec<String> {
    let status = o.status_text();
    let same: Vec<&Outcome> = others.iter().copied().filter(|s| s.status_text() == status).collect();
    let mut lines = Vec::new();
    if same.len() < others.len() {
        lines.push(status.clone());
    }
    let parting =
        same.iter().filter(|s| s.stdout != o.stdout).map(|s| common_prefix(&o.stdout, &s.stdout)).min();
    if let Some(at) = parting {
        lines.push(window(&o.stdout, at, LABEL_CHARS));
    }
    let first_record = same
        .iter()
        .filter(|s| s.stdout == o.stdout && s.annotations != o.annotations)
        .map(|s| o.annotations.iter().zip(&s.annotations).take_while(|(a, b)| a == b).count())
        .min();
    if let Some(i) = first_record {
        let record = o.annotations.get(i).map_or("(end)", String::as_str);
        lines.push(shorten(&format!("output {record}"), LABEL_CHARS));
    }
    if lines.is_empty() {
        // Outcomes that differ in nothing the report keeps (stderr).
        lines.push(status);
    }
    lines
}

/// The length of the prefix `a` and `b` share, at a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let bytes = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    a.floor_char_boundary(bytes)
}

/// `s` from byte `at` (a character boundary), escaped, in at most `width`
/// characters with the `…` around it.
fn window(s: &str, at: usize, width: usize) -> String {
    let rest = &s[at..];
    let before = if at > 0 { "…" } else { "" };
    if rest.is_empty() {
        return if at > 0 { "…(end)".into() } else { "\"\"".into() };
    }
    // The longest head whose escaped form fits; escapes are up to 10
    // characters, so this is counted on the escaped text itself.
    let mut end = 0;
    for (i, c) in rest.char_indices() {
        let next = i + c.len_utf8();
        let more = if next < rest.len() { 1 } else { 0 };
        if format!("{:?}", &rest[..next]).chars().count() + before.chars().count() + more > width {
            break;
        }
        end = next;
    }
    // A single character too wide to fit is shown all the same.
    let end = end.max(rest.chars().next().map_or(0, char::len_utf8));
    let after = if end < rest.len() { "…" } else { "" };
    format!("{before}{:?}{after}", &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_outputs_show_their_head_length_and_hash() {
        assert_eq!(output("B\n"), r#""B\n""#);
        let whole = "x".repeat(WHOLE);
        assert_eq!(output(&whole), format!("{whole:?}"));
        let ones = "1\n".repeat(2_097_152);
        let shown = output(&ones);
        let head = format!("{:?}", "1\n".repeat(HEAD / 2));
        assert_eq!(shown, format!("{head}… (4,194,304 bytes, fnv1a {:016x})", fnv1a(ones.as_bytes())));
        assert!(shown.len() < 2 * WHOLE, "{shown}");
        // Stable, and different outputs of one length differ in the hash.
        assert_eq!(output(&ones), shown);
        let twos = format!("{}2\n", "1\n".repeat(2_097_151));
        assert_ne!(output(&twos), shown);
        // The head is cut at a character boundary.
        let wide = "é".repeat(WHOLE);
        assert!(output(&wide).starts_with(&format!("{:?}…", "é".repeat(HEAD / 2))));
        assert_eq!(annotation(&format!("ret!f 4 {}", "ab".repeat(200))).split(' ').nth(3), Some("(408"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            [grouped(0), grouped(999), grouped(1000), grouped(4_194_304)],
            ["0", "999", "1,000", "4,194,304"]
        );
    }

    #[test]
    fn edges_show_where_outputs_part_not_the_prompt_they_share() {
        let prompt = "Enter thresholds for A, B, C, D\nThen enter the score\nStudent has an ";
        let grades: Vec<Outcome> = ["A grade\n", "B grade\n", "C grade\n", "D grade\n"]
            .iter()
            .map(|g| Outcome::exited(&format!("{prompt}{g}"), 0))
            .collect();
        let refs: Vec<&Outcome> = grades.iter().collect();
        let label = |i: usize| {
            let others: Vec<&Outcome> =
                refs.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, o)| *o).collect();
            distinguishing(refs[i], &others)
        };
        assert_eq!(label(0), [r#"…"A grade\n""#]);
        assert_eq!(label(3), [r#"…"D grade\n""#]);
        // A long tail is cut to the label's width.
        let long = Outcome::exited(&format!("{prompt}F because the score is below every threshold\n"), 0);
        let l = distinguishing(&long, &[&grades[0]]);
        assert_eq!(l, [r#"…"F because the score "…"#]);
        assert!(l[0].chars().count() <= LABEL_CHARS);
        // From byte 0 there is nothing before; an output that ends where the other goes on.
        assert_eq!(
            distinguishing(&Outcome::exited("yes\n", 0), &[&Outcome::exited("no\n", 0)]),
            [r#""yes\n""#]
        );
        assert_eq!(distinguishing(&Outcome::exited("1\n", 0), &[&Outcome::exited("1\n2\n", 0)]), ["…(end)"]);
        assert_eq!(distinguishing(&Outcome::exited("", 0), &[&Outcome::exited("1\n", 0)]), [r#""""#]);
    }

    #[test]
    fn edges_show_the_status_where_that_is_what_differs() {
        let mut crash = Outcome::exited("1\n", 0);
        (crash.exit_status, crash.signal) = (None, Some(11));
        let mut hang = Outcome::exited(&"1\n".repeat(1000), 0);
        hang.timed_out = true;
        let done = Outcome::exited("1\n1\n", 0);
        let other = Outcome::exited("1\n2\n", 0);
        assert_eq!(distinguishing(&crash, &[&done, &hang]), ["signal 11 (SIGSEGV)"]);
        assert_eq!(distinguishing(&hang, &[&crash, &done]), ["timeout"]);
        // Two with one status: the status tells them from the third, the output from each other.
        assert_eq!(distinguishing(&done, &[&crash, &other]), ["exit 0", r#"…"1\n""#]);
        assert_eq!(distinguishing(&done, &[&other]), [r#"…"1\n""#]);
        // Only psychic_output differs.
        let mut a = Outcome::exited("x", 0);
        let mut b = Outcome::exited("x", 0);
        a.annotations = vec!["ret!f 4 01000000".into(), "ret!g 4 00000000".into()];
        b.annotations = vec!["ret!f 4 01000000".into(), "ret!g 4 02000000".into()];
        assert_eq!(distinguishing(&a, &[&b]), ["output ret!g 4 00000000"]);
        a.annotations.truncate(1);
        assert_eq!(distinguishing(&a, &[&b]), ["output (end)"]);
        // Nothing the report keeps differs: the status, as before.
        assert_eq!(distinguishing(&done, &[&done.clone()]), ["exit 0"]);
    }

    #[test]
    fn windows_fit_their_width_escapes_and_all() {
        for s in
            ["\t\t\t\t\t\t\t\t\t\t\t\t\t\t", "ééééééééééééééééééééééééééé", "\u{1}\u{2}\u{3}\u{4}", "abc"]
        {
            for at in [0, 1] {
                let w = window(s, s.floor_char_boundary(at), LABEL_CHARS);
                assert!(w.chars().count() <= LABEL_CHARS, "{w}");
            }
        }
        assert_eq!(window("\u{1}\u{2}\u{3}", 0, 12), r#""\u{1}"…"#);
        assert_eq!(window("\u{1}", 0, 3), r#""\u{1}""#, "one character too wide is shown");
    }
}
