//! A seeded, deterministic mutation generator for C programs: it makes patch sets
//! (an original and 1 to 7 mutants) whose behaviour is ground truth once compiled.
//!
//! Mutations: operator swaps, constant changes (also to a `double` constant, to
//! exercise type conversions), deleted statements, added guards, changed
//! conditions and returns, added helper functions (two revisions may add the same
//! helper name with different bodies), `for` step changes and widened parameters.
//! Shapes ([`Shape`], [`shaped_patch_set`]) then write each revision, the
//! original too, as real code is written: `main`'s signatures and endings, K&R
//! definitions, loop macros, bytes that are not UTF-8.
//!
//! The base programs keep the mutants free of undefined behaviour that could make
//! two builds of one revision disagree: every array index is masked or is the
//! counter of a loop whose header mutations leave alone, every loop is bounded
//! by its header (which mutations only change in ways that keep it bounded),
//! and every variable is initialized where it is declared. A division
//! by zero a mutant introduces crashes deterministically, which is behaviour too.
//!
//! Reuse: `candidates` lists single mutations of any source; `patch_set` draws a
//! set; `Input`/`inputs` make `.ktest` objects for a program's
//! `klee_make_symbolic` calls (little-endian integers, edge values first).

#![allow(dead_code)]

use std::ops::Range;

use psychic::ktest::{KTest, Object};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tree_sitter::Node;

/// A base program of the generator.
pub struct Base {
    pub name: &'static str,
    pub source: &'static str,
    /// Its `klee_make_symbolic` objects, in call order.
    pub inputs: &'static [Input],
}

/// A symbolic object: `count` little-endian integers of `width` bytes.
#[derive(Clone, Copy)]
pub struct Input {
    pub name: &'static str,
    pub width: usize,
    pub count: usize,
    /// The values each integer takes, as the program's `klee_assume`s allow.
    pub domain: Domain,
}

#[derive(Clone, Copy, Debug)]
pub enum Domain {
    /// Every value of the width.
    Full,
    /// `lo..=hi`.
    Range(i64, i64),
    /// Exactly these values.
    Set(&'static [i64]),
}

impl Domain {
    fn values(self, width: usize) -> Vec<i64> {
        match self {
            Domain::Full => {
                assert!(width <= 2, "a full domain of {width} bytes is too large to enumerate");
                let bits = 8 * width as u32;
                (0..1i64 << bits).collect()
            }
            Domain::Range(lo, hi) => (lo..=hi).collect(),
            Domain::Set(vs) => vs.to_vec(),
        }
    }
}

const fn one(name: &'static str, width: usize) -> Input {
    Input { name, width, count: 1, domain: Domain::Full }
}

const fn many(name: &'static str, width: usize, count: usize) -> Input {
    Input { name, width, count, domain: Domain::Full }
}

const fn int_in(name: &'static str, lo: i64, hi: i64) -> Input {
    Input { name, width: 4, count: 1, domain: Domain::Range(lo, hi) }
}

pub const BASES: &[Base] = &[
    Base {
        name: "classify",
        source: include_str!("../../fixtures/bases/classify.c"),
        inputs: &[one("a", 4), one("b", 4)],
    },
    Base {
        name: "loops",
        source: include_str!("../../fixtures/bases/loops.c"),
        inputs: &[one("n", 4), one("x", 4)],
    },
    Base {
        name: "account",
        source: include_str!("../../fixtures/bases/account.c"),
        inputs: &[many("ops", 4, 3)],
    },
    Base {
        name: "numeric",
        source: include_str!("../../fixtures/bases/numeric.c"),
        inputs: &[one("big", 8), one("a", 4), one("b", 4)],
    },
    Base {
        name: "machine",
        source: include_str!("../../fixtures/bases/machine.c"),
        inputs: &[many("in", 1, 6)],
    },
    Base {
        name: "bits",
        source: include_str!("../../fixtures/bases/bits.c"),
        inputs: &[one("x", 4), one("k", 4)],
    },
    Base {
        name: "grades",
        source: include_str!("../../fixtures/bases/grades.c"),
        inputs: &[many("pts", 4, 2), one("late", 4)],
    },
    Base { name: "search", source: include_str!("../../fixtures/bases/search.c"), inputs: &[one("key", 4)] },
];

/// Bases for ground truth: each input has a small domain, fixed by the
/// program's `klee_assume`s, so every input of the domain can be run.
pub const TRUTH_BASES: &[Base] = &[
    Base {
        name: "grade",
        source: include_str!("../../fixtures/truth/grade.c"),
        inputs: &[int_in("score", 0, 100), int_in("late", 0, 3)],
    },
    Base {
        name: "triangle",
        source: include_str!("../../fixtures/truth/triangle.c"),
        inputs: &[int_in("a", 0, 7), int_in("b", 0, 7), int_in("c", 0, 7)],
    },
    Base {
        name: "runs",
        source: include_str!("../../fixtures/truth/runs.c"),
        inputs: &[Input { name: "v", width: 4, count: 4, domain: Domain::Range(-3, 3) }],
    },
    Base {
        name: "bits",
        source: include_str!("../../fixtures/truth/bits.c"),
        inputs: &[one("x", 1), int_in("k", 0, 7)],
    },
    Base {
        name: "machine",
        source: include_str!("../../fixtures/truth/machine.c"),
        inputs: &[Input { name: "in", width: 1, count: 4, domain: Domain::Range(-2, 2) }],
    },
    Base {
        name: "calc",
        source: include_str!("../../fixtures/truth/calc.c"),
        inputs: &[int_in("op", 0, 4), int_in("a", -6, 6), int_in("b", -6, 6)],
    },
    Base {
        name: "search",
        source: include_str!("../../fixtures/truth/search.c"),
        inputs: &[int_in("key", -8, 40)],
    },
    Base {
        name: "account",
        source: include_str!("../../fixtures/truth/account.c"),
        inputs: &[Input { name: "ops", width: 4, count: 3, domain: Domain::Range(-5, 5) }],
    },
    Base {
        name: "dates",
        source: include_str!("../../fixtures/truth/dates.c"),
        inputs: &[int_in("month", 0, 13), int_in("day", 0, 31), int_in("leap", 0, 1)],
    },
    Base {
        name: "fizz",
        source: include_str!("../../fixtures/truth/fizz.c"),
        inputs: &[int_in("n", 0, 100)],
    },
    Base {
        name: "parens",
        source: include_str!("../../fixtures/truth/parens.c"),
        inputs: &[Input { name: "s", width: 1, count: 5, domain: Domain::Set(&[40, 41, 120]) }],
    },
    Base {
        name: "sort",
        source: include_str!("../../fixtures/truth/sort.c"),
        inputs: &[Input { name: "a", width: 4, count: 4, domain: Domain::Range(0, 3) }],
    },
    Base {
        name: "words",
        source: include_str!("../../fixtures/truth/words.c"),
        inputs: &[Input { name: "s", width: 1, count: 4, domain: Domain::Set(&[97, 66, 32, 0]) }],
    },
    Base {
        name: "gcd",
        source: include_str!("../../fixtures/truth/gcd.c"),
        inputs: &[int_in("a", 0, 12), int_in("b", 0, 12)],
    },
    Base {
        name: "hash",
        source: include_str!("../../fixtures/truth/hash.c"),
        inputs: &[one("x", 1), int_in("k", 0, 3)],
    },
    Base {
        name: "stack",
        source: include_str!("../../fixtures/truth/stack.c"),
        inputs: &[Input { name: "ops", width: 1, count: 5, domain: Domain::Range(0, 3) }],
    },
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    OperatorSwap,
    Constant,
    /// An integer constant made a `double` one (`3` → `3.5`).
    DoubleConstant,
    DeleteStatement,
    AddGuard,
    ChangeCondition,
    ChangeReturn,
    AddHelper,
    LoopStep,
    WidenParameter,
    // Rewrites that keep the behaviour (`equivalents`).
    /// `x > 4` → `x >= 5`.
    RelaxBound,
    /// `a < b` → `!(a >= b)`.
    NegateComparison,
    /// `x * 2` ↔ `x + x`.
    Double,
    /// `a + b` → `(b) + (a)`, for side-effect-free operands.
    Commute,
    /// `if (c) A else B` → `if (!(c)) { B } else { A }`.
    SwapBranches,
    /// Two adjacent independent statements swapped.
    Reorder,
    /// A guard that never holds, around a copy of a statement.
    DeadGuard,
    /// `a && b` → `!(!(a) || !(b))`.
    DeMorgan,
}

impl Kind {
    /// A rewrite made to keep the behaviour.
    pub fn preserves_behaviour(self) -> bool {
        matches!(
            self,
            Kind::RelaxBound
                | Kind::NegateComparison
                | Kind::Double
                | Kind::Commute
                | Kind::SwapBranches
                | Kind::Reorder
                | Kind::DeadGuard
                | Kind::DeMorgan
        )
    }
}

/// A text replacement in the original.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// One mutation: edits that belong together (a helper and its use).
#[derive(Clone, Debug)]
pub struct Mutation {
    pub kind: Kind,
    pub edits: Vec<Edit>,
    /// For helpers: the helper's number, unique within a revision.
    pub helper: Option<u32>,
}

impl Mutation {
    fn overlaps(&self, other: &Mutation) -> bool {
        self.edits.iter().any(|a| {
            other.edits.iter().any(|b| {
                let pure_insert = a.range.is_empty() && b.range.is_empty();
                !pure_insert
                    && a.range.start < b.range.end.max(b.range.start + 1)
                    && b.range.start < a.range.end.max(a.range.start + 1)
            })
        }) || (self.helper.is_some() && self.helper == other.helper)
    }
}

/// `source` with `mutations` (non-overlapping) applied.
pub fn apply(source: &str, mutations: &[&Mutation]) -> String {
    edit(source, mutations.iter().flat_map(|m| &m.edits).collect())
}

/// `source` with `edits` (non-overlapping) applied.
fn edit(source: &str, mut edits: Vec<&Edit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::new();
    let mut last = 0;
    for e in edits {
        out.push_str(&source[last..e.range.start.max(last)]);
        out.push_str(&e.text);
        last = last.max(e.range.end);
    }
    out.push_str(&source[last..]);
    out
}

fn parse(source: &str) -> tree_sitter::Tree {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_c::LANGUAGE.into()).unwrap();
    p.parse(source, None).unwrap()
}

