//! The output group: every check passing and failing, on transcript reports (whose final
//! output is `done`) and hand-built reports.

use skillgym::assert::Expect;
use skillgym::{Regex, SessionEvent, SessionReport};

use crate::common::*;
use crate::support::transcripts::load;

/// A check run against a report, for tables of checks.
type CheckFn = Box<dyn for<'a> Fn(Expect<'a>)>;

/// How every transcript's final output is shown in failure messages.
const DONE: &str = "final output (4 chars):\n  done";

fn output(text: &str) -> SessionReport {
    SessionReport::default().with_final_output(text)
}

// ---------------------------------------------------------------------------------------------
// includes, not_includes

#[test]
fn includes_passes_on_every_transcript() {
    let anchored = Regex::new("^d.ne$").unwrap();
    let word = Regex::new(r"(?i)\bDONE\b").unwrap();
    for (name, report) in transcripts() {
        assert_eq!(report.final_output, "done", "{name}");
        let failures = failures(&report, |e| {
            e.output()
                .includes("done")
                .includes("on")
                .includes("")
                .includes(anchored.clone())
                .includes(&word)
                .includes(String::from("don"));
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn includes_fails_without_the_text() {
    for (name, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.output().includes("hello");
        });
        assert_eq!(
            failure.message,
            format!("expected the final output to contain \"hello\"\n{DONE}"),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why does your final answer not contain \"hello\"?"),
            "{name}"
        );
    }
}

#[test]
fn includes_is_case_sensitive_and_literal() {
    let report = output("Run `npx skills add a.b`");
    for needle in ["run", "NPX", "a*b", "a.b`.", "npx  skills"] {
        let failures = failures(&report, |e| {
            e.output().includes(needle);
        });
        assert_eq!(failures.len(), 1, "{needle:?}");
    }
    passes(&report, |e| {
        e.output().includes("a.b").includes("`npx skills add a.b`");
    });
}

#[test]
fn includes_a_regex_fails_without_a_match() {
    let failure = fails(&load("codex"), |e| {
        e.output().includes(Regex::new(r"^don$").unwrap());
    });
    assert_eq!(
        failure.message,
        format!("expected the final output to contain /^don$/\n{DONE}")
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why does your final answer not contain /^don$/?")
    );
}

#[test]
fn includes_shows_quotes_and_newlines_escaped_in_the_pattern() {
    let msg = message(&load("claude-code"), |e| {
        e.output().includes("say \"hi\"\n");
    });
    assert_eq!(
        msg,
        format!("expected the final output to contain \"say \\\"hi\\\"\\n\"\n{DONE}")
    );
}

#[test]
fn not_includes_passes_without_the_text() {
    let one = Regex::new("^one").unwrap();
    for (name, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.output()
                .not_includes("error")
                .not_includes("Done")
                .not_includes(&one);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn not_includes_fails_with_the_text() {
    for (name, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.output().not_includes("one");
        });
        assert_eq!(
            failure.message,
            format!("expected the final output not to contain \"one\"\n{DONE}"),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why does your final answer contain \"one\"?"),
            "{name}"
        );
    }
    let msg = message(&load("opencode"), |e| {
        e.output().not_includes(Regex::new("d.n").unwrap());
    });
    assert_eq!(
        msg,
        format!("expected the final output not to contain /d.n/\n{DONE}")
    );
}

// ---------------------------------------------------------------------------------------------
// matches

#[test]
fn matches_passes_on_every_transcript() {
    for (name, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.output()
                .matches("^done$")
                .matches("(?i)DONE")
                .matches(r"\w+")
                .matches("");
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn matches_fails_without_a_match() {
    for (name, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.output().matches("^DONE$");
        });
        assert_eq!(
            failure.message,
            format!("expected the final output to match /^DONE$/\n{DONE}"),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why does your final answer not match /^DONE$/?"),
            "{name}"
        );
    }
}

#[test]
fn matches_fails_with_the_error_of_an_invalid_regex() {
    for (name, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.output().matches("(done");
        });
        assert_eq!(
            failure.message,
            "invalid regular expression /(done/: regex parse error:
    (done
    ^
error: unclosed group",
            "{name}"
        );
        // Nothing to ask the agent about a mistake in the case.
        assert_eq!(failure.question, None, "{name}");
    }
    // Even on an empty output, and even with a pattern that would match anything.
    let failure = fails(&output(""), |e| {
        e.output().matches("a{2,1}|");
    });
    assert!(
        failure
            .message
            .starts_with("invalid regular expression /a{2,1}|/: regex parse error:\n"),
        "{}",
        failure.message
    );
    assert_eq!(failure.question, None);
}

