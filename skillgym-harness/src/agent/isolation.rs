//! Per-attempt state directories: seeding the user's auth and config files, finding and
//! copying the agent's own session file into the artifacts.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Copies each of `files` (relative to `from`) that exists to the same relative path under
/// `to`, readable by the owner only. Returns the copies, which the session runner removes
/// after the session so no secret stays in the artifacts.
pub fn seed(from: &Path, to: &Path, files: &[&str]) -> io::Result<Vec<PathBuf>> {
    let mut seeded = Vec::new();
    for relative in files {
        let source = from.join(relative);
        if !source.is_file() {
            continue;
        }
        let target = to.join(relative);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(&source, &target).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!(
                    "cannot seed {} into {}: {error}",
                    source.display(),
                    target.display()
                ),
            )
        })?;
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600))?;
        seeded.push(target);
    }
    Ok(seeded)
}

/// Creates each directory (and its parents).
pub fn create_dirs<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
    for dir in dirs {
        fs::create_dir_all(dir).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot create {}: {error}", dir.display()),
            )
        })?;
    }
    Ok(())
}

/// Removes seeded files; a file the agent already removed is fine.
pub fn remove_seeded(seeded: &[PathBuf]) -> Vec<String> {
    seeded
        .iter()
        .filter_map(|path| match fs::remove_file(path) {
            Ok(()) => None,
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => Some(format!("cannot remove {}: {error}", path.display())),
        })
        .collect()
}

/// Every regular file under `dir` (recursively, symlinks not followed) for which `wanted`
/// holds, with its modification time.
fn find_files(dir: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, SystemTime)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && wanted(&path) {
                let modified = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((path, modified));
            }
        }
    }
    found
}

/// The newest file under `dir` for which `wanted` holds.
pub fn newest_file(dir: &Path, wanted: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    find_files(dir, wanted)
        .into_iter()
        .max_by_key(|(_, modified)| *modified)
        .map(|(path, _)| path)
}

/// Copies the agent's session file to `<artifact dir>/<name>`; `None` (and no error) when
/// there is nothing to copy.
pub fn copy_session_file(source: &Path, artifact_dir: &Path, name: &str) -> io::Result<PathBuf> {
    let target = artifact_dir.join(name);
    fs::copy(source, &target).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("cannot copy the session file {}: {error}", source.display()),
        )
    })?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_support::{mode, scratch};

    #[test]
    fn seeds_existing_files_privately_and_removes_them() {
        let dir = scratch("isolation", "seed");
        let home = dir.join("home");
        fs::create_dir_all(home.join(".codex")).unwrap();
        fs::write(home.join(".codex/auth.json"), "{\"token\":\"s\"}").unwrap();
        let state = dir.join("state");
        let seeded = seed(&home.join(".codex"), &state, &["auth.json", "config.toml"]).unwrap();
        assert_eq!(seeded, [state.join("auth.json")]);
        let mode = mode(&seeded[0]);
        assert_eq!(mode, 0o600);
        assert!(remove_seeded(&seeded).is_empty());
        assert!(!seeded[0].exists());
        assert!(remove_seeded(&seeded).is_empty(), "already gone is fine");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn finds_the_newest_matching_file() {
        let dir = scratch("isolation", "find");
        fs::create_dir_all(dir.join("a/b")).unwrap();
        fs::write(dir.join("a/old.jsonl"), "1").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(dir.join("a/b/new.jsonl"), "2").unwrap();
        fs::write(dir.join("a/b/other.txt"), "3").unwrap();
        let newest = newest_file(&dir, &|p| p.extension().is_some_and(|e| e == "jsonl"));
        assert_eq!(newest, Some(dir.join("a/b/new.jsonl")));
        let copied = copy_session_file(&newest.unwrap(), &dir, "session.jsonl").unwrap();
        assert_eq!(fs::read_to_string(copied).unwrap(), "2");
        assert!(newest_file(&dir.join("missing"), &|_| true).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }
}
