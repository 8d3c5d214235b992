//! Why `cargo skillgym init` wrote nothing (or stopped): one variant per cause, with the path.

use std::io;
use std::path::PathBuf;

/// An `init` failure; printed as `error: {err}`, exit code 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InitError {
    /// A file operation failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done: `read`, `write`, `create`, `make executable`.
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A manifest that is not valid TOML.
    #[error("{}: {source}", path.display())]
    Manifest {
        path: PathBuf,
        #[source]
        source: toml_edit::TomlError,
    },
    /// A virtual workspace manifest: no package to add a target to.
    #[error(
        "{} has no [package] (a virtual workspace manifest): run `cargo skillgym init <new-dir>` to add a benchmark crate to the workspace",
        manifest.display()
    )]
    VirtualManifest { manifest: PathBuf },
    /// The crate has a `benchmarks` test target already.
    #[error("{} already has a test target named `benchmarks`", manifest.display())]
    HasBenchmarks { manifest: PathBuf },
    /// Files `init` would write exist.
    #[error("{} already has {}; `init` overwrites nothing", dir.display(), files.join(", "))]
    FilesExist {
        dir: PathBuf,
        files: Vec<&'static str>,
    },
    /// `--skillgym-path` does not hold the skillgym crates.
    #[error(
        "--skillgym-path {}: no skillgym checkout there (expected skillgym/Cargo.toml and skillgym-harness/Cargo.toml)",
        path.display()
    )]
    NotACheckout { path: PathBuf },
    /// `--name` is not a package name.
    #[error(
        "--name `{name}`: a package name starts with a letter and has only letters, digits, `-` and `_`"
    )]
    BadName { name: String },
    /// The workspace root's `members` is not an array.
    #[error("{}: `workspace.members` is not an array", manifest.display())]
    MembersNotArray { manifest: PathBuf },
}

impl InitError {
    /// A failed file operation on `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> InitError {
        let path = path.into();
        move |source| InitError::Io {
            action,
            path,
            source,
        }
    }
}
