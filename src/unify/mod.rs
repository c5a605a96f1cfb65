//! `unify`: merges an original C file and its patched revisions into one meta
//! program, in which every place where they differ is a `__klee_meta(site)`
//! branch with one block per distinct variant.
//!
//! Data flow: [`load`] reads the revisions (applying diffs, `patch`); [`unify`]
//! parses them (`parse`), renames colliding file-scope definitions (`rename`,
//! with `toplevel` and `decl`), aligns and merges file-scope items
//! (`toplevel::merge_file`) and statements (`merge`, with `align`), and prints
//! the result (`emit`) as a [`MetaProgram`].
//!
//! Sources are bytes: `decode` turns each byte that is not UTF-8 (Latin-1 in
//! comments and strings, as real code has) into a private-use character, and
//! `encode` turns it back into the same byte wherever a text is written
//! (meta.c, `psychic unify`, patched diff revisions). A renamed `main` gets C's
//! implicit `return 0;` on the line of its closing brace, since an ordinary
//! function that falls off its end returns garbage.
//!
//! API: `load(orig, patched, diffs)` reads the revisions (`RevisionSource`;
//! diffs are applied to ORIG and numbered after the patched files);
//! `unify(&[RevisionSource])` gives a `MetaProgram`: the text, the revisions,
//! the sites (id, kind, enclosing function, meta lines, and per variant its
//! revisions, its meta lines and each revision's `CodeSpan` in its own text),
//! the changed functions, the file-scope names spelled per revision, the line
//! map (`MetaProgram::origins`: revision, file and line for every revision a
//! meta line belongs to) and notes; all serde. `unify_project` unifies the
//! touched files of a multi-file program one by one, with one site numbering
//! across them, into one `MetaProgram` whose `files` say where each file's
//! text is. Errors are `UnifyError`, one
//! variant per failure kind, one line each, located.
//!
//! What the engine and the native runtime rely on in the output:
//! - the header comment maps revision numbers to files; `<klee/klee.h>` is
//!   included once; `const int __psychic_revisions = N;` follows the includes;
//! - a site is `if (__klee_meta(S) == r || ...) {...} else if ... else {...}`
//!   (statements) or `(__klee_meta(S) == r) ? a : b` (expressions), where a
//!   variant of more than a few revisions tests `__klee_meta_in(S, "hex")`
//!   (bit `r % 4` of digit `r / 4` set: revision `r` runs it); exactly one
//!   variant runs for each revision that reaches it; the variant most revisions
//!   take is the `else`; each variant carries a `/* revision(s) ... */`
//!   comment; sites are numbered 1..S in source order, and nest;
//! - preprocessor: identical directives are shared; includes of system
//!   headers and of guarded local ones are unioned, matched by the header
//!   however spelled, and go first when every revision has its includes first
//!   (`includes`; quoted includes are found in [`include_dirs`]); macros used
//!   only in code are renamed like any name; any other directive difference
//!   (an `#if` block, an unguarded local include, a macro another directive
//!   reads, a `#define` inside a function) is refused naming the revisions
//!   and their lines;
//! - the output is deterministic (no hash order reaches the text), and the meta
//!   program compiles with clang-19 `-Wall -Werror` whenever the revisions do.

mod align;
mod cond;
mod decl;
mod emit;
mod error;
mod includes;
pub mod instrument;
mod macros;
mod merge;
mod meta;
mod parse;
mod patch;
mod project;
mod rename;
mod toplevel;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use error::{Loc, UnifyError};
pub use includes::include_dirs;
pub use meta::{
    ChangedFunction, CodeSpan, FunctionInstance, LineOrigin, LineSpan, MetaFile, MetaProgram, Origin, Pos,
    Renamed, RevisionInfo, Site, SiteKind, Variant, VariantTable,
};
pub use parse::literals;
pub use project::{TouchedFile, unify_project};

use decl::Name;
use emit::Part;
use includes::Headers;
use merge::{Ctx, Item};
use parse::Rev;
use rename::RenameMap;
use toplevel::{FileError, FileMerge, TopEntry};

/// One revision's source: revision 0 is the original, revision k the k-th patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionSource {
    pub index: usize,
    /// How the user named it (the path as given).
    pub name: String,
    /// The patched file, or the diff it came from.
    pub path: PathBuf,
    pub text: String,
}

impl RevisionSource {
    /// The revision's text is its file's (it was not made by applying a diff).
    pub fn on_disk(&self) -> bool {
        self.path.is_file() && std::fs::read(&self.path).is_ok_and(|t| t == encode(&self.text))
    }
}

