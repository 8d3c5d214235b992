//! The `Agent` trait: the seam between the shared machinery and one agent CLI.
//!
//! An adapter says how to launch its CLI for one session (program, flags, environment, a
//! private state directory seeded with the user's auth), how to turn each line of its stdout
//! into events (counting model rounds for `max_steps` and recording provider errors as it goes),
//! what to collect after the process ended (the agent's own session file, usage files), how
//! to resume a session for `skillgym explain`, and what `skillgym doctor` should check.
//! Everything else — processes, timeouts, workspaces, artifacts, assertions — is shared.
//!
//! | type | adapter | default program |
//! |---|---|---|
//! | `claude-code` | [`ClaudeCode`] | `claude` |
//! | `codex` | [`Codex`] | `codex` |
//! | `opencode` | [`Opencode`] | `opencode` |
//! | `copilot` | [`Copilot`] | `copilot` |
//! | `cursor-agent` | [`CursorAgent`] | `cursor-agent` |
//! | `gemini-cli` | [`GeminiCli`] | `gemini` |
//! | `qwen-code` | [`QwenCode`] | `qwen` |
//! | `command` | [`CommandAgent`] | the configured `command` |
//! | `replay` | the recorded agent's adapter, over a recording ([`crate::replay`]) | none |

/// The [`Agent`] methods every agent CLI's adapter answers alike, from its `SPEC` and its
/// `options` ([`AgentOptions`]): its type's name, the configured model, the wire API (the
/// configured provider's, else the CLI's default; none for a CLI that cannot be pointed at an
/// endpoint), that it can resume a session, and the command that prints its version. Invoked
/// inside the adapter's `impl Agent`.
macro_rules! answered_by_spec {
    () => {
        fn kind(&self) -> &str {
            SPEC.name()
        }

        fn model(&self) -> Option<&str> {
            self.options.model.as_deref()
        }

        fn wire_api(&self) -> Option<$crate::config::WireApi> {
            SPEC.wire_api(&self.options)
        }

        fn can_resume(&self) -> bool {
            true
        }

        fn version_command(&self, scratch: &std::path::Path) -> Option<$crate::agent::Launch> {
            Some(SPEC.version_command(&self.options, scratch))
        }
    };
}

mod api_error;
mod borrowed;
mod build_error;
mod claude_code;
mod claude_stream;
mod codex;
mod command;
mod copilot;
mod cursor;
mod gemini;
pub mod isolation;
mod lenient;
pub mod network;
mod opencode;
mod options;
mod pending;
pub mod provider;
mod qwen;
mod spec;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
mod version;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use claude_code::ClaudeCode;
pub use codex::Codex;
pub use command::{CommandAgent, EventLineParser};
pub use copilot::Copilot;
pub use cursor::CursorAgent;
pub use gemini::GeminiCli;
pub use opencode::Opencode;
pub use options::AgentOptions;
pub use provider::{ApiKey, Provider};
pub use qwen::QwenCode;
pub(crate) use spec::of_kind;
pub use spec::project_skills;
pub use spec::stream_version;
pub use version::parse as parse_version;

pub use build_error::AgentBuildError;

use crate::config::{AgentKind, WireApi};
use crate::normalize::ReportBuilder;
pub use crate::normalize::StreamParser;

/// One agent CLI, configured for one runner.
pub trait Agent: Send + Sync {
    /// The agent type, e.g. `command` or `claude-code`.
    fn kind(&self) -> &str;

    /// The configured model, if any.
    fn model(&self) -> Option<&str> {
        None
    }

    /// The wire API the agent speaks to a model endpoint given in [`SessionSpec::provider`]
    /// (the configured `agent.provider`'s, else the agent's default); `None` when the agent
    /// cannot be pointed at one.
    fn wire_api(&self) -> Option<WireApi> {
        None
    }

