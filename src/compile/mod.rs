//! clang 19 as psychic's C front end: bitcode for the engine, native binaries for
//! replay. Every command line gets the runtime's include path, so programs that
//! `#include <klee/klee.h>` build unmodified.
//!
//! clang is `$PSYCHIC_CLANG`, else `clang-19`, else `/usr/lib/llvm-19/bin/clang`.
//! Bitcode is built with `-g -O0 -Xclang -disable-O0-optnone`; a native binary
//! is linked with the replay library and libm, optionally with AddressSanitizer;
//! the fuzz build (`Toolchain::fuzz_server`) is described in `crate::fuzz`.
//! A project's unit compiles with its build's own flags in its build's
//! directory (`UnitFlags`) into bitcode or an object of a native build
//! (`NativeKind`), and `Toolchain::link` links a project's objects with the
//! runtime and the project's link flags.
//! `Toolchain::libc_model_cached` compiles the libc model once per model version
//! and clang into `$PSYCHIC_CACHE_DIR` (else `$XDG_CACHE_HOME/psychic`, else
//! `~/.cache/psychic`): an entry is built aside and renamed into place, lists its
//! files in link order in `manifest`, and is never changed; without a usable
//! cache the model is compiled into the run's scratch directory.
//! `Toolchain::musl_cached` builds musl beneath it (`musl`).

mod musl;

pub use musl::{MUSL_VERSION, MuslBuild, musl_source};

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::runtime;

/// The LLVM major version the engine's loader reads.
pub const LLVM_MAJOR: u32 = 19;

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error(
        "clang {LLVM_MAJOR} not found (looked for $PSYCHIC_CLANG, clang-{LLVM_MAJOR} on PATH and /usr/lib/llvm-{LLVM_MAJOR}/bin/clang); install it with `apt-get install clang-{LLVM_MAJOR}`"
    )]
    NoClang,
    #[error("{}: expected clang {LLVM_MAJOR}, found: {found}", path.display())]
    WrongClang { path: PathBuf, found: String },
    #[error("{}: does not compile:\n{}", file.display(), diagnostics.trim_end())]
    Failed { file: PathBuf, diagnostics: String },
    #[error("{}: {err}", file.display())]
    Io { file: PathBuf, err: std::io::Error },
}

/// How to build a native replay binary.
#[derive(Debug, Clone, Default)]
pub struct NativeOptions {
    /// Build with AddressSanitizer, so that memory errors the engine reports
    /// also show natively instead of passing silently.
    pub sanitize: bool,
    /// Fill every stack variable with a pattern before its first write
    /// (`-ftrivial-auto-var-init=pattern`): a program that reads one it never
    /// wrote then sees other garbage than in the plain build, where the
    /// slot usually holds whatever an earlier call left there, the same in
    /// every run.
    pub pattern_init: bool,
}

/// How a project's build compiled one translation unit.
#[derive(Debug, Clone)]
pub struct UnitFlags<'a> {
    /// The directory the compile ran in.
    pub dir: &'a Path,
    /// Its flags (no `-c`, `-o`, source), then any psychic adds.
    pub flags: &'a [String],
}

/// What a native object is built for: a replay build, or the fuzz build.
#[derive(Debug, Clone)]
pub enum NativeKind {
    Replay(NativeOptions),
    Fuzz,
}

impl NativeKind {
    /// What a compile for this kind adds to the program's flags.
    fn compile_args(&self) -> Vec<&'static str> {
        match self {
            NativeKind::Replay(opts) => {
                let mut args = vec!["-g", "-O0"];
                if opts.sanitize {
                    args.extend(["-fsanitize=address", "-fno-omit-frame-pointer"]);
                }
                if opts.pattern_init {
                    args.push("-ftrivial-auto-var-init=pattern");
                }
                args
            }
            NativeKind::Fuzz => {
                vec!["-O0", "-fsanitize-coverage=trace-pc-guard", "-Dmain=__psychic_user_main"]
            }
        }
    }

    /// What a link for this kind adds.
    fn link_args(&self) -> &'static [&'static str] {
        match self {
            NativeKind::Replay(opts) if opts.sanitize => &["-fsanitize=address"],
            NativeKind::Replay(_) => &[],
            // Enumeration runs many inputs in one process: exit() returns to
            // it. Our own trace-pc-guard callbacks are the whole runtime it
            // needs; the sanitizers' common one would add megabytes that
            // enumeration copies back before every run.
            NativeKind::Fuzz => &["-Wl,--wrap=exit", "-fno-sanitize-link-runtime"],
        }
    }
}

