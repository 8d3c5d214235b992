//! Agent process supervision end to end: `skillgym_harness::process` driving the scriptable
//! fake agent (`src/bin/fake-agent.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use skillgym_harness::process::{self, LineVerdict, ProcessOutcome, ProcessSpec, Termination};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");
const PROMPT: &str = "say \"hi\" to ünïcode";
const LONG: Duration = Duration::from_secs(60);

/// A fresh directory for one test, under cargo's test tmp dir, removed on drop.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("process-{name}-"))
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("scratch dir");
        Self(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    fn pidfile(&self) -> PathBuf {
        self.path().join("pids")
    }

    /// The fake agent running `script`, prompt as last argument.
    fn spec(&self, script: &str, timeout: Duration) -> ProcessSpec {
        ProcessSpec {
            program: FAKE_AGENT.into(),
            args: vec!["--print".into(), PROMPT.into()],
            env: vec![
                ("FAKE_AGENT_SCRIPT".into(), script.into()),
                ("FAKE_AGENT_PIDFILE".into(), self.pidfile().into()),
            ],
            env_remove: Vec::new(),
            cwd: self.path().to_path_buf(),
            stdout_log: self.path().join("session/stdout.log"),
            stderr_log: self.path().join("session/stderr.log"),
            timeout,
            max_output: None,
        }
    }

    fn pids(&self) -> Vec<libc::pid_t> {
        fs::read_to_string(self.pidfile())
            .expect("pidfile")
            .lines()
            .map(|line| line.parse().expect("pid"))
            .collect()
    }
}

