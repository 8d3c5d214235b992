//! Helpers shared by the end-to-end tests of skillgym (this package is not published).
//!
//! The tests drive the example suite's harness binary (`examples/tests/benchmarks/main.rs`) as
//! a user would, and the scriptable `fake-agent` binary of this package stands in for agents.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

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
    PATH.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args([
                "test",
                "-p",
                "skillgym-examples",
                "--test",
                "benchmarks",
                "--no-run",
                "--message-format=json",
            ])
            .current_dir(workspace_root())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building the example harness failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find(|message| {
                message["reason"] == "compiler-artifact"
                    && message["target"]["name"] == "benchmarks"
                    && message["executable"].is_string()
            })
            .and_then(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the benchmarks executable")
    })
}

/// The path of the `cargo-skillgym` binary, built once per test process.
pub fn cargo_skillgym() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args([
                "build",
                "-p",
                "cargo-skillgym",
                "--bin",
                "cargo-skillgym",
                "--message-format=json",
            ])
            .current_dir(workspace_root())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building cargo-skillgym failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find(|message| {
                message["reason"] == "compiler-artifact"
                    && message["target"]["name"] == "cargo-skillgym"
                    && message["executable"].is_string()
            })
            .and_then(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the cargo-skillgym executable")
    })
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
