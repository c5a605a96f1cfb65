//! The results of `diff-patches`, as data other tools read (`report.json`) and as
//! text people read (`report.txt`, the terminal summary, `tree.dot`).
//!
//! The JSON layout is a contract, documented in the README: fields may be added,
//! never renamed or removed.
//!
//! `Report::write_files` writes `report.json`, `report.txt`, `tree.dot`,
//! `meta.map.json` and `report.html`, each atomically; `Report::files` is the file
//! each revision's positions refer to (its path, or for a diff revision its
//! patched text `OUT/revisions/K/NAME`). The report carries the engine's
//! `Coverage` and the clusters' `ClusterVerdict`s as they are, so the JSON, the
//! text and the page say the same. `Test::shown_inputs`: the inputs as the
//! program gets them; a stdin or file cut to nothing is `stdin: empty`, and so
//! is a test with nothing else to show.
//!
//! Invariant: every location names a revision's real file and a position from
//! the unify stage's spans (1-based line, 1-based byte column); nothing is
//! re-parsed here.

pub mod diagnostics;
mod dot;
mod html;
pub mod outdir;
pub mod sarif;
mod shown;
mod svg;
mod text;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use dot::tree_dot;
pub use html::report_html;
pub use text::{cluster_name, partial_line, summary};

pub use crate::cluster::{ClusterVerdict, Verdict};
pub use crate::diff::FoundBy;
pub use crate::exec::Coverage;
pub use crate::fuzz::FuzzStats;
use crate::unify::MetaProgram;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub psychic_version: String,
    /// Index 0 is the original; then the patches in command-line order.
    pub revisions: Vec<Revision>,
    /// Revisions no confirmed test tells apart; every revision in exactly one.
    pub clusters: Vec<Vec<usize>>,
    /// One per cluster: proved equivalent, not separated (with the reasons it
    /// is no proof), or alone.
    #[serde(default)]
    pub cluster_verdicts: Vec<ClusterVerdict>,
    pub tests: Vec<Test>,
    /// `None` when there is one cluster: nothing to decide.
    pub decision_tree: Option<TreeNode>,
    /// A smallest set of test ids that separates every pair of clusters.
    pub separating_tests: Vec<usize>,
    pub stats: Stats,
    /// Per revision: paths explored exactly, and paths approximated or cut,
    /// by kind, with the first occurrence of each.
    #[serde(default)]
    pub coverage: Coverage,
    /// The inputs explored, in words: the domain a "proved equivalent"
    /// verdict holds on.
    #[serde(default)]
    pub domain: String,
    /// Which C library served the program's calls under the engine: the
    /// libc model, and what musl served beneath it.
    #[serde(default)]
    pub libc: crate::libs::LibcUse,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Revision {
    pub index: usize,
    pub name: String,
    pub path: String,
    /// For a revision given as a diff: its patched text, written into the
    /// output directory (relative to it), which diagnostics point into.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub patched: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Test {
    pub id: usize,
    /// Relative to the output directory.
    pub ktest: String,
    pub inputs: Vec<Input>,
    /// One per outcome class, in order of the smallest revision in it.
    pub outcomes: Vec<Outcome>,
    /// The meta-branch sites (ids of `meta.c`'s `__klee_meta` calls) on the
    /// engine paths the test came from.
    #[serde(default)]
    pub sites: Vec<u32>,
    /// Revisions whose outcome on this test changed when replayed again
    /// with other heap and stack garbage: they read memory they never
    /// wrote. Such an outcome never separates a revision by itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nondeterministic: Vec<usize>,
    /// Revisions whose outcome on this test is known only in part: it ran
    /// out of time, or changed with memory garbage. Each is compared by what
    /// it showed and sits in the class it is most plainly alike to; the test
    /// does not tell it apart from `alike` either.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial: Vec<PartialOutcome>,
    /// The engine that found the test.
    #[serde(default = "symbolic")]
    pub found_by: FoundBy,
}

/// A revision's outcome on a test, known only in part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialOutcome {
    pub revision: usize,
    pub why: crate::cluster::Partial,
    /// The revisions of other classes it could equally behave like.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alike: Vec<usize>,
}

fn symbolic() -> FoundBy {
    FoundBy::Symbolic
}

/// One decoded ktest object.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Input {
    pub name: String,
    pub size: usize,
    pub hex: String,
    /// Little-endian signed and unsigned values, for sizes 1, 2, 4 and 8.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub int: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub uint: Option<u64>,
    /// The bytes as text, when they are printable ASCII (a trailing NUL allowed).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub text: Option<String>,
}

/// One input as a person reads it (see [`Test::shown_inputs`]).
pub struct ShownInput<'a> {
    pub name: &'a str,
    /// `name=value`, or `stdin: empty`.
    pub text: String,
    /// The object's bytes in hex; empty for a stdin the test has no object for.
    pub hex: &'a str,
}

