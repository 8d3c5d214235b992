//! Secrets an agent prints are masked in every JSON file skillgym writes and on the console,
//! and kept in the raw logs.

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[(
    "secrets::printed_secrets_are_masked_everywhere_but_the_raw_logs",
    masked,
)];

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
        for file in json_files(&run.run_dir()) {
            let text = std::fs::read_to_string(&file).unwrap();
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
        // The raw logs keep what the agent wrote.
        for log in ["stdout.log", "stderr.log"] {
            let raw = std::fs::read_to_string(attempt.join(log)).unwrap();
            assert!(
                raw.contains(value) || raw.contains(escaped),
                "{name} in {log}: {raw}"
            );
        }
    }
}

/// Every `*.json` file under `dir`.
fn json_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(json_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "json") {
            files.push(path);
        }
    }
    files
}
