//! Run directories of many executions, written as the processes of a run (nextest's included)
//! write them — one `<case>/<runner>[/<variant>]/result.json` per execution — for the tests and
//! the benchmark of `cargo skillgym report` at scale (`tests/html_report.rs`,
//! `benches/reports.rs`).
//!
//! | execution `n` (0-based) | is |
//! |---|---|
//! | runner | [`RUNNERS`]`[n % 4]` |
//! | case | `group-<g>::case-<c>`, `c = n / 4` (under variants: two executions per runner) |
//! | variant | every fifth case runs under `without` (the baseline) and `with` |
//! | tags | `group-<c % 7>`, and `smoke` on every third case |
//! | status | failed when `n % 50 == 7` (class `wrong-answer`), expected-failed when `n % 97 == 3`, skipped when `n % 211 == 11`, flaky (passed on a second attempt) when `n % 31 == 5`, else passed |
//! | partition | `n % partitions`: each in its own run directory `part-<k>` |
//!
//! Beside them, one planted failure, [`PLANTED`], sorted last by case id. Every attempt's
//! `report.json` is a recorded Claude Code session (`examples/agents/recording/`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The runners executions are spread over.
pub const RUNNERS: [&str; 4] = ["claude", "codex", "gemini", "opencode"];

/// The planted failure: case, runner, and a word of its message found by nothing else.
pub const PLANTED: (&str, &str, &str) = ("zz::planted-needle", "codex", "haystack-needle");

/// What a generated execution is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The case id.
    pub case: String,
    /// The runner id.
    pub runner: &'static str,
    /// The variant, when the case runs under variants.
    pub variant: Option<&'static str>,
    /// Its status (`passed`, `failed`, ...).
    pub status: &'static str,
}

/// The `n`th generated execution (see the module's table).
pub fn generated(n: usize) -> Generated {
    let runner = RUNNERS[n % RUNNERS.len()];
    // Cases come in blocks of 5: 4 without variants (4 executions each), 1 with (8).
    let (block, rest) = (n / 24, n % 24);
    let (case, variant) = if rest < 16 {
        (block * 5 + rest / 4, None)
    } else {
        let variant = if (rest - 16) / 4 == 0 {
            "without"
        } else {
            "with"
        };
        (block * 5 + 4, Some(variant))
    };
    let status = if n % 50 == 7 {
        "failed"
    } else if n % 97 == 3 {
        "expected-failed"
    } else if n % 211 == 11 {
        "skipped"
    } else {
        "passed"
    };
    Generated {
        case: format!("group-{:03}::case-{case:06}", case / 100),
        runner,
        variant,
        status,
    }
}

/// A recorded Claude Code session (9 KB), linked as every attempt's `report.json`.
fn session() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/agents/recording/finds_a_skill_for_expo/claude-code/repeat-1/attempt-1/report.json")
}

/// Writes `executions` generated executions (and [`PLANTED`]) into `partitions` run
/// directories `<root>/part-<k>`, each attempt with a recorded session as its `report.json`
/// (hard-linked), and returns them.
pub fn write_partitions(root: &Path, executions: usize, partitions: usize) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = (0..partitions)
        .map(|k| root.join(format!("part-{k}")))
        .collect();
    for n in 0..executions {
        let g = generated(n);
        let flaky = n % 31 == 5 && g.status == "passed";
        let tags = tags_of(&g.case);
        write_result(&dirs[n % partitions], &g, flaky, &tags, None);
    }
    let (case, runner, word) = PLANTED;
    let planted = Generated {
        case: case.to_owned(),
        runner: RUNNERS.iter().find(|r| **r == runner).copied().unwrap(),
        variant: None,
        status: "failed",
    };
    let message = format!("the answer missed the {word}");
    write_result(
        &dirs[0],
        &planted,
        false,
        &["planted".to_owned()],
        Some(&message),
    );
    dirs
}

fn tags_of(case: &str) -> Vec<String> {
    let number: usize = case.rsplit('-').next().unwrap().parse().unwrap();
    let mut tags = vec![format!("group-{}", number % 7)];
    if number.is_multiple_of(3) {
        tags.push("smoke".to_owned());
    }
    tags
}

