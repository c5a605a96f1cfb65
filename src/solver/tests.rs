use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::expr::testgen::Tree;

const BYTES: u64 = 4;

fn word(pool: &mut ExprPool, x: ArrayId, start: u64, n: u64) -> ExprId {
    let mut w = pool.read_input(x, start);
    for i in 1..n {
        let b = pool.read_input(x, start + i);
        w = pool.concat(b, w);
    }
    w
}

fn satisfies(pool: &ExprPool, constraints: &[ExprId], model: &Assignment) -> bool {
    constraints.iter().all(|&c| pool.eval(c, model) == 1)
}

#[test]
fn solver_answers_basic_queries() {
    let mut pool = ExprPool::new();
    let x = pool.array("x", 4, 0);
    let mut solver = Solver::new(SolverConfig::default());
    let v = word(&mut pool, x, 0, 4);
    let k = |pool: &mut ExprPool, k: u128| pool.constant(32, k);
    let (c2, c5, c3, c7) = (k(&mut pool, 2), k(&mut pool, 5), k(&mut pool, 3), k(&mut pool, 7));
    let lt5 = pool.slt(v, c5);
    let gt2 = pool.sgt(v, c2);
    let pc = vec![lt5, gt2];
    let eq3 = pool.eq(v, c3);
    let eq7 = pool.eq(v, c7);
    assert!(solver.may_be_true(&pool, &pc, eq3).unwrap());
    assert!(!solver.may_be_true(&pool, &pc, eq7).unwrap());
    let lt7 = pool.slt(v, c7);
    assert!(solver.must_be_true(&pool, &pc, lt7).unwrap());
    assert!(!solver.must_be_true(&pool, &pc, eq3).unwrap());
    assert_eq!(solver.evaluate(&pool, &pc, lt7).unwrap(), Validity::True);
    assert_eq!(solver.evaluate(&pool, &pc, eq7).unwrap(), Validity::False);
    assert_eq!(solver.evaluate(&pool, &pc, eq3).unwrap(), Validity::Unknown);
    let value = solver.get_value(&pool, &pc, v).unwrap();
    assert!(value == 3 || value == 4, "{value}");
    let model = solver.check(&pool, &pc).unwrap().expect("satisfiable");
    assert!(satisfies(&pool, &pc, &model));
    let bytes = solver.get_model(&pool, &pc, &[x]).unwrap().expect("satisfiable");
    assert_eq!(bytes[0].len(), 4);
    let n = i32::from_le_bytes(bytes[0].clone().try_into().unwrap());
    assert!((3..5).contains(&n), "{n}");
    let contradiction = vec![lt5, gt2, eq7];
    assert_eq!(solver.check(&pool, &contradiction).unwrap(), None);
    assert_eq!(solver.get_model(&pool, &contradiction, &[x]).unwrap(), None);
    assert_eq!(solver.get_value(&pool, &contradiction, v), Err(SolverError::Infeasible));
}

#[test]
fn solver_rejects_non_boolean_conditions() {
    let mut pool = ExprPool::new();
    let x = pool.array("x", 1, 0);
    let b = pool.read_input(x, 0);
    let mut solver = Solver::new(SolverConfig::default());
    assert!(matches!(solver.may_be_true(&pool, &[], b), Err(SolverError::Unsupported(_))));
}

#[test]
fn solver_timeout_is_an_error_not_a_panic() {
    // Factoring a 64-bit semiprime with bit-vector multiplication: far beyond a 50 ms budget.
    let (p, q): (u64, u64) = (4_294_967_291, 4_294_967_279);
    let mut pool = ExprPool::new();
    let a = pool.array("a", 4, 0);
    let b = pool.array("b", 4, 1);
    let wa = word(&mut pool, a, 0, 4);
    let wb = word(&mut pool, b, 0, 4);
    let xa = pool.zext(wa, 64);
    let xb = pool.zext(wb, 64);
    let product = pool.mul(xa, xb);
    let n = pool.constant(64, (p as u128) * (q as u128));
    let one = pool.constant(64, 1);
    let is_n = pool.eq(product, n);
    let a_gt = pool.ugt(xa, one);
    let b_gt = pool.ugt(xb, one);
    let config = SolverConfig { timeout: Duration::from_millis(50), ..SolverConfig::default() };
    let mut solver = Solver::new(config);
    let result = solver.check(&pool, &[is_n, a_gt, b_gt]);
    assert_eq!(result, Err(SolverError::Timeout));
    assert_eq!(solver.stats().z3_timeouts, 1);
}

