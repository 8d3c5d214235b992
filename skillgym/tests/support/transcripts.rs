//! Turns captured agent transcripts (the JSONL each CLI prints) into [`SessionReport`]s.
//!
//! A small, test-only stand-in for the real per-agent adapters, faithful enough for the
//! fixtures in `tests/fixtures/transcripts`. Paths are kept as the agent reported them (Codex's
//! are resolved against [`CODEX_CWD`]). Timestamps, usage and the prompt are left empty. Records
//! it does not know are skipped, and lines that are not JSON become warnings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skillgym::{Confidence, Phase, Role, SessionEvent, SessionReport, SkillDetection};

/// The working directory of the captured Codex session. Codex reads files through shell
/// commands with relative paths, and its stream never states the directory.
pub const CODEX_CWD: &str = "/home/dev/demo/wd";

/// The agent CLI that printed a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// `claude -p --output-format stream-json --verbose`.
    ClaudeCode,
    /// `codex exec --json`.
    Codex,
    /// `opencode run --format json`.
    Opencode,
    /// `copilot -p --output-format json`.
    Copilot,
    /// `gemini -p --output-format stream-json`.
    GeminiCli,
    /// `qwen -p --output-format stream-json`, which is Claude Code's format.
    QwenCode,
}

impl Agent {
    const ALL: [Agent; 6] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Opencode,
        Agent::Copilot,
        Agent::GeminiCli,
        Agent::QwenCode,
    ];

    /// The agent's slug, which is also the prefix of its fixture files.
    pub fn slug(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Opencode => "opencode",
            Agent::Copilot => "copilot",
            Agent::GeminiCli => "gemini-cli",
            Agent::QwenCode => "qwen-code",
        }
    }

    /// The agent whose slug begins `name`, e.g. `claude-code-2.1.197`. Panics if none does.
    pub fn from_name(name: &str) -> Agent {
        Agent::ALL
            .into_iter()
            .find(|agent| name.starts_with(agent.slug()))
            .unwrap_or_else(|| panic!("no agent for transcript `{name}`"))
    }
}

/// Loads `tests/fixtures/transcripts/<name>.jsonl`; the agent comes from the name's prefix.
pub fn load(name: &str) -> SessionReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(format!("{name}.jsonl"));
    let jsonl = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    report_from_transcript(Agent::from_name(name), &jsonl)
}

/// Converts one agent's JSONL transcript into a report.
pub fn report_from_transcript(agent: Agent, jsonl: &str) -> SessionReport {
    let mut builder = Builder::default();
    builder.report.runner.id = agent.slug().to_owned();
    builder.report.runner.agent.kind = agent.slug().to_owned();
    for (index, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(record) => match agent {
                Agent::ClaudeCode | Agent::QwenCode => builder.claude(&record),
                Agent::Codex => builder.codex(&record),
                Agent::Opencode => builder.opencode(&record),
                Agent::Copilot => builder.copilot(&record),
                Agent::GeminiCli => builder.gemini(&record),
            },
            Err(err) => builder
                .report
                .warnings
                .push(format!("line {}: {err}", index + 1)),
        }
    }
    builder.finish()
}

#[derive(Default)]
struct Builder {
    report: SessionReport,
    /// Per call id: the tool name and, for shell tools, the index of its `Command` event.
    calls: HashMap<String, (String, Option<usize>)>,
    /// The answer of a closing `result` record; it wins over the last assistant text.
    answer: Option<String>,
}