fn attempt(dir: &Path, repetition: u32, attempt: u32, status: &str, failure: &Value) -> Value {
    let mut value = json!({
        "repetition": repetition, "attempt": attempt, "status": status,
        "passed": status == "passed", "duration_ms": 41_000 + u64::from(attempt) * 700,
        "steps": 6,
        "usage": {"input_tokens": {"value": 18_400, "source": "provider"},
                  "output_tokens": {"value": 950, "source": "provider"},
                  "total_tokens": {"value": 19_350, "source": "provider"},
                  "cost_usd": 0.0412, "input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
        "exit_code": 0,
        "artifact_dir": dir.join(format!("repeat-{repetition}/attempt-{attempt}")),
    });
    if !failure.is_null() {
        value["failure"] = failure.clone();
    }
    value
}

/// Writes the `result.json` of `g` into the run directory `run`.
fn write_result(run: &Path, g: &Generated, flaky: bool, tags: &[String], message: Option<&str>) {
    let mut dir = run.join(g.case.replace("::", "."));
    dir.push(g.runner);
    if let Some(variant) = g.variant {
        dir.push(variant);
    }
    let failed = g.status == "failed";
    let failure = if failed || g.status == "expected-failed" {
        json!({"origin": "assertion",
               "class": {"id": "wrong-answer", "label": "Wrong answer"},
               "message": message.unwrap_or("expected the final output to name the skill\n  final output: I could not find it"),
               "location": {"file": "tests/benchmarks/main.rs", "line": 42, "column": 5}})
    } else {
        Value::Null
    };
    let repetitions: Vec<Value> = match g.status {
        "skipped" => Vec::new(),
        _ if flaky => vec![
            json!({"repetition": 1, "status": "passed", "passed": true, "attempts": [
                attempt(&dir, 1, 1, "failed", &json!({"origin": "runner",
                    "class": {"id": "agent-exit"}, "message": "the agent exited with 1"})),
                attempt(&dir, 1, 2, "passed", &Value::Null),
            ]}),
        ],
        status => vec![json!({"repetition": 1, "status": status, "passed": !failed,
                              "attempts": [attempt(&dir, 1, 1, status, &failure)]})],
    };
    let attempts = repetitions
        .first()
        .map_or(0, |r| r["attempts"].as_array().unwrap().len());
    let passing = u32::from(!failed && !repetitions.is_empty());
    let mut result = json!({
        "case_id": g.case, "runner_id": g.runner,
        "agent": {"type": "claude-code", "version": "2.1.330", "model": "claude-sonnet-4-6"},
        "source": "tests/benchmarks/main.rs:42", "tags": tags,
        "status": g.status, "passed": !failed, "expected_fail": g.status == "expected-failed",
        "repeat_target": 1, "repeat_failure": 1,
        "completed_repetitions": repetitions.len(), "successful_repetitions": passing,
        "failed_repetitions": u32::from(failed), "flaky": flaky,
        "attempts": {"total": attempts, "passing": passing, "pass_rate": f64::from(passing),
                     "pass_rate_95": {"low": 0.2, "high": 1.0}},
        "duration_ms": 41_700, "artifact_dir": dir, "repetitions": repetitions,
        "usage": {"input_tokens": {"value": 18_400, "source": "provider"},
                  "output_tokens": {"value": 950, "source": "provider"},
                  "total_tokens": {"value": 19_350, "source": "provider"},
                  "cost_usd": 0.0412, "input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
    });
    if let Some(variant) = g.variant {
        result["variant"] = json!(variant);
        result["baseline"] = json!(variant == "without");
    }
    if failed {
        result["failure"] = failure;
        result["stopped_at_repetition"] = json!(1);
    }
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("result.json"), result.to_string()).unwrap();
    for attempt in 1..=attempts {
        let attempt_dir = dir.join(format!("repeat-1/attempt-{attempt}"));
        fs::create_dir_all(&attempt_dir).unwrap();
        let report = attempt_dir.join("report.json");
        if fs::hard_link(session(), &report).is_err() {
            fs::copy(session(), &report).unwrap();
        }
    }
}
