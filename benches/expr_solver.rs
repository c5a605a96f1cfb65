//! Benchmarks of the expression builder and the solver chain; prints tables, asserts nothing.
//!
//! `cargo bench --bench expr_solver [-- builder|chain]`

use std::hint::black_box;
use std::time::{Duration, Instant};

use psychic::expr::{ArrayId, ExprId, ExprPool};
use psychic::solver::{Solver, SolverConfig, SolverStats, Validity};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn word(pool: &mut ExprPool, x: ArrayId, start: u64, n: u64) -> ExprId {
    let mut w = pool.read_input(x, start);
    for i in 1..n {
        let b = pool.read_input(x, start + i);
        w = pool.concat(b, w);
    }
    w
}

fn row(name: &str, ops: u64, elapsed: Duration, pool: &ExprPool) {
    let rate = ops as f64 / elapsed.as_secs_f64() / 1e6;
    println!(
        "| {name:<34} | {ops:>9} | {:>8.1} | {rate:>8.2} | {:>9} |",
        elapsed.as_secs_f64() * 1e3,
        pool.len()
    );
}

fn builder() {
    println!("\nBuilder (one pool per row)\n");
    println!("| operation                          |       ops |       ms |   Mops/s | pool size |");
    println!("|------------------------------------|-----------|----------|----------|-----------|");
    const N: u64 = 1_000_000;

    let mut pool = ExprPool::new();
    let cs: Vec<ExprId> = (0..64).map(|k| pool.constant(32, k * 977)).collect();
    let t = Instant::now();
    for k in 0..N as usize {
        black_box(pool.add(cs[k % 64], cs[(k / 64) % 64]));
    }
    row("add of constants (folds)", N, t.elapsed(), &pool);

    let mut pool = ExprPool::new();
    let x = pool.array("x", 8, 0);
    let w = word(&mut pool, x, 0, 4);
    let one = pool.constant(32, 1);
    let t = Instant::now();
    for _ in 0..N {
        black_box(pool.add(w, one));
    }
    row("add, symbolic, hash-consed hit", N, t.elapsed(), &pool);

    let mut pool = ExprPool::new();
    let x = pool.array("x", 8, 0);
    let w = word(&mut pool, x, 0, 4);
    let t = Instant::now();
    for k in 0..N {
        let c = pool.constant(32, k as u128);
        black_box(pool.mul(w, c));
    }
    row("constant + mul, fresh nodes", 2 * N, t.elapsed(), &pool);

    let mut pool = ExprPool::new();
    let x = pool.array("x", 8, 0);
    let w = word(&mut pool, x, 0, 4);
    let t = Instant::now();
    let rounds = N / 8;
    for k in 0..rounds {
        let c = pool.constant(32, k as u128);
        let v = pool.add(w, c);
        // Store the 4 bytes, load them back: 4 extracts and 3 concats that fuse to `v`.
        let b: Vec<ExprId> = (0..4).map(|i| pool.extract(v, 8 * i, 8)).collect();
        let hi = pool.concat(b[3], b[2]);
        let lo = pool.concat(b[1], b[0]);
        let back = pool.concat(hi, lo);
        assert_eq!(back, v);
    }
    row("store 4 bytes + load (fusion)", rounds * 8, t.elapsed(), &pool);

    let mut pool = ExprPool::new();
    let x = pool.array("x", 8, 0);
    let bytes: Vec<ExprId> = (0..8).map(|i| pool.read_input(x, i)).collect();
    let t = Instant::now();
    let rounds = N / 4;
    for k in 0..rounds {
        // `(int)c + k` compared as a char: sext, add, truncate, compare.
        let b = bytes[(k % 8) as usize];
        let s = pool.sext(b, 32);
        let c = pool.constant(32, k as u128 % 200);
        let sum = pool.add(s, c);
        let t8 = pool.extract(sum, 0, 8);
        black_box(t8);
    }
    row("sext + add + trunc (char arith.)", rounds * 4, t.elapsed(), &pool);
}

/// A program-like branch condition: mostly on one byte, as a parser tests its input, sometimes on
/// neighbouring bytes or a word, rarely across the two inputs.
fn condition(pool: &mut ExprPool, inputs: [ArrayId; 2], n: u64, rng: &mut ChaCha8Rng) -> ExprId {
    let x = inputs[rng.random_range(0..2)];
    let i = rng.random_range(0..n - 1);
    let byte = pool.read_input(x, i);
    match rng.random_range(0..20) {
        0..=5 => {
            let c = pool.constant(8, rng.random_range(b'a'..=b'z') as u128);
            pool.eq(byte, c)
        }
        6..=11 => {
            let s = pool.sext(byte, 32);
            let c = pool.constant(32, rng.random_range(0..128));
            pool.slt(s, c)
        }
        12..=14 => {
            let k = rng.random_range(0..=n - 4);
            let w = word(pool, x, k, 4);
            let c = pool.constant(32, rng.random::<u32>() as u128);
            pool.sgt(w, c)
        }
        15..=16 => {
            let a = pool.zext(byte, 32);
            let b = pool.read_input(x, i + 1);
            let b = pool.zext(b, 32);
            let sum = pool.add(a, b);
            let c = pool.constant(32, rng.random_range(0..300));
            pool.ult(sum, c)
        }
        17..=18 => {
            let w = word(pool, x, i, 2);
            let w = pool.zext(w, 32);
            let three = pool.constant(32, 3);
            let m = pool.mul(w, three);
            let mask = pool.constant(32, 0xff);
            let low = pool.and(m, mask);
            let c = pool.constant(32, rng.random_range(0..256));
            pool.eq(low, c)
        }
        _ => {
            let other = if x == inputs[0] { inputs[1] } else { inputs[0] };
            let b = pool.read_input(other, rng.random_range(0..n));
            pool.eq(byte, b)
        }
    }
}

