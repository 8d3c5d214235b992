//! Structured matching of shell commands: tokenizing, parsing into simple commands, and
//! matching them by executable, positionals and options.
//!
//! ```
//! use skillgym::assert::CommandMatcher;
//!
//! let matcher = CommandMatcher::new("npx").args(["skills", "find"]);
//! assert!(matcher.matches("/bin/bash -lc 'cd app && npx skills find expo'"));
//! ```

mod matcher;
mod parse;
pub(crate) mod tokenize;

pub use matcher::{CommandMatcher, TokenMatcher};
pub use parse::{CommandOption, OptionArg, ParsedCommand, parse_command};

#[cfg(test)]
use tokenize::{Separator, Token, lex, quote, tokenize};

#[cfg(test)]
mod tests;
