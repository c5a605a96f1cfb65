//! The tree-sitter front end: parsing, syntax errors, tokens and positions.
//!
//! A [`Rev`] is one revision as the merge sees it: its text after file-scope
//! renaming (see `rename`), the tree of that text, and the shifts that map a
//! position back to the revision's own file. Renaming never adds or removes a
//! line, so lines are exact and only columns are shifted.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;

use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

use super::error::{Loc, UnifyError};
use super::meta::Pos;

pub(crate) fn parse_c(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).expect("tree-sitter-c matches the tree-sitter ABI");
    parser.parse(text, None).expect("parsing without a timeout or cancellation flag always yields a tree")
}

/// Refuses a tree with an ERROR or MISSING node, naming the first one.
pub(crate) fn check_syntax(name: &str, text: &str, tree: &Tree) -> Result<(), UnifyError> {
    let root = tree.root_node();
    if !root.has_error() {
        return Ok(());
    }
    let bad = first_error(root).unwrap_or(root);
    let at = loc(name, text, bad.start_byte());
    let message = if bad.is_missing() {
        let line_start = text[..bad.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let before = text[line_start..bad.start_byte()].trim();
        format!("expected `{}` after `{}`", bad.kind(), clip(before, true))
    } else {
        let t = text[bad.byte_range()].trim();
        let first = t.lines().next().unwrap_or("");
        if first.is_empty() {
            "unexpected end of input".to_string()
        } else {
            format!("unexpected `{}`", clip(first, false))
        }
    };
    Err(UnifyError::Syntax { at, message })
}

pub(crate) fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).filter(|c| c.has_error() || c.is_missing()).find_map(first_error)
}

/// At most 40 characters of `s`, from its end if `tail`.
fn clip(s: &str, tail: bool) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 40 {
        s.to_string()
    } else if tail {
        format!("...{}", chars[chars.len() - 40..].iter().collect::<String>())
    } else {
        format!("{}...", chars[..40].iter().collect::<String>())
    }
}

/// The location of byte `at` of `text` (1-based line and byte column).
pub(crate) fn loc(name: &str, text: &str, at: usize) -> Loc {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Loc { file: name.to_string(), line, col }
}

/// One revision, renamed and parsed.
pub(crate) struct Rev {
    pub index: usize,
    pub name: String,
    pub text: String,
    pub tree: Tree,
    /// Every edit made to the revision's own text (macro expansions, then
    /// renaming), in order: how `pos` finds columns in the original file.
    shifts: Vec<Shift>,
    /// Where each line starts.
    line_starts: Vec<usize>,
}

/// An edit as it lies in the current text: `len` bytes from `at` replaced
/// `len - delta` bytes of the text before.
#[derive(Clone, Copy, Debug)]
struct Shift {
    at: usize,
    len: usize,
    delta: isize,
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

impl Rev {
    /// A revision as written.
    pub fn new(index: usize, name: String, text: String) -> Rev {
        let tree = parse_c(&text);
        Rev { index, name, line_starts: line_starts(&text), text, tree, shifts: Vec::new() }
    }

    /// This revision with `edits` (`(range, new length)`, in order, none
    /// spanning a line) made, giving `text`; parsed incrementally. Positions
    /// still map to the revision's own file: this revision's edits are
    /// carried over, an edit inside an earlier one (a name renamed inside a
    /// macro's expansion) growing that one.
    pub fn edited(&self, text: String, edits: &[(Range<usize>, usize)]) -> Rev {
        let mut old = self.tree.clone();
        let delta_of = |(range, new_len): &(Range<usize>, usize)| *new_len as isize - range.len() as isize;
        let mut shifts = Vec::with_capacity(self.shifts.len() + edits.len());
        for s in &self.shifts {
            let before: isize = edits.iter().filter(|(r, _)| r.end <= s.at).map(delta_of).sum();
            let inside: isize =
                edits.iter().filter(|(r, _)| r.start >= s.at && r.end <= s.at + s.len).map(delta_of).sum();
            shifts.push(Shift {
                at: (s.at as isize + before) as usize,
                len: (s.len as isize + inside) as usize,
                delta: s.delta + inside,
            });
        }
        let mut delta = 0isize;
        for e in edits {
            let at = (e.0.start as isize + delta) as usize;
            delta += delta_of(e);
            if !shifts.iter().any(|s| s.at <= at && at < s.at + s.len) {
                shifts.push(Shift { at, len: e.1, delta: delta_of(e) });
            }
        }
        shifts.sort_by_key(|s| s.at);
        // Last to first, so that each edit's positions are still those of the original.
        for (range, new_len) in edits.iter().rev() {
            let row = self.line(range.start) - 1;
            let column = range.start - self.line_starts[row];
            old.edit(&InputEdit {
                start_byte: range.start,
                old_end_byte: range.end,
                new_end_byte: range.start + new_len,
                start_position: Point { row, column },
                old_end_position: Point { row, column: column + range.len() },
                new_end_position: Point { row, column: column + new_len },
            });
        }
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .expect("tree-sitter-c matches the tree-sitter ABI");
        let tree = parser.parse(&text, Some(&old)).expect("parsing without a timeout always yields a tree");
        Rev {
            index: self.index,
            name: self.name.clone(),
            line_starts: line_starts(&text),
            text,
            tree,
            shifts,
        }
    }

