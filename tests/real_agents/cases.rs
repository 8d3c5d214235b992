//! The scenarios every real agent CLI plays against the scripted model, as skillgym cases: each
//! case's `mock` script is what the "model" asks for, and its function checks, field by field,
//! what the agent's adapter made of the session.

use skillgym::prelude::*;
use skillgym::{SessionEvent, SkillDetection};

/// The agent type of the runner (runner ids are the agent types in this tier).
fn agent(report: &SessionReport) -> &str {
    report.runner.agent.kind.as_str()
}

/// The exit codes reported for commands containing `needle`.
fn exit_codes(report: &SessionReport, needle: &str) -> Vec<Option<i32>> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Command {
                command, exit_code, ..
            } if command.contains(needle) => Some(*exit_code),
            _ => None,
        })
        .collect()
}

/// The outputs of tool results.
fn tool_outputs(report: &SessionReport) -> Vec<&str> {
    report
        .events
        .iter()
        .filter_map(|event| match event {
            SessionEvent::ToolResult { output, .. } => Some(output.as_str()),
            _ => None,
        })
        .collect()
}

/// Usage figures, a session id, the agent's version: what every session must report.
fn assert_session_basics(report: &SessionReport) {
    let version = report.runner.agent.version.as_deref().unwrap_or_default();
    let major = version.split(['.', '-', '+']).next().unwrap_or_default();
    assert!(
        version.contains('.') && !major.is_empty() && major.bytes().all(|b| b.is_ascii_digit()),
        "{}: the agent's version, got {:?} (warnings: {:?})",
        agent(report),
        report.runner.agent.version,
        report.warnings
    );
    let input = report.usage.input_tokens.map(|count| count.value);
    let output = report.usage.output_tokens.map(|count| count.value);
    assert!(
        input.is_some_and(|n| n > 0),
        "input tokens > 0: {:?}",
        report.usage
    );
    assert!(
        output.is_some_and(|n| n > 0),
        "output tokens > 0: {:?}",
        report.usage
    );
    assert!(
        report
            .session_id
            .as_deref()
            .is_some_and(|id| !id.is_empty()),
        "a session id"
    );
}

fn skill<'a>(report: &'a SessionReport, name: &str) -> &'a SkillDetection {
    report.skill(name).unwrap_or_else(|| {
        panic!(
            "skill `{name}` detected; detected: {:?}",
            report.detected_skills()
        )
    })
}

/// (a) A shell command, a read of a skill's `SKILL.md`, and the final answer.
#[skillgym::case(
    prompt = "Run echo skillgym-hello, then read skills/demo/SKILL.md, then say you are done.",
    mock = "tests/real_agents/scripts/shell-read-answer.yaml"
)]
fn shell_read_answer(report: &SessionReport, ctx: &mut CaseContext) {
    report
        .expect()
        .commands()
        .includes(CommandMatcher::new("echo").args(["skillgym-hello"]));
    assert!(
        tool_outputs(report)
            .iter()
            .any(|output| output.contains("skillgym-hello")),
        "the command's output is a tool result: {:?}",
        tool_outputs(report)
    );
    let skill_md = ctx.workspace_dir().join("skills/demo/SKILL.md");
    assert!(
        report.file_reads().iter().any(|path| *path == skill_md),
        "read {}; reads: {:?}",
        skill_md.display(),
        report.file_reads()
    );
    let demo = skill(report, "demo");
    assert_eq!(demo.confidence, Confidence::Strong, "{demo:?}");
    report.expect().output().equals("skillgym mock: done");
    assert_session_basics(report);
}

/// (b) The agent's own skill tool loads the skill under test, installed from the config's
/// `skills:` entry into the agent's discovery directory: explicit evidence under its frontmatter
/// name. Codex has no skill tool; the scripted model has it read the skill's `SKILL.md`
/// instead: strong evidence.
#[skillgym::case(
    prompt = "Load the tier skill.",
    mock = "tests/real_agents/scripts/skill-tool.yaml"
)]
fn skill_tool(report: &SessionReport) {
    let installed: Vec<&str> = report
        .installed_skills
        .iter()
        .map(|skill| skill.name.as_str())
        .collect();
    assert_eq!(installed, ["tier-skill"], "{:?}", report.installed_skills);
    let tier = skill(report, "tier-skill");
    let expected = if agent(report) == "codex" {
        Confidence::Strong
    } else {
        Confidence::Explicit
    };
    assert_eq!(tier.confidence, expected, "{tier:?}");
    assert!(
        report.skill_attempts().is_empty(),
        "{:?}",
        report.skill_attempts()
    );
    report.expect().output().equals("tier skill loaded");
    assert_session_basics(report);
}