fn kids(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

/// Where in the program a node is.
#[derive(Clone, Copy, Default)]
struct Context {
    /// Inside an index, an array size, a case label, a shift or division
    /// operand, `sizeof`, a directive or a `klee_*` call: never mutated.
    frozen: bool,
    /// Inside a loop header: only mutations that keep the loop bounded.
    header: bool,
    /// Inside a `while` body: no deleted or guarded statements (its counter lives there).
    while_body: bool,
}

struct Collector<'s> {
    src: &'s str,
    out: Vec<Mutation>,
    /// `(start of enclosing function, first int parameter)` per function.
    params: Vec<(usize, Option<String>)>,
}

/// Every single mutation of `source`, in a deterministic order. Helpers are
/// numbered 1 or 2 so that revisions of one set can collide on a name.
pub fn candidates(source: &str) -> Vec<Mutation> {
    let tree = parse(source);
    let mut c = Collector { src: source, out: Vec::new(), params: Vec::new() };
    c.walk(tree.root_node(), Context::default());
    c.out
}

impl<'s> Collector<'s> {
    fn text(&self, n: Node) -> &'s str {
        &self.src[n.byte_range()]
    }

    fn push(&mut self, kind: Kind, edits: Vec<Edit>) {
        self.out.push(Mutation { kind, edits, helper: None });
    }

    fn replace(&mut self, kind: Kind, n: Node, text: String) {
        self.push(kind, vec![Edit { range: n.byte_range(), text }]);
    }

    fn guard_var(&self) -> Option<String> {
        self.params.last().and_then(|(_, p)| p.clone())
    }

    fn walk(&mut self, n: Node, ctx: Context) {
        let mut ctx = ctx;
        match n.kind() {
            "subscript_expression" => {
                // The array may be mutated, the index not.
                if let Some(a) = n.child_by_field_name("argument") {
                    self.walk(a, ctx);
                }
                return;
            }
            "array_declarator" | "case_statement" | "sizeof_expression" | "preproc_include"
            | "preproc_def" => {
                if n.kind() == "case_statement" {
                    // The label is frozen, the statements are not.
                    for k in kids(n).into_iter().filter(|k| Some(*k) != n.child_by_field_name("value")) {
                        if k.is_named() {
                            self.walk(k, ctx);
                        }
                    }
                    self.statement_mutations(n, ctx);
                    return;
                }
                ctx.frozen = true;
            }
            "call_expression" => {
                let f = n.child_by_field_name("function").map(|f| self.text(f)).unwrap_or("");
                if f.starts_with("klee_") {
                    return;
                }
            }
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                if matches!(op, "/" | "%" | "<<" | ">>") {
                    ctx.frozen = true;
                }
            }
            "assignment_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                if matches!(op, "/=" | "%=" | "<<=" | ">>=") {
                    ctx.frozen = true;
                }
            }
            "function_definition" => {
                let first = first_int_param(self.src, n);
                self.widen(n);
                self.params.push((n.start_byte(), first));
            }
            "for_statement" => {
                // A changed start or bound of a loop that indexes an array by
                // its counter (`in[i]`) would read past the array.
                let frozen = ctx.frozen || indexes_by_counter(self.src, n);
                for f in ["initializer", "condition", "update"] {
                    if let Some(h) = n.child_by_field_name(f) {
                        self.walk(h, Context { header: true, frozen, ..ctx });
                        if f == "update" {
                            self.loop_step(h);
                        }
                    }
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.walk(b, ctx);
                }
                return;
            }
            "while_statement" | "do_statement" => {
                if let Some(c) = n.child_by_field_name("condition") {
                    self.walk(c, Context { header: true, ..ctx });
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.walk(
                        b,
                        Context { while_body: n.kind() == "while_statement" || ctx.while_body, ..ctx },
                    );
                }
                return;
            }
            _ => {}
        }
        if !ctx.frozen {
            self.expression_mutations(n, ctx);
        }
        if n.kind() == "compound_statement" {
            self.statement_mutations(n, ctx);
        }
        for k in kids(n) {
            self.walk(k, ctx);
        }
        if n.kind() == "function_definition" {
            self.params.pop();
        }
    }

    fn expression_mutations(&mut self, n: Node, ctx: Context) {
        match n.kind() {
            "binary_expression" => {
                let Some(op) = n.child_by_field_name("operator") else { return };
                let swaps: &[&str] = match self.text(op) {
                    "<" | "<=" if ctx.header => &["<", "<="],
                    _ if ctx.header => &[],
                    "+" | "-" => &["+", "-"],
                    "<" | "<=" | ">" | ">=" | "==" | "!=" => &["<", "<=", ">", ">=", "==", "!="],
                    "&&" | "||" => &["&&", "||"],
                    "&" | "|" | "^" => &["&", "|", "^"],
                    _ => &[],
                };
                let cur = self.text(op);
                for s in swaps.iter().filter(|s| **s != cur) {
                    self.replace(Kind::OperatorSwap, op, s.to_string());
                }
            }
            "number_literal" => {
                let t = self.text(n);
                let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
                let suffix = &t[digits.len()..];
                if digits.is_empty()
                    || suffix.contains(['.', 'x', 'X', 'e', 'E'])
                    || (digits.len() > 1 && digits.starts_with('0'))
                {
                    return;
                }
                let Some(v) = digits.parse::<u64>().ok().filter(|v| *v < 1 << 40) else { return };
                let in_condition = ctx.header && n.parent().is_some_and(|p| p.kind() == "binary_expression");
                let variants: Vec<String> = if ctx.header {
                    if in_condition {
                        vec![format!("{}{suffix}", v + 1), format!("{}{suffix}", v + 2)]
                    } else {
                        vec![]
                    }
                } else {
                    let mut vs = vec![
                        format!("{}{suffix}", v + 1),
                        format!("{}{suffix}", v + 7),
                        format!("{}{suffix}", v * 2),
                    ];
                    if v > 0 {
                        vs.push(format!("{}{suffix}", v - 1));
                        vs.push(format!("0{suffix}"));
                    }
                    vs
                };
                for s in variants.into_iter().filter(|s| s != t) {
                    self.replace(Kind::Constant, n, s);
                }
                let bitwise = n.parent().is_some_and(|p| {
                    p.child_by_field_name("operator")
                        .is_some_and(|o| matches!(self.text(o), "&" | "|" | "^" | "&=" | "|=" | "^="))
                });
                if !ctx.header && suffix.is_empty() && !bitwise {
                    self.replace(Kind::DoubleConstant, n, format!("{v}.5"));
                }
            }
            "if_statement" => {
                let Some(cond) = n.child_by_field_name("condition") else { return };
                let inner = &self.text(cond)[1..self.text(cond).len() - 1];
                self.replace(Kind::ChangeCondition, cond, format!("(!({inner}))"));
                if let Some(v) = self.guard_var() {
                    self.replace(Kind::ChangeCondition, cond, format!("(({inner}) && {v} != 3)"));
                    self.replace(Kind::ChangeCondition, cond, format!("(({inner}) || {v} == 5)"));
                }
            }
            "return_statement" => {
                let Some(value) = kids(n).into_iter().find(|k| k.is_named() && k.kind() != "comment") else {
                    return;
                };
                let t = self.text(value).to_string();
                self.replace(Kind::ChangeReturn, value, format!("({t}) + 1"));
                self.replace(Kind::ChangeReturn, value, format!("-({t})"));
                self.replace(Kind::ChangeReturn, value, "0".into());
                self.helper(value);
            }
            "init_declarator" => {
                if let Some(v) = n.child_by_field_name("value").filter(|v| v.kind() != "initializer_list")
                    && self.params.last().is_some()
                {
                    self.helper(v);
                }
            }
            "assignment_expression" => {
                if let Some(r) = n.child_by_field_name("right") {
                    self.helper(r);
                }
            }
            _ => {}
        }
    }

    /// Deleted and guarded statements among the children of a block.
    fn statement_mutations(&mut self, block: Node, ctx: Context) {
        if ctx.frozen || ctx.while_body {
            return;
        }
        for s in kids(block) {
            let deletable = s.kind() == "expression_statement" && !self.text(s).starts_with("klee_");
            if deletable || matches!(s.kind(), "break_statement" | "continue_statement") {
                self.replace(Kind::DeleteStatement, s, String::new());
            }
            if (deletable || s.kind() == "if_statement")
                && let Some(v) = self.guard_var()
            {
                let body = self.text(s).to_string();
                self.replace(Kind::AddGuard, s, format!("if ({v} > 3) {{ {body} }}"));
                self.replace(Kind::AddGuard, s, format!("if ({v} % 2 == 0) {{ {body} }}"));
            }
        }
    }

    /// Wraps `e` in a new helper function defined before the enclosing function.
    fn helper(&mut self, e: Node) {
        let Some(&(fstart, _)) = self.params.last() else { return };
        let t = self.text(e).to_string();
        for (k, body) in [
            (1, "return v * 3 + 1;".to_string()),
            (1, "return v - 2;".to_string()),
            (2, "if (v > 4)\n        return v - 4;\n    return v + 1;".to_string()),
            (2, "return -v;".to_string()),
        ] {
            let def = format!("static int psy_helper{k}(int v) {{\n    {body}\n}}\n\n");
            self.out.push(Mutation {
                kind: Kind::AddHelper,
                edits: vec![
                    Edit { range: fstart..fstart, text: def },
                    Edit { range: e.byte_range(), text: format!("psy_helper{k}({t})") },
                ],
                helper: Some(k),
            });
        }
    }

    fn loop_step(&mut self, update: Node) {
        let t = self.text(update);
        if let Some(var) = t.strip_suffix("++").or_else(|| t.strip_prefix("++")) {
            let var = var.trim().to_string();
            self.replace(Kind::LoopStep, update, format!("{var} += 2"));
        }
    }

    /// `int p` → `long long p` for a function's parameters (not main's).
    fn widen(&mut self, f: Node) {
        let Some(d) = f.child_by_field_name("declarator") else { return };
        let Some(params) = d.child_by_field_name("parameters") else { return };
        if d.child_by_field_name("declarator").is_some_and(|n| self.text(n) == "main") {
            return;
        }
        for p in kids(params).into_iter().filter(|p| p.kind() == "parameter_declaration") {
            if let Some(ty) = p.child_by_field_name("type").filter(|t| self.text(*t) == "int") {
                self.replace(Kind::WidenParameter, ty, "long long".into());
            }
        }
    }
}

