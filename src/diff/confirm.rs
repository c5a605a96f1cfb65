//! Concrete confirmation: every candidate test runs natively on every revision
//! (the meta program's native build with `PSYCHIC_REVISION`), and only the
//! differences that replay, and replay stably, count.
//!
//! A run is not always seen whole. One killed at its time limit printed the
//! start of what it would print; one whose outcome changes when replayed
//! with other memory garbage shows only what both of its runs agree on. Such
//! an outcome is a *partial view*: it is compared by what it shows, and two
//! views that could be the same behaviour are alike. A revision whose view is
//! partial never separates by itself: it joins a class it is alike to, and the
//! test does not tell it apart from the other classes it is alike to either
//! ([`Partition::apart`]).
//!
//! `replay_within` runs the tests on `jobs` threads under one `ReplayLimits`,
//! the budget every replay of a command shares: the `--max-time` deadline, a
//! run's own limit (at most 100 times the slowest normal run, at least a second
//! more than it), and one allowance for runs that hang (4 times the replay
//! timeout, at most a third of the time left); once it is spent a run gets
//! 250 ms, and a cut run is `cut_short`, never a difference. An `Observation`
//! is a run's outcome, its annotation records and whether it was cut. A
//! test's runs are forks of a confirmation server (`replay::Server`), one per
//! build and share of the revisions: one exec of an ASan build per run was
//! nearly all of a thousand revisions' time. Every
//! test runs twice per revision, on the ASan build and on `meta.perturbed`
//! (locals filled with a pattern): a revision whose two runs disagree is seen
//! only through what both agree on (the common prefix of stdout, no exit), and a
//! timed-out or cut run only through what it printed. Two views differ only
//! where both show a part and the parts differ, so a timeout never differs from
//! a timeout by how far each got. A revision whose view fits more than one
//! class is `Loose` (with the reason, `cluster::Partial`), never a class of its
//! own. `OutputSelection` says which outputs count.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::cluster::{Loose, Partial, Partition};
pub use crate::outcome::OutputSelection;
use crate::posix::ReplayEnv;
use crate::replay::{self, Outcome};

/// One native run: its outcome and the annotations it recorded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Observation {
    pub outcome: Outcome,
    /// Lines of the `PSYCHIC_ANNOTATIONS` file, `NAME SIZE HEX` each.
    pub annotations: Vec<String>,
    /// What a second, perturbed run observed (`replay::Request::perturb`),
    /// when it differs from this one: the revision is nondeterministic on
    /// this input (it reads memory it never wrote).
    pub alternate: Option<Box<Observation>>,
    /// The run's time limit was below the full one (`ReplayLimits`): had it
    /// timed out, that says nothing of whether it hangs.
    pub cut_short: bool,
}

impl Observation {
    /// The perturbed run saw other behaviour, as `sel` sees behaviour.
    pub fn nondeterministic_under(&self, sel: OutputSelection) -> bool {
        self.alternate.as_ref().is_some_and(|a| a.run_view(sel) != self.run_view(sel))
    }

    /// The same behaviour in every output but stderr (which carries ASan's
    /// addresses, different in every run).
    fn same_as(&self, other: &Observation) -> bool {
        let all = OutputSelection { stdout: true, stderr: false, exit: true, annotations: true };
        self.run_view(all) == other.run_view(all)
    }

    /// What this run alone shows of its behaviour.
    fn run_view(&self, sel: OutputSelection) -> View {
        let o = &self.outcome;
        let done = !o.timed_out;
        View {
            stdout: sel.stdout.then(|| Seen { items: o.stdout.clone(), whole: done && !o.stdout_cut }),
            stderr: sel.stderr.then(|| Seen { items: o.stderr.clone(), whole: done && !o.stderr_cut }),
            // A run cut short by the budget may have been about to exit.
            exit: sel.exit.then(|| {
                (!(o.timed_out && self.cut_short)).then_some((o.exit_status, o.signal, o.timed_out))
            }),
            annotations: sel.annotations.then(|| Seen { items: self.annotations.clone(), whole: done }),
        }
    }

    /// What is known of the revision's behaviour on the test: what its run
    /// shows, and of a nondeterministic one what both of its runs agree on.
    pub fn view(&self, sel: OutputSelection) -> View {
        let view = self.run_view(sel);
        match &self.alternate {
            Some(a) => view.common(&a.run_view(sel)),
            None => view,
        }
    }

