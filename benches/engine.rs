//! Engine throughput, in one table: instructions per second on a
//! concrete-heavy loop (integers, and floats), paths per second on branching programs
//! (symbolic floats among them; with and
//! without writing a test per path, as `psychic run` does), and the
//! solver's query counts and cache hit rates (`qcache`: query cache, `cex`:
//! counterexample cache, `z3`: calls that reached Z3). A second table
//! compares the stdin models on a program that scanf's three ints (median
//! of three): `tokens` against byte-exact `bytes`, which runs under a time
//! budget since its paths grow with the digit strings.
//! `cargo bench --bench engine`.

use std::time::Instant;

use psychic::compile::Toolchain;
use psychic::exec::{ExecConfig, Executor, SearchKind};
use psychic::ir::Module;
use psychic::run;

const CONCRETE: &str = r#"
#include <stdio.h>
static unsigned table[256];
int main(void) {
  unsigned h = 2166136261u;
  for (int i = 0; i < 256; i++) table[i] = i * 2654435761u;
  for (int round = 0; round < 20000; round++)
    for (int i = 0; i < 64; i++) {
      h ^= table[(h + i) & 255];
      h *= 16777619u;
      if (h & 1) h += round; else h -= i;
    }
  printf("%u\n", h);
  return 0;
}
"#;

/// Concrete floating point: a Newton iteration and a running mean, all in doubles and floats.
const FLOAT_CONCRETE: &str = r#"
#include <stdio.h>
int main(void) {
  double sum = 0, mean = 0;
  float f = 1.0f;
  for (int i = 1; i <= 40000; i++) {
    double x = i * 0.5, r = x;
    for (int k = 0; k < 4; k++) r = 0.5 * (r + x / r);
    sum += r;
    mean += (r - mean) / i;
    f = f * 1.0001f + (float)(i % 7);
    if (f > 1e6f) f = 1.0f;
  }
  printf("%.6f %.6f %.3f\n", sum, mean, f);
  return 0;
}
"#;

/// Symbolic floating point: three symbolic scores, their weighted average and a letter grade
/// by thresholds, with a rounding to cents; every comparison is a float query.
const FLOAT_GRADES: &str = r#"
#include <klee/klee.h>
#include <math.h>
int main(void) {
  double hw, mid, fin;
  klee_make_symbolic(&hw, sizeof hw, "hw");
  klee_make_symbolic(&mid, sizeof mid, "mid");
  klee_make_symbolic(&fin, sizeof fin, "fin");
  klee_assume(hw >= 0 && hw <= 100);
  klee_assume(mid >= 0 && mid <= 100);
  klee_assume(fin >= 0 && fin <= 100);
  double avg = 0.2 * hw + 0.3 * mid + 0.5 * fin;
  long cents = (long)(avg * 100 + 0.5);
  int grade;
  if (avg >= 90) grade = 4;
  else if (avg >= 80) grade = 3;
  else if (avg >= 70) grade = 2;
  else if (avg >= 60) grade = 1;
  else grade = 0;
  if (cents % 100 == 99) grade += 10;
  return grade;
}
"#;

/// KLEE's tutorial regular-expression matcher over a 7-byte symbolic pattern.
const REGEXP: &str = include_str!("../tests/c/symbolic/regexp.c");

const BRANCHING: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned char in[12];
  klee_make_symbolic(in, sizeof in, "in");
  int score = 0;
  for (int i = 0; i < 12; i++)
    if (in[i] > 100) score += i; else score -= 1;
  return score > 10;
}
"#;

/// Median of three ints read with scanf: a handful of behaviours (the
/// comparisons that pick the median), and in the byte model also the ways
/// the read fails.
const MEDIAN: &str = r#"
#include <stdio.h>
int main(void) {
  int a, b, c;
  if (scanf("%d %d %d", &a, &b, &c) != 3)
    return 1;
  if ((a <= b && b <= c) || (c <= b && b <= a))
    printf("%d is the median\n", b);
  else if ((b <= a && a <= c) || (c <= a && a <= b))
    printf("%d is the median\n", a);
  else
    printf("%d is the median\n", c);
  return 0;
}
"#;

/// The budget of a stdin-model run.
const STDIN_BUDGET_SECS: u64 = 60;

fn stdin_model_row(m: &Module, model: &str, n: u32) {
    let argv = ["median", "--sym-stdin", &n.to_string(), "--stdin-model", model].map(String::from).to_vec();
    let cfg = ExecConfig {
        entry: psychic::posix::POSIX_ENTRY.into(),
        argv,
        search: SearchKind::Dfs,
        max_time: Some(std::time::Duration::from_secs(STDIN_BUDGET_SECS)),
        ..ExecConfig::default()
    };
    let t = Instant::now();
    let s = Executor::new(m, cfg).unwrap().run();
    println!(
        "{:<8} {:>6} {:>8} {:>8} {:>9.2} {:>9} {}",
        model,
        n,
        s.stats.states_created,
        s.paths.len(),
        t.elapsed().as_secs_f64(),
        s.solver.queries,
        if s.stopped_early.is_some() { "budget hit (partial)" } else { "complete" }
    );
}

