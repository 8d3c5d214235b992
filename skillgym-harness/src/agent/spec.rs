//! What each agent CLI is, as data ([`AgentSpec`]), and the one skeleton every adapter's
//! launch and `skillgym doctor` entry follow: a private state directory, the user's login
//! seeded into it under a [`Seeded`] guard, the user's own skills kept away (or linked in), the
//! agent's fixed environment. What truly differs (arguments, the stream parser, what to collect
//! after the session, how to resume, how a provider endpoint is mapped) stays in the adapters.
//!
//! | type | program | state variable (private dir) | user dir | seeded | skills under test go to | user skills kept away by |
//! |---|---|---|---|---|---|---|
//! | `claude-code` | `claude` | `CLAUDE_CONFIG_DIR` (`claude`) | `~/.claude` | `.credentials.json` | `.claude/skills` | the private config dir |
//! | `codex` | `codex` | `CODEX_HOME` (`codex-home`) | `~/.codex` | `auth.json`, `config.toml` | `.agents/skills` | the private `CODEX_HOME` and `HOME` |
//! | `opencode` | `opencode` | the `XDG_*` dirs (`xdg/…`) | `~/.local/share/opencode`, `~/.config/opencode` | `auth.json`, `opencode.json[c]`, `config.json` | `.opencode/skills` | the private XDG dirs and `HOME` |
//! | `copilot` | `copilot` | `COPILOT_HOME` (`copilot-home`) | `~/.copilot` | `config.json` | `.github/skills` | the private `COPILOT_HOME` |
//! | `gemini-cli` | `gemini` | `GEMINI_CLI_HOME` (`gemini-home`) | `~` | `.gemini/` settings and credentials | `.gemini/skills` | the private `GEMINI_CLI_HOME` |
//! | `qwen-code` | `qwen` | `QWEN_HOME` (`qwen`) | `~/.qwen` | `oauth_creds.json`, `.env`, `settings.json` (auth keys only) | `.qwen/skills` | the private `QWEN_HOME` and `HOME` |
//! | `cursor-agent` | `cursor-agent` | none | — | — | `.cursor/skills` (unverified) | — (unverified) |
//! | `command` | the configured one | — | — | — | `.agents/skills` | — |
//!
//! How each CLI tells its version is in [`super::version`]; where its sessions connect, in
//! [`super::network`]; the endpoints it can be pointed at, in [`super::provider`].
//!
//! A spec holds every fact the rest of the harness asks about an agent type, so [`AgentKind`]'s
//! name, wire APIs and example model, `build`, `doctor`'s network list and the fuzz targets' lists
//! of types all read [`ALL`]. Adding an agent is: its `AgentKind` variant, its adapter file with
//! its `SPEC` (the methods every adapter answers alike come from `answered_by_spec!`), its line
//! in [`ALL`] and `mod`/`pub use` lines in `agent/mod.rs`, its rows in the module docs' tables
//! and the book (`docs/src/agents/`), and its fixtures and test rows (`agent/tests.rs`, `tests/launch.rs`,
//! `tests/golden.rs`): the tests over [`ALL`] fail until it has them.
//!
//! Each skill under test goes into one directory only: an agent reading two of them would list
//! it twice. The directories were established by running each CLI against the scripted model
//! with a probe skill in every candidate directory (the book's agent pages list all each agent reads).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::isolation::{self, Seeded};
use super::options::set_env;
use super::version::VersionSpec;
use super::{Agent, AgentOptions, AgentSetup, AuthSource, Launch, SessionSpec};
use crate::config::{AgentKind, WireApi};

