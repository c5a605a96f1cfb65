//! The solver chain in front of Z3, KLEE-style.
//!
//! Every satisfiability check goes, in order, through:
//! 1. **independence**: only the constraints that share an input byte with the query (transitively)
//!    are kept; `check` splits the constraints into independent groups and solves each;
//! 2. the **query cache**: exact answers keyed by the sorted literal set (cheapest, so first);
//! 3. the **counterexample cache**: unsatisfiable subsets and recent models tried by evaluation;
//! 4. **Z3**, with a per-query timeout.
//!
//! Models are completed with 0 for every byte the query does not read, and restricted to the bytes it
//! does read, so that answers do not depend on which earlier query produced a model.
//!
//! `may_be_true`, `must_be_true`, `evaluate` and `get_value` assume, as KLEE does, that the constraints
//! themselves are satisfiable (they are a feasible path condition), which is what lets independence drop
//! unrelated constraints. `check` and `get_model` assume nothing.
//!
//! Between the counterexample cache and Z3, queries over floats only go through
//! **float sampling** (`sample.rs`): candidate models checked by evaluation. Z3
//! gets a per-query timeout never past the run's deadline
//! (`Solver::set_deadline`, the end of `--max-time`): a query gets at most the
//! time left, and none starts after it (a `Timeout`, counted in
//! `past_deadline`; the executor ends the state as the budget's, not as a
//! solver failure).
//!
//! Queries are sets of literals sorted by id, so answers do not depend on
//! constraint order. A timeout, an unknown or a malformed query is a
//! `SolverError`, never a panic. Caches hold ids of one pool: a solver used
//! with another pool starts over. `SolverStats` counts queries per layer, hits,
//! and Z3 calls and time per outcome.

mod backend;
mod cache;
mod float;
mod independence;
mod query_log;
mod sample;
#[cfg(test)]
mod tests;

use std::fmt;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::expr::{ArrayId, Assignment, ExprId, ExprPool};
use cache::{Answer, CexCache, QueryCache};
use independence::VarIndex;

#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Z3's time limit for one query.
    pub timeout: Duration,
    pub independence: bool,
    pub query_cache: bool,
    pub cex_cache: bool,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            timeout: Duration::from_secs(10),
            independence: true,
            query_cache: true,
            cex_cache: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    #[error("solver timeout")]
    Timeout,
    #[error("the solver gave up: {0}")]
    Unknown(String),
    #[error("unsupported by the solver: {0}")]
    Unsupported(String),
    /// `get_value` on constraints that have no solution.
    #[error("the constraints are unsatisfiable")]
    Infeasible,
}

/// The answer to KLEE's `evaluate`: whether a condition holds on every, no, or some solutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Validity {
    True,
    False,
    /// Both outcomes are possible: a symbolic branch forks.
    Unknown,
}

/// Hit counts of one cache layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub lookups: u64,
    pub hits: u64,
}

/// What the solver did, per layer. Z3 time is split by outcome, since unsatisfiable queries are the
/// ones that prune paths and tend to cost the most.
#[derive(Clone, Debug, Default)]
pub struct SolverStats {
    /// Calls of the public API.
    pub queries: u64,
    /// Calls answered without a satisfiability check (constant condition, literal among the constraints).
    pub trivial: u64,
    /// Satisfiability checks that entered the chain.
    pub checks: u64,
    /// Constraints seen by the independence layer, and those it kept.
    pub constraints_in: u64,
    pub constraints_kept: u64,
    pub query_cache: CacheStats,
    pub cex_cache: CacheStats,
    /// Floating-point queries tried on sampled models before Z3, and those a sample satisfied.
    pub float_samples: CacheStats,
    pub z3_sat: u64,
    pub z3_unsat: u64,
    pub z3_timeouts: u64,
    pub z3_unknown: u64,
    /// Queries refused because the deadline had passed (no Z3 call).
    pub past_deadline: u64,
    pub z3_time_sat: Duration,
    pub z3_time_unsat: Duration,
    pub z3_time_failed: Duration,
    /// Wall time inside the solver, all layers.
    pub total_time: Duration,
}

impl SolverStats {
    pub fn z3_calls(&self) -> u64 {
        self.z3_sat + self.z3_unsat + self.z3_timeouts + self.z3_unknown
    }

    pub fn z3_time(&self) -> Duration {
        self.z3_time_sat + self.z3_time_unsat + self.z3_time_failed
    }
}