/// What bitcode for the engine is built with: debug info for source lines,
/// no optimisation, and no `optnone`, so that later passes may still run.
const BITCODE: &[&str] = &["-c", "-emit-llvm", "-g", "-O0", "-Xclang", "-disable-O0-optnone"];

/// A located clang 19 and an installed runtime.
pub struct Toolchain {
    clang: PathBuf,
    runtime: runtime::Installed,
    /// Extra flags for every compilation (`-D`, `-I`, ...), from the user.
    extra_flags: Vec<OsString>,
}

impl Toolchain {
    pub fn discover() -> Result<Self, CompileError> {
        let clang = find_clang()?;
        let runtime =
            runtime::Installed::new().map_err(|err| CompileError::Io { file: std::env::temp_dir(), err })?;
        Ok(Toolchain { clang, runtime, extra_flags: Vec::new() })
    }

    pub fn with_flags(mut self, flags: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        self.extra_flags.extend(flags.into_iter().map(Into::into));
        self
    }

    pub fn clang(&self) -> &Path {
        &self.clang
    }

    pub fn include_dir(&self) -> PathBuf {
        self.runtime.include_dir()
    }

    /// `src` to LLVM bitcode for the engine (`BITCODE`).
    pub fn bitcode(&self, src: &Path, out: &Path) -> Result<(), CompileError> {
        let mut cmd = self.command(src);
        cmd.args(BITCODE).arg("-o").arg(out).arg(src);
        run(cmd, src)
    }

    /// `src` to a native executable linked with the replay runtime.
    pub fn native(&self, src: &Path, out: &Path, opts: &NativeOptions) -> Result<(), CompileError> {
        self.native_build(src, out, &NativeKind::Replay(opts.clone()))
    }

    /// `src` to the fuzz server of `src/fuzz`: the program's `main` renamed
    /// and its edges counted (`-fsanitize-coverage=trace-pc-guard`), linked
    /// with the fuzz server, which runs it once per revision and input.
    pub fn fuzz_server(&self, src: &Path, out: &Path) -> Result<(), CompileError> {
        self.native_build(src, out, &NativeKind::Fuzz)
    }

    /// `src` compiled and linked in one step into a native build of `kind`,
    /// with what a unit's object and a project's link get (`-fsanitize=address`
    /// then comes twice, which clang takes as once).
    pub fn native_build(&self, src: &Path, out: &Path, kind: &NativeKind) -> Result<(), CompileError> {
        let mut cmd = self.command(src);
        cmd.args(kind.compile_args()).args(kind.link_args());
        // libm after the sources: a program that calls round() or pow() at
        // -O0 needs it (ASan's runtime happens to pull it in).
        cmd.arg("-o").arg(out).arg(src).args(self.runtime_libs(kind)).arg("-lm");
        run(cmd, src)
    }

    /// A project's unit to bitcode, with its build's flags in its build's
    /// directory; then the engine's (`BITCODE`), which win.
    pub fn unit_bitcode(&self, src: &Path, out: &Path, unit: &UnitFlags) -> Result<(), CompileError> {
        let mut cmd = self.unit_command(unit);
        cmd.args(BITCODE).arg("-o").arg(out).arg(src);
        run(cmd, src)
    }

    /// A project's unit to an object of a native build of `kind`.
    pub fn unit_object(
        &self,
        src: &Path,
        out: &Path,
        unit: &UnitFlags,
        kind: &NativeKind,
    ) -> Result<(), CompileError> {
        let mut cmd = self.unit_command(unit);
        cmd.args(kind.compile_args()).arg("-c").arg("-o").arg(out).arg(src);
        run(cmd, src)
    }

