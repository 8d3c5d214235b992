//! Checks over the tool calls the agent made.

use std::fmt;
use std::panic::Location;

use serde_json::Value;

use super::TextMatcher;
use super::check::{Check, Mismatch, check_options};
use super::command::TokenMatcher;
use super::list::{Bound, ItemList, ItemPattern, TOOL_CALLS};
use super::render;
use super::sink::Sink;
use crate::{SessionEvent, SessionReport};

/// One tool call event of the report, with its name and arguments at hand.
#[derive(Clone, Copy)]
pub(crate) struct ToolCall<'a> {
    event: &'a SessionEvent,
    tool: &'a str,
    args: &'a Value,
}

type ArgsPredicate<'p> = Box<dyn Fn(&Value) -> bool + 'p>;
type EventPredicate<'p> = Box<dyn Fn(&SessionEvent) -> bool + 'p>;

/// Selects tool calls by tool name, argument values and custom predicates; every condition
/// given must hold.
///
/// A `&str` converts into a matcher of that exact tool name; a [`Regex`](crate::Regex) into
/// one matching the name. Tool names differ between agents (`Bash` for Claude Code, `bash`
/// for OpenCode); a regex like `(?i)^bash$` covers both.
///
/// ```
/// use skillgym::assert::ToolMatcher;
/// use skillgym::Regex;
///
/// let read_skill = ToolMatcher::new("Read").arg("file_path", "SKILL.md");
/// let any_shell = ToolMatcher::new(Regex::new("(?i)^(bash|run_shell_command)$").unwrap());
/// let big_edit = ToolMatcher::new("Edit")
///     .args(|args| args["new_string"].as_str().is_some_and(|text| text.len() > 1000));
/// assert_eq!(read_skill.to_string(), r#""Read" with file_path matching "SKILL.md""#);
/// # let _ = (any_shell, big_edit);
/// ```
pub struct ToolMatcher<'p> {
    tool: Option<TokenMatcher>,
    args: Vec<(String, TextMatcher)>,
    args_predicates: Vec<ArgsPredicate<'p>>,
    event_predicates: Vec<EventPredicate<'p>>,
    label: Option<String>,
}

impl<'p> ToolMatcher<'p> {
    /// Calls of the tool named exactly `tool` (or whose name matches a regex).
    ///
    /// ```
    /// let matcher = skillgym::assert::ToolMatcher::new("Bash");
    /// assert_eq!(matcher.to_string(), r#""Bash""#);
    /// ```
    pub fn new(tool: impl Into<TokenMatcher>) -> Self {
        ToolMatcher {
            tool: Some(tool.into()),
            ..ToolMatcher::any()
        }
    }

    /// Every tool call; narrow it with [`args`](Self::args) and the like.
    ///
    /// ```
    /// let matcher = skillgym::assert::ToolMatcher::any();
    /// assert_eq!(matcher.to_string(), "any tool");
    /// ```
    pub fn any() -> Self {
        ToolMatcher {
            tool: None,
            args: Vec::new(),
            args_predicates: Vec::new(),
            event_predicates: Vec::new(),
            label: None,
        }
    }

    /// Requires the argument `key` to be a string (or a number or boolean, compared as text)
    /// matching `value` (`&str` = substring, or a regex). `key` is a top-level key, or a JSON
    /// pointer when it starts with `/` (`/edits/0/path`).
    ///
    /// ```
    /// let matcher = skillgym::assert::ToolMatcher::new("Bash").arg("command", "npm test");
    /// assert_eq!(matcher.to_string(), r#""Bash" with command matching "npm test""#);
    /// ```
    #[must_use]
    pub fn arg(mut self, key: impl Into<String>, value: impl Into<TextMatcher>) -> Self {
        self.args.push((key.into(), value.into()));
        self
    }

