//! musl 1.2.3 as bitcode, one file per source file of musl (a *member*, as
//! in a static archive), for the engine to link beneath the libc model.
//!
//! The source is Debian's `musl` source package, which `.ci/deps` fetches
//! and unpacks (never committed): `$PSYCHIC_MUSL_SRC`, else `musl-1.2.3` in
//! psychic's cache (`cache_dir`). Without it, or without a usable cache,
//! there is no musl and the model alone serves the program, as before.
//!
//! The build is musl's own recipe (its include order, generated
//! `bits/alltypes.h` and `bits/syscall.h`, `-std=c99 -ffreestanding`) for
//! an arch of psychic's own (`runtime/musl/`): x86_64's types, with every
//! system call a call of `__psychic_syscall` (the model's layer over the
//! symbolic environment), the thread pointer a static thread area, and
//! atomics plain C, since the engine runs no assembly and one thread. Only
//! the directories of `DIRS` are built: stdio (the model's and the engine's
//! streams have glibc's layout), malloc and exit (the engine's), threads,
//! signals, setjmp and math (assembly, or not yet needed) stay out. Members
//! carry no debug info, so that the engine places what happens inside one
//! at the program's call, as it does for the model. A file that does not
//! compile is left out and listed in `failed`.
//!
//! The result is cached like the model: an entry per musl version, recipe,
//! arch files and clang, built aside and renamed into place, its members
//! listed in `manifest`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{CompileError, MANIFEST, Toolchain, cache_dir, cache_key, run};
use crate::runtime;

/// The musl release psychic builds.
pub const MUSL_VERSION: &str = "1.2.3";

/// musl's `src/` directories that are built.
const DIRS: &[&str] = &[
    "conf",
    "ctype",
    "dirent",
    "env",
    "errno",
    "fcntl",
    "internal",
    "legacy",
    "locale",
    "misc",
    "multibyte",
    "prng",
    "regex",
    "search",
    "stat",
    "stdlib",
    "string",
    "time",
    "unistd",
];

/// musl's own flags (its Makefile's CFLAGS_C99FSE and CFLAGS_ALL), then the
/// engine's bitcode without debug info.
const FLAGS: &[&str] = &[
    "-std=c99",
    "-ffreestanding",
    "-nostdinc",
    "-D_XOPEN_SOURCE=700",
    "-fno-stack-protector",
    "-w",
    "-fno-color-diagnostics",
    "-c",
    "-emit-llvm",
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
];

/// The file of an entry that lists the sources that did not compile.
const FAILED: &str = "failed";

/// musl's members, built.
#[derive(Debug, Clone)]
pub struct MuslBuild {
    /// The cache entry that holds them.
    pub dir: PathBuf,
    /// Every member's bitcode, in a fixed order.
    pub members: Vec<PathBuf>,
    /// How long building them took, when this call built them.
    pub built_in: Option<Duration>,
}

/// One build at a time in a process: the tests of one binary share it.
static BUILDING: Mutex<()> = Mutex::new(());

/// Where musl's source is: `$PSYCHIC_MUSL_SRC`, else `musl-1.2.3` in
/// psychic's cache, else in the cache `.ci/deps` filled without
/// `$PSYCHIC_CACHE_DIR` (a cache of its own for one project's runs should
/// not hide musl); `None` when none holds musl 1.2.3.
pub fn musl_source() -> Option<PathBuf> {
    let named = std::env::var_os("PSYCHIC_MUSL_SRC").filter(|v| !v.is_empty()).map(PathBuf::from);
    let in_cache = [cache_dir(), super::default_cache_dir()]
        .into_iter()
        .flatten()
        .map(|d| d.join(format!("musl-{MUSL_VERSION}")));
    named
        .into_iter()
        .chain(in_cache)
        .find(|dir| std::fs::read_to_string(dir.join("VERSION")).is_ok_and(|v| v.trim() == MUSL_VERSION))
}

impl Toolchain {
    /// musl's members from psychic's cache, built into it the first time;
    /// `None` when there is no musl source or no usable cache.
    pub fn musl_cached(&self) -> Result<Option<MuslBuild>, CompileError> {
        let (Some(src), Some(cache)) = (musl_source(), cache_dir()) else { return Ok(None) };
        let arch: Vec<(&str, &str)> = runtime::MUSL_ARCH.to_vec();
        let key = cache_key(&(MUSL_VERSION, DIRS, FLAGS, arch, &self.clang));
        let entry = cache.join(format!("musl-{MUSL_VERSION}-{key:016x}"));
        let read = |entry: &Path| -> Option<MuslBuild> {
            let names = std::fs::read_to_string(entry.join(MANIFEST)).ok()?;
            let members = names.lines().map(|n| entry.join(n)).collect();
            Some(MuslBuild { dir: entry.to_path_buf(), members, built_in: None })
        };
        if let Some(b) = read(&entry) {
            return Ok(Some(b));
        }
        let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = read(&entry) {
            return Ok(Some(b));
        }
        let io = |file: &Path| {
            let file = file.to_path_buf();
            move |err| CompileError::Io { file, err }
        };
        std::fs::create_dir_all(&cache).map_err(io(&cache))?;
        let tmp = tempfile::Builder::new().prefix(".musl-").tempdir_in(&cache).map_err(io(&cache))?;
        let started = Instant::now();
        self.build_musl(&src, tmp.path())?;
        // Another process may have won the race, which is fine.
        let _ = std::fs::rename(tmp.keep(), &entry);
        Ok(read(&entry).map(|b| MuslBuild { built_in: Some(started.elapsed()), ..b }))
    }

