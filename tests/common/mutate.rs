//! A seeded, deterministic mutation generator for C programs: it makes patch sets
//! (an original and 1 to 7 mutants) whose behaviour is ground truth once compiled.
//!
//! Mutations: operator swaps, constant changes (also to a `double` constant, to
//! exercise type conversions), deleted statements, added guards, changed
//! conditions and returns, added helper functions (two revisions may add the same
//! helper name with different bodies), `for` step changes and widened parameters.
//!
//! The base programs keep the mutants free of undefined behaviour that could make
//! two builds of one revision disagree: every array index is masked, every loop
//! is bounded by its header (which mutations only change in ways that keep it
//! bounded), and every variable is initialized where it is declared. A division
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
}

const fn one(name: &'static str, width: usize) -> Input {
    Input { name, width, count: 1 }
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
        inputs: &[Input { name: "ops", width: 4, count: 3 }],
    },
    Base {
        name: "numeric",
        source: include_str!("../../fixtures/bases/numeric.c"),
        inputs: &[one("big", 8), one("a", 4), one("b", 4)],
    },
    Base {
        name: "machine",
        source: include_str!("../../fixtures/bases/machine.c"),
        inputs: &[Input { name: "in", width: 1, count: 6 }],
    },
    Base {
        name: "bits",
        source: include_str!("../../fixtures/bases/bits.c"),
        inputs: &[one("x", 4), one("k", 4)],
    },
    Base {
        name: "grades",
        source: include_str!("../../fixtures/bases/grades.c"),
        inputs: &[Input { name: "pts", width: 4, count: 2 }, one("late", 4)],
    },
    Base { name: "search", source: include_str!("../../fixtures/bases/search.c"), inputs: &[one("key", 4)] },
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    OperatorSwap,
    Constant,
    DeleteStatement,
    AddGuard,
    ChangeCondition,
    ChangeReturn,
    AddHelper,
    LoopStep,
    WidenParameter,
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
    let mut edits: Vec<&Edit> = mutations.iter().flat_map(|m| &m.edits).collect();
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
                for f in ["initializer", "condition", "update"] {
                    if let Some(h) = n.child_by_field_name(f) {
                        self.walk(h, Context { header: true, ..ctx });
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
                    let bitwise = n.parent().is_some_and(|p| {
                        p.child_by_field_name("operator")
                            .is_some_and(|o| matches!(self.text(o), "&" | "|" | "^" | "&=" | "|=" | "^="))
                    });
                    if suffix.is_empty() && !bitwise {
                        vs.push(format!("{v}.5"));
                    }
                    vs
                };
                for s in variants.into_iter().filter(|s| s != t) {
                    self.replace(Kind::Constant, n, s);
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
