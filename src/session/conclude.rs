//! The last stage: clusters and the decision tree from the confirmed tests,
//! each cluster's verdict (`judge`: "proved equivalent" only when it is
//! true), and the [`Report`] with its files in the output directory.
//!
//! `judge` moves coverage locations from `meta.c` into each revision's file
//! with the line map, gives each cluster its verdict with the reasons against
//! a proof (approximations, comparisons that did not settle, outcomes known
//! only in part, pairs whose differing code no run reached), and marks the
//! answer partial when anything was approximated or cut, unless every pair is
//! told apart. Revisions given as diffs get their patched text in
//! `OUT/revisions/K/`, so that locations in them can be opened.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::explore::Explored;
use super::prepare::{Builds, Sources, write_text};
use super::{Plan, Watch};
use crate::cluster::{self, SearchBudget};
use crate::compile::{NativeKind, NativeOptions};
use crate::diff::{ConfirmedTest, Differentiator};
use crate::exec;
use crate::posix;
use crate::report::{self, Report};
use crate::unify;

/// Clusters, tree, verdicts; the report written into `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn conclude(
    plan: &Plan,
    s: &Sources,
    b: &Builds,
    mut ex: Explored<'_>,
    plain: Option<PlainBuild<'_>>,
    out: &Path,
    watch: &dyn Watch,
    mut times: report::StageTimes,
) -> Result<Report> {
    let stage = Instant::now();
    watch.stage("cluster", format!("{} tests: clusters and the decision tree", ex.diff.tests.len()));
    let clusters = ex.diff.clusters();
    let classes: Vec<Vec<u32>> = ex.diff.tests.iter().map(|t| t.partition.classes.clone()).collect();
    let tree = cluster::decision_tree(&clusters, &classes, SearchBudget::default());
    let separating =
        (clusters.len() > 1).then(|| cluster::separating_set(&clusters, &classes, SearchBudget::default()));
    times.cluster = stage.elapsed().as_secs_f64();
    times.confirm = ex.diff.confirm_time.as_secs_f64();
    times.explore -= times.confirm;
    let mut report = Report {
        psychic_version: env!("CARGO_PKG_VERSION").into(),
        revisions: s
            .meta
            .revisions
            .iter()
            .map(|r| report::Revision {
                index: r.index,
                name: r.name.clone(),
                path: r.path.display().to_string(),
                patched: None,
            })
            .collect(),
        tests: ex.diff.tests.iter().map(|t| report_test(t, out, plan.outputs.stderr)).collect(),
        decision_tree: tree.as_ref().and_then(|t| report::TreeNode::from_tree(&t.value, &clusters)),
        // Decision-tree test ids are indices into the confirmed tests; the
        // report names tests by id.
        separating_tests: separating
            .as_ref()
            .map(|s| s.value.iter().map(|&i| ex.diff.tests[i].id).collect())
            .unwrap_or_default(),
        clusters,
        cluster_verdicts: Vec::new(),
        coverage: ex.summary.coverage.clone(),
        domain: plan.command.domain(),
        libc: ex.libc.clone(),
        stats: stats(&ex, times),
    };
    report.stats.tree_optimal = tree.as_ref().is_none_or(|t| t.optimal);
    report.stats.separating_optimal = separating.as_ref().is_none_or(|s| s.optimal);
    renumber_tree(&mut report, &ex.diff.tests);
    watch.stage("report", format!("writing {}", out.display()));
    match &s.project {
        Some(p) => super::project::write_patched(&mut report.revisions, p, out)?,
        None => write_patched(&mut report, &s.sources, out)?,
    }
    let mut plain = plain_runner(plan, b, plain);
    let stopped = ex.summary.stopped_early.take();
    let judging = Instant::now();
    judge(&mut report, &ex.diff, s, &b.meta_files, out, stopped.as_deref(), &mut plain);
    // The verdicts are the clusters' too; the total is taken once they are.
    report.stats.seconds.cluster += judging.elapsed().as_secs_f64();
    report.stats.seconds.total = plan.budget.start.elapsed().as_secs_f64();
    report.write_files(out, &s.meta).with_context(|| format!("writing the report into {}", out.display()))?;
    Ok(report)
}

