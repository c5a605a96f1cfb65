//! The first stage for a project (`--project`): a program of several files
//! that its own build makes. `crate::project` learns from the original's
//! build what forms the program (`capture`, cached) and gives the text of
//! every touched file in every revision; here each is checked with its
//! unit's flags, all are unified with one site numbering
//! (`unify::unify_project`), and the program is built:
//! - the meta files go to `OUT/meta/SOURCE` (never into the project's tree);
//! - bitcode: every unit with its own flags in its own directory; an
//!   untouched unit from its source in the capture's tree, cached beside the
//!   capture (`TREE.units/`), so that a later run compiles only the touched
//!   units; a touched unit from `OUT/meta/SOURCE` (its meta file, or a copy
//!   of its source beside the meta file of a file it includes), with
//!   `-iquote` of the original source's directory, where its other quoted
//!   includes were found;
//! - native builds (replay, perturbed, fuzz, plain): the project's own
//!   objects, with the touched units' swapped for their meta files' objects
//!   built as the kind asks, linked by clang with psychic's runtime and the
//!   project's link flags. The fuzz build renames `main`, wherever it is, so
//!   every unit's fuzz object is psychic's (cached as the bitcode is).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::prepare::{Sources, write_text};
use super::{Plan, ProjectPlan, Watch};
use crate::compile::{self, CompileError, NativeKind, Toolchain, UnitFlags, cache_key};
use crate::project::{self, Capture, Touched, Unit};
use crate::report;
use crate::unify::{self, RevisionInfo, RevisionSource, TouchedFile};

/// The project's capture and what the revisions change.
pub(super) struct ProjectSources {
    pub capture: Capture,
    /// In `MetaProgram::files` order.
    pub touched: Vec<Touched>,
}

impl ProjectSources {
    /// The touched file `i`, relative to the tree.
    fn source(&self, i: usize) -> &Path {
        &self.touched[i].file
    }

    /// The touched files of unit `unit`, by index.
    fn of_unit(&self, unit: usize) -> Vec<usize> {
        (0..self.touched.len()).filter(|&i| self.touched[i].unit == unit).collect()
    }

    /// The units with a touched file, in unit order.
    fn units(&self) -> Vec<usize> {
        let mut units: Vec<usize> = self.touched.iter().map(|t| t.unit).collect();
        units.dedup();
        units
    }
}

/// Captures the original's build, reads the revisions of the touched files,
/// checks each with its unit's flags, and unifies them.
pub(super) fn sources(plan: &Plan, p: &ProjectPlan, watch: &dyn Watch) -> Result<Sources> {
    let dir = &plan.orig;
    if plan.function_outputs {
        bail!("--outputs functions: not available with --project yet");
    }
    watch.stage("capture", format!("{}: `{}` makes {}", dir.display(), p.build, p.program.display()));
    let capture = project::capture(dir, &p.program, &p.build)?;
    let revs = project::revisions(&capture, &plan.diffs, &plan.revisions)?;
    revs.notes.iter().for_each(|n| watch.warn(n));
    if revs.touched.is_empty() {
        bail!("{}: no revision changes a C file that {} is built from", dir.display(), p.program.display());
    }
    let ps = ProjectSources { capture, touched: revs.touched };
    // `project::revisions` numbers diffs first; `cli` takes diffs or trees, not both.
    let roots: Vec<&PathBuf> = std::iter::once(dir).chain(&plan.diffs).chain(&plan.revisions).collect();
    let stage = Instant::now();
    let n = roots.len();
    watch.stage("compile", format!("clang: checking {n} revisions of {} files", ps.touched.len()));
    let tc = Toolchain::discover()?.with_flags(plan.clang_flags.iter().map(String::as_str));
    check_revisions_compile(&tc, &ps, &roots)?;
    let checked = stage.elapsed().as_secs_f64();
    let stage = Instant::now();
    watch.stage("unify", format!("merging {n} revisions of {} files", ps.touched.len()));
    let revisions = roots
        .iter()
        .enumerate()
        .map(|(index, r)| RevisionInfo { index, name: r.display().to_string(), path: r.to_path_buf() })
        .collect();
    let files: Vec<TouchedFile> = (0..ps.touched.len())
        .map(|i| TouchedFile {
            source: ps.source(i).display().to_string(),
            sources: ps.touched[i].sources.clone(),
            macros: header_macros(&tc, &ps, i),
        })
        .collect();
    let meta = unify::unify_project(revisions, &files)?;
    let unified = stage.elapsed().as_secs_f64();
    // One text per revision: its touched files, each under its name, so
    // that equal texts are an equal program.
    let sources = roots
        .iter()
        .enumerate()
        .map(|(index, r)| RevisionSource {
            index,
            name: r.display().to_string(),
            path: r.to_path_buf(),
            text: files.iter().map(|f| format!("/* {} */\n{}", f.source, f.sources[index].text)).collect(),
        })
        .collect();
    Ok(Sources { sources, meta, tc, checked, unified, project: Some(ps) })
}

