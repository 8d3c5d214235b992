//! `sandbox: bubblewrap` through the whole harness (Linux, `bwrap` on `PATH`): a shell-script
//! agent cannot write outside its workspace, read the real home or reach a server on the
//! host's loopback, and the attempt's failure and `result.json` say what was denied (the same
//! agents do all three without a sandbox); the scripted model of `--mock` is reached through
//! the forwarder; a timeout and SIGTERM leave nothing of the sandbox running; a missing `bwrap`
//! is a start-up error naming the runner.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use skillgym_e2e::{TempDir, processes_with_environment, temp_dir};

use super::Check;
use crate::{Run, Spec, child_command, read_json, run_child_in};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "sandbox::writes_reads_and_connections_outside_are_denied_and_reported",
        denied,
    ),
    (
        "sandbox::the_scripted_model_is_reached_through_the_forwarder",
        forwarder,
    ),
    ("sandbox::a_timeout_leaves_nothing_running", timeout),
    ("sandbox::sigterm_leaves_nothing_running", sigterm),
    (
        "sandbox::a_missing_bwrap_is_a_start_up_error_naming_the_runner",
        missing_bwrap,
    ),
    (
        "sandbox::the_login_seeded_for_the_agent_is_readable_inside",
        seeded_login,
    ),
];

/// A `command` runner that runs each prompt as a bash script.
const SHELL_RUNNER: &str =
    "runners:\n  sh: { agent: { type: command, command: bash, args: [\"-c\", \"{prompt}\"] } }\n";

/// The config of a run whose runners are all sandboxed with `sandbox`.
fn config(sandbox: &str) -> String {
    format!("run:\n  sandbox: {sandbox}\n{SHELL_RUNNER}")
}

const DENIED: [(&str, &str); 3] = [
    ("writes_outside_the_workspace", "escaped.txt"),
    ("reads_the_home", "secret.txt"),
    ("connects_to_the_hosts_loopback", "Connection refused"),
];

/// What a run of the `denied` cases is given: a home with a secret, a directory outside the
/// workspace, a server on the host's loopback.
struct Scene {
    dir: TempDir,
    server: TcpListener,
}

impl Scene {
    fn new(label: &str) -> Scene {
        let dir = temp_dir(label);
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::write(dir.path().join("home/secret.txt"), "top-secret-home").unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        server.set_nonblocking(true).unwrap();
        Scene { dir, server }
    }

    fn run(&self, config: &str) -> Output {
        let port = self.server.local_addr().unwrap().port().to_string();
        let path = |name: &str| self.dir.path().join(name).display().to_string();
        run_child_in(
            self.dir.path(),
            &["--runner", "sh", "cases::sandbox::denied::"],
            config,
            &[
                ("SKILLGYM_RUN_ID", "run"),
                ("HOME", &path("home")),
                ("SANDBOX_OUTSIDE", &path("outside")),
                ("SANDBOX_PORT", &port),
            ],
        )
    }

    fn attempt(&self, case: &str) -> Value {
        read_json(
            &self
                .dir
                .path()
                .join("out/run")
                .join(format!("cases.sandbox.denied.{case}"))
                .join("sh/repeat-1/attempt-1/result.json"),
        )
    }

    fn connected(&self) -> bool {
        self.server.accept().is_ok()
    }
}

