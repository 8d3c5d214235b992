//! Entry points for the cargo-fuzz targets in `fuzz/`: each runs one real code path on
//! arbitrary input and checks a few invariants (by panicking). Not a stable API.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::agent::{self, AgentOptions};
use crate::cli::SkillgymArgs;
use crate::config::{AgentKind, Config};
use crate::mock::{MockServer, Script, ServerOptions, SessionSetup, http};
use crate::normalize::normalize_stream;

/// Loads `text` as `skillgym.yaml` (and as a mock script), then resolves the settings of a
/// run and builds every runner's agent, as a run does. For fuzz targets; not a stable API.
pub fn config_from_str(text: &str) {
    let path = Path::new("/fuzz/skillgym.yaml");
    match Config::parse(path, text) {
        Ok(config) => {
            let agents: Vec<_> = config
                .runners
                .iter()
                .map(|(_, runner)| runner.agent.clone())
                .collect();
            let _ = crate::harness::settings::resolve(
                config,
                &SkillgymArgs::default(),
                Path::new("out"),
            );
            for agent in agents {
                let _ = agent::build(agent.kind, AgentOptions::from_config(&agent));
            }
        }
        Err(error) => assert!(!error.to_string().is_empty(), "an empty config error"),
    }
    if let Err(error) = Script::parse(Path::new("/fuzz/script.yaml"), text) {
        assert!(!error.to_string().is_empty(), "an empty script error");
    }
}

/// Feeds `bytes` to a fresh stream parser of agent `kind`, as the harness feeds an agent's
/// stdout, and checks that the report survives a JSON round trip. For fuzz targets; not a
/// stable API.
pub fn parse_stream(kind: AgentKind, bytes: &[u8]) {
    let options = AgentOptions::default().command("fuzz-agent");
    let agent = agent::build(kind, options).expect("every agent builds with a command");
    let mut parser = agent.parser();
    let normalized = normalize_stream(&mut *parser, bytes, Path::new("/fuzz/work"), "prompt")
        .expect("reading a byte slice cannot fail");
    let json = serde_json::to_string(&normalized.report).expect("the report serializes");
    if let Err(error) = serde_json::from_str::<skillgym::SessionReport>(&json) {
        panic!("the report does not read back: {error}\n{json}");
    }
}

/// Sends `bytes` as-is over one connection to a scripted model server (started once per
/// process, playing a script with every kind of step) and reads what it answers until it
/// closes the connection. For fuzz targets; not a stable API.
pub fn mock_request(bytes: &[u8]) {
    static SERVER: OnceLock<(MockServer, SocketAddr)> = OnceLock::new();
    let (_, addr) = SERVER.get_or_init(|| {
        let script = Script::parse(Path::new("/fuzz/script.yaml"), FUZZ_SCRIPT)
            .expect("the fuzz script parses");
        let mut setup = SessionSetup::new(Arc::new(script));
        setup.cwd = Some("/fuzz/work".into());
        setup.model = Some("fuzz-model".to_owned());
        let server = MockServer::start(ServerOptions {
            default_session: Some(setup),
            ..ServerOptions::default()
        })
        .expect("the scripted server starts");
        let addr = server.addr();
        (server, addr)
    });
    let mut stream = TcpStream::connect(addr).expect("the scripted server accepts");
    let limit = Some(Duration::from_secs(20));
    stream.set_read_timeout(limit).expect("a read timeout");
    stream.set_write_timeout(limit).expect("a write timeout");
    // The server may close early (a bad request); what it answered is still read.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(Shutdown::Write);
    let mut answer = Vec::new();
    if let Err(error) = stream.read_to_end(&mut answer)
        && matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )
    {
        panic!("the scripted server did not answer within 20 s");
    }
    assert!(
        answer.is_empty() || answer.starts_with(b"HTTP/1.1 "),
        "an answer that is not HTTP/1.1"
    );
}

/// Reads `bytes` as the body of a chunked request, and what follows it as further requests of
/// the same connection, with the scripted server's HTTP reader, in memory. Checks that a body
/// is never longer than the input nor holds more than twice its length in capacity, and that a
/// refused request has an error status and a message. For fuzz targets; not a stable API.
pub fn mock_chunked(bytes: &[u8]) {
    const HEAD: &[u8] = b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
    }
    let input = [HEAD, bytes].concat();
    RUNTIME.with(|runtime| {
        runtime.block_on(async {
            let mut reader = tokio::io::BufReader::new(input.as_slice());
            let mut written = Vec::new();
            while let Ok(Some(request)) = http::read_request(&mut reader, &mut written).await {
                match request {
                    Ok(request) => {
                        let body = &request.body;
                        assert!(body.len() <= bytes.len(), "a body longer than the input");
                        assert!(
                            body.capacity() <= 2 * body.len(),
                            "{} bytes of capacity for a body of {}",
                            body.capacity(),
                            body.len()
                        );
                    }
                    Err(bad) => {
                        assert!((400..600).contains(&bad.status), "status {}", bad.status);
                        assert!(!bad.message.is_empty(), "an empty error message");
                        break;
                    }
                }
            }
            assert!(
                written
                    .chunks(25)
                    .all(|chunk| chunk == b"HTTP/1.1 100 Continue\r\n\r\n"),
                "only 100 Continue is written while requests are read"
            );
        });
    });
}

/// The script of [`mock_request`]'s server: every tool step, then the final answer. No `fail`
/// step: one that always fails would hide the final answer, one that fails once would make
/// answers depend on earlier inputs (error bodies are still written for bad requests).
const FUZZ_SCRIPT: &str = "\
- say: Checking first.
- run: ls -la
- read: skills/demo/SKILL.md
- skill: demo
- write: { path: notes.md, content: hi }
- say: done
";

// The files and texts skillgym reads back or writes out, one module each (in `fuzzing/`).
mod agent_files;
mod cli_args;
mod grader_output;
mod recording;
mod report_escaping;
mod reporters;
mod result_files;
mod sanitize_ids;
mod scratch;
mod skill_manifest;
mod suite_files;

pub use agent_files::agent_files;
pub use cli_args::cli_args;
pub use grader_output::grader_output;
pub use recording::recording;
pub use report_escaping::report_escaping;
pub use result_files::result_files;
pub use sanitize_ids::sanitize_ids;
pub use skill_manifest::skill_manifest;
pub use suite_files::suite_files;
