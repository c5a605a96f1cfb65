//! The decision tree as an SVG picture, laid out by psychic itself: tests are
//! boxes, clusters are rounded leaves, and each edge is labelled with what
//! tells its outcome apart from its siblings' (`shown::edge_labels`).
//!
//! Layout: a subtree is as wide as the sum of its children, or as its own box
//! or the label above it if wider; leaves are placed left to right, and a
//! parent is centred over its children, one row per depth. Text is
//! monospace, so its width is known from its length. Each label sits just
//! above its child, where the edge runs straight down: a child is centred in
//! its own column and its label fits in it, and the columns of a row never
//! overlap, so neither do the labels of a row (the edges between them
//! curve above the labels, which they pass only at their own child).

use maud::{Markup, html};

use super::shown::{edge_labels, shorten};
use super::text::cluster_name;
use super::{Report, TreeNode, revision_set};

const CHAR_W: f64 = 7.3;
const FONT: f64 = 12.0;
const LINE_H: f64 = 15.0;
const PAD: f64 = 8.0;
/// Between the columns of neighbouring subtrees.
const GAP: f64 = 24.0;
/// The first row's top.
const TOP: f64 = 12.0;
/// Between a row's lowest box and the labels of the next row: where edges curve.
const CURVE: f64 = 44.0;
/// Between a label and its child's box.
const LABEL_GAP: f64 = 4.0;

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

fn text_w(lines: &[String]) -> f64 {
    lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CHAR_W
}

impl Item {
    fn box_w(&self) -> f64 {
        text_w(&self.lines) + 2.0 * PAD
    }
    fn box_h(&self) -> f64 {
        self.lines.len() as f64 * LINE_H + 2.0 * PAD - (LINE_H - FONT)
    }
    fn label_h(&self) -> f64 {
        self.label.len() as f64 * LINE_H
    }
    fn own_w(&self) -> f64 {
        self.box_w().max(text_w(&self.label)) + GAP
    }
    fn width(&self) -> f64 {
        self.own_w().max(self.children.iter().map(Item::width).sum())
    }
}

/// A placed box: the centre of its top, and the item.
struct Placed<'a> {
    x: f64,
    y: f64,
    depth: usize,
    /// The top of the band its row's labels lie in: an edge comes straight
    /// down from here.
    band: f64,
    item: &'a Item,
    parent: Option<usize>,
}

/// An axis-aligned rectangle: left, top, right, bottom.
type Rect = (f64, f64, f64, f64);

impl Placed<'_> {
    fn box_rect(&self) -> Rect {
        let w = self.item.box_w();
        (self.x - w / 2.0, self.y, self.x + w / 2.0, self.y + self.item.box_h())
    }
    /// Where the edge label is drawn, bottom-aligned over the box.
    fn label_rect(&self) -> Option<Rect> {
        if self.item.label.is_empty() {
            return None;
        }
        let (w, bottom) = (text_w(&self.item.label), self.y - LABEL_GAP);
        Some((self.x - w / 2.0, bottom - self.item.label_h(), self.x + w / 2.0, bottom))
    }
}

/// Every item of the tree placed: columns by width, rows as tall as their
/// tallest box and label.
fn layout(root: &Item) -> Vec<Placed<'_>> {
    let mut placed = Vec::new();
    place(root, 0.0, 0, None, &mut placed);
    let rows = placed.iter().map(|p| p.depth).max().unwrap_or(0) + 1;
    let (mut box_h, mut label_h) = (vec![0.0f64; rows], vec![0.0f64; rows]);
    for p in &placed {
        box_h[p.depth] = box_h[p.depth].max(p.item.box_h());
        label_h[p.depth] = label_h[p.depth].max(p.item.label_h());
    }
    let mut top = vec![TOP + label_h[0] + LABEL_GAP; rows];
    for d in 1..rows {
        top[d] = top[d - 1] + box_h[d - 1] + CURVE + label_h[d] + LABEL_GAP;
    }
    for p in &mut placed {
        p.y = top[p.depth];
        p.band = p.y - LABEL_GAP - label_h[p.depth];
    }
    placed
}

