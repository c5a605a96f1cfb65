//! Native confirmation: a hand-written meta program replayed on every revision.

use std::time::Duration;

use psychic::compile::{NativeOptions, Toolchain};
use psychic::diff::confirm::{OutputSelection, TestInput, classes, partition, replay_all};
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
    let obs = replay_all(&bin, 4, &[], &tests, Duration::from_secs(10), 2).unwrap();
    let all = OutputSelection::default();
    assert_eq!(classes(&obs[0], all), [0, 1, 0, 0]);
    assert_eq!(classes(&obs[1], all), [0, 1, 2, 0]);
    assert_eq!(classes(&obs[2], all), [0, 1, 0, 2]);
    let no_annotations = OutputSelection { annotations: false, ..all };
    assert_eq!(classes(&obs[0], no_annotations), [0, 0, 0, 0]);
    assert_eq!(classes(&obs[2], no_annotations), [0, 0, 0, 1]);
    assert_eq!(obs[1][2].outcome.stdout, b"big\n");
}

/// The replay build of `meta` with ASan, in a directory of its own.
fn sanitized(meta: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tc = Toolchain::discover().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("meta.c");
    std::fs::write(&src, meta).unwrap();
    let bin = dir.path().join("meta");
    tc.native(&src, &bin, &NativeOptions { sanitize: true, ..Default::default() }).unwrap();
    (dir, bin)
}

/// Revision 1 prints a heap byte it never wrote, revision 2 a byte it wrote
/// but different from revision 0's, revision 3 is revision 0's text again.
const GARBAGE: &str = r#"
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>
const int __psychic_revisions = 4;
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  unsigned char *p = malloc(8);
  int m = __klee_meta(1);
  if (m != 1) p[3] = 7;
  if (m == 2) p[3] = 8;
  printf("%d\n", p[3]);
  free(p);
  return 0;
}
"#;

/// Every revision replays twice, the second time with other heap garbage:
/// an outcome that changes is nondeterministic and separates nothing by
/// itself, and a revision of the same text as another replays once for both.
#[test]
fn nondeterministic_outcomes_separate_nothing() {
    let (dir, bin) = sanitized(GARBAGE);
    let ktest = dir.path().join("t.ktest");
    KTest { objects: vec![Object { name: "x".into(), bytes: vec![0; 4] }], ..Default::default() }
        .write(&ktest)
        .unwrap();
    let tests = [TestInput { ktest, env: Default::default() }];
    let row = replay_all(&bin, 4, &[0, 1, 2, 0], &tests, Duration::from_secs(10), 2).unwrap().remove(0);
    let all = OutputSelection::default();
    let nondeterministic: Vec<bool> = row.iter().map(|o| o.nondeterministic_under(all)).collect();
    assert_eq!(nondeterministic, [false, true, false, false], "{row:?}");
    assert_eq!(row[3], row[0], "revision 3 shares revision 0's replay");
    // Revision 1's two runs print ASan's fill byte and another: what stays
    // stable is its exit status alone, which tells it apart from nothing. It
    // sits with revision 0, and the test does not tell it from revision 2
    // either.
    let p = partition(&row, all);
    assert_eq!(p.classes, [0, 0, 1, 0]);
    assert_eq!(p.loose.len(), 1);
    assert_eq!((p.loose[0].revision, &p.loose[0].alike), (1, &vec![1]));
    assert!(p.apart(0, 2) && !p.apart(1, 2) && !p.apart(0, 1));
    // Were one of its runs revision 0's outcome, it would join revision 0.
    let mut joined = row.clone();
    joined[1].alternate = Some(Box::new(row[0].clone()));
    assert_eq!(classes(&joined, all), [0, 0, 1, 0]);
}

