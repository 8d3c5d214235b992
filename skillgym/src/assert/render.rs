//! Rendering what was observed into failure messages: numbered, marked, abbreviated lists.

use std::fmt::Write;

/// Lists longer than this are abbreviated.
const MAX_LISTED: usize = 20;
/// Entries shown at the head of an abbreviated list.
const HEAD: usize = 10;
/// Entries shown at the tail of an abbreviated list.
const TAIL: usize = 5;
/// Marked entries shown beyond head and tail in an abbreviated list.
const EXTRA_MARKED: usize = 10;
/// Characters of one entry shown before it is cut.
const MAX_ENTRY_CHARS: usize = 240;
/// Characters of a text block shown before its middle is cut.
const MAX_BLOCK_CHARS: usize = 2000;

/// Singular and plural of what a list holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Noun {
    pub one: &'static str,
    pub many: &'static str,
}

impl Noun {
    pub(crate) const COMMAND: Noun = Noun {
        one: "command",
        many: "commands",
    };
    pub(crate) const FILE_READ: Noun = Noun {
        one: "file read",
        many: "file reads",
    };
    pub(crate) const TOOL_CALL: Noun = Noun {
        one: "tool call",
        many: "tool calls",
    };
    pub(crate) const SKILL: Noun = Noun {
        one: "skill",
        many: "skills",
    };
    pub(crate) const FAILED_SKILL_ATTEMPT: Noun = Noun {
        one: "failed skill attempt (not evidence)",
        many: "failed skill attempts (not evidence)",
    };

    /// `1 command`, `3 commands`.
    pub(crate) fn count(self, n: usize) -> String {
        format!("{n} {}", if n == 1 { self.one } else { self.many })
    }
}

/// One observed item: its one-line text, an optional detail line, and whether it is marked.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub text: String,
    pub details: Vec<String>,
    pub marked: bool,
}

impl Entry {
    #[cfg(test)]
    pub(crate) fn new(text: impl Into<String>) -> Self {
        Entry {
            text: text.into(),
            details: Vec::new(),
            marked: false,
        }
    }
}

/// Appends `observed N <noun>:` and the numbered entries (or `observed no <noun>`).
/// With `mark`, marked entries carry a `>` and the header says what it means (when at least
/// one entry is marked).
pub(crate) fn observed(out: &mut String, noun: Noun, entries: &[Entry], mark: Option<&str>) {
    if entries.is_empty() {
        let _ = write!(out, "\nobserved no {}", noun.many);
        return;
    }
    let mark = mark.filter(|_| entries.iter().any(|entry| entry.marked));
    let _ = write!(out, "\nobserved {}", noun.count(entries.len()));
    match mark {
        Some(meaning) => {
            let _ = write!(out, " (> marks {meaning}):");
        }
        None => out.push(':'),
    }
    let width = entries.len().to_string().len();
    let mut previous: Option<usize> = None;
    for index in visible(entries) {
        if let Some(previous) = previous
            && index > previous + 1
        {
            let _ = write!(out, "\n    … {} more …", index - previous - 1);
        }
        previous = Some(index);
        let entry = &entries[index];
        let marker = match (mark, entry.marked) {
            (Some(_), true) => "> ",
            (Some(_), false) => "  ",
            (None, _) => "",
        };
        let number = format!("{:>width$}.", index + 1);
        let _ = write!(out, "\n  {marker}{number} {}", one_line(&entry.text));
        let indent = " ".repeat(2 + marker.len() + number.len() + 1);
        for detail in &entry.details {
            let _ = write!(out, "\n{indent}{}", one_line(detail));
        }
    }
    if let Some(previous) = previous
        && previous + 1 < entries.len()
    {
        let _ = write!(out, "\n    … {} more …", entries.len() - previous - 1);
    }
}

/// The indices shown: all of a short list; head, tail and some marked entries of a long one.
fn visible(entries: &[Entry]) -> Vec<usize> {
    let len = entries.len();
    if len <= MAX_LISTED {
        return (0..len).collect();
    }
    let mut shown: Vec<usize> = (0..HEAD).chain(len - TAIL..len).collect();
    shown.extend(
        entries
            .iter()
            .enumerate()
            .skip(HEAD)
            .take(len - HEAD - TAIL)
            .filter(|(_, entry)| entry.marked)
            .map(|(index, _)| index)
            .take(EXTRA_MARKED),
    );
    shown.sort_unstable();
    shown
}

