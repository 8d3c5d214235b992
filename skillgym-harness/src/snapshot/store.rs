//! The baseline file and its `.new` file of pending values: reading, validating, and editing
//! them under a lock, atomically.
//!
//! ```json
//! {
//!   "version": 1,
//!   "entries": {
//!     "skills::find_expo::claude": {
//!       "metric": "total_tokens",
//!       "value": 1250,
//!       "agent": "claude-code",
//!       "model": "claude-sonnet-4-6",
//!       "version": "2.1.330",
//!       "updated_at": "2026-05-01T10:15:00.123Z"
//!     }
//!   }
//! }
//! ```
//!
//! Keys are `<case id>::<runner id>`, sorted; the file is pretty-printed for review and commit.
//! `version` is the agent's version the value was recorded with (absent when unknown, and in
//! files written before versions were recorded).
//! Every edit takes an exclusive `flock` on the files' directory (so nothing is left behind),
//! re-reads the file, applies the change and replaces the file through a temporary one: the
//! processes of a nextest run and the threads of a `cargo test` run merge their updates.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize, Serializer};

use crate::config::{ConfigError, SnapshotMetric};

/// The format version written and accepted.
pub const VERSION: u32 = 1;

/// One recorded figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Entry {
    /// The metric the value is of.
    pub metric: SnapshotMetric,
    /// The figure (whole numbers are written without a fraction).
    #[serde(serialize_with = "figure")]
    pub value: f64,
    /// The runner's agent type, for the reviewer.
    pub agent: String,
    /// The runner's model, for the reviewer, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The version of the runner's agent the value was recorded with, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// When the value was recorded, RFC 3339.
    pub updated_at: String,
}

impl Entry {
    /// An entry recorded now.
    pub fn new(metric: SnapshotMetric, value: f64, agent: &str, model: Option<&str>) -> Entry {
        Entry {
            metric,
            value,
            agent: agent.to_owned(),
            model: model.map(str::to_owned),
            version: None,
            updated_at: crate::time::Timestamp::from(std::time::SystemTime::now()).rfc3339(),
        }
    }

    /// With the version of the agent the value is recorded with.
    #[must_use]
    pub fn with_version(mut self, version: Option<String>) -> Entry {
        self.version = version;
        self
    }
}

/// The content of a baseline (or `.new`) file: entries by `<case>::<runner>` key.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SnapshotFile {
    /// The entries, sorted by key.
    pub entries: BTreeMap<String, Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    version: u32,
    entries: BTreeMap<String, Entry>,
}

impl SnapshotFile {
    /// Reads `path`; a missing file is an empty one. A file that is not a valid snapshots file
    /// is an error naming it (with line and column for a JSON error).
    pub fn read(path: &Path) -> Result<SnapshotFile, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => SnapshotFile::parse(path, &text),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(SnapshotFile::default()),
            Err(error) => Err(ConfigError::new(
                Some(path),
                format!("cannot read the snapshots file: {error}"),
            )),
        }
    }

    /// Parses `text`, the content of `path` (named in errors).
    pub fn parse(path: &Path, text: &str) -> Result<SnapshotFile, ConfigError> {
        let document: Document = serde_json::from_str(text).map_err(|error| {
            let message = error.to_string();
            // serde_json ends its message with " at line L column C": the position goes in front.
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(head, _)| head);
            ConfigError::at(
                path,
                text,
                error.line() as u32,
                error.column() as u32,
                format!("invalid snapshots file: {message}"),
            )
            .with_help(format!(
                "the file is {{\"version\": {VERSION}, \"entries\": {{\"<case>::<runner>\": {{\"metric\", \"value\", \"agent\", \"model\", \"version\", \"updated_at\"}}}}}}; fix it, or delete it to record new baselines"
            ))
        })?;
        if document.version != VERSION {
            return Err(ConfigError::new(
                Some(path),
                format!(
                    "unsupported snapshots file version {}: this skillgym reads version {VERSION}",
                    document.version
                ),
            ));
        }
        if let Some((key, entry)) = document
            .entries
            .iter()
            .find(|(_, entry)| !(entry.value.is_finite() && entry.value >= 0.0))
        {
            return Err(ConfigError::new(
                Some(path),
                format!(
                    "invalid snapshots file: the value of `{key}` must be a number >= 0, found {}",
                    entry.value
                ),
            ));
        }
        Ok(SnapshotFile {
            entries: document.entries,
        })
    }

    /// Writes the file atomically (a temporary file, then a rename), pretty-printed, keys
    /// sorted, ending with a newline.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        crate::artifacts::write_pretty_json(
            path,
            &Document {
                version: VERSION,
                entries: self.entries.clone(),
            },
        )
    }
}

