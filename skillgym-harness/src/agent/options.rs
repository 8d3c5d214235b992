//! The options every adapter shares: `agent.model`, `agent.command`, `agent.args`, `agent.env`,
//! `agent.provider`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Launch;
use super::provider::Provider;
use crate::config::AgentConfig;

/// A runner's agent options, as configured.
///
/// The program is `command` when set (a path, a name on `PATH`, or a launcher such as `npx`),
/// else the agent's default binary. `args` come right after the program, before skillgym's
/// own arguments (so a launcher's arguments fit: `command: npx`, `args: ["-y",
/// "@openai/codex@0.169.0"]`). `env` is applied last, over skillgym's variables, but for the
/// ones that point the agent at its [`provider`](Self::provider) endpoint, which adapters set
/// after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentOptions {
    /// `agent.model`.
    pub model: Option<String>,
    /// `agent.command`.
    pub command: Option<PathBuf>,
    /// `agent.args`.
    pub args: Vec<String>,
    /// `agent.resume_args` (the `command` agent's resume arguments).
    pub resume_args: Option<Vec<String>>,
    /// `agent.version_args` (the arguments that make the `command` agent's program print its
    /// version).
    pub version_args: Option<Vec<String>>,
    /// `agent.env`.
    pub env: Vec<(String, String)>,
    /// `agent.provider`: the model endpoint, when not the agent's own.
    pub provider: Option<Provider>,
    /// The user's home directory, where auth and config files are seeded from (default:
    /// `$HOME`).
    pub user_home: Option<PathBuf>,
    /// Whether the agent may see the user's own (user-level) skills. By default it does not:
    /// a benchmark must not depend on what happens to be installed on the author's machine.
    pub inherit_user_skills: bool,
    /// Where the harness's own environment is read (`$HOME`, `$XDG_CONFIG_HOME`, the agents'
    /// directory variables): the process environment; a fixed map in tests.
    pub(crate) process_env: ProcessEnv,
}

/// The harness's own environment as the adapters read it: the process environment
/// (`|key| std::env::var(key).ok()`), or, in tests, a fixed map (so that no test depends on the
/// variables of the machine it runs on).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProcessEnv(Option<BTreeMap<String, String>>);

impl ProcessEnv {
    /// Exactly `vars`, nothing of the process environment.
    #[cfg(test)]
    pub(crate) fn fixed<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> ProcessEnv {
        let vars = vars
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value.to_owned()));
        ProcessEnv(Some(vars.collect()))
    }

    /// The value of `key`, if set and valid Unicode.
    pub(crate) fn var(&self, key: &str) -> Option<String> {
        match &self.0 {
            None => std::env::var(key).ok(),
            Some(vars) => vars.get(key).cloned(),
        }
    }

    /// The value of `key`, if set.
    pub(crate) fn var_os(&self, key: &str) -> Option<OsString> {
        match &self.0 {
            None => std::env::var_os(key),
            Some(vars) => vars.get(key).map(OsString::from),
        }
    }
}

impl AgentOptions {
    /// The options of a runner's `agent:` entry in `skillgym.yaml`.
    pub fn from_config(config: &AgentConfig) -> Self {
        AgentOptions {
            model: config.model.clone(),
            command: config.command.as_ref().map(PathBuf::from),
            args: config.args.clone(),
            resume_args: config.resume_args.clone(),
            version_args: config.version_args.clone(),
            env: config
                .env
                .iter()
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
            provider: config.provider.as_ref().map(Provider::from_config),
            user_home: None,
            inherit_user_skills: false,
            process_env: ProcessEnv::default(),
        }
    }

    /// Options with a model.
    pub fn new(model: impl Into<String>) -> Self {
        AgentOptions {
            model: Some(model.into()),
            ..AgentOptions::default()
        }
    }

    /// Sets the program.
    #[must_use]
    pub fn command(mut self, command: impl Into<PathBuf>) -> Self {
        self.command = Some(command.into());
        self
    }

