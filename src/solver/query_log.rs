//! An opt-in log of the slow Z3 calls, to study the hard queries apart from a run (for instance to
//! time other solvers on them). `PSYCHIC_QUERY_LOG=DIR` turns it on; every call that takes at least
//! `PSYCHIC_QUERY_LOG_MS` milliseconds (100 unless set), timeouts included, becomes one file
//! `DIR/NNNNNN-ANSWER-MSms.smt2` that any SMT-LIB2 solver reads on its own. The solver layer does not
//! know why a query was asked (branch, differential, seed), so the name does not say.
//!
//! Z3 prints the query (`Solver::to_smt2`): a hand-written printer could drift from what Z3 was
//! actually given.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Numbers the files of every solver of the process, so two solvers never write the same name.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

pub(super) struct QueryLog {
    dir: PathBuf,
    threshold: Duration,
}

impl QueryLog {
    /// The log the environment asks for, if any.
    pub fn from_env() -> Option<QueryLog> {
        let dir = PathBuf::from(std::env::var_os("PSYCHIC_QUERY_LOG").filter(|v| !v.is_empty())?);
        let ms =
            std::env::var("PSYCHIC_QUERY_LOG_MS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(100);
        Some(QueryLog::new(dir, Duration::from_millis(ms)))
    }

    pub fn new(dir: PathBuf, threshold: Duration) -> QueryLog {
        QueryLog { dir, threshold }
    }

    /// Whether a call that took `elapsed` is logged.
    pub fn wants(&self, elapsed: Duration) -> bool {
        elapsed >= self.threshold
    }

    /// Writes one query. `answer` is `sat`, `unsat`, `timeout` or `unknown`. A failure to write
    /// is reported and otherwise ignored: the log must never change a run's outcome.
    pub fn write(&self, logic: &str, smt2: &str, answer: &str, elapsed: Duration, timeout: Duration) {
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let ms = elapsed.as_millis();
        let path = self.dir.join(format!("{seq:06}-{answer}-{ms}ms.smt2"));
        // `to_smt2` leaves the logic out; stating it lets every solver pick its bit-vector engine.
        // Z3's `QF_FPBV` is not a standard name, and its float terms may bring uninterpreted
        // functions (`k!N`, the unspecified results of conversions): `ALL` is what every solver reads.
        let logic = if logic == "QF_BV" { logic } else { "ALL" };
        let mut smt2 = smt2.to_owned();
        // Z3 prints the division by a divisor it knows to be nonzero under an internal name that
        // no solver, Z3 included, parses back; on such divisors the standard operator agrees.
        for op in ["bvudiv", "bvurem", "bvsdiv", "bvsrem", "bvsmod"] {
            smt2 = smt2.replace(&format!("({op}_i "), &format!("({op} "));
        }
        let text = format!(
            "; psychic query {seq}: Z3 {} answered {answer} in {ms} ms (timeout {} ms)\n(set-logic {logic})\n{smt2}",
            z3::full_version(),
            timeout.as_millis()
        );
        if let Err(e) = std::fs::create_dir_all(&self.dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("psychic: warning: query log: {}: {e}", path.display());
        }
    }
}