/// Revisions that meet what a run can do: read stdin, its arguments and a
/// file of its working directory and write one there, fail, leak memory out
/// of bounds, die by a signal, hang, print past the capture, leave stdin
/// unread, leave a child holding stdout, annotate.
const WORLD: &str = r#"
#include <klee/klee.h>
#include <psychic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
const int __psychic_revisions = 10;
int main(int argc, char **argv) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  switch (__klee_meta(1)) {
  case 0: {
    char line[64] = "";
    fgets(line, sizeof line, stdin);
    printf("%d %s %s|%s", argc, argv[1], argv[2], line);
    return x;
  }
  case 1:
    fprintf(stderr, "no\n");
    return 7;
  case 2: {
    char *p = malloc(4);
    p[x + 4] = 1;
    return p[0];
  }
  case 3:
    kill(getpid(), SIGTERM);
    return 0;
  case 4:
    for (;;)
      ;
  case 5:
    for (int i = 0; i < 300000; i++)
      fputs("0123456789", stdout);
    return 0;
  case 6: {
    FILE *f = fopen("A", "r+");
    char got[8] = "";
    fgets(got, sizeof got, f);
    fputs("-more", f);
    fclose(f);
    f = fopen("B", "r");
    printf("%s %s\n", got, f ? "B was there" : "no B");
    fclose(fopen("B", "w"));
    return 0;
  }
  case 7:
    close(0);
    puts("closed");
    return 0;
  case 8:
    printf("parent\n");
    fflush(stdout);
    if (fork() == 0) {
      sleep(1);
      return 0;
    }
    return 2;
  default:
    psychic_output("x", x * 3);
    return 0;
  }
}
"#;

/// A confirmation server's run of a test is the run of a fresh process
/// (`replay::run`): the same stdout, stderr (but ASan's report, which the
/// server's child does not print: its addresses differ from run to run),
/// exit, signal, timeout and cut, run after run in one server, and the same
/// annotations.
#[test]
fn a_confirmation_server_runs_what_a_fresh_process_runs() {
    use psychic::replay::{self, Request, Server};
    let (dir, bin) = sanitized(WORLD);
    let ktest = dir.path().join("t.ktest");
    KTest {
        objects: vec![Object { name: "x".into(), bytes: 3i32.to_le_bytes().to_vec() }],
        ..Default::default()
    }
    .write(&ktest)
    .unwrap();
    // More stdin than a pipe holds: revision 7 never reads it.
    let mut stdin = b"typed\n".to_vec();
    stdin.resize(200_000, b'.');
    let env = psychic::posix::ReplayEnv {
        args: vec!["one".into(), "two".into()],
        stdin,
        files: vec![("A".into(), b"data".to_vec())],
    };
    let timeout = Duration::from_millis(500);
    let mut server = Server::spawn(&bin, Some(&ktest), &env, false).unwrap();
    let notes = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
    for r in 0..10 {
        let fresh_notes = dir.path().join(format!("fresh-{r}"));
        let mut req = Request::new(&bin, Some(&ktest), r);
        req.env = env.clone();
        req.timeout = timeout;
        req.annotations = Some(fresh_notes.clone());
        let fresh = replay::run(&req).unwrap();
        // Twice: a run leaves nothing behind for the next.
        for round in 0..2 {
            let served_notes = dir.path().join(format!("served-{round}-{r}"));
            let sites = dir.path().join(format!("sites-{round}-{r}"));
            let (mut served, took) = server.run(r, timeout, Some(&served_notes), Some(&sites)).unwrap();
            assert_eq!(notes(&served_notes), notes(&fresh_notes), "revision {r}'s annotations");
            // Written through: revision 2's AddressSanitizer abort keeps it.
            assert_eq!(notes(&sites), "1\n", "the sites revision {r} reached");
            if r == 2 {
                // The server's child ends at ASan's hook, before the report a
                // fresh process prints; the signal is the same (below).
                let report = |o: &replay::Outcome| o.stderr.windows(16).any(|w| w == b"AddressSanitizer");
                assert!(report(&fresh) && !report(&served), "{served:?}");
                served.stderr = fresh.stderr.clone();
            }
            assert_eq!(served, fresh, "revision {r}, round {round}");
            assert!(took <= timeout + Duration::from_millis(200), "revision {r} took {took:?}");
        }
    }
    let (hung, _) = server.run(4, Duration::from_millis(100), None, None).unwrap();
    assert!(hung.timed_out && hung.exit_status.is_none() && hung.signal.is_none());
    let (cut, _) = server.run(5, timeout, None, None).unwrap();
    assert!(cut.stdout_cut && cut.stdout.len() == replay::MAX_CAPTURE);
    let (ok, _) = server.run(0, timeout, None, None).unwrap();
    assert_eq!(ok.stdout, b"3 one two|typed\n");
    assert_eq!(ok.exit_status, Some(3));
    assert_eq!(notes(&dir.path().join("fresh-9")), format!("x 4 {}\n", "09000000"));
}