/// The macros the original of touched file `i` has defined once its
/// headers are read, for unify where the grammar cannot read one of them
/// unexpanded; none if clang cannot tell (unify then reports the syntax
/// error it meets).
fn header_macros(tc: &Toolchain, ps: &ProjectSources, i: usize) -> String {
    let unit = &ps.capture.units[ps.touched[i].unit];
    let flags = flags_at(&ps.capture, ps.touched[i].unit);
    let flags = UnitFlags { dir: &unit.dir, flags: &flags };
    tc.unit_macros(&ps.capture.tree.join(&unit.source), &flags).unwrap_or_default()
}

/// The flags a unit's meta file (or a revision of its source) compiles
/// with: the unit's, and the original source's directory for quoted
/// includes, which the file no longer sits in.
fn flags_at(c: &Capture, unit: usize) -> Vec<String> {
    let u = &c.units[unit];
    let home = c.tree.join(&u.source).parent().map(Path::to_path_buf).unwrap_or_else(|| c.tree.clone());
    let mut flags = u.flags.clone();
    flags.extend(["-iquote".to_string(), home.display().to_string()]);
    flags
}

/// Every revision of every touched unit must compile with its flags; a
/// failure names the revision, the unit and clang's message. A unit's
/// texts are checked once, in the first revision that has them: most
/// revisions leave most files as the original has them.
fn check_revisions_compile(tc: &Toolchain, ps: &ProjectSources, roots: &[&PathBuf]) -> Result<()> {
    let scratch = tempfile::tempdir().context("creating a temporary directory")?;
    let c = &ps.capture;
    let mut checks = Vec::new();
    for j in ps.units() {
        let mine = ps.of_unit(j);
        let source = &c.units[j].source;
        let mut checked = BTreeSet::new();
        for k in 0..roots.len() {
            let texts: Vec<&RevisionSource> = mine.iter().map(|&i| &ps.touched[i].sources[k]).collect();
            if !checked.insert(texts.iter().map(|s| s.text.as_str()).collect::<Vec<_>>()) {
                continue;
            }
            // A revision's own tree, where it has one, so that clang's
            // messages name its files; a diff's texts exist only in memory.
            let tree_of = |i: &usize| {
                let s = &ps.touched[*i].sources[k];
                let file = ps.source(*i);
                let root = s.path.ancestors().nth(file.components().count())?;
                (s.on_disk() && root.join(file) == s.path).then(|| root.to_path_buf())
            };
            let trees: BTreeSet<Option<PathBuf>> = mine.iter().map(tree_of).collect();
            let file = match trees.into_iter().collect::<Vec<_>>()[..] {
                [Some(ref r)] if r.join(source).is_file() => r.join(source),
                _ => {
                    let dir = scratch.path().join(format!("rev{k}"));
                    for (&i, s) in mine.iter().zip(&texts) {
                        write_text(&dir.join(ps.source(i)), &s.text)?;
                    }
                    if !mine.iter().any(|&i| ps.source(i) == source) {
                        copy_source(&c.tree, source, &dir)?;
                    }
                    dir.join(source)
                }
            };
            checks.push((j, k, file));
        }
    }
    let flags: BTreeMap<usize, Vec<String>> = ps.units().into_iter().map(|j| (j, flags_at(c, j))).collect();
    let results = compile::in_parallel(&checks, |(j, _, file)| {
        tc.unit_syntax_check(file, &UnitFlags { dir: &c.units[*j].dir, flags: &flags[j] })
    });
    for ((j, k, _), checked) in checks.iter().zip(results) {
        checked.with_context(|| {
            format!("revision {k} ({}): {}", roots[*k].display(), c.units[*j].source.display())
        })?;
    }
    Ok(())
}

