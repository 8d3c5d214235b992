//! Benchmark agent skills with real coding-agent sessions, driven by `cargo test`.
//!
//! A *case* is a prompt plus checks: a plain Rust function annotated with
//! [`#[skillgym::case]`](macro@case). The harness (`skillgym-harness`) runs every case against
//! every configured *runner* (an agent CLI and model), normalizes what the agent did into a
//! [`SessionReport`], and hands it to the case function, which asserts on it.
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