    /// Why the view of this run is partial, if it is.
    pub fn partial(&self, sel: OutputSelection) -> Option<Partial> {
        // A perturbed run the spent allowance cut short says nothing of
        // garbage: only that it had not ended.
        let cut = |o: &Observation| o.outcome.timed_out && o.cut_short;
        if self.alternate.as_deref().is_some_and(cut) {
            return Some(Partial::CutShort);
        }
        if self.nondeterministic_under(sel) {
            return Some(Partial::Unstable);
        }
        let o = &self.outcome;
        match () {
            _ if o.timed_out && self.cut_short => Some(Partial::CutShort),
            _ if o.timed_out => Some(Partial::TimedOut),
            _ if (sel.stdout && o.stdout_cut) || (sel.stderr && o.stderr_cut) => Some(Partial::Long),
            _ => None,
        }
    }
}

/// A part of a run's behaviour: all of it, or (`whole` false) its start.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Seen<T> {
    items: Vec<T>,
    whole: bool,
}

impl<T: PartialEq + Clone> Seen<T> {
    /// Both could be the same behaviour.
    fn alike(&self, o: &Seen<T>) -> bool {
        match (self.whole, o.whole) {
            (true, true) => self.items == o.items,
            (true, false) => self.items.starts_with(&o.items),
            (false, true) => o.items.starts_with(&self.items),
            (false, false) => self.items.starts_with(&o.items) || o.items.starts_with(&self.items),
        }
    }

    /// What two runs agree on: their common start, whole only if both are
    /// the same whole.
    fn common(&self, o: &Seen<T>) -> Seen<T> {
        if self == o {
            return self.clone();
        }
        let n = self.items.iter().zip(&o.items).take_while(|(a, b)| a == b).count();
        Seen { items: self.items[..n].to_vec(), whole: false }
    }
}

/// How a run ended: exit status, signal, timed out.
type Exit = (Option<i32>, Option<i32>, bool);

/// What is known of a run's behaviour, as a selection of outputs sees it;
/// `None` parts are not selected. Two runs with equal whole views behave
/// alike; partial views are compared by [`View::alike`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    stdout: Option<Seen<u8>>,
    stderr: Option<Seen<u8>>,
    /// `Some(None)`: selected, but not known.
    exit: Option<Option<Exit>>,
    annotations: Option<Seen<String>>,
}

impl View {
    /// Nothing is missing from it.
    pub fn whole(&self) -> bool {
        fn seen<T>(s: &Option<Seen<T>>) -> bool {
            s.as_ref().is_none_or(|s| s.whole)
        }
        seen(&self.stdout)
            && seen(&self.stderr)
            && seen(&self.annotations)
            && self.exit.is_none_or(|e| e.is_some())
    }

    /// The two could be the same behaviour: no part either shows differs.
    pub fn alike(&self, o: &View) -> bool {
        fn part<T: PartialEq + Clone>(a: &Option<Seen<T>>, b: &Option<Seen<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => a.alike(b),
                _ => true,
            }
        }
        let exit = match (self.exit, o.exit) {
            (Some(Some(a)), Some(Some(b))) => a == b,
            _ => true,
        };
        exit && part(&self.stdout, &o.stdout)
            && part(&self.stderr, &o.stderr)
            && part(&self.annotations, &o.annotations)
    }

    fn common(&self, o: &View) -> View {
        fn part<T: PartialEq + Clone>(a: &Option<Seen<T>>, b: &Option<Seen<T>>) -> Option<Seen<T>> {
            Some(a.as_ref()?.common(b.as_ref()?))
        }
        View {
            stdout: part(&self.stdout, &o.stdout),
            stderr: part(&self.stderr, &o.stderr),
            exit: self.exit.map(|a| a.filter(|a| o.exit == Some(Some(*a)))),
            annotations: part(&self.annotations, &o.annotations),
        }
    }
}

/// The builds a test replays on: the replay build, and for the second run
/// of each revision one that fills stack variables with a pattern
/// (`NativeOptions::pattern_init`; the replay build where there is none).
#[derive(Debug, Clone, Copy)]
pub struct Builds<'a> {
    pub replay: &'a Path,
    pub perturbed: Option<&'a Path>,
}

/// A test to replay: its ktest and the command line, stdin and files it feeds.
#[derive(Debug, Clone)]
pub struct TestInput {
    pub ktest: PathBuf,
    pub env: ReplayEnv,
}

/// The time native replay may take: a limit per run, the run's deadline,
/// and one allowance shared by every run that hangs.
#[derive(Debug)]
pub struct ReplayLimits {
    /// The most one run may take (`--replay-timeout`).
    pub timeout: Duration,
    /// No run starts after it, and none goes past it.
    pub deadline: Option<Instant>,
    state: Mutex<Spent>,
    short: Duration,
}

