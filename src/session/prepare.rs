//! The first stage: the revisions loaded and checked one by one, unified into
//! the meta program, and the meta program's builds.
//!
//! Every revision is checked alone with `clang -fsyntax-only` first (a
//! failure names the revision), so that clang, not unify, explains bad input.
//! Then `meta.c` (with `--outputs functions`,
//! `unify::instrument::function_outputs` first wraps every changed function to
//! record its return value and pointees as annotations, without moving any
//! line), `meta.bc`, and three native builds at once: `meta.native` (ASan
//! unless `--no-asan`), `meta.perturbed` (locals start as a pattern: the
//! second run of every test) and the fuzz build `meta.fuzz`.
//!
//! A project (`--project`, `super::project`) has the same builds made of its
//! units: one meta file per touched unit under `meta/`, every unit's bitcode,
//! and the native builds from the project's own objects with the touched
//! units' swapped for the meta files'.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow};

use super::project::{self, ProjectBuild, ProjectSources};
use super::{Plan, Watch};
use crate::compile::{CompileError, NativeKind, NativeOptions, Toolchain};
use crate::ir::Module;
use crate::libs::{LibcUse, Libs};
use crate::unify;

/// The revisions and their meta program.
pub(super) struct Sources {
    pub sources: Vec<unify::RevisionSource>,
    pub meta: unify::MetaProgram,
    pub tc: Toolchain,
    /// Seconds spent checking the revisions (the compile stage's, too).
    pub checked: f64,
    /// Seconds spent unifying.
    pub unified: f64,
    /// For a project: its capture and touched units. `sources` then holds,
    /// per revision, its touched files' texts one after the other (equal
    /// texts are an equal program) and its tree as the path.
    pub project: Option<ProjectSources>,
}

/// Loads the revisions, checks that each compiles alone, and unifies them.
/// Nothing is written: a failure here leaves no output directory behind.
pub(super) fn sources(plan: &Plan, watch: &dyn Watch) -> Result<Sources> {
    if let Some(p) = &plan.project {
        return project::sources(plan, p, watch);
    }
    let sources = unify::load(&plan.orig, &plan.revisions, &plan.diffs)?;
    let n = sources.len();
    let stage = Instant::now();
    watch.stage("compile", format!("clang: checking {n} revisions"));
    let orig_dir =
        plan.orig.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    // A quoted include not beside its file is looked for beside the original:
    // a revision made from a diff is checked in a scratch directory, and the
    // meta program lives in the output directory.
    let tc = Toolchain::discover()?
        .with_flags(plan.clang_flags.iter().map(String::as_str))
        .with_flags([std::ffi::OsString::from("-I"), orig_dir.into_os_string()]);
    // clang first: what it refuses, its own message explains best.
    check_revisions_compile(&tc, &sources)?;
    // The meta program's quoted includes are looked for where unify found
    // them: beside the original, then beside each patched file.
    let tc = tc.with_flags(
        unify::include_dirs(&sources).into_iter().flat_map(|d| ["-iquote".into(), d.into_os_string()]),
    );
    let checked = stage.elapsed().as_secs_f64();
    let stage = Instant::now();
    watch.stage("unify", format!("merging {n} revisions"));
    let meta = unify::unify(&sources)?;
    let unified = stage.elapsed().as_secs_f64();
    Ok(Sources { sources, meta, tc, checked, unified, project: None })
}

/// The meta program's files in the output directory and what the engine
/// links with it.
pub(super) struct Builds {
    /// `meta.c`, or a project's meta files in `MetaProgram::files` order.
    pub meta_files: Vec<PathBuf>,
    /// The program's bitcode: `meta.bc`, or every unit's of a project in
    /// link order.
    pub bitcode: Vec<PathBuf>,
    /// The replay build (AddressSanitizer unless the plan says not).
    pub native: PathBuf,
    /// The replay build whose locals start as a pattern: the second run of
    /// every test, which shows what rests on memory garbage.
    pub perturbed: PathBuf,
    /// The fuzz build, unless fuzzing does not run (and why not).
    pub fuzz_server: Result<PathBuf, String>,
    /// The libc model (its bitcode from psychic's cache, or in `_scratch`
    /// without one) and musl beneath it.
    pub libc: Libs,
    /// How a project's native builds are made (none: `meta.c` alone).
    project: Option<ProjectBuild>,
    _scratch: tempfile::TempDir,
}

