//! `cargo skillgym lint [DIR...]`: static checks of skills, no agent started.

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::skill_lint::{self, Options, Severity, render};

/// Check skills without an agent: the agentskills.io frontmatter rules, agents' limits, the
/// body's size, links and files, script permissions, duplicate names.
///
/// Each DIR is a skill directory (holding a SKILL.md) or a directory searched for them. Token
/// counts are estimated as characters / 4. Exits 1 when an error was found, 0 when only
/// warnings (or nothing) were, 2 on a usage error or a DIR without skills.
#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// Skill directories, or directories holding skills [default: .]
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// How to print the findings
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The most estimated tokens (characters / 4) a SKILL.md body may have before a warning
    #[arg(long, value_name = "N", default_value_t = skill_lint::DEFAULT_MAX_BODY_TOKENS)]
    max_body_tokens: usize,
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// `path:line:column: error[rule]: message` and a help line
    Human,
    /// One JSON object: skills, errors, warnings, token_estimate, findings
    Json,
    /// GitHub Actions `::error` / `::warning` annotations
    Github,
}

pub(crate) fn run(args: &LintArgs) -> ExitCode {
    let dirs = if args.dirs.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.dirs.clone()
    };
    let options = Options {
        max_body_tokens: args.max_body_tokens,
    };
    let report = match skill_lint::lint(&dirs, &options) {
        Ok(report) => report,
        Err(error) => return crate::fail(error),
    };
    let text = match args.format {
        Format::Human => render::human(&report),
        Format::Json => render::json(&report),
        Format::Github => render::github(&report),
    };
    print!("{text}");
    if report.count(Severity::Error) > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
