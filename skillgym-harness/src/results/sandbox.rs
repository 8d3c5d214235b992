//! What a sandboxed session ran with and was denied: the `sandbox` of its attempt's
//! `result.json`.
//!
//! ```json
//! "sandbox": {
//!   "mode": "bubblewrap",
//!   "network": "loopback",
//!   "forwarded": ["127.0.0.1:41785"],
//!   "writable": ["/tmp/skillgym-ws/…/workspace", "…/attempt-1"],
//!   "hidden": ["/root", "/tmp"],
//!   "denied": [{ "kind": "write", "evidence": "touch: cannot touch '/etc/x': Read-only file system" }]
//! }
//! ```

use std::fmt::{self, Write as _};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How one session was confined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SandboxRecord {
    /// The sandbox (`bubblewrap`).
    pub mode: SandboxMode,
    /// The network the session had (`loopback` under `--mock`, whatever was configured).
    pub network: SandboxNetwork,
    /// The endpoints on the host's loopback forwarded into the sandbox (`127.0.0.1:PORT`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forwarded: Vec<String>,
    /// What the session could write.
    pub writable: Vec<PathBuf>,
    /// The host directories replaced by empty ones (the home, the temporary directories).
    pub hidden: Vec<PathBuf>,
    /// Lines of the session (its events, its stderr) that show an operation the sandbox
    /// refuses, found by their error text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<Denial>,
}

/// One line of a session that shows the sandbox refusing something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Denial {
    /// What was refused.
    pub kind: DenialKind,
    /// The line (cut to 240 characters, secrets masked).
    pub evidence: String,
}

/// What a sandbox refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DenialKind {
    /// A write outside the writable paths (`Read-only file system`).
    Write,
    /// A read of the hidden home (`No such file or directory` for a path in it).
    Read,
    /// A connection the loopback-only network refuses or cannot route.
    Network,
}

impl DenialKind {
    /// `write`, `read`, `network`.
    pub fn as_str(self) -> &'static str {
        match self {
            DenialKind::Write => "write",
            DenialKind::Read => "read",
            DenialKind::Network => "network",
        }
    }
}

impl SandboxRecord {
    /// The note a failed attempt's message gets: what the sandbox denied, line by line;
    /// `None` when nothing was.
    pub fn note(&self) -> Option<String> {
        if self.denied.is_empty() {
            return None;
        }
        let mut note = format!(
            "  sandbox ({}, network {}) denied:",
            self.mode, self.network
        );
        for denial in &self.denied {
            let _ = write!(note, "\n    {}: {}", denial.kind.as_str(), denial.evidence);
        }
        Some(note)
    }
}

/// `sandbox.mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxMode {
    /// The agent runs as the user, with everything the user can reach.
    #[default]
    None,
    /// The agent runs under `bwrap` (Linux): the host read-only, its workspace and state
    /// writable, the home hidden.
    Bubblewrap,
}

impl SandboxMode {
    /// Every mode, in the order shown to users.
    pub const ALL: [SandboxMode; 2] = [SandboxMode::None, SandboxMode::Bubblewrap];

    /// The name used in YAML: `none`, `bubblewrap`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::None => "none",
            SandboxMode::Bubblewrap => "bubblewrap",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `sandbox.network`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxNetwork {
    /// The host's network, as the user has it.
    #[default]
    Host,
    /// A network namespace holding only its own loopback; the session's model endpoint, when
    /// it is on the host's loopback, is forwarded into it.
    Loopback,
}

impl SandboxNetwork {
    /// The name used in YAML: `host`, `loopback`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxNetwork::Host => "host",
            SandboxNetwork::Loopback => "loopback",
        }
    }
}

impl fmt::Display for SandboxNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_lists_each_denial() {
        let mut record = SandboxRecord {
            mode: SandboxMode::Bubblewrap,
            network: SandboxNetwork::Loopback,
            forwarded: Vec::new(),
            writable: vec![PathBuf::from("/w")],
            hidden: vec![PathBuf::from("/root")],
            denied: Vec::new(),
        };
        assert_eq!(record.note(), None);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "mode": "bubblewrap", "network": "loopback", "writable": ["/w"], "hidden": ["/root"]
            })
        );
        record.denied.push(Denial {
            kind: DenialKind::Write,
            evidence: "sh: 1: cannot create /etc/x: Read-only file system".to_owned(),
        });
        assert_eq!(
            record.note().unwrap(),
            "  sandbox (bubblewrap, network loopback) denied:\n    write: sh: 1: cannot create /etc/x: Read-only file system"
        );
        let back: SandboxRecord =
            serde_json::from_value(serde_json::to_value(&record).unwrap()).unwrap();
        assert_eq!(back, record);
    }
}
