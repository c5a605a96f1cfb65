//! Where captures live and when one still holds: an entry per project
//! directory, build command and `PATH`, valid while the directory's listing
//! (paths, sizes, modification times) is the one it was built from.
//!
//! An entry is one directory, so that a changed project replaces its old build
//! instead of piling up beside it; a lock file keeps two psychic processes
//! from building into the same entry at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ProjectError;

/// Bumped whenever what an entry holds changes shape.
const FORMAT: u32 = 1;

/// psychic's cache (`compile::cache_dir`) where it can be made, else a
/// directory under the system's temporary one.
pub(crate) fn default_root() -> PathBuf {
    crate::compile::cache_dir()
        .filter(|d| std::fs::create_dir_all(d).is_ok())
        .unwrap_or_else(|| std::env::temp_dir().join("psychic-cache"))
}

/// The entry for building `dir` (canonical) with `build`, under `root`.
pub(crate) fn entry(root: &Path, dir: &Path, build: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let key = crate::compile::cache_key(&(FORMAT, dir, build, path));
    let name = dir.file_name().map_or_else(|| "root".into(), |n| n.to_string_lossy().into_owned());
    let name: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    root.join("project").join(format!("{name}-{key:016x}"))
}

/// One file's stamp: its kind, size, modification time and, for a symbolic
/// link, its target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Stamp {
    kind: u8,
    len: u64,
    mtime: (i64, i64),
    target: Option<PathBuf>,
}

/// Every file below `dir` (but `.git`, whose bookkeeping changes without the
/// sources changing) with its stamp, by path relative to `dir`.
pub(crate) fn listing(dir: &Path) -> Result<BTreeMap<PathBuf, Stamp>, ProjectError> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| ProjectError::io(&d, "listing the project", e))?;
        for e in entries {
            let e = e.map_err(|e| ProjectError::io(&d, "listing the project", e))?;
            let p = e.path();
            let m =
                std::fs::symlink_metadata(&p).map_err(|e| ProjectError::io(&p, "listing the project", e))?;
            let ft = m.file_type();
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(p.clone());
                }
                continue;
            }
            let kind = if ft.is_symlink() { 1 } else { 0 };
            let target = ft.is_symlink().then(|| std::fs::read_link(&p).unwrap_or_default());
            let stamp = Stamp { kind, len: m.len(), mtime: (m.mtime(), m.mtime_nsec()), target };
            out.insert(p.strip_prefix(dir).unwrap_or(&p).to_path_buf(), stamp);
        }
    }
    Ok(out)
}

/// The first path whose stamp differs between two listings.
pub(crate) fn first_difference(
    a: &BTreeMap<PathBuf, Stamp>,
    b: &BTreeMap<PathBuf, Stamp>,
) -> Option<PathBuf> {
    let changed = a.iter().find(|(p, s)| b.get(*p) != Some(*s)).map(|(p, _)| p.clone());
    changed.or_else(|| b.keys().find(|p| !a.contains_key(*p)).cloned())
}

/// An exclusive lock on an entry, held until dropped (`flock`, which the
/// kernel releases if psychic dies).
pub(crate) struct Lock {
    _file: std::fs::File,
}

impl Lock {
    pub(crate) fn take(entry: &Path) -> Result<Lock, ProjectError> {
        use std::os::fd::AsRawFd;
        std::fs::create_dir_all(entry)
            .map_err(|e| ProjectError::io(entry, "creating the capture cache", e))?;
        let path = entry.join("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| ProjectError::io(&path, "locking the capture cache", e))?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(ProjectError::io(
                &path,
                "locking the capture cache",
                std::io::Error::last_os_error(),
            ));
        }
        Ok(Lock { _file: file })
    }
}
