//! Macros the grammar cannot read past, expanded as the preprocessor would.
//!
//! tree-sitter parses C before preprocessing, so a macro that expands to an
//! incomplete statement (`#define REP(i, n) for (i = 0; i < (n); i++)`, then
//! `REP(i, n) { ... }`), or to an operator (`#define and &&`), is a syntax
//! error to it, although clang compiles the file. Where the parse fails, the
//! invocations of the file's own macros around the failure are replaced by
//! their expansion, one at a time, until the revision parses: the same text
//! the preprocessor makes, so the meta program means what the revision means,
//! and the merge then sees the loop and can share its body and put a site
//! inside it. Each expansion is one edit on one line (the `Rev` shifts map
//! positions back to the revision's own file), so the line map stays exact.

use std::ops::Range;

use tree_sitter::Node;

use super::cond;
use super::parse::{Rev, first_error};

/// Macros the grammar reads unexpanded, whose expansion it cannot read:
/// `offsetof (struct t, m)` is an expression to tree-sitter-c, glibc's
/// `__builtin_offsetof` a call with a type for an argument.
const READ_AS_WRITTEN: &[&str] = &["offsetof"];

/// Expansions tried on one revision before its remaining errors are reported.
const MAX_EXPANSIONS: usize = 500;

/// A `#define` of the revision.
struct Macro {
    name: String,
    /// `None` for an object-like macro.
    params: Option<Vec<String>>,
    variadic: bool,
    /// The body on one line, comments removed.
    body: String,
    /// The line the definition ends on: it applies to the lines after it.
    /// Lines, not bytes: expansions move bytes, never lines.
    defined_line: usize,
    /// It lies under an `#if`, `#ifdef`, ... of the file.
    conditional: bool,
}

/// `rev` as the grammar can read it: directive lines tidied, then the
/// macro invocations its parse trips over expanded.
#[cfg(test)]
pub(crate) fn prepare(rev: Rev) -> Rev {
    prepare_with(rev, "")
}

/// [`prepare`], where the macros of `header_macros` (`#define` lines, as
/// `clang -E -dM` prints them) are in force from the file's first line: a
/// header's macro that the parse trips over (gnulib's `ATTRIBUTE_PURE`
/// before a function, `_GL_ATTRIBUTE_PURE` after its return type) expands
/// as clang would expand it.
pub(crate) fn prepare_with(rev: Rev, header_macros: &str) -> Rev {
    expand(tidy_directives(rev), header_macros)
}

/// Removes from directive lines what the preprocessor ignores and the
/// grammar trips over: white space at the end of the line (tree-sitter-c
/// then fails on `#include <x.h> ` and reads the next line into an empty
/// `#define`'s body), tokens after an `#include`'s file name, which clang
/// only warns about, and the comments of a directive that spans lines
/// (coreutils' printf.c defines functions with `STRTOX`, whose body holds
/// some), which end tree-sitter-c's reading of the directive: they become
/// spaces, as the preprocessor makes them.
fn tidy_directives(rev: Rev) -> Rev {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut start = 0;
    // This line continues a directive; a comment of it is open at its start.
    let (mut continued, mut comment) = (false, false);
    for line in rev.text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let directive = body.trim_start();
        if continued || directive.starts_with('#') {
            comment = blank_comments(body, start, continued, comment, &mut edits);
        } else {
            comment = false;
        }
        if let Some(d) = directive.strip_prefix('#').filter(|_| !continued) {
            let lead = body.len() - directive.len() + 1;
            let d = d.trim_start();
            let keep = match d.strip_prefix("include") {
                Some(rest) => include_end(rest).map(|e| body.len() - rest.len() + e),
                None => None,
            }
            .unwrap_or_else(|| body.trim_end_matches([' ', '\t']).len())
            .max(lead);
            if keep < body.len() && !body[..keep].ends_with('\\') {
                edits.push((start + keep..start + body.len(), String::new()));
            }
        }
        continued = body.ends_with('\\');
        start += line.len();
    }
    if edits.is_empty() {
        return rev;
    }
    rev.replaced(edits)
}

/// Turns into spaces the comments on this line (`body`, at byte `start`) of
/// a directive that spans lines (`continued`: the line before continues
/// it); `open`: a comment is open at the line's start. Returns whether one
/// is open at its end (only where the line continues: the directive ends
/// with a line that does not). A one-line directive is left alone.
fn blank_comments(
    body: &str,
    start: usize,
    continued: bool,
    open: bool,
    edits: &mut Vec<(Range<usize>, String)>,
) -> bool {
    let continues = body.ends_with('\\');
    if !(continued || continues) {
        return false;
    }
    let end = if continues { body.len() - 1 } else { body.len() };
    let b = body.as_bytes();
    let mut from = open.then_some(0);
    let mut i = 0;
    while i < end {
        match from {
            None if body[i..].starts_with("/*") => {
                from = Some(i);
                i += 2;
            }
            None if b[i] == b'"' || b[i] == b'\'' => i += literal_end(&body[i..]),
            Some(f) if body[i..].starts_with("*/") => {
                edits.push((start + f..start + i + 2, " ".repeat(i + 2 - f)));
                from = None;
                i += 2;
            }
            _ => i += 1,
        }
    }
    match from {
        Some(f) if continues => {
            edits.push((start + f..start + end, " ".repeat(end - f)));
            true
        }
        _ => false,
    }
}

