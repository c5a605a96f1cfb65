//! Enumeration: where the program's first steps bound its input to a small
//! box (`exec::InputDomain`), the fuzz server runs every input of the box on
//! every revision, many runs per process (`psychic_fuzz.c`). Its witnesses
//! are candidate tests like any other; the pairs it finds equal on every
//! input are proved equivalent, unless something it cannot see could make
//! them differ (`EnumerationStats::not_a_proof`). It stops at the run's
//! deadline (`EnumerationStats::not_finished`): then only the revisions
//! that ran every input are compared.
//!
//! The box (`crate::exec::domain`): until a path forks on an input,
//! approximates or halts, it stands for every input of its revisions, so the
//! solver's bounds of each object under its constraints make a box that holds
//! their domain; the hull of every revision's box holds the whole domain. The
//! executor hands it over once (`HaltObserver::on_domain`), and the fuzzing
//! thread takes it at once: a round of mutations runs no input while a domain
//! waits. If the box has at most `MAX_INPUTS` inputs, the objects are the
//! shape's and the program reads no stdin, the fuzz server runs every input on
//! every revision text, many runs per process: it copies back the program's
//! writable memory (its `.data` and `.bss`, outside RELRO) before each run,
//! `exit` returns to it by `longjmp` (the fuzz build wraps `exit`), stdout and
//! `psychic_output` records go into a hash, and a crash or a hang ends the
//! child and a new one goes on from the next input. No run starts later than
//! `RESULTS_TIME` (2 s) before the run's deadline, which is what taking the
//! results in and replaying the witnesses needs: the revision texts that ran
//! every input by then are compared with each other, the others only on the
//! inputs they ran, for witnesses. Where it may prove, the engine waits for it
//! (`Fuzzer::wait_for_proof`) and its runs take every core at psychic's own
//! priority, not fuzzing's. One witness per new split of the revisions is a
//! candidate test. It is a proof (`EnumerationStats::not_a_proof` is none) only
//! if stderr is not compared and the program calls no library function outside
//! `RESETTABLE` (the meta program's declarations, read from `meta.bc`): rand,
//! time, files and the like keep state the copy does not reset. Even then a
//! revision text proves nothing by itself whose runs crashed or ran out of
//! time, or asked for symbolic bytes beyond the box (`Equality::doubt`): each
//! text runs in processes of its own, so what went wrong in its runs is its
//! own (`diff::recheck` takes it from there). A text whose only abnormal
//! runs divided by zero (SIGFPE: no memory error, so its other runs are the
//! program's) waits only for those runs' native outcomes
//! (`Enumeration::crashes`, `Enumeration::settle_crashes`): a crash's hash
//! lacks what the run flushed before it.
//! (`benches/README.md` has what a run costs.)

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::mutate::Layout;
use super::server::{CRASHED, OUT_OF_DOMAIN, Range, Server};
use super::{FuzzConfig, Shared, ktest};
use crate::exec::InputDomain;
use crate::ktest::KTest;

/// What enumeration did, for the report; also why it did not run, where
/// the program makes `klee_make_symbolic` inputs.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct EnumerationStats {
    /// The box, as "a in 0..=799, b in 0..=799"; empty if none is known.
    pub domain: String,
    /// Inputs of the box, and those no revision rejected by `klee_assume`.
    pub inputs: u64,
    pub in_domain: u64,
    /// Runs made, an input on a revision text each: every input on every
    /// text when it finished, none when it did not run.
    #[serde(default)]
    pub runs: u64,
    pub seconds: f64,
    /// Why its equal pairs are not proved equivalent ("not run: ..." when
    /// it did not run); none: they are.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub not_a_proof: Option<String>,
    /// Why some revision did not run every input ("not finished: ..."):
    /// only the pairs of those that did are compared.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub not_finished: Option<String>,
    /// Revision texts whose runs prove nothing by themselves
    /// (`Equality::doubt`), and what became of their pairs.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub doubtful: Option<String>,
    /// What became of the runs that divided by zero, natively
    /// (`Enumeration::crashes`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub crashes: Option<String>,
}