#[derive(Debug)]
struct Spent {
    /// What runs that time out may still take, together. Once it is spent,
    /// a run gets `short`: a revision that hangs on one test usually hangs
    /// on the next, and every such run would wait out the full limit.
    allowance: Duration,
    /// The longest a run that ended took, once one has.
    slowest: Option<Duration>,
}

/// The allowance of hanging runs, in `--replay-timeout`s (`ReplayLimits::new`).
const HANGS_ALLOWED: u32 = 4;
/// A run that has gone on this many times longer than the slowest run that
/// ended hangs (`ReplayLimits::full`)...
const SLOWER: u32 = 100;
/// ... and so does one that has gone on this long past it.
const HANG_AFTER: Duration = Duration::from_secs(1);

impl ReplayLimits {
    /// `timeout` per run at most; hanging runs may take `HANGS_ALLOWED` of it
    /// in all, and at most a third of the time left to the deadline.
    pub fn new(timeout: Duration, deadline: Option<Instant>) -> ReplayLimits {
        let mut allowance = timeout * HANGS_ALLOWED;
        if let Some(d) = deadline {
            allowance = allowance.min(d.saturating_duration_since(Instant::now()) / 3);
        }
        ReplayLimits {
            timeout,
            deadline,
            state: Mutex::new(Spent { allowance, slowest: None }),
            short: timeout.min(Duration::from_millis(250)),
        }
    }

    /// The limit past which a run hangs: `timeout`, or once runs have ended,
    /// `SLOWER` times the slowest of them and at least `HANG_AFTER` more, if
    /// that is less. The programs compared run for milliseconds: a run a
    /// hundred times slower than any other loops, and waiting it out for the
    /// whole timeout (5 s by default) told nothing more, on every revision
    /// that hangs, on every test that makes it hang.
    fn full(&self, spent: &Spent) -> Duration {
        match spent.slowest {
            Some(s) => self.timeout.min((s * SLOWER).max(s + HANG_AFTER)),
            None => self.timeout,
        }
    }

    /// The limit of the next run, and whether it is the full one; `None`:
    /// the deadline has come.
    fn next(&self) -> Option<(Duration, bool)> {
        let left = self.deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return None;
        }
        let spent = self.state.lock().expect("not poisoned");
        let full = self.full(&spent);
        let limit = if spent.allowance >= full { full } else { spent.allowance.max(self.short) };
        let limit = limit.min(left);
        Some((limit, limit >= full))
    }

    /// Notes how a run went: one that timed out after `limit` spends it from
    /// the allowance; one that ended may be the slowest yet.
    fn spend(&self, limit: Duration, o: &Outcome, took: Duration) {
        let mut spent = self.state.lock().expect("not poisoned");
        if o.timed_out {
            spent.allowance = spent.allowance.saturating_sub(limit);
        } else {
            spent.slowest = Some(spent.slowest.map_or(took, |s| s.max(took)));
        }
    }
}

/// Runs every test on every revision, on `jobs` threads, twice: plainly and
/// perturbed. Result: `[test][revision]`. `same_as[r]` is the revision whose
/// text is revision r's (itself for the first of each text): only those
/// run, and the others share their observations (empty: every revision runs).
pub fn replay_all(
    binary: &Path,
    revisions: usize,
    same_as: &[usize],
    tests: &[TestInput],
    timeout: Duration,
    jobs: usize,
) -> std::io::Result<Vec<Vec<Observation>>> {
    let limits = ReplayLimits::new(timeout, None);
    let builds = Builds { replay: binary, perturbed: None };
    let rows = replay_within(builds, revisions, same_as, tests, &limits, jobs)?;
    Ok(rows.into_iter().map(|row| row.expect("without a deadline every run runs")).collect())
}

