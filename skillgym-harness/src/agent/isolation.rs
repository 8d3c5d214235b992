//! Per-attempt state directories: seeding the user's auth and config files, finding and
//! copying the agent's own session file into the artifacts.

use std::borrow::Cow;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::options::set_env;
use super::{AgentOptions, Launch};
use crate::io_error::IoError;
use crate::private_dir::PrivateDir;

/// The user's secrets copied for a session, removed when this guard is dropped, whatever path
/// the session takes (a launch error half-way through seeding, a crash, a timeout, a cancelled
/// run), together with every sibling an agent derived from them (Qwen Code migrates
/// `settings.json` and keeps `settings.json.orig`; tools write `.bak`, `.lock`).
///
/// The copies themselves are never written into the run directory: they live in a private
/// directory of the session (`crate::private_dir`: mode 0700 under `$XDG_RUNTIME_DIR` or the
/// temporary directory, registered for removal by a second signal), and the state directory
/// gets a symbolic link to each.
///
/// [`remove`](Self::remove) removes them earlier and reports what could not be removed.
#[derive(Debug, Default)]
pub struct Seeded {
    /// The links, in the state directory.
    files: Vec<PathBuf>,
    /// Where the copies are.
    private: Option<PrivateDir>,
}

impl PartialEq for Seeded {
    fn eq(&self, other: &Self) -> bool {
        self.files == other.files
    }
}

impl Eq for Seeded {}

impl Seeded {
    /// Copies each of `files` (relative to `from`) that exists into the private directory,
    /// readable by the owner only, and links the same relative path under `to` to the copy.
    /// On an error the copies made so far stay in the guard (and go when it is dropped).
    pub fn seed(&mut self, from: &Path, to: &Path, files: &[&str]) -> io::Result<()> {
        for relative in files {
            let source = from.join(relative);
            if !source.is_file() {
                continue;
            }
            let target = to.join(relative);
            let seed_error = |error: io::Error| IoError::Seed {
                from: source.clone(),
                to: target.clone(),
                source: error,
            };
            let private = self.private_dir()?;
            let copy = private.copy(&source, relative).map_err(seed_error)?;
            self.link(&target, &copy).map_err(seed_error)?;
        }
        Ok(())
    }

    /// Writes `contents`, a file with a secret in it, for the agent at `path`: into the
    /// private directory, `path` linking to it; removed with the seeded files.
    pub fn write(&mut self, path: &Path, contents: &[u8]) -> io::Result<()> {
        let name = path
            .file_name()
            .map_or(Cow::Borrowed("file"), |name| name.to_string_lossy());
        let copy = self.private_dir()?.write(&name, contents)?;
        self.link(path, &copy).map_err(|source| {
            IoError::Write {
                path: path.to_path_buf(),
                source,
            }
            .into()
        })
    }

    /// A file holding `contents` in the private directory alone (nothing links to it);
    /// removed with the seeded files.
    pub(crate) fn private_file(&mut self, name: &str, contents: &[u8]) -> io::Result<PathBuf> {
        self.private_dir()?.write(name, contents)
    }

    /// Links `target` (created with its missing parents; whatever is there is replaced) to
    /// `copy`, registered for removal first.
    fn link(&mut self, target: &Path, copy: &Path) -> io::Result<()> {
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        // Registered first: a link made half-way is removed too.
        self.private_dir()?.register(target);
        self.files.push(target.to_path_buf());
        match fs::remove_file(target) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
        std::os::unix::fs::symlink(copy, target)
    }

    /// The private directory of the copies, created with the first.
    fn private_dir(&mut self) -> io::Result<&mut PrivateDir> {
        let private = match self.private.take() {
            Some(private) => private,
            None => PrivateDir::create()?,
        };
        Ok(self.private.insert(private))
    }

    /// The private directory holding the copies, once something was seeded.
    pub(crate) fn private_path(&self) -> Option<&Path> {
        self.private.as_ref().map(PrivateDir::path)
    }

    /// The files held (the links in the state directory).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Whether nothing was seeded.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Removes the seeded files, their derived siblings and the copies now; returns what could
    /// not be removed. A file already gone is fine.
    pub fn remove(&mut self) -> Vec<String> {
        let mut problems = Vec::new();
        for path in std::mem::take(&mut self.files) {
            for file in std::iter::once(path.clone()).chain(derived_siblings(&path)) {
                match fs::remove_file(&file) {
                    Ok(()) => {}
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    Err(error) => {
                        problems.push(format!("cannot remove {}: {error}", file.display()));
                    }
                }
            }
        }
        if let Some(mut private) = self.private.take()
            && let Err(error) = private.remove()
        {
            problems.push(format!("cannot remove {error}"));
        }
        problems
    }
}

