//! The C runtime, embedded in the binary so that an installed `psychic` works from
//! any directory: the KLEE-compatible headers and the native replay library.
//!
//! [`Installed`] writes them into a private temporary directory that lives as long
//! as the value; `compile` adds its `include/` to every clang command line.
//!
//! The files:
//! - `runtime/include/klee/klee.h`: the KLEE-compatible API, plus
//!   `__klee_meta(site)`, which asks which revision runs, and
//!   `__klee_meta_in(site, set)`, whether it is one of a set.
//! - `runtime/include/psychic.h`: `psychic_output(name, value)` annotations.
//! - `runtime/native/psychic_native.c`: the native replay library, built by
//!   `build.rs` with the `cc` crate. `KTEST_FILE` feeds `klee_make_symbolic` in
//!   order, by name (KLEE's libkleeRuntest conventions); `PSYCHIC_REVISION` is
//!   what `__klee_meta` returns. Exit status 120: the input lies outside a
//!   `klee_assume`; 121: the test cannot be replayed. The objects of the
//!   symbolic environment (`argNN`, `n_args`, `stdin`, `stdin-stat`, `A-data`,
//!   `A-data-stat`, `model_version`) are skipped unless asked for by name:
//!   replay feeds them as the command line, stdin and files
//!   (`posix::replay_env`). With `runtime/native/psychic_confirm.c`, the
//!   confirmation server (`replay::Server`): one process that forks a run
//!   per revision of one test.
//! - `runtime/native/psychic_fuzz.c`: the fuzz server (`crate::fuzz`).
//! - `runtime/symbolic/`: the libc model (its README), C compiled to bitcode and
//!   linked into the program (`Module::load_linked`; every definition weak, so
//!   the program's own wins): string.h, ctype.h (glibc's `__ctype_b_loc`
//!   tables), strto*/atoi/atof, qsort/bsearch, rand, and `env.c`: errno, the
//!   `stdin`/`stdout`/`stderr` objects the engine recognises by address, and
//!   `fflush`/`setvbuf`/`setbuf` as no-ops (the engine records output
//!   unbuffered), `setlocale` (the C locale). What needs engine internals is in the engine
//!   (`exec/special.rs`, `exec/stdio.rs`).
//! - `runtime/symbolic/posix.c`: the symbolic environment, KLEE's POSIX runtime
//!   in small, and the input half of stdio (`crate::posix` says what it models).
//!   **Why C, not the engine:** the input side needs no engine internals
//!   (output stays in the engine, structured for the differentiator); in C the
//!   byte-exact model is glibc's algorithm run symbolically, forks and all, and
//!   the engine keeps one mechanism for inputs (`klee_make_symbolic`, so seeds,
//!   ktests and the differentiator's object matching work unchanged). The
//!   engine's only hooks are the entry point, `__psychic_model_error` (a
//!   `model` error located at the program's call) and `__psychic_parse_float`
//!   (a float's text beyond the fast path, made concrete and converted by the
//!   host's glibc).
//! - `runtime/symbolic/syscall.c`: the system calls of musl's members, which
//!   psychic links beneath the model (`crate::libs`), served from the
//!   symbolic environment through the model's own functions.
//! - `runtime/musl/`: psychic's arch for musl (`compile::MuslBuild`): system
//!   calls as calls of `__psychic_syscall`, a static thread area, plain C
//!   atomics, and `glue.c`, what musl's members need from the startup code
//!   and stdio psychic leaves out.

use std::fs;
use std::io;
use std::path::PathBuf;

/// Exit status of a native run whose input violates `klee_assume`/`klee_range`.
pub const STATUS_ASSUME_VIOLATED: i32 = 120;
/// Exit status of a native run that could not replay its `.ktest` file.
pub const STATUS_REPLAY_ERROR: i32 = 121;

/// Headers, as (path under `include/`, contents).
const HEADERS: &[(&str, &str)] = &[
    ("klee/klee.h", include_str!("../runtime/include/klee/klee.h")),
    ("psychic.h", include_str!("../runtime/include/psychic.h")),
];

/// The libc model the engine links into programs (runtime/symbolic/README.md),
/// as (file name, contents). Compiled to bitcode by `compile` when needed.
pub const LIBC_MODEL: &[(&str, &str)] = &[
    ("model.h", include_str!("../runtime/symbolic/model.h")),
    ("string.c", include_str!("../runtime/symbolic/string.c")),
    ("ctype.c", include_str!("../runtime/symbolic/ctype.c")),
    ("stdlib.c", include_str!("../runtime/symbolic/stdlib.c")),
    ("env.c", include_str!("../runtime/symbolic/env.c")),
    ("posix.c", include_str!("../runtime/symbolic/posix.c")),
    ("syscall.c", include_str!("../runtime/symbolic/syscall.c")),
];

