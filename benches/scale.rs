//! Benchmark (not a timed test) of large declarative suites: 1,000 / 5,000 / 10,000 discovered
//! `case.yaml` directories.
//!
//! For each size it generates a suite (`EVAL.yaml` with `tests: ./cases/` and one directory per
//! case) and a `skillgym.yaml` with one `command` runner (agent `/bin/true`), then runs this
//! binary as the harness and prints, per size:
//!
//! | column | what is timed |
//! |---|---|
//! | `--list, first` | the first `--list` after the suite was written: every case parsed, the suite index written |
//! | `--list` | the median of later `--list` runs (the index is read and its stamps checked) |
//! | `one trial, nextest` | the median of `--exact <name>` processes running one trial each, as `cargo nextest` runs every test (`NEXTEST_EXECUTION_MODE=process-per-test`) |
//! | `--exact`, in-process | the same outside nextest, where every case is planned so that libtest's "filtered out" count is whole |
//! | `every trial, 2 at a time` | with `SKILLGYM_BENCH_ALL=1`: a process per trial, two at a time (nextest on 2 cores) |
//! | peak RSS | the largest of the runs above, from `wait4` |
//!
//! Measure the profile the Quick start gives (debug) and release:
//!
//! ```text
//! cargo bench -p skillgym-e2e --bench scale --profile dev
//! cargo bench -p skillgym-e2e --bench scale
//! ```
//!
//! `SKILLGYM_BENCH_SIZES=1000,5000` picks the sizes, `SKILLGYM_BENCH_RUNS` the measured runs per
//! column (default 9; the medians are printed). Arguments cargo bench passes are ignored.

use std::fs;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "SKILLGYM_BENCH_CHILD";
const DEFAULT_SIZES: [usize; 3] = [1_000, 5_000, 10_000];
const DEFAULT_RUNS: usize = 9;

fn main() -> ExitCode {
    if std::env::var_os(CHILD_ENV).is_some() {
        return skillgym_harness::main();
    }
    let sizes: Vec<usize> = match std::env::var("SKILLGYM_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .map(|n| n.trim().parse().expect("SKILLGYM_BENCH_SIZES: numbers"))
            .collect(),
        Err(_) => DEFAULT_SIZES.to_vec(),
    };
    let runs = std::env::var("SKILLGYM_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(DEFAULT_RUNS);
    let all = std::env::var_os("SKILLGYM_BENCH_ALL").is_some();
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("skillgym suite-scale benchmark ({profile}; medians of {runs} runs)");
    println!();
    println!(
        "| cases | `--list`, first | `--list` | one trial, nextest | `--exact`, in-process | every trial, 2 at a time | peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|");
    for size in sizes {
        let row = measure(size, runs, all);
        println!(
            "| {size} | {} | {} | {} | {} | {} | {} MB |",
            shown(row.first_list),
            shown(row.list),
            shown(row.one_trial),
            shown(row.exact),
            row.every_trial.map_or("–".to_owned(), shown),
            row.peak_rss_kb / 1024
        );
    }
    ExitCode::SUCCESS
}

/// One size's figures.
struct Row {
    first_list: Duration,
    list: Duration,
    one_trial: Duration,
    exact: Duration,
    every_trial: Option<Duration>,
    peak_rss_kb: u64,
}

fn measure(size: usize, runs: usize, all: bool) -> Row {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let config = generate(scratch.path(), size);
    let harness = Harness {
        exe: std::env::current_exe().expect("current_exe"),
        config,
        runs: scratch.path().join("runs"),
    };
    let mut peak_rss_kb = 0;
    let (first_list, rss, listed) = harness.list();
    assert_eq!(listed, size, "every case listed once");
    peak_rss_kb = peak_rss_kb.max(rss);
    let mut lists = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (elapsed, rss, _) = harness.list();
        lists.push(elapsed);
        peak_rss_kb = peak_rss_kb.max(rss);
    }
    let mut trials = Vec::with_capacity(runs);
    let mut exacts = Vec::with_capacity(runs);
    for run in 0..runs {
        let (elapsed, rss) = harness.one_trial(run * (size / runs.max(1)), true);
        trials.push(elapsed);
        peak_rss_kb = peak_rss_kb.max(rss);
        let (elapsed, rss) = harness.one_trial(run * (size / runs.max(1)), false);
        exacts.push(elapsed);
        peak_rss_kb = peak_rss_kb.max(rss);
    }
    let every_trial = all.then(|| harness.every_trial(size));
    Row {
        first_list,
        list: median(lists),
        one_trial: median(trials),
        exact: median(exacts),
        every_trial,
        peak_rss_kb,
    }
}

