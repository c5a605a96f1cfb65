//! The original build, watched: the copy, the wrappers, the build, and from
//! what the wrappers noted, PATH's units and link (see the module doc of
//! `project` for the design).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::argv::{self, Job};
use super::cache::{self, Lock};
use super::{Capture, Link, ProjectError, Unit};
use crate::compile::cache_key;

/// The file of a cache entry that says its build finished, and from which
/// listing of DIR: written last, so that an entry without it is redone.
const BUILT: &str = "built.json";

#[derive(Debug, Serialize, Deserialize)]
struct Built {
    fingerprint: u64,
    tree: PathBuf,
    build_time: Duration,
}

/// One call of a wrapped tool, as its wrapper noted it.
#[derive(Debug, Clone)]
struct Call {
    /// `cc` (a compiler driver) or `ar` (an archiver).
    kind: String,
    /// The real tool the wrapper ran.
    tool: PathBuf,
    cwd: PathBuf,
    /// The arguments, without the program.
    args: Vec<String>,
}

/// Builds DIR (a configured project) with `build` in a private copy, once per
/// state of DIR, and learns what forms `program` (relative to DIR). The copy
/// lives in psychic's cache (`compile::cache_dir`, else a temporary
/// directory).
pub fn capture(dir: &Path, program: &Path, build: &str) -> Result<Capture, ProjectError> {
    capture_in(&cache::default_root(), dir, program, build)
}

/// [`capture`] with the cache at `cache` instead of psychic's own.
pub fn capture_in(cache: &Path, dir: &Path, program: &Path, build: &str) -> Result<Capture, ProjectError> {
    let dir = match std::fs::canonicalize(dir) {
        Ok(d) if d.is_dir() => d,
        _ => return Err(ProjectError::NoDir { dir: dir.to_path_buf() }),
    };
    let program = relative_program(&dir, program)?;
    let before = cache::listing(&dir)?;
    let fingerprint = cache_key(&before);
    let entry = cache::entry(cache, &dir, build);
    let _lock = Lock::take(&entry)?;
    let cached =
        read_json::<Built>(&entry.join(BUILT)).filter(|b| b.fingerprint == fingerprint && b.tree.is_dir());
    let fresh = cached.is_none();
    let built = match cached {
        Some(b) => b,
        None => build_fresh(&dir, &entry, build, fingerprint, &before)?,
    };
    // `-2`: a capture saved before `Link::archives` is derived again.
    let saved = entry.join(format!("program-2-{:016x}.json", cache_key(&program)));
    if let Some(c) = read_json::<Capture>(&saved).filter(|_| !fresh) {
        return Ok(Capture { fresh, build_time: built.build_time, ..c });
    }
    let calls = read_calls(&entry.join("log"))?;
    let tree = &built.tree;
    let (units, link) = derive(&dir, tree, &program, build, &calls, &entry)?;
    let c = Capture { dir, tree: tree.clone(), program, units, link, fresh, build_time: built.build_time };
    write_json(&saved, &c)?;
    Ok(c)
}

/// PATH relative to DIR, whether it was given relative or absolute.
fn relative_program(dir: &Path, program: &Path) -> Result<PathBuf, ProjectError> {
    let outside = || ProjectError::ProgramOutside { program: program.to_path_buf(), dir: dir.to_path_buf() };
    let abs = argv::normalize(&dir.join(program));
    let rel = abs.strip_prefix(dir).map_err(|_| outside())?;
    if rel.as_os_str().is_empty() {
        return Err(outside());
    }
    Ok(rel.to_path_buf())
}