/// Reads ORIG and its patched revisions: whole files first, then ORIG with each
/// diff applied, in the order given.
pub fn load(orig: &Path, patched: &[PathBuf], diffs: &[PathBuf]) -> Result<Vec<RevisionSource>, UnifyError> {
    let base = read_text(orig)?;
    let orig_name = orig.display().to_string();
    let mut out =
        vec![RevisionSource { index: 0, name: orig_name.clone(), path: orig.to_path_buf(), text: base }];
    for p in patched {
        let text = read_text(p)?;
        out.push(RevisionSource { index: out.len(), name: p.display().to_string(), path: p.clone(), text });
    }
    for d in diffs {
        let diff = read_text(d)?;
        let text = patch::apply(&orig_name, &out[0].text, d, &diff)?;
        out.push(RevisionSource { index: out.len(), name: d.display().to_string(), path: d.clone(), text });
    }
    if out.len() < 2 {
        return Err(UnifyError::OneRevision { orig: orig_name });
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String, UnifyError> {
    let bytes = std::fs::read(path).map_err(|err| UnifyError::Io { path: path.to_path_buf(), err })?;
    Ok(decode(&bytes))
}

/// Where a byte that is not UTF-8 goes: `RAW_BYTES + byte`, a private-use
/// character no C source contains.
const RAW_BYTES: u32 = 0x10_FF00;

/// A source's bytes as text. Real C holds Latin-1 and other bytes that are
/// not UTF-8 in comments and strings; each becomes a private-use character,
/// which [`encode`] turns back into the same byte, so the meta program keeps
/// them as they are.
pub fn decode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(
            chunk
                .invalid()
                .iter()
                .map(|&b| char::from_u32(RAW_BYTES + u32::from(b)).expect("a valid scalar")),
        );
    }
    out
}

