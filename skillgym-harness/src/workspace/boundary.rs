//! The repository boundary of a workspace: agents look for project instructions and skills from
//! their working directory up to the git root (Codex, OpenCode, Copilot, Gemini CLI, Qwen Code;
//! OpenCode and Copilot go further outside a repository), so every workspace is a repository of
//! its own and none of them walks out of it.
//!
//! | the workspace after its template and bootstrap | what it gets |
//! |---|---|
//! | has a `.git` (a directory, a `gitdir:` file or a link: the template's or the bootstrap's) | nothing: it is kept as it is |
//! | has none | an empty repository, written by hand (no `git` process, so no `git` is needed and no user or system git config or template is read): `.git/HEAD` on `refs/heads/main` and empty `objects/` and `refs/` — what git itself needs to recognise a repository (it makes `refs/heads/` with the first commit; without a `config` the format is version 0, not bare) |
//!
//! Every directory costs twice, made and removed (removing one waits on the disk on most file
//! systems), so the repository has no directory git does not need; [`is_pristine`] tells a
//! workspace that still holds exactly it and nothing else, which can serve another attempt.

use std::fs;
use std::io;
use std::path::Path;

/// What [`ensure_repository`] found or did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Boundary {
    /// The workspace had a `.git` of its own (from the template or the bootstrap).
    Existing,
    /// skillgym wrote an empty repository.
    Created,
}

/// `.git/HEAD` of an empty repository.
const HEAD: &str = "ref: refs/heads/main\n";

/// The directories of an empty repository, relative to the workspace, parents first.
const DIRS: [&str; 3] = [".git", ".git/objects", ".git/refs"];

/// Makes `workspace` a repository of its own unless it has a `.git` already.
pub(crate) fn ensure_repository(workspace: &Path) -> io::Result<Boundary> {
    match fs::create_dir(workspace.join(DIRS[0])) {
        Ok(()) => {}
        // A `.git` directory, file or link (to nowhere, perhaps): the workspace's own.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            return Ok(Boundary::Existing);
        }
        Err(error) => return Err(error),
    }
    for dir in &DIRS[1..] {
        fs::create_dir(workspace.join(dir))?;
    }
    fs::write(workspace.join(".git/HEAD"), HEAD)?;
    Ok(Boundary::Created)
}