#[test]
fn solver_models_satisfy_random_constraints() {
    let rng = &mut ChaCha8Rng::seed_from_u64(3);
    let mut pool = ExprPool::new();
    let x = pool.array("x", BYTES, 0);
    let mut solver = Solver::new(SolverConfig::default());
    let (mut sat, mut unsat, mut timeouts) = (0, 0, 0);
    for _ in 0..200 {
        let n = rng.random_range(1..4);
        let cs: Vec<ExprId> = (0..n).map(|_| Tree::random(rng, 1, 4, BYTES).build(&mut pool, x)).collect();
        match solver.check(&pool, &cs) {
            Ok(Some(model)) => {
                assert!(satisfies(&pool, &cs, &model), "model {model:?} fails");
                sat += 1;
            }
            Ok(None) => unsat += 1,
            // A hard product on a loaded machine may take longer than the
            // timeout: an honest answer, not a wrong one.
            Err(SolverError::Timeout) => timeouts += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(sat > 20 && unsat > 5 && timeouts <= 5, "{sat} sat, {unsat} unsat, {timeouts} timeouts");
}

/// The tree encoded in Z3 directly, without the simplifier or our lowering; width 1 stays a bit-vector.
fn reference_z3(tree: &Tree, bytes: &[::z3::ast::BV]) -> ::z3::ast::BV {
    use crate::expr::{BinOp, CmpOp};
    use ::z3::ast::BV;
    let bit = |b: ::z3::ast::Bool| b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1));
    match tree {
        Tree::Byte(i) => bytes[*i as usize].clone(),
        Tree::Const(w, v) => {
            if *w <= 64 {
                BV::from_u64(*v as u64, *w)
            } else {
                BV::from_str(*w, &v.to_string()).unwrap()
            }
        }
        Tree::Not(a) => reference_z3(a, bytes).bvnot(),
        Tree::Bin(op, a, b) => {
            let (x, y) = (reference_z3(a, bytes), reference_z3(b, bytes));
            match op {
                BinOp::Add => x.bvadd(&y),
                BinOp::Sub => x.bvsub(&y),
                BinOp::Mul => x.bvmul(&y),
                BinOp::UDiv => x.bvudiv(&y),
                BinOp::SDiv => x.bvsdiv(&y),
                BinOp::URem => x.bvurem(&y),
                BinOp::SRem => x.bvsrem(&y),
                BinOp::And => x.bvand(&y),
                BinOp::Or => x.bvor(&y),
                BinOp::Xor => x.bvxor(&y),
                BinOp::Shl => x.bvshl(&y),
                BinOp::LShr => x.bvlshr(&y),
                BinOp::AShr => x.bvashr(&y),
            }
        }
        Tree::Cmp(op, _, a, b) => {
            let (x, y) = (reference_z3(a, bytes), reference_z3(b, bytes));
            bit(match op {
                CmpOp::Eq => x.eq(&y),
                CmpOp::Ult => x.bvult(&y),
                CmpOp::Ule => x.bvule(&y),
                CmpOp::Slt => x.bvslt(&y),
                CmpOp::Sle => x.bvsle(&y),
            })
        }
        Tree::Ite(c, t, e) => {
            let c = reference_z3(c, bytes).eq(BV::from_u64(1, 1));
            c.ite(&reference_z3(t, bytes), &reference_z3(e, bytes))
        }
        Tree::Concat(h, l) => reference_z3(h, bytes).concat(reference_z3(l, bytes)),
        Tree::Extract(a, o, w) => reference_z3(a, bytes).extract(o + w - 1, *o),
        Tree::ZExt(a, w) => reference_z3(a, bytes).zero_ext(w - a.width()),
        Tree::SExt(a, w) => reference_z3(a, bytes).sign_ext(w - a.width()),
    }
}

