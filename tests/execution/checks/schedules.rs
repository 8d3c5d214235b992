//! Schedules: observed concurrency never exceeds the cap, `isolated-by-runner` never overlaps
//! one runner, in one process (libtest worker threads plus gates) and with one process per
//! trial (as under cargo-nextest: lock files); results come out in plan order.

use std::collections::BTreeMap;

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    ("schedules::serial_runs_one_at_a_time_in_plan_order", serial),
    (
        "schedules::parallel_reaches_but_never_exceeds_the_cap",
        parallel,
    ),
    (
        "schedules::isolated_by_runner_never_overlaps_one_runner",
        isolated_by_runner,
    ),
    (
        "schedules::isolated_by_runner_respects_the_cap",
        isolated_by_runner_capped,
    ),
    (
        "schedules::gates_hold_across_processes_as_under_nextest",
        across_processes,
    ),
    ("schedules::the_config_chooses_the_schedule", from_config),
];

const RUNNERS: [&str; 3] = ["a", "b", "c"];
const CASES: [&str; 6] = ["s1", "s2", "s3", "s4", "s5", "s6"];

/// Runs every `sched::` case on every runner with these flags and config.
fn run(label: &str, args: &[&str], config: &str) -> Run {
    let mut all = vec!["cases::sched::"];
    all.extend(args);
    let run = Run::new(
        label,
        Spec {
            args: &all,
            config,
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    run
}

/// What the spans file shows: the most sessions at once, overall and per runner, and the
/// order sessions started in.
struct Observed {
    overall: usize,
    per_runner: BTreeMap<String, usize>,
    starts: Vec<String>,
}

impl Observed {
    /// `isolated-by-runner`: no runner ever ran two sessions at once.
    fn assert_one_per_runner(&self) {
        assert!(
            self.per_runner.values().all(|&n| n == 1),
            "{:?}",
            self.per_runner
        );
    }
}

fn observe(run: &Run) -> Observed {
    let spans = std::fs::read_to_string(run.state("spans")).unwrap();
    let mut current = 0usize;
    let mut current_per: BTreeMap<String, usize> = BTreeMap::new();
    let mut observed = Observed {
        overall: 0,
        per_runner: BTreeMap::new(),
        starts: Vec::new(),
    };
    for line in spans.lines() {
        let (mark, runner) = line.split_once(' ').unwrap();
        let slot = current_per.entry(runner.to_owned()).or_default();
        if mark == "+" {
            current += 1;
            *slot += 1;
            observed.starts.push(runner.to_owned());
        } else {
            current -= 1;
            *slot -= 1;
        }
        observed.overall = observed.overall.max(current);
        let max = observed.per_runner.entry(runner.to_owned()).or_default();
        *max = (*max).max(current_per[runner]);
    }
    assert_eq!(
        observed.starts.len(),
        RUNNERS.len() * CASES.len(),
        "{spans}"
    );
    observed
}

/// `results.json` lists the executions in plan order: case, then runner.
fn assert_plan_order(run: &Run) {
    let results = run.results();
    let order: Vec<String> = results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["case_id"].as_str().unwrap(),
                e["runner_id"].as_str().unwrap()
            )
        })
        .collect();
    let expected: Vec<String> = CASES
        .iter()
        .flat_map(|case| {
            RUNNERS
                .iter()
                .map(move |r| format!("cases::sched::{case} {r}"))
        })
        .collect();
    assert_eq!(order, expected);
}

fn serial() {
    let run = run(
        "serial",
        &["--schedule", "serial", "--max-parallel", "4"],
        "",
    );
    let observed = observe(&run);
    assert_eq!(observed.overall, 1);
    let expected: Vec<String> = CASES
        .iter()
        .flat_map(|_| RUNNERS.map(String::from))
        .collect();
    assert_eq!(observed.starts, expected, "declaration (plan) order");
    assert_plan_order(&run);
}

fn parallel() {
    let run = run(
        "parallel",
        &["--schedule", "parallel", "--max-parallel", "2"],
        "",
    );
    let observed = observe(&run);
    assert_eq!(observed.overall, 2, "reaches the cap and never exceeds it");
    assert_plan_order(&run);
}

fn isolated_by_runner() {
    let run = run(
        "isolated",
        &["--schedule", "isolated-by-runner", "--max-parallel", "8"],
        "",
    );
    let observed = observe(&run);
    observed.assert_one_per_runner();
    assert!((2..=3).contains(&observed.overall), "{}", observed.overall);
    assert_plan_order(&run);
}

fn isolated_by_runner_capped() {
    let run = run(
        "isolated-capped",
        &["--schedule", "isolated-by-runner", "--max-parallel", "2"],
        "",
    );
    let observed = observe(&run);
    observed.assert_one_per_runner();
    assert_eq!(observed.overall, 2);
}

fn across_processes() {
    let trials: Vec<String> = CASES
        .iter()
        .flat_map(|case| {
            RUNNERS
                .iter()
                .map(move |r| format!("[{r}] cases::sched::{case}"))
        })
        .collect();
    let run = Run::per_process(
        "isolated-processes",
        &trials,
        Spec {
            args: &["--schedule", "isolated-by-runner", "--max-parallel", "2"],
            ..Spec::default()
        },
    );
    assert_eq!(run.trials().len(), trials.len(), "{}", run.context());
    assert!(
        run.trials().iter().all(|t| t.ends_with(" ok")),
        "{}",
        run.context()
    );
    let observed = observe(&run);
    observed.assert_one_per_runner();
    assert!(observed.overall <= 2, "{}", observed.overall);
    let locks = run.run_dir().join(".locks");
    for file in [
        "runner-a.lock",
        "runner-b.lock",
        "runner-c.lock",
        "slot-0.lock",
        "slot-1.lock",
    ] {
        assert!(locks.join(file).is_file(), "{file}");
    }
}

fn from_config() {
    let run = run(
        "config-serial",
        &[],
        "run:\n  schedule: serial\n  max_parallel: 4\n",
    );
    assert_eq!(observe(&run).overall, 1);
}