/// Explores a synthetic branching program: a random live path takes a random branch, forking when
/// both sides are feasible; each new path gets a test (`get_model`), as a halting path would.
fn explore(config: SolverConfig) -> (SolverStats, Duration, u64) {
    const N: u64 = 8;
    let rng = &mut ChaCha8Rng::seed_from_u64(42);
    let mut pool = ExprPool::new();
    let inputs = [pool.array("a", N, 0), pool.array("b", N, 1)];
    let mut solver = Solver::new(config);
    let mut paths: Vec<Vec<ExprId>> = vec![Vec::new()];
    let mut forks = 0;
    let start = Instant::now();
    for _ in 0..3000 {
        let i = rng.random_range(0..paths.len());
        let cond = condition(&mut pool, inputs, N, rng);
        let pc = paths[i].clone();
        match solver.evaluate(&pool, &pc, cond).expect("no timeouts on this workload") {
            Validity::True | Validity::False => {}
            Validity::Unknown => {
                forks += 1;
                let not = pool.bool_not(cond);
                let mut other = pc;
                other.push(not);
                paths[i].push(cond);
                solver.get_model(&pool, &paths[i], &inputs).unwrap().expect("feasible path");
                solver.get_model(&pool, &other, &inputs).unwrap().expect("feasible path");
                paths.push(other);
                if paths.len() > 32 {
                    paths.swap_remove(rng.random_range(0..paths.len()));
                }
            }
        }
    }
    (solver.stats().clone(), start.elapsed(), forks)
}

fn chain() {
    println!("\nSolver chain on a synthetic branching workload (3000 branches, two 8-byte inputs)\n");
    println!(
        "| layers                  | queries | forks | checks | z3 calls | z3 sat s | z3 unsat s | qcache hit | cex hit | kept/in constraints | total s | queries/s |"
    );
    println!(
        "|-------------------------|---------|-------|--------|----------|----------|------------|------------|---------|---------------------|---------|-----------|"
    );
    let all = SolverConfig::default();
    let none = SolverConfig { independence: false, query_cache: false, cex_cache: false, ..all.clone() };
    let configs = [
        ("all", all.clone()),
        ("none", none.clone()),
        ("independence only", SolverConfig { independence: true, ..none.clone() }),
        ("query cache only", SolverConfig { query_cache: true, ..none.clone() }),
        ("cex cache only", SolverConfig { cex_cache: true, ..none.clone() }),
        ("all but independence", SolverConfig { independence: false, ..all.clone() }),
    ];
    for (name, config) in configs {
        let (s, elapsed, forks) = explore(config);
        let pct = |h: u64, l: u64| {
            if l == 0 { "-".to_string() } else { format!("{:.1}%", 100.0 * h as f64 / l as f64) }
        };
        println!(
            "| {name:<23} | {:>7} | {forks:>5} | {:>6} | {:>8} | {:>8.3} | {:>10.3} | {:>10} | {:>7} | {:>19} | {:>7.2} | {:>9.0} |",
            s.queries,
            s.checks,
            s.z3_calls(),
            s.z3_time_sat.as_secs_f64(),
            s.z3_time_unsat.as_secs_f64(),
            pct(s.query_cache.hits, s.query_cache.lookups),
            pct(s.cex_cache.hits, s.cex_cache.lookups),
            format!("{}/{}", s.constraints_kept, s.constraints_in),
            elapsed.as_secs_f64(),
            s.queries as f64 / elapsed.as_secs_f64(),
        );
    }
}

fn arrays() {
    println!("\nSymbolic-index reads (table lookups with symbolic stores), Z3 time\n");
    println!("| table bytes | queries | sat | z3 s |");
    println!("|-------------|---------|-----|------|");
    for k in [16u64, 64, 256, 1024] {
        let rng = &mut ChaCha8Rng::seed_from_u64(k);
        let mut pool = ExprPool::new();
        let x = pool.array("x", 8, 0);
        let table: Vec<u8> = (0..k).map(|_| rng.random()).collect();
        let t = pool.const_array(&table);
        let kk = pool.constant(64, k as u128);
        let idx = |pool: &mut ExprPool, i: u64| {
            let b = word(pool, x, i, 2);
            let z = pool.zext(b, 64);
            pool.urem(z, kk)
        };
        let mut solver = Solver::new(SolverConfig::default());
        let mut sat = 0;
        let queries = 40;
        for q in 0..queries {
            let i0 = idx(&mut pool, q % 6);
            let i1 = idx(&mut pool, (q + 2) % 6);
            let v = pool.read_input(x, 7);
            let stored = pool.store(t, i0, v);
            let r0 = pool.select(stored, i1);
            let r1 = pool.select(t, i0);
            let c = pool.constant(8, table[(q * 7 % k) as usize] as u128);
            let e0 = pool.eq(r0, c);
            let e1 = pool.ult(r1, r0);
            let e2 = pool.ne(i0, i1);
            if solver.check(&pool, &[e0, e1, e2]).unwrap().is_some() {
                sat += 1;
            }
        }
        println!("| {k:>11} | {queries:>7} | {sat:>3} | {:.3} |", solver.stats().z3_time().as_secs_f64());
    }
}

fn main() {
    // `cargo bench --bench expr_solver -- builder` (or `chain`) runs one table.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wants = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    if wants("builder") {
        builder();
    }
    if wants("chain") {
        chain();
    }
    if wants("arrays") {
        arrays();
    }
}
