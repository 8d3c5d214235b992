//! `cargo skillgym doctor`: is each configured runner ready to run here?

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::config;
use skillgym_harness::doctor;

/// Check that each configured runner's agent is installed and has credentials.
///
/// The config is `--config`, else `$SKILLGYM_CONFIG`, else `skillgym.yaml` found upward from
/// the current directory. Exits 1 when a runner is not ready, 2 for a bad config.
#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {
    /// The skillgym.yaml to check [env: SKILLGYM_CONFIG]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

pub(crate) fn run(args: &DoctorArgs) -> ExitCode {
    let explicit = args.config.clone().or_else(|| {
        std::env::var_os("SKILLGYM_CONFIG")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    });
    let cwd = std::env::current_dir().unwrap_or_default();
    let path = match explicit {
        Some(path) => Some(cwd.join(path)),
        None => match config::discover_checked(&cwd) {
            Ok(found) => found,
            Err(error) => return crate::fail(error),
        },
    };
    let loaded = match &path {
        Some(path) => match config::load(path) {
            Ok(config) => config,
            Err(error) => return crate::fail(error),
        },
        None => config::Config::default_for(&cwd),
    };
    let checks = doctor::check_config(&loaded);
    let (text, ready) = doctor::render(path.as_deref(), &checks);
    // The agents' `--version` answers are in it.
    print!("{}", crate::escape(&text));
    if ready {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
