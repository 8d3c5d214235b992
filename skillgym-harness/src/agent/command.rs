//! The generic `command` agent: any program that prints skillgym's event JSONL.
//!
//! The program gets the prompt as its last argument, unless an argument contains `{prompt}` or
//! `{prompt_file}`, which are replaced by the prompt text and the path of a file holding it.
//! Each stdout line is one JSON object with a `type`:
//!
//! | `type` | fields | meaning |
//! |---|---|---|
//! | `message` | `role` (`user`/`assistant`), `phase?` (`thinking`/`commentary`/`final`), `text` | text; each assistant message is one step for `max_steps` |
//! | `tool_call` | `tool`, `id?`, `args?` | a tool invocation |
//! | `tool_result` | `id?`, `tool?`, `output`, `is_error?` | its result |
//! | `command` | `command`, `exit_code?` | a shell command |
//! | `file_read` | `path` (relative paths resolve against the session's cwd), `error?` | a file read; with `error`, one that failed (not evidence) |
//! | `skill_signal` | `skill`, `signal`, `error?` | an explicit skill load; with `error`, one that failed (not evidence) |
//! | `usage` | `input_tokens?`, `output_tokens?`, `reasoning_tokens?`, `cache_tokens?`, `total_tokens?`, `cost_usd?` | token usage, summed over records |
//! | `session` | `id` | the agent's session id |
//!
//! To be resumed by `skillgym explain`, the program needs resume arguments
//! (`agent.resume_args`, [`CommandAgent::resume_args`]): they replace `args` for the question's
//! session, `{session_id}` is replaced by the recorded session id, and the question goes last
//! unless `{prompt}` or `{prompt_file}` place it. Without them the agent cannot resume.
//!
//! Its version is what the program prints for version arguments (`agent.version_args`,
//! [`CommandAgent::version_args`]), asked once per run; without them it is unknown.
//!
//! With a model endpoint (`agent.provider`, or the scripted server of a `--mock` run) the
//! program finds it in `SKILLGYM_PROVIDER_BASE_URL`, `SKILLGYM_PROVIDER_API_KEY` and
//! `SKILLGYM_PROVIDER_WIRE_API`.
//!
//! Every event may carry `at` (RFC 3339). Other types are kept as raw events; lines that are
//! not JSON objects become warnings. The final output is the last assistant message with phase
//! `final`, else the last non-thinking assistant message.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use skillgym::{Role, SessionEvent};

use super::{Agent, AgentOptions, AgentSetup, Launch, Provider, SessionSpec, StreamParser};
use crate::agent::AgentBuildError;
use crate::config::WireApi;
use crate::normalize::{ReportBuilder, UsageFigure, abbreviate};

/// Runs a configured program that speaks skillgym's event JSONL.
#[derive(Debug, Clone)]
pub struct CommandAgent {
    program: PathBuf,
    args: Vec<String>,
    resume_args: Option<Vec<String>>,
    version_args: Option<Vec<String>>,
    env: Vec<(String, String)>,
    model: Option<String>,
    provider: Option<Provider>,
}

impl CommandAgent {
    /// An agent that runs `program`: a name looked up on `PATH`, or a path (a relative one is
    /// taken from the current directory now, since the agent runs in its workspace).
    pub fn new(program: impl Into<PathBuf>) -> Self {
        CommandAgent {
            program: absolute_path(program.into()),
            args: Vec::new(),
            resume_args: None,
            version_args: None,
            env: Vec::new(),
            model: None,
            provider: None,
        }
    }

    /// An agent from a runner's options; `command` is required.
    pub fn from_options(options: AgentOptions) -> Result<Self, AgentBuildError> {
        let Some(program) = options.command else {
            return Err(AgentBuildError::MissingCommand);
        };
        Ok(CommandAgent {
            program: absolute_path(program),
            args: options.args,
            resume_args: options.resume_args,
            version_args: options.version_args,
            env: options.env,
            model: options.model,
            provider: options.provider,
        })
    }