impl Builder {
    /// Claude Code and Qwen Code: `system`, `assistant`, `user` and `result` records.
    fn claude(&mut self, record: &Value) {
        self.session(&record["session_id"]);
        let blocks = record["message"]["content"]
            .as_array()
            .into_iter()
            .flatten();
        match record["type"].as_str() {
            Some("assistant") => {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("text") => self.message(Phase::Commentary, string(&block["text"])),
                        Some("tool_use") => self.call(
                            string(&block["id"]),
                            string(&block["name"]),
                            &block["input"],
                        ),
                        _ => {}
                    }
                }
            }
            Some("user") => {
                for block in blocks.filter(|block| block["type"] == "tool_result") {
                    let output = content_text(&block["content"]);
                    let is_error = block["is_error"] == true;
                    self.result(string(&block["tool_use_id"]), &output, is_error, None);
                }
            }
            Some("result") => self.answer = record["result"].as_str().map(str::to_owned),
            _ => {}
        }
    }

    /// Codex: `thread.started` and finished `item.completed` items (`item.started` is skipped).
    fn codex(&mut self, record: &Value) {
        let item = &record["item"];
        match (record["type"].as_str(), item["type"].as_str()) {
            (Some("thread.started"), _) => self.session(&record["thread_id"]),
            (Some("item.completed"), Some("agent_message")) => {
                self.message(Phase::Commentary, string(&item["text"]))
            }
            (Some("item.completed"), Some("command_execution")) => {
                let (id, command) = (string(&item["id"]), string(&item["command"]));
                self.call(id, "command_execution", &json!({ "command": command }));
                for path in codex_reads(command) {
                    self.read(path);
                }
                let exit_code = item["exit_code"].as_i64();
                let failed = item["status"] == "failed" || exit_code.is_some_and(|code| code != 0);
                self.result(id, string(&item["aggregated_output"]), failed, exit_code);
            }
            _ => {}
        }
    }

    /// OpenCode: `text` parts and `tool_use` parts, which carry the call and its result at once.
    fn opencode(&mut self, record: &Value) {
        self.session(&record["sessionID"]);
        let part = &record["part"];
        match record["type"].as_str() {
            Some("text") => self.message(Phase::Commentary, string(&part["text"])),
            Some("tool_use") => {
                let (id, state) = (string(&part["callID"]), &part["state"]);
                self.call(id, string(&part["tool"]), &state["input"]);
                let failed = state["status"] == "error";
                let output = string(&state[if failed { "error" } else { "output" }]);
                self.result(id, output, failed, state["metadata"]["exit"].as_i64());
            }
            _ => {}
        }
    }

    /// Copilot: non-ephemeral `assistant.message`, `tool.execution_*` and `result` records.
    fn copilot(&mut self, record: &Value) {
        if record["ephemeral"] == true {
            return;
        }
        let data = &record["data"];
        match record["type"].as_str() {
            Some("assistant.message") => self.message(Phase::Commentary, string(&data["content"])),
            Some("tool.execution_start") => self.call(
                string(&data["toolCallId"]),
                string(&data["toolName"]),
                &data["arguments"],
            ),
            Some("tool.execution_complete") => {
                let failed = data["success"] == false;
                let output = if failed {
                    string(&data["error"]["message"])
                } else {
                    string(&data["result"]["content"])
                };
                let exit_code = data["shellExecution"]["exitCode"].as_i64();
                self.result(string(&data["toolCallId"]), output, failed, exit_code);
            }
            Some("result") => self.session(&record["sessionId"]),
            _ => {}
        }
    }

    /// Gemini CLI: `init`, `message`, `tool_use` and `tool_result` records.
    fn gemini(&mut self, record: &Value) {
        match record["type"].as_str() {
            Some("init") => self.session(&record["session_id"]),
            Some("message") if record["role"] == "assistant" => {
                let text = string(&record["content"]);
                // A `delta` chunk continues the assistant message right before it.
                if record["delta"] == true
                    && let Some(SessionEvent::Message {
                        role: Role::Assistant,
                        text: last,
                        ..
                    }) = self.report.events.last_mut()
                {
                    last.push_str(text);
                } else {
                    self.message(Phase::Commentary, text);
                }
            }
            Some("tool_use") => self.call(
                string(&record["tool_id"]),
                string(&record["tool_name"]),
                &record["parameters"],
            ),
            Some("tool_result") => {
                let failed = record["status"] != "success";
                let output = if failed {
                    string(&record["error"]["message"])
                } else {
                    string(&record["output"])
                };
                self.result(string(&record["tool_id"]), output, failed, None);
            }
            _ => {}
        }
    }

    /// Keeps the first session id seen.
    fn session(&mut self, id: &Value) {
        if let Some(id) = id.as_str() {
            self.report.session_id.get_or_insert_with(|| id.to_owned());
        }
    }

    fn message(&mut self, phase: Phase, text: &str) {
        if !text.is_empty() {
            self.report.events.push(SessionEvent::Message {
                role: Role::Assistant,
                phase: Some(phase),
                text: text.to_owned(),
                at: None,
            });
        }
    }

    /// Records a tool call and the `Command`, `FileRead` or `SkillSignal` it implies.
    fn call(&mut self, id: &str, tool: &str, args: &Value) {
        let events = &mut self.report.events;
        events.push(SessionEvent::ToolCall {
            id: Some(id.to_owned()),
            tool: tool.to_owned(),
            args: args.clone(),
            at: None,
        });
        let mut command_index = None;
        match tool {
            "Bash" | "bash" | "run_shell_command" | "command_execution" => {
                command_index = Some(events.len());
                events.push(SessionEvent::Command {
                    command: string(&args["command"]).to_owned(),
                    exit_code: None,
                    at: None,
                });
            }
            "Read" | "read_file" => self.read(PathBuf::from(string(&args["file_path"]))),
            "read" => self.read(PathBuf::from(string(&args["filePath"]))),
            "view" => self.read(PathBuf::from(string(&args["path"]))),
            "Skill" => events.push(SessionEvent::SkillSignal {
                skill: string(&args["skill"]).to_owned(),
                signal: "tool:skill".to_owned(),
                at: None,
            }),
            _ => {}
        }
        self.calls
            .insert(id.to_owned(), (tool.to_owned(), command_index));
    }

    /// Records a tool result; `exit_code` goes to the call's `Command` event.
    fn result(&mut self, id: &str, output: &str, is_error: bool, exit_code: Option<i64>) {
        let (tool, command_index) = self.calls.get(id).cloned().unzip();
        if let (Some(index), Some(code)) = (command_index.flatten(), exit_code)
            && let SessionEvent::Command { exit_code, .. } = &mut self.report.events[index]
        {
            *exit_code = i32::try_from(code).ok();
        }
        self.report.events.push(SessionEvent::ToolResult {
            id: Some(id.to_owned()),
            tool,
            output: output.to_owned(),
            is_error,
            at: None,
        });
    }

    fn read(&mut self, path: PathBuf) {
        let files = &mut self.report.files;
        if path.to_string_lossy().ends_with("SKILL.md") {
            files.observed_skill_reads.push(path.clone());
        }
        files.observed_reads.push(path.clone());
        self.report
            .events
            .push(SessionEvent::FileRead { path, at: None });
    }

    /// Marks the last assistant text final and derives the final output and the skills.
    fn finish(mut self) -> SessionReport {
        let report = &mut self.report;
        let last_text = report
            .events
            .iter_mut()
            .rev()
            .find_map(|event| match event {
                SessionEvent::Message {
                    role: Role::Assistant,
                    phase: phase @ Some(Phase::Commentary),
                    text,
                    ..
                } => Some((phase, text)),
                _ => None,
            });
        if let Some((phase, text)) = last_text {
            *phase = Some(Phase::Final);
            report.final_output = text.clone();
        }
        if let Some(answer) = self.answer {
            report.final_output = answer;
        }
        for path in &report.files.observed_skill_reads {
            let skill = path.parent().and_then(Path::file_name);
            let skill = skill.map_or_else(String::new, |name| name.to_string_lossy().into_owned());
            let evidence = format!("Read {}", path.display());
            detect(
                &mut report.detected_skills,
                skill,
                Confidence::Strong,
                evidence,
            );
        }
        for event in &report.events {
            if let SessionEvent::SkillSignal { skill, .. } = event {
                let evidence = "Loaded via Skill tool".to_owned();
                detect(
                    &mut report.detected_skills,
                    skill.clone(),
                    Confidence::Explicit,
                    evidence,
                );
            }
        }
        self.report
    }
}