/// Copies DIR into the entry's tree and builds it there, watched.
fn build_fresh(
    dir: &Path,
    entry: &Path,
    build: &str,
    fingerprint: u64,
    before: &BTreeMap<PathBuf, cache::Stamp>,
) -> Result<Built, ProjectError> {
    // Whatever an earlier build left in the entry goes first, finished or not.
    for e in std::fs::read_dir(entry).map_err(|e| ProjectError::io(entry, "clearing the capture cache", e))? {
        let p = e.map_err(|e| ProjectError::io(entry, "clearing the capture cache", e))?.path();
        if p.file_name().is_some_and(|n| n == "lock") {
            continue;
        }
        let gone = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        gone.map_err(|e| ProjectError::io(&p, "clearing the capture cache", e))?;
    }
    let tree = entry.join("tree");
    std::fs::create_dir(&tree).map_err(|e| ProjectError::io(&tree, "copying the project", e))?;
    // `cp -a` keeps modification times, so make sees the tree as configured.
    let mut cp = Command::new("cp");
    cp.arg("-a").arg("--").arg(dir.join(".")).arg(&tree);
    run_tool(cp, dir, "copying the project")?;
    let tree = std::fs::canonicalize(&tree).map_err(|e| ProjectError::io(&tree, "copying the project", e))?;
    remove_outputs(&tree)?;

    let (bin, log) = (entry.join("bin"), entry.join("log"));
    for d in [&bin, &log] {
        std::fs::create_dir(d).map_err(|e| ProjectError::io(d, "installing the capture wrappers", e))?;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    install_wrappers(&bin, &log, &path)?;
    let command = format!("{build}{}", make_overrides(dir, &tree, build, &bin, &log)?);
    let mut new_path = vec![bin.clone()];
    new_path.extend(std::env::split_paths(&path));
    let new_path = std::env::join_paths(new_path).unwrap_or(path);

    let out_path = entry.join("build.log");
    let out =
        std::fs::File::create(&out_path).map_err(|e| ProjectError::io(&out_path, "running the build", e))?;
    let err = out.try_clone().map_err(|e| ProjectError::io(&out_path, "running the build", e))?;
    let start = Instant::now();
    let status = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(&tree)
        .env("PATH", new_path)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| ProjectError::io(&tree, "running the build", e))?;
    let build_time = start.elapsed();
    if !status.success() {
        let output = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned();
        let status = status.code();
        return Err(ProjectError::Build {
            dir: dir.to_path_buf(),
            tree,
            command: build.to_string(),
            status,
            output,
        });
    }
    if let Some(file) = cache::first_difference(before, &cache::listing(dir)?) {
        return Err(ProjectError::WroteIntoDir { dir: dir.to_path_buf(), file: file.display().to_string() });
    }
    let built = Built { fingerprint, tree, build_time };
    write_json(&entry.join(BUILT), &built)?;
    Ok(built)
}

/// Runs one of psychic's own commands; a failure names `path` and `step`.
fn run_tool(mut cmd: Command, path: &Path, step: &'static str) -> Result<std::process::Output, ProjectError> {
    let command = format!("{cmd:?}").replace('"', "");
    let output = cmd.stdin(Stdio::null()).output().map_err(|e| ProjectError::io(path, step, e))?;
    if output.status.success() {
        return Ok(output);
    }
    let text =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    Err(ProjectError::Tool { path: path.to_path_buf(), step, command, output: text })
}

/// Removes the copy's objects and archives, so that the build makes every
/// one of them (and the wrappers see it) even when DIR was built already.
fn remove_outputs(tree: &Path) -> Result<(), ProjectError> {
    let mut stack = vec![tree.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| ProjectError::io(&d, "removing old objects", e))?;
        for e in entries.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() && e.file_name() != ".git" {
                stack.push(p);
            } else if ft.is_file()
                && p.extension().is_some_and(|x| ["o", "a", "lo", "la"].iter().any(|o| x == *o))
            {
                std::fs::remove_file(&p).map_err(|e| ProjectError::io(&p, "removing old objects", e))?;
            }
        }
    }
    Ok(())
}

/// What a tool of this name is to the capture: `cc` for a C compiler driver
/// (`gcc`, `clang-19`, `x86_64-linux-gnu-gcc-12`, `cc`, `c99`), `ar` for an
/// archiver (`ar`, `gcc-ar`, `llvm-ar-19`).
fn tool_kind(name: &str) -> Option<&'static str> {
    let base = match name.rsplit_once('-') {
        Some((b, v)) if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.') => b,
        _ => name,
    };
    match base.rsplit('-').next().unwrap_or(base) {
        "cc" | "c89" | "c99" | "gcc" | "clang" => Some("cc"),
        "ar" => Some("ar"),
        _ => None,
    }
}

/// The wrapper of `real`: it notes the call (kind, tool, working directory,
/// arguments, each ended by a NUL) in a file of its own under `log`, so that
/// parallel builds never interleave two calls, then runs the tool.
fn wrapper(kind: &str, real: &Path, log: &Path) -> String {
    let q = |p: &Path| argv::shell_quote(&p.display().to_string());
    let (real, log) = (q(real), q(&log.join("call.XXXXXXXXXX")));
    format!(
        "#!/bin/sh\n# psychic's build capture: notes this call, then runs the real tool.\n\
         f=$(mktemp {log}) && printf '%s\\000' {kind} {real} \"$(pwd -P)\" \"$@\" > \"$f\"\n\
         exec {real} \"$@\"\n"
    )
}

