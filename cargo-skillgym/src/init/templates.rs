//! The files `cargo skillgym init` writes, byte for byte.

/// `tests/benchmarks.rs`: one case and the harness's `main`.
pub(super) const BENCHMARKS_RS: &str = r#"//! Benchmarks of the skills in `skills/`, run with `cargo test --test benchmarks`.

use skillgym::prelude::*;

/// The agent should load the `hello` skill (installed from `skills/hello` into every
/// attempt's workspace) and greet the way it says.
#[skillgym::case(prompt = "Greet me the way the hello skill says.", tags = ["smoke"])]
fn greets_with_the_hello_skill(report: &SessionReport) {
    report.expect().skills().has("hello");
    report.expect().output().includes("Hello");
}

fn main() -> std::process::ExitCode {
    skillgym_harness::main()
}
"#;

/// `skillgym.yaml`: the skill under test and one runner.
pub(super) const SKILLGYM_YAML: &str = r#"# skillgym's configuration: runners (the agents to benchmark), the skills under test, limits.
run:
  # Installed into every attempt's workspace, where each runner's agent looks for skills.
  skills: [skills/hello]
defaults:
  timeout: 5m
runners:
  # A stand-in agent, so the benchmark runs before any agent is installed. Replace it with a
  # real one, e.g. `claude: { agent: { type: claude-code, model: claude-sonnet-4-6 } }`, check it with
  # `cargo skillgym doctor`, and try it offline with `cargo test --test benchmarks -- --mock`.
  stand-in: { agent: { type: command, command: ./bin/stand-in-agent } }
"#;

/// `skills/hello/SKILL.md`: the example skill under test.
pub(super) const HELLO_SKILL_MD: &str = r#"---
name: hello
description: Greets the user. Use when asked to say hello or to greet someone.
---

# hello

Greet the user with "Hello!" followed by one friendly sentence.
"#;

/// `bin/stand-in-agent`: prints skillgym's event format, reading the skill only if the harness
/// installed it (so the case fails, truthfully, if it did not).
pub(super) const STAND_IN_AGENT: &str = r#"#!/bin/sh
# A stand-in agent for `type: command`: it gets the prompt as its last argument and prints
# skillgym's events, one JSON object per line. Replace it with a real agent in skillgym.yaml.
skill=.agents/skills/hello/SKILL.md
if [ -f "$skill" ]; then
  echo "{\"type\":\"file_read\",\"path\":\"$skill\"}"
  echo '{"type":"message","role":"assistant","phase":"final","text":"Hello! Nice to meet you."}'
else
  echo '{"type":"message","role":"assistant","phase":"final","text":"I found no hello skill."}'
fi
"#;

/// The comment above the dev-profile setting.
pub(super) const PROFILE_COMMENT: &str = "\n# skillgym: `cargo test` builds in debug; optimized dependencies parse agent transcripts\n# about 9x faster (21 MB: 0.40 s -> 0.045 s), for a longer first build only. Line tables\n# only for them keep backtraces and make the binary a third as large, and so relinking\n# after an edit of your cases about twice as fast.\n";