/// One agent CLI, as data.
#[derive(Debug)]
pub(crate) struct AgentSpec {
    /// The agent type.
    pub kind: AgentKind,
    /// The type's name in YAML and reports (`claude-code`): the kebab-case name of `kind`.
    pub name: &'static str,
    /// Makes the adapter.
    pub build: fn(AgentOptions) -> Arc<dyn Agent>,
    /// The wire APIs the CLI can speak to a custom endpoint, its default first; empty when it
    /// cannot be pointed at one.
    pub wire_apis: &'static [WireApi],
    /// A model name the CLI accepts, for error messages.
    pub example_model: &'static str,
    /// Where a session may connect with the user's login, besides the npm registry
    /// ([`super::network`]).
    pub contacts: &'static [&'static str],
    /// Why the CLI fetches from the npm registry at start, when it does (with any endpoint).
    pub npm_at_start: Option<&'static str>,
    /// The default program.
    pub program: &'static str,
    /// How to install it.
    pub install: &'static str,
    /// Variables that hold a credential the CLI accepts.
    pub auth_env: &'static [&'static str],
    /// How to authenticate, in words.
    pub auth_help: &'static str,
    /// The private state directory, when the CLI has a variable that moves its state.
    pub state: Option<StateSpec>,
    /// Variables every session gets (update checks and telemetry off, …).
    pub fixed_env: &'static [(&'static str, &'static str)],
    /// Where the agent finds project skills; the harness installs skills under test there.
    pub project_skills: &'static str,
    /// Whether the agent also reads user skills under `$HOME` itself (`~/.agents/skills`):
    /// then the session gets a private `HOME`.
    pub home_skills: bool,
    /// How the CLI tells its version ([`super::version`]).
    pub version: VersionSpec,
}

/// A CLI's private state directory.
#[derive(Debug)]
pub(crate) struct StateSpec {
    /// The variable that moves the state (`CLAUDE_CONFIG_DIR`).
    pub var: &'static str,
    /// The private directory's name under the attempt's state directory.
    pub private: &'static str,
    /// The user's own directory below the home, when the variable is not set (`.claude`; empty:
    /// the home itself).
    pub user: &'static str,
    /// Files copied from the user's directory into the private one (the login).
    pub seed: &'static [&'static str],
    /// What is copied instead when the session has a model endpoint of its own (the user's
    /// login stays home).
    pub seed_with_endpoint: &'static [&'static str],
    /// Files of the user's directory any one of which means a login, for `skillgym doctor`.
    pub auth_files: &'static [&'static str],
    /// The user-level skill directories, relative to the state directory (linked to the
    /// user's with `run.user_skills: inherit`).
    pub skill_dirs: &'static [&'static str],
    /// Whether the CLI creates the directory when it is missing (as it creates its default one
    /// on a fresh machine): then the harness creates it only to put something in it, and an
    /// attempt that keeps no state leaves no empty directory.
    pub created_by_agent: bool,
}

/// A session's prepared state directory.
#[derive(Debug)]
pub(crate) struct State {
    /// The directory (`$CLAUDE_CONFIG_DIR` of the session).
    pub dir: PathBuf,
    /// Whether it is skillgym's private one (else the runner's `agent.env` chose it).
    pub private: bool,
    /// The seeded login, removed when dropped.
    pub seeded: Seeded,
}

