//! Checks over the files the agent read.

use std::borrow::Cow;

use super::TextMatcher;
use super::check::{Check, check_options};
use super::list::{FILE_READS, ItemList, ItemPattern};
use super::list_checks::list_checks;
use super::sink::Sink;
use crate::SessionReport;

impl ItemPattern<Cow<'_, str>> for TextMatcher {
    fn is_match(&self, item: &Cow<'_, str>) -> bool {
        TextMatcher::is_match(self, item)
    }

    fn describe(&self) -> String {
        self.to_string()
    }
}

/// Checks over the files the agent read (absolute paths, in order, with repeats). Open it with
/// [`Expect::file_reads`](super::Expect::file_reads).
///
/// The reads are the report's file-read events, or its `files.observed_reads` when it has
/// none (see [`SessionReport::file_reads`]). Patterns are `&str` (substring of the path) or a
/// [`Regex`](crate::Regex). Failure messages list every observed read.
///
/// ```
/// # use skillgym::prelude::*;
/// # let report = SessionReport::from_events([
/// #     SessionEvent::file_read("/repo/.claude/skills/find-skills/SKILL.md"),
/// #     SessionEvent::file_read("/repo/README.md"),
/// # ]);
/// report
///     .expect()
///     .file_reads()
///     .includes("find-skills/SKILL.md")
///     .not_includes(".env")
///     .before("SKILL.md", "README.md");
/// ```
pub struct FileReads<'a> {
    check: Check<'a>,
    list: ItemList<Cow<'a, str>>,
}

check_options!(FileReads, "file_reads", "includes(\"SKILL.md\")");

impl<'a> FileReads<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        FileReads {
            list: ItemList {
                kind: &FILE_READS,
                items: report
                    .file_reads()
                    .into_iter()
                    .map(|path| path.to_string_lossy())
                    .collect(),
                show: |item| item.to_string(),
            },
            check: Check::new(report, sink),
        }
    }
}

list_checks! {
    FileReads("file_reads", TextMatcher, SessionEvent::file_read),
    docs("read", "reads", "files were read", "no file was read"),
    examples {
        includes(["/repo/.claude/skills/find-skills/SKILL.md"], "find-skills/SKILL.md"),
        not_includes(["/repo/README.md"], ".env"),
        count(["/repo/README.md", "/repo/README.md"], "README.md", 2),
        at_least(["/repo/src/main.rs"], "/src/", 1),
        at_most(["/repo/package.json"], "package.json", 1),
        before(["/s/x/SKILL.md", "/repo/src/lib.rs"], "SKILL.md", "src/lib.rs"),
        only(["/s/x/SKILL.md", "/repo/README.md"], ["SKILL.md", "README.md"]),
        size(["/repo/README.md"], 1),
        exactly_one(["/s/x/SKILL.md"], "SKILL.md"),
        first(["/s/x/SKILL.md", "/repo/README.md"], "SKILL.md"),
        last(["/s/x/SKILL.md", "/repo/src/lib.rs"], "lib.rs"),
    }
}
