//! Symlinks in a suite: followed only while they stay inside the suite's directory (the
//! directory of its `EVAL.yaml`).
//!
//! | Path | Rule |
//! |---|---|
//! | written in a YAML file as absolute, or with `..` past the suite directory | used as written: where it leads is in plain sight |
//! | inside the suite directory as written (a case file, a case directory, `<case>/workspace`, a template, `input_files`, `skills`, `mock`, a `cwd`) | must resolve inside it: otherwise the first symlink that leads out is named with its target, and nothing behind it is read or copied |
//!
//! The error names the link and the target it holds, never what the target contains.

use std::path::{Component, Path, PathBuf};

use crate::config::ConfigError;
use crate::trial_name::escaped;

/// A symlink through which a path inside the suite directory leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Escape {
    /// The symlink (or, when no single link can be blamed, the path itself).
    pub(crate) link: PathBuf,
    /// What the link holds (or where the path resolves).
    pub(crate) target: PathBuf,
    /// The suite directory it leaves.
    pub(crate) root: PathBuf,
}

impl Escape {
    /// The error's message: the link, its target, the suite directory.
    pub(crate) fn message(&self) -> String {
        format!(
            "`{}` is a symlink to `{}`, outside the suite directory `{}`: skillgym follows no symlink out of a suite",
            shown(&self.link),
            shown(&self.target),
            shown(&self.root)
        )
    }

    /// The error, without a position: about a file or directory no YAML names.
    pub(crate) fn error(&self) -> ConfigError {
        ConfigError::new(None, self.message()).with_help(Self::HELP)
    }

    /// The error's help line.
    pub(crate) const HELP: &'static str =
        "copy what it points to into the suite, or write the path it points to in the YAML itself";
}

/// A path as text safe to print (control characters escaped).
fn shown(path: &Path) -> String {
    escaped(&path.to_string_lossy())
}

/// The symlink through which `path` (`root` joined with a relative path) leaves `root`, if it
/// does. A path that is outside `root` as written, a path that does not exist and a `root`
/// that cannot be resolved are not this check's business.
pub(crate) fn escape(root: &Path, path: &Path) -> Option<Escape> {
    let relative = path.strip_prefix(root).ok()?;
    if leaves(relative) {
        return None;
    }
    let real_root = std::fs::canonicalize(root).ok()?;
    let real = std::fs::canonicalize(path).ok()?;
    if real.starts_with(&real_root) {
        return None;
    }
    let outside =
        |p: &Path| std::fs::canonicalize(p).is_ok_and(|real| !real.starts_with(&real_root));
    let mut prefix = root.to_path_buf();
    for component in relative.components() {
        prefix.push(component);
        let is_link = std::fs::symlink_metadata(&prefix).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && outside(&prefix) {
            let target = std::fs::read_link(&prefix).unwrap_or(real);
            return Some(Escape {
                link: prefix,
                target,
                root: root.to_path_buf(),
            });
        }
    }
    Some(Escape {
        link: path.to_path_buf(),
        target: real,
        root: root.to_path_buf(),
    })
}

/// The symlink `link` itself, when it resolves outside `root` (wherever `link` is written).
pub(crate) fn link_escape(root: &Path, link: &Path) -> Option<Escape> {
    let real_root = std::fs::canonicalize(root).ok()?;
    let real = std::fs::canonicalize(link).ok()?;
    if real.starts_with(&real_root) {
        return None;
    }
    Some(Escape {
        link: link.to_path_buf(),
        target: std::fs::read_link(link).unwrap_or(real),
        root: root.to_path_buf(),
    })
}

/// Whether `relative` climbs out of the directory it is relative to, as written.
fn leaves(relative: &Path) -> bool {
    let mut depth = 0usize;
    for component in relative.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::ParentDir if depth == 0 => return true,
            Component::ParentDir => depth -= 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    false
}

#[cfg(all(test, unix))]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn links_inside_pass_links_out_are_named_and_written_paths_are_left_alone() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("suite");
        let outside = outer.path().join("outside");
        fs::create_dir_all(root.join("inside/deeper")).unwrap();
        fs::create_dir_all(outside.join("secrets")).unwrap();
        fs::write(outside.join("secrets/key"), "SECRET").unwrap();
        symlink("inside", root.join("in-link")).unwrap();
        symlink(&outside, root.join("out-link")).unwrap();
        symlink("../../outside/secrets/key", root.join("inside/key")).unwrap();
        symlink("out-link", root.join("chained")).unwrap();

        assert_eq!(escape(&root, &root.join("inside/deeper")), None);
        assert_eq!(escape(&root, &root.join("in-link/deeper")), None);
        // Written outside: in plain sight.
        assert_eq!(escape(&root, &root.join("../outside/secrets")), None);
        // Missing: the existence check reports it.
        assert_eq!(escape(&root, &root.join("nope")), None);

        let found = escape(&root, &root.join("out-link/secrets")).unwrap();
        assert_eq!(
            (found.link, found.target),
            (root.join("out-link"), outside.clone())
        );
        let found = escape(&root, &root.join("inside/key")).unwrap();
        assert_eq!(
            (found.link.clone(), found.target.clone()),
            (
                root.join("inside/key"),
                PathBuf::from("../../outside/secrets/key")
            )
        );
        let message = found.message();
        assert!(!message.contains("SECRET"), "{message}");
        assert!(message.contains("outside the suite directory"), "{message}");
        let found = escape(&root, &root.join("chained")).unwrap();
        assert_eq!(
            (found.link, found.target),
            (root.join("chained"), PathBuf::from("out-link"))
        );
        // `link/..` goes where the link goes, not back into the suite.
        let found = escape(&root, &root.join("out-link/../outside")).unwrap();
        assert_eq!(found.link, root.join("out-link"));
    }
}
