//! Printing the merged tree as the meta program, recording sites and the
//! line-level source map as it goes. Sites are numbered as they are printed,
//! which is source order.
//!
//! Layout: shared and split code keeps the representative's text; a statement
//! lands at its original line indentation plus one unit per meta branch around
//! it; continuation lines move with their statement.

use super::align::Elem;
use super::decl::parameter_count;
use super::merge::{Body, Ctx, ExprSite, Fill, Item, Shape, StmtSite, Style};
use super::meta::{CodeSpan, LineOrigin, LineSpan, Site, SiteKind, Variant};
use super::parse::Rev;
use super::toplevel::{FileMerge, MainVariant, TopEntry};

pub(crate) struct Printed {
    pub text: String,
    pub line_map: Vec<Vec<LineOrigin>>,
    pub sites: Vec<Site>,
}

/// Where a meta file stands among the files of one program: the id of its
/// first site, and whether it defines `__psychic_revisions` or only declares
/// it (the program's link would find two definitions).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    pub first_site: usize,
    pub defines_revisions: bool,
}

impl Part {
    /// A program of one file.
    pub const WHOLE: Part = Part { first_site: 1, defines_revisions: true };
}

/// Prints `file` after `header` (a comment, no trailing newline).
pub(crate) fn print(ctx: &Ctx, file: &FileMerge, header: &str, revisions: usize, part: Part) -> Printed {
    let mut p = Printer {
        ctx,
        unit: indent_unit(&ctx.revs[0].text),
        text: String::new(),
        map: vec![Vec::new()],
        sites: Vec::new(),
        first_site: part.first_site,
        function: String::new(),
    };
    p.put(header, &[]);
    let decl = format!(
        "{}{}",
        if file.has_klee { "" } else { "#include <klee/klee.h>\n" },
        if part.defines_revisions {
            format!("const int __psychic_revisions = {revisions};")
        } else {
            "extern const int __psychic_revisions;".to_string()
        }
    );
    let mut blank_next = false;
    if file.decl_at == 0 {
        p.put(&format!("\n{decl}"), &[]);
        blank_next = true;
    }
    for (i, entry) in file.entries.iter().enumerate() {
        let blank = blank_next
            || i > 0
                && match entry {
                    TopEntry::Item(item) => {
                        let (rev, start) = first_pos(item);
                        blank_line_before(&ctx.revs[rev], start)
                    }
                    TopEntry::Prototype(e) => blank_line_before(&ctx.revs[e.rev], e.start),
                    TopEntry::Dispatch(_) => true,
                };
        p.put(if blank { "\n\n" } else { "\n" }, &[]);
        blank_next = false;
        match entry {
            TopEntry::Item(item) => {
                p.function = function_name(ctx, item);
                p.item(item, 0, false);
            }
            TopEntry::Prototype(e) => {
                let r = &ctx.revs[e.rev];
                let sig = match knr_parameters(e.node) {
                    // A K&R definition's identifier list and parameter
                    // declarations make no declaration: `int f();` does.
                    Some((params, end)) => format!(
                        "{}(){}",
                        r.src(e.node.start_byte()..params.start_byte()),
                        r.src(params.end_byte()..end)
                    ),
                    None => {
                        let body =
                            e.node.child_by_field_name("body").map_or(e.node.end_byte(), |b| b.start_byte());
                        r.src(e.node.start_byte()..body).trim_end().to_string()
                    }
                };
                p.put(
                    &format!("{sig}; /* moved by some revisions; defined below */"),
                    &[(e.rev, r.line(e.start))],
                );
            }
            TopEntry::Dispatch(variants) => {
                p.function = "main".to_string();
                p.dispatch(variants);
            }
        }
        if i + 1 == file.decl_at {
            p.put(&format!("\n{decl}"), &[]);
            blank_next = true;
        }
    }
    if let Some((rev, range)) = &file.trailer {
        let r = &ctx.revs[*rev];
        p.put("\n\n", &[]);
        p.src(r.src(range.clone()), &[(*rev, r.line(range.start), r.line(range.end))]);
    }
    p.put("\n", &[]);
    // The final newline opens no line.
    p.map.pop();
    Printed { text: p.text, line_map: p.map, sites: p.sites }
}

