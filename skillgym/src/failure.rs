//! Why an attempt failed: origin, class and location.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::assert::AssertionFailure;

/// Where a failure came from. Infrastructure origins (everything but [`Assertion`] and
/// [`Grader`]) still fail a case marked `expected_fail`.
///
/// [`Assertion`]: FailureOrigin::Assertion
/// [`Grader`]: FailureOrigin::Grader
///
/// ```
/// use skillgym::FailureOrigin;
///
/// assert!(FailureOrigin::Assertion.is_verdict() && !FailureOrigin::Timeout.is_verdict());
/// let json = serde_json::to_string(&FailureOrigin::MaxSteps).unwrap();
/// assert_eq!(json, r#""max-steps""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FailureOrigin {
    /// The case function panicked or returned an error.
    Assertion,
    /// A declarative (YAML) grader failed.
    Grader,
    /// A declarative grader could not grade: its program did not start or run to the end, its
    /// output was no result, or the judge failed or gave an unreadable answer. Not a verdict on
    /// the agent, so `expected_fail` does not forgive it.
    GraderError,
    /// The agent process could not start, crashed or exited unsuccessfully.
    Runner,
    /// The session ran past its timeout and was killed.
    Timeout,
    /// The agent exceeded `max_steps` model rounds and was killed.
    MaxSteps,
    /// The provider rejected the configured model.
    ModelRejected,
    /// The workspace could not be prepared or cleaned.
    Workspace,
    /// The workspace bootstrap command failed.
    Bootstrap,
    /// The agent's output could not be turned into a report.
    Normalization,
    /// A token-usage snapshot did not match.
    Snapshot,
    /// The execution's pass rate (over its samples, or its attempts) is below its
    /// `min_pass_rate`.
    PassRate,
    /// A variant's lift over its baseline (the difference of their pass rates) is below its
    /// `min_lift`.
    Lift,
    /// A skill's trigger recall or precision over its trigger prompts is below its
    /// `min_recall` or `min_precision`.
    Trigger,
    /// The run's budget (`run.budget`) was reached before the execution was decided.
    Budget,
    /// The agent printed more than the session's `max_output` and was killed.
    OutputLimit,
    /// The run was interrupted (SIGINT, SIGTERM or SIGHUP) and the agent was killed.
    Interrupted,
    /// A file of the attempt (a log, its report, its result) could not be written, e.g. the
    /// disk is full: what it should have kept is lost, so the attempt cannot pass.
    Artifacts,
}

impl FailureOrigin {
    /// Whether a failure of this origin is a verdict on the agent (and can be expected).
    ///
    /// ```
    /// use skillgym::FailureOrigin;
    ///
    /// assert!(FailureOrigin::Grader.is_verdict());
    /// assert!(!FailureOrigin::Runner.is_verdict());
    /// ```
    pub fn is_verdict(self) -> bool {
        matches!(self, FailureOrigin::Assertion | FailureOrigin::Grader)
    }

    /// The class a failure of this origin gets when nothing more specific is known.
    ///
    /// ```
    /// use skillgym::{FailureClass, FailureOrigin};
    ///
    /// let class = FailureOrigin::Runner.default_class();
    /// assert_eq!(class, FailureClass::new("runner-crash", "Runner crash"));
    /// ```
    pub fn default_class(self) -> FailureClass {
        let (id, label) = match self {
            FailureOrigin::Assertion => ("assertion", "Assertion failure"),
            FailureOrigin::Grader => ("grader", "Grader failure"),
            FailureOrigin::GraderError => ("grader-error", "Grader could not grade"),
            FailureOrigin::Runner => ("runner-crash", "Runner crash"),
            FailureOrigin::Timeout => ("timeout", "Timeout"),
            FailureOrigin::MaxSteps => ("max-steps", "Max steps exceeded"),
            FailureOrigin::ModelRejected => ("model-rejected", "Rejected model"),
            FailureOrigin::Workspace => ("workspace", "Workspace"),
            FailureOrigin::Bootstrap => ("workspace-bootstrap", "Workspace bootstrap"),
            FailureOrigin::Normalization => ("normalization", "Report normalization"),
            FailureOrigin::Snapshot => ("snapshot", "Snapshot verification"),
            FailureOrigin::PassRate => ("pass-rate", "Pass rate below its gate"),
            FailureOrigin::Lift => ("lift", "Lift below its gate"),
            FailureOrigin::Trigger => ("trigger", "Trigger score below its gate"),
            FailureOrigin::Budget => ("budget", "Budget reached"),
            FailureOrigin::OutputLimit => ("output-limit", "Output limit exceeded"),
            FailureOrigin::Interrupted => ("interrupted", "Run interrupted"),
            FailureOrigin::Artifacts => ("artifacts", "Artifacts not written"),
        };
        FailureClass::new(id, label)
    }