impl fmt::Display for SolverStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate =
            |c: CacheStats| if c.lookups == 0 { 0.0 } else { 100.0 * c.hits as f64 / c.lookups as f64 };
        writeln!(f, "queries: {} ({} trivial, {} checks)", self.queries, self.trivial, self.checks)?;
        writeln!(f, "independence: kept {} of {} constraints", self.constraints_kept, self.constraints_in)?;
        let (q, c) = (self.query_cache, self.cex_cache);
        writeln!(f, "query cache: {} hits of {} ({:.1}%)", q.hits, q.lookups, rate(q))?;
        writeln!(f, "cex cache: {} hits of {} ({:.1}%)", c.hits, c.lookups, rate(c))?;
        let s = self.float_samples;
        writeln!(f, "float sampling: {} hits of {} ({:.1}%)", s.hits, s.lookups, rate(s))?;
        writeln!(
            f,
            "z3: {} calls, {} sat in {:.3}s, {} unsat in {:.3}s, {} timeouts, {} unknown",
            self.z3_calls(),
            self.z3_sat,
            self.z3_time_sat.as_secs_f64(),
            self.z3_unsat,
            self.z3_time_unsat.as_secs_f64(),
            self.z3_timeouts,
            self.z3_unknown
        )?;
        write!(f, "solver time: {:.3}s", self.total_time.as_secs_f64())
    }
}

/// A variable a query can read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Var {
    Revision,
    Byte(ArrayId, u64),
    /// Every byte of an input read at a symbolic index.
    Array(ArrayId),
}

/// A width-1 expression or its negation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
struct Lit {
    expr: ExprId,
    negated: bool,
}

impl Lit {
    fn pos(expr: ExprId) -> Lit {
        Lit { expr, negated: false }
    }

    fn neg(expr: ExprId) -> Lit {
        Lit { expr, negated: true }
    }
}

/// The chain. Single-threaded: the engine owns one pool and one solver.
pub struct Solver {
    config: SolverConfig,
    /// The pool whose ids the caches hold; another pool clears them.
    pool_uid: Option<u64>,
    vars: VarIndex,
    query_cache: QueryCache,
    cex_cache: CexCache,
    z3: backend::Z3Backend,
    stats: SolverStats,
    /// No Z3 call runs past this instant: the run's budget.
    deadline: Option<Instant>,
}

impl Solver {
    pub fn new(config: SolverConfig) -> Self {
        let mut z3 = backend::Z3Backend::default();
        z3.log = query_log::QueryLog::from_env();
        Solver {
            config,
            pool_uid: None,
            vars: VarIndex::default(),
            query_cache: QueryCache::default(),
            cex_cache: CexCache::default(),
            z3,
            stats: SolverStats::default(),
            deadline: None,
        }
    }

    /// From now on a Z3 call gets at most the time left until `deadline`,
    /// and none starts after it (a `Timeout`, counted in `past_deadline`).
    pub fn timeout(&self) -> Duration {
        self.config.timeout
    }

    /// Sets the timeout of one Z3 call; returns the one it replaces.
    pub fn set_timeout(&mut self, timeout: Duration) -> Duration {
        std::mem::replace(&mut self.config.timeout, timeout)
    }

    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    pub fn stats(&self) -> &SolverStats {
        &self.stats
    }

    /// Whether `constraints ∧ cond` is satisfiable.
    pub fn may_be_true(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        cond: ExprId,
    ) -> Result<bool, SolverError> {
        self.timed(pool, constraints, Some(cond), |s| s.feasible(pool, constraints, Lit::pos(cond)))
    }

    /// Whether `cond` holds on every solution of `constraints`.
    pub fn must_be_true(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        cond: ExprId,
    ) -> Result<bool, SolverError> {
        self.timed(pool, constraints, Some(cond), |s| Ok(!s.feasible(pool, constraints, Lit::neg(cond))?))
    }

    /// KLEE's `evaluate`: one call at a symbolic branch decides whether it forks.
    pub fn evaluate(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        cond: ExprId,
    ) -> Result<Validity, SolverError> {
        self.timed(pool, constraints, Some(cond), |s| {
            if !s.feasible(pool, constraints, Lit::pos(cond))? {
                return Ok(Validity::False);
            }
            if !s.feasible(pool, constraints, Lit::neg(cond))? {
                return Ok(Validity::True);
            }
            Ok(Validity::Unknown)
        })
    }

