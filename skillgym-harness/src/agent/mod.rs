//! The `Agent` trait: the seam between the shared machinery and one agent CLI.
//!
//! An adapter says how to launch its CLI for one session and how to turn each line of its
//! stdout into [`SessionEvent`](skillgym::SessionEvent)s (counting model rounds for
//! `max_steps` as it goes). Everything else — processes, timeouts, workspaces, artifacts,
//! assertions — is shared.

mod command;

use std::ffi::OsString;
use std::path::Path;

pub use command::CommandAgent;

use crate::normalize::ReportBuilder;

/// One agent CLI, configured for one runner.
pub trait Agent: Send + Sync {
    /// The agent type, e.g. `command` or `claude-code`.
    fn kind(&self) -> &str;

    /// The configured model, if any.
    fn model(&self) -> Option<&str> {
        None
    }

    /// The command line that runs one session.
    fn launch(&self, session: &SessionSpec<'_>) -> std::io::Result<Launch>;

    /// A fresh parser for one session's stdout.
    fn parser(&self) -> Box<dyn StreamParser>;
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
}

/// A command line to run: program, arguments and environment changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launch {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Variables removed from the inherited environment.
    pub env_remove: Vec<OsString>,
}

/// Parses one session's stdout, line by line.
pub trait StreamParser: Send {
    /// Parses one line (without its terminator), pushing what it finds into `out`. Must never
    /// panic: malformed input becomes a warning via [`ReportBuilder::warn`].
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder);

    /// Called once at the end of the stream.
    fn finish(&mut self, _out: &mut ReportBuilder) {}
}