    /// Appends an argument (`{prompt}` and `{prompt_file}` are substituted).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The arguments that resume a session for `skillgym explain`, in place of the
    /// [`args`](Self::args): `{session_id}` is replaced by the session's id, and the question
    /// goes last unless `{prompt}` or `{prompt_file}` place it.
    ///
    /// ```
    /// use skillgym_harness::CommandAgent;
    ///
    /// let agent = CommandAgent::new("./bin/agent").resume_args(["--resume", "{session_id}"]);
    /// # drop(agent);
    /// ```
    pub fn resume_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.resume_args = Some(args.into_iter().map(Into::into).collect());
        self
    }

    /// The arguments that make the program print its version (`agent.version_args`), which
    /// the run asks once; without them the version is unknown.
    ///
    /// ```
    /// use skillgym_harness::CommandAgent;
    ///
    /// let agent = CommandAgent::new("./bin/agent").version_args(["--version"]);
    /// # drop(agent);
    /// ```
    pub fn version_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.version_args = Some(args.into_iter().map(Into::into).collect());
        self
    }

    /// Sets an environment variable for the program.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Records the model name (reported in the session report; the program gets it as
    /// `SKILLGYM_MODEL`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Hands the program a model endpoint, in `SKILLGYM_PROVIDER_BASE_URL`,
    /// `SKILLGYM_PROVIDER_API_KEY` and `SKILLGYM_PROVIDER_WIRE_API`.
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }
}

impl Agent for CommandAgent {
    fn kind(&self) -> &str {
        "command"
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn wire_api(&self) -> Option<WireApi> {
        Some(
            self.provider
                .as_ref()
                .map_or(WireApi::OpenaiChat, |p| p.wire_api),
        )
    }

    fn launch(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch> {
        Ok(self.command(session, &self.args, None))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(EventLineParser::default())
    }

    fn resume(
        &self,
        session: &SessionSpec<'_>,
        session_id: &str,
    ) -> Option<std::io::Result<Launch>> {
        let args = self.resume_args.as_ref()?;
        Some(Ok(self.command(session, args, Some(session_id))))
    }

    fn can_resume(&self) -> bool {
        self.resume_args.is_some()
    }

    fn version_command(&self, _scratch: &std::path::Path) -> Option<Launch> {
        let args = self.version_args.as_ref()?;
        Some(Launch {
            program: self.program.clone().into_os_string(),
            args: args.iter().map(OsString::from).collect(),
            env: self
                .env
                .iter()
                .map(|(key, value)| (key.into(), value.into()))
                .collect(),
            ..Launch::default()
        })
    }

    fn setup(&self) -> AgentSetup {
        AgentSetup {
            program: self.program.clone().into_os_string(),
            version_args: self.version_args.clone().unwrap_or_default(),
            install: "a program that prints skillgym's event JSONL (see the `command` agent docs)"
                .to_owned(),
            auth: Vec::new(),
            auth_help: String::new(),
            refusals: Vec::new(),
        }
    }
}

impl CommandAgent {
    /// The command line of a session: `args` with the placeholders substituted (`{session_id}`
    /// too, when resuming), the prompt last unless a placeholder placed it, and the environment.
    fn command(
        &self,
        session: &SessionSpec<'_>,
        args: &[String],
        session_id: Option<&str>,
    ) -> Launch {
        let prompt_file = session.prompt_file.to_string_lossy();
        let mut placeholder_used = false;
        let mut args: Vec<OsString> = args
            .iter()
            .map(|arg| {
                placeholder_used |= arg.contains("{prompt}") || arg.contains("{prompt_file}");
                let arg = match session_id {
                    Some(id) => arg.replace("{session_id}", id),
                    None => arg.clone(),
                };
                arg.replace("{prompt_file}", &prompt_file)
                    .replace("{prompt}", session.prompt)
                    .into()
            })
            .collect();
        if !placeholder_used {
            args.push(session.prompt.into());
        }
        let mut env: Vec<(OsString, OsString)> = self
            .env
            .iter()
            .map(|(key, value)| (key.into(), value.into()))
            .collect();
        if let Some(model) = &self.model {
            env.push(("SKILLGYM_MODEL".into(), model.into()));
        }
        if let Some(provider) = session.provider.or(self.provider.as_ref()) {
            env.extend([
                (
                    "SKILLGYM_PROVIDER_BASE_URL".into(),
                    (&provider.base_url).into(),
                ),
                (
                    "SKILLGYM_PROVIDER_API_KEY".into(),
                    provider.key_value(&self.env).into(),
                ),
                (
                    "SKILLGYM_PROVIDER_WIRE_API".into(),
                    provider.wire_api.as_str().into(),
                ),
            ]);
        }
        Launch {
            program: self.program.clone().into_os_string(),
            args,
            env,
            ..Launch::default()
        }
    }
}

/// A relative path with a directory part (`./bin/agent`, `bin/agent`), made absolute against
/// the current directory; a bare name (looked up on `PATH`) and absolute paths as they are.
fn absolute_path(program: PathBuf) -> PathBuf {
    if program.is_relative()
        && program.components().count() > 1
        && let Ok(dir) = std::env::current_dir()
    {
        return dir.join(program);
    }
    program
}

/// Parses skillgym's event JSONL.
#[derive(Debug, Default)]
pub struct EventLineParser {
    line_number: u64,
}

#[derive(Deserialize)]
struct UsageRecord {
    #[serde(default, deserialize_with = "super::lenient::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    reasoning_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    cache_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::count")]
    total_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient::amount")]
    cost_usd: Option<f64>,
}

impl StreamParser for EventLineParser {
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder) {
        self.line_number += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        let value: Value = match serde_json::from_str(trimmed) {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) | Err(_) => {
                out.warn(format!(
                    "stdout line {}: not a JSON object: {}",
                    self.line_number,
                    abbreviate(trimmed)
                ));
                return;
            }
        };
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match kind.as_str() {
            "usage" => match UsageRecord::deserialize(&value) {
                Ok(usage) => {
                    out.add_provider_usage([
                        (UsageFigure::Input, usage.input_tokens),
                        (UsageFigure::Output, usage.output_tokens),
                        (UsageFigure::Reasoning, usage.reasoning_tokens),
                        (UsageFigure::Cache, usage.cache_tokens),
                        (UsageFigure::Total, usage.total_tokens),
                    ]);
                    if let Some(cost) = usage.cost_usd {
                        out.add_cost(cost);
                    }
                }
                Err(error) => self.keep_raw(value, &format!("bad usage record: {error}"), out),
            },
            "session" => match value.get("id").and_then(Value::as_str) {
                Some(id) => out.session_id(id),
                None => self.keep_raw(value, "session record without a string `id`", out),
            },
            "message" | "tool_call" | "tool_result" | "command" | "file_read" | "skill_signal" => {
                match SessionEvent::deserialize(&value) {
                    Ok(event) => {
                        if matches!(
                            event,
                            SessionEvent::Message {
                                role: Role::Assistant,
                                ..
                            }
                        ) {
                            out.step();
                        }
                        out.push(event);
                    }
                    Err(error) => {
                        self.keep_raw(value, &format!("bad `{kind}` event: {error}"), out)
                    }
                }
            }
            _ => out.push(SessionEvent::Raw { value, at: None }),
        }
    }
}