fn place<'a>(item: &'a Item, left: f64, depth: usize, parent: Option<usize>, out: &mut Vec<Placed<'a>>) {
    let w = item.width();
    let me = out.len();
    out.push(Placed { x: left + w / 2.0, y: 0.0, depth, band: 0.0, item, parent });
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
    let placed = layout(&root);
    let width = root.width();
    let height = placed.iter().map(|p| p.box_rect().3).fold(0.0, f64::max) + 20.0;
    html! {
        svg id="decision-tree" xmlns="http://www.w3.org/2000/svg" role="img"
            width=(fmt(width)) height=(fmt(height)) viewBox={ "0 0 " (fmt(width)) " " (fmt(height)) }
            font-family="monospace" font-size=(FONT) {
            title { "decision tree" }
            @for p in &placed {
                @if let Some(parent) = p.parent {
                    @let q = &placed[parent];
                    @let (x1, y1) = (q.x, q.box_rect().3);
                    @let mid = (y1 + p.band) / 2.0;
                    path class="tree-edge" fill="none" stroke="#667" stroke-width="1.2"
                        d={ "M" (fmt(x1)) "," (fmt(y1)) " C" (fmt(x1)) "," (fmt(mid)) " "
                            (fmt(p.x)) "," (fmt(mid)) " " (fmt(p.x)) "," (fmt(p.band)) " L" (fmt(p.x)) "," (fmt(p.y)) } {}
                    @if let Some((_, top, _, _)) = p.label_rect() {
                        // On a halo of the background, over the edge's straight end.
                        text class="edge-label" x=(fmt(p.x)) y=(fmt(top + FONT - 1.0)) text-anchor="middle" fill="#334"
                            stroke="#fbfbfe" stroke-width="4" paint-order="stroke" {
                            @for (i, l) in p.item.label.iter().enumerate() {
                                tspan x=(fmt(p.x)) dy=(if i == 0 { 0.0 } else { LINE_H }) { (l) }
                            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn item(lines: &[&str], label: &[&str], children: Vec<Item>) -> Item {
        Item {
            lines: lines.iter().map(|l| l.to_string()).collect(),
            test: None,
            cluster: None,
            label: label.iter().map(|l| l.to_string()).collect(),
            children,
        }
    }

    fn leaf(name: &str, label: &[&str]) -> Item {
        item(&[&format!("cluster {name}"), "{1}"], label, Vec::new())
    }

    fn overlap(a: Rect, b: Rect) -> bool {
        a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
    }

    /// No two labels overlap, nor a label and a box, nor two boxes; every
    /// label lies in the picture; and where an edge runs straight down
    /// through the label band it meets no label but its own.
    fn check(root: &Item) {
        let placed = layout(root);
        let width = root.width();
        let labels: Vec<(usize, Rect)> =
            placed.iter().enumerate().filter_map(|(i, p)| p.label_rect().map(|r| (i, r))).collect();
        let boxes: Vec<Rect> = placed.iter().map(Placed::box_rect).collect();
        for (n, &(i, a)) in labels.iter().enumerate() {
            assert!(a.0 >= 0.0 && a.2 <= width, "label {:?} outside 0..{width}", placed[i].item.label);
            for &(j, b) in &labels[n + 1..] {
                assert!(
                    !overlap(a, b),
                    "labels {:?} and {:?} overlap",
                    placed[i].item.label,
                    placed[j].item.label
                );
            }
            for (j, &b) in boxes.iter().enumerate() {
                assert!(
                    !overlap(a, b),
                    "label {:?} covers box {:?}",
                    placed[i].item.label,
                    placed[j].item.lines
                );
            }
            for (j, p) in placed.iter().enumerate().filter(|&(j, p)| j != i && p.parent.is_some()) {
                let edge = (p.x - 0.5, p.band, p.x + 0.5, p.y);
                assert!(!overlap(a, edge), "label {:?} crosses the edge to {j}", placed[i].item.label);
            }
        }
        for (i, &a) in boxes.iter().enumerate() {
            for &b in &boxes[i + 1..] {
                assert!(!overlap(a, b), "boxes overlap");
            }
        }
    }

    #[test]
    fn labels_of_thirteen_siblings_do_not_overlap() {
        // A student set: one test, thirteen outcomes behind one prompt.
        let children = (0..13)
            .map(|i| {
                let label = format!("…\"{} because the…\"…", (b'A' + i) as char);
                leaf(&cluster_name(i as usize), &["exit 0", &label])
            })
            .collect();
        check(&item(&["test #1", "stdin=\"90 80 70 60 55\\n\""], &[], children));
    }

    #[test]
    fn labels_do_not_overlap_in_uneven_trees() {
        let wide = "x".repeat(60);
        let deep = item(
            &["test #3", "a=1"],
            &["signal 11 (SIGSEGV)"],
            vec![
                leaf("C", &["…\"a long tail of text\"…", "output ret!f 4 01000000"]),
                leaf("D", &["\"\""]),
                item(
                    &["test #4"],
                    &["…(end)"],
                    vec![leaf("E", &["timeout"]), leaf("F", &["exit 1"]), leaf("G", &["exit 2"])],
                ),
            ],
        );
        let root = item(
            &["test #1", &wide],
            &[],
            vec![
                leaf("A", &["exit 0", "…\"1\\n\""]),
                deep,
                leaf("B", &["x"]),
                item(&["test #2"], &["y"], vec![leaf("H", &["a"]), leaf("I", &["b"])]),
            ],
        );
        check(&root);
        // A parent wider than its children, and labels wider than their boxes.
        let narrow = item(&["test #5", &wide], &[], vec![leaf("J", &[&wide]), leaf("K", &[&wide, &wide])]);
        check(&narrow);
        // A single leaf: nothing to decide.
        check(&leaf("A", &[]));
    }
}
