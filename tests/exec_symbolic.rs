//! Symbolic execution: path counts on small programs, error paths, and
//! revision sets. Every generated input replays natively (ASan build) to the
//! outcome the engine predicted.

use crate::common;

use std::collections::BTreeMap;

use psychic::compile::NativeOptions;
use psychic::exec::{
    ApproxKind, ErrorKind, ExecConfig, Executor, HaltedPath, OutputEvent, RevSet, RunSummary, SearchKind,
    Termination,
};
use psychic::ir::Module;

struct Explored {
    dir: tempfile::TempDir,
    bin: std::path::PathBuf,
    module: Module,
}

fn build(src: &std::path::Path) -> Explored {
    build_at(src, false)
}

/// Bitcode at -O0 or -O2; the native (ASan) build replays either.
fn build_at(src: &std::path::Path, opt2: bool) -> Explored {
    let dir = tempfile::tempdir().unwrap();
    let bc = common::bitcode(src, dir.path(), opt2, &[]);
    let bin = dir.path().join("native-asan");
    common::toolchain().native(src, &bin, &NativeOptions { sanitize: true, ..Default::default() }).unwrap();
    let module = Module::load(&bc).unwrap();
    Explored { dir, bin, module }
}

/// Compiles and loads a C program written by the test.
fn module_from(name: &str, code: &str, extra: &[&str]) -> (tempfile::TempDir, Module) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, code).unwrap();
    let bc = common::bitcode(&src, dir.path(), false, extra);
    (dir, Module::load(&bc).unwrap())
}

/// Explores a fixture, replays every test natively, and hands back the paths.
fn explore(rel: &str, cfg: ExecConfig, check: impl FnOnce(&mut Executor, &RunSummary)) {
    let e = build(&common::fixture(rel));
    let mut ex = Executor::new(&e.module, cfg).unwrap();
    let s = ex.run();
    check(&mut ex, &s);
    let runs = common::replay_paths(&mut ex, &s.paths, &e.bin, e.dir.path());
    assert!(runs > 0, "nothing replayed");
}

fn kinds(paths: &[HaltedPath]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for p in paths {
        let k = match &p.termination {
            Termination::Exit { .. } => "exit".to_string(),
            Termination::Error { kind, .. } => kind.to_string(),
            Termination::Silent => "silent".into(),
            Termination::Early { .. } => "early".into(),
        };
        *out.entry(k).or_default() += 1;
    }
    out
}

#[test]
fn get_sign_has_three_paths_with_every_searcher() {
    for search in
        [SearchKind::Dfs, SearchKind::Bfs, SearchKind::RandomPath, SearchKind::CovNew, SearchKind::Default]
    {
        explore("symbolic/get_sign.c", ExecConfig { search, ..ExecConfig::default() }, |ex, s| {
            assert_eq!(s.paths.len(), 3, "{search:?}");
            let mut statuses: Vec<u128> = s
                .paths
                .iter()
                .map(|p| match p.termination {
                    Termination::Exit { status } => ex.pool.as_const(status).expect("constant status"),
                    _ => panic!("{:?}", p.termination),
                })
                .collect();
            statuses.sort();
            assert_eq!(statuses, vec![0, 1, 0xffff_ffff]);
            assert_eq!(s.stats.forks, 2);
        });
    }
}

#[test]
fn symbolic_index_reads_and_finds_the_overflow() {
    explore("symbolic/array_index.c", ExecConfig::default(), |_, s| {
        let k = kinds(&s.paths);
        assert_eq!(k.get("exit"), Some(&2), "{k:?}");
        assert_eq!(k.get("ptr"), Some(&1), "{k:?}");
        assert_eq!(s.paths.len(), 3);
    });
}

#[test]
fn regexp_matcher_finds_exactly_the_native_paths() {
    let expected = common::native_trace_count();
    explore("symbolic/regexp.c", ExecConfig::default(), |_, s| {
        let k = kinds(&s.paths);
        assert_eq!(k.keys().collect::<Vec<_>>(), vec!["exit"], "no errors in the matcher: {k:?}");
        assert_eq!(s.paths.len(), expected, "one path per distinct native trace");
    });
}

