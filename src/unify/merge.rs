//! Merging the statements of N revisions into one tree of shared code and meta
//! branches, with every branch at the deepest node that differs.
//!
//! `merge_seq` aligns the revisions' statement sequences (see `align`). A slot
//! whose statements are token-identical is shared. A slot whose statements are
//! the same construct is *split*: it is printed from the representative (the
//! lowest revision) with holes where the revisions differ — a condition, a
//! `for` header part, an initializer, a right-hand side (expression sites), or
//! a body, which is merged recursively. Runs of remaining slots become statement
//! sites, with one variant per distinct code; a variant's statements are merged
//! again among its own revisions, so that a run widened for scoping (below)
//! still shares what it can.
//!
//! Invariants the printer and the runtime rely on:
//! - every revision of a set takes exactly one variant of each site it reaches;
//! - a declaration is never wrapped in a branch unless every later statement
//!   that names what it declares is wrapped with it (the run is widened);
//! - `case` labels are never wrapped (the enclosing `switch` becomes the site);
//! - an expression site exists only where the context fixes the type: a
//!   condition (`!!`), a discarded value (`(void)`), or a scalar variable's
//!   assignment or initializer (`(__typeof__(x))`).
//! - a function whose merge would print a label twice gets one copy per
//!   variant (renamed); a `main` that must differ so (or whose signature
//!   differs) is renamed in every variant, and a printed `main` calls the
//!   revision's own (a statement site).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use tree_sitter::Node;

use super::align::{Elem, Keys, Slot, align, elems};
use super::decl::{self, declarator_name, declarators, defined_names, storage_class};
use super::error::UnifyError;
use super::meta::SiteKind;
use super::parse::{Rev, children, hash_of, named_children, token_key, tokens};

/// Why statements could not be merged.
#[derive(Debug)]
pub(crate) enum MergeError {
    /// Not expressible inside this function (a `case` label would land inside
    /// a branch, or a label would be printed twice): the caller falls back to
    /// a coarser site, and at the top, to one function per variant.
    Unmergeable,
    /// Not expressible at all.
    Refused(UnifyError),
}

pub(crate) enum Item<'t> {
    /// The same tokens in every revision of the set, printed from the first.
    Shared(Vec<Elem<'t>>),
    /// The same construct in every revision, printed from the first with holes.
    Split { elems: Vec<Elem<'t>>, holes: Vec<Hole<'t>> },
    /// A statement-level meta branch.
    Site(StmtSite<'t>),
}

pub(crate) struct StmtSite<'t> {
    pub kind: SiteKind,
    pub variants: Vec<Variant<'t>>,
    /// For every revision of the set: the bytes its code occupies (empty where
    /// deleted code would be).
    pub spans: Vec<(usize, Range<usize>)>,
    /// `(revision, byte)` whose line indentation the branch takes.
    pub indent_at: (usize, usize),
}

pub(crate) struct Variant<'t> {
    pub revs: Vec<usize>,
    pub items: Vec<Item<'t>>,
}

/// A part of a split construct's representative that is printed differently.
pub(crate) struct Hole<'t> {
    pub range: Range<usize>,
    pub fill: Fill<'t>,
}

pub(crate) enum Fill<'t> {
    Expr(ExprSite<'t>),
    Body(Body<'t>),
}

pub(crate) struct Body<'t> {
    pub items: Vec<Item<'t>>,
    pub shape: Shape,
    /// Comments before the closing brace, in the representative.
    pub trailer: Option<Range<usize>>,
    /// A byte of the representative whose line indentation the closing brace takes.
    pub close_at: usize,
}

pub(crate) enum Shape {
    /// One statement, printed where the representative's was.
    Inline,
    /// `{ ... }`, with `lead` before the brace; a lead starting with a newline
    /// continues at the indentation of the closing brace.
    Braced { lead: &'static str },
    /// Statements one per line without braces (the statements of a `case`).
    Lines,
}

pub(crate) struct ExprSite<'t> {
    pub kind: SiteKind,
    pub style: Style,
    pub variants: Vec<ExprVariant<'t>>,
    pub spans: Vec<(usize, Range<usize>)>,
}