fn first_pos(item: &Item) -> (usize, usize) {
    match item {
        Item::Shared(es) | Item::Split { elems: es, .. } => (es[0].rev, es[0].start),
        Item::Site(s) => s.indent_at,
    }
}

fn function_name(ctx: &Ctx, item: &Item) -> String {
    match item {
        Item::Shared(es) | Item::Split { elems: es, .. } if es[0].node.kind() == "function_definition" => es
            [0]
        .node
        .child_by_field_name("declarator")
        .and_then(super::decl::declarator_name)
        .map_or_else(String::new, |n| ctx.revs[es[0].rev].text_of(n).to_string()),
        _ => String::new(),
    }
}

/// Whether the original separates the code at `at` from what precedes it by a blank line.
fn blank_line_before(rev: &Rev, at: usize) -> bool {
    let before = rev.text[..at].trim_end_matches([' ', '\t']);
    let gap = &before[before.trim_end().len()..];
    gap.matches('\n').count() >= 2
}

/// The file's indentation step: a tab, or the smallest indentation in spaces (2 to 8).
fn indent_unit(text: &str) -> String {
    if text.lines().any(|l| l.starts_with('\t')) {
        return "\t".to_string();
    }
    let min = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('*'))
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .filter(|&n| n > 0)
        .min()
        .unwrap_or(4);
    " ".repeat(min.clamp(2, 8))
}