    /// One value `e` can take on a solution of `constraints`.
    pub fn get_value(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        e: ExprId,
    ) -> Result<u128, SolverError> {
        self.timed(pool, constraints, None, |s| {
            if let Some(v) = pool.as_const(e) {
                s.stats.trivial += 1;
                return Ok(v);
            }
            let vars = s.vars.vars(pool, e);
            let lits = s.relevant(pool, constraints, vars, None);
            match s.solve(pool, lits)? {
                Some(model) => Ok(pool.eval(e, &model)),
                None => Err(SolverError::Infeasible),
            }
        })
    }

    /// The bytes of each of `arrays` in one solution of `constraints`, `None` if there is none
    /// (KLEE's `getInitialValues`). Bytes no constraint reads are 0.
    pub fn get_model(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        arrays: &[ArrayId],
    ) -> Result<Option<Vec<Vec<u8>>>, SolverError> {
        let model = self.check(pool, constraints)?;
        Ok(model.map(|m| arrays.iter().map(|&a| m.bytes_padded(a, pool.array_info(a).size)).collect()))
    }

    /// Whether `constraints` are satisfiable, with a model if they are. Every independent group of
    /// constraints is solved (and cached) on its own.
    pub fn check(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
    ) -> Result<Option<Assignment>, SolverError> {
        self.timed(pool, constraints, None, |s| {
            let mut live = Vec::with_capacity(constraints.len());
            for &c in constraints {
                match pool.as_const(c) {
                    Some(0) => return Ok(None),
                    Some(_) => {}
                    None => live.push(c),
                }
            }
            let groups: Vec<Vec<Lit>> = if s.config.independence {
                let items: Vec<_> = live.iter().map(|&c| s.vars.vars(pool, c)).collect();
                let comps = independence::components(&items);
                let mut groups: Vec<Vec<Lit>> = Vec::new();
                let mut group_of = rustc_hash::FxHashMap::default();
                for (i, &c) in live.iter().enumerate() {
                    let g = *group_of.entry(comps[i]).or_insert_with(|| {
                        groups.push(Vec::new());
                        groups.len() - 1
                    });
                    groups[g].push(Lit::pos(c));
                }
                groups
            } else {
                vec![live.iter().map(|&c| Lit::pos(c)).collect()]
            };
            s.stats.constraints_in += live.len() as u64;
            s.stats.constraints_kept += live.len() as u64;
            let mut model = Assignment::new();
            for group in groups {
                match s.solve(pool, group)? {
                    Some(m) => model.merge(&m),
                    None => return Ok(None),
                }
            }
            Ok(Some(model))
        })
    }

    /// Runs one API call: pool check, argument check, counting and timing.
    fn timed<T>(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        cond: Option<ExprId>,
        f: impl FnOnce(&mut Self) -> Result<T, SolverError>,
    ) -> Result<T, SolverError> {
        let start = Instant::now();
        self.stats.queries += 1;
        if self.pool_uid != Some(pool.uid()) {
            self.pool_uid = Some(pool.uid());
            self.vars.clear();
            self.query_cache.clear();
            self.cex_cache.clear();
            self.z3.clear();
        }
        if let Some(&bad) = constraints.iter().chain(cond.iter()).find(|&&c| pool.width(c) != 1) {
            return Err(SolverError::Unsupported(format!(
                "a condition must have width 1, not {}: {}",
                pool.width(bad),
                pool.display(bad)
            )));
        }
        let result = f(self);
        self.stats.total_time += start.elapsed();
        result
    }

    /// Whether `constraints ∧ lit` is satisfiable, assuming `constraints` are.
    fn feasible(&mut self, pool: &ExprPool, constraints: &[ExprId], lit: Lit) -> Result<bool, SolverError> {
        if let Some(v) = pool.as_const(lit.expr) {
            self.stats.trivial += 1;
            return Ok((v == 1) != lit.negated);
        }
        if constraints.contains(&lit.expr) {
            self.stats.trivial += 1;
            return Ok(!lit.negated);
        }
        let vars = self.vars.vars(pool, lit.expr);
        let lits = self.relevant(pool, constraints, vars, Some(lit));
        Ok(self.solve(pool, lits)?.is_some())
    }

