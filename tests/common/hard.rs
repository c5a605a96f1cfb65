//! The hard ground-truth corpus (`fixtures/hard/`): its sets and their
//! truth, for `tests/hard_truth.rs` and `benches/hard.rs`.

use std::path::{Path, PathBuf};

use super::handwritten::Case;
use super::sweep::{Dim, Sweep};
use super::{corpus, partition};

/// The `klee_make_symbolic` objects, in call order: the domain is every
/// combination of their values.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    pub objects: Vec<Dim>,
}

pub struct Set {
    pub case: Case<Domain>,
    pub revisions: Vec<PathBuf>,
    pub truth: Sweep,
    pub partition: Vec<Vec<usize>>,
}

pub fn set_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hard").join(name)
}

impl Set {
    /// The set with its truth, swept once per test process.
    pub fn load(name: &str) -> std::sync::Arc<Set> {
        super::once_per_process(&format!("hard/{name}"), || Set::sweep(name))
    }

    fn sweep(name: &str) -> Set {
        let dir = set_dir(name);
        let case = Case::<Domain>::load(&dir);
        let revisions = corpus::revisions(&dir);
        let truth = Sweep::run(&revisions, &case.domain.objects);
        let outside = (0..truth.len())
            .find(|&i| truth.outcome(0, i).1 == Some(psychic::runtime::STATUS_ASSUME_VIOLATED));
        if let Some(i) = outside {
            panic!("{name}: input {:?} of the declared domain violates klee_assume", truth.input(i).objects);
        }
        let partition = partition(&truth.rows);
        Set { case, revisions, truth, partition }
    }
}

pub const SETS: &[&str] =
    &["isqrt", "fraction", "calendar", "invoice", "loan", "change", "exchange", "decimal"];
