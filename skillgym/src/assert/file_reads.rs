//! Checks over the files the agent read.

use std::borrow::Cow;
use std::panic::Location;

use super::TextMatcher;
use super::check::{Check, check_options};
use super::list::{Bound, FILE_READS, ItemList, ItemPattern};
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

impl std::fmt::Debug for FileReads<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileReads").finish_non_exhaustive()
    }
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

    /// Some read path matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/.claude/skills/find-skills/SKILL.md")]);
    /// report.expect().file_reads().includes("find-skills/SKILL.md");
    /// ```
    #[track_caller]
    pub fn includes(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let outcome = self.list.includes(&pattern.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// No read path matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/README.md")]);
    /// report.expect().file_reads().not_includes(".env");
    /// ```
    #[track_caller]
    pub fn not_includes(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let outcome = self.list.not_includes(&pattern.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly `expected` reads match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::file_read("/repo/README.md"), SessionEvent::file_read("/repo/README.md"),
    /// # ]);
    /// report.expect().file_reads().count("README.md", 2);
    /// ```
    #[track_caller]
    pub fn count(mut self, pattern: impl Into<TextMatcher>, expected: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::Exactly, expected);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At least `min` reads match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/src/main.rs")]);
    /// report.expect().file_reads().at_least("/src/", 1);
    /// ```
    #[track_caller]
    pub fn at_least(mut self, pattern: impl Into<TextMatcher>, min: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::AtLeast, min);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// At most `max` reads match.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/package.json")]);
    /// report.expect().file_reads().at_most("package.json", 1);
    /// ```
    #[track_caller]
    pub fn at_most(mut self, pattern: impl Into<TextMatcher>, max: usize) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::AtMost, max);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The first read matching `earlier` comes before the first matching `later`; both
    /// must exist.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::file_read("/s/x/SKILL.md"), SessionEvent::file_read("/repo/src/lib.rs"),
    /// # ]);
    /// report.expect().file_reads().before("SKILL.md", "src/lib.rs");
    /// ```
    #[track_caller]
    pub fn before(
        mut self,
        earlier: impl Into<TextMatcher>,
        later: impl Into<TextMatcher>,
    ) -> Self {
        let outcome = self.list.before(&earlier.into(), &later.into());
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Every read matches at least one of `patterns` (vacuously true with no reads).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::file_read("/s/x/SKILL.md"), SessionEvent::file_read("/repo/README.md"),
    /// # ]);
    /// report.expect().file_reads().only(["SKILL.md", "README.md"]);
    /// ```
    #[track_caller]
    pub fn only<P: Into<TextMatcher>>(mut self, patterns: impl IntoIterator<Item = P>) -> Self {
        let patterns: Vec<TextMatcher> = patterns.into_iter().map(Into::into).collect();
        let patterns: Vec<&dyn ItemPattern<Cow<'a, str>>> = patterns
            .iter()
            .map(|p| p as &dyn ItemPattern<Cow<'a, str>>)
            .collect();
        let outcome = self.list.only(&patterns);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly `expected` files were read.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/repo/README.md")]);
    /// report.expect().file_reads().size(1);
    /// ```
    #[track_caller]
    pub fn size(mut self, expected: usize) -> Self {
        let outcome = self.list.size(expected);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// Exactly one read matches.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([SessionEvent::file_read("/s/x/SKILL.md")]);
    /// report.expect().file_reads().exactly_one("SKILL.md");
    /// ```
    #[track_caller]
    pub fn exactly_one(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let outcome = self.list.count(&pattern.into(), Bound::Exactly, 1);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The first read matches (fails when no file was read).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::file_read("/s/x/SKILL.md"), SessionEvent::file_read("/repo/README.md"),
    /// # ]);
    /// report.expect().file_reads().first("SKILL.md");
    /// ```
    #[track_caller]
    pub fn first(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let outcome = self.list.edge(&pattern.into(), false);
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The last read matches (fails when no file was read).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::from_events([
    /// #     SessionEvent::file_read("/s/x/SKILL.md"), SessionEvent::file_read("/repo/src/lib.rs"),
    /// # ]);
    /// report.expect().file_reads().last("lib.rs");
    /// ```
    #[track_caller]
    pub fn last(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let outcome = self.list.edge(&pattern.into(), true);
        self.check.settle(Location::caller(), outcome);
        self
    }
}