/// Where the file name of an `#include` ends in `rest` (the text after
/// `include`), if it is `<...>` or `"..."`.
fn include_end(rest: &str) -> Option<usize> {
    let t = rest.trim_start();
    let skip = rest.len() - t.len();
    let close = match t.chars().next()? {
        '<' => '>',
        '"' => '"',
        _ => return None,
    };
    t[1..].find(close).map(|e| skip + 1 + e + 1)
}

/// `rev`, with the macro invocations its parse trips over expanded.
fn expand(rev: Rev, header_macros: &str) -> Rev {
    if !rev.tree.root_node().has_error() {
        return rev;
    }
    let mut macros = header_definitions(header_macros, &rev.text);
    let own = definitions(&rev);
    macros.extend(stray_definitions(&rev, &own));
    macros.extend(own.into_iter().filter(|m| !m.conditional || in_force(m, header_macros)));
    // Stable: a header's definition stays before the file's.
    macros.sort_by_key(|m| m.defined_line);
    if macros.is_empty() && header_macros.is_empty() {
        return rev;
    }
    let mut rev = rev;
    for _ in 0..MAX_EXPANSIONS {
        let Some(bad) = first_error(rev.tree.root_node()) else { break };
        let region = region_of(bad);
        // A group the preprocessor drops goes first: its text is never read,
        // and it may be all of the file's rest to the grammar (regexec.c).
        let Some(edits) = undefined_branch(&rev, region.clone(), bad.start_byte(), header_macros)
            .or_else(|| first_invocation(&rev, region.clone(), &macros).map(|e| vec![e]))
            .or_else(|| scoped_directive(&rev, region.clone()))
            .or_else(|| chosen_branch(&rev, region.clone(), &macros))
            .or_else(|| hint_attribute(&rev, region))
        else {
            break;
        };
        rev = rev.replaced(edits);
    }
    rev
}

/// A `#define NAME` or `#undef NAME` line inside a file-scope item of
/// `region` whose partner is in the item too, as an X-macro table scopes a
/// helper to one initializer (coreutils' sort.c: `#define _ct_(_s, _c) _s,`,
/// `CHECK_TABLE NULL`, `#undef _ct_`), which the grammar cannot read there:
/// its line made empty. Only once no invocation is left in the region, so the
/// item's uses of NAME are expanded already, and the pair ends NAME's life
/// inside the item: no text outside sees it. Both lines go at once.
fn scoped_directive(rev: &Rev, region: Range<usize>) -> Option<Vec<(Range<usize>, String)>> {
    let lines: Vec<(bool, String, Range<usize>)> = logical_lines(rev, region)
        .into_iter()
        .filter(|l| matches!(l.kind.as_str(), "define" | "undef") && l.lines.len() == 1)
        .filter(|l| inside_item(rev, l.lines[0].start))
        .map(|l| {
            let name =
                l.rest.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            (l.kind == "define", name, l.lines[0].clone())
        })
        .collect();
    lines.iter().filter(|(define, _, _)| *define).find_map(|(_, name, first)| {
        let (_, _, second) = lines.iter().find(|(d, n, r)| !d && n == name && r.start > first.start)?;
        Some(vec![(first.clone(), String::new()), (second.clone(), String::new())])
    })
}

/// Attributes that only inform the compiler (what a function reads, which
/// result must be used, how to warn): a program means the same without
/// them.
const HINTS: &[&str] = &[
    "pure",
    "const",
    "unused",
    "maybe_unused",
    "nonnull",
    "returns_nonnull",
    "warn_unused_result",
    "nodiscard",
    "deprecated",
    "format",
    "format_arg",
    "malloc",
    "nothrow",
    "leaf",
    "cold",
    "hot",
    "artificial",
    "alloc_size",
    "sentinel",
    "access",
    "fallthrough",
];

/// An `__attribute__ ((...))` of `region` that holds hints only, where the
/// grammar reads none (gnulib's `_GL_ATTRIBUTE_PURE` between a return
/// type's `*` and the function's name, in grep's dfa.c): made empty, once
/// nothing else lets the region parse.
fn hint_attribute(rev: &Rev, region: Range<usize>) -> Option<Vec<(Range<usize>, String)>> {
    let text = &rev.text[region.clone()];
    let mut from = 0;
    while let Some(i) = text[from..].find("__attribute__") {
        let at = region.start + from + i;
        from += i + "__attribute__".len();
        let rest = &rev.text[at + "__attribute__".len()..];
        let open = at + "__attribute__".len() + (rest.len() - rest.trim_start().len());
        let Some((args, end)) = arguments(&rev.text, open) else { continue };
        let inner = args.join(",");
        let Some(list) = inner.trim().strip_prefix('(').and_then(|l| l.strip_suffix(')')) else { continue };
        let names = list.split(',').map(|a| {
            let name = a.trim();
            let name = name.find('(').map_or(name, |p| &name[..p]).trim();
            name.trim_start_matches("__").trim_end_matches("__").to_string()
        });
        if names.clone().all(|n| HINTS.contains(&n.as_str())) && !rev.text[at..end].contains('\n') {
            return Some(vec![(at..end, String::new())]);
        }
    }
    None
}