async fn run(spec: &ProcessSpec) -> (ProcessOutcome, Vec<String>) {
    let mut lines = Vec::new();
    let mut sink = |line: &str| {
        lines.push(line.to_owned());
        LineVerdict::Continue
    };
    let outcome = process::run(spec, &mut sink).await.expect("run");
    (outcome, lines)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Liveness {
    Running,
    /// Dead, waiting for its parent (init, for orphans) to reap it.
    Zombie,
    Gone,
}

fn liveness(pid: libc::pid_t) -> Liveness {
    // SAFETY: signal 0 only checks whether the process exists.
    if unsafe { libc::kill(pid, 0) } == -1 {
        let err = std::io::Error::last_os_error();
        assert_eq!(
            err.raw_os_error(),
            Some(libc::ESRCH),
            "kill({pid}, 0): {err}"
        );
        return Liveness::Gone;
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    match stat.rsplit_once(')').map(|(_, rest)| rest.trim_start()) {
        None => Liveness::Gone,
        Some(rest) if rest.starts_with('Z') || rest.starts_with('X') => Liveness::Zombie,
        Some(_) => Liveness::Running,
    }
}

/// Polls until `done(liveness(pid))` or `limit` elapses; returns the last state seen.
async fn wait_for(pid: libc::pid_t, limit: Duration, done: fn(Liveness) -> bool) -> Liveness {
    let start = Instant::now();
    loop {
        let state = liveness(pid);
        if done(state) || start.elapsed() >= limit {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Asserts `pid` was killed at once and is reaped soon after. Orphaned grandchildren are reaped
/// by init asynchronously (on this project's CI VM, about every 2 s), hence the longer bound.
async fn assert_killed_and_reaped(pid: libc::pid_t) {
    let state = wait_for(pid, Duration::from_secs(1), |s| s != Liveness::Running).await;
    assert_ne!(state, Liveness::Running, "pid {pid} still running");
    let state = wait_for(pid, Duration::from_secs(5), |s| s == Liveness::Gone).await;
    assert_eq!(state, Liveness::Gone, "pid {pid} never reaped");
}

#[tokio::test]
async fn hanging_agent_with_forked_grandchildren_is_killed_with_all_its_descendants() {
    let scratch = Scratch::new("fork-hang");
    let test_start = Instant::now();
    let spec = scratch.spec(
        "fork 3\nemit {\"type\":\"started\"}\nhang",
        Duration::from_secs(1),
    );
    let (outcome, lines) = run(&spec).await;

    assert_eq!(outcome.termination, Termination::TimedOut);
    assert_eq!(
        (outcome.exit_code, outcome.signal),
        (None, Some(libc::SIGKILL))
    );
    assert_eq!(lines, [r#"{"type":"started"}"#]);
    assert!(outcome.duration >= Duration::from_secs(1));
    assert!(
        outcome.duration < Duration::from_secs(4),
        "{:?}",
        outcome.duration
    );

    let leader = libc::pid_t::try_from(outcome.pid).expect("pid");
    let grandchildren = scratch.pids();
    assert_eq!(grandchildren.len(), 3, "{grandchildren:?}");
    assert_eq!(
        liveness(leader),
        Liveness::Gone,
        "the leader is reaped by run"
    );
    for pid in grandchildren {
        assert_killed_and_reaped(pid).await;
    }
    // The grandchildren would hang forever: done in seconds means they were killed.
    assert!(test_start.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn leader_exiting_while_a_grandchild_hangs_returns_promptly_and_kills_it() {
    let scratch = Scratch::new("fork-exit");
    let spec = scratch.spec("fork 1\necho-prompt\nexit 0", LONG);
    let (outcome, lines) = run(&spec).await;

    assert_eq!(outcome.termination, Termination::Exited);
    assert_eq!((outcome.exit_code, outcome.signal), (Some(0), None));
    assert!(
        outcome.duration < Duration::from_secs(5),
        "{:?}",
        outcome.duration
    );
    let message: serde_json::Value = serde_json::from_str(&lines[0]).expect("json line");
    assert_eq!(message["text"], PROMPT);
    let grandchildren = scratch.pids();
    assert_eq!(grandchildren.len(), 1);
    assert_killed_and_reaped(grandchildren[0]).await;
}

#[tokio::test]
async fn exit_code_is_recorded() {
    let scratch = Scratch::new("exit");
    let (outcome, _) = run(&scratch.spec("stderr bye\nexit 7", LONG)).await;
    assert_eq!(outcome.termination, Termination::Exited);
    assert_eq!((outcome.exit_code, outcome.signal), (Some(7), None));
    let stderr = fs::read_to_string(scratch.path().join("session/stderr.log")).expect("stderr log");
    assert_eq!(stderr, "bye\n");
}

#[tokio::test]
async fn crash_is_recorded_as_sigabrt() {
    let scratch = Scratch::new("crash");
    let (outcome, lines) = run(&scratch.spec("print before\ncrash\nprint after", LONG)).await;
    assert_eq!(outcome.termination, Termination::Exited);
    assert_eq!(
        (outcome.exit_code, outcome.signal),
        (None, Some(libc::SIGABRT))
    );
    assert_eq!(lines, ["before"]);
}

#[tokio::test]
async fn unknown_action_exits_with_code_3() {
    let scratch = Scratch::new("unknown");
    let (outcome, _) = run(&scratch.spec("dance", LONG)).await;
    assert_eq!(outcome.exit_code, Some(3));
    let stderr = fs::read_to_string(scratch.path().join("session/stderr.log")).expect("stderr log");
    assert!(stderr.contains("unknown action `dance`"), "{stderr}");
}

#[tokio::test]
async fn agent_gets_its_argv_env_cwd_and_dev_null_stdin() {
    let scratch = Scratch::new("record");
    let workspace = scratch.path().join("workspace");
    fs::create_dir_all(&workspace).expect("workspace");
    let record = scratch.path().join("record.json");
    let mut spec = scratch.spec(&format!("record {}", record.display()), LONG);
    spec.args = vec!["--flag".into(), "value with  spaces".into(), PROMPT.into()];
    spec.env
        .push(("SKILLGYM_E2E_MARK".into(), "set by the spec".into()));
    spec.env_remove.push("PATH".into());
    spec.cwd = workspace.clone();
    let (outcome, _) = run(&spec).await;
    assert_eq!(outcome.exit_code, Some(0));

    let recorded: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&record).expect("record")).expect("json");
    let argv: Vec<String> = serde_json::from_value(recorded["argv"].clone()).expect("argv");
    assert_eq!(argv, [FAKE_AGENT, "--flag", "value with  spaces", PROMPT]);
    let cwd = fs::canonicalize(&workspace).expect("canonical workspace");
    assert_eq!(recorded["cwd"], cwd.to_string_lossy().as_ref());
    assert_eq!(recorded["stdin_is_devnull"], true);

    let mut expected: BTreeMap<String, String> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    assert!(
        expected.remove("PATH").is_some(),
        "the test itself has a PATH"
    );
    expected.insert("PWD".to_owned(), workspace.to_string_lossy().into_owned());
    for (name, value) in &spec.env {
        expected.insert(
            name.to_string_lossy().into_owned(),
            value.to_string_lossy().into_owned(),
        );
    }
    let mut env: BTreeMap<String, String> =
        serde_json::from_value(recorded["env"].clone()).expect("env object");
    // The tag the reaper finds escaped descendants by: `<our pid>.<sequence>`.
    let tag = env
        .remove("SKILLGYM_PROCESS")
        .expect("the process is tagged");
    assert!(
        tag.starts_with(&format!("{}.", std::process::id())),
        "{tag}"
    );
    assert_eq!(
        env, expected,
        "inherited env, minus removed, PWD = the cwd, plus overlay"
    );
}

/// Records what a session hands its sink: line lengths, and overlong lines as (number, length).
#[derive(Default)]
struct Lengths {
    lines: Vec<usize>,
    overlong: Vec<(u64, u64)>,
    well_formed: bool,
}

impl process::LineSink for Lengths {
    fn on_line(&mut self, line: &str) -> LineVerdict {
        self.lines.push(line.len());
        self.well_formed &= line.starts_with('{') && line.ends_with('}');
        LineVerdict::Continue
    }

    fn on_overlong_line(&mut self, number: u64, length: u64) -> LineVerdict {
        self.overlong.push((number, length));
        LineVerdict::Continue
    }
}

#[tokio::test]
async fn a_line_up_to_the_limit_is_delivered_intact_and_a_longer_one_by_length() {
    // The limit counts the terminator.
    const FITS: usize = process::MAX_LINE - 1;
    const TOO_LONG: usize = 50 * 1024 * 1024;
    let scratch = Scratch::new("big-line");
    let spec = scratch.spec(
        &format!(
            "emit {{\"type\":\"a\"}}\nbig-line {FITS}\nbig-line {TOO_LONG}\nemit {{\"type\":\"b\"}}"
        ),
        LONG,
    );
    let mut sink = Lengths {
        well_formed: true,
        ..Lengths::default()
    };
    let outcome = process::run(&spec, &mut sink).await.expect("run");
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(sink.lines, [12, FITS, 12]);
    assert!(sink.well_formed);
    assert_eq!(sink.overlong, [(3, TOO_LONG as u64 + 1)]);
    assert_eq!(outcome.stdout_lines, 4);
    assert_eq!(outcome.stdout_bytes, (12 + FITS + TOO_LONG + 12 + 4) as u64);
    let log = fs::metadata(&spec.stdout_log).expect("stdout log");
    assert_eq!(log.len(), outcome.stdout_bytes);
}

#[tokio::test]
async fn stop_verdict_kills_the_agent_at_the_step_limit() {
    let scratch = Scratch::new("stop");
    let script = "emit {\"step\":1}\nemit {\"step\":2}\nemit {\"step\":3}\nhang";
    let spec = scratch.spec(script, LONG);
    let mut steps = 0;
    let mut sink = |_: &str| {
        steps += 1;
        if steps > 2 {
            LineVerdict::Stop {
                reason: format!("observed {steps} steps, limit 2"),
            }
        } else {
            LineVerdict::Continue
        }
    };
    let outcome = process::run(&spec, &mut sink).await.expect("run");
    assert_eq!(
        outcome.termination,
        Termination::Stopped {
            reason: "observed 3 steps, limit 2".into()
        }
    );
    assert_eq!(outcome.signal, Some(libc::SIGKILL));
    assert!(
        outcome.duration < Duration::from_secs(10),
        "{:?}",
        outcome.duration
    );
}

#[tokio::test]
async fn invalid_utf8_is_replaced_for_the_sink_and_kept_raw_in_the_log() {
    let scratch = Scratch::new("bytes");
    let spec = scratch.spec("bytes 61ff620d0a\nprint-no-newline tail", LONG);
    let (_, lines) = run(&spec).await;
    assert_eq!(lines, ["a\u{FFFD}b", "tail"]);
    assert_eq!(fs::read(&spec.stdout_log).expect("log"), b"a\xffb\r\ntail");
}