impl Drop for Seeded {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Writes the prompt to `path` (the attempt's `prompt.md`) with every remembered secret
/// masked, and returns the prompt file to hand the agent (`{prompt_file}`): `path` itself, or,
/// when masking changed the prompt, a private copy of the real one, which goes with the
/// returned guard.
pub(crate) fn write_prompt(path: &Path, prompt: &str) -> io::Result<(PathBuf, Seeded)> {
    let masked = crate::secrets::mask(prompt);
    fs::write(path, masked.as_bytes())?;
    let mut guard = Seeded::default();
    if let Cow::Owned(_) = masked {
        let private = guard.private_file("prompt.md", prompt.as_bytes())?;
        return Ok((private, guard));
    }
    Ok((path.to_path_buf(), guard))
}

/// Files next to `path` named after it with a suffix (`settings.json.orig`, `auth.json.bak`).
fn derived_siblings(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let mut prefix = name.to_os_string();
    prefix.push(".");
    let prefix = prefix.as_encoded_bytes();
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().as_encoded_bytes().starts_with(prefix))
        .map(|entry| entry.path())
        .collect()
}

/// Keeps the user's own skills away from an agent that finds them under `$HOME`
/// (`~/.agents/skills`, `~/.claude/skills`, …): the session gets the private home
/// `<state>/home`. Git keeps the user's identity (`GIT_CONFIG_GLOBAL` names the user's global
/// git config) and npm the user's settings (`NPM_CONFIG_USERCONFIG`). With
/// [`inherit_user_skills`](AgentOptions::inherit_user_skills) nothing changes.
pub fn private_home(
    options: &AgentOptions,
    state_dir: &Path,
    launch: &mut Launch,
) -> io::Result<()> {
    if options.inherit_user_skills {
        return Ok(());
    }
    let home = state_dir.join("home");
    create_dir_below(state_dir.parent().unwrap_or(state_dir), &home)?;
    let user_home = options.home();
    let user_file = |candidates: &[PathBuf]| candidates.iter().find(|path| path.is_file()).cloned();
    if options.env_value("GIT_CONFIG_GLOBAL").is_none()
        && let Some(user_home) = &user_home
    {
        let xdg = options
            .env_value("XDG_CONFIG_HOME")
            .filter(|_| options.user_home.is_none())
            .map_or_else(|| user_home.join(".config"), PathBuf::from);
        if let Some(config) = user_file(&[user_home.join(".gitconfig"), xdg.join("git/config")]) {
            set_env(launch, "GIT_CONFIG_GLOBAL", config);
        }
    }
    if options.env_value("NPM_CONFIG_USERCONFIG").is_none()
        && let Some(npmrc) = user_home.and_then(|home| user_file(&[home.join(".npmrc")]))
    {
        set_env(launch, "NPM_CONFIG_USERCONFIG", npmrc);
    }
    set_env(launch, "HOME", home);
    Ok(())
}

/// With [`inherit_user_skills`](AgentOptions::inherit_user_skills), links each private skills
/// directory to the user's own (`<CLAUDE_CONFIG_DIR>/skills` → `~/.claude/skills`), so an agent
/// whose config directory is private still finds the user's skills. Pairs whose user directory
/// does not exist are skipped.
pub fn inherit_user_skills(options: &AgentOptions, links: &[(PathBuf, PathBuf)]) -> io::Result<()> {
    if !options.inherit_user_skills {
        return Ok(());
    }
    for (private, user) in links {
        if !user.is_dir() || private == user || private.symlink_metadata().is_ok() {
            continue;
        }
        if let Some(parent) = private.parent() {
            fs::create_dir_all(parent)?;
        }
        std::os::unix::fs::symlink(user, private).map_err(|source| IoError::LinkUserSkills {
            link: private.clone(),
            target: user.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Removes `dir` and the directories under it that hold no file, deepest first: a state
/// directory the agent never wrote to is no artifact. Anything that holds a file stays, and a
/// directory that cannot be read or removed is left as it is.
pub fn prune_empty_dirs(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            prune_empty_dirs(&entry.path());
        }
    }
    // Fails, as wanted, when something is left inside.
    let _ = fs::remove_dir(dir);
}

/// Creates `dir` and its missing parents below `base` (see [`crate::artifacts`]).
pub(crate) fn create_dir_below(base: &Path, dir: &Path) -> io::Result<()> {
    crate::artifacts::create_dirs_below(base, dir).map_err(|source| {
        IoError::CreateDir {
            path: dir.to_path_buf(),
            source,
        }
        .into()
    })
}

/// Creates each directory (and its parents).
pub fn create_dirs<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
    for dir in dirs {
        fs::create_dir_all(dir).map_err(|source| IoError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    Ok(())
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

/// Copies the agent's session file to `<artifact dir>/<name>`, secrets masked; `None` (and no
/// error) when there is nothing to copy.
pub fn copy_session_file(source: &Path, artifact_dir: &Path, name: &str) -> io::Result<PathBuf> {
    let target = artifact_dir.join(name);
    crate::secrets::copy_file(source, &target).map_err(|error| IoError::CopySessionFile {
        path: source.to_path_buf(),
        source: error,
    })?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_support::{mode, scratch};

    #[test]
    fn empty_state_directories_are_pruned_and_files_kept() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("agent-state");
        fs::create_dir_all(state.join("claude/projects")).unwrap();
        fs::create_dir_all(state.join("home")).unwrap();
        prune_empty_dirs(&state);
        assert!(!state.exists(), "nothing was written: nothing is kept");

        fs::create_dir_all(state.join("claude/projects")).unwrap();
        fs::create_dir_all(state.join("home/.cache")).unwrap();
        fs::write(state.join("claude/projects/session.jsonl"), "{}").unwrap();
        prune_empty_dirs(&state);
        assert!(state.join("claude/projects/session.jsonl").is_file());
        assert!(!state.join("home").exists());
    }

    #[test]
    fn seeds_existing_files_privately_and_removes_them_with_derived_copies() {
        let tmp = scratch("isolation", "seed");
        let dir = tmp.path();
        let home = dir.join("home");
        fs::create_dir_all(home.join(".codex")).unwrap();
        fs::write(home.join(".codex/auth.json"), "{\"token\":\"s\"}").unwrap();
        let state = dir.join("state");
        let mut seeded = Seeded::default();
        seeded
            .seed(&home.join(".codex"), &state, &["auth.json", "config.toml"])
            .unwrap();
        assert_eq!(seeded.files(), [state.join("auth.json")]);
        assert_eq!(mode(&seeded.files()[0]), 0o600);
        // A link to a private copy: the login itself is never in the state directory.
        let copy = fs::read_link(state.join("auth.json")).unwrap();
        assert!(!copy.starts_with(dir), "{}", copy.display());
        assert_eq!(mode(copy.parent().unwrap()), 0o700);
        assert_eq!(fs::read_to_string(&copy).unwrap(), "{\"token\":\"s\"}");
        fs::write(state.join("auth.json.orig"), "s").unwrap();
        fs::write(state.join("auth.jsonl"), "not derived").unwrap();
        assert!(seeded.remove().is_empty());
        assert!(state.join("auth.json").symlink_metadata().is_err());
        assert!(
            !copy.parent().unwrap().exists(),
            "the private copies are gone"
        );
        assert!(!state.join("auth.json.orig").exists());
        assert!(state.join("auth.jsonl").exists());
        assert!(seeded.remove().is_empty(), "already gone is fine");
        tmp.close().unwrap();
    }

    #[test]
    fn a_prompt_with_a_secret_is_written_masked_and_handed_over_privately() {
        let tmp = scratch("isolation", "prompt");
        let dir = tmp.path();
        crate::secrets::remember([("ISOLATION_TEST_API_KEY", "sk-prompt-0123456789")]);
        let md = dir.join("prompt.md");
        let (file, guard) = write_prompt(&md, "use sk-prompt-0123456789 here").unwrap();
        assert_eq!(
            fs::read_to_string(&md).unwrap(),
            "use [masked:ISOLATION_TEST_API_KEY] here"
        );
        assert_ne!(file, md);
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "use sk-prompt-0123456789 here"
        );
        assert_eq!(mode(&file), 0o600);
        drop(guard);
        assert!(!file.exists());
        let (file, guard) = write_prompt(&md, "nothing secret").unwrap();
        assert_eq!((file.as_path(), guard.is_empty()), (md.as_path(), true));
        tmp.close().unwrap();
    }

    #[test]
    fn dropping_the_guard_removes_what_was_seeded_even_after_an_error() {
        let tmp = scratch("isolation", "drop");
        let dir = tmp.path();
        fs::create_dir_all(dir.join("from/sub")).unwrap();
        fs::write(dir.join("from/a.json"), "secret").unwrap();
        fs::write(dir.join("from/sub/b.json"), "secret").unwrap();
        // `to/sub` is a file: seeding `sub/b.json` fails after `a.json` was copied.
        fs::create_dir_all(dir.join("to")).unwrap();
        fs::write(dir.join("to/sub"), "").unwrap();
        let mut seeded = Seeded::default();
        let error = seeded.seed(
            &dir.join("from"),
            &dir.join("to"),
            &["a.json", "sub/b.json"],
        );
        assert!(error.is_err());
        assert!(dir.join("to/a.json").exists());
        drop(seeded);
        assert!(!dir.join("to/a.json").exists());
        tmp.close().unwrap();
    }

    #[test]
    fn finds_the_newest_matching_file() {
        let tmp = scratch("isolation", "find");
        let dir = tmp.path();
        fs::create_dir_all(dir.join("a/b")).unwrap();
        fs::write(dir.join("a/old.jsonl"), "1").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(dir.join("a/b/new.jsonl"), "2").unwrap();
        fs::write(dir.join("a/b/other.txt"), "3").unwrap();
        let newest = newest_file(dir, &|p| p.extension().is_some_and(|e| e == "jsonl"));
        assert_eq!(newest, Some(dir.join("a/b/new.jsonl")));
        let copied = copy_session_file(&newest.unwrap(), dir, "session.jsonl").unwrap();
        assert_eq!(fs::read_to_string(copied).unwrap(), "2");
        assert!(newest_file(&dir.join("missing"), &|_| true).is_none());
        tmp.close().unwrap();
    }
}