/// The body of loop `f` indexes an array by a bare identifier its condition
/// mentions.
fn indexes_by_counter(src: &str, f: Node) -> bool {
    let (Some(cond), Some(body)) = (f.child_by_field_name("condition"), f.child_by_field_name("body")) else {
        return false;
    };
    let mut subscripts = Vec::new();
    descendants(body, "subscript_expression", &mut subscripts);
    subscripts
        .iter()
        .filter_map(|s| s.child_by_field_name("index"))
        .any(|i| i.kind() == "identifier" && mentions(src, cond, &src[i.byte_range()]))
}

/// Every descendant of `n` of kind `kind`, in source order.
fn descendants<'t>(n: Node<'t>, kind: &str, out: &mut Vec<Node<'t>>) {
    if n.kind() == kind {
        out.push(n);
    }
    for k in kids(n) {
        descendants(k, kind, out);
    }
}

fn first_int_param(src: &str, f: Node) -> Option<String> {
    let d = f.child_by_field_name("declarator")?;
    let params = d.child_by_field_name("parameters")?;
    let p = kids(params).into_iter().find(|p| p.kind() == "parameter_declaration")?;
    let ty = p.child_by_field_name("type")?;
    let name = p.child_by_field_name("declarator")?;
    (&src[ty.byte_range()] == "int" && name.kind() == "identifier")
        .then(|| src[name.byte_range()].to_string())
}

