//! `report.html`: one self-contained page (inline CSS and SVG, no script, no
//! network): the summary, the decision tree, the clusters, every test with its
//! inputs and each outcome class's output side by side (diffed against the
//! original's), the sites, and the meta program with its sites highlighted.
//!
//! Built with `maud` (escaping by construction). Each outcome's stdout is
//! diffed against the original's by character, with a 1 s deadline past which
//! `similar` gives a coarser diff (megabytes that differ throughout would take
//! minutes).

use maud::{DOCTYPE, Markup, PreEscaped, html};
use std::time::Duration;

use similar::{DiffTag, TextDiff};

use super::diagnostics::describe;
use super::svg::tree_svg;
use super::text::cluster_name;
use super::{ClusterVerdict, Report, Test, Verdict, revision_set};
use crate::unify::MetaProgram;

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1em 2em; color: #1b1b1f; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-bottom: 2px solid #dde; padding-bottom: .2em; margin-top: 2em; }
.summary { font-size: 1.1em; } .partial { background: #fff3cd; border: 1px solid #e0c36a; padding: .5em 1em; }
table { border-collapse: collapse; margin: .5em 0 1em; } th, td { border: 1px solid #ccd; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f0f2f8; } code, pre, .mono { font-family: ui-monospace, monospace; font-size: 13px; }
pre { margin: 0; white-space: pre-wrap; } .tree { overflow-x: auto; border: 1px solid #dde; padding: .5em; background: #fbfbfe; }
.test { border: 1px solid #dde; border-radius: 6px; padding: .3em 1em 1em; margin: 1em 0; }
table.outcomes td { min-width: 14em; } ins { background: #c9f2cf; text-decoration: none; } del { background: #f8c8c8; }
.meta { border: 1px solid #dde; background: #fbfbfe; padding: .5em 0; }
.meta .line { display: block; padding: 0 .8em; } .meta .ln { color: #889; display: inline-block; width: 4em; user-select: none; }
.meta .site { border-left: 4px solid hsl(var(--h), 60%, 45%); background: hsl(var(--h), 80%, 95%); }
.meta .site.on-path { background: hsl(var(--h), 85%, 86%); }
.tag { display: inline-block; border-radius: 3px; padding: 0 .4em; background: #eef; margin-right: .3em; }
"#;

/// The page, from the report and the unify stage's map. `files[k]` is the file
/// of revision k, as diagnostics name it.
pub fn report_html(r: &Report, map: &MetaProgram, files: &[String]) -> String {
    let on_path: std::collections::BTreeSet<u32> =
        r.tests.iter().flat_map(|t| t.sites.iter().copied()).collect();
    let cluster_of = |rev: usize| r.clusters.iter().position(|c| c.contains(&rev));
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "psychic report" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "psychic report" }
                p.summary {
                    (r.revisions.len()) " revisions, " (r.clusters.len()) " clusters, "
                    (r.tests.len()) " differential tests (psychic " (r.psychic_version) ")"
                }
                @if r.stats.partial {
                    div.partial #partial {
                        p { b { "Partial." } " The exploration approximated or was cut: clusters not proved equivalent may merge revisions that differ. Why:" }
                        ul { @for why in &r.stats.partial_reasons { li { (why) } } }
                    }
                }
                h2 { "Decision tree" }
                div.tree { (tree_svg(r)) }
                h2 { "Clusters" }
                table #clusters {
                    thead { tr { th { "cluster" } th { "revisions" } th { "files" } th { "verdict" } } }
                    tbody {
                        @for (i, c) in r.clusters.iter().enumerate() {
                            tr.cluster id={ "cluster-" (cluster_name(i)) } {
                                td { b { (cluster_name(i)) } }
                                td.mono { (revision_set(c)) }
                                td { @for &k in c { code { (r.revisions[k].name) } " " } }
                                td { (verdict(r.cluster_verdicts.get(i))) }
                            }
                        }
                    }
                }
                @if r.cluster_verdicts.iter().any(ClusterVerdict::proved_equivalent) && !r.domain.is_empty() {
                    p.domain { "Proved on the inputs explored: " (r.domain) }
                }
                @if r.coverage.revisions.iter().any(|c| c.approximated > 0) {
                    h2 { "Coverage" }
                    table #coverage {
                        thead { tr { th { "revision" } th { "paths exact" } th { "approximated" } th { "kinds (first occurrence)" } } }
                        tbody {
                            @for c in &r.coverage.revisions {
                                tr {
                                    td { (c.revision) } td { (c.exact) } td { (c.approximated) }
                                    td { @for (k, n) in &c.kinds {
                                        div { b { (k) } " " (n.paths) ": " (n.first)
                                            @if let Some(l) = &n.location { " at " code { (l) } } }
                                    } }
                                }
                            }
                        }
                    }
                }
                h2 { "Revisions" }
                table #revisions {
                    thead { tr { th { "revision" } th { "file" } th { "cluster" } } }
                    tbody {
                        @for (k, rev) in r.revisions.iter().enumerate() {
                            tr { td { (rev.index) } td { code { (files[k]) } } td { (cluster_of(k).map(cluster_name).unwrap_or_default()) } }
                        }
                    }
                }
                h2 { "Tests" }
                @if r.tests.is_empty() { p { "No test tells the revisions apart." } }
                @for t in &r.tests { (test(r, t)) }
                h2 { "Sites" }
                table #sites {
                    thead { tr { th { "site" } th { "variants: revisions and where their code is" } } }
                    tbody {
                        @for s in &map.sites {
                            tr id={ "site-" (s.id) } {
                                td { a href={ "#L" (s.lines.start) } { (describe(s)) } }
                                td {
                                    @for v in &s.variants {
                                        div { span.tag { (revision_set(&v.revisions)) }
                                            @for c in &v.code { code { (map.located_in(&files[c.revision], s.lines.start)) ":" (c.start.line) ":" (c.start.col) } " " } }
                                    }
                                }
                            }
                        }
                    }
                }
                h2 { "Meta program" }
                p { "Sites are shaded; sites on a test's diverging path are darker. Hover over a line for the revisions it comes from." }
                pre.meta #meta { (meta_lines(map, &on_path)) }
            }
        }
    };
    page.into_string()
}

