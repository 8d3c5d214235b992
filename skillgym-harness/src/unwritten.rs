//! Files of the run that could not be written (a full disk, a read-only directory): nothing is
//! lost silently, and nothing floods the console.
//!
//! | what | how |
//! |---|---|
//! | a file is not written | its writer calls [`note`] with the path and the OS error (once per path) |
//! | stderr | the first [`NAMED`] files, one line each (`skillgym: cannot write <path>: <error>`), then one line saying the rest are counted; a file of the run itself (`results.json`) is always named ([`note_named`]) |
//! | the attempt | [`failure_under`] its directory: origin `artifacts`, class `disk-full` when the disk or a quota is full (else `artifacts`), the files listed; the attempt fails |
//! | the run | [`tally`]: how many files were lost, for its closing line and its exit code (101) |
//!
//! The list lives for the process: one run, or one trial under nextest's process per test.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use skillgym::{Failure, FailureClass, FailureOrigin};

/// How many unwritten files are named on stderr as they happen.
const NAMED: usize = 5;

/// How many files an attempt's failure lists.
const LISTED: usize = 5;

/// One file that could not be written.
#[derive(Debug, Clone)]
struct Unwritten {
    path: PathBuf,
    /// The disk (or the user's quota) is full.
    full: bool,
    /// The OS error.
    error: String,
    /// Whether stderr named it.
    named: bool,
}

/// What was noted so far.
#[derive(Debug)]
struct Noted {
    /// Every file, in order.
    files: Vec<Unwritten>,
    /// Whether stderr said that the files after the first [`NAMED`] are only counted.
    said_more: bool,
}

static NOTED: Mutex<Noted> = Mutex::new(Noted {
    files: Vec::new(),
    said_more: false,
});

fn noted() -> std::sync::MutexGuard<'static, Noted> {
    NOTED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `error` says the disk (or a quota) is full.
pub(crate) fn is_disk_full(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

/// Notes that `path` could not be written: the first [`NAMED`] files are named on stderr, the
/// others counted for the end of the run. A path noted again is ignored.
pub(crate) fn note(path: &Path, error: &io::Error) {
    record(path, error, false);
}

/// [`note`], naming the file on stderr however many were named before: a file of the run
/// itself, which no attempt's failure names.
pub(crate) fn note_named(path: &Path, error: &io::Error) {
    record(path, error, true);
}

fn record(path: &Path, error: &io::Error, always: bool) {
    let mut noted = noted();
    if noted.files.iter().any(|file| file.path == path) {
        return;
    }
    let named = always || noted.files.iter().filter(|file| file.named).count() < NAMED;
    let say_more = !named && !noted.said_more;
    noted.said_more |= say_more;
    noted.files.push(Unwritten {
        path: path.to_path_buf(),
        full: is_disk_full(error),
        error: error.to_string(),
        named,
    });
    drop(noted);
    let line = if named {
        format!("skillgym: cannot write {}: {error}", path.display())
    } else if say_more {
        format!(
            "skillgym: more files cannot be written ({error}); they are counted at the end of the run, and each attempt's failure names its own"
        )
    } else {
        return;
    };
    eprintln!("{}", crate::terminal_text::masked(&line));
}

/// The failure of an attempt some of whose files, under `dir`, could not be written: origin
/// `artifacts`, class `disk-full` when the disk is full. `None` when every file was written.
pub(crate) fn failure_under(dir: &Path) -> Option<Failure> {
    let files: Vec<Unwritten> = noted()
        .files
        .iter()
        .filter(|file| file.path.starts_with(dir))
        .cloned()
        .collect();
    let first = files.first()?;
    let full = files.iter().any(|file| file.full);
    let mut message = String::from(if full { "the disk is full: " } else { "" });
    message.push_str(&format!(
        "cannot write {}: {}",
        first.path.display(),
        first.error
    ));
    for file in files.iter().skip(1).take(LISTED - 1) {
        message.push_str(&format!("\n  not written either: {}", file.path.display()));
    }
    if files.len() > LISTED {
        message.push_str(&format!(
            "\n  and {} more files of this attempt",
            files.len() - LISTED
        ));
    }
    message.push_str("\n  what they were to keep is lost, so the attempt cannot pass");
    let failure = Failure::new(FailureOrigin::Artifacts, message);
    Some(match full {
        true => failure.with_class(FailureClass::new("disk-full", "Disk full")),
        false => failure,
    })
}

/// How many files of the run could not be written, and whether the disk was full.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Files not written.
    pub(crate) files: usize,
    /// Files among them not named on stderr.
    pub(crate) unnamed: usize,
    /// Whether one of them met a full disk.
    pub(crate) disk_full: bool,
}

/// The files noted so far.
pub(crate) fn tally() -> Tally {
    let noted = noted();
    Tally {
        files: noted.files.len(),
        unnamed: noted.files.iter().filter(|file| !file.named).count(),
        disk_full: noted.files.iter().any(|file| file.full),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> io::Error {
        io::Error::from(io::ErrorKind::StorageFull)
    }

    #[test]
    fn an_attempt_fails_with_the_files_under_its_directory_only() {
        let base = Path::new("/unwritten-test/run/case/runner/repeat-1");
        let attempt = base.join("attempt-1");
        let other = base.join("attempt-10");
        note(&attempt.join("stdout.log"), &full());
        note(&attempt.join("stdout.log"), &full());
        note(&attempt.join("report.json"), &full());
        note(
            &other.join("result.json"),
            &io::Error::from(io::ErrorKind::PermissionDenied),
        );

        let failure = failure_under(&attempt).expect("two files were lost");
        assert_eq!(failure.origin, FailureOrigin::Artifacts);
        assert_eq!(failure.class.id, "disk-full");
        let first = format!(
            "the disk is full: cannot write {}: {}",
            attempt.join("stdout.log").display(),
            full()
        );
        assert!(failure.message.starts_with(&first), "{}", failure.message);
        assert_eq!(
            failure.message.matches("stdout.log").count(),
            1,
            "once per path: {}",
            failure.message
        );
        assert!(
            failure.message.contains("report.json"),
            "{}",
            failure.message
        );
        assert!(
            !failure.message.contains("attempt-10"),
            "{}",
            failure.message
        );

        let denied = failure_under(&other).expect("one file was lost");
        assert_eq!(denied.class.id, "artifacts", "not a full disk");
        assert!(failure_under(&base.join("attempt-2")).is_none());
        assert!(tally().files >= 3);
    }

    #[test]
    fn a_long_list_is_cut() {
        let attempt = Path::new("/unwritten-test/many/attempt-1");
        for n in 0..9 {
            note(&attempt.join(format!("file-{n}")), &full());
        }
        let message = failure_under(attempt).unwrap().message;
        assert_eq!(message.matches("not written either").count(), LISTED - 1);
        assert!(message.contains("and 4 more files"), "{message}");
    }
}