/// A patch set over `base`: revision 0 is the base, then 1 to 7 mutants, each
/// with 1 to 3 mutations drawn mostly from a small pool shared by the set, so
/// that revisions often change the same places.
pub fn patch_set(source: &str, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let all = candidates(source);
    let pool: Vec<&Mutation> = (0..rng.random_range(2..=5)).filter_map(|_| all.choose(&mut rng)).collect();
    let patches = rng.random_range(1..=7);
    let mut revs = vec![source.to_string()];
    for _ in 0..patches {
        if revs.len() > 1 && rng.random_bool(0.1) {
            let dup = revs[rng.random_range(1..revs.len())].clone();
            revs.push(dup);
            continue;
        }
        let mut chosen: Vec<&Mutation> = Vec::new();
        for _ in 0..rng.random_range(1..=3) {
            let m = if rng.random_bool(0.7) { pool.choose(&mut rng).copied() } else { all.choose(&mut rng) };
            if let Some(m) = m
                && !chosen.iter().any(|c| c.overlaps(m))
            {
                chosen.push(m);
            }
        }
        revs.push(apply(source, &chosen));
    }
    revs
}

/// A way real C code is written that the bases are not: student and contest
/// code mixes them freely, so two revisions of one program often differ in
/// shape alone, which the unifier must tell from a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// `int main()`.
    MainEmpty,
    /// `int main(int argc, char **argv)`.
    MainArgv,
    /// `int main(int argc, char *argv[])`.
    MainArgvArray,
    /// `int main(argc, argv) int argc; char **argv; {`.
    MainKnR,
    /// `void main(void)`, whose every `return e;` is `exit(e);`: a `void main`
    /// that returns leaves whatever its last call put in the return register as
    /// the exit status, which no other build can reproduce.
    VoidMain,
    /// `main` whose final `return 0;` is dropped: it falls off its end.
    FallsOff,
    /// `main` whose final `return e;` is `if (e) return e;`: the 0 is implicit.
    ImplicitZero,
    /// A helper defined K&R style: `static int f(a, b) int a; int b; {`.
    KnR,
    /// A `for` loop written with a statement-like macro (`REP`, `rep`, `forn`,
    /// `FOR`) defined after the includes.
    LoopMacro,
    /// Latin-1, cp1252 and stray UTF-8 lead bytes in a comment.
    RawComment,
    /// The same in a `printf` format.
    RawString,
}

impl Shape {
    pub const ALL: [Shape; 11] = [
        Shape::MainEmpty,
        Shape::MainArgv,
        Shape::MainArgvArray,
        Shape::MainKnR,
        Shape::VoidMain,
        Shape::FallsOff,
        Shape::ImplicitZero,
        Shape::KnR,
        Shape::LoopMacro,
        Shape::RawComment,
        Shape::RawString,
    ];
}

/// The warnings clang gives for the shapes themselves (`void main`, K&R
/// definitions, bytes that are not UTF-8 in a string): revisions and meta
/// programs of shaped sets are built with these off. No mutation makes them.
pub const SHAPE_WARNINGS: [&str; 3] =
    ["-Wno-main-return-type", "-Wno-deprecated-non-prototype", "-Wno-invalid-source-encoding"];

/// Words with bytes that are not UTF-8 (Latin-1, cp1252 quotes, a UTF-8
/// lead byte without its tail), one mixed with proper UTF-8, as real sources
/// written in old editors have them.
const RAW_WORDS: [&[u8]; 7] = [
    b"r\xe9sultat",
    b"Gr\xfc\xdfe",
    b"\xa9 2009 Ren\xe9",
    b"temp\xe9rature en \xb0C",
    b"\x93cp1252\x94",
    b"\xbfqu\xe9 tal?",
    b"d\xc3\xa9j\xc3\xa0 vu, d\xe9j\xe0 \xc3 vu",
];

/// [`patch_set`] with every revision, the original too, drawn into real-code
/// shapes: the texts and the shapes of each.
pub fn shaped_patch_set(source: &str, seed: u64) -> Vec<(String, Vec<Shape>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x54a9e);
    patch_set(source, seed).iter().map(|text| reshape(text, &mut rng)).collect()
}