fn verdict(v: Option<&ClusterVerdict>) -> Markup {
    match v {
        Some(v) if v.verdict == Verdict::ProvedEquivalent => html! { "proved equivalent" },
        Some(v) if v.verdict == Verdict::NotSeparated => html! {
            "not separated: " @for (i, why) in v.reasons.iter().enumerate() { @if i > 0 { "; " } (why) }
        },
        _ => html! {},
    }
}

fn test(r: &Report, t: &Test) -> Markup {
    let base = t.outcomes.first();
    html! {
        section.test id={ "test-" (t.id) } {
            h3 { "Test #" (t.id) " " small.mono { (t.ktest) } }
            @for p in &t.partial {
                p.partial { (super::text::partial_line(&[p.revision], p.why, &p.alike)) "." }
            }
            table.inputs {
                thead { tr { th { "input" } th { "value" } th { "bytes" } } }
                tbody {
                    @for i in t.shown_inputs() {
                        tr { td.mono { (i.name) } td.mono { (i.text) } td.mono { (i.hex) } }
                    }
                }
            }
            table.outcomes {
                thead {
                    tr {
                        th {}
                        @for o in &t.outcomes {
                            th { (clusters_of(r, &o.revisions)) br; span.mono { (revision_set(&o.revisions)) } }
                        }
                    }
                }
                tbody {
                    tr { th { "status" } @for o in &t.outcomes { td.mono { (o.status_text()) } } }
                    tr {
                        th { "stdout" }
                        @for (i, o) in t.outcomes.iter().enumerate() {
                            td { pre { @if i == 0 { (o.stdout) } @else if let Some(b) = base { (diffed(&b.stdout, &o.stdout)) } } }
                        }
                    }
                    @if t.outcomes.iter().any(|o| !o.annotations.is_empty()) {
                        tr { th { "psychic_output" } @for o in &t.outcomes { td { pre { (o.annotations.join("\n")) } } } }
                    }
                }
            }
            @if !t.sites.is_empty() {
                p { "Sites on the diverging path: " @for s in &t.sites { a.tag href={ "#site-" (s) } { "site " (s) } } }
            }
        }
    }
}