#[test]
fn meta_program_splits_revision_sets_without_the_solver() {
    explore("symbolic/meta.c", ExecConfig::default(), |ex, s| {
        // Site 1: {0,1} share a variant, {2} differs; each then branches on
        // y > 10. Site 2 separates nothing new: revision 2 already runs alone.
        let mut sets: Vec<(RevSet, bool)> = s
            .paths
            .iter()
            .filter(|p| matches!(p.termination, Termination::Exit { .. }))
            .map(|p| {
                let big =
                    p.outputs.iter().any(|e| e.render(&ex.pool, &Default::default()).starts_with(b"big"));
                (p.revisions.clone(), big)
            })
            .collect();
        sets.sort();
        let r01: RevSet = [0, 1].into_iter().collect();
        let r2 = RevSet::singleton(2);
        assert_eq!(sets.len(), 4, "{sets:?}");
        assert!(sets.contains(&(r01.clone(), true)) && sets.contains(&(r01, false)), "{sets:?}");
        assert!(sets.contains(&(r2.clone(), true)) && sets.contains(&(r2, false)), "{sets:?}");
        assert!(s.stats.revision_splits >= 1);
        for p in &s.paths {
            for c in &p.constraints {
                assert!(!ex.pool.mentions_revision(*c), "a path constraint mentions the revision");
            }
        }
    });
}

/// One small program per error kind, each compiled at test time.
#[test]
fn every_error_kind_is_reported_with_its_location() {
    let cases: &[(&str, &str, ErrorKind)] = &[
        ("null", "int *p = 0; if (x == 3) return *p; return 0;", ErrorKind::Ptr),
        ("oob", "int a[4] = {0}; if (x > 0 && x < 10) return a[x + 3]; return 0;", ErrorKind::Ptr),
        ("uaf", "int *p = malloc(8); *p = 1; free(p); if (x == 1) return *p; return 0;", ErrorKind::Ptr),
        ("double_free", "char *p = malloc(8); free(p); if (x == 2) free(p); return 0;", ErrorKind::Free),
        // ASan aborts on a size over 1 TiB (x < 0 made unsigned) and on a
        // calloc whose count times size overflows.
        ("malloc_negative", "int *p = malloc(x * sizeof *p); return p != 0;", ErrorKind::Alloc),
        ("calloc_overflow", "char *p = calloc(x, (size_t)1 << 20); return p != 0;", ErrorKind::Alloc),
        // x < 0 made unsigned: natively the stack overflows.
        ("vla_negative", "char a[x]; a[0] = 1; return a[0];", ErrorKind::Exec),
        ("readonly", "char *s = \"abc\"; if (x == 5) s[0] = 'x'; return s[1];", ErrorKind::ReadOnly),
        ("div", "return 100 / (x - 7);", ErrorKind::Div),
        ("rem", "return 100 % x;", ErrorKind::Div),
        ("assert", "klee_assert(x != 42); return 0;", ErrorKind::Assert),
        ("abort", "if (x == 9) abort(); return 0;", ErrorKind::Abort),
        (
            "user",
            "if (x == 4) klee_report_error(__FILE__, __LINE__, \"bad x\", \"bad\"); return 0;",
            ErrorKind::User("bad".into()),
        ),
        ("unreachable", "if (x == 11) __builtin_unreachable(); return 0;", ErrorKind::Exec),
        (
            "external",
            "extern int no_such_function(int); if (x == 12) return no_such_function(x); return 0;",
            ErrorKind::External,
        ),
        (
            "fnptr",
            "int (*f)(void) = (int (*)(void))(long)x; if (x == 77) return f(); return 0;",
            ErrorKind::Exec,
        ),
    ];
    for (name, body, kind) in cases {
        let code = format!(
            "#include <klee/klee.h>\n#include <stdlib.h>\nint main(void) {{\n  int x;\n  klee_make_symbolic(&x, sizeof x, \"x\");\n  {body}\n}}\n"
        );
        let (_dir, m) = module_from(&format!("{name}.c"), &code, &[]);
        let mut ex = Executor::new(&m, ExecConfig::default()).unwrap();
        let s = ex.run();
        let errs: Vec<&Termination> =
            s.paths.iter().map(|p| &p.termination).filter(|t| t.error_kind().is_some()).collect();
        assert!(
            errs.iter().any(|t| t.error_kind() == Some(kind)),
            "{name}: expected a {kind} error, got {:?}",
            s.paths.iter().map(|p| &p.termination).collect::<Vec<_>>()
        );
        for t in errs {
            if let Termination::Error { location, .. } = t {
                let loc = location.as_ref().map(|l| l.to_string()).unwrap_or_default();
                assert!(loc.contains(&format!("{name}.c:")), "{name}: location {loc:?}");
            }
        }
        assert!(
            s.paths.iter().any(|p| matches!(p.termination, Termination::Exit { .. })),
            "{name}: the error-free side goes on"
        );
    }
}