    /// The kebab-case name used in results and reports (also its `Display` and JSON form).
    ///
    /// ```
    /// use skillgym::FailureOrigin;
    ///
    /// assert_eq!(FailureOrigin::ModelRejected.as_str(), "model-rejected");
    /// assert_eq!(FailureOrigin::ModelRejected.to_string(), "model-rejected");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FailureOrigin::Assertion => "assertion",
            FailureOrigin::Grader => "grader",
            FailureOrigin::GraderError => "grader-error",
            FailureOrigin::Runner => "runner",
            FailureOrigin::Timeout => "timeout",
            FailureOrigin::MaxSteps => "max-steps",
            FailureOrigin::ModelRejected => "model-rejected",
            FailureOrigin::Workspace => "workspace",
            FailureOrigin::Bootstrap => "bootstrap",
            FailureOrigin::Normalization => "normalization",
            FailureOrigin::Snapshot => "snapshot",
            FailureOrigin::PassRate => "pass-rate",
            FailureOrigin::Lift => "lift",
            FailureOrigin::Trigger => "trigger",
            FailureOrigin::Budget => "budget",
            FailureOrigin::OutputLimit => "output-limit",
            FailureOrigin::Interrupted => "interrupted",
            FailureOrigin::Artifacts => "artifacts",
        }
    }
}

impl fmt::Display for FailureOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A named group of failures that share one cause, such as `wrong-cli-alias`.
///
/// ```
/// use skillgym::FailureClass;
///
/// let class: FailureClass = "wrong-cli-alias".into();
/// assert_eq!(class, FailureClass::id("wrong-cli-alias"));
/// assert_eq!(serde_json::to_string(&class).unwrap(), r#"{"id":"wrong-cli-alias"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FailureClass {
    /// Stable identifier, used to group failures in reports.
    pub id: String,
    /// Human-readable label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl FailureClass {
    /// A class with an id and a label.
    ///
    /// ```
    /// let class = skillgym::FailureClass::new("no-discovery", "Skipped skill discovery");
    /// assert_eq!(class.id, "no-discovery");
    /// assert_eq!(class.label.as_deref(), Some("Skipped skill discovery"));
    /// ```
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        FailureClass {
            id: id.into(),
            label: Some(label.into()),
        }
    }

    /// A class with only an id.
    ///
    /// ```
    /// let class = skillgym::FailureClass::id("silent");
    /// assert_eq!((class.id.as_str(), class.label), ("silent", None));
    /// ```
    pub fn id(id: impl Into<String>) -> Self {
        FailureClass {
            id: id.into(),
            label: None,
        }
    }
}

impl From<&str> for FailureClass {
    fn from(id: &str) -> Self {
        FailureClass::id(id)
    }
}

impl From<String> for FailureClass {
    fn from(id: String) -> Self {
        FailureClass::id(id)
    }
}

/// A position in a source file (`file:line:column`).
///
/// ```
/// use skillgym::SourceLocation;
///
/// let here = SourceLocation { file: "tests/skills.rs".into(), line: 12, column: 5 };
/// assert_eq!(here.to_string(), "tests/skills.rs:12:5");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLocation {
    /// Path as the compiler reported it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl SourceLocation {
    /// The location of a `#[track_caller]` call site.
    ///
    /// ```
    /// #[track_caller]
    /// fn checked() -> skillgym::SourceLocation {
    ///     skillgym::SourceLocation::caller()
    /// }
    /// let (first, second) = (checked(), checked());
    /// assert_eq!(first.line, line!() - 1);
    /// assert!(first.column < second.column); // two call sites on one line
    /// ```
    #[track_caller]
    pub fn caller() -> Self {
        std::panic::Location::caller().into()
    }
}