    /// The constraints that share variables with `vars`, transitively, plus `extra`, as a sorted set.
    fn relevant(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        vars: Rc<[Var]>,
        extra: Option<Lit>,
    ) -> Vec<Lit> {
        let constraints: Vec<ExprId> = constraints.iter().copied().filter(|&c| !pool.is_const(c)).collect();
        self.stats.constraints_in += constraints.len() as u64;
        let mut lits: Vec<Lit> = if self.config.independence {
            let mut items: Vec<Rc<[Var]>> = constraints.iter().map(|&c| self.vars.vars(pool, c)).collect();
            items.push(vars);
            let comps = independence::components(&items);
            let target = comps[constraints.len()];
            constraints.iter().zip(&comps).filter(|&(_, &k)| k == target).map(|(&c, _)| Lit::pos(c)).collect()
        } else {
            constraints.iter().map(|&c| Lit::pos(c)).collect()
        };
        self.stats.constraints_kept += lits.len() as u64;
        lits.extend(extra);
        lits.sort_unstable();
        lits.dedup();
        lits
    }

    /// The chain below independence, for one sorted literal set.
    fn solve(&mut self, pool: &ExprPool, lits: Vec<Lit>) -> Result<Answer, SolverError> {
        self.stats.checks += 1;
        if lits.is_empty() {
            return Ok(Some(Rc::new(Assignment::new())));
        }
        if self.config.query_cache {
            self.stats.query_cache.lookups += 1;
            if let Some(answer) = self.query_cache.get(&lits) {
                self.stats.query_cache.hits += 1;
                return Ok(answer);
            }
        }
        let mut vars: Vec<Var> = Vec::new();
        for lit in &lits {
            vars.extend(self.vars.vars(pool, lit.expr).iter());
        }
        vars.sort_unstable();
        vars.dedup();
        if self.config.cex_cache {
            self.stats.cex_cache.lookups += 1;
            if let Some(answer) = self.cex_cache.lookup(pool, &lits) {
                self.stats.cex_cache.hits += 1;
                let answer = answer.map(|m| Rc::new(project(pool, &m, &vars)));
                if self.config.query_cache {
                    self.query_cache.insert(&lits, answer.clone());
                }
                return Ok(answer);
            }
        }
        if lits.iter().any(|lit| pool.mentions_float(lit.expr)) {
            self.stats.float_samples.lookups += 1;
            let bases = self.cex_cache.recent(4);
            let bases: Vec<&Assignment> = bases.iter().map(|m| m.as_ref()).collect();
            if let Some(model) = sample::sample(pool, &lits, &vars, &bases) {
                self.stats.float_samples.hits += 1;
                let answer = Some(Rc::new(project(pool, &model, &vars)));
                if self.config.query_cache {
                    self.query_cache.insert(&lits, answer.clone());
                }
                if self.config.cex_cache {
                    self.cex_cache.insert(&lits, &answer);
                }
                return Ok(answer);
            }
        }
        let timeout = match self.deadline {
            None => self.config.timeout,
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => left.min(self.config.timeout),
                _ => {
                    self.stats.past_deadline += 1;
                    return Err(SolverError::Timeout);
                }
            },
        };
        let checked = self.z3.check(pool, &lits, &vars, timeout);
        let answer = match checked.model {
            Ok(Some(model)) => {
                self.stats.z3_sat += 1;
                self.stats.z3_time_sat += checked.elapsed;
                Some(Rc::new(model))
            }
            Ok(None) => {
                self.stats.z3_unsat += 1;
                self.stats.z3_time_unsat += checked.elapsed;
                None
            }
            Err(e) => {
                match e {
                    SolverError::Timeout => self.stats.z3_timeouts += 1,
                    _ => self.stats.z3_unknown += 1,
                }
                self.stats.z3_time_failed += checked.elapsed;
                return Err(e);
            }
        };
        if self.config.query_cache {
            self.query_cache.insert(&lits, answer.clone());
        }
        if self.config.cex_cache {
            self.cex_cache.insert(&lits, &answer);
        }
        Ok(answer)
    }
}

/// `model` restricted to `vars`, other bytes 0.
fn project(pool: &ExprPool, model: &Assignment, vars: &[Var]) -> Assignment {
    let mut out = Assignment::new();
    for &var in vars {
        match var {
            Var::Revision => {
                if let Some(r) = model.revision() {
                    out.set_revision(r);
                }
            }
            Var::Byte(a, i) => out.set_byte(a, i, model.byte(a, i)),
            Var::Array(a) => out.set_bytes(a, &model.bytes_padded(a, pool.array_info(a).size)),
        }
    }
    out
}
