//! A probe's report as text for a terminal, as JSON (the schema in the module above) and as a
//! self-contained HTML page (no script, a `Content-Security-Policy` forbidding every load, as
//! the run's HTML report).

use std::fmt::Write as _;

use super::{InstructionFile, ProbeReport, Rendering, RunnerProbe};
use crate::report::html::escape;

/// The report as pretty-printed JSON.
pub fn json(report: &ProbeReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_default() + "\n"
}

/// The report as a console table: one line per runner and skill under test, then each
/// runner's listing size, discovery and conflicts (other skills, names listed twice, the
/// instruction files in the request), and each description shown otherwise than written.
pub fn console(report: &ProbeReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<14} {:<22} {:<24} {:<6} {:<10} listing",
        "runner", "version", "skill", "listed", "rendering"
    );
    for runner in &report.runners {
        for skill in &runner.skills {
            let _ = writeln!(
                out,
                "{:<14} {:<22} {:<24} {:<6} {:<10} {} chars, ~{} tokens ({})",
                runner.runner,
                runner.version.as_deref().unwrap_or("unknown"),
                skill.name,
                if skill.listed { "yes" } else { "no" },
                rendering_name(skill.rendering),
                runner.listing.chars,
                runner.listing.tokens,
                runner.listing.estimate
            );
        }
    }
    for runner in &report.runners {
        runner_notes(&mut out, runner);
    }
    out
}

/// The notes of one runner: failure, descriptions shown otherwise, places, conflicts.
fn runner_notes(out: &mut String, runner: &RunnerProbe) {
    let _ = writeln!(out, "\n{} ({}):", runner.runner, runner.agent);
    if let Some(failure) = &runner.failure {
        let _ = writeln!(out, "  failed: {failure}");
    }
    let _ = writeln!(
        out,
        "  installed in {}; {} request(s); listing at {}",
        runner.installed_in,
        runner.requests,
        list(&runner.listing.places)
    );
    for skill in &runner.skills {
        if let (Some(shown), false) = (&skill.shown, skill.rendering == Rendering::Exact) {
            let _ = writeln!(out, "  {} shown as: {shown}", skill.name);
        }
    }
    let _ = writeln!(out, "  skills read from: {}", list(&runner.discovered_from));
    let _ = writeln!(out, "  other skills listed: {}", list(&runner.other_skills));
    if !runner.duplicates.is_empty() {
        let _ = writeln!(out, "  listed twice: {}", runner.duplicates.join(", "));
    }
    if runner.instruction_files.is_empty() {
        let _ = writeln!(out, "  instruction files in the request: none");
    } else {
        let _ = writeln!(out, "  instruction files in the request:");
        for file in &runner.instruction_files {
            let _ = writeln!(
                out,
                "    {}{} at {}",
                file.file,
                planted_note(file),
                file.places.join(", ")
            );
        }
    }
    let missing = not_sent(runner);
    if !missing.is_empty() {
        let _ = writeln!(out, "  planted, not in the request: {}", missing.join(", "));
    }
}

/// ` (planted)` when the entry is a planted file named as planted, ` (planted FILE)` when the
/// request names it otherwise, nothing when it was not planted.
fn planted_note(file: &InstructionFile) -> String {
    match &file.planted {
        Some(planted) if *planted == file.file => " (planted)".to_owned(),
        Some(planted) => format!(" (planted {planted})"),
        None => String::new(),
    }
}

/// The planted instruction files the request does not hold.
fn not_sent(runner: &RunnerProbe) -> Vec<String> {
    runner
        .planted_instructions
        .iter()
        .filter(|planted| {
            !runner
                .instruction_files
                .iter()
                .any(|file| file.planted.as_ref() == Some(*planted))
        })
        .cloned()
        .collect()
}

/// The HTML of `runner`'s instruction files: a table, and the planted files not sent.
fn html_instructions(out: &mut String, runner: &RunnerProbe) {
    if runner.instruction_files.is_empty() {
        out.push_str("<p>Instruction files in the request: none.</p>\n");
    } else {
        out.push_str("<table>\n<tr><th>instruction file in the request</th><th>planted</th><th>where</th></tr>\n");
        for file in &runner.instruction_files {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&file.file),
                escape(file.planted.as_deref().unwrap_or("no")),
                escape(&file.places.join(", "))
            );
        }
        out.push_str("</table>\n");
    }
    if !runner.planted_instructions.is_empty() {
        let _ = writeln!(
            out,
            "<p>Planted, not in the request: {}.</p>",
            escape(&list(&not_sent(runner)))
        );
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn rendering_name(rendering: Rendering) -> &'static str {
    match rendering {
        Rendering::Exact => "exact",
        Rendering::Escaped => "escaped",
        Rendering::Annotated => "annotated",
        Rendering::Cut => "cut",
        Rendering::Changed => "changed",
        Rendering::NotShown => "not-shown",
    }
}

