//! The `skillgym` command line: `skillgym doctor [--config FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::config;
use skillgym_harness::doctor;

const USAGE: &str = "usage: skillgym <command> [options]

commands:
  doctor [--config FILE]   check that each configured runner's agent is installed and has credentials

options:
  -h, --help               print this help
  -V, --version            print the version

The config is FILE, else $SKILLGYM_CONFIG, else skillgym.yaml found upward from the current directory.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("skillgym {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("doctor") => doctor_command(&args[1..]),
        Some(other) => usage_error(&format!(
            "unknown command `{other}`; the commands are: doctor"
        )),
    }
}

fn doctor_command(args: &[String]) -> ExitCode {
    let mut explicit: Option<PathBuf> = std::env::var_os("SKILLGYM_CONFIG")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--config" => match rest.next() {
                Some(path) => explicit = Some(PathBuf::from(path)),
                None => return usage_error("`--config` needs a file: `--config skillgym.yaml`"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => match other.strip_prefix("--config=") {
                Some(path) => explicit = Some(PathBuf::from(path)),
                None => return usage_error(&format!("unexpected argument `{other}` for `doctor`")),
            },
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let path = match explicit {
        Some(path) => Some(cwd.join(path)),
        None => match config::discover_checked(&cwd) {
            Ok(found) => found,
            Err(error) => return config_error(&error),
        },
    };
    let loaded = match &path {
        Some(path) => match config::load(path) {
            Ok(config) => config,
            Err(error) => return config_error(&error),
        },
        None => config::Config::default_for(&cwd),
    };
    let checks = doctor::check_config(&loaded);
    let (text, ready) = doctor::render(path.as_deref(), &checks);
    print!("{text}");
    if ready {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn config_error(error: &config::ConfigError) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(2)
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
