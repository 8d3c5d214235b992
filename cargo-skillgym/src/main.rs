//! `cargo skillgym`: the command line around skillgym's benchmark binaries.
//!
//! | command | does |
//! |---|---|
//! | `cargo skillgym init [DIR]` | scaffolds a benchmark crate, or adds a `benchmarks` target to the crate in `DIR` |
//! | `cargo skillgym doctor` | checks that each configured runner's agent is installed and has credentials |
//! | `cargo skillgym mock-model` | serves the scripted model on 127.0.0.1 until stopped |
//! | `cargo skillgym report RUN_DIR...` | the summary and the reporters' files of finished runs, merged |
//! | `cargo skillgym compare RUN_A RUN_B` | pass rates, lifts, tokens, cost and time of two runs, with the interval of each change |
//! | `cargo skillgym record RUN_DIR DIR` | packs a run's recorded sessions for `--replay` and `type: replay` runners |
//! | `cargo skillgym review` | accepts or rejects the token snapshot values waiting in `<baseline>.new` |
//! | `cargo skillgym probe` | what each agent CLI shows its model of the skills: listed, description as shown, listing size in tokens (scripted model, zero model tokens) |
//! | `cargo skillgym explain DIR` | asks the agent of each failed attempt in DIR the questions of its failed assertions |
//! | `cargo skillgym lint [DIR...]` | checks skills without an agent: frontmatter, agents' limits, body size, links, scripts, duplicate names |
//!
//! Installed as `cargo-skillgym`, cargo runs it for `cargo skillgym ...` with `skillgym` as its
//! first argument; run directly, `cargo-skillgym init` works too. Usage errors exit with 2.

mod compare;
mod doctor;
mod explain;
mod init;
mod lint;
mod mock_model;
mod probe;
mod record;
mod report;
mod review;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
// Text from run directories, snapshot files and agents is printed through it: control
// characters escaped, no line a CI runner reads as a command.
use skillgym_harness::terminal_text::escape;

/// How cargo calls a subcommand: `cargo-skillgym skillgym <command> ...`.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Scaffold skillgym benchmarks, check agents, serve the scripted model, report, compare,
    /// record and explain runs, review token snapshots, lint skills, probe what agents see of
    /// them.
    Skillgym(App),
}

#[derive(Debug, clap::Args)]
#[command(
    version,
    arg_required_else_help = true,
    after_help = "Run the benchmarks themselves with `cargo test --test benchmarks`."
)]
struct App {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(init::InitArgs),
    Doctor(doctor::DoctorArgs),
    MockModel(mock_model::MockModelArgs),
    Report(report::ReportArgs),
    Compare(compare::CompareArgs),
    Record(record::RecordArgs),
    Review(review::ReviewArgs),
    Explain(explain::ExplainArgs),
    Lint(lint::LintArgs),
    Probe(probe::ProbeArgs),
}

fn main() -> ExitCode {
    let Cargo::Skillgym(app) = Cargo::parse_from(cargo_argv(std::env::args_os()));
    match app.command {
        Command::Init(args) => init::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::MockModel(args) => mock_model::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Record(args) => record::run(&args),
        Command::Review(args) => review::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Probe(args) => probe::run(&args),
    }
}

/// argv as cargo passes it (`cargo-skillgym skillgym init`), whether cargo ran the binary or the
/// user did (`cargo-skillgym init`).
fn cargo_argv(argv: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut argv: Vec<OsString> = argv.into_iter().collect();
    if argv.get(1).is_none_or(|first| first != "skillgym") {
        argv.insert(1.min(argv.len()), OsString::from("skillgym"));
    }
    argv
}

/// Prints `error: {message}` and returns the usage/config exit code, 2.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {}", escape(&message.to_string()));
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cargo::command().debug_assert();
    }

    #[test]
    fn cargo_and_direct_invocations_parse_alike() {
        let direct = cargo_argv(["cargo-skillgym", "doctor"].map(OsString::from));
        let via_cargo = cargo_argv(["cargo-skillgym", "skillgym", "doctor"].map(OsString::from));
        assert_eq!(direct, via_cargo);
        assert_eq!(cargo_argv([OsString::from("x")]).len(), 2);
    }
}