/// `text` in some real-code shapes, each drawn at random; the macro last,
/// since the grammar cannot read a loop written with one.
fn reshape(text: &str, rng: &mut ChaCha8Rng) -> (String, Vec<Shape>) {
    let mut text = text.to_string();
    let mut shapes = Vec::new();
    let mut take = |shape: Option<(String, Shape)>, text: &mut String| {
        if let Some((t, s)) = shape {
            *text = t;
            shapes.push(s);
        }
    };
    let mut void = false;
    if rng.random_bool(0.35) {
        let shape =
            *[Shape::MainEmpty, Shape::MainArgv, Shape::MainArgvArray, Shape::MainKnR, Shape::VoidMain]
                .choose(rng)
                .unwrap();
        void = shape == Shape::VoidMain;
        take(main_signature(&text, shape), &mut text);
    }
    if !void && rng.random_bool(0.3) {
        take(implicit_return(&text), &mut text);
    }
    if rng.random_bool(0.25) {
        take(knr(&text, rng), &mut text);
    }
    if rng.random_bool(0.25) {
        take(raw_comment(&text, rng), &mut text);
    }
    if rng.random_bool(0.2) {
        take(raw_string(&text, rng), &mut text);
    }
    if rng.random_bool(0.3) {
        take(loop_macro(&text, rng), &mut text);
    }
    (text, shapes)
}

/// The function declarator of a definition, under any pointer declarators.
fn function_declarator(def: Node) -> Option<Node> {
    let mut d = def.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    Some(d)
}

/// The file-scope function definitions of `tree`, with their names.
fn functions<'t>(src: &str, tree: &'t tree_sitter::Tree) -> Vec<(Node<'t>, String)> {
    kids(tree.root_node())
        .into_iter()
        .filter(|n| n.kind() == "function_definition")
        .filter_map(|def| {
            let name = function_declarator(def)?.child_by_field_name("declarator")?;
            Some((def, src[name.byte_range()].to_string()))
        })
        .collect()
}

fn main_of<'t>(src: &str, tree: &'t tree_sitter::Tree) -> Option<Node<'t>> {
    functions(src, tree).into_iter().find(|(_, name)| name == "main").map(|(def, _)| def)
}

/// The value of a `return e;`.
fn return_value(n: Node) -> Option<Node> {
    kids(n).into_iter().find(|k| k.is_named() && k.kind() != "comment")
}

/// Where a new line after the includes goes.
fn after_includes(tree: &tree_sitter::Tree) -> usize {
    kids(tree.root_node())
        .into_iter()
        .rev()
        .find(|n| n.kind() == "preproc_include")
        .map_or(0, |n| n.end_byte())
}

fn main_signature(src: &str, shape: Shape) -> Option<(String, Shape)> {
    let tree = parse(src);
    let main = main_of(src, &tree)?;
    let body = main.child_by_field_name("body")?;
    let header = main.start_byte()..function_declarator(main)?.end_byte();
    let signature = match shape {
        Shape::MainEmpty => "int main()",
        Shape::MainArgv => "int main(int argc, char **argv)",
        Shape::MainArgvArray => "int main(int argc, char *argv[])",
        Shape::MainKnR => {
            let edits = [Edit {
                range: main.start_byte()..body.start_byte(),
                text: "int main(argc, argv)\n    int argc;\n    char **argv;\n".into(),
            }];
            return Some((edit(src, edits.iter().collect()), shape));
        }
        Shape::VoidMain => "void main(void)",
        _ => unreachable!("{shape:?} is no signature of main"),
    };
    let mut edits = vec![Edit { range: header, text: signature.into() }];
    if shape == Shape::VoidMain {
        let mut returns = Vec::new();
        descendants(body, "return_statement", &mut returns);
        for r in returns {
            let value = return_value(r).map_or("0", |v| &src[v.byte_range()]);
            edits.push(Edit { range: r.byte_range(), text: format!("exit({value});") });
        }
        if !src.contains("#include <stdlib.h>") {
            let at = after_includes(&tree);
            edits.push(Edit { range: at..at, text: "#include <stdlib.h>\n".into() });
        }
    }
    Some((edit(src, edits.iter().collect()), shape))
}

/// `main`'s final `return 0;` dropped, or its final `return e;` made
/// `if (e) return e;` (every return value of the generator is free of side
/// effects, so evaluating it twice changes nothing).
fn implicit_return(src: &str) -> Option<(String, Shape)> {
    let tree = parse(src);
    let body = main_of(src, &tree)?.child_by_field_name("body")?;
    let last = kids(body).into_iter().rev().find(|k| k.is_named() && k.kind() != "comment")?;
    let value = return_value(last).filter(|_| last.kind() == "return_statement")?;
    let e = &src[value.byte_range()];
    let (range, text, shape) = if e == "0" {
        // With its line, so no blank line stays.
        let line = src[..last.start_byte()].trim_end_matches([' ', '\t']).trim_end_matches('\n').len();
        (line..last.end_byte(), String::new(), Shape::FallsOff)
    } else {
        (last.byte_range(), format!("if ({e})\n        return {e};"), Shape::ImplicitZero)
    };
    Some((edit(src, vec![&Edit { range, text }]), shape))
}

/// A random helper (any function but `main`) with its parameters declared K&R
/// style. clang converts the arguments of a call after such a definition to
/// the parameters' types, as with a prototype, so no call changes meaning.
fn knr(src: &str, rng: &mut ChaCha8Rng) -> Option<(String, Shape)> {
    let tree = parse(src);
    let helpers: Vec<(Node, Vec<Node>)> = functions(src, &tree)
        .into_iter()
        .filter(|(_, name)| name != "main")
        .filter_map(|(def, _)| {
            let params = function_declarator(def)?.child_by_field_name("parameters")?;
            let ps: Vec<Node> =
                kids(params).into_iter().filter(|p| p.kind() == "parameter_declaration").collect();
            let named = ps.iter().all(|p| p.child_by_field_name("declarator").is_some());
            (!ps.is_empty() && named).then_some((def, ps))
        })
        .collect();
    let (def, params) = helpers.choose(rng)?;
    let names: Vec<&str> = params
        .iter()
        .map(|p| {
            let mut d = p.child_by_field_name("declarator").unwrap();
            while let Some(inner) = d.child_by_field_name("declarator") {
                d = inner;
            }
            &src[d.byte_range()]
        })
        .collect();
    let declarations: String = params.iter().map(|p| format!("    {};\n", &src[p.byte_range()])).collect();
    let list = function_declarator(*def)?.child_by_field_name("parameters")?;
    let body = def.child_by_field_name("body")?;
    let edits = [
        Edit { range: list.byte_range(), text: format!("({})", names.join(", ")) },
        Edit { range: list.end_byte()..body.start_byte(), text: format!("\n{declarations}") },
    ];
    Some((edit(src, edits.iter().collect()), Shape::KnR))
}

