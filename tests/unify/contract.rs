//! The meta program contract the engine and the native runtime rely on.

use psychic::unify::{self, MetaProgram, SiteKind};

use super::fidelity::{fixture, fixture_dirs};
use crate::common::sources;

fn unify_fixture(name: &str) -> (Vec<(String, String)>, MetaProgram) {
    let dir =
        fixture_dirs("unify").into_iter().chain(fixture_dirs("seeds")).find(|d| d.ends_with(name)).unwrap();
    let f = fixture(&dir);
    let meta = unify::unify(&sources(&f.files)).unwrap();
    (f.files, meta)
}

fn all_fixtures() -> Vec<(Vec<(String, String)>, MetaProgram)> {
    fixture_dirs("seeds")
        .into_iter()
        .chain(fixture_dirs("unify"))
        .map(|d| {
            let f = fixture(&d);
            let meta = unify::unify(&sources(&f.files)).unwrap();
            (f.files, meta)
        })
        .collect()
}

#[test]
fn header_names_revisions_and_the_program_declares_their_number() {
    for (files, meta) in all_fixtures() {
        let header = &meta.text[..meta.text.find("*/").unwrap()];
        for (k, (name, _)) in files.iter().enumerate() {
            assert!(header.contains(&format!("revision {k}: {name}")), "{header}");
        }
        let lines: Vec<&str> = meta.text.lines().collect();
        let decl = format!("const int __psychic_revisions = {};", files.len());
        let at =
            lines.iter().position(|l| *l == decl).unwrap_or_else(|| panic!("no `{decl}`:\n{}", meta.text));
        assert_eq!(lines.iter().filter(|l| l.contains("__psychic_revisions")).count(), 1);
        // After every include; klee.h exactly once.
        assert!(lines.iter().rposition(|l| l.starts_with("#include")).unwrap() < at);
        assert_eq!(lines.iter().filter(|l| l.contains("klee/klee.h>")).count(), 1, "{}", meta.text);
    }
}

#[test]
fn klee_header_is_added_when_the_program_lacks_it() {
    let (files, meta) = unify_fixture("includes");
    assert!(!files[0].1.contains("klee/klee.h"));
    assert!(meta.text.contains("#include <klee/klee.h>\n"));
    // The added system include of revision 1 is merged in for all.
    assert!(meta.text.contains("#include <string.h>"));
}

