//! The meta program of a program of several files: each file some revision
//! changes is unified on its own, its sites numbered after those of the files
//! before it, so that one numbering holds across the program (the engine,
//! the native runtime and the fuzz server know a site by its id alone). The
//! files' texts follow one another in `MetaProgram::text`, and
//! `MetaProgram::files` says whose each line is, so that the line map, the
//! sites' lines and the reports read the whole as they read one file. Only
//! the first file defines `__psychic_revisions`; the others declare it, as
//! the program's link would otherwise find it twice.

use super::emit::Part;
use super::meta::{LineSpan, MetaFile, MetaProgram, RevisionInfo};
use super::{RevisionSource, UnifyError, unify_part};

/// One file of a project that some revision changes.
#[derive(Debug, Clone)]
pub struct TouchedFile {
    /// Relative to the project's tree.
    pub source: String,
    /// Its text in every revision, revision 0 first.
    pub sources: Vec<RevisionSource>,
    /// The macros its headers define, as `#define` lines (`clang -E -dM`
    /// with the unit's flags; empty if unknown): the grammar cannot read
    /// some invocations unexpanded (gnulib's `ATTRIBUTE_PURE` before a
    /// function), and where a parse fails these expand as the file's own
    /// macros do.
    pub macros: String,
}

/// Unifies every touched file; `revisions` names the whole revisions (trees
/// or diffs), as the report shows them.
pub fn unify_project(revisions: Vec<RevisionInfo>, files: &[TouchedFile]) -> Result<MetaProgram, UnifyError> {
    let mut all = MetaProgram {
        text: String::new(),
        revisions,
        sites: Vec::new(),
        changed_functions: Vec::new(),
        renamed: Vec::new(),
        line_map: Vec::new(),
        notes: Vec::new(),
        files: Vec::new(),
    };
    for (i, f) in files.iter().enumerate() {
        let part = Part { first_site: all.sites.len() + 1, defines_revisions: i == 0 };
        let meta = unify_part(&f.sources, part, &f.macros)?;
        let offset = all.line_map.len();
        let shift = |l: LineSpan| LineSpan { start: l.start + offset, end: l.end + offset };
        all.sites.extend(meta.sites.into_iter().map(|mut site| {
            site.lines = shift(site.lines);
            site.variants.iter_mut().for_each(|v| v.lines = shift(v.lines));
            site
        }));
        all.text.push_str(&meta.text);
        all.line_map.extend(meta.line_map);
        all.changed_functions.extend(meta.changed_functions);
        all.renamed.extend(meta.renamed);
        all.notes.extend(meta.notes.into_iter().map(|n| format!("{}: {n}", f.source)));
        all.files.push(MetaFile {
            source: f.source.clone(),
            lines: LineSpan { start: offset + 1, end: all.line_map.len() },
        });
    }
    Ok(all)
}
