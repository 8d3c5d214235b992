//! TEMPORARY stub; replaced by the real command matcher.
#![allow(missing_docs, dead_code)]
use std::fmt;

#[derive(Debug, Clone)]
pub struct CommandMatcher {
    executable: String,
    args: Vec<String>,
}

impl CommandMatcher {
    pub fn new(executable: &str) -> Self {
        CommandMatcher {
            executable: executable.into(),
            args: vec![],
        }
    }
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
    pub fn matches(&self, command: &str) -> bool {
        let words: Vec<&str> = command.split_whitespace().collect();
        words.first() == Some(&self.executable.as_str())
            && self.args.iter().all(|a| words.contains(&a.as_str()))
    }
}

impl fmt::Display for CommandMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "command matcher (executable={:?})", self.executable)
    }
}

#[derive(Debug, Clone)]
pub struct ParsedCommand(String);

impl fmt::Display for ParsedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "executable={:?}", self.0)
    }
}

pub fn parse_command(command: &str) -> Vec<ParsedCommand> {
    command
        .split_whitespace()
        .next()
        .map(|w| ParsedCommand(w.into()))
        .into_iter()
        .collect()
}

#[derive(Debug, Clone)]
pub enum TokenMatcher {
    Exact(String),
    Regex(regex::Regex),
}
impl TokenMatcher {
    pub fn is_match(&self, text: &str) -> bool {
        match self {
            TokenMatcher::Exact(e) => e == text,
            TokenMatcher::Regex(r) => r.is_match(text),
        }
    }
}
impl fmt::Display for TokenMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenMatcher::Exact(e) => write!(f, "{e:?}"),
            TokenMatcher::Regex(r) => write!(f, "/{}/", r.as_str()),
        }
    }
}
impl From<&str> for TokenMatcher {
    fn from(s: &str) -> Self {
        TokenMatcher::Exact(s.into())
    }
}
impl From<String> for TokenMatcher {
    fn from(s: String) -> Self {
        TokenMatcher::Exact(s)
    }
}
impl From<regex::Regex> for TokenMatcher {
    fn from(s: regex::Regex) -> Self {
        TokenMatcher::Regex(s)
    }
}
