//! Shared test support: compiling C fixtures with clang 19 at test time
//! (natively and to bitcode), running the engine, building C files in
//! parallel, and the revision-fidelity check that compares the meta program
//! with each revision's own binary.

#![allow(dead_code)]

pub mod corpus;
pub mod handwritten;
pub mod hard;
pub mod mutate;
pub mod sweep;
pub mod truth;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use psychic::compile::{NativeOptions, Toolchain};
use psychic::exec::{ExecConfig, Executor, HaltedPath, OutputEvent, RunSummary, Stream, Termination};
use psychic::ir::Module;
use psychic::ktest::KTest;
use psychic::replay::{self, Outcome};
use psychic::unify::{self, MetaProgram, RevisionSource};

/// clang 19 with warnings as errors: revisions and meta programs alike must
/// compile cleanly under `-Wall`.
pub fn strict_toolchain() -> Toolchain {
    Toolchain::discover().expect("clang 19").with_flags(["-Wall", "-Werror"])
}

/// The value `make` gives for `key`, made once per test process: a set's
/// truth (every input run natively on every revision, minutes for the hard
/// corpus) is asked for by the test that checks every set's truth and by
/// the set's own test.
pub fn once_per_process<T: Send + Sync + 'static>(key: &str, make: impl FnOnce() -> T) -> std::sync::Arc<T> {
    use std::any::Any;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Made = Arc<dyn Any + Send + Sync>;
    static MADE: Mutex<Option<HashMap<String, Made>>> = Mutex::new(None);
    // Held while `make` runs: a second asker waits instead of making it too.
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    let value =
        made.get_or_insert_with(HashMap::new).entry(key.to_string()).or_insert_with(|| Arc::new(make()));
    Arc::clone(value).downcast::<T>().unwrap_or_else(|_| panic!("{key}: made before as another type"))
}

/// Every file below `dir` with its size and modification time: a directory
/// psychic must not write into is compared before and after.
pub fn listing(dir: &Path) -> std::collections::BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p, (m.len(), m.modified().unwrap()));
        }
    }
    out
}

/// `f` over `items` on every core, in order: the library's own.
pub use psychic::compile::in_parallel as par_map;

/// Writes `text` to `path` (bytes that are not UTF-8 as they were read, see
/// [`unify::decode`]) and builds it natively; the binary's path, or the
/// compiler's diagnostics.
pub fn build(tc: &Toolchain, path: &Path, text: &str) -> Result<PathBuf, String> {
    std::fs::write(path, unify::encode(text)).map_err(|e| e.to_string())?;
    let bin = path.with_extension("bin");
    tc.native(path, &bin, &NativeOptions::default()).map_err(|e| e.to_string())?;
    Ok(bin)
}

/// Writes `tests` into `dir` as `test0.ktest`, `test1.ktest`, ...
pub fn write_tests(dir: &Path, tests: &[KTest]) -> Vec<PathBuf> {
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = dir.join(format!("test{i}.ktest"));
            t.write(&p).unwrap();
            p
        })
        .collect()
}

pub fn sources(files: &[(String, String)]) -> Vec<RevisionSource> {
    files
        .iter()
        .enumerate()
        .map(|(index, (name, text))| RevisionSource {
            index,
            name: name.clone(),
            path: PathBuf::from(name),
            text: text.clone(),
        })
        .collect()
}

fn run(bin: &Path, ktest: &Path, revision: usize) -> Outcome {
    let mut req = replay::Request::new(bin, Some(ktest), revision);
    req.timeout = Duration::from_secs(5);
    replay::run(&req).unwrap_or_else(|e| panic!("{}: cannot run: {e}", bin.display()))
}

fn show(o: &Outcome) -> String {
    format!("{} with stdout {:?}", o.status_text(), String::from_utf8_lossy(&o.stdout))
}

