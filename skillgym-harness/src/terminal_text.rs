//! Text that skillgym prints but did not write (what agents, hooks, graders and files said,
//! case and runner ids) made safe for a terminal and a CI log: it is shown, it never drives.
//!
//! | in the text | printed as | because |
//! |---|---|---|
//! | a control character (`\0`–`\x1f` but tab and line feed, `\x7f`–`\u{9f}`): ESC, NUL, BS, BEL, CR, … | its Rust escape: `\u{1b}`, `\0`, `\u{8}`, `\u{7}`, `\r` | escape sequences (cursor moves, screen erase, OSC 8 links, OSC 52 clipboard writes), bells, and a CR that overwrites its line would act on the terminal |
//! | a bidirectional-text control (`\u{61c}`, `\u{200e}`, `\u{200f}`, `\u{202a}`–`\u{202e}`, `\u{2066}`–`\u{2069}`) or a line/paragraph separator (`\u{2028}`, `\u{2029}`) | its Rust escape | it reorders or breaks what is shown |
//! | `::` first on a line, after any whitespace | `\u{3a}:` | the GitHub Actions runner trims the whitespace and runs the line as a workflow command (`::add-mask::`, `::stop-commands::`, …) |
//! | `##[` or `##vso[` anywhere | `##\u{5b}`, `##vso\u{5b}` | GitHub's runner also reads its legacy `##[command]` form anywhere in a line, Azure Pipelines its `##vso[` logging commands |
//! | a line feed | itself | multi-line text stays multi-line; each line is made safe on its own |
//! | a tab, anything else | itself | |
//!
//! Every print site runs such text through [`escape`] (or `masked`, which masks remembered
//! secrets first; the crate's `println_escaped!` and `eprintln_escaped!` escape the line they
//! print). Where text must stay on one line (the live status) `escape_one_line` escapes line
//! feeds and tabs too (`\n`, `\t`). Text that goes inside a line skillgym vouches for — the data of the
//! `github-actions` reporter's own workflow commands, its job summary — takes
//! `escape_controls`, the characters only, and then the escaping of its format. Escaping
//! twice changes nothing.
//!
//! [`escape`] is public for the programs built on the harness (`cargo skillgym` prints what a
//! run directory, a snapshot file or an error says through it); the other forms are the
//! harness's own.

use crate::secrets;

/// `println!` for a line that may quote text skillgym did not write: the line is [`escape`]d.
macro_rules! println_escaped {
    ($($arg:tt)*) => {
        ::std::println!("{}", $crate::terminal_text::escape(&::std::format!($($arg)*)))
    };
}

/// `eprintln!` for a line that may quote text skillgym did not write: the line is
/// [`escape`]d.
macro_rules! eprintln_escaped {
    ($($arg:tt)*) => {
        ::std::eprintln!("{}", $crate::terminal_text::escape(&::std::format!($($arg)*)))
    };
}

pub(crate) use {eprintln_escaped, println_escaped};

/// `text` with remembered secrets masked, then [`escape`]d.
pub(crate) fn masked(text: &str) -> String {
    escape(&secrets::mask(text))
}

/// `text` as the module's table says: no control character, no bidirectional control, and no
/// line a CI runner reads as a command; line feeds and tabs are kept.
///
/// ```
/// use skillgym_harness::terminal_text::escape;
///
/// assert_eq!(escape("\x1b[2Jcleared\r"), r"\u{1b}[2Jcleared\r");
/// assert_eq!(escape("line 1\n  ::add-mask::x"), "line 1\n  \\u{3a}:add-mask::x");
/// assert_eq!(escape("plain\ttext"), "plain\ttext");
/// ```
pub fn escape(text: &str) -> String {
    escape_as(text, Mode::Text)
}

/// `text` on one line: as [`escape`], and line feeds and tabs escaped too (`\n`, `\t`). For
/// what must not break or widen a line: ids, a live status line.
pub(crate) fn escape_one_line(text: &str) -> String {
    escape_as(text, Mode::OneLine)
}

/// A path as one line of text safe to print ([`escape_one_line`] of its lossy text).
pub(crate) fn escape_path(path: &std::path::Path) -> String {
    escape_one_line(&path.to_string_lossy())
}

/// `text` with its control characters, bidirectional controls and line separators escaped
/// (line feeds and tabs kept), but no line rule: for text inside a line that is not its own.
pub(crate) fn escape_controls(text: &str) -> String {
    escape_as(text, Mode::Characters)
}

/// Which of the module's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every rule; line feeds and tabs kept.
    Text,
    /// Every rule; line feeds and tabs escaped.
    OneLine,
    /// The characters' rules only; line feeds and tabs kept.
    Characters,
}

fn escape_as(text: &str, mode: Mode) -> String {
    let lines = mode != Mode::Characters;
    let mut out = String::with_capacity(text.len());
    // Whether only whitespace has been written on the current line so far.
    let mut line_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' if mode != Mode::OneLine => {
                out.push('\n');
                line_start = true;
                continue;
            }
            '\t' if mode != Mode::OneLine => out.push('\t'),
            c if c == '\n' || c == '\t' || needs_escape(c) => out.extend(c.escape_debug()),
            ':' if lines && line_start && chars.peek() == Some(&':') => {
                out.push_str("\\u{3a}");
            }
            '[' if lines && ends_command_prefix(&out) => out.push_str("\\u{5b}"),
            c => out.push(c),
        }
        line_start = line_start && out.ends_with(char::is_whitespace);
    }
    out
}