impl EnumerationStats {
    /// An enumeration that did not run, and why.
    pub fn not_run(domain: Option<&InputDomain>, why: &str) -> EnumerationStats {
        EnumerationStats {
            domain: domain.map(InputDomain::describe).unwrap_or_default(),
            inputs: domain.map_or(0, InputDomain::inputs),
            not_a_proof: Some(format!("not run: {why}")),
            ..EnumerationStats::default()
        }
    }

    /// Why it proves less than a finished enumeration would, if it does.
    pub fn shortfall(&self) -> Option<&str> {
        self.not_a_proof.as_deref().or(self.not_finished.as_deref()).or(self.doubtful.as_deref())
    }
}

pub struct Enumeration {
    pub stats: EnumerationStats,
    crashes: Option<Crashes>,
    /// The box's inputs, to run natively where its runs are in doubt.
    pub inputs: Option<BoxInputs>,
    /// One input per way the box splits the revisions that no earlier input
    /// split: candidate tests.
    pub witnesses: Vec<KTest>,
    /// Whether two revisions behaved alike on every input.
    pub equal: Equality,
    /// Per revision: the meta-branch sites some run of it reached. A proof
    /// of two revisions holds only where their runs ran the code where
    /// they differ (`diff::reach`).
    pub reached: Vec<Vec<u32>>,
}

impl Enumeration {
    pub(super) fn nothing(stats: EnumerationStats, revisions: usize) -> Enumeration {
        let equal = Equality { text: Vec::new(), texts: None, doubt: Vec::new() };
        Enumeration {
            stats,
            crashes: None,
            inputs: None,
            witnesses: Vec::new(),
            equal,
            reached: vec![Vec::new(); revisions],
        }
    }

    /// The runs that divided by zero, where they are all that puts a text
    /// in doubt: per such text, its first revision and those inputs.
    pub fn crashes(&self) -> Vec<(usize, &[u64])> {
        let Some(c) = &self.crashes else { return Vec::new() };
        (0..c.firsts.len())
            .filter(|&t| !c.inputs[t].is_empty())
            .map(|t| (c.firsts[t], &c.inputs[t][..]))
            .collect()
    }

    /// Takes the native outcomes of runs that divided by zero (`crashes`):
    /// `settled[(first revision, input)]`, a hash of the run's native view
    /// as enumeration's outcomes are hashes of theirs. A text whose every such
    /// run is settled is no longer in doubt, and the texts compare again.
    /// Returns the witnesses of the splits the box now makes.
    pub fn settle_crashes(&mut self, settled: &std::collections::HashMap<(usize, u64), u64>) -> Vec<KTest> {
        let (Some(mut c), Some(boxed)) = (self.crashes.take(), &self.inputs) else { return Vec::new() };
        for t in 0..c.firsts.len() {
            let all = c.inputs[t].iter().all(|&i| settled.contains_key(&(c.firsts[t], i)));
            for &i in &c.inputs[t] {
                if let Some(&v) = settled.get(&(c.firsts[t], i)) {
                    c.outcomes[t][i as usize] = v;
                }
            }
            if all && !c.inputs[t].is_empty() {
                self.equal.doubt[t] = None;
            }
        }
        let outcomes: Vec<&[u64]> = c.outcomes.iter().map(Vec::as_slice).collect();
        let cmp = Comparison::of(&outcomes, boxed.count());
        let witnesses = cmp.cover(&outcomes).iter().map(|&i| boxed.ktest(i)).collect();
        self.equal.texts = Some(cmp);
        witnesses
    }
}

/// Why a revision text's enumeration runs may not be what the program
/// does: its pairs are no proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doubt {
    /// Some run crashed or ran out of time: the fuzz build has no
    /// AddressSanitizer, and a crash's hash is not a native outcome.
    Abnormal,
    /// Some run asked for symbolic bytes beyond the box: it ran on zeros
    /// there, not on every input.
    BeyondTheBox,
    /// Native replay disagrees with it (`diff::recheck`): on a test, or
    /// running its witnesses.
    Disagrees,
}

/// What an enumeration says of pairs of revisions, through their texts.
pub struct Equality {
    /// Per revision: the text it ran as.
    text: Vec<usize>,
    texts: Option<Comparison>,
    /// Per text: why its runs may not be the program's, if they may not.
    doubt: Vec<Option<Doubt>>,
}

