//! Everything that makes `unify` refuse its input. Each message is one line and
//! starts with the location it is about (`file:line:col` where one exists).

use std::path::PathBuf;

/// A location in one revision's text, 1-based, columns in bytes (as clang counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UnifyError {
    #[error("{}: {err}", path.display())]
    Io { path: PathBuf, err: std::io::Error },

    /// tree-sitter found an ERROR or MISSING node: the file is not C we can read.
    #[error("{at}: syntax error: {message}")]
    Syntax { at: Loc, message: String },

    /// The diff itself is malformed.
    #[error("{}:{line}:1: malformed diff: {message}", diff.display())]
    DiffSyntax { diff: PathBuf, line: usize, message: String },

    /// A hunk whose old lines are not in the original.
    #[error("{}:{line}:1: hunk {header} does not apply to {target}: {detail}", diff.display())]
    HunkMismatch { diff: PathBuf, line: usize, header: String, target: String, detail: String },

    #[error("{orig}:1:1: only one revision; give the original and at least one patched file or --diff")]
    OneRevision { orig: String },

    /// A difference in preprocessor directives that psychic cannot merge safely.
    #[error("{at}: {message}")]
    Preprocessor { at: Loc, message: String },

    /// A difference psychic cannot express in one meta program.
    #[error("{at}: {message}")]
    Unsupported { at: Loc, message: String },
}
