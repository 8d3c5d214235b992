//! Malformed agent output, for every adapter: a truncated last line, garbage lines, a 10 MB
//! single line and one past the 16 MiB line limit, bytes that are not UTF-8, an empty stream, a
//! stream holding only an error.
//! Each gives a report (with warnings) or, through a whole session, a clean failure with the
//! right origin — never a panic.

use std::io::Cursor;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use skillgym::FailureOrigin;
use skillgym_harness::agent::{self, AgentOptions, SessionSpec};
use skillgym_harness::config::AgentKind;
use skillgym_harness::execute::{SessionLimits, run_session};
use skillgym_harness::normalize::{Normalized, normalize_stream};

const CWD: &str = "/home/dev/demo/wd";

/// Each adapter with a captured successful run.
const CAPTURES: [(AgentKind, &str); 6] = [
    (AgentKind::ClaudeCode, "claude-code.jsonl"),
    (AgentKind::Codex, "codex.jsonl"),
    (AgentKind::Opencode, "opencode.jsonl"),
    (AgentKind::Copilot, "copilot.jsonl"),
    (AgentKind::GeminiCli, "gemini-cli.jsonl"),
    (AgentKind::QwenCode, "qwen-code.jsonl"),
];

/// Every adapter, Cursor included (it has no capture).
const KINDS: [AgentKind; 7] = AgentKind::CLIS;

/// A new agent CLI fails here until its captured scripted session (`<type>.jsonl`) is in
/// [`CAPTURES`].
#[test]
fn every_captured_agent_cli_is_in_captures() {
    for kind in KINDS {
        let capture = format!("{}.jsonl", kind.as_str());
        if fixture_path(&capture).exists() {
            assert!(
                CAPTURES.contains(&(kind, capture.as_str())),
                "{kind:?}: {capture} has no row in `CAPTURES`"
            );
        }
    }
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(name)).unwrap()
}

fn normalize(kind: AgentKind, bytes: &[u8]) -> Normalized {
    let agent = agent::build(kind, AgentOptions::new("model").command("agent")).unwrap();
    let mut parser = agent.parser();
    normalize_stream(&mut *parser, Cursor::new(bytes), Path::new(CWD), "prompt").unwrap()
}

/// What a report shows of the session, to compare a damaged stream with the clean one.
fn summary(normalized: &Normalized) -> (Vec<String>, Vec<PathBuf>, String, Option<String>) {
    let report = &normalized.report;
    (
        report.commands().map(str::to_owned).collect(),
        report
            .file_reads()
            .into_iter()
            .map(Path::to_path_buf)
            .collect(),
        report.final_output.clone(),
        report.session_id.clone(),
    )
}

#[test]
fn a_truncated_last_line_is_one_warning_and_the_rest_is_kept() {
    for (kind, name) in CAPTURES {
        let bytes = fixture(name);
        let text = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let last = lines[lines.len() - 1];
        let truncated = format!(
            "{}\n{}",
            lines[..lines.len() - 1].join("\n"),
            &last[..last.len() / 2]
        );
        let normalized = normalize(kind, truncated.as_bytes());
        let warnings = &normalized.report.warnings;
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        assert!(
            warnings[0].starts_with(&format!("stdout line {}: ", lines.len())),
            "{name}: {}",
            warnings[0]
        );
        assert_eq!(
            normalized.report.commands().next(),
            Some("echo hello"),
            "{name}: the lines before the cut are kept"
        );
    }
}

#[test]
fn garbage_lines_are_warnings_and_change_nothing_else() {
    for (kind, name) in CAPTURES {
        let bytes = fixture(name);
        let clean = normalize(kind, &bytes);
        let text = String::from_utf8(bytes).unwrap();
        let mut noisy = String::new();
        let mut garbage = 0;
        for (index, line) in text.lines().enumerate() {
            noisy.push_str(line);
            noisy.push('\n');
            let junk = [
                "garbage",
                "{\"type\":",
                "[1,2,3]",
                "\u{1b}[31mred\u{1b}[0m",
                "null",
            ][index % 5];
            noisy.push_str(junk);
            noisy.push_str("\n\n");
            garbage += 1;
        }
        let normalized = normalize(kind, noisy.as_bytes());
        assert_eq!(
            normalized.report.warnings.len(),
            garbage,
            "{name}: {:?}",
            normalized.report.warnings
        );
        assert_eq!(summary(&normalized), summary(&clean), "{name}");
        assert_eq!(normalized.report.usage, clean.report.usage, "{name}");
        assert_eq!(normalized.steps, clean.steps, "{name}");
    }
}