fn write_wrapper(path: &Path, kind: &str, real: &Path, log: &Path) -> Result<(), ProjectError> {
    use std::os::unix::fs::PermissionsExt;
    let step = "installing the capture wrappers";
    std::fs::write(path, wrapper(kind, real, log)).map_err(|e| ProjectError::io(path, step, e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| ProjectError::io(path, step, e))
}

/// A wrapper in `bin` for every compiler driver and archiver on `path`, the
/// first of each name, as the shell would find it.
fn install_wrappers(bin: &Path, log: &Path, path: &std::ffi::OsStr) -> Result<(), ProjectError> {
    use std::os::unix::fs::PermissionsExt;
    for dir in std::env::split_paths(path) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(kind) = name.to_str().and_then(tool_kind) else { continue };
            let real = e.path();
            let runnable =
                std::fs::metadata(&real).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
            if runnable && !bin.join(&name).exists() {
                write_wrapper(&bin.join(&name), kind, &real, log)?;
            }
        }
    }
    Ok(())
}

/// Make variables that name a tool by absolute path (`CC = /usr/bin/gcc
/// -std=gnu11`), which `PATH` cannot catch: each is overridden on make's
/// command line with a wrapper of the same tool, its flags kept. And the
/// variables by which a configured automake tree names itself absolutely
/// (`abs_top_builddir = DIR`, `abs_top_srcdir`; the same in every Makefile of
/// the tree), which would send the copy's build to DIR: coreutils' man pages
/// run `$(abs_top_builddir)/src/PROG`, which DIR does not have. Only for a
/// build that is one plain `make` command; the rest is `PATH`'s.
fn make_overrides(
    dir: &Path,
    tree: &Path,
    build: &str,
    bin: &Path,
    log: &Path,
) -> Result<String, ProjectError> {
    let words = argv::shell_words(build);
    let is_make =
        words.first().and_then(|w| Path::new(w).file_name()).is_some_and(|n| n == "make" || n == "gmake");
    if !is_make || build.contains([';', '&', '|', '<', '>', '`', '$', '(', '\n']) {
        return Ok(String::new());
    }
    // Every one of make's makefiles that the tree has, in make's order: a
    // GNUmakefile (coreutils', grep's: gnulib's maintainer rules) includes
    // the Makefile that configure wrote, where the assignments are.
    let texts: Vec<String> = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .filter_map(|m| std::fs::read(tree.join(m)).ok())
        .map(|t| String::from_utf8_lossy(&t).into_owned())
        .collect();
    if texts.is_empty() {
        return Ok(String::new());
    }
    let text = texts.join("\n");
    let mut out = String::new();
    for (var, kind) in [("CC", "cc"), ("AR", "ar")] {
        // The last plain assignment wins, as in make.
        let value = text.lines().rev().find_map(|l| assigned(l, var));
        let Some(value) = value else { continue };
        let (tool, rest) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
        if !Path::new(tool).is_absolute() || !Path::new(tool).is_file() {
            continue;
        }
        let w = bin.join(format!("psychic-{}", var.to_lowercase()));
        write_wrapper(&w, kind, Path::new(tool), log)?;
        let rest = if rest.trim().is_empty() { String::new() } else { format!(" {}", rest.trim()) };
        out.push(' ');
        out.push_str(&argv::shell_quote(&format!("{var}={}{rest}", w.display())));
    }
    for (var, value) in self_references(&text, dir, tree) {
        out.push(' ');
        out.push_str(&argv::shell_quote(&format!("{var}={value}")));
    }
    Ok(out)
}

/// Automake's `abs_top_builddir` and `abs_top_srcdir` where the makefile
/// `text` sets them to DIR or below it, each with its value moved into the
/// copy `tree`.
fn self_references(text: &str, dir: &Path, tree: &Path) -> Vec<(&'static str, String)> {
    let dir = dir.display().to_string();
    let mut out = Vec::new();
    for var in ["abs_top_builddir", "abs_top_srcdir"] {
        let Some(value) = text.lines().rev().find_map(|l| assigned(l, var)) else { continue };
        let rest =
            if value == dir { Some("") } else { value.strip_prefix(&dir).filter(|r| r.starts_with('/')) };
        if let Some(rest) = rest {
            out.push((var, format!("{}{rest}", tree.display())));
        }
    }
    out
}

