//! Turning an agent's events into a [`SessionReport`]: path resolution, skill detection, usage.

mod paths;
mod skills;

use std::path::{Path, PathBuf};

use skillgym::{Phase, SessionEvent, SessionReport, TokenCount, Usage};

pub use paths::resolve_path;
pub use skills::detect_skills;

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
}

impl ReportBuilder {
    /// A builder for a session that runs in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        ReportBuilder {
            cwd: cwd.into(),
            events: Vec::new(),
            usage: Usage::default(),
            session_id: None,
            final_output: None,
            warnings: Vec::new(),
            steps: 0,
        }
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Adds an event; a file read's path is made absolute and normalized.
    pub fn push(&mut self, mut event: SessionEvent) {
        if let SessionEvent::FileRead { path, .. } = &mut event {
            *path = resolve_path(&self.cwd, path);
        }
        self.events.push(event);
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

    /// Sets the final output explicitly (otherwise the last final assistant message is used).
    pub fn final_output(&mut self, text: impl Into<String>) {
        self.final_output = Some(text.into());
    }

    /// Mutable access to the usage figures.
    pub fn usage_mut(&mut self) -> &mut Usage {
        &mut self.usage
    }

    /// Adds provider-reported token figures to the running totals.
    pub fn add_provider_usage(&mut self, figures: [(UsageFigure, Option<u64>); 5]) {
        for (figure, value) in figures {
            let Some(value) = value else { continue };
            let slot = match figure {
                UsageFigure::Input => &mut self.usage.input_tokens,
                UsageFigure::Output => &mut self.usage.output_tokens,
                UsageFigure::Reasoning => &mut self.usage.reasoning_tokens,
                UsageFigure::Cache => &mut self.usage.cache_tokens,
                UsageFigure::Total => &mut self.usage.total_tokens,
            };
            let previous = slot.map_or(0, |count| count.value);
            *slot = Some(TokenCount::provider(previous + value));
        }
    }

    /// Records a problem met while parsing; never fatal.
    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    /// Builds the report. The caller fills runner, timing and raw artifact paths.
    pub fn finish(self, prompt: &str) -> SessionReport {
        let ReportBuilder {
            events,
            mut usage,
            session_id,
            final_output,
            warnings,
            ..
        } = self;
        let detected_skills = detect_skills(&events);
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
        usage.derive_total();
        SessionReport {
            session_id,
            prompt: prompt.to_owned(),
            usage,
            detected_skills,
            warnings,
            ..report
        }
    }
}

/// One of the token figures of [`Usage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