pub(crate) struct ExprVariant<'t> {
    pub revs: Vec<usize>,
    /// The variant's expression, from its lowest revision; `None` where the
    /// revisions omit it (a `for` header part).
    pub expr: Option<(usize, Node<'t>)>,
}

/// How an expression site converts its arms so that they share one type.
pub(crate) enum Style {
    /// A condition: `!!(e)`, absent means true.
    Cond,
    /// A value that is discarded: `(void)(e)`.
    Void,
    /// A value stored in the named scalar: `(__typeof__(x))(e)`.
    Typed(String),
}

/// One revision's statements at one place, and where code would go if empty.
pub(crate) struct Seq<'t> {
    pub rev: usize,
    pub elems: Vec<Elem<'t>>,
    pub anchor: usize,
}

pub(crate) struct Ctx<'t> {
    pub revs: &'t [Rev],
    typedefs: Vec<BTreeMap<String, bool>>,
    /// Token keys by `(revision, node id)`: the merge asks for the same ones
    /// at every level of nesting.
    keys: RefCell<HashMap<(usize, usize), u64>>,
}

impl<'t> Ctx<'t> {
    pub fn new(revs: &'t [Rev]) -> Ctx<'t> {
        Ctx { revs, typedefs: revs.iter().map(decl::scalar_typedefs).collect(), keys: RefCell::default() }
    }

    fn rev(&self, i: usize) -> &'t Rev {
        &self.revs[i]
    }

    fn key_of(&self, rev: usize, node: Node) -> u64 {
        if let Some(&k) = self.keys.borrow().get(&(rev, node.id())) {
            return k;
        }
        let k = token_key(&self.revs[rev].text, node);
        self.keys.borrow_mut().insert((rev, node.id()), k);
        k
    }

    /// Which statements the alignment may pair to merge them by recursion.
    fn kind_of(&self, e: &Elem) -> u64 {
        let rev = self.rev(e.rev);
        let n = e.node;
        let toks = |n: Option<Node>| {
            let mut v = Vec::new();
            if let Some(n) = n {
                tokens(&rev.text, n, &mut v);
            }
            v.join(" ")
        };
        let s = match n.kind() {
            "expression_statement" => match first_named(n) {
                Some(x) if x.kind() == "assignment_expression" => format!(
                    "assign {} {}",
                    toks(x.child_by_field_name("left")),
                    toks(x.child_by_field_name("operator"))
                ),
                Some(x) if x.kind() == "update_expression" => {
                    format!("update {}", toks(x.child_by_field_name("argument")))
                }
                Some(x) if x.kind() == "call_expression" => {
                    format!("call {}", toks(x.child_by_field_name("function")))
                }
                _ => "expr".to_string(),
            },
            "declaration" => format!(
                "decl {}",
                defined_names(rev, n).iter().map(|(nm, _)| nm.text.as_str()).collect::<Vec<_>>().join(",")
            ),
            "labeled_statement" => format!("label {}", toks(n.child_by_field_name("label"))),
            "case_statement" => format!("case {}", toks(n.child_by_field_name("value"))),
            k if k.starts_with("preproc") => format!("pp {}", toks(Some(n))),
            k => k.to_string(),
        };
        hash_of(&s)
    }

    /// The elements of a block-like node: a compound statement's statements, a
    /// case's statements after its colon.
    pub fn block_seq(&self, rev: usize, node: Node<'t>) -> (Seq<'t>, Option<Range<usize>>) {
        let kids = children(node);
        let (skip, anchor) = match node.kind() {
            "case_statement" => {
                let colon = kids.iter().position(|c| c.kind() == ":").unwrap_or(0);
                (colon + 1, kids.get(colon).map_or(node.start_byte(), |c| c.end_byte()))
            }
            _ => (0, node.start_byte() + 1),
        };
        let (es, trailer) = elems(self.rev(rev), kids.into_iter().skip(skip));
        (Seq { rev, elems: es, anchor }, trailer)
    }

