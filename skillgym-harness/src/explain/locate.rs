//! Which attempts `explain DIR` asks about: DIR itself when it holds `explain.json`, else every
//! failed attempt below it (an execution directory, a run directory) that holds one, in path
//! order. The run directory a DIR belongs to is [`run_dir_of`](crate::run_record::run_dir_of).

use std::path::{Path, PathBuf};

use super::ExplainError;
use crate::artifacts::is_layout_name;
use crate::results::explain::REQUEST_FILE;

/// How deep below DIR attempts are looked for (`<case>/<runner>/repeat-N/attempt-M` is 4).
const MAX_DEPTH: usize = 6;

/// The attempt directories to explain, in order. An error when DIR is not a directory, or
/// when no failed attempt below it recorded questions.
pub(crate) fn attempts(dir: &Path) -> Result<Vec<PathBuf>, ExplainError> {
    if !dir.is_dir() {
        return Err(ExplainError::new(format!(
            "{} is not a directory: give an attempt directory (`<run>/<case>/<runner>/repeat-N/attempt-M`), an execution directory or a run directory",
            dir.display()
        )));
    }
    if dir.join(REQUEST_FILE).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut found = Vec::new();
    collect(dir, 0, &mut found);
    found.sort_by_key(|path| natural_key(path));
    if found.is_empty() {
        return Err(ExplainError::new(format!(
            "no failed attempt below {} recorded questions (no {REQUEST_FILE}): a failed attempt records one when its failed assertions carry questions; most checks of `report.expect()` have a default question, and `.explain(\"Why did you ...?\")` sets one (e.g. `report.expect().commands().explain(\"Why did you not run the tests?\").includes(\"cargo test\")`)",
            dir.display()
        )));
    }
    Ok(found)
}

/// Adds every failed attempt below `dir` holding `explain.json`. The run directory's own
/// entries ([`is_layout_name`]: workspaces, which may hold anything, the schedule's locks,
/// agents' state, explain's own question directories) hold no attempt and are skipped; no
/// case or runner id's directory is one of them.
fn collect(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    if dir.join(REQUEST_FILE).is_file() {
        if failed(dir) {
            found.push(dir.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_dir && !is_layout_name(&name.to_string_lossy()) {
            collect(&entry.path(), depth + 1, found);
        }
    }
}

/// Whether the attempt's `result.json` says it did not pass (an expected failure passes, and
/// its workspace is gone); without a readable status it counts as failed.
fn failed(attempt: &Path) -> bool {
    let status = std::fs::read_to_string(attempt.join("result.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|result| result["status"].as_str().map(str::to_owned));
    !matches!(status.as_deref(), Some("passed" | "expected-failed"))
}

/// A sort key comparing runs of digits by value, so that `repeat-2` comes before `repeat-10`.
fn natural_key(path: &Path) -> Vec<(String, u64)> {
    let text = path.to_string_lossy();
    let mut key = Vec::new();
    let mut rest = text.as_ref();
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (word, tail) = rest.split_at(split);
        let digits = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (number, tail) = tail.split_at(digits);
        key.push((word.to_owned(), number.parse().unwrap_or(0)));
        rest = tail;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_record::{RUN_FILE, run_dir_of};

    fn attempt(
        run: &Path,
        case: &str,
        runner: &str,
        repeat: u32,
        status: &str,
        questions: bool,
    ) -> PathBuf {
        let dir = run
            .join(case)
            .join(runner)
            .join(format!("repeat-{repeat}"))
            .join("attempt-1");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("result.json"),
            format!(r#"{{"status":"{status}"}}"#),
        )
        .unwrap();
        if questions {
            std::fs::write(dir.join(REQUEST_FILE), "{}").unwrap();
        }
        dir
    }

    #[test]
    fn an_attempt_dir_is_itself_and_a_run_dir_is_every_failed_attempt_with_questions() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let b10 = attempt(&run, "b", "fake", 10, "failed", true);
        let b2 = attempt(&run, "b", "fake", 2, "failed", true);
        let a = attempt(&run, "a", "fake", 1, "failed", true);
        attempt(&run, "a", "other", 1, "failed", false);
        attempt(&run, "c", "fake", 1, "expected-failed", true);
        attempt(&run, "d", "fake", 1, "passed", true);
        // A workspace copy holding an explain.json is no attempt.
        attempt(&run.join("workspaces"), "a", "fake", 1, "failed", true);
        std::fs::write(run.join(RUN_FILE), "{}").unwrap();

        assert_eq!(attempts(&a).unwrap(), std::slice::from_ref(&a));
        assert_eq!(
            attempts(&run).unwrap(),
            [a.clone(), b2.clone(), b10.clone()]
        );
        assert_eq!(attempts(&run.join("b/fake")).unwrap(), [b2, b10]);
        assert_eq!(run_dir_of(&a), Some(run.clone()));
        assert_eq!(run_dir_of(&run), Some(run.clone()));
        assert_eq!(run_dir_of(tmp.path()), None);
    }

    #[test]
    fn a_case_named_like_the_run_s_own_entries_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path();
        let sanitize = crate::artifacts::sanitize;
        let found: Vec<PathBuf> = ["explain", "agent-state", "workspaces", "suites"]
            .into_iter()
            .map(|case| {
                attempt(
                    run,
                    &sanitize(case),
                    &sanitize("explain"),
                    1,
                    "failed",
                    true,
                )
            })
            .collect();
        // The run's own entries of those names hold no attempt, whatever they hold.
        attempt(&run.join("workspaces"), "a", "fake", 1, "failed", true);
        attempt(&run.join("suites"), "a", "fake", 1, "failed", true);
        let mut listed = attempts(run).unwrap();
        listed.sort();
        let mut expected = found;
        expected.sort();
        assert_eq!(listed, expected);
    }

    #[test]
    fn no_questions_anywhere_says_how_to_add_them() {
        let tmp = tempfile::tempdir().unwrap();
        attempt(tmp.path(), "a", "fake", 1, "failed", false);
        let error = attempts(tmp.path()).unwrap_err().to_string();
        assert!(
            error.contains("recorded questions (no explain.json)"),
            "{error}"
        );
        assert!(error.contains(".explain("), "{error}");
        let missing = attempts(&tmp.path().join("nope")).unwrap_err().to_string();
        assert!(missing.contains("is not a directory"), "{missing}");
    }
}