impl AgentSpec {
    /// The agent type's name (`claude-code`).
    pub(super) fn name(&self) -> &'static str {
        self.name
    }

    /// The wire API a session speaks ([`super::provider::wire_api`]); `None` for a CLI that
    /// cannot be pointed at an endpoint.
    pub(super) fn wire_api(&self, options: &AgentOptions) -> Option<WireApi> {
        if self.wire_apis.is_empty() {
            return None;
        }
        super::provider::wire_api(self.kind, options)
    }

    /// The state directory of `session`: the one `agent.env` names, else the private one.
    pub(super) fn state_dir(
        &self,
        options: &AgentOptions,
        session: &SessionSpec<'_>,
    ) -> Option<State> {
        let state = self.state.as_ref()?;
        Some(match options.env_dir(state.var) {
            Some(dir) => State {
                dir,
                private: false,
                seeded: Seeded::default(),
            },
            None => State {
                dir: session.state_dir.join(state.private),
                private: true,
                seeded: Seeded::default(),
            },
        })
    }

    /// The user's own state directory (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub(super) fn user_dir(&self, options: &AgentOptions) -> Option<PathBuf> {
        let state = self.state.as_ref()?;
        options.user_dir(state.var, state.user)
    }

    /// Prepares the state directory of `session`: a private one is created, the user's login
    /// is seeded into it (the `seed_with_endpoint` files when the session has a model endpoint
    /// of its own) and, with `run.user_skills: inherit`, its skill directories are linked to
    /// the user's. A directory `agent.env` chose is used as it is.
    pub(super) fn prepare_state(
        &self,
        options: &AgentOptions,
        session: &SessionSpec<'_>,
    ) -> std::io::Result<Option<State>> {
        let (Some(spec), Some(mut state)) = (&self.state, self.state_dir(options, session)) else {
            return Ok(None);
        };
        if !state.private {
            return Ok(Some(state));
        }
        if !spec.created_by_agent {
            isolation::create_dir_below(session.artifact_dir, &state.dir)?;
        }
        if let Some(user) = self.user_dir(options).filter(|user| *user != state.dir) {
            let links: Vec<(PathBuf, PathBuf)> = spec
                .skill_dirs
                .iter()
                .map(|dir| (state.dir.join(dir), user.join(dir)))
                .collect();
            isolation::inherit_user_skills(options, &links)?;
            let files = match session.endpoint(options) {
                Some(_) => spec.seed_with_endpoint,
                None => spec.seed,
            };
            state.seeded.seed(&user, &state.dir, files)?;
        }
        Ok(Some(state))
    }

    /// A launch of the program with `agent.args`, the fixed environment, the state variable
    /// and (for agents that read skills under `$HOME`) a private home. The adapter adds its
    /// arguments, then calls [`AgentOptions::finish_launch`].
    pub(super) fn start_launch(
        &self,
        options: &AgentOptions,
        session: &SessionSpec<'_>,
        state: Option<&State>,
    ) -> std::io::Result<Launch> {
        let mut launch = options.start_launch(self.program);
        for (key, value) in self.fixed_env {
            set_env(&mut launch, key, *value);
        }
        if let (Some(spec), Some(state)) = (&self.state, state) {
            set_env(&mut launch, spec.var, &state.dir);
        }
        if self.home_skills {
            isolation::private_home(options, session.state_dir, &mut launch)?;
        }
        Ok(launch)
    }

    /// The command line that prints the CLI's version: the program with `agent.args`, the
    /// version arguments and the fixed environment, with `scratch` (an empty private
    /// directory) as its state directory and, where sessions get a private `HOME`, as its home
    /// (what `agent.env` sets wins, as in sessions).
    pub(super) fn version_command(&self, options: &AgentOptions, scratch: &Path) -> Launch {
        let mut launch = options.start_launch(self.program);
        launch.args.extend(self.version.os_args());
        for (key, value) in self.fixed_env {
            set_env(&mut launch, key, *value);
        }
        if let Some(state) = &self.state {
            set_env(&mut launch, state.var, scratch);
        }
        if self.home_skills && !options.inherit_user_skills {
            set_env(&mut launch, "HOME", scratch);
        }
        options.finish_launch(launch)
    }

    /// What `skillgym doctor` checks: the program, the credential variables, the login files
    /// of the user's directory, then `extra` sources; `refusals` as the adapter found them.
    pub(super) fn setup(
        &self,
        options: &AgentOptions,
        extra: Vec<AuthSource>,
        refusals: Vec<String>,
    ) -> AgentSetup {
        let mut auth: Vec<AuthSource> = self
            .auth_env
            .iter()
            .map(|name| AuthSource::Env((*name).to_owned()))
            .collect();
        if let (Some(state), Some(dir)) = (&self.state, self.user_dir(options)) {
            let login = options.env_dir(state.var).unwrap_or(dir);
            auth.extend(
                state
                    .auth_files
                    .iter()
                    .map(|file| AuthSource::File(login.join(file))),
            );
        }
        auth.extend(extra);
        AgentSetup {
            program: options.program(self.program),
            version_args: self
                .version
                .args
                .iter()
                .map(|arg| (*arg).to_owned())
                .collect(),
            install: self.install.to_owned(),
            auth,
            auth_help: self.auth_help.to_owned(),
            refusals,
        }
    }
}

