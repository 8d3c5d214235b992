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
//! `test [runner] case_id ... ok`, and so does every case of the declarative suites
//! (agentv-style `EVAL.yaml` and `case.yaml` directories) named by `suites:` in
//! `skillgym.yaml` or [`Harness::suite`], checked by their graders. Artifacts land in
//! `target/skillgym/runs/<run-id>/`.
//!
//! The public modules:
//!
//! | module | holds |
//! |---|---|
//! | crate root | [`main()`], [`Harness`] (runners, suites and a judge given in code, a config file, argv), [`Error`], and the adapter seam's main names re-exported |
//! | [`agent`] | the [`Agent`] and [`StreamParser`] seam, the built-in adapters, [`CommandAgent`], [`AgentOptions`](agent::AgentOptions) |
//! | [`normalize`] | [`ReportBuilder`], what adapters feed, and [`normalize_stream`] |
//! | [`config`] | `skillgym.yaml`: [`Config`](config::Config), [`AgentKind`](config::AgentKind), [`WireApi`](config::WireApi), discovery and loading |
//! | [`results`] | what a run writes (`result.json`, `results.json`, each attempt's `grading`), for reporters |
//! | [`report`] | [`RunReport`](report::RunReport) and the [`Reporter`](report::Reporter) trait, the built-in reporters |
//! | [`error`] | [`Error`] and the error of each join |
//! | [`doctor`] | the checks behind `cargo skillgym doctor` |
//! | [`mock`] | the scripted model server behind `--mock` and `cargo skillgym mock-model` |
//! | [`replay`] | recorded runs replayed through today's checks (`--replay`, `type: replay`), and `cargo skillgym record` |
//! | [`snapshot`] | token snapshots: the baseline and `.new` files, the check, behind `cargo skillgym review` |
//! | [`sandbox`] | the bubblewrap sandbox (`sandbox: bubblewrap`): what a sandboxed attempt's `result.json` records |
//!
//! Everything else is private; a few modules are public but hidden (`#[doc(hidden)]`) for the
//! framework's own tests, benchmarks and fuzz targets, and are not a stable API.

pub mod agent;
mod artifacts;
mod cli;
pub mod config;
pub mod doctor;
mod dry_run;
mod duration;
pub mod error;
#[doc(hidden)]
pub mod execute;
#[doc(hidden)]
pub mod explain;
mod figures;
#[doc(hidden)]
pub mod fuzzing;
mod grade;
mod harness;
mod interrupt;
mod lines;
pub mod mock;
pub mod normalize;
mod oneshot;
mod preflight;
mod private_dir;
#[doc(hidden)]
pub mod process;
mod progress;
mod reaper;
mod rejections;
pub mod replay;
pub mod report;
pub mod results;
mod run;
pub mod sandbox;
mod schedule;
mod secrets;
mod skills;
pub mod snapshot;
mod suggest;
#[doc(hidden)]
pub mod suite;
mod summary;
#[doc(hidden)]
pub mod terminal_text;
mod time;
mod trial_name;
mod unwritten;
mod versions;
#[doc(hidden)]
pub mod workspace;

pub use agent::{Agent, CommandAgent, StreamParser};
pub use error::Error;
pub use harness::{Harness, main};
pub use normalize::{ReportBuilder, normalize_stream};
