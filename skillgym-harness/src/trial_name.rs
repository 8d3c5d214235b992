//! Case ids, suite names and runner ids that can name a trial (`[<runner>] <suite>::<id>`).
//!
//! | Refused character | Why |
//! |---|---|
//! | a control character (C0, DEL, C1: newline, tab, ESC, NUL, ...) | a newline splits the `--list` line `cargo nextest list` reads (the whole binary fails to list); NUL cannot be passed as the `--exact` argument; ESC and friends drive the terminal the name is printed on, and the console strips them, so the listed name is not the trial's |
//! | U+2028, U+2029 (line and paragraph separators) | they break the line wherever the name is shown |
//! | bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) | the name shown is not the name in the file |
//!
//! Spaces and other printable characters are allowed (libtest and nextest take them). The
//! `#[skillgym::case]` macro refuses whitespace and control characters at compile time.

/// Whether `c` cannot be part of a trial's name: what the console escapes, and line feeds and
/// tabs.
fn breaks_trial_name(c: char) -> bool {
    crate::terminal_text::needs_escape(c) || c == '\n' || c == '\t'
}

/// The first character of `name` that cannot be part of a trial's name, if any.
pub(crate) fn bad_char(name: &str) -> Option<char> {
    name.chars().find(|&c| breaks_trial_name(c))
}

/// `text` with every refused character escaped (`\n`, `\u{1b}`): safe to print.
pub(crate) fn escaped(text: &str) -> String {
    crate::terminal_text::escape_one_line(text)
}

/// `name` with each run of refused characters replaced by `-` (the suggestion of an error).
pub(crate) fn suggestion(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !breaks_trial_name(c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.trim().is_empty() {
        "case".to_owned()
    } else {
        out.to_owned()
    }
}

/// The error of a name holding `c`: which character, and why it matters.
pub(crate) fn problem(what: &str, name: &str, c: char) -> String {
    format!(
        "{what} `{}` holds {} (U+{:04X}): it names a trial, and a trial's name must fit on one line of `--list` (test runners such as cargo-nextest read one name a line) and print as written",
        escaped(name),
        describe(c),
        c as u32
    )
}

/// A short description of a refused character.
fn describe(c: char) -> &'static str {
    match c {
        '\n' => "a newline",
        '\r' => "a carriage return",
        '\t' => "a tab",
        '\0' => "a NUL",
        '\u{1b}' => "an escape character",
        '\u{2028}' | '\u{2029}' => "a line separator",
        c if c.is_control() => "a control character",
        _ => "a bidirectional control character",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_separators_and_bidi_characters_are_refused() {
        for name in [
            "a\nb",
            "a\rb",
            "a\tb",
            "a\0b",
            "a\u{1b}[31mb",
            "a\u{7f}",
            "a\u{85}",
            "a\u{2028}b",
            "a\u{202e}b",
        ] {
            assert!(bad_char(name).is_some(), "{name:?}");
        }
        for name in [
            "plain",
            "with space",
            "snake_case::path",
            "café-ü",
            "emoji-👍",
        ] {
            assert_eq!(bad_char(name), None, "{name:?}");
        }
    }

    #[test]
    fn errors_escape_the_name_and_suggest_one_without() {
        assert_eq!(escaped("a\nb\u{1b}[0m"), "a\\nb\\u{1b}[0m");
        assert_eq!(suggestion("a\nb"), "a-b");
        assert_eq!(suggestion("a\n\n\tb\n"), "a-b");
        assert_eq!(suggestion("\u{1b}[31mred"), "[31mred");
        assert_eq!(suggestion("\n"), "case");
        let message = problem("`id`", "x\ny", '\n');
        assert!(!message.contains('\n'), "{message}");
        assert!(
            message.starts_with("`id` `x\\ny` holds a newline (U+000A)"),
            "{message}"
        );
    }
}
