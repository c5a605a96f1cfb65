//! The human summary: printed on the terminal and saved as `report.txt`.

use std::fmt::Write as _;

use super::{Report, TreeNode, Verdict, revision_set, shown};

pub fn summary(r: &Report) -> String {
    let mut s = String::new();
    let st = &r.stats;
    let _ = writeln!(
        s,
        "psychic: {} revisions, {} {}, {} {}{}",
        r.revisions.len(),
        r.clusters.len(),
        plural(r.clusters.len(), "cluster", "clusters"),
        r.tests.len(),
        plural(r.tests.len(), "differential test", "differential tests"),
        if st.partial { " (partial: something was approximated or cut)" } else { "" }
    );
    for reason in &st.partial_reasons {
        let _ = writeln!(s, "  partial: {reason}");
    }
    // Where enumeration could have proved what is partial, why it did not.
    if let Some(why) = st.enumeration.as_ref().and_then(|e| e.shortfall())
        && st.partial
    {
        let _ = writeln!(s, "  enumeration: {why}");
    }
    let _ = writeln!(s, "\nrevisions:");
    for rev in &r.revisions {
        let _ = writeln!(s, "  {:>3}  {}", rev.index, rev.path);
    }
    let _ = writeln!(s, "\nclusters (revisions that behave alike on every test found):");
    for (i, c) in r.clusters.iter().enumerate() {
        let verdict = match r.cluster_verdicts.get(i).map(|v| v.verdict) {
            Some(Verdict::ProvedEquivalent) => "  proved equivalent",
            Some(Verdict::NotSeparated) => "  not separated (no proof: see partial)",
            _ => "",
        };
        let _ = writeln!(s, "  {}  {}{verdict}", cluster_name(i), revision_set(c));
    }
    if r.cluster_verdicts.iter().any(|v| v.verdict == Verdict::ProvedEquivalent) && !r.domain.is_empty() {
        let _ = writeln!(s, "  (proved on the inputs explored: {})", r.domain);
    }
    if !r.tests.is_empty() {
        let _ = writeln!(s, "\ntests:");
    }
    for t in &r.tests {
        let by = match t.found_by {
            super::FoundBy::Symbolic => "",
            super::FoundBy::Fuzzing => "  [found by fuzzing]",
            super::FoundBy::Enumeration => "  [found by enumeration]",
        };
        let _ = writeln!(s, "  #{} {}  ({}){by}", t.id, t.inputs_line(), t.ktest);
        for o in &t.outcomes {
            let _ = writeln!(
                s,
                "      {:<14} {}, stdout {}{}",
                revision_set(&o.revisions),
                o.status_text(),
                shown::output(&o.stdout),
                o.stderr.as_deref().map(|e| format!(", stderr {}", shown::output(e))).unwrap_or_default()
            );
            for a in &o.annotations {
                let _ = writeln!(s, "      {:<14} output {}", "", shown::annotation(a));
            }
        }
        for p in &t.partial {
            let _ = writeln!(s, "      {}", partial_line(&[p.revision], p.why, &p.alike));
        }
    }
    if let Some(tree) = &r.decision_tree {
        let height = height(tree);
        let _ = writeln!(
            s,
            "\ndecision tree (height {height}{}):",
            if st.tree_optimal { ", minimal" } else { ", best found within the search budget" }
        );
        draw(r, tree, 1, &mut s);
        let ids: Vec<String> = r.separating_tests.iter().map(|t| format!("#{t}")).collect();
        let _ = writeln!(
            s,
            "\nseparating tests: {}{}",
            ids.join(", "),
            if st.separating_optimal {
                " (a smallest set)"
            } else {
                " (best found within the search budget)"
            }
        );
    }
    let _ = writeln!(
        s,
        "\nstats: {} instructions, {} paths ({} partial), {} queries ({} cache hits), \
         {} candidate tests, {} confirmed, {} engine/native disagreements",
        st.instructions,
        st.paths_completed,
        st.paths_partial,
        st.queries,
        st.query_cache_hits + st.cex_cache_hits,
        st.candidate_tests,
        st.confirmed_tests,
        st.disagreements
    );
    if st.candidates_replayed > 0 || st.uninitialised_candidates > 0 || st.unreplayed_candidates > 0 {
        let _ = writeln!(
            s,
            "candidates: {} of the engine's replayed, {} refuted ({:.0}%); {} predicted from uninitialised \
             memory, left to fuzzing; {} not replayed before the budget ended",
            st.candidates_replayed,
            st.disagreements,
            100.0 * st.refuted_share,
            st.uninitialised_candidates,
            st.unreplayed_candidates
        );
    }
    let m = &st.merging;
    if m.groups > 0 {
        let _ = writeln!(
            s,
            "merging: {} revision splits with a meeting point, {} states merged there ({} queries), {} gave up waiting",
            m.groups, m.merged_states, st.query_kinds.merge.queries, m.expired
        );
    }
    if let Some(f) = &st.fuzzing {
        let found = r.tests.iter().filter(|t| t.found_by == super::FoundBy::Fuzzing).count();
        let engine = if f.offered > 0 {
            format!(
                " ({} offered to the engine, {} taken: {} states, {} paths)",
                f.offered, f.engine_seeds, f.engine_states, f.engine_paths
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "fuzzing: {} inputs run on every revision in {:.1}s, {} kept{engine}, {} seeds taken, {} of the tests{}",
            f.executions,
            f.seconds,
            f.corpus,
            f.seeds,
            found,
            f.error.as_ref().map(|e| format!(" (stopped: {e})")).unwrap_or_default()
        );
    }
    if let Some(e) = &st.enumeration {
        let found = r.tests.iter().filter(|t| t.found_by == super::FoundBy::Enumeration).count();
        let why: Vec<String> = (e.not_a_proof.iter().map(|w| format!("no proof: {w}")))
            .chain(e.not_finished.iter().cloned())
            .chain(e.doubtful.iter().cloned())
            .collect();
        let mut what = if why.is_empty() {
            "a proof for the clusters it leaves together".into()
        } else {
            why.join("; ")
        };
        if let Some(c) = &e.crashes {
            what = format!("{what}; {c}");
        }
        if e.runs == 0 {
            let domain = if e.domain.is_empty() { String::new() } else { format!(" of {}", e.domain) };
            let _ = writeln!(s, "enumeration{domain}: {}", e.shortfall().unwrap_or("no runs"));
        } else {
            let _ = writeln!(
                s,
                "enumeration: {} runs of {} inputs ({} in the domain: {}) in {:.1}s, {} of the tests; {what}",
                e.runs, e.inputs, e.in_domain, e.domain, e.seconds, found
            );
        }
    }
    coverage(r, &mut s);
    let _ = writeln!(s, "libc: {}", r.libc);
    let t = &st.seconds;
    let _ = writeln!(
        s,
        "time: {:.2}s total (unify {:.2}s, compile {:.2}s, explore {:.2}s, solver {:.2}s, confirm {:.2}s, cluster {:.2}s)",
        t.total, t.unify, t.compile, t.explore, st.solver_seconds, t.confirm, t.cluster
    );
    s
}

/// Per revision, paths explored exactly and approximated, when anything was.
fn coverage(r: &Report, s: &mut String) {
    if r.coverage.revisions.iter().all(|c| c.approximated == 0) {
        return;
    }
    let _ = writeln!(s, "coverage (paths explored exactly / approximated, by kind):");
    for c in &r.coverage.revisions {
        let kinds: Vec<String> = c.kinds.iter().map(|(k, n)| format!("{k} {}", n.paths)).collect();
        let _ = writeln!(
            s,
            "  {:>3}  {} exact, {} approximated{}",
            c.revision,
            c.exact,
            c.approximated,
            if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) }
        );
    }
}