#[test]
fn overshift_is_an_error_only_when_asked() {
    let (_dir, m) = module_from(
        "shift.c",
        "#include <klee/klee.h>\nint main(void) { unsigned x; klee_make_symbolic(&x, sizeof x, \"x\"); return (1u << x) == 0; }\n",
        &[],
    );
    for check in [false, true] {
        let mut ex =
            Executor::new(&m, ExecConfig { check_overshift: check, ..ExecConfig::default() }).unwrap();
        let s = ex.run();
        let k = kinds(&s.paths);
        assert_eq!(k.contains_key("overshift"), check, "{k:?}");
    }
}

#[test]
fn unsupported_instruction_ends_only_its_path() {
    let (_dir, m) = module_from(
        "asm.c",
        "#include <klee/klee.h>\nint main(void) { int x; klee_make_symbolic(&x, sizeof x, \"x\");\n if (x == 5) { __asm__ volatile(\"nop\"); }\n return 0; }\n",
        &[],
    );
    let mut ex = Executor::new(&m, ExecConfig::default()).unwrap();
    let s = ex.run();
    let k = kinds(&s.paths);
    assert_eq!(k.get("unhandled"), Some(&1), "{k:?}");
    assert_eq!(k.get("exit"), Some(&1), "{k:?}");
    let t = s.paths.iter().find_map(|p| match &p.termination {
        Termination::Error { message, location, .. } => Some((message.clone(), location.clone())),
        _ => None,
    });
    let (msg, loc) = t.unwrap();
    assert!(msg.contains("inline assembly"), "{msg}");
    assert!(loc.unwrap().to_string().contains("asm.c:3"), "reported at the line of the asm");
}

#[test]
fn data_only_divergence_splits_outputs_at_halt() {
    explore("symbolic/meta_outputs.c", ExecConfig::default(), |ex, s| {
        let exits: Vec<&HaltedPath> =
            s.paths.iter().filter(|p| matches!(p.termination, Termination::Exit { .. })).collect();
        // The ?: on the revision is decided by a revision split ({0,1,2} vs
        // {3}), never by the solver; then each state runs alone.
        let mut sets: Vec<RevSet> = exits.iter().map(|p| p.revisions.clone()).collect();
        sets.sort();
        assert_eq!(sets, vec![[0, 1, 2].into_iter().collect(), RevSet::singleton(3)]);
        for p in &exits {
            assert_eq!(p.annotations.len(), 1);
            assert_eq!(p.annotations[0].name, "y");
            assert_eq!(p.annotations[0].bytes.len(), 4);
            for b in &p.annotations[0].bytes {
                assert!(!ex.pool.mentions_revision(*b));
            }
            assert!(
                matches!(p.outputs[0], psychic::exec::OutputEvent::Format { .. }),
                "symbolic printf stays structured"
            );
        }
    });
}

#[test]
fn loop_with_symbolic_bound_has_one_path_per_trip_count() {
    explore("symbolic/loops.c", ExecConfig::default(), |_, s| {
        let exits = s.paths.iter().filter(|p| matches!(p.termination, Termination::Exit { .. })).count();
        assert_eq!(exits, 11);
    });
}