/// `RAW_WORDS` as a revision text holds them: as [`psychic::unify::decode`]
/// reads the bytes (build writes them back as they were).
fn raw_word(rng: &mut ChaCha8Rng) -> String {
    psychic::unify::decode(RAW_WORDS.choose(rng).unwrap())
}

/// A comment with raw bytes at the top of the file or after a statement.
fn raw_comment(src: &str, rng: &mut ChaCha8Rng) -> Option<(String, Shape)> {
    let tree = parse(src);
    let mut statements = Vec::new();
    for kind in ["expression_statement", "return_statement", "declaration"] {
        descendants(tree.root_node(), kind, &mut statements);
    }
    // Not a loop's initializer, and not at file scope, where a comment after
    // a declaration would be no different from one at the top.
    statements.retain(|s| s.parent().is_some_and(|p| p.kind() == "compound_statement"));
    let word = raw_word(rng);
    let edit_at = match statements.choose(rng).filter(|_| rng.random_bool(0.7)) {
        Some(s) => Edit { range: s.end_byte()..s.end_byte(), text: format!(" /* {word} */") },
        None => Edit { range: 0..0, text: format!("/* {word} */\n") },
    };
    Some((edit(src, vec![&edit_at]), Shape::RawComment))
}

/// Raw bytes at the start of a random `printf` format.
fn raw_string(src: &str, rng: &mut ChaCha8Rng) -> Option<(String, Shape)> {
    let tree = parse(src);
    let mut calls = Vec::new();
    descendants(tree.root_node(), "call_expression", &mut calls);
    let formats: Vec<Node> = calls
        .into_iter()
        .filter(|c| c.child_by_field_name("function").is_some_and(|f| &src[f.byte_range()] == "printf"))
        .filter_map(|c| c.child_by_field_name("arguments")?.named_child(0))
        .filter(|a| a.kind() == "string_literal")
        .collect();
    let at = formats.choose(rng)?.start_byte() + 1;
    let text = format!("{} ", raw_word(rng));
    Some((edit(src, vec![&Edit { range: at..at, text }]), Shape::RawString))
}

/// A statement-like loop macro as contest code defines them.
struct LoopMacro {
    define: &'static str,
    name: &'static str,
    /// The loop declares its counter (`for (int i = ...`).
    declares: bool,
    compare: &'static str,
    /// The start is a parameter; otherwise it is 0.
    from: bool,
}

/// `FOR` twice, as contest code defines it either way: two revisions of one
/// set may give one macro name different bodies.
const LOOP_MACROS: [LoopMacro; 5] = [
    LoopMacro {
        define: "#define REP(i, n) for (int i = 0; i < (n); i++)",
        name: "REP",
        declares: true,
        compare: "<",
        from: false,
    },
    LoopMacro {
        define: "#define rep(i, n) for (int i = 0; i < (n); ++i)",
        name: "rep",
        declares: true,
        compare: "<",
        from: false,
    },
    LoopMacro {
        define: "#define forn(i, n) for (int i = 0; i < (int)(n); i++)",
        name: "forn",
        declares: true,
        compare: "<",
        from: false,
    },
    LoopMacro {
        define: "#define FOR(i, a, b) for (int i = (a); i < (b); i++)",
        name: "FOR",
        declares: true,
        compare: "<",
        from: true,
    },
    LoopMacro {
        define: "#define FOR(i, a, b) for (i = (a); i <= (b); i++)",
        name: "FOR",
        declares: false,
        compare: "<=",
        from: true,
    },
];

/// A `for (int i = a; i < b; i++)` loop's parts: whether it declares `i`,
/// `i`, `a`, the comparison, `b` and where its header ends.
struct Counted<'s> {
    declares: bool,
    var: &'s str,
    from: &'s str,
    compare: &'s str,
    to: &'s str,
    header: Range<usize>,
}

fn counted<'s>(src: &'s str, f: Node) -> Option<Counted<'s>> {
    let text = |n: Node| &src[n.byte_range()];
    let init = f.child_by_field_name("initializer")?;
    let (declares, var, from) = match init.kind() {
        "declaration" if init.child_by_field_name("type").is_some_and(|t| text(t) == "int") => {
            let [d] =
                kids(init).into_iter().filter(|k| k.kind() == "init_declarator").collect::<Vec<_>>()[..]
            else {
                return None;
            };
            (true, d.child_by_field_name("declarator")?, d.child_by_field_name("value")?)
        }
        "assignment_expression" if text(init.child_by_field_name("operator")?) == "=" => {
            (false, init.child_by_field_name("left")?, init.child_by_field_name("right")?)
        }
        _ => return None,
    };
    let cond = f.child_by_field_name("condition").filter(|c| c.kind() == "binary_expression")?;
    let update = f.child_by_field_name("update").filter(|u| u.kind() == "update_expression")?;
    let var_text = text(var);
    let same = |n: Option<Node>| n.is_some_and(|n| n.kind() == "identifier" && text(n) == var_text);
    if var.kind() != "identifier"
        || !same(cond.child_by_field_name("left"))
        || !same(update.child_by_field_name("argument"))
        || !text(update).contains("++")
    {
        return None;
    }
    let close = kids(f).into_iter().rev().find(|k| k.kind() == ")")?;
    Some(Counted {
        declares,
        var: var_text,
        from: text(from),
        compare: text(cond.child_by_field_name("operator")?),
        to: text(cond.child_by_field_name("right")?),
        header: f.start_byte()..close.end_byte(),
    })
}

/// One counted loop written with a macro that means the same, the macro
/// defined after the includes.
fn loop_macro(src: &str, rng: &mut ChaCha8Rng) -> Option<(String, Shape)> {
    let tree = parse(src);
    let mut fors = Vec::new();
    descendants(tree.root_node(), "for_statement", &mut fors);
    let loops: Vec<Counted> = fors.into_iter().filter_map(|f| counted(src, f)).collect();
    let fits = |m: &LoopMacro, l: &Counted| {
        m.declares == l.declares && m.compare == l.compare && (m.from || l.from == "0")
    };
    let usable: Vec<&LoopMacro> = LOOP_MACROS.iter().filter(|m| loops.iter().any(|l| fits(m, l))).collect();
    let m = usable.choose(rng)?;
    let fitting: Vec<&Counted> = loops.iter().filter(|l| fits(m, l)).collect();
    let l = fitting.choose(rng)?;
    let args =
        if m.from { format!("{}, {}, {}", l.var, l.from, l.to) } else { format!("{}, {}", l.var, l.to) };
    let at = after_includes(&tree);
    let edits = [
        Edit { range: at..at, text: format!("{}\n", m.define) },
        Edit { range: l.header.clone(), text: format!("{}({args})", m.name) },
    ];
    Some((edit(src, edits.iter().collect()), Shape::LoopMacro))
}

