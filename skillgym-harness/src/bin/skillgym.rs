//! The `skillgym` command line: `skillgym doctor [--config FILE]`,
//! `skillgym mock-model [--port N] [--script FILE] [--cwd DIR] [--log FILE]`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use skillgym_harness::config::{self, WireApi};
use skillgym_harness::doctor;
use skillgym_harness::mock::{self, MockServer, Script, ServerOptions, SessionSetup};

const USAGE: &str = "usage: skillgym <command> [options]

commands:
  doctor [--config FILE]   check that each configured runner's agent is installed and has credentials
  mock-model [--port N] [--script FILE] [--cwd DIR] [--log FILE]
                           serve the scripted model on 127.0.0.1 (port N, default: a free one)
                           until stopped; FILE is a mock script (default: answer `done`),
                           DIR resolves its relative paths, requests are logged to --log

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
        Some("mock-model") => mock_model_command(&args[1..]),
        Some(other) => usage_error(&format!(
            "unknown command `{other}`; the commands are: doctor, mock-model"
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

/// `skillgym mock-model`: the scripted model server, standalone.
fn mock_model_command(args: &[String]) -> ExitCode {
    let mut port: u16 = 0;
    let mut script_path: Option<PathBuf> = None;
    let mut cwd: Option<PathBuf> = None;
    let mut log: Option<PathBuf> = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        if matches!(flag, "-h" | "--help") {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        if !matches!(flag, "--port" | "--script" | "--cwd" | "--log") {
            return usage_error(&format!("unexpected argument `{arg}` for `mock-model`"));
        }
        let Some(value) = inline.or_else(|| rest.next().cloned()) else {
            return usage_error(&format!("`{flag}` needs a value"));
        };
        match flag {
            "--port" => match value.parse() {
                Ok(number) => port = number,
                Err(_) => {
                    return usage_error(&format!(
                        "`--port` expects a port number (0-65535), found `{value}`"
                    ));
                }
            },
            "--script" => script_path = Some(PathBuf::from(value)),
            "--cwd" => cwd = Some(PathBuf::from(value)),
            _ => log = Some(PathBuf::from(value)),
        }
    }
    let script = match &script_path {
        Some(path) => match Script::load(path) {
            Ok(script) => script,
            Err(error) => return config_error(&error),
        },
        None => Script::answer(mock::script::DEFAULT_ANSWER),
    };
    let mut session = SessionSetup::new(Arc::new(script));
    session.cwd = cwd;
    session.log = log;
    let server = match MockServer::start(ServerOptions {
        port,
        default_session: Some(session),
        echo: true,
    }) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {error}");
            return ExitCode::from(1);
        }
    };
    let url = server.url();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "skillgym mock-model: serving on {url}");
    for api in WireApi::ALL {
        let _ = writeln!(out, "  {:<17} {}", api.as_str(), mock::base_url(&url, api));
    }
    let _ = writeln!(
        out,
        "point a runner at it: agent.provider: {{ base_url: {}, wire_api: openai-chat }}\n\
         each request and its reply are printed to stderr; stop with Ctrl-C",
        mock::base_url(&url, WireApi::OpenaiChat)
    );
    let _ = out.flush();
    drop(out);
    server.wait();
    ExitCode::SUCCESS
}

fn config_error(error: &config::ConfigError) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(2)
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
