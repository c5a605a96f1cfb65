//! The result of unification: the meta program's text and everything later stages
//! need to relate it to the revisions (sites, variants, a line-level source map).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One merged program of N revisions; see `unify::unify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaProgram {
    /// The C text of the meta program.
    pub text: String,
    /// Revision 0 is the original, revision k the k-th patch.
    pub revisions: Vec<RevisionInfo>,
    /// Meta branches, by id: `sites[i].id == i + 1`, in source order.
    pub sites: Vec<Site>,
    /// Functions whose definitions differ between revisions (or exist in only some).
    pub changed_functions: Vec<ChangedFunction>,
    /// File-scope names that are spelled differently per revision in the meta
    /// program, because their definitions collide (changed signature, global
    /// initializer, type or macro).
    pub renamed: Vec<Renamed>,
    /// For meta line `l` (1-based), `line_map[l - 1]` lists the revisions that
    /// line belongs to, with the corresponding line in each revision's text.
    pub line_map: Vec<Vec<LineOrigin>>,
    /// Remarks for the user, such as "all revisions are identical".
    pub notes: Vec<String>,
    /// For a project (`unify::unify_project`), its touched files: the text
    /// is theirs one after the other, and `line_map` and sites' lines count
    /// in that text. Empty for one file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<MetaFile>,
}

/// One touched file of a project's meta program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaFile {
    /// The source, relative to the project's tree (every revision's tree
    /// has its own text of it).
    pub source: String,
    /// Its lines in the meta program: its line 1 is `lines.start`.
    pub lines: LineSpan,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionInfo {
    pub index: usize,
    /// As given on the command line.
    pub name: String,
    /// The patched file, or for a revision given as a diff, the diff file (its
    /// text is the original with the diff applied; spans refer to that text).
    pub path: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteKind {
    /// A statement or a run of statements (`if`/`else if`/`else` chain).
    Statement,
    /// The value of a `return` (split into one `return` per variant).
    ReturnValue,
    /// The condition of an `if`, `while`, `do` or `for` (`!!(...)` arms).
    Condition,
    /// A `for` loop's initialization expression (`(void)(...)` arms).
    ForInit,
    /// A `for` loop's step (`(void)(...)` arms).
    ForUpdate,
    /// The right-hand side of `x = ...;` (`(__typeof__(x))(...)` arms).
    Rhs,
    /// A declaration's initializer (`(__typeof__(x))(...)` arms).
    Initializer,
}

impl SiteKind {
    pub fn is_expression(self) -> bool {
        !matches!(self, SiteKind::Statement | SiteKind::ReturnValue)
    }
}

/// Lines `start..=end` of the meta program (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
}