/// (i) A script with `if_listed` steps, decided on each of the agent's requests: the skill
/// under test is listed (the skill tool loads it), `ghost-skill`, which only the prompt names,
/// is not.
#[skillgym::case(
    prompt = "Load the tier skill if it is listed, and the ghost-skill skill if it is listed.",
    mock = "tests/real_agents/scripts/if-listed.yaml"
)]
fn if_listed(report: &SessionReport) {
    skill(report, "tier-skill");
    report.expect().skills().not_has("ghost-skill");
    report
        .expect()
        .commands()
        .not_includes(CommandMatcher::new("echo"));
    report
        .expect()
        .output()
        .includes("tier-skill is listed.")
        .includes("ghost-skill is not listed.")
        .not_includes("tier-skill is not listed.");
}

/// (c) A skill installed nowhere, asked for through the skill tool, then a read of a missing
/// `SKILL.md`: no skill is detected at any confidence; the failures are attempts.
#[skillgym::case(
    prompt = "Load the ghost-skill skill.",
    mock = "tests/real_agents/scripts/missing-skill.yaml"
)]
fn missing_skill(report: &SessionReport) {
    report
        .expect()
        .skills()
        .not_has("ghost-skill")
        .not_has("ghost");
    let attempted: Vec<&str> = report
        .skill_attempts()
        .iter()
        .map(|attempt| attempt.skill.as_str())
        .collect();
    assert!(
        attempted.contains(&"ghost"),
        "the failed read is an attempt: {:?}",
        report.skill_attempts()
    );
    if agent(report) != "codex" {
        assert!(
            attempted.contains(&"ghost-skill"),
            "the failed load is an attempt: {:?}",
            report.skill_attempts()
        );
    }
}

/// (d) A `SKILL.md` at the workspace root is named by its frontmatter, not by the workspace's
/// directory (`attempt-1`).
#[skillgym::case(
    prompt = "Read SKILL.md.",
    mock = "tests/real_agents/scripts/root-skill.yaml"
)]
fn root_skill_named_by_frontmatter(report: &SessionReport) {
    let root = skill(report, "root-skill");
    assert_eq!(root.confidence, Confidence::Strong, "{root:?}");
    assert!(
        report.skill("attempt-1").is_none(),
        "{:?}",
        report.detected_skills()
    );
}

/// (e) A command that exits with status 2: its exit code where the agent reports one (Claude
/// Code and Qwen Code in its result text, Codex, OpenCode, Copilot); Gemini CLI reports none.
#[skillgym::case(
    prompt = "List /skillgym-missing-dir.",
    mock = "tests/real_agents/scripts/failing-command.yaml"
)]
fn failing_command(report: &SessionReport) {
    let codes = exit_codes(report, "ls /skillgym-missing-dir");
    match agent(report) {
        "claude-code" | "codex" | "opencode" | "copilot" | "qwen-code" => {
            assert_eq!(codes, [Some(2)]);
        }
        "gemini-cli" => assert_eq!(codes, [None], "Gemini CLI reports none"),
        other => panic!("unexpected agent {other}"),
    }
    assert!(
        tool_outputs(report)
            .iter()
            .any(|output| output.contains("No such file or directory")),
        "the error is in a tool result: {:?}",
        tool_outputs(report)
    );
    report.expect().output().equals("the directory is missing");
}

/// (f) The agent runs in the attempt's workspace.
#[skillgym::case(
    prompt = "Print the working directory.",
    mock = "tests/real_agents/scripts/pwd.yaml"
)]
fn runs_in_the_workspace(report: &SessionReport, ctx: &mut CaseContext) {
    report.expect().commands().includes("pwd");
    let workspace = ctx.workspace_dir().display().to_string();
    assert!(
        tool_outputs(report)
            .iter()
            .any(|output| output.lines().any(|line| line.trim() == workspace)),
        "pwd printed {workspace}: {:?}",
        tool_outputs(report)
    );
}

/// The question of `explain_why`.
pub(crate) const EXPLAIN_QUESTION: &str = "Why did you not run cargo test?";

/// (h) A failed assertion with a question: the driver then asks it of each agent by resuming
/// the session (`--explain <attempt dir> --mock`), and the scripted model answers.
#[skillgym::case(
    prompt = "Run echo skillgym-explain.",
    mock = "tests/real_agents/scripts/explain.yaml"
)]
fn explain_why(report: &SessionReport) {
    report
        .expect()
        .commands()
        .explain(EXPLAIN_QUESTION)
        .includes("cargo test");
}

/// (g) The provider answers 400: the attempt fails with origin `model-rejected` and the
/// runner's later executions are skipped (`rejection::second`). Both are checked by the driver.
mod rejection {
    use skillgym::prelude::*;

    #[skillgym::case(
        prompt = "Say hello.",
        mock = "tests/real_agents/scripts/rejected.yaml"
    )]
    fn first(_report: &SessionReport) {}

    #[skillgym::case(prompt = "Say hello.")]
    fn second(_report: &SessionReport) {}
}
