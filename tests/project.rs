//! `project`: the build capture and the revisions of a multi-file project,
//! on `fixtures/project/calc/` (a Makefile, a static library made by a
//! sub-make, two programs). Each test has a cache of its own, so that which
//! capture is fresh does not depend on the order tests run in. The fixture
//! builds with the system's `cc` at test time.

use std::path::{Path, PathBuf};

use crate::common::{calc_project as fixture, listing};
use psychic::project::{Capture, ProjectError, Revisions, capture_in, revisions};

fn patch(name: &str) -> PathBuf {
    fixture().join("patches").join(name)
}

/// A copy of the fixture, with `edit` applied to each of its files' texts.
fn edited_copy(edit: impl Fn(&Path, String) -> String) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let st =
        std::process::Command::new("cp").arg("-a").arg(fixture().join(".")).arg(tmp.path()).status().unwrap();
    assert!(st.success());
    for (p, _) in listing(tmp.path()) {
        if p.is_file() {
            let text = std::fs::read_to_string(&p).unwrap();
            let new = edit(p.strip_prefix(tmp.path()).unwrap(), text.clone());
            if new != text {
                std::fs::write(&p, new).unwrap();
            }
        }
    }
    tmp
}

fn capture(cache: &Path, dir: &Path, program: &str) -> Capture {
    capture_in(cache, dir, Path::new(program), "make").unwrap_or_else(|e| panic!("capture failed: {e}"))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn sources(c: &Capture) -> Vec<String> {
    c.units.iter().map(|u| u.source.display().to_string()).collect()
}

#[test]
fn capture_learns_units_flags_and_link_from_the_build() {
    let cache = tempfile::tempdir().unwrap();
    let before = listing(&fixture());
    let c = capture(cache.path(), &fixture(), "calc");
    assert_eq!(listing(&fixture()), before, "the capture wrote into the project directory");
    assert!(c.fresh);
    assert!(c.tree.starts_with(std::fs::canonicalize(cache.path()).unwrap()), "{}", c.tree.display());
    assert_eq!(c.program, Path::new("calc"));
    assert!(c.tree.join("calc").is_file());

    // The program's own objects first, then the archive members the linker
    // pulled: eval.o for calc_eval, then lex.o for what eval.o calls; never
    // fmt.o, which nothing calls, nor calc-version's tools/version.c.
    assert_eq!(sources(&c), ["src/main.c", "src/report.c", "lib/eval.c", "lib/lex.c"]);
    let t = |p: &str| c.tree.join(p);
    let inc = format!("-I{}", t("include").display());
    // From the top-level Makefile: CPPFLAGS and CFLAGS, without -MD -MF -MP.
    for u in &c.units[..2] {
        assert_eq!(u.dir, c.tree);
        assert_eq!(
            u.flags,
            strings(&[inc.as_str(), "-DNDEBUG", "-O1", "-g", "-Wall"]),
            "{}",
            u.source.display()
        );
    }
    // From lib/Makefile, run by a sub-make in lib/: -I../include made absolute.
    for u in &c.units[2..] {
        assert_eq!(u.dir, t("lib"));
        assert_eq!(u.flags, strings(&[inc.as_str(), "-DCALC_MAX_DEPTH=4", "-O2", "-Wall", "-std=c99"]));
    }
    let objects: Vec<PathBuf> = c.units.iter().map(|u| u.object.clone()).collect();
    assert_eq!(objects, [t("src/main.o"), t("src/report.o"), t("lib/eval.o"), t("lib/lex.o")]);
    for u in &c.units {
        assert!(u.object.is_file());
        // eval.c includes errors.c from beside itself.
        let mut want = vec![PathBuf::from("include/calc.h")];
        want.extend((u.source == Path::new("lib/eval.c")).then(|| PathBuf::from("lib/errors.c")));
        assert_eq!(u.headers, want, "{}", u.source.display());
    }
    // libcalc.a is the project's own: its members are units, -lcalc goes.
    assert_eq!(c.link.flags, strings(&[format!("-L{}", t("lib").display()).as_str(), "-lm"]));

    // The second call reuses the build: nothing is rebuilt.
    let stamp = |c: &Capture| std::fs::metadata(&c.units[0].object).unwrap().modified().unwrap();
    let first = stamp(&c);
    let again = capture(cache.path(), &fixture(), "calc");
    assert!(!again.fresh);
    assert_eq!(Capture { fresh: true, ..again.clone() }, c);
    assert_eq!(stamp(&again), first);

    // Another program of the same build comes from the same build.
    let version = capture(cache.path(), &fixture(), "calc-version");
    assert!(!version.fresh);
    assert_eq!(version.tree, c.tree);
    assert_eq!(sources(&version), ["tools/version.c"]);
    assert_eq!(version.units[0].flags, strings(&["-O1", "-g", "-Wall"]));
    assert!(version.link.flags.is_empty(), "{:?}", version.link.flags);
    assert_eq!(listing(&fixture()), before, "the capture wrote into the project directory");
}

#[test]
fn hard_coded_and_absolute_compilers_are_caught() {
    // `gcc` and `ar` written into the Makefiles: the wrappers on PATH see them.
    let plain = edited_copy(|p, text| {
        if p.ends_with("Makefile") { text.replace("$(CC)", "gcc").replace("$(AR)", "ar") } else { text }
    });
    let cache = tempfile::tempdir().unwrap();
    let c = capture(cache.path(), plain.path(), "calc");
    assert_eq!(sources(&c), ["src/main.c", "src/report.c", "lib/eval.c", "lib/lex.c"]);

    // Configured by absolute path, with a flag: only make's command line
    // reaches them, and the flag stays the unit's.
    let gcc = which::which("gcc").unwrap();
    let ar = which::which("ar").unwrap();
    let absolute = edited_copy(|p, text| {
        if p == Path::new("Makefile") {
            format!("CC = {} -std=gnu99\nAR = {}\n{text}", gcc.display(), ar.display())
        } else {
            text
        }
    });
    let c = capture(cache.path(), absolute.path(), "calc");
    assert_eq!(sources(&c), ["src/main.c", "src/report.c", "lib/eval.c", "lib/lex.c"]);
    assert_eq!(c.units[0].flags[0], "-std=gnu99", "{:?}", c.units[0].flags);
}

#[test]
fn a_compile_commands_json_gives_the_flags() {
    let dir = edited_copy(|_, text| text);
    let db = format!(
        r#"[{{"directory": "{d}", "file": "src/main.c", "command": "cc -I{d}/include -DFROM_DB -c -o src/main.o src/main.c"}}]"#,
        d = std::fs::canonicalize(dir.path()).unwrap().display()
    );
    std::fs::write(dir.path().join("compile_commands.json"), db).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let c = capture(cache.path(), dir.path(), "calc");
    let inc = format!("-I{}", c.tree.join("include").display());
    assert_eq!(c.units[0].flags, strings(&[inc.as_str(), "-DFROM_DB"]));
    assert_eq!(c.units[1].flags, strings(&[inc.as_str(), "-DNDEBUG", "-O1", "-g", "-Wall"]));
}

#[test]
fn revisions_of_the_patches() {
    let cache = tempfile::tempdir().unwrap();
    let c = capture(cache.path(), &fixture(), "calc");
    let diffs: Vec<PathBuf> = [
        "01-floor-division.diff",
        "02-digit-helper.diff",
        "03-rewrite-loops.diff",
        "04-unary-minus.diff",
        "05-rename-and-version.diff",
    ]
    .iter()
    .map(|n| patch(n))
    .collect();
    let Revisions { touched, notes } = revisions(&c, &diffs, &[]).unwrap();
    let units: Vec<&str> = touched.iter().map(|t| c.units[t.unit].source.to_str().unwrap()).collect();
    assert_eq!(units, ["src/main.c", "src/report.c", "lib/eval.c", "lib/lex.c"]);
    for t in &touched {
        let source = c.units[t.unit].source.display().to_string();
        let names: Vec<String> = t.sources.iter().map(|s| s.name.clone()).collect();
        let want: Vec<String> = (0..=5).map(|k| format!("rev{k}:{source}")).collect();
        assert_eq!(names, want);
        assert_eq!(t.sources[0].path, c.tree.join(&source));
        assert_eq!(t.sources[0].text, std::fs::read_to_string(c.tree.join(&source)).unwrap());
        for (k, s) in t.sources.iter().enumerate().skip(1) {
            assert_eq!(s.index, k);
            assert_eq!(s.path, diffs[k - 1]);
        }
    }
    let eval = &touched[2].sources;
    assert!(eval[1].text.contains("q--;"));
    assert_eq!(eval[2].text, eval[0].text);
    assert!(eval[3].text.contains("v += r;"));
    assert!(eval[4].text.contains("return -primary(p);"));
    assert_eq!(eval[5].text, eval[0].text);
    let main = &touched[0].sources;
    assert!(main[3].text.contains("for (;;)") && main[5].text.contains("int code;"));
    assert_eq!(main[1].text, main[0].text);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("05-rename-and-version.diff") && notes[0].contains("tools/version.c"),
        "{}",
        notes[0]
    );

    // A revision directory: the whole tree with patch 04 applied.
    let rev = edited_copy(|p, text| if p == Path::new("lib/eval.c") { eval[4].text.clone() } else { text });
    let r = revisions(&c, &[], &[rev.path().to_path_buf()]).unwrap();
    assert_eq!(r.touched.len(), 1);
    assert_eq!(r.touched[0].unit, touched[2].unit);
    assert_eq!(r.touched[0].sources[1].text, eval[4].text);
    assert_eq!(r.touched[0].sources[1].path, rev.path().join("lib/eval.c"));
    assert!(r.notes.is_empty());

    // A file that one unit includes from beside itself is touched as that
    // unit's (lib/eval.c includes errors.c, which no compile names).
    let r = revisions(&c, &[patch("06-error-words.diff"), patch("07-messages-as-ifs.diff")], &[]).unwrap();
    let files: Vec<(&str, &str)> = r
        .touched
        .iter()
        .map(|t| (t.file.to_str().unwrap(), c.units[t.unit].source.to_str().unwrap()))
        .collect();
    assert_eq!(files, [("lib/eval.c", "lib/eval.c"), ("lib/errors.c", "lib/eval.c")]);
    let errors = &r.touched[1].sources;
    assert_eq!(errors[0].name, "rev0:lib/errors.c");
    assert!(errors[1].text.contains("divided by zero") && errors[2].text.contains("if (code == E_SYNTAX)"));
    assert_eq!(r.touched[0].sources[1].text, r.touched[0].sources[0].text);
}