    /// Builds every member of musl's `src` into `out`, with `manifest` and `failed`.
    fn build_musl(&self, src: &Path, out: &Path) -> Result<(), CompileError> {
        let generated = out.join("generated");
        generate_headers(src, &generated)?;
        let arch = self.runtime.musl_dir();
        let mut includes = vec![arch.join("arch"), src.join("arch/x86_64"), src.join("arch/generic")];
        includes.extend([generated.join("src/internal"), src.join("src/include"), src.join("src/internal")]);
        includes.extend([generated.join("include"), src.join("include")]);
        let mut jobs: Vec<(PathBuf, String)> = vec![(arch.join("glue.c"), "psychic__glue.bc".into())];
        for dir in DIRS {
            let d = src.join("src").join(dir);
            let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                .map_err(|err| CompileError::Io { file: d.clone(), err })?
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "c"))
                .collect();
            files.sort();
            for f in files {
                let stem = f.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                jobs.push((f, format!("{dir}__{stem}.bc")));
            }
        }
        let next = AtomicUsize::new(0);
        let results: Vec<Mutex<Option<Result<(), CompileError>>>> =
            jobs.iter().map(|_| Mutex::new(None)).collect();
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((file, name)) = jobs.get(i) else { break };
                        let mut cmd = Command::new(&self.clang);
                        cmd.args(FLAGS);
                        for i in &includes {
                            cmd.arg("-I").arg(i);
                        }
                        cmd.arg("-o").arg(out.join(name)).arg(file);
                        let r = run(cmd, file);
                        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    }
                });
            }
        });
        let (mut built, mut failed) = (Vec::new(), Vec::new());
        for ((file, name), r) in jobs.iter().zip(results) {
            match r.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some(Ok(())) => built.push(name.clone()),
                _ => failed.push(file.strip_prefix(src).unwrap_or(file).display().to_string()),
            }
        }
        let write = |name: &str, lines: &[String]| {
            let path = out.join(name);
            std::fs::write(&path, lines.join("\n")).map_err(|err| CompileError::Io { file: path, err })
        };
        write(FAILED, &failed)?;
        write(MANIFEST, &built)
    }
}

/// musl's generated headers, as its Makefile makes them: `bits/alltypes.h`
/// (`tools/mkalltypes.sed` over the arch's and the generic template),
/// `bits/syscall.h` (the arch's `__NR_` names, and each again as `SYS_`) and
/// `version.h`.
fn generate_headers(src: &Path, generated: &Path) -> Result<(), CompileError> {
    let read = |p: PathBuf| std::fs::read_to_string(&p).map_err(|err| CompileError::Io { file: p, err });
    let write = |p: PathBuf, text: String| {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|err| CompileError::Io { file: d.to_path_buf(), err })?;
        }
        std::fs::write(&p, text).map_err(|err| CompileError::Io { file: p, err })
    };
    let mut alltypes = String::new();
    for t in ["arch/x86_64/bits/alltypes.h.in", "include/alltypes.h.in"] {
        for line in read(src.join(t))?.lines() {
            alltypes.push_str(&alltypes_line(line));
            alltypes.push('\n');
        }
    }
    write(generated.join("include/bits/alltypes.h"), alltypes)?;
    let calls = read(src.join("arch/x86_64/bits/syscall.h.in"))?;
    let mut syscall = calls.clone();
    for line in calls.lines().filter(|l| l.contains("__NR_")) {
        syscall.push_str(&line.replacen("__NR_", "SYS_", 1));
        syscall.push('\n');
    }
    write(generated.join("include/bits/syscall.h"), syscall)?;
    write(generated.join("src/internal/version.h"), format!("#define VERSION \"{MUSL_VERSION}\"\n"))
}

/// One line of musl's alltypes templates, as `tools/mkalltypes.sed` rewrites it.
fn alltypes_line(line: &str) -> String {
    let guarded = |tag: &str, decl: String| {
        format!(
            "#if defined(__NEED_{tag}) && !defined(__DEFINED_{tag})\n{decl}\n#define __DEFINED_{tag}\n#endif\n"
        )
    };
    if let Some(rest) = line.strip_prefix("TYPEDEF ").and_then(|r| r.strip_suffix(';'))
        && let Some((ty, name)) = rest.rsplit_once(' ')
    {
        return guarded(name, format!("typedef {ty} {name};"));
    }
    for (word, kind) in [("STRUCT", "struct"), ("UNION", "union")] {
        if let Some(rest) = line.strip_prefix(word).and_then(|r| r.strip_suffix(';'))
            && let Some((name, body)) = rest.trim_start().split_once(' ')
        {
            return guarded(&format!("{kind}_{name}"), format!("{kind} {name} {body};"));
        }
    }
    line.to_string()
}

#[cfg(test)]
mod tests {
    use super::alltypes_line;

    #[test]
    fn alltypes_lines_are_rewritten_as_musl_s_sed_script_does() {
        assert_eq!(
            alltypes_line("TYPEDEF unsigned long size_t;"),
            "#if defined(__NEED_size_t) && !defined(__DEFINED_size_t)\ntypedef unsigned long size_t;\n#define __DEFINED_size_t\n#endif\n"
        );
        assert_eq!(
            alltypes_line("STRUCT timespec { time_t tv_sec; long tv_nsec; };"),
            "#if defined(__NEED_struct_timespec) && !defined(__DEFINED_struct_timespec)\nstruct timespec { time_t tv_sec; long tv_nsec; };\n#define __DEFINED_struct_timespec\n#endif\n"
        );
        assert_eq!(alltypes_line("#define _Addr long"), "#define _Addr long");
    }
}