/// Writes the meta program into `out` and compiles it: bitcode, then the
/// native builds at once (they are independent).
pub(super) fn builds(plan: &Plan, s: &Sources, out: &Path, watch: &dyn Watch) -> Result<Builds> {
    watch.stage("compile", format!("clang: the meta program ({} sites)", s.meta.sites.len()));
    let (meta_files, bitcode, project) = match &s.project {
        Some(p) => {
            let (files, bitcode, build) = project::bitcode(s, p, out, watch)?;
            (files, bitcode, Some(build))
        }
        None => {
            let meta_c = out.join("meta.c");
            let text = if plan.function_outputs {
                let (text, notes) = unify::instrument::function_outputs(&s.meta);
                notes.iter().for_each(|n| watch.warn(n));
                text
            } else {
                s.meta.text.clone()
            };
            write_text(&meta_c, &text)?;
            let meta_bc = out.join("meta.bc");
            s.tc.bitcode(&meta_c, &meta_bc).map_err(|e| meta_failure(&s.meta, &meta_c, e))?;
            (vec![meta_c], vec![meta_bc], None)
        }
    };
    let (native, perturbed, fuzz_server) =
        (out.join("meta.native"), out.join("meta.perturbed"), out.join("meta.fuzz"));
    let no_fuzzing = if !plan.fuzz {
        Some("--no-fuzz")
    } else if !plan.command.fuzzable(&plan.entry()) {
        Some("symbolic files, which only the engine feeds")
    } else {
        None
    };
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    let libc = Libs::with_musl(&s.tc, s.tc.libc_model_cached(scratch.path())?)?;
    let mut b = Builds {
        meta_files,
        bitcode,
        native,
        perturbed,
        fuzz_server: Err(String::new()),
        libc,
        project,
        _scratch: scratch,
    };
    let sanitize = plan.asan;
    let (replay_build, perturbed_build, fuzz_build) = std::thread::scope(|scope| {
        let (b, fuzz_server) = (&b, &fuzz_server);
        let fuzz_build = scope.spawn(move || {
            no_fuzzing.is_none().then(|| b.native_build(&s.tc, fuzz_server, &NativeKind::Fuzz))
        });
        let replay = b.native_build(
            &s.tc,
            &b.native,
            &NativeKind::Replay(NativeOptions { sanitize, ..Default::default() }),
        );
        let perturbed = b.native_build(
            &s.tc,
            &b.perturbed,
            &NativeKind::Replay(NativeOptions { sanitize, pattern_init: true }),
        );
        (replay, perturbed, fuzz_build.join().expect("clang runs do not panic"))
    });
    replay_build?;
    perturbed_build?;
    b.fuzz_server = match (no_fuzzing, fuzz_build) {
        (Some(why), _) => Err(why.to_string()),
        (None, Some(Err(e))) => {
            // The engine needs no fuzzing: go on without it, and say so.
            watch.warn(&format!("no fuzzing: the fuzz build failed: {e:#}"));
            Err("the fuzz build failed".to_string())
        }
        (None, _) => Ok(fuzz_server),
    };
    Ok(b)
}

impl Builds {
    /// The meta program's bitcode linked with the libc model and musl
    /// beneath it, as the engine runs it, and which served what.
    pub fn module(&self) -> Result<(Module, LibcUse)> {
        let (program, units) = self.bitcode.split_first().expect("a program has a unit");
        let units: Vec<&Path> = units.iter().map(PathBuf::as_path).collect();
        Ok(self.libc.load(program, &units)?)
    }

    /// A native build of the meta program into `target`.
    pub fn native_build(&self, tc: &Toolchain, target: &Path, kind: &NativeKind) -> Result<()> {
        if let Some(p) = &self.project {
            return p.link(tc, target, kind);
        }
        Ok(tc.native_build(&self.meta_files[0], target, kind)?)
    }
}

