//! Sequences of statements (or file-scope items) and their N-way alignment.
//!
//! Alignment is progressive: revision 0's sequence gives the first slots, and
//! every further revision is diffed (Myers, from `similar`) against the slots so
//! far. Slots and elements are equal when their tokens are; inside each changed
//! region a second diff pairs elements of the same *kind* (an `if` with an `if`,
//! an assignment to `x` with an assignment to `x`), so that the merge can recurse
//! into them instead of replacing them whole.

use similar::{Algorithm, DiffOp, capture_diff_slices};
use tree_sitter::Node;

use super::parse::Rev;

/// One element of a sequence: a statement (or file-scope item) of one revision,
/// with the comments attached to it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Elem<'t> {
    pub rev: usize,
    pub node: Node<'t>,
    /// Start of the comments before the node (or the node's start).
    pub start: usize,
    /// End of the node, of a `;` that belongs to it, or of a comment on its last line.
    pub end: usize,
}

/// The elements among `nodes` (children of one parent, in order) and the range
/// of comments after the last one, if any.
pub(crate) fn elems<'t>(
    rev: &Rev,
    nodes: impl IntoIterator<Item = Node<'t>>,
) -> (Vec<Elem<'t>>, Option<std::ops::Range<usize>>) {
    let mut out: Vec<Elem<'t>> = Vec::new();
    let mut pending: Option<(usize, usize)> = None;
    for n in nodes {
        if n.kind() == "comment" {
            let same_line = out.last().is_some_and(|last| !rev.src(last.end..n.start_byte()).contains('\n'));
            match (out.last_mut(), pending) {
                (Some(last), None) if same_line => last.end = n.end_byte(),
                (_, Some((s, _))) => pending = Some((s, n.end_byte())),
                (_, None) => pending = Some((n.start_byte(), n.end_byte())),
            }
        } else if !n.is_named() {
            // A `;` after a struct or enum definition belongs to it; braces and
            // other punctuation belong to the parent.
            if n.kind() == ";"
                && let Some(last) = out.last_mut()
            {
                last.end = n.end_byte();
            }
        } else {
            let start = pending.take().map_or(n.start_byte(), |(s, _)| s);
            // Directives end with their newline; the printer places line breaks.
            let end = n.start_byte() + rev.text_of(n).trim_end().len();
            out.push(Elem { rev: rev.index, node: n, start, end });
        }
    }
    (out, pending.map(|(s, e)| s..e))
}

/// Keys of one element: `key` is equal exactly when the tokens are, `kind`
/// when the two can be merged by recursing into them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keys {
    pub key: u64,
    pub kind: u64,
}

/// A slot of the alignment: for each input sequence, the index of its element
/// in that slot, if it has one.
pub(crate) type Slot = Vec<Option<usize>>;

/// Aligns `seqs` (one per revision of the set). Every element of every sequence
/// is in exactly one slot, and each sequence's elements keep their order.
pub(crate) fn align(seqs: &[Vec<Keys>]) -> Vec<Slot> {
    let n = seqs.len();
    let Some(first) = seqs.first() else { return Vec::new() };
    let mut slots: Vec<Slot> = (0..first.len())
        .map(|i| {
            let mut s = vec![None; n];
            s[0] = Some(i);
            s
        })
        .collect();
    for k in 1..n {
        // A slot is represented by its first member.
        let rep = |s: &Slot| {
            let (seq, &i) =
                s.iter().enumerate().find_map(|(q, m)| m.as_ref().map(|i| (q, i))).expect("no empty slots");
            seqs[seq][i]
        };
        let old_keys: Vec<u64> = slots.iter().map(|s| rep(s).key).collect();
        let new_keys: Vec<u64> = seqs[k].iter().map(|e| e.key).collect();
        let mut out: Vec<Slot> = Vec::with_capacity(slots.len() + new_keys.len());
        let mut region = (0, 0, 0, 0); // old start, old end, new start, new end
        let flush = |out: &mut Vec<Slot>, slots: &[Slot], (os, oe, ns, ne): (usize, usize, usize, usize)| {
            let old_kinds: Vec<u64> = slots[os..oe].iter().map(|s| rep(s).kind).collect();
            let new_kinds: Vec<u64> = seqs[k][ns..ne].iter().map(|e| e.kind).collect();
            for op in capture_diff_slices(Algorithm::Myers, &old_kinds, &new_kinds) {
                let (_, o, nw) = op.as_tag_tuple();
                match op {
                    DiffOp::Equal { .. } => {
                        for (i, j) in o.zip(nw) {
                            let mut s = slots[os + i].clone();
                            s[k] = Some(ns + j);
                            out.push(s);
                        }
                    }
                    _ => {
                        out.extend(o.map(|i| slots[os + i].clone()));
                        out.extend(nw.map(|j| {
                            let mut s = vec![None; n];
                            s[k] = Some(ns + j);
                            s
                        }));
                    }
                }
            }
        };
        for op in capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys) {
            let (_, o, nw) = op.as_tag_tuple();
            if let DiffOp::Equal { .. } = op {
                flush(&mut out, &slots, region);
                for (i, j) in o.clone().zip(nw.clone()) {
                    let mut s = slots[i].clone();
                    s[k] = Some(j);
                    out.push(s);
                }
                region = (o.end, o.end, nw.end, nw.end);
            } else {
                if region.0 == region.1 && region.2 == region.3 {
                    region = (o.start, o.start, nw.start, nw.start);
                }
                region.1 = region.1.max(o.end);
                region.3 = region.3.max(nw.end);
            }
        }
        flush(&mut out, &slots, region);
        slots = out;
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &[(u64, u64)]) -> Vec<Keys> {
        s.iter().map(|&(key, kind)| Keys { key, kind }).collect()
    }

    #[test]
    fn pairs_same_kind_and_keeps_order() {
        // rev 0: a b c; rev 1: a b' d c (b' same kind as b); rev 2: a d c.
        let seqs = vec![
            keys(&[(1, 1), (2, 2), (3, 3)]),
            keys(&[(1, 1), (5, 2), (4, 4), (3, 3)]),
            keys(&[(1, 1), (4, 4), (3, 3)]),
        ];
        let slots = align(&seqs);
        assert_eq!(
            slots,
            vec![
                vec![Some(0), Some(0), Some(0)],
                vec![Some(1), Some(1), None],
                vec![None, Some(2), Some(1)],
                vec![Some(2), Some(3), Some(2)],
            ]
        );
    }
}
