//! Enumeration: where the program's first steps bound its input to a small
//! box (`exec::InputDomain`), the fuzz server runs every input of the box on
//! every revision, many runs per process (`psychic_fuzz.c`). Its witnesses
//! are candidate tests like any other; the pairs it finds equal on every
//! input are proved equivalent, unless something it cannot see could make
//! them differ (`Enumeration::not_a_proof`).

use std::time::Instant;

use super::mutate::Layout;
use super::server::{OUT_OF_DOMAIN, Range, Server};
use super::{FuzzConfig, ktest};
use crate::exec::InputDomain;
use crate::ktest::KTest;

use crate::exec::domain::MAX_INPUTS;

/// What enumeration did, for the report.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct EnumerationStats {
    /// The box, as "a in 0..=799, b in 0..=799".
    pub domain: String,
    /// Inputs of the box, and those no revision rejected by `klee_assume`.
    pub inputs: u64,
    pub in_domain: u64,
    pub seconds: f64,
    /// Why its equal pairs are not proved equivalent; none: they are.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub not_a_proof: Option<String>,
}

pub struct Enumeration {
    pub stats: EnumerationStats,
    /// One input per way the box splits the revisions that no earlier input
    /// split: candidate tests.
    pub witnesses: Vec<KTest>,
    /// `equal[a * n + b]`: a and b behaved alike on every input.
    pub equal: Vec<bool>,
}

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

/// Runs the box of `domain` on every revision, if it can; `None` when it
/// cannot run at all (the reason is in the stats).
pub(super) fn enumerate(
    server: &mut Server,
    cfg: &FuzzConfig,
    layout: &Layout,
    domain: &InputDomain,
    proving: &std::sync::atomic::AtomicBool,
) -> std::io::Result<Enumeration> {
    let start = Instant::now();
    let n = cfg.revisions;
    let inputs = domain.inputs();
    let mut stats = EnumerationStats { domain: domain.describe(), inputs, ..EnumerationStats::default() };
    let refuse = |mut stats: EnumerationStats, why: String| {
        stats.not_a_proof = Some(why);
        Ok(Enumeration { stats, witnesses: Vec::new(), equal: vec![false; n * n] })
    };
    if inputs > MAX_INPUTS {
        return refuse(stats, format!("not run: the box has {inputs} inputs, more than {MAX_INPUTS}"));
    }
    if server.reads_stdin {
        return refuse(stats, "not run: the program reads stdin".into());
    }
    let objects: Vec<(&str, usize)> =
        domain.objects.iter().map(|o| (o.name.as_str(), o.size as usize)).collect();
    let slots: Vec<(&str, usize)> = layout.slots.iter().map(|s| (s.name.as_str(), s.size)).collect();
    if objects != slots {
        return refuse(stats, "not run: the program makes symbolic inputs after its first branch".into());
    }
    let outputs = cfg.outputs;
    let flags =
        u32::from(outputs.exit) | u32::from(outputs.stdout) << 1 | u32::from(outputs.annotations) << 2;
    let ranges: Vec<Range> =
        domain.objects.iter().map(|o| Range { size: o.size, first: o.first, count: o.count }).collect();
    // Where its runs may prove, they take every core: the engine waits
    // (`Fuzzer::wait_for_proof`), as what they prove it need not search.
    let may_prove = cfg.enumeration_proof.is_none() && !outputs.stderr;
    let jobs = if may_prove { std::thread::available_parallelism().map_or(1, |n| n.get() as u32) } else { 1 };
    proving.store(may_prove, std::sync::atomic::Ordering::Relaxed);
    let runs = server.enumerate(&ranges, flags, jobs);
    proving.store(false, std::sync::atomic::Ordering::Relaxed);
    let runs = runs?;
    let reps = server.revisions.clone();
    let rep_of = |r: usize| {
        let s = cfg.same_as.get(r).copied().unwrap_or(r);
        reps.iter().position(|&x| x == s).expect("every text runs")
    };
    let k = reps.len();
    let mut open: Vec<(usize, usize)> = (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))).collect();
    let mut witnesses = Vec::new();
    for i in 0..inputs as usize {
        let before = open.len();
        open.retain(|&(a, b)| runs[a].outcomes[i] == runs[b].outcomes[i]);
        if open.len() < before {
            witnesses.push(ktest(&cfg.argv, layout, &input_bytes(&ranges, i as u64)));
        }
        if runs.iter().any(|r| r.outcomes[i] != OUT_OF_DOMAIN) {
            stats.in_domain += 1;
        }
    }
    let mut equal = vec![false; n * n];
    for a in 0..n {
        for b in 0..n {
            let (x, y) = (rep_of(a).min(rep_of(b)), rep_of(a).max(rep_of(b)));
            equal[a * n + b] = x == y || open.contains(&(x, y));
        }
    }
    let abnormal: u32 = runs.iter().map(|r| r.abnormal).sum();
    stats.not_a_proof = if abnormal > 0 {
        Some(format!("{abnormal} runs crashed or ran out of time"))
    } else if runs.iter().any(|r| r.asked_more) {
        Some("some run made symbolic inputs outside the box".into())
    } else if outputs.stderr {
        Some("stderr is compared, which enumeration does not see".into())
    } else {
        cfg.enumeration_proof.clone()
    };
    stats.seconds = start.elapsed().as_secs_f64();
    Ok(Enumeration { stats, witnesses, equal })
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

    #[test]
    fn inputs_count_like_the_server() {
        let ranges = [Range { size: 4, first: -1, count: 3 }, Range { size: 1, first: 10, count: 2 }];
        assert_eq!(input_bytes(&ranges, 0), [0xff, 0xff, 0xff, 0xff, 10]);
        assert_eq!(input_bytes(&ranges, 1), [0xff, 0xff, 0xff, 0xff, 11]);
        assert_eq!(input_bytes(&ranges, 5), [1, 0, 0, 0, 11]);
    }
}
