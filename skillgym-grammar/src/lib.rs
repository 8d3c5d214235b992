//! The grammars skillgym's `#[skillgym::case]` macro and its harness share, so a value means the
//! same thing in Rust code and in `skillgym.yaml`. Internal to skillgym: no stability promise.
//!
//! | module | grammar | used by |
//! |---|---|---|
//! | [`duration`] | `1h30m`, `90s`, `500ms` | the macro's `timeout = "..."`; YAML `timeout:` keys |
//! | [`suggest`] | "did you mean" for a misspelled name | the macro's unknown arguments; unknown flags, YAML keys and values |
//!
//! A crate of its own rather than one file included twice with `#[path]`: a `#[path]` outside a
//! crate's directory is left out by `cargo package`, and a symlink does not survive every
//! checkout (Windows), while a dependency builds the same from a clean clone and from crates.io.

#![forbid(unsafe_code)]

pub mod duration;
pub mod suggest;