/// The run's statistics, from the engine, the differentiator and fuzzing.
fn stats(ex: &Explored<'_>, seconds: report::StageTimes) -> report::Stats {
    let (stats, solver, d) = (&ex.summary.stats, &ex.summary.solver, &ex.diff);
    report::Stats {
        seconds,
        instructions: stats.instructions,
        states: stats.states_created,
        paths_completed: stats.completed_paths(),
        paths_partial: stats.paths_early,
        queries: solver.queries,
        query_cache_hits: solver.query_cache.hits,
        cex_cache_hits: solver.cex_cache.hits,
        solver_seconds: solver.total_time.as_secs_f64(),
        candidate_tests: d.stats.candidates,
        confirmed_tests: d.stats.confirmed,
        disagreements: d.stats.disagreements,
        candidates_replayed: d.stats.replayed,
        refuted_share: d.stats.disagreements as f64 / d.stats.replayed.max(1) as f64,
        uninitialised_candidates: d.stats.uninitialised_candidates,
        unreplayed_candidates: d.stats.unreplayed_candidates,
        query_kinds: query_kinds(solver, stats, &d.stats),
        fuzzing: ex.fuzzing.clone(),
        merging: report::MergeStats {
            groups: stats.merge_groups,
            expired: stats.merge_groups_expired,
            merged_states: stats.merged_states,
        },
        deferred_branch_queries: stats.deferred_queries,
        pairs_proved_by_exploration: d.stats.pairs_proved_by_exploration,
        enumeration: d.enumeration.clone(),
        ..report::Stats::default()
    }
}

fn query_kinds(
    solver: &crate::solver::SolverStats,
    engine: &crate::exec::ExecStats,
    d: &crate::diff::DiffStats,
) -> report::QueryKinds {
    let kind = |queries, seconds| report::QueryKind { queries, seconds };
    let (diff, seed, merge) = (d.differential_seconds, d.seed_seconds, engine.merge_time.as_secs_f64());
    report::QueryKinds {
        branch: kind(
            solver.queries.saturating_sub(d.queries + d.seed_queries + engine.merge_queries),
            (solver.total_time.as_secs_f64() - diff - seed - merge).max(0.0),
        ),
        differential: kind(d.queries, diff),
        seed: kind(d.seed_queries, seed),
        merge: kind(engine.merge_queries, merge),
    }
}

/// Runs a ktest on one revision of the meta program built without
/// AddressSanitizer: `meta.plain` (`plain_build`), or the replay build itself
/// without ASan. A run gets what is left of the budget, and at least a
/// second.
fn plain_runner(
    plan: &Plan,
    b: &Builds,
    plain: Option<PlainBuild<'_>>,
) -> impl FnMut(&crate::ktest::KTest, usize) -> Option<crate::replay::Outcome> {
    let mut built = None;
    move |k, r| {
        let bin = match &plain {
            None => b.native.clone(),
            Some(p) => {
                let ok =
                    *built.get_or_insert_with(|| p.handle.take().is_some_and(|h| h.join().unwrap_or(false)));
                if !ok {
                    return None;
                }
                p.path.clone()
            }
        };
        let file = tempfile::NamedTempFile::new().ok()?;
        k.write(file.path()).ok()?;
        let mut req = crate::replay::Request::new(&bin, Some(file.path()), r);
        req.env = posix::replay_env(k);
        let left = plan
            .budget
            .deadline()
            .map_or(plan.replay_timeout, |d| d.saturating_duration_since(Instant::now()));
        req.timeout = plan.replay_timeout.min(left).max(Duration::from_secs(1));
        crate::replay::run(&req).ok()
    }
}

/// The build without AddressSanitizer, compiled beside exploration: whether a
/// memory error that ended every path stops the plain program too is a
/// question of the conclusion, which should not wait for clang at the end of
/// the budget.
pub(super) struct PlainBuild<'scope> {
    pub path: std::path::PathBuf,
    pub handle: std::cell::Cell<Option<std::thread::ScopedJoinHandle<'scope, bool>>>,
}

impl<'scope> PlainBuild<'scope> {
    /// Starts the build on a thread of `scope`.
    pub fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        s: &'env Sources,
        b: &'env Builds,
        out: &Path,
    ) -> PlainBuild<'scope> {
        let path = out.join("meta.plain");
        let target = path.clone();
        let handle = scope.spawn(move || {
            // Beside the engine, clang takes only what exploration leaves: a
            // merge query that needs 1.7 s of its 2 s timed out when clang
            // shared the core. Its process inherits this thread's niceness.
            // SAFETY: setpriority(2) on this thread's own id.
            unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
            b.native_build(&s.tc, &target, &NativeKind::Replay(NativeOptions::default())).is_ok()
        });
        PlainBuild { path, handle: std::cell::Cell::new(Some(handle)) }
    }
}