#[test]
fn sites_are_numbered_in_source_order_with_one_variant_per_revision() {
    for (files, meta) in all_fixtures() {
        let mut first_seen = Vec::new();
        let mut rest = meta.text.as_str();
        // `__klee_meta(S)` and `__klee_meta_in(S, "...")` alike.
        while let Some(i) = rest.find("__klee_meta") {
            rest = rest[i + 11..].trim_start_matches("_in");
            let Some(args) = rest.strip_prefix('(') else { continue };
            let id: usize = args[..args.find([')', ',']).unwrap()].parse().unwrap();
            if !first_seen.contains(&id) {
                first_seen.push(id);
            }
        }
        assert_eq!(first_seen, (1..=meta.sites.len()).collect::<Vec<_>>());
        for (i, site) in meta.sites.iter().enumerate() {
            assert_eq!(site.id, i + 1);
            let mut seen: Vec<usize> = Vec::new();
            for v in &site.variants {
                assert!(!v.revisions.is_empty() && v.revisions.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(v.code.iter().map(|c| c.revision).collect::<Vec<_>>(), v.revisions);
                seen.extend(&v.revisions);
                // Each variant names its revisions in a comment where it starts.
                let line = meta.text.lines().nth(v.lines.start - 1).unwrap();
                let list = v.revisions.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
                let comment =
                    format!("/* revision{} {list} */", if v.revisions.len() > 1 { "s" } else { "" });
                let header = if site.kind.is_expression() {
                    line
                } else {
                    meta.text.lines().nth(v.lines.start - 2).unwrap()
                };
                assert!(
                    header.contains(&comment) || line.contains(&comment),
                    "site {} lacks {comment}",
                    site.id
                );
            }
            seen.sort();
            let n = seen.len();
            seen.dedup();
            assert_eq!(seen.len(), n, "site {}: a revision takes two variants", site.id);
            assert!(site.variants.len() >= 2 && seen.iter().all(|&r| r < files.len()));
        }
    }
}

#[test]
fn output_is_deterministic_and_serialisable() {
    for (files, meta) in all_fixtures() {
        let again = unify::unify(&sources(&files)).unwrap();
        assert_eq!(meta, again);
        let json = serde_json::to_string(&meta).unwrap();
        let back: MetaProgram = serde_json::from_str(&json).unwrap();
        assert_eq!(back, meta);
    }
}

#[test]
fn every_meta_line_maps_back_to_the_revisions_it_belongs_to() {
    let (files, meta) = unify_fixture("decl-scope");
    assert_eq!(meta.line_map.len(), meta.text.lines().count());
    let text_of = |rev: usize, line: usize| files[rev].1.lines().nth(line - 1).unwrap().trim().to_string();
    // Shared code: every revision, each at its own line with the same text.
    let printf_line = meta.text.lines().position(|l| l.trim() == "printf(\"%d\\n\", work(x));").unwrap() + 1;
    let origins = meta.origins(printf_line);
    assert_eq!(origins.iter().map(|o| o.revision).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    for o in &origins {
        assert_eq!(text_of(o.revision, o.line), "printf(\"%d\\n\", work(x));");
        assert_eq!(o.file, files[o.revision].0);
    }
    // Code of one variant maps to its revisions only.
    let t_line = meta.text.lines().position(|l| l.trim() == "int t = x * 2;").unwrap() + 1;
    let revs: Vec<usize> = meta.origins(t_line).iter().map(|o| o.revision).collect();
    assert_eq!(revs, vec![1, 3]);
    for o in meta.origins(t_line) {
        assert_eq!(text_of(o.revision, o.line), "int t = x * 2;");
    }
    // Every line of a function belongs to some revision; the header to none.
    assert!(meta.origins(1).is_empty());
    let body = meta.text.lines().position(|l| l.starts_with("static int work")).unwrap() + 1;
    for l in body..=meta.text.lines().count() {
        if !meta.text.lines().nth(l - 1).unwrap().trim().is_empty() {
            assert!(!meta.origins(l).is_empty(), "meta line {l} maps to no revision");
        }
    }
}

#[test]
fn variant_code_spans_point_into_each_revision() {
    for (files, meta) in all_fixtures() {
        for site in &meta.sites {
            for v in &site.variants {
                for c in &v.code {
                    let text = &files[c.revision].1;
                    assert!(c.start <= c.end && c.end.line <= text.lines().count() + 1);
                    if site.kind == SiteKind::Condition && c.start != c.end {
                        // A condition's span is exactly the expression, which the meta program prints.
                        let line = text.lines().nth(c.start.line - 1).unwrap();
                        if c.start.line == c.end.line {
                            let expr = &line[c.start.col - 1..c.end.col - 1];
                            assert!(meta.text.contains(&format!("!!({expr})")), "{expr}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn top_level_differences_are_renamed_per_revision() {
    let (_, meta) = unify_fixture("globals");
    let scale = meta.renamed.iter().find(|r| r.name == "scale").unwrap();
    assert_eq!(
        scale.instances,
        vec![(0, "scale".into()), (1, "scale__rev1".into()), (2, "scale".into()), (3, "scale".into())]
    );
    let helper = meta.renamed.iter().find(|r| r.name == "helper").unwrap();
    assert!(helper.instances.contains(&(2, "helper__rev2".into())));
    // Functions present in only some revisions keep their names.
    assert!(meta.renamed.iter().all(|r| r.name != "offset"));
    let changed: Vec<&str> = meta.changed_functions.iter().map(|f| f.name.as_str()).collect();
    for f in ["compute", "helper", "offset", "twice"] {
        assert!(changed.contains(&f), "{f} not in {changed:?}");
    }
    let twice = meta.changed_functions.iter().find(|f| f.name == "twice").unwrap();
    let meta_names: Vec<(usize, &str)> =
        twice.instances.iter().map(|i| (i.revision, i.meta_name.as_str())).collect();
    assert_eq!(meta_names, vec![(0, "twice"), (1, "twice"), (2, "twice"), (3, "twice__rev3")]);
    // Unmergeable bodies (labels) give one function per revision.
    let (_, labels) = unify_fixture("labels");
    let process = labels.changed_functions.iter().find(|f| f.name == "process").unwrap();
    assert_eq!(
        process.instances.iter().map(|i| i.meta_name.as_str()).collect::<Vec<_>>(),
        ["process", "process__rev1", "process__rev2"]
    );
    // A `main` that must differ is renamed in every variant, and a new `main` dispatches.
    let (_, mains) = unify_fixture("main-variants");
    let main = mains.changed_functions.iter().find(|f| f.name == "main").unwrap();
    let names: Vec<&str> = main.instances.iter().map(|i| i.meta_name.as_str()).collect();
    assert_eq!(names, ["main__rev0", "main__rev1", "main__rev0", "main__rev3"]);
    assert_eq!(mains.text.matches("\nint main(int argc, char **argv) {").count(), 1);
    let dispatch = mains.sites.last().unwrap();
    assert_eq!((dispatch.function.as_str(), dispatch.variants.len()), ("main", 3));
}

#[test]
fn identical_revisions_give_a_note_and_no_sites() {
    let (files, _) = unify_fixture("shadow-intro");
    let reformatted =
        files[0].1.replace("    if (x > 10)", "    /* only a comment differs */\n    if (x>10)");
    let same = vec![files[0].clone(), ("same.c".to_string(), reformatted)];
    let meta = unify::unify(&sources(&same)).unwrap();
    assert!(meta.sites.is_empty());
    assert_eq!(meta.notes.len(), 1);
    assert!(meta.notes[0].contains("identical"), "{:?}", meta.notes);
    assert!(!meta.text.contains("__klee_meta("));
}

/// Bytes that are not UTF-8 (Latin-1 in a comment and a string) reach the
/// meta program as they are, in every revision's code.
#[test]
fn bytes_that_are_not_utf8_are_kept() {
    let orig: &[u8] = b"#include <stdio.h>\n/* temp\xe9rature */\nint main(void) { printf(\"z\xe9ro %d\\n\", 1); return 0; }\n";
    let patched: &[u8] = b"#include <stdio.h>\n/* temp\xe9rature */\nint main(void) { printf(\"z\xe9ro %d\\n\", 2); return 0; }\n";
    let files =
        vec![("orig.c".to_string(), unify::decode(orig)), ("p1.c".to_string(), unify::decode(patched))];
    let meta = unify::unify(&sources(&files)).unwrap();
    let bytes = unify::encode(&meta.text);
    assert!(bytes.windows(10).any(|w| w == b"temp\xe9ratur"), "{}", String::from_utf8_lossy(&bytes));
    assert!(bytes.windows(5).any(|w| w == b"z\xe9ro "), "{}", String::from_utf8_lossy(&bytes));
    assert!(std::str::from_utf8(&bytes).is_err(), "the Latin-1 bytes stay single bytes");
}

/// A variant of more than a few revisions is tested in one call,
/// `__klee_meta_in(S, "hex")`, and the meta program run as each revision
/// still behaves as that revision's own file. Nine revisions add 1, ten
/// (the else) add 2, two add 3.
#[test]
fn a_long_revision_set_is_tested_in_one_call() {
    use psychic::ktest::{KTest, Object};
    let text = |k: u32| {
        format!(
            "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) {{\n    int x;\n    \
             klee_make_symbolic(&x, sizeof x, \"x\");\n    printf(\"%d\\n\", x + {k});\n    return 0;\n}}\n"
        )
    };
    let adds: Vec<u32> = (0..21)
        .map(|r| {
            if r < 9 {
                1
            } else if r < 19 {
                2
            } else {
                3
            }
        })
        .collect();
    let files: Vec<(String, String)> =
        adds.iter().enumerate().map(|(r, &k)| (format!("r{r}.c"), text(k))).collect();
    let dir = tempfile::tempdir().unwrap();
    let tc = crate::common::strict_toolchain();
    let own: Vec<_> = files
        .iter()
        .map(|(name, text)| crate::common::build(&tc, &dir.path().join(name), text).unwrap())
        .collect();
    let tests: Vec<KTest> = [0i32, -7, 41]
        .iter()
        .map(|x| KTest {
            args: vec!["prog".into()],
            objects: vec![Object { name: "x".into(), bytes: x.to_le_bytes().to_vec() }],
            ..KTest::default()
        })
        .collect();
    let tests = crate::common::write_tests(dir.path(), &tests);
    let (meta, compared) =
        crate::common::check_fidelity(&tc, dir.path(), &sources(&files), &own, &tests).unwrap();
    assert_eq!(compared, 63);
    // Revisions 0 to 8: digits f (0-3), f (4-7), 1 (8).
    assert!(meta.text.contains("__klee_meta_in(1, \"ff1\")"), "{}", meta.text);
    assert!(meta.text.contains("__klee_meta(1) == 19 || __klee_meta(1) == 20"), "{}", meta.text);
}
