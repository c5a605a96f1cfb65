//! The decision tree as an SVG picture, laid out by psychic itself: tests are
//! boxes, clusters are rounded leaves, and each edge is labelled with what
//! tells its outcome apart from its siblings' (`shown::edge_labels`).
//!
//! Layout: a subtree is as wide as the sum of its children (or its own box, if
//! wider); leaves are placed left to right, and a parent is centred over its
//! children, one row per depth. Text is monospace, so its width is known from
//! its length.

use maud::{Markup, html};

use super::shown::{edge_labels, shorten};
use super::text::cluster_name;
use super::{Report, TreeNode, revision_set};

const CHAR_W: f64 = 7.3;
const FONT: f64 = 12.0;
const LINE_H: f64 = 15.0;
const PAD: f64 = 8.0;
const GAP: f64 = 24.0;
const ROW_H: f64 = 110.0;

/// One box of the picture, before placement.
struct Item {
    lines: Vec<String>,
    /// A test node's test id, or a leaf's cluster name.
    test: Option<usize>,
    cluster: Option<String>,
    /// The edge label above this item (from its parent), if any.
    label: Vec<String>,
    children: Vec<Item>,
}

impl Item {
    fn box_w(&self) -> f64 {
        let chars = self.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        chars as f64 * CHAR_W + 2.0 * PAD
    }
    fn box_h(&self) -> f64 {
        self.lines.len() as f64 * LINE_H + 2.0 * PAD - (LINE_H - FONT)
    }
    fn own_w(&self) -> f64 {
        let label = self.label.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CHAR_W;
        self.box_w().max(label) + GAP
    }
    fn width(&self) -> f64 {
        self.own_w().max(self.children.iter().map(Item::width).sum())
    }
}

/// A placed box: its centre and the item.
struct Placed<'a> {
    x: f64,
    y: f64,
    item: &'a Item,
    parent: Option<usize>,
}

fn place<'a>(item: &'a Item, left: f64, depth: usize, parent: Option<usize>, out: &mut Vec<Placed<'a>>) {
    let w = item.width();
    let me = out.len();
    out.push(Placed { x: left + w / 2.0, y: 40.0 + depth as f64 * ROW_H, item, parent });
    let used: f64 = item.children.iter().map(Item::width).sum();
    let mut x = left + (w - used) / 2.0;
    for c in &item.children {
        place(c, x, depth + 1, Some(me), out);
        x += c.width();
    }
}

fn leaf(r: &Report, revisions: &[usize], label: Vec<String>) -> Item {
    let cluster = r.clusters.iter().position(|c| c == revisions);
    let name = cluster.map(cluster_name).unwrap_or_else(|| "?".into());
    Item {
        lines: vec![format!("cluster {name}"), revision_set(revisions)],
        test: None,
        cluster: Some(name),
        label,
        children: Vec::new(),
    }
}

fn build(r: &Report, node: &TreeNode, label: Vec<String>) -> Item {
    let test = r.test(node.test);
    let mut lines = vec![format!("test #{}", node.test)];
    if let Some(t) = test {
        lines.extend(t.shown_inputs().into_iter().map(|i| shorten(&i.text, 28)));
    }
    let children = node
        .branches
        .iter()
        .zip(edge_labels(test, node))
        .map(|(b, label)| match &b.subtree {
            Some(sub) => build(r, sub, label),
            None => leaf(r, &b.revisions, label),
        })
        .collect();
    Item { lines, test: Some(node.test), cluster: None, label, children }
}

/// The decision tree of `r` as an `<svg id="decision-tree">` element; a single
/// leaf when there is one cluster.
pub fn tree_svg(r: &Report) -> Markup {
    let root = match &r.decision_tree {
        Some(t) => build(r, t, Vec::new()),
        None => {
            let all: Vec<usize> = r.revisions.iter().map(|x| x.index).collect();
            leaf(r, &all, Vec::new())
        }
    };
    let mut placed = Vec::new();
    place(&root, 0.0, 0, None, &mut placed);
    let width = root.width();
    let height = placed.iter().map(|p| p.y + p.item.box_h()).fold(0.0, f64::max) + 20.0;
    html! {
        svg id="decision-tree" xmlns="http://www.w3.org/2000/svg" role="img"
            width=(fmt(width)) height=(fmt(height)) viewBox={ "0 0 " (fmt(width)) " " (fmt(height)) }
            font-family="monospace" font-size=(FONT) {
            title { "decision tree" }
            @for p in &placed {
                @if let Some(parent) = p.parent {
                    @let q = &placed[parent];
                    @let (x1, y1) = (q.x, q.y + q.item.box_h());
                    path class="tree-edge" fill="none" stroke="#667" stroke-width="1.2"
                        d={ "M" (fmt(x1)) "," (fmt(y1)) " C" (fmt(x1)) "," (fmt(y1 + 40.0)) " "
                            (fmt(p.x)) "," (fmt(p.y - 40.0)) " " (fmt(p.x)) "," (fmt(p.y)) } {}
                    // At the middle of the edge, on a halo of the background.
                    @let (lx, ly) = ((x1 + p.x) / 2.0, (y1 + p.y) / 2.0 + FONT / 2.0 - LINE_H * (p.item.label.len() as f64 - 1.0) / 2.0);
                    text class="edge-label" x=(fmt(lx)) y=(fmt(ly)) text-anchor="middle" fill="#334"
                        stroke="#fbfbfe" stroke-width="4" paint-order="stroke" {
                        @for (i, l) in p.item.label.iter().enumerate() {
                            tspan x=(fmt(lx)) dy=(if i == 0 { 0.0 } else { LINE_H }) { (l) }
                        }
                    }
                }
            }
            @for p in &placed {
                @let (w, h) = (p.item.box_w(), p.item.box_h());
                g class=(if p.item.test.is_some() { "tree-node" } else { "tree-leaf" })
                    data-test=[p.item.test] data-cluster=[&p.item.cluster] {
                    @if let Some(test) = p.item.test {
                        a href={ "#test-" (test) } {
                            rect x=(fmt(p.x - w / 2.0)) y=(fmt(p.y)) width=(fmt(w)) height=(fmt(h)) rx="3"
                                fill="#e8eefc" stroke="#2f4f9e" stroke-width="1.5" {}
                        }
                    } @else {
                        rect x=(fmt(p.x - w / 2.0)) y=(fmt(p.y)) width=(fmt(w)) height=(fmt(h)) rx="12"
                            fill="#e3f4e6" stroke="#2d7a3e" stroke-width="1.5" {}
                    }
                    text x=(fmt(p.x)) y=(fmt(p.y + PAD + FONT - 2.0)) text-anchor="middle" fill="#111" {
                        @for (i, l) in p.item.lines.iter().enumerate() {
                            tspan x=(fmt(p.x)) dy=(if i == 0 { 0.0 } else { LINE_H })
                                font-weight=(if i == 0 { "bold" } else { "normal" }) { (l) }
                        }
                    }
                }
            }
        }
    }
}

fn fmt(v: f64) -> String {
    format!("{v:.1}")
}
