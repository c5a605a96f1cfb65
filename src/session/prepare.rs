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

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use super::project::{self, ProjectBuild, ProjectSources};
use super::{Plan, Watch};
use crate::compile::{NativeKind, NativeOptions, Toolchain};
use crate::ir::Module;
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
    // The meta program lives in the output directory; its quoted includes are
    // the original's.
    let tc = Toolchain::discover()?
        .with_flags(plan.clang_flags.iter().map(String::as_str))
        .with_flags([std::ffi::OsString::from("-I"), orig_dir.into_os_string()]);
    // clang first: what it refuses, its own message explains best.
    check_revisions_compile(&tc, &sources)?;
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
    /// The libc model's bitcode (in `_scratch`).
    pub libc: Vec<PathBuf>,
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
            std::fs::write(&meta_c, unify::encode(&text))
                .with_context(|| format!("writing {}", meta_c.display()))?;
            let meta_bc = out.join("meta.bc");
            s.tc.bitcode(&meta_c, &meta_bc).context(
                "the meta program does not compile, but every revision does: this is a bug in psychic's unify stage",
            )?;
            (vec![meta_c], vec![meta_bc], None)
        }
    };
    let (native, perturbed, fuzz_server) =
        (out.join("meta.native"), out.join("meta.perturbed"), out.join("meta.fuzz"));
    let no_fuzzing = if !plan.fuzz {
        Some("--no-fuzz")
    } else if !plan.command.fuzzable(&plan.entry()) {
        Some("symbolic arguments or files, which only the engine feeds")
    } else {
        None
    };
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    let libc = s.tc.libc_model_bitcode(scratch.path())?;
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
        let b = &b;
        let fuzz_build = scope.spawn(move || {
            no_fuzzing.is_none().then(|| b.native_build(&s.tc, &fuzz_server, &NativeKind::Fuzz))
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
        (None, _) => Ok(out.join("meta.fuzz")),
    };
    Ok(b)
}

impl Builds {
    /// The meta program's bitcode linked with the libc model, as the engine
    /// runs it.
    pub fn module(&self) -> Result<Module> {
        let (program, units) = self.bitcode.split_first().expect("a program has a unit");
        let libs: Vec<&Path> = units.iter().chain(&self.libc).map(PathBuf::as_path).collect();
        Ok(Module::load_linked(program, &libs)?)
    }

    /// A native build of the meta program into `target`.
    pub fn native_build(&self, tc: &Toolchain, target: &Path, kind: &NativeKind) -> Result<()> {
        if let Some(p) = &self.project {
            return p.link(tc, target, kind);
        }
        let meta_c = &self.meta_files[0];
        match kind {
            NativeKind::Replay(opts) => tc.native(meta_c, target, opts)?,
            NativeKind::Fuzz => tc.fuzz_server(meta_c, target)?,
        }
        Ok(())
    }
}

/// Every revision must compile on its own; a failure names the revision and
/// gives clang's message. (The meta program is checked afterwards.)
fn check_revisions_compile(tc: &Toolchain, sources: &[unify::RevisionSource]) -> Result<()> {
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    for s in sources {
        // Patched text from a diff exists only in memory: check it under the
        // original's file name, so clang's messages read naturally.
        let file = if on_disk(s) {
            s.path.clone()
        } else {
            let dir = scratch.path().join(format!("rev{}", s.index));
            std::fs::create_dir_all(&dir)?;
            let f = dir.join(s.path.file_name().unwrap_or("revision.c".as_ref()));
            std::fs::write(&f, unify::encode(&s.text))?;
            f
        };
        tc.syntax_check(&file).with_context(|| format!("revision {} ({})", s.index, s.name))?;
    }
    Ok(())
}

/// The revision's text is its file's (it was not made by applying a diff).
pub(super) fn on_disk(s: &unify::RevisionSource) -> bool {
    s.path.is_file() && std::fs::read(&s.path).is_ok_and(|t| t == unify::encode(&s.text))
}
