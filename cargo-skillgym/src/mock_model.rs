//! `cargo skillgym mock-model`: the scripted model server, standalone.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use skillgym_harness::config::WireApi;
use skillgym_harness::mock::{self, MockServer, Script, ServerOptions, SessionSetup};

/// Serve the scripted model on 127.0.0.1 until stopped; each request and its reply are printed
/// to stderr.
#[derive(Debug, clap::Args)]
pub(crate) struct MockModelArgs {
    /// The port to listen on (0: a free one)
    #[arg(long, value_name = "N", default_value = "0", value_parser = port)]
    port: u16,
    /// The mock script to play (default: answer `done`)
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// The directory the script's relative paths resolve against
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Also log each request to this file
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

fn port(value: &str) -> Result<u16, String> {
    value
        .parse()
        .map_err(|_| format!("expects a port number (0-65535), found `{value}`"))
}

pub(crate) fn run(args: &MockModelArgs) -> ExitCode {
    let script = match &args.script {
        Some(path) => match Script::load(path) {
            Ok(script) => script,
            Err(error) => return crate::fail(error),
        },
        None => Script::answer(mock::script::DEFAULT_ANSWER),
    };
    let mut session = SessionSetup::new(Arc::new(script));
    session.cwd = args.cwd.clone();
    session.log = args.log.clone();
    let server = match MockServer::start(ServerOptions {
        port: args.port,
        default_session: Some(session),
        echo: true,
        ..ServerOptions::default()
    }) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {error}", args.port);
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
