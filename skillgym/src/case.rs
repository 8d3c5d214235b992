//! What a case function receives besides the report, and what it may return.

use std::any::Any;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::SessionReport;
use crate::assert::{AssertionFailure, Expect};
use crate::failure::{FailureClass, SourceLocation};

/// The result type a case function may return: `-> skillgym::Result`.
///
/// ```
/// use skillgym::{Error, SessionReport};
///
/// fn answered(report: &SessionReport) -> skillgym::Result {
///     if report.final_output().is_empty() {
///         return Err(Error::msg("no final answer"));
///     }
///     Ok(())
/// }
/// assert!(answered(&SessionReport::default().with_final_output("done")).is_ok());
/// assert!(answered(&SessionReport::default()).is_err());
/// ```
pub type Result<T = (), E = Error> = core::result::Result<T, E>;

/// A case failure carried by `Err(..)`: a message, an optional [`FailureClass`] and the
/// location where it was created.
///
/// Any `std::error::Error` converts into it, so `?` works on I/O, JSON and other errors.
/// Like `anyhow::Error`, it deliberately does not implement `std::error::Error` itself.
///
/// ```
/// fn port(text: &str) -> skillgym::Result<u16> {
///     Ok(text.parse::<u16>()?)
/// }
/// let error = port("http").unwrap_err();
/// assert_eq!(error.to_string(), "invalid digit found in string");
/// assert!(error.location().is_some() && error.class().is_none());
/// ```
#[derive(Clone, PartialEq)]
pub struct Error {
    message: String,
    class: Option<FailureClass>,
    location: Option<SourceLocation>,
}

impl Error {
    /// An error with a message, located at the caller.
    ///
    /// ```
    /// let error = skillgym::Error::msg(format!("{} tests failed", 3));
    /// assert_eq!(error.message(), "3 tests failed");
    /// assert!(error.location().is_some());
    /// ```
    #[track_caller]
    pub fn msg(message: impl fmt::Display) -> Self {
        Error {
            message: message.to_string(),
            class: None,
            location: Some(SourceLocation::caller()),
        }
    }

    /// Attaches a failure class.
    ///
    /// ```
    /// use skillgym::{Error, FailureClass};
    ///
    /// let error = Error::msg("ran yarn").with_class("wrong-package-manager");
    /// assert_eq!(error.class(), Some(&FailureClass::id("wrong-package-manager")));
    /// ```
    pub fn with_class(mut self, class: impl Into<FailureClass>) -> Self {
        self.class = Some(class.into());
        self
    }

    /// The message.
    ///
    /// ```
    /// assert_eq!(skillgym::Error::msg("no output").message(), "no output");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The attached failure class, if any.
    ///
    /// ```
    /// use skillgym::{Error, FailureClass};
    ///
    /// assert!(Error::msg("boom").class().is_none());
    /// let error = Error::msg("boom").with_class(FailureClass::new("crash", "Agent crashed"));
    /// assert_eq!(error.class().unwrap().label.as_deref(), Some("Agent crashed"));
    /// ```
    pub fn class(&self) -> Option<&FailureClass> {
        self.class.as_ref()
    }

    /// Where the error was created, if known.
    ///
    /// ```
    /// let (error, line) = (skillgym::Error::msg("boom"), line!());
    /// assert_eq!(error.location().unwrap().line, line);
    /// ```
    pub fn location(&self) -> Option<&SourceLocation> {
        self.location.as_ref()
    }
}

impl<E: std::error::Error> From<E> for Error {
    #[track_caller]
    fn from(error: E) -> Self {
        Error::msg(error)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("message", &self.message)
            .field("class", &self.class)
            .field("location", &self.location)
            .finish()
    }
}

/// What a case function may return: `()` or `Result<(), E>` with `E: Display`.
///
/// ```
/// use skillgym::IntoCaseResult;
///
/// assert!(().into_case_result().is_ok());
/// let error = Err::<(), _>("no tests ran").into_case_result().unwrap_err();
/// assert_eq!(error.message(), "no tests ran");
/// ```
pub trait IntoCaseResult {
    /// Converts the return value into the case's verdict.
    fn into_case_result(self) -> Result;
}

impl IntoCaseResult for () {
    fn into_case_result(self) -> Result {
        Ok(())
    }
}

impl<E: fmt::Display + 'static> IntoCaseResult for core::result::Result<(), E> {
    fn into_case_result(self) -> Result {
        self.map_err(|error| match (&error as &dyn Any).downcast_ref::<Error>() {
            Some(error) => error.clone(),
            None => Error {
                message: error.to_string(),
                class: None,
                location: None,
            },
        })
    }
}

/// Per-attempt context handed to a case function as its optional second parameter
/// (`ctx: &mut CaseContext`): where the attempt runs, and the collector of soft assertion
/// failures.
///
/// ```
/// use skillgym::prelude::*;
///
/// #[skillgym::case(prompt = "Find a skill for upgrading Expo SDK")]
/// fn finds_the_skill(report: &SessionReport, ctx: &mut CaseContext) {
///     // Both checks run; if both fail, both are reported.
///     ctx.soft(report).skills().has("find-skills");
///     ctx.soft(report).output().includes("upgrading-expo");
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone)]
pub struct CaseContext {
    case_id: String,
    runner_id: String,
    repetition: u32,
    attempt: u32,
    artifact_dir: PathBuf,
    workspace_dir: PathBuf,
    soft_failures: Vec<AssertionFailure>,
}