/// `cluster A, cluster B` for the clusters in an outcome class.
fn clusters_of(r: &Report, revisions: &[usize]) -> String {
    let names: Vec<String> = r
        .clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| c.iter().all(|k| revisions.contains(k)))
        .map(|(i, _)| cluster_name(i))
        .collect();
    format!("cluster{} {}", if names.len() == 1 { "" } else { "s" }, names.join(", "))
}

/// `new` against `old`, character by character: insertions and deletions
/// marked, a run of them in one element. The diff gets a second, past which
/// `similar` settles for a coarser one: its time grows with the size times
/// the differences, and two loops printing other numbers, 1.3 MB each, took
/// 53 s without a deadline.
fn diffed(old: &str, new: &str) -> Markup {
    let diff = TextDiff::configure().timeout(Duration::from_secs(1)).diff_chars(old, new);
    html! {
        @for op in diff.ops() {
            @let (tag, o, n) = op.as_tag_tuple();
            @let o: String = o.filter_map(|i| diff.old_slice(i)).collect();
            @let n: String = n.filter_map(|i| diff.new_slice(i)).collect();
            @match tag {
                DiffTag::Equal => (o),
                DiffTag::Delete => del { (o) },
                DiffTag::Insert => ins { (n) },
                DiffTag::Replace => { del { (o) } ins { (n) } }
            }
        }
    }
}

fn meta_lines(map: &MetaProgram, on_path: &std::collections::BTreeSet<u32>) -> Markup {
    // The innermost site of each line: sites nest, and inner ones come later.
    let mut site_of = vec![None; map.text.lines().count() + 1];
    for s in &map.sites {
        for l in s.lines.start..=s.lines.end.min(site_of.len() - 1) {
            site_of[l] = Some(s);
        }
    }
    html! {
        @for (i, line) in map.text.lines().enumerate() {
            @let n = i + 1;
            @let origins = map.origins(n).iter().map(|o| format!("revision {}: {}:{}", o.revision, o.file, o.line)).collect::<Vec<_>>().join("\n");
            @match site_of[n] {
                Some(s) => {
                    span.line.site.on-path[on_path.contains(&(s.id as u32))] id={ "L" (n) }
                        style={ "--h:" ((s.id * 67) % 360) } title={ (describe(s)) "\n" (origins) } {
                        span.ln { (n) } (line) "\n"
                    }
                }
                None => span.line id={ "L" (n) } title=(origins) { span.ln { (n) } (line) "\n" },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::diffed;

    #[test]
    fn diffs_mark_insertions_and_deletions() {
        assert_eq!(diffed("C\n", "B\n").into_string(), "<del>C</del><ins>B</ins>\n");
        assert_eq!(diffed("x<1", "x<1").into_string(), "x&lt;1");
        assert_eq!(diffed("1\n2\n3\n", "1\n4\n5\n3\n").into_string(), "1\n<del>2</del><ins>4\n5</ins>\n3\n");
    }

    #[test]
    fn megabytes_of_output_diff_in_time() {
        // Two loops printing other numbers: without a deadline, about a minute.
        let (a, b): (String, String) =
            (0..200_000).map(|i| (format!("{i}\n"), format!("{}\n", i * 3 % 1000))).unzip();
        let start = std::time::Instant::now();
        let page = diffed(&a, &b).into_string();
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
        // Whole: text outside the marks is in both, in <del> in the old, in <ins> in the new.
        let (mut old, mut new) = (String::new(), String::new());
        for (i, part) in page.split('<').enumerate() {
            let (mark, text) = if i == 0 { ("", part) } else { part.split_once('>').unwrap() };
            match mark {
                "del" => old.push_str(text),
                "ins" => new.push_str(text),
                _ => {
                    old.push_str(text);
                    new.push_str(text);
                }
            }
        }
        assert!(old == a && new == b, "the page keeps both outputs whole");
    }
}
