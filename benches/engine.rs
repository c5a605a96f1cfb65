//! Engine throughput: instructions per second on a concrete-heavy loop,
//! paths per second on a branching program, and the solver's query counts
//! and cache hit rates. Prints a table; `cargo bench --bench engine`.

use std::time::Instant;

use psychic::compile::Toolchain;
use psychic::exec::{ExecConfig, Executor, SearchKind};
use psychic::ir::Module;

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

fn main() {
    let tc = Toolchain::discover().expect("clang 19");
    let dir = tempfile::tempdir().unwrap();
    println!("{:<34} {:>12} {:>10} {:>14}", "benchmark", "instructions", "seconds", "rate");
    for opt2 in [false, true] {
        let m = build(&tc, dir.path(), if opt2 { "concrete-O2" } else { "concrete" }, CONCRETE, opt2);
        let t = Instant::now();
        let s = Executor::new(&m, ExecConfig::default()).unwrap().run();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:<34} {:>12} {:>10.3} {:>10.1} M/s",
            format!("concrete loop {}", if opt2 { "-O2" } else { "-O0" }),
            s.stats.instructions,
            secs,
            s.stats.instructions as f64 / secs / 1e6
        );
    }
    let regexp = REGEXP.replace("#define SIZE 4", "#define SIZE 7");
    let m = build(&tc, dir.path(), "regexp", &regexp, false);
    for search in [SearchKind::Dfs, SearchKind::Default] {
        let t = Instant::now();
        let s = Executor::new(&m, ExecConfig { search, ..ExecConfig::default() }).unwrap().run();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:<34} {:>12} {:>10.3} {:>8.0} paths/s",
            format!("regexp[7], {} paths, {search:?}", s.paths.len()),
            s.stats.instructions,
            secs,
            s.paths.len() as f64 / secs
        );
        let q = &s.solver;
        println!(
            "  queries {}, query-cache hits {}/{}, cex-cache hits {}/{}, z3 calls {} ({:?})",
            q.queries,
            q.query_cache.hits,
            q.query_cache.lookups,
            q.cex_cache.hits,
            q.cex_cache.lookups,
            q.z3_calls(),
            q.z3_time()
        );
    }
    let m = build(&tc, dir.path(), "branching", BRANCHING, false);
    for search in [SearchKind::Dfs, SearchKind::Default] {
        let t = Instant::now();
        let s = Executor::new(&m, ExecConfig { search, ..ExecConfig::default() }).unwrap().run();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:<34} {:>12} {:>10.3} {:>8.0} paths/s",
            format!("branching, {} paths, {search:?}", s.paths.len()),
            s.stats.instructions,
            secs,
            s.paths.len() as f64 / secs
        );
        let q = &s.solver;
        println!(
            "  queries {}, query-cache hits {}/{}, cex-cache hits {}/{}, z3 calls {} ({:?})",
            q.queries,
            q.query_cache.hits,
            q.query_cache.lookups,
            q.cex_cache.hits,
            q.cex_cache.lookups,
            q.z3_calls(),
            q.z3_time()
        );
    }
}
