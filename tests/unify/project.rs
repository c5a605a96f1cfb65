//! A project's meta program (`unify::unify_project`): one site numbering
//! across its files, each file's lines where `files` says, and the line map
//! and sites located in the right file.

use std::path::PathBuf;

use psychic::unify::{self, RevisionInfo, TouchedFile};

use crate::common::sources;

fn touched(source: &str, texts: &[&str]) -> TouchedFile {
    let files: Vec<(String, String)> =
        texts.iter().enumerate().map(|(k, t)| (format!("rev{k}:{source}"), t.to_string())).collect();
    TouchedFile { source: source.to_string(), sources: sources(&files), macros: String::new() }
}

#[test]
fn sites_are_numbered_across_the_files() {
    let a = touched(
        "src/a.c",
        &[
            "int f(int x) {\n    return x + 1;\n}\n",
            "int f(int x) {\n    return x + 2;\n}\n",
            "int f(int x) {\n    return x + 1;\n}\n",
        ],
    );
    let b = touched(
        "lib/b.c",
        &[
            "int g(int x) {\n    if (x > 0)\n        return 1;\n    return 0;\n}\n",
            "int g(int x) {\n    if (x > 0)\n        return 1;\n    return 0;\n}\n",
            "int g(int x) {\n    if (x >= 0)\n        return 1;\n    return 0;\n}\n",
        ],
    );
    let revisions = (0..3)
        .map(|index| RevisionInfo {
            index,
            name: format!("r{index}"),
            path: PathBuf::from(format!("r{index}")),
        })
        .collect();
    let meta = unify::unify_project(revisions, &[a.clone(), b.clone()]).unwrap();
    let alone = [unify::unify(&a.sources).unwrap(), unify::unify(&b.sources).unwrap()];
    assert_eq!(meta.files.len(), 2);
    assert_eq!(meta.sites.len(), alone[0].sites.len() + alone[1].sites.len());
    for (i, s) in meta.sites.iter().enumerate() {
        assert_eq!(s.id, i + 1, "ids are 1..S across the files");
        assert!(meta.text.contains(&format!("__klee_meta({}) ==", s.id)));
    }
    // Each file's text is its own unify's, but for the numbering and the
    // one definition of __psychic_revisions.
    assert_eq!(meta.file_text(0), alone[0].text);
    let second = meta.file_text(1);
    assert!(second.contains("extern const int __psychic_revisions;"));
    assert!(!second.contains("__klee_meta(1)"));
    assert_eq!(second.lines().count(), alone[1].text.lines().count());
    // The line map reads in the right file.
    assert_eq!(meta.line_map.len(), meta.text.lines().count());
    let g = meta.sites.last().unwrap();
    assert_eq!(meta.file_at(g.lines.start).map(|f| f.source.as_str()), Some("lib/b.c"));
    assert_eq!(meta.located_in("tree", g.lines.start), "tree/lib/b.c");
    let first_line = meta.files[1].lines.start;
    assert_eq!(meta.project_line(1, 1), first_line);
    let origins = meta.origins(g.lines.start + 1);
    assert!(!origins.is_empty() && origins.iter().all(|o| o.file == "lib/b.c"));
    // One file: positions are the revision's own file.
    assert_eq!(alone[0].located_in("orig.c", 3), "orig.c");
}
