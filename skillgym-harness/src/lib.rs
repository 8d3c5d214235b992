//! The runner behind [skillgym](https://docs.rs/skillgym): configuration, agents, process
//! supervision, workspaces, the repeat loop, artifacts, and a libtest-compatible `main`.
//!
//! A benchmark target is a `harness = false` test whose `main` calls [`main()`]:
//!
//! ```toml
//! [[test]]
//! name = "benchmarks"
//! harness = false
//! ```
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     skillgym_harness::main()
//! }
//! ```
//!
//! Every registered case runs on every configured runner as one libtest trial, printed as
//! `test [runner] case_id ... ok`. Artifacts land in `target/skillgym/runs/<run-id>/`.

#![warn(missing_docs)]

pub mod agent;
mod artifacts;
pub mod cli;
pub mod config;
pub mod doctor;
mod dry_run;
pub mod error;
pub mod execute;
#[doc(hidden)]
pub mod fuzzing;
mod harness;
pub mod interrupt;
pub mod mock;
pub mod normalize;
mod preflight;
pub mod process;
pub mod reaper;
mod rejections;
mod run;
mod schedule;
pub mod secrets;
pub mod skills;
mod suggest;
pub mod suite;
mod summary;
mod time;
pub mod workspace;

pub use agent::{Agent, CommandAgent};
pub use artifacts::{RunDir, sanitize};
pub use error::Error;
pub use harness::{Harness, main};
pub use run::Runner;
