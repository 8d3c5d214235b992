//! `cargo skillgym probe`: what each agent CLI shows its model of the skills, at zero model
//! tokens (`skillgym_harness::probe`).

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::config;
use skillgym_harness::probe::{self, ProbeOptions};

/// Show what each agent sees of the skills: listed or not, the description as shown, the
/// listing's size in tokens, where the CLI reads skills from, the instruction files it sends,
/// its version.
///
/// Each runner's CLI starts once in a fresh workspace with the skills installed, against the
/// scripted model on 127.0.0.1 (no model tokens); the report comes from the requests it sent.
/// Runners: `--runner`, else every runner of the config, else every agent CLI on PATH. Skills:
/// `--skill`, else the config's `run.skills`. Exits 0 when every skill is listed by every
/// runner, 1 when one is not or a CLI failed, 2 for bad usage.
#[derive(Debug, clap::Args)]
pub(crate) struct ProbeArgs {
    /// The skillgym.yaml to read runners and skills from [env: SKILLGYM_CONFIG]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A runner of the config to probe (repeatable)
    #[arg(long = "runner", value_name = "ID")]
    runners: Vec<String>,
    /// A skill directory to install (repeatable)
    #[arg(long = "skill", value_name = "DIR")]
    skills: Vec<PathBuf>,
    /// The output
    #[arg(long, value_enum, default_value_t = Format::Console)]
    format: Format,
    /// Keep the workspaces and request logs in DIR, a new or empty directory (removed otherwise)
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Plant a marked AGENTS.md, CLAUDE.md, GEMINI.md, QWEN.md and
    /// .github/copilot-instructions.md in each workspace, to see which of them each CLI sends
    #[arg(long)]
    instructions: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    Console,
    Json,
    Html,
}

pub(crate) fn run(args: &ProbeArgs) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_default();
    let config = match load_config(args.config.clone(), &cwd) {
        Ok(config) => config,
        Err(message) => return crate::fail(message),
    };
    let scratch = match &args.keep {
        Some(_) => None,
        None => match tempfile::Builder::new().prefix("skillgym-probe-").tempdir() {
            Ok(dir) => Some(dir),
            Err(error) => {
                return crate::fail(format!("cannot make a temporary directory: {error}"));
            }
        },
    };
    let dir = match (&args.keep, &scratch) {
        (Some(dir), _) => {
            let dir = cwd.join(dir);
            let empty =
                std::fs::read_dir(&dir).map_or(true, |mut entries| entries.next().is_none());
            if !empty {
                return crate::fail(format!(
                    "--keep {}: the directory is not empty; give a new or empty one",
                    dir.display()
                ));
            }
            dir
        }
        (None, Some(scratch)) => scratch.path().to_path_buf(),
        (None, None) => unreachable!("a scratch directory is made when --keep is not given"),
    };
    let mut options = ProbeOptions::new(config, dir);
    options.runners.clone_from(&args.runners);
    options.instructions = args.instructions;
    options.skills = args.skills.iter().map(|dir| cwd.join(dir)).collect();
    let report = match probe::probe(&options) {
        Ok(report) => report,
        Err(error) => return crate::fail(error),
    };
    let text = match args.format {
        Format::Console => crate::escape(&probe::console(&report)),
        Format::Json => probe::json(&report),
        Format::Html => probe::html(&report),
    };
    print!("{text}");
    let complete = report
        .runners
        .iter()
        .all(|runner| runner.failure.is_none() && runner.skills.iter().all(|skill| skill.listed));
    if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `--config`, else `$SKILLGYM_CONFIG`, else `skillgym.yaml` found upward; none: defaults.
fn load_config(explicit: Option<PathBuf>, cwd: &std::path::Path) -> Result<config::Config, String> {
    let explicit = explicit.or_else(|| {
        std::env::var_os("SKILLGYM_CONFIG")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    });
    let path = match explicit {
        Some(path) => Some(cwd.join(path)),
        None => config::discover_checked(cwd).map_err(|error| error.to_string())?,
    };
    match path {
        Some(path) => config::load(&path).map_err(|error| error.to_string()),
        None => Ok(config::Config::default_for(cwd)),
    }
}
