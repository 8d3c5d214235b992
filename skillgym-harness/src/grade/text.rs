//! The deterministic graders on the final output. Each is binary (score 1 or 0) with one
//! check; a failed check shows the start of the output as evidence.
//!
//! | grader | passes when |
//! |---|---|
//! | `contains` / `icontains` | the output holds the value (`i`: both lower-cased) |
//! | `contains-any` / `icontains-any` | it holds at least one of the values |
//! | `contains-all` / `icontains-all` | it holds every value (the check names the missing ones) |
//! | `starts-with` / `ends-with` | the trimmed output starts / ends with the trimmed value |
//! | `equals` | trimmed output = trimmed value |
//! | `regex` | an unanchored search finds the pattern (Rust `regex` syntax; flags `i`, `m`, `s` become inline flags, `g` and `u` are accepted and change nothing) |
//! | `is-json` | the output parses as any JSON value (`"3"` included) |
//!
//! agentv runs `regex` as an ECMAScript `RegExp`; the Rust `regex` crate has no look-around
//! nor backreferences. Such a pattern (or any pattern that does not compile, or an unknown
//! flag such as `y`) is a grader error saying so, never a crash.

use serde_json::Value;

use super::spec::GraderKind;
use super::{Check, GraderOutcome};

/// The most characters of the output shown as evidence.
const EVIDENCE_CHARS: usize = 200;

/// Grades one of the text kinds against `output`.
pub(crate) fn grade(kind: &GraderKind, output: &str) -> Result<GraderOutcome, TextError> {
    let check = match kind {
        GraderKind::Contains { value, ignore_case } => Check::new(
            format!("output {} {value:?}", contains_word(*ignore_case)),
            holds(output, value, *ignore_case),
        ),
        GraderKind::ContainsAny {
            values,
            ignore_case,
        } => Check::new(
            format!("output {} any of {values:?}", contains_word(*ignore_case)),
            values
                .iter()
                .any(|value| holds(output, value, *ignore_case)),
        ),
        GraderKind::ContainsAll {
            values,
            ignore_case,
        } => {
            let missing: Vec<&String> = values
                .iter()
                .filter(|value| !holds(output, value, *ignore_case))
                .collect();
            let text = format!("output {} all of {values:?}", contains_word(*ignore_case));
            if missing.is_empty() {
                Check::new(text, true)
            } else {
                Check::new(format!("{text} (missing {missing:?})"), false)
            }
        }
        GraderKind::StartsWith { value } => Check::new(
            format!("output starts with {:?}", value.trim()),
            output.trim().starts_with(value.trim()),
        ),
        GraderKind::EndsWith { value } => Check::new(
            format!("output ends with {:?}", value.trim()),
            output.trim().ends_with(value.trim()),
        ),
        GraderKind::Equals { value } => Check::new(
            format!("output equals {:?}", value.trim()),
            output.trim() == value.trim(),
        ),
        GraderKind::Regex { pattern, flags } => {
            let regex = compile(pattern, flags)?;
            Check::new(
                format!("output matches /{pattern}/{flags}"),
                regex.is_match(output),
            )
        }
        GraderKind::IsJson => match serde_json::from_str::<Value>(output) {
            Ok(_) => Check::new("output is JSON", true),
            Err(error) => Check::new(format!("output is JSON ({error})"), false),
        },
        other => {
            return Err(TextError::NotText {
                kind: format!("{other:?}"),
            });
        }
    };
    let check = if check.passed {
        check
    } else {
        Check {
            evidence: Some(format!("output: {}", excerpt(output))),
            ..check
        }
    };
    Ok(GraderOutcome::binary(vec![check]))
}

fn contains_word(ignore_case: bool) -> &'static str {
    if ignore_case {
        "contains (ignoring case)"
    } else {
        "contains"
    }
}

fn holds(output: &str, value: &str, ignore_case: bool) -> bool {
    if ignore_case {
        output.to_lowercase().contains(&value.to_lowercase())
    } else {
        output.contains(value)
    }
}