#[test]
fn symbolic_pointer_forks_over_its_objects() {
    explore(
        "symbolic/pointers.c",
        ExecConfig { search: SearchKind::Bfs, ..ExecConfig::default() },
        |_, s| {
            let k = kinds(&s.paths);
            // which x idx = 6 feasible (object, offset) pairs; the pointer
            // resolves to a, b and pts: one state per object, each with a
            // symbolic offset, then the printed values fork no further.
            assert_eq!(k.get("exit"), Some(&3), "{k:?}");
            assert!(!k.contains_key("ptr"), "{k:?}");
        },
    );
}

#[test]
fn limits_stop_the_run_and_end_states_early() {
    let e = build(&common::fixture("symbolic/regexp.c"));
    let cfg = ExecConfig { max_instructions: Some(2_000), ..ExecConfig::default() };
    let s = Executor::new(&e.module, cfg).unwrap().run();
    assert!(s.stopped_early.as_deref().unwrap_or("").contains("max-instructions"), "{:?}", s.stopped_early);
    assert!(s.stats.paths_early > 0);
    let cfg = ExecConfig { max_depth: Some(3), ..ExecConfig::default() };
    let s = Executor::new(&e.module, cfg).unwrap().run();
    assert!(s.paths.iter().all(|p| p.depth <= 3));
    assert!(s.stats.paths_early > 0, "paths that would fork deeper end early");
    let cfg = ExecConfig { max_forks: Some(5), ..ExecConfig::default() };
    let s = Executor::new(&e.module, cfg).unwrap().run();
    assert_eq!(s.stats.forks, 5);
    assert_eq!(s.paths.len(), 6, "after the last fork every state follows one side");
    let cfg = ExecConfig { max_time: Some(std::time::Duration::ZERO), ..ExecConfig::default() };
    let s = Executor::new(&e.module, cfg).unwrap().run();
    assert!(s.stopped_early.as_deref().unwrap_or("").contains("max-time"));
}

#[test]
fn solver_timeout_ends_only_the_state_that_asked() {
    let e = build(&common::fixture("symbolic/solver_hard.c"));
    let m = e.module;
    let cfg = ExecConfig { max_solver_time: std::time::Duration::from_millis(200), ..ExecConfig::default() };
    let s = Executor::new(&m, cfg).unwrap().run();
    let k = kinds(&s.paths);
    assert!(k.get("solver").is_some_and(|&n| n >= 1), "{k:?}");
    assert!(k.get("exit").is_some_and(|&n| n >= 1), "the other paths go on: {k:?}");
}

#[test]
fn halt_observer_sees_every_path_and_may_stop_the_run() {
    use psychic::exec::{Control, HaltContext, HaltObserver};
    struct Count(std::rc::Rc<std::cell::Cell<usize>>, usize);
    impl HaltObserver for Count {
        fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
            // The observer can query the solver on the halted path.
            let arrays: Vec<_> = path.symbolics.iter().map(|s| s.array).collect();
            assert!(cx.solver.get_model(cx.pool, &path.constraints, &arrays).unwrap().is_some());
            self.0.set(self.0.get() + 1);
            if self.0.get() >= self.1 { Control::Stop } else { Control::Continue }
        }
    }
    let e = build(&common::fixture("symbolic/regexp.c"));
    let seen = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut ex = Executor::new(&e.module, ExecConfig::default()).unwrap();
    ex.set_observer(Box::new(Count(seen.clone(), 5)));
    let s = ex.run();
    assert!(s.stopped_early.as_deref().unwrap_or("").contains("observer"));
    assert_eq!(seen.get(), s.paths.len(), "the observer saw every halted path");
}

#[test]
fn optimised_bitcode_explores_and_replays() {
    // -O2 turns branches into selects (ite expressions, fewer paths) and
    // revision tests into switches and selects; every test still replays.
    for f in ["get_sign.c", "array_index.c", "meta.c", "meta_outputs.c", "pointers.c", "loops.c"] {
        let e = build_at(&common::fixture(&format!("symbolic/{f}")), true);
        let mut ex = Executor::new(&e.module, ExecConfig::default()).unwrap();
        let s = ex.run();
        assert!(s.paths.iter().any(|p| matches!(p.termination, Termination::Exit { .. })), "{f}");
        let runs = common::replay_paths(&mut ex, &s.paths, &e.bin, e.dir.path());
        assert!(runs > 0, "{f}");
        for p in &s.paths {
            for c in &p.constraints {
                assert!(!ex.pool.mentions_revision(*c), "{f}: a path constraint mentions the revision");
            }
        }
    }
}

