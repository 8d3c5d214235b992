//! A configured runner: its id, its agent, and where its sessions come from when it replays a
//! recording instead of running its agent.

use std::path::Path;
use std::sync::Arc;

use crate::agent::Agent;
use crate::agent::AgentBuildError;
use crate::replay::{self, RecordedAgent, Recording, ReplaySource};

/// A configured runner: an id and its agent.
#[derive(Clone)]
pub struct Runner {
    /// The runner id.
    pub id: String,
    /// The agent adapter.
    pub agent: Arc<dyn Agent>,
    /// Where its sessions come from when it replays a recording instead of running its agent.
    pub replay: Option<Arc<ReplaySource>>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("id", &self.id)
            .field("agent", &self.agent.kind())
            .field("replay", &self.replay.is_some())
            .finish()
    }
}

/// A runner `id` replaying runner `recorded` of `recording` (`type: replay`).
pub(crate) fn replaying(
    id: &str,
    recording: Arc<Recording>,
    recorded: &str,
) -> Result<Runner, AgentBuildError> {
    let agent = recording.agent(recorded).ok_or_else(|| {
        AgentBuildError::Recording(format!(
            "the recording {} holds no runner `{recorded}` (it holds: {})",
            recording.root().display(),
            recording.runner_ids().join(", ")
        ))
    })?;
    Ok(Runner {
        id: id.to_owned(),
        agent: replay::adapter(&agent)?,
        replay: Some(Arc::new(ReplaySource {
            recording,
            runner: recorded.to_owned(),
            agent,
        })),
    })
}

/// `--replay <dir>`: every runner replays the recorded runner of its id with its own adapter,
/// which must be of the recorded agent type; a runner the recording lacks has every execution
/// skipped with the reason.
pub(crate) fn replay_all(runners: &mut [Runner], dir: &Path) -> Result<(), AgentBuildError> {
    let recording = Arc::new(
        Recording::open(dir)
            .map_err(|error| AgentBuildError::Recording(format!("--replay: {error}")))?,
    );
    for runner in runners {
        let agent = match recording.agent(&runner.id) {
            Some(agent) if agent.kind != runner.agent.kind() => {
                return Err(AgentBuildError::Recording(format!(
                    "--replay: runner `{}` is a `{}` agent, but the recording's `{}` ran `{}`; replay it with a runner of that type (or `type: replay`)",
                    runner.id,
                    runner.agent.kind(),
                    runner.id,
                    agent.kind
                )));
            }
            Some(agent) => agent,
            None => RecordedAgent {
                kind: runner.agent.kind().to_owned(),
                model: runner.agent.model().map(str::to_owned),
                version: None,
            },
        };
        runner.replay = Some(Arc::new(ReplaySource {
            recording: Arc::clone(&recording),
            runner: runner.id.clone(),
            agent,
        }));
    }
    Ok(())
}