/// Adds evidence to the skill's detection (created if new), keeping the strongest confidence.
fn detect(
    skills: &mut Vec<SkillDetection>,
    skill: String,
    confidence: Confidence,
    evidence: String,
) {
    match skills.iter_mut().find(|detection| detection.skill == skill) {
        Some(detection) => {
            detection.confidence = detection.confidence.max(confidence);
            detection.evidence.push(evidence);
        }
        None => skills.push(SkillDetection {
            skill,
            confidence,
            evidence: vec![evidence],
        }),
    }
}

/// Files a Codex command reads with `cat FILE…` or `sed -n SCRIPT FILE…`, resolved against
/// [`CODEX_CWD`]. Looks inside the `… -lc '<script>'` wrapper, splits the script on `&`, `|` and
/// `;`, and words on whitespace (quotes around a whole word are dropped; nothing more).
fn codex_reads(command: &str) -> Vec<PathBuf> {
    let script = command
        .split_once(" -lc ")
        .map_or(command, |(_, script)| unquote(script.trim()));
    script
        .split(['&', '|', ';'])
        .flat_map(|segment| {
            let words: Vec<&str> = segment.split_whitespace().map(unquote).collect();
            let files = match words.as_slice() {
                ["cat", files @ ..] | ["sed", "-n", _, files @ ..] => files.to_vec(),
                _ => Vec::new(),
            };
            files
                .into_iter()
                .filter(|file| !file.starts_with('-'))
                .map(|file| Path::new(CODEX_CWD).join(file))
        })
        .collect()
}

fn unquote(word: &str) -> &str {
    ['\'', '"']
        .into_iter()
        .find_map(|quote| word.strip_prefix(quote)?.strip_suffix(quote))
        .unwrap_or(word)
}

/// A tool result's text: a string, or the `text` of an array's items joined by newlines.
fn content_text(content: &Value) -> String {
    match content {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| string(&item["text"]))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The string at `value`, or `""`.
fn string(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}
