//! `cargo skillgym probe` end to end with a stand-in agent (`fake-agent`'s `chat .agents/skills`:
//! one request to the scripted model, listing the skills installed in the workspace as
//! `<available_skills>`, `'` escaped as Copilot does): JSON, console and HTML, and the usage
//! errors.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use skillgym_e2e::{cargo_skillgym, stderr, stdout, temp_dir};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// A skill directory `<root>/<name>` with that description.
fn skill(root: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(root.join(name)).unwrap();
    std::fs::write(
        root.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .unwrap();
}

/// Probes the runners of a config whose `fake` runner runs `script`, with `args`.
fn probe(dir: &Path, script: &str, args: &[&str]) -> Output {
    let config = format!(
        "runners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      version_args: [--version]\n      env:\n        FAKE_AGENT_SCRIPT: {}\n",
        serde_json::to_string(script).unwrap()
    );
    std::fs::write(dir.join("skillgym.yaml"), config).unwrap();
    Command::new(cargo_skillgym())
        .arg("probe")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn probe_reports_what_the_agent_listed() {
    let tmp = temp_dir("probe");
    let root = tmp.path();
    skill(root, "plain", "Plain words. Use it when asked.");
    skill(root, "quoted", "The author's skill.");
    let output = probe(
        root,
        "chat .agents/skills",
        &[
            "--skill", "plain", "--skill", "quoted", "--format", "json", "--keep", "kept",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["schema"], 1);
    let runner = &report["runners"][0];
    assert_eq!(runner["runner"], "fake");
    assert_eq!(runner["agent"], "command");
    assert_eq!(runner["version"], "0.1.0");
    assert_eq!(runner["installed_in"], ".agents/skills");
    assert_eq!(runner["requests"], 1);
    assert_eq!(runner["failure"], Value::Null);
    assert_eq!(
        runner["listing"]["places"],
        serde_json::json!(["/messages/0/content"])
    );
    assert_eq!(runner["listing"]["estimate"], "chars/4");
    let chars = runner["listing"]["chars"].as_u64().unwrap();
    assert!(chars > 100, "{chars}");
    assert_eq!(runner["listing"]["tokens"], chars.div_ceil(4));
    let plain = &runner["skills"][0];
    assert_eq!(plain["name"], "plain");
    assert_eq!(plain["listed"], true);
    assert_eq!(plain["shown"], "Plain words. Use it when asked.");
    assert_eq!(plain["rendering"], "exact");
    let quoted = &runner["skills"][1];
    assert_eq!(quoted["shown"], "The author&apos;s skill.");
    assert_eq!(quoted["rendering"], "escaped");
    // The stand-in lists the directory it was given, relative to its workspace.
    assert_eq!(quoted["location"], ".agents/skills/quoted/SKILL.md");
    assert_eq!(
        runner["discovered_from"],
        serde_json::json!([".agents/skills"])
    );
    assert_eq!(runner["other_skills"], serde_json::json!([]));
    // No instruction file planted (no `--instructions`), none sent.
    assert_eq!(runner["planted_instructions"], serde_json::json!([]));
    assert_eq!(runner["instruction_files"], serde_json::json!([]));
    assert!(!root.join("kept/fake/workspace/AGENTS.md").exists());
    // What `--keep` keeps: the request the agent sent, and the workspace with the skills.
    let log =
        std::fs::read_to_string(root.join("kept/fake/artifacts/mock-requests.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1);
    assert!(
        root.join("kept/fake/workspace/.agents/skills/quoted/SKILL.md")
            .is_file()
    );
}

#[test]
fn an_unlisted_skill_exits_1_and_the_console_and_html_say_so() {
    let tmp = temp_dir("probe");
    let root = tmp.path();
    skill(root, "plain", "Plain <words>.");
    // `chat` without a directory lists nothing.
    let output = probe(root, "chat", &["--skill", "plain"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("fake "), "{text}");
    assert!(text.contains(" plain "), "{text}");
    assert!(text.contains(" no "), "{text}");
    assert!(text.contains("0 chars, ~0 tokens (chars/4)"), "{text}");
    skill(root, "listed", "Shown <as> written.");
    let output = probe(
        root,
        "chat .agents/skills",
        &["--skill", "listed", "--format", "html"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = stdout(&output);
    assert!(html.contains("default-src 'none'"), "{html}");
    assert!(
        html.contains("<pre>Shown &lt;as&gt; written.</pre>"),
        "{html}"
    );
}

#[test]
fn instructions_plants_the_five_files_and_reports_those_not_sent() {
    let tmp = temp_dir("probe");
    let root = tmp.path();
    skill(root, "plain", "Plain.");
    let planted = [
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        "QWEN.md",
        ".github/copilot-instructions.md",
    ];
    let output = probe(
        root,
        "chat .agents/skills",
        &[
            "--skill",
            "plain",
            "--instructions",
            "--format",
            "json",
            "--keep",
            "kept",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let runner = &report["runners"][0];
    assert_eq!(runner["planted_instructions"], serde_json::json!(planted));
    // The stand-in sends its model the skill listing only.
    assert_eq!(runner["instruction_files"], serde_json::json!([]));
    for file in planted {
        let text = std::fs::read_to_string(root.join("kept/fake/workspace").join(file)).unwrap();
        assert!(
            text.contains(&format!("skillgym-probe-planted: {file}\n")),
            "{file}: {text}"
        );
    }
    let output = probe(
        root,
        "chat .agents/skills",
        &["--skill", "plain", "--instructions"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(concat!(
            "  instruction files in the request: none\n",
            "  planted, not in the request: AGENTS.md, CLAUDE.md, GEMINI.md, QWEN.md, .github/copilot-instructions.md\n"
        )),
        "{text}"
    );
}

#[test]
fn usage_errors_name_what_is_wrong() {
    let tmp = temp_dir("probe");
    let root = tmp.path();
    skill(root, "plain", "Plain.");
    let output = probe(root, "chat", &["--skill", "plain", "--runner", "fak"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("error: no runner `fak` in the config (runners: fake)"),
        "{}",
        stderr(&output)
    );
    let output = probe(root, "chat", &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "no skill to probe: give skill directories (`--skill DIR`) or list them in `run.skills`"
        ),
        "{}",
        stderr(&output)
    );
    std::fs::create_dir_all(root.join("kept/x")).unwrap();
    let output = probe(root, "chat", &["--skill", "plain", "--keep", "kept"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("/kept: the directory is not empty; give a new or empty one"),
        "{}",
        stderr(&output)
    );
    let output = probe(root, "chat", &["--skill", "plain", "--instructions=yes"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unexpected value 'yes' for '--instructions'"),
        "{}",
        stderr(&output)
    );
    let output = probe(root, "chat", &["--skill", "missing"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the skill directory does not exist"),
        "{}",
        stderr(&output)
    );
}
