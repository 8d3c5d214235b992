//! One failed assertion: what was expected and observed, where, its class and explain question.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{FailureClass, SourceLocation};

/// One failed assertion.
///
/// Hard assertions raise it as a panic payload inside the harness (plain `panic!` text
/// elsewhere); soft assertions collect it in the [`CaseContext`](crate::CaseContext). The
/// harness merges every collected failure of an attempt into one [`Failure`](crate::Failure).
///
/// ```
/// use skillgym::assert::AssertionFailure;
/// use skillgym::FailureClass;
///
/// let failure = AssertionFailure::new("expected a command matching \"npm test\"")
///     .with_class(FailureClass::id("missing-tests"))
///     .with_question("Why did you not run the tests?");
/// assert_eq!(failure.class.as_ref().unwrap().id, "missing-tests");
/// assert!(failure.to_string().starts_with("expected a command"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssertionFailure {
    /// What was expected and what was observed.
    pub message: String,
    /// The call site of the assertion in the case's source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<SourceLocation>,
    /// The class attached with [`classify`](crate::assert::classify), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<FailureClass>,
    /// The question to ask the agent about this failure (`skillgym explain`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
}

impl AssertionFailure {
    /// A failure with a message and nothing else.
    ///
    /// ```
    /// let failure = skillgym::assert::AssertionFailure::new("boom");
    /// assert_eq!(failure.message, "boom");
    /// assert!(failure.location.is_none());
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        AssertionFailure {
            message: message.into(),
            location: None,
            class: None,
            question: None,
        }
    }

    /// Sets the location.
    ///
    /// ```
    /// use skillgym::{assert::AssertionFailure, SourceLocation};
    ///
    /// let failure = AssertionFailure::new("boom").at(SourceLocation::caller());
    /// assert_eq!(failure.location.unwrap().line, line!() - 1);
    /// ```
    pub fn at(mut self, location: SourceLocation) -> Self {
        self.location = Some(location);
        self
    }

    /// Sets the failure class.
    ///
    /// ```
    /// let failure = skillgym::assert::AssertionFailure::new("boom").with_class("wrong-tool");
    /// assert_eq!(failure.class.unwrap().id, "wrong-tool");
    /// ```
    pub fn with_class(mut self, class: impl Into<FailureClass>) -> Self {
        self.class = Some(class.into());
        self
    }

    /// Sets the explain question.
    ///
    /// ```
    /// let failure = skillgym::assert::AssertionFailure::new("boom").with_question("Why?");
    /// assert_eq!(failure.question.as_deref(), Some("Why?"));
    /// ```
    pub fn with_question(mut self, question: impl Into<String>) -> Self {
        self.question = Some(question.into());
        self
    }
}

impl fmt::Display for AssertionFailure {
    /// The message, then the class and the location on their own lines when known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(class) = &self.class {
            write!(f, "\nclass: {}", class.id)?;
        }
        if let Some(location) = &self.location {
            write!(f, "\n  at {location}")?;
        }
        Ok(())
    }
}
