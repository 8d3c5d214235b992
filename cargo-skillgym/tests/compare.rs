//! `cargo skillgym compare RUN_A RUN_B` through the binary, over two run directories laid out as
//! the harness lays them out (`<case>/<runner>[/<variant>]/result.json`) with known passes:
//! the figures against hand-computed Newcombe intervals, the lifts of an experiment in both
//! runs, executions in one run only, the warning on a changed agent version, `--json`,
//! `--fail-on-regression`, bad input, and the README's example, which is this test's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// One execution to write: its sessions' outcomes, tokens per session, agent version.
struct Execution<'a> {
    case: &'a str,
    runner: &'a str,
    /// The variant and whether it is the baseline.
    variant: Option<(&'a str, bool)>,
    passes: u32,
    sessions: u32,
    tokens: u64,
    version: &'a str,
}

impl<'a> Execution<'a> {
    fn new(case: &'a str, passes: u32, sessions: u32) -> Self {
        Execution {
            case,
            runner: "claude",
            variant: None,
            passes,
            sessions,
            tokens: 100,
            version: "2.1.330",
        }
    }

    fn under(mut self, variant: &'a str, baseline: bool) -> Self {
        self.variant = Some((variant, baseline));
        self
    }

    fn tokens(mut self, tokens: u64) -> Self {
        self.tokens = tokens;
        self
    }

    fn version(mut self, version: &'a str) -> Self {
        self.version = version;
        self
    }

    /// Writes its `result.json` into the run directory `run`: one repetition per session, the
    /// first `passes` passed, each session 1 s.
    fn write(&self, run: &Path) {
        let mut dir = run.join(self.case).join(self.runner);
        if let Some((variant, _)) = self.variant {
            dir = dir.join(variant);
        }
        let repetitions: Vec<Value> = (1..=self.sessions)
            .map(|n| {
                let passed = n <= self.passes;
                let status = if passed { "passed" } else { "failed" };
                json!({
                    "repetition": n, "status": status, "passed": passed,
                    "attempts": [{
                        "repetition": n, "attempt": 1, "status": status, "passed": passed,
                        "duration_ms": 1000,
                        "usage": {"total_tokens": {"value": self.tokens, "source": "provider"}},
                        "steps": 1,
                        "artifact_dir": dir.join(format!("repeat-{n}/attempt-1")),
                    }],
                })
            })
            .collect();
        let all = self.passes == self.sessions;
        let mut result = json!({
            "case_id": self.case,
            "runner_id": self.runner,
            "agent": {"type": "claude-code", "model": "claude-sonnet-4-6", "version": self.version},
            "source": "tests/benchmarks.rs:1",
            "status": if all { "passed" } else { "failed" },
            "passed": all,
            "expected_fail": false,
            "repeat_target": self.sessions,
            "repeat_failure": 0,
            "completed_repetitions": self.sessions,
            "successful_repetitions": self.passes,
            "failed_repetitions": u32::from(!all),
            "flaky": false,
            "attempts": {"total": self.sessions, "passing": self.passes, "pass_rate": 0.0,
                         "pass_rate_95": {"low": 0.0, "high": 1.0}},
            "duration_ms": 1000,
            "usage": {},
            "artifact_dir": dir,
            "repetitions": repetitions,
        });
        if let Some((variant, baseline)) = self.variant {
            result["variant"] = json!(variant);
            result["baseline"] = json!(baseline);
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("result.json"), result.to_string()).unwrap();
    }
}

/// The two runs `nightly-1` (A) and `nightly-2` (B) in a fresh directory:
///
/// | execution | A | B |
/// |---|---|---|
/// | `[claude] greet` | 9/10, 100 tokens | 3/10, 150 tokens |
/// | `[claude] steady` | 5/10 | 6/10 |
/// | `[claude/without] lift` (baseline) | 3/10 | 3/10 |
/// | `[claude/with] lift` | 9/10 | 3/10 |
/// | `[claude] farewell` | 10/10 | - |
/// | `[claude] welcome` | - | 10/10 |
/// | `[codex] greet` | 4/4 | 4/4 |
///
/// claude's agent is version 2.1.330 in A and 2.1.332 in B; codex's the same in both.
fn runs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::Builder::new()
        .prefix("compare-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let (a, b) = (tmp.path().join("nightly-1"), tmp.path().join("nightly-2"));
    let codex = |e: Execution<'static>| Execution {
        runner: "codex",
        version: "0.46.0",
        ..e
    };
    for e in [
        Execution::new("greet", 9, 10),
        Execution::new("steady", 5, 10),
        Execution::new("lift", 3, 10).under("without", true),
        Execution::new("lift", 9, 10).under("with", false),
        Execution::new("farewell", 10, 10),
        codex(Execution::new("greet", 4, 4)),
    ] {
        e.write(&a);
    }
    let claude = |e: Execution<'static>| e.version("2.1.332");
    for e in [
        claude(Execution::new("greet", 3, 10).tokens(150)),
        claude(Execution::new("steady", 6, 10)),
        claude(Execution::new("lift", 3, 10).under("without", true)),
        claude(Execution::new("lift", 3, 10).under("with", false)),
        claude(Execution::new("welcome", 10, 10)),
        codex(Execution::new("greet", 4, 4)),
    ] {
        e.write(&b);
    }
    (tmp, a, b)
}

