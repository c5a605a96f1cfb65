//! File-scope items: what each is, the key that matches it across revisions
//! (kind and name), the names it defines, and its signature.
//!
//! `merge_file` aligns items by key and merges each slot (shared, a function
//! whose bodies merge, a prototype for a moved function: `int f();` for a K&R
//! definition). Items are paired by the key they had before renaming, so
//! `limit__rev1` keeps the place of the `limit` it renames (then takes a slot
//! of its own there); an item the alignment still put in two slots is joined
//! where no revision's order stands between them, and refused only otherwise.
//! Includes are paired by the header they name and unioned (`includes`);
//! when every revision includes its headers first, they all go first.
//! Directives are found with `grammars/directives.scm`.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::ops::Range;

use tree_sitter::{Node, Query, QueryCursor, StreamingIterator};

use super::align::{Elem, Keys, align, elems};
use super::decl::{Name, declarator_name, declarators, declares_function, defined_names};
use super::error::{Loc, UnifyError};
use super::includes::{self, Header};
use super::merge::{Ctx, Fill, Hole, Item, MergeError};
use super::parse::{Rev, children, hash_of, named_children, token_key, tokens, words};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemKind {
    /// `#include`.
    Include,
    /// `#define`.
    Define,
    /// Any other directive or conditional block (`#if`, `#pragma`, `#undef`, ...).
    Preproc,
    Function,
    /// Declarations, type definitions, struct/union/enum definitions.
    Other,
}

pub(crate) struct TopItem<'t> {
    pub elem: Elem<'t>,
    pub kind: ItemKind,
    /// Equal for the "same" item in two revisions: its kind and name.
    pub key: String,
    /// Names the item defines, with the defining identifier.
    pub names: Vec<(Name, Node<'t>)>,
    /// A function's tokens without its body: two definitions of a function with
    /// different signatures collide (other items collide unless `full` agrees).
    sig: Option<u64>,
    /// All its tokens, computed when first asked for.
    full: OnceCell<u64>,
}

impl TopItem<'_> {
    pub fn full(&self, rev: &Rev) -> u64 {
        *self.full.get_or_init(|| token_key(&rev.text, self.elem.node))
    }

    /// The item's interface: a function's signature, any other item's tokens.
    pub fn sig(&self, rev: &Rev) -> u64 {
        self.sig.unwrap_or_else(|| self.full(rev))
    }

    pub fn function_name(&self, rev: &Rev) -> Option<String> {
        (self.kind == ItemKind::Function).then(|| {
            self.elem
                .node
                .child_by_field_name("declarator")
                .and_then(declarator_name)
                .map_or_else(String::new, |n| rev.text_of(n).to_string())
        })
    }
}

/// The file-scope items of `rev`, and the range of comments after the last.
pub(crate) fn items<'t>(rev: &'t Rev) -> (Vec<TopItem<'t>>, Option<Range<usize>>) {
    let (elems, trailer) = elems(rev, children(rev.tree.root_node()));
    (elems.into_iter().map(|e| item(rev, e)).collect(), trailer)
}

fn item<'t>(rev: &'t Rev, elem: Elem<'t>) -> TopItem<'t> {
    let node = elem.node;
    let text = rev.text_of(node);
    let first_line = || text.lines().next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    let names = match node.kind() {
        k if k.starts_with("preproc_") && !matches!(k, "preproc_def" | "preproc_function_def") => Vec::new(),
        _ => defined_names(rev, node),
    };
    let joined = |ns: &[(Name, Node)]| ns.iter().map(|(n, _)| n.text.as_str()).collect::<Vec<_>>().join(",");
    let (kind, key) = match node.kind() {
        "preproc_include" => {
            let path = node.child_by_field_name("path");
            (ItemKind::Include, format!("#include {}", path.map_or("", |p| rev.text_of(p))))
        }
        "preproc_def" | "preproc_function_def" => (ItemKind::Define, format!("#define {}", joined(&names))),
        k if k.starts_with("preproc_") => (ItemKind::Preproc, first_line()),
        "function_definition" => (ItemKind::Function, format!("fn {}", joined(&names))),
        "declaration" => {
            let ds = declarators(node);
            let what =
                if !ds.is_empty() && ds.iter().all(|d| declares_function(*d)) { "proto" } else { "decl" };
            (
                ItemKind::Other,
                format!("{what} {}", if names.is_empty() { first_line() } else { joined(&names) }),
            )
        }
        "type_definition" => (ItemKind::Other, format!("typedef {}", joined(&names))),
        "struct_specifier" | "union_specifier" | "enum_specifier" => (
            ItemKind::Other,
            format!("{} {}", node.kind(), if names.is_empty() { first_line() } else { joined(&names) }),
        ),
        _ => (ItemKind::Other, format!("other {}", first_line())),
    };
    let sig = (kind == ItemKind::Function).then(|| {
        let mut toks = Vec::new();
        for c in children(node).into_iter().filter(|c| Some(*c) != node.child_by_field_name("body")) {
            tokens(&rev.text, c, &mut toks);
        }
        hash_of(&toks)
    });
    TopItem { elem, kind, key, names, sig, full: OnceCell::new() }
}