#[test]
fn a_line_longer_than_a_line_may_be_is_one_warning() {
    let blob = "x".repeat(50 * 1024 * 1024);
    let stream = format!("{blob}\n{}", messages(1, "after"));
    let report = normalize(AgentKind::Command, stream.as_bytes()).report;
    assert_eq!(
        report.warnings,
        [format!(
            "stdout line 1: {} bytes, longer than the 16 MiB a line may be; it is in stdout.log only",
            blob.len() + 1
        )]
    );
    assert_eq!(report.final_output, "after");
}

#[test]
fn a_10_mb_line_is_handled_whole() {
    let blob = "x".repeat(10 * 1024 * 1024);
    let unknown = format!("{{\"type\":\"vendor.blob\",\"payload\":\"{blob}\"}}\n");
    let garbage = format!("{blob}\n");
    for kind in KINDS {
        let normalized = normalize(kind, unknown.as_bytes());
        assert!(
            normalized.report.warnings.is_empty(),
            "{kind}: an unknown record is kept, not a problem: {:?}",
            normalized.report.warnings
        );
        let normalized = normalize(kind, garbage.as_bytes());
        let warnings = &normalized.report.warnings;
        assert_eq!(warnings.len(), 1, "{kind}");
        assert!(
            warnings[0].len() < 400,
            "{kind}: the warning quotes only the start"
        );
        assert!(
            warnings[0].ends_with(&format!("({} bytes)", blob.len())),
            "{kind}: {}",
            &warnings[0][..100]
        );
    }
}

#[test]
fn bytes_that_are_not_utf8_are_replaced() {
    for (kind, name) in CAPTURES {
        let text = String::from_utf8(fixture(name)).unwrap();
        let mut bytes = Vec::new();
        for (index, piece) in text.split("\"done\"").enumerate() {
            if index > 0 {
                bytes.extend_from_slice(b"\"do\xffne\"");
            }
            bytes.extend_from_slice(piece.as_bytes());
        }
        let normalized = normalize(kind, &bytes);
        assert_eq!(normalized.report.final_output, "do\u{fffd}ne", "{name}");
        assert!(
            normalized.report.warnings.is_empty(),
            "{name}: {:?}",
            normalized.report.warnings
        );
    }
}

#[test]
fn an_empty_stream_is_an_empty_report() {
    for kind in KINDS {
        let normalized = normalize(kind, b"");
        assert!(normalized.report.events.is_empty(), "{kind}");
        assert!(normalized.report.warnings.is_empty(), "{kind}");
        assert_eq!(normalized.provider_error, None, "{kind}");
        assert_eq!(normalized.steps, 0, "{kind}");
    }
}

/// The error record of each captured HTTP 400 run, alone.
fn only_errors() -> Vec<(AgentKind, String)> {
    let last_matching = |name: &str, needle: &str| {
        String::from_utf8(fixture(name))
            .unwrap()
            .lines()
            .rfind(|line| line.contains(needle))
            .unwrap()
            .to_owned()
    };
    vec![
        (
            AgentKind::ClaudeCode,
            last_matching("claude-code.error-400.jsonl", "\"api_error_status\":400"),
        ),
        (
            AgentKind::Codex,
            last_matching("codex.error-400.jsonl", "turn.failed"),
        ),
        (
            AgentKind::Opencode,
            last_matching("opencode.error-400.jsonl", "\"type\":\"error\""),
        ),
        (
            AgentKind::Copilot,
            last_matching("copilot.error-400.jsonl", "session.error"),
        ),
        (
            AgentKind::GeminiCli,
            last_matching("gemini-cli.error-400.jsonl", "\"status\":\"error\""),
        ),
    ]
}