/// The runs that divided by zero, while they wait for their native
/// outcomes: every text's outcomes, to compare again once they are in.
struct Crashes {
    /// Per text: its first revision.
    firsts: Vec<usize>,
    outcomes: Vec<Vec<u64>>,
    /// Per text whose only abnormal runs divided by zero: those inputs.
    inputs: Vec<Vec<u64>>,
}

/// A run that a division by zero ended (SIGFPE, core dumped or not).
fn divided_by_zero(outcome: u64) -> bool {
    outcome & !0x80 == CRASHED | 8
}

impl Equality {
    /// Why revision `r`'s runs may not be the program's, if they may not.
    pub fn doubt(&self, r: usize) -> Option<Doubt> {
        *self.doubt.get(*self.text.get(r)?)?
    }

    /// Whether `a` and `b` behaved alike on every input; none where one of
    /// them did not run every input and no input told them apart, or where
    /// nothing ran.
    pub fn get(&self, a: usize, b: usize) -> Option<bool> {
        self.texts.as_ref()?.equal(*self.text.get(a)?, *self.text.get(b)?)
    }
}

/// What taking an enumeration's results in needs before the deadline: its
/// outcomes through a pipe (8 bytes a run), the witnesses found among them,
/// and their native replays.
const RESULTS_TIME: Duration = Duration::from_secs(2);

/// Library functions whose result depends on their arguments alone, or on
/// state enumeration resets between runs (stdout, the program's globals):
/// a program that calls only these (and its own code) behaves on each run of
/// an enumeration as it would in a process of its own.
const RESETTABLE: &[&str] = &[
    "printf",
    "fprintf",
    "vprintf",
    "vfprintf",
    "puts",
    "putchar",
    "fputs",
    "fputc",
    "putc",
    "fwrite",
    "fflush",
    "sprintf",
    "snprintf",
    "vsprintf",
    "vsnprintf",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "strchr",
    "strrchr",
    "strstr",
    "strdup",
    "abs",
    "labs",
    "llabs",
    "div",
    "ldiv",
    "atoi",
    "atol",
    "atoll",
    "strtol",
    "strtoul",
    "strtoll",
    "strtoull",
    "strtod",
    "strtof",
    "atof",
    "qsort",
    "bsearch",
    "toupper",
    "tolower",
    "__ctype_b_loc",
    "__ctype_tolower_loc",
    "__ctype_toupper_loc",
    "exit",
    "abort",
    "__assert_fail",
    "sqrt",
    "sqrtf",
    "pow",
    "powf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "fabs",
    "fabsf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "fmod",
    "fmodf",
    "log",
    "logf",
    "log10",
    "log2",
    "exp",
    "expf",
    "exp2",
    "sin",
    "cos",
    "tan",
    "atan",
    "atan2",
    "asin",
    "acos",
    "sinh",
    "cosh",
    "tanh",
    "hypot",
    "cbrt",
    "fmin",
    "fmax",
    "fminf",
    "fmaxf",
    "rint",
    "lround",
    "llround",
    "nearbyint",
    "ldexp",
    "frexp",
    "modf",
];

/// Why an enumeration of a program that declares `functions` would prove
/// nothing: the first it calls whose state enumeration cannot reset.
pub fn proof_blocker(functions: &[String]) -> Option<String> {
    let resettable = |f: &str| {
        RESETTABLE.contains(&f)
            || f.starts_with("llvm.")
            || f.starts_with("klee_")
            || f.starts_with("psychic_")
            || f == "__klee_meta"
            || f == "__klee_meta_in"
    };
    let mut blockers: Vec<&str> = functions.iter().map(String::as_str).filter(|f| !resettable(f)).collect();
    blockers.sort_unstable();
    (!blockers.is_empty()).then(|| {
        format!(
            "the program calls {}, whose state enumeration does not reset between runs",
            blockers.join(", ")
        )
    })
}