/// A preprocessor directive, as far as renaming cares.
pub(crate) struct Directive {
    pub at: Loc,
    /// The macro it defines, if any.
    pub defines: Option<String>,
    /// The text whose identifiers the preprocessor reads: a macro body, an
    /// `#if` condition, an `#ifdef` name, a pragma's argument.
    pub text: String,
    /// A function-like macro's parameters: in its body they name the
    /// arguments, not file-scope definitions.
    pub params: Vec<String>,
}

impl Directive {
    /// Whether the directive reads the file-scope name `name`.
    pub fn reads(&self, name: &str) -> bool {
        words(&self.text).any(|w| w == name && !self.params.iter().any(|p| p == w))
    }
}

/// Every directive of `rev` (`grammars/directives.scm`), in order.
pub(crate) fn directives(rev: &Rev) -> Vec<Directive> {
    static QUERY: std::sync::OnceLock<Query> = std::sync::OnceLock::new();
    let query = QUERY.get_or_init(|| {
        Query::new(&tree_sitter_c::LANGUAGE.into(), include_str!("../../grammars/directives.scm"))
            .expect("grammars/directives.scm is a valid query")
    });
    let (directive, text) = (
        query.capture_index_for_name("directive").expect("@directive"),
        query.capture_index_for_name("text").expect("@text"),
    );
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, rev.tree.root_node(), rev.text.as_bytes());
    let mut out = Vec::new();
    while let Some(m) = matches.next() {
        let get = |i| m.captures().iter().find(|c| c.index == i).map(|c| c.node);
        if let (Some(d), Some(t)) = (get(directive), get(text)) {
            out.push(Directive {
                at: rev.loc(d.start_byte()),
                defines: d
                    .child_by_field_name("name")
                    .filter(|_| d.kind().starts_with("preproc_def") || d.kind() == "preproc_function_def")
                    .map(|n| rev.text_of(n).to_string()),
                text: rev.text_of(t).to_string(),
                params: d
                    .child_by_field_name("parameters")
                    .map(|ps| words(rev.text_of(ps)).map(str::to_string).collect())
                    .unwrap_or_default(),
            });
        }
    }
    out
}

/// One printed file-scope entry.
pub(crate) enum TopEntry<'t> {
    Item(Item<'t>),
    /// The prototype of a function some revisions define earlier than others;
    /// the definition is printed at its last place.
    Prototype(Elem<'t>),
    /// A `main` that calls the revision's own `main`, renamed.
    Dispatch(Vec<MainVariant<'t>>),
}

/// One variant of a renamed `main`.
pub(crate) struct MainVariant<'t> {
    pub revs: Vec<usize>,
    pub meta_name: String,
    /// Its definition in each revision that has it.
    pub defs: Vec<Elem<'t>>,
}

/// The merged file.
pub(crate) struct FileMerge<'t> {
    pub entries: Vec<TopEntry<'t>>,
    /// `__psychic_revisions` goes before `entries[decl_at]`: after the leading
    /// run of directives that ends in an `#include`.
    pub decl_at: usize,
    /// Some entry includes `klee/klee.h` already.
    pub has_klee: bool,
    /// Comments after the last item, in revision 0.
    pub trailer: Option<(usize, Range<usize>)>,
}

pub(crate) enum FileError {
    /// These functions' definitions cannot share one body: one copy per variant.
    Unmergeable(Vec<Name>),
    Fatal(UnifyError),
}