/// The output quoted, cut after [`EVIDENCE_CHARS`] characters.
fn excerpt(output: &str) -> String {
    let mut chars = output.chars();
    let head: String = chars.by_ref().take(EVIDENCE_CHARS).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// `pattern` with agentv's `flags` as inline flags.
pub(crate) fn compile(pattern: &str, flags: &str) -> Result<skillgym::Regex, PatternError> {
    let full = regex_source(pattern, flags)?;
    skillgym::Regex::new(&full).map_err(|source| {
        let text = source.to_string();
        let hint = if text.contains("look-around") || text.contains("backreference") {
            " (ECMAScript-only syntax: the Rust regex crate has no look-around nor backreferences)"
        } else {
            ""
        };
        PatternError::Compile {
            pattern: pattern.to_owned(),
            hint,
            source,
        }
    })
}

/// Why a text grader has no outcome.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TextError {
    /// Its pattern or flags are refused.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// Not one of the text kinds (a dispatch mistake of the caller).
    #[error("not a text grader: {kind}")]
    NotText {
        /// The kind, `Debug`-formatted.
        kind: String,
    },
}

/// Why a `regex` grader's pattern or flags are refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PatternError {
    /// A flag other than `i`, `m`, `s`, `g`, `u`.
    #[error("regex flag {flag:?} is not supported (supported: i, m, s; g and u are ignored)")]
    Flag { flag: char },
    /// The pattern does not compile; `hint` names ECMAScript-only syntax when that is why.
    #[error("regex /{pattern}/ does not compile{hint}: {source}")]
    Compile {
        pattern: String,
        hint: &'static str,
        source: regex::Error,
    },
}