/// [`replay_all`] within `limits`: a test of which some run could not start
/// before the deadline has no row (`None`). A test's runs go to confirmation
/// servers (`replay::Server`, one per build), a share of its revisions each,
/// so that the threads share the work when tests are few.
pub fn replay_within(
    builds: Builds<'_>,
    revisions: usize,
    same_as: &[usize],
    tests: &[TestInput],
    limits: &ReplayLimits,
    jobs: usize,
) -> std::io::Result<Vec<Option<Vec<Observation>>>> {
    let scratch = tempfile::Builder::new().prefix("psychic-confirm-").tempdir()?;
    let rep = |r: usize| same_as.get(r).copied().unwrap_or(r);
    let reps: Vec<usize> = (0..revisions).filter(|&r| rep(r) == r).collect();
    let share = (reps.len() * tests.len()).div_ceil(jobs.max(1) * 4).clamp(1, REVISIONS_PER_SERVER);
    let work: Vec<(usize, &[usize])> =
        (0..tests.len()).flat_map(|t| reps.chunks(share).map(move |c| (t, c))).collect();
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Observation>> = vec![None; tests.len() * revisions];
    std::thread::scope(|s| -> std::io::Result<()> {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                s.spawn(|| -> std::io::Result<Vec<(usize, Observation)>> {
                    let mut done = Vec::new();
                    while let Some(&(t, revs)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let mut servers = Servers::new(builds, &tests[t]);
                        for &r in revs {
                            let annotations = scratch.path().join(format!("{t}-{r}.annotations"));
                            if let Some(obs) = observe(&mut servers, r, limits, &annotations, None)? {
                                done.push((t * revisions + r, obs));
                            }
                        }
                    }
                    Ok(done)
                })
            })
            .collect();
        for w in workers {
            for (i, obs) in w.join().expect("replay workers do not panic")? {
                slots[i] = Some(obs);
            }
        }
        Ok(())
    })?;
    let out = slots
        .chunks(revisions.max(1))
        .map(|row| (0..revisions).map(|r| row[rep(r)].clone()).collect::<Option<Vec<_>>>())
        .collect();
    Ok(out)
}

/// The most revisions one confirmation server runs a test on: more would
/// leave a thread idle while another works through a long share.
const REVISIONS_PER_SERVER: usize = 64;

/// The confirmation servers of one test, started at their first run.
pub(super) struct Servers<'a> {
    builds: Builds<'a>,
    test: &'a TestInput,
    plain: Option<replay::Server>,
    perturbed: Option<replay::Server>,
}

impl<'a> Servers<'a> {
    /// The servers of `test`; a server reads the test's ktest file at each
    /// run, not at its start.
    pub(super) fn new(builds: Builds<'a>, test: &'a TestInput) -> Servers<'a> {
        Servers { builds, test, plain: None, perturbed: None }
    }

    /// Revision `revision`'s run, plain or perturbed, within `timeout`; the
    /// sites it reaches go to `sites`.
    fn run(
        &mut self,
        revision: usize,
        timeout: Duration,
        annotations: &Path,
        sites: Option<&Path>,
        perturb: bool,
        limits: &ReplayLimits,
    ) -> std::io::Result<Observation> {
        let (slot, binary) = match perturb {
            false => (&mut self.plain, self.builds.replay),
            true => (&mut self.perturbed, self.builds.perturbed.unwrap_or(self.builds.replay)),
        };
        let server = match slot {
            Some(s) => s,
            None => {
                slot.insert(replay::Server::spawn(binary, Some(&self.test.ktest), &self.test.env, perturb)?)
            }
        };
        let (outcome, took) = server.run(revision, timeout, Some(annotations), sites)?;
        limits.spend(timeout, &outcome, took);
        let lines = match std::fs::read_to_string(annotations) {
            Ok(text) => text.lines().map(str::to_string).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        // The file is appended to: the next run of this pair starts afresh.
        let _ = std::fs::remove_file(annotations);
        Ok(Observation { outcome, annotations: lines, alternate: None, cut_short: false })
    }
}

/// Revision `r` on one test: a plain run, then a perturbed one to see
/// whether its outcome rests on memory garbage; the plain run's sites go to
/// `sites`. `None`: the deadline came first.
pub(super) fn observe(
    servers: &mut Servers<'_>,
    revision: usize,
    limits: &ReplayLimits,
    annotations: &Path,
    sites: Option<&Path>,
) -> std::io::Result<Option<Observation>> {
    let Some((limit, full)) = limits.next() else { return Ok(None) };
    let mut first = servers.run(revision, limit, annotations, sites, false, limits)?;
    first.cut_short = !full;
    if first.outcome.timed_out {
        // A hanging run is not waited out twice: the perturbed run gets the
        // short limit, enough to see it exit where other garbage lets it.
        let short = limit.min(limits.short);
        let second = servers.run(revision, short, annotations, None, true, limits)?;
        if !second.outcome.timed_out {
            first.alternate = Some(Box::new(second));
        }
        return Ok(Some(first));
    }
    let Some((limit, full)) = limits.next() else { return Ok(None) };
    let mut second = servers.run(revision, limit, annotations, None, true, limits)?;
    second.cut_short = !full;
    if !second.same_as(&first) {
        first.alternate = Some(Box::new(second));
    }
    Ok(Some(first))
}