/// Whether byte `at` lies inside a file-scope item: the node holding it
/// starts before it.
fn inside_item(rev: &Rev, at: usize) -> bool {
    let root = rev.tree.root_node();
    let mut cursor = root.walk();
    root.children(&mut cursor).any(|c| c.start_byte() < at && at < c.end_byte())
}

/// A directive that may span lines: its kind (`if`, `else`, ...), the rest
/// of its text, continuations joined, and its lines' ranges (without their
/// newlines); or a line of code (`kind` empty).
struct Logical {
    kind: String,
    rest: String,
    lines: Vec<Range<usize>>,
}

fn logical_lines(rev: &Rev, region: Range<usize>) -> Vec<Logical> {
    let mut out: Vec<Logical> = Vec::new();
    let mut at = region.start;
    let mut continued = false;
    for line in rev.text[region].split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let range = at..at + body.len();
        at += line.len();
        let joined = body.strip_suffix('\\').unwrap_or(body);
        match out.last_mut() {
            Some(last) if continued => {
                last.rest.push(' ');
                last.rest.push_str(joined);
                last.lines.push(range);
            }
            _ => {
                let d = joined.trim_start().strip_prefix('#').map(str::trim_start);
                let (kind, rest) = d.map_or(("", ""), |d| {
                    let end = d.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(d.len());
                    (&d[..end], &d[end..])
                });
                out.push(Logical { kind: kind.to_string(), rest: rest.to_string(), lines: vec![range] });
            }
        }
        continued = body.ends_with('\\');
    }
    out
}

/// An `#if` group inside a file-scope item of `region`, where the grammar
/// reads no directive (sort.c's `unit_order` initializer): the branch the
/// preprocessor takes is kept, and the group's directive lines and the other
/// branches' lines are made empty. Only where every condition up to the
/// taken branch computes (`cond::eval`, the macros in force at its line).
fn chosen_branch(rev: &Rev, region: Range<usize>, macros: &[Macro]) -> Option<Vec<(Range<usize>, String)>> {
    let undefs: Vec<(String, usize)> = rev
        .text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let rest = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("undef")?;
            Some((rest.trim().to_string(), i + 1))
        })
        .collect();
    group_edits(rev, region, true, None, |l: &Logical| {
        let line = rev.line(l.lines[0].start);
        let lookup = |name: &str| -> Option<Option<String>> {
            let def = macros.iter().rev().find(|d| d.name == name && d.defined_line < line)?;
            let undone = undefs.iter().any(|(n, u)| n == name && def.defined_line < *u && *u < line);
            (!undone).then(|| def.params.is_none().then(|| def.body.clone()))
        };
        let name = l.rest.trim();
        Some(match l.kind.as_str() {
            "if" | "elif" => cond::eval(&l.rest, &lookup)? != 0,
            "ifdef" => lookup(name).is_some(),
            "ifndef" => lookup(name).is_none(),
            _ => true,
        })
    })
}

/// The innermost file-scope `#if` group of `region` around the error at
/// byte `at`, where its conditions name only macros
/// that nothing defines: neither the unit's headers (`header_macros`, as
/// `clang -dM` has them once the unit is read) nor any directive of the
/// file. The group's text the grammar trips over is code the preprocessor
/// drops (gnulib's regexec.c, shared with glibc, has `#ifdef _LIBC` around
/// glibc's symbol versioning): the branch taken is kept, as in an
/// initializer. A name `-dM` or the file spells is refused, since where the
/// group stands it may be defined or not (an include guard is defined by
/// the time `-dM` looks).
fn undefined_branch(
    rev: &Rev,
    region: Range<usize>,
    at: usize,
    header_macros: &str,
) -> Option<Vec<(Range<usize>, String)>> {
    if header_macros.is_empty() {
        return None;
    }
    let defined = |name: &str| {
        let spelled = |l: &str| {
            let d = l.trim_start().strip_prefix('#').map(str::trim_start);
            let rest = d.and_then(|d| d.strip_prefix("define").or_else(|| d.strip_prefix("undef")));
            rest.is_some_and(|r| {
                r.trim_start().split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next() == Some(name)
            })
        };
        header_macros.lines().chain(rev.text.lines()).any(spelled)
    };
    group_edits(rev, region, false, Some(at), |l: &Logical| {
        let names = l.rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if names
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            .any(|w| w != "defined" && defined(w))
        {
            return None;
        }
        let nothing = |_: &str| None;
        Some(match l.kind.as_str() {
            "if" | "elif" => cond::eval(&l.rest, &nothing)? != 0,
            "ifdef" => false,
            "ifndef" => true,
            _ => true,
        })
    })
}

