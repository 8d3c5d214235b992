//! Secrets masked in everything skillgym writes.
//!
//! | what | masked |
//! |---|---|
//! | which values | of environment variables whose names look secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `*_CREDENTIALS`, any case) or are listed in `run.secrets`: from the harness's own environment, the workspace bootstrap's `env`, and every agent's launch environment (its `agent.env`, code-configured variables included) |
//! | replaced by | `[masked:NAME]` |
//! | where | every file skillgym writes: the JSON files (`report.json`, `result.json`, `results.json`, `workspace.json`, `explain.json`, …), `stdout.log` and `stderr.log` as they are written ([`MaskingWriter`]), `prompt.md`, hook, grader and bootstrap logs, `mock-requests.jsonl`, the agent's session file copied into the attempt, what `record` packs; failure messages and the console |
//! | not | what the agent writes itself: its state directory (`agent-state/`) and the workspace |
//! | too short | values under 8 characters are not masked: `1`, `true` or `dev` would blot out ordinary text everywhere, and no real credential is that short |
//!
//! A value is masked as written and as it appears inside a JSON string (escaped).

mod stream;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, PoisonError, RwLock};

use aho_corasick::AhoCorasick;

pub(crate) use stream::{MaskingWriter, copy_file, write_file};

/// Shorter values are never masked.
pub(crate) const MIN_LEN: usize = 8;

/// What a value is replaced by starts with this.
const MASK_OPEN: &str = "[masked:";

/// The masks of this process.
static MASKS: RwLock<Masks> = RwLock::new(Masks::new());

/// Whether a variable name looks like it holds a secret.
pub(crate) fn looks_secret(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    ["_KEY", "_TOKEN", "_SECRET", "_CREDENTIALS"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
        || matches!(name.as_str(), "KEY" | "TOKEN" | "SECRET" | "CREDENTIALS")
        || name.contains("PASSWORD")
}

/// Names listed in `run.secrets`, masked whatever they look like.
pub(crate) fn add_names(names: &[String]) {
    let mut masks = MASKS.write().unwrap_or_else(PoisonError::into_inner);
    for name in names {
        if !masks.names.contains(name) {
            masks.names.push(name.clone());
        }
    }
}

/// Remembers the variables of an environment whose values must be masked.
pub(crate) fn remember<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) {
    let wanted: Vec<(&str, &str)> = {
        let masks = MASKS.read().unwrap_or_else(PoisonError::into_inner);
        vars.into_iter()
            .filter(|(name, value)| {
                value.len() >= MIN_LEN
                    && (looks_secret(name) || masks.names.iter().any(|n| n == name))
                    && !masks.values.iter().any(|(known, _)| known == value)
            })
            .collect()
    };
    if wanted.is_empty() {
        return;
    }
    let mut masks = MASKS.write().unwrap_or_else(PoisonError::into_inner);
    for (name, value) in wanted {
        masks.add(name, value);
    }
    masks.rebuild();
}

/// Remembers the secret-looking variables of this process's environment.
pub(crate) fn remember_process_env() {
    let vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    remember(vars.iter().map(|(n, v)| (n.as_str(), v.as_str())));
}

/// The masker of what is remembered now; `None` while nothing is. A snapshot: values
/// remembered later are not in it.
pub(crate) fn masker() -> Option<Arc<Masker>> {
    MASKS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .masker
        .clone()
}

/// The text with every remembered secret replaced by `[masked:NAME]`.
pub(crate) fn mask(text: &str) -> Cow<'_, str> {
    match masker() {
        Some(masker) => masker.mask(text),
        None => Cow::Borrowed(text),
    }
}

/// [`mask`] over bytes (serialized JSON).
pub(crate) fn mask_bytes(bytes: Vec<u8>) -> Vec<u8> {
    match masker() {
        Some(masker) => match masker.mask_bytes(&bytes) {
            Cow::Owned(masked) => masked,
            Cow::Borrowed(_) => bytes,
        },
        None => bytes,
    }
}

/// The `[masked:NAME]` of `text` that position `at` falls strictly inside, if one does: a
/// cut there would split it.
pub(crate) fn replacement_around(text: &str, at: usize) -> Option<Range<usize>> {
    let longest = masker()?.longest_replacement;
    let mut from = at.saturating_sub(longest);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let open = from + text.get(from..at)?.rfind(MASK_OPEN)?;
    let close = open + text[open..].find(']')? + 1;
    (close > at).then_some(open..close)
}