fn compare(args: &[&str], dirs: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "compare"])
        .args(dirs)
        .args(args)
        .output()
        .unwrap()
}

fn context(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn close(value: &Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-3)
}

#[test]
fn pass_rates_lifts_and_costs_change_with_their_intervals() {
    let (_tmp, a, b) = runs();
    let output = compare(&["--json"], &[&a, &b]);
    assert_eq!(output.status.code(), Some(0), "{}", context(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["run_a"], json!(["nightly-1"]));
    assert_eq!(document["run_b"], json!(["nightly-2"]));
    let execution = |case: &str, runner: &str, variant: Option<&str>| {
        document["executions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| {
                e["case_id"] == case
                    && e["runner_id"] == runner
                    && e.get("variant").and_then(Value::as_str) == variant
            })
            .unwrap_or_else(|| panic!("no {runner} {case} {variant:?} in {document:#}"))
    };

    // 9/10 -> 3/10: Newcombe (1998, table II) gives 9/10 - 3/10 a 95% interval of
    // 0.1705 to 0.8090, so B - A is -0.6 in -0.8090 to -0.1705; Fisher's p 0.019767.
    let greet = execution("greet", "claude", None);
    assert_eq!(
        (&greet["a"]["passed"], &greet["a"]["sessions"]),
        (&json!(9), &json!(10))
    );
    assert_eq!(
        (&greet["b"]["passed"], &greet["b"]["sessions"]),
        (&json!(3), &json!(10))
    );
    // Wilson's 95% interval of 3/10: 0.1078 to 0.6032.
    assert!(
        close(&greet["b"]["pass_rate_95"]["low"], 0.1078),
        "{greet:#}"
    );
    assert!(
        close(&greet["b"]["pass_rate_95"]["high"], 0.6032),
        "{greet:#}"
    );
    let change = &greet["change"];
    assert!(close(&change["difference"], -0.6), "{greet:#}");
    assert!(close(&change["interval"]["low"], -0.8090), "{greet:#}");
    assert!(close(&change["interval"]["high"], -0.1705), "{greet:#}");
    assert!(close(&change["p_value"], 0.019767), "{greet:#}");
    assert_eq!(change["direction"], "worse");
    assert_eq!(greet["tokens_delta"], 50.0);
    assert_eq!(greet["duration_delta_ms"], 0.0);
    assert!(
        greet.get("cost_delta_usd").is_none(),
        "no session had a cost"
    );

    let steady = execution("steady", "claude", None);
    assert_eq!(steady["change"]["direction"], "no-detectable-change");
    assert!(close(&steady["change"]["difference"], 0.1));
    assert_eq!(
        execution("greet", "codex", None)["change"]["direction"],
        "no-detectable-change"
    );
    assert_eq!(
        execution("lift", "claude", Some("with"))["change"]["direction"],
        "worse"
    );
    assert_eq!(document["executions"].as_array().unwrap().len(), 5);

    // The lift of `with` over `without`: +0.6 in 0.1705 to 0.8090 in A (helps); 0 in B, whose
    // interval from two Wilson intervals of 3/10 is ±0.3590. The change, -0.6, has the MOVER
    // interval -0.6 - sqrt(0.3590² + (0.8090 - 0.6)²) = -1.0154 to
    // -0.6 + sqrt(0.3590² + (0.6 - 0.1705)²) = -0.0402.
    let lifts = document["lifts"].as_array().unwrap();
    assert_eq!(
        lifts.len(),
        2,
        "the case's lift and the runner's pooled one"
    );
    let lift = &lifts[0];
    assert_eq!(
        (&lift["case_id"], &lift["baseline"], &lift["treatment"]),
        (&json!("lift"), &json!("without"), &json!("with"))
    );
    assert!(close(&lift["a"]["lift"], 0.6) && lift["a"]["verdict"] == "helps");
    assert!(close(&lift["b"]["lift"], 0.0) && lift["b"]["verdict"] == "no-detectable-effect");
    assert!(close(&lift["b"]["interval"]["high"], 0.3590), "{lift:#}");
    assert!(close(&lift["change"], -0.6));
    assert!(close(&lift["change_95"]["low"], -1.0154), "{lift:#}");
    assert!(close(&lift["change_95"]["high"], -0.0402), "{lift:#}");
    assert!(lifts[1].get("case_id").is_none(), "{:#}", lifts[1]);
    assert_eq!(lifts[1]["runner_id"], "claude");

    assert_eq!(
        document["only_in_a"],
        json!([{"case_id": "farewell", "runner_id": "claude"}])
    );
    assert_eq!(
        document["only_in_b"],
        json!([{"case_id": "welcome", "runner_id": "claude"}])
    );
}