/// Whether `workspace` holds exactly the empty repository [`ensure_repository`] writes and
/// nothing else: `.git` with `HEAD` (unchanged) and empty `objects/` and `refs/`, every
/// directory with the permissions of `workspace` itself, nothing a link. An agent that wrote
/// anything in its workspace, or ran git so that it wrote something, leaves another one.
pub(crate) fn is_pristine(workspace: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(top) = fs::symlink_metadata(workspace) else {
        return false;
    };
    let mode = top.permissions().mode();
    let dir_as_made = |path: &Path| {
        fs::symlink_metadata(path)
            .is_ok_and(|meta| meta.is_dir() && meta.permissions().mode() == mode)
    };
    let names = |path: &Path| -> Option<Vec<std::ffi::OsString>> {
        let mut names: Vec<_> = fs::read_dir(path)
            .ok()?
            .map(|entry| entry.map(|entry| entry.file_name()))
            .collect::<io::Result<_>>()
            .ok()?;
        names.sort();
        Some(names)
    };
    let git = workspace.join(".git");
    let head = git.join("HEAD");
    top.is_dir()
        && names(workspace).is_some_and(|names| names == [".git"])
        && dir_as_made(&git)
        && names(&git).is_some_and(|names| names == ["HEAD", "objects", "refs"])
        && fs::symlink_metadata(&head)
            .is_ok_and(|meta| meta.is_file() && meta.len() == HEAD.len() as u64)
        && fs::read(&head).is_ok_and(|text| text == HEAD.as_bytes())
        && DIRS[1..].iter().all(|dir| {
            let path = workspace.join(dir);
            dir_as_made(&path) && names(&path).is_some_and(|names| names.is_empty())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_repository_is_written_and_an_existing_one_kept() {
        let t = tempfile::tempdir().unwrap();
        let bare = t.path().join("bare");
        fs::create_dir(&bare).unwrap();
        assert_eq!(ensure_repository(&bare).unwrap(), Boundary::Created);
        assert_eq!(
            fs::read_to_string(bare.join(".git/HEAD")).unwrap(),
            "ref: refs/heads/main\n"
        );
        for dir in DIRS {
            assert!(bare.join(dir).is_dir(), "{dir}");
        }

        let own = t.path().join("own");
        fs::create_dir(&own).unwrap();
        fs::write(own.join(".git"), "gitdir: /elsewhere/.git/worktrees/own\n").unwrap();
        assert_eq!(ensure_repository(&own).unwrap(), Boundary::Existing);
        assert!(own.join(".git").is_file(), "a gitdir file is kept");
    }

    /// git itself takes the written directory for a repository, whose top is the workspace.
    #[test]
    fn git_recognises_the_written_repository() {
        let t = tempfile::tempdir().unwrap();
        let workspace = t.path().join("ws");
        fs::create_dir_all(workspace.join("src")).unwrap();
        fs::write(workspace.join("src/lib.rs"), "").unwrap();
        ensure_repository(&workspace).unwrap();
        let git = |args: &[&str]| {
            let output = std::process::Command::new("git")
                .args(args)
                .current_dir(workspace.join("src"))
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env_remove("GIT_DIR")
                .env_remove("GIT_WORK_TREE")
                .output()
                .expect("git is installed (the CI image and every developer machine have it)");
            let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            assert!(
                output.status.success(),
                "git {args:?}: {stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            stdout
        };
        assert_eq!(
            git(&["rev-parse", "--show-toplevel"]),
            fs::canonicalize(&workspace).unwrap().to_str().unwrap()
        );
        assert_eq!(git(&["symbolic-ref", "--short", "HEAD"]), "main");
        assert_eq!(git(&["status", "--porcelain"]), "?? src/");
        // A commit works in it: git makes what it needs.
        let identity = ["-c", "user.name=t", "-c", "user.email=t@t"];
        git(&[&identity[..], &["add", "-A"]].concat());
        git(&[&identity[..], &["commit", "-qm", "first"]].concat());
        assert_eq!(git(&["log", "--format=%s"]), "first");
        assert_eq!(git(&["branch", "--show-current"]), "main");
    }

    #[test]
    fn only_the_untouched_empty_repository_is_pristine() {
        let t = tempfile::tempdir().unwrap();
        let fresh = |name: &str| {
            let dir = t.path().join(name);
            fs::create_dir(&dir).unwrap();
            ensure_repository(&dir).unwrap();
            dir
        };
        assert!(is_pristine(&fresh("fresh")));
        type Touch = fn(&Path);
        let touched: [(&str, Touch); 7] = [
            ("a file", |ws| fs::write(ws.join("notes.md"), "x").unwrap()),
            ("a hidden directory", |ws| {
                fs::create_dir(ws.join(".cache")).unwrap()
            }),
            ("a config", |ws| {
                fs::write(ws.join(".git/config"), "").unwrap()
            }),
            ("an object", |ws| {
                fs::create_dir(ws.join(".git/objects/ab")).unwrap()
            }),
            ("a branch", |ws| {
                fs::create_dir(ws.join(".git/refs/heads")).unwrap()
            }),
            ("another HEAD", |ws| {
                fs::write(ws.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap()
            }),
            ("a mode", |ws| {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(ws.join(".git/refs"), fs::Permissions::from_mode(0o500))
                    .unwrap()
            }),
        ];
        for (what, touch) in touched {
            let dir = fresh(what);
            touch(&dir);
            assert!(!is_pristine(&dir), "{what}");
        }
        let own = t.path().join("own");
        fs::create_dir_all(own.join(".git/objects")).unwrap();
        assert!(!is_pristine(&own), "a repository of the template's");
        assert!(!is_pristine(&t.path().join("gone")));
    }
}
