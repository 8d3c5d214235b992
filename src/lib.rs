//! Helpers shared by the end-to-end tests of skillgym (this package is not published).
//!
//! The tests drive the example suite's harness binary (`examples/tests/benchmarks/main.rs`) as
//! a user would, and the scriptable `fake-agent` binary of this package stands in for agents.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod big_runs;
pub mod chromium;

/// The workspace root.
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The examples package directory.
pub fn examples_dir() -> PathBuf {
    workspace_root().join("examples")
}

/// The path of the example suite's harness binary, built once per test process with
/// `cargo test -p skillgym-examples --test benchmarks --no-run`.
pub fn examples_harness() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| examples_test_binary("benchmarks"))
}

/// The path of the examples' `agents` harness binary (six real agents' recordings, replayed),
/// built once per test process.
pub fn examples_agents_harness() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| examples_test_binary("agents"))
}

/// Builds the examples package's test target `target` and returns its executable.
fn examples_test_binary(target: &str) -> PathBuf {
    built_executable(
        &[
            "test",
            "-p",
            "skillgym-examples",
            "--test",
            target,
            "--no-run",
        ],
        target,
    )
}

/// The path of the `cargo-skillgym` binary, built once per test process.
pub fn cargo_skillgym() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        built_executable(
            &["build", "-p", "cargo-skillgym", "--bin", "cargo-skillgym"],
            "cargo-skillgym",
        )
    })
}

/// Runs cargo with `args` (and `--message-format=json`) in the workspace and returns the
/// executable it reports for the target `target`.
fn built_executable(args: &[&str], target: &str) -> PathBuf {
    built_executable_where(args, target, |_| true)
}

/// Runs cargo with `args` (and `--message-format=json`) in the workspace and returns the
/// executable it reports for the target `target` of the package whose manifest is
/// `<workspace>/<package_dir>/Cargo.toml` (for a target name several packages share).
pub fn built_package_executable(args: &[&str], package_dir: &str, target: &str) -> PathBuf {
    let manifest = workspace_root().join(package_dir).join("Cargo.toml");
    built_executable_where(args, target, |message| {
        message["manifest_path"].as_str() == manifest.to_str()
    })
}

fn built_executable_where(
    args: &[&str],
    target: &str,
    wanted: impl Fn(&serde_json::Value) -> bool,
) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .arg("--message-format=json")
        .current_dir(workspace_root())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building {target} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|message| {
            message["reason"] == "compiler-artifact"
                && message["target"]["name"] == target
                && message["executable"].is_string()
                && wanted(message)
        })
        .and_then(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reports the {target} executable"))
}

/// Runs the example harness as `cargo test` would (cwd and `CARGO_MANIFEST_DIR` = the examples
/// package), with `args` and extra environment. `SKILLGYM_*` and `NEXTEST_*` variables of the
/// outer process are removed so the outer test runner cannot leak into the run.
pub fn run_examples(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(examples_harness());
    command
        .args(args)
        .current_dir(examples_dir())
        .env("CARGO_MANIFEST_DIR", examples_dir());
    without_outer_runner_env(&mut command);
    command.envs(env.iter().copied());
    command.output().expect("the example harness runs")
}

/// Runs the example harness with the configuration `config` on its runner `runner` only (the
/// harness adds its own runners in code), artifacts under `output_dir`, then `args`.
pub fn run_examples_on(
    config: &Path,
    runner: &str,
    output_dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut all = vec![
        "--config",
        config.to_str().expect("a UTF-8 path"),
        "--output-dir",
        output_dir.to_str().expect("a UTF-8 path"),
        "--runner",
        runner,
    ];
    all.extend_from_slice(args);
    run_examples(&all, env)
}