impl From<&std::panic::Location<'_>> for SourceLocation {
    fn from(location: &std::panic::Location<'_>) -> Self {
        SourceLocation {
            file: location.file().to_owned(),
            line: location.line(),
            column: location.column(),
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Why an attempt failed.
///
/// ```
/// use skillgym::{Failure, FailureOrigin};
///
/// let failure = Failure::new(FailureOrigin::Timeout, "killed after 600 s");
/// let json = serde_json::to_value(&failure).unwrap();
/// assert_eq!(json["origin"], "timeout");
/// assert_eq!(json["class"], serde_json::json!({"id": "timeout", "label": "Timeout"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Where the failure came from.
    pub origin: FailureOrigin,
    /// The class it is grouped under.
    pub class: FailureClass,
    /// What went wrong, as shown to the user.
    pub message: String,
    /// Where in the case's source it was raised, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<SourceLocation>,
    /// The assertion failures this failure is made of, in the order they happened: the soft
    /// ones, then the one that ended the case. Each keeps its location, class and question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<AssertionFailure>,
}

impl Failure {
    /// A failure with the default class of its origin.
    ///
    /// ```
    /// use skillgym::{Failure, FailureOrigin};
    ///
    /// let failure = Failure::new(FailureOrigin::Bootstrap, "npm ci exited with 1");
    /// assert_eq!(failure.class.id, "workspace-bootstrap");
    /// assert!(failure.location.is_none() && failure.assertions.is_empty());
    /// ```
    pub fn new(origin: FailureOrigin, message: impl Into<String>) -> Self {
        Failure {
            origin,
            class: origin.default_class(),
            message: message.into(),
            location: None,
            assertions: Vec::new(),
        }
    }

    /// Merges the assertion failures of one attempt into a failure of origin `assertion`.
    ///
    /// One failure keeps its message and location. Several become `N assertion failures:`
    /// with each numbered, its class and its location. The merged class is the first class
    /// attached to a part, else the default `assertion` class; every part keeps its own.
    /// Returns `None` for no failures.
    ///
    /// ```
    /// use skillgym::{assert::AssertionFailure, Failure, FailureClass, SourceLocation};
    ///
    /// let here = SourceLocation { file: "tests/b.rs".into(), line: 7, column: 5 };
    /// let failure = Failure::from_assertions(vec![
    ///     AssertionFailure::new("expected a command matching \"npm test\"").at(here.clone()),
    ///     AssertionFailure::new("expected a final output").at(here).with_class("silent"),
    /// ])
    /// .unwrap();
    /// assert_eq!(failure.class, FailureClass::id("silent"));
    /// assert!(failure.message.starts_with("2 assertion failures:\n1. expected a command"));
    /// assert_eq!(failure.assertions.len(), 2);
    /// ```
    pub fn from_assertions(parts: Vec<AssertionFailure>) -> Option<Failure> {
        let class = parts
            .iter()
            .find_map(|part| part.class.clone())
            .unwrap_or_else(|| FailureOrigin::Assertion.default_class());
        let (message, location) = match parts.as_slice() {
            [] => return None,
            [only] => (only.message.clone(), only.location.clone()),
            many => (merged_message(many), None),
        };
        Some(Failure {
            origin: FailureOrigin::Assertion,
            class,
            message,
            location,
            assertions: parts,
        })
    }

    /// The explain questions of the parts, with their locations.
    ///
    /// ```
    /// use skillgym::{assert::AssertionFailure, Failure};
    ///
    /// let failure = Failure::from_assertions(vec![
    ///     AssertionFailure::new("a").with_question("Why a?"),
    ///     AssertionFailure::new("b"),
    /// ])
    /// .unwrap();
    /// assert_eq!(failure.questions().map(|(q, _)| q).collect::<Vec<_>>(), ["Why a?"]);
    /// ```
    pub fn questions(&self) -> impl Iterator<Item = (&str, Option<&SourceLocation>)> {
        self.assertions.iter().filter_map(|part| {
            part.question
                .as_deref()
                .map(|question| (question, part.location.as_ref()))
        })
    }

    /// Attaches a source location (replacing any, so `None` clears it).
    ///
    /// ```
    /// use skillgym::{Failure, FailureOrigin, SourceLocation};
    ///
    /// let here = SourceLocation { file: "tests/a.rs".into(), line: 3, column: 9 };
    /// let failure = Failure::new(FailureOrigin::Assertion, "no output").at(Some(here));
    /// assert_eq!(failure.to_string(), "no output\n  at tests/a.rs:3:9");
    /// ```
    pub fn at(mut self, location: Option<SourceLocation>) -> Self {
        self.location = location;
        self
    }

    /// Replaces the class.
    ///
    /// ```
    /// use skillgym::{Failure, FailureClass, FailureOrigin};
    ///
    /// let failure = Failure::new(FailureOrigin::Grader, "rubric: 2/5")
    ///     .with_class(FailureClass::id("weak-answer"));
    /// assert_eq!(failure.origin, FailureOrigin::Grader);
    /// assert_eq!(failure.class.id, "weak-answer");
    /// ```
    pub fn with_class(mut self, class: FailureClass) -> Self {
        self.class = class;
        self
    }
}

/// `N assertion failures:` and each part numbered, with its class and location indented.
fn merged_message(parts: &[AssertionFailure]) -> String {
    let mut message = format!("{} assertion failures:", parts.len());
    for (index, part) in parts.iter().enumerate() {
        let mut lines = part.message.lines();
        message.push_str(&format!(
            "\n{}. {}",
            index + 1,
            lines.next().unwrap_or_default()
        ));
        for line in lines {
            message.push_str(&format!("\n   {line}"));
        }
        if let Some(class) = &part.class {
            message.push_str(&format!("\n   class: {}", class.id));
        }
        if let Some(location) = &part.location {
            message.push_str(&format!("\n   at {location}"));
        }
    }
    message
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(location) = &self.location {
            write!(f, "\n  at {location}")?;
        }
        Ok(())
    }
}
