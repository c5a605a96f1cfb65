//! Exhaustive truth over large domains (the hard corpus, `fixtures/hard/`):
//! every revision's own file built natively with the in-process sweep
//! (`sweep.c`) in place of psychic's replay runtime and run on every input
//! of a box of integers. A million inputs take seconds this way, where a
//! fork per input ([`super::native_outcomes`]) takes minutes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use psychic::ktest::{KTest, Object};

use super::{NativeOutcome, clang_with, par_map, parse_forkserver, support_object};

/// One `klee_make_symbolic` object: a little-endian integer of `width`
/// bytes that takes every value from `lo` to `hi`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dim {
    pub name: String,
    pub width: usize,
    pub lo: i64,
    pub hi: i64,
}

impl Dim {
    fn size(&self) -> usize {
        (self.hi - self.lo + 1) as usize
    }
}

/// Every revision's behaviour on every input of a domain.
pub struct Sweep {
    pub dims: Vec<Dim>,
    /// `[revision][input]`: an index into `outcomes`, so that a million
    /// inputs of a few distinct behaviours take 4 bytes each.
    pub rows: Vec<Vec<u32>>,
    pub outcomes: Vec<NativeOutcome>,
}

/// `sweep.c` as an object file, built once.
fn sweep_object() -> &'static Path {
    static OBJ: OnceLock<(PathBuf, tempfile::TempDir)> = OnceLock::new();
    &OBJ.get_or_init(|| support_object("sweep.c", include_str!("sweep.c"))).0
}

impl Sweep {
    /// Builds each of `revisions` (C files) with the sweep and runs it on
    /// every input of `dims`, in call order.
    pub fn run(revisions: &[PathBuf], dims: &[Dim]) -> Sweep {
        let dir = tempfile::tempdir().unwrap();
        let obj = sweep_object().to_str().unwrap();
        let domain: Vec<String> =
            dims.iter().map(|d| format!("{}:{}:{}:{}", d.name, d.width, d.lo, d.hi)).collect();
        let size: usize = dims.iter().map(Dim::size).product();
        let per_revision = par_map(&revisions.iter().enumerate().collect::<Vec<_>>(), |(i, src)| {
            let bin = dir.path().join(format!("rev{i}"));
            clang_with(src, &bin, &[], &["-O0", "-Dmain=swept_main"], &[obj, "-Wl,--wrap=exit", "-lm"]);
            let out = Command::new(&bin).args(&domain).output().expect("run the sweep");
            assert!(
                out.status.success(),
                "{}: the sweep failed ({}): {}",
                src.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            let outcomes = parse_forkserver(&out.stdout);
            assert_eq!(outcomes.len(), size, "{}: one outcome per input", src.display());
            outcomes
        });
        let mut ids: HashMap<NativeOutcome, u32> = HashMap::new();
        let mut outcomes = Vec::new();
        let rows = per_revision
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|o| {
                        *ids.entry(o).or_insert_with_key(|o| {
                            outcomes.push(o.clone());
                            outcomes.len() as u32 - 1
                        })
                    })
                    .collect()
            })
            .collect();
        Sweep { dims: dims.to_vec(), rows, outcomes }
    }

    pub fn len(&self) -> usize {
        self.rows[0].len()
    }

    pub fn outcome(&self, revision: usize, input: usize) -> &NativeOutcome {
        &self.outcomes[self.rows[revision][input] as usize]
    }

    /// Input `i` as a ktest: the last object varies fastest, as in the sweep.
    pub fn input(&self, mut i: usize) -> KTest {
        let mut objects: Vec<Object> = self
            .dims
            .iter()
            .rev()
            .map(|d| {
                let value = d.lo + (i % d.size()) as i64;
                i /= d.size();
                Object { name: d.name.clone(), bytes: value.to_le_bytes()[..d.width].to_vec() }
            })
            .collect();
        objects.reverse();
        KTest { args: vec!["prog".into()], objects, ..KTest::default() }
    }
}
