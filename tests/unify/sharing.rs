//! Sharing: a one-token change in a long function puts the meta branch around
//! that token's smallest enclosing site, not around the function.

use std::path::PathBuf;

use psychic::ktest::{KTest, Object};
use psychic::unify::{self, MetaProgram, SiteKind};

use crate::common::{build, check_fidelity, sources, strict_toolchain, write_tests};

/// A program whose `big` function is 200 lines long.
fn program() -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <klee/klee.h>\n\nstatic int big(int x) {\n    int acc = 0;\n",
    );
    for i in 0..49 {
        s += &format!("    if (x > {i}) {{\n        acc += {i} * x;\n    }}\n    acc ^= {};\n", i * 7);
    }
    s += "    return acc;\n}\n\nint main(void) {\n    int x;\n    klee_make_symbolic(&x, sizeof x, \"x\");\n";
    s += "    x %= 100;\n    printf(\"%d\\n\", big(x));\n    return 0;\n}\n";
    s
}

fn function_lines(text: &str) -> usize {
    let start = text.find("static int big").unwrap();
    let end = start + text[start..].find("\n}\n").unwrap();
    text[start..end].lines().count() + 1
}

/// Unifies the program with a copy where `from` (once) becomes `to`.
fn unify_change(from: &str, to: &str) -> (String, String, MetaProgram) {
    let orig = program();
    assert_eq!(orig.matches(from).count(), 1, "{from}");
    let patched = orig.replace(from, to);
    let files = vec![("orig.c".to_string(), orig.clone()), ("p1.c".to_string(), patched.clone())];
    let meta = unify::unify(&sources(&files)).unwrap();
    (orig, patched, meta)
}

/// The meta program is the original plus the site's lines: every other line of
/// the function is printed once, unchanged.
fn assert_shared(orig: &str, meta: &MetaProgram, changed_line: &str) {
    let body_start = meta.text.find("static int big").unwrap();
    let meta_body = &meta.text[body_start..];
    for line in orig[orig.find("static int big").unwrap()..].lines() {
        if line != changed_line && !line.trim().is_empty() && line.trim() != "}" && line.trim() != "{" {
            assert!(meta_body.contains(line), "line `{line}` is not shared:\n{}", meta.text);
        }
    }
    let extra = function_lines(&meta.text) as isize - function_lines(orig) as isize;
    assert!(extra <= 4, "the function grew by {extra} lines for a one-token change:\n{}", meta.text);
}

#[test]
fn a_one_token_condition_change_is_a_condition_site() {
    let (orig, _, meta) = unify_change("    if (x > 23) {", "    if (x >= 23) {");
    assert!(function_lines(&orig) >= 200);
    assert_eq!(meta.sites.len(), 1, "{}", meta.text);
    let site = &meta.sites[0];
    assert_eq!(site.kind, SiteKind::Condition);
    assert_eq!(site.function, "big");
    assert_eq!(site.lines.start, site.lines.end, "a condition site is one line");
    let line = meta.text.lines().nth(site.lines.start - 1).unwrap();
    assert!(line.contains("!!(x > 23)") && line.contains("!!(x >= 23)"), "{line}");
    // The variant of revision 1 is `x >= 23` in p1.c, where it is.
    let v1 = site.variants.iter().find(|v| v.revisions == [1]).unwrap();
    let span = v1.code[0];
    let p1_line = orig.lines().position(|l| l == "    if (x > 23) {").unwrap() + 1;
    assert_eq!((span.revision, span.start.line, span.start.col, span.end.col), (1, p1_line, 9, 16));
    assert_shared(&orig, &meta, "    if (x > 23) {");
    assert_eq!(meta.changed_functions.len(), 1);
    assert_eq!(meta.changed_functions[0].name, "big");
    assert!(meta.renamed.is_empty());
}

#[test]
fn a_one_token_statement_change_wraps_only_that_statement() {
    let (orig, _, meta) = unify_change("        acc += 31 * x;", "        acc += 32 * x;");
    assert_eq!(meta.sites.len(), 1, "{}", meta.text);
    let site = &meta.sites[0];
    // A compound assignment is not an expression site: the statement is.
    assert_eq!(site.kind, SiteKind::Statement);
    assert_eq!(site.lines.end - site.lines.start, 4, "if / stmt / else / stmt / close");
    assert_eq!(site.variants.iter().map(|v| v.revisions.clone()).collect::<Vec<_>>(), vec![vec![0], vec![1]]);
    assert_shared(&orig, &meta, "        acc += 31 * x;");
}

#[test]
fn a_one_token_initializer_change_is_an_initializer_site() {
    let (orig, patched, meta) = unify_change("    int acc = 0;", "    int acc = 1;");
    assert_eq!(meta.sites.len(), 1);
    assert_eq!(meta.sites[0].kind, SiteKind::Initializer);
    assert_shared(&orig, &meta, "    int acc = 0;");
    // And it behaves: both revisions, a few inputs.
    let tc = strict_toolchain();
    let dir = tempfile::tempdir().unwrap();
    let files = vec![("orig.c".to_string(), orig), ("p1.c".to_string(), patched)];
    let own: Vec<PathBuf> = files.iter().map(|(n, t)| build(&tc, &dir.path().join(n), t).unwrap()).collect();
    let inputs: Vec<KTest> = [0i32, 5, 30, 99, -7]
        .iter()
        .map(|x| {
            let objects = vec![Object { name: "x".into(), bytes: x.to_le_bytes().to_vec() }];
            KTest { args: vec!["big".into()], sym_argvs: 0, sym_argv_len: 0, objects }
        })
        .collect();
    let tests = write_tests(dir.path(), &inputs);
    let (_, runs) = check_fidelity(&tc, dir.path(), &sources(&files), &own, &tests).unwrap();
    assert_eq!(runs, 10);
}
