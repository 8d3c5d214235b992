//! Scaffolding shared by the adapters' unit tests: scratch directories, session specs, launch
//! inspection, fixtures, and normalizing a stream the way the harness does.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;
use skillgym::{SessionEvent, SessionReport};
use tempfile::TempDir;

use super::{Launch, SessionSpec, StreamParser};
use crate::normalize::{Normalized, normalize_stream};

/// The prompt of the captured mock sessions.
pub(super) const PROMPT: &str = "Run echo hello, then read SKILL.md";

/// The directory the captured mock sessions ran in.
pub(super) const CWD: &str = "/home/dev/demo/wd";

/// A fresh, empty directory `skillgym-<owner>-<name>-<random>` in the temp directory. It is
/// kept when the test fails before [`TempDir::close`] removes it, for inspection.
pub(super) fn scratch(owner: &str, name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skillgym-{owner}-{name}-"))
        .disable_cleanup(true)
        .tempdir()
        .unwrap()
}

/// A session of `runner_id` with [`PROMPT`] in [`CWD`].
pub(super) fn spec<'a>(
    runner_id: &'a str,
    prompt_file: &'a Path,
    state: &'a Path,
    artifacts: &'a Path,
) -> SessionSpec<'a> {
    SessionSpec {
        runner_id,
        prompt: PROMPT,
        prompt_file,
        cwd: Path::new(CWD),
        artifact_dir: artifacts,
        state_dir: state,
        provider: None,
        skills: &[],
        env: &[],
    }
}

/// The value a launch sets for `key`, if it does.
pub(super) fn env<'a>(launch: &'a Launch, key: &str) -> Option<&'a str> {
    launch
        .env
        .iter()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.to_str().unwrap())
}

/// A file's permission bits (`0o600` for a seeded secret).
pub(super) fn mode(path: impl AsRef<Path>) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A launch's arguments as strings.
pub(super) fn strings(args: &[OsString]) -> Vec<&str> {
    args.iter().map(|arg| arg.to_str().unwrap()).collect()
}

/// A transcript fixture, `tests/fixtures/transcripts/<name>`.
pub(super) fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name);
    fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Feeds `stream` to `parser` as a session with [`PROMPT`] in [`CWD`].
pub(super) fn normalize(parser: &mut dyn StreamParser, stream: &str) -> Normalized {
    normalize_in(parser, stream, CWD, PROMPT)
}

/// Feeds `stream` to `parser` as a session with `prompt` in `cwd`.
pub(super) fn normalize_in(
    parser: &mut dyn StreamParser,
    stream: &str,
    cwd: &str,
    prompt: &str,
) -> Normalized {
    normalize_stream(parser, stream.as_bytes(), Path::new(cwd), prompt).unwrap()
}

/// The report's tool calls: id (empty when missing), tool, arguments.
pub(super) fn tool_calls(report: &SessionReport) -> Vec<(&str, &str, Value)> {
    report
        .tool_calls(None)
        .map(|event| match event {
            SessionEvent::ToolCall { id, tool, args, .. } => (
                id.as_deref().unwrap_or_default(),
                tool.as_str(),
                args.clone(),
            ),
            _ => unreachable!(),
        })
        .collect()
}

/// The report's tool results: id and tool (empty when missing), output, whether an error.
pub(super) fn tool_results(report: &SessionReport) -> Vec<(&str, &str, &str, bool)> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::ToolResult {
                id,
                tool,
                output,
                is_error,
                ..
            } => Some((
                id.as_deref().unwrap_or_default(),
                tool.as_deref().unwrap_or_default(),
                output.as_str(),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

/// The report's commands with their exit codes.
pub(super) fn commands(report: &SessionReport) -> Vec<(&str, Option<i32>)> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Command {
                command, exit_code, ..
            } => Some((command.as_str(), *exit_code)),
            _ => None,
        })
        .collect()
}

/// The exit codes of the report's commands.
pub(super) fn exit_codes(report: &SessionReport) -> Vec<Option<i32>> {
    commands(report).into_iter().map(|(_, code)| code).collect()
}
