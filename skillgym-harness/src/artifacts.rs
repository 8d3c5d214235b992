//! The run directory: run ids, the per-attempt layout, the `latest` pointer, and JSON files.
//!
//! ```text
//! <output_dir>/<run-id>/results.json
//! <output_dir>/<run-id>/<case>/<runner>/result.json
//! <output_dir>/<run-id>/<case>/<runner>/repeat-N/attempt-M/{prompt.md, stdout.log, stderr.log, report.json, result.json, workspace.json}
//! <output_dir>/<run-id>/workspaces/{shared, shared-setup, <case>/<runner>/repeat-N/attempt-M}
//! <output_dir>/<run-id>/.locks/    (schedule gates of process-per-test runs)
//! <output_dir>/latest -> <run-id>
//! ```

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::time::Timestamp;

/// The directory of one run, shared by every trial of it (and by every process under nextest).
#[derive(Debug, Clone)]
pub struct RunDir {
    output_dir: PathBuf,
    run_id: String,
}

impl RunDir {
    /// The run directory `<output_dir>/<run_id>`. Nothing is created until something is written.
    pub fn new(output_dir: impl Into<PathBuf>, run_id: impl Into<String>) -> Self {
        RunDir {
            output_dir: output_dir.into(),
            run_id: sanitize(&run_id.into()),
        }
    }

    /// The run id: `SKILLGYM_RUN_ID`, else nextest's `NEXTEST_RUN_ID` (shared by all the
    /// processes of one nextest run), else a fresh UTC timestamp with the process id.
    pub fn run_id_from_env(lookup: impl Fn(&str) -> Option<String>) -> String {
        let explicit = ["SKILLGYM_RUN_ID", "NEXTEST_RUN_ID"]
            .into_iter()
            .filter_map(&lookup)
            .find(|id| !id.trim().is_empty());
        explicit.unwrap_or_else(|| {
            let now = SystemTime::now();
            let millis = now
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_millis());
            format!(
                "{}-{millis:03}-{:x}",
                Timestamp::from(now).compact(),
                std::process::id()
            )
        })
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// `<output_dir>/<run_id>`.
    pub fn path(&self) -> PathBuf {
        self.output_dir.join(&self.run_id)
    }

    /// The directory of one execution: `<run>/<case>/<runner>`.
    pub fn execution_dir(&self, case_id: &str, runner_id: &str) -> PathBuf {
        self.path()
            .join(sanitize(case_id))
            .join(sanitize(runner_id))
    }

    /// The directory of one attempt: `<run>/<case>/<runner>/repeat-N/attempt-M`.
    pub fn attempt_dir(
        &self,
        case_id: &str,
        runner_id: &str,
        repetition: u32,
        attempt: u32,
    ) -> PathBuf {
        self.execution_dir(case_id, runner_id)
            .join(format!("repeat-{repetition}"))
            .join(format!("attempt-{attempt}"))
    }

    /// Points `<output_dir>/latest` at this run (a relative symlink, replaced atomically).
    pub fn mark_latest(&self) -> io::Result<()> {
        fs::create_dir_all(&self.output_dir)?;
        let latest = self.output_dir.join("latest");
        let temporary = self
            .output_dir
            .join(format!(".latest-{}", std::process::id()));
        let _ = fs::remove_file(&temporary);
        std::os::unix::fs::symlink(&self.run_id, &temporary)?;
        fs::rename(&temporary, &latest)
    }
}

/// Turns an id into one safe path segment: `::` becomes `.`, every other character outside
/// `[A-Za-z0-9._-]` becomes `-`, and empty or dot-only names are prefixed with `_`, so no id can
/// leave the run directory (`skills::find_expo` -> `skills.find_expo`, `../x` -> `..-x`).
pub fn sanitize(id: &str) -> String {
    let joined = id.replace("::", ".");
    let mut out: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        out = format!("_{out}");
    }
    out
}

/// Writes pretty JSON to `path`, creating its directory, through a temporary file so readers
/// never see half a file.
pub fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    let temporary = path.with_extension(format!("json.tmp-{}", std::process::id()));
    fs::write(&temporary, bytes)?;
    fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_single_safe_segments() {
        assert_eq!(sanitize("skills::find_expo"), "skills.find_expo");
        assert_eq!(sanitize("../../etc/passwd"), "..-..-etc-passwd");
        assert_eq!(sanitize(".."), "_..");
        assert_eq!(sanitize("."), "_.");
        assert_eq!(sanitize(""), "_");
        assert_eq!(sanitize("a b/c\\d\u{e9}"), "a-b-c-d-");
        assert_eq!(sanitize("fix-null-check_2.v1"), "fix-null-check_2.v1");
    }

    #[test]
    fn layout_stays_inside_the_run_directory() {
        let run = RunDir::new("/out", "../run");
        assert_eq!(run.path(), Path::new("/out/..-run"));
        assert_eq!(
            run.attempt_dir("../../x", "a/b", 2, 3),
            Path::new("/out/..-run/..-..-x/a-b/repeat-2/attempt-3")
        );
    }

    #[test]
    fn run_id_prefers_explicit_then_nextest_then_a_timestamp() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            RunDir::run_id_from_env(env(&[("SKILLGYM_RUN_ID", "mine"), ("NEXTEST_RUN_ID", "n")])),
            "mine"
        );
        assert_eq!(
            RunDir::run_id_from_env(env(&[("NEXTEST_RUN_ID", "n")])),
            "n"
        );
        let generated = RunDir::run_id_from_env(env(&[("SKILLGYM_RUN_ID", " ")]));
        assert!(
            generated.starts_with("20") && generated.contains('T'),
            "{generated}"
        );
    }

    #[test]
    fn latest_points_at_the_newest_run() {
        let dir = std::env::temp_dir().join(format!("skillgym-latest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        RunDir::new(&dir, "first").mark_latest().unwrap();
        RunDir::new(&dir, "second").mark_latest().unwrap();
        assert_eq!(
            fs::read_link(dir.join("latest")).unwrap(),
            Path::new("second")
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
