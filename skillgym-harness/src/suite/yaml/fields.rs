//! Reading a mapping by hand while collecting every error of a file.
//!
//! | Piece | Role |
//! |---|---|
//! | [`Source`] | one file: path, text (for snippets) and the errors found so far |
//! | [`Fields`] | a mapping being read: [`Fields::take`] marks a key as known (with aliases); [`Fields::finish`] reports every key left as unknown, with "did you mean" |
//! | `Source::{string, bool, number, ...}` | typed reads that record "must be ..., found ..." and return `None` |

use std::path::{Path, PathBuf};

use super::model::Warning;
use super::node::{Node, Value};
use crate::config::ConfigError;
use crate::suggest::did_you_mean;

/// One file being read, and the errors found in it.
#[derive(Debug)]
pub(crate) struct Source {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) errors: Vec<ConfigError>,
    /// Keys read and ignored, as agentv ignores them (printed once per run by the caller).
    pub(crate) warnings: Vec<Warning>,
    /// Other files read on this file's behalf (an external workspace file).
    pub(crate) also_read: Vec<PathBuf>,
}

impl Source {
    pub(crate) fn new(path: &Path, text: String) -> Source {
        Source {
            path: path.to_path_buf(),
            text,
            errors: Vec::new(),
            warnings: Vec::new(),
            also_read: Vec::new(),
        }
    }

    /// Records an error at `node`.
    pub(crate) fn error(&mut self, node: &Node, message: impl Into<String>) {
        let error = self.make(node, message);
        self.errors.push(error);
    }

    /// Records an error at `node` with a `help:` line.
    pub(crate) fn error_help(&mut self, node: &Node, message: impl Into<String>, help: &str) {
        let error = self.make(node, message).with_help(help);
        self.errors.push(error);
    }

    /// Records a warning at `node`: `line:column: message`.
    pub(crate) fn warn(&mut self, node: &Node, message: impl AsRef<str>) {
        self.warnings.push(Warning {
            path: self.path.clone(),
            message: format!("{}:{}: {}", node.line, node.column, message.as_ref()),
        });
    }

    fn make(&self, node: &Node, message: impl Into<String>) -> ConfigError {
        if node.line > 0 {
            ConfigError::at(&self.path, &self.text, node.line, node.column, message)
        } else {
            ConfigError::new(Some(&self.path), message)
        }
    }

    fn wrong(&mut self, key: &str, node: &Node, expected: &str) {
        self.error(
            node,
            format!("`{key}` must be {expected}, found {}", node.kind()),
        );
    }

