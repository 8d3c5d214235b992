//! The repository boundary of a workspace: agents look for project instructions and skills from
//! their working directory up to the git root (Codex, OpenCode, Copilot, Gemini CLI, Qwen Code;
//! OpenCode and Copilot go further outside a repository), so every workspace is a repository of
//! its own and none of them walks out of it.
//!
//! | the workspace after its template and bootstrap | what it gets |
//! |---|---|
//! | has a `.git` (a directory, a `gitdir:` file or a link: the template's or the bootstrap's) | nothing: it is kept as it is |
//! | has none | an empty repository, written by hand (no `git` process, so no `git` is needed and no user or system git config or template is read): `.git/HEAD` on `refs/heads/main`, `.git/config` (format version 0, not bare), and empty `objects/`, `refs/heads/`, `refs/tags/` — what git itself needs to recognise a repository |

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

/// The files of an empty repository, relative to the workspace.
const FILES: [(&str, &str); 2] = [
    (".git/HEAD", "ref: refs/heads/main\n"),
    (
        ".git/config",
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
    ),
];

/// The directories of an empty repository, relative to the workspace.
const DIRS: [&str; 3] = [".git/objects", ".git/refs/heads", ".git/refs/tags"];

/// Makes `workspace` a repository of its own unless it has a `.git` already.
pub(crate) fn ensure_repository(workspace: &Path) -> io::Result<Boundary> {
    if fs::symlink_metadata(workspace.join(".git")).is_ok() {
        return Ok(Boundary::Existing);
    }
    for dir in DIRS {
        fs::create_dir_all(workspace.join(dir))?;
    }
    for (file, text) in FILES {
        fs::write(workspace.join(file), text)?;
    }
    Ok(Boundary::Created)
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
    }
}