    /// The command line that runs one session. May create and seed the session's state
    /// directory; the files it lists in [`Launch::seeded`] are removed after the session.
    fn launch(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch>;

    /// A fresh parser for one session's stdout.
    fn parser(&self) -> Box<dyn StreamParser>;

    /// Runs after the process ended (whatever its outcome): copies the agent's own session
    /// file into the artifacts ([`ReportBuilder::session_file`]) and reads whatever the stream
    /// lacks (usage files, errors only printed on stderr).
    fn collect(&self, _session: &SessionSpec<'_>, _out: &mut ReportBuilder) {}

    /// The command line that asks a finished session one more question (`session.prompt`),
    /// with the original attempt's state directory; `None` when the agent cannot resume.
    fn resume(
        &self,
        _session: &SessionSpec<'_>,
        _session_id: &str,
    ) -> Option<std::io::Result<Launch>> {
        None
    }

    /// Whether [`resume`](Self::resume) can build a command line (without side effects):
    /// `skillgym explain` is offered for failed attempts of agents that can. Override it
    /// together with `resume`.
    fn can_resume(&self) -> bool {
        false
    }

    /// What `skillgym doctor` checks for this agent.
    fn setup(&self) -> AgentSetup;

    /// The command line that prints the agent's version ([`parse_version`] reads it), which
    /// the run runs once (within 20 seconds; a failure leaves the version unknown, with a
    /// warning on stderr) with `scratch`, an empty private directory, as its working directory and
    /// wherever the CLI could write (its state directory, its home). `None` (the default): the
    /// agent cannot tell, and its version is unknown (unless the stream of a built-in agent
    /// type reports it: [`stream_version`]).
    fn version_command(&self, _scratch: &Path) -> Option<Launch> {
        None
    }
}

/// What a session is about, for [`Agent::launch`].
#[derive(Debug, Clone, Copy)]
pub struct SessionSpec<'a> {
    /// The runner id.
    pub runner_id: &'a str,
    /// The prompt text.
    pub prompt: &'a str,
    /// A file holding the prompt (inside the attempt's artifact directory).
    pub prompt_file: &'a Path,
    /// The directory the agent runs in.
    pub cwd: &'a Path,
    /// The attempt's artifact directory.
    pub artifact_dir: &'a Path,
    /// A private state directory for the agent (inside the artifact directory).
    pub state_dir: &'a Path,
    /// The model endpoint for this session, over the runner's `agent.provider` (a `--mock`
    /// run's scripted server).
    pub provider: Option<&'a Provider>,
    /// The skills under test installed in the workspace for this session.
    pub skills: &'a [skillgym::InstalledSkill],
    /// Variables set for the agent besides its runner's (a variant's `env`).
    pub env: &'a [(String, String)],
}

impl<'a> SessionSpec<'a> {
    /// The endpoint the session's model requests go to: the session's, else the runner's
    /// configured one; `None` for the agent's own default.
    pub fn endpoint<'b>(&self, options: &'b AgentOptions) -> Option<&'b Provider>
    where
        'a: 'b,
    {
        self.provider.or(options.provider.as_ref())
    }
}

/// A command line to run: program, arguments and environment changes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Variables removed from the inherited environment.
    pub env_remove: Vec<OsString>,
    /// Auth files seeded for the session (private copies outside the run directory, linked
    /// from the state directory): a guard that removes them (and what the agent derived from
    /// them) when dropped, so no secret outlives the session.
    pub seeded: isolation::Seeded,
}

/// What an agent needs on this machine, for `skillgym doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSetup {
    /// The program that will be run.
    pub program: OsString,
    /// Arguments that make it print its version.
    pub version_args: Vec<String>,
    /// How to install it.
    pub install: String,
    /// Ways to authenticate; any one of them is enough. Empty: nothing to check.
    pub auth: Vec<AuthSource>,
    /// How to authenticate, said in words, for when none is found.
    pub auth_help: String,
    /// Settings of this runner that the CLI will refuse or silently ignore, each said with
    /// what to do instead.
    pub refusals: Vec<String>,
}

/// One way an agent can find its credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthSource {
    /// An environment variable (of the harness, or the runner's `agent.env`).
    Env(String),
    /// A file (absolute path).
    File(PathBuf),
    /// A condition the adapter checked itself, e.g. "settings.json selects an auth type".
    Checked {
        /// Whether it holds.
        found: bool,
        /// What it is.
        what: String,
    },
}

/// Builds the adapter for `kind`. `command` needs `options.command`.
pub fn build(kind: AgentKind, options: AgentOptions) -> Result<Arc<dyn Agent>, AgentBuildError> {
    Ok(match kind {
        AgentKind::Command => Arc::new(CommandAgent::from_options(options)?),
        AgentKind::Replay => return Err(AgentBuildError::ReplayHasNoProgram),
        cli => (spec::cli_spec(cli).build)(options),
    })
}
