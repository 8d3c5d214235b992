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
//! | [`stats`] | the statistics of pass rates and lifts: Wilson and Newcombe intervals, pass@k, Fisher's test, an always-valid confidence sequence |
//! | [`settings`] | a run's resolved [`Settings`](settings::Settings) and each case's [`CaseSettings`](settings::CaseSettings) |
//! | [`results`] | what a run writes (`result.json`, `results.json`, each attempt's `grading`), for reporters |
//! | [`report`] | [`RunReport`](report::RunReport) and the [`Reporter`](report::Reporter) trait, the built-in reporters |
//! | [`error`] | [`Error`] and the error of each join |
//! | [`doctor`] | the checks behind `cargo skillgym doctor` |
//! | [`mock`] | the scripted model server behind `--mock` and `cargo skillgym mock-model` |
//! | [`probe`] | what each agent CLI shows its model of the skills, behind `cargo skillgym probe` |
//! | [`replay`] | recorded runs replayed through today's checks (`--replay`, `type: replay`), and `cargo skillgym record` |
//! | [`run_record`] | `<run>/run.json`: the benchmark binary that made a run, behind `cargo skillgym explain` |
//! | [`pricing`] | estimated costs: the built-in prices per model, `pricing:` overrides, the matching rule |
//! | [`snapshot`] | token snapshots: the baseline and `.new` files, the check, behind `cargo skillgym review` |
//! | [`sandbox`] | the bubblewrap sandbox (`sandbox: bubblewrap`): what a sandboxed attempt's `result.json` records |
//! | [`terminal_text`] | [`escape`](terminal_text::escape): text skillgym did not write, made safe for a terminal and a CI log |
//! | [`skill_lint`] | static checks of skill directories, behind `cargo skillgym lint`: the rule table, the human, JSON and GitHub outputs |
//!
//! Everything else is private, but for a few modules that are public and hidden
//! (`#[doc(hidden)]`) because the framework's own tests, benchmarks and fuzz targets reach into
//! them; they are not a stable API, and `cargo-skillgym` uses none of them:
//!
//! | hidden module | reached by |
//! |---|---|
//! | `fuzzing` | the gate for the cargo-fuzz targets in `fuzz/`: one entry point per target |
//! | `execute` | `tests/launch.rs`, `tests/malformed.rs` (`run_session` on a real process) |
//! | `process` | the root package's `tests/process.rs` (process supervision end to end) |
//! | `suite` | `benches/suites.rs`, the root package's `benches/list.rs` and `tests/case_macro.rs` |
//! | `workspace` | `benches/copy.rs`, the root package's `tests/real_agents` (`copy_tree`) |

pub mod agent;
mod artifacts;
mod cli;
pub mod config;
pub mod doctor;
mod drop_aside;
mod dry_run;
mod duration;
pub mod error;
#[doc(hidden)]
pub mod execute;
mod explain;
mod figures;
#[doc(hidden)]
pub mod fuzzing;
mod grade;
mod handoff;
mod harness;
mod interrupt;
mod io_error;
mod lines;
mod log_thread;
pub mod mock;
pub mod normalize;
mod oneshot;
mod preflight;
pub mod pricing;
mod private_dir;
pub mod probe;
#[doc(hidden)]
pub mod process;
mod progress;
mod reaper;
mod rejections;
pub mod replay;
pub mod report;
mod report_json;
pub mod results;
pub mod run_record;
mod runner;
pub mod sandbox;
mod schedule;
mod secrets;
pub mod settings;
mod sink_thread;
mod skills;
pub mod snapshot;
pub mod stats;
mod suggest;
#[doc(hidden)]
pub mod suite;
mod summary;
pub mod terminal_text;
mod time;
mod trial_name;
mod unwritten;
mod versions;
#[doc(hidden)]
pub mod workspace;

pub use agent::{Agent, CommandAgent, StreamParser};
pub use cli::help_text as command_line_help;
pub use error::Error;
pub use harness::{Harness, main};
pub use normalize::{ReportBuilder, normalize_stream};
pub use skills::lint as skill_lint;
