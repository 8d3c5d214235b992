//! Typed assertions over a [`SessionReport`].
//!
//! Open a group with [`SessionReport::expect`] (hard: the first failure ends the case) or
//! [`CaseContext::soft`] (soft: failures are collected and reported together when the case
//! ends), then chain checks:
//!
//! | group | checks |
//! |---|---|
//! | [`skills()`](Expect::skills) | `has`, `not_has`, `includes`, `count`, `exactly_one`, `only`, with `min_confidence` |
//! | [`commands()`](Expect::commands) | `includes`, `not_includes`, `count`, `at_least`, `at_most`, `before`, `only`, `size`, `exactly_one`, `first`, `last` |
//! | [`file_reads()`](Expect::file_reads) | the same eleven as commands, over read paths |
//! | [`tool_calls()`](Expect::tool_calls) | `has`, `not_has`, `count`, `at_least`, `at_most`, `before`, `sequence`, `only` |
//! | [`output()`](Expect::output) | `includes`, `not_includes`, `matches`, `not_empty`, `equals` |
//!
//! Every group also takes `because(..)` (a message put first in its failures) and
//! `explain(..)`/`explain_with(..)` (the question `skillgym explain` asks the agent when a
//! check fails; each check has a default question). Failures name what was expected, list
//! what was observed, and point at the line of the check (`#[track_caller]`).
//!
//! ```
//! use skillgym::prelude::*;
//!
//! #[skillgym::case(prompt = "Find a skill for upgrading Expo SDK and tell me how to install it.")]
//! fn find_skills_expo(report: &SessionReport, ctx: &mut CaseContext) {
//!     ctx.soft(report).skills().has("find-skills");
//!     ctx.soft(report)
//!         .commands()
//!         .includes(CommandMatcher::new("npx").args(["skills", "find"]));
//!     report.expect().output().matches(r"(?i)upgrading-expo");
//! }
//! # fn main() {}
//! ```

pub(crate) mod check;
mod classify;
pub(crate) mod command;
mod commands;
mod failure;
mod file_reads;
mod list;
mod list_checks;
pub(crate) mod macros;
mod output;
mod render;
pub(crate) mod sink;
mod skills;
pub(crate) mod text;
mod tool_calls;

pub(crate) use classify::rethrow_classified;
pub use classify::{classify, classify_async};
pub use command::{
    CommandMatcher, CommandOption, OptionArg, ParsedCommand, TokenMatcher, parse_command,
};
pub use commands::{CommandPattern, Commands};
pub use failure::AssertionFailure;
pub use file_reads::FileReads;
pub use output::Output;
pub use skills::Skills;
pub use text::TextMatcher;
pub use tool_calls::{ToolCalls, ToolMatcher};

use crate::{CaseContext, SessionReport};
use sink::Sink;

/// The entry to the assertion groups, hard or soft. Get one from [`SessionReport::expect`]
/// or [`CaseContext::soft`].
///
/// ```
/// # use skillgym::prelude::*;
/// # let report = SessionReport::from_events([SessionEvent::command("npm test")]);
/// report.expect().commands().includes("npm test");
/// ```
#[derive(Debug)]
pub struct Expect<'a> {
    report: &'a SessionReport,
    sink: Sink<'a>,
}

impl<'a> Expect<'a> {
    pub(crate) fn hard(report: &'a SessionReport) -> Self {
        Expect {
            report,
            sink: Sink::Hard,
        }
    }

    pub(crate) fn soft(report: &'a SessionReport, ctx: &'a mut CaseContext) -> Self {
        Expect {
            report,
            sink: Sink::Soft(ctx.soft_failures_mut()),
        }
    }

    /// Checks over the detected skills.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// report.expect().skills().not_has("deploy");
    /// ```
    pub fn skills(self) -> Skills<'a> {
        Skills::new(self.report, self.sink)
    }

    /// Checks over the shell commands.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// report.expect().commands().size(0);
    /// ```
    pub fn commands(self) -> Commands<'a> {
        Commands::new(self.report, self.sink)
    }

    /// Checks over the file reads.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/README.md")]);
    /// report.expect().file_reads().includes("README.md");
    /// ```
    pub fn file_reads(self) -> FileReads<'a> {
        FileReads::new(self.report, self.sink)
    }

    /// Checks over the tool calls.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// report.expect().tool_calls().not_has("Write");
    /// ```
    pub fn tool_calls(self) -> ToolCalls<'a> {
        ToolCalls::new(self.report, self.sink)
    }

    /// Checks over the final output.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("done");
    /// report.expect().output().equals("done");
    /// ```
    pub fn output(self) -> Output<'a> {
        Output::new(self.report, self.sink)
    }
}
