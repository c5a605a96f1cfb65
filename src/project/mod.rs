//! `project`: stage 0 of `--project`, before `unify`. It learns from the
//! original's own build what forms a program, and gives each file the
//! revisions change, in every revision.
//!
//! [`capture`] copies the configured project directory DIR (psychic never
//! writes into DIR) into an entry of psychic's cache (`cache`), removes the
//! copy's objects and archives so that the build makes them all, and runs the
//! build there (`make` by default) with a directory of wrapper scripts first
//! on `PATH` (`capture`): one per C compiler driver and archiver the `PATH`
//! has (`cc`, `gcc`, `clang-19`, `ar`, ...), each noting its working
//! directory and arguments in a file of its own and running the real tool.
//! A configured compiler given by absolute path (`CC = /usr/bin/gcc` in the
//! Makefile) is caught by overriding that make variable with a wrapper of the
//! same path, its flags kept. This is the way gllvm and wllvm wrap the
//! compiler; Bear intercepts `exec` instead, but its database holds compiles
//! only, and psychic needs the archiver and linker calls too.
//!
//! Then it asks the linker which objects form PATH: the link that made PATH
//! runs again with `-Wl,--trace,--trace` (GNU ld names every object and every
//! `(archive)member` it loads; lld's `archive(member)` is read too). Each
//! object maps to the compile that made it, through the archiver calls for
//! archive members; a unit's flags come from the project's
//! `compile_commands.json` where it has an entry for the source, else from
//! the captured compile (`argv`: normalised to stand alone). Each unit's
//! headers inside the tree are listed with its own flags and `-M`.
//!
//! A capture is cached: the build entry is keyed on DIR's canonical path,
//! the build command and `PATH`, and holds while DIR's listing (paths, sizes,
//! modification times) is the one it was built from; each program's capture
//! is kept beside it. [`Capture::fresh`] says whether this call built, and
//! [`Capture::build_time`] how long the build took, so that the first build
//! can be counted apart.
//!
//! [`revisions`] (`revisions`) applies each diff with `patch -p1` to a
//! private copy of only the files it touches, taken from the tree, and reads
//! a revision directory's copies of the units' sources and headers. A change
//! to a unit's source, or to a file that one unit alone includes by a
//! quoted name from beside its source (gnulib's regex.c includes
//! regexec.c), makes that file [`Touched`]; a change to another header is
//! refused; a change to any other file (another program's, the
//! documentation's, a build file's) is reported as ignored in
//! [`Revisions::notes`].
//!
//! Errors are [`ProjectError`]: each names the file and the step.

mod argv;
mod cache;
mod capture;
mod error;
mod revisions;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use capture::{capture, capture_in};
pub use error::ProjectError;
pub use revisions::revisions;

/// What the original build made PATH from, learned by watching it (cached
/// between runs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    /// DIR, the project as given (canonical); never written into.
    pub dir: PathBuf,
    /// A private copy of DIR in which the original was built once (never
    /// DIR itself); canonical.
    pub tree: PathBuf,
    /// PATH, relative to `tree`.
    pub program: PathBuf,
    /// Every translation unit whose object the linker put into PATH
    /// (explicit objects and the archive members it pulled), in link order.
    pub units: Vec<Unit>,
    pub link: Link,
    /// Whether this call ran the build (`false`: the cached build served).
    #[serde(skip)]
    pub fresh: bool,
    /// How long the project's build took when it ran.
    pub build_time: Duration,
}

/// One translation unit of PATH.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The C source, relative to `tree`.
    pub source: PathBuf,
    /// The directory the compile ran in (absolute, inside `tree`).
    pub dir: PathBuf,
    /// The compile's own flags (-I -D -U -std -f... -W... -O...), relative
    /// -I made absolute, without the compiler, -c, -o and its operand, the
    /// source, and dependency-file flags (-MD -MF x -MT x -MP ...).
    pub flags: Vec<String>,
    /// The object the original build made (absolute, inside `tree`).
    pub object: PathBuf,
    /// The files inside `tree` that the unit includes, relative to `tree`,
    /// sorted (its own flags and `-M`).
    pub headers: Vec<PathBuf>,
}

/// How PATH was linked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The link's flags and libraries other than the units' objects and the
    /// project's own archives (for example -lm, -pthread, -Wl,...); no -o.
    pub flags: Vec<String>,
    /// The project's own archives the link named (absolute, inside `tree`),
    /// in its order: a native build links them after its objects, for the
    /// members the original link did not load but a unit compiled without
    /// optimisation needs (gnulib's `c_isdigit`, inlined at -O2, is called
    /// at -O0).
    #[serde(default)]
    pub archives: Vec<PathBuf>,
}

/// One source file that some revision changes: its unit and its text in
/// every revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    /// The index in [`Capture::units`] of the unit that compiles it.
    pub unit: usize,
    /// The file, relative to `tree`: the unit's source, or a file the
    /// source includes from beside itself.
    pub file: PathBuf,
    /// Revision 0 (the original) to n, named `rev{k}:{file}`; `path` is
    /// the tree's file for revision 0, the diff for a diff's revision and
    /// the revision directory's file for a directory's.
    pub sources: Vec<crate::unify::RevisionSource>,
}

/// What [`revisions`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revisions {
    /// The units some revision changes, in unit order.
    pub touched: Vec<Touched>,
    /// One line for each change that does not reach PATH and was ignored.
    pub notes: Vec<String>,
}