/// psychic's arch for musl and what musl's members need from the startup
/// code and stdio psychic leaves out (runtime/musl/, `compile::MuslBuild`),
/// as (path under the runtime's `musl/`, contents).
pub const MUSL_ARCH: &[(&str, &str)] = &[
    ("arch/syscall_arch.h", include_str!("../runtime/musl/arch/syscall_arch.h")),
    ("arch/pthread_arch.h", include_str!("../runtime/musl/arch/pthread_arch.h")),
    ("arch/atomic_arch.h", include_str!("../runtime/musl/arch/atomic_arch.h")),
    ("arch/stdio.h", include_str!("../runtime/musl/arch/stdio.h")),
    ("glue.c", include_str!("../runtime/musl/glue.c")),
];

/// Whether a source file (from debug info) is one of the libc model's: the
/// model is compiled from `libc/NAME` of an installed runtime.
pub fn is_libc_model_file(file: &str) -> bool {
    let path = std::path::Path::new(file);
    path.parent().and_then(|d| d.file_name()).is_some_and(|d| d == "libc")
        && LIBC_MODEL.iter().any(|(name, _)| path.file_name().is_some_and(|f| f == *name))
}

/// The native runtime, compiled by build.rs with the `cc` crate.
const NATIVE_LIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpsychic_native.a"));
/// The fuzz server (`runtime/native/psychic_fuzz.c`), linked into fuzz builds.
const FUZZ_LIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpsychic_fuzz.a"));

/// The runtime written out to disk; removed when dropped.
pub struct Installed {
    dir: tempfile::TempDir,
}

impl Installed {
    pub fn new() -> io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("psychic-runtime-").tempdir()?;
        for (rel, text) in HEADERS {
            let path = dir.path().join("include").join(rel);
            fs::create_dir_all(path.parent().expect("header paths have a parent"))?;
            fs::write(path, text)?;
        }
        fs::create_dir_all(dir.path().join("libc"))?;
        for (name, text) in LIBC_MODEL {
            fs::write(dir.path().join("libc").join(name), text)?;
        }
        for (rel, text) in MUSL_ARCH {
            let path = dir.path().join("musl").join(rel);
            fs::create_dir_all(path.parent().expect("arch paths have a parent"))?;
            fs::write(path, text)?;
        }
        fs::create_dir_all(dir.path().join("lib"))?;
        fs::write(dir.path().join("lib/libpsychic_native.a"), NATIVE_LIB)?;
        fs::write(dir.path().join("lib/libpsychic_fuzz.a"), FUZZ_LIB)?;
        Ok(Installed { dir })
    }

    /// The directory to pass to clang as `-I`.
    pub fn include_dir(&self) -> PathBuf {
        self.dir.path().join("include")
    }

    /// psychic's arch for musl (`arch/`) and its `glue.c`.
    pub fn musl_dir(&self) -> PathBuf {
        self.dir.path().join("musl")
    }

    /// The static library that makes a program using the KLEE API run natively.
    pub fn native_lib(&self) -> PathBuf {
        self.dir.path().join("lib/libpsychic_native.a")
    }

    /// The fuzz server, which replaces the program's `main` in fuzz builds.
    pub fn fuzz_lib(&self) -> PathBuf {
        self.dir.path().join("lib/libpsychic_fuzz.a")
    }

    /// The C sources of the libc model (`.c` files only, in a fixed order).
    pub fn libc_model_sources(&self) -> Vec<PathBuf> {
        LIBC_MODEL
            .iter()
            .filter(|(name, _)| name.ends_with(".c"))
            .map(|(name, _)| self.dir.path().join("libc").join(name))
            .collect()
    }

    /// The model's sources that can run natively beside glibc, for checking
    /// them against it: not `env.c`, `posix.c` and `syscall.c`, since errno,
    /// the streams, the files and the kernel must stay glibc's there.
    pub fn libc_model_native_sources(&self) -> Vec<PathBuf> {
        self.libc_model_sources()
            .into_iter()
            .filter(|p| !["env.c", "posix.c", "syscall.c"].iter().any(|f| p.ends_with(f)))
            .collect()
    }
}