#[test]
fn external_calls_run_natively_when_asked() {
    use psychic::exec::ExternalCalls;
    let (_dir, m) = module_from(
        "ext.c",
        "#include <ctype.h>\n#include <stdlib.h>\nint main(void) { volatile int c = 'q'; return toupper(c) + labs(-3L); }\n",
        &["-fno-builtin"],
    );
    let s = Executor::new(&m, ExecConfig::default()).unwrap().run();
    assert_eq!(kinds(&s.paths).get("external"), Some(&1));
    let mut ex =
        Executor::new(&m, ExecConfig { external_calls: ExternalCalls::Native, ..ExecConfig::default() })
            .unwrap();
    let s = ex.run();
    match s.paths[0].termination {
        Termination::Exit { status } => assert_eq!(ex.pool.as_const(status), Some(u128::from(b'Q') + 3)),
        ref t => panic!("{t:?}"),
    }
    assert!(s.warnings.iter().any(|w| w.contains("toupper")), "{:?}", s.warnings);
}

#[test]
fn write_at_symbolic_offset_reads_back_through_the_array() {
    explore("symbolic/symbolic_write.c", ExecConfig::default(), |ex, s| {
        // i == 2 returns 1; otherwise a[3] is read back as a symbolic value
        // (8 when i == 3, else 1) without a fork. Replay checks both.
        let statuses: Vec<Option<u128>> = s
            .paths
            .iter()
            .map(|p| match p.termination {
                Termination::Exit { status } => ex.pool.as_const(status),
                ref t => panic!("{t:?}"),
            })
            .collect();
        assert_eq!(statuses.len(), 2);
        assert!(statuses.contains(&Some(1)) && statuses.contains(&None), "{statuses:?}");
    });
}

#[test]
fn klee_range_and_klee_int_make_inputs_the_native_runtime_replays() {
    explore("symbolic/ranges.c", ExecConfig::default(), |_, s| {
        assert_eq!(s.paths.len(), 2);
        for p in &s.paths {
            let names: Vec<&str> = p.symbolics.iter().map(|o| o.name.as_str()).collect();
            assert_eq!(names, vec!["x", "y", "z"]);
        }
    });
}

#[test]
fn unify_style_or_chains_keep_sharing_revisions_together() {
    for opt2 in [false, true] {
        let e = build_at(&common::fixture("symbolic/meta_chain.c"), opt2);
        let mut ex = Executor::new(&e.module, ExecConfig::default()).unwrap();
        let s = ex.run();
        // {0,2} and {1} part at site 1 and stay so; each forks on the input.
        let mut sets: Vec<RevSet> = s.paths.iter().map(|p| p.revisions.clone()).collect();
        sets.sort();
        let r02: RevSet = [0, 2].into_iter().collect();
        let r1 = RevSet::singleton(1);
        assert_eq!(sets, vec![r1.clone(), r1, r02.clone(), r02], "opt2={opt2}");
        common::replay_paths(&mut ex, &s.paths, &e.bin, e.dir.path());
    }
}

#[test]
fn meta_in_sets_split_the_revisions_once() {
    let e = build_at(&common::fixture("symbolic/meta_in.c"), false);
    let mut ex = Executor::new(&e.module, ExecConfig::default()).unwrap();
    let s = ex.run();
    let mut sets: Vec<RevSet> = s.paths.iter().map(|p| p.revisions.clone()).collect();
    sets.sort();
    let set = |rs: &[u32]| rs.iter().copied().collect::<RevSet>();
    let (a, b, c) = (set(&[0, 2, 5, 7, 8]), set(&[1, 3, 4, 6]), set(&[9]));
    let mut expected = vec![a.clone(), a, b.clone(), b, c.clone(), c];
    expected.sort();
    assert_eq!(sets, expected);
    common::replay_paths(&mut ex, &s.paths, &e.bin, e.dir.path());
}

