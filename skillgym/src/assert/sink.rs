//! Where a failed assertion goes: a panic (hard) or the case context's list (soft).

use std::sync::atomic::{AtomicBool, Ordering};

use super::AssertionFailure;

/// Set by the harness: hard failures then panic with the [`AssertionFailure`] itself as the
/// payload, so its class and question survive; elsewhere they panic with plain text, which
/// every panic hook prints well.
static STRUCTURED_PANICS: AtomicBool = AtomicBool::new(false);

/// Makes hard assertion failures panic with an [`AssertionFailure`] payload.
pub(crate) fn enable_structured_panics() {
    STRUCTURED_PANICS.store(true, Ordering::Relaxed);
}

/// Whether hard failures panic with an [`AssertionFailure`] payload.
pub(crate) fn structured_panics() -> bool {
    STRUCTURED_PANICS.load(Ordering::Relaxed)
}

/// The destination of failed assertions.
#[derive(Debug)]
pub(crate) enum Sink<'a> {
    /// Panic at the first failure.
    Hard,
    /// Collect failures and go on.
    Soft(&'a mut Vec<AssertionFailure>),
}

impl Sink<'_> {
    /// Delivers a failure: records it (soft) or panics (hard).
    #[track_caller]
    pub(crate) fn raise(&mut self, failure: AssertionFailure) {
        match self {
            Sink::Soft(failures) => failures.push(failure),
            Sink::Hard => fail(failure),
        }
    }
}

/// Panics with a failure: a structured payload inside the harness, plain text elsewhere.
#[track_caller]
pub(crate) fn fail(failure: AssertionFailure) -> ! {
    if structured_panics() {
        std::panic::panic_any(failure)
    }
    let AssertionFailure {
        message,
        class,
        question,
        ..
    } = failure;
    let mut text = message;
    if let Some(class) = class {
        text.push_str(&format!("\nclass: {}", class.id));
    }
    if let Some(question) = question {
        text.push_str(&format!("\nexplain: {question}"));
    }
    panic!("{text}")
}