/// `pattern` with agentv's JavaScript `flags` as inline flags: `i`, `m`, `s` map to `(?ims)`,
/// `g` and `u` mean nothing here and are ignored, any other flag is an error. The one rule for
/// the suite loader (which checks the syntax) and the grader (which compiles).
pub(crate) fn regex_source(pattern: &str, flags: &str) -> Result<String, PatternError> {
    let mut inline = String::new();
    for flag in flags.chars() {
        match flag {
            'i' | 'm' | 's' if !inline.contains(flag) => inline.push(flag),
            'i' | 'm' | 's' | 'g' | 'u' => {}
            flag => return Err(PatternError::Flag { flag }),
        }
    }
    Ok(if inline.is_empty() {
        pattern.to_owned()
    } else {
        format!("(?{inline}){pattern}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Verdict;

    fn run(kind: GraderKind, output: &str) -> GraderOutcome {
        grade(&kind, output).expect("grades")
    }

    fn passes(kind: GraderKind, output: &str) -> bool {
        let outcome = run(kind, output);
        assert_eq!(outcome.checks.len(), 1);
        assert_eq!(outcome.score == 1.0, outcome.verdict == Verdict::Pass);
        outcome.verdict == Verdict::Pass
    }

    fn contains(value: &str, ignore_case: bool) -> GraderKind {
        GraderKind::Contains {
            value: value.into(),
            ignore_case,
        }
    }

    fn regex(pattern: &str, flags: &str) -> GraderKind {
        GraderKind::Regex {
            pattern: pattern.into(),
            flags: flags.into(),
        }
    }

    #[test]
    fn contains_is_case_sensitive_and_icontains_is_not() {
        assert!(passes(contains("World", false), "Hello World"));
        assert!(!passes(contains("world", false), "Hello World"));
        assert!(passes(contains("world", true), "Hello WORLD"));
        assert!(!passes(contains("planet", true), "Hello World"));
        assert!(!passes(contains("x", false), ""));
    }

    #[test]
    fn a_failed_check_shows_the_output_cut_to_an_excerpt() {
        let long = "a".repeat(500);
        let outcome = run(contains("b", false), &long);
        let evidence = outcome.checks[0].evidence.as_deref().unwrap();
        assert!(evidence.starts_with("output: \"aaa"), "{evidence}");
        assert!(evidence.ends_with('…'));
        assert!(evidence.len() < 220, "{}", evidence.len());
        assert_eq!(run(contains("a", false), &long).checks[0].evidence, None);
    }

    #[test]
    fn contains_any_and_all() {
        let any = |values: &[&str], ignore_case| GraderKind::ContainsAny {
            values: values.iter().map(|v| v.to_string()).collect(),
            ignore_case,
        };
        let all = |values: &[&str], ignore_case| GraderKind::ContainsAll {
            values: values.iter().map(|v| v.to_string()).collect(),
            ignore_case,
        };
        assert!(passes(any(&["x", "lo"], false), "hello"));
        assert!(!passes(any(&["x", "LO"], false), "hello"));
        assert!(passes(any(&["x", "LO"], true), "hello"));
        assert!(passes(all(&["he", "lo"], false), "hello"));
        let outcome = run(all(&["he", "xy", "zz"], false), "hello");
        assert_eq!(outcome.verdict, Verdict::Fail);
        assert!(
            outcome.checks[0]
                .text
                .ends_with(r#"(missing ["xy", "zz"])"#),
            "{}",
            outcome.checks[0].text
        );
        assert!(passes(all(&["HE", "LO"], true), "hello"));
    }

    #[test]
    fn starts_ends_and_equals_trim_both_sides() {
        let starts = |v: &str| GraderKind::StartsWith { value: v.into() };
        let ends = |v: &str| GraderKind::EndsWith { value: v.into() };
        let equals = |v: &str| GraderKind::Equals { value: v.into() };
        assert!(passes(starts(" Done"), "\n  Done: 3 files\n"));
        assert!(!passes(starts("files"), "Done: 3 files"));
        assert!(passes(ends("files "), "Done: 3 files\n\n"));
        assert!(!passes(ends("Done"), "Done: 3 files"));
        assert!(passes(equals("  42\n"), "\t42 "));
        assert!(!passes(equals("42"), "420"));
        assert!(passes(equals(""), "   "));
    }

    #[test]
    fn regex_searches_unanchored_with_flags() {
        assert!(passes(regex(r"\d+ files", ""), "Done: 3 files."));
        assert!(!passes(regex(r"^\d+ files", ""), "Done: 3 files."));
        assert!(!passes(regex("done", ""), "DONE"));
        assert!(passes(regex("done", "i"), "DONE"));
        assert!(passes(regex("^b$", "m"), "a\nb\nc"));
        assert!(!passes(regex("^b$", ""), "a\nb\nc"));
        assert!(passes(regex("a.b", "s"), "a\nb"));
        assert!(!passes(regex("a.b", ""), "a\nb"));
        assert!(passes(regex("x", "gu"), "x"));
        assert!(passes(regex("done", "ii"), "DONE"));
    }

    #[test]
    fn a_regex_that_does_not_compile_is_an_error() {
        let error = grade(&regex("(unclosed", ""), "x").unwrap_err().to_string();
        assert!(
            error.starts_with("regex /(unclosed/ does not compile: "),
            "{error}"
        );
        let error = grade(&regex("foo(?=bar)", ""), "foobar")
            .unwrap_err()
            .to_string();
        assert!(error.contains("ECMAScript-only syntax"), "{error}");
        let error = grade(&regex(r"(a)\1", ""), "aa").unwrap_err().to_string();
        assert!(error.contains("ECMAScript-only syntax"), "{error}");
        let error = grade(&regex("x", "y"), "x").unwrap_err().to_string();
        assert!(
            error.starts_with("regex flag 'y' is not supported"),
            "{error}"
        );
    }

    #[test]
    fn is_json_accepts_any_json_value() {
        assert!(passes(GraderKind::IsJson, r#"{"a": [1, 2]}"#));
        assert!(passes(GraderKind::IsJson, " \"3\"\n"));
        assert!(passes(GraderKind::IsJson, "3"));
        assert!(!passes(GraderKind::IsJson, ""));
        assert!(!passes(GraderKind::IsJson, "{a: 1}"));
        assert!(!passes(GraderKind::IsJson, "```json\n{}\n```"));
    }

    #[test]
    fn a_kind_that_is_not_text_is_an_error() {
        assert!(grade(&GraderKind::Latency { threshold_ms: 1 }, "x").is_err());
    }
}