    /// A project's objects linked, in `dir`, into a native build of `kind`,
    /// with the project's own link flags after them.
    pub fn link(
        &self,
        objects: &[PathBuf],
        out: &Path,
        dir: &Path,
        link_flags: &[String],
        kind: &NativeKind,
    ) -> Result<(), CompileError> {
        let Some(first) = objects.first() else {
            return Err(CompileError::Io {
                file: out.to_path_buf(),
                err: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no objects to link"),
            });
        };
        let mut cmd = Command::new(&self.clang);
        cmd.current_dir(dir).arg("-fno-color-diagnostics").args(kind.link_args());
        cmd.arg("-o").arg(out).args(objects).args(self.runtime_libs(kind)).args(link_flags).arg("-lm");
        run(cmd, first).map_err(|e| match e {
            CompileError::Failed { diagnostics, .. } => {
                CompileError::Failed { file: out.to_path_buf(), diagnostics }
            }
            e => e,
        })
    }

    /// Checks a project's unit (revision `src`) as [`Toolchain::syntax_check`] does.
    pub fn unit_syntax_check(&self, src: &Path, unit: &UnitFlags) -> Result<(), CompileError> {
        let mut cmd = self.unit_command(unit);
        cmd.arg("-fsyntax-only").arg(src);
        run(cmd, src)
    }

