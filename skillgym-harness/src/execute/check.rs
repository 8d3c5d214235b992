//! Running a case's checks on a report, turning panics and errors into failures.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use std::any::Any;

use skillgym::__private::{CaseDef, RunFn};
use skillgym::assert::AssertionFailure;
use skillgym::{CaseContext, Failure, SessionReport, SourceLocation};

use super::runtimes::Lease;
use crate::suite::{CaseCheck, CaseSpec};

/// A panic recorded by the hook: its message and location.
type CapturedPanic = (String, Option<SourceLocation>);

thread_local! {
    /// Set while a case's checks run on this thread: the hook records the panic here instead of
    /// printing it, so the failure shows once, in the trial's failure block.
    static CAPTURE: RefCell<Option<Option<CapturedPanic>>> = const { RefCell::new(None) };
}

/// Runs the case's checks. The soft failures the case recorded, then the panic or `Err` that
/// ended it (if any), become one assertion failure with every part's message, location and
/// class; the case's `classify_failure` hook runs later (see [`classify`]).
pub(super) fn run_check(
    runtime: &Lease,
    def: &'static CaseDef,
    report: &SessionReport,
    ctx: &mut CaseContext,
) -> Option<Failure> {
    install_hook();
    CAPTURE.with(|slot| *slot.borrow_mut() = Some(None));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| match def.run {
        RunFn::Sync(run) => run(report, ctx),
        RunFn::Async(run) => {
            // The case's own code on the runtime: it is not kept for another execution.
            runtime.foreign_code();
            runtime.block_on(run(report, ctx))
        }
    }));
    let captured = CAPTURE.with(|slot| slot.borrow_mut().take()).flatten();
    let ending = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(error)) => {
            let mut failure = AssertionFailure::new(error.message());
            failure.location = error.location().cloned();
            failure.class = error.class().cloned();
            Some(failure)
        }
        Err(payload) => Some(panic_failure(payload, captured)),
    };
    let mut parts = skillgym::__private::take_soft_failures(ctx);
    parts.extend(ending);
    Failure::from_assertions(parts)
}

/// The failure a panic carries: a structured [`AssertionFailure`] from a skillgym assertion,
/// or the message and location of any other panic (`assert!`, `unwrap`, ...).
fn panic_failure(
    payload: Box<dyn Any + Send>,
    captured: Option<CapturedPanic>,
) -> AssertionFailure {
    let (captured_message, captured_location) = match captured {
        Some((message, location)) => (Some(message), location),
        None => (None, None),
    };
    match payload.downcast::<AssertionFailure>() {
        Ok(failure) => {
            let mut failure = *failure;
            if failure.location.is_none() {
                failure.location = captured_location;
            }
            failure
        }
        Err(payload) => {
            let message = captured_message.unwrap_or_else(|| payload_message(&*payload));
            let mut failure = AssertionFailure::new(message);
            failure.location = captured_location;
            failure
        }
    }
}

/// Installs (once) a panic hook that records panics of checks and defers to the previous hook
/// for every other panic.
fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        skillgym::__private::enable_structured_panics();
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let recorded = CAPTURE.with(|slot| match slot.try_borrow_mut() {
                Ok(mut slot) if slot.is_some() => {
                    let message = payload_message(info.payload());
                    *slot = Some(Some((message, info.location().map(SourceLocation::from))));
                    true
                }
                _ => false,
            });
            if !recorded {
                previous(info);
            }
        }));
    });
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "the case panicked with a non-string payload".to_owned()
    }
}

/// Applies a Rust case's `classify_failure` hook, which runs last and may override the class.
pub(super) fn classify(case: &CaseSpec, failure: &mut Failure) {
    let CaseCheck::Rust(def) = &case.check else {
        return;
    };
    if let Some(hook) = def.classify_failure
        && let Ok(Some(class)) = panic::catch_unwind(AssertUnwindSafe(|| hook(failure)))
    {
        failure.class = class;
    }
}