/// The edits that keep only the taken branch of an `#if` group of `region`
/// inside a file-scope item (`in_item`) or at file scope: the group's
/// directive lines and its other branches made empty. The group is the
/// first, or with `around` the innermost that holds that byte. `holds` says
/// whether a branch's directive (`#if`, `#elif`, `#else`) is taken, or
/// `None` where it cannot tell; the first that holds is taken.
fn group_edits(
    rev: &Rev,
    region: Range<usize>,
    in_item: bool,
    around: Option<usize>,
    holds: impl Fn(&Logical) -> Option<bool>,
) -> Option<Vec<(Range<usize>, String)>> {
    let lines = logical_lines(rev, region);
    let opens = |k: &str| matches!(k, "if" | "ifdef" | "ifndef");
    // Each group's directives at its own depth: the opening, elif/else, endif.
    let group = |start: usize| -> Option<Vec<usize>> {
        let mut marks = vec![start];
        let mut depth = 0;
        for (j, l) in lines.iter().enumerate().skip(start + 1) {
            match l.kind.as_str() {
                k if opens(k) => depth += 1,
                "endif" if depth == 0 => {
                    marks.push(j);
                    return Some(marks);
                }
                "endif" => depth -= 1,
                "elif" | "else" if depth == 0 => marks.push(j),
                _ => {}
            }
        }
        None
    };
    let mut groups = (0..lines.len())
        .filter(|&j| opens(&lines[j].kind) && inside_item(rev, lines[j].lines[0].start) == in_item)
        .filter_map(group)
        .filter(|m| {
            let (first, last) = (&lines[m[0]].lines[0], lines[*m.last().unwrap()].lines.last().unwrap());
            around.is_none_or(|a| first.start <= a && a <= last.end)
        });
    let marks = if around.is_some() { groups.next_back()? } else { groups.next()? };
    let end = *marks.last().unwrap();
    // At file scope the grammar's node of the group holds its `#endif`.
    if in_item && !inside_item(rev, lines[end].lines[0].start) {
        return None;
    }
    let mut taken = None;
    for (k, &m) in marks[..marks.len() - 1].iter().enumerate() {
        if holds(&lines[m])? {
            taken = Some(k);
            break;
        }
    }
    let mut edits = Vec::new();
    for (k, pair) in marks.windows(2).enumerate() {
        let body = if taken == Some(k) { &lines[pair[0]..=pair[0]] } else { &lines[pair[0]..pair[1]] };
        edits.extend(body.iter().flat_map(|l| l.lines.iter().map(|r| (r.clone(), String::new()))));
    }
    edits.extend(lines[end].lines.iter().map(|r| (r.clone(), String::new())));
    Some(edits)
}

/// Where the invocation that broke the parse can be: the statement (or
/// file-scope item) holding the error, the one before it, since a macro
/// that ends a statement early leaves its tail as the next one, and the one
/// after it, since a macro that expands to nothing after a declarator
/// (coreutils' `of_t *files IF_LINT (= NULL);`) leaves the declarator
/// without its `;`.
fn region_of(bad: Node) -> Range<usize> {
    let mut stmt = bad;
    while let Some(p) = stmt.parent() {
        if matches!(p.kind(), "compound_statement" | "translation_unit") {
            break;
        }
        stmt = p;
    }
    let start = stmt.prev_sibling().map_or(stmt.start_byte(), |s| s.start_byte());
    let end = stmt.next_sibling().map_or(stmt.end_byte(), |s| s.end_byte());
    start..end.max(bad.end_byte())
}

/// The definitions of `header_macros` that `text` can reach (their names
/// occur in it, or in the bodies of those it reaches), in force from its
/// start (a file's own definition of a name comes later and wins).
fn header_definitions(header_macros: &str, text: &str) -> Vec<Macro> {
    use std::collections::{HashMap, HashSet};
    if header_macros.is_empty() {
        return Vec::new();
    }
    let words = |s: &'_ str| -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let by_name: HashMap<&str, &str> = header_macros
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("#define ")?;
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            Some((&rest[..end], l))
        })
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut todo = words(text);
    let mut used = String::new();
    while let Some(w) = todo.pop() {
        if !seen.insert(w.clone()) {
            continue;
        }
        if let Some(line) = by_name.get(w.as_str()) {
            // An empty body's trailing space would take the next line in.
            used.push_str(line.trim_end());
            used.push('\n');
            todo.extend(words(line));
        }
    }
    let defs = Rev::new(0, "<headers>".to_string(), used);
    definitions(&defs).into_iter().map(|m| Macro { defined_line: 0, ..m }).collect()
}

/// The revision's `#define`s, in order.
fn definitions(rev: &Rev) -> Vec<Macro> {
    let mut out = Vec::new();
    let mut stack = vec![(rev.tree.root_node(), false)];
    while let Some((n, conditional)) = stack.pop() {
        match n.kind() {
            "preproc_def" | "preproc_function_def" => {
                if let Some(m) = definition(rev, n) {
                    out.push(Macro { conditional, ..m });
                }
            }
            kind => {
                let inner = conditional || kind.starts_with("preproc_if") || kind.starts_with("preproc_el");
                let mut cursor = n.walk();
                let children: Vec<Node> = n.children(&mut cursor).collect();
                stack.extend(children.into_iter().rev().map(|c| (c, inner)));
            }
        }
    }
    out
}

/// Whether a definition under `#if` is the one in force: the headers'
/// macros (`clang -E -dM` of the original file, which the file's own
/// definitions are part of) hold it, with its parameters and body. Without
/// them nobody knows, and it is not used: grep's dfa.c defines `isblank` as
/// `dfa_isblank` under a condition that is false there.
fn in_force(m: &Macro, header_macros: &str) -> bool {
    header_definitions(header_macros, &m.name)
        .iter()
        .any(|h| h.name == m.name && h.params == m.params && h.variadic == m.variadic && h.body == m.body)
}

