//! Bad input: one clear line with a location, exit status 2, no panic, and no
//! output file (an existing one is left alone).

use std::path::{Path, PathBuf};
use std::process::Command;

const GOOD: &str = "#include <stdio.h>\n#include <klee/klee.h>\n\nint main(void) {\n    int x;\n    klee_make_symbolic(&x, sizeof x, \"x\");\n    printf(\"%d\\n\", x > 10);\n    return 0;\n}\n";

struct Run {
    code: i32,
    stderr: String,
    out: PathBuf,
    untouched: bool,
}

/// Runs `psychic unify ARGS -o out.c` in `dir` with a pre-existing `out.c`.
fn unify(dir: &Path, args: &[&str]) -> Run {
    let out = dir.join("out.c");
    std::fs::write(&out, "sentinel").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .current_dir(dir)
        .arg("unify")
        .args(args)
        .args(["-o", "out.c", "--map", "out.json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let untouched = std::fs::read_to_string(&out).unwrap() == "sentinel" && !dir.join("out.json").exists();
    Run { code: o.status.code().unwrap_or(-1), stderr, out, untouched }
}

fn setup(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// Fails with one line naming `location` and saying `what`.
fn assert_refused(r: &Run, location: &str, what: &str) {
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "not one line: {}", r.stderr);
    let line = r.stderr.trim_end();
    assert!(line.starts_with(&format!("psychic: error: {location}")), "expected `{location}` first: {line}");
    assert!(line.contains(what), "expected `{what}` in: {line}");
    assert!(r.untouched, "the output was written despite the error");
    // Nothing else lands beside it either.
    let leftovers: Vec<_> = std::fs::read_dir(r.out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_missing_file() {
    let dir = setup(&[("orig.c", GOOD)]);
    assert_refused(&unify(dir.path(), &["orig.c", "nope.c"]), "nope.c: ", "No such file");
}

#[test]
fn a_syntax_error() {
    let bad = GOOD.replace("int x;", "int x");
    let dir = setup(&[("orig.c", GOOD), ("bad.c", &bad)]);
    assert_refused(
        &unify(dir.path(), &["orig.c", "bad.c"]),
        "bad.c:5:10: ",
        "syntax error: expected `;` after `int x`",
    );
    let worse = GOOD.replace("x > 10", "x > > 10");
    let dir = setup(&[("orig.c", GOOD), ("bad.c", &worse)]);
    assert_refused(&unify(dir.path(), &["orig.c", "bad.c"]), "bad.c:7:", "syntax error: unexpected `>`");
}

#[test]
fn a_diff_that_does_not_apply() {
    let diff = "--- a/orig.c\n+++ b/orig.c\n@@ -5,3 +5,3 @@\n     int x;\n     klee_make_symbolic(&x, sizeof x, \"y\");\n-    printf(\"%d\\n\", x > 10);\n+    printf(\"%d\\n\", x > 20);\n";
    let dir = setup(&[("orig.c", GOOD), ("p.diff", diff)]);
    let r = unify(dir.path(), &["orig.c", "--diff", "p.diff"]);
    assert_refused(&r, "p.diff:3:1: ", "hunk @@ -5,3 +5,3 @@ does not apply to orig.c: line 5 expects");
    assert!(r.stderr.contains("orig.c:6 is `    klee_make_symbolic(&x, sizeof x, \"x\");`"), "{}", r.stderr);
}

#[test]
fn a_file_that_is_not_text() {
    let dir = setup(&[("orig.c", GOOD)]);
    std::fs::write(dir.path().join("bin.c"), b"int x;\nint \xff\xfe y;\n").unwrap();
    // Bytes that are not UTF-8 are kept, but not where C wants a name.
    assert_refused(&unify(dir.path(), &["orig.c", "bin.c"]), "bin.c:2:5: ", "syntax error");
}

#[test]
fn only_one_revision() {
    let dir = setup(&[("orig.c", GOOD)]);
    assert_refused(&unify(dir.path(), &["orig.c"]), "orig.c:1:1: ", "only one revision");
}

#[test]
fn identical_revisions_are_a_note_not_an_error() {
    let dir = setup(&[("orig.c", GOOD), ("same.c", GOOD)]);
    let r = unify(dir.path(), &["orig.c", "same.c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("psychic: note: all revisions are identical"), "{}", r.stderr);
    let text = std::fs::read_to_string(&r.out).unwrap();
    assert!(text.contains("const int __psychic_revisions = 2;") && !text.contains("__klee_meta("));
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap()).unwrap();
    assert_eq!(map["sites"].as_array().unwrap().len(), 0);
}

#[test]
fn unmergeable_preprocessor_differences() {
    // A conditional block only one revision has.
    let ifdef = GOOD
        .replace("int main(void) {", "#ifdef VERBOSE\nstatic int verbose = 1;\n#endif\n\nint main(void) {");
    let dir = setup(&[("orig.c", GOOD), ("p1.c", &ifdef)]);
    assert_refused(
        &unify(dir.path(), &["orig.c", "p1.c"]),
        "p1.c:4:1: ",
        "`#ifdef VERBOSE` is only in revision(s) 1 (p1.c:4)",
    );
    // A macro whose value differs and that another directive reads.
    let limit = |v: &str| {
        GOOD.replace(
            "#include <stdio.h>\n",
            &format!("#include <stdio.h>\n#define LIMIT {v}\n#if LIMIT > 5\n#define BIG 1\n#endif\n"),
        )
    };
    let dir = setup(&[("orig.c", &limit("10")), ("p1.c", &limit("3"))]);
    assert_refused(&unify(dir.path(), &["orig.c", "p1.c"]), "orig.c:3:1: ", "`LIMIT` is defined differently");
    // A macro defined inside a function by one revision only.
    let inner = GOOD.replace("    int x;\n", "    int x;\n#define SHOW 1\n");
    let dir = setup(&[("orig.c", GOOD), ("p1.c", &inner)]);
    assert_refused(&unify(dir.path(), &["orig.c", "p1.c"]), "p1.c:6:1: ", "cannot confine a #define");
    // A local header without a guard only one revision includes.
    let local = GOOD.replace("#include <stdio.h>\n", "#include <stdio.h>\n#include \"config.h\"\n");
    let dir = setup(&[("orig.c", GOOD), ("p1.c", &local), ("config.h", "")]);
    assert_refused(
        &unify(dir.path(), &["orig.c", "p1.c"]),
        "p1.c:2:1: ",
        "`#include \"config.h\"` is included here only by revision(s) 1 (p1.c:2); ./config.h has no include guard",
    );
    // One header name, two files: the meta program can include only one.
    let guarded = |v: &str| format!("#ifndef CONFIG_H\n#define CONFIG_H\n#define LIMIT {v}\n#endif\n");
    let dir = setup(&[("orig.c", &local), ("config.h", &guarded("1"))]);
    std::fs::create_dir(dir.path().join("b")).unwrap();
    std::fs::write(dir.path().join("b/p1.c"), &local).unwrap();
    std::fs::write(dir.path().join("b/config.h"), guarded("2")).unwrap();
    assert_refused(
        &unify(dir.path(), &["orig.c", "b/p1.c"]),
        "b/p1.c:2:1: ",
        "revision 1 finds `config.h` as b/config.h, but the meta program, one file for all revisions, would find \
         ./config.h",
    );
    // A conditional block that revisions fill differently.
    let verbose = |v: &str| {
        GOOD.replace(
            "int main(void) {",
            &format!("#ifdef VERBOSE\nstatic int verbose = {v};\n#endif\n\nint main(void) {{"),
        )
    };
    let dir = setup(&[("orig.c", &verbose("1")), ("p1.c", &verbose("1")), ("p2.c", &verbose("2"))]);
    assert_refused(
        &unify(dir.path(), &["orig.c", "p1.c", "p2.c"]),
        "p2.c:4:1: ",
        "`#ifdef VERBOSE` of revision 2 differs from revision 0's (orig.c:4); psychic cannot merge",
    );
}

#[test]
fn the_output_never_overwrites_an_input() {
    let dir = setup(&[("orig.c", GOOD), ("p1.c", &GOOD.replace("10", "20"))]);
    let o = Command::new(env!("CARGO_BIN_EXE_psychic"))
        .current_dir(dir.path())
        .args(["unify", "orig.c", "p1.c", "-o", "p1.c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("would overwrite an input"));
    assert_eq!(std::fs::read_to_string(dir.path().join("p1.c")).unwrap(), GOOD.replace("10", "20"));
}

#[test]
fn help_teaches_with_examples() {
    let o = Command::new(env!("CARGO_BIN_EXE_psychic")).args(["unify", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    for s in ["--diff", "-o", "__klee_meta", "Examples:", "psychic unify orig.c --diff"] {
        assert!(help.contains(s), "--help lacks `{s}`");
    }
}
