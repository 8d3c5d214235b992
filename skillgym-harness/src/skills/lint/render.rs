//! A lint [`Report`] as text for people, JSON for tools, and GitHub Actions annotations.
//!
//! | format | function | shape |
//! |---|---|---|
//! | human | [`human()`] | `path:line:column: error[rule]: message`, a `  help: ...` line, a summary line |
//! | JSON | [`json()`] | one object, the schema documented on [`json()`] |
//! | GitHub | [`github()`] | one `::error` / `::warning` workflow command per finding, then the summary |

use serde_json::json;

use super::{Report, Severity, TOKEN_ESTIMATE};
use crate::report::github_actions::{data, property};
use crate::terminal_text::escape;

/// The summary line: skills, errors, warnings, and how tokens were estimated.
fn summary(report: &Report) -> String {
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    format!(
        "{} linted: {}, {} (tokens estimated as {TOKEN_ESTIMATE})\n",
        plural(report.skills, "skill"),
        plural(report.count(Severity::Error), "error"),
        plural(report.count(Severity::Warning), "warning"),
    )
}

/// Each finding as `path:line:column: severity[rule]: message` with an indented `help:` line,
/// then the summary; text from the skills is escaped for the terminal.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        out.push_str(&escape(&format!(
            "{}:{}:{}: {}[{}]: {}\n",
            finding.file.display(),
            finding.line,
            finding.column,
            finding.severity.as_str(),
            finding.rule,
            finding.message
        )));
        if let Some(help) = &finding.help {
            out.push_str(&escape(&format!("  help: {help}\n")));
        }
    }
    out.push_str(&summary(report));
    out
}

/// The report as one JSON object (pretty-printed), a stable schema:
///
/// ```json
/// {
///   "skills": 3,
///   "errors": 1,
///   "warnings": 1,
///   "token_estimate": "characters / 4",
///   "findings": [
///     { "file": "skills/a/SKILL.md", "line": 2, "column": 7, "severity": "error",
///       "rule": "name", "message": "...", "help": "..." }
///   ]
/// }
/// ```
///
/// `severity` is `error` or `warning`; `help` is `null` when the rule has nothing to add.
pub fn json(report: &Report) -> String {
    let value = json!({
        "skills": report.skills,
        "errors": report.count(Severity::Error),
        "warnings": report.count(Severity::Warning),
        "token_estimate": TOKEN_ESTIMATE,
        "findings": report.findings,
    });
    let mut text = serde_json::to_string_pretty(&value).expect("a report serializes");
    text.push('\n');
    text
}

/// One GitHub Actions workflow command per finding (`::error file=...,line=...,col=...,
/// title=...::message`, escaped as workflow commands need), then the summary line.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        let message = match &finding.help {
            Some(help) => format!("{}\nhelp: {help}", finding.message),
            None => finding.message.clone(),
        };
        out.push_str(&format!(
            "::{} file={},line={},col={},title={}::{}\n",
            finding.severity.as_str(),
            property(&finding.file.display().to_string()),
            finding.line,
            finding.column,
            property(&format!("skillgym lint {}", finding.rule)),
            data(&message),
        ));
    }
    out.push_str(&escape(&summary(report)));
    out
}