/// Runs the box of `domain` on every revision, if it can, until the run's
/// deadline; the stats say why it did not run or finish.
pub(super) fn enumerate(
    server: &mut Server,
    cfg: &FuzzConfig,
    layout: &Layout,
    domain: &InputDomain,
    shared: &Shared,
) -> Enumeration {
    let start = Instant::now();
    let n = cfg.revisions;
    let inputs = domain.inputs();
    let refuse = |why: &str| Enumeration::nothing(EnumerationStats::not_run(Some(domain), why), n);
    if server.reads_stdin {
        return refuse("the program reads stdin");
    }
    // The box's integers as the objects they make up: an array's elements
    // follow each other.
    let mut objects: Vec<(&str, usize)> = Vec::new();
    for o in &domain.objects {
        match objects.last_mut() {
            Some((_, size)) if o.element.is_some_and(|i| i > 0) => *size += o.size as usize,
            _ => objects.push((o.name.as_str(), o.size as usize)),
        }
    }
    let slots: Vec<(&str, usize)> = layout.slots.iter().map(|s| (s.name.as_str(), s.size)).collect();
    if objects != slots {
        return refuse("the program makes symbolic inputs after its first branch");
    }
    let time = match cfg.deadline.map(|d| d.checked_duration_since(start + RESULTS_TIME)) {
        None => None,
        Some(Some(left)) => Some(left),
        Some(None) => {
            return refuse(&format!(
                "less than {RESULTS_TIME:?} of the budget was left when the domain was known"
            ));
        }
    };
    let outputs = cfg.outputs;
    // Where its runs may prove, they take every core at psychic's own
    // priority: the engine waits (`Fuzzer::wait_for_proof`), as what they
    // prove it need not search.
    let may_prove = cfg.enumeration_proof.is_none() && !outputs.stderr;
    let flags = u32::from(outputs.exit)
        | u32::from(outputs.stdout) << 1
        | u32::from(outputs.annotations) << 2
        | u32::from(may_prove) << 3;
    let ranges: Vec<Range> =
        domain.objects.iter().map(|o| Range { size: o.size, first: o.first, count: o.count }).collect();
    let jobs = if may_prove { std::thread::available_parallelism().map_or(1, |n| n.get() as u32) } else { 1 };
    let mut stats = EnumerationStats { domain: domain.describe(), inputs, ..EnumerationStats::default() };
    shared.proving.store(may_prove, Ordering::Relaxed);
    let runs = server.enumerate(&ranges, flags, jobs, time, cfg.sites);
    shared.proving.store(false, Ordering::Relaxed);
    stats.seconds = start.elapsed().as_secs_f64();
    let runs = match runs {
        Ok(runs) => runs,
        Err(e) => {
            stats.not_finished = Some(if shared.stop.load(Ordering::Relaxed) {
                format!("not finished: the run ended {:.1}s into it", stats.seconds)
            } else {
                format!("not finished: the fuzz server failed: {e}")
            });
            return Enumeration::nothing(stats, n);
        }
    };
    let reps = server.revisions.clone();
    let rep_of = |r: usize| {
        let s = cfg.same_as.get(r).copied().unwrap_or(r);
        reps.iter().position(|&x| x == s).expect("every text runs")
    };
    let outcomes: Vec<&[u64]> = runs.iter().map(|r| r.outcomes.as_slice()).collect();
    let c = Comparison::of(&outcomes, inputs);
    let template = ktest(&cfg.argv, layout, &input_bytes(&ranges, 0));
    let boxed = BoxInputs { template, own: layout.slots.len(), ranges, count: inputs };
    let witnesses = c.cover(&outcomes).iter().map(|&i| boxed.ktest(i)).collect();
    let text = (0..n).map(rep_of).collect();
    stats.in_domain = c.in_domain;
    stats.runs = outcomes.iter().map(|o| o.len() as u64).sum();
    if c.finished.contains(&false) {
        let whole: Vec<usize> = (0..n).filter(|&r| c.finished[rep_of(r)]).collect();
        stats.not_finished = Some(format!(
            "not finished: the budget ended after {} of {} runs; {}",
            stats.runs,
            inputs * reps.len() as u64,
            if whole.len() < 2 {
                "no two revisions ran every input".to_string()
            } else {
                let whole = crate::cluster::names::listed(&whole);
                format!("only revisions {whole} ran every input: only their pairs are compared")
            }
        ));
    }
    stats.not_a_proof = if outputs.stderr {
        Some("stderr is compared, which enumeration does not see".into())
    } else {
        cfg.enumeration_proof.clone()
    };
    stats.seconds = start.elapsed().as_secs_f64();
    let reached = (0..n).map(|r| runs[rep_of(r)].reached.clone()).collect();
    let doubt = runs
        .iter()
        .map(|r| match (r.abnormal > 0, r.asked_more) {
            (_, true) => Some(Doubt::BeyondTheBox),
            (true, false) => Some(Doubt::Abnormal),
            (false, false) => None,
        })
        .collect();
    let divided: Vec<Vec<u64>> = runs
        .iter()
        .map(|r| {
            let at: Vec<u64> =
                (0..r.outcomes.len() as u64).filter(|&i| divided_by_zero(r.outcomes[i as usize])).collect();
            // A text that ran every input, and went wrong only there.
            let only = !r.asked_more && r.outcomes.len() as u64 == inputs && at.len() == r.abnormal as usize;
            if only { at } else { Vec::new() }
        })
        .collect();
    let crashes = divided.iter().any(|i| !i.is_empty()).then(|| Crashes {
        firsts: reps.clone(),
        outcomes: runs.into_iter().map(|r| r.outcomes).collect(),
        inputs: divided,
    });
    Enumeration {
        stats,
        crashes,
        inputs: Some(boxed),
        witnesses,
        equal: Equality { text, texts: Some(c), doubt },
        reached,
    }
}

