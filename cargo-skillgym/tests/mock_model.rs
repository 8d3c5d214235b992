//! `cargo skillgym mock-model` through the binary: it serves a script on an ephemeral loopback port,
//! prints its base URLs, logs requests, and rejects bad invocations with exit code 2.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh directory under cargo's test tmp dir, kept when the test fails before
/// [`tempfile::TempDir::close`] removes it.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("mock-model-{name}-"))
        .disable_cleanup(true)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

#[test]
fn serves_a_script_on_loopback_and_logs_each_request() {
    let tmp = scratch("serve");
    let dir = tmp.path();
    std::fs::write(
        dir.join("script.yaml"),
        "- read: notes.md\n- say: all read\n",
    )
    .unwrap();
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
            .args([
                "mock-model",
                "--script",
                "script.yaml",
                "--cwd",
                "/ws",
                "--log",
            ])
            .arg(dir.join("requests.jsonl"))
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(server.0.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..5 {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    let url = lines[0]
        .strip_prefix("skillgym mock-model: serving on ")
        .unwrap_or_else(|| panic!("{lines:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(lines[1], format!("  anthropic         {url}"));
    assert_eq!(lines[3], format!("  openai-chat       {url}/v1"));

    let body = r#"{"model":"m","stream":false,"messages":[],"tools":[{"name":"Read","input_schema":{"properties":{"file_path":{"type":"string"}}}}]}"#;
    let mut stream = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        stream,
        "POST /v1/messages HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(
        reply.contains(r#""input":{"file_path":"/ws/notes.md"}"#),
        "relative paths resolve against --cwd: {reply}"
    );

    let mut stderr = BufReader::new(server.0.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(
        line.trim_end(),
        r#"mock: POST /v1/messages anthropic turn 0: tool Read {"file_path":"/ws/notes.md"}"#
    );
    let log = std::fs::read_to_string(dir.join("requests.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    drop(server);
    tmp.close().unwrap();
}

#[test]
fn bad_invocations_exit_2_naming_the_problem() {
    let tmp = scratch("usage");
    let dir = tmp.path();
    std::fs::write(dir.join("broken.yaml"), "- run: ls\n- sya: hi\n").unwrap();
    for (args, message) in [
        (
            &["--port", "http"][..],
            "invalid value 'http' for '--port <N>': expects a port number (0-65535), found `http`",
        ),
        (
            &["--port"][..],
            "a value is required for '--port <N>' but none was supplied",
        ),
        (
            &["--scrpit", "x"][..],
            "unexpected argument '--scrpit' found\n\n  tip: a similar argument exists: '--script'",
        ),
        (
            &["--script", "missing.yaml"][..],
            "cannot read the mock script missing.yaml",
        ),
        (
            &["--script", "broken.yaml"][..],
            "broken.yaml:2:3: unknown value `sya`",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
            .args(["skillgym", "mock-model"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    tmp.close().unwrap();
}
