//! Checks over the shell commands the agent ran.

use std::borrow::Cow;
use std::panic::Location;

use regex::Regex;

use super::TextMatcher;
use super::check::{Check, check_options};
use super::command::{CommandMatcher, parse_command};
use super::list::{Bound, COMMANDS, ItemList, ItemPattern};
use super::sink::Sink;
use crate::SessionReport;

/// What a command check looks for: text in the raw command line (`&str` = substring,
/// [`Regex`]) or a structured [`CommandMatcher`].
///
/// ```
/// use skillgym::assert::{CommandMatcher, CommandPattern};
///
/// let text = CommandPattern::from("skills find");
/// let structured = CommandPattern::from(CommandMatcher::new("npx").args(["skills", "find"]));
/// for pattern in [&text, &structured] {
///     assert!(pattern.is_match("bash -lc 'npx skills find expo'"));
/// }
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CommandPattern {
    /// Matches the raw command line.
    Text(TextMatcher),
    /// Matches the parsed command (shell wrappers unwrapped, compound commands split).
    Matcher(CommandMatcher),
}

impl CommandPattern {
    /// Whether the raw command line matches.
    ///
    /// ```
    /// use skillgym::assert::CommandPattern;
    ///
    /// assert!(CommandPattern::from("npm").is_match("npm test"));
    /// assert!(!CommandPattern::from("yarn").is_match("npm test"));
    /// ```
    pub fn is_match(&self, command: &str) -> bool {
        match self {
            CommandPattern::Text(text) => text.is_match(command),
            CommandPattern::Matcher(matcher) => matcher.matches(command),
        }
    }
}

impl ItemPattern<Cow<'_, str>> for CommandPattern {
    fn is_match(&self, item: &Cow<'_, str>) -> bool {
        CommandPattern::is_match(self, item)
    }

    fn describe(&self) -> String {
        match self {
            CommandPattern::Text(text) => text.to_string(),
            CommandPattern::Matcher(matcher) => matcher.to_string(),
        }
    }

    fn details(&self, item: &Cow<'_, str>) -> Vec<String> {
        match self {
            CommandPattern::Text(_) => Vec::new(),
            CommandPattern::Matcher(_) => parse_command(item)
                .iter()
                .map(|parsed| format!("parsed: {parsed}"))
                .collect(),
        }
    }
}

/// `From` impls for everything that converts into a [`TextMatcher`].
macro_rules! from_text {
    ($($source:ty),*) => {$(
        impl From<$source> for CommandPattern {
            fn from(text: $source) -> Self {
                CommandPattern::Text(text.into())
            }
        }
    )*};
}

from_text!(&str, String, &String, Regex, &Regex, TextMatcher);

impl From<CommandMatcher> for CommandPattern {
    fn from(matcher: CommandMatcher) -> Self {
        CommandPattern::Matcher(matcher)
    }
}

impl From<&CommandMatcher> for CommandPattern {
    fn from(matcher: &CommandMatcher) -> Self {
        CommandPattern::Matcher(matcher.clone())
    }
}

/// Checks over the shell commands of a report, in the order they ran. Open it with
/// [`Expect::commands`](super::Expect::commands).
///
/// Patterns are `&str` (substring of the raw command line), [`Regex`] or a
/// [`CommandMatcher`]. Failure messages list every observed command; with a
/// `CommandMatcher` each is shown as the matcher parsed it.
///
/// ```
/// # use skillgym::prelude::*;
/// # let report = SessionReport::from_events([
/// #     SessionEvent::command("ls"),
/// #     SessionEvent::command("/bin/bash -lc 'npx skills find expo'"),
/// # ]);
/// report
///     .expect()
///     .commands()
///     .includes(CommandMatcher::new("npx").args(["skills", "find"]))
///     .not_includes("rm -rf")
///     .before("ls", "skills find");
/// ```
pub struct Commands<'a> {
    check: Check<'a>,
    list: ItemList<Cow<'a, str>>,
}

impl std::fmt::Debug for Commands<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Commands").finish_non_exhaustive()
    }
}

