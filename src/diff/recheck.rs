//! Enumeration's proofs, text by text. Enumeration runs the fuzz build, which
//! has no AddressSanitizer: a revision that reads past an array goes on with
//! whatever lies there, where native replay stops it. Each revision text runs
//! in processes of its own, so what went wrong in its runs is its own: a
//! text is in doubt (`fuzz::Doubt`) if some run of it crashed, ran out of
//! time or asked for bytes beyond the box, or if native replay disagrees with
//! enumeration on a pair it is in and no text in doubt explains it (both
//! texts of the pair: which one ran unlike the program, replay cannot say).
//! Pairs of texts not in doubt are proved as enumeration found them.
//!
//! First, a text whose only abnormal runs divided by zero is no memory error
//! away from the program: its other runs are the program's, and only those
//! runs lack an outcome (enumeration's crash hash lacks what the run flushed
//! before it). They run natively, alone, and their views take their place
//! among enumeration's outcomes (`settle_crashes`): calc's pool at 10,000
//! revisions has 188 such texts, which ran every input natively before.
//!
//! The texts in doubt, with the texts enumeration found equal to them and
//! those they disagree with, are then run natively on every input of the
//! box, if that takes at most half the time left (`RUN_COST` a run): the
//! replay build (AddressSanitizer) and the perturbed one, through one
//! confirmation server per build and thread whose ktest file changes
//! between runs, the plain run noting the sites it reaches
//! (enumeration's own reach of a text in doubt is not kept: a run that went
//! on past a memory error reached what the program does not). A pair whose
//! views are whole and equal on every input is proved; an input on which two
//! whole views differ is a witness, confirmed as any other. A pair of a text
//! in doubt and one outside the recheck stays open for exploration.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Differentiator;
use super::confirm::{self, Observation, Servers, TestInput};
use crate::fuzz::{BoxInputs, Doubt, Enumeration, Equality};
use crate::ktest::KTest;

/// What a native run (an input on a text, both builds) costs a thread:
/// account's 6 texts in doubt on 1,331 inputs, 7,986 runs, most ending in
/// AddressSanitizer's abort, took 12.8 s on 2 threads.
const RUN_COST: Duration = Duration::from_micros(3_200);

/// The share of the time left a recheck may take: what it proves saves
/// exploration that time, but exploration may need it for other pairs.
const SHARE_OF_WHAT_IS_LEFT: u32 = 2;

/// Without a budget, the most runs a recheck makes (about a minute).
const MAX_RUNS: u64 = 40_000;

