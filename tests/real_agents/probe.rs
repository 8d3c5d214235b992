//! `cargo skillgym probe` on the six CLIs: the child, in its loopback-only namespace, probes
//! every runner of the tier's config with the two skills of `probe-skills/` (one short
//! description, one of 1,017 characters) and the five instruction files planted
//! (`--instructions`), and prints the JSON report; each agent's trial checks its entry against
//! what the pinned version is known to show.
//!
//! | CLI | shows a description | sends of the planted instruction files | sends besides |
//! |---|---|---|---|
//! | Claude Code | as written, whole | `CLAUDE.md` | nothing |
//! | Codex | as written, whole | `AGENTS.md` | nothing |
//! | OpenCode | as written, whole | `AGENTS.md` | nothing |
//! | Copilot | as written, whole | `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` | nothing |
//! | Gemini CLI | as written, whole | `GEMINI.md` | nothing |
//! | Qwen Code | as written, then ` (project)` (XML-escaped: `'` as `&apos;`; these have none) | `QWEN.md`, `AGENTS.md` | its `output-language.md`, from its state directory |
//!
//! None cuts a description at 1,017 characters.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;
use skillgym_e2e::workspace_root;
use skillgym_harness::probe::{self, ProbeOptions};

/// The variable that makes the child probe the config it names instead of running cases.
pub(crate) const PROBE_CONFIG: &str = "REAL_AGENTS_PROBE";

/// The skills probed, under `tests/real_agents/probe-skills/`.
const SKILLS: [&str; 2] = ["probe-skill", "probe-long"];

fn skill_dir(name: &str) -> PathBuf {
    workspace_root()
        .join("tests/real_agents/probe-skills")
        .join(name)
}

/// The child's probe: the report as JSON on stdout; 2 when the probe cannot start.
pub(crate) fn child(config: &std::path::Path) -> ExitCode {
    let config = match skillgym_harness::config::load(config) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("real-agents: {error}");
            return ExitCode::from(2);
        }
    };
    let dir = std::env::temp_dir().join(format!("real-agents-probe-{}", std::process::id()));
    let mut options = ProbeOptions::new(config, dir);
    options.skills = SKILLS.iter().map(|name| skill_dir(name)).collect();
    options.instructions = true;
    match probe::probe(&options) {
        Ok(report) => {
            print!("{}", probe::json(&report));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("real-agents: probe: {error}");
            ExitCode::from(2)
        }
    }
}

/// The `description:` of a probe skill's `SKILL.md`.
fn description(name: &str) -> String {
    let text = std::fs::read_to_string(skill_dir(name).join("SKILL.md")).unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix("description: "))
        .unwrap_or_default()
        .to_owned()
}

/// What `runner`'s pinned CLI shows of `written`, and how the probe names that.
fn expected(runner: &str, written: &str) -> (String, &'static str) {
    match runner {
        "qwen-code" => (format!("{written} (project)"), "annotated"),
        _ => (written.to_owned(), "exact"),
    }
}

/// The planted instruction files `runner`'s pinned CLI sends its model, sorted.
fn instructions_sent(runner: &str) -> &'static [&'static str] {
    match runner {
        "claude-code" => &["CLAUDE.md"],
        "copilot" => &[
            ".github/copilot-instructions.md",
            "AGENTS.md",
            "CLAUDE.md",
            "GEMINI.md",
        ],
        "gemini-cli" => &["GEMINI.md"],
        "qwen-code" => &["AGENTS.md", "QWEN.md"],
        _ => &["AGENTS.md"],
    }
}

/// The instruction files `runner`'s pinned CLI sends that the probe did not plant: the end of
/// each one's path.
fn own_instructions(runner: &str) -> &'static [&'static str] {
    match runner {
        "qwen-code" => &["/agent-state/qwen/output-language.md"],
        _ => &[],
    }
}