check_options!(Commands, "commands", "includes(\"npm test\")");

impl<'a> Commands<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        Commands {
            list: ItemList {
                kind: &COMMANDS,
                items: report.commands().map(Into::into).collect(),
                show: |item| item.to_string(),
            },
            check: Check::new(report, sink),
        }
    }

    /// Some command matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("npx skills find expo")]);
    /// report.expect().commands().includes("skills find");
    /// ```
    #[track_caller]
    pub fn includes(mut self, pattern: impl Into<CommandPattern>) -> Self {
        let outcome = self.list.includes(&pattern.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// No command matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("npm test")]);
    /// report.expect().commands().not_includes("rm -rf");
    /// ```
    #[track_caller]
    pub fn not_includes(mut self, pattern: impl Into<CommandPattern>) -> Self {
        let outcome = self.list.not_includes(&pattern.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly `expected` commands match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::command("npm test"), SessionEvent::command("npm test -- --watch"),
    /// # ]);
    /// report.expect().commands().count("npm test", 2);
    /// ```
    #[track_caller]
    pub fn count(mut self, pattern: impl Into<CommandPattern>, expected: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::Exactly, expected);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At least `min` commands match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("git status")]);
    /// report.expect().commands().at_least("git", 1);
    /// ```
    #[track_caller]
    pub fn at_least(mut self, pattern: impl Into<CommandPattern>, min: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::AtLeast, min);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At most `max` commands match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("npm install")]);
    /// report.expect().commands().at_most("npm install", 1);
    /// ```
    #[track_caller]
    pub fn at_most(mut self, pattern: impl Into<CommandPattern>, max: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::AtMost, max);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The first command matching `earlier` comes before the first matching `later`; both
    /// must exist.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::command("npm ci"), SessionEvent::command("npm test"),
    /// # ]);
    /// report.expect().commands().before("npm ci", "npm test");
    /// ```
    #[track_caller]
    pub fn before(
        mut self,
        earlier: impl Into<CommandPattern>,
        later: impl Into<CommandPattern>,
    ) -> Self {
        let outcome = self.list.before(&earlier.into(), &later.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Every command matches at least one of `patterns` (vacuously true with no commands).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::command("ls"), SessionEvent::command("cat README.md"),
    /// # ]);
    /// report.expect().commands().only(["ls", "cat "]);
    /// ```
    #[track_caller]
    pub fn only<P: Into<CommandPattern>>(mut self, patterns: impl IntoIterator<Item = P>) -> Self {
        let patterns: Vec<CommandPattern> = patterns.into_iter().map(Into::into).collect();
        let patterns: Vec<&dyn ItemPattern<Cow<'a, str>>> = patterns
            .iter()
            .map(|p| p as &dyn ItemPattern<Cow<'a, str>>)
            .collect();
        let outcome = self.list.only(&patterns);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly `expected` commands ran.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("ls")]);
    /// report.expect().commands().size(1);
    /// ```
    #[track_caller]
    pub fn size(mut self, expected: usize) -> Self {
        let outcome = self.list.size(expected);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly one command matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("npm test")]);
    /// report.expect().commands().exactly_one("npm test");
    /// ```
    #[track_caller]
    pub fn exactly_one(mut self, pattern: impl Into<CommandPattern>) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::Exactly, 1);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The first command matches (fails when no command ran).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::command("git status"), SessionEvent::command("npm test"),
    /// # ]);
    /// report.expect().commands().first("git status");
    /// ```
    #[track_caller]
    pub fn first(mut self, pattern: impl Into<CommandPattern>) -> Self {
        let outcome = self.list.edge(&pattern.into(), false);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The last command matches (fails when no command ran).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::command("npm run build"), SessionEvent::command("npm test"),
    /// # ]);
    /// report.expect().commands().last("npm test");
    /// ```
    #[track_caller]
    pub fn last(mut self, pattern: impl Into<CommandPattern>) -> Self {
        let outcome = self.list.edge(&pattern.into(), true);
        self.check.settle(Location::caller(), outcome);
        self
    }
}
