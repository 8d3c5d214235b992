//! The files a run directory holds, read back by `cargo skillgym report`, `explain` and
//! `review`, on arbitrary content. The first byte picks the file; the rest is its content
//! (NUL-separated when there are several), with `$RUN` replaced by the run directory.
//!
//! | first byte % 4 | files (in `run/`) | read by |
//! |---|---|---|
//! | 0 | `a/r/result.json`, `results.json`, `a/r/repeat-1/attempt-1/report.json`, `b/r/result.json` | [`RunReport::load`], then every reporter ([`super::reporters`]) |
//! | 1 | `run.json` | [`RunRecord::read`], [`run_dir_of`] |
//! | 2 | `a/r/repeat-1/attempt-1/` `explain.json`, `explanations.json`, `result.json` | `explain`'s attempt search and its two files, written back and read again |
//! | 3 | `skillgym.snapshots.json` | [`SnapshotFile::parse`], written back and read again; [`show`] and [`delta`] of its figures |

use std::path::Path;

use super::{reporters, scratch};
use crate::explain::locate::attempts;
use crate::report::RunReport;
use crate::results::explain::{self as record, ExplainRequest, Explanations};
use crate::run_record::{RunRecord, run_dir_of};
use crate::snapshot::{SnapshotFile, delta, show};

/// Writes the files `bytes` make into a run directory (see the module) and reads them as
/// skillgym does; checks that what reads back is what was written, and the reporters' output.
/// For fuzz targets; not a stable API.
pub fn result_files(bytes: &[u8]) {
    let Some((&kind, rest)) = bytes.split_first() else {
        return;
    };
    let dir = scratch::fresh("result-files");
    let run = dir.join("run");
    let with_run = rest_with_run(rest, &run);
    match kind % 4 {
        0 => report(&run, &with_run),
        1 => run_record(&run, &with_run),
        2 => explain(&run, &with_run),
        _ => snapshots(&dir, &with_run),
    }
}

/// `bytes` with every `$RUN` replaced by the run directory (so that `artifact_dir`s point into
/// it).
fn rest_with_run(bytes: &[u8], run: &Path) -> Vec<u8> {
    let run = run.to_string_lossy();
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(4).position(|window| window == b"$RUN") {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(run.as_bytes());
        rest = &rest[at + 4..];
    }
    out.extend_from_slice(rest);
    out
}

fn report(run: &Path, bytes: &[u8]) {
    let files = scratch::files(bytes, 4);
    let names = [
        "a/r/result.json",
        "results.json",
        "a/r/repeat-1/attempt-1/report.json",
        "b/r/result.json",
    ];
    for (name, file) in names.iter().zip(&files) {
        scratch::write_some(&run.join(name), *file);
    }
    std::fs::create_dir_all(run).expect("the run directory");
    match RunReport::load(&[run.to_path_buf()]) {
        Ok(report) => {
            assert!(!report.executions.is_empty(), "a report of nothing");
            reporters::check(&report);
        }
        Err(error) => assert!(!error.to_string().is_empty(), "an empty load error"),
    }
}

fn run_record(run: &Path, bytes: &[u8]) {
    scratch::write(&run.join("run.json"), bytes);
    std::fs::create_dir_all(run.join("a/r")).expect("an execution directory");
    assert_eq!(
        run_dir_of(&run.join("a/r")).as_deref(),
        Some(run),
        "the run of a/r"
    );
    match RunRecord::read(run) {
        Ok(record) => {
            let _ = record.test_target();
            let text = serde_json::to_string(&record).expect("the record serializes");
            let again: RunRecord = serde_json::from_str(&text).expect("the record reads back");
            assert_eq!(again, record, "run.json changed on a round trip");
        }
        Err(error) => assert!(
            error.to_string().contains("run.json"),
            "an error not naming run.json"
        ),
    }
}

fn explain(run: &Path, bytes: &[u8]) {
    let attempt = run.join("a/r/repeat-1/attempt-1");
    let files = scratch::files(bytes, 3);
    let names = [record::REQUEST_FILE, record::ANSWERS_FILE, "result.json"];
    for (name, file) in names.iter().zip(&files) {
        scratch::write_some(&attempt.join(name), *file);
    }
    std::fs::create_dir_all(&attempt).expect("the attempt directory");
    match attempts(run) {
        Ok(found) => assert_eq!(found, std::slice::from_ref(&attempt), "the only attempt"),
        Err(error) => assert!(!error.to_string().is_empty()),
    }
    let _ = record::decide(&attempt, false);
    if let Ok(request) = ExplainRequest::read(&attempt) {
        let text = serde_json::to_string(&request).expect("the request serializes");
        let again: ExplainRequest = serde_json::from_str(&text).expect("the request reads back");
        assert_eq!(again, request, "explain.json changed on a round trip");
    }
    match Explanations::read(&attempt) {
        Ok(explanations) => {
            let copy = run.join("copy");
            explanations.write(&copy).expect("the answers are written");
            let again = Explanations::read(&copy).expect("the answers read back");
            assert_eq!(
                again, explanations,
                "explanations.json changed on a round trip"
            );
        }
        Err(error) => assert!(error.to_string().contains(record::ANSWERS_FILE)),
    }
}

fn snapshots(dir: &Path, bytes: &[u8]) {
    let path = dir.join("skillgym.snapshots.json");
    scratch::write(&path, bytes);
    let file = match SnapshotFile::read(&path) {
        Ok(file) => file,
        Err(error) => {
            assert_eq!(
                error.path(),
                Some(path.as_path()),
                "the error names the file"
            );
            return;
        }
    };
    let copy = dir.join("copy.json");
    file.write(&copy).expect("the snapshots are written");
    let again = SnapshotFile::read(&copy).expect("the snapshots read back");
    assert_eq!(again, file, "the snapshots changed on a round trip");
    let values: Vec<f64> = file.entries.values().map(|entry| entry.value).collect();
    for (entry, other) in file.entries.values().zip(values.iter().cycle().skip(1)) {
        assert!(!show(entry.metric, entry.value).is_empty());
        assert!(!delta(entry.metric, entry.value, *other).is_empty());
    }
}
