//! Benchmark agent skills with real coding-agent sessions, driven by `cargo test`.
//!
//! A *case* is a prompt plus checks: a plain Rust function annotated with
//! [`#[skillgym::case]`](macro@case). The harness (`skillgym-harness`) runs every case against
//! every configured *runner* (an agent CLI and model), normalizes what the agent did into a
//! [`SessionReport`], and hands it to the case function, which asserts on it.
//!
//! # From nothing to a run
//!
//! `cargo skillgym init` writes all of this; by hand, it is four files. The crate's
//! `Cargo.toml` declares a test target without libtest's harness (skillgym brings its own),
//! kept out of a plain `cargo test` so that agent sessions run only when asked for:
//!
//! ```toml
//! [dev-dependencies]
//! # The crates are not on crates.io yet: a checkout of the repository, by path (or `git = ...`).
//! skillgym = { path = "../skillgym-rs/skillgym" }
//! skillgym-harness = { path = "../skillgym-rs/skillgym-harness" }
//!
//! [[test]]
//! name = "benchmarks"
//! harness = false
//! test = false
//! ```
//!
//! `skillgym.yaml`, next to `Cargo.toml`, names the runners (and, optionally, the skills under
//! test, installed into every attempt's workspace):
//!
//! ```yaml
//! run:
//!   skills: [skills/find-skills]
//! runners:
//!   claude: { agent: { type: claude-code, model: claude-sonnet-4-6 } }
//! ```
//!
//! `tests/benchmarks.rs` holds the cases and hands `main` to the harness:
//!
//! ```no_run
//! use skillgym::prelude::*;
//!
//! #[skillgym::case(prompt = "Find a skill for upgrading Expo and say how to install it.")]
//! fn finds_the_expo_skill(report: &SessionReport) {
//!     report.expect().skills().has("find-skills");
//!     report
//!         .expect()
//!         .commands()
//!         .includes(CommandMatcher::new("npx").args(["skills", "find"]));
//!     report.expect().output().includes("upgrading-expo");
//! }
//!
//! // The file ends with the harness's entry point (from `skillgym-harness`):
//! // fn main() -> std::process::ExitCode { skillgym_harness::main() }
//! # fn main() {}
//! ```
//!
//! Then `cargo test --test benchmarks` runs every case on every runner (one libtest trial per
//! case and runner, `[claude] finds_the_expo_skill`); `-- --mock` runs them against
//! skillgym's scripted model instead of a provider (no token spent); `-- finds` filters by
//! name, `-- --list` lists the trials.
//!
//! # Checks
//!
//! ```no_run
//! use skillgym::prelude::*;
//!
//! #[skillgym::case(prompt = "Say only: skillgym ready", tags = ["smoke"])]
//! fn always_passes(report: &SessionReport) {
//!     report.expect().output().includes("skillgym ready");
//! }
//!
//! # fn main() {}
//! ```
//!
//! Checks are typed and grouped: see [`assert`](mod@assert) for skills, commands (with
//! [`CommandMatcher`](assert::CommandMatcher)), file reads, tool calls and output, soft
//! assertions through [`CaseContext::soft`], failure classes with
//! [`classify`](assert::classify), and explain questions.
//!
//! This crate holds what case authors touch; everything that runs lives in `skillgym-harness`.

extern crate self as skillgym;

pub mod assert;
mod case;
mod failure;
mod report;

pub use case::{CaseContext, Error, IntoCaseResult, Result};
pub use failure::{Failure, FailureClass, FailureOrigin, SourceLocation};
pub use report::{
    AgentInfo, Confidence, FileActivity, InstalledSkill, Phase, RawArtifacts, Role, RunnerInfo,
    SessionEvent, SessionReport, SkillAttempt, SkillDetection, Timing, TokenCount, Usage,
    UsageSource,
};

/// The regular expression type the assertions accept (re-exported from the `regex` crate).
pub use regex::Regex;

#[doc = include_str!("case.md")]
pub use skillgym_macros::case;

/// The names most cases need: `use skillgym::prelude::*;`.
pub mod prelude {
    pub use crate::assert::{CommandMatcher, ToolMatcher, classify, classify_async};
    pub use crate::{
        CaseContext, Confidence, FailureClass, Regex, SessionEvent, SessionReport, SkillAttempt,
        SkillDetection, assert_contains, assert_regex,
    };
}

#[doc(hidden)]
pub mod __private;