/// Whether `c` is a control character other than a tab and a line feed, a bidirectional-text
/// control or a line or paragraph separator: what `escape_controls` writes as its Rust escape
/// (`char::escape_debug`).
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() && c != '\t' && c != '\n'
        || matches!(
            c,
            '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Whether a `[` written after `out` would complete `##[` or `##vso[` (any case): a CI
/// runner's command prefix.
pub(crate) fn ends_command_prefix(out: &str) -> bool {
    let bytes = out.as_bytes();
    bytes.ends_with(b"##")
        || bytes.len() >= 5 && bytes[bytes.len() - 5..].eq_ignore_ascii_case(b"##vso")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Whether a line of printed text would be a command to a CI runner.
    fn is_command_line(line: &str) -> bool {
        // The runner splits lines at CR too, which `escape` leaves in no line.
        line.trim_start().starts_with("::")
            || line.contains("##[")
            || line.to_ascii_lowercase().contains("##vso[")
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(
            escape("ESC\x1b[2J NUL\0 BS\x08 BEL\x07 over\rwrite DEL\x7f CSI\u{9b}"),
            r"ESC\u{1b}[2J NUL\0 BS\u{8} BEL\u{7} over\rwrite DEL\u{7f} CSI\u{9b}"
        );
        assert_eq!(
            escape("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ \x1b]52;c;aGk=\x07"),
            r"\u{1b}]8;;https://x\u{1b}\link\u{1b}]8;;\u{1b}\ \u{1b}]52;c;aGk=\u{7}"
        );
        assert_eq!(escape("a\u{202e}b\u{2028}c"), r"a\u{202e}b\u{2028}c");
        assert_eq!(
            escape_controls("::x\x1b[0m ##[y]\n\t::z"),
            "::x\\u{1b}[0m ##[y]\n\t::z"
        );
        assert_eq!(
            escape_one_line("::x\x1b[0m ##[y]\n\t::z"),
            r"\u{3a}:x\u{1b}[0m ##\u{5b}y]\n\t::z"
        );
    }

    #[test]
    fn line_feeds_tabs_and_ordinary_text_are_kept() {
        let text = "first line\n\tindented: a::b, ## heading, [x]\nünïcödé ✓";
        assert_eq!(escape(text), text);
        assert_eq!(escape(""), "");
    }

    #[test]
    fn no_line_starts_a_workflow_command() {
        assert_eq!(
            escape("::add-mask::secret\n  ::stop-commands::tok\n\u{a0}::error::x"),
            "\\u{3a}:add-mask::secret\n  \\u{3a}:stop-commands::tok\n\u{a0}\\u{3a}:error::x"
        );
        // An escaped control character is no whitespace: what follows it is not first.
        assert_eq!(escape("\x0b::x"), r"\u{b}::x");
        assert_eq!(escape("x ::y"), "x ::y");
        assert_eq!(escape(":a"), ":a");
    }

    #[test]
    fn no_legacy_command_prefix_remains_anywhere() {
        assert_eq!(
            escape("text ##[add-mask]secret ###[x] ##VSO[task.complete]"),
            r"text ##\u{5b}add-mask]secret ###\u{5b}x] ##VSO\u{5b}task.complete]"
        );
    }

    proptest! {
        #[test]
        fn escaped_text_has_no_control_character_and_no_command_line(
            text in "(\\PC|\\pC|:|#|\\[| |\n|\r|vso|VsO){0,60}"
        ) {
            let escaped = escape(&text);
            prop_assert!(
                !escaped.chars().any(|c| c != '\n' && c != '\t' && needs_escape(c)),
                "{escaped:?}"
            );
            for line in escaped.split('\n') {
                prop_assert!(!is_command_line(line), "{line:?} of {escaped:?}");
            }
            prop_assert_eq!(escaped.matches('\n').count(), text.matches('\n').count());
            prop_assert_eq!(escape(&escaped), escaped.clone(), "escaping twice changes nothing");
            let controls = escape_controls(&text);
            prop_assert!(
                !controls.chars().any(|c| c != '\n' && c != '\t' && needs_escape(c)),
                "{controls:?}"
            );
            prop_assert_eq!(escape_controls(&controls), controls);
            let one_line = escape_one_line(&text);
            prop_assert!(
                !one_line.chars().any(|c| c == '\n' || c == '\t' || needs_escape(c))
                    && !is_command_line(&one_line),
                "{one_line:?}"
            );
            prop_assert_eq!(escape_one_line(&one_line), one_line);
        }

        #[test]
        fn text_needing_nothing_is_unchanged(text in "[a-zA-Z0-9 .,;!?'\"()\t\n-]{0,80}") {
            prop_assert_eq!(escape(&text), text);
        }
    }
}