/// The `#define` lines the grammar read as no definition: inside an item,
/// where the parse failed (sort.c's initializers). Each is parsed alone.
fn stray_definitions(rev: &Rev, known: &[Macro]) -> Vec<Macro> {
    let mut out = Vec::new();
    for l in logical_lines(rev, 0..rev.text.len()).into_iter().filter(|l| l.kind == "define") {
        let last = rev.line(l.lines.last().expect("a line at least").start);
        if known.iter().any(|m| m.defined_line == last) {
            continue;
        }
        let alone = Rev::new(0, String::new(), format!("#define{}\n", l.rest));
        out.extend(definitions(&alone).into_iter().map(|m| Macro { defined_line: last, ..m }));
    }
    out
}

fn definition(rev: &Rev, n: Node) -> Option<Macro> {
    let name = rev.text_of(n.child_by_field_name("name")?).to_string();
    let body = n.child_by_field_name("value").map_or(String::new(), |v| one_line(rev.text_of(v)));
    let (params, variadic) = match n.child_by_field_name("parameters") {
        None => (None, false),
        Some(ps) => {
            let mut names = Vec::new();
            let mut variadic = false;
            let mut cursor = ps.walk();
            for p in ps.named_children(&mut cursor) {
                match p.kind() {
                    "identifier" => names.push(rev.text_of(p).to_string()),
                    "..." | "variadic_parameter" => variadic = true,
                    _ => {}
                }
            }
            variadic |= rev.text_of(ps).contains("...");
            (Some(names), variadic)
        }
    };
    // A definition's node ends after its line's newline.
    Some(Macro {
        name,
        params,
        variadic,
        body,
        defined_line: rev.line(n.end_byte().saturating_sub(1)),
        conditional: false,
    })
}

/// A macro body as the preprocessor sees it: continuations joined, comments
/// turned into spaces, on one line.
fn one_line(body: &str) -> String {
    let joined = body.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out = String::with_capacity(joined.len());
    let mut rest = joined.as_str();
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("//") {
            break;
        }
        if rest.starts_with("/*") {
            rest = rest[2..].find("*/").map_or("", |e| &rest[2 + e + 2..]);
            out.push(' ');
            continue;
        }
        if c == '"' || c == '\'' {
            let end = literal_end(rest);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
        rest = &rest[c.len_utf8()..];
    }
    out.trim().to_string()
}