    /// A string.
    pub(crate) fn string(&mut self, key: &str, node: &Node) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            _ => {
                self.wrong(key, node, "a string");
                None
            }
        }
    }

    /// A non-empty string.
    pub(crate) fn non_empty(&mut self, key: &str, node: &Node) -> Option<String> {
        let s = self.string(key, node)?;
        if s.trim().is_empty() {
            self.error(node, format!("`{key}` must not be empty"));
            return None;
        }
        Some(s)
    }

    pub(crate) fn bool(&mut self, key: &str, node: &Node) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong(key, node, "`true` or `false`");
                None
            }
        }
    }

    /// A finite number.
    pub(crate) fn number(&mut self, key: &str, node: &Node) -> Option<f64> {
        match node.as_f64() {
            Some(f) if f.is_finite() => Some(f),
            _ => {
                self.wrong(key, node, "a number");
                None
            }
        }
    }

    /// A finite number >= 0.
    pub(crate) fn non_negative(&mut self, key: &str, node: &Node) -> Option<f64> {
        let f = self.number(key, node)?;
        if f < 0.0 {
            self.error(node, format!("`{key}` must be >= 0, found {f}"));
            return None;
        }
        Some(f)
    }

    /// A number in (0, 1].
    pub(crate) fn unit_score(&mut self, key: &str, node: &Node) -> Option<f64> {
        let f = self.number(key, node)?;
        if !(f > 0.0 && f <= 1.0) {
            self.error(node, format!("`{key}` must be in (0, 1], found {f}"));
            return None;
        }
        Some(f)
    }

    /// A number in [0, 1].
    pub(crate) fn fraction(&mut self, key: &str, node: &Node) -> Option<f64> {
        let f = self.number(key, node)?;
        if !(0.0..=1.0).contains(&f) {
            self.error(node, format!("`{key}` must be in [0, 1], found {f}"));
            return None;
        }
        Some(f)
    }

    /// An integer >= `min`.
    pub(crate) fn integer(&mut self, key: &str, node: &Node, min: u64) -> Option<u64> {
        match node.value {
            Value::Int(i) if i >= 0 && i as u64 >= min => Some(i as u64),
            Value::Int(i) => {
                self.error(
                    node,
                    format!("`{key}` must be an integer >= {min}, found {i}"),
                );
                None
            }
            _ => {
                self.wrong(key, node, &format!("an integer >= {min}"));
                None
            }
        }
    }

    /// A list of strings (a single string is not accepted).
    pub(crate) fn strings(&mut self, key: &str, node: &Node) -> Option<Vec<String>> {
        let Value::Seq(items) = &node.value else {
            self.wrong(key, node, "a list of strings");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for item in items {
            match item.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => {
                    self.error(
                        item,
                        format!("`{key}` items must be strings, found {}", item.kind()),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// The entries of a mapping, or an error.
    pub(crate) fn mapping<'n>(&mut self, key: &str, node: &'n Node) -> Option<&'n [(Node, Node)]> {
        match &node.value {
            Value::Map(entries) => Some(entries),
            _ => {
                self.wrong(key, node, "a mapping");
                None
            }
        }
    }
}

/// A mapping being read: every key must be taken, or it is reported as unknown.
#[derive(Debug)]
pub(crate) struct Fields<'n> {
    node: &'n Node,
    entries: &'n [(Node, Node)],
    used: Vec<bool>,
    known: Vec<&'static str>,
    /// "a case", "a `contains` grader", ...
    what: String,
}

impl<'n> Fields<'n> {
    /// Reads `node`, which must be a mapping (else an error is recorded and `None` returned).
    pub(crate) fn of(
        source: &mut Source,
        node: &'n Node,
        what: impl Into<String>,
    ) -> Option<Fields<'n>> {
        let what = what.into();
        match &node.value {
            Value::Map(entries) => Some(Fields {
                node,
                entries,
                used: vec![false; entries.len()],
                known: Vec::new(),
                what,
            }),
            _ => {
                source.error(
                    node,
                    format!("{what} must be a mapping, found {}", node.kind()),
                );
                None
            }
        }
    }

    /// The mapping node itself (for "missing" errors).
    pub(crate) fn node(&self) -> &'n Node {
        self.node
    }

    /// The value of `name` or one of its `aliases`; two of them set is an error.
    pub(crate) fn take_alias(
        &mut self,
        source: &mut Source,
        name: &'static str,
        aliases: &[&'static str],
    ) -> Option<&'n Node> {
        self.known.push(name);
        self.known.extend_from_slice(aliases);
        let mut found: Option<(usize, &'static str)> = None;
        for (i, (key, _)) in self.entries.iter().enumerate() {
            let Some(k) = key.as_str() else { continue };
            let Some(spelling) = std::iter::once(&name)
                .chain(aliases)
                .find(|candidate| **candidate == k)
            else {
                continue;
            };
            self.used[i] = true;
            match found {
                None => found = Some((i, spelling)),
                Some((_, first)) => source.error(
                    key,
                    format!("`{k}` and `{first}` are the same field, set only one"),
                ),
            }
        }
        found.map(|(i, _)| &self.entries[i].1)
    }

    /// The value of `name`.
    pub(crate) fn take(&mut self, source: &mut Source, name: &'static str) -> Option<&'n Node> {
        self.take_alias(source, name, &[])
    }

    /// `name`, treating an explicit `null` as absent.
    pub(crate) fn take_some(
        &mut self,
        source: &mut Source,
        name: &'static str,
        aliases: &[&'static str],
    ) -> Option<&'n Node> {
        self.take_alias(source, name, aliases)
            .filter(|n| n.value != Value::Null)
    }

    /// Takes `name` and, when present, warns that it is ignored (agentv reads and ignores it;
    /// `why` says what it is for there).
    pub(crate) fn ignore(&mut self, source: &mut Source, name: &'static str, why: &str) {
        if self.take(source, name).is_none() {
            return;
        }
        if let Some(key) = self
            .entries
            .iter()
            .map(|(key, _)| key)
            .find(|key| key.as_str() == Some(name))
        {
            let what = &self.what;
            source.warn(key, format!("`{name}` in {what} is ignored ({why})"));
        }
    }

    /// Records "missing `name`" at the mapping.
    pub(crate) fn missing(&self, source: &mut Source, name: &str) {
        let what = &self.what;
        source.error(self.node, format!("{what} is missing `{name}`"));
    }

    /// The entries not taken so far (marked as taken).
    pub(crate) fn rest(&mut self) -> Vec<&'n (Node, Node)> {
        let mut out = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            if !self.used[i] {
                self.used[i] = true;
                out.push(entry);
            }
        }
        out
    }

    /// Reports every key not taken as unknown, with a suggestion.
    pub(crate) fn finish(self, source: &mut Source) {
        for (i, (key, _)) in self.entries.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            let name = key.key_text();
            let message = format!("unknown field `{name}` in {}", self.what);
            let shown: Vec<&str> = self
                .known
                .iter()
                .copied()
                .filter(|k| !k.chars().any(|c| c.is_ascii_uppercase()))
                .collect();
            let help = match did_you_mean(&name, self.known.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if shown.is_empty() => "there are no fields here".to_owned(),
                None => format!(
                    "expected one of {}",
                    shown
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            source.error_help(key, message, &help);
        }
    }
}