/// Revision fidelity: unifies `sources`, builds the meta program in `dir`, and
/// runs it as every revision on every test, against `own[k]`, revision k's own
/// binary. Returns the meta program and the number of runs compared.
pub fn check_fidelity(
    tc: &Toolchain,
    dir: &Path,
    sources: &[RevisionSource],
    own: &[PathBuf],
    tests: &[PathBuf],
) -> Result<(MetaProgram, usize), String> {
    let meta = unify::unify(sources).map_err(|e| format!("unify failed: {e}"))?;
    let meta_c = dir.join("meta.c");
    let meta_bin =
        build(tc, &meta_c, &meta.text).map_err(|e| format!("the meta program does not build: {e}"))?;
    let mut compared = 0;
    for test in tests {
        for (k, bin) in own.iter().enumerate() {
            let want = run(bin, test, k);
            let got = run(&meta_bin, test, k);
            let same = want.stdout == got.stdout
                && want.exit_status == got.exit_status
                && want.signal == got.signal
                && want.timed_out == got.timed_out;
            if !same {
                return Err(format!(
                    "revision {k} ({}) on {}: own build gives {}, meta program gives {}",
                    sources[k].name,
                    test.display(),
                    show(&want),
                    show(&got)
                ));
            }
            compared += 1;
        }
    }
    Ok((meta, compared))
}

pub fn toolchain() -> &'static Toolchain {
    static TC: OnceLock<Toolchain> = OnceLock::new();
    TC.get_or_init(|| Toolchain::discover().expect("clang 19 is needed by the engine tests"))
}

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c").join(rel)
}

/// `fixtures/project/calc/`, the project of several files that
/// tests/project.rs and tests/project_diff.rs build.
pub fn calc_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/project/calc")
}

/// Bitcode as `psychic` builds it (`-O0 -g`, no optnone), or at `-O2` with
/// `opt2`; extra flags (such as csmith's include path) go first.
pub fn bitcode(src: &Path, dir: &Path, opt2: bool, extra: &[&str]) -> PathBuf {
    let out = output(src, dir, opt2, "bc");
    if !opt2 && extra.is_empty() {
        toolchain().bitcode(src, &out).unwrap_or_else(|e| panic!("{e}"));
        return out;
    }
    let level: &[&str] = if opt2 { &["-O2"] } else { &["-O0", "-Xclang", "-disable-O0-optnone"] };
    clang(src, &out, extra, &[&["-c", "-emit-llvm", "-g"], level].concat());
    out
}