/// `s` with the indentation `from` at the start of each line after the first
/// replaced by `to`.
fn reindent(s: &str, from: &str, to: &str) -> String {
    if from == to {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if let Some(rest) = line.strip_prefix(from) {
                out.push_str(to);
                out.push_str(rest);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

fn revisions_comment(revs: &[usize]) -> String {
    let list = revs.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    format!("/* revision{} {list} */", if revs.len() > 1 { "s" } else { "" })
}

/// The test that revision `__klee_meta(id)` is one of `revs`: a chain of
/// comparisons while it is short enough to read, else the set as hex digits
/// (`__klee_meta_in`), four revisions each: a chain costs a call and a
/// branch per revision, natively and in the engine alike, and at 10,000
/// revisions a site's chain was 3,500 long.
fn selector(id: usize, revs: &[usize]) -> String {
    if revs.len() <= MAX_CHAIN {
        return revs.iter().map(|r| format!("__klee_meta({id}) == {r}")).collect::<Vec<_>>().join(" || ");
    }
    let last = revs.iter().max().copied().unwrap_or(0);
    let mut digits = vec![0u8; last / 4 + 1];
    for &r in revs {
        digits[r / 4] |= 1 << (r % 4);
    }
    let hex: String = digits.iter().map(|&d| char::from_digit(u32::from(d), 16).expect("a nibble")).collect();
    format!("__klee_meta_in({id}, \"{hex}\")")
}

/// The most revisions a variant's test compares one by one.
const MAX_CHAIN: usize = 8;

struct Printer<'c, 't> {
    ctx: &'c Ctx<'t>,
    unit: String,
    text: String,
    /// One entry per line begun so far; the last is the current line.
    map: Vec<Vec<LineOrigin>>,
    sites: Vec<Site>,
    /// The id of `sites[0]`.
    first_site: usize,
    /// The function being printed, as named in the meta program.
    function: String,
}

impl Printer<'_, '_> {
    fn rev(&self, i: usize) -> &Rev {
        &self.ctx.revs[i]
    }

    /// The current line (1-based).
    fn line(&self) -> usize {
        self.map.len()
    }

    fn origin(&mut self, revision: usize, line: usize) {
        let cur = self.map.last_mut().expect("a current line");
        if !cur.iter().any(|o| o.revision == revision) {
            cur.push(LineOrigin { revision, line });
        }
    }

    /// Generated text; every line it touches belongs to `origins`.
    fn put(&mut self, s: &str, origins: &[(usize, usize)]) {
        for (i, part) in s.split('\n').enumerate() {
            if i > 0 {
                self.text.push('\n');
                self.map.push(Vec::new());
            }
            self.text.push_str(part);
            if !part.is_empty() {
                for &(r, l) in origins {
                    self.origin(r, l);
                }
            }
        }
    }

    /// Source text: its k-th line is line `first + k` (at most `last`) of each revision.
    fn src(&mut self, s: &str, origins: &[(usize, usize, usize)]) {
        for (i, part) in s.split('\n').enumerate() {
            if i > 0 {
                self.text.push('\n');
                self.map.push(Vec::new());
            }
            self.text.push_str(part);
            for &(r, first, last) in origins {
                self.origin(r, (first + i).min(last));
            }
        }
    }

    /// The indentation of code that starts at byte `at` of `rev`, `extra` branches deep.
    fn target(&self, rev: usize, at: usize, extra: usize) -> String {
        let r = self.rev(rev);
        let mut s = r.line_indent(at).to_string();
        if !r.starts_line(at) {
            s.push_str(&self.unit);
        }
        s.push_str(&self.unit.repeat(extra));
        s
    }

    fn target_of(&self, item: &Item, extra: usize) -> String {
        let (rev, at) = first_pos(item);
        self.target(rev, at, extra)
    }

    /// Prints `item` from the current position (its indentation is printed).
    /// `inline`: it continues a line of its parent's instead of starting its own.
    fn item(&mut self, item: &Item, extra: usize, inline: bool) {
        match item {
            Item::Shared(es) => {
                let e = es[0];
                let (from, to) = self.indents(&e, extra, inline);
                let r = self.rev(e.rev);
                let text = reindent(r.src(e.start..e.end), &from, &to);
                let origins = self.origins(es, e.start);
                self.src(&text, &origins);
            }
            Item::Split { elems, holes } => {
                let e = elems[0];
                let (from, to) = self.indents(&e, extra, inline);
                let mut pos = e.start;
                for hole in holes {
                    self.template(elems, pos..hole.range.start, &from, &to);
                    match &hole.fill {
                        Fill::Expr(site) => self.expr_site(site, extra),
                        Fill::Body(body) => self.body(body, e.rev, extra),
                    }
                    pos = hole.range.end;
                }
                self.template(elems, pos..e.end, &from, &to);
            }
            Item::Site(site) => self.stmt_site(site, extra),
        }
    }

    /// The indentation `e` has in its revision and the one it gets here.
    fn indents(&self, e: &Elem, extra: usize, inline: bool) -> (String, String) {
        let from = self.rev(e.rev).line_indent(e.start).to_string();
        let to = if inline {
            format!("{from}{}", self.unit.repeat(extra))
        } else {
            self.target(e.rev, e.start, extra)
        };
        (from, to)
    }

    /// Where the text at byte `at` of the first of `es` is in every revision of `es`.
    fn origins(&self, es: &[Elem], at: usize) -> Vec<(usize, usize, usize)> {
        let rep = self.rev(es[0].rev);
        let offset = rep.line(at) - rep.line(es[0].start);
        es.iter()
            .map(|e| {
                let r = self.rev(e.rev);
                let (first, last) = (r.line(e.start), r.line(e.end));
                (e.rev, (first + offset).min(last), last)
            })
            .collect()
    }

    fn template(&mut self, es: &[Elem], range: std::ops::Range<usize>, from: &str, to: &str) {
        if range.is_empty() {
            return;
        }
        let text = reindent(self.rev(es[0].rev).src(range.clone()), from, to);
        let origins = self.origins(es, range.start);
        self.src(&text, &origins);
    }

    fn body(&mut self, body: &Body, rev: usize, extra: usize) {
        match body.shape {
            Shape::Inline => self.item(&body.items[0], extra, true),
            Shape::Braced { lead } => {
                let close =
                    format!("{}{}", self.rev(rev).line_indent(body.close_at), self.unit.repeat(extra));
                match lead.strip_prefix('\n') {
                    Some(rest) => self.put(&format!("\n{close}{rest}{{"), &[]),
                    None => self.put(&format!("{lead}{{"), &[]),
                }
                self.lines(&body.items, extra);
                if let Some(t) = &body.trailer {
                    let r = self.rev(rev);
                    let (from, to) = (r.line_indent(t.start).to_string(), self.target(rev, t.start, extra));
                    let text = reindent(r.src(t.clone()), &from, &to);
                    let (first, last) = (r.line(t.start), r.line(t.end));
                    self.put(&format!("\n{to}"), &[]);
                    self.src(&text, &[(rev, first, last)]);
                }
                let close =
                    format!("{}{}", self.rev(rev).line_indent(body.close_at), self.unit.repeat(extra));
                let line = self.rev(rev).line(body.close_at);
                self.put(&format!("\n{close}}}"), &[(rev, line)]);
            }
            Shape::Lines => self.lines(&body.items, extra),
        }
    }

    /// Each item on a line of its own.
    fn lines(&mut self, items: &[Item], extra: usize) {
        for item in items {
            let ind = self.target_of(item, extra);
            self.put(&format!("\n{ind}"), &[]);
            self.item(item, extra, false);
        }
    }

    /// Reserves the next site id, so that an enclosing site numbers before the
    /// sites nested in it.
    fn reserve(&mut self, kind: SiteKind) -> usize {
        let id = self.first_site + self.sites.len();
        let lines = LineSpan { start: self.line(), end: self.line() };
        self.sites.push(Site { id, kind, function: self.function.clone(), lines, variants: Vec::new() });
        id
    }

    fn finish(&mut self, id: usize, start: usize, variants: Vec<Variant>) {
        let end = self.line();
        let s = &mut self.sites[id - self.first_site];
        s.lines = LineSpan { start, end };
        s.variants = variants;
    }

    fn code(&self, spans: &[(usize, std::ops::Range<usize>)], revs: &[usize]) -> Vec<CodeSpan> {
        spans
            .iter()
            .filter(|(r, _)| revs.contains(r))
            .map(|(r, range)| {
                let rev = self.rev(*r);
                CodeSpan { revision: *r, start: rev.pos(range.start), end: rev.pos(range.end) }
            })
            .collect()
    }

    fn stmt_site(&mut self, site: &StmtSite, extra: usize) {
        let id = self.reserve(site.kind);
        let start = self.line();
        let ind = self.target(site.indent_at.0, site.indent_at.1, extra);
        let mut variants = Vec::new();
        for (vi, v) in site.variants.iter().enumerate() {
            let origins: Vec<(usize, usize)> = site
                .spans
                .iter()
                .filter(|(r, _)| v.revs.contains(r))
                .map(|(r, range)| (*r, self.rev(*r).line(range.start)))
                .collect();
            let comment = revisions_comment(&v.revs);
            let header = if vi == 0 {
                format!("if ({}) {{ {comment}", selector(id, &v.revs))
            } else if vi + 1 < site.variants.len() {
                format!("\n{ind}}} else if ({}) {{ {comment}", selector(id, &v.revs))
            } else {
                format!("\n{ind}}} else {{ {comment}")
            };
            self.put(&header, &origins);
            let first = self.line();
            self.lines(&v.items, extra + 1);
            variants.push(Variant {
                revisions: v.revs.clone(),
                lines: LineSpan { start: first, end: self.line() },
                code: self.code(&site.spans, &v.revs),
            });
        }
        let all: Vec<(usize, usize)> =
            site.spans.iter().map(|(r, range)| (*r, self.rev(*r).line(range.end))).collect();
        self.put(&format!("\n{ind}}}"), &all);
        self.finish(id, start, variants);
    }

    /// A `main` that calls each revision's own, renamed `main`.
    fn dispatch(&mut self, variants: &[MainVariant]) {
        let ctx = self.ctx;
        let params = |d: &Elem| parameter_count(&ctx.revs[d.rev], d.node);
        let envp = variants.iter().flat_map(|v| &v.defs).any(|d| params(d) >= 3);
        let sig = if envp {
            "int main(int argc, char **argv, char **envp)"
        } else {
            "int main(int argc, char **argv)"
        };
        self.put(&format!("/* The main of each revision, renamed above. */\n{sig} {{\n{}", self.unit), &[]);
        let id = self.reserve(SiteKind::Statement);
        let start = self.line();
        let ind = self.unit.clone();
        let mut out = Vec::new();
        for (vi, v) in variants.iter().enumerate() {
            let origins: Vec<(usize, usize)> =
                v.defs.iter().map(|d| (d.rev, self.rev(d.rev).line(d.start))).collect();
            let comment = revisions_comment(&v.revs);
            let header = match vi {
                0 => format!("if ({}) {{ {comment}", selector(id, &v.revs)),
                _ if vi + 1 < variants.len() => {
                    format!("\n{ind}}} else if ({}) {{ {comment}", selector(id, &v.revs))
                }
                _ => format!("\n{ind}}} else {{ {comment}"),
            };
            self.put(&header, &origins);
            let first = self.line();
            let d = &v.defs[0];
            let r = &ctx.revs[d.rev];
            let args = ["", "argc", "argc, argv", "argc, argv, envp"][params(d).min(3)];
            let returns_void = d.node.child_by_field_name("type").is_some_and(|t| r.text_of(t) == "void");
            let call = if returns_void {
                format!("{}({args});\n{ind}{ind}return 0;", v.meta_name)
            } else {
                format!("return {}({args});", v.meta_name)
            };
            self.put(&format!("\n{ind}{ind}{call}"), &origins);
            let code = v
                .revs
                .iter()
                .map(|&q| {
                    let rev = self.rev(q);
                    let (s, e) = v.defs.iter().find(|d| d.rev == q).map_or((0, 0), |d| (d.start, d.end));
                    CodeSpan { revision: q, start: rev.pos(s), end: rev.pos(e) }
                })
                .collect();
            out.push(Variant {
                revisions: v.revs.clone(),
                lines: LineSpan { start: first, end: self.line() },
                code,
            });
        }
        self.put(&format!("\n{ind}}}\n}}"), &[]);
        self.finish(id, start, out);
    }

    fn expr_site(&mut self, site: &ExprSite, extra: usize) {
        let id = self.reserve(site.kind);
        let start = self.line();
        let mut variants = Vec::new();
        let last = site.variants.len() - 1;
        for (vi, v) in site.variants.iter().enumerate() {
            if vi < last {
                self.put(&format!("({}) ? ", selector(id, &v.revs)), &[]);
            }
            self.put(&format!("{} ", revisions_comment(&v.revs)), &[]);
            let first = self.line();
            let (prefix, suffix, absent) = match &site.style {
                Style::Cond => ("!!(".to_string(), ")", "1"),
                Style::Void => ("(void)(".to_string(), ")", "(void)0"),
                Style::Typed(name) => (format!("(__typeof__({name}))("), ")", "0"),
            };
            match v.expr {
                Some((r, node)) => {
                    let rev = self.rev(r);
                    let from = rev.line_indent(node.start_byte()).to_string();
                    let text =
                        reindent(rev.text_of(node), &from, &format!("{from}{}", self.unit.repeat(extra)));
                    let origins: Vec<(usize, usize, usize)> = site
                        .spans
                        .iter()
                        .filter(|(q, _)| v.revs.contains(q))
                        .map(|(q, range)| (*q, self.rev(*q).line(range.start), self.rev(*q).line(range.end)))
                        .collect();
                    self.put(&prefix, &[]);
                    self.src(&text, &origins);
                    self.put(suffix, &[]);
                }
                None => self.put(absent, &[]),
            }
            variants.push(Variant {
                revisions: v.revs.clone(),
                lines: LineSpan { start: first, end: self.line() },
                code: self.code(&site.spans, &v.revs),
            });
            if vi < last {
                self.put(" : ", &[]);
            }
        }
        self.finish(id, start, variants);
    }
}

/// A K&R function definition's parameter list (its identifiers), and where
/// its declarator ends.
fn knr_parameters(def: tree_sitter::Node) -> Option<(tree_sitter::Node, usize)> {
    let declarator = def.child_by_field_name("declarator")?;
    if !def.named_children(&mut def.walk()).any(|c| c.kind() == "declaration") {
        return None;
    }
    let mut d = Some(declarator);
    while let Some(n) = d {
        if n.kind() == "function_declarator" {
            return Some((n.child_by_field_name("parameters")?, declarator.end_byte()));
        }
        d = n.child_by_field_name("declarator");
    }
    None
}