fn denied() {
    // Without a sandbox the same agents do all three: the checks below can fail.
    let open = Scene::new("sandbox-none");
    let output = open.run(&config("none"));
    assert_eq!(output.status.code(), Some(0), "{}", context(&output));
    assert!(open.dir.path().join("outside/escaped.txt").is_file());
    assert!(open.connected(), "the unsandboxed agent reached the server");
    assert!(open.attempt("reads_the_home").get("sandbox").is_none());

    let scene = Scene::new("sandbox-denied");
    let output = scene.run(&config("{ mode: bubblewrap, network: loopback }"));
    assert_eq!(output.status.code(), Some(101), "{}", context(&output));
    assert!(
        !scene.dir.path().join("outside/escaped.txt").exists(),
        "the agent wrote outside its workspace"
    );
    assert!(!scene.connected(), "the agent reached the host's loopback");
    for (case, evidence) in DENIED {
        let attempt = scene.attempt(case);
        let sandbox = &attempt["sandbox"];
        assert_eq!(sandbox["mode"], "bubblewrap", "{attempt:#}");
        assert_eq!(sandbox["network"], "loopback", "{attempt:#}");
        let denials = sandbox["denied"]
            .as_array()
            .unwrap_or_else(|| panic!("{attempt:#}"));
        let expected = match case {
            // The target directory is hidden when the repository is in a home.
            "writes_outside_the_workspace" => &["write", "read"][..],
            "reads_the_home" => &["read"],
            _ => &["network"],
        };
        assert!(
            denials.iter().any(
                |denial| expected.contains(&denial["kind"].as_str().unwrap())
                    && denial["evidence"].as_str().unwrap().contains(evidence)
            ),
            "{case}: {attempt:#}"
        );
        let message = attempt["failure"]["message"].as_str().unwrap();
        assert!(
            message.contains("\n  sandbox (bubblewrap, network loopback) denied:\n    "),
            "{message}"
        );
        let report =
            read_json(&Path::new(attempt["artifact_dir"].as_str().unwrap()).join("report.json"));
        assert_eq!(report["final_output"], "denied", "{case}: {report:#}");
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("sandbox (bubblewrap, network loopback) denied:"),
        "the console shows the denial: {stdout}"
    );
}

fn forwarder() {
    // `network: host` is narrowed to loopback under --mock.
    let run = Run::new(
        "sandbox-mock",
        Spec {
            args: &["--mock", "--runner", "a", "cases::dry_run::case_script"],
            config: "run:\n  sandbox: { mode: bubblewrap, network: host }\n",
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    let attempt = run
        .execution_dir("dry_run::case_script", "a")
        .join("repeat-1/attempt-1");
    let report = read_json(&attempt.join("report.json"));
    assert_eq!(report["final_output"], "scripted hello", "{report:#}");
    let result = read_json(&attempt.join("result.json"));
    let sandbox = &result["sandbox"];
    assert_eq!(sandbox["network"], "loopback", "{result:#}");
    let forwarded = sandbox["forwarded"][0].as_str().unwrap_or_default();
    assert!(forwarded.starts_with("127.0.0.1:"), "{result:#}");
    assert!(sandbox.get("denied").is_none(), "{result:#}");
    let requests = std::fs::read_to_string(attempt.join("mock-requests.jsonl")).unwrap();
    assert_eq!(requests.lines().count(), 1, "{requests}");
}

/// The value of `SANDBOX_TOKEN`, which marks the processes of one kill check: the sleeps'
/// length (about three months: a marker, not a wait).
fn token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "9{:06}",
        (u64::from(std::process::id()) * 7919 + u64::from(nanos)) % 1_000_000
    )
}

/// The `sleep` processes of the agent marked by `token`.
fn sleeps(token: &str) -> Vec<i32> {
    processes_with_environment(&format!("SANDBOX_TOKEN={token}"))
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "sleep")
        })
        .collect()
}