/// A native build of `src`, linked with psychic's replay runtime when
/// plain, at `-O2` with `opt2` (csmith programs and plain C need no runtime).
pub fn native(src: &Path, dir: &Path, opt2: bool, extra: &[&str]) -> PathBuf {
    let out = output(src, dir, opt2, "native");
    if !opt2 && extra.is_empty() {
        toolchain().native(src, &out, &NativeOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        return out;
    }
    clang(src, &out, extra, &[if opt2 { "-O2" } else { "-O0" }]);
    out
}

/// A native build linked with libm (after the source, where the linker
/// needs it), with `extra` flags.
pub fn native_with_libm(src: &Path, dir: &Path, opt2: bool, extra: &[&str]) -> PathBuf {
    let out = output(src, dir, opt2, "native");
    clang_with(src, &out, extra, &[if opt2 { "-O2" } else { "-O0" }], &["-lm"]);
    out
}

fn output(src: &Path, dir: &Path, opt2: bool, ext: &str) -> PathBuf {
    let stem = src.file_stem().unwrap().to_string_lossy();
    dir.join(format!("{stem}{}.{ext}", if opt2 { "-O2" } else { "" }))
}

fn clang(src: &Path, out: &Path, extra: &[&str], args: &[&str]) {
    clang_with(src, out, extra, args, &[]);
}

/// clang with psychic's include path: `extra` and `args` before the source,
/// `libs` after it.
fn clang_with(src: &Path, out: &Path, extra: &[&str], args: &[&str], libs: &[&str]) {
    let tc = toolchain();
    let st = Command::new(tc.clang())
        .arg("-I")
        .arg(tc.include_dir())
        .args(extra)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(src)
        .args(libs)
        .output()
        .expect("run clang");
    assert!(
        st.status.success(),
        "clang failed on {}: {}",
        src.display(),
        String::from_utf8_lossy(&st.stderr)
    );
}

/// Runs the engine on a bitcode file.
pub fn run_engine(bc: &Path, cfg: ExecConfig) -> (Module, RunSummary) {
    let m = Module::load(bc).unwrap_or_else(|e| panic!("{e}"));
    let summary = {
        let mut ex = Executor::new(&m, cfg).unwrap_or_else(|e| panic!("{e}"));
        ex.run()
    };
    (m, summary)
}

/// The concrete stdout of a path (every event must be concrete text).
pub fn stdout_of(p: &HaltedPath) -> Vec<u8> {
    let mut out = Vec::new();
    for ev in &p.outputs {
        match ev {
            OutputEvent::Text { stream: Stream::Stdout, bytes } => out.extend_from_slice(bytes),
            OutputEvent::Text { .. } => {}
            OutputEvent::Format { .. } => panic!("a concrete run made a symbolic printf event"),
        }
    }
    out
}

/// `Some(status)` for an exit with a concrete status.
pub fn exit_status(
    p: &HaltedPath,
    pool_const: impl Fn(psychic::expr::ExprId) -> Option<u128>,
) -> Option<i32> {
    match &p.termination {
        Termination::Exit { status } => pool_const(*status).map(|s| s as u32 as i32),
        _ => None,
    }
}

/// Runs a native binary without inputs; `None` if it took longer than `secs`.
pub fn run_native(bin: &Path, secs: u64) -> Option<psychic::replay::Outcome> {
    let mut req = psychic::replay::Request::new(bin, None, 0);
    req.timeout = std::time::Duration::from_secs(secs);
    let out = psychic::replay::run(&req).expect("run native binary");
    (!out.timed_out).then_some(out)
}

/// Replays every path that has a test (exit or error) natively, once per
/// revision of the path, and checks the native outcome: exit status and
/// stdout for exits, a crash for errors. Returns how many runs replayed.
pub fn replay_paths(ex: &mut Executor, paths: &[HaltedPath], bin: &Path, dir: &Path) -> usize {
    use psychic::expr::Assignment;
    use psychic::ktest::{KTest, Object};
    let mut runs = 0;
    for (i, p) in paths.iter().enumerate() {
        if matches!(p.termination, Termination::Silent | Termination::Early { .. }) {
            continue;
        }
        let arrays: Vec<_> = p.symbolics.iter().map(|s| s.array).collect();
        let model = ex
            .solver
            .get_model(&ex.pool, &p.constraints, &arrays)
            .unwrap()
            .expect("a halted path is feasible");
        let mut assignment = Assignment::new();
        let mut kt = KTest { args: vec!["program".into()], ..KTest::default() };
        for (s, bytes) in p.symbolics.iter().zip(model) {
            assignment.set_bytes(s.array, &bytes);
            kt.objects.push(Object { name: s.name.clone(), bytes });
        }
        let ktest = dir.join(format!("test{i:06}.ktest"));
        kt.write(&ktest).unwrap();
        let expected: Vec<u8> = p
            .outputs
            .iter()
            .filter(|e| e.stream() == Stream::Stdout)
            .flat_map(|e| e.render(&ex.pool, &assignment))
            .collect();
        for r in p.revisions.iter() {
            let req = psychic::replay::Request::new(bin, Some(&ktest), r as usize);
            let out = psychic::replay::run(&req).unwrap();
            match &p.termination {
                Termination::Exit { status } => {
                    let s = ex.pool.eval(*status, &assignment) as i32 & 0xff;
                    assert_eq!(
                        out.exit_status,
                        Some(s),
                        "path {i} revision {r}: {kt:?} {}",
                        out.status_text()
                    );
                    assert_eq!(
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&expected),
                        "path {i} revision {r}: stdout of {kt:?}"
                    );
                }
                Termination::Error { kind, .. } => {
                    assert!(
                        out.signal.is_some(),
                        "path {i} ({kind}) revision {r}: native {} on {kt:?}",
                        out.status_text()
                    );
                }
                _ => unreachable!(),
            }
            runs += 1;
        }
    }
    runs
}