/// `n` tests for a program with `inputs`: all zeros first, then edge values,
/// small values and random ones.
pub fn inputs(inputs: &[Input], seed: u64, n: usize) -> Vec<KTest> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    (0..n)
        .map(|t| {
            let objects = inputs
                .iter()
                .map(|inp| {
                    let bits = inp.width * 8;
                    let min = -(1i128 << (bits - 1));
                    let max = (1i128 << (bits - 1)) - 1;
                    let mut bytes = Vec::new();
                    for _ in 0..inp.count {
                        let v: i128 = match t {
                            0 => 0,
                            1 => *[0, 1, -1, 2, 5, 7, 10, 11, 20, 21, 100, -100, max, min]
                                .choose(&mut rng)
                                .unwrap(),
                            2 | 3 => rng.random_range(-25..=25),
                            4 => rng.random_range(-1000..=1000),
                            _ => rng.random_range(min..=max),
                        };
                        bytes.extend_from_slice(&v.to_le_bytes()[..inp.width]);
                    }
                    Object { name: inp.name.to_string(), bytes }
                })
                .collect();
            KTest { args: vec!["prog".into()], sym_argvs: 0, sym_argv_len: 0, objects }
        })
        .collect()
}

/// Every behaviour-preserving rewrite of `source` ([`Kind::preserves_behaviour`]),
/// in a deterministic order. They assume integer operands (`x > 4` and
/// `x >= 5` differ for a `double`), as in the truth bases.
pub fn equivalents(source: &str) -> Vec<Mutation> {
    let tree = parse(source);
    let mut c = Collector { src: source, out: Vec::new(), params: Vec::new() };
    c.rewrites(tree.root_node());
    c.out
}

impl Collector<'_> {
    fn rewrites(&mut self, n: Node) {
        match n.kind() {
            "preproc_include" | "preproc_def" | "case_statement" => {
                // Labels must stay constant expressions the unifier shares.
                for k in kids(n).into_iter().filter(|k| Some(*k) != n.child_by_field_name("value")) {
                    self.rewrites(k);
                }
                if n.kind() == "case_statement" {
                    self.reorders(n);
                }
                return;
            }
            "call_expression" => {
                let f = n.child_by_field_name("function").map(|f| self.text(f)).unwrap_or("");
                if f.starts_with("klee_") {
                    return;
                }
            }
            "function_definition" => {
                let first = first_int_param(self.src, n);
                self.params.push((n.start_byte(), first));
            }
            "binary_expression" => self.binary_rewrites(n),
            "if_statement" => self.swap_branches(n),
            "compound_statement" => {
                self.reorders(n);
                self.dead_guards(n);
            }
            _ => {}
        }
        for k in kids(n) {
            self.rewrites(k);
        }
        if n.kind() == "function_definition" {
            self.params.pop();
        }
    }

    fn binary_rewrites(&mut self, n: Node) {
        let (Some(l), Some(op), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("operator"),
            n.child_by_field_name("right"),
        ) else {
            return;
        };
        let (lt, o, rt) = (self.text(l), self.text(op), self.text(r));
        // `x > 4` ↔ `x >= 5`; never below 0, where an unsigned `x` would wrap.
        if r.kind() == "number_literal"
            && let Ok(c) = rt.parse::<u64>()
        {
            let relaxed = match o {
                ">" => Some(format!("{lt} >= {}", c + 1)),
                "<=" => Some(format!("{lt} < {}", c + 1)),
                ">=" if c > 0 => Some(format!("{lt} > {}", c - 1)),
                "<" if c > 0 => Some(format!("{lt} <= {}", c - 1)),
                _ => None,
            };
            if let Some(t) = relaxed {
                self.replace(Kind::RelaxBound, n, t);
            }
        }
        let negated = match o {
            "<" => Some(">="),
            ">=" => Some("<"),
            ">" => Some("<="),
            "<=" => Some(">"),
            "==" => Some("!="),
            "!=" => Some("=="),
            _ => None,
        };
        if let Some(neg) = negated {
            self.replace(Kind::NegateComparison, n, format!("!({lt} {neg} {rt})"));
        }
        if o == "*" && (rt == "2" && l.kind() == "identifier" || lt == "2" && r.kind() == "identifier") {
            let x = if rt == "2" { lt } else { rt };
            self.replace(Kind::Double, n, format!("({x} + {x})"));
        }
        if o == "+" && l.kind() == "identifier" && lt == rt {
            self.replace(Kind::Double, n, format!("({lt} * 2)"));
        }
        if matches!(o, "+" | "*" | "&" | "|" | "^" | "==" | "!=") && self.pure(l) && self.pure(r) {
            self.replace(Kind::Commute, n, format!("({rt}) {o} ({lt})"));
        }
        let dual = match o {
            "&&" => Some("||"),
            "||" => Some("&&"),
            _ => None,
        };
        if let Some(d) = dual {
            self.replace(Kind::DeMorgan, n, format!("!(!({lt}) {d} !({rt}))"));
        }
    }

    /// No call, assignment or increment inside: evaluation order cannot matter.
    fn pure(&self, n: Node) -> bool {
        !matches!(n.kind(), "call_expression" | "assignment_expression" | "update_expression")
            && kids(n).into_iter().all(|k| self.pure(k))
    }

    fn swap_branches(&mut self, n: Node) {
        let (Some(cond), Some(then), Some(alt)) = (
            n.child_by_field_name("condition"),
            n.child_by_field_name("consequence"),
            n.child_by_field_name("alternative"),
        ) else {
            return;
        };
        // The else clause's statement, without the `else`.
        let Some(alt) = kids(alt).into_iter().find(|k| k.is_named() && k.kind() != "comment") else { return };
        let t =
            format!("if (!{}) {{\n{}\n}} else {{\n{}\n}}", self.text(cond), self.text(alt), self.text(then));
        self.replace(Kind::SwapBranches, n, t);
    }

    /// Adjacent statements that each assign one variable the other does not
    /// mention, without calls, swapped.
    fn reorders(&mut self, block: Node) {
        let stmts: Vec<Node> =
            kids(block).into_iter().filter(|k| k.is_named() && k.kind() != "comment").collect();
        for w in stmts.windows(2) {
            let (Some(a), Some(b)) = (self.assigned(w[0]), self.assigned(w[1])) else { continue };
            if a == b || mentions(self.src, w[1], &a) || mentions(self.src, w[0], &b) {
                continue;
            }
            let (ta, tb) = (self.text(w[0]).to_string(), self.text(w[1]).to_string());
            self.push(
                Kind::Reorder,
                vec![
                    Edit { range: w[0].byte_range(), text: tb },
                    Edit { range: w[1].byte_range(), text: ta },
                ],
            );
        }
    }

    /// The variable a call-free statement `x = e;`, `x += e;`, `x++;` or
    /// `T x = e;` assigns.
    fn assigned(&self, s: Node) -> Option<String> {
        if !self.pure_but_assignment(s) {
            return None;
        }
        let target = match s.kind() {
            "expression_statement" => {
                let e = kids(s).into_iter().find(|k| k.is_named())?;
                match e.kind() {
                    "assignment_expression" => e.child_by_field_name("left")?,
                    "update_expression" => e.child_by_field_name("argument")?,
                    _ => return None,
                }
            }
            "declaration" => {
                let ds: Vec<Node> = kids(s).into_iter().filter(|k| k.kind() == "init_declarator").collect();
                match ds.as_slice() {
                    [d] => d.child_by_field_name("declarator")?,
                    _ => return None,
                }
            }
            _ => return None,
        };
        (target.kind() == "identifier").then(|| self.text(target).to_string())
    }

    fn pure_but_assignment(&self, n: Node) -> bool {
        n.kind() != "call_expression" && kids(n).into_iter().all(|k| self.pure_but_assignment(k))
    }

    /// `if (v > 7 && v < 3) { s }` before each expression statement `s` of a
    /// function with an int parameter `v`.
    fn dead_guards(&mut self, block: Node) {
        let Some(v) = self.guard_var() else { return };
        for s in kids(block).into_iter().filter(|s| s.kind() == "expression_statement") {
            let body = self.text(s);
            if body.starts_with("klee_") {
                continue;
            }
            let at = s.start_byte();
            self.push(
                Kind::DeadGuard,
                vec![Edit { range: at..at, text: format!("if ({v} > 7 && {v} < 3) {{ {body} }}\n    ") }],
            );
        }
    }
}