    /// The macros defined once `src` is preprocessed with the unit's flags,
    /// as `#define` lines (`-E -dM`): what its headers' macros expand to,
    /// for the grammar where it cannot read one unexpanded.
    pub fn unit_macros(&self, src: &Path, unit: &UnitFlags) -> Result<String, CompileError> {
        let mut cmd = self.unit_command(unit);
        cmd.args(["-E", "-dM"]).arg(src);
        let output = cmd.output().map_err(|err| CompileError::Io { file: src.to_path_buf(), err })?;
        if !output.status.success() {
            let diagnostics = String::from_utf8_lossy(&output.stderr).into_owned();
            return Err(CompileError::Failed { file: src.to_path_buf(), diagnostics });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Parses and type-checks `src` without generating code: the quickest way to
    /// learn whether it compiles.
    pub fn syntax_check(&self, src: &Path) -> Result<(), CompileError> {
        let mut cmd = self.command(src);
        cmd.arg("-fsyntax-only").arg(src);
        run(cmd, src)
    }

    /// [`Toolchain::syntax_check`] of each of `srcs`, on every core.
    ///
    /// clang's driver costs about 20 ms a file and its front end 3 ms on a
    /// small one, so a pool of thousands of patches checks in batches: the
    /// files of one directory, [`SYNTAX_BATCH`] at a time, go to one
    /// front-end process, with the command line the driver gives for the
    /// first (`-###`: the front end takes several inputs, each checked on
    /// its own). Only a batch that fails is checked again file by file, for
    /// each file's own result and message.
    pub fn syntax_check_many(&self, srcs: &[PathBuf]) -> Vec<Result<(), CompileError>> {
        let mut by_dir: std::collections::BTreeMap<Option<&Path>, Vec<usize>> = Default::default();
        for (i, src) in srcs.iter().enumerate() {
            by_dir.entry(src.parent()).or_default().push(i);
        }
        // The front end's command line is one for a directory: asked once.
        let dirs: Vec<&Vec<usize>> = by_dir.values().collect();
        let front_ends =
            in_parallel(&dirs, |ix| (ix.len() > 1).then(|| self.front_end(&srcs[ix[0]])).flatten());
        let batches: Vec<(&[usize], Option<&Vec<String>>)> = dirs
            .iter()
            .zip(&front_ends)
            .flat_map(|(ix, cc1)| ix.chunks(SYNTAX_BATCH).map(move |b| (b, cc1.as_ref())))
            .collect();
        let checked = in_parallel(&batches, |&(batch, cc1)| {
            let files: Vec<&Path> = batch.iter().map(|&i| srcs[i].as_path()).collect();
            let all_pass = batch.len() > 1
                && files.iter().all(|f| f.is_file())
                && cc1.is_some_and(|job| {
                    Command::new(&job[0])
                        .args(&job[1..])
                        .args(&files)
                        .output()
                        .is_ok_and(|o| o.status.success())
                });
            let results: Vec<Result<(), CompileError>> = if all_pass {
                files.iter().map(|_| Ok(())).collect()
            } else {
                files.iter().map(|f| self.syntax_check(f)).collect()
            };
            batch.iter().copied().zip(results).collect::<Vec<_>>()
        });
        let mut out: Vec<Option<Result<(), CompileError>>> = srcs.iter().map(|_| None).collect();
        for (i, r) in checked.into_iter().flatten() {
            out[i] = Some(r);
        }
        out.into_iter().map(|r| r.expect("every file is in one batch")).collect()
    }

    /// The front end's command line (its program first) that the driver
    /// runs to check `src`, without the input; `None` where the driver plans
    /// anything else than one front-end job.
    fn front_end(&self, src: &Path) -> Option<Vec<String>> {
        let mut cmd = self.command(src);
        cmd.args(["-fsyntax-only", "-###"]).arg(src);
        let output = cmd.output().ok().filter(|o| o.status.success())?;
        let text = String::from_utf8_lossy(&output.stderr);
        let mut jobs = text.lines().filter(|l| l.starts_with(" \"")).map(quoted_words);
        let (mut job, None) = (jobs.next()?, jobs.next()) else { return None };
        if job.get(1).map(String::as_str) != Some("-cc1") || job.pop()? != src.to_string_lossy() {
            return None;
        }
        // The only argument naming the input besides the input itself.
        if let Some(i) = job.iter().position(|a| a == "-main-file-name") {
            job.drain(i..(i + 2).min(job.len()));
        }
        Some(job)
    }

    /// The libc model (`runtime::LIBC_MODEL`) as bitcode files in `dir`, for
    /// `ir::Module::load_linked`.
    pub fn libc_model_bitcode(&self, dir: &Path) -> Result<Vec<PathBuf>, CompileError> {
        let mut out = Vec::new();
        for src in self.runtime.libc_model_sources() {
            let bc = dir.join(format!("libc-{}.bc", src.file_stem().unwrap_or_default().to_string_lossy()));
            let mut cmd = Command::new(&self.clang);
            cmd.arg("-I").arg(self.runtime.include_dir());
            cmd.args(["-fno-color-diagnostics", "-fno-builtin"]).args(BITCODE);
            cmd.arg("-o").arg(&bc).arg(&src);
            run(cmd, &src)?;
            out.push(bc);
        }
        Ok(out)
    }

    /// The libc model's bitcode from psychic's cache, compiled into it the
    /// first time a version of the model is used with this clang; compiled
    /// into `scratch` when there is no usable cache. The cache is
    /// `$PSYCHIC_CACHE_DIR`, else `$XDG_CACHE_HOME/psychic`, else
    /// `~/.cache/psychic`; entries are never changed once written (a new
    /// model or clang gets a new entry).
    pub fn libc_model_cached(&self, scratch: &Path) -> Result<Vec<PathBuf>, CompileError> {
        if let Some(files) = cache_dir().and_then(|dir| self.cached_model(&dir)) {
            return Ok(files);
        }
        self.libc_model_bitcode(scratch)
    }

    fn cached_model(&self, cache: &Path) -> Option<Vec<PathBuf>> {
        let entry = cache.join(format!("libc-{:016x}", cache_key(&(runtime::LIBC_MODEL, &self.clang))));
        let read = |entry: &Path| -> Option<Vec<PathBuf>> {
            let names = std::fs::read_to_string(entry.join(MANIFEST)).ok()?;
            Some(names.lines().map(|n| entry.join(n)).collect())
        };
        if let Some(files) = read(&entry) {
            return Some(files);
        }
        // Built aside and renamed into place, so that a reader never sees a
        // partial entry; another process may win the race, which is fine.
        std::fs::create_dir_all(cache).ok()?;
        let tmp = tempfile::Builder::new().prefix(".libc-").tempdir_in(cache).ok()?;
        let files = self.libc_model_bitcode(tmp.path()).ok()?;
        let names: Vec<String> =
            files.iter().filter_map(|f| Some(f.file_name()?.to_string_lossy().into_owned())).collect();
        std::fs::write(tmp.path().join(MANIFEST), names.join("\n")).ok()?;
        let _ = std::fs::rename(tmp.keep(), &entry);
        read(&entry)
    }

    /// psychic's runtime that a native build of `kind` links with.
    fn runtime_libs(&self, kind: &NativeKind) -> Vec<PathBuf> {
        match kind {
            NativeKind::Replay(_) => vec![self.runtime.native_lib()],
            NativeKind::Fuzz => vec![self.runtime.fuzz_lib(), self.runtime.native_lib()],
        }
    }

    /// clang with psychic's include path and the user's flags.
    fn command(&self, src: &Path) -> Command {
        let mut cmd = Command::new(&self.clang);
        cmd.arg("-I").arg(self.runtime.include_dir());
        cmd.args(&self.extra_flags);
        // Diagnostics go into error messages and logs, where colour codes are noise.
        cmd.arg("-fno-color-diagnostics");
        if let Some(dir) = src.parent().filter(|d| !d.as_os_str().is_empty()) {
            cmd.arg("-I").arg(dir);
        }
        cmd
    }

    /// clang in a unit's directory with psychic's include path, the unit's
    /// flags and the user's. A project's flags are gcc's as often as
    /// clang's: a warning either compiler lacks must not stop the build.
    fn unit_command(&self, unit: &UnitFlags) -> Command {
        let mut cmd = Command::new(&self.clang);
        cmd.current_dir(unit.dir);
        cmd.arg("-I").arg(self.runtime.include_dir());
        cmd.args(unit.flags);
        cmd.args(&self.extra_flags);
        cmd.args(["-fno-color-diagnostics", "-Wno-error", "-Wno-unknown-warning-option"]);
        cmd
    }
}

/// The file of a cache entry that lists its bitcode files, in link order.
const MANIFEST: &str = "manifest";

/// psychic's cache: `$PSYCHIC_CACHE_DIR`, else `$XDG_CACHE_HOME/psychic`,
/// else `~/.cache/psychic`; `None` when none of them is set.
pub fn cache_dir() -> Option<PathBuf> {
    env_path("PSYCHIC_CACHE_DIR").or_else(default_cache_dir)
}

/// psychic's cache where `$PSYCHIC_CACHE_DIR` is not set.
pub fn default_cache_dir() -> Option<PathBuf> {
    env_path("XDG_CACHE_HOME")
        .map(|d| d.join("psychic"))
        .or_else(|| env_path("HOME").map(|d| d.join(".cache/psychic")))
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The key of `value` in psychic's cache, with psychic's version in it:
/// SipHash with fixed keys, so that the same value gets the same key in
/// every run of one psychic build.
pub fn cache_key(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (env!("CARGO_PKG_VERSION"), value).hash(&mut h);
    h.finish()
}

/// `each` applied to every item, as many at once as there are cores: clang
/// runs are independent, and each uses one core. The results in item order;
/// a panic in `each` goes on in the caller.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], each: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, each(item)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Files a front-end process checks at once (`Toolchain::syntax_check_many`):
/// enough to spread the driver's cost, few enough that a failing batch's
/// recheck stays short.
const SYNTAX_BATCH: usize = 64;

/// The words of a job line of `clang -###`: each in double quotes, with `\`
/// escaping the next character.
fn quoted_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut escaped) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            _ if escaped => {
                word.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' if quoted => {
                words.push(std::mem::take(&mut word));
                quoted = false;
            }
            '"' => quoted = true,
            _ if quoted => word.push(c),
            _ => {}
        }
    }
    words
}

