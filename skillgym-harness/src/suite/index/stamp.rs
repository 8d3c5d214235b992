//! A file's or directory's stamp: what changes when it is edited, replaced, grown or removed.

use std::path::Path;
use std::time::SystemTime;

/// Modification and change times, size and inode, as `stat` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) mtime: (i64, i64),
    pub(super) ctime: (i64, i64),
    pub(super) size: u64,
    pub(super) ino: u64,
}

impl Stamp {
    /// The stamp of `path` (followed through symlinks); `None` when it is missing.
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt as _;
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            size: meta.size(),
            ino: meta.ino(),
        })
    }

    /// Whether the file may have been written while, or after, a load that began at `started`
    /// (a file time of the same clock): its stamp then proves nothing about what was read.
    pub(super) fn racy(&self, started: (i64, i64)) -> bool {
        self.mtime >= started || self.ctime >= started
    }

    /// `mtime_s.ns:ctime_s.ns:size:ino`.
    pub(super) fn encode(&self) -> String {
        format!(
            "{}.{}:{}.{}:{}:{}",
            self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1, self.size, self.ino
        )
    }
}

/// A file time as `(seconds, nanoseconds)` since the epoch (negative before it).
pub(super) fn file_time(time: SystemTime) -> (i64, i64) {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => (
            i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            i64::from(after.subsec_nanos()),
        ),
        Err(before) => (
            -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
            0,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_survives_its_text_and_changes_with_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("case.yaml");
        std::fs::write(&file, "input: a\n").expect("write");
        let before = Stamp::of(&file).expect("stamp");
        assert_eq!(Stamp::of(&file).map(|s| s.encode()), Some(before.encode()));
        std::fs::write(&file, "input: ab\n").expect("rewrite");
        assert_ne!(Stamp::of(&file), Some(before), "the size changed");
        std::fs::remove_file(&file).expect("remove");
        assert_eq!(Stamp::of(&file), None);
    }

    #[test]
    fn a_file_written_at_or_after_the_start_is_racy() {
        let stamp = Stamp {
            mtime: (100, 5),
            ctime: (100, 5),
            size: 1,
            ino: 1,
        };
        assert!(stamp.racy((100, 5)));
        assert!(stamp.racy((99, 0)));
        assert!(!stamp.racy((100, 6)));
    }
}