/// One line: newlines shown as `\n`, long text cut with a count of what was left out.
pub(crate) fn one_line(text: &str) -> String {
    let flat = text.replace('\r', "\\r").replace('\n', "\\n");
    let total = flat.chars().count();
    if total <= MAX_ENTRY_CHARS {
        return flat;
    }
    let kept: String = flat.chars().take(MAX_ENTRY_CHARS).collect();
    format!("{kept}… (+{} chars)", total - MAX_ENTRY_CHARS)
}

/// A multi-line text indented by two spaces; a long one keeps its head and tail.
pub(crate) fn block(text: &str) -> String {
    let total = text.chars().count();
    let shown = if total <= MAX_BLOCK_CHARS {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX_BLOCK_CHARS / 2).collect();
        let tail: String = text.chars().skip(total - MAX_BLOCK_CHARS / 4).collect();
        format!(
            "{head}\n… ({} chars left out) …\n{tail}",
            total - MAX_BLOCK_CHARS / 2 - MAX_BLOCK_CHARS / 4
        )
    };
    shown
        .lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text shown under a failure's headline, named `noun` (`final output`, `text`): empty,
/// whitespace only (quoted, so it is visible), or counted and indented with [`block`].
pub(crate) fn shown_text(noun: &str, text: &str) -> String {
    if text.is_empty() {
        return format!("\nthe {noun} is empty");
    }
    if text.trim().is_empty() {
        return format!("\nthe {noun} is only whitespace: {text:?}");
    }
    let chars = text.chars().count();
    let unit = if chars == 1 { "char" } else { "chars" };
    format!("\n{noun} ({chars} {unit}):\n{}", block(text))
}

/// `"a", "b" and "c"`-style joining of already rendered items with commas.
pub(crate) fn join(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: usize) -> Vec<Entry> {
        (1..=n).map(|i| Entry::new(format!("cmd {i}"))).collect()
    }

    #[test]
    fn short_lists_are_numbered_in_full() {
        let mut out = String::new();
        observed(&mut out, Noun::COMMAND, &entries(2), None);
        assert_eq!(out, "\nobserved 2 commands:\n  1. cmd 1\n  2. cmd 2");
    }

    #[test]
    fn empty_lists_say_so() {
        let mut out = String::new();
        observed(&mut out, Noun::FILE_READ, &[], None);
        assert_eq!(out, "\nobserved no file reads");
    }

    #[test]
    fn marks_and_details_line_up() {
        let mut list = entries(2);
        list[1].marked = true;
        list[1].details = vec!["parsed: executable=\"cmd\"".into()];
        let mut out = String::new();
        observed(&mut out, Noun::COMMAND, &list, Some("a match"));
        assert_eq!(
            out,
            "\nobserved 2 commands (> marks a match):\n    1. cmd 1\n  > 2. cmd 2\n       parsed: executable=\"cmd\""
        );
    }

    #[test]
    fn long_lists_keep_head_tail_and_marked_entries() {
        let mut list = entries(40);
        list[24].marked = true;
        let mut out = String::new();
        observed(&mut out, Noun::COMMAND, &list, Some("a match"));
        assert!(
            out.contains(
                "\n    10. cmd 10\n    … 14 more …\n  > 25. cmd 25\n    … 10 more …\n    36. cmd 36"
            ),
            "{out}"
        );
        assert!(out.ends_with("40. cmd 40"), "{out}");
        assert_eq!(out.trim_start().lines().count(), 1 + 10 + 1 + 1 + 1 + 5);
    }

    #[test]
    fn long_entries_are_cut_and_newlines_escaped() {
        assert_eq!(one_line("a\nb"), "a\\nb");
        let long = "x".repeat(MAX_ENTRY_CHARS + 7);
        assert!(one_line(&long).ends_with("… (+7 chars)"));
    }

    #[test]
    fn long_blocks_keep_head_and_tail() {
        let text = format!("{}{}", "a".repeat(3000), "z".repeat(10));
        let shown = block(&text);
        assert!(shown.contains("chars left out"));
        assert!(shown.ends_with("zzzzzzzzzz"));
        assert!(shown.starts_with("  aaa"));
    }
}
