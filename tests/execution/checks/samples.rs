//! Sampled executions (`samples = N`): independent sessions, none retried, none stopping the
//! others, and what they say together in `result.json` and on the console.

use std::sync::OnceLock;

use super::{Check, attempts_per_repetition};
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "samples::every_sample_runs_whatever_fails",
        every_sample_runs,
    ),
    (
        "samples::the_figures_are_over_every_sample",
        figures_over_every_sample,
    ),
    ("samples::all_passing_samples_pass", all_pass),
    ("samples::the_pass_rate_against_its_gate_decides", gates),
    (
        "samples::sampling_stops_once_the_gate_is_settled",
        stop_when_decided,
    ),
];

/// Every `samples::` case on runner `a`, no config.
fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        Run::new(
            "samples",
            Spec {
                args: &["--runner", "a", "cases::samples::"],
                ..Spec::default()
            },
        )
    })
}

fn every_sample_runs() {
    let run = run();
    let result = run.execution("samples::two_of_five_fail", "a");
    assert_eq!(result["status"], "failed", "{}", run.context());
    assert_eq!(result["passed"], false);
    assert_eq!(result["repeat_target"], 5);
    assert_eq!(result["repeat_failure"], 0);
    assert_eq!(attempts_per_repetition(&result), [1, 1, 1, 1, 1]);
    assert_eq!(result["completed_repetitions"], 5);
    assert_eq!(result["successful_repetitions"], 3);
    assert_eq!(result["failed_repetitions"], 2);
    assert!(result.get("stopped_at_repetition").is_none(), "{result:#}");
    // The first failed sample gives the execution its failure.
    assert_eq!(result["failure"]["origin"], "assertion");
    assert_eq!(result["repetitions"][1]["status"], "failed");
    assert_eq!(result["repetitions"][2]["status"], "passed");
    assert!(
        run.trials()
            .contains(&"[a] cases::samples::two_of_five_fail FAILED".to_owned()),
        "{:?}",
        run.trials()
    );
}

fn figures_over_every_sample() {
    let run = run();
    let result = run.execution("samples::two_of_five_fail", "a");
    let samples = &result["samples"];
    assert_eq!(samples["sessions"], 5, "{result:#}");
    assert_eq!(samples["passed"], 3);
    assert_eq!(samples["pass_rate"], 0.6);
    let low = samples["pass_rate_95"]["low"].as_f64().unwrap();
    let high = samples["pass_rate_95"]["high"].as_f64().unwrap();
    assert!(
        (low - 0.2307).abs() < 1e-3 && (high - 0.8824).abs() < 1e-3,
        "{samples}"
    );
    // pass@3 = 1 - C(2,3)/C(5,3) = 1; pass^3 = C(3,3)/C(5,3) = 0.1.
    assert_eq!(samples["pass_at_k"]["1"], 0.6);
    assert_eq!(samples["pass_at_k"]["3"], 1.0);
    assert!((samples["pass_all_k"]["3"].as_f64().unwrap() - 0.1).abs() < 1e-12);
    assert!(
        samples["pass_at_k"].get("10").is_none(),
        "k above the samples: {samples}"
    );
    assert_eq!(samples["total_tokens"]["n"], 5);
    assert_eq!(samples["total_tokens"]["mean"], 300.0);
    let sd = samples["total_tokens"]["sd"].as_f64().unwrap();
    assert!((sd - 158.113_883).abs() < 1e-5, "{sd}");
    assert!((samples["cost_usd"]["mean"].as_f64().unwrap() - 0.03).abs() < 1e-12);
    // $0.15 over 3 passes.
    let per_success = samples["cost_per_success_usd"].as_f64().unwrap();
    assert!((per_success - 0.05).abs() < 1e-12, "{per_success}");
    // The execution's averages are over every sample too.
    assert_eq!(result["usage"]["total_tokens"]["value"], 300);
    let stdout = run.stdout();
    let line = stdout
        .lines()
        .find(|line| line.starts_with("skillgym: [a] cases::samples::two_of_five_fail:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.starts_with(
            "skillgym: [a] cases::samples::two_of_five_fail: 3/5 samples passed, 60% (95% CI 23-88%) · pass@5 100% · pass^5 0% · avg "
        ) && line.ends_with(" · 300 ± 158 tokens · $0.0300 ± 0.0158 · $0.0500 per success"),
        "{line}"
    );
}

fn all_pass() {
    let run = run();
    let result = run.execution("samples::all_pass", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    assert_eq!(result["passed"], true);
    assert_eq!(result["flaky"], false);
    assert_eq!(result["samples"]["passed"], 3);
    assert_eq!(result["samples"]["pass_all_k"]["3"], 1.0);
    assert!(
        result["samples"].get("cost_usd").is_none(),
        "no cost reported"
    );
    assert!(result["samples"].get("cost_per_success_usd").is_none());
}

fn gates() {
    let run = run();
    let met = run.execution("samples::gate_met", "a");
    assert_eq!(met["status"], "passed", "{}", run.context());
    assert_eq!(met["passed"], true);
    assert_eq!(met["min_pass_rate"], 0.6);
    assert_eq!(met["samples"]["passed"], 3);
    assert!(met.get("failure").is_none(), "{met:#}");
    let missed = run.execution("samples::gate_missed", "a");
    assert_eq!(missed["status"], "failed");
    assert_eq!(missed["failure"]["origin"], "pass-rate");
    assert_eq!(missed["failure"]["class"]["id"], "pass-rate");
    assert_eq!(
        missed["failure"]["message"],
        "pass rate 60% (3/5 samples, 95% CI 23.1%-88.2%) is below min_pass_rate 80%"
    );
    let trials = run.trials();
    assert!(
        trials.contains(&"[a] cases::samples::gate_met ok".to_owned())
            && trials.contains(&"[a] cases::samples::gate_missed FAILED".to_owned()),
        "{trials:?}"
    );
    // The summary's failure classes name the gate, and each line says how it went.
    let stdout = run.stdout();
    assert!(stdout.contains("Pass rate below its gate"), "{stdout}");
    let line = |case: &str| {
        stdout
            .lines()
            .find(|line| line.starts_with(&format!("skillgym: [a] cases::samples::{case}:")))
            .unwrap_or_else(|| panic!("{stdout}"))
            .to_owned()
    };
    assert!(
        line("gate_met").ends_with(" · min_pass_rate 60% met"),
        "{}",
        line("gate_met")
    );
    assert!(
        line("gate_missed").ends_with(" · min_pass_rate 80% missed"),
        "{}",
        line("gate_missed")
    );
}

fn stop_when_decided() {
    let run = run();
    let meets = run.execution("samples::decided_meets", "a");
    assert_eq!(meets["status"], "passed", "{}", run.context());
    assert_eq!(meets["repeat_target"], 40);
    assert_eq!(meets["completed_repetitions"], 7, "{meets:#}");
    assert_eq!(meets["samples"]["sessions"], 7);
    assert_eq!(meets["samples"]["decision"], "meets");
    let misses = run.execution("samples::decided_misses", "a");
    assert_eq!(misses["status"], "failed");
    assert_eq!(misses["completed_repetitions"], 7, "{misses:#}");
    assert_eq!(misses["samples"]["decision"], "misses");
    assert_eq!(misses["failure"]["origin"], "pass-rate");
    assert_eq!(
        misses["failure"]["message"],
        "pass rate 0% (0/7 samples, 95% CI 0%-35.4%) is below min_pass_rate 50%; decided after 7 of at most 40 samples (95% confidence sequence)"
    );
}