/// Writes the suite of `size` cases and its `skillgym.yaml`; returns the config's path.
fn generate(root: &Path, size: usize) -> PathBuf {
    let suite = root.join("suite");
    fs::create_dir_all(suite.join("cases")).expect("the cases directory");
    fs::write(
        suite.join("EVAL.yaml"),
        "name: scale\nassertions:\n  - {type: contains, value: done}\ntests: ./cases/\n",
    )
    .expect("EVAL.yaml");
    for i in 0..size {
        let case = suite.join(format!("cases/case-{i:05}"));
        fs::create_dir(&case).expect("a case directory");
        fs::write(
            case.join("case.yaml"),
            format!(
                "input: Fix the null pointer in parser{i}.ts\ncriteria: Root cause fixed.\ntags: [scale, group-{}]\nassertions:\n  - {{type: regex, value: 'fixed|done', flags: i}}\n  - {{type: execution-metrics, max_tool_calls: 20}}\nmetadata: {{difficulty: medium, n: {i}}}\n",
                i % 10
            ),
        )
        .expect("a case.yaml");
    }
    let config = root.join("skillgym.yaml");
    fs::write(
        &config,
        "runners:\n  a:\n    agent: { type: command, command: /bin/true }\nsuites: [suite]\n",
    )
    .expect("skillgym.yaml");
    config
}

/// This binary run as the harness on one generated suite.
struct Harness {
    exe: PathBuf,
    config: PathBuf,
    /// The run directories' parent (`--output-dir`).
    runs: PathBuf,
}

// Every child is reaped by `wait4`, which also reports its peak RSS.
#[allow(clippy::zombie_processes)]
impl Harness {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.exe);
        command
            .arg("--config")
            .arg(&self.config)
            .arg("--output-dir")
            .arg(&self.runs)
            .env(CHILD_ENV, "1")
            .env_remove("CI")
            .env_remove("NEXTEST_EXECUTION_MODE")
            .stdin(Stdio::null());
        command
    }

    /// One `--list`: its wall time, peak RSS (KiB) and the number of trials listed.
    fn list(&self) -> (Duration, u64, usize) {
        let mut command = self.command();
        command
            .args(["--list", "--format", "terse"])
            .stdout(Stdio::piped());
        let started = Instant::now();
        let mut child = command.spawn().expect("spawn the harness");
        let stdout = std::io::read_to_string(child.stdout.take().expect("stdout")).expect("read");
        let (status, rss) = wait4(child.id());
        let elapsed = started.elapsed();
        assert!(status.success(), "--list failed: {status}");
        let listed = stdout.lines().filter(|l| l.ends_with(": test")).count();
        (elapsed, rss, listed)
    }

    /// One process running the trial of case `index` alone, as nextest does or not.
    fn one_trial(&self, index: usize, nextest: bool) -> (Duration, u64) {
        let name = format!("[a] scale::case-{index:05}");
        let mut command = self.command();
        if nextest {
            command.env("NEXTEST_EXECUTION_MODE", "process-per-test");
        }
        command
            .args(["--exact", &name])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let started = Instant::now();
        let child = command.spawn().expect("spawn the harness");
        let (status, rss) = wait4(child.id());
        let elapsed = started.elapsed();
        // The agent answers nothing, so the case's graders fail it: 101, not a crash.
        assert!(
            matches!(status.code(), Some(0 | 101)),
            "{name}: the harness ended with {status}"
        );
        (elapsed, rss)
    }

    /// A process per trial, two at a time, as nextest runs them on two cores.
    fn every_trial(&self, size: usize) -> Duration {
        let started = Instant::now();
        let mut next = 0;
        let mut running: Vec<std::process::Child> = Vec::new();
        while next < size || !running.is_empty() {
            while running.len() < 2 && next < size {
                let name = format!("[a] scale::case-{next:05}");
                let mut command = self.command();
                command
                    .env("NEXTEST_EXECUTION_MODE", "process-per-test")
                    .args(["--exact", &name])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                running.push(command.spawn().expect("spawn the harness"));
                next += 1;
            }
            let child = running.remove(0);
            let (status, _) = wait4(child.id());
            assert!(matches!(status.code(), Some(0 | 101)), "a trial crashed");
        }
        started.elapsed()
    }
}

/// Waits for the child; returns its status and its peak RSS (KiB).
fn wait4(pid: u32) -> (std::process::ExitStatus, u64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` are valid out pointers.
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid as libc::pid_t, "wait4 failed");
    let kib = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    // macOS reports bytes, Linux KiB.
    let kib = if cfg!(target_os = "macos") {
        kib / 1024
    } else {
        kib
    };
    (std::process::ExitStatus::from_raw(status), kib)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn shown(time: Duration) -> String {
    if time >= Duration::from_secs(1) {
        format!("{:.2} s", time.as_secs_f64())
    } else {
        format!("{:.0} ms", time.as_secs_f64() * 1e3)
    }
}
