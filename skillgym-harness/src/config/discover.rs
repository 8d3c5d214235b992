//! Finding and reading `skillgym.yaml`.

use std::path::{Path, PathBuf};

use super::{Config, ConfigError};

/// The file names looked for in each directory, in order of preference.
pub const FILE_NAMES: [&str; 2] = ["skillgym.yaml", "skillgym.yml"];

/// Walks upward from `start_dir` (inclusive) to the filesystem root and returns the first
/// `skillgym.yaml` or `skillgym.yml` found (`.yaml` first), or `None` when there is none.
///
/// A directory holding both names is reported by [`load`] (and by [`discover_checked`]).
pub fn discover(start_dir: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(start_dir).unwrap_or_else(|_| start_dir.to_path_buf());
    start.ancestors().find_map(|dir| {
        FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.is_file())
    })
}

/// Like [`discover`], but a directory holding both `skillgym.yaml` and `skillgym.yml` is an
/// error listing both files.
pub fn discover_checked(start_dir: &Path) -> Result<Option<PathBuf>, ConfigError> {
    match discover(start_dir) {
        Some(path) => check_single(&path).map(|()| Some(path)),
        None => Ok(None),
    }
}

/// Errors when `path` is one of [`FILE_NAMES`] and its directory also holds the other one.
fn check_single(path: &Path) -> Result<(), ConfigError> {
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    let found: Vec<PathBuf> = FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .filter(|candidate| candidate.is_file())
        .collect();
    let is_candidate = FILE_NAMES
        .iter()
        .any(|name| path.file_name() == Some(name.as_ref()));
    match found.as_slice() {
        [first, second, ..] if is_candidate => Err(ConfigError::new(
            None,
            format!(
                "found two config files, {} and {}",
                first.display(),
                second.display()
            ),
        )
        .with_help("keep only one of them")),
        _ => Ok(()),
    }
}

/// Reads and parses the config file at `path` (made absolute against the process cwd), resolving
/// its relative paths against the file's directory.
///
/// A `skillgym.yaml` next to a `skillgym.yml` is an error: which one is meant is ambiguous.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    check_single(&path)?;
    let text = std::fs::read_to_string(&path).map_err(|err| {
        let what = match err.kind() {
            std::io::ErrorKind::NotFound => "config file not found".to_owned(),
            _ => format!("cannot read config file: {err}"),
        };
        ConfigError::new(Some(&path), what)
    })?;
    Config::parse(&path, &text)
}

/// Finds and loads the config for a run: `explicit` (a `--config`/`SKILLGYM_CONFIG` path,
/// relative to `process_cwd`) when given, else [`discover`] from `start_dir`, else
/// [`Config::default_for`]`(start_dir)`.
pub fn load_for_run(
    explicit: Option<&Path>,
    start_dir: &Path,
    process_cwd: &Path,
) -> Result<Config, ConfigError> {
    match explicit {
        Some(path) => load(&super::schema::resolve_path(process_cwd, path)),
        None => match discover_checked(start_dir)? {
            Some(path) => load(&path),
            None => Ok(Config::default_for(
                &std::path::absolute(start_dir).unwrap_or_else(|_| start_dir.to_path_buf()),
            )),
        },
    }
}
