//! Workspaces named by files anyone could have edited: a recorded attempt's `workspace.json`
//! (replay runs its code graders there) and an attempt's `explain.json` (explain resumes the
//! agent there). Before skillgym runs anything in such a directory, it must be one skillgym
//! made or was told to use.
//!
//! | accepted | because |
//! |---|---|
//! | inside a run's workspace root (a directory holding the regular file [`MARKER`]), once symlinks are resolved | isolated (`<root>/<case>+<runner>+…`) and shared (`<root>/shared`) workspaces live there ([`crate::workspace::root`]); a file edited elsewhere cannot put a marker on this machine |
//! | inside `<run>/workspaces/`, for a run directory `<run>` (one holding `run.json`), once symlinks are resolved | where runs of skillgym before the workspace root kept their workspaces |
//! | the working directory of workspace mode `none` of today's configuration | the configuration names it |
//!
//! A directory that does not exist is not refused here: nothing can run in it, and the caller
//! says it is gone.

use std::path::{Path, PathBuf};

use crate::config::WorkspaceMode;
use crate::run_record::RUN_FILE;
use crate::settings::Settings;
use crate::workspace::root::MARKER;

/// The working directory of workspace mode `none`, when that is the configured mode.
pub(crate) fn configured_dir(settings: &Settings) -> Option<&Path> {
    (settings.workspace.mode == WorkspaceMode::None).then_some(settings.cwd.as_path())
}

/// Why nothing may run in `cwd`, read from `file`, if nothing may: `own` is the working
/// directory of workspace mode `none`, when that is the configured mode.
pub(crate) fn check(cwd: &Path, file: &Path, own: Option<&Path>) -> Result<(), NotMadeHere> {
    let Ok(real) = std::fs::canonicalize(cwd) else {
        return Ok(());
    };
    if own.is_some_and(|own| std::fs::canonicalize(own).is_ok_and(|own| own == real)) {
        return Ok(());
    }
    let in_root = real
        .ancestors()
        .skip(1)
        .any(|root| std::fs::symlink_metadata(root.join(MARKER)).is_ok_and(|meta| meta.is_file()));
    let in_run = real.ancestors().skip(1).any(|run| {
        let workspaces = run.join("workspaces");
        real != workspaces && real.starts_with(&workspaces) && run.join(RUN_FILE).is_file()
    });
    if in_root || in_run {
        return Ok(());
    }
    Err(NotMadeHere {
        file: file.to_path_buf(),
        cwd: cwd.to_path_buf(),
        configured: own.is_some(),
    })
}

/// A recorded workspace skillgym refuses to run anything in: `file` names `cwd`, which is none
/// of the accepted directories (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} names the workspace `{}`, which is not one skillgym made (inside a run's workspace root, one holding `{MARKER}`){}: skillgym runs nothing there",
    file.display(),
    crate::terminal_text::escape_path(cwd),
    if *configured { " nor the configured working directory" } else { "" }
)]
pub(crate) struct NotMadeHere {
    /// The file naming the workspace (`workspace.json`, `explain.json`).
    pub(crate) file: PathBuf,
    /// The workspace it names.
    pub(crate) cwd: PathBuf,
    /// Whether a working directory of workspace mode `none` is configured (and is not it).
    pub(crate) configured: bool,
}

#[cfg(all(test, unix))]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn only_workspaces_of_a_run_root_and_the_configured_directory_pass() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("skillgym-0/r1-42");
        let attempt = root.join("case+fake+repeat-1+attempt-1");
        let shared = root.join("shared");
        let home = t.path().join("home");
        for dir in [&attempt, &shared, &home] {
            fs::create_dir_all(dir).unwrap();
        }
        fs::write(root.join(MARKER), "{}").unwrap();
        let file = Path::new("workspace.json");
        assert_eq!(check(&attempt, file, None), Ok(()));
        assert_eq!(check(&shared, file, None), Ok(()));
        assert_eq!(check(&home, file, Some(&home)), Ok(()));
        // Gone: the caller says so.
        assert_eq!(check(&t.path().join("gone"), file, None), Ok(()));

        let refused = check(&home, file, None).unwrap_err().to_string();
        assert_eq!(
            refused,
            format!(
                "workspace.json names the workspace `{}`, which is not one skillgym made (inside a run's workspace root, one holding `{MARKER}`): skillgym runs nothing there",
                home.display()
            )
        );
        assert!(check(&home, file, Some(&attempt)).is_err());
        // The root itself, a link out of it, a marker that is no regular file.
        assert!(check(&root, file, None).is_err());
        std::os::unix::fs::symlink(&home, root.join("out")).unwrap();
        assert!(check(&root.join("out"), file, None).is_err());
        fs::remove_file(root.join(MARKER)).unwrap();
        fs::create_dir(root.join(MARKER)).unwrap();
        assert!(check(&attempt, file, None).is_err());
    }

    #[test]
    fn workspaces_of_runs_made_before_the_root_pass() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("runs/r1");
        let attempt = run.join("workspaces/case/fake/repeat-1/attempt-1");
        let shared = run.join("workspaces/shared");
        let home = t.path().join("home");
        for dir in [&attempt, &shared, &home] {
            fs::create_dir_all(dir).unwrap();
        }
        fs::write(run.join(RUN_FILE), "{}").unwrap();
        let file = Path::new("workspace.json");
        assert_eq!(check(&attempt, file, None), Ok(()));
        assert_eq!(check(&shared, file, None), Ok(()));
        assert!(check(&home, file, Some(&attempt)).is_err());
        // The run directory itself, its `workspaces/`, a link out of it, a run without run.json.
        assert!(check(&run, file, None).is_err());
        assert!(check(&run.join("workspaces"), file, None).is_err());
        std::os::unix::fs::symlink(&home, run.join("workspaces/out")).unwrap();
        assert!(check(&run.join("workspaces/out"), file, None).is_err());
        fs::remove_file(run.join(RUN_FILE)).unwrap();
        assert!(check(&attempt, file, None).is_err());
    }
}
