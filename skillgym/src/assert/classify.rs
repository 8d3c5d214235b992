//! Attaching a failure class to the failures raised inside a block.

use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;

use super::AssertionFailure;
use super::sink::structured_panics;
use crate::FailureClass;

/// Runs `check`; a hard assertion failure (or any panic) inside it gets `class`, unless a
/// `classify` nested deeper already gave it one. Returns what `check` returns.
///
/// The case's `classify_failure` hook runs later and may still override the class. Soft
/// failures are recorded in the [`CaseContext`](crate::CaseContext) and never unwind, so use
/// [`CaseContext::classify`](crate::CaseContext::classify) to classify those; for `async`
/// blocks use [`classify_async`]; for a returned [`Error`](crate::Error) use
/// [`Error::with_class`](crate::Error::with_class).
///
/// ```
/// use skillgym::prelude::*;
///
/// #[skillgym::case(prompt = "Say you would run: cursor agent \"open README.md\"")]
/// fn uses_the_right_alias(report: &SessionReport) {
///     classify(FailureClass::new("wrong-cli-alias", "Wrong CLI alias"), || {
///         report.expect().output().not_includes(Regex::new(r"\bcursr\s+agent\b").unwrap());
///     });
/// }
/// # fn main() {}
/// ```
pub fn classify<R>(class: impl Into<FailureClass>, check: impl FnOnce() -> R) -> R {
    let class = class.into();
    match panic::catch_unwind(AssertUnwindSafe(check)) {
        Ok(value) => value,
        Err(payload) => rethrow_classified(payload, &class),
    }
}

/// [`classify`] for a future: a panic while it is polled gets `class`.
///
/// ```
/// use skillgym::prelude::*;
///
/// #[skillgym::case(prompt = "Run the tests")]
/// async fn runs_tests(report: &SessionReport) {
///     classify_async("no-tests", async {
///         report.expect().commands().includes("cargo test");
///     })
///     .await;
/// }
/// # fn main() {}
/// ```
pub async fn classify_async<F: Future>(class: impl Into<FailureClass>, future: F) -> F::Output {
    let class = class.into();
    let mut future = pin!(future);
    poll_fn(
        |cx| match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => rethrow_classified(payload, &class),
        },
    )
    .await
}

/// Goes on unwinding with `payload`, classified by [`attach_class`].
pub(crate) fn rethrow_classified(payload: Box<dyn Any + Send>, class: &FailureClass) -> ! {
    panic::resume_unwind(attach_class(payload, class))
}

/// Gives an unwinding failure `class` when it has none yet. Inside the harness a plain
/// `panic!`/`assert!` message becomes an [`AssertionFailure`] so the class can travel with it.
fn attach_class(mut payload: Box<dyn Any + Send>, class: &FailureClass) -> Box<dyn Any + Send> {
    if let Some(failure) = payload.downcast_mut::<AssertionFailure>() {
        failure.class.get_or_insert_with(|| class.clone());
        return payload;
    }
    if !structured_panics() {
        return payload;
    }
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        return payload;
    };
    Box::new(AssertionFailure::new(message).with_class(class.clone()))
}