/// The error of `r`, printed as the command line would print it.
fn message<T: std::fmt::Debug>(r: Result<T, ProjectError>) -> (ProjectError, String) {
    let e = r.expect_err("an error");
    let m = e.to_string();
    (e, m)
}

#[test]
fn bad_diffs_are_errors_that_name_the_diff_and_the_file() {
    let cache = tempfile::tempdir().unwrap();
    let c = capture(cache.path(), &fixture(), "calc");
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };

    let stale = write(
        "stale.diff",
        "--- a/lib/eval.c\n+++ b/lib/eval.c\n@@ -1,3 +1,3 @@\n-/* no such line */\n+/* new */\n #include \"calc.h\"\n \n",
    );
    let (e, m) = message(revisions(&c, std::slice::from_ref(&stale), &[]));
    assert!(matches!(e, ProjectError::DiffDoesNotApply { ref file, .. } if file == "lib/eval.c"), "{m}");
    assert!(m.starts_with(&stale.display().to_string()) && m.contains("lib/eval.c"), "{m}");

    let missing = write("missing.diff", "--- a/src/gone.c\n+++ b/src/gone.c\n@@ -1 +1 @@\n-a\n+b\n");
    let (e, m) = message(revisions(&c, &[missing], &[]));
    assert!(matches!(e, ProjectError::DiffDoesNotApply { ref file, .. } if file == "src/gone.c"), "{m}");

    let header = write(
        "header.diff",
        "--- a/include/calc.h\n+++ b/include/calc.h\n@@ -1,2 +1,2 @@\n-/* calc: integer expressions read from stdin. */\n+/* calc. */\n #ifndef CALC_H\n",
    );
    let (e, m) = message(revisions(&c, &[header], &[]));
    assert!(matches!(e, ProjectError::TouchesHeader { .. }), "{m}");
    assert!(m.contains("include/calc.h") && m.contains("header"), "{m}");

    let outside = write("outside.diff", "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n");
    assert!(matches!(revisions(&c, &[outside], &[]), Err(ProjectError::DiffPath { .. })));
    assert!(matches!(
        revisions(&c, &[write("empty.diff", "hello\n")], &[]),
        Err(ProjectError::EmptyDiff { .. })
    ));
    assert!(matches!(revisions(&c, &[tmp.path().join("nope.diff")], &[]), Err(ProjectError::Io { .. })));
    assert!(matches!(revisions(&c, &[], &[]), Err(ProjectError::NoRevisions { .. })));
    assert!(matches!(
        revisions(&c, &[], &[tmp.path().join("nodir")]),
        Err(ProjectError::NoRevisionDir { .. })
    ));
}