impl From<UnifyError> for FileError {
    fn from(e: UnifyError) -> Self {
        FileError::Fatal(e)
    }
}

enum SlotState {
    Normal(Vec<(usize, usize)>),
    Prototype(usize, usize),
    Dropped,
}

/// Of `slots` (one item's slots), one that the others can join without
/// reordering any revision's items: their revisions are not in it and have no
/// item in the slots between.
fn joinable(states: &[SlotState], slots: &[usize]) -> Option<usize> {
    let revs = |s: usize| match &states[s] {
        SlotState::Normal(ms) => ms.iter().map(|m| m.0).collect(),
        _ => Vec::new(),
    };
    slots.iter().copied().find(|&keep| {
        let kept = revs(keep);
        slots.iter().filter(|&&o| o != keep).all(|&o| {
            let between = o.min(keep) + 1..o.max(keep);
            revs(o).iter().all(|r| !kept.contains(r) && between.clone().all(|s| !revs(s).contains(r)))
        })
    })
}

/// Whether some revision has an item in two of `slots` (one key's slots):
/// then they are two items of that key (`#if 1` blocks, say, at two places
/// of every revision), not one item some revisions moved, and stay apart.
fn repeated(states: &[SlotState], slots: &[usize]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    slots.iter().any(|&s| match &states[s] {
        SlotState::Normal(ms) => ms.iter().any(|m| !seen.insert(m.0)),
        _ => false,
    })
}