impl Differentiator<'_> {
    /// Enumeration's equal pairs become proofs where no text of the pair is
    /// in doubt; the texts in doubt are run natively (`recheck`). Returns
    /// the recheck's witnesses, to confirm.
    pub(super) fn take_proofs(&mut self, mut e: Enumeration) -> std::io::Result<Vec<KTest>> {
        let (mut witnesses, settled) = self.settle_crashes(&mut e)?;
        let mut stats = e.stats;
        stats.crashes = settled;
        let mut doubted: BTreeMap<usize, Doubt> = BTreeMap::new();
        for r in self.pairs.firsts() {
            if let Some(d) = e.equal.doubt(r) {
                doubted.insert(r, d);
            }
        }
        // A disagreement that a text in doubt already explains doubts no
        // other: a run that timed out in enumeration disagrees with every
        // text natively like it.
        let disagreeing: Vec<(usize, usize)> = self
            .pairs
            .text_pairs()
            .filter(|&(a, b)| e.equal.get(a, b) == Some(self.pairs.apart(a, b)))
            .collect();
        for &(a, b) in &disagreeing {
            if !doubted.contains_key(&a) && !doubted.contains_key(&b) {
                doubted.insert(a, Doubt::Disagrees);
                doubted.insert(b, Doubt::Disagrees);
            }
        }
        for (r, sites) in e.reached.iter().enumerate() {
            if !doubted.contains_key(&self.pairs.first(r)) {
                self.reach.record_native(r, sites);
            }
        }
        if stats.not_a_proof.is_none() {
            let equal: Vec<(usize, usize)> = self
                .pairs
                .text_pairs()
                .filter(|&(a, b)| !doubted.contains_key(&a) && !doubted.contains_key(&b))
                .filter(|&(a, b)| e.equal.get(a, b) == Some(true))
                .collect();
            for (a, b) in equal {
                self.pairs.prove(a, b);
            }
            if let (false, false, Some(inputs)) = (doubted.is_empty(), self.pairs.done(), &e.inputs) {
                let rechecked = self.recheck(&e.equal, &doubted, &disagreeing, inputs)?;
                witnesses.extend(rechecked.witnesses);
                stats.doubtful = Some(format!("{}; {}", describe(&doubted), rechecked.what));
            }
        } else if !doubted.is_empty() {
            stats.doubtful = Some(describe(&doubted));
        }
        self.enumeration = Some(stats);
        Ok(witnesses)
    }

    /// Runs natively the inputs on which a text's enumeration runs divided
    /// by zero, where nothing else puts it in doubt (`Enumeration::crashes`):
    /// what those runs flushed before the crash, natively, is their outcome,
    /// and the rest of the box keeps enumeration's. Returns the witnesses of
    /// the splits the box then makes, and what it did, for the report.
    fn settle_crashes(&mut self, e: &mut Enumeration) -> std::io::Result<(Vec<KTest>, Option<String>)> {
        let crashes = e.crashes();
        let Some(inputs) = &e.inputs else { return Ok((Vec::new(), None)) };
        if crashes.is_empty() || e.stats.not_a_proof.is_some() {
            return Ok((Vec::new(), None));
        }
        let texts: Vec<usize> = crashes.iter().map(|&(t, _)| t).collect();
        let mut by_input: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (k, (_, at)) in crashes.iter().enumerate() {
            for &i in *at {
                by_input.entry(i).or_default().push(k);
            }
        }
        let work: Vec<(u64, Vec<usize>)> = by_input.into_iter().collect();
        let runs: u64 = work.iter().map(|(_, k)| k.len() as u64).sum();
        let what = |s: String| format!("{} texts divided by zero on some inputs: {s}", texts.len());
        if let Err(cost) = self.affordable(runs) {
            return Ok((
                Vec::new(),
                Some(what(format!(
                    "running those {runs} runs natively (about {cost:.0}s) would take more than the recheck may"
                ))),
            ));
        }
        let started = Instant::now();
        let native = self.run_native(&texts, inputs, &work, false)?;
        self.confirm_time += started.elapsed();
        let Some(native) = native else {
            return Ok((Vec::new(), Some(what("the budget ended while their runs ran natively".into()))));
        };
        let sel = self.cfg.outputs;
        let mut settled = std::collections::HashMap::new();
        for ((input, ks), row) in work.iter().zip(&native.rows) {
            for (&k, o) in ks.iter().zip(row) {
                let view = o.view(sel);
                if view.whole() {
                    settled.insert((texts[k], *input), native_outcome(&view));
                }
            }
        }
        let whole = settled.len();
        let witnesses = e.settle_crashes(&settled);
        let seconds = started.elapsed().as_secs_f64();
        Ok((
            witnesses,
            Some(what(format!("those {runs} runs ran natively ({seconds:.1}s), {whole} of them whole"))),
        ))
    }

    /// Whether `runs` native runs fit: at most half the time left, at
    /// `RUN_COST` a run and thread (without a deadline, `MAX_RUNS`); else
    /// their cost in seconds.
    fn affordable(&self, runs: u64) -> Result<(), f64> {
        let jobs = self.cfg.jobs.max(1) as u32;
        let cost = RUN_COST.saturating_mul(u32::try_from(runs).unwrap_or(u32::MAX)) / jobs;
        let fits = match self.cfg.deadline {
            Some(d) => cost <= d.saturating_duration_since(Instant::now()) / SHARE_OF_WHAT_IS_LEFT,
            None => runs <= MAX_RUNS,
        };
        if fits { Ok(()) } else { Err(cost.as_secs_f64()) }
    }

    /// Runs the texts in doubt, the texts enumeration found equal to them
    /// and those they disagree with, natively on every input of the box, if
    /// the runs are few enough.
    fn recheck(
        &mut self,
        equal: &Equality,
        doubted: &BTreeMap<usize, Doubt>,
        disagreeing: &[(usize, usize)],
        inputs: &BoxInputs,
    ) -> std::io::Result<Rechecked> {
        // The texts in doubt, those enumeration found equal to them, and
        // those they disagree with: the open pairs native runs may settle.
        let beyond = |t: usize| doubted.get(&t) == Some(&Doubt::BeyondTheBox);
        let mut texts: BTreeSet<usize> = BTreeSet::new();
        for &d in doubted.keys().filter(|&&d| !beyond(d)) {
            texts.insert(d);
            texts.extend(self.pairs.firsts().filter(|&t| equal.get(d, t) == Some(true)));
        }
        for &(a, b) in disagreeing.iter().filter(|&&(a, b)| !beyond(a) && !beyond(b)) {
            texts.extend([a, b]);
        }
        let texts: Vec<usize> = texts.into_iter().collect();
        let runs = texts.len() as u64 * inputs.count();
        let nothing = |what: String| Ok(Rechecked { witnesses: Vec::new(), what });
        if texts.len() < 2 {
            return nothing("their pairs rest on exploration".into());
        }
        if let Err(cost) = self.affordable(runs) {
            return nothing(format!(
                "their pairs rest on exploration: running {} texts on {} inputs natively ({runs} runs, about {cost:.0}s) would take {}",
                texts.len(),
                inputs.count(),
                if self.cfg.deadline.is_some() { "more than half the time left" } else { "over a minute" }
            ));
        }
        let started = Instant::now();
        let every: Vec<usize> = (0..texts.len()).collect();
        let work: Vec<(u64, Vec<usize>)> = (0..inputs.count()).map(|i| (i, every.clone())).collect();
        let native = self.run_native(&texts, inputs, &work, true)?;
        // Native replay: the confirm stage's time, not exploration's.
        self.confirm_time += started.elapsed();
        let Some(native) = native else {
            return nothing(
                "their pairs rest on exploration: the budget ended while they ran natively".into(),
            );
        };
        let seconds = started.elapsed().as_secs_f64();
        for (i, sites) in native.sites.iter().enumerate() {
            let sites: Vec<u32> = sites.iter().copied().collect();
            for r in (0..self.revisions).filter(|&r| self.pairs.first(r) == texts[i]) {
                self.reach.record_native(r, &sites);
            }
        }
        // Per pair of rechecked texts: the first input whose whole views
        // differ, or whether every view was whole.
        let sel = self.cfg.outputs;
        let n = texts.len();
        let mut first_split: Vec<Option<u64>> = vec![None; n * n];
        let mut whole = vec![true; n];
        for (input, row) in native.rows.iter().enumerate() {
            let views: Vec<_> = row.iter().map(|o| o.view(sel)).collect();
            for x in 0..n {
                whole[x] &= views[x].whole();
                for y in x + 1..n {
                    if first_split[x * n + y].is_none()
                        && views[x].whole()
                        && views[y].whole()
                        && views[x] != views[y]
                    {
                        first_split[x * n + y] = Some(input as u64);
                    }
                }
            }
        }
        let mut proved = 0;
        let mut splits = BTreeSet::new();
        for x in 0..n {
            for y in x + 1..n {
                match first_split[x * n + y] {
                    Some(i) => {
                        splits.insert(i);
                    }
                    None if whole[x] && whole[y] => {
                        proved += usize::from(self.pairs.prove(texts[x], texts[y]));
                    }
                    None => {}
                }
            }
        }
        Ok(Rechecked {
            witnesses: splits.into_iter().map(|i| inputs.ktest(i)).collect(),
            what: format!(
                "{n} texts ran natively on every input ({runs} runs, {seconds:.1}s): {proved} pairs proved, the others rest on tests and exploration"
            ),
        })
    }

    /// Per item of `work`, its input of the box on each of its `texts` (by
    /// index), plain and perturbed, on the run's threads, the plain runs
    /// noting the sites they reach if `reach`; `None` where the deadline
    /// came first.
    fn run_native(
        &self,
        texts: &[usize],
        inputs: &BoxInputs,
        work: &[(u64, Vec<usize>)],
        reach: bool,
    ) -> std::io::Result<Option<NativeBox>> {
        let scratch = tempfile::Builder::new().prefix("psychic-recheck-").tempdir()?;
        let builds = confirm::Builds { replay: self.binary, perturbed: self.cfg.perturbed.as_deref() };
        let env = crate::posix::replay_env(&inputs.ktest(0));
        let (next, limits) = (AtomicU64::new(0), &self.limits);
        let count = work.len() as u64;
        let jobs = self.cfg.jobs.max(1);
        let mut rows: Vec<Option<Vec<Observation>>> = vec![None; work.len()];
        let mut sites: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); texts.len()];
        let finished = std::thread::scope(|s| -> std::io::Result<bool> {
            let workers: Vec<_> = (0..jobs)
                .map(|j| {
                    let (scratch, env, next) = (scratch.path(), env.clone(), &next);
                    s.spawn(move || -> std::io::Result<Vec<(u64, Vec<Observation>)>> {
                        let test = TestInput { ktest: scratch.join(format!("{j}.ktest")), env };
                        let annotations = scratch.join(format!("{j}.annotations"));
                        let mut servers = Servers::new(builds, &test);
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= count {
                                return Ok(done);
                            }
                            let (input, ks) = &work[i as usize];
                            inputs.ktest(*input).write(&test.ktest).map_err(std::io::Error::other)?;
                            let mut row = Vec::with_capacity(ks.len());
                            for &k in ks {
                                let sites = reach.then(|| scratch.join(format!("{j}-{k}.sites")));
                                match confirm::observe(
                                    &mut servers,
                                    texts[k],
                                    limits,
                                    &annotations,
                                    sites.as_deref(),
                                )? {
                                    Some(o) => row.push(o),
                                    None => return Ok(done),
                                }
                            }
                            done.push((i, row));
                        }
                    })
                })
                .collect();
            for w in workers {
                for (i, row) in w.join().expect("recheck workers do not panic")? {
                    rows[i as usize] = Some(row);
                }
            }
            Ok(rows.iter().all(Option::is_some))
        })?;
        if !finished {
            return Ok(None);
        }
        for entry in std::fs::read_dir(scratch.path())? {
            let path = entry?.path();
            let Some(k) = path
                .file_name()
                .and_then(|n| n.to_str()?.strip_suffix(".sites")?.split_once('-')?.1.parse::<usize>().ok())
            else {
                continue;
            };
            let text = std::fs::read_to_string(&path)?;
            sites[k].extend(text.lines().filter_map(|l| l.parse::<u32>().ok()));
        }
        let rows = rows.into_iter().map(|r| r.expect("checked")).collect();
        Ok(Some(NativeBox { rows, sites }))
    }
}