#[test]
fn simplified_and_lowered_trees_are_equivalent_in_z3() {
    // Proves, for every tree, that simplify-then-lower equals the direct encoding on *all* inputs.
    let rng = &mut ChaCha8Rng::seed_from_u64(5);
    let mut pool = ExprPool::new();
    let x = pool.array("x", BYTES, 0);
    let mut backend = backend::Z3Backend::default();
    backend.plain_divisions = true;
    let bytes: Vec<_> = (0..BYTES).map(|i| backend.byte_const(&pool, x, i)).collect();
    let (mut proved, mut unknown) = (0, 0);
    for round in 0..600 {
        let w = [1, 8, 16, 32, 3, 64][round % 6];
        let tree = Tree::random(rng, w, 4, BYTES);
        let e = tree.build(&mut pool, x);
        backend.lower(&pool, e);
        let ours = backend.bv(e);
        let reference = reference_z3(&tree, &bytes);
        let solver = ::z3::Solver::new();
        let mut params = ::z3::Params::new();
        params.set_u32("timeout", 2000);
        solver.set_params(&params);
        solver.assert(ours.eq(&reference).not());
        match solver.check() {
            ::z3::SatResult::Unsat => proved += 1,
            ::z3::SatResult::Unknown => unknown += 1,
            ::z3::SatResult::Sat => {
                let model = solver.get_model().unwrap();
                let inputs: Vec<_> = bytes.iter().map(|b| model.eval(b, true).unwrap().as_u64()).collect();
                panic!("tree {tree:?}\nsimplified {}\ndiffers on {inputs:?}", pool.display(e));
            }
        }
    }
    assert!(unknown <= 3, "{proved} proved, {unknown} unknown");
}

/// Every assignment of `n` bytes, as the brute-force ground truth.
fn all_inputs(n: usize) -> impl Iterator<Item = Vec<u8>> {
    (0..1u32 << (8 * n)).map(move |k| k.to_le_bytes()[..n].to_vec())
}

#[test]
fn solver_answers_match_brute_force() {
    const N: u64 = 2;
    let rng = &mut ChaCha8Rng::seed_from_u64(9);
    let mut pool = ExprPool::new();
    let x = pool.array("x", N, 0);
    let mut solver = Solver::new(SolverConfig::default());
    let (mut sat, mut unsat, mut forks) = (0, 0, 0);
    for _ in 0..120 {
        let n = rng.random_range(1..4);
        let trees: Vec<Tree> = (0..n).map(|_| Tree::random(rng, 1, 3, N)).collect();
        let query = Tree::random(rng, 1, 3, N);
        let cs: Vec<ExprId> = trees.iter().map(|t| t.build(&mut pool, x)).collect();
        let q = query.build(&mut pool, x);
        let (mut any_c, mut c_and_q, mut c_and_not_q) = (false, false, false);
        for input in all_inputs(N as usize) {
            if trees.iter().all(|t| t.eval(&input) == 1) {
                any_c = true;
                if query.eval(&input) == 1 {
                    c_and_q = true;
                } else {
                    c_and_not_q = true;
                }
            }
        }
        let model = solver.check(&pool, &cs).unwrap();
        assert_eq!(model.is_some(), any_c, "check of {trees:?}");
        if let Some(m) = &model {
            assert!(satisfies(&pool, &cs, m));
            sat += 1;
        } else {
            unsat += 1;
            continue;
        }
        // The path-condition queries assume satisfiable constraints, as the executor guarantees.
        let want = match (c_and_q, c_and_not_q) {
            (true, true) => Validity::Unknown,
            (true, false) => Validity::True,
            (false, _) => Validity::False,
        };
        forks += (want == Validity::Unknown) as u32;
        assert_eq!(solver.evaluate(&pool, &cs, q).unwrap(), want, "{trees:?} ⊢ {query:?}");
        assert_eq!(solver.may_be_true(&pool, &cs, q).unwrap(), c_and_q);
        assert_eq!(solver.must_be_true(&pool, &cs, q).unwrap(), !c_and_not_q);
        let qw = Tree::random(rng, 16, 3, N);
        let e = qw.build(&mut pool, x);
        let v = solver.get_value(&pool, &cs, e).unwrap();
        let feasible =
            all_inputs(N as usize).any(|i| trees.iter().all(|t| t.eval(&i) == 1) && qw.eval(&i) == v);
        assert!(feasible, "{v} is not a value of {qw:?} under {trees:?}");
    }
    assert!(sat > 30 && unsat > 10 && forks > 10, "{sat} sat, {unsat} unsat, {forks} forks");
}

