//! IDE run buttons: rust-analyzer (the `rust-analyzer` rustup component) shows a Run runnable on
//! every `#[skillgym::case]` function, and what it runs selects exactly that case, on every
//! runner. The test speaks the language server protocol to a real rust-analyzer over stdio,
//! asks for the runnables of the example suite's files, and runs the cargo command it offers.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillgym_e2e::{examples_dir, stdout, temp_dir, trial_lines, workspace_root};

/// A rust-analyzer language server on stdio.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
}

impl Server {
    fn start(root: &Path, log: &Path) -> Server {
        let mut child = Command::new("rust-analyzer")
            .arg("--log-file")
            .arg(log)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "rust-analyzer runs (install it with `rustup component add rust-analyzer`; .ci/run does)",
            );
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message; server requests are answered with null.
    fn receive(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "rust-analyzer exited"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        if message.get("method").is_some() && message.get("id").is_some() {
            self.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
        }
        message
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive();
            if message["id"] == id && message.get("method").is_none() {
                return message["result"].clone();
            }
        }
    }

    /// Waits until the server says it is quiescent (the workspace loaded, macros expanded).
    fn wait_until_ready(&mut self, limit: Duration) {
        let started = Instant::now();
        while started.elapsed() < limit {
            let message = self.receive();
            if message["method"] == "experimental/serverStatus"
                && message["params"]["quiescent"] == true
            {
                return;
            }
        }
        panic!("rust-analyzer did not load the workspace in {limit:?}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The runnables rust-analyzer offers for `file`, as (label, cargo args, executable args).
fn runnables(server: &mut Server, file: &Path) -> Vec<(String, Vec<String>, Vec<String>)> {
    let uri = format!("file://{}", file.display());
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1,
               "text": std::fs::read_to_string(file).unwrap()}}),
    );
    let strings = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    server
        .request(
            "experimental/runnables",
            json!({"textDocument": {"uri": uri}}),
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|runnable| {
            (
                runnable["label"].as_str().unwrap_or_default().to_owned(),
                strings(&runnable["args"]["cargoArgs"]),
                strings(&runnable["args"]["executableArgs"]),
            )
        })
        .collect()
}

#[test]
fn rust_analyzer_offers_a_run_button_on_every_case_and_it_runs_that_case() {
    let root = workspace_root();
    let scratch = temp_dir("ide");
    let mut server = Server::start(root, &scratch.path().join("rust-analyzer.log"));
    server.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": format!("file://{}", root.display()),
            "capabilities": {"experimental": {"serverStatusNotification": true}},
            "initializationOptions": {"checkOnSave": false, "procMacro": {"enable": true}},
        }),
    );
    server.notify("initialized", json!({}));
    server.wait_until_ready(Duration::from_secs(600));

    let main = examples_dir().join("tests/benchmarks/main.rs");
    let skills = examples_dir().join("tests/benchmarks/skills.rs");
    let mut tests: Vec<(String, Vec<String>, Vec<String>)> = runnables(&mut server, &main)
        .into_iter()
        .chain(runnables(&mut server, &skills))
        .filter(|(label, _, _)| label.starts_with("test "))
        .collect();
    tests.sort();
    let labels: Vec<&str> = tests.iter().map(|(label, _, _)| label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "test always_passes",
            "test known_gap_explicit_skill_load",
            "test skills::find_skills_expo",
            "test skills::suggests_install_command",
            "test summarizes_from_prompt_file",
        ],
        "every case function has a Run runnable"
    );
    let (_, cargo_args, executable_args) = tests
        .iter()
        .find(|(label, _, _)| label == "test skills::suggests_install_command")
        .unwrap();
    assert_eq!(
        cargo_args,
        &[
            "test",
            "--package",
            "skillgym-examples",
            "--test",
            "benchmarks"
        ]
    );
    assert_eq!(
        &executable_args[..2],
        ["skills::suggests_install_command", "--exact"]
    );
    drop(server);

    // What the button runs: that case on every runner, nothing else.
    let out = temp_dir("ide-run");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(cargo_args)
        .arg("--")
        .args(executable_args)
        .args(["--output-dir", out.path().to_str().unwrap()])
        .current_dir(root)
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST_EXECUTION_MODE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        trial_lines(&output),
        [
            "[careful] skills::suggests_install_command ok",
            "[hasty] skills::suggests_install_command ok",
        ]
    );
}