/// Aligns the file-scope items of every revision by key and merges each slot.
/// `anchors`: each item's key before renaming, which the alignment pairs
/// items by, so that a renamed item keeps the place of the one it renames;
/// an include is paired by the header it names (`included`, from
/// `includes::classify`).
/// `mains`: the names `main` has per revision, if it had to be renamed.
pub(crate) fn merge_file<'t>(
    ctx: &Ctx<'t>,
    items: &[Vec<TopItem<'t>>],
    anchors: &[Vec<String>],
    included: &[Vec<Option<Header>>],
    trailer: Option<Range<usize>>,
    mains: &BTreeMap<usize, String>,
) -> Result<FileMerge<'t>, FileError> {
    let n = items.len();
    let keys_of: Vec<Vec<String>> = items
        .iter()
        .zip(included)
        .map(|(its, hs)| {
            its.iter().zip(hs).map(|(it, h)| h.as_ref().map_or_else(|| it.key.clone(), Header::key)).collect()
        })
        .collect();
    let keys: Vec<Vec<Keys>> = keys_of
        .iter()
        .zip(anchors)
        .zip(included)
        .map(|((ks, anchors), hs)| {
            ks.iter()
                .enumerate()
                .map(|(i, k)| Keys {
                    key: hash_of(k),
                    kind: hash_of(if hs[i].is_some() { k } else { anchors.get(i).unwrap_or(k) }),
                })
                .collect()
        })
        .collect();
    let item = |(r, i): (usize, usize)| &items[r][i];
    let key = |(r, i): (usize, usize)| keys_of[r][i].as_str();
    let fixed = |(r, i): (usize, usize)| included[r][i].as_ref().and_then(Header::fixed);
    let mut states: Vec<SlotState> = Vec::new();
    for slot in align(&keys) {
        // Items paired by their old key whose new keys differ (a definition
        // and its renamed variant) take a slot each, in that place.
        let mut groups: Vec<Vec<(usize, usize)>> = Vec::new();
        for m in slot.iter().enumerate().filter_map(|(r, m)| m.map(|i| (r, i))) {
            match groups.iter_mut().find(|g| key(g[0]) == key(m)) {
                Some(g) => g.push(m),
                None => groups.push(vec![m]),
            }
        }
        states.extend(groups.into_iter().map(SlotState::Normal));
    }
    // Items some revisions place elsewhere land in two slots.
    let mut by_key: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (s, state) in states.iter().enumerate() {
        if let SlotState::Normal(ms) = state {
            by_key.entry(key(ms[0])).or_default().push(s);
        }
    }
    for (key, slots) in by_key.into_iter().filter(|(_, s)| s.len() > 1) {
        let SlotState::Normal(first) = &states[slots[0]] else { unreachable!("only normal slots are keyed") };
        let kind = item(first[0]).kind;
        let (keep, others): (usize, Vec<usize>) = match kind {
            ItemKind::Function => (*slots.last().expect("two or more"), slots[..slots.len() - 1].to_vec()),
            // A header that merges is included once, at its first place; any
            // other include stays at each of its places.
            ItemKind::Include if fixed(first[0]).is_none() => (slots[0], slots[1..].to_vec()),
            ItemKind::Include => continue,
            _ if key.starts_with("proto ") => continue,
            // The alignment put one item in two slots (an insertion in one
            // revision next to a renamed item in another), but no revision's
            // order stands between them: one slot takes them all.
            _ if let Some(keep) = joinable(&states, &slots) => {
                (keep, slots.iter().copied().filter(|&s| s != keep).collect())
            }
            _ if repeated(&states, &slots) => continue,
            _ => {
                let SlotState::Normal(ms) = &states[slots[1]] else { unreachable!() };
                let (r, i) = ms[0];
                return Err(FileError::Fatal(UnifyError::Unsupported {
                    at: ctx.revs[r].loc(items[r][i].elem.node.start_byte()),
                    message: format!(
                        "this definition is placed differently relative to other file-scope items in different \
                         revisions; psychic merges moved functions, not moved `{key}`"
                    ),
                }));
            }
        };
        for &s in &others {
            let SlotState::Normal(ms) = std::mem::replace(&mut states[s], SlotState::Dropped) else {
                unreachable!("only normal slots are keyed")
            };
            if kind == ItemKind::Function {
                states[s] = SlotState::Prototype(ms[0].0, ms[0].1);
            }
            let SlotState::Normal(kept) = &mut states[keep] else { unreachable!() };
            for m in ms {
                if !kept.iter().any(|(r, _)| *r == m.0) {
                    kept.push(m);
                }
            }
            kept.sort();
        }
    }
    if includes::lead(included) {
        // Every revision includes its headers before anything else: they all
        // go first, which moves a header past code only, never past a
        // directive, and puts a revision's own definitions after the headers
        // they may clash with, where clang's error names the revision's line.
        let (front, back): (Vec<_>, Vec<_>) = states
            .into_iter()
            .partition(|s| matches!(s, SlotState::Normal(ms) if item(ms[0]).kind == ItemKind::Include));
        states = front.into_iter().chain(back).collect();
    }
    let mut entries = Vec::new();
    let mut unmergeable = Vec::new();
    for state in states {
        let ms = match state {
            SlotState::Dropped => continue,
            SlotState::Prototype(r, i) => {
                entries.push(TopEntry::Prototype(items[r][i].elem));
                continue;
            }
            SlotState::Normal(ms) => ms,
        };
        let its: Vec<&TopItem<'t>> = ms.iter().map(|&m| item(m)).collect();
        let elems: Vec<Elem<'t>> = its.iter().map(|it| it.elem).collect();
        let (r0, first) = (ms[0].0, its[0]);
        let at = || ctx.revs[r0].loc(first.elem.node.start_byte());
        if first.kind == ItemKind::Include {
            if let Some(why) = fixed(ms[0]).filter(|_| ms.len() < n) {
                let message = format!(
                    "`{}` is included here only by revision(s) {}; {why}, so psychic cannot include it for the \
                     others",
                    key(ms[0]),
                    placed(ctx, &elems)
                );
                return Err(UnifyError::Preprocessor { at: at(), message }.into());
            }
            // The same header, however spelled: the first spelling serves all.
            entries.push(TopEntry::Item(Item::Shared(elems)));
            continue;
        }
        if ms.len() < n && first.kind == ItemKind::Preproc {
            let lacking: Vec<&Rev> = ctx.revs.iter().filter(|r| !ms.iter().any(|m| m.0 == r.index)).collect();
            let same = (1..its.len()).all(|k| its[k].full(&ctx.revs[ms[k].0]) == first.full(&ctx.revs[r0]));
            if same && defines_only_unused(&ctx.revs[r0], first.elem.node, &lacking) {
                entries.push(TopEntry::Item(Item::Shared(elems)));
                continue;
            }
            let message = format!(
                "`{}` is only in revision(s) {}; psychic cannot merge this preprocessor difference",
                first.key,
                placed(ctx, &elems)
            );
            return Err(UnifyError::Preprocessor { at: at(), message }.into());
        }
        let full = |k: usize| its[k].full(&ctx.revs[ms[k].0]);
        let sig = |k: usize| its[k].sig(&ctx.revs[ms[k].0]);
        let Some(differing) = (1..its.len()).find(|&k| full(k) != full(0)) else {
            entries.push(TopEntry::Item(Item::Shared(elems)));
            continue;
        };
        if first.kind != ItemKind::Function || (1..its.len()).any(|k| sig(k) != sig(0)) {
            return Err(differs(ctx, first, &elems, differing).into());
        }
        let name = Name::ordinary(&first.function_name(&ctx.revs[r0]).unwrap_or_default());
        let bodies: Vec<(usize, Node<'t>)> = its
            .iter()
            .zip(&ms)
            .filter_map(|(it, (r, _))| it.elem.node.child_by_field_name("body").map(|b| (*r, b)))
            .collect();
        let mut labels = BTreeMap::new();
        let body = match ctx.block(&bodies) {
            Ok(body) if bodies.len() == its.len() => body,
            Err(MergeError::Refused(e)) => return Err(e.into()),
            _ => {
                unmergeable.push(name);
                continue;
            }
        };
        count_labels(ctx, &body.items, &mut labels);
        if labels.values().any(|&c| c > 1) {
            unmergeable.push(name);
            continue;
        }
        let hole = Hole { range: bodies[0].1.byte_range(), fill: Fill::Body(body) };
        entries.push(TopEntry::Item(Item::Split { elems, holes: vec![hole] }));
    }
    if !unmergeable.is_empty() {
        return Err(FileError::Unmergeable(unmergeable));
    }
    if !mains.is_empty() {
        let dispatch = main_dispatch(ctx, &entries, mains, n);
        let last = entries
            .iter()
            .rposition(|e| {
                matches!(e, TopEntry::Item(Item::Shared(es) | Item::Split { elems: es, .. })
                    if is_main_variant(ctx, es[0], mains))
            })
            .map_or(entries.len(), |i| i + 1);
        entries.insert(last, TopEntry::Dispatch(dispatch));
    }
    let rep_item = |e: &TopEntry<'t>| match e {
        TopEntry::Item(Item::Shared(es)) => Some(es[0]),
        _ => None,
    };
    let is_directive =
        |e: &TopEntry<'t>| rep_item(e).is_some_and(|el| el.node.kind().starts_with("preproc_"));
    let is_include = |e: &TopEntry<'t>| rep_item(e).is_some_and(|el| el.node.kind() == "preproc_include");
    let leading = entries.iter().take_while(|e| is_directive(e)).count();
    let decl_at = entries[..leading].iter().rposition(is_include).map_or(0, |i| i + 1);
    let has_klee = entries.iter().filter_map(rep_item).any(|el| {
        el.node.kind() == "preproc_include"
            && el.node.child_by_field_name("path").is_some_and(|p| {
                let t = ctx.revs[el.rev].text_of(p);
                t == "<klee/klee.h>" || t == "\"klee/klee.h\""
            })
    });
    Ok(FileMerge { entries, decl_at, has_klee, trailer: trailer.map(|t| (0, t)) })
}