    /// Requires `predicate` to hold for the call's arguments.
    ///
    /// ```
    /// let matcher = skillgym::assert::ToolMatcher::new("Read")
    ///     .args(|args| args.get("offset").is_none());
    /// assert_eq!(matcher.to_string(), r#""Read" with a custom args predicate"#);
    /// ```
    #[must_use]
    pub fn args(mut self, predicate: impl Fn(&Value) -> bool + 'p) -> Self {
        self.args_predicates.push(Box::new(predicate));
        self
    }

    /// Requires `predicate` to hold for the whole [`SessionEvent::ToolCall`] (id, time, ...).
    ///
    /// ```
    /// use skillgym::{assert::ToolMatcher, SessionEvent};
    ///
    /// let matcher = ToolMatcher::any()
    ///     .event(|event| matches!(event, SessionEvent::ToolCall { at: Some(_), .. }));
    /// assert_eq!(matcher.to_string(), "any tool with a custom event predicate");
    /// ```
    #[must_use]
    pub fn event(mut self, predicate: impl Fn(&SessionEvent) -> bool + 'p) -> Self {
        self.event_predicates.push(Box::new(predicate));
        self
    }

    /// Names the matcher in failure messages instead of describing its parts.
    ///
    /// ```
    /// let matcher = skillgym::assert::ToolMatcher::new("Edit")
    ///     .args(|args| args["file_path"].as_str().is_some_and(|p| p.ends_with(".rs")))
    ///     .label("an edit of a Rust file");
    /// assert_eq!(matcher.to_string(), "an edit of a Rust file");
    /// ```
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Whether a [`SessionEvent::ToolCall`] matches; other events never do.
    ///
    /// ```
    /// use serde_json::json;
    /// use skillgym::{assert::ToolMatcher, SessionEvent};
    ///
    /// let call = SessionEvent::tool_call("Read", json!({"file_path": "/repo/SKILL.md"}));
    /// assert!(ToolMatcher::new("Read").arg("file_path", "SKILL.md").is_match(&call));
    /// assert!(!ToolMatcher::new("Bash").is_match(&call));
    /// ```
    pub fn is_match(&self, event: &SessionEvent) -> bool {
        ToolCall::from_event(event).is_some_and(|call| self.matches(&call))
    }

    fn matches(&self, call: &ToolCall<'_>) -> bool {
        self.tool
            .as_ref()
            .is_none_or(|tool| tool.is_match(call.tool))
            && self.args.iter().all(|(key, value)| {
                arg_text(call.args, key).is_some_and(|text| value.is_match(&text))
            })
            && self
                .args_predicates
                .iter()
                .all(|predicate| predicate(call.args))
            && self
                .event_predicates
                .iter()
                .all(|predicate| predicate(call.event))
    }
}

/// The argument `key` (or JSON pointer) as text, when it is a string, number or boolean.
fn arg_text(args: &Value, key: &str) -> Option<String> {
    let value = if key.starts_with('/') {
        args.pointer(key)
    } else {
        args.get(key)
    };
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

impl fmt::Display for ToolMatcher<'_> {
    /// The label, or the parts: `"Bash" with command matching "ls"`, `any tool`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(label) = &self.label {
            return f.write_str(label);
        }
        match &self.tool {
            Some(tool) => write!(f, "{tool}")?,
            None => f.write_str("any tool")?,
        }
        let mut conditions: Vec<String> = self
            .args
            .iter()
            .map(|(key, value)| format!("{key} matching {value}"))
            .collect();
        if !self.args_predicates.is_empty() {
            conditions.push("a custom args predicate".into());
        }
        if !self.event_predicates.is_empty() {
            conditions.push("a custom event predicate".into());
        }
        if !conditions.is_empty() {
            write!(f, " with {}", conditions.join(" and "))?;
        }
        Ok(())
    }
}

impl fmt::Debug for ToolMatcher<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolMatcher({self})")
    }
}

impl From<&str> for ToolMatcher<'_> {
    fn from(tool: &str) -> Self {
        ToolMatcher::new(tool)
    }
}