/// The inputs of a box, as ktests.
pub struct BoxInputs {
    /// Input 0; its last `own` objects are the box's.
    template: KTest,
    own: usize,
    ranges: Vec<Range>,
    count: u64,
}

impl BoxInputs {
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Input `i`, in the order enumeration ran them.
    pub fn ktest(&self, i: u64) -> KTest {
        let bytes = input_bytes(&self.ranges, i);
        let mut k = self.template.clone();
        let first = k.objects.len() - self.own;
        let mut at = 0;
        for o in &mut k.objects[first..] {
            let n = o.bytes.len();
            o.bytes.copy_from_slice(&bytes[at..at + n]);
            at += n;
        }
        k
    }
}

/// What the runs of each revision text (`outcomes[t]`, a prefix of the
/// box's inputs where time ran out) say of the pairs of texts. Two texts
/// agree on the inputs before the first both ran and told them apart; in
/// the lexicographic order of their outcomes, a pair agrees on as many as
/// the least pair of neighbours between them. So the pairs are never listed:
/// 3,000 texts are 4.5 million pairs, and each revision pair's question
/// (10,000 revisions: 100 million) is a lookup in a sparse table of
/// neighbours' agreements.
struct Comparison {
    /// Per text: its place in the order.
    place: Vec<usize>,
    /// `agree[j][i]`: the least agreement of the neighbours from place `i`
    /// to place `i + 2^j` (`agree[0][i]`: of places `i` and `i + 1`).
    agree: Vec<Vec<u32>>,
    /// Per text: the inputs it ran.
    ran: Vec<u32>,
    /// The inputs that told apart a pair no earlier input had.
    splits: Vec<u64>,
    /// Texts that ran every input.
    finished: Vec<bool>,
    /// Inputs some text ran inside the `klee_assume`d domain.
    in_domain: u64,
}