/// The trial name, `[runner] case`, of every execution of a `results.json`, in its order.
pub fn execution_names(results: &serde_json::Value) -> Vec<String> {
    results["executions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "[{}] {}",
                e["runner_id"].as_str().unwrap_or_default(),
                e["case_id"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// Removes this process's `SKILLGYM_*` and `NEXTEST*` variables from `command`, so the outer
/// test runner (cargo test, nextest) cannot leak into a harness run under test.
pub fn without_outer_runner_env(command: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("SKILLGYM_") || key.starts_with("NEXTEST") {
            command.env_remove(&*key);
        }
    }
}

pub use tempfile::TempDir;

/// A fresh directory under `target/e2e-tmp` whose name starts with `label`, removed on drop
/// ([`TempDir::keep`] keeps it). It stays under the workspace's `target`, where the example
/// suite's binaries run.
pub fn temp_dir(label: &str) -> TempDir {
    let parent = workspace_root().join("target").join("e2e-tmp");
    std::fs::create_dir_all(&parent).expect("create target/e2e-tmp");
    tempfile::Builder::new()
        .prefix(&format!("{label}-"))
        .tempdir_in(parent)
        .expect("create a temporary directory")
}

/// Stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The `test [runner] case ... ok|FAILED` lines of a pretty libtest report, sorted, with the
/// padding collapsed: `[careful] always_passes ok`.
pub fn trial_lines(output: &Output) -> Vec<String> {
    let mut lines: Vec<String> = stdout(output)
        .lines()
        .filter(|line| line.starts_with("test ") && line.contains(" ... "))
        .map(|line| {
            let words: Vec<&str> = line["test ".len()..]
                .split_whitespace()
                .filter(|word| *word != "...")
                .collect();
            words.join(" ")
        })
        .collect();
    lines.sort();
    lines
}

/// Whether a process with this pid still exists (zombies included).
pub fn process_exists(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// The live processes whose environment holds the entry `entry` (`NAME=value`), read from
/// `/proc` (Linux; empty elsewhere). Zombies are not counted: they have exited.
pub fn processes_with_environment(entry: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|process| process.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|&byte| byte == 0)
                    .any(|item| item == entry.as_bytes())
            })
        })
        .collect()
}

/// Runs the example harness as [`run_examples`] does, but with stdout and stderr on a
/// pseudo-terminal 120 columns wide (stdin is `/dev/null`). Returns the exit status and every
/// byte written to the terminal, read until the harness and its children closed it (the
/// terminal turns each `\n` into `\r\n`).
pub fn run_examples_on_terminal(
    args: &[&str],
    env: &[(&str, &str)],
) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::Stdio;

    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty(3) writes two descriptors into the given integers; no name is asked for
    // and the termios pointer may be null.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both were just opened, and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: an open descriptor; the child must not inherit the master side.
    unsafe {
        libc::fcntl(
            std::os::fd::AsRawFd::as_raw_fd(&master),
            libc::F_SETFD,
            libc::FD_CLOEXEC,
        )
    };
    let mut command = Command::new(examples_harness());
    command
        .args(args)
        .current_dir(examples_dir())
        .env("CARGO_MANIFEST_DIR", examples_dir());
    without_outer_runner_env(&mut command);
    command
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().expect("dup the terminal")))
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().expect("the example harness runs");
    // The slave side must be closed here, or reading the master never ends.
    drop(command);
    let mut master = std::fs::File::from(master);
    let mut transcript = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match master.read(&mut buffer) {
            Ok(0) => break,
            Ok(count) => transcript.extend_from_slice(&buffer[..count]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            // Linux answers EIO once every slave descriptor is closed.
            Err(error) if error.raw_os_error() == Some(libc::EIO) => break,
            Err(error) => panic!("reading the terminal: {error}"),
        }
    }
    let status = child.wait().expect("wait for the example harness");
    (status, String::from_utf8_lossy(&transcript).into_owned())
}

/// `text` without its styling sequences (`\x1b[…m`).
pub fn without_styles(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("\x1b[") {
        plain.push_str(&rest[..start]);
        let sequence = &rest[start + 2..];
        let end = sequence.find(|c: char| c.is_ascii_alphabetic());
        match end {
            Some(end) if sequence.as_bytes()[end] == b'm' => rest = &sequence[end + 1..],
            _ => {
                plain.push_str("\x1b[");
                rest = sequence;
            }
        }
    }
    plain.push_str(rest);
    plain
}

