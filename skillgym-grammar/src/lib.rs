//! The grammars skillgym's crates share, so a value means the same thing in Rust code, in
//! `skillgym.yaml` and in a recorded session. Internal to skillgym: no stability promise.
//!
//! | module | grammar | used by |
//! |---|---|---|
//! | [`duration`] | `1h30m`, `90s`, `500ms` | the macro's `timeout = "..."`; YAML `timeout:` keys |
//! | [`suggest`] | "did you mean" for a misspelled name | the macro's unknown arguments; unknown flags, YAML keys and values |
//! | [`shell`] | a command line's words and separators (POSIX quoting), and quoting a word | `skillgym`'s `CommandMatcher`; the harness's reading of agents' shell commands; the fuzz targets |
//!
//! A crate of its own rather than one file included twice with `#[path]`: a `#[path]` outside a
//! crate's directory is left out by `cargo package`, and a symlink does not survive every
//! checkout (Windows), while a dependency builds the same from a clean clone and from crates.io.

#![forbid(unsafe_code)]

pub mod duration;
pub mod shell;
pub mod suggest;