/// Each element's revision with its file and line: `1 (p1.c:4), 3 (p3.c:5)`.
fn placed(ctx: &Ctx, elems: &[Elem]) -> String {
    elems
        .iter()
        .map(|e| {
            let at = ctx.revs[e.rev].loc(e.node.start_byte());
            format!("{} ({}:{})", e.rev, at.file, at.line)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The refusal of one item that revisions write differently and that does not
/// merge: at the first revision that differs, naming the one it differs from.
fn differs(ctx: &Ctx, first: &TopItem, elems: &[Elem], k: usize) -> UnifyError {
    let (a, b) = (&elems[0], &elems[k]);
    let theirs = ctx.revs[a.rev].loc(a.node.start_byte());
    let lead = format!(
        "`{}` of revision {} differs from revision {}'s ({}:{})",
        first.key, b.rev, a.rev, theirs.file, theirs.line
    );
    let at = ctx.revs[b.rev].loc(b.node.start_byte());
    match first.kind {
        ItemKind::Function | ItemKind::Other => {
            UnifyError::Unsupported { at, message: format!("{lead} in a way psychic cannot merge") }
        }
        _ => UnifyError::Preprocessor {
            at,
            message: format!("{lead}; psychic cannot merge this preprocessor difference"),
        },
    }
}

fn is_main_variant(ctx: &Ctx, e: Elem, mains: &BTreeMap<usize, String>) -> bool {
    e.node.kind() == "function_definition"
        && e.node
            .child_by_field_name("declarator")
            .and_then(declarator_name)
            .is_some_and(|n| mains.get(&e.rev).is_some_and(|m| m == ctx.revs[e.rev].text_of(n)))
}

/// The variants of the dispatching `main`: one per renamed `main`, with the
/// revisions that have none (they cannot run anyway) in the last.
fn main_dispatch<'t>(
    ctx: &Ctx<'t>,
    entries: &[TopEntry<'t>],
    mains: &BTreeMap<usize, String>,
    n: usize,
) -> Vec<MainVariant<'t>> {
    let mut variants: Vec<MainVariant<'t>> = entries
        .iter()
        .filter_map(|e| match e {
            TopEntry::Item(Item::Shared(es) | Item::Split { elems: es, .. })
                if is_main_variant(ctx, es[0], mains) =>
            {
                Some(MainVariant {
                    revs: es.iter().map(|e| e.rev).collect(),
                    meta_name: mains[&es[0].rev].clone(),
                    defs: es.clone(),
                })
            }
            _ => None,
        })
        .collect();
    variants.sort_by_key(|v| v.revs[0]);
    let max = variants.iter().map(|v| v.revs.len()).max().unwrap_or(0);
    if let Some(i) = variants.iter().position(|v| v.revs.len() == max) {
        let v = variants.remove(i);
        variants.push(v);
    }
    if let Some(last) = variants.last_mut() {
        last.revs.extend((0..n).filter(|r| !mains.contains_key(r)));
        last.revs.sort();
    }
    variants
}

/// How often each label would be printed in a merged function body.
fn count_labels(ctx: &Ctx, items: &[Item], counts: &mut BTreeMap<String, usize>) {
    fn walk(rev: &Rev, node: Node, skip: &[Range<usize>], counts: &mut BTreeMap<String, usize>) {
        if skip.iter().any(|s| s.start <= node.start_byte() && node.end_byte() <= s.end && !s.is_empty()) {
            return;
        }
        if node.kind() == "labeled_statement"
            && let Some(l) = node.child_by_field_name("label")
        {
            *counts.entry(rev.text_of(l).to_string()).or_default() += 1;
        }
        for c in named_children(node) {
            walk(rev, c, skip, counts);
        }
    }
    for item in items {
        match item {
            Item::Shared(es) => walk(&ctx.revs[es[0].rev], es[0].node, &[], counts),
            Item::Split { elems, holes } => {
                let ranges: Vec<Range<usize>> = holes.iter().map(|h| h.range.clone()).collect();
                walk(&ctx.revs[elems[0].rev], elems[0].node, &ranges, counts);
                for h in holes {
                    if let Fill::Body(b) = &h.fill {
                        count_labels(ctx, &b.items, counts);
                    }
                }
            }
            Item::Site(s) => s.variants.iter().for_each(|v| count_labels(ctx, &v.items, counts)),
        }
    }
}

/// Whether `group`, a conditional directive of `rev`, holds only macro
/// definitions whose names no revision of `lacking` spells: then it may
/// stand in every revision, for it changes nothing in the others (findutils'
/// fix adds `#ifndef isnan` / `# define isnan(x) ((x) != (x))`).
fn defines_only_unused(rev: &Rev, group: Node, lacking: &[&Rev]) -> bool {
    let mut names = std::collections::BTreeSet::new();
    let mut stack = vec![group];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "preproc_def" | "preproc_function_def" => match n.child_by_field_name("name") {
                Some(name) => {
                    names.insert(rev.text_of(name).to_string());
                }
                None => return false,
            },
            "comment" => {}
            k if k.starts_with("preproc_if") || k.starts_with("preproc_el") => {
                // The condition is read, never run: the branches must hold
                // definitions only.
                let skip = [n.child_by_field_name("condition"), n.child_by_field_name("name")]
                    .map(|c| c.map(|c| c.id()));
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor).filter(|c| !skip.contains(&Some(c.id()))));
            }
            _ => return false,
        }
    }
    !names.is_empty() && lacking.iter().all(|r| !words(&r.text).any(|w| names.contains(w)))
}