/// What one run of the branching workload answered.
#[derive(Debug, PartialEq)]
enum Outcome {
    Branch(Validity),
    Check(bool),
}

/// A synthetic exploration: paths fork on random conditions, as an executor's would, and each new
/// path condition is checked. Returns the answers and the solver's statistics.
fn explore(config: SolverConfig, seed: u64) -> (Vec<Outcome>, SolverStats) {
    const N: u64 = 6;
    let rng = &mut ChaCha8Rng::seed_from_u64(seed);
    let mut pool = ExprPool::new();
    let x = pool.array("x", N, 0);
    let mut solver = Solver::new(config);
    let mut paths: Vec<Vec<ExprId>> = vec![Vec::new()];
    let mut outcomes = Vec::new();
    for _ in 0..300 {
        let i = rng.random_range(0..paths.len());
        let cond = Tree::random(rng, 1, 2, N).build(&mut pool, x);
        let pc = paths[i].clone();
        let v = solver.evaluate(&pool, &pc, cond).unwrap();
        outcomes.push(Outcome::Branch(v));
        match v {
            Validity::True | Validity::False => {}
            Validity::Unknown => {
                let not = pool.bool_not(cond);
                let mut other = pc.clone();
                other.push(not);
                paths[i].push(cond);
                for p in [&paths[i], &other] {
                    let model = solver.check(&pool, p).unwrap();
                    if let Some(m) = &model {
                        assert!(satisfies(&pool, p, m));
                    }
                    outcomes.push(Outcome::Check(model.is_some()));
                }
                paths.push(other);
                if paths.len() > 24 {
                    paths.swap_remove(rng.random_range(0..paths.len()));
                }
            }
        }
    }
    (outcomes, solver.stats().clone())
}

#[test]
fn solver_caches_change_costs_not_answers() {
    let all = SolverConfig::default();
    let none = SolverConfig { independence: false, query_cache: false, cex_cache: false, ..all.clone() };
    for seed in 0..2 {
        let (want, plain) = explore(none.clone(), seed);
        let (got, stats) = explore(all.clone(), seed);
        assert_eq!(got, want, "all layers on, seed {seed}");
        for config in [
            SolverConfig { independence: true, ..none.clone() },
            SolverConfig { query_cache: true, ..none.clone() },
            SolverConfig { cex_cache: true, ..none.clone() },
        ] {
            assert_eq!(explore(config.clone(), seed).0, want, "{config:?}, seed {seed}");
        }
        assert_eq!(plain.query_cache.lookups + plain.cex_cache.lookups, 0);
        assert!(stats.query_cache.hits > 0 && stats.cex_cache.hits > 0, "{stats}");
        assert!(stats.constraints_kept < stats.constraints_in, "{stats}");
        assert!(stats.z3_calls() < plain.z3_calls(), "{} vs {} Z3 calls", stats.z3_calls(), plain.z3_calls());
        assert_eq!(stats.z3_calls(), stats.z3_sat + stats.z3_unsat);
        // Every check that reached Z3 missed both caches first.
        let reached = stats.checks - stats.query_cache.hits - stats.cex_cache.hits;
        assert!(stats.z3_calls() <= reached);
    }
}