#[test]
fn a_changed_agent_version_gets_a_warning() {
    let (_tmp, a, b) = runs();
    let output = compare(&[], &[&a, &b]);
    assert_eq!(output.status.code(), Some(0), "{}", context(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "warning: runner `claude` ran a different agent in the two runs (version 2.1.330 in A, 2.1.332 in B): its figures may not be comparable"
        ],
        "one warning, for claude only: {}",
        context(&output)
    );
    let json = compare(&["--json"], &[&a, &b]);
    let document: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(document["warnings"].as_array().unwrap().len(), 1);
    // The same run against itself: nothing differs.
    let same = compare(&[], &[&a, &a]);
    assert!(same.stderr.is_empty(), "{}", context(&same));
}

#[test]
fn fail_on_regression_exits_1_naming_what_got_worse() {
    let (_tmp, a, b) = runs();
    let output = compare(&["--fail-on-regression"], &[&a, &b]);
    assert_eq!(output.status.code(), Some(1), "{}", context(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "error: the pass rate surely got worse (95% interval below 0) for [claude] greet, [claude/with] lift\n"
        ),
        "{}",
        context(&output)
    );
    // B against A got worse; A against B got better: nothing fails.
    let reverse = compare(&["--fail-on-regression"], &[&b, &a]);
    assert_eq!(reverse.status.code(), Some(0), "{}", context(&reverse));
}

#[test]
fn a_directory_that_is_not_a_run_is_a_clear_error() {
    let (tmp, a, _) = runs();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = compare(&[], &[&a, &empty]);
    assert_eq!(output.status.code(), Some(2), "{}", context(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: no execution results (`<case>/<runner>/result.json` or `<case>/<runner>/<variant>/result.json`) in ")
            && stderr.contains(&empty.display().to_string()),
        "{}",
        context(&output)
    );
    assert!(output.stdout.is_empty());

    let missing = tmp.path().join("no-such-run");
    let output = compare(&[], &[&missing, &a]);
    assert_eq!(output.status.code(), Some(2), "{}", context(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .starts_with(&format!("error: cannot read {}: ", missing.display())),
        "{}",
        context(&output)
    );

    let broken = tmp.path().join("broken");
    std::fs::create_dir_all(broken.join("x/claude")).unwrap();
    std::fs::write(broken.join("x/claude/result.json"), "{\"case_id\": 3}").unwrap();
    let output = compare(&[], &[&a, &broken]);
    assert_eq!(output.status.code(), Some(2), "{}", context(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("result.json is not an execution's result: "),
        "{}",
        context(&output)
    );

    let one = compare(&[], &[&a]);
    assert_eq!(one.status.code(), Some(2), "{}", context(&one));
    assert!(
        String::from_utf8_lossy(&one.stderr).contains("<RUN_B>"),
        "{}",
        context(&one)
    );
}

#[test]
fn the_book_example_is_this_comparison() {
    let (_tmp, a, b) = runs();
    let output = compare(&[], &[&a, &b]);
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reports.md"),
    )
    .unwrap();
    let section = readme
        .split("\n## Comparing runs: `cargo skillgym compare`\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the Reports page's section on compare");
    let shown: Vec<&str> = section
        .split("```text\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert_eq!(
        shown,
        [
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ],
        "the Reports page shows this test's output and its warning"
    );
}