/// Writes `text` (`unify::encode`) into `path`, making its directory.
pub(super) fn write_text(path: &Path, text: &str) -> Result<()> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, unify::encode(text)))
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// clang's refusal of the meta program, in the revisions' terms. The meta
/// program includes every header some revision includes, so a revision that
/// declares a name a header it does not include declares otherwise compiles
/// alone but not there: clang's lines then name it, and the error does too,
/// with the lines moved into the revisions' files. Any other refusal is a bug.
fn meta_failure(meta: &unify::MetaProgram, meta_c: &Path, err: CompileError) -> anyhow::Error {
    const BUG: &str =
        "the meta program does not compile, but every revision does: this is a bug in psychic's unify stage";
    let CompileError::Failed { diagnostics, .. } = &err else { return anyhow::Error::new(err).context(BUG) };
    let lines: Vec<&str> = meta.text.lines().collect();
    let header = |l: usize| {
        let text = lines.get(l.checked_sub(1)?)?.trim_start().strip_prefix('#')?.trim_start();
        Some(text.strip_prefix("include")?.trim())
    };
    let n = meta.revisions.len();
    let mut lacks: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); n];
    for l in 1..=lines.len() {
        let has: Vec<usize> = meta.origins(l).iter().map(|o| o.revision).collect();
        if let Some(h) = header(l).filter(|_| !has.is_empty()) {
            for r in (0..n).filter(|r| !has.contains(r)) {
                lacks[r].insert(h);
            }
        }
    }
    let relocated = relocate(meta, &format!("{}:", meta_c.display()), diagnostics);
    let culprits: Vec<usize> = relocated
        .lines
        .iter()
        .filter(|&&l| header(l).is_none())
        .flat_map(|&l| meta.origins(l))
        .map(|o| o.revision)
        .filter(|&r| !lacks[r].is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Only a clash with a header comes through one; anything else is a bug.
    if culprits.is_empty() || !relocated.elsewhere {
        let diagnostics = relocated.text;
        return anyhow::Error::new(CompileError::Failed { file: meta_c.to_path_buf(), diagnostics })
            .context(BUG);
    }
    let lacked: BTreeSet<&str> = culprits.iter().flat_map(|&r| lacks[r].iter().copied()).collect();
    // The headers clang came through, when it says.
    let through: Vec<&str> =
        relocated.lines.iter().filter_map(|&l| header(l)).filter(|h| lacked.contains(h)).collect();
    let headers: BTreeSet<&str> = if through.is_empty() { lacked } else { through.into_iter().collect() };
    let named: Vec<String> = culprits.iter().map(|&r| format!("{r} ({})", meta.revisions[r].name)).collect();
    let who = match &named[..] {
        [one] => format!("revision {one} does"),
        many => format!("revisions {} do", many.join(", ")),
    };
    anyhow!(
        "{who} not compile beside the headers other revisions include, which the meta program includes for all \
         ({}): a name declared there clashes with one of theirs; include the header in every revision, or \
         rename what clashes. clang says:\n{}",
        headers.into_iter().collect::<Vec<_>>().join(", "),
        relocated.text.trim_end()
    )
}

/// clang's diagnostics about the meta program with its locations moved into
/// the revisions' files.
struct Relocated {
    text: String,
    /// The meta program's lines they point at.
    lines: Vec<usize>,
    /// Whether they point into another file too: a header.
    elsewhere: bool,
}