/// The `.new` file of pending values beside the baseline `path`: `<path>.new`.
pub fn pending_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".new");
    PathBuf::from(name)
}

/// An exclusive lock on the directory of a baseline file and its `.new` file, held until it is
/// dropped. Edits made through it are merged with those of other threads and processes.
#[derive(Debug)]
pub struct Locked {
    path: PathBuf,
    _lock: File,
}

impl Locked {
    /// Waits for the lock of `path`'s directory (created when missing).
    pub fn new(path: &Path) -> io::Result<Locked> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir)?;
        let lock = crate::schedule::lock_directory(&dir)?;
        Ok(Locked {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    /// The baseline file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Applies `edit` to the baseline file and writes it when it changed.
    pub fn edit_baseline(&self, edit: impl FnOnce(&mut SnapshotFile)) -> Result<(), EditError> {
        edit_file(&self.path, false, edit)
    }

    /// Applies `edit` to the `.new` file and writes it when it changed; an empty one is
    /// removed.
    pub fn edit_pending(&self, edit: impl FnOnce(&mut SnapshotFile)) -> Result<(), EditError> {
        edit_file(&pending_path(&self.path), true, edit)
    }
}

/// Why a snapshots file could not be edited: it is invalid, or it cannot be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The file on disk is not a valid snapshots file.
    #[error(transparent)]
    Invalid(#[from] ConfigError),
    /// It cannot be written or removed.
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

fn edit_file(
    path: &Path,
    remove_empty: bool,
    edit: impl FnOnce(&mut SnapshotFile),
) -> Result<(), EditError> {
    let before = SnapshotFile::read(path)?;
    let mut after = before.clone();
    edit(&mut after);
    if after == before {
        return Ok(());
    }
    let io = |source| EditError::Io {
        path: path.to_path_buf(),
        source,
    };
    if remove_empty && after.entries.is_empty() {
        return match std::fs::remove_file(path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(io(error)),
            _ => Ok(()),
        };
    }
    after.write(path).map_err(io)
}

/// Serializes a figure as an integer when it is a whole number (token counts, milliseconds).
fn figure<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && *value >= 0.0 && *value < u64::MAX as f64 {
        serializer.serialize_u64(*value as u64)
    } else {
        serializer.serialize_f64(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(value: f64) -> Entry {
        Entry {
            metric: SnapshotMetric::TotalTokens,
            value,
            agent: "command".into(),
            model: None,
            version: None,
            updated_at: "2026-01-02T03:04:05.000Z".into(),
        }
    }

    #[test]
    fn a_missing_file_is_empty_and_a_written_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/skillgym.snapshots.json");
        assert_eq!(SnapshotFile::read(&path).unwrap(), SnapshotFile::default());
        let mut file = SnapshotFile::default();
        file.entries.insert("b::r".into(), entry(1250.0));
        file.entries.insert("a::r".into(), entry(0.25));
        file.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            r#"{
  "version": 1,
  "entries": {
    "a::r": {
      "metric": "total_tokens",
      "value": 0.25,
      "agent": "command",
      "updated_at": "2026-01-02T03:04:05.000Z"
    },
    "b::r": {
      "metric": "total_tokens",
      "value": 1250,
      "agent": "command",
      "updated_at": "2026-01-02T03:04:05.000Z"
    }
  }
}
"#,
            "sorted keys, whole numbers without a fraction, no model when there is none"
        );
        assert_eq!(SnapshotFile::read(&path).unwrap(), file);
    }

    #[test]
    fn invalid_files_are_errors_naming_the_file_and_position() {
        let path = Path::new("/p/skillgym.snapshots.json");
        let err =
            SnapshotFile::parse(path, "{\n  \"version\": 1,\n  \"entries\": {,}\n}").unwrap_err();
        assert_eq!(err.location(), Some((path.to_path_buf(), 3, 15)));
        assert_eq!(
            err.message(),
            "invalid snapshots file: key must be a string"
        );
        let err =
            SnapshotFile::parse(path, r#"{"version": 1, "entries": {}, "extra": 1}"#).unwrap_err();
        assert!(
            err.message()
                .starts_with("invalid snapshots file: unknown field `extra`"),
            "{err}"
        );
        let err = SnapshotFile::parse(
            path,
            r#"{"version": 1, "entries": {"a::r": {"metric": "tokens", "value": 1, "agent": "x", "updated_at": "t"}}}"#,
        )
        .unwrap_err();
        assert!(
            err.message()
                .starts_with("invalid snapshots file: unknown variant `tokens`"),
            "{err}"
        );
        let err = SnapshotFile::parse(path, r#"{"version": 2, "entries": {}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/p/skillgym.snapshots.json: unsupported snapshots file version 2: this skillgym reads version 1"
        );
        let err = SnapshotFile::parse(
            path,
            r#"{"version": 1, "entries": {"a::r": {"metric": "cost", "value": -1, "agent": "x", "updated_at": "t"}}}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.message(),
            "invalid snapshots file: the value of `a::r` must be a number >= 0, found -1"
        );
    }

    #[test]
    fn edits_merge_with_what_is_on_disk_and_an_empty_pending_file_goes_away() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillgym.snapshots.json");
        let pending = pending_path(&path);
        assert_eq!(pending, dir.path().join("skillgym.snapshots.json.new"));
        let locked = Locked::new(&path).unwrap();
        locked
            .edit_pending(|file| {
                file.entries.insert("a::r".into(), entry(1.0));
            })
            .unwrap();
        // Another process wrote meanwhile: the next edit keeps its entry.
        let mut other = SnapshotFile::read(&pending).unwrap();
        other.entries.insert("b::r".into(), entry(2.0));
        other.write(&pending).unwrap();
        locked
            .edit_pending(|file| {
                file.entries.insert("c::r".into(), entry(3.0));
            })
            .unwrap();
        let keys: Vec<String> = SnapshotFile::read(&pending)
            .unwrap()
            .entries
            .into_keys()
            .collect();
        assert_eq!(keys, ["a::r", "b::r", "c::r"]);
        locked.edit_pending(|file| file.entries.clear()).unwrap();
        assert!(!pending.exists(), "an empty .new file is removed");
        // An edit that changes nothing writes nothing.
        locked.edit_baseline(|_| {}).unwrap();
        assert!(!path.exists());
        drop(locked);
    }

    #[test]
    fn the_lock_serializes_editors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::thread::scope(|scope| {
            for thread in 0..8 {
                let path = &path;
                scope.spawn(move || {
                    for round in 0..5 {
                        Locked::new(path)
                            .unwrap()
                            .edit_baseline(|file| {
                                file.entries
                                    .insert(format!("{thread}-{round}::r"), entry(1.0));
                            })
                            .unwrap();
                    }
                });
            }
        });
        assert_eq!(SnapshotFile::read(&path).unwrap().entries.len(), 40);
    }
}
