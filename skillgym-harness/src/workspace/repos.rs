//! `workspace.repos` of a declarative suite (agentv): git repositories checked out into each
//! attempt's workspace at a pinned commit.
//!
//! | step | what |
//! |---|---|
//! | the clone URL | `repo` as written; GitHub's `org/name` shorthand is `https://github.com/org/name.git` |
//! | the cache | one mirror per repository in `<workspace base>/repos/<repository>.git`, cloned by the first attempt that needs it (under a lock: nextest's processes share it) and fetched again when a pinned commit is missing |
//! | each attempt | a local clone of the mirror (objects hard-linked, no network) at `<workspace>/<path>`; `sparse` paths set before the checkout; a detached checkout of `commit` (or `base_commit`; else the default branch), `ancestor` commits back |
//! | failure | the attempt fails with origin `workspace`, naming the repository and git's message |
//!
//! git runs with `GIT_TERMINAL_PROMPT=0`: a repository that needs credentials fails instead of
//! waiting for them.

use std::fs::{self, File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::suite::RepoSpec;

impl RepoSpec {
    /// The URL git clones.
    pub(crate) fn clone_url(&self) -> String {
        let repo = self.repo.trim();
        let shorthand = repo.split('/').count() == 2
            && !repo.starts_with('/')
            && !repo.starts_with('.')
            && !repo.contains(':')
            && repo
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c));
        if shorthand {
            format!("https://github.com/{repo}.git")
        } else {
            repo.to_owned()
        }
    }

    /// The revision checked out.
    fn revision(&self) -> String {
        let base = self.commit.as_deref().unwrap_or("HEAD");
        match self.ancestor {
            0 => base.to_owned(),
            n => format!("{base}~{n}"),
        }
    }
}

/// Checks out every repository of `repos` into `workspace`, through mirrors in `cache`.
pub(crate) fn materialize(
    repos: &[RepoSpec],
    workspace: &Path,
    cache: &Path,
) -> Result<(), String> {
    for repo in repos {
        let url = repo.clone_url();
        let mirror = mirror(cache, &url, repo.commit.as_deref())
            .map_err(|why| format!("workspace.repos `{}`: {why}", repo.repo))?;
        checkout(repo, &mirror, &workspace.join(&repo.path))
            .map_err(|why| format!("workspace.repos `{}` at `{}`: {why}", repo.repo, repo.path))?;
    }
    Ok(())
}

/// The mirror of `url` in `cache`, cloned or fetched so that it holds `commit`.
fn mirror(cache: &Path, url: &str, commit: Option<&str>) -> Result<PathBuf, String> {
    fs::create_dir_all(cache).map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let name = crate::artifacts::sanitize(&url.trim_end_matches('/').replace('/', "-"));
    let mirror = cache.join(format!("{name}.git"));
    let _lock = lock(&cache.join(format!("{name}.lock")))?;
    if !mirror.join("HEAD").is_file() {
        let partial = cache.join(format!("{name}.partial"));
        let _ = fs::remove_dir_all(&partial);
        git(
            None,
            &["clone", "--mirror", "--quiet", url, &path_arg(&partial)],
        )?;
        fs::rename(&partial, &mirror).map_err(|e| format!("cannot keep the mirror: {e}"))?;
    } else if let Some(commit) = commit
        && git(
            Some(&mirror),
            &["cat-file", "-e", &format!("{commit}^{{commit}}")],
        )
        .is_err()
    {
        git(Some(&mirror), &["remote", "update", "--prune"])?;
    }
    Ok(mirror)
}

/// A clone of `mirror` at `dest`, checked out at the repository's revision.
fn checkout(repo: &RepoSpec, mirror: &Path, dest: &Path) -> Result<(), String> {
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    git(
        None,
        &[
            "clone",
            "--quiet",
            "--no-checkout",
            &path_arg(mirror),
            &path_arg(dest),
        ],
    )?;
    if !repo.sparse.is_empty() {
        let mut args = vec!["sparse-checkout", "set", "--no-cone"];
        args.extend(repo.sparse.iter().map(String::as_str));
        git(Some(dest), &args)?;
    }
    git(
        Some(dest),
        &["checkout", "--quiet", "--detach", &repo.revision()],
    )
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Runs git (in `dir`, when given); `Err` holds its stderr.
fn git(dir: Option<&Path>, args: &[&str]) -> Result<(), String> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(format!(
        "`git {}` failed: {}",
        args.first().copied().unwrap_or_default(),
        stderr.trim()
    ))
}