#[test]
fn an_invalid_regex_keeps_because_and_explain() {
    let failure = fails(&load("claude-code"), |e| {
        e.output().because("reason").explain("Q?").matches("[");
    });
    assert!(
        failure
            .message
            .starts_with("reason\ninvalid regular expression /[/: "),
        "{}",
        failure.message
    );
    assert_eq!(failure.question.as_deref(), Some("Q?"));
}

// ---------------------------------------------------------------------------------------------
// not_empty

#[test]
fn not_empty_passes_on_every_transcript() {
    for (name, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.output().not_empty();
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn not_empty_counts_whitespace_as_content() {
    for text in [" ", "\n", "\t \r\n"] {
        passes(&output(text), |e| {
            e.output().not_empty();
        });
    }
}

#[test]
fn not_empty_fails_on_an_empty_output() {
    let failure = fails(&SessionReport::default(), |e| {
        e.output().not_empty();
    });
    assert_eq!(
        failure.message,
        "expected a final output\nthe final output is empty"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you finish without a final answer?")
    );
    // A report whose only assistant text is thinking has no final output.
    let report = SessionReport::from_events([
        SessionEvent::command("ls"),
        SessionEvent::Message {
            role: skillgym::Role::Assistant,
            phase: Some(skillgym::Phase::Thinking),
            text: "hmm".into(),
            at: None,
        },
    ]);
    fails(&report, |e| {
        e.output().not_empty();
    });
}

#[test]
fn other_checks_say_when_the_output_is_empty() {
    let msg = message(&SessionReport::default(), |e| {
        e.output().includes("done");
    });
    assert_eq!(
        msg,
        "expected the final output to contain \"done\"\nthe final output is empty"
    );
    let msg = message(&SessionReport::default(), |e| {
        e.output().equals("done");
    });
    assert_eq!(
        msg,
        "expected the final output to be \"done\" (trimmed)\nthe final output is empty"
    );
}

// ---------------------------------------------------------------------------------------------
// equals

#[test]
fn equals_passes_on_every_transcript() {
    for (name, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.output()
                .equals("done")
                .equals("  done\n")
                .equals("\tdone ");
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn equals_trims_both_sides() {
    let report = output("\n  skillgym ready \r\n\t");
    passes(&report, |e| {
        e.output()
            .equals("skillgym ready")
            .equals(" skillgym ready\n\n");
    });
    // Only the ends are trimmed.
    let msg = message(&report, |e| {
        e.output().equals("skillgym  ready");
    });
    assert!(
        msg.starts_with("expected the final output to be \"skillgym  ready\" (trimmed)\n"),
        "{msg}"
    );
    passes(&output("   "), |e| {
        e.output().equals("").equals("\n");
    });
}

#[test]
fn equals_fails_for_other_text() {
    for (name, report) in transcripts() {
        for other in ["Done", "don", "done.", "done done", ""] {
            let failure = fails(&report, |e| {
                e.output().equals(other);
            });
            assert_eq!(
                failure.message,
                format!(
                    "expected the final output to be {:?} (trimmed)\n{DONE}",
                    other.trim()
                ),
                "{name}"
            );
            assert_eq!(
                failure.question,
                Some(format!(
                    "Why is your final answer not exactly {:?}?",
                    other.trim()
                )),
                "{name}"
            );
        }
    }
    // The expected text is shown trimmed.
    let msg = message(&load("codex"), |e| {
        e.output().equals("  Done\n");
    });
    assert_eq!(
        msg,
        format!("expected the final output to be \"Done\" (trimmed)\n{DONE}")
    );
}

// ---------------------------------------------------------------------------------------------
// how the output is shown

#[test]
fn a_multi_line_output_is_shown_indented() {
    let report = output("Install it with:\n\nnpx skills add expo\n");
    let msg = message(&report, |e| {
        e.output().includes("pnpm");
    });
    assert_eq!(
        msg,
        "expected the final output to contain \"pnpm\"
final output (38 chars):
  Install it with:
  
  npx skills add expo"
    );
}

#[test]
fn a_one_char_output_is_counted_in_the_singular() {
    let msg = message(&output("x"), |e| {
        e.output().equals("y");
    });
    assert_eq!(
        msg,
        "expected the final output to be \"y\" (trimmed)\nfinal output (1 char):\n  x"
    );
}

#[test]
fn an_output_of_only_whitespace_is_shown_quoted() {
    let failure = fails(&output(" \n\t"), |e| {
        e.output().not_empty().equals("done");
    });
    assert_eq!(
        failure.message,
        "expected the final output to be \"done\" (trimmed)\n\
         the final output is only whitespace: \" \\n\\t\""
    );
}

#[test]
fn a_long_output_keeps_its_head_and_tail() {
    let text = format!(
        "{}{}{}",
        "a".repeat(1500),
        "b".repeat(1000),
        "c".repeat(500)
    );
    let failure = fails(&output(&text), |e| {
        e.output().includes("zzz");
    });
    assert_eq!(
        failure.message,
        format!(
            "expected the final output to contain \"zzz\"\n\
             final output (3000 chars):\n  \
             {}\n  \
             … (1500 chars left out) …\n  \
             {}",
            "a".repeat(1000),
            "c".repeat(500)
        )
    );
    assert!(!failure.message.contains('b'));
}

#[test]
fn a_long_output_is_cut_by_characters_not_bytes() {
    let text = "é".repeat(2001);
    let msg = message(&output(&text), |e| {
        e.output().equals("x");
    });
    assert_eq!(
        msg,
        format!(
            "expected the final output to be \"x\" (trimmed)\n\
             final output (2001 chars):\n  \
             {}\n  \
             … (501 chars left out) …\n  \
             {}",
            "é".repeat(1000),
            "é".repeat(500)
        )
    );
}

#[test]
fn an_output_of_2000_chars_is_shown_in_full() {
    let text = "x".repeat(2000);
    let msg = message(&output(&text), |e| {
        e.output().includes("y");
    });
    assert_eq!(
        msg,
        format!("expected the final output to contain \"y\"\nfinal output (2000 chars):\n  {text}")
    );
}

// ---------------------------------------------------------------------------------------------
// because, explain, explain_with

#[test]
fn every_check_has_a_default_question() {
    let report = load("claude-code");
    let cases: Vec<(Option<&str>, CheckFn)> = vec![
        (
            Some("Why does your final answer not contain \"x\"?"),
            Box::new(|e| {
                e.output().includes("x");
            }),
        ),
        (
            Some("Why does your final answer contain \"done\"?"),
            Box::new(|e| {
                e.output().not_includes("done");
            }),
        ),
        (
            Some("Why does your final answer not match /x/?"),
            Box::new(|e| {
                e.output().matches("x");
            }),
        ),
        (
            None,
            Box::new(|e| {
                e.output().matches("(");
            }),
        ),
        (
            Some("Why is your final answer not exactly \"x\"?"),
            Box::new(|e| {
                e.output().equals("x");
            }),
        ),
    ];
    for (question, check) in cases {
        let failure = fails(&report, check);
        assert_eq!(failure.question.as_deref(), question);
    }
    let failure = fails(&SessionReport::default(), |e| {
        e.output().not_empty();
    });
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you finish without a final answer?")
    );
}

#[test]
fn because_becomes_the_first_line() {
    for (name, report) in transcripts() {
        let msg = message(&report, |e| {
            e.output()
                .because("the prompt asked to say hello")
                .includes("hello");
        });
        assert_eq!(
            msg,
            format!(
                "the prompt asked to say hello\n\
                 expected the final output to contain \"hello\"\n{DONE}"
            ),
            "{name}"
        );
    }
}

#[test]
fn explain_and_explain_with_replace_the_question() {
    let report = load("gemini-cli");
    let failure = fails(&report, |e| {
        e.output()
            .explain("Why so short?")
            .equals("done and dusted");
    });
    assert_eq!(failure.question.as_deref(), Some("Why so short?"));
    let failure = fails(&report, |e| {
        e.output()
            .explain_with(|report| {
                format!("You answered {:?}. Why not hello?", report.final_output)
            })
            .includes("hello");
    });
    assert_eq!(
        failure.question.as_deref(),
        Some("You answered \"done\". Why not hello?")
    );
    assert_eq!(
        failure.message,
        format!("expected the final output to contain \"hello\"\n{DONE}")
    );
}

#[test]
fn failures_of_a_chain_are_all_recorded() {
    let failures = failures(&load("copilot"), |e| {
        e.output()
            .not_empty()
            .includes("hello")
            .equals("done")
            .matches("^x");
    });
    let headlines: Vec<&str> = failures
        .iter()
        .map(|failure| failure.message.lines().next().unwrap())
        .collect();
    assert_eq!(
        headlines,
        [
            "expected the final output to contain \"hello\"",
            "expected the final output to match /^x/"
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// location

#[test]
fn the_failure_points_at_the_check() {
    let failure = fails(&load("opencode"), |e| {
        e.output().equals("hello");
    });
    let location = failure.location.expect("a location");
    assert_eq!(location.line, line!() - 3);
    assert!(
        location.file.ends_with("tests/assertions/output.rs"),
        "{}",
        location.file
    );
}
