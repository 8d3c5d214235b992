//! Hard assertions outside the harness: a plain-text panic located at the check, so any test
//! runner prints it well; and the `assert_*!` macros.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use skillgym::prelude::*;

thread_local! {
    /// Set while `panic_of` runs a closure: the hook records the panic here instead of printing.
    static CAPTURED: RefCell<Option<Option<(String, u32, String)>>> = const { RefCell::new(None) };
}

/// Runs `check` and returns its panic message, line and file, if it panicked.
fn panic_of(check: impl FnOnce()) -> Option<(String, u32, String)> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let recorded = CAPTURED.with(|slot| {
                let mut slot = slot.borrow_mut();
                if slot.is_none() {
                    return false;
                }
                let message = info
                    .payload()
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "<non-string payload>".into());
                let location = info.location().unwrap();
                *slot = Some(Some((message, location.line(), location.file().to_owned())));
                true
            });
            if !recorded {
                previous(info);
            }
        }));
    });
    CAPTURED.with(|slot| *slot.borrow_mut() = Some(None));
    let outcome = panic::catch_unwind(AssertUnwindSafe(check));
    let captured = CAPTURED.with(|slot| slot.borrow_mut().take()).flatten();
    assert_eq!(outcome.is_err(), captured.is_some());
    captured
}

fn report() -> SessionReport {
    SessionReport::from_events([
        SessionEvent::command("ls -la"),
        SessionEvent::assistant("done"),
    ])
}

#[test]
fn a_failed_check_panics_with_its_message_at_the_call_site() {
    let report = report();
    let line = line!() + 2;
    let (message, at, file) = panic_of(|| {
        report.expect().commands().includes("npm test");
    })
    .unwrap();
    assert_eq!(
        message,
        "expected a command matching \"npm test\"\nobserved 1 command:\n  1. ls -la\n\
         explain: Why did you not run a command matching \"npm test\"?"
    );
    assert_eq!(at, line);
    assert!(file.ends_with("hard.rs"), "{file}");
}

#[test]
fn a_chain_stops_at_its_first_failure() {
    let report = report();
    let (message, ..) = panic_of(|| {
        report
            .expect()
            .commands()
            .includes("ls")
            .size(3)
            .includes("never");
    })
    .unwrap();
    assert!(
        message.starts_with("expected 3 commands, observed 1"),
        "{message}"
    );
}

#[test]
fn passing_checks_do_not_panic() {
    let report = report();
    assert_eq!(
        panic_of(|| {
            report.expect().commands().includes("ls").size(1);
            report.expect().output().equals("done");
        }),
        None
    );
}

#[test]
fn because_and_a_custom_question_show_in_the_plain_text() {
    let report = report();
    let (message, ..) = panic_of(|| {
        report
            .expect()
            .output()
            .because("the answer must be the word ready")
            .explain("Why not ready?")
            .equals("ready");
    })
    .unwrap();
    assert_eq!(
        message,
        "the answer must be the word ready\nexpected the final output to be \"ready\" (trimmed)\n\
         final output (4 chars):\n  done\nexplain: Why not ready?"
    );
}

#[test]
fn assert_regex_shows_the_expression_and_the_text() {
    let tool_output = "audited 2 packages";
    let line = line!() + 2;
    let (message, at, _) =
        panic_of(|| skillgym::assert_regex!(tool_output, r"^added \d+")).unwrap();
    assert_eq!(
        message,
        "expected `tool_output` to match /^added \\d+/\ntext (18 chars):\n  audited 2 packages"
    );
    assert_eq!(at, line);
    assert_eq!(
        panic_of(|| skillgym::assert_regex!(tool_output, r"\d+ packages")),
        None
    );
}

#[test]
fn assert_regex_takes_a_message_and_reports_a_bad_pattern() {
    let (message, ..) =
        panic_of(|| skillgym::assert_regex!("x", "y", "step {} failed", 2)).unwrap();
    assert!(
        message.starts_with("step 2 failed\nexpected `\"x\"` to match /y/"),
        "{message}"
    );
    let (message, ..) = panic_of(|| skillgym::assert_regex!("x", "(")).unwrap();
    assert!(
        message.starts_with("invalid regular expression /(/: regex parse error"),
        "{message}"
    );
}

#[test]
fn assert_contains_shows_the_text() {
    let written = String::from("fn main() {}");
    let (message, ..) = panic_of(|| skillgym::assert_contains!(written, "tokio::main")).unwrap();
    assert_eq!(
        message,
        "expected `written` to contain \"tokio::main\"\ntext (12 chars):\n  fn main() {}"
    );
    let (message, ..) =
        panic_of(|| skillgym::assert_contains!("", "x", "no {}", "output")).unwrap();
    assert_eq!(
        message,
        "no output\nexpected `\"\"` to contain \"x\"\nthe text is empty"
    );
    assert_eq!(
        panic_of(|| skillgym::assert_contains!(written, "main")),
        None
    );
}

#[test]
fn classify_returns_the_value_of_a_passing_block() {
    assert_eq!(classify("c", || 7), 7);
}