/// Some identifier in `n` is `name`.
fn mentions(src: &str, n: Node, name: &str) -> bool {
    (n.kind() == "identifier" && &src[n.byte_range()] == name)
        || kids(n).into_iter().any(|k| mentions(src, k, name))
}

/// A patch set for ground truth over `source`, as repair tools make them:
/// revision 0 is `source`, then 2 to 14 patches. Most change behaviour (1 or
/// 2 mutations, mostly from a small pool shared by the set, so that patches
/// touch the same places); some are an earlier revision with 1 or 2
/// behaviour-preserving rewrites (preferably where that revision changed the
/// original, so `x > 20` meets `x >= 21`); a few are exact copies.
pub fn truth_set(source: &str, seed: u64) -> Vec<String> {
    generate_truth_set(source, seed, None)
}

/// As [`truth_set`], with `size` revisions.
pub fn truth_set_sized(source: &str, seed: u64, size: usize) -> Vec<String> {
    generate_truth_set(source, seed, Some(size))
}

fn generate_truth_set(source: &str, seed: u64, size: Option<usize>) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let all: Vec<Mutation> =
        candidates(source).into_iter().filter(|m| m.kind != Kind::DoubleConstant).collect();
    let pool: Vec<&Mutation> = (0..rng.random_range(2..=5)).filter_map(|_| all.choose(&mut rng)).collect();
    let drawn = rng.random_range(3..=15);
    let size = size.unwrap_or(drawn);
    let mut revs = vec![source.to_string()];
    while revs.len() < size {
        let roll: f64 = rng.random();
        let rev = if roll < 0.08 {
            revs[rng.random_range(0..revs.len())].clone()
        } else if roll < 0.4 {
            let base = revs[rng.random_range(0..revs.len())].clone();
            rewrite(&base, source, &mut rng)
        } else {
            let mut chosen: Vec<&Mutation> = Vec::new();
            for _ in 0..rng.random_range(1..=2) {
                let m =
                    if rng.random_bool(0.75) { pool.choose(&mut rng).copied() } else { all.choose(&mut rng) };
                if let Some(m) = m
                    && !chosen.iter().any(|c| c.overlaps(m))
                {
                    chosen.push(m);
                }
            }
            apply(source, &chosen)
        };
        revs.push(rev);
    }
    revs
}

/// `text` with 1 or 2 behaviour-preserving rewrites, preferably where it
/// differs from `orig`.
fn rewrite(text: &str, orig: &str, rng: &mut ChaCha8Rng) -> String {
    let mut text = text.to_string();
    for _ in 0..rng.random_range(1..=2) {
        let all = equivalents(&text);
        let prefix = text.bytes().zip(orig.bytes()).take_while(|(a, b)| a == b).count();
        let suffix = text.bytes().rev().zip(orig.bytes().rev()).take_while(|(a, b)| a == b).count();
        let changed = prefix..text.len().saturating_sub(suffix).max(prefix + 1);
        let near: Vec<&Mutation> = all
            .iter()
            .filter(|m| {
                m.edits.iter().any(|e| {
                    e.range.start < changed.end && changed.start < e.range.end.max(e.range.start + 1)
                })
            })
            .collect();
        let m = if !near.is_empty() && text != orig && rng.random_bool(0.6) {
            near.choose(rng).copied()
        } else {
            all.choose(rng)
        };
        if let Some(m) = m {
            text = apply(&text, &[m]);
        }
    }
    text
}

/// Every input of `inputs`' domains, as tests (the cartesian product, the
/// last integer varying fastest).
pub fn domain(inputs: &[Input]) -> Vec<KTest> {
    let slots: Vec<(usize, Vec<i64>)> = inputs
        .iter()
        .flat_map(|i| std::iter::repeat_n((i.width, i.domain.values(i.width)), i.count))
        .collect();
    let mut tests = Vec::new();
    let mut index = vec![0usize; slots.len()];
    loop {
        let mut objects = Vec::new();
        let mut k = 0;
        for inp in inputs {
            let mut bytes = Vec::new();
            for _ in 0..inp.count {
                let (w, values) = &slots[k];
                bytes.extend_from_slice(&values[index[k]].to_le_bytes()[..*w]);
                k += 1;
            }
            objects.push(Object { name: inp.name.to_string(), bytes });
        }
        tests.push(KTest { args: vec!["prog".into()], sym_argvs: 0, sym_argv_len: 0, objects });
        // The next index, like an odometer.
        let mut d = slots.len();
        loop {
            if d == 0 {
                return tests;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < slots[d].1.len() {
                break;
            }
            index[d] = 0;
        }
    }
}