/// "revisions 4, 5 are known only in part: its outcome changes with memory
/// garbage ...; nothing they showed tells them apart from {0, 3}".
pub fn partial_line(revisions: &[usize], why: crate::cluster::Partial, alike: &[usize]) -> String {
    let (who, is, they, them) = match revisions {
        [_] => ("revision", "is", "it", "it"),
        _ => ("revisions", "are", "they", "them"),
    };
    let alike = if alike.is_empty() {
        String::new()
    } else {
        format!("; nothing {they} showed tells {them} apart from {}", revision_set(alike))
    };
    let list = crate::cluster::names::listed(revisions);
    format!("{who} {list} {is} known only in part: {}{alike}", why.describe())
}

/// Cluster names A, B, ..., Z, AA, AB, ...
pub fn cluster_name(mut i: usize) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'A' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII")
}

fn height(node: &TreeNode) -> usize {
    1 + node.branches.iter().filter_map(|b| b.subtree.as_deref()).map(height).max().unwrap_or(0)
}

fn draw(r: &Report, node: &TreeNode, depth: usize, s: &mut String) {
    let pad = "  ".repeat(depth);
    let _ = writeln!(s, "{pad}test #{}", node.test);
    let test = r.test(node.test);
    for b in &node.branches {
        let what = test.and_then(|t| t.outcomes.get(b.outcome)).map(|o| o.status_text()).unwrap_or_default();
        match &b.subtree {
            Some(sub) => {
                let _ = writeln!(s, "{pad}  outcome {} ({what}) {}:", b.outcome, revision_set(&b.revisions));
                draw(r, sub, depth + 2, s);
            }
            None => {
                let _ =
                    writeln!(s, "{pad}  outcome {} ({what}) -> {}", b.outcome, revision_set(&b.revisions));
            }
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::cluster_name;

    #[test]
    fn cluster_names_continue_past_z() {
        let names: Vec<String> =
            [0, 1, 25, 26, 27, 51, 52, 701, 702].iter().map(|&i| cluster_name(i)).collect();
        assert_eq!(names, ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]);
    }
}
