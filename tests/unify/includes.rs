//! Revisions whose `#include` lines differ: headers added, dropped, repeated,
//! reordered and spelled differently merge, and the meta program behaves as
//! each revision; a revision that clashes with a header only others include
//! is named.

use std::path::{Path, PathBuf};
use std::process::Command;

use psychic::ktest::{KTest, Object};
use psychic::unify::{self, MetaProgram, RevisionSource};

use crate::common::{build, check_fidelity, strict_toolchain, write_tests};

const KLEE: &str = "void klee_make_symbolic(void *addr, unsigned long nbytes, const char *name);\n";

/// A program that prints `expr` of a symbolic int `x`, after `head`.
fn program(head: &str, expr: &str) -> String {
    format!(
        "{head}\n{KLEE}\nint main(void) {{\n    int x;\n    klee_make_symbolic(&x, sizeof x, \"x\");\n    \
         printf(\"%d\\n\", {expr});\n    return 0;\n}}\n"
    )
}

fn tests_of(xs: &[i32]) -> Vec<KTest> {
    xs.iter()
        .map(|x| KTest {
            args: vec!["prog".into()],
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: vec![Object { name: "x".into(), bytes: x.to_le_bytes().to_vec() }],
        })
        .collect()
}

/// Writes `files` (name, text; a name may hold a directory) into `dir`, and
/// the revisions among them (`.c`, in order) as sources with their paths.
fn write(dir: &Path, files: &[(&str, &str)]) -> Vec<RevisionSource> {
    let mut sources = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, unify::encode(text)).unwrap();
        if name.ends_with(".c") {
            sources.push(RevisionSource {
                index: sources.len(),
                name: name.to_string(),
                path,
                text: text.to_string(),
            });
        }
    }
    sources
}

/// Unifies the revisions of `files`, builds the meta program with
/// `-Wall -Werror`, and checks that it behaves as each revision's own build.
fn check(files: &[(&str, &str)], xs: &[i32]) -> MetaProgram {
    let dir = tempfile::tempdir().unwrap();
    let sources = write(dir.path(), files);
    let tc = strict_toolchain();
    let own: Vec<PathBuf> = sources
        .iter()
        .map(|s| {
            let bin = s.path.with_extension("own.c");
            build(&tc, &bin, &s.text).unwrap_or_else(|e| panic!("{}: {e}", s.name))
        })
        .collect();
    let tests = write_tests(dir.path(), &tests_of(xs));
    check_fidelity(&tc, dir.path(), &sources, &own, &tests).unwrap_or_else(|e| panic!("{e}")).0
}

/// The meta program's include lines, in order, up to the first line of code.
fn leading_includes(meta: &MetaProgram) -> Vec<String> {
    let body: Vec<&str> = meta.text.lines().skip_while(|l| !l.starts_with(" */")).skip(1).collect();
    let code = body.iter().position(|l| !l.trim_start().starts_with('#')).unwrap_or(body.len());
    body[..code].iter().filter(|l| l.contains("include")).map(|l| l.to_string()).collect()
}

fn count(meta: &MetaProgram, header: &str) -> usize {
    meta.text.lines().filter(|l| l.contains("include") && l.contains(header)).count()
}

#[test]
fn system_headers_added_dropped_reordered_and_respelled_merge() {
    let orig = program("#include <stdio.h>\n", "x / 3");
    let respelled = program("# include <stdio.h>\n#include <math.h>\n", "(int)floor(x / 3.0)");
    let reordered =
        program("#include<math.h>\n#include<stdio.h>\n", "(int)trunc(x / 3.0)").replace('\n', "\r\n");
    let none = program("int printf(const char *format, ...);\n", "x / 3 + (x < 0)");
    let commented = program(
        "#include <stdio.h> // printf\n#include \"string.h\" /* strlen */\n#include <stdio.h>\n",
        "(int)strlen(\"abc\") + x % 3",
    );
    let files = [
        ("orig.c", orig.as_str()),
        ("p1.c", respelled.as_str()),
        ("p2.c", reordered.as_str()),
        ("p3.c", none.as_str()),
        ("p4.c", commented.as_str()),
    ];
    let meta = check(&files, &[-7, -1, 0, 2, 3, 100, i32::MIN, i32::MAX]);
    for h in ["stdio.h", "math.h", "string.h", "klee/klee.h"] {
        assert_eq!(count(&meta, h), 1, "{h} once:\n{}", meta.text);
    }
    let lead = leading_includes(&meta);
    assert_eq!(lead.len(), 4, "every include comes first:\n{}", meta.text);
    // Each header's line belongs to the revisions that include it.
    let at = |h: &str| meta.text.lines().position(|l| l.contains(h) && l.contains("include")).unwrap() + 1;
    let revs = |l: usize| meta.origins(l).iter().map(|o| o.revision).collect::<Vec<_>>();
    assert_eq!(revs(at("stdio.h")), [0, 1, 2, 4]);
    assert_eq!(revs(at("math.h")), [1, 2]);
    assert_eq!(revs(at("string.h")), [4]);
}

