//! Replay: today's adapters, assertions and graders over a recorded run, without starting any
//! agent process, so checks can be changed and re-run in seconds.
//!
//! | module | role |
//! |---|---|
//! | `recording` | a recorded run (a run directory, or a copy packed by [`pack()`]): its executions, attempts and runners' agents; symbolic links leading out of it refused |
//! | `pack` | `cargo skillgym record`: the files replay needs, copied out of a run directory into a directory marked as a recording (never into or over the run) |
//! | `crate::execute::replay` | one recorded attempt re-normalized into a session |
//!
//! Runners that replay are made with the other runners (`crate::runner`). A runner replays when `--replay <dir>` is given (every runner, matched by id) or when its
//! agent is `type: replay` (`recording: <dir>`, `runner: <recorded runner id>`).

mod pack;
pub mod recording;

use std::sync::Arc;

use crate::agent::AgentBuildError;
use crate::agent::{Agent, AgentOptions};
use crate::config::AgentKind;

pub use pack::{MARKER, PackSummary, pack};
pub use recording::{RecordedAgent, RecordedExecution, Recording};

/// Where a runner's sessions come from when it replays.
#[derive(Debug)]
pub struct ReplaySource {
    /// The recording.
    pub recording: Arc<Recording>,
    /// The runner id the sessions were recorded under.
    pub runner: String,
    /// The agent that runner ran.
    pub agent: RecordedAgent,
}

impl ReplaySource {
    /// The recorded execution of `case_id`, if any.
    pub fn execution(&self, case_id: &str, variant: Option<&str>) -> Option<&RecordedExecution> {
        self.recording.execution(case_id, &self.runner, variant)
    }

    /// Why `case_id` (under `variant`) cannot be replayed: the recording lacks it.
    pub fn missing(&self, case_id: &str, variant: Option<&str>) -> String {
        let under = variant.map_or_else(String::new, |v| format!(" under variant `{v}`"));
        format!(
            "not run: the recording {} holds no session of case `{case_id}` on runner `{}`{under}",
            self.recording.root().display(),
            self.runner
        )
    }
}

/// The adapter that parses a recorded runner's streams: the recorded agent type's, with the
/// recorded model. A `command` agent gets a placeholder program, never started.
pub(crate) fn adapter(agent: &RecordedAgent) -> Result<Arc<dyn Agent>, AgentBuildError> {
    let kind: AgentKind = serde_json::from_value(serde_json::Value::from(agent.kind.as_str()))
        .map_err(|_| {
            AgentBuildError::Recording(format!(
                "the recording's agent type `{}` is not one skillgym knows",
                agent.kind
            ))
        })?;
    let options = AgentOptions {
        model: agent.model.clone(),
        command: (kind == AgentKind::Command).then(|| "skillgym-replay".into()),
        ..AgentOptions::default()
    };
    crate::agent::build(kind, options)
}