/// A recheck's witnesses, and what it did, for the report.
struct Rechecked {
    witnesses: Vec<KTest>,
    what: String,
}

/// The value a run's native view stands for among enumeration's outcomes:
/// a hash of it, as they are hashes of theirs.
fn native_outcome(view: &confirm::View) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    view.hash(&mut h);
    h.finish()
}

/// Native runs of a box's inputs: `rows[item][text]` per item of the work,
/// and the sites each text's plain runs reached.
struct NativeBox {
    rows: Vec<Vec<Observation>>,
    sites: Vec<BTreeSet<u32>>,
}

/// "revisions 203, 233 ... ran unlike native replay": the texts in doubt by
/// their first revisions, at most 12 named, by why.
fn describe(doubted: &BTreeMap<usize, Doubt>) -> String {
    let why = |d: Doubt| match d {
        Doubt::Abnormal => "crashed or ran out of time in enumeration",
        Doubt::BeyondTheBox => "asked for symbolic bytes beyond the box",
        Doubt::Disagrees => "ran otherwise in enumeration than natively",
    };
    let mut parts = Vec::new();
    for d in [Doubt::Disagrees, Doubt::Abnormal, Doubt::BeyondTheBox] {
        let revs: Vec<usize> = doubted.iter().filter(|&(_, &x)| x == d).map(|(&r, _)| r).collect();
        if revs.is_empty() {
            continue;
        }
        parts.push(format!("{} {}", crate::cluster::names::named(&revs), why(d)));
    }
    format!("no proof by enumeration for {}", parts.join("; "))
}