fn build(tc: &Toolchain, dir: &std::path::Path, name: &str, src: &str, opt2: bool) -> Module {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let bc = dir.join(format!("{name}.bc"));
    if opt2 {
        let st = std::process::Command::new(tc.clang())
            .arg("-I")
            .arg(tc.include_dir())
            .args(["-c", "-emit-llvm", "-g", "-O2", "-o"])
            .arg(&bc)
            .arg(&c)
            .status()
            .unwrap();
        assert!(st.success());
    } else {
        tc.bitcode(&c, &bc).unwrap();
    }
    Module::load(&bc).unwrap()
}

/// One row of the table.
struct Row {
    name: String,
    instructions: u64,
    paths: u64,
    secs: f64,
    solver: psychic::solver::SolverStats,
}

fn print_header() {
    println!(
        "{:<30} {:>12} {:>7} {:>8} {:>10} {:>9} {:>8} {:>7} {:>7} {:>7}",
        "benchmark",
        "instructions",
        "paths",
        "seconds",
        "instr/s",
        "paths/s",
        "queries",
        "qcache",
        "cex",
        "z3"
    );
}

fn print_row(r: &Row) {
    let rate = |c: psychic::solver::CacheStats| {
        if c.lookups == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * c.hits as f64 / c.lookups as f64)
        }
    };
    println!(
        "{:<30} {:>12} {:>7} {:>8.3} {:>9.1}M {:>9.0} {:>8} {:>7} {:>7} {:>7}",
        r.name,
        r.instructions,
        r.paths,
        r.secs,
        r.instructions as f64 / r.secs / 1e6,
        r.paths as f64 / r.secs,
        r.solver.queries,
        rate(r.solver.query_cache),
        rate(r.solver.cex_cache),
        r.solver.z3_calls()
    );
}

fn explore(name: String, m: &Module, search: SearchKind) -> Row {
    let t = Instant::now();
    let s = Executor::new(m, ExecConfig { search, ..ExecConfig::default() }).unwrap().run();
    let secs = t.elapsed().as_secs_f64();
    Row { name, instructions: s.stats.instructions, paths: s.paths.len() as u64, secs, solver: s.solver }
}

/// As `psychic run` does it: paths are not kept, each becomes a test in an
/// output directory as it halts (a model per path, ktest, outputs, index).
fn explore_with_tests(name: String, m: &Module) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let opts =
        run::Options { dir: dir.path().to_path_buf(), ktest_args: vec!["regexp".into()], progress: false };
    let mut writer = run::TestWriter::new(opts).unwrap();
    let t = Instant::now();
    let s = {
        let mut ex = Executor::new(m, ExecConfig { keep_paths: false, ..ExecConfig::default() }).unwrap();
        ex.set_observer(Box::new(&mut writer));
        ex.run()
    };
    let secs = t.elapsed().as_secs_f64();
    let paths = run::klee_completed(&s.stats) + run::klee_partial(&s.stats);
    Row { name, instructions: s.stats.instructions, paths, secs, solver: s.solver }
}

fn main() {
    let tc = Toolchain::discover().expect("clang 19");
    let dir = tempfile::tempdir().unwrap();
    print_header();
    for opt2 in [false, true] {
        let m = build(&tc, dir.path(), if opt2 { "concrete-O2" } else { "concrete" }, CONCRETE, opt2);
        let level = if opt2 { "-O2" } else { "-O0" };
        print_row(&explore(format!("concrete loop {level}"), &m, SearchKind::Default));
    }
    for opt2 in [false, true] {
        let m = build(&tc, dir.path(), if opt2 { "float-O2" } else { "float" }, FLOAT_CONCRETE, opt2);
        let level = if opt2 { "-O2" } else { "-O0" };
        print_row(&explore(format!("float loop {level}"), &m, SearchKind::Default));
    }
    let m = build(&tc, dir.path(), "grades", FLOAT_GRADES, false);
    print_row(&explore("float grades (symbolic) Default".into(), &m, SearchKind::Default));
    let regexp = REGEXP.replace("#define SIZE 4", "#define SIZE 7");
    let m = build(&tc, dir.path(), "regexp", &regexp, false);
    for search in [SearchKind::Dfs, SearchKind::Default] {
        print_row(&explore(format!("regexp[7] {search:?}"), &m, search));
    }
    print_row(&explore_with_tests("regexp[7] Default, with tests".into(), &m));
    let m = build(&tc, dir.path(), "branching", BRANCHING, false);
    for search in [SearchKind::Dfs, SearchKind::Default] {
        print_row(&explore(format!("branching {search:?}"), &m, search));
    }

    println!();
    println!("scanf(\"%d %d %d\"), median of three, --sym-stdin N, dfs, budget {STDIN_BUDGET_SECS} s");
    println!(
        "{:<8} {:>6} {:>8} {:>8} {:>9} {:>9} status",
        "model", "N", "states", "paths", "seconds", "queries"
    );
    let c = dir.path().join("median.c");
    std::fs::write(&c, MEDIAN).unwrap();
    let bc = dir.path().join("median.bc");
    tc.bitcode(&c, &bc).unwrap();
    let libc = tc.libc_model_cached(dir.path()).unwrap();
    let libc: Vec<&std::path::Path> = libc.iter().map(|p| p.as_path()).collect();
    let m = Module::load_linked(&bc, &libc).unwrap();
    for (model, n) in [("tokens", 3), ("tokens", 16), ("bytes", 5), ("bytes", 6), ("bytes", 16)] {
        stdin_model_row(&m, model, n);
    }
}