/// `entry`'s instruction files are the planted ones `runner`'s CLI sends (each named by a
/// path ending with its name) and its own, nothing else.
fn check_instructions(runner: &str, entry: &Value) -> Result<(), String> {
    let files = entry["instruction_files"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut sent: Vec<&str> = files
        .iter()
        .filter_map(|file| file["planted"].as_str())
        .collect();
    sent.sort_unstable();
    if sent != instructions_sent(runner) {
        return Err(format!(
            "sent the planted instruction files {sent:?}, expected {:?}",
            instructions_sent(runner)
        ));
    }
    for file in &files {
        let name = file["file"].as_str().unwrap_or_default();
        let named = match file["planted"].as_str() {
            Some(planted) => name == planted || name.ends_with(&format!("/{planted}")),
            None => own_instructions(runner)
                .iter()
                .any(|own| name.ends_with(own)),
        };
        if !named || file["places"].as_array().is_none_or(Vec::is_empty) {
            return Err(format!("unexpected instruction file entry {file}"));
        }
    }
    let others = files
        .iter()
        .filter(|file| file["planted"].is_null())
        .count();
    if others != own_instructions(runner).len() {
        return Err(format!(
            "sent {others} instruction file(s) the probe did not plant, expected {:?}",
            own_instructions(runner)
        ));
    }
    Ok(())
}

/// `runner`'s entry of the probe report `stdout` shows both skills as its CLI does, the
/// listing's token figure, and the planted instruction files its CLI sends; no user-level
/// skill leaks in.
pub(crate) fn check(runner: &str, stdout: &str, user_skill: &str) -> Result<String, String> {
    let json = stdout
        .find('{')
        .map(|start| &stdout[start..])
        .ok_or_else(|| format!("no JSON report in the probe's output:\n{stdout}"))?;
    let report: Value = serde_json::from_str(json).map_err(|e| format!("{e}:\n{json}"))?;
    let entry = report["runners"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| entry["runner"] == runner)
        .ok_or_else(|| format!("no probe entry for {runner}:\n{json}"))?;
    let fail = |problem: String| format!("{runner}: {problem}\n  entry: {entry:#}");
    if !entry["failure"].is_null() || entry["requests"].as_u64().unwrap_or(0) == 0 {
        return Err(fail(
            "the probe session failed or sent no request".to_owned(),
        ));
    }
    if entry["version"].as_str().is_none_or(str::is_empty) {
        return Err(fail("no version".to_owned()));
    }
    let listing = &entry["listing"];
    let chars = listing["chars"].as_u64().unwrap_or(0);
    let written: Vec<String> = SKILLS.iter().map(|name| description(name)).collect();
    let least = written.iter().map(String::len).sum::<usize>() as u64;
    if chars < least || listing["tokens"] != chars.div_ceil(4) || listing["estimate"] != "chars/4" {
        return Err(fail(format!(
            "the listing's token figure is missing or wrong (at least {least} characters, tokens = chars/4 rounded up)"
        )));
    }
    for (name, written) in SKILLS.iter().zip(&written) {
        let skill = entry["skills"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|skill| skill["name"] == *name)
            .ok_or_else(|| fail(format!("no entry for {name}")))?;
        let (shown, rendering) = expected(runner, written);
        if skill["listed"] != true
            || skill["description"] != written.as_str()
            || skill["shown"] != shown.as_str()
            || skill["rendering"] != rendering
        {
            return Err(fail(format!(
                "{name}: expected listed, shown as {shown:?} ({rendering})"
            )));
        }
    }
    let others = entry["other_skills"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if others.iter().any(|name| name == user_skill) {
        return Err(fail(format!("the user's own skill {user_skill} is listed")));
    }
    check_instructions(runner, entry).map_err(fail)?;
    Ok(format!(
        "{runner} {}: both listed, long description {} characters shown as {}, listing {chars} chars ~{} tokens; sends {}",
        entry["version"].as_str().unwrap_or_default(),
        written[1].len(),
        expected(runner, &written[1]).1,
        listing["tokens"],
        instructions_sent(runner).join(", ")
    ))
}
