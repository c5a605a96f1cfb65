//! csmith agreement: the engine prints the same checksum as the native
//! binary for seeded random programs: 30 at -O0 and 6 at -O2 must agree, and
//! as many of csmith's `--float` programs (float arithmetic, comparisons and
//! conversions, whose bits reach the checksum). A disagreement fails the
//! test; a seed whose native run is too slow for a test is skipped and
//! reported (never silently), and the next seed is tried.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use psychic::exec::{ExecConfig, Executor, Termination};
use psychic::ir::Module;

const CSMITH_INCLUDE: &str = "-I/usr/include/csmith";
/// Small programs: few functions, shallow blocks (csmith's other defaults,
/// packed structs with wide bit-fields included).
const CSMITH_OPTS: &[&str] = &["--max-funcs", "3", "--max-block-depth", "3", "--max-expr-complexity", "5"];
/// Native runs slower than this are skipped (and reported).
const NATIVE_LIMIT: Duration = Duration::from_millis(300);

enum Case {
    Agree,
    Skipped(String),
    Disagree(String),
}

fn csmith(seed: u64, float: bool, dir: &Path) -> std::path::PathBuf {
    let out = dir.join(format!("cs{seed}.c"));
    // PSYCHIC_CSMITH_OPTS replaces the options (for larger programs by hand).
    let opts: Vec<String> = match std::env::var("PSYCHIC_CSMITH_OPTS") {
        Ok(o) => o.split_whitespace().map(String::from).collect(),
        Err(_) => CSMITH_OPTS.iter().map(|s| s.to_string()).collect(),
    };
    let generated = Command::new("csmith")
        .args(["--seed", &seed.to_string()])
        .args(float.then_some("--float"))
        .args(&opts)
        .current_dir(dir)
        .output()
        .expect("csmith is installed (apt-get install csmith libcsmith-dev)");
    assert!(generated.status.success(), "csmith failed: {}", String::from_utf8_lossy(&generated.stderr));
    std::fs::write(&out, generated.stdout).unwrap();
    out
}

fn case(seed: u64, opt2: bool, float: bool) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let src = csmith(seed, float, dir.path());
    let flags = [CSMITH_INCLUDE, "-w"];
    let bin = common::native(&src, dir.path(), opt2, &flags);
    let t0 = Instant::now();
    // A run over the limit is skipped anyway: cut it off soon after (many
    // csmith programs run for minutes).
    let Some(native) = common::run_native(&bin, 1) else {
        return Case::Skipped(format!("seed {seed}: native run over 1 s"));
    };
    if t0.elapsed() > NATIVE_LIMIT {
        return Case::Skipped(format!("seed {seed}: native run took {:?}", t0.elapsed()));
    }
    let bc = common::bitcode(&src, dir.path(), opt2, &flags);
    let m = match Module::load(&bc) {
        Ok(m) => m,
        Err(e) => return Case::Disagree(format!("seed {seed}: load: {e}")),
    };
    let cfg = ExecConfig { max_time: Some(Duration::from_secs(60)), ..ExecConfig::default() };
    let mut ex = Executor::new(&m, cfg).unwrap();
    let s = ex.run();
    if s.paths.len() != 1 {
        return Case::Disagree(format!("seed {seed}: {} paths", s.paths.len()));
    }
    let p = &s.paths[0];
    let out = common::stdout_of(p);
    let status = match &p.termination {
        Termination::Exit { status } => ex.pool.as_const(*status).map(|s| s as i32 & 0xff),
        t => {
            return Case::Disagree(format!(
                "seed {seed}: engine ended with {t:?}; native: {}",
                native.status_text()
            ));
        }
    };
    if out != native.stdout || status != native.exit_status {
        return Case::Disagree(format!(
            "seed {seed}: engine printed {:?} (status {status:?}), native {:?} (status {:?})",
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&native.stdout),
            native.exit_status
        ));
    }
    Case::Agree
}

/// Runs seeds in order until `want` agree (a skipped seed does not count).
fn agreement(seeds: impl Iterator<Item = u64>, opt2: bool, float: bool, want: usize) {
    let (mut agree, mut skipped, mut bad) = (0, Vec::new(), Vec::new());
    for seed in seeds {
        if agree == want {
            break;
        }
        match case(seed, opt2, float) {
            Case::Agree => agree += 1,
            Case::Skipped(why) => skipped.push(why),
            Case::Disagree(why) => bad.push(why),
        }
    }
    eprintln!(
        "csmith opt2={opt2} float={float}: {agree} agree, {} skipped, {} disagree",
        skipped.len(),
        bad.len()
    );
    for s in &skipped {
        eprintln!("  skipped: {s}");
    }
    assert!(bad.is_empty(), "disagreements:\n{}", bad.join("\n"));
    assert_eq!(agree, want, "too few seeds agree; skipped: {skipped:?}");
}

/// The seeds to try and how many must agree: the variable's list, all of
/// them, or else `default` until `want` agree.
fn seeds(var: &str, default: std::ops::RangeInclusive<u64>, want: usize) -> (Vec<u64>, usize) {
    match std::env::var(var) {
        Ok(v) => {
            let list: Vec<u64> = v.split(',').filter_map(|s| s.trim().parse().ok()).collect();
            let n = list.len();
            (list, n)
        }
        Err(_) => (default.collect(), want),
    }
}

#[test]
fn csmith_agrees_at_o0() {
    let (list, want) = seeds("PSYCHIC_CSMITH_SEEDS", 1..=60, 30);
    agreement(list.into_iter(), false, false, want);
}

#[test]
fn csmith_agrees_at_o2() {
    let (list, want) = seeds("PSYCHIC_CSMITH_SEEDS_O2", 101..=120, 6);
    agreement(list.into_iter(), true, false, want);
}

#[test]
fn csmith_float_agrees_at_o0() {
    let (list, want) = seeds("PSYCHIC_CSMITH_FLOAT_SEEDS", 1..=60, 30);
    agreement(list.into_iter(), false, true, want);
}

#[test]
fn csmith_float_agrees_at_o2() {
    let (list, want) = seeds("PSYCHIC_CSMITH_FLOAT_SEEDS_O2", 101..=130, 10);
    agreement(list.into_iter(), true, true, want);
}
