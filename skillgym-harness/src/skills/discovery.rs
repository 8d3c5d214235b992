//! Where each agent discovers project skills, relative to its working directory: the one
//! directory the harness installs skills under test into. Established by running each CLI
//! against the scripted model with a probe skill in every candidate directory (the README's
//! table lists everything each agent reads, project and user level).
//!
//! | agent type | installed into | also read by the agent |
//! |---|---|---|
//! | `claude-code` | `.claude/skills` | — |
//! | `codex` | `.agents/skills` | `.codex/skills` |
//! | `opencode` | `.opencode/skills` | `.opencode/skill`, `.claude/skills`, `.agents/skills` |
//! | `copilot` | `.github/skills` | `.agents/skills`, `.claude/skills` |
//! | `cursor-agent` | `.cursor/skills` (unverified: the CLI is not installable here) | |
//! | `gemini-cli` | `.gemini/skills` | `.agents/skills` |
//! | `qwen-code` | `.qwen/skills` | `.agents/skills` |
//! | `command` | `.agents/skills` (the cross-agent convention) | |
//!
//! Each skill goes into one directory only: an agent reading two of them would list it twice.

/// The project skill directory of an agent type (see the module table).
pub fn project_dir(agent_kind: &str) -> &'static str {
    match agent_kind {
        "claude-code" => ".claude/skills",
        "opencode" => ".opencode/skills",
        "copilot" => ".github/skills",
        "cursor-agent" => ".cursor/skills",
        "gemini-cli" => ".gemini/skills",
        "qwen-code" => ".qwen/skills",
        _ => ".agents/skills",
    }
}
