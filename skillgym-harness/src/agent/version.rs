//! An agent CLI's version: where each agent tells it ([`VersionSpec`], data of its
//! [`AgentSpec`](super::spec::AgentSpec)), and how it is read from what the CLI prints
//! ([`parse`]) or from its stream's start-up record ([`StreamVersion`]). The run asks each
//! runner's agent once ([`Agent::version_command`](super::Agent::version_command)).
//!
//! | type | `--version` prints (pinned CLIs) | start-up record of the stream |
//! |---|---|---|
//! | `claude-code` | `2.1.332 (Claude Code)` | `system`/`init`: `claude_code_version` |
//! | `codex` | `codex-cli 0.171.0` | — |
//! | `opencode` | `1.18.33` | — |
//! | `copilot` | `GitHub Copilot CLI 1.0.102.` and an update hint | — |
//! | `cursor-agent` | (unverified) | — |
//! | `gemini-cli` | `0.61.0` | — |
//! | `qwen-code` | `0.24.4` | `system`/`init`: `qwen_code_version` |
//! | `command` | what `agent.version_args` make it print; without them the version is unknown | — |
//!
//! The version in a CLI's output is its first word that reads as one: digits and dots (at least
//! one dot), optionally followed by a `-` or `+` suffix (`1.0.0-beta.2`); a leading `v` and
//! trailing punctuation are dropped. A session's report takes the version its stream reported,
//! else the run's answer.

use std::ffi::OsString;

use skillgym::SessionEvent;

/// The longest version kept; a longer word is not taken for one.
const MAX_VERSION: usize = 64;

/// A record of an agent's stream that carries its version: the first one with this `type` and
/// `subtype`, which the adapter kept as a raw event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamVersion {
    /// The record's `type` (`system`).
    pub record: &'static str,
    /// Its `subtype` (`init`).
    pub subtype: &'static str,
    /// The field holding the version (`claude_code_version`).
    pub field: &'static str,
}

impl StreamVersion {
    /// The version the first such record among `events` holds, if it holds one.
    pub(crate) fn find(&self, events: &[SessionEvent]) -> Option<String> {
        events.iter().find_map(|event| match event {
            SessionEvent::Raw { value, .. }
                if value["type"] == self.record && value["subtype"] == self.subtype =>
            {
                value[self.field].as_str().and_then(parse)
            }
            _ => None,
        })
    }
}

/// How an agent CLI tells its version, as data of its [`AgentSpec`](super::spec::AgentSpec).
#[derive(Debug)]
pub(crate) struct VersionSpec {
    /// The arguments that make it print its version (after `agent.args`, which a launcher such
    /// as `npx` needs).
    pub args: &'static [&'static str],
    /// The start-up record of its stream that carries the version, when it has one.
    pub stream: Option<StreamVersion>,
}

/// `--version`, and nothing in the stream.
pub(crate) const DASH_DASH_VERSION: VersionSpec = VersionSpec {
    args: &["--version"],
    stream: None,
};

impl VersionSpec {
    /// The arguments, as a launch takes them.
    pub(crate) fn os_args(&self) -> impl Iterator<Item = OsString> + '_ {
        self.args.iter().map(OsString::from)
    }
}

/// The version in what a CLI printed for `--version`: its first word that reads as one (see
/// the module docs), or `None`.
///
/// ```
/// use skillgym_harness::agent::parse_version;
///
/// assert_eq!(parse_version("2.1.330 (Claude Code)\n").as_deref(), Some("2.1.330"));
/// assert_eq!(parse_version("codex-cli 0.169.0").as_deref(), Some("0.169.0"));
/// assert_eq!(parse_version("usage: agent [--json]"), None);
/// ```
pub fn parse(output: &str) -> Option<String> {
    output.split_whitespace().find_map(version_word)
}

/// `word` as a version, when it reads as one.
fn version_word(word: &str) -> Option<String> {
    let word = word.trim_start_matches(['(', '[']);
    let word = word.trim_end_matches(['.', ',', ';', ':', ')', ']']);
    let word = word.strip_prefix(['v', 'V']).unwrap_or(word);
    if word.is_empty() || word.len() > MAX_VERSION {
        return None;
    }
    let (core, suffix) = match word.find(['-', '+']) {
        Some(at) => (&word[..at], Some(&word[at + 1..])),
        None => (word, None),
    };
    let mut parts = core.split('.');
    let numeric = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let dotted = parts.clone().count() >= 2 && parts.all(numeric);
    let suffix_ok = suffix.is_none_or(|suffix| {
        !suffix.is_empty()
            && suffix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'))
    });
    (dotted && suffix_ok).then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pinned CLI's exact `--version` output (captured with `.ci/install-agents`' CLIs).
    const OUTPUTS: [(&str, &str, &str); 6] = [
        ("claude-code", "2.1.330 (Claude Code)\n", "2.1.330"),
        ("codex", "codex-cli 0.169.0\n", "0.169.0"),
        ("opencode", "1.18.33\n", "1.18.33"),
        (
            "copilot",
            "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
            "1.0.102",
        ),
        ("gemini-cli", "0.61.0\n", "0.61.0"),
        ("qwen-code", "0.15.10\n", "0.15.10"),
    ];

    #[test]
    fn each_clis_version_output_gives_its_version() {
        for (agent, output, version) in OUTPUTS {
            assert_eq!(parse(output).as_deref(), Some(version), "{agent}");
        }
    }

    #[test]
    fn only_a_word_that_reads_as_a_version_is_one() {
        for (output, version) in [
            ("v1.2.3", Some("1.2.3")),
            ("tool (1.2)", Some("1.2")),
            ("2025.09.18-7ae6800", Some("2025.09.18-7ae6800")),
            ("1.0.0-beta.2+build.5", Some("1.0.0-beta.2+build.5")),
            ("Node v18 is old; agent 3.4.5", Some("3.4.5")),
            ("3", None),
            ("1.", None),
            ("1..2", None),
            ("1.2-", None),
            ("1.2-be/ta", None),
            ("", None),
            ("error: unknown flag --version", None),
        ] {
            assert_eq!(parse(output).as_deref(), version, "{output:?}");
        }
        let long = format!("1.{}", "2".repeat(MAX_VERSION));
        assert_eq!(parse(&long), None, "too long for a version");
    }
}
