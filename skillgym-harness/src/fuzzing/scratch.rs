//! Files on disk for the fuzz entry points: one scratch directory per process (under the
//! system's temporary directory, named by the process id), emptied for every input, and the
//! input cut into the files a loader reads.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The byte that separates the files of one input (`a\0b` is two files).
pub(super) const SEPARATOR: u8 = 0;

/// A directory named `name` inside this process's scratch directory, empty.
pub(super) fn fresh(name: &str) -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    let root = ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("skillgym-fuzz-{}", std::process::id()));
        // `canonicalize`: the loaders compare canonical paths (`/tmp` may be a link).
        fs::create_dir_all(&root).expect("the scratch directory is created");
        fs::canonicalize(&root).expect("the scratch directory resolves")
    });
    let dir = root.join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).expect("the scratch directory is emptied");
    }
    fs::create_dir_all(&dir).expect("the scratch directory is created");
    dir
}

/// The first `count` files of `bytes` (split at [`SEPARATOR`]; the last one keeps any further
/// separators); missing files are `None`.
pub(super) fn files(bytes: &[u8], count: usize) -> Vec<Option<&[u8]>> {
    let mut parts = bytes.splitn(count, |&byte| byte == SEPARATOR).map(Some);
    (0..count).map(|_| parts.next().flatten()).collect()
}

/// Writes `bytes` at `path`, creating its directories.
pub(super) fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("the scratch file's directory is created");
    }
    fs::write(path, bytes).expect("the scratch file is written");
}

/// Writes `bytes` at `path` when given.
pub(super) fn write_some(path: &Path, bytes: Option<&[u8]>) {
    if let Some(bytes) = bytes {
        write(path, bytes);
    }
}