/// Moves every `META:LINE[:COL]` of `diagnostics` (`prefix` is `META:`) to
/// the file and line of the first revision the meta line belongs to, and the
/// line numbers of the source excerpts under it too. The column goes: the
/// meta program's is not the revision's.
fn relocate(meta: &unify::MetaProgram, prefix: &str, diagnostics: &str) -> Relocated {
    let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut out = Relocated { text: String::new(), lines: Vec::new(), elsewhere: false };
    // Where the excerpts under the last location line are from, if it is
    // the meta program's.
    let mut excerpt: Option<(usize, usize)> = None;
    for line in diagnostics.lines() {
        let gutter = line.trim_start();
        if let (Some((meta_line, own)), Some(bar)) = (excerpt, gutter.find(" | "))
            && digits(gutter) == bar
            && gutter[..bar].parse() == Ok(meta_line)
        {
            let number = format!("{own}");
            let width = line.len() - gutter.len() + bar;
            out.text.push_str(&format!("{number:>width$}{}\n", &gutter[bar..]));
            continue;
        }
        excerpt = None;
        out.elsewhere |= !line.starts_with(prefix) && located(line);
        let mut rest = line;
        // Only a location that starts the line has an excerpt under it.
        let mut leads = line.starts_with(prefix);
        while let Some(i) = rest.find(prefix) {
            out.text.push_str(&rest[..i]);
            rest = &rest[i + prefix.len()..];
            let l: Option<usize> = rest[..digits(rest)].parse().ok();
            let origins = l.map_or_else(Vec::new, |l| meta.origins(l));
            let first = std::mem::take(&mut leads);
            let (Some(l), Some(o)) = (l, origins.first()) else {
                out.text.push_str(prefix);
                continue;
            };
            out.lines.push(l);
            if first {
                excerpt = Some((l, o.line));
            }
            out.text.push_str(&format!("{}:{}", o.file, o.line));
            rest = &rest[digits(rest)..];
            if let Some(col) = rest.strip_prefix(':').filter(|t| digits(t) > 0) {
                rest = &col[digits(col)..];
            }
        }
        out.text.push_str(rest);
        out.text.push('\n');
    }
    out
}

/// Whether a diagnostic line starts with a location, `FILE:LINE:COL: `.
fn located(line: &str) -> bool {
    let Some((before, _)) = line.split_once(": ") else { return false };
    let mut parts = before.rsplitn(3, ':');
    let numbers = parts.by_ref().take(2).filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numbers.count() == 2 && parts.next().is_some_and(|f| !f.is_empty())
}

/// Every revision must compile on its own; a failure names the revision and
/// gives clang's message. (The meta program is checked afterwards.)
fn check_revisions_compile(tc: &Toolchain, sources: &[unify::RevisionSource]) -> Result<()> {
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    // An equal text in the same directory compiles alike: checked once.
    let mut seen = BTreeSet::new();
    let mut checks = Vec::new();
    for s in sources {
        let home = s.on_disk().then(|| s.path.parent());
        if !seen.insert((s.text.as_str(), home)) {
            continue;
        }
        // Patched text from a diff exists only in memory: check it under the
        // original's file name, so clang's messages read naturally.
        let file = if s.on_disk() {
            s.path.clone()
        } else {
            let name = s.path.file_name().unwrap_or("revision.c".as_ref());
            let f = scratch.path().join(format!("rev{}", s.index)).join(name);
            write_text(&f, &s.text)?;
            f
        };
        checks.push((s, file));
    }
    let files: Vec<PathBuf> = checks.iter().map(|(_, f)| f.clone()).collect();
    let results = tc.syntax_check_many(&files);
    for ((s, _), checked) in checks.iter().zip(results) {
        checked.with_context(|| format!("revision {} ({})", s.index, s.name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_move_into_the_revisions_files() {
        let source = |index: usize, name: &str, text: &str| unify::RevisionSource {
            index,
            name: name.to_string(),
            path: PathBuf::from(name),
            text: text.to_string(),
        };
        let meta = unify::unify(&[
            source(0, "a.c", "int f(void) { return 1; }\n"),
            source(1, "b.c", "int g;\nint f(void) { return 2; }\n"),
        ])
        .unwrap();
        let l = meta.text.lines().position(|t| t.contains("int g;")).unwrap() + 1;
        let said = format!(
            "In file included from out/meta.c:{l}:\nout/meta.c:{l}:5: error: redefinition of 'g'\n{l:>5} | int g;\n      \
             |     ^\n/usr/include/x.h:3:1: note: previous definition is here\n"
        );
        let r = relocate(&meta, "out/meta.c:", &said);
        assert_eq!(
            r.text,
            "In file included from b.c:1:\nb.c:1: error: redefinition of 'g'\n    1 | int g;\n      |     ^\n\
             /usr/include/x.h:3:1: note: previous definition is here\n"
        );
        assert_eq!(r.lines, [l, l]);
        assert!(r.elsewhere);
        assert!(!relocate(&meta, "out/meta.c:", &said.replace("/usr/include/x.h", "out/meta.c")).elsewhere);
    }
}
