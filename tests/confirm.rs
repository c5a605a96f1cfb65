//! Native confirmation: a hand-written meta program replayed on every revision.

use std::time::Duration;

use psychic::compile::{NativeOptions, Toolchain};
use psychic::diff::confirm::{OutputSelection, TestInput, classes, replay_all};
use psychic::ktest::{KTest, Object};

const META: &str = r#"
#include <klee/klee.h>
#include <psychic.h>
#include <stdio.h>
const int __psychic_revisions = 4;
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int m = __klee_meta(1);
  int y = m == 1 ? x + 1 : x;              /* revision 1 differs in the value */
  psychic_output("y", y);                  /* ... which only the annotation shows */
  if (m == 2 && x > 10) printf("big\n");   /* revision 2 differs in stdout for x > 10 */
  if (m == 3 && x < 0) return 3;           /* revision 3 differs in the exit status for x < 0 */
  return 0;
}
"#;

#[test]
fn classes_follow_the_selected_outputs() {
    let tc = Toolchain::discover().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("meta.c");
    std::fs::write(&src, META).unwrap();
    let bin = dir.path().join("meta");
    tc.native(&src, &bin, &NativeOptions::default()).unwrap();
    let tests: Vec<TestInput> = [5i32, 20, -4]
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let ktest = dir.path().join(format!("t{i}.ktest"));
            KTest {
                objects: vec![Object { name: "x".into(), bytes: x.to_le_bytes().to_vec() }],
                ..Default::default()
            }
            .write(&ktest)
            .unwrap();
            TestInput { ktest, env: Default::default() }
        })
        .collect();
    let obs = replay_all(&bin, 4, &tests, Duration::from_secs(10), 2).unwrap();
    let all = OutputSelection::default();
    assert_eq!(classes(&obs[0], all), [0, 1, 0, 0]);
    assert_eq!(classes(&obs[1], all), [0, 1, 2, 0]);
    assert_eq!(classes(&obs[2], all), [0, 1, 0, 2]);
    let no_annotations = OutputSelection { annotations: false, ..all };
    assert_eq!(classes(&obs[0], no_annotations), [0, 0, 0, 0]);
    assert_eq!(classes(&obs[2], no_annotations), [0, 0, 0, 1]);
    assert_eq!(obs[1][2].outcome.stdout, b"big\n");
}