/// What a native run did, as behaviour: stdout, exit status, signal.
pub type NativeOutcome = (Vec<u8>, Option<i32>, Option<i32>);

/// clang 19 whose native builds carry the fork server (`forkserver.c`), which
/// runs a program on a list of tests with one fork each instead of one
/// process start each.
fn forkserver_toolchain() -> &'static Toolchain {
    static TC: OnceLock<(Toolchain, tempfile::TempDir)> = OnceLock::new();
    &TC.get_or_init(|| {
        let (obj, dir) = support_object("forkserver.c", include_str!("forkserver.c"));
        (Toolchain::discover().expect("clang 19").with_flags([obj]), dir)
    })
    .0
}

/// A C file of test support (`text`, named `name`) compiled to an object
/// file, in a directory that must live as long as the object is linked.
fn support_object(name: &str, text: &str) -> (PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    std::fs::write(&src, text).unwrap();
    let obj = src.with_extension("o");
    clang(&src, &obj, &[], &["-c", "-O1"]);
    (obj, dir)
}

/// Each of `revisions` (C files) built natively and run on every input:
/// `[revision][input]`.
pub fn native_outcomes(revisions: &[PathBuf], inputs: &[KTest]) -> Vec<Vec<NativeOutcome>> {
    native_outcomes_as(revisions, inputs, &NativeOptions::default())
}

/// [`native_outcomes`] of builds made with `opts`; with AddressSanitizer, a
/// memory error aborts the run (SIGABRT), as in psychic's replay, where a
/// plain build goes on with whatever memory holds.
pub fn native_outcomes_as(
    revisions: &[PathBuf],
    inputs: &[KTest],
    opts: &NativeOptions,
) -> Vec<Vec<NativeOutcome>> {
    let tc = forkserver_toolchain();
    let dir = tempfile::tempdir().unwrap();
    let ktests = write_tests(dir.path(), inputs);
    let list = dir.path().join("tests.list");
    let lines: Vec<String> = ktests.iter().map(|k| k.display().to_string()).collect();
    std::fs::write(&list, lines.join("\n") + "\n").unwrap();
    par_map(&revisions.iter().enumerate().collect::<Vec<_>>(), |(i, src)| {
        let bin = dir.path().join(format!("rev{i}"));
        tc.native(src, &bin, opts).unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new(&bin)
            .env("PSYCHIC_FORKSERVER", &list)
            .env("ASAN_OPTIONS", psychic::replay::ASAN_OPTIONS)
            .output()
            .expect("run the fork server");
        assert!(out.status.success(), "{}: the fork server failed: {}", src.display(), out.status);
        let outcomes = parse_forkserver(&out.stdout);
        assert_eq!(outcomes.len(), inputs.len(), "{}: one outcome per input", src.display());
        outcomes
    })
}

/// The fork server's records: `"STATUS SIGNAL LEN\n"` and LEN bytes of stdout each.
fn parse_forkserver(mut out: &[u8]) -> Vec<NativeOutcome> {
    let mut outcomes = Vec::new();
    while !out.is_empty() {
        let nl = out.iter().position(|&b| b == b'\n').expect("a record header");
        let header = std::str::from_utf8(&out[..nl]).unwrap();
        let f: Vec<i64> = header.split(' ').map(|x| x.parse().unwrap()).collect();
        let len = f[2] as usize;
        let stdout = out[nl + 1..nl + 1 + len].to_vec();
        out = &out[nl + 1 + len..];
        outcomes.push((stdout, (f[0] >= 0).then_some(f[0] as i32), (f[1] != 0).then_some(f[1] as i32)));
    }
    outcomes
}

/// The partition of revisions by their behaviour on each input
/// (`[revision][input]`): revisions that agree on every input share a
/// cluster; clusters are sorted and ordered by smallest member, as in
/// report.json.
pub fn partition<T: PartialEq>(rows: &[Vec<T>]) -> Vec<Vec<usize>> {
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for r in 0..rows.len() {
        match clusters.iter_mut().find(|c| rows[c[0]] == rows[r]) {
            Some(c) => c.push(r),
            None => clusters.push(vec![r]),
        }
    }
    clusters
}