/// The lines a terminal shows once it has displayed `transcript`, trailing spaces trimmed:
/// text overwrites at the cursor; `\r`, `\n`, cursor up (`\x1b[<n>A`) and erase line
/// (`\x1b[2K`) are followed; other escape sequences (styles) are ignored.
pub fn screen_lines(transcript: &str) -> Vec<String> {
    let mut rows: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut column) = (0usize, 0usize);
    let mut chars = transcript.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => column = 0,
            '\n' => {
                row += 1;
                if rows.len() <= row {
                    rows.push(Vec::new());
                }
            }
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                let mut parameter = String::new();
                let mut last = None;
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        last = Some(c);
                        break;
                    }
                    parameter.push(c);
                }
                let count = parameter.parse::<usize>().unwrap_or(1);
                match last {
                    Some('A') => row = row.saturating_sub(count),
                    Some('K') if parameter == "2" => rows[row].clear(),
                    _ => {}
                }
            }
            c => {
                let line = &mut rows[row];
                if line.len() <= column {
                    line.resize(column, ' ');
                    line.push(c);
                } else {
                    line[column] = c;
                }
                column += 1;
            }
        }
    }
    rows.into_iter()
        .map(|row| row.into_iter().collect::<String>().trim_end().to_owned())
        .collect()
}

/// The Rust examples of the README and the book (`docs/src`), compiled and run as doctests
/// (`no_run` ones compiled only); `cargo-skillgym/tests/book.rs` checks every page is here.
#[cfg(doctest)]
pub mod book {
    #[doc = include_str!("../README.md")]
    pub mod readme {}
    #[doc = include_str!("../docs/src/agents.md")]
    pub mod agents {}
    #[doc = include_str!("../docs/src/agents/claude-code.md")]
    pub mod agents_claude_code {}
    #[doc = include_str!("../docs/src/agents/codex.md")]
    pub mod agents_codex {}
    #[doc = include_str!("../docs/src/agents/copilot.md")]
    pub mod agents_copilot {}
    #[doc = include_str!("../docs/src/agents/cursor.md")]
    pub mod agents_cursor {}
    #[doc = include_str!("../docs/src/agents/gemini-cli.md")]
    pub mod agents_gemini_cli {}
    #[doc = include_str!("../docs/src/agents/opencode.md")]
    pub mod agents_opencode {}
    #[doc = include_str!("../docs/src/agents/qwen-code.md")]
    pub mod agents_qwen_code {}
    #[doc = include_str!("../docs/src/architecture.md")]
    pub mod architecture {}
    #[doc = include_str!("../docs/src/assertions.md")]
    pub mod assertions {}
    #[doc = include_str!("../docs/src/cases.md")]
    pub mod cases {}
    #[doc = include_str!("../docs/src/concepts.md")]
    pub mod concepts {}
    #[doc = include_str!("../docs/src/configuration.md")]
    pub mod configuration {}
    #[doc = include_str!("../docs/src/cost.md")]
    pub mod cost {}
    #[doc = include_str!("../docs/src/executions.md")]
    pub mod executions {}
    #[doc = include_str!("../docs/src/experiments.md")]
    pub mod experiments {}
    #[doc = include_str!("../docs/src/explain.md")]
    pub mod explain {}
    #[doc = include_str!("../docs/src/introduction.md")]
    pub mod introduction {}
    #[doc = include_str!("../docs/src/performance.md")]
    pub mod performance {}
    #[doc = include_str!("../docs/src/quick-start.md")]
    pub mod quick_start {}
    #[doc = include_str!("../docs/src/reference/cargo-skillgym.md")]
    pub mod reference_cargo_skillgym {}
    #[doc = include_str!("../docs/src/reference/configuration.md")]
    pub mod reference_configuration {}
    #[doc = include_str!("../docs/src/reference/flags.md")]
    pub mod reference_flags {}
    #[doc = include_str!("../docs/src/replay.md")]
    pub mod replay {}
    #[doc = include_str!("../docs/src/reports.md")]
    pub mod reports {}
    #[doc = include_str!("../docs/src/running.md")]
    pub mod running {}
    #[doc = include_str!("../docs/src/safety.md")]
    pub mod safety {}
    #[doc = include_str!("../docs/src/scripted-model.md")]
    pub mod scripted_model {}
    #[doc = include_str!("../docs/src/skills.md")]
    pub mod skills {}
    #[doc = include_str!("../docs/src/snapshots.md")]
    pub mod snapshots {}
    #[doc = include_str!("../docs/src/suites.md")]
    pub mod suites {}
    #[doc = include_str!("../docs/src/triggers.md")]
    pub mod triggers {}
    #[doc = include_str!("../docs/src/troubleshooting.md")]
    pub mod troubleshooting {}
    #[doc = include_str!("../docs/src/tutorial.md")]
    pub mod tutorial {}
    #[doc = include_str!("../docs/src/workspaces.md")]
    pub mod workspaces {}
}
