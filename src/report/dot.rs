//! The decision tree in Graphviz: tests as boxes, clusters as ellipses, edges
//! labelled with what tells their outcome apart (`shown::edge_labels`).

use std::fmt::Write as _;

use super::shown::edge_labels;
use super::{Report, Test, TreeNode, revision_set};

pub fn tree_dot(r: &Report) -> String {
    let mut s = String::from("digraph psychic {\n  node [fontname=\"monospace\"];\n");
    let mut next = 0;
    match &r.decision_tree {
        Some(tree) => {
            node(r, tree, &mut next, &mut s);
        }
        None => {
            let all: Vec<usize> = r.revisions.iter().map(|x| x.index).collect();
            let _ = writeln!(s, "  n0 [shape=ellipse, label=\"{}\"];", revision_set(&all));
        }
    }
    s.push_str("}\n");
    s
}

/// Emits `tree` and returns its node name.
fn node(r: &Report, tree: &TreeNode, next: &mut usize, s: &mut String) -> String {
    let me = format!("n{next}");
    *next += 1;
    let test = r.test(tree.test);
    let _ = writeln!(
        s,
        "  {me} [shape=box, label={}];",
        quote(&format!("test #{}\n{}", tree.test, test.map(Test::inputs_line).unwrap_or_default()))
    );
    for (b, label) in tree.branches.iter().zip(edge_labels(test, tree)) {
        let child = match &b.subtree {
            Some(sub) => node(r, sub, next, s),
            None => {
                let leaf = format!("n{next}");
                *next += 1;
                let _ =
                    writeln!(s, "  {leaf} [shape=ellipse, label={}];", quote(&revision_set(&b.revisions)));
                leaf
            }
        };
        let _ = writeln!(s, "  {me} -> {child} [label={}];", quote(&label.join("\n")));
    }
    me
}

/// A DOT string literal.
fn quote(text: &str) -> String {
    let mut q = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
