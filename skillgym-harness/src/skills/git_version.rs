//! Another version of a skill under test: its directory as committed at a git revision of the
//! repository that holds it (a variant's `skills: { git: REF }`).
//!
//! | step | how |
//! |---|---|
//! | the repository | `git -C <skill dir> rev-parse --show-toplevel`, and the skill's path inside it |
//! | the files | `git archive --format=tar <REF>:<path>` piped into `tar -x` (both on every Unix) |
//! | where | `<run>/.variants/<variant>/<n>-<dir name>/`: kept with the run, so the artifacts show what the variant installed |
//!
//! A revision that does not exist, a skill directory outside any repository or one the
//! revision lacks is an error naming the skill, the revision and git's own words.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::config::ConfigError;

/// Writes the skill directory `dir` as committed at `revision` into `into` (created), and
/// returns `into`.
pub(crate) fn materialize(dir: &Path, revision: &str, into: &Path) -> Result<PathBuf, ConfigError> {
    let fail = |message: String| {
        ConfigError::new(Some(dir), message).with_help(
            "a variant's `skills: { git: REF }` installs each skill under test as committed at REF of the repository holding it",
        )
    };
    let root = git_output(dir, &["rev-parse", "--show-toplevel"])
        .map_err(|why| fail(format!("is not in a git repository: {why}")))?;
    let root = PathBuf::from(root.trim());
    let canonical = dir
        .canonicalize()
        .map_err(|error| fail(format!("cannot be read: {error}")))?;
    let root = root.canonicalize().unwrap_or(root);
    let inside = canonical
        .strip_prefix(&root)
        .map_err(|_| fail(format!("is not inside its repository {}", root.display())))?;
    let tree = format!("{revision}:{}", inside.display());
    // Fails early when the revision, or the skill's directory at it, does not exist.
    let kind = git_output(&root, &["cat-file", "-t", &tree]).unwrap_or_default();
    if kind != "tree" {
        return Err(fail(format!(
            "has no version at git revision `{revision}` (`{tree}` is not a directory there)"
        )));
    }
    std::fs::create_dir_all(into)
        .map_err(|error| fail(format!("cannot be written to {}: {error}", into.display())))?;
    archive_into(&root, &tree, into).map_err(|error| {
        fail(format!(
            "cannot be extracted at `{revision}` into {}: {error}",
            into.display()
        ))
    })?;
    Ok(into.to_path_buf())
}

/// `git -C dir args...`'s trimmed stdout, or its stderr as the error.
fn git_output(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

/// `git archive --format=tar <tree> | tar -x -C into`, run from the repository `root`.
fn archive_into(root: &Path, tree: &str, into: &Path) -> io::Result<()> {
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["archive", "--format=tar", tree])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = archive
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("git archive has no stdout"))?;
    let extract = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(stdout)
        .stderr(Stdio::piped())
        .output()?;
    let archived = archive.wait_with_output()?;
    if !archived.status.success() {
        return Err(io::Error::other(
            String::from_utf8_lossy(&archived.stderr).trim().to_owned(),
        ));
    }
    if !extract.status.success() {
        return Err(io::Error::other(format!(
            "tar: {}",
            String::from_utf8_lossy(&extract.stderr).trim()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    #[test]
    fn a_skill_is_written_as_committed_at_the_revision() {
        let repo = tempfile::tempdir().unwrap();
        let skill = repo.path().join("skills/demo");
        std::fs::create_dir_all(&skill).unwrap();
        git(repo.path(), &["init", "-q"]);
        std::fs::write(
            skill.join("SKILL.md"),
            "---\nname: demo\ndescription: old\n---\nv1\n",
        )
        .unwrap();
        git(repo.path(), &["add", "-A"]);
        git(repo.path(), &["commit", "-qm", "v1"]);
        git(repo.path(), &["tag", "v1"]);
        std::fs::write(
            skill.join("SKILL.md"),
            "---\nname: demo\ndescription: new\n---\nv2\n",
        )
        .unwrap();
        let out = tempfile::tempdir().unwrap();
        let into = out.path().join("v1/0-demo");
        let written = materialize(&skill, "v1", &into).unwrap();
        let text = std::fs::read_to_string(written.join("SKILL.md")).unwrap();
        assert!(
            text.contains("description: old") && text.ends_with("v1\n"),
            "{text}"
        );

        let missing = materialize(&skill, "v9", &out.path().join("v9")).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("has no version at git revision `v9`"),
            "{missing}"
        );
        let outside = tempfile::tempdir().unwrap();
        let lone = materialize(outside.path(), "v1", &out.path().join("x")).unwrap_err();
        assert!(
            lone.to_string().contains("is not in a git repository"),
            "{lone}"
        );
    }
}