impl CaseContext {
    /// A context for one attempt (see [`crate::__private::new_case_context`]).
    pub(crate) fn new(
        case_id: impl Into<String>,
        runner_id: impl Into<String>,
        repetition: u32,
        attempt: u32,
        artifact_dir: impl Into<PathBuf>,
        workspace_dir: impl Into<PathBuf>,
    ) -> Self {
        CaseContext {
            case_id: case_id.into(),
            runner_id: runner_id.into(),
            repetition,
            attempt,
            artifact_dir: artifact_dir.into(),
            workspace_dir: workspace_dir.into(),
            soft_failures: Vec::new(),
        }
    }

    /// Opens the assertion groups in soft mode: a failed check is recorded and the case goes
    /// on. When the case ends, every recorded failure is reported together, followed by the
    /// hard failure or error that ended it, if any.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::command("ls")]);
    /// # let mut ctx = skillgym::__private::new_case_context("case", "runner", 1, 1, "/tmp/a", "/tmp/w");
    /// ctx.soft(&report).commands().includes("npm test").includes("ls");
    /// ctx.soft(&report).output().not_empty();
    /// assert_eq!(ctx.soft_failures().len(), 2);
    /// ```
    pub fn soft<'a>(&'a mut self, report: &'a SessionReport) -> Expect<'a> {
        Expect::soft(report, self)
    }

    /// The soft failures recorded so far, in order.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("case", "runner", 1, 1, "/tmp/a", "/tmp/w");
    /// assert!(ctx.soft_failures().is_empty());
    /// ```
    pub fn soft_failures(&self) -> &[AssertionFailure] {
        &self.soft_failures
    }

    pub(crate) fn soft_failures_mut(&mut self) -> &mut Vec<AssertionFailure> {
        &mut self.soft_failures
    }

    /// Takes the recorded soft failures, leaving none (see
    /// [`crate::__private::take_soft_failures`]).
    pub(crate) fn take_soft_failures(&mut self) -> Vec<AssertionFailure> {
        std::mem::take(&mut self.soft_failures)
    }

    /// Runs `check` with this context; every failure raised inside, soft or hard, gets
    /// `class` unless a deeper `classify` already gave it one.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default();
    /// # let mut ctx = skillgym::__private::new_case_context("case", "runner", 1, 1, "/tmp/a", "/tmp/w");
    /// ctx.classify(FailureClass::new("no-discovery", "Skipped skill discovery"), |ctx| {
    ///     ctx.soft(&report).commands().includes("npx skills find");
    /// });
    /// assert_eq!(ctx.soft_failures()[0].class.as_ref().unwrap().id, "no-discovery");
    /// ```
    pub fn classify<R>(
        &mut self,
        class: impl Into<FailureClass>,
        check: impl FnOnce(&mut CaseContext) -> R,
    ) -> R {
        let class = class.into();
        let start = self.soft_failures.len();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(self)));
        for failure in self.soft_failures.iter_mut().skip(start) {
            failure.class.get_or_insert_with(|| class.clone());
        }
        match outcome {
            Ok(value) => value,
            Err(payload) => crate::assert::rethrow_classified(payload, &class),
        }
    }

    /// The case id, e.g. `skills::find_expo`.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("skills::find_expo", "claude", 1, 1, "/tmp/a", "/tmp/w");
    /// assert_eq!(ctx.case_id(), "skills::find_expo");
    /// ```
    pub fn case_id(&self) -> &str {
        &self.case_id
    }

    /// The runner id, e.g. `claude`.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("skills::find_expo", "claude", 1, 1, "/tmp/a", "/tmp/w");
    /// assert_eq!(ctx.runner_id(), "claude");
    /// ```
    pub fn runner_id(&self) -> &str {
        &self.runner_id
    }

    /// The 1-based repetition number.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("case", "claude", 3, 1, "/tmp/a", "/tmp/w");
    /// assert_eq!(ctx.repetition(), 3);
    /// ```
    pub fn repetition(&self) -> u32 {
        self.repetition
    }

    /// The 1-based attempt number inside the repetition.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("case", "claude", 3, 2, "/tmp/a", "/tmp/w");
    /// assert_eq!((ctx.repetition(), ctx.attempt()), (3, 2));
    /// ```
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// This attempt's artifact directory (`.../repeat-N/attempt-M`).
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("case", "claude", 1, 2, "/out/repeat-1/attempt-2", "/tmp/w");
    /// let notes = ctx.artifact_dir().join("notes.txt");
    /// assert!(notes.ends_with("repeat-1/attempt-2/notes.txt"));
    /// ```
    pub fn artifact_dir(&self) -> &Path {
        &self.artifact_dir
    }

    /// The directory the agent ran in.
    ///
    /// ```
    /// # let ctx = skillgym::__private::new_case_context("case", "claude", 1, 1, "/tmp/a", "/tmp/ws");
    /// let manifest = ctx.workspace_dir().join("package.json");
    /// assert_eq!(manifest, std::path::Path::new("/tmp/ws/package.json"));
    /// ```
    pub fn workspace_dir(&self) -> &Path {
        &self.workspace_dir
    }
}