fn run(mut cmd: Command, src: &Path) -> Result<(), CompileError> {
    if !src.is_file() {
        return Err(CompileError::Io {
            file: src.to_path_buf(),
            err: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    let output = cmd.output().map_err(|err| CompileError::Io { file: src.to_path_buf(), err })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(CompileError::Failed {
            file: src.to_path_buf(),
            diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

fn find_clang() -> Result<PathBuf, CompileError> {
    if let Some(explicit) = std::env::var_os("PSYCHIC_CLANG") {
        let path = which::which(&explicit).unwrap_or_else(|_| PathBuf::from(explicit));
        return check_version(path);
    }
    let candidates = [
        which::which(format!("clang-{LLVM_MAJOR}")).ok(),
        Some(PathBuf::from(format!("/usr/lib/llvm-{LLVM_MAJOR}/bin/clang"))),
        which::which("clang").ok(),
    ];
    candidates.into_iter().flatten().find_map(|path| check_version(path).ok()).ok_or(CompileError::NoClang)
}

fn check_version(path: PathBuf) -> Result<PathBuf, CompileError> {
    let out = Command::new(&path)
        .arg("--version")
        .output()
        .map_err(|err| CompileError::Io { file: path.clone(), err })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("").to_string();
    let major =
        first.split("version ").nth(1).and_then(|v| v.split('.').next()).and_then(|m| m.parse::<u32>().ok());
    if major == Some(LLVM_MAJOR) { Ok(path) } else { Err(CompileError::WrongClang { path, found: first }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_lines_split_into_their_words() {
        let line = r#" "/usr/bin/clang" "-cc1" "-D" "A=\"x y\"" "-I" "C:\\d" "a b.c""#;
        assert_eq!(quoted_words(line), ["/usr/bin/clang", "-cc1", "-D", "A=\"x y\"", "-I", "C:\\d", "a b.c"]);
    }

    /// A batch checks as one file at a time does: the same files fail, with
    /// the same messages, and the passing files of a failing batch pass.
    #[test]
    fn a_batch_of_files_checks_as_each_file_alone() {
        let tc = Toolchain::discover().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let alone = tempfile::tempdir().unwrap();
        let good = "#include <stdio.h>\n#include <klee/klee.h>\nint main(void) { int x; klee_make_symbolic(&x, sizeof x, \"x\"); printf(\"%d\\n\", x); return 0; }\n";
        let mut files = Vec::new();
        for i in 0..SYNTAX_BATCH + 10 {
            // A file that compiles alone must not inherit another's macro
            // or declaration: the front end starts afresh for each input.
            let text = match i {
                3 => "int main(void) { return undeclared; }\n".to_string(),
                4 => {
                    "#define UNDECLARED 1\nint f(void);\nint main(void) { return UNDECLARED; }\n".to_string()
                }
                5 => "int main(void) { return UNDECLARED + f(); }\n".to_string(),
                70 => "int main(void) { int x = ; }\n".to_string(),
                _ => good.replace("%d", &format!("%d {i}")),
            };
            // 4 and 5 share a batch with no other failure: were 5 to see
            // 4's macro, the batch would pass.
            let home = match i {
                4..=6 => alone.path(),
                _ if i % 7 == 6 => other.path(),
                _ => dir.path(),
            };
            let f = home.join(format!("r{i}.c"));
            std::fs::write(&f, text).unwrap();
            files.push(f);
        }
        files.push(dir.path().join("missing.c"));
        let many = tc.syntax_check_many(&files);
        assert_eq!(many.len(), files.len());
        for (f, r) in files.iter().zip(&many) {
            assert_eq!(
                r.as_ref().err().map(ToString::to_string),
                tc.syntax_check(f).err().map(|e| e.to_string())
            );
        }
        let failed: Vec<usize> =
            many.iter().enumerate().filter(|(_, r)| r.is_err()).map(|(i, _)| i).collect();
        assert_eq!(failed, [3, 5, 70, SYNTAX_BATCH + 10]);
    }
}