impl EventLineParser {
    fn keep_raw(&self, value: Value, problem: &str, out: &mut ReportBuilder) {
        out.warn(format!("stdout line {}: {problem}", self.line_number));
        out.push(SessionEvent::Raw { value, at: None });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgym::{Confidence, Phase};
    use std::path::Path;

    fn parse(lines: &[&str]) -> (skillgym::SessionReport, u32) {
        let mut out = ReportBuilder::new("/work/app");
        let mut parser = EventLineParser::default();
        for line in lines {
            parser.parse_line(line, &mut out);
        }
        let steps = out.steps();
        (out.finish("the prompt"), steps)
    }

    #[test]
    fn maps_every_record_type() {
        let (report, steps) = parse(&[
            r#"{"type":"session","id":"s-1"}"#,
            r#"{"type":"message","role":"assistant","phase":"thinking","text":"hmm"}"#,
            r#"{"type":"tool_call","id":"t1","tool":"Read","args":{"file_path":"x"}}"#,
            r#"{"type":"file_read","path":"skills/find-skills/SKILL.md"}"#,
            r#"{"type":"tool_result","id":"t1","output":"ok"}"#,
            r#"{"type":"command","command":"npx skills find expo","exit_code":0}"#,
            r#"{"type":"skill_signal","skill":"other","signal":"tool:skill"}"#,
            r#"{"type":"usage","input_tokens":100,"output_tokens":20,"cache_tokens":40,"cost_usd":0.5}"#,
            r#"{"type":"usage","input_tokens":50,"output_tokens":5}"#,
            r#"{"type":"message","role":"assistant","phase":"final","text":"done"}"#,
            r#"{"type":"vendor_thing","x":1}"#,
        ]);
        assert_eq!(steps, 2);
        assert_eq!(report.session_id.as_deref(), Some("s-1"));
        assert_eq!(report.final_output, "done");
        assert_eq!(
            report.commands().collect::<Vec<_>>(),
            ["npx skills find expo"]
        );
        assert_eq!(
            report.file_reads(),
            [Path::new("/work/app/skills/find-skills/SKILL.md")]
        );
        assert_eq!(report.files.observed_skill_reads.len(), 1);
        assert_eq!(
            report.skill("find-skills").map(|s| s.confidence),
            Some(Confidence::Strong)
        );
        assert_eq!(
            report.skill("other").map(|s| s.confidence),
            Some(Confidence::Explicit)
        );
        assert_eq!(report.usage.input_tokens.map(|c| c.value), Some(150));
        assert_eq!(report.usage.output_tokens.map(|c| c.value), Some(25));
        assert_eq!(report.usage.total_tokens.map(|c| c.value), Some(135));
        assert_eq!(report.usage.cost_usd, Some(0.5));
        assert_eq!(report.usage.reasoning_chars, 3);
        assert!(matches!(
            report.events.last(),
            Some(SessionEvent::Raw { .. })
        ));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert!(matches!(
            report.events[0],
            SessionEvent::Message {
                phase: Some(Phase::Thinking),
                ..
            }
        ));
    }

    #[test]
    fn malformed_lines_become_warnings() {
        let (report, _) = parse(&[
            "not json",
            "[1,2]",
            r#"{"type":"command"}"#,
            r#"{"type":"message","role":"assistant","text":"fallback answer"}"#,
            "{\"type\":\"message\",\"role\":\"assistant\",\"text\":\"trunc",
        ]);
        assert_eq!(report.warnings.len(), 4, "{:?}", report.warnings);
        assert!(report.warnings[0].starts_with("stdout line 1: not a JSON object: not json"));
        assert!(report.warnings[2].contains("bad `command` event"));
        assert_eq!(report.final_output, "fallback answer");
    }

    #[test]
    fn prompt_goes_last_unless_a_placeholder_is_used() {
        let spec = |prompt_file: &'static str| SessionSpec {
            runner_id: "r",
            prompt: "hi there",
            prompt_file: Path::new(prompt_file),
            cwd: Path::new("/w"),
            artifact_dir: Path::new("/a"),
            state_dir: Path::new("/a/state"),
            provider: None,
            skills: &[],
            env: &[],
        };
        let plain = CommandAgent::new("agent")
            .arg("--json")
            .launch(&spec("/a/p.md"))
            .unwrap();
        assert_eq!(plain.args, ["--json", "hi there"]);
        let placed = CommandAgent::new("agent")
            .args(["-p", "{prompt}", "--file={prompt_file}"])
            .model("m1")
            .launch(&spec("/a/p.md"))
            .unwrap();
        assert_eq!(placed.args, ["-p", "hi there", "--file=/a/p.md"]);
        assert_eq!(placed.env, [("SKILLGYM_MODEL".into(), "m1".into())]);
    }

    #[test]
    fn resumes_only_with_resume_args() {
        let spec = SessionSpec {
            runner_id: "r",
            prompt: "why?",
            prompt_file: Path::new("/a/q.md"),
            cwd: Path::new("/w"),
            artifact_dir: Path::new("/a"),
            state_dir: Path::new("/a/state"),
            provider: None,
            skills: &[],
            env: &[],
        };
        let plain = CommandAgent::new("agent").arg("--json");
        assert!(!plain.can_resume());
        assert!(plain.resume(&spec, "s-1").is_none());
        let agent = plain.resume_args(["--resume", "{session_id}"]);
        assert!(agent.can_resume());
        let launch = agent.resume(&spec, "s-1").unwrap().unwrap();
        assert_eq!(launch.args, ["--resume", "s-1", "why?"]);
        let normal = agent.launch(&spec).unwrap();
        assert_eq!(normal.args, ["--json", "why?"]);
    }
}