/// How a found partition compares with the true one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Pairs of revisions that differ but were put in one cluster.
    pub merged: Vec<(usize, usize)>,
    /// Pairs of revisions that behave alike but were told apart: a soundness bug.
    pub split: Vec<(usize, usize)>,
}

impl Verdict {
    pub fn new(truth: &[Vec<usize>], found: &[Vec<usize>]) -> Verdict {
        let cluster_of = |p: &[Vec<usize>], r: usize| p.iter().position(|c| c.contains(&r));
        let n = truth.iter().map(Vec::len).sum::<usize>();
        let mut v = Verdict { merged: Vec::new(), split: Vec::new() };
        for a in 0..n {
            for b in a + 1..n {
                let same_truth = cluster_of(truth, a) == cluster_of(truth, b);
                let same_found = cluster_of(found, a) == cluster_of(found, b);
                match (same_truth, same_found) {
                    (false, true) => v.merged.push((a, b)),
                    (true, false) => v.split.push((a, b)),
                    _ => {}
                }
            }
        }
        v
    }

    pub fn exact(&self) -> bool {
        self.merged.is_empty() && self.split.is_empty()
    }
}

/// Runs a command that must succeed; its stdout.
fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The paths of a fixture with `bytes` input bytes, counted natively: the
/// distinct basic-block traces over every input (tests/c/native/enumerate.c).
/// With `model`, the libc model's C code replaces glibc's, traced too.
pub fn native_path_count(src: &Path, bytes: u32, model: bool, dir: &Path) -> u64 {
    let tc = toolchain();
    let rt = psychic::runtime::Installed::new().unwrap();
    let bin = dir.join("enumerate");
    let mut traced = vec![(src.to_path_buf(), "-Dmain=fixture_main")];
    if model {
        traced.extend(rt.libc_model_native_sources().into_iter().map(|p| (p, "-fno-builtin")));
    }
    let mut objects = Vec::new();
    for (i, (c, flag)) in traced.iter().enumerate() {
        let obj = dir.join(format!("traced{i}.o"));
        run_ok(
            Command::new(tc.clang())
                .args(["-O0", "-w", "-fsanitize-coverage=bb,trace-pc-guard", flag, "-c", "-I"])
                .arg(tc.include_dir())
                .arg(c)
                .arg("-o")
                .arg(&obj),
        );
        objects.push(obj);
    }
    count_with("native/enumerate.c", &objects, &bin, &[&bytes.to_string()]) as u64
}

/// Links traced objects with a counting driver, runs it, and reads the count
/// it prints.
fn count_with(driver: &str, objects: &[PathBuf], bin: &Path, args: &[&str]) -> usize {
    run_ok(
        Command::new(toolchain().clang())
            .args(["-O2", "-w"])
            .arg(fixture(driver))
            .args(objects)
            .arg("-o")
            .arg(bin),
    );
    String::from_utf8(run_ok(Command::new(bin).args(args))).unwrap().trim().parse().unwrap()
}

/// The number of distinct basic-block traces of `match` over every pattern,
/// counted natively (tests/c/native/trace_count.c): the paths there are.
pub fn native_trace_count() -> usize {
    let dir = tempfile::tempdir().unwrap();
    let tc = toolchain();
    let obj = dir.path().join("rx.o");
    let bin = dir.path().join("trace_count");
    run_ok(
        Command::new(tc.clang())
            .args(["-O0", "-w", "-fsanitize-coverage=trace-pc-guard", "-Dmain=regexp_main", "-c", "-I"])
            .arg(tc.include_dir())
            .arg(fixture("symbolic/regexp.c"))
            .arg("-o")
            .arg(&obj),
    );
    count_with("native/trace_count.c", &[obj], &bin, &[])
}

/// The true partition of `revisions` (C files) over `inputs`: each revision's
/// own file built natively and run on every input; revisions whose stdout and
/// exit status agree on every input share a cluster.
pub fn native_partition(revisions: &[PathBuf], inputs: &[KTest]) -> Vec<Vec<usize>> {
    partition(&native_outcomes(revisions, inputs))
}