impl From<String> for ToolMatcher<'_> {
    fn from(tool: String) -> Self {
        ToolMatcher::new(tool)
    }
}

impl From<crate::Regex> for ToolMatcher<'_> {
    fn from(tool: crate::Regex) -> Self {
        ToolMatcher::new(tool)
    }
}

impl<'a> ToolCall<'a> {
    fn from_event(event: &'a SessionEvent) -> Option<Self> {
        match event {
            SessionEvent::ToolCall { tool, args, .. } => Some(ToolCall { event, tool, args }),
            _ => None,
        }
    }

    fn show(&self) -> String {
        match self.args {
            Value::Null => self.tool.to_owned(),
            args => format!("{} {args}", self.tool),
        }
    }
}

impl ItemPattern<ToolCall<'_>> for ToolMatcher<'_> {
    fn is_match(&self, item: &ToolCall<'_>) -> bool {
        self.matches(item)
    }

    fn describe(&self) -> String {
        self.to_string()
    }
}

/// Checks over the tool calls of a report, in order. Open it with
/// [`Expect::tool_calls`](super::Expect::tool_calls).
///
/// Calls are selected with a [`ToolMatcher`] (or a `&str` tool name). Failure messages
/// list every call as `tool {arguments}`.
///
/// ```
/// # use skillgym::prelude::*;
/// # use serde_json::json;
/// # let report = SessionReport::from_events([
/// #     SessionEvent::tool_call("Skill", json!({"skill": "find-skills"})),
/// #     SessionEvent::tool_call("Bash", json!({"command": "npx skills find expo"})),
/// # ]);
/// report
///     .expect()
///     .tool_calls()
///     .has(ToolMatcher::new("Skill").arg("skill", "find-skills"))
///     .sequence(["Skill", "Bash"])
///     .at_most("Bash", 3);
/// ```
pub struct ToolCalls<'a> {
    check: Check<'a>,
    list: ItemList<ToolCall<'a>>,
}

check_options!(ToolCalls, "tool_calls", "has(\"Skill\")");