#[test]
fn a_failing_build_and_a_missing_program_are_errors() {
    let cache = tempfile::tempdir().unwrap();
    let broken = edited_copy(|p, text| {
        if p == Path::new("src/report.c") { text.replace("void report", "void report(") } else { text }
    });
    let (e, m) = message(capture_in(cache.path(), broken.path(), Path::new("calc"), "make"));
    assert!(matches!(e, ProjectError::Build { .. }), "{m}");
    assert!(m.contains("`make` failed") && m.contains("report.c"), "{m}");

    let (e, m) = message(capture_in(cache.path(), &fixture(), Path::new("calc-nope"), "make"));
    assert!(matches!(e, ProjectError::NotBuilt { .. }), "{m}");
    assert!(m.starts_with("calc-nope: the build `make` did not make it"), "{m}");

    let (e, _) = message(capture_in(cache.path(), Path::new("/no/such/dir"), Path::new("calc"), "make"));
    assert!(matches!(e, ProjectError::NoDir { .. }));
    let (e, _) = message(capture_in(cache.path(), &fixture(), Path::new("../calc"), "make"));
    assert!(matches!(e, ProjectError::ProgramOutside { .. }));
    let (e, m) = message(capture_in(cache.path(), &fixture(), Path::new("calc"), "make no-such-target"));
    assert!(matches!(e, ProjectError::Build { .. }), "{m}");
}