/// The value of `VAR = value` (or `:=`, `?=`) on this makefile line.
fn assigned<'a>(line: &'a str, var: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(var)?.trim_start();
    let rest =
        rest.strip_prefix(":=").or_else(|| rest.strip_prefix("?=")).or_else(|| rest.strip_prefix('='))?;
    Some(rest.trim())
}

/// The wrappers' notes, oldest first.
fn read_calls(log: &Path) -> Result<Vec<Call>, ProjectError> {
    let step = "reading the captured calls";
    let mut files = Vec::new();
    for e in std::fs::read_dir(log).map_err(|e| ProjectError::io(log, step, e))? {
        let e = e.map_err(|e| ProjectError::io(log, step, e))?;
        let when =
            e.metadata().and_then(|m| m.modified()).map_err(|err| ProjectError::io(e.path(), step, err))?;
        files.push((when, e.path()));
    }
    files.sort();
    let mut out = Vec::new();
    for (_, f) in files {
        let bytes = std::fs::read(&f).map_err(|e| ProjectError::io(&f, step, e))?;
        let mut fields: Vec<String> =
            bytes.split(|&b| b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        fields.pop(); // after the last NUL
        if fields.len() < 3 {
            continue; // a wrapper killed while writing
        }
        let args = fields.split_off(3);
        let [kind, tool, cwd] = <[String; 3]>::try_from(fields).expect("three fields");
        out.push(Call { kind, tool: tool.into(), cwd: cwd.into(), args });
    }
    Ok(out)
}

/// PATH's units and link, from the calls of the build in `tree`.
fn derive(
    dir: &Path,
    tree: &Path,
    program: &Path,
    build: &str,
    calls: &[Call],
    entry: &Path,
) -> Result<(Vec<Unit>, Link), ProjectError> {
    let target = tree.join(program);
    if !target.is_file() {
        return Err(ProjectError::NotBuilt {
            program: program.to_path_buf(),
            tree: tree.to_path_buf(),
            command: build.to_string(),
        });
    }
    // Each object's compile (the last one, if the build made it twice), and
    // each archive's members' objects in the order they went in.
    let mut compiles: BTreeMap<PathBuf, (&Call, PathBuf)> = BTreeMap::new();
    let mut archives: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let mut link = None;
    for c in calls {
        match c.kind.as_str() {
            "cc" => match argv::job(&c.args, &c.cwd) {
                Job::Compile(pairs) => {
                    for (src, obj) in pairs {
                        compiles.insert(obj, (c, src));
                    }
                }
                Job::Link { output, sources } if output == target => link = Some((c, sources)),
                _ => {}
            },
            _ => {
                if let Some((archive, members)) = argv::archive(&c.args, &c.cwd) {
                    archives.entry(archive).or_default().extend(members);
                }
            }
        }
    }
    let Some((link, sources)) = link else {
        return Err(ProjectError::NoLink { program: program.to_path_buf() });
    };
    if let Some(src) = sources.first() {
        return Err(ProjectError::OneStepLink {
            program: program.to_path_buf(),
            source_file: src.strip_prefix(tree).unwrap_or(src).to_path_buf(),
        });
    }
    let db = compile_db(dir, tree);
    let mut units: Vec<Unit> = Vec::new();
    for object in loaded_objects(link, entry, program, &archives)? {
        if !object.starts_with(tree) || units.iter().any(|u| u.object == object) {
            continue; // the C library's, the compiler's; or seen
        }
        let Some((call, src)) = compiles.get(&object) else {
            return Err(ProjectError::UnknownObject { object, program: program.to_path_buf() });
        };
        let flags = db.get(src).cloned().unwrap_or_else(|| argv::unit_flags(&call.args, &call.cwd));
        let headers = headers(call, &flags, src, tree)?;
        let source = src.strip_prefix(tree).unwrap_or(src).to_path_buf();
        units.push(Unit { source, dir: call.cwd.clone(), flags, object, headers });
    }
    let archives = argv::link_archives(&link.args, &link.cwd, tree);
    Ok((units, Link { flags: argv::link_flags(&link.args, &link.cwd, tree), archives }))
}

/// The objects the link of PATH loads, in order, archive members resolved
/// to the objects the archiver put in: the link again, into a scratch
/// output, with the linker naming what it loads.
fn loaded_objects(
    link: &Call,
    entry: &Path,
    program: &Path,
    archives: &BTreeMap<PathBuf, Vec<PathBuf>>,
) -> Result<Vec<PathBuf>, ProjectError> {
    let scratch = entry.join("trace");
    std::fs::create_dir_all(&scratch).map_err(|e| ProjectError::io(&scratch, "relinking with --trace", e))?;
    let out = scratch.join(format!("{:016x}", cache_key(&program)));
    let mut cmd = Command::new(&link.tool);
    cmd.args(argv::traced_link(&link.args, &out)).current_dir(&link.cwd).env("LC_ALL", "C");
    let output = run_tool(cmd, program, "relinking it with -Wl,--trace to learn its objects")?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut objects = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let abs = |p: &str| argv::normalize(&link.cwd.join(p));
        let member = if let Some(rest) = line.strip_prefix('(') {
            rest.split_once(')') // GNU ld: `(lib/libcalc.a)eval.o`
        } else if line.ends_with(')') && !line.contains(' ') {
            line[..line.len() - 1].split_once('(') // lld: `lib/libcalc.a(eval.o)`
        } else {
            None
        };
        if let Some((archive, name)) = member {
            let archive = abs(archive);
            let object = archives
                .get(&archive)
                .and_then(|objs| objs.iter().rev().find(|o| o.file_name().is_some_and(|n| n == name)));
            objects.push(object.cloned().unwrap_or_else(|| archive.join(name)));
        } else if !(line.contains(": ") || line.starts_with("-l") || is_library(line)) {
            objects.push(abs(line)); // not a message, a library or an archive
        }
    }
    Ok(objects)
}

