//! Output directories in KLEE's convention: `psychic-out-N` (the next free N)
//! with a `psychic-last` symlink, or a directory the user names.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

pub struct OutDir {
    pub path: PathBuf,
}

impl OutDir {
    /// Removes the directory, for a run that failed before producing anything.
    pub fn discard(self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Creates the output directory. A named one may exist if it is empty, as
/// with `mkdir -p`; it is never mixed with an earlier run's results.
pub fn create(explicit: Option<&Path>) -> Result<OutDir> {
    if let Some(dir) = explicit {
        if dir.exists() {
            let empty =
                dir.read_dir().with_context(|| format!("{}: cannot read", dir.display()))?.next().is_none();
            if !empty {
                bail!(
                    "{}: output directory exists and is not empty; name another with --output-dir",
                    dir.display()
                );
            }
        } else {
            std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        }
        return Ok(OutDir { path: dir.to_path_buf() });
    }
    for n in 0.. {
        let dir = PathBuf::from(format!("psychic-out-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                link_last(&dir);
                return Ok(OutDir { path: dir });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("{}: cannot create", dir.display())),
        }
    }
    unreachable!("some psychic-out-N is free")
}

/// Points `psychic-last` at `dir`, replacing an older link; best effort, as in
/// KLEE (a read-only or odd filesystem must not fail the run).
fn link_last(dir: &Path) {
    let tmp = PathBuf::from(format!(".psychic-last-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::os::unix::fs::symlink(dir, &tmp).is_ok() && std::fs::rename(&tmp, "psychic-last").is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