impl Comparison {
    fn of(outcomes: &[&[u64]], inputs: u64) -> Comparison {
        let k = outcomes.len();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| outcomes[a].cmp(outcomes[b]));
        let mut place = vec![0; k];
        for (i, &t) in order.iter().enumerate() {
            place[t] = i;
        }
        let common = |a: &[u64], b: &[u64]| a.iter().zip(b).take_while(|(x, y)| x == y).count() as u32;
        let mut neighbours: Vec<u32> =
            order.windows(2).map(|w| common(outcomes[w[0]], outcomes[w[1]])).collect();
        // A neighbour pair that both ran the input after their agreement
        // was told apart there; every pair told apart is told apart where
        // some neighbour pair between them is.
        let mut splits: Vec<u64> = order
            .windows(2)
            .zip(&neighbours)
            .filter(|&(w, &a)| (a as usize) < outcomes[w[0]].len().min(outcomes[w[1]].len()))
            .map(|(_, &a)| a as u64)
            .collect();
        splits.sort_unstable();
        splits.dedup();
        let mut agree = Vec::new();
        let mut width = 1;
        while !neighbours.is_empty() {
            let next: Vec<u32> = (0..neighbours.len().saturating_sub(width))
                .map(|i| neighbours[i].min(neighbours[i + width]))
                .collect();
            agree.push(std::mem::replace(&mut neighbours, next));
            width *= 2;
        }
        let longest = outcomes.iter().map(|o| o.len()).max().unwrap_or(0);
        let in_domain = (0..longest)
            .filter(|&i| outcomes.iter().any(|o| o.get(i).is_some_and(|&x| x != OUT_OF_DOMAIN)))
            .count();
        let ran = outcomes.iter().map(|o| o.len() as u32).collect();
        let finished = outcomes.iter().map(|o| o.len() as u64 == inputs).collect();
        Comparison { place, agree, ran, splits, finished, in_domain: in_domain as u64 }
    }

    /// Inputs that split the texts as every input does, few: each native
    /// replay of a witness runs every text twice, and 2,944 texts had 400
    /// first splits, more replays than a 10-minute budget holds where 30
    /// inputs told the same. Greedily, among the first splits (which
    /// together split every pair), the input that splits the most pairs
    /// still together, until none is. Where some text did not run every
    /// input, the first splits: a text's missing outcomes split nothing.
    fn cover(&self, outcomes: &[&[u64]]) -> Vec<u64> {
        if self.finished.contains(&false) {
            return self.splits.clone();
        }
        let k = outcomes.len() as u64;
        let mut class = vec![0u32; outcomes.len()];
        // The pairs the chosen inputs keep together.
        let mut together = k * k.saturating_sub(1) / 2;
        let mut chosen = Vec::new();
        let mut candidates = self.splits.clone();
        loop {
            // Per candidate: the classes it makes of the current ones, and
            // how many pairs those keep together.
            let refine = |i: u64| {
                let mut ids: std::collections::HashMap<(u32, u64), u32> = Default::default();
                let classes: Vec<u32> = class
                    .iter()
                    .zip(outcomes)
                    .map(|(&c, o)| {
                        let next = ids.len() as u32;
                        *ids.entry((c, o[i as usize])).or_insert(next)
                    })
                    .collect();
                let mut sizes = vec![0u64; ids.len()];
                classes.iter().for_each(|&c| sizes[c as usize] += 1);
                (classes, sizes.iter().map(|s| s * s.saturating_sub(1) / 2).sum::<u64>())
            };
            let best = candidates.iter().map(|&i| (refine(i), i)).min_by_key(|((_, kept), i)| (*kept, *i));
            let Some(((classes, kept), i)) = best else { break };
            if kept >= together {
                break;
            }
            class = classes;
            together = kept;
            chosen.push(i);
            candidates.retain(|&c| c != i);
        }
        chosen.sort_unstable();
        chosen
    }

    /// The inputs texts `x` and `y` agree on from the first (`x != y`).
    fn agreement(&self, x: usize, y: usize) -> u32 {
        let (p, q) = (self.place[x].min(self.place[y]), self.place[x].max(self.place[y]));
        let j = (q - p).ilog2() as usize;
        self.agree[j][p].min(self.agree[j][q - (1 << j)])
    }

    /// Whether texts `x` and `y` behaved alike on every input; none where
    /// one did not run them all and no input both ran told them apart.
    fn equal(&self, x: usize, y: usize) -> Option<bool> {
        if x == y {
            return Some(true);
        }
        if self.agreement(x, y) < self.ran[x].min(self.ran[y]) {
            Some(false)
        } else {
            (self.finished[x] && self.finished[y]).then_some(true)
        }
    }
}