/// The report as a self-contained HTML page: one table per runner.
pub fn html(report: &ProbeReport) -> String {
    let mut out = String::from(concat!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
        "<title>skillgym probe</title>\n<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:4px;vertical-align:top;text-align:left}table{border-collapse:collapse}pre{white-space:pre-wrap;margin:0}</style>\n",
        "</head>\n<body>\n<h1>skillgym probe</h1>\n"
    ));
    for runner in &report.runners {
        let _ = writeln!(
            out,
            "<h2>{} ({}, version {})</h2>\n<p>Listing: {} characters, ~{} tokens ({}), at {}. Skills installed in <code>{}</code>; {} request(s).</p>",
            escape(&runner.runner),
            escape(&runner.agent),
            escape(runner.version.as_deref().unwrap_or("unknown")),
            runner.listing.chars,
            runner.listing.tokens,
            runner.listing.estimate,
            escape(&list(&runner.listing.places)),
            escape(&runner.installed_in),
            runner.requests
        );
        if let Some(failure) = &runner.failure {
            let _ = writeln!(out, "<p>Failed: {}</p>", escape(failure));
        }
        out.push_str("<table>\n<tr><th>skill</th><th>listed</th><th>rendering</th><th>shown to the model</th></tr>\n");
        for skill in &runner.skills {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><pre>{}</pre></td></tr>",
                escape(&skill.name),
                if skill.listed { "yes" } else { "no" },
                rendering_name(skill.rendering),
                escape(skill.shown.as_deref().unwrap_or(""))
            );
        }
        let _ = writeln!(
            out,
            "</table>\n<p>Skills read from: {}. Other skills listed: {}. Listed twice: {}.</p>",
            escape(&list(&runner.discovered_from)),
            escape(&list(&runner.other_skills)),
            escape(&list(&runner.duplicates))
        );
        html_instructions(&mut out, runner);
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of one runner with two files planted: one sent under another name, one not
    /// sent, and a file it was not given.
    fn report() -> ProbeReport {
        let mut runner = RunnerProbe::empty("claude", "claude-code", ".claude/skills");
        runner.planted_instructions = vec!["AGENTS.md".to_owned(), "CLAUDE.md".to_owned()];
        runner.instruction_files = vec![
            InstructionFile {
                file: "/w/CLAUDE.md".to_owned(),
                planted: Some("CLAUDE.md".to_owned()),
                places: vec!["/messages/0/content/6/text".to_owned()],
            },
            InstructionFile {
                file: "/home/u/<x>.md".to_owned(),
                planted: None,
                places: vec!["/system".to_owned(), "/messages/1/content".to_owned()],
            },
        ];
        ProbeReport {
            schema: super::super::SCHEMA,
            runners: vec![runner],
        }
    }

    #[test]
    fn the_console_names_each_instruction_file_and_the_planted_ones_not_sent() {
        let text = console(&report());
        assert!(
            text.contains(concat!(
                "  instruction files in the request:\n",
                "    /w/CLAUDE.md (planted CLAUDE.md) at /messages/0/content/6/text\n",
                "    /home/u/<x>.md at /system, /messages/1/content\n",
                "  planted, not in the request: AGENTS.md\n"
            )),
            "{text}"
        );
        let mut bare = report();
        bare.runners[0].instruction_files.clear();
        bare.runners[0].planted_instructions.clear();
        let text = console(&bare);
        assert!(
            text.contains("  instruction files in the request: none\n"),
            "{text}"
        );
        assert!(!text.contains("planted, not in the request"), "{text}");
    }

    #[test]
    fn the_html_tables_the_instruction_files_escaped() {
        let page = html(&report());
        assert!(
            page.contains("<tr><td>/home/u/&lt;x&gt;.md</td><td>no</td><td>/system, /messages/1/content</td></tr>"),
            "{page}"
        );
        assert!(
            page.contains("<tr><td>/w/CLAUDE.md</td><td>CLAUDE.md</td>"),
            "{page}"
        );
        assert!(
            page.contains("<p>Planted, not in the request: AGENTS.md.</p>"),
            "{page}"
        );
    }

    #[test]
    fn the_json_has_the_instruction_keys() {
        let value: serde_json::Value = serde_json::from_str(&json(&report())).unwrap();
        let runner = &value["runners"][0];
        assert_eq!(
            runner["planted_instructions"],
            serde_json::json!(["AGENTS.md", "CLAUDE.md"])
        );
        assert_eq!(
            runner["instruction_files"][1],
            serde_json::json!({"file": "/home/u/<x>.md", "planted": null, "places": ["/system", "/messages/1/content"]})
        );
    }
}