/// An archive or a shared library, which the trace names beside the objects.
fn is_library(path: &str) -> bool {
    path.ends_with(".a") || path.ends_with(".so") || path.contains(".so.")
}

/// One entry of a `compile_commands.json`.
#[derive(Deserialize)]
struct DbEntry {
    directory: String,
    file: String,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
}

/// The flags of the project's `compile_commands.json` by source (absolute,
/// in the tree), its paths moved from DIR into the tree. A database that
/// does not parse is passed over: the capture has every compile anyway.
fn compile_db(dir: &Path, tree: &Path) -> BTreeMap<PathBuf, Vec<String>> {
    let Ok(text) = std::fs::read_to_string(tree.join("compile_commands.json")) else {
        return BTreeMap::new();
    };
    let Ok(entries) = serde_json::from_str::<Vec<DbEntry>>(&text) else { return BTreeMap::new() };
    let (d, t) = (dir.display().to_string(), tree.display().to_string());
    let moved = |s: &str| if s == d { t.clone() } else { s.replace(&format!("{d}/"), &format!("{t}/")) };
    let mut out = BTreeMap::new();
    for e in entries {
        let words = match (e.arguments, e.command) {
            (Some(a), _) => a,
            (None, Some(c)) => argv::shell_words(&c),
            (None, None) => continue,
        };
        let words: Vec<String> = words.iter().map(|w| moved(w)).collect();
        let directory = PathBuf::from(moved(&e.directory));
        let file = argv::normalize(&directory.join(moved(&e.file)));
        out.insert(file, argv::unit_flags(words.get(1..).unwrap_or_default(), &directory));
    }
    out
}

