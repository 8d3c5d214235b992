//! A run whose disk fills up loses no verdict: the run directory is a tmpfs of [`DISK`] bytes,
//! mounted in a private mount namespace (`unshare --mount`, as root; else in a user namespace
//! of its own, `unshare --user --map-root-user --mount`), so the test needs no disk of its own
//! and leaves nothing mounted.
//!
//! This target is its own harness (`harness = false`). Run as a child (`DISK_FULL_CHILD=1`) it
//! is a skillgym benchmark binary with four cases on one fake-agent runner, run one after the
//! other: `a_passes` and `b_fails` write their artifacts, then `c_floods` prints more than the
//! disk holds, so its `stdout.log` write fails mid-session and nothing after it (its other
//! artifacts, `d_comes_after`'s `prompt.md`, `results.json`, the reporters' files) can be
//! written. With `DISK_FULL_FILLER=1`
//! the child has a reporter of its own, run first, that fills the disk: another process
//! filling it at the end of a run whose verdicts all passed. Run by cargo it is the driver: one
//! trial per output format, and one for that run.

use std::path::Path;
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};
use skillgym::prelude::*;
use skillgym_e2e::{stderr, stdout, temp_dir, trial_lines};
use skillgym_harness::{CommandAgent, Harness};

const CHILD: &str = "DISK_FULL_CHILD";

/// Set: the child fills the disk once its results are written.
const FILLER: &str = "DISK_FULL_FILLER";

/// The size of the tmpfs the run directory is on.
const DISK: &str = "1m";

#[skillgym::case(prompt = "echo-prompt")]
fn a_passes(_report: &SessionReport) {}

#[skillgym::case(prompt = "echo-prompt")]
fn b_fails(_report: &SessionReport) {
    panic!("b_fails fails on purpose");
}

// A line of 2 MiB, twice the disk, then the answer. The answer comes after the flood: the check passes only if the agent's output still
// reached the parser once the log could no longer be written.
#[skillgym::case(prompt = r#"
big-line 2097152
emit {"type":"message","role":"assistant","phase":"final","text":"after the flood"}
"#)]
fn c_floods(report: &SessionReport) {
    report.expect().output().equals("after the flood");
}

