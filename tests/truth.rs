//! Ground truth for `diff-patches`: a sample of the generated corpus
//! (`tests/common/truth.rs`; `benches/truth.rs` runs all of it). Each set's
//! clusters must equal the true partition, found by running every revision's
//! own file natively on every input of its domain.

mod common;

use common::truth::{self, Verdict};

/// One set per base, chosen for a short run (small domains get the larger
/// sets), with revisions that behave alike but differ in text among them.
const SAMPLE: &[usize] = &[0, 1, 13, 14, 15, 5, 17, 18, 8, 20, 21];

#[test]
fn sampled_patch_sets_get_their_true_partition() {
    let results = common::par_map(SAMPLE, |&i| {
        let set = truth::patch_set(i);
        let dir = tempfile::tempdir().unwrap();
        let files = set.write(dir.path());
        let t = truth::ground_truth(&set, &files);
        let run = truth::diff_patches(&files, dir.path(), &[]);
        let v = Verdict::new(&t.partition, &run.report.clusters);
        assert!(truth::tests_in_domain(&run.report, &t.domain), "{}: a test outside the domain", set.name);
        (set.name, t.partition, run.report.clusters, v)
    });
    let mut failures = Vec::new();
    for (name, truth, found, v) in &results {
        // A split of revisions that behave alike would be a soundness bug.
        assert!(v.split.is_empty(), "{name}: revisions {:?} behave alike but were split", v.split);
        if !v.exact() {
            failures.push(format!("{name}: true {truth:?}, found {found:?} (merged {:?})", v.merged));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The sample is not trivial: some set has several clusters, and some
    // cluster holds revisions whose text differs.
    assert!(results.iter().any(|r| r.1.len() >= 4));
}