#[test]
fn solver_symbolic_index_reads_match_brute_force() {
    // Memory with symbolic indices: a constant table and the input itself, with symbolic stores;
    // the solver's answers are checked against `eval` on every one of the 2^16 inputs.
    let rng = &mut ChaCha8Rng::seed_from_u64(21);
    let mut pool = ExprPool::new();
    let x = pool.array("x", 2, 0);
    let mut solver = Solver::new(SolverConfig::default());
    let table: Vec<u8> = (0..8).map(|_| rng.random_range(0..4)).collect();
    let (mut sat, mut unsat) = (0, 0);
    for _ in 0..60 {
        let index = |pool: &mut ExprPool, rng: &mut ChaCha8Rng| {
            if rng.random_bool(0.2) {
                return pool.constant(64, rng.random_range(0..9));
            }
            let b = pool.read_input(x, rng.random_range(0..2));
            let z = pool.zext(b, 64);
            let m = pool.constant(64, rng.random_range(2..10));
            pool.urem(z, m)
        };
        let mut arr = if rng.random_bool(0.5) { pool.const_array(&table) } else { pool.input_array(x) };
        for _ in 0..rng.random_range(0..3) {
            let i = index(&mut pool, rng);
            let v = pool.read_input(x, rng.random_range(0..2));
            arr = pool.store(arr, i, v);
        }
        let mut cs = Vec::new();
        for _ in 0..rng.random_range(1..3) {
            let i = index(&mut pool, rng);
            let r = pool.select(arr, i);
            let c = pool.constant(8, rng.random_range(0..6));
            cs.push(if rng.random_bool(0.5) { pool.eq(r, c) } else { pool.ult(r, c) });
        }
        let truth = all_inputs(2).any(|input| {
            let mut a = Assignment::new();
            a.set_bytes(x, &input);
            satisfies(&pool, &cs, &a)
        });
        let model = solver.check(&pool, &cs).unwrap();
        assert_eq!(
            model.is_some(),
            truth,
            "{}",
            cs.iter().map(|&c| pool.display(c).to_string()).collect::<Vec<_>>().join(" ∧ ")
        );
        match model {
            Some(m) => {
                assert!(satisfies(&pool, &cs, &m));
                sat += 1;
            }
            None => unsat += 1,
        }
    }
    assert!(sat > 10 && unsat > 5, "{sat} sat, {unsat} unsat");
}