/// Hybrid fuzzing, the engine's half: the branch a fuzzer's input leaves
/// runs first, once (Driller's step). `fixtures/hybrid/p1.c` alone; two
/// inputs wait in the inbox: the rare record (tag 48611), and a newer one
/// of the common kind, whose path forks 24 times while the rare record's
/// other side waits; depth first, those forks' subtrees (2^24 paths) would
/// come before it, and it holds the one value in 2^32 that prints "rare 0".
#[test]
fn the_branch_off_a_fuzzers_input_runs_first() {
    use psychic::ktest::{KTest, Object};
    let e = build(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hybrid/p1.c"));
    let input = |tag: u32, flags: u8| KTest {
        args: vec!["p1".into()],
        sym_argvs: 0,
        sym_argv_len: 0,
        objects: vec![
            Object { name: "tag".into(), bytes: tag.to_le_bytes().to_vec() },
            Object { name: "flags".into(), bytes: vec![flags; 24] },
            Object { name: "value".into(), bytes: vec![0; 4] },
        ],
    };
    let inbox = psychic::exec::SeedInbox::default();
    inbox.offer(input(48611, 0));
    inbox.offer(input(0xb5b5_b5b5, 0xb5));
    let cfg = ExecConfig {
        search: SearchKind::Dfs,
        max_instructions: Some(2_000_000),
        seed_inbox: Some(inbox),
        ..ExecConfig::default()
    };
    let mut ex = Executor::new(&e.module, cfg).unwrap();
    let s = ex.run();
    assert_eq!(s.stats.inbox_seeds, 2);
    let rare_zero = |p: &&HaltedPath| {
        p.outputs.iter().any(|o| matches!(o, OutputEvent::Text { bytes, .. } if bytes == b"rare 0\n"))
    };
    let found: Vec<HaltedPath> = s.paths.iter().filter(rare_zero).cloned().collect();
    assert_eq!(found.len(), 1, "{} paths; none printed \"rare 0\"", s.paths.len());
    common::replay_paths(&mut ex, &found, &e.bin, e.dir.path());
}

#[test]
fn select_between_constants_has_the_width_of_its_arms() {
    explore("symbolic/select_constants.c", ExecConfig::default(), |ex, s| {
        // A select does not fork (as in KLEE): one path, whose status is a
        // 32-bit choice.
        assert_eq!(s.stats.completed_paths(), 1);
        let Termination::Exit { status } = s.paths[0].termination else { panic!("an exit") };
        let n = s.paths[0].symbolics[0].array;
        for (input, expected) in [(3i32, 4u128), (0, 2), (-7, 2)] {
            let mut a = psychic::expr::Assignment::new();
            for (i, b) in input.to_le_bytes().iter().enumerate() {
                a.set_byte(n, i as u64, *b);
            }
            assert_eq!(ex.pool.width(status), 32);
            assert_eq!(ex.pool.eval(status, &a), expected, "n = {input}");
        }
    });
}

/// A size the input decides stays symbolic up to the cap (one exact path
/// for all of them); a larger one is a path of its own, concretised and
/// recorded.
#[test]
fn allocation_sizes_over_the_cap_are_concretised_and_recorded() {
    let code = "#include <klee/klee.h>\n#include <stdlib.h>\nint main(void) {\n  unsigned n;\n  \
                klee_make_symbolic(&n, sizeof n, \"n\");\n  char *p = malloc(n);\n  if (!p) return 1;\n  \
                p[0] = 1;\n  return p[0];\n}\n";
    let (_dir, m) = module_from("cap.c", code, &[]);
    let mut ex = Executor::new(&m, ExecConfig::default()).unwrap();
    let s = ex.run();
    assert_eq!(s.paths.len(), 2, "{:?}", s.paths.iter().map(|p| &p.termination).collect::<Vec<_>>());
    let exact: Vec<&HaltedPath> = s.paths.iter().filter(|p| p.approximations.is_empty()).collect();
    assert_eq!(exact.len(), 1, "sizes up to the cap are one exact path");
    let approximated = s.paths.iter().find(|p| !p.approximations.is_empty()).unwrap();
    assert!(
        approximated
            .approximations
            .iter()
            .any(|a| a.kind == ApproxKind::Concretised && a.what.contains("malloc size")),
        "{:?}",
        approximated.approximations
    );
}
