//! Everything that makes `project` refuse its input. Each message starts with
//! the file it is about and says the step that failed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// DIR (`--project`) is not a directory.
    #[error("{}: no such directory (--project)", dir.display())]
    NoDir { dir: PathBuf },

    /// Reading or writing a file failed; `step` says what psychic was doing.
    #[error("{}: {step}: {err}", path.display())]
    Io { path: PathBuf, step: &'static str, err: std::io::Error },

    /// A command of psychic's own (cp, patch, the linker) could not run or failed.
    #[error("{}: {step} failed: `{command}`{}", path.display(), tail_of(output))]
    Tool { path: PathBuf, step: &'static str, command: String, output: String },

    /// The project's own build failed in psychic's copy of DIR.
    #[error("{}: the build `{command}` failed ({}) in psychic's copy of the project, {}{}", dir.display(), status_of(*status), tree.display(), tail_of(output))]
    Build { dir: PathBuf, tree: PathBuf, command: String, status: Option<i32>, output: String },

    /// PATH is not a path inside DIR.
    #[error("{}: not a path inside the project directory {} (--program is relative to --project)", program.display(), dir.display())]
    ProgramOutside { program: PathBuf, dir: PathBuf },

    /// The build ran but did not make PATH.
    #[error("{}: the build `{command}` did not make it (nothing there after the build in {})", program.display(), tree.display())]
    NotBuilt { program: PathBuf, tree: PathBuf, command: String },

    /// PATH exists, but no compiler driver the capture saw linked it.
    #[error("{}: the build made it, but no link that psychic saw did (was it linked by `ld` itself, or copied?)", program.display())]
    NoLink { program: PathBuf },

    /// The link of PATH compiles a C file itself, leaving no object of it.
    #[error("{}: its link compiles {} itself; psychic needs every unit compiled to an object of its own (`-c`), so far", program.display(), source_file.display())]
    OneStepLink { program: PathBuf, source_file: PathBuf },

    /// The linker put an object into PATH that no captured C compile made.
    #[error("{}: the link of {} loads it, but no C compile that psychic saw made it (psychic takes C units only, so far)", object.display(), program.display())]
    UnknownObject { object: PathBuf, program: PathBuf },

    /// Listing a unit's headers (`-M`) failed.
    #[error("{}: listing its headers with its own flags failed: `{command}`{}", source_file.display(), tail_of(output))]
    Headers { source_file: PathBuf, command: String, output: String },

    /// The build wrote outside psychic's copy, into DIR itself.
    #[error("{}: the build changed {} in the project directory itself, which psychic never writes into (does its configuration hold absolute paths? configure a copy instead)", dir.display(), file)]
    WroteIntoDir { dir: PathBuf, file: String },

    /// A revision directory that is not there.
    #[error("{}: no such directory (a revision of the project)", dir.display())]
    NoRevisionDir { dir: PathBuf },

    /// Neither a diff nor a revision directory was given.
    #[error("{}: only the original; give at least one --diff or revision directory", program.display())]
    NoRevisions { program: PathBuf },

    /// A diff names a file outside the tree (absolute, or with `..`).
    #[error("{}: names {file}, which is not a path inside the project (diffs apply with -p1 at DIR)", diff.display())]
    DiffPath { diff: PathBuf, file: String },

    /// A diff that touches no file at all.
    #[error("{}: touches no file (is it a unified diff with a/ and b/ prefixes?)", diff.display())]
    EmptyDiff { diff: PathBuf },

    /// `patch -p1` refused a diff.
    #[error("{}: does not apply to {file} (patch -p1 at the project){}", diff.display(), tail_of(output))]
    DiffDoesNotApply { diff: PathBuf, file: String, output: String },

    /// A revision changes a file that units of PATH include, other than
    /// one unit's from beside its source.
    #[error("{}: changes {file}, a header that {units} include(s); psychic unifies the program's .c files and a file that one of them includes by a quoted name from its own directory (`#include \"regexec.c\"`), not a header included elsewhere or by several units (so far)", revision.display())]
    TouchesHeader { revision: PathBuf, file: String, units: String },

    /// A revision deletes a unit's source.
    #[error("{}: deletes {file}, a source of the program; psychic unifies files that every revision has", revision.display())]
    DeletesUnit { revision: PathBuf, file: String },
}

/// The last lines of a command's output, for an error message.
fn tail_of(output: &str) -> String {
    let lines: Vec<&str> = output.trim_end().lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let from = lines.len().saturating_sub(TAIL_LINES);
    let cut = if from > 0 { format!(" (its last {TAIL_LINES} lines)") } else { String::new() };
    format!("; it said{cut}:\n{}", lines[from..].join("\n"))
}

fn status_of(status: Option<i32>) -> String {
    status.map_or_else(|| "killed by a signal".into(), |c| format!("exit status {c}"))
}

/// How many lines of a failed command's output an error shows.
const TAIL_LINES: usize = 20;

impl ProjectError {
    pub(crate) fn io(path: impl Into<PathBuf>, step: &'static str, err: std::io::Error) -> Self {
        ProjectError::Io { path: path.into(), step, err }
    }
}
