//! Structured matching of shell commands: parsing into simple commands (words split by
//! [`skillgym_grammar::shell`]), and matching them by executable, positionals and options.
//!
//! ```
//! use skillgym::assert::CommandMatcher;
//!
//! let matcher = CommandMatcher::new("npx").args(["skills", "find"]);
//! assert!(matcher.matches("/bin/bash -lc 'cd app && npx skills find expo'"));
//! ```

mod exit;
mod matcher;
mod parse;

pub(crate) use exit::observed_exit;
pub use matcher::{CommandMatcher, TokenMatcher};
pub use parse::{CommandOption, OptionArg, ParsedCommand, parse_command};

#[cfg(test)]
use skillgym_grammar::shell::{Separator, Token, lex, quote, tokenize};

#[cfg(test)]
mod tests;