/// A copy of the tree's `source` at `dir/source`: a unit compiled there
/// finds the touched files it includes beside it.
fn copy_source(tree: &Path, source: &Path, dir: &Path) -> Result<()> {
    let (from, to) = (tree.join(source), dir.join(source));
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("{}: cannot create", parent.display()))?;
    }
    std::fs::copy(&from, &to)
        .with_context(|| format!("{}: cannot copy to {}", from.display(), to.display()))?;
    Ok(())
}

/// One unit as the native builds take it.
struct BuildUnit {
    /// What compiles: the meta file, or the source in the capture's tree.
    source: PathBuf,
    dir: PathBuf,
    flags: Vec<String>,
    /// For an untouched unit: the project's own object, and where psychic's
    /// builds of it are kept.
    own: Option<Own>,
}

struct Own {
    object: PathBuf,
    /// The key of its builds in the cache (`unit_key`).
    key: u64,
}

impl BuildUnit {
    fn flags(&self) -> UnitFlags<'_> {
        UnitFlags { dir: &self.dir, flags: &self.flags }
    }

    /// The untouched unit's build `ext` from `cache`, made by `build` the
    /// first time; built aside and renamed into place, so that a reader
    /// never sees half a file.
    fn cached(
        &self,
        key: u64,
        cache: &Path,
        ext: &str,
        build: impl FnOnce(&Path) -> Result<(), CompileError>,
    ) -> Result<PathBuf> {
        let stem = self.source.file_stem().unwrap_or_default().to_string_lossy();
        let path = cache.join(format!("{stem}-{key:016x}.{ext}"));
        if path.is_file() {
            return Ok(path);
        }
        std::fs::create_dir_all(cache).with_context(|| format!("{}: cannot create", cache.display()))?;
        let tmp = cache.join(format!(".{stem}-{}.{ext}", std::process::id()));
        build(&tmp)?;
        std::fs::rename(&tmp, &path).with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(path)
    }
}

/// The key of an untouched unit's builds: everything they read that may
/// change: psychic, clang, the source's path, the flags they are built with,
/// the directory and the bytes of the source and of the headers inside the
/// tree it includes. Read once per run, for all of the unit's builds.
fn unit_key(tc: &Toolchain, c: &Capture, u: &Unit, flags: &[String]) -> Result<u64> {
    let mut files = Vec::new();
    for f in std::iter::once(&u.source).chain(&u.headers) {
        let path = c.tree.join(f);
        let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        files.push((path, cache_key(&bytes)));
    }
    Ok(cache_key(&(tc.clang(), flags, &u.dir, files)))
}

/// How the project's native builds are made.
pub(super) struct ProjectBuild {
    /// In link order.
    units: Vec<BuildUnit>,
    tree: PathBuf,
    link_flags: Vec<String>,
    cache: PathBuf,
}