#[test]
fn division_by_a_constant_is_defined_exactly() {
    use crate::expr::BinOp;
    use crate::expr::fold::{binary, mask};
    use ::z3::ast::{Ast, BV, Bool};
    use ::z3::{SatResult, Solver};
    // The definition must force C's quotient and remainder (exact) and admit them (never rule an
    // input out). Both are proved for every dividend at 8 bits. Wider, where a proof would pit a
    // divider circuit against a multiplier, the true quotient and remainder of boundary and random
    // dividends must satisfy it.
    let rng = &mut ChaCha8Rng::seed_from_u64(3);
    let mut pool = ExprPool::new();
    let x = pool.array("x", 8, 0);
    let mut backend = backend::Z3Backend::default();
    let bytes: Vec<BV> = (0..8).map(|i| backend.byte_const(&pool, x, i)).collect();
    let mut cases = 0;
    for w in [8u32, 16, 32, 64] {
        let dividend = word(&mut pool, x, 0, u64::from(w / 8));
        let min = 1u128 << (w - 1);
        for c in [2, 3, 7, 10, 100, min - 1, min, min + 1, mask(w) - 9, mask(w) - 1] {
            for (div, rem) in [(BinOp::SDiv, BinOp::SRem), (BinOp::UDiv, BinOp::URem)] {
                let k = pool.constant(w, c);
                let (q, r) = (pool.binary(div, dividend, k), pool.binary(rem, dividend, k));
                if !matches!(*pool.node(q), crate::expr::Node::Bin { op, .. } if op == div) {
                    continue; // by a power of two: a shift, not the encoding's business
                }
                backend.lower(&pool, q);
                backend.lower(&pool, r);
                let definitions = backend.definitions(&pool, [q, r]);
                assert_eq!(definitions.len(), 1, "{div:?} by {c} at {w} bits");
                let defined = &definitions[0];
                let (ours_q, ours_r) = (backend.bv(q), backend.bv(r));
                if w == 8 {
                    let (a, b) = (backend.bv(dividend), backend.bv(k));
                    let (z3_q, z3_r) = if div == BinOp::SDiv {
                        (a.bvsdiv(&b), a.bvsrem(&b))
                    } else {
                        (a.bvudiv(&b), a.bvurem(&b))
                    };
                    let unsat = |claim: Bool| {
                        let solver = Solver::new();
                        solver.assert(&claim);
                        solver.check() == SatResult::Unsat
                    };
                    let differs = Bool::or(&[ours_q.eq(&z3_q).not(), ours_r.eq(&z3_r).not()]);
                    assert!(
                        unsat(Bool::and(&[defined.clone(), differs])),
                        "{div:?} by {c} at {w} bits: not exact"
                    );
                    let admits = defined.substitute(&[(&ours_q, &z3_q), (&ours_r, &z3_r)]);
                    assert!(unsat(admits.not()), "{div:?} by {c} at {w} bits: rules some dividend out");
                }
                let mut values = vec![0, 1, 9, 10, 11, min - 1, min, min + 1, mask(w) - 10, mask(w)];
                values.extend((0..20).map(|_| rng.random::<u128>() & mask(w)));
                for v in values {
                    let constant = |n: u128| BV::from_str(w, &n.to_string()).unwrap();
                    let (want_q, want_r) = (constant(binary(div, v, c, w)), constant(binary(rem, v, c, w)));
                    let input: Vec<BV> =
                        (0..w / 8).map(|i| BV::from_u64((v >> (8 * i)) as u64 & 0xff, 8)).collect();
                    let mut pairs: Vec<(&BV, &BV)> = bytes.iter().zip(&input).collect();
                    pairs.extend([(&ours_q, &want_q), (&ours_r, &want_r)]);
                    let holds = defined.substitute(&pairs).simplify().as_bool();
                    assert_eq!(holds, Some(true), "{div:?} by {c} at {w} bits rules out {v}");
                }
                cases += 1;
            }
        }
    }
    assert!(cases >= 60, "{cases} cases");
}

#[test]
fn logged_queries_read_back_give_the_same_answers() {
    use ::z3::SatResult;
    // Divisions by constants bring the fresh quotients and their definitions into the file: the
    // file must declare and assert those too to stand on its own.
    let dir = tempfile::tempdir().unwrap();
    let mut pool = ExprPool::new();
    let x = pool.array("x", 4, 0);
    let mut solver = Solver::new(SolverConfig::default());
    solver.z3.log = Some(query_log::QueryLog::new(dir.path().to_path_buf(), Duration::ZERO));
    let v = word(&mut pool, x, 0, 4);
    let (ten, seven, three, minus_three) = (
        pool.constant(32, 10),
        pool.constant(32, 7),
        pool.constant(32, 3),
        pool.constant(32, u32::MAX as u128 - 2),
    );
    let (q, r) = (pool.sdiv(v, ten), pool.srem(v, ten));
    let q_is_7 = pool.eq(q, seven);
    let (r_is_3, r_is_minus_3) = (pool.eq(r, three), pool.eq(r, minus_three));
    assert!(solver.may_be_true(&pool, &[q_is_7], r_is_3).unwrap());
    assert!(!solver.may_be_true(&pool, &[q_is_7], r_is_minus_3).unwrap());
    let mut answers = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let logged = name.split('-').nth(1).unwrap().to_owned();
        let reread = ::z3::Solver::new();
        reread.from_string(std::fs::read_to_string(&path).unwrap());
        let again = match reread.check() {
            SatResult::Sat => "sat",
            SatResult::Unsat => "unsat",
            SatResult::Unknown => "unknown",
        };
        assert_eq!(again, logged, "{name}");
        answers.push(logged);
    }
    answers.sort();
    assert_eq!(answers, ["sat", "unsat"]);
}
