//! What a report keeps of a session that prints a lot: its memory and its `report.json` stay
//! bounded whatever the agent prints, while `stdout.log` keeps every byte.
//!
//! | limit | value | beyond it |
//! |---|---|---|
//! | one text (a message, a tool's output, a command, a string inside tool arguments or a raw record) | 64 KiB | its first and last 32 KiB are kept, around a marker `[… skillgym cut N bytes of this text; the full text is in stdout.log …]` |
//! | all texts of a report, at that size | 4 MiB | each further text keeps 512 bytes (256 + 256) around the marker |
//! | events | 10,000 | later events are not kept; a warning counts them |
//! | warnings | 200 | later warnings are counted in one last warning |
//!
//! Real sessions stay far below these (a long Claude Code session is about a thousand events).
//!
//! A text to be cut is masked first (the secrets the harness remembers become
//! `[masked:NAME]`), and the cut never falls inside a `[masked:NAME]`: cutting through a
//! secret would leave a part of it that no mask recognizes any more.

use std::borrow::Cow;

use serde_json::Value;

/// Longest text kept whole.
pub const TEXT_CAP: usize = 64 * 1024;
/// Text bytes a report keeps at [`TEXT_CAP`] before texts are cut shorter.
pub const TEXT_BUDGET: usize = 4 << 20;
/// Longest text kept once [`TEXT_BUDGET`] is spent.
pub const SPENT_TEXT_CAP: usize = 512;
/// Most events a report keeps.
pub const MAX_EVENTS: usize = 10_000;
/// Most warnings a report keeps.
pub const MAX_WARNINGS: usize = 200;

/// The running account of one report.
#[derive(Debug, Default)]
pub(crate) struct Caps {
    /// Text bytes kept so far.
    kept: usize,
    /// Events not kept.
    pub dropped_events: u64,
    /// Warnings not kept.
    pub dropped_warnings: u64,
}

impl Caps {
    /// The text, cut around a marker when it is longer than the cap in force.
    pub(crate) fn text(&mut self, text: String) -> String {
        let cap = self.cap();
        let text = cut(text, cap);
        self.kept = self.kept.saturating_add(text.len());
        text
    }

    /// The value with every string in it capped (a raw record, tool arguments).
    pub(crate) fn value(&mut self, mut value: Value) -> Value {
        self.cap_strings(&mut value);
        value
    }

    fn cap_strings(&mut self, value: &mut Value) {
        match value {
            Value::String(text) => *text = self.text(std::mem::take(text)),
            Value::Array(items) => items.iter_mut().for_each(|item| self.cap_strings(item)),
            Value::Object(map) => map.values_mut().for_each(|item| self.cap_strings(item)),
            _ => {}
        }
    }

    fn cap(&self) -> usize {
        if self.kept < TEXT_BUDGET {
            TEXT_CAP
        } else {
            SPENT_TEXT_CAP
        }
    }

    /// Whether one more event may be kept (`held` are kept already); counts it when not.
    pub(crate) fn admit_event(&mut self, held: usize) -> bool {
        let admitted = held < MAX_EVENTS;
        if !admitted {
            self.dropped_events += 1;
        }
        admitted
    }

    /// Whether one more warning may be kept (`held` are kept already); counts it when not.
    pub(crate) fn admit_warning(&mut self, held: usize) -> bool {
        let admitted = held < MAX_WARNINGS;
        if !admitted {
            self.dropped_warnings += 1;
        }
        admitted
    }

    /// The closing warnings about what was not kept.
    pub(crate) fn summary(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.dropped_events > 0 {
            warnings.push(format!(
                "{} event(s) after the first {MAX_EVENTS} were not kept in the report; the full stream is in stdout.log",
                self.dropped_events
            ));
        }
        if self.dropped_warnings > 0 {
            warnings.push(format!(
                "{} more warning(s) after the first {MAX_WARNINGS} were not kept",
                self.dropped_warnings
            ));
        }
        warnings
    }
}