/// The verdict of each cluster, and whether (and why) the answer is partial.
/// A cluster is a proof only if its revisions have the same text, or every
/// path of its revisions was exact, every comparison between them settled,
/// and some path of each pair ran the code where they differ.
fn judge(
    report: &mut Report,
    diff: &Differentiator,
    s: &Sources,
    meta_files: &[std::path::PathBuf],
    out: &Path,
    stopped: Option<&str>,
    plain: &mut crate::diff::reach::PlainRun<'_>,
) {
    let (sources, meta) = (&s.sources, &s.meta);
    // Approximations are located in the meta files; a reviewer reads each
    // revision's own file.
    let metas: Vec<Option<std::path::PathBuf>> =
        meta_files.iter().map(|f| std::fs::canonicalize(f).ok()).collect();
    let meta_line = |l: &exec::Location| -> Option<usize> {
        let file = std::fs::canonicalize(&l.file).ok();
        let i = metas.iter().position(|m| m.is_some() && *m == file)?;
        Some(meta.project_line(i, l.line as usize))
    };
    let files = report.files(out);
    // Where revision `r`'s own file has location `l`, if the line map says.
    let own = |l: &exec::Location, r: usize| {
        let line = meta_line(l)?;
        let o = meta.origins(line).into_iter().find(|o| o.revision == r)?;
        Some((meta.located_in(&files[r], line), o.line))
    };
    report.coverage.map_locations(|r, l| {
        own(l, r as usize).map(|(file, line)| exec::Location { file, line: line as u32, col: 0 })
    });
    let coverage = &report.coverage;
    let locate = |l: &exec::Location, r: usize| match own(l, r) {
        Some((file, line)) => format!("{file}:{line}"),
        None => l.to_string(),
    };
    // Pairs of one cluster whose differing code no path of both ran: the
    // first, and how many more (a cluster of thousands has millions of
    // pairs, so none is kept but the first).
    let variants = unify::VariantTable::new(meta, sources.len());
    let mut unreached = |c: &[usize]| -> Vec<String> {
        let mut pairs = c.iter().enumerate().flat_map(|(i, &a)| c[i + 1..].iter().map(move |&b| (a, b)));
        let mut open = pairs.by_ref().filter_map(|(a, b)| {
            let sites = differing(&variants, meta, a, b);
            let ids: Vec<u32> = sites.iter().map(|s| s.id as u32).collect();
            (!sites.is_empty() && !diff.reach.reached(a, b, &ids)).then_some((a, b, sites))
        });
        let Some((a, b, sites)) = open.next() else { return Vec::new() };
        let more = open.count();
        let site = describe_site(meta, sites[0], a, &files);
        let mut why = diff.reach.unreached(a, b, &site, &locate, plain);
        if more > 0 {
            why.push_str(&format!(" (and {more} more pairs of this cluster)"));
        }
        vec![why]
    };
    // Comparisons that did not settle between revisions of one cluster.
    let gaps = |c: &[usize]| {
        // The first pairs of each kind, and how many there are: a cluster
        // of thousands has millions.
        let mut by_gap = std::collections::BTreeMap::new();
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                for g in diff.gaps(a as u32, b as u32) {
                    let (named, count) = by_gap.entry(g).or_insert((Vec::new(), 0usize));
                    if *count < cluster::names::LISTED {
                        named.push(format!("{a}-{b}"));
                    }
                    *count += 1;
                }
            }
        }
        by_gap.into_iter().map(|(g, (named, count))| {
            let more = match count - named.len() {
                0 => String::new(),
                more => format!(" and {more} more pairs"),
            };
            format!("{} (revisions {}{more})", g.describe(), named.join(", "))
        })
    };
    report.cluster_verdicts = cluster::verdicts(&report.clusters, |c| {
        // The same text is the same program, whatever the engine saw of it.
        if c.iter().all(|&r| sources[r].text == sources[c[0]].text) {
            return Vec::new();
        }
        let unreached = unreached(c);
        // Every input of the domain ran alike on them.
        if c.iter().all(|&a| c.iter().all(|&b| a == b || diff.proved(a, b))) {
            return unreached;
        }
        let partial = partial_outcomes(report, c);
        coverage.reasons(Some(c)).into_iter().chain(gaps(c)).chain(partial).chain(unreached).collect()
    });
    // Partial: anything was cut or approximated, unless every pair of
    // revisions is told apart, where nothing is left to miss.
    let mut reasons: Vec<String> = Vec::new();
    if !diff.done() {
        reasons.extend(stopped.map(|stop| format!("exploration stopped: {stop}")));
        reasons.extend(coverage.reasons(None));
        reasons.extend(report.clusters.iter().flat_map(|c| gaps(c)));
    }
    // A cluster that is no proof for a reason of its own (a pair whose
    // differing code no path ran, an outcome known only in part).
    for why in report.cluster_verdicts.iter().flat_map(|v| &v.reasons) {
        if !reasons.contains(why) {
            reasons.push(why.clone());
        }
    }
    let st = &mut report.stats;
    st.partial = !reasons.is_empty();
    st.partial_reason = st.partial.then(|| reasons.join("; "));
    st.partial_reasons = reasons;
}

