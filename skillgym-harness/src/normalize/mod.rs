//! Turning an agent's stream into a [`SessionReport`]: the [`ReportBuilder`] adapters feed,
//! path resolution, shell-command reading, skill detection and usage.
//!
//! Adapters parse each stdout line and call the builder: [`message`](ReportBuilder::message),
//! [`tool_call`](ReportBuilder::tool_call) / [`tool_result`](ReportBuilder::tool_result)
//! (paired by id), [`shell_command`](ReportBuilder::shell_command) (unwrapped, with the files
//! it reads), [`file_read`](ReportBuilder::file_read), [`skill_signal`](ReportBuilder::skill_signal),
//! [`add_usage`](ReportBuilder::add_usage), [`provider_error`](ReportBuilder::provider_error).
//! [`finish`](ReportBuilder::finish) settles what each read, skill load and command came to
//! (from its call's result, the same way for every agent), settles message phases, detects
//! skills and derives the token total (the all-zero usage of a session ended by a provider error
//! is unknown, not 0: [`Usage`] figures absent). What a report keeps of a very long session is bounded
//! ([`caps`]).

pub mod caps;
mod json;
mod outcome;
mod paths;
mod shell;
mod skills;
mod stream;

use foldhash::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use skillgym::{Phase, Role, SessionEvent, SessionReport, TokenCount, Usage};

pub use crate::lines::utf8_line;
pub use json::{JsonLine, abbreviate, epoch_millis_to_rfc3339};
pub use paths::resolve_path;
pub use skills::{KnownSkills, detect_skills};
pub(crate) use skills::{ManifestReads, manifests_read};
pub use stream::{Normalized, StreamParser, normalize_stream};
pub(crate) use stream::{feed_stream, feed_stream_until};

/// Collects what an adapter parses from one session's stream, then builds the report.
///
/// Adapters push events as they parse lines; [`step`](Self::step) counts model rounds for
/// `max_steps`. Paths of file reads are made absolute against the session's working directory.
#[derive(Debug)]
pub struct ReportBuilder {
    cwd: PathBuf,
    events: Vec<SessionEvent>,
    usage: Usage,
    session_id: Option<String>,
    final_output: Option<String>,
    warnings: Vec<String>,
    steps: u32,
    tool_names: HashMap<String, String>,
    provider_error: Option<ProviderError>,
    session_file: Option<PathBuf>,
    links: outcome::Links,
    known_skills: KnownSkills,
    caps: caps::Caps,
}

/// An error the model provider returned, as the agent reported it (HTTP status and message).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProviderError {
    /// The HTTP status, when the agent said.
    pub status: Option<u16>,
    /// The provider's message.
    pub message: String,
}

impl ProviderError {
    /// Whether the provider refused the request itself (bad model, key or request: a 4xx other
    /// than 408 and 429, or no status at all) rather than failing for a while (429, 5xx).
    pub fn is_rejection(&self) -> bool {
        match self.status {
            None => true,
            Some(status) => (400..500).contains(&status) && status != 408 && status != 429,
        }
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Some(status) => write!(f, "status {status}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Token figures of one model call or one session, as an adapter read them, already in
/// skillgym's terms: `input` includes cached input, `output` excludes reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    /// Input tokens, cache reads and writes included.
    pub input: Option<u64>,
    /// Output tokens, reasoning excluded.
    pub output: Option<u64>,
    /// Reasoning tokens.
    pub reasoning: Option<u64>,
    /// Cache-read tokens.
    pub cache_read: Option<u64>,
}

impl ReportBuilder {
    /// A builder for a session that runs in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        ReportBuilder {
            known_skills: KnownSkills::new(cwd.clone()),
            cwd,
            events: Vec::new(),
            usage: Usage::default(),
            session_id: None,
            final_output: None,
            warnings: Vec::new(),
            steps: 0,
            tool_names: HashMap::default(),
            provider_error: None,
            session_file: None,
            links: outcome::Links::default(),
            caps: caps::Caps::default(),
        }
    }