/// Writes the meta files into `out/meta/` and compiles every unit to
/// bitcode: the meta files, the bitcode in link order, and how to make the
/// native builds.
pub(super) fn bitcode(
    s: &Sources,
    ps: &ProjectSources,
    out: &Path,
    watch: &dyn Watch,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>, ProjectBuild)> {
    let out = std::path::absolute(out).with_context(|| format!("{}: no absolute path", out.display()))?;
    let c = &ps.capture;
    let mut meta_files = Vec::new();
    for i in 0..ps.touched.len() {
        let path = out.join("meta").join(ps.source(i));
        write_text(&path, &s.meta.file_text(i))?;
        meta_files.push(path);
    }
    // A unit whose included files alone are touched compiles from a copy
    // of its source beside their meta files.
    for j in ps.units() {
        if !ps.of_unit(j).iter().any(|&i| *ps.source(i) == c.units[j].source) {
            copy_source(&c.tree, &c.units[j].source, &out.join("meta"))?;
        }
    }
    let cache = unit_cache(c, &out);
    let mut units = Vec::new();
    let mut bitcode = Vec::new();
    for (j, u) in c.units.iter().enumerate() {
        let (source, flags, own) = if ps.touched.iter().any(|t| t.unit == j) {
            (out.join("meta").join(&u.source), flags_at(c, j), None)
        } else {
            // The engine's locations in an untouched unit name DIR's
            // file, not the capture's copy the user never saw.
            let mut flags = u.flags.clone();
            flags.push(format!("-ffile-prefix-map={}={}", c.tree.display(), c.dir.display()));
            let own = Own { object: u.object.clone(), key: unit_key(&s.tc, c, u, &flags)? };
            (c.tree.join(&u.source), flags, Some(own))
        };
        let unit = BuildUnit { source, dir: u.dir.clone(), flags, own };
        let bc = match &unit.own {
            None => {
                let bc = unit.source.with_extension("bc");
                s.tc.unit_bitcode(&unit.source, &bc, &unit.flags()).with_context(|| {
                    format!(
                        "the meta program's {} does not compile, but every revision does: this is a bug in psychic's unify stage",
                        u.source.display()
                    )
                })?;
                bc
            }
            Some(own) => unit.cached(own.key, &cache, "bc", |dst| {
                watch.stage(
                    "compile",
                    format!("clang: {} to bitcode (kept for later runs)", u.source.display()),
                );
                s.tc.unit_bitcode(&unit.source, dst, &unit.flags())
            })?,
        };
        bitcode.push(bc);
        units.push(unit);
    }
    // The project's archives come after the objects, before the other flags,
    // as in the project's link: they give the members a unit compiled
    // without optimisation calls that the original link never loaded.
    let link_flags =
        c.link.archives.iter().map(|a| a.display().to_string()).chain(c.link.flags.iter().cloned()).collect();
    let build = ProjectBuild { units, tree: c.tree.clone(), link_flags, cache };
    Ok((meta_files, bitcode, build))
}

impl ProjectBuild {
    /// The native build `kind` into `target`: the meta files' objects (named
    /// after `target`, so that builds at once do not meet) and the others.
    pub fn link(&self, tc: &Toolchain, target: &Path, kind: &NativeKind) -> Result<()> {
        // The link runs in the tree, as the project's did.
        let target = &std::path::absolute(target)
            .with_context(|| format!("{}: no absolute path", target.display()))?;
        let suffix = target.file_name().unwrap_or_default().to_string_lossy().replace('.', "-");
        let mut objects = Vec::new();
        for u in &self.units {
            let object = match (&u.own, kind) {
                (None, _) => {
                    let o = u.source.with_extension(format!("{suffix}.o"));
                    tc.unit_object(&u.source, &o, &u.flags(), kind)?;
                    o
                }
                (Some(own), NativeKind::Replay(_)) => own.object.clone(),
                (Some(own), NativeKind::Fuzz) => u.cached(own.key, &self.cache, "fuzz.o", |dst| {
                    tc.unit_object(&u.source, dst, &u.flags(), kind)
                })?,
            };
            objects.push(object);
        }
        tc.link(&objects, target, &self.tree, &self.link_flags, kind)
            .with_context(|| format!("linking {}", target.display()))
    }
}

/// Where untouched units' builds are kept: beside the capture's tree, or
/// in the output directory when that cannot be written.
fn unit_cache(c: &Capture, out: &Path) -> PathBuf {
    let name = c.tree.file_name().unwrap_or_default().to_string_lossy();
    let beside = c.tree.with_file_name(format!("{name}.units"));
    if std::fs::create_dir_all(&beside).is_ok() {
        return beside;
    }
    out.join("units")
}

/// A revision whose tree lacks its touched files as they are (a diff's)
/// gets them in `OUT/revisions/K/`, the tree its locations then name.
pub(super) fn write_patched(
    revisions: &mut [report::Revision],
    ps: &ProjectSources,
    out: &Path,
) -> Result<()> {
    for (k, r) in revisions.iter_mut().enumerate() {
        let root = Path::new(&r.path);
        let texts: Vec<(&Path, &RevisionSource)> =
            (0..ps.touched.len()).map(|i| (ps.source(i), &ps.touched[i].sources[k])).collect();
        let as_is = texts
            .iter()
            .all(|(src, s)| std::fs::read(root.join(src)).is_ok_and(|t| t == unify::encode(&s.text)));
        if as_is {
            continue;
        }
        let rel = Path::new("revisions").join(k.to_string());
        for (src, s) in &texts {
            write_text(&out.join(&rel).join(src), &s.text)?;
        }
        r.patched = Some(rel.display().to_string());
    }
    Ok(())
}