    /// This revision with each range replaced by its text (`edits` in
    /// order, none spanning a line): [`Rev::edited`] given the new text.
    pub fn replaced(&self, edits: Vec<(Range<usize>, String)>) -> Rev {
        let mut text = String::with_capacity(self.text.len() + 64);
        let mut last = 0;
        for (range, new) in &edits {
            text.push_str(&self.text[last..range.start]);
            text.push_str(new);
            last = range.end;
        }
        text.push_str(&self.text[last..]);
        let spans: Vec<(Range<usize>, usize)> = edits.into_iter().map(|(r, new)| (r, new.len())).collect();
        self.edited(text, &spans)
    }

    pub fn src(&self, range: Range<usize>) -> &str {
        &self.text[range]
    }

    pub fn text_of(&self, node: Node) -> &str {
        &self.text[node.byte_range()]
    }

    /// 1-based line of byte `at`.
    pub fn line(&self, at: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= at)
    }

    /// Byte `at` of the edited text as a position in the revision's own file;
    /// a byte inside an edit's new text is where the edit's old text started.
    pub fn pos(&self, at: usize) -> Pos {
        let line_start = self.line_starts[self.line(at) - 1];
        let first = self.shifts.partition_point(|s| s.at < line_start);
        let mut shifted = 0isize;
        let mut here = at;
        for s in self.shifts[first..].iter().take_while(|s| s.at <= at) {
            if at < s.at + s.len {
                here = s.at;
                break;
            }
            shifted += s.delta;
        }
        Pos { line: self.line(at), col: ((here - line_start) as isize - shifted).max(0) as usize + 1 }
    }

    pub fn loc(&self, at: usize) -> Loc {
        let p = self.pos(at);
        Loc { file: self.name.clone(), line: p.line, col: p.col }
    }

    /// The leading whitespace of the line holding byte `at`.
    pub fn line_indent(&self, at: usize) -> &str {
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let rest = &self.text[start..];
        &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
    }

    /// Whether only whitespace precedes byte `at` on its line.
    pub fn starts_line(&self, at: usize) -> bool {
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        self.text[start..at].trim().is_empty()
    }
}

/// Calls `f` on each token of `node` (its leaves, without comments), in order.
fn each_token<'a>(text: &'a str, node: Node, mut f: impl FnMut(&'a str)) {
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        // Comments are tree-sitter-c's only extras.
        let descend = !n.is_extra() && n.child_count() > 0;
        if !n.is_extra() && n.child_count() == 0 {
            f(&text[n.byte_range()]);
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The tokens of `node`: its leaves, without comments.
pub(crate) fn tokens<'a>(text: &'a str, node: Node, out: &mut Vec<&'a str>) {
    each_token(text, node, |t| out.push(t));
}

/// Identifies a node's token sequence: equal keys, equal code.
pub(crate) fn token_key(text: &str, node: Node) -> u64 {
    let mut h = DefaultHasher::new();
    each_token(text, node, |t| {
        t.hash(&mut h);
    });
    h.finish()
}

pub(crate) fn hash_of(value: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// Named children of `node`, comments included.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Every child of `node`, anonymous tokens included.
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// Whether an identifier-like token equal to one of `names` occurs in `node`.
pub(crate) fn mentions(text: &str, node: Node, names: &std::collections::BTreeSet<String>) -> bool {
    if node.child_count() == 0 {
        return matches!(node.kind(), "identifier" | "type_identifier" | "field_identifier")
            && names.contains(&text[node.byte_range()]);
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| mentions(text, c, names))
}

/// Identifier-like words in free text (macro bodies, `#if` conditions),
/// outside string and character literals (`"\n"` names nothing) and
/// comments (an apostrophe in `/* findutils' fix */` opens no literal).
pub(crate) fn words(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let c = b[i];
            // Bytes, not chars: `i` may stand inside a character of UTF-8.
            if b[i..].starts_with(b"//") {
                i = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |e| i + e);
            } else if b[i..].starts_with(b"/*") {
                i = b[i + 2..].windows(2).position(|w| w == b"*/").map_or(b.len(), |e| i + 2 + e + 2);
            } else if c == b'"' || c == b'\'' {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
            } else if c.is_ascii_alphanumeric() || c == b'_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if !c.is_ascii_digit() {
                    return Some(&s[start..i]);
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// The literals of a C text, in one walk: the text of every number and
/// character literal, and every string literal as written between its
/// quotes (escapes as they are), each in order.
pub fn literals(text: &str) -> (Vec<String>, Vec<String>) {
    let tree = parse_c(text);
    let (mut numbers, mut strings) = (Vec::new(), Vec::new());
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let t = &text[node.byte_range()];
        match node.kind() {
            "number_literal" | "char_literal" => numbers.push(t.to_string()),
            "string_literal" => {
                strings.extend(t.strip_prefix('"').and_then(|l| l.strip_suffix('"')).map(str::to_string))
            }
            _ if cursor.goto_first_child() => continue,
            _ => {}
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    (numbers, strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_skip_literals_and_comments() {
        let text = "/* findutils' fix: isnan */ int é = f(x, \"g\\\"h\", 'y'); // z\n#if W2 && 3u\n";
        assert_eq!(words(text).collect::<Vec<_>>(), ["int", "f", "x", "if", "W2"]);
    }
}