/// A position in a revision's own text: 1-based line, 1-based byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// A meta branch: `__klee_meta(id)` selects one variant per revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub id: usize,
    pub kind: SiteKind,
    /// The enclosing function, as named in the meta program.
    pub function: String,
    pub lines: LineSpan,
    /// In the order they are tested: by lowest revision, except that the
    /// variant most revisions take comes last, as the chain's `else`.
    pub variants: Vec<Variant>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// The revisions that take this variant, ascending.
    pub revisions: Vec<usize>,
    /// Where the variant's code is in the meta program.
    pub lines: LineSpan,
    /// For each of `revisions`, where the code is in that revision's text. An
    /// empty variant (code deleted) has `start == end` where the code would be.
    pub code: Vec<CodeSpan>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeSpan {
    pub revision: usize,
    pub start: Pos,
    pub end: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFunction {
    /// The name in the lowest revision that defines it.
    pub name: String,
    /// One entry per revision that defines the function.
    pub instances: Vec<FunctionInstance>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionInstance {
    pub revision: usize,
    /// The name in the revision's own file.
    pub name: String,
    /// The function that runs for this revision in the meta program.
    pub meta_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Renamed {
    pub name: String,
    /// `(revision, name in the meta program)` for every revision that defines it.
    pub instances: Vec<(usize, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineOrigin {
    pub revision: usize,
    pub line: usize,
}

/// A meta-program line seen from one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin<'a> {
    pub revision: usize,
    /// The revision's name; for a project, the touched file's source.
    pub file: &'a str,
    pub line: usize,
}

impl MetaProgram {
    /// The revisions meta line `line` (1-based) belongs to, each with its file and
    /// line. Empty for lines psychic generated for no revision in particular
    /// (the header comment, `__psychic_revisions`).
    pub fn origins(&self, line: usize) -> Vec<Origin<'_>> {
        let Some(entry) = line.checked_sub(1).and_then(|i| self.line_map.get(i)) else {
            return Vec::new();
        };
        let source = self.file_at(line).map(|f| f.source.as_str());
        entry
            .iter()
            .map(|o| Origin {
                revision: o.revision,
                file: source.unwrap_or(&self.revisions[o.revision].name),
                line: o.line,
            })
            .collect()
    }

    /// The project's touched file that meta line `line` is in (none for one
    /// file). The files' spans follow one another: a binary search, as
    /// renderers ask for every line.
    pub fn file_at(&self, line: usize) -> Option<&MetaFile> {
        let i = self.files.partition_point(|f| f.lines.end < line);
        self.files.get(i).filter(|f| f.lines.start <= line)
    }

    /// The file a revision's positions at meta line `line` refer to, given
    /// `root`, what `Report::files` gives for the revision: for one file,
    /// `root` is that file; for a project, it is the revision's tree, and
    /// the file is the touched source in it.
    pub fn located_in(&self, root: &str, line: usize) -> String {
        match self.file_at(line) {
            Some(f) => std::path::Path::new(root).join(&f.source).display().to_string(),
            None => root.to_string(),
        }
    }

    /// The meta line of line `line` of the project's touched file `source`
    /// (for one file, `line` itself).
    pub fn project_line(&self, source: usize, line: usize) -> usize {
        self.files.get(source).map_or(line, |f| f.lines.start - 1 + line)
    }

    /// The text of the project's touched file `i`, as it is compiled.
    pub fn file_text(&self, i: usize) -> String {
        let lines = self.files[i].lines;
        self.text.split_inclusive('\n').skip(lines.start - 1).take(lines.end + 1 - lines.start).collect()
    }

    /// The site with this id (ids start at 1).
    pub fn site(&self, id: usize) -> Option<&Site> {
        id.checked_sub(1).and_then(|i| self.sites.get(i))
    }
}

/// Which variant of each site each revision runs, and where its code is in
/// its own text: looked up once, for the questions the report and the
/// verdicts ask of every revision, thousands in a repair tool's pool.
pub struct VariantTable {
    /// `[site index][revision]`.
    of: Vec<Vec<Option<Runs>>>,
}

/// The variant a revision runs at a site, and the index of the revision's
/// span in the variant's `code` if it has one.
type Runs = (u32, Option<u32>);

impl VariantTable {
    pub fn new(meta: &MetaProgram, revisions: usize) -> VariantTable {
        let of = meta
            .sites
            .iter()
            .map(|s| {
                let mut row: Vec<Option<Runs>> = vec![None; revisions];
                for (i, v) in s.variants.iter().enumerate() {
                    for &r in v.revisions.iter().filter(|&&r| r < revisions) {
                        row[r] = Some((i as u32, None));
                    }
                    for (j, c) in v.code.iter().enumerate() {
                        if let Some(Some((vi, code))) = row.get_mut(c.revision)
                            && *vi == i as u32
                        {
                            code.get_or_insert(j as u32);
                        }
                    }
                }
                row
            })
            .collect();
        VariantTable { of }
    }

    /// The variant revision `r` runs at the site at `index` of
    /// `MetaProgram::sites`, if `r` reaches it.
    pub fn variant(&self, index: usize, r: usize) -> Option<usize> {
        Some(self.of.get(index)?.get(r).copied().flatten()?.0 as usize)
    }

    /// The variant revision `r` runs at `site`, with the span of its code.
    pub fn code<'m>(&self, site: &'m Site, r: usize) -> Option<(usize, &'m CodeSpan)> {
        let (v, j) = self.of.get(site.id.checked_sub(1)?)?.get(r).copied().flatten()?;
        Some((v as usize, &site.variants[v as usize].code[j? as usize]))
    }
}