/// 2 s after the harness exited, no process of the agent marked by `token` is alive.
fn nothing_left(token: &str, output: &Output) {
    let marker = format!("SANDBOX_TOKEN={token}");
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive = processes_with_environment(&marker);
        if alive.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            for pid in &alive {
                // SAFETY: kill(2) of a leftover of this check.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            panic!(
                "processes {alive:?} outlived the sandboxed session\n{}",
                context(output)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn timeout() {
    let dir = temp_dir("sandbox-timeout");
    let token = token();
    let watched = token.clone();
    // Sees the sandbox's sleeps while the session runs: they were there to be killed.
    let watcher = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if sleeps(&watched).len() == 2 {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    });
    let output = run_child_in(
        dir.path(),
        &["--runner", "sh", "cases::sandbox::kill::times_out"],
        &config("bubblewrap"),
        &[("SKILLGYM_RUN_ID", "run"), ("SANDBOX_TOKEN", &token)],
    );
    assert!(
        watcher.join().unwrap(),
        "the agent's sleeps never ran\n{}",
        context(&output)
    );
    assert_eq!(output.status.code(), Some(101), "{}", context(&output));
    nothing_left(&token, &output);
    let result = read_json(
        &dir.path()
            .join("out/run/cases.sandbox.kill.times_out/sh/result.json"),
    );
    assert_eq!(result["failure"]["origin"], "timeout", "{result:#}");
}

fn sigterm() {
    let dir = temp_dir("sandbox-sigterm");
    let token = token();
    let mut command = child_command(
        dir.path(),
        Spec {
            args: &[
                "--runner",
                "sh",
                "cases::sandbox::kill::runs_until_signalled",
            ],
            config: &config("bubblewrap"),
            ..Spec::default()
        },
        &[("SKILLGYM_RUN_ID", "run"), ("SANDBOX_TOKEN", &token)],
    );
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = command.spawn().expect("the child harness starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while sleeps(&token).len() < 2 {
        assert!(Instant::now() < deadline, "the agent's sleeps never ran");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill(2) of the child harness this check started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(143), "{}", context(&output));
    nothing_left(&token, &output);
}

fn missing_bwrap() {
    let dir = temp_dir("sandbox-no-bwrap");
    let empty = dir.path().join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let output = run_child_in(
        dir.path(),
        &["--runner", "a", "cases::status::passes"],
        "run:\n  sandbox: bubblewrap\n",
        &[
            ("SKILLGYM_RUN_ID", "run"),
            ("PATH", empty.to_str().unwrap()),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", context(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "error: runner `a`: `sandbox: bubblewrap` needs `bwrap`, which is not on PATH\n  help: install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("out/run").exists(), "nothing ran");
}

/// A `claude-code` runner whose program (a script) reads the login seeded into its private
/// config directory, which links into `$XDG_RUNTIME_DIR` (hidden, but the session's own
/// private directory bound again), and tries the real one in the hidden home.
fn seeded_login() {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = temp_dir("sandbox-login");
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/.credentials.json"), "{}").unwrap();
    let runtime = dir.path().join("runtime");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&runtime)
        .unwrap();
    let script = dir.path().join("claude");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat \"$CLAUDE_CONFIG_DIR/.credentials.json\" >/dev/null && echo 'seeded login: readable' >&2\ncat \"$HOME/.claude/.credentials.json\" >/dev/null 2>&1 || echo 'real login: hidden' >&2\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = format!(
        "run:\n  sandbox: bubblewrap\nrunners:\n  claude: {{ agent: {{ type: claude-code, model: m, command: {} }} }}\n",
        script.display()
    );
    let output = run_child_in(
        dir.path(),
        &["--runner", "claude", "cases::status::passes"],
        &config,
        &[
            ("SKILLGYM_RUN_ID", "run"),
            ("HOME", home.to_str().unwrap()),
            ("XDG_RUNTIME_DIR", runtime.to_str().unwrap()),
        ],
    );
    let attempt = dir
        .path()
        .join("out/run/cases.status.passes/claude/repeat-1/attempt-1");
    let stderr = std::fs::read_to_string(attempt.join("stderr.log")).unwrap_or_default();
    assert!(
        stderr.contains("seeded login: readable\nreal login: hidden"),
        "stderr.log: {stderr:?}\n{}",
        context(&output)
    );
    let result = read_json(&attempt.join("result.json"));
    let hidden = result["sandbox"]["hidden"].as_array().unwrap();
    assert!(
        hidden
            .iter()
            .any(|root| root.as_str() == runtime.canonicalize().unwrap().to_str()),
        "{result:#}"
    );
}

fn context(output: &Output) -> String {
    format!(
        "--- child stdout ---\n{}\n--- child stderr ---\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
