//! `unify`: the patch unification compiler.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::unify;

/// Merge an original C file and its patched versions into one meta program.
#[derive(Args)]
#[command(
    long_about = "Merge an original C file and its patched versions into one meta program.

Revision 0 is ORIG; revision k is the k-th patch: the patched files in the order given, then the \
--diff patches in the order given. Where the revisions differ, the meta program branches on \
__klee_meta(SITE) == REVISION, as deep as possible: around a statement or a run of statements, a \
condition (if, while, do, for), a for loop's initialization or step, a return value, the \
right-hand side of an assignment or a declaration's initializer. Revisions with the same code at \
a site share one block. File-scope definitions that collide (a changed signature or global \
initializer, a function only some revisions have under one name) are renamed per revision.

The meta program compiles with `psychic compile` and runs natively as any revision with \
`psychic replay --revision K`; the symbolic engine explores all revisions at once.",
    after_help = "Examples:
  psychic unify orig.c fix1.c fix2.c                 # print the meta program
  psychic unify orig.c fix1.c fix2.c -o meta.c       # write it
  psychic unify orig.c --diff fix1.diff --diff fix2.diff -o meta.c
  psychic unify orig.c fix1.c --map meta.json -o meta.c   # also the sites and source map

Exit status: 0 on success (also when all revisions are identical: a note is printed and the \
meta program has no sites), 2 on any error, in which case no output file is written."
)]
pub struct UnifyArgs {
    /// The original program (revision 0).
    #[arg(value_name = "ORIG.c")]
    orig: PathBuf,
    /// Patched versions of ORIG, whole files (revisions 1, 2, ...).
    #[arg(value_name = "REV.c")]
    patched: Vec<PathBuf>,
    /// A unified diff against ORIG (`diff -u`, `git diff`); repeatable. Diff
    /// revisions are numbered after the patched files.
    #[arg(long = "diff", value_name = "PATCH")]
    diffs: Vec<PathBuf>,
    /// Write the meta program here instead of to standard output.
    #[arg(short, long, value_name = "META.c")]
    output: Option<PathBuf>,
    /// Also write the sites, variants and source map as JSON.
    #[arg(long, value_name = "FILE")]
    map: Option<PathBuf>,
}

pub fn unify(a: UnifyArgs) -> Result<ExitCode> {
    let inputs: Vec<&PathBuf> = std::iter::once(&a.orig).chain(&a.patched).chain(&a.diffs).collect();
    for out in a.output.iter().chain(&a.map) {
        if inputs.iter().any(|i| same_file(i, out)) {
            bail!("{}: output would overwrite an input; name another file", out.display());
        }
    }
    let sources = unify::load(&a.orig, &a.patched, &a.diffs)?;
    let meta = unify::unify(&sources)?;
    for note in &meta.notes {
        eprintln!("psychic: note: {note}");
    }
    // Write everything to temporaries first, so that an error leaves no output.
    let mut pending = Vec::new();
    if let Some(path) = &a.map {
        pending.push((path, stage(path, serde_json::to_string_pretty(&meta)?.as_bytes())?));
    }
    // Bytes that are not UTF-8 go out as they came in.
    let text = unify::encode(&meta.text);
    match &a.output {
        Some(path) => pending.push((path, stage(path, &text)?)),
        None => std::io::stdout().write_all(&text)?,
    }
    for (path, tmp) in pending {
        tmp.persist(path).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if let Some(path) = &a.output {
        let sites = meta.sites.len();
        let plural = if sites == 1 { "" } else { "s" };
        eprintln!("psychic: {} revisions, {sites} site{plural} -> {}", meta.revisions.len(), path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// A temporary file beside `path` holding `bytes`, to be renamed over it.
fn stage(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).with_context(|| format!("{}: cannot write", path.display()))?;
    tmp.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(tmp)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