/// The spec of every agent CLI (all types but `command` and `replay`), in the order the docs
/// list them ([`AgentKind::CLIS`]). Adding an agent adds its line here.
pub(crate) const ALL: &[&AgentSpec] = &[
    &super::claude_code::SPEC,
    &super::codex::SPEC,
    &super::opencode::SPEC,
    &super::copilot::SPEC,
    &super::cursor::SPEC,
    &super::gemini::SPEC,
    &super::qwen::SPEC,
];

/// The spec of an agent type, by name (`None` for `command` and `replay`).
pub(crate) fn of(kind: &str) -> Option<&'static AgentSpec> {
    ALL.iter().copied().find(|spec| spec.name == kind)
}

/// The spec of an agent type (`None` for `command` and `replay`).
pub(crate) fn of_kind(kind: AgentKind) -> Option<&'static AgentSpec> {
    ALL.iter().copied().find(|spec| spec.kind == kind)
}

/// The facts of [`AgentKind`] that differ per agent CLI, read from its spec; `command` and
/// `replay`, which have none, are answered here.
impl AgentKind {
    /// Every agent CLI type (all but `command` and `replay`), in the order the docs list them.
    pub const CLIS: [AgentKind; ALL.len()] = {
        let mut kinds = [AgentKind::Command; ALL.len()];
        let mut i = 0;
        while i < ALL.len() {
            kinds[i] = ALL[i].kind;
            i += 1;
        }
        kinds
    };

    /// The canonical name used in YAML, e.g. `claude-code`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Command => "command",
            AgentKind::Replay => "replay",
            cli => cli_spec(cli).name,
        }
    }

    /// The wire APIs the agent's CLI can speak to a custom endpoint, its default first; empty
    /// when it cannot be pointed at one.
    pub fn wire_apis(self) -> &'static [WireApi] {
        use WireApi::{Anthropic, Gemini, OpenaiChat, OpenaiResponses};
        match self {
            AgentKind::Command => &[OpenaiChat, OpenaiResponses, Anthropic, Gemini],
            AgentKind::Replay => &[],
            cli => cli_spec(cli).wire_apis,
        }
    }

    /// A model name the agent's CLI accepts, for error messages.
    pub fn example_model(self) -> &'static str {
        match self {
            AgentKind::Command | AgentKind::Replay => "my-model",
            cli => cli_spec(cli).example_model,
        }
    }
}

/// The spec of an agent CLI type: every type but `command` and `replay` has one (tested below).
pub(super) fn cli_spec(kind: AgentKind) -> &'static AgentSpec {
    of_kind(kind).unwrap_or_else(|| panic!("agent type {kind:?} has no spec in `spec::ALL`"))
}

/// Where an agent type finds project skills (`.agents/skills`, the cross-agent convention,
/// for `command`).
pub fn project_skills(kind: &str) -> &'static str {
    of(kind).map_or(".agents/skills", |spec| spec.project_skills)
}