/// The bytes of a text made by [`decode`] (or of any text built from one).
pub fn encode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c).checked_sub(RAW_BYTES).filter(|b| *b <= 0xFF) {
            Some(b) => out.push(b as u8),
            None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Merges the revisions into one meta program (see the module documentation
/// and ARCHITECTURE.md for the contract it meets).
pub fn unify(sources: &[RevisionSource]) -> Result<MetaProgram, UnifyError> {
    unify_part(sources, Part::WHOLE, "")
}

/// [`unify`], for one file of a program of several (`project::unify_project`).
/// `header_macros`: `#define` lines of the headers' macros, which expand
/// where the grammar cannot read past one (`macros::prepare`).
fn unify_part(
    sources: &[RevisionSource],
    part: Part,
    header_macros: &str,
) -> Result<MetaProgram, UnifyError> {
    if sources.len() < 2 {
        let orig = sources.first().map_or_else(|| "<no input>".to_string(), |s| s.name.clone());
        return Err(UnifyError::OneRevision { orig });
    }
    let plain: Vec<Rev> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| macros::prepare_with(Rev::new(i, s.name.clone(), s.text.clone()), header_macros))
        .collect();
    for r in &plain {
        parse::check_syntax(&r.name, &r.text, &r.tree)?;
    }
    let mut definers: BTreeMap<Name, BTreeSet<usize>> = BTreeMap::new();
    // Renaming changes no item's place: the alignment of file-scope items
    // pairs them by the keys they had before (`toplevel::merge_file`).
    let mut anchors: Vec<Vec<String>> = Vec::with_capacity(plain.len());
    for r in &plain {
        let items = toplevel::items(r).0;
        anchors.push(items.iter().map(|it| it.key.clone()).collect());
        for it in items {
            for (name, _) in it.names {
                definers.entry(name).or_default().insert(r.index);
            }
        }
    }
    // Renaming leaves directives as they are, so those of the originals serve.
    let directives: Vec<_> = plain.iter().flat_map(toplevel::directives).collect();
    let mut maps = vec![RenameMap::new(); sources.len()];
    let mut revs: Vec<Rev> = plain.iter().map(|p| rename::apply(p, &maps[p.index])).collect();
    // The maps `revs` were made with: a revision is redone only when its map grows.
    let mut applied = maps.clone();
    let mut forced = BTreeSet::new();
    let headers = Headers::new(sources);
    // The header each include names, found in the first round: renaming
    // leaves directives as they are, and items where they are.
    let mut included = None;
    loop {
        let (items, trailer) = loop {
            for (r, map) in maps.iter().enumerate() {
                if *map != applied[r] {
                    revs[r] = rename::apply(&plain[r], map);
                    applied[r] = map.clone();
                }
            }
            let (items, trailers): (Vec<_>, Vec<_>) = revs.iter().map(toplevel::items).unzip();
            if !rename::extend(&mut maps, &revs, &items, &forced, &directives)? {
                break (items, trailers.into_iter().next().flatten());
            }
        };
        let ctx = Ctx::new(&revs);
        let main = Name::ordinary("main");
        let mains: BTreeMap<usize, String> = if maps.iter().any(|m| m.contains_key(&main)) {
            maps.iter().enumerate().filter_map(|(r, m)| m.get(&main).map(|n| (r, n.clone()))).collect()
        } else {
            BTreeMap::new()
        };
        if included.is_none() {
            included = Some(includes::classify(&revs, &items, &headers)?);
        }
        let included = included.as_deref().expect("classified above");
        match toplevel::merge_file(&ctx, &items, &anchors, included, trailer, &mains) {
            Ok(file) => return Ok(finish(sources, &ctx, &file, &maps, &definers, part)),
            Err(FileError::Fatal(e)) => return Err(e),
            Err(FileError::Unmergeable(names)) => {
                // The next round gives these functions one definition per variant.
                let before = forced.len();
                forced.extend(names.iter().cloned());
                if forced.len() == before {
                    return Err(UnifyError::Unsupported {
                        at: revs[0].loc(0),
                        message: format!("cannot merge function {}, even with a copy per revision", names[0]),
                    });
                }
            }
        }
    }
}

fn finish(
    sources: &[RevisionSource],
    ctx: &Ctx,
    file: &FileMerge,
    maps: &[RenameMap],
    definers: &BTreeMap<Name, BTreeSet<usize>>,
    part: Part,
) -> MetaProgram {
    let n = sources.len();
    let mut header = format!("/* Meta program of {n} revisions, made by `psychic unify`.\n");
    for s in sources {
        let role = if s.index == 0 { " (original)" } else { "" };
        header.push_str(&format!(" *   revision {}: {}{role}\n", s.index, s.name.replace("*/", "*\\/")));
    }
    header.push_str(
        " * Each meta branch compares __klee_meta with the revision numbers, or tests a set of them\n * (__klee_meta_in: bit r % 4 of hex digit r / 4 is revision r), and runs their code.\n */",
    );
    let printed = emit::print(ctx, file, &header, n, part);
    let renamed: Vec<Renamed> = maps
        .iter()
        .flat_map(|m| m.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|name| Renamed {
            name: name.text.clone(),
            instances: definers
                .get(name)
                .into_iter()
                .flatten()
                .map(|&r| (r, maps[r].get(name).cloned().unwrap_or_else(|| name.text.clone())))
                .collect(),
        })
        .collect();
    let changed_functions = changed_functions(ctx, file, maps, n);
    let mut notes = Vec::new();
    // An item some revisions lack (an include, a declaration) is a difference too.
    let everywhere =
        file.entries.iter().all(|e| matches!(e, TopEntry::Item(Item::Shared(es)) if es.len() == n));
    if printed.sites.is_empty() {
        notes.push(if renamed.is_empty() && changed_functions.is_empty() && everywhere {
            "all revisions are identical (up to whitespace and comments); the meta program has no sites"
                .to_string()
        } else {
            "the revisions differ only at file scope; the meta program has no sites".to_string()
        });
    }
    MetaProgram {
        text: printed.text,
        revisions: sources
            .iter()
            .map(|s| RevisionInfo { index: s.index, name: s.name.clone(), path: s.path.clone() })
            .collect(),
        sites: printed.sites,
        changed_functions,
        renamed,
        line_map: printed.line_map,
        notes,
        files: Vec::new(),
    }
}

/// Functions defined differently (or only) by some revisions, by original name.
fn changed_functions(ctx: &Ctx, file: &FileMerge, maps: &[RenameMap], n: usize) -> Vec<ChangedFunction> {
    let mut by_name: BTreeMap<String, (bool, Vec<FunctionInstance>)> = BTreeMap::new();
    for entry in &file.entries {
        let (elems, merged) = match entry {
            TopEntry::Item(Item::Shared(es)) => (es, false),
            TopEntry::Item(Item::Split { elems, .. }) => (elems, true),
            _ => continue,
        };
        if elems[0].node.kind() != "function_definition" {
            continue;
        }
        let Some(meta_name) = elems[0]
            .node
            .child_by_field_name("declarator")
            .and_then(decl::declarator_name)
            .map(|d| ctx.revs[elems[0].rev].text_of(d).to_string())
        else {
            continue;
        };
        for e in elems {
            let orig = maps[e.rev]
                .iter()
                .find(|(k, v)| !k.tag && **v == meta_name)
                .map_or_else(|| meta_name.clone(), |(k, _)| k.text.clone());
            let slot = by_name.entry(orig.clone()).or_default();
            slot.0 |= merged || elems.len() < n || orig != meta_name;
            slot.1.push(FunctionInstance { revision: e.rev, name: orig, meta_name: meta_name.clone() });
        }
    }
    by_name
        .into_iter()
        .filter(|(_, (changed, _))| *changed)
        .map(|(name, (_, mut instances))| {
            instances.sort_by_key(|i| i.revision);
            ChangedFunction { name, instances }
        })
        .collect()
}