/// An exclusive `flock` on `path` (created), held until the file is dropped.
fn lock(path: &Path) -> Result<File, String> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    loop {
        // SAFETY: flock(2) only reads its arguments; the descriptor stays open while `file`
        // is borrowed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(file);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("cannot lock {}: {error}", path.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// A repository with two commits: `v1` and `v2` of `README.md`, plus `docs/a.md`.
    fn origin(dir: &Path) -> String {
        fs::create_dir_all(dir.join("docs")).unwrap();
        run(dir, &["init", "--quiet", "--initial-branch=main"]);
        fs::write(dir.join("README.md"), "v1\n").unwrap();
        fs::write(dir.join("docs/a.md"), "a\n").unwrap();
        run(dir, &["add", "."]);
        run(dir, &["commit", "--quiet", "-m", "one"]);
        fs::write(dir.join("README.md"), "v2\n").unwrap();
        run(dir, &["commit", "--quiet", "-am", "two"]);
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "HEAD~1"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn spec(repo: &Path) -> RepoSpec {
        RepoSpec {
            path: "./repo".into(),
            repo: repo.display().to_string(),
            commit: None,
            ancestor: 0,
            sparse: Vec::new(),
        }
    }

    #[test]
    fn repositories_are_checked_out_at_their_pin_through_one_mirror() {
        let t = tempfile::tempdir().unwrap();
        let first = origin(&t.path().join("origin"));
        let cache = t.path().join("cache");
        let head = spec(&t.path().join("origin"));
        let pinned = RepoSpec {
            path: "pinned".into(),
            commit: Some(first.clone()),
            ..head.clone()
        };
        let back = RepoSpec {
            path: "nested/back".into(),
            ancestor: 1,
            sparse: vec!["README.md".into()],
            ..head.clone()
        };
        let ws = t.path().join("ws");
        materialize(&[head, pinned, back], &ws, &cache).unwrap();
        let read = |p: &str| fs::read_to_string(ws.join(p)).unwrap();
        assert_eq!(read("repo/README.md"), "v2\n", "the default branch");
        assert_eq!(read("pinned/README.md"), "v1\n", "the pinned commit");
        assert_eq!(read("nested/back/README.md"), "v1\n", "one commit back");
        assert!(
            !ws.join("nested/back/docs").exists(),
            "sparse: only README.md"
        );
        let mirrors: Vec<_> = fs::read_dir(&cache)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".git"))
            .collect();
        assert_eq!(mirrors.len(), 1, "one mirror for the three: {mirrors:?}");
    }

    #[test]
    fn a_missing_commit_and_a_missing_repository_are_named() {
        let t = tempfile::tempdir().unwrap();
        origin(&t.path().join("origin"));
        let cache = t.path().join("cache");
        let missing = RepoSpec {
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            ..spec(&t.path().join("origin"))
        };
        let error = materialize(&[missing], &t.path().join("ws"), &cache).unwrap_err();
        assert!(error.starts_with("workspace.repos `"), "{error}");
        assert!(error.contains("`git checkout` failed"), "{error}");
        let gone = spec(&t.path().join("nowhere"));
        let error = materialize(&[gone], &t.path().join("ws2"), &cache).unwrap_err();
        assert!(error.contains("`git clone` failed"), "{error}");
    }

    #[test]
    fn github_shorthand_becomes_a_clone_url() {
        let mut repo = spec(Path::new("/x"));
        repo.repo = "EntityProcess/agentv".into();
        assert_eq!(
            repo.clone_url(),
            "https://github.com/EntityProcess/agentv.git"
        );
        repo.repo = "https://example.com/a/b.git".into();
        assert_eq!(repo.clone_url(), "https://example.com/a/b.git");
        repo.repo = "../local/repo".into();
        assert_eq!(repo.clone_url(), "../local/repo");
    }
}