impl Test {
    /// The inputs a person reads, each with its text: stdin, arguments and
    /// files as the escaped bytes the program gets (`stdin="3\n"`, cut to
    /// the size their `-stat` object gives, `stdin: empty` when that is
    /// nothing), everything else as [`Input::display`]; the symbolic
    /// environment's bookkeeping objects (`stdin-stat`, `A-data-stat`,
    /// `model_version`, `n_args`) are left out. A test that shows nothing
    /// else ran on an empty stdin (a native replay feeds what the ktest has,
    /// and a fuzz input with no text has no `stdin` object), so it says so
    /// rather than showing nothing.
    pub fn shown_inputs(&self) -> Vec<ShownInput<'_>> {
        let bytes = |i: &Input| -> Vec<u8> {
            (0..i.hex.len() / 2)
                .filter_map(|k| u8::from_str_radix(&i.hex[2 * k..2 * k + 2], 16).ok())
                .collect()
        };
        // st_size of a `struct stat64` on x86-64 is the 8 bytes at offset 48.
        let stat_size = |name: &str| {
            let stat = self.inputs.iter().find(|i| i.name == name)?;
            let b = bytes(stat);
            Some(u64::from_le_bytes(b.get(48..56)?.try_into().ok()?) as usize)
        };
        let mut shown: Vec<ShownInput> = self
            .inputs
            .iter()
            .filter(|i| !(i.name.ends_with("-stat") || i.name == "model_version" || i.name == "n_args"))
            .map(|i| {
                let mut b = bytes(i);
                let text = if i.name == "stdin" || i.name.ends_with("-data") {
                    b.truncate(stat_size(&format!("{}-stat", i.name)).unwrap_or(b.len()));
                    // Token mode pads stdin with NULs: a count reads better.
                    let text_end = b.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
                    match b.len() - text_end {
                        _ if b.is_empty() => format!("{}: empty", i.name),
                        nuls @ 4.. => format!("{}=\"{}\" + {nuls} NUL", i.name, b[..text_end].escape_ascii()),
                        _ => format!("{}=\"{}\"", i.name, b.escape_ascii()),
                    }
                } else if is_argument(&i.name) {
                    b.truncate(b.iter().position(|&c| c == 0).unwrap_or(b.len()));
                    format!("{}=\"{}\"", i.name, b.escape_ascii())
                } else {
                    i.display()
                };
                ShownInput { name: &i.name, text, hex: &i.hex }
            })
            .collect();
        if shown.is_empty() {
            shown.push(ShownInput { name: "stdin", text: "stdin: empty".into(), hex: "" });
        }
        shown
    }

    /// [`Test::shown_inputs`] on one line.
    pub fn inputs_line(&self) -> String {
        self.shown_inputs().into_iter().map(|i| i.text).collect::<Vec<_>>().join(" ")
    }
}

/// `argNN`, the objects of `--sym-arg`.
fn is_argument(name: &str) -> bool {
    name.strip_prefix("arg").is_some_and(|n| n.len() == 2 && n.bytes().all(|c| c.is_ascii_digit()))
}

impl Input {
    pub fn from_object(o: &crate::ktest::Object) -> Input {
        let (int, uint) = o.as_ints().map_or((None, None), |(i, u)| (Some(i), Some(u)));
        let body = o.bytes.strip_suffix(&[0]).unwrap_or(&o.bytes);
        let text = (!body.is_empty() && body.iter().all(|b| b.is_ascii_graphic() || *b == b' '))
            .then(|| String::from_utf8_lossy(body).into_owned());
        Input {
            name: o.name.clone(),
            size: o.bytes.len(),
            hex: o.bytes.iter().map(|b| format!("{b:02x}")).collect(),
            int,
            uint,
            text,
        }
    }

    /// `name=value` in the most readable form: text, then the signed integer,
    /// then hex.
    pub fn display(&self) -> String {
        match (&self.text, self.int) {
            (Some(t), _) if self.size != 4 && self.size != 8 => format!("{}={:?}", self.name, t),
            (_, Some(i)) => format!("{}={i}", self.name),
            _ => format!("{}=0x{}", self.name, self.hex),
        }
    }
}

/// What the revisions of one outcome class did on a test.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    pub revisions: Vec<usize>,
    pub stdout: String,
    /// What they wrote to stderr, where stderr is compared (`--outputs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    #[serde(default)]
    pub timed_out: bool,
    /// `psychic_output` records, `NAME SIZE HEX` each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<String>,
}