/// The values remembered when it was made, and the automaton that finds them.
#[derive(Debug)]
pub(crate) struct Masker {
    matcher: AhoCorasick,
    /// `[masked:NAME]` per pattern.
    replacements: Vec<String>,
    /// The longest pattern, in bytes.
    longest_pattern: usize,
    /// The longest replacement, in bytes.
    longest_replacement: usize,
}

impl Masker {
    /// The text with every value replaced.
    pub(crate) fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.matcher.is_match(text) {
            Cow::Owned(self.matcher.replace_all(text, &self.replacements))
        } else {
            Cow::Borrowed(text)
        }
    }

    /// The bytes with every value replaced.
    pub(crate) fn mask_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        if self.matcher.is_match(bytes) {
            Cow::Owned(self.matcher.replace_all_bytes(bytes, &self.replacements))
        } else {
            Cow::Borrowed(bytes)
        }
    }
}

/// What is masked.
struct Masks {
    /// Extra names from `run.secrets`.
    names: Vec<String>,
    /// (value, name), in the order they were remembered.
    values: Vec<(String, String)>,
    /// The patterns: each value, and its JSON-escaped form where different.
    patterns: Vec<String>,
    /// `[masked:NAME]` per pattern.
    replacements: Vec<String>,
    /// Built from the patterns; `None` while there is none.
    masker: Option<Arc<Masker>>,
}

impl Masks {
    const fn new() -> Self {
        Masks {
            names: Vec::new(),
            values: Vec::new(),
            patterns: Vec::new(),
            replacements: Vec::new(),
            masker: None,
        }
    }

    fn add(&mut self, name: &str, value: &str) {
        if self.values.iter().any(|(known, _)| known == value) {
            return;
        }
        self.values.push((value.to_owned(), name.to_owned()));
        let replacement = replacement(name);
        self.patterns.push(value.to_owned());
        self.replacements.push(replacement.clone());
        let quoted = serde_json::to_string(value).unwrap_or_default();
        let escaped = quoted
            .get(1..quoted.len().saturating_sub(1))
            .unwrap_or_default();
        if escaped != value {
            self.patterns.push(escaped.to_owned());
            self.replacements.push(replacement);
        }
    }

    fn rebuild(&mut self) {
        // Leftmost-longest: a value that contains another is masked whole.
        let matcher = AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(&self.patterns)
            .ok();
        self.masker = matcher.map(|matcher| {
            Arc::new(Masker {
                matcher,
                replacements: self.replacements.clone(),
                longest_pattern: self.patterns.iter().map(String::len).max().unwrap_or(0),
                longest_replacement: self.replacements.iter().map(String::len).max().unwrap_or(0),
            })
        });
    }
}

/// `[masked:NAME]`, with any character of the name that could break out of a JSON string or
/// a log line written `_`.
fn replacement(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{MASK_OPEN}{name}]")
}

/// A masker of `values` (name, value) alone, whatever the process remembers.
#[cfg(test)]
pub(crate) fn masker_of(values: &[(&str, &str)]) -> Arc<Masker> {
    let mut masks = Masks::new();
    for (name, value) in values {
        masks.add(name, value);
    }
    masks.rebuild();
    masks.masker.expect("at least one value")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_secret() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "aws_secret",
            "DB_PASSWORD_FILE",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "KEY",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["PATH", "HOME", "KEYBOARD", "TOKENIZER", "MONKEY_BUSINESS"] {
            assert!(!looks_secret(name), "{name}");
        }
    }

    #[test]
    fn masks_values_as_written_and_json_escaped() {
        remember([
            ("UNIT_TEST_API_KEY", "sk-unit-\"quoted\"-0123"),
            ("UNIT_TEST_TOKEN", "short"),
            ("UNIT_TEST_HOME", "/home/not-a-secret"),
        ]);
        assert_eq!(
            mask("key=sk-unit-\"quoted\"-0123."),
            "key=[masked:UNIT_TEST_API_KEY]."
        );
        let json = serde_json::to_string("sk-unit-\"quoted\"-0123").unwrap();
        assert_eq!(
            String::from_utf8(mask_bytes(json.into_bytes())).unwrap(),
            "\"[masked:UNIT_TEST_API_KEY]\""
        );
        assert_eq!(
            mask("short and /home/not-a-secret"),
            "short and /home/not-a-secret"
        );
        add_names(&["UNIT_TEST_PLAIN".to_owned()]);
        remember([("UNIT_TEST_PLAIN", "plain-but-listed")]);
        assert_eq!(mask("plain-but-listed"), "[masked:UNIT_TEST_PLAIN]");
    }
}