/// Input `i` of the box: the first object's values vary slowest.
fn input_bytes(ranges: &[Range], mut i: u64) -> Vec<u8> {
    let mut values = vec![0u64; ranges.len()];
    for (v, r) in values.iter_mut().zip(ranges).rev() {
        *v = (r.first as u64).wrapping_add(i % r.count);
        i /= r.count;
    }
    values.iter().zip(ranges).flat_map(|(v, r)| v.to_le_bytes()[..r.size as usize].to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where time ran out, texts are compared on the inputs both ran: a
    /// pair told apart there is apart, a pair not told apart is equal only
    /// if both ran every input.
    #[test]
    fn an_unfinished_enumeration_proves_only_the_pairs_that_finished() {
        let (a, b, c, d): (&[u64], &[u64], &[u64], &[u64]) = (&[1, 2, 3, 4], &[1, 2, 3, 4], &[1, 2], &[1, 5]);
        let cmp = Comparison::of(&[a, b, c, d], 4);
        assert_eq!(cmp.finished, [true, true, false, false]);
        assert_eq!(cmp.splits, [1]);
        assert_eq!(cmp.in_domain, 4);
        assert_eq!((cmp.equal(0, 1), cmp.equal(1, 0), cmp.equal(2, 2)), (Some(true), Some(true), Some(true)));
        assert_eq!((cmp.equal(0, 2), cmp.equal(2, 0)), (None, None), "2 ran 2 inputs of 4");
        assert_eq!((cmp.equal(0, 3), cmp.equal(3, 2)), (Some(false), Some(false)), "told apart by input 1");
    }

    /// The order and its table answer as comparing every pair input by
    /// input does, on texts that ran prefixes of a box of 6 inputs.
    #[test]
    fn neighbours_in_order_answer_for_every_pair() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..200 {
            let k = 1 + next(12) as usize;
            let texts: Vec<Vec<u64>> = (0..k)
                .map(|_| (0..if next(3) == 0 { next(7) } else { 6 }).map(|_| next(3)).collect())
                .collect();
            let outcomes: Vec<&[u64]> = texts.iter().map(Vec::as_slice).collect();
            let cmp = Comparison::of(&outcomes, 6);
            let mut splits = Vec::new();
            for a in 0..k {
                for b in 0..k {
                    let first = (0..6).find(|&i| match (texts[a].get(i), texts[b].get(i)) {
                        (Some(x), Some(y)) => x != y,
                        _ => false,
                    });
                    let whole = texts[a].len() == 6 && texts[b].len() == 6;
                    let want = if a == b {
                        Some(true)
                    } else if first.is_some() {
                        Some(false)
                    } else {
                        whole.then_some(true)
                    };
                    assert_eq!(cmp.equal(a, b), want, "{texts:?}: {a} and {b}");
                    splits.extend(first.map(|i| i as u64));
                }
            }
            splits.sort_unstable();
            splits.dedup();
            assert_eq!(cmp.splits, splits, "{texts:?}");
            // The cover splits every pair the box splits.
            let cover = cmp.cover(&outcomes);
            for a in 0..k {
                for b in 0..k {
                    if cmp.equal(a, b) == Some(false) && cmp.finished.iter().all(|&f| f) {
                        let split = cover.iter().any(|&i| texts[a][i as usize] != texts[b][i as usize]);
                        assert!(split, "{texts:?}: {a} and {b} by {cover:?}");
                    }
                }
            }
        }
    }

    /// Three inputs split four texts as the first splits do; two of them
    /// suffice, and an unfinished run keeps the first splits.
    #[test]
    fn a_few_witnesses_split_what_every_input_splits() {
        let (a, b, c, d): (&[u64], &[u64], &[u64], &[u64]) = (&[0, 0, 0], &[1, 0, 0], &[1, 1, 0], &[0, 1, 1]);
        let cmp = Comparison::of(&[a, b, c, d], 3);
        assert_eq!(cmp.splits, [0, 1]);
        assert_eq!(cmp.cover(&[a, b, c, d]), [0, 1]);
        let (e, f, g): (&[u64], &[u64], &[u64]) = (&[0, 0, 5], &[0, 1, 5], &[1, 1, 6]);
        let cmp = Comparison::of(&[a, e, f, g], 3);
        assert_eq!(cmp.splits, [0, 1, 2]);
        // Input 1 splits {a, e} from {f, g}, input 2 {a} from {e, f} from
        // {g}: together every pair, without input 0.
        assert_eq!(cmp.cover(&[a, e, f, g]), [1, 2]);
        let short: &[u64] = &[0];
        let cmp = Comparison::of(&[a, e, f, short], 3);
        assert_eq!(cmp.cover(&[a, e, f, short]), cmp.splits);
    }

    #[test]
    fn inputs_count_like_the_server() {
        let ranges = [Range { size: 4, first: -1, count: 3 }, Range { size: 1, first: 10, count: 2 }];
        assert_eq!(input_bytes(&ranges, 0), [0xff, 0xff, 0xff, 0xff, 10]);
        assert_eq!(input_bytes(&ranges, 1), [0xff, 0xff, 0xff, 0xff, 11]);
        assert_eq!(input_bytes(&ranges, 5), [1, 0, 0, 0, 11]);
    }
}