impl<'a> ToolCalls<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        ToolCalls {
            list: ItemList {
                kind: &TOOL_CALLS,
                items: report
                    .events
                    .iter()
                    .filter_map(ToolCall::from_event)
                    .collect(),
                show: ToolCall::show,
            },
            check: Check::new(report, sink),
        }
    }

    /// Some call matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # use serde_json::json;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Read", json!({"file_path": "/s/x/SKILL.md"}))]);
    /// report.expect().tool_calls().has(ToolMatcher::new("Read").arg("file_path", "SKILL.md"));
    /// ```
    #[doc(alias("contains", "includes"))]
    #[track_caller]
    pub fn has<'p>(mut self, matcher: impl Into<ToolMatcher<'p>>) -> Self {
        let outcome = self.list.includes(&matcher.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// No call matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Read", serde_json::Value::Null)]);
    /// report.expect().tool_calls().not_has("Write");
    /// ```
    #[doc(alias("not_contains", "not_includes"))]
    #[track_caller]
    pub fn not_has<'p>(mut self, matcher: impl Into<ToolMatcher<'p>>) -> Self {
        let outcome = self.list.not_includes(&matcher.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly `expected` calls match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Read", serde_json::Value::Null)]);
    /// report.expect().tool_calls().count("Read", 1);
    /// ```
    #[track_caller]
    pub fn count<'p>(mut self, matcher: impl Into<ToolMatcher<'p>>, expected: usize) -> Self {
        let outcome = self.list.count(&matcher.into(), Bound::Exactly, expected);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At least `min` calls match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Read", serde_json::Value::Null)]);
    /// report.expect().tool_calls().at_least(ToolMatcher::any(), 1);
    /// ```
    #[track_caller]
    pub fn at_least<'p>(mut self, matcher: impl Into<ToolMatcher<'p>>, min: usize) -> Self {
        let outcome = self.list.count(&matcher.into(), Bound::AtLeast, min);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At most `max` calls match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Bash", serde_json::Value::Null)]);
    /// report.expect().tool_calls().at_most("Bash", 5);
    /// ```
    #[track_caller]
    pub fn at_most<'p>(mut self, matcher: impl Into<ToolMatcher<'p>>, max: usize) -> Self {
        let outcome = self.list.count(&matcher.into(), Bound::AtMost, max);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The first call matching `earlier` comes before the first matching `later`; both must
    /// exist.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::tool_call("Skill", serde_json::Value::Null),
    /// #     SessionEvent::tool_call("Edit", serde_json::Value::Null),
    /// # ]);
    /// report.expect().tool_calls().before("Skill", "Edit");
    /// ```
    #[track_caller]
    pub fn before<'p, 'q>(
        mut self,
        earlier: impl Into<ToolMatcher<'p>>,
        later: impl Into<ToolMatcher<'q>>,
    ) -> Self {
        let outcome = self.list.before(&earlier.into(), &later.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The matchers match calls in this order, each strictly after the previous one's match
    /// (an ordered subsequence; other calls may come between).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::tool_call("Skill", serde_json::Value::Null),
    /// #     SessionEvent::tool_call("Read", serde_json::Value::Null),
    /// #     SessionEvent::tool_call("Edit", serde_json::Value::Null),
    /// # ]);
    /// report.expect().tool_calls().sequence(["Skill", "Edit"]);
    /// ```
    #[doc(alias("in_order", "ordered"))]
    #[track_caller]
    pub fn sequence<'p, M: Into<ToolMatcher<'p>>>(
        mut self,
        matchers: impl IntoIterator<Item = M>,
    ) -> Self {
        let matchers: Vec<ToolMatcher<'p>> = matchers.into_iter().map(Into::into).collect();
        let outcome = self.sequence_outcome(&matchers);
        self.check.settle(Location::caller(), outcome);
        self
    }

    fn sequence_outcome(&self, matchers: &[ToolMatcher<'_>]) -> Result<(), Mismatch> {
        let mut positions = Vec::new();
        let mut next = 0;
        for matcher in matchers {
            match (next..self.list.items.len()).find(|&i| matcher.matches(&self.list.items[i])) {
                Some(found) => {
                    positions.push(found);
                    next = found + 1;
                }
                None => break,
            }
        }
        if positions.len() == matchers.len() {
            return Ok(());
        }
        let steps = matchers
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" -> ");
        let missing = &matchers[positions.len()];
        let why = match positions.last() {
            None => format!("no tool call matched {missing}"),
            Some(&at) => format!(
                "no tool call after #{} ({}) matched {missing}",
                at + 1,
                matchers[positions.len() - 1]
            ),
        };
        let mut detail = format!("expected tool calls in this order: {steps}\nbut {why}");
        let entries: Vec<render::Entry> = self
            .list
            .items
            .iter()
            .enumerate()
            .map(|(index, call)| render::Entry {
                text: call.show(),
                details: Vec::new(),
                marked: positions.contains(&index),
            })
            .collect();
        render::observed(
            &mut detail,
            self.list.kind.noun,
            &entries,
            Some("a matched step"),
        );
        Err(Mismatch::new(
            detail,
            format!("Why did you not follow this tool call sequence: {steps}?"),
        ))
    }

    /// Every call matches at least one of `matchers` (vacuously true with no calls).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::tool_call("Read", serde_json::Value::Null)]);
    /// report.expect().tool_calls().only(["Read", "Grep", "Glob"]);
    /// ```
    #[track_caller]
    pub fn only<'p, M: Into<ToolMatcher<'p>>>(
        mut self,
        matchers: impl IntoIterator<Item = M>,
    ) -> Self {
        let matchers: Vec<ToolMatcher<'p>> = matchers.into_iter().map(Into::into).collect();
        let outcome = self.list.only(&matchers);
        self.check.settle(Location::caller(), outcome);
        self
    }
}