#[test]
fn a_stream_of_only_an_error_is_a_provider_error() {
    for (kind, line) in only_errors() {
        let normalized = normalize(kind, format!("{line}\n").as_bytes());
        let error = normalized
            .provider_error
            .unwrap_or_else(|| panic!("{kind}: no provider error"));
        assert!(
            error.message.contains("mock: forced error 400"),
            "{kind}: {error}"
        );
        assert!(error.is_rejection(), "{kind}");
        assert!(
            normalized.report.warnings.is_empty(),
            "{kind}: {:?}",
            normalized.report.warnings
        );
    }
}

/// A whole session of `kind` whose program prints `stdout` and exits with `code`.
fn session(
    kind: AgentKind,
    label: &str,
    stdout: &[u8],
    code: i32,
) -> skillgym_harness::execute::SessionOutput {
    session_with(
        kind,
        label,
        stdout,
        code,
        skillgym_harness::config::DEFAULT_MAX_OUTPUT,
    )
    .0
}

/// A whole session printing `stdout`, with an output limit; also returns the size of the
/// stdout log it left.
fn session_with(
    kind: AgentKind,
    label: &str,
    stdout: &[u8],
    code: i32,
    max_output: u64,
) -> (skillgym_harness::execute::SessionOutput, u64) {
    // Kept when the session fails, for inspection.
    let tmp = tempfile::Builder::new()
        .prefix(&format!("skillgym-malformed-{label}-"))
        .disable_cleanup(true)
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    let artifacts = dir.join("attempt");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(dir.join("stdout.bin"), stdout).unwrap();
    let script = dir.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat '{}'\nexit {code}\n",
            dir.join("stdout.bin").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agent = agent::build(
        kind,
        AgentOptions::new("model")
            .command(&script)
            .user_home(dir.join("home")),
    )
    .unwrap();
    let prompt_file = artifacts.join("prompt.md");
    std::fs::write(&prompt_file, "prompt").unwrap();
    let spec = SessionSpec {
        runner_id: "r",
        prompt: "prompt",
        prompt_file: &prompt_file,
        cwd: dir,
        artifact_dir: &artifacts,
        state_dir: &artifacts.join("agent-state"),
        provider: None,
        skills: &[],
        env: &[],
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let output = runtime.block_on(run_session(
        agent.as_ref(),
        &spec,
        SessionLimits {
            timeout: Duration::from_secs(30),
            max_steps: None,
            max_output,
            live_steps: None,
            sandbox: None,
            trigger: None,
        },
    ));
    let logged = std::fs::metadata(artifacts.join("stdout.log")).map_or(0, |m| m.len());
    tmp.close().unwrap();
    (output, logged)
}

#[test]
fn whole_sessions_fail_cleanly_with_the_right_origin() {
    for kind in KINDS {
        let empty = session(kind, "empty", b"", 0);
        let failure = empty
            .failure
            .unwrap_or_else(|| panic!("{kind}: empty stdout passed"));
        assert_eq!(
            failure.origin,
            FailureOrigin::Normalization,
            "{kind}: {failure}"
        );
        assert!(
            failure.message.contains("printed nothing on stdout"),
            "{kind}: {failure}"
        );

        let garbage = session(
            kind,
            "garbage",
            b"Error: something broke\n\xff\xfe\nbye\n",
            0,
        );
        let failure = garbage
            .failure
            .unwrap_or_else(|| panic!("{kind}: garbage passed"));
        assert_eq!(
            failure.origin,
            FailureOrigin::Normalization,
            "{kind}: {failure}"
        );
        assert!(
            failure.message.contains("none of the 3 line(s)"),
            "{kind}: {failure}"
        );
    }
    for (kind, line) in only_errors() {
        let output = session(kind, "error", format!("{line}\n").as_bytes(), 1);
        let failure = output
            .failure
            .unwrap_or_else(|| panic!("{kind}: an error passed"));
        assert_eq!(
            failure.origin,
            FailureOrigin::ModelRejected,
            "{kind}: {failure}"
        );
        assert!(
            failure.message.contains("mock: forced error 400"),
            "{kind}: {failure}"
        );
        assert!(
            failure.message.contains("(the agent exited with code 1)"),
            "{kind}: {failure}"
        );
    }
    for (kind, name) in CAPTURES {
        let text = String::from_utf8(fixture(name)).unwrap();
        let truncated = &text[..text.trim_end().len() - 5];
        let output = session(kind, "truncated", truncated.as_bytes(), 0);
        assert!(output.failure.is_none(), "{name}: {:?}", output.failure);
        assert_eq!(output.report.warnings.len(), 1, "{name}");
    }
}

/// Lines of assistant messages in skillgym's own event format, `count` of them.
fn messages(count: usize, text: &str) -> String {
    let line = format!(
        "{{\"type\":\"message\",\"role\":\"assistant\",\"text\":{}}}\n",
        serde_json::Value::from(text)
    );
    line.repeat(count)
}

#[test]
fn an_agent_printing_past_max_output_is_stopped_with_its_own_origin() {
    let stdout = messages(40_000, &"x".repeat(60));
    assert!(stdout.len() > 3 << 20);
    let (output, logged) = session_with(AgentKind::Command, "flood", stdout.as_bytes(), 0, 1 << 20);
    let failure = output.failure.expect("the flood was stopped");
    assert_eq!(failure.origin, FailureOrigin::OutputLimit, "{failure}");
    assert_eq!(failure.class.id, "output-limit");
    assert!(
        failure
            .message
            .starts_with("the agent printed more than 1 MiB on stdout (`run.max_output`)"),
        "{failure}"
    );
    // The log holds what was read up to the limit, and what was left in the pipe.
    assert!(logged > 1 << 20 && logged < stdout.len() as u64, "{logged}");
    assert!(!output.report.events.is_empty());
}

#[test]
fn a_line_longer_than_a_line_may_be_is_logged_but_not_parsed() {
    let huge = format!("{}\n", messages(1, &"y".repeat(17 << 20)).trim_end());
    let stdout = format!("{huge}{}", messages(1, "after"));
    let (output, logged) = session_with(
        AgentKind::Command,
        "overlong",
        stdout.as_bytes(),
        0,
        skillgym_harness::config::DEFAULT_MAX_OUTPUT,
    );
    assert_eq!(logged, stdout.len() as u64, "every byte is logged");
    let warnings = &output.report.warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0],
        format!(
            "stdout line 1: {} bytes, longer than the 16 MiB a line may be; it is in stdout.log only",
            huge.len()
        )
    );
    assert_eq!(output.report.final_output, "after");
}

