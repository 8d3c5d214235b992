//! Secrets an agent prints are masked in every file skillgym writes (its raw logs included)
//! and on the console; a long text cut in `report.json` keeps no part of one.

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "secrets::printed_secrets_are_masked_everywhere_the_raw_logs_included",
        masked,
    ),
    (
        "secrets::a_cut_through_a_secret_leaves_no_part_of_it",
        straddling_the_cut,
    ),
    (
        "secrets::a_report_of_many_chunks_is_written_whole_and_masked",
        long_report,
    ),
];

const SERVICE: &str = "sk-service-0123456789";
const HARNESS: &str = "hk-harness-\"quoted\"-42";
const PLAIN: &str = "plain-but-listed-value";

fn masked() {
    let fake = env!("CARGO_BIN_EXE_fake-agent");
    let config = format!(
        "run:\n  secrets: [PLAIN_NAME]\nrunners:\n  s: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"-\", SERVICE_API_KEY: {SERVICE} }} }} }}\n"
    );
    let run = Run::new(
        "secrets",
        Spec {
            args: &["--runner", "s", "cases::secrets::"],
            config: &config,
            env: &[("HARNESS_TOKEN", HARNESS), ("PLAIN_NAME", PLAIN)],
        },
    );
    assert_eq!(run.code(), Some(101), "{}", run.context());
    let console = run.context();
    let attempt = run
        .execution_dir("secrets::echoed", "s")
        .join("repeat-1/attempt-1");
    let report = std::fs::read_to_string(attempt.join("report.json")).unwrap();
    let result = std::fs::read_to_string(attempt.join("result.json")).unwrap();
    for (name, value) in [
        ("SERVICE_API_KEY", SERVICE),
        ("HARNESS_TOKEN", HARNESS),
        ("PLAIN_NAME", PLAIN),
    ] {
        let escaped = serde_json::to_string(value).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        for file in files(&run.run_dir()) {
            let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
            assert!(
                !text.contains(value) && !text.contains(escaped),
                "{name} in {}:\n{text}",
                file.display()
            );
        }
        assert!(
            !console.contains(value),
            "{name} on the console:\n{console}"
        );
        let mask = format!("[masked:{name}]");
        assert!(report.contains(&mask), "{name}: {report}");
        assert!(result.contains(&mask), "{name}: the stderr tail: {result}");
        assert!(console.contains(&mask), "{name}: {console}");
        // The logs keep what the agent wrote, the secret masked as it was written.
        for log in ["stdout.log", "stderr.log"] {
            let raw = std::fs::read_to_string(attempt.join(log)).unwrap();
            assert!(raw.contains(&mask), "{name} in {log}: {raw}");
        }
    }
}

/// A message of 96 KiB with a secret across the 32 KiB where its kept head ends: the report
/// keeps neither the secret's first 12 characters nor a half of its mask.
fn straddling_the_cut() {
    const SECRET: &str = "sk-straddle-0123456789abcdefg";
    let text = format!(
        "{}{SECRET}{}",
        "a".repeat(32 * 1024 - 12),
        "b".repeat(64 * 1024)
    );
    let line =
        serde_json::json!({"type": "message", "role": "assistant", "phase": "final", "text": text});
    let (run, attempt) = replayed("secrets-straddle", &format!("{line}\n"), SECRET);
    let report = std::fs::read_to_string(attempt.join("report.json")).unwrap();
    assert!(
        report.contains("[… skillgym cut"),
        "the text was cut: {}",
        run.context()
    );
    assert!(
        !report.contains(&SECRET[..12]),
        "a part of the secret survived the cut"
    );
    assert!(!report.contains("[masked:SERV"), "no half of a mask either");
    let log = std::fs::read_to_string(attempt.join("stdout.log")).unwrap();
    assert!(!log.contains(&SECRET[..12]) && log.contains("[masked:SERVICE_API_KEY]"));
}

/// A report of about 1.3 MB (26 messages of 50 KB, each kept whole), written past its first
/// 256 KiB by a thread of its own, in chunks of 64 KiB: `report.json` is one valid document
/// holding every message in order, the secret in each masked (both ends of every chunk
/// included), and no temporary file is left.
fn long_report() {
    const SECRET: &str = "sk-chunked-0123456789abcdefg";
    const MESSAGES: usize = 26;
    let mut transcript = String::new();
    for index in 0..MESSAGES {
        // Escaped characters make serde write each text in many pieces, so that chunks end
        // inside texts too.
        let text = format!("{index:02} {}\n", format!("{SECRET} tab\t").repeat(1500));
        let line = serde_json::json!({"type": "message", "role": "assistant", "phase": "final", "text": text});
        transcript.push_str(&format!("{line}\n"));
    }
    let (run, attempt) = replayed("secrets-long-report", &transcript, SECRET);
    let text = std::fs::read_to_string(attempt.join("report.json")).unwrap();
    assert!(
        text.len() > 1 << 20,
        "{} bytes: {}",
        text.len(),
        run.context()
    );
    assert!(
        !text.contains(&SECRET[..12]),
        "a secret reached report.json"
    );
    let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is valid JSON");
    let messages: Vec<&str> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|event| event["text"].as_str())
        .collect();
    assert_eq!(messages.len(), MESSAGES, "{}", run.context());
    for (index, message) in messages.iter().enumerate() {
        let expected = format!(
            "{index:02} {}\n",
            "[masked:SERVICE_API_KEY] tab\t".repeat(1500)
        );
        assert!(
            *message == expected,
            "message {index} is not whole and masked"
        );
    }
    let left: Vec<_> = files(&attempt)
        .into_iter()
        .filter(|file| file.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// A run of `cases::secrets::echoed` on a fake agent replaying `transcript`, with `secret` in
/// its environment; the run and its attempt's directory.
fn replayed(name: &str, transcript: &str, secret: &str) -> (Run, std::path::PathBuf) {
    let data = skillgym_e2e::temp_dir(&format!("{name}-data"));
    let file = data.path().join("transcript.jsonl");
    std::fs::write(&file, transcript).unwrap();
    let fake = env!("CARGO_BIN_EXE_fake-agent");
    let config = format!(
        "runners:\n  s: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"replay {}\", SERVICE_API_KEY: {secret} }} }} }}\n",
        file.display()
    );
    let run = Run::new(
        name,
        Spec {
            args: &["--runner", "s", "cases::secrets::echoed"],
            config: &config,
            env: &[],
        },
    );
    let attempt = run
        .execution_dir("secrets::echoed", "s")
        .join("repeat-1/attempt-1");
    (run, attempt)
}

/// Every file under `dir` (symbolic links are not followed).
fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files.extend(self::files(&path));
        } else if kind.is_file() {
            files.push(path);
        }
    }
    files
}
