//! Benchmark (not a timed test) of scheduling overhead: 64 executions of a fake agent that
//! sleeps 200 ms, `--schedule parallel --max-parallel 8`. The ideal wall time is
//! 64 / 8 x 200 ms = 1.6 s; the target is at most 1.15x that (1.84 s), measured from spawning
//! the harness binary to its exit, so it includes everything the harness does per execution
//! (artifact directories, prompt, logs, report and result files, the gates, results.json).
//!
//! Run it with
//!
//! ```text
//! cargo bench -p skillgym-e2e --bench schedule
//! ```
//!
//! `SKILLGYM_BENCH_RUNS=<n>` changes the number of measured runs (default 10, after 1 warm-up).
//!
//! The 64 cases (`m0::c0` .. `m7::c7`) are spread over 8 fake-agent runners (`cJ` runs only on
//! runner `rJ`), so the same plan also measures `isolated-by-runner` (8 executions per runner,
//! one at a time; the 8 runners at once): same ideal, same target.
//!
//! Like the `list` bench, this binary is both sides: with `SKILLGYM_BENCH_CHILD=1` it is the
//! harness binary; otherwise it drives itself and prints min / median / max wall time and the
//! ratio of the median to the ideal.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use skillgym_harness::{CommandAgent, Harness};

const CHILD_ENV: &str = "SKILLGYM_BENCH_CHILD";
const EXECUTIONS: u32 = 64;
const SLEEP: Duration = Duration::from_millis(200);
const MAX_PARALLEL: u32 = 8;
const TARGET_RATIO: f64 = 1.15;
const DEFAULT_RUNS: usize = 10;

macro_rules! cases {
    ($($c:ident $runner:literal)*) => {
        $(
            #[skillgym::case(prompt = "Sleep.", runners = [$runner])]
            fn $c(report: &skillgym::SessionReport) {
                assert_eq!(report.final_output(), "slept");
            }
        )*
    };
}

macro_rules! modules {
    ($($m:ident)*) => {
        $(
            mod $m {
                cases!(c0 "r0" c1 "r1" c2 "r2" c3 "r3" c4 "r4" c5 "r5" c6 "r6" c7 "r7");
            }
        )*
    };
}

modules!(m0 m1 m2 m3 m4 m5 m6 m7);

/// The agent's script: sleep (`SKILLGYM_BENCH_SLEEP_MS`, default 200), then answer.
fn script() -> String {
    let sleep = std::env::var("SKILLGYM_BENCH_SLEEP_MS").unwrap_or_else(|_| "200".into());
    format!(
        "sleep {sleep}\nemit {{\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"slept\"}}"
    )
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD_ENV).is_none() {
        return drive();
    }
    let mut harness = Harness::new();
    for index in 0..MAX_PARALLEL {
        harness = harness.runner(
            format!("r{index}"),
            CommandAgent::new(env!("CARGO_BIN_EXE_fake-agent")).env("FAKE_AGENT_SCRIPT", script()),
        );
    }
    harness.run()
}

fn drive() -> ExitCode {
    let runs = std::env::var("SKILLGYM_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_RUNS);
    let exe = std::env::current_exe().expect("current_exe");
    let work = exe
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .unwrap_or(Path::new("target"))
        .join("bench-tmp/schedule");
    std::fs::create_dir_all(&work).expect("bench dir");
    let bench = Bench { exe, work, runs };
    let ideal = SLEEP * EXECUTIONS / MAX_PARALLEL;
    println!(
        "{EXECUTIONS} executions x {} ms, max_parallel {MAX_PARALLEL}: ideal {} ms, target <= {:.0} ms ({TARGET_RATIO}x); {runs} runs after 1 warm-up",
        SLEEP.as_millis(),
        ideal.as_millis(),
        ideal.as_secs_f64() * 1000.0 * TARGET_RATIO
    );
    let mut all_pass = true;
    for schedule in ["parallel", "isolated-by-runner"] {
        let times = bench.measure(schedule, SLEEP);
        let median = times[times.len() / 2];
        let ratio = median.as_secs_f64() / ideal.as_secs_f64();
        let pass = ratio <= TARGET_RATIO;
        all_pass &= pass;
        println!(
            "{schedule:<20} min {:>5} ms  median {:>5} ms  max {:>5} ms  ratio {ratio:.3}  {}",
            times[0].as_millis(),
            median.as_millis(),
            times[times.len() - 1].as_millis(),
            if pass { "PASS" } else { "FAIL" }
        );
    }
    // The same run with agents that answer at once: what the harness itself costs.
    let times = bench.measure("parallel", Duration::ZERO);
    let median = times[times.len() / 2];
    println!(
        "{:<20} min {:>5} ms  median {:>5} ms  max {:>5} ms  ({:.1} ms per wave of 8 executions)",
        "parallel, sleep 0",
        times[0].as_millis(),
        median.as_millis(),
        times[times.len() - 1].as_millis(),
        median.as_secs_f64() * 1000.0 / f64::from(EXECUTIONS / MAX_PARALLEL)
    );
    let _ = std::fs::remove_dir_all(&bench.work);
    if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

struct Bench {
    exe: std::path::PathBuf,
    work: std::path::PathBuf,
    runs: usize,
}

impl Bench {
    /// Wall times (spawn to exit) of `runs` whole runs after a warm-up, sorted.
    fn measure(&self, schedule: &str, sleep: Duration) -> Vec<Duration> {
        let config = self.work.join("skillgym.yaml");
        std::fs::write(&config, "").expect("write an empty config");
        let mut times = Vec::with_capacity(self.runs);
        for run in 0..=self.runs {
            let output_dir = self.work.join("out");
            let _ = std::fs::remove_dir_all(&output_dir);
            let started = Instant::now();
            let output = Command::new(&self.exe)
                .env(CHILD_ENV, "1")
                .env("SKILLGYM_RUN_ID", "run")
                .env("SKILLGYM_BENCH_SLEEP_MS", sleep.as_millis().to_string())
                .args(["--schedule", schedule, "-q", "--max-parallel"])
                .arg(MAX_PARALLEL.to_string())
                .arg("--config")
                .arg(&config)
                .arg("--output-dir")
                .arg(&output_dir)
                .output()
                .expect("the harness runs");
            let elapsed = started.elapsed();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "the harness failed:\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let executions = executions_run(&output_dir.join("run/results.json"));
            assert_eq!(executions, EXECUTIONS as usize, "{stdout}");
            if run > 0 {
                times.push(elapsed);
            }
        }
        times.sort();
        times
    }
}

/// How many executions `results.json` lists.
fn executions_run(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("results.json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    value["executions"].as_array().map_or(0, Vec::len)
}