impl Outcome {
    pub fn status_text(&self) -> String {
        if self.timed_out {
            "timeout".into()
        } else if let Some(s) = self.signal {
            format!("signal {s} ({})", crate::replay::signal_name(s))
        } else {
            format!("exit {}", self.exit_status.unwrap_or(-1))
        }
    }
}

#[cfg(test)]
impl Outcome {
    /// Revision 0 printing `stdout` and exiting with `exit`.
    pub(crate) fn exited(stdout: &str, exit: i32) -> Outcome {
        Outcome {
            revisions: vec![0],
            stdout: stdout.into(),
            stderr: None,
            exit_status: Some(exit),
            signal: None,
            timed_out: false,
            annotations: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeNode {
    pub test: usize,
    pub branches: Vec<TreeBranch>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeBranch {
    /// Index into the test's `outcomes`.
    pub outcome: usize,
    pub revisions: Vec<usize>,
    /// `None` at a leaf: `revisions` is one cluster.
    pub subtree: Option<Box<TreeNode>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Something was cut or approximated (the budget, a limit, a model gap,
    /// ...) while some revisions are not told apart: the tests are sound,
    /// but differences may have been missed. `cluster_verdicts` say which
    /// clusters are proved equivalent all the same.
    pub partial: bool,
    /// `partial_reasons` joined by "; ".
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub partial_reason: Option<String>,
    /// Every reason the answer is partial: the budget, and each kind of
    /// approximation or unsettled comparison behind a cluster that is not
    /// proved equivalent.
    #[serde(default)]
    pub partial_reasons: Vec<String>,
    /// Wall-clock seconds per stage.
    pub seconds: StageTimes,
    pub instructions: u64,
    pub states: u64,
    pub paths_completed: u64,
    pub paths_partial: u64,
    pub queries: u64,
    pub query_cache_hits: u64,
    pub cex_cache_hits: u64,
    pub solver_seconds: f64,
    pub candidate_tests: u64,
    pub confirmed_tests: u64,
    /// Candidates whose native replay did not show the difference the engine
    /// predicted: a disagreement between engine and native run.
    pub disagreements: u64,
    /// The engine's candidates replayed natively; `disagreements` of them
    /// were refuted.
    #[serde(default)]
    pub candidates_replayed: u64,
    /// `disagreements / candidates_replayed` (0 when none was replayed).
    #[serde(default)]
    pub refuted_share: f64,
    /// Candidates predicted on a path that read memory it never wrote (the
    /// engine took the garbage as 0): not replayed as differences, but run
    /// natively by fuzzing.
    #[serde(default)]
    pub uninitialised_candidates: u64,
    /// Candidates not replayed (or not on every revision) before the budget
    /// ended.
    #[serde(default)]
    pub unreplayed_candidates: u64,
    pub tree_optimal: bool,
    pub separating_optimal: bool,
    /// Solver calls by what asked: the engine's branches (and the rest of its
    /// own queries), the differential queries between paths, models of
    /// halted paths that seed fuzzing, and the merges of revision splits.
    #[serde(default)]
    pub query_kinds: QueryKinds,
    /// Native differential fuzzing beside the engine, if it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzzing: Option<FuzzStats>,
    /// Every input of the domain run natively, where the domain is a small
    /// box (`fuzz::sweep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<crate::fuzz::EnumerationStats>,
    /// States of a revision split merged again where the variants meet.
    #[serde(default)]
    pub merging: MergeStats,
    /// Branch queries that ran out of their first timeout (or a later one)
    /// and put their state aside while the others ran.
    #[serde(default)]
    pub deferred_branch_queries: u64,
    /// Revision pairs proved equivalent when the run stopped early because
    /// no state left could tell them apart.
    #[serde(default)]
    pub pairs_proved_by_exploration: u64,
}

/// The engine's merging of revision splits (`exec::merge`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MergeStats {
    /// Revision splits whose variants meet again in the split's frame.
    pub groups: u64,
    /// Groups given up before every state of theirs met.
    pub expired: u64,
    /// States merged into another (one fewer path each).
    pub merged_states: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct QueryKinds {
    pub branch: QueryKind,
    pub differential: QueryKind,
    pub seed: QueryKind,
    /// Whether states that met after a revision split are equal (`merging`).
    #[serde(default)]
    pub merge: QueryKind,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct QueryKind {
    pub queries: u64,
    pub seconds: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StageTimes {
    pub unify: f64,
    pub compile: f64,
    pub explore: f64,
    pub confirm: f64,
    pub cluster: f64,
    pub total: f64,
}

impl Report {
    pub fn test(&self, id: usize) -> Option<&Test> {
        self.tests.iter().find(|t| t.id == id)
    }

    /// Writes `report.json`, `report.txt`, `tree.dot`, `report.html` and the
    /// source map `meta.map.json` into `dir`, each through a temporary file, so
    /// a reader never sees half a file.
    pub fn write_files(&self, dir: &Path, map: &MetaProgram) -> std::io::Result<()> {
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)? + "\n";
        write_atomic(&dir.join("report.json"), json.as_bytes())?;
        write_atomic(&dir.join("report.txt"), summary(self).as_bytes())?;
        write_atomic(&dir.join("tree.dot"), tree_dot(self).as_bytes())?;
        let map_json = serde_json::to_string_pretty(map).map_err(std::io::Error::other)? + "\n";
        write_atomic(&dir.join(MAP_FILE), map_json.as_bytes())?;
        write_atomic(&dir.join("report.html"), report_html(self, map, &self.files(dir)).as_bytes())
    }

    /// The file each revision's source positions refer to: its path, or its
    /// patched text in `dir` for a revision given as a diff.
    pub fn files(&self, dir: &Path) -> Vec<String> {
        self.revisions
            .iter()
            .map(|r| match &r.patched {
                Some(p) => dir.join(p).display().to_string(),
                None => r.path.clone(),
            })
            .collect()
    }
}

/// The unify stage's map (sites, variants and their spans in each revision's
/// file, the line map), saved beside the report so that it is self-contained.
pub const MAP_FILE: &str = "meta.map.json";

impl TreeNode {
    /// The report's form of a cluster tree. Outcome classes are numbered by
    /// first revision, as `outcomes` are, so a class is its outcome's index.
    pub fn from_tree(tree: &crate::cluster::Tree, clusters: &[Vec<usize>]) -> Option<TreeNode> {
        let crate::cluster::Tree::Node { test, branches } = tree else { return None };
        let branches = branches
            .iter()
            .map(|b| {
                let mut revisions: Vec<usize> =
                    b.clusters.iter().flat_map(|&c| clusters[c].iter().copied()).collect();
                revisions.sort_unstable();
                TreeBranch {
                    outcome: b.outcome as usize,
                    revisions,
                    subtree: TreeNode::from_tree(&b.subtree, clusters).map(Box::new),
                }
            })
            .collect();
        Some(TreeNode { test: *test, branches })
    }
}

/// Writes through a sibling temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A set of revisions as `{0, 2, 5}`.
pub fn revision_set(revs: &[usize]) -> String {
    format!("{{{}}}", crate::cluster::names::ranges(revs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktest::Object;

    #[test]
    fn tests_show_their_inputs_as_the_program_gets_them() {
        let mut stat = vec![0u8; 144];
        stat[48..56].copy_from_slice(&2u64.to_le_bytes());
        let objects = [
            Object { name: "n_args".into(), bytes: 1u32.to_le_bytes().to_vec() },
            Object { name: "arg00".into(), bytes: b"-v\0\0".to_vec() },
            Object { name: "stdin".into(), bytes: b"3\n\0\0\0\0".to_vec() },
            Object { name: "stdin-stat".into(), bytes: stat },
            Object { name: "model_version".into(), bytes: 1u32.to_le_bytes().to_vec() },
            Object { name: "score".into(), bytes: 80i32.to_le_bytes().to_vec() },
        ];
        assert_eq!(test_of(&objects).inputs_line(), r#"arg00="-v" stdin="3\n" score=80"#);
    }

    fn test_of(objects: &[Object]) -> Test {
        Test {
            id: 1,
            ktest: String::new(),
            inputs: objects.iter().map(Input::from_object).collect(),
            outcomes: Vec::new(),
            sites: Vec::new(),
            nondeterministic: Vec::new(),
            partial: Vec::new(),
            found_by: FoundBy::Fuzzing,
        }
    }

    #[test]
    fn an_empty_stdin_says_so() {
        // A fuzz input with no text: no objects at all.
        let none = test_of(&[]);
        let shown = none.shown_inputs();
        assert_eq!((shown.len(), shown[0].name, shown[0].text.as_str()), (1, "stdin", "stdin: empty"));
        // An object of no bytes, or one its stat cuts to nothing (token mode pads with NULs).
        assert_eq!(test_of(&crate::posix::stdin_objects(b"")).inputs_line(), "stdin: empty");
        let [mut stdin, stat] = crate::posix::stdin_objects(b"");
        stdin.bytes = vec![0; 8];
        assert_eq!(test_of(&[stdin, stat]).inputs_line(), "stdin: empty");
        let file = Object { name: "A-data".into(), bytes: Vec::new() };
        assert_eq!(test_of(&[file]).inputs_line(), "A-data: empty");
        // Other inputs alone: nothing is said of stdin.
        let x = Object { name: "x".into(), bytes: 7i32.to_le_bytes().to_vec() };
        assert_eq!(test_of(&[x]).inputs_line(), "x=7");
    }
}