/// The outcome classes of one test. Revisions with equal whole views share
/// a class. A revision whose view is partial joins the first class whose
/// revisions one of its runs equals whole, else the first class it is alike
/// to, else a class of its own; it is noted as alike to every other class it
/// is alike to once all are known, which the test then does not tell it
/// apart from. Runs cut short are placed last: their outcome is the least
/// known, and a class that a later revision opens may be theirs.
pub fn partition(row: &[Observation], sel: OutputSelection) -> Partition {
    let views: Vec<View> = row.iter().map(|o| o.view(sel)).collect();
    // Each class by its first revision.
    let mut firsts: Vec<usize> = Vec::new();
    let mut class: Vec<Option<u32>> = vec![None; row.len()];
    for r in (0..row.len()).filter(|&r| views[r].whole()) {
        let c = match firsts.iter().position(|&f| views[f] == views[r]) {
            Some(c) => c,
            None => {
                firsts.push(r);
                firsts.len() - 1
            }
        };
        class[r] = Some(c as u32);
    }
    let alike_to = |firsts: &[usize], r: usize| -> Vec<usize> {
        (0..firsts.len()).filter(|&c| views[firsts[c]].alike(&views[r])).collect()
    };
    let mut loose: Vec<usize> = (0..row.len()).filter(|&r| !views[r].whole()).collect();
    loose.sort_by_key(|&r| row[r].partial(sel) == Some(Partial::CutShort));
    for &r in &loose {
        let alike = alike_to(&firsts, r);
        let runs = [Some(&row[r]), row[r].alternate.as_deref()];
        let plainly = alike.iter().copied().find(|&c| {
            let f = firsts[c];
            views[f].whole() && runs.iter().flatten().any(|o| o.run_view(sel) == views[f])
        });
        // A run stopped at its time limit is most like a class that ran out
        // of time too: when the allowance for hangs is spent, a hanging
        // revision's run is cut short, and it prints no more than a
        // revision that ends at once with nothing (or with what it printed).
        let alike_in_time =
            alike.iter().copied().find(|&c| row[r].outcome.timed_out && row[firsts[c]].outcome.timed_out);
        let c = match plainly.or(alike_in_time).or(alike.first().copied()) {
            Some(c) => c,
            None => {
                firsts.push(r);
                firsts.len() - 1
            }
        };
        class[r] = Some(c as u32);
    }
    loose.sort_unstable();
    let loose = loose
        .into_iter()
        .map(|r| {
            let own = class[r].expect("placed above") as usize;
            let why = row[r].partial(sel).unwrap_or(Partial::Unstable);
            let alike = alike_to(&firsts, r).into_iter().filter(|&c| c != own).map(|c| c as u32).collect();
            Loose { revision: r, why, alike }
        })
        .collect();
    let classes = class.into_iter().map(|c| c.expect("every revision is classed")).collect();
    let mut p = Partition { classes, loose };
    p.renumber();
    p
}

/// The outcome classes of one test ([`partition`]).
pub fn classes(row: &[Observation], sel: OutputSelection) -> Vec<u32> {
    partition(row, sel).classes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stdout: &str, exit: Option<i32>, timed_out: bool, cut_short: bool) -> Observation {
        let outcome = Outcome {
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            exit_status: exit,
            signal: None,
            timed_out,
            stdout_cut: false,
            stderr_cut: false,
        };
        Observation { outcome, annotations: Vec::new(), alternate: None, cut_short }
    }

    /// The CI failure of hang-budget: revision 1 hangs, but the allowance was
    /// spent when it ran, so it was cut short; revisions 3 and 4 hang in full
    /// after it. It was placed with the first class it is alike to (0's),
    /// before 3's class existed, so the test told it apart from 3.
    #[test]
    fn a_run_cut_short_joins_the_revisions_that_hung_in_full() {
        let hang = || run("", None, true, false);
        let row = [
            run("bad\n", Some(1), false, false),
            run("", None, true, true),
            run("1\n", Some(0), false, false),
            hang(),
            hang(),
        ];
        let p = partition(&row, OutputSelection::default());
        assert_eq!(p.classes, [0, 1, 2, 1, 1]);
        assert!(!p.apart(1, 3), "a run cut short tells nothing apart");
        assert!(!p.apart(1, 0) && !p.apart(1, 2), "its outcome is not known: it is alike to every class");
        assert!(p.apart(0, 2) && p.apart(0, 3) && p.apart(2, 4));
        assert_eq!(
            p.loose.iter().map(|l| (l.revision, l.why)).collect::<Vec<_>>()[0],
            (1, Partial::CutShort)
        );
    }
}