#[test]
fn a_report_keeps_bounded_texts_events_and_warnings() {
    use skillgym_harness::normalize::caps;
    // One long message: head and tail kept around the marker.
    let long = format!("{}{}", "h".repeat(100_000), "t".repeat(100_000));
    let normalized = normalize(AgentKind::Command, messages(1, &long).as_bytes());
    let text = &normalized.report.final_output;
    assert!(text.len() < caps::TEXT_CAP + 100, "{}", text.len());
    assert!(text.starts_with(&"h".repeat(caps::TEXT_CAP / 2)));
    assert!(text.ends_with(&"t".repeat(caps::TEXT_CAP / 2)));
    assert!(
        text.contains(
            "[… skillgym cut 134464 bytes of this text; the full text is in stdout.log …]"
        )
    );

    // Many events and many warnings: the first ones are kept, the rest counted.
    let mut stream = messages(caps::MAX_EVENTS + 5, "m");
    stream.push_str(&"garbage\n".repeat(caps::MAX_WARNINGS + 7));
    let report = normalize(AgentKind::Command, stream.as_bytes()).report;
    assert_eq!(report.events.len(), caps::MAX_EVENTS);
    assert_eq!(report.warnings.len(), caps::MAX_WARNINGS + 2);
    assert_eq!(
        report.warnings[caps::MAX_WARNINGS],
        "5 event(s) after the first 10000 were not kept in the report; the full stream is in stdout.log"
    );
    assert_eq!(
        report.warnings[caps::MAX_WARNINGS + 1],
        "7 more warning(s) after the first 200 were not kept"
    );
}