/// `text` if it fits in `cap` bytes, else its head and tail (half the cap each, on character
/// boundaries, shorter rather than through a `[masked:NAME]`) around a marker naming how many
/// bytes were cut. Secrets are masked before the cut.
fn cut(text: String, cap: usize) -> String {
    if text.len() <= cap {
        return text;
    }
    let text = match crate::secrets::mask(&text) {
        Cow::Owned(masked) => masked,
        Cow::Borrowed(_) => text,
    };
    if text.len() <= cap {
        return text;
    }
    let half = cap / 2;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    if let Some(mask) = crate::secrets::replacement_around(&text, head) {
        head = mask.start;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    if let Some(mask) = crate::secrets::replacement_around(&text, tail) {
        tail = mask.end;
    }
    format!(
        "{}[… skillgym cut {} bytes of this text; the full text is in stdout.log …]{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_keep_head_and_tail_around_a_marker() {
        let mut caps = Caps::default();
        assert_eq!(caps.text("short".to_owned()), "short");
        let long = format!("{}{}", "a".repeat(TEXT_CAP), "é".repeat(TEXT_CAP));
        let kept = caps.text(long.clone());
        assert!(kept.len() < TEXT_CAP + 100, "{}", kept.len());
        assert!(kept.starts_with(&"a".repeat(TEXT_CAP / 2)));
        assert!(kept.ends_with("é"));
        let cut_bytes = long.len() - (kept.len() - marker_len(&kept));
        assert!(
            kept.contains(&format!("[… skillgym cut {cut_bytes} bytes of this text")),
            "{}",
            &kept[TEXT_CAP / 2..TEXT_CAP / 2 + 100]
        );
    }

    fn marker_len(text: &str) -> usize {
        let start = text.find("[… skillgym cut").unwrap();
        let end = text[start..].find("…]").unwrap() + start + "…]".len();
        end - start
    }

    #[test]
    fn a_secret_the_cut_would_split_is_masked_whole_and_left_out() {
        let secret = "sk-caps-straddle-0123456789ab";
        crate::secrets::remember([("CAPS_TEST_API_KEY", secret)]);
        let prefix = &secret[..12];
        // The secret straddles the head's end, then the tail's start.
        for (before, after) in [(TEXT_CAP / 2 - 12, TEXT_CAP), (TEXT_CAP, TEXT_CAP / 2 - 12)] {
            let text = format!("{}{secret}{}", "a".repeat(before), "b".repeat(after));
            let kept = Caps::default().text(text);
            assert!(kept.len() <= TEXT_CAP + 100, "{}", kept.len());
            assert!(
                !kept.contains(prefix),
                "a part of the secret survived the cut"
            );
            assert!(!kept.contains(&secret[secret.len() - 12..]));
            assert!(!kept.contains("[masked:CAPS"), "no half mask either");
            assert!(kept.contains("[… skillgym cut"));
        }
        // Away from the cut, the mask stays in the kept head.
        let text = format!("x{secret}{}", "c".repeat(TEXT_CAP * 2));
        let kept = Caps::default().text(text);
        assert!(
            kept.starts_with("x[masked:CAPS_TEST_API_KEY]ccc"),
            "{}",
            &kept[..40]
        );
    }

    #[test]
    fn once_the_budget_is_spent_texts_are_cut_shorter() {
        let mut caps = Caps::default();
        for _ in 0..TEXT_BUDGET / TEXT_CAP {
            assert!(caps.text("x".repeat(TEXT_CAP)).len() == TEXT_CAP);
        }
        let kept = caps.text("y".repeat(10_000));
        assert!(kept.len() < SPENT_TEXT_CAP + 100, "{}", kept.len());
    }

    #[test]
    fn strings_inside_values_are_capped() {
        let mut caps = Caps::default();
        let value = serde_json::json!({ "a": ["z".repeat(TEXT_CAP * 2)], "n": 1 });
        let kept = caps.value(value);
        assert!(kept["a"][0].as_str().unwrap().len() < TEXT_CAP + 100);
        assert_eq!(kept["n"], 1);
    }

    #[test]
    fn events_and_warnings_beyond_the_limits_are_counted() {
        let mut caps = Caps::default();
        assert!(caps.admit_event(MAX_EVENTS - 1));
        assert!(!caps.admit_event(MAX_EVENTS));
        assert!(!caps.admit_warning(MAX_WARNINGS));
        let summary = caps.summary();
        assert_eq!(summary.len(), 2);
        assert!(summary[0].starts_with("1 event(s) after the first 10000"));
        assert!(summary[1].starts_with("1 more warning(s) after the first 200"));
    }
}
