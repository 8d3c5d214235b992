//! The files of `skillgym explain`: what a failed attempt recorded (`explain.json`), the
//! answers (`explanations.json`), each question's directory, and whether stored answers are
//! reused.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillgym::{Failure, SourceLocation};

use crate::artifacts::write_json;

/// Why an explain file cannot be read or written; the message names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RecordError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file is not the JSON it should be.
    #[error("{}: not a valid file: {source}", .path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// The file cannot be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

/// The file a failed attempt writes when its failed assertions carry questions.
pub(crate) const REQUEST_FILE: &str = "explain.json";
/// The file the answers are stored in, beside it.
pub(crate) const ANSWERS_FILE: &str = "explanations.json";

/// `explain.json`: what to ask, and of which session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ExplainRequest {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The attempt's workspace, where the agent ran (and runs again to answer).
    pub cwd: PathBuf,
    /// The agent's session id, if it reported one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Whether the runner's agent can resume a session (absent in older files: assumed).
    #[serde(default = "yes")]
    pub resumable: bool,
    /// The questions, in the order the assertions failed.
    pub questions: Vec<Question>,
}

fn yes() -> bool {
    true
}

/// One question and the assertion that raised it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Question {
    /// The question.
    pub question: String,
    /// Where the assertion is, when known.
    #[serde(default)]
    pub source: Option<SourceLocation>,
}

impl ExplainRequest {
    /// Reads `<attempt>/explain.json`.
    pub(crate) fn read(attempt: &Path) -> Result<ExplainRequest, RecordError> {
        read_json(&attempt.join(REQUEST_FILE))
    }
}

/// `explanations.json`: the answers to an attempt's questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Explanations {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The workspace the questions were asked in.
    pub cwd: PathBuf,
    /// The original session's id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// When the questions were asked (RFC 3339, UTC).
    pub created_at: String,
    /// Each question with its answer, in order.
    pub questions: Vec<Answer>,
}

/// One question's answer: the final output of the resumed session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The question.
    pub question: String,
    /// Where the assertion is, when known.
    #[serde(default)]
    pub source: Option<SourceLocation>,
    /// The agent's answer (empty when the session failed before answering).
    pub answer: String,
    /// The resumed session's id, as the agent reported it (a fork may have its own).
    #[serde(default)]
    pub session_id: Option<String>,
    /// When the session started (RFC 3339, UTC).
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it ended.
    #[serde(default)]
    pub ended_at: Option<String>,
    /// Its wall time in milliseconds.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The question's directory: `prompt.md`, `stdout.log`, `stderr.log`, `report.json`.
    pub artifact_dir: PathBuf,
    /// Why the session failed (timeout, exit code, ...), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

impl Explanations {
    /// Reads `<attempt>/explanations.json`.
    pub(crate) fn read(attempt: &Path) -> Result<Explanations, RecordError> {
        read_json(&attempt.join(ANSWERS_FILE))
    }

    /// Writes `<attempt>/explanations.json`.
    pub(crate) fn write(&self, attempt: &Path) -> Result<PathBuf, RecordError> {
        let path = attempt.join(ANSWERS_FILE);
        match write_json(&path, self) {
            Ok(()) => Ok(path),
            Err(source) => Err(RecordError::Write { path, source }),
        }
    }

    /// Whether a question's session failed.
    pub(crate) fn any_failed(&self) -> bool {
        self.questions.iter().any(|answer| answer.failure.is_some())
    }
}

/// The directory of question `number` (1-based): `<attempt>/explain/question-NN`.
pub(crate) fn question_dir(attempt: &Path, number: usize) -> PathBuf {
    attempt
        .join("explain")
        .join(format!("question-{number:02}"))
}

/// What to do for an attempt: print the stored answers, or ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// `explanations.json` exists and `--rerun` was not given.
    Reuse,
    /// Ask every question (again).
    Ask,
}

/// Stored answers are reused unless `rerun`.
pub(crate) fn decide(attempt: &Path, rerun: bool) -> Decision {
    if !rerun && attempt.join(ANSWERS_FILE).is_file() {
        Decision::Reuse
    } else {
        Decision::Ask
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, RecordError> {
    let text = std::fs::read_to_string(path).map_err(|source| RecordError::Read {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| RecordError::Invalid {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgym::FailureOrigin;

    #[test]
    fn question_dirs_are_numbered_from_one_with_two_digits() {
        let attempt = Path::new("/run/c/r/repeat-1/attempt-1");
        assert_eq!(
            question_dir(attempt, 1),
            Path::new("/run/c/r/repeat-1/attempt-1/explain/question-01")
        );
        assert_eq!(
            question_dir(attempt, 12),
            Path::new("/run/c/r/repeat-1/attempt-1/explain/question-12")
        );
        assert_ne!(question_dir(attempt, 1), question_dir(attempt, 2));
    }

    #[test]
    fn explanations_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let explanations = Explanations {
            case_id: "cases::x".into(),
            runner_id: "fake".into(),
            cwd: "/ws".into(),
            session_id: Some("s-1".into()),
            created_at: "2026-11-22T10:15:00.123Z".into(),
            questions: vec![
                Answer {
                    question: "Why?".into(),
                    source: Some(SourceLocation {
                        file: "tests/a.rs".into(),
                        line: 3,
                        column: 9,
                    }),
                    answer: "Because.".into(),
                    session_id: Some("s-2".into()),
                    started_at: Some("2026-11-22T10:15:01.000Z".into()),
                    ended_at: Some("2026-11-22T10:15:02.000Z".into()),
                    duration_ms: Some(1000),
                    artifact_dir: question_dir(dir.path(), 1),
                    failure: None,
                },
                Answer {
                    question: "And this?".into(),
                    source: None,
                    answer: String::new(),
                    session_id: None,
                    started_at: None,
                    ended_at: None,
                    duration_ms: None,
                    artifact_dir: question_dir(dir.path(), 2),
                    failure: Some(Failure::new(FailureOrigin::Timeout, "too slow")),
                },
            ],
        };
        let path = explanations.write(dir.path()).unwrap();
        assert_eq!(path, dir.path().join(ANSWERS_FILE));
        assert_eq!(Explanations::read(dir.path()).unwrap(), explanations);
        assert!(explanations.any_failed());
    }

    #[test]
    fn stored_answers_are_reused_unless_rerun() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(decide(dir.path(), false), Decision::Ask);
        assert_eq!(decide(dir.path(), true), Decision::Ask);
        std::fs::write(dir.path().join(ANSWERS_FILE), "{}").unwrap();
        assert_eq!(decide(dir.path(), false), Decision::Reuse);
        assert_eq!(decide(dir.path(), true), Decision::Ask);
    }

    #[test]
    fn a_request_without_resumable_is_assumed_resumable() {
        let request: ExplainRequest = serde_json::from_str(
            r#"{"case_id":"c","runner_id":"r","cwd":"/ws","session_id":null,
                "questions":[{"question":"Why?","source":{"file":"a.rs","line":1,"column":2}}]}"#,
        )
        .unwrap();
        assert!(request.resumable);
        assert_eq!(request.questions[0].source.as_ref().unwrap().line, 1);
    }
}
