//! `sandbox:`, of `run:` (every runner) or of one runner (which replaces the run's as a
//! whole): whether the agent runs confined by bubblewrap, and what network it gets.
//!
//! ```yaml
//! run:
//!   sandbox: bubblewrap                    # none (the default) | bubblewrap
//! runners:
//!   local:
//!     agent: { type: command, command: ./bin/agent }
//!     sandbox: { mode: bubblewrap, network: loopback, read_only: [~/.nvm] }
//! ```
//!
//! | key | values | default | meaning |
//! |---|---|---|---|
//! | `mode` | `none`, `bubblewrap` | `none` | the short form `sandbox: bubblewrap` sets only this |
//! | `network` | `host`, `loopback` | `host` | `loopback`: a network namespace of its own, where only the model endpoint on the host's loopback is forwarded (always so under `--mock`) |
//! | `read_only` | paths (absolute, `~/…`, or relative to the config file) | none | more of the host the agent may read, beyond what the sandbox shows (see [`crate::sandbox`]) |
//!
//! `network` and `read_only` need `mode: bubblewrap`: with `none` they would do nothing.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::yaml::{self, Located};
use crate::results::{SandboxMode, SandboxNetwork};
use crate::suggest::did_you_mean;

/// `sandbox:` how one runner's agent is confined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxConfig {
    /// `mode`: no sandbox, or bubblewrap.
    pub mode: SandboxMode,
    /// `network`: what the agent may reach (bubblewrap only; `--mock` runs get loopback).
    pub network: SandboxNetwork,
    /// `read_only`: host paths the agent may read besides what the sandbox shows (absolute
    /// after [`Config::parse`](super::Config::parse)).
    pub read_only: Vec<PathBuf>,
}

impl SandboxConfig {
    /// A bubblewrap sandbox with `network`, nothing more exposed.
    pub fn bubblewrap(network: SandboxNetwork) -> SandboxConfig {
        SandboxConfig {
            mode: SandboxMode::Bubblewrap,
            network,
            read_only: Vec::new(),
        }
    }

    /// Resolves `read_only` against `dir` (a leading `~/` against the home directory).
    pub(super) fn resolve_paths(&mut self, dir: &Path) {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        for path in &mut self.read_only {
            *path = match (path.strip_prefix("~"), &home) {
                (Ok(rest), Some(home)) => home.join(rest),
                _ => super::schema::resolve_path(dir, path),
            };
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandbox {
    mode: Located<SandboxMode>,
    #[serde(default)]
    network: Option<Located<SandboxNetwork>>,
    #[serde(default)]
    read_only: Option<Located<Vec<PathBuf>>>,
}

impl RawSandbox {
    fn validate(self) -> Result<SandboxConfig, String> {
        if self.mode.value == SandboxMode::None {
            let stray = [
                ("network", self.network.as_ref().map(|n| (n.line, n.column))),
                (
                    "read_only",
                    self.read_only.as_ref().map(|r| (r.line, r.column)),
                ),
            ];
            if let Some((key, (line, column))) =
                stray.into_iter().find_map(|(key, at)| Some((key, at?)))
            {
                return Err(yaml::locate(
                    line,
                    column,
                    yaml::with_help(
                        format!("`{key}` does nothing with `mode: none`"),
                        &format!("remove `{key}`, or set `mode: bubblewrap`"),
                    ),
                ));
            }
        }
        if let Some(read_only) = &self.read_only
            && read_only.value.iter().any(|p| p.as_os_str().is_empty())
        {
            return Err(read_only.error("`read_only` holds an empty path"));
        }
        let read_only = self.read_only.map(|r| r.value).unwrap_or_default();
        Ok(SandboxConfig {
            mode: self.mode.value,
            network: self.network.map(|n| n.value).unwrap_or_default(),
            read_only,
        })
    }
}

impl<'de> Deserialize<'de> for SandboxConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SandboxVisitor)
    }
}

/// `sandbox: bubblewrap` or `sandbox: { mode: …, … }`.
struct SandboxVisitor;

impl<'de> Visitor<'de> for SandboxVisitor {
    type Value = SandboxConfig;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`none`, `bubblewrap`, or a mapping with `mode`")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<SandboxConfig, E> {
        match SandboxMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == value.trim())
        {
            Some(mode) => Ok(SandboxConfig {
                mode,
                ..SandboxConfig::default()
            }),
            None => {
                let message = format!("unknown sandbox `{value}`, expected `none` or `bubblewrap`");
                Err(E::custom(
                    match did_you_mean(value, SandboxMode::ALL.map(SandboxMode::as_str)) {
                        Some(close) => {
                            yaml::with_help(message, &format!("did you mean `{close}`?"))
                        }
                        None => yaml::with_help(
                            message,
                            "`sandbox: bubblewrap`, or `sandbox: { mode: bubblewrap, network: loopback }`",
                        ),
                    },
                ))
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SandboxConfig, A::Error> {
        let raw = RawSandbox::deserialize(de::value::MapAccessDeserializer::new(map))?;
        raw.validate().map_err(de::Error::custom)
    }
}