/// The files inside `tree` that the unit of `src` includes (relative,
/// sorted): the compiler's `-M` with the unit's own flags.
fn headers(call: &Call, flags: &[String], src: &Path, tree: &Path) -> Result<Vec<PathBuf>, ProjectError> {
    let mut cmd = Command::new(&call.tool);
    cmd.args(flags).arg("-M").arg(src).current_dir(&call.cwd).env("LC_ALL", "C");
    let command = format!("{cmd:?}").replace('"', "");
    let output = cmd.output().map_err(|e| ProjectError::io(src, "listing its headers", e))?;
    if !output.status.success() {
        let output = String::from_utf8_lossy(&output.stderr).into_owned();
        return Err(ProjectError::Headers { source_file: src.to_path_buf(), command, output });
    }
    let text = String::from_utf8_lossy(&output.stdout).replace("\\\n", " ");
    let deps = text.split_once(": ").map_or("", |(_, d)| d);
    // Words split at blanks that no backslash escapes.
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut chars = deps.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.extend(chars.next()),
            c if c.is_whitespace() => words.extend((!cur.is_empty()).then(|| std::mem::take(&mut cur))),
            c => cur.push(c),
        }
    }
    words.extend((!cur.is_empty()).then_some(cur));
    let mut out: Vec<PathBuf> = words
        .iter()
        .map(|w| argv::normalize(&call.cwd.join(w)))
        .filter(|p| p.starts_with(tree) && p != src)
        .filter_map(|p| p.strip_prefix(tree).ok().map(Path::to_path_buf))
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Writes aside and renames, so that a reader never sees half a file.
fn write_json(path: &Path, value: &impl Serialize) -> Result<(), ProjectError> {
    let step = "writing the capture cache";
    let text = serde_json::to_vec_pretty(value).expect("captures serialise");
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| ProjectError::io(&tmp, step, e))?;
    std::fs::rename(&tmp, path).map_err(|e| ProjectError::io(path, step, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_by_name() {
        for cc in ["cc", "gcc", "gcc-12", "clang", "clang-19", "x86_64-linux-gnu-gcc-12", "c99"] {
            assert_eq!(tool_kind(cc), Some("cc"), "{cc}");
        }
        for ar in ["ar", "gcc-ar", "llvm-ar-19", "x86_64-linux-gnu-gcc-ar-12"] {
            assert_eq!(tool_kind(ar), Some("ar"), "{ar}");
        }
        for other in ["clang-cpp-19", "distcc", "ccache", "gcc-nm", "cpp", "ld"] {
            assert_eq!(tool_kind(other), None, "{other}");
        }
    }

    #[test]
    fn makefile_assignments() {
        assert_eq!(assigned("CC = /usr/bin/gcc -std=gnu11", "CC"), Some("/usr/bin/gcc -std=gnu11"));
        assert_eq!(assigned("CC:=gcc", "CC"), Some("gcc"));
        assert_eq!(assigned("CCLD = $(CC)", "CC"), None);
        assert_eq!(assigned("CFLAGS = -O2", "CC"), None);
    }

    #[test]
    fn automake_self_references_move_into_the_copy() {
        let text = "abs_builddir = /p/x\nabs_top_builddir = /p/x\nabs_top_srcdir = /p/x/src\n\
                    abs_srcdir = /p/x\ntop_builddir = .\n";
        let got = self_references(text, Path::new("/p/x"), Path::new("/c/tree"));
        assert_eq!(
            got,
            [("abs_top_builddir", "/c/tree".to_string()), ("abs_top_srcdir", "/c/tree/src".to_string())]
        );
        // A path that only starts like DIR, and a tree configured elsewhere, stay.
        assert!(self_references("abs_top_builddir = /p/xy\n", Path::new("/p/x"), Path::new("/c")).is_empty());
        assert!(self_references("abs_top_srcdir = /q\n", Path::new("/p/x"), Path::new("/c")).is_empty());
    }

    #[test]
    fn overrides_read_the_makefile_a_gnumakefile_includes() {
        let tmp = tempfile::tempdir().unwrap();
        let (tree, bin, log) = (tmp.path().join("tree"), tmp.path().join("bin"), tmp.path().join("log"));
        for d in [&tree, &bin, &log] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(tree.join("GNUmakefile"), "include Makefile\n").unwrap();
        std::fs::write(tree.join("Makefile"), "CC = /bin/sh -std=gnu11\nabs_top_builddir = /p/x\n").unwrap();
        let got = make_overrides(Path::new("/p/x"), &tree, "make -j2", &bin, &log).unwrap();
        let cc = bin.join("psychic-cc");
        assert_eq!(got, format!(" 'CC={} -std=gnu11' abs_top_builddir={}", cc.display(), tree.display()));
        assert!(cc.is_file());
    }

    #[test]
    fn a_wrapper_notes_and_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let (bin, log) = (tmp.path().join("bin"), tmp.path().join("log"));
        std::fs::create_dir(&bin).unwrap();
        std::fs::create_dir(&log).unwrap();
        write_wrapper(&bin.join("echo"), "cc", Path::new("/bin/echo"), &log).unwrap();
        let out =
            Command::new(bin.join("echo")).args(["a b", "it's"]).current_dir(tmp.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b it's\n");
        let calls = read_calls(&log).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].kind, "cc");
        assert_eq!(calls[0].tool, Path::new("/bin/echo"));
        assert_eq!(calls[0].cwd, std::fs::canonicalize(tmp.path()).unwrap());
        assert_eq!(calls[0].args, ["a b", "it's"]);
    }
}