/// The sites where revisions `a` and `b` run different code.
fn differing<'m>(
    variants: &unify::VariantTable,
    meta: &'m unify::MetaProgram,
    a: usize,
    b: usize,
) -> Vec<&'m unify::Site> {
    let differ =
        |i: usize| matches!((variants.variant(i, a), variants.variant(i, b)), (Some(x), Some(y)) if x != y);
    meta.sites.iter().enumerate().filter(|&(i, _)| differ(i)).map(|(_, s)| s).collect()
}

/// "site 3 in grade, fix3.c:13": where revision `r`'s code at the site is.
fn describe_site(meta: &unify::MetaProgram, site: &unify::Site, r: usize, files: &[String]) -> String {
    let span = site.variants.iter().flat_map(|v| &v.code).find(|c| c.revision == r);
    match span {
        Some(c) => {
            let file = meta.located_in(&files[r], site.lines.start);
            format!("site {} in {}, {file}:{}", site.id, site.function, c.start.line)
        }
        None => format!("site {} in {}", site.id, site.function),
    }
}

/// A cluster's revisions whose outcome on some test was known only in part:
/// they are in it by what they showed, which is no proof. One line per test
/// and way of being partial.
fn partial_outcomes(report: &Report, cluster: &[usize]) -> Vec<String> {
    let mut lines = Vec::new();
    for t in &report.tests {
        let mut groups: Vec<(cluster::Partial, &[usize], Vec<usize>)> = Vec::new();
        for p in t.partial.iter().filter(|p| cluster.contains(&p.revision)) {
            match groups.iter_mut().find(|(why, alike, _)| *why == p.why && *alike == p.alike.as_slice()) {
                Some((_, _, revs)) => revs.push(p.revision),
                None => groups.push((p.why, &p.alike, vec![p.revision])),
            }
        }
        lines.extend(groups.into_iter().map(|(why, alike, revisions)| {
            format!("on test #{}, {}", t.id, report::partial_line(&revisions, why, alike))
        }));
    }
    lines
}

/// Revisions given as diffs exist only in memory: their patched text goes to
/// `OUT/revisions/K/NAME`, so that source positions in them can be opened.
fn write_patched(report: &mut Report, sources: &[unify::RevisionSource], out: &Path) -> Result<()> {
    for (s, r) in sources.iter().zip(&mut report.revisions) {
        if s.on_disk() {
            continue;
        }
        let name = sources[0].path.file_name().unwrap_or("revision.c".as_ref());
        let rel = Path::new("revisions").join(s.index.to_string()).join(name);
        write_text(&out.join(&rel), &s.text)?;
        r.patched = Some(rel.display().to_string());
    }
    Ok(())
}

/// The tree refers to tests by their index among the confirmed tests; the
/// report by id.
fn renumber_tree(report: &mut Report, tests: &[ConfirmedTest]) {
    fn walk(node: &mut report::TreeNode, tests: &[ConfirmedTest]) {
        node.test = tests[node.test].id;
        for b in &mut node.branches {
            if let Some(sub) = b.subtree.as_deref_mut() {
                walk(sub, tests);
            }
        }
    }
    if let Some(t) = report.decision_tree.as_mut() {
        walk(t, tests);
    }
}

/// `stderr`: it is compared, so the outcomes show it.
fn report_test(t: &ConfirmedTest, out: &Path, stderr: bool) -> report::Test {
    let p = &t.partition;
    let classes = p.classes.iter().copied().max().map_or(0, |m| m as usize + 1);
    let members = |c: u32| (0..p.classes.len()).filter(move |&r| p.classes[r] == c);
    let outcomes = (0..classes)
        .map(|c| {
            let revisions: Vec<usize> = members(c as u32).collect();
            // What the class shows is what a revision in it showed whole.
            let whole = revisions.iter().find(|&&r| !p.loose.iter().any(|l| l.revision == r));
            let first = &t.observations[*whole.unwrap_or(&revisions[0])];
            report::Outcome {
                revisions,
                stdout: String::from_utf8_lossy(&first.outcome.stdout).into_owned(),
                stderr: stderr.then(|| String::from_utf8_lossy(&first.outcome.stderr).into_owned()),
                exit_status: first.outcome.exit_status,
                signal: first.outcome.signal,
                timed_out: first.outcome.timed_out,
                annotations: first.annotations.clone(),
            }
        })
        .collect();
    report::Test {
        id: t.id,
        ktest: t.ktest_path.strip_prefix(out).unwrap_or(&t.ktest_path).display().to_string(),
        inputs: t.ktest.objects.iter().map(report::Input::from_object).collect(),
        outcomes,
        sites: t.sites.clone(),
        nondeterministic: t.nondeterministic.clone(),
        partial: p
            .loose
            .iter()
            .map(|l| {
                let mut alike: Vec<usize> = l.alike.iter().flat_map(|&c| members(c)).collect();
                alike.sort_unstable();
                report::PartialOutcome { revision: l.revision, why: l.why, alike }
            })
            .collect(),
        found_by: t.found_by,
    }
}