/// The version an agent type's stream reports among `events` (as its adapter parsed them),
/// where the CLI reports it there: Claude Code's and Qwen Code's start-up record
/// (`system`/`init`). `None` for the other types, and when the record is missing.
///
/// ```
/// use skillgym::SessionEvent;
/// use skillgym_harness::agent::stream_version;
///
/// let init = serde_json::json!({"type": "system", "subtype": "init", "claude_code_version": "2.1.330"});
/// let events = [SessionEvent::Raw { value: init, at: None }];
/// assert_eq!(stream_version("claude-code", &events).as_deref(), Some("2.1.330"));
/// assert_eq!(stream_version("codex", &events), None);
/// ```
pub fn stream_version(kind: &str, events: &[skillgym::SessionEvent]) -> Option<String> {
    of(kind)?.version.stream?.find(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Agent;

    #[test]
    fn every_agent_cli_has_one_spec_and_command_none() {
        for kind in AgentKind::CLIS {
            let spec = of(kind.as_str()).unwrap_or_else(|| panic!("no spec for {kind:?}"));
            assert_eq!(spec.kind, kind);
            assert!(spec.project_skills.ends_with("/skills"), "{kind:?}");
            // The spec's name is the one YAML spells (serde's kebab-case name of the variant).
            let read: AgentKind = serde_json::from_value(spec.name.into()).unwrap();
            assert_eq!(read, kind, "{}", spec.name);
            let agent = (spec.build)(AgentOptions::new("m"));
            assert_eq!(agent.kind(), spec.name);
        }
        for spec in ALL {
            let same = ALL
                .iter()
                .filter(|other| other.kind == spec.kind || other.name == spec.name);
            assert_eq!(same.count(), 1, "one spec of {}", spec.name);
        }
        assert!(of("command").is_none());
        assert_eq!(project_skills("command"), ".agents/skills");
        assert_eq!(project_skills("claude-code"), ".claude/skills");
    }

    /// The value a launch sets for `key`, if it sets one.
    fn env<'a>(launch: &'a Launch, key: &str) -> Option<&'a std::ffi::OsStr> {
        launch
            .env
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.as_os_str())
    }

    #[test]
    fn each_cli_is_asked_its_version_with_its_launcher_in_a_scratch_state() {
        let scratch = Path::new("/scratch");
        for spec in ALL {
            let agent = super::super::build(spec.kind, AgentOptions::new("m")).unwrap();
            let launch = agent.version_command(scratch).expect("a version command");
            assert_eq!(launch.program, spec.program, "{:?}", spec.kind);
            assert_eq!(launch.args, ["--version"], "{:?}", spec.kind);
            for (key, value) in spec.fixed_env {
                assert_eq!(env(&launch, key), Some(std::ffi::OsStr::new(value)));
            }
            if let Some(state) = &spec.state {
                assert_eq!(env(&launch, state.var), Some(scratch.as_os_str()));
            }
            let home = env(&launch, "HOME");
            assert_eq!(
                home.is_some(),
                spec.home_skills,
                "{:?}: {home:?}",
                spec.kind
            );
        }
        // A launcher: its arguments first; what `agent.env` sets wins, as in sessions.
        let options = AgentOptions::new("m")
            .command("npx")
            .args(["-y", "@openai/codex@0.169.0"])
            .env("CODEX_HOME", "/mine");
        let agent = super::super::build(AgentKind::Codex, options).unwrap();
        let launch = agent.version_command(scratch).unwrap();
        assert_eq!(launch.program, "npx");
        assert_eq!(launch.args, ["-y", "@openai/codex@0.169.0", "--version"]);
        assert_eq!(
            env(&launch, "CODEX_HOME"),
            Some(std::ffi::OsStr::new("/mine"))
        );
        let command = crate::CommandAgent::new("/bin/agent");
        assert!(command.version_command(scratch).is_none());
        let command = command.version_args(["-V"]).env("K", "V");
        let launch = command.version_command(scratch).unwrap();
        assert_eq!(
            (launch.program.to_str(), launch.args.len()),
            (Some("/bin/agent"), 1)
        );
        assert_eq!(env(&launch, "K"), Some(std::ffi::OsStr::new("V")));
    }
}