#[test]
fn guarded_local_headers_merge_wherever_the_revisions_are() {
    let bounds = "/* bounds */\n#ifndef BOUNDS_H\n#define BOUNDS_H\n#define LOW (-5)\nstatic inline int clamp(int v, int hi) { return v < LOW ? LOW : v > hi ? hi : v; }\n#endif /* BOUNDS_H */\n";
    let scale = "#pragma once\n#define SCALE 2\n";
    let orig = program("#include <stdio.h>\n#include \"bounds.h\"\n", "clamp(x, 10)");
    let inlined = program("#include <stdio.h>\n", "x < -5 ? -5 : x > 9 ? 9 : x");
    let twice = program(
        "#include \"bounds.h\"\n#include <stdio.h>\n#include \"scale.h\"\n#include \"bounds.h\"\n",
        "clamp(x * SCALE, 10)",
    );
    let files = [
        ("orig.c", orig.as_str()),
        ("bounds.h", bounds),
        ("p1.c", inlined.as_str()),
        ("p2.c", twice.as_str()),
        ("scale.h", scale),
    ];
    let meta = check(&files, &[-100, -5, 0, 4, 9, 10, 11, 1000]);
    assert_eq!(count(&meta, "bounds.h"), 1, "{}", meta.text);
    assert_eq!(count(&meta, "scale.h"), 1, "{}", meta.text);
    assert_eq!(leading_includes(&meta).len(), 4, "{}", meta.text);
}

fn psychic(args: &[&str], cwd: &Path) -> std::process::Output {
    let o = Command::new(env!("CARGO_BIN_EXE_psychic")).args(args).current_dir(cwd).output().unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    o
}

/// Each revision in a directory of its own, as students hand them in: a
/// guarded header beside one patched file only is found for the meta program.
#[test]
fn a_header_beside_one_patched_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let twice =
        "#ifndef TWICE_H\n#define TWICE_H\nstatic inline int twice(int v) { return 2 * v; }\n#endif\n";
    let orig = program("#include <stdio.h>\n", "x > 3");
    let patched = program("#include <stdio.h>\n#include \"twice.h\"\n", "twice(x) > 3");
    write(dir.path(), &[("000/prog.c", &orig), ("001/prog.c", &patched), ("001/twice.h", twice)]);
    let o = psychic(
        &["diff-patches", "--quiet", "--max-time", "20", "-o", "out", "000/prog.c", "001/prog.c"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta = std::fs::read_to_string(dir.path().join("out/meta.c")).unwrap();
    assert!(meta.contains("#include \"twice.h\""), "{meta}");
}

/// A revision without `<math.h>` whose own `y1` clashes with the one the
/// header declares: the error names it and its line.
#[test]
fn a_revision_that_clashes_with_another_s_header_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let orig =
        program("int printf(const char *format, ...);\nstatic int y1(int v) { return v + 1; }\n", "y1(x)");
    let patched = program("#include <stdio.h>\n#include <math.h>\n", "(int)fabs((double)x) + 1");
    write(dir.path(), &[("orig.c", &orig), ("p1.c", &patched)]);
    let o = psychic(&["diff-patches", "--max-time", "20", "-o", "out", "orig.c", "p1.c"], dir.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("revision 0 (orig.c) does not compile beside the headers other revisions include")
            && err.contains("<math.h>"),
        "{err}"
    );
    assert!(err.contains("orig.c:2: error: ") && err.contains("'y1'"), "the revision's own line: {err}");
    assert!(!err.contains("meta.c:"), "{err}");
    assert!(!dir.path().join("out").exists(), "no output directory is left behind");
}