    /// Tells skill detection about skills installed for the session (their directory and
    /// name), so reads inside them are named after their frontmatter even when the files are
    /// gone by the time the stream is normalized.
    #[must_use]
    pub fn with_known_skills(mut self, skills: KnownSkills) -> Self {
        self.known_skills = skills;
        self
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Adds an event as it is, except that a file read's path is made absolute and normalized
    /// (and long texts are cut, see [`caps`]).
    pub fn push(&mut self, mut event: SessionEvent) {
        if !self.admit() {
            return;
        }
        match &mut event {
            SessionEvent::FileRead { path, .. } => *path = resolve_path(&self.cwd, path),
            SessionEvent::Message { text, .. } => *text = self.caps.text(std::mem::take(text)),
            SessionEvent::ToolCall { args, .. } => *args = self.caps.value(args.take()),
            SessionEvent::ToolResult { output, .. } => {
                *output = self.caps.text(std::mem::take(output));
            }
            SessionEvent::Command { command, .. } => {
                *command = self.caps.text(std::mem::take(command));
            }
            SessionEvent::Raw { value, .. } => *value = self.caps.value(value.take()),
            _ => {}
        }
        self.events.push(event);
    }

    /// Whether one more event may be kept ([`caps::MAX_EVENTS`]).
    fn admit(&mut self) -> bool {
        self.caps.admit_event(self.events.len())
    }

    /// The events so far.
    pub fn events(&self) -> &[SessionEvent] {
        &self.events
    }

    /// Adds a message. Assistant text without a phase is settled by [`finish`](Self::finish):
    /// the last one with no tool call after it becomes `final`, the others `commentary`.
    /// Empty text is dropped.
    pub fn message(&mut self, role: Role, phase: Option<Phase>, text: String, at: Option<String>) {
        if text.is_empty() || !self.admit() {
            return;
        }
        let text = self.caps.text(text);
        self.events.push(SessionEvent::Message {
            role,
            phase,
            text,
            at,
        });
    }

    /// Adds a tool call and remembers its tool name for the result with the same id.
    pub fn tool_call(&mut self, id: Option<&str>, tool: &str, args: Value, at: Option<String>) {
        if !self.admit() {
            return;
        }
        let args = self.caps.value(args);
        if let Some(id) = id {
            self.tool_names.insert(id.to_owned(), tool.to_owned());
        }
        self.events.push(SessionEvent::ToolCall {
            id: id.map(str::to_owned),
            tool: tool.to_owned(),
            args,
            at,
        });
    }

    /// Adds a tool result; its tool name comes from the call with the same id.
    pub fn tool_result(
        &mut self,
        id: Option<&str>,
        output: String,
        is_error: bool,
        at: Option<String>,
    ) {
        if !self.admit() {
            return;
        }
        let output = self.caps.text(output);
        let tool = id.and_then(|id| self.tool_names.get(id)).cloned();
        self.events.push(SessionEvent::ToolResult {
            id: id.map(str::to_owned),
            tool,
            output,
            is_error,
            at,
        });
    }

    /// Adds a shell command made by tool call `call` (when it has one): `/bin/bash -lc '…'`
    /// and similar wrappers are unwrapped, and the files it reads (`cat`, `sed -n`, `head`,
    /// `tail`, …) are added as file reads, resolved against `workdir` (else the session's cwd)
    /// and any `cd` before them. The reads fail when the command exits non-zero.
    pub fn shell_command(
        &mut self,
        call: Option<&str>,
        command: &str,
        exit_code: Option<i32>,
        workdir: Option<&Path>,
        at: Option<String>,
    ) {
        if !self.admit() {
            return;
        }
        let script = shell::unwrap_shell(command);
        let base = match workdir {
            Some(dir) => resolve_path(&self.cwd, dir),
            None => self.cwd.clone(),
        };
        let reads = shell::file_reads(&script, &base);
        let command_index = self.events.len();
        self.links.call(command_index, call);
        let command = self.caps.text(script);
        self.events.push(SessionEvent::Command {
            command,
            exit_code,
            at: at.clone(),
        });
        for path in reads {
            if !self.admit() {
                break;
            }
            self.links.shell_read(self.events.len(), command_index);
            self.events.push(SessionEvent::FileRead {
                path,
                error: None,
                at: at.clone(),
            });
        }
    }

    /// Records the exit status of the shell command made by call `call`, when the adapter
    /// learns it from the call's result (Claude Code states it in the result's text).
    pub fn command_exit(&mut self, call: &str, code: i32) {
        self.links.exit(call, code);
    }

    /// Adds a file read made by tool call `call` (relative paths resolve against `workdir`,
    /// else the session's cwd). It fails when the call's result is an error.
    pub fn file_read(
        &mut self,
        call: Option<&str>,
        path: &str,
        workdir: Option<&Path>,
        at: Option<String>,
    ) {
        if path.is_empty() || !self.admit() {
            return;
        }
        let base = match workdir {
            Some(dir) => resolve_path(&self.cwd, dir),
            None => self.cwd.clone(),
        };
        self.links.call(self.events.len(), call);
        self.events.push(SessionEvent::FileRead {
            path: resolve_path(&base, Path::new(path)),
            error: None,
            at,
        });
    }

    /// Adds a skill load through the agent's skill tool, made by tool call `call` (`None`
    /// for an agent's own "skill invoked" notice). It fails when the call's result is an
    /// error; its signal is then named after the tool (`tool:Skill`).
    pub fn skill_signal(&mut self, call: Option<&str>, skill: &str, at: Option<String>) {
        if skill.is_empty() || !self.admit() {
            return;
        }
        self.links.call(self.events.len(), call);
        self.events.push(SessionEvent::SkillSignal {
            skill: skill.to_owned(),
            signal: "tool:skill".to_owned(),
            error: None,
            at,
        });
    }

    /// Keeps a record the adapter does not map.
    pub fn raw(&mut self, value: Value, at: Option<String>) {
        if !self.admit() {
            return;
        }
        let value = self.caps.value(value);
        self.events.push(SessionEvent::Raw { value, at });
    }

    /// Counts one model round.
    pub fn step(&mut self) {
        self.steps += 1;
    }

    /// Model rounds counted so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Records the agent's session id (the first one wins).
    pub fn session_id(&mut self, id: impl Into<String>) {
        self.session_id.get_or_insert_with(|| id.into());
    }

    /// The session id recorded so far.
    pub fn current_session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Sets the final output explicitly (otherwise the last final assistant message is used).
    pub fn final_output(&mut self, text: impl Into<String>) {
        self.final_output = Some(self.caps.text(text.into()));
    }

    /// Mutable access to the usage figures.
    pub fn usage_mut(&mut self) -> &mut Usage {
        &mut self.usage
    }

    /// Adds one call's (or one turn's) token figures to the running totals.
    pub fn add_usage(&mut self, usage: TokenUsage) {
        add_provider(&mut self.usage.input_tokens, usage.input);
        add_provider(&mut self.usage.output_tokens, usage.output);
        add_provider(&mut self.usage.reasoning_tokens, usage.reasoning);
        add_provider(&mut self.usage.cache_tokens, usage.cache_read);
    }

    /// Replaces the token figures with a session total the agent reported (its own sum is
    /// better than ours: it knows about calls the stream does not show).
    pub fn set_usage(&mut self, usage: TokenUsage) {
        self.usage.input_tokens = usage.input.map(TokenCount::provider);
        self.usage.output_tokens = usage.output.map(TokenCount::provider);
        self.usage.reasoning_tokens = usage.reasoning.map(TokenCount::provider);
        self.usage.cache_tokens = usage.cache_read.map(TokenCount::provider);
        self.usage.total_tokens = None;
    }

    /// Whether any token figure was recorded.
    pub fn has_usage(&self) -> bool {
        self.usage.input_tokens.is_some() || self.usage.output_tokens.is_some()
    }

    /// Adds a cost in US dollars. A negative or non-finite amount is ignored, and the sum stays
    /// finite (at most `f64::MAX`).
    pub fn add_cost(&mut self, usd: f64) {
        if usd.is_finite() && usd >= 0.0 {
            let sum = self.usage.cost_usd.unwrap_or(0.0) + usd;
            self.usage.cost_usd = Some(sum.min(f64::MAX));
        }
    }

    /// Sets the session's cost in US dollars (a total the agent reported); a negative or
    /// non-finite amount is ignored.
    pub fn set_cost(&mut self, usd: f64) {
        if usd.is_finite() && usd >= 0.0 {
            self.usage.cost_usd = Some(usd);
        }
    }

    /// Adds provider-reported token figures to the running totals (skillgym's event format,
    /// where a total may be given).
    pub fn add_provider_usage(&mut self, figures: [(UsageFigure, Option<u64>); 5]) {
        for (figure, value) in figures {
            let slot = match figure {
                UsageFigure::Input => &mut self.usage.input_tokens,
                UsageFigure::Output => &mut self.usage.output_tokens,
                UsageFigure::Reasoning => &mut self.usage.reasoning_tokens,
                UsageFigure::Cache => &mut self.usage.cache_tokens,
                UsageFigure::Total => &mut self.usage.total_tokens,
            };
            add_provider(slot, value);
        }
    }

    /// Records the provider error that ended the session (the first one wins).
    pub fn provider_error(&mut self, status: Option<u16>, message: impl Into<String>) {
        self.provider_error.get_or_insert_with(|| ProviderError {
            status,
            message: message.into(),
        });
    }

    /// The provider error recorded, if any.
    pub fn current_provider_error(&self) -> Option<&ProviderError> {
        self.provider_error.as_ref()
    }

    /// Records where the agent's own session file was copied in the artifacts.
    pub fn session_file(&mut self, path: PathBuf) {
        self.session_file = Some(path);
    }

    /// The copied session file, if any.
    pub fn current_session_file(&self) -> Option<&Path> {
        self.session_file.as_deref()
    }

    /// Records that stdout line `number` (of `length` bytes, terminator included) was longer than
    /// [`crate::lines::MAX_LINE`] and so was not parsed.
    pub fn overlong_line(&mut self, number: u64, length: u64) {
        self.warn(format!(
            "stdout line {number}: {length} bytes, longer than the {} MiB a line may be; it is in stdout.log only",
            crate::lines::MAX_LINE >> 20
        ));
    }

    /// Records a problem met while parsing; never fatal.
    pub fn warn(&mut self, warning: impl Into<String>) {
        if self.caps.admit_warning(self.warnings.len()) {
            self.warnings.push(warning.into());
        }
    }

    /// Builds the report. The caller fills runner, timing and raw artifact paths.
    pub fn finish(self, prompt: &str) -> SessionReport {
        self.finish_with_error(prompt).0
    }

    /// Builds the report and hands back the provider error the stream recorded.
    pub fn finish_with_error(self, prompt: &str) -> (SessionReport, Option<ProviderError>) {
        let (report, provider_error, _) = self.finish_reading(prompt);
        (report, provider_error)
    }

    /// [`finish_with_error`](Self::finish_with_error), also handing back what skill detection
    /// read from `SKILL.md` files.
    pub(crate) fn finish_reading(
        self,
        prompt: &str,
    ) -> (SessionReport, Option<ProviderError>, ManifestReads) {
        let ReportBuilder {
            mut events,
            mut usage,
            session_id,
            final_output,
            warnings,
            provider_error,
            session_file,
            links,
            known_skills,
            tool_names,
            caps,
            ..
        } = self;
        let mut warnings = warnings;
        warnings.extend(caps.summary());
        links.settle(&mut events, &tool_names);
        let linked = links.len() + tool_names.len();
        crate::drop_aside::drop_aside((links, tool_names), linked);
        settle_phases(&mut events);
        let (detected_skills, skill_attempts, manifest_reads) =
            skills::detect_skills_reading(&events, &known_skills);
        let mut report = SessionReport::from_events(events);
        if let Some(final_output) = final_output {
            report.final_output = final_output;
        }
        usage.input_chars = prompt.chars().count() as u64;
        usage.output_chars = report.final_output.chars().count() as u64;
        usage.reasoning_chars = report
            .events
            .iter()
            .map(|event| match event {
                SessionEvent::Message {
                    phase: Some(Phase::Thinking),
                    text,
                    ..
                } => text.chars().count() as u64,
                _ => 0,
            })
            .sum();
        if provider_error.is_some() {
            unknown_when_refused(&mut usage);
        }
        usage.derive_total();
        report.raw_artifacts.session = session_file;
        let report = SessionReport {
            session_id,
            prompt: prompt.to_owned(),
            usage,
            detected_skills,
            skill_attempts,
            warnings,
            ..report
        };
        (report, provider_error, manifest_reads)
    }
}

/// The usage of a session that ended with a provider error and whose figures are all zero is
/// unknown, not 0: its token figures and cost are removed. Those zeros are the agent's
/// placeholder for "no answer" (Claude Code, Gemini CLI and Qwen Code print them when every
/// request was refused; Codex, OpenCode and Copilot print nothing), not the provider's bill.
/// Figures of calls answered before the error are kept.
fn unknown_when_refused(usage: &mut Usage) {
    let counts = [
        &mut usage.input_tokens,
        &mut usage.output_tokens,
        &mut usage.reasoning_tokens,
        &mut usage.cache_tokens,
        &mut usage.total_tokens,
    ];
    let all_zero = counts
        .iter()
        .all(|count| count.is_none_or(|count| count.value == 0))
        && usage.cost_usd.is_none_or(|cost| cost == 0.0);
    if all_zero {
        for count in counts {
            *count = None;
        }
        usage.cost_usd = None;
    }
}

/// Adds a provider-reported figure to a running total.
fn add_provider(slot: &mut Option<TokenCount>, value: Option<u64>) {
    if let Some(value) = value {
        let previous = slot.map_or(0, |count| count.value);
        *slot = Some(TokenCount::provider(previous.saturating_add(value)));
    }
}

/// Gives assistant messages without a phase one: the last such message with no tool call or
/// command after it is `final`, the others `commentary`.
fn settle_phases(events: &mut [SessionEvent]) {
    let mut action_after = false;
    let mut final_seen = events.iter().any(|event| {
        matches!(
            event,
            SessionEvent::Message {
                role: Role::Assistant,
                phase: Some(Phase::Final),
                ..
            }
        )
    });
    for event in events.iter_mut().rev() {
        match event {
            SessionEvent::ToolCall { .. } | SessionEvent::Command { .. } => action_after = true,
            SessionEvent::Message {
                role: Role::Assistant,
                phase: phase @ None,
                ..
            } => {
                if !final_seen && !action_after {
                    *phase = Some(Phase::Final);
                    final_seen = true;
                } else {
                    *phase = Some(Phase::Commentary);
                }
            }
            _ => {}
        }
    }
}

/// One of the token figures of [`Usage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageFigure {
    /// Input, cached included.
    Input,
    /// Output, reasoning excluded.
    Output,
    /// Reasoning.
    Reasoning,
    /// Cache reads.
    Cache,
    /// Total as reported.
    Total,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zero_usage_of_a_refused_session_is_unknown() {
        let zeros = TokenUsage {
            input: Some(0),
            output: Some(0),
            reasoning: None,
            cache_read: Some(0),
        };
        let mut out = ReportBuilder::new("/w");
        out.set_usage(zeros);
        out.set_cost(0.0);
        out.provider_error(Some(400), "bad model");
        let usage = out.finish("p").usage;
        assert_eq!(
            (usage.input_tokens, usage.cache_tokens, usage.total_tokens),
            (None, None, None)
        );
        assert_eq!(usage.cost_usd, None);
        assert_eq!(usage.input_chars, 1);

        // What was answered before the error stays.
        let mut out = ReportBuilder::new("/w");
        out.add_usage(TokenUsage {
            input: Some(120),
            output: Some(0),
            ..TokenUsage::default()
        });
        out.provider_error(Some(400), "too long");
        let usage = out.finish("p").usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(120)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(0)));

        // A session that was answered may well report zeros.
        let mut out = ReportBuilder::new("/w");
        out.set_usage(zeros);
        let usage = out.finish("p").usage;
        assert_eq!(usage.input_tokens, Some(TokenCount::provider(0)));
    }

    #[test]
    fn tool_results_take_the_name_of_their_call() {
        let mut out = ReportBuilder::new("/w");
        out.tool_call(Some("t1"), "Bash", json!({"command": "ls"}), None);
        out.tool_result(Some("t1"), "a\n".into(), false, None);
        out.tool_result(Some("t9"), "?".into(), true, None);
        let report = out.finish("p");
        assert!(matches!(
            &report.events[1],
            SessionEvent::ToolResult { tool: Some(tool), .. } if tool == "Bash"
        ));
        assert!(matches!(
            &report.events[2],
            SessionEvent::ToolResult {
                tool: None,
                is_error: true,
                ..
            }
        ));
    }

    #[test]
    fn shell_commands_are_unwrapped_and_their_reads_resolved() {
        let mut out = ReportBuilder::new("/w");
        out.shell_command(
            None,
            "/bin/bash -lc 'cd skills/x && cat SKILL.md'",
            Some(0),
            None,
            None,
        );
        out.shell_command(
            None,
            "sed -n '1,20p' notes.md",
            None,
            Some(Path::new("sub")),
            None,
        );
        let report = out.finish("p");
        assert_eq!(
            report.commands().collect::<Vec<_>>(),
            ["cd skills/x && cat SKILL.md", "sed -n '1,20p' notes.md"]
        );
        assert_eq!(
            report.file_reads(),
            [
                Path::new("/w/skills/x/SKILL.md"),
                Path::new("/w/sub/notes.md")
            ]
        );
    }

    #[test]
    fn reads_and_loads_count_only_when_their_call_succeeded() {
        let mut out = ReportBuilder::new("/w");
        out.tool_call(Some("r1"), "Read", json!({}), None);
        out.file_read(Some("r1"), "skills/a/SKILL.md", None, None);
        out.tool_result(Some("r1"), "---".into(), false, None);
        out.tool_call(Some("r2"), "Read", json!({}), None);
        out.file_read(Some("r2"), "skills/b/SKILL.md", None, None);
        out.tool_result(Some("r2"), "File not found".into(), true, None);
        out.tool_call(Some("k1"), "Skill", json!({}), None);
        out.skill_signal(Some("k1"), "c", None);
        out.tool_call(Some("s1"), "Bash", json!({}), None);
        out.shell_command(Some("s1"), "cat skills/d/SKILL.md", None, None, None);
        out.command_exit("s1", 1);
        out.tool_result(Some("s1"), "Exit code 1".into(), true, None);
        let report = out.finish("p");
        assert_eq!(report.file_reads(), [Path::new("/w/skills/a/SKILL.md")]);
        let detected: Vec<&str> = report
            .detected_skills
            .iter()
            .map(|d| d.skill.as_str())
            .collect();
        assert_eq!(detected, ["a"]);
        let attempts: Vec<String> = report
            .skill_attempts
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            attempts,
            [
                "b: attempted via Read /w/skills/b/SKILL.md, failed: File not found",
                "c: attempted via Skill tool, failed: no tool result was recorded (the session ended first)",
                "d: attempted via Read /w/skills/d/SKILL.md, failed: the command exited with 1",
            ]
        );
        assert!(report.events.iter().any(|event| matches!(
            event,
            SessionEvent::Command {
                exit_code: Some(1),
                ..
            }
        )));
    }

    #[test]
    fn phases_are_settled_from_what_follows() {
        let mut out = ReportBuilder::new("/w");
        out.message(Role::Assistant, None, "Let me look.".into(), None);
        out.tool_call(None, "Read", json!({}), None);
        out.message(Role::Assistant, None, "It says hi.".into(), None);
        out.message(Role::Assistant, None, "".into(), None);
        let report = out.finish("p");
        let phases: Vec<_> = report
            .events
            .iter()
            .filter_map(|event| match event {
                SessionEvent::Message { phase, .. } => *phase,
                _ => None,
            })
            .collect();
        assert_eq!(phases, [Phase::Commentary, Phase::Final]);
        assert_eq!(report.final_output, "It says hi.");
    }

    #[test]
    fn usage_sums_calls_and_a_reported_total_replaces_them() {
        let mut out = ReportBuilder::new("/w");
        let call = TokenUsage {
            input: Some(100),
            output: Some(10),
            reasoning: None,
            cache_read: Some(60),
        };
        out.add_usage(call);
        out.add_usage(call);
        let summed = out.usage_mut().clone();
        assert_eq!(summed.input_tokens, Some(TokenCount::provider(200)));
        assert_eq!(summed.cache_tokens, Some(TokenCount::provider(120)));
        out.set_usage(TokenUsage {
            input: Some(300),
            output: Some(30),
            reasoning: Some(5),
            cache_read: Some(100),
        });
        out.add_cost(0.25);
        out.add_cost(0.5);
        let report = out.finish("p");
        assert_eq!(report.usage.total_tokens, Some(TokenCount::derived(235)));
        assert_eq!(report.usage.cost_usd, Some(0.75));
    }

    #[test]
    fn provider_errors_tell_rejections_from_transient_failures() {
        let error = |status| ProviderError {
            status,
            message: "m".into(),
        };
        for rejected in [None, Some(400), Some(401), Some(403), Some(404), Some(422)] {
            assert!(error(rejected).is_rejection(), "{rejected:?}");
        }
        for transient in [Some(408), Some(429), Some(500), Some(529)] {
            assert!(!error(transient).is_rejection(), "{transient:?}");
        }
        assert_eq!(error(Some(400)).to_string(), "status 400: m");
    }
}
