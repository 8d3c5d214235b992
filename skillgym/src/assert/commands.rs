//! Checks over the shell commands the agent ran.

use regex::Regex;

use super::TextMatcher;
use super::check::{Check, check_options};
use super::command::{CommandMatcher, observed_exit, parse_command};
use super::list::{COMMANDS, ItemList, ItemPattern};
use super::list_checks::list_checks;
use super::sink::Sink;
use crate::{SessionEvent, SessionReport};

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
    /// Whether the raw command line matches (its exit code is unknown here: a matcher that
    /// expects one does not match).
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

/// A command the agent ran: its line and its exit code, if reported.
pub(crate) struct RanCommand<'a> {
    line: &'a str,
    exit_code: Option<i32>,
}

impl ItemPattern<RanCommand<'_>> for CommandPattern {
    fn is_match(&self, item: &RanCommand<'_>) -> bool {
        match self {
            CommandPattern::Text(text) => text.is_match(item.line),
            CommandPattern::Matcher(matcher) => {
                matcher.matches_with_exit_code(item.line, item.exit_code)
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            CommandPattern::Text(text) => text.to_string(),
            CommandPattern::Matcher(matcher) => matcher.to_string(),
        }
    }

    /// How a matcher parsed the line, then its exit code when the matcher expects one.
    fn details(&self, item: &RanCommand<'_>) -> Vec<String> {
        let CommandPattern::Matcher(matcher) = self else {
            return Vec::new();
        };
        let parsed = parse_command(item.line)
            .iter()
            .map(|parsed| format!("parsed: {parsed}"))
            .collect();
        match matcher.expects_exit_code() {
            true => [parsed, vec![observed_exit(item.exit_code)]].concat(),
            false => parsed,
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
/// `CommandMatcher` each is shown as the matcher parsed it, and with its exit code when the
/// matcher expects one ([`succeeded`](CommandMatcher::succeeded)).
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
    list: ItemList<RanCommand<'a>>,
}

check_options!(Commands, "commands", "includes(\"npm test\")");

impl<'a> Commands<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        Commands {
            list: ItemList {
                kind: &COMMANDS,
                items: report
                    .events
                    .iter()
                    .filter_map(|event| match event {
                        SessionEvent::Command {
                            command, exit_code, ..
                        } => Some(RanCommand {
                            line: command,
                            exit_code: *exit_code,
                        }),
                        _ => None,
                    })
                    .collect(),
                show: |item| item.line.to_owned(),
            },
            check: Check::new(report, sink),
        }
    }
}

list_checks! {
    Commands("commands", CommandPattern, SessionEvent::command),
    docs("command", "commands", "commands ran", "no command ran"),
    examples {
        includes(["npx skills find expo"], "skills find"),
        not_includes(["npm test"], "rm -rf"),
        count(["npm test", "npm test -- --watch"], "npm test", 2),
        at_least(["git status"], "git", 1),
        at_most(["npm install"], "npm install", 1),
        before(["npm ci", "npm test"], "npm ci", "npm test"),
        only(["ls", "cat README.md"], ["ls", "cat "]),
        size(["ls"], 1),
        exactly_one(["npm test"], "npm test"),
        first(["git status", "npm test"], "git status"),
        last(["npm run build", "npm test"], "npm test"),
    }
}