// Its agent cannot start: the disk is full before its prompt is written.
#[skillgym::case(prompt = "echo-prompt")]
fn d_comes_after(_report: &SessionReport) {}

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        let fake =
            CommandAgent::new(env!("CARGO_BIN_EXE_fake-agent")).env("FAKE_AGENT_SCRIPT", "-");
        let harness = Harness::new().runner("fake", fake);
        return match std::env::var_os(FILLER) {
            Some(_) => harness.reporter(Filler).run(),
            None => harness.run(),
        };
    }
    let trials = vec![
        Trial::test("verdicts_table_and_exit_code_survive_a_full_disk", pretty),
        Trial::test("the_junit_document_survives_a_full_disk", junit),
        Trial::test("a_passing_run_that_lost_its_reports_fails", lost_reports),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// The pretty format: every verdict, the failure sections, the table and the counts reach
/// stdout; what could not be written is named on stderr, once each; the exit code is the
/// verdicts'; no temporary file is left.
fn pretty() -> Result<(), Failed> {
    let run = FullDisk::run(&["--reporter", "junit,html,json-summary"])?;
    let (out, err) = (stdout(&run.output), stderr(&run.output));
    let context = run.context();
    let trials = trial_lines(&run.output);
    let expected = [
        "[fake] a_passes ok",
        "[fake] b_fails FAILED",
        "[fake] c_floods FAILED",
        "[fake] d_comes_after FAILED",
    ];
    check(
        trials == expected,
        &format!("libtest lines {trials:?}"),
        &context,
    )?;
    check(
        run.output.status.code() == Some(101),
        "exit code 101 (three executions failed)",
        &context,
    )?;
    for line in [
        "origin: assertion",
        "origin: artifacts · class: disk-full",
        "skillgym: 4 executions: 1 passed, 3 failed",
    ] {
        check(
            out.contains(line),
            &format!("stdout holds `{line}`"),
            &context,
        )?;
    }
    let flooded = section(&out, "[fake] c_floods");
    for part in ["stdout.log", "No space left on device"] {
        check(
            flooded.contains(part),
            &format!("the failure of c_floods names `{part}`"),
            &context,
        )?;
    }
    check(
        !flooded.contains("also:"),
        "the check of c_floods passed: the agent's output reached it after the log failed",
        &context,
    )?;
    let after = section(&out, "[fake] d_comes_after");
    for part in [
        "the disk is full: cannot write ",
        "prompt.md: No space left on device",
        "also: the agent was not started",
    ] {
        check(
            after.contains(part),
            &format!("the failure of d_comes_after holds `{part}`"),
            &context,
        )?;
    }
    let table: Vec<Vec<&str>> = out
        .lines()
        .filter_map(|line| line.strip_prefix("skillgym: "))
        .map(|line| line.split_whitespace().collect())
        .collect();
    check(
        table.iter().any(|cells| {
            cells.starts_with(&["runner", "agent", "version", "model", "passed", "failed"])
        }) && table
            .iter()
            .any(|cells| cells.starts_with(&["fake", "command", "-", "-", "1", "3"])),
        "the console table, its row: 1 passed, 3 failed",
        &context,
    )?;
    let results = run.dir.join("results.json");
    check(
        err.contains(&format!("cannot write {}", results.display())),
        "stderr names results.json",
        &context,
    )?;
    for reporter in ["junit", "html", "json-summary"] {
        check(
            err.contains(&format!("the {reporter} reporter")),
            &format!("stderr says the {reporter} reporter could not write"),
            &context,
        )?;
    }
    // Five files named as they fail, then one line for the rest; results.json is always named.
    let named = err
        .lines()
        .filter(|line| line.starts_with("skillgym: cannot write "))
        .count();
    check(
        named == 6 && err.contains("skillgym: more files cannot be written"),
        "no flood on stderr: 5 files and results.json named, then one line for the rest",
        &context,
    )?;
    check(
        err.contains("could not be written (the disk is full); 3 of the files are not named above"),
        "the closing line counts the files not named",
        &context,
    )?;
    run.nothing_temporary_left()?;
    let passed = run.attempt_result("a_passes")?;
    check(
        passed["status"] == "passed",
        "the artifacts written before the disk filled are kept",
        &context,
    )
}

/// `--format junit`: stdout is the JUnit document, whole, with every execution.
fn junit() -> Result<(), Failed> {
    let run = FullDisk::run(&["--format", "junit"])?;
    let out = stdout(&run.output);
    let context = run.context();
    check(
        out.starts_with("<?xml") && out.trim_end().ends_with("</testsuites>"),
        "stdout is the JUnit document",
        &context,
    )?;
    check(
        out.matches("<testcase ").count() == 4 && out.matches("<failure ").count() == 3,
        "4 test cases, 3 failures",
        &context,
    )?;
    check(
        out.contains("artifacts") && out.contains("No space left on device"),
        "the failure says the disk is full",
        &context,
    )?;
    check(
        run.output.status.code() == Some(101),
        "exit code 101",
        &context,
    )?;
    run.nothing_temporary_left()
}

/// Every verdict passes, then the disk fills: the reports that cannot be written are named and
/// the run fails (101), saying why; the report written before is kept.
fn lost_reports() -> Result<(), Failed> {
    let run = FullDisk::run_with(&["--reporter", "junit,html", "a_passes"], &[(FILLER, "1")])?;
    let (out, err) = (stdout(&run.output), stderr(&run.output));
    let context = run.context();
    check(
        trial_lines(&run.output) == ["[fake] a_passes ok"]
            && out.contains("test result: ok. 1 passed"),
        "one trial, passed",
        &context,
    )?;
    for part in [
        "the junit reporter cannot write into",
        "the html reporter cannot write into",
        "report(s) could not be written (the disk is full); every verdict passed, but what the run was to keep is lost: it fails",
    ] {
        check(
            err.contains(part),
            &format!("stderr holds `{part}`"),
            &context,
        )?;
    }
    check(
        run.output.status.code() == Some(101),
        "exit code 101",
        &context,
    )?;
    check(
        run.copy.join("results.json").is_file(),
        "results.json, written before the disk filled",
        &context,
    )?;
    run.nothing_temporary_left()
}

/// A reporter that fills the disk and fails as the built-in ones then will.
struct Filler;

impl skillgym_harness::report::Reporter for Filler {
    fn name(&self) -> &str {
        "filler"
    }

    fn write(
        &self,
        _report: &skillgym_harness::report::RunReport,
        dir: &Path,
    ) -> std::io::Result<Vec<std::path::PathBuf>> {
        use std::io::Write;
        let mut file = std::fs::File::create(dir.join("filler"))?;
        let block = [0u8; 64 * 1024];
        loop {
            file.write_all(&block)?;
        }
    }
}

/// One run of the child with its output directory on a full tmpfs.
struct FullDisk {
    output: Output,
    /// The run directory, as the child saw it (on the tmpfs).
    dir: std::path::PathBuf,
    /// A copy of the tmpfs, made before its namespace went away.
    copy: std::path::PathBuf,
    _scratch: skillgym_e2e::TempDir,
}

impl FullDisk {
    fn run(args: &[&str]) -> Result<FullDisk, Failed> {
        FullDisk::run_with(args, &[])
    }

    /// [`FullDisk::run`] with more environment for the child.
    fn run_with(args: &[&str], env: &[(&str, &str)]) -> Result<FullDisk, Failed> {
        let scratch = temp_dir("disk-full");
        let (mount_point, copy) = (scratch.path().join("out"), scratch.path().join("copy"));
        std::fs::create_dir_all(&mount_point).unwrap();
        std::fs::create_dir_all(&copy).unwrap();
        // Mounts the tmpfs, runs the child, copies what it wrote out of the namespace.
        let script = r#"
mount -t tmpfs -o size="$DISK_FULL_SIZE" skillgym-disk-full "$DISK_FULL_MOUNT" || exit 97
"$@"
code=$?
cp -a "$DISK_FULL_MOUNT/." "$DISK_FULL_COPY/"
exit $code
"#;
        let mut command = Command::new("unshare");
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            command.args(["--user", "--map-root-user"]);
        }
        command
            .args([
                "--mount",
                "--propagation",
                "private",
                "--",
                "sh",
                "-c",
                script,
                "sh",
            ])
            .arg(std::env::current_exe().unwrap())
            .args(["--output-dir".as_ref(), mount_point.as_os_str()])
            .args(["--test-threads", "1"])
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        skillgym_e2e::without_outer_runner_env(&mut command);
        command
            .env(CHILD, "1")
            .env("SKILLGYM_RUN_ID", "full")
            .env("DISK_FULL_SIZE", DISK)
            .env("DISK_FULL_MOUNT", &mount_point)
            .env("DISK_FULL_COPY", &copy)
            .envs(env.iter().copied());
        let output = command.output().map_err(|error| {
            format!("cannot run `unshare` (util-linux), which mounts the test's tmpfs: {error}")
        })?;
        if output.status.code() == Some(97) || stderr(&output).starts_with("unshare:") {
            let why = if std::env::var_os("CI").is_some() {
                "under CI this test must run: run it as root (CI runs as root)"
            } else {
                "run it as root, or enable unprivileged user namespaces"
            };
            return Err(format!(
                "cannot mount a tmpfs in a private mount namespace ({why}):\n{}",
                stderr(&output)
            )
            .into());
        }
        Ok(FullDisk {
            output,
            dir: mount_point.join("full"),
            copy: copy.join("full"),
            _scratch: scratch,
        })
    }

    /// The exit code, stdout and stderr, for a failure message.
    fn context(&self) -> String {
        format!(
            "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.output.status.code(),
            stdout(&self.output),
            stderr(&self.output)
        )
    }

    /// No `*.tmp-*` file is left anywhere in the run directory.
    fn nothing_temporary_left(&self) -> Result<(), Failed> {
        let mut left = Vec::new();
        walk(&self.copy, &mut |path| {
            if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".tmp-"))
            {
                left.push(path.to_path_buf());
            }
        });
        check(
            self.copy.is_dir() && left.is_empty(),
            &format!("no temporary file is left: {left:?}"),
            &self.context(),
        )
    }

    /// The `result.json` of the first attempt of `case`.
    fn attempt_result(&self, case: &str) -> Result<serde_json::Value, Failed> {
        let path = self
            .copy
            .join(case)
            .join("fake/repeat-1/attempt-1/result.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}\n{}", path.display(), self.context()))?;
        Ok(serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?)
    }
}

/// Calls `each` on every file under `dir`.
fn walk(dir: &Path, each: &mut dyn FnMut(&Path)) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => walk(&path, each),
            _ => each(&path),
        }
    }
}

/// The failure section libtest prints for `trial` (from its `---- trial stdout ----` header to
/// the next header).
fn section<'a>(out: &'a str, trial: &str) -> &'a str {
    let header = format!("---- {trial} ");
    let Some(start) = out.find(&header) else {
        return "";
    };
    let rest = &out[start + header.len()..];
    let end = rest
        .find("\n---- ")
        .or_else(|| rest.find("\nfailures:"))
        .unwrap_or(rest.len());
    &rest[..end]
}

fn check(holds: bool, what: &str, context: &str) -> Result<(), Failed> {
    match holds {
        true => Ok(()),
        false => Err(format!("expected {what}\n{context}").into()),
    }
}