    /// Merges a compound statement of every revision of the set.
    pub fn block(&self, nodes: &[(usize, Node<'t>)]) -> Result<Body<'t>, MergeError> {
        let (seqs, trailers): (Vec<_>, Vec<_>) = nodes.iter().map(|&(r, n)| self.block_seq(r, n)).unzip();
        Ok(Body {
            items: self.merge_seq(&seqs)?,
            shape: Shape::Braced { lead: "" },
            trailer: trailers.into_iter().next().flatten(),
            close_at: nodes[0].1.end_byte().saturating_sub(1),
        })
    }

    /// Merges one statement sequence per revision of the set.
    pub fn merge_seq(&self, seqs: &[Seq<'t>]) -> Result<Vec<Item<'t>>, MergeError> {
        let keys: Vec<Vec<Keys>> = seqs
            .iter()
            .map(|s| {
                s.elems
                    .iter()
                    .map(|e| Keys { key: self.key_of(e.rev, e.node), kind: self.kind_of(e) })
                    .collect()
            })
            .collect();
        let slots = align(&keys);
        let member = |slot: &Slot, p: usize| slot[p].map(|i| seqs[p].elems[i]);
        let mut classes: Vec<Option<Item<'t>>> = Vec::with_capacity(slots.len());
        for slot in &slots {
            let ms: Option<Vec<Elem<'t>>> = (0..seqs.len()).map(|p| member(slot, p)).collect();
            let class = match ms {
                Some(es) => {
                    let key = |p: usize| keys[p][slot[p].expect("full slot")].key;
                    if (1..seqs.len()).all(|p| key(p) == key(0)) {
                        Some(Item::Shared(es))
                    } else if es.iter().all(|e| e.node.kind() == es[0].node.kind()) {
                        self.split(&es)?
                    } else {
                        None
                    }
                }
                None => None,
            };
            classes.push(class);
        }
        let mut items = Vec::new();
        let mut i = 0;
        while i < slots.len() {
            if let Some(item) = classes[i].take() {
                items.push(item);
                i += 1;
                continue;
            }
            let mut core_end = i + 1;
            while core_end < slots.len() && classes[core_end].is_none() {
                core_end += 1;
            }
            // A declaration in the run takes every later statement that names
            // what it declares into the branch, so that its scope stays whole.
            let declared = |s: &Slot, names: &mut BTreeSet<String>| {
                for p in 0..seqs.len() {
                    if let Some(e) = member(s, p) {
                        names.extend(local_names(self.rev(e.rev), e.node));
                    }
                }
            };
            let mut names = BTreeSet::new();
            slots[i..core_end].iter().for_each(|s| declared(s, &mut names));
            let mut end = core_end;
            if !names.is_empty() {
                for j in core_end..slots.len() {
                    let uses = (0..seqs.len()).any(|p| {
                        member(&slots[j], p)
                            .is_some_and(|e| super::parse::mentions(&self.rev(e.rev).text, e.node, &names))
                    });
                    if uses {
                        slots[end..=j].iter().for_each(|s| declared(s, &mut names));
                        end = j + 1;
                    }
                }
            }
            let anchors: Vec<usize> = (0..seqs.len())
                .map(|p| slots[..i].iter().rev().find_map(|s| member(s, p)).map_or(seqs[p].anchor, |e| e.end))
                .collect();
            let run = |range: Range<usize>, p: usize| -> Vec<Elem<'t>> {
                slots[range].iter().filter_map(|s| member(s, p)).collect()
            };
            let core: Vec<Vec<Elem<'t>>> = (0..seqs.len()).map(|p| run(i..core_end, p)).collect();
            let ext: Vec<Vec<Elem<'t>>> = (0..seqs.len()).map(|p| run(core_end..end, p)).collect();
            items.extend(self.site(seqs, core, ext, anchors)?);
            i = end;
        }
        Ok(items)
    }

    /// A statement site for a run: one variant per distinct `core`; each
    /// variant's code (`core` and the scope extension `ext`) is merged again
    /// among the variant's revisions.
    fn site(
        &self,
        seqs: &[Seq<'t>],
        core: Vec<Vec<Elem<'t>>>,
        ext: Vec<Vec<Elem<'t>>>,
        anchors: Vec<usize>,
    ) -> Result<Vec<Item<'t>>, MergeError> {
        if core.iter().chain(&ext).flatten().any(|e| e.node.kind() == "case_statement") {
            return Err(MergeError::Unmergeable);
        }
        // A macro defined or undefined in a branch would hold for all revisions after it.
        if let Some((rev, d)) =
            core.iter().flatten().find_map(|e| macro_directive(e.node).map(|d| (e.rev, d)))
        {
            return Err(MergeError::Refused(UnifyError::Preprocessor {
                at: self.rev(rev).loc(d.start_byte()),
                message:
                    "this directive differs between revisions inside a function; psychic cannot confine \
                          a #define or #undef to some revisions"
                        .into(),
            }));
        }
        let mut groups: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
        for (p, es) in core.iter().enumerate() {
            let k: Vec<u64> = es.iter().map(|e| self.key_of(e.rev, e.node)).collect();
            match groups.iter_mut().find(|(g, _)| *g == k) {
                Some((_, ps)) => ps.push(p),
                None => groups.push((k, vec![p])),
            }
        }
        let seq_of = |p: usize, es: Vec<Elem<'t>>| Seq { rev: seqs[p].rev, elems: es, anchor: anchors[p] };
        if groups.len() == 1 {
            // The same code, aligned apart: share it and merge what follows.
            let len = core[0].len();
            let mut items: Vec<Item<'t>> =
                (0..len).map(|k| Item::Shared(core.iter().map(|es| es[k]).collect())).collect();
            let rest: Vec<Seq<'t>> = ext.into_iter().enumerate().map(|(p, es)| seq_of(p, es)).collect();
            items.extend(self.merge_seq(&rest)?);
            return Ok(items);
        }
        let whole: Vec<Vec<Elem<'t>>> =
            core.iter().zip(&ext).map(|(c, e)| c.iter().chain(e).copied().collect()).collect();
        let spans = whole
            .iter()
            .enumerate()
            .map(|(p, es)| {
                let range = match (es.first(), es.last()) {
                    (Some(f), Some(l)) => f.start..l.end,
                    _ => anchors[p]..anchors[p],
                };
                (seqs[p].rev, range)
            })
            .collect();
        let indent_at = whole.iter().flatten().next().map(|e| (e.rev, e.start)).expect("a run has code");
        let returns = ext.iter().all(Vec::is_empty)
            && core.iter().all(|es| es.len() == 1 && es[0].node.kind() == "return_statement");
        else_last(&mut groups, |(_, ps)| ps.len());
        let mut variants = Vec::new();
        for (_, ps) in groups {
            let sub: Vec<Seq<'t>> = ps.iter().map(|&p| seq_of(p, whole[p].clone())).collect();
            variants.push(Variant {
                revs: ps.iter().map(|&p| seqs[p].rev).collect(),
                items: self.merge_seq(&sub)?,
            });
        }
        let kind = if returns { SiteKind::ReturnValue } else { SiteKind::Statement };
        Ok(vec![Item::Site(StmtSite { kind, variants, spans, indent_at })])
    }

    /// Splits one slot of same-kind statements, or `None` if they must be
    /// replaced whole.
    fn split(&self, es: &[Elem<'t>]) -> Result<Option<Item<'t>>, MergeError> {
        let nodes: Vec<(usize, Node<'t>)> = es.iter().map(|e| (e.rev, e.node)).collect();
        let field = |f: &str| -> Vec<Option<Node<'t>>> {
            nodes.iter().map(|(_, n)| n.child_by_field_name(f)).collect()
        };
        let rep = nodes[0].1;
        let mut holes = Vec::new();
        match rep.kind() {
            "compound_statement" => {
                holes.push(Hole { range: rep.byte_range(), fill: Fill::Body(self.block(&nodes)?) })
            }
            "if_statement" => {
                holes.extend(self.paren_condition(&nodes, field("condition")));
                holes.extend(self.body_hole(&nodes, field("consequence"), false)?);
                let alts = field("alternative").into_iter().map(|a| a.and_then(first_named)).collect();
                holes.extend(self.body_hole(&nodes, alts, true)?);
            }
            "while_statement" => {
                holes.extend(self.paren_condition(&nodes, field("condition")));
                holes.extend(self.body_hole(&nodes, field("body"), false)?);
            }
            "do_statement" => {
                holes.extend(self.body_hole(&nodes, field("body"), false)?);
                holes.extend(self.paren_condition(&nodes, field("condition")));
            }
            "for_statement" => match self.for_holes(&nodes, &field)? {
                Some(h) => holes = h,
                None => return Ok(None),
            },
            "switch_statement" => {
                if !self.all_equal(&nodes, &field("condition")) {
                    return Ok(None);
                }
                let bodies: Option<Vec<(usize, Node<'t>)>> =
                    nodes.iter().zip(field("body")).map(|((r, _), b)| b.map(|b| (*r, b))).collect();
                let Some(bodies) = bodies else { return Ok(None) };
                match self.block(&bodies) {
                    Ok(body) => holes.push(Hole { range: bodies[0].1.byte_range(), fill: Fill::Body(body) }),
                    // Case labels would land inside a branch: the switch is the site.
                    Err(MergeError::Unmergeable) => return Ok(None),
                    Err(e) => return Err(e),
                }
            }
            "case_statement" => {
                if !self.all_equal(&nodes, &field("value")) {
                    return Ok(None);
                }
                let seqs: Vec<Seq<'t>> = nodes.iter().map(|&(r, n)| self.block_seq(r, n).0).collect();
                let start = seqs[0].anchor;
                holes.push(Hole {
                    range: start..rep.end_byte(),
                    fill: Fill::Body(Body {
                        items: self.merge_seq(&seqs)?,
                        shape: Shape::Lines,
                        trailer: None,
                        close_at: start,
                    }),
                });
            }
            "labeled_statement" => {
                if !self.all_equal(&nodes, &field("label")) {
                    return Ok(None);
                }
                let inner = nodes
                    .iter()
                    .map(|(_, n)| {
                        named_children(*n)
                            .into_iter()
                            .find(|c| !matches!(c.kind(), "statement_identifier" | "comment"))
                    })
                    .collect();
                holes.extend(self.body_hole(&nodes, inner, false)?);
            }
            "expression_statement" => match self.rhs_hole(&nodes) {
                Some(h) => holes.push(h),
                None => return Ok(None),
            },
            "declaration" => match self.initializer_holes(&nodes) {
                Some(h) => holes = h,
                None => return Ok(None),
            },
            _ => return Ok(None),
        }
        if holes.is_empty() {
            return Ok(None);
        }
        Ok(Some(Item::Split { elems: es.to_vec(), holes }))
    }

    fn all_equal(&self, nodes: &[(usize, Node<'t>)], parts: &[Option<Node<'t>>]) -> bool {
        let key = |i: usize| parts[i].map(|n| self.key_of(nodes[i].0, n));
        (1..nodes.len()).all(|i| key(i) == key(0))
    }

    /// An expression site over `parts` (one per revision of the set; `None`
    /// where omitted, which `anchors` then locates), or no hole if all agree.
    fn expr_hole(
        &self,
        nodes: &[(usize, Node<'t>)],
        parts: Vec<Option<Node<'t>>>,
        anchors: Vec<usize>,
        kind: SiteKind,
        style: Style,
    ) -> Option<Hole<'t>> {
        if self.all_equal(nodes, &parts) {
            return None;
        }
        let mut variants: Vec<(Option<u64>, ExprVariant<'t>)> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let rev = nodes[i].0;
            let key = part.map(|n| self.key_of(rev, n));
            match variants.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.revs.push(rev),
                None => variants.push((key, ExprVariant { revs: vec![rev], expr: part.map(|n| (rev, n)) })),
            }
        }
        else_last(&mut variants, |(_, v)| v.revs.len());
        let range_of = |i: usize| parts[i].map_or(anchors[i]..anchors[i], |n| n.byte_range());
        Some(Hole {
            range: range_of(0),
            fill: Fill::Expr(ExprSite {
                kind,
                style,
                variants: variants.into_iter().map(|(_, v)| v).collect(),
                spans: (0..nodes.len()).map(|i| (nodes[i].0, range_of(i))).collect(),
            }),
        })
    }

    /// The condition inside the parentheses of an `if`, `while` or `do`.
    fn paren_condition(&self, nodes: &[(usize, Node<'t>)], conds: Vec<Option<Node<'t>>>) -> Option<Hole<'t>> {
        let inner: Vec<Option<Node<'t>>> = conds.iter().map(|c| c.and_then(first_named)).collect();
        let anchors = conds.iter().map(|c| c.map_or(0, |c| c.start_byte() + 1)).collect();
        if inner.iter().any(Option::is_none) {
            return None;
        }
        self.expr_hole(nodes, inner, anchors, SiteKind::Condition, Style::Cond)
    }

    /// The body of a compound construct (`else_part` for an `else`, which some
    /// revisions may lack), merged as a statement sequence.
    fn body_hole(
        &self,
        nodes: &[(usize, Node<'t>)],
        bodies: Vec<Option<Node<'t>>>,
        else_part: bool,
    ) -> Result<Option<Hole<'t>>, MergeError> {
        if bodies.iter().all(Option::is_none) || self.all_equal(nodes, &bodies) {
            return Ok(None);
        }
        let compound = |b: &Option<Node>| b.is_some_and(|b| b.kind() == "compound_statement");
        if bodies.iter().all(compound) {
            let pairs: Vec<(usize, Node<'t>)> =
                nodes.iter().zip(&bodies).map(|((r, _), b)| (*r, b.expect("all"))).collect();
            return Ok(Some(Hole { range: pairs[0].1.byte_range(), fill: Fill::Body(self.block(&pairs)?) }));
        }
        let seqs: Vec<Seq<'t>> = nodes
            .iter()
            .zip(&bodies)
            .map(|(&(rev, owner), body)| match body {
                Some(b) if b.kind() == "compound_statement" => self.block_seq(rev, *b).0,
                Some(b) => Seq {
                    rev,
                    elems: vec![Elem { rev, node: *b, start: b.start_byte(), end: b.end_byte() }],
                    anchor: b.start_byte(),
                },
                None => Seq { rev, elems: Vec::new(), anchor: owner.end_byte() },
            })
            .collect();
        let items = self.merge_seq(&seqs)?;
        let owner = nodes[0].1;
        let inline = bodies.iter().all(|b| b.is_some() && !compound(b))
            && items.len() == 1
            && !matches!(items[0], Item::Site(_));
        let (range, shape, close_at, trailer) = match bodies[0] {
            Some(b) if inline => (b.byte_range(), Shape::Inline, owner.start_byte(), None),
            Some(b) if b.kind() == "compound_statement" => (
                b.byte_range(),
                Shape::Braced { lead: "" },
                b.end_byte() - 1,
                self.block_seq(nodes[0].0, b).1,
            ),
            Some(b) => {
                let start = b.prev_sibling().map_or(b.start_byte(), |p| p.end_byte());
                (start..b.end_byte(), Shape::Braced { lead: " " }, owner.start_byte(), None)
            }
            None => {
                debug_assert!(else_part);
                let end = owner.end_byte();
                // `} else {` after a block, `else {` on a line of its own after a statement.
                let after_block = nodes[0]
                    .1
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.kind() == "compound_statement");
                let lead = if after_block { " else " } else { "\nelse " };
                (end..end, Shape::Braced { lead }, owner.start_byte(), None)
            }
        };
        Ok(Some(Hole { range, fill: Fill::Body(Body { items, shape, trailer, close_at }) }))
    }

    /// The parts of a `for` header and its body; `None` if the initializers are
    /// declarations that cannot be split (or a declaration in only some).
    fn for_holes(
        &self,
        nodes: &[(usize, Node<'t>)],
        field: &dyn Fn(&str) -> Vec<Option<Node<'t>>>,
    ) -> Result<Option<Vec<Hole<'t>>>, MergeError> {
        let inits = field("initializer");
        let is_decl = |i: &Option<Node>| i.is_some_and(|i| i.kind() == "declaration");
        let semis = |n: Node<'t>| children(n).into_iter().filter(|c| c.kind() == ";").collect::<Vec<_>>();
        let mut holes = Vec::new();
        if inits.iter().all(is_decl) {
            let decls: Vec<(usize, Node<'t>)> =
                nodes.iter().zip(&inits).map(|((r, _), i)| (*r, i.expect("all"))).collect();
            match self.initializer_holes(&decls) {
                Some(h) => holes.extend(h),
                None if self.all_equal(nodes, &inits) => {}
                None => return Ok(None),
            }
        } else if inits.iter().any(is_decl) {
            return Ok(None);
        } else {
            let anchors = nodes
                .iter()
                .map(|(_, n)| {
                    children(*n)
                        .into_iter()
                        .find(|c| c.kind() == "(")
                        .map_or(n.start_byte(), |c| c.end_byte())
                })
                .collect();
            holes.extend(self.expr_hole(nodes, inits.clone(), anchors, SiteKind::ForInit, Style::Void));
        }
        let cond_anchors = nodes
            .iter()
            .zip(&inits)
            .map(|((_, n), i)| match i {
                Some(d) if d.kind() == "declaration" => d.end_byte(),
                _ => semis(*n).first().map_or(n.start_byte(), |s| s.end_byte()),
            })
            .collect();
        holes.extend(self.expr_hole(
            nodes,
            field("condition"),
            cond_anchors,
            SiteKind::Condition,
            Style::Cond,
        ));
        let update_anchors =
            nodes.iter().map(|(_, n)| semis(*n).last().map_or(n.start_byte(), |s| s.end_byte())).collect();
        holes.extend(self.expr_hole(
            nodes,
            field("update"),
            update_anchors,
            SiteKind::ForUpdate,
            Style::Void,
        ));
        holes.extend(self.body_hole(nodes, field("body"), false)?);
        Ok(Some(holes))
    }

    /// `x = e;` with the same scalar variable `x` in every revision: a site at `e`.
    fn rhs_hole(&self, nodes: &[(usize, Node<'t>)]) -> Option<Hole<'t>> {
        let assigns: Vec<Node<'t>> = nodes
            .iter()
            .map(|(_, n)| first_named(*n).filter(|a| a.kind() == "assignment_expression"))
            .collect::<Option<_>>()?;
        let part = |f: &str| assigns.iter().map(|a| a.child_by_field_name(f)).collect::<Vec<_>>();
        let lefts = part("left");
        let ops = part("operator");
        let rep = self.rev(nodes[0].0);
        let lhs = lefts[0].filter(|l| l.kind() == "identifier")?;
        let plain =
            ops.iter().zip(nodes).all(|(o, (r, _))| o.is_some_and(|o| self.rev(*r).text_of(o) == "="));
        if !plain || !self.all_equal(nodes, &lefts) {
            return None;
        }
        let name = rep.text_of(lhs).to_string();
        let scalar = nodes.iter().all(|&(r, n)| {
            decl::lookup(self.rev(r), n, &name)
                .is_some_and(|(ty, d)| decl::is_scalar(self.rev(r), ty, d, &self.typedefs[r]))
        });
        if !scalar {
            return None;
        }
        self.expr_hole(nodes, part("right"), vec![0; nodes.len()], SiteKind::Rhs, Style::Typed(name))
    }

    /// Declarations that differ only in initializers of scalar variables with
    /// automatic storage: one site per differing initializer.
    fn initializer_holes(&self, nodes: &[(usize, Node<'t>)]) -> Option<Vec<Hole<'t>>> {
        let values = |n: Node<'t>| -> Vec<Option<Node<'t>>> {
            declarators(n).into_iter().map(|d| d.child_by_field_name("value")).collect()
        };
        let shape = |r: usize, n: Node<'t>| -> u64 {
            let masks: Vec<Node<'t>> = values(n).into_iter().flatten().collect();
            let mut toks = Vec::new();
            masked_tokens(&self.rev(r).text, n, &masks, &mut toks);
            hash_of(&toks)
        };
        let (r0, rep) = nodes[0];
        if nodes.iter().any(|&(r, n)| shape(r, n) != shape(r0, rep)) {
            return None;
        }
        let rev = self.rev(r0);
        let automatic = !storage_class(&rev.text, rep).is_some_and(|s| s != "auto" && s != "register");
        let ty = rep.child_by_field_name("type")?;
        let mut holes = Vec::new();
        for (k, d) in declarators(rep).into_iter().enumerate() {
            let parts: Vec<Option<Node<'t>>> = nodes.iter().map(|(_, n)| values(*n)[k]).collect();
            if self.all_equal(nodes, &parts) {
                continue;
            }
            let lists = parts.iter().flatten().any(|v| v.kind() == "initializer_list");
            if !automatic || lists || !decl::is_scalar(rev, ty, d, &self.typedefs[r0]) {
                return None;
            }
            let name = rev.text_of(declarator_name(d)?).to_string();
            holes.extend(self.expr_hole(
                nodes,
                parts,
                vec![0; nodes.len()],
                SiteKind::Initializer,
                Style::Typed(name),
            ));
        }
        Some(holes)
    }
}

/// Orders variants (given in order of their lowest revision) so that the one
/// most revisions take is the chain's `else`: it needs no comparisons, so the
/// chain is shortest to read and to execute.
fn else_last<T>(variants: &mut Vec<T>, size: impl Fn(&T) -> usize) {
    let max = variants.iter().map(&size).max().unwrap_or(0);
    if variants.last().is_some_and(|v| size(v) < max) {
        let i = variants.iter().position(|v| size(v) == max).expect("the maximum is attained");
        let v = variants.remove(i);
        variants.push(v);
    }
}

/// The first named child that is not a comment.
pub(crate) fn first_named(n: Node) -> Option<Node> {
    named_children(n).into_iter().find(|c| c.kind() != "comment")
}

/// A `#define`, `#undef` or other directive that acts beyond its place, in `node`.
fn macro_directive(node: Node) -> Option<Node> {
    match node.kind() {
        "preproc_def" | "preproc_function_def" | "preproc_call" => Some(node),
        _ => named_children(node).into_iter().find_map(macro_directive),
    }
}

/// Names a statement declares in its block (variables, typedefs, tags, enumerators).
fn local_names(rev: &Rev, node: Node) -> Vec<String> {
    match node.kind() {
        "declaration" | "type_definition" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
            defined_names(rev, node).into_iter().map(|(n, _)| n.text).collect()
        }
        _ => Vec::new(),
    }
}

/// Tokens of `node` with each of `masks` replaced by one placeholder.
fn masked_tokens<'a>(text: &'a str, node: Node, masks: &[Node], out: &mut Vec<&'a str>) {
    if masks.contains(&node) {
        out.push("\u{0}");
    } else if node.kind() == "comment" {
    } else if node.child_count() == 0 {
        out.push(&text[node.byte_range()]);
    } else {
        for c in children(node) {
            masked_tokens(text, c, masks, out);
        }
    }
}