    /// Appends extra arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the agent.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sends the agent's model requests to `provider`.
    #[must_use]
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// Seeds auth and config files from `home` instead of `$HOME`.
    #[must_use]
    pub fn user_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.user_home = Some(home.into());
        self
    }

    /// Reads the harness's own environment from `env` instead of the process (tests).
    #[cfg(test)]
    #[must_use]
    pub(crate) fn process_env(mut self, env: ProcessEnv) -> Self {
        self.process_env = env;
        self
    }

    /// Lets the agent see the user's own skills (`run.user_skills: inherit`).
    #[must_use]
    pub fn inherit_user_skills(mut self, inherit: bool) -> Self {
        self.inherit_user_skills = inherit;
        self
    }

    /// The user's home directory: the configured one, else `$HOME`.
    pub fn home(&self) -> Option<PathBuf> {
        self.user_home
            .clone()
            .or_else(|| self.process_env.var_os("HOME").map(PathBuf::from))
            .filter(|home| !home.as_os_str().is_empty())
    }

    /// The program to run: `command`, else `default`.
    pub fn program(&self, default: &str) -> OsString {
        self.command.as_ref().map_or_else(
            || default.into(),
            |command| command.clone().into_os_string(),
        )
    }

    /// A launch of the program with the extra arguments; the adapter appends its own
    /// arguments and variables, then calls [`finish_launch`](Self::finish_launch).
    pub fn start_launch(&self, default_program: &str) -> Launch {
        Launch {
            program: self.program(default_program),
            args: self.args.iter().map(OsString::from).collect(),
            ..Launch::default()
        }
    }

    /// Applies `agent.env` over the adapter's variables.
    pub fn finish_launch(&self, mut launch: Launch) -> Launch {
        for (key, value) in &self.env {
            launch.env.retain(|(existing, _)| existing != key.as_str());
            launch.env.push((key.into(), value.into()));
        }
        launch
    }

    /// The value `agent.env` gives a variable, else the harness's own.
    pub fn env_value(&self, key: &str) -> Option<String> {
        env_value_in(&self.env, key, |key| self.process_env.var(key))
    }

    /// Where a variable is set for the agent, in words: `agent.env` wins over the harness's
    /// environment; `None` when it is set in neither (or empty).
    pub fn env_origin(&self, key: &str) -> Option<&'static str> {
        if self
            .env
            .iter()
            .any(|(name, value)| name == key && !value.is_empty())
        {
            Some("in agent.env")
        } else if self
            .process_env
            .var_os(key)
            .is_some_and(|value| !value.is_empty())
        {
            Some("in the environment")
        } else {
            None
        }
    }

    /// A file under the user's home, e.g. `.codex/auth.json`.
    pub fn home_file(&self, relative: impl AsRef<Path>) -> Option<PathBuf> {
        self.home().map(|home| home.join(relative))
    }

    /// The directory `agent.env` sets for `key`, if it does: only `agent.env` counts (not the
    /// harness's own environment), the last setting wins, and an empty value is no setting.
    ///
    /// Adapters use it for the variable that moves the agent's state (`CLAUDE_CONFIG_DIR`,
    /// `CODEX_HOME`, …): when the runner sets it, that directory is used as it is.
    pub fn env_dir(&self, key: &str) -> Option<PathBuf> {
        self.env
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| PathBuf::from(value))
            .filter(|dir| !dir.as_os_str().is_empty())
    }

    /// The user's own directory for an agent, where its login is seeded from: `under_home`
    /// below an explicit [`user_home`](Self::user_home) (it stands for the whole user); else
    /// `$key` as [`env_value`](Self::env_value) gives it (`agent.env`, else the harness's
    /// environment); else `under_home` below `$HOME`. An empty `under_home` is the home itself.
    pub fn user_dir(&self, key: &str, under_home: &str) -> Option<PathBuf> {
        let below = |home: PathBuf| {
            if under_home.is_empty() {
                home
            } else {
                home.join(under_home)
            }
        };
        if let Some(home) = &self.user_home {
            return Some(below(home.clone()));
        }
        self.env_value(key)
            .map(PathBuf::from)
            .or_else(|| self.home().map(below))
    }
}

/// The value `agent_env` (an `agent.env` overlay, last setting wins) gives a variable, else the
/// harness's own; an empty value is no value.
pub(crate) fn env_value(agent_env: &[(String, String)], key: &str) -> Option<String> {
    env_value_in(agent_env, key, |key| std::env::var(key).ok())
}

/// [`env_value`] with the harness's environment read through `process`.
fn env_value_in(
    agent_env: &[(String, String)],
    key: &str,
    process: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    agent_env
        .iter()
        .rev()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.clone())
        .or_else(|| process(key))
        .filter(|value| !value.is_empty())
}

/// Pushes `KEY=value` onto a launch's environment.
pub(crate) fn set_env(launch: &mut Launch, key: &str, value: impl Into<OsString>) {
    launch.env.retain(|(existing, _)| existing != key);
    launch.env.push((key.into(), value.into()));
}
