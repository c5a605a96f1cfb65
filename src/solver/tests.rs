use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::expr::testgen::{BYTES, Tree};

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
    let (mut sat, mut unsat) = (0, 0);
    for _ in 0..200 {
        let n = rng.random_range(1..4);
        let cs: Vec<ExprId> = (0..n).map(|_| Tree::random(rng, 1, 4).build(&mut pool, x)).collect();
        match solver.check(&pool, &cs).unwrap() {
            Some(model) => {
                assert!(satisfies(&pool, &cs, &model), "model {model:?} fails");
                sat += 1;
            }
            None => unsat += 1,
        }
    }
    assert!(sat > 20 && unsat > 5, "{sat} sat, {unsat} unsat");
}