/// The length of the string or character literal `s` starts with.
fn literal_end(s: &str) -> usize {
    let quote = s.as_bytes()[0];
    let mut i = 1;
    let b = s.as_bytes();
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// The first invocation of a macro in `region` (outside comments, literals
/// and directives) that fits on one line, with its expansion.
fn first_invocation(rev: &Rev, region: Range<usize>, macros: &[Macro]) -> Option<(Range<usize>, String)> {
    let text = rev.text.as_str();
    let mut at = region.start;
    let end = region.end.min(text.len());
    let b = text.as_bytes();
    while at < end {
        let c = b[at];
        if text[at..].starts_with("//") || (c == b'#' && text[..at].rsplit('\n').next()?.trim().is_empty()) {
            at = line_end(text, at);
        } else if text[at..].starts_with("/*") {
            at = text[at + 2..].find("*/").map_or(text.len(), |e| at + 2 + e + 2);
        } else if c == b'"' || c == b'\'' {
            at += literal_end(&text[at..]);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = text[at..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(text.len() - at);
            let word = &text[at..at + len];
            // The last definition before the use is the one in force.
            if let Some(m) = macros.iter().rev().find(|m| m.name == word && m.defined_line < rev.line(at))
                && !READ_AS_WRITTEN.contains(&word)
                && let Some(found) = invocation(text, at, len, m)
            {
                return Some(found);
            }
            at += len;
        } else if c.is_ascii_digit() {
            // A number such as 1e10 is one token, not a word.
            at += text[at..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(1);
        } else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |e| at + e)
}

/// The invocation of `m` whose name is at `at` (`len` bytes), if it is one
/// and fits on its line, with its expansion.
fn invocation(text: &str, at: usize, len: usize, m: &Macro) -> Option<(Range<usize>, String)> {
    let Some(params) = &m.params else {
        return Some((at..at + len, m.body.clone()));
    };
    // A function-like macro's name without arguments is no invocation.
    let open = at + len + (text[at + len..].len() - text[at + len..].trim_start_matches([' ', '\t']).len());
    if text.as_bytes().get(open) != Some(&b'(') {
        return None;
    }
    let (args, close) = arguments(text, open)?;
    // An invocation over several lines (regexec.c's `re_realloc (fs->stack,
    // struct re_fail_stack_ent_t,` and its count below) expands on its first
    // line, and its other lines stay, empty: the lines after keep their
    // numbers. A directive or a line comment among them is not joined.
    let lines = text[at..close].matches('\n').count();
    let inside = &text[at..close];
    if lines > 0 && (inside.contains("//") || inside.lines().skip(1).any(|l| l.trim_start().starts_with('#')))
    {
        return None;
    }
    let args = if args.len() == 1 && args[0].is_empty() && params.is_empty() { Vec::new() } else { args };
    if args.len() < params.len() || (args.len() > params.len() && !m.variadic) {
        return None;
    }
    let expansion = substitute(m, params, &args).replace('\n', " ");
    Some((at..close, format!("{expansion}{}", "\n".repeat(lines))))
}

/// The arguments of an invocation whose `(` is at `open`, split at top-level
/// commas, and where the invocation ends (after its `)`).
fn arguments(text: &str, open: usize) -> Option<(Vec<String>, usize)> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut start = open + 1;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    args.push(text[start..i].trim().to_string());
                    return Some((args, i + 1));
                }
            }
            b',' if depth == 1 => {
                args.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            b'"' | b'\'' => {
                i += literal_end(&text[i..]);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The body with each parameter replaced by its argument (`#p` by the
/// argument as a string, `a ## b` pasted), as the preprocessor does.
fn substitute(m: &Macro, params: &[String], args: &[String]) -> String {
    let value = |word: &str| -> Option<String> {
        if let Some(i) = params.iter().position(|p| p == word) {
            return Some(args[i].clone());
        }
        (word == "__VA_ARGS__" && m.variadic).then(|| args[params.len().min(args.len())..].join(", "))
    };
    let body = m.body.as_str();
    let mut out = String::with_capacity(body.len() + 16);
    let mut i = 0;
    let b = body.as_bytes();
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            let end = i + literal_end(&body[i..]);
            out.push_str(&body[i..end]);
            i = end;
        } else if c == b'#' && body[i..].starts_with("##") {
            // Pasting: the tokens on both sides join.
            while out.ends_with([' ', '\t']) {
                out.pop();
            }
            i += 2;
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
        } else if c == b'#' {
            let rest = body[i + 1..].trim_start();
            let len = rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).unwrap_or(rest.len());
            match value(&rest[..len]) {
                Some(v) => {
                    out.push_str(&stringify(&v));
                    i = body.len() - rest.len() + len;
                }
                None => {
                    out.push('#');
                    i += 1;
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = body[i..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(body.len() - i);
            let word = &body[i..i + len];
            match value(word) {
                Some(v) => out.push_str(&v),
                None => out.push_str(word),
            }
            i += len;
        } else {
            let ch = body[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn stringify(arg: &str) -> String {
    let mut s = String::from("\"");
    for c in arg.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unify::parse::parse_c;

    fn expanded(src: &str) -> String {
        prepare(Rev::new(0, "t.c".into(), src.into())).text
    }

    #[test]
    fn directive_lines_lose_what_the_grammar_trips_over() {
        let src = "#include <stdio.h>]\n#include <string.h>  \n#define DEBUG \n#define N 3\nint a[N];\n";
        let rev = prepare(Rev::new(0, "t.c".into(), src.into()));
        assert_eq!(
            rev.text,
            "#include <stdio.h>\n#include <string.h>\n#define DEBUG\n#define N 3\nint a[N];\n"
        );
        assert!(!rev.tree.root_node().has_error());
        assert_eq!(definitions(&rev).iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["DEBUG", "N"]);
    }

    #[test]
    fn header_macros_expand_through_each_other_where_the_parse_fails() {
        // gnulib's attribute macros, as `clang -E -dM` prints them for a
        // coreutils unit: ATTRIBUTE_PURE names another header's macro.
        let headers = "#define ATTRIBUTE_PURE _GL_ATTRIBUTE_PURE\n\
                       #define _GL_ATTRIBUTE_PURE __attribute__ ((__pure__))\n\
                       #define UNUSED_ELSEWHERE 1\n#define N 7\n";
        let src = "ATTRIBUTE_PURE\nstatic int\nf (int x)\n{\n  return x + N;\n}\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        // Only what the parse needed expands; N stays as written.
        assert_eq!(rev.text, "__attribute__ ((__pure__))\nstatic int\nf (int x)\n{\n  return x + N;\n}\n");
        // A file that parses is left alone, and without headers nothing expands.
        let fine = "static int g (void) { return N; }\n";
        assert_eq!(prepare_with(Rev::new(0, "t.c".into(), fine.into()), headers).text, fine);
        assert!(prepare(Rev::new(0, "t.c".into(), src.into())).tree.root_node().has_error());
        // A file's own definition comes after the headers' and wins.
        let own = "#define ATTRIBUTE_PURE\nATTRIBUTE_PURE\nstatic int h (void) { return 0; }\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), own.into()), headers);
        assert!(!rev.text.contains("__pure__"), "{}", rev.text);
    }

    #[test]
    fn a_header_macro_that_expands_to_nothing_after_a_declarator() {
        // coreutils' system.h, without `lint`: `IF_LINT (= NULL)` is nothing.
        // `clang -dM` ends an empty body with a space, which must not take
        // the next definition in.
        let headers = "#define ENFILE 23\n#define IF_LINT(Code) \n#define NULL ((void*)0)\n";
        let src =
            "int f (int k)\n{\n  int w = ENFILE;\n  char *files IF_LINT (= NULL);\n  return k + w;\n}\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        assert!(rev.text.contains("  char *files ;\n"), "{}", rev.text);
    }

    #[test]
    fn an_x_macro_table_scoped_to_an_initializer() {
        // coreutils' sort.c: a helper defined and undefined inside each
        // initializer, the table expanded through it.
        let src = "#define TABLE \\\n  _ct_(\"quiet\", 'C') \\\n  _ct_(\"silent\", 'c')\n\
                   static char const *const args[] =\n{\n#define _ct_(_s, _c) _s,\n  TABLE NULL\n#undef _ct_\n};\n\
                   static char const types[] =\n{\n#define _ct_(_s, _c) _c,\n  TABLE\n#undef _ct_\n};\n\
                   int f (void) { return types[0]; }\n";
        let rev = prepare(Rev::new(0, "t.c".into(), src.into()));
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        let words: Vec<&str> = rev.text.split_whitespace().collect();
        assert!(
            words.windows(6).any(|w| w == ["{", "\"quiet\",", "\"silent\",", "NULL", "};", "static"]),
            "{words:?}"
        );
        assert!(words.windows(4).any(|w| w == ["{", "'C',", "'c',", "};"]), "{words:?}");
        assert_eq!(rev.text.lines().count(), src.lines().count());
        // A definition inside an item that outlives it stays, and the error with it.
        let open = "static int a[] =\n{\n#define ONE 1,\n  ONE 2\n};\nint g (void) { return ONE 0; }\n";
        assert!(prepare(Rev::new(0, "t.c".into(), open.into())).tree.root_node().has_error());
    }

    #[test]
    fn a_comment_across_a_macro_s_continued_lines_becomes_spaces() {
        // coreutils' printf.c: STRTOX defines a function, a comment in it.
        let src = "#define STRTOX(T, F) \\\nstatic T F (int x) \\\n{ \\\n  /* warn that there \\\n     are more. */ \\\n  return x; /* one */ \\\n}\n\nSTRTOX (int, f)\n";
        let rev = prepare(Rev::new(0, "t.c".into(), src.into()));
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        assert!(!rev.text.contains("warn") && !rev.text.contains("more."), "{}", rev.text);
        assert!(!rev.text.contains("one"), "{}", rev.text);
        let one_line = "#define N 3 /* three */\nint a[N];\n";
        assert_eq!(prepare(Rev::new(0, "t.c".into(), one_line.into())).text, one_line);
        assert_eq!(rev.text.lines().count(), src.lines().count(), "{}", rev.text);
        assert!(parse_c(src).root_node().has_error(), "the grammar alone trips over it");
    }

    #[test]
    fn the_branch_the_preprocessor_takes_inside_an_initializer() {
        // coreutils' sort.c: `unit_order` under a condition on the charset.
        let src = "#define BIG 1\nstatic char const order[4] =\n  {\n#if ! ('K' == 75 && 'M' == 77 \\\n     && 'k' == 107)\n    ['K']=1,\n#elif defined BIG\n# ifdef NOPE\n    9,\n# endif\n    1, 2, 3, 4\n#else\n    5, 6\n#endif\n  };\nint f (void) { return order[0]; }\n";
        let rev = prepare(Rev::new(0, "t.c".into(), src.into()));
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        let words: Vec<&str> = rev.text.split_whitespace().collect();
        assert!(words.windows(6).any(|w| w == ["{", "1,", "2,", "3,", "4", "};"]), "{}", rev.text);
        assert_eq!(rev.text.lines().count(), src.lines().count());
        // A condition it cannot compute leaves the error to be reported.
        let unknown = src.replace("defined BIG", "F (1)").replace("#define BIG 1", "#define F(x) x");
        assert!(prepare(Rev::new(0, "t.c".into(), unknown)).tree.root_node().has_error());
    }

    #[test]
    fn an_invocation_over_two_lines_expands_on_its_first() {
        // regexec.c: a type for an argument, the count on the next line.
        let headers = "#define re_realloc(p,t,n) ((t *) realloc (p, (n) * sizeof (t)))\n";
        let src = "struct e { int a; };\nstruct e *f (struct e *s, int n)\n{\n  s = re_realloc (s, struct e,\n                  n * 2);\n  return s;\n}\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        let lines: Vec<&str> = rev.text.lines().collect();
        assert_eq!(lines.len(), src.lines().count());
        assert!(
            lines[3].contains("realloc (s, (n * 2) * sizeof (struct e))") && lines[4].trim() == ";",
            "{}",
            rev.text
        );
    }

    #[test]
    fn a_group_on_macros_nothing_defines_keeps_its_taken_branch() {
        // gnulib's regexec.c, shared with glibc: symbol versioning and a
        // return type's attribute under `_LIBC`, which no header defines.
        let headers = "#define GUARD_H 1\n";
        let src = "int f (void) { return 0; }\n#ifdef _LIBC\nweak_alias (f, g)\n#endif\n\n#if defined _REGEX_RE_COMP || defined _LIBC\nint\n# ifdef _LIBC\nweak_function\n# endif\nre_exec (const char *s)\n{\n  return 1;\n}\n#endif /* _REGEX_RE_COMP */\nint h (void) { return f (); }\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        // The innermost group around each error goes (re_exec's, whose
        // `int` the grammar trips over), code around it stays.
        for gone in ["weak_alias", "weak_function", "re_exec"] {
            assert!(!rev.text.contains(gone), "{}", rev.text);
        }
        assert!(rev.text.starts_with("int f (void)") && rev.text.ends_with("return f (); }\n"));
        assert_eq!(rev.text.lines().count(), src.lines().count());
        // A name a header defines may hold where the group stands: refused.
        let guarded = format!("#define _LIBC 1\n{headers}");
        assert!(prepare_with(Rev::new(0, "t.c".into(), src.into()), &guarded).tree.root_node().has_error());
        // And so is every group without the headers' word.
        assert!(prepare(Rev::new(0, "t.c".into(), src.into())).tree.root_node().has_error());
    }

    #[test]
    fn a_hint_attribute_the_grammar_cannot_place_is_dropped() {
        // grep's dfa.c, gnulib's _GL_ATTRIBUTE_PURE after a return type's `*`.
        let headers = "#define _GL_ATTRIBUTE_PURE __attribute__ ((__pure__))\n";
        let src = "struct t { int a; };\nstatic const struct t *_GL_ATTRIBUTE_PURE\nfind (const char *s)\n{\n  return 0;\n}\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        assert!(rev.text.contains("static const struct t *\nfind"), "{}", rev.text);
        // One that changes what the program does stays, and so does the error.
        let packed = src.replace("_GL_ATTRIBUTE_PURE", "__attribute__ ((aligned (8)))");
        assert!(prepare(Rev::new(0, "t.c".into(), packed)).tree.root_node().has_error());
    }

    #[test]
    fn a_definition_under_an_if_expands_only_where_it_is_in_force() {
        // grep's dfa.c: `isblank` is `dfa_isblank` only where the C library
        // has no isblank; a loop macro under a condition that holds.
        let src = "#if !defined isblank\n# define isblank dfa_isblank\n#endif\n#ifdef LOOPS\n# define REP(i, n) for (i = 0; i < (n); i++)\n#endif\nint f(int n) {\n  int i, s = isblank (n);\n  REP(i, n) { s += i; }\n  return s;\n}\n";
        let headers = "#define LOOPS 1\n#define REP(i,n) for (i = 0; i < (n); i++)\n";
        let rev = prepare_with(Rev::new(0, "t.c".into(), src.into()), headers);
        assert!(!rev.tree.root_node().has_error(), "{}", rev.text);
        assert!(rev.text.contains("s = isblank (n);") && rev.text.contains("  for (i = 0;"), "{}", rev.text);
        // Without the headers' word on it, a conditional definition is not used.
        assert!(prepare(Rev::new(0, "t.c".into(), src.into())).tree.root_node().has_error());
    }

    #[test]
    fn loop_header_macros_expand_where_the_parse_fails() {
        let src = "#define REP(i, n) for (i = 0; i < (n); i++)\nint f(int n) {\n  int i, s = 0;\n  REP(i, n) { s += i; }\n  return s;\n}\n";
        let out = expanded(src);
        assert!(out.contains("  for (i = 0; i < (n); i++) { s += i; }\n"), "{out}");
        assert!(out.starts_with("#define REP(i, n) for"), "the definition stays: {out}");
    }

    #[test]
    fn nested_and_object_like_macros_expand() {
        let src = "#define REP(i,a,b) for(i=a;i<b;i++)\n#define rep(i,n) REP(i,0,n)\n#define and &&\nint f(int n, int m) {\n  int i, s = 0;\n  rep(i,n) if (i > 1 and i < m) s++;\n  return s;\n}\n";
        let out = expanded(src);
        assert!(out.contains("  for(i=0;i<n;i++) if (i > 1 && i < m) s++;\n"), "{out}");
    }

    #[test]
    fn files_that_parse_are_left_alone() {
        let src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint f(int x) { return MAX(x, 3); }\n";
        assert_eq!(expanded(src), src);
    }

    #[test]
    fn stringify_paste_and_variadic_arguments() {
        let m = Macro {
            name: "P".into(),
            params: Some(vec!["a".into(), "b".into()]),
            variadic: true,
            body: "printf(#a \"%d\" , a ## b, __VA_ARGS__)".into(),
            conditional: false,
            defined_line: 0,
        };
        let args: Vec<String> = ["x", "1", "y", "z"].map(String::from).to_vec();
        assert_eq!(substitute(&m, m.params.as_ref().unwrap(), &args), "printf(\"x\" \"%d\" , x1, y, z)");
    }

    #[test]
    fn positions_map_back_to_the_revision_s_own_columns() {
        let src = "#define FOR(i,a,b) for(i=a;i<b;i++)\nint f(int n) {\n  int i, s = 0;\n  FOR(i,0,n) s += i; return s;\n}\n";
        let rev = prepare(Rev::new(0, "t.c".into(), src.into()));
        let at = rev.text.find("return").unwrap();
        let p = rev.pos(at);
        assert_eq!((p.line, p.col), (4, 22), "{}", rev.text);
        // Inside the expansion: the invocation's start.
        let p = rev.pos(rev.text.find("i<n").unwrap());
        assert_eq!((p.line, p.col), (4, 3));
    }
}
