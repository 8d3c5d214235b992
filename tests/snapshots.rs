//! Token snapshots end to end: the example harness runs a declarative suite on the scriptable
//! fake agent (its script is the case's prompt, so each case says how many tokens it used),
//! with a `snapshots:` section; `cargo skillgym review` accepts and rejects pending values.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use skillgym_e2e::{TempDir, cargo_skillgym, run_examples_on, stderr, stdout, temp_dir};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// A case's prompt: the fake agent answers `text` and reports `input` + `output` tokens.
fn script(text: &str, input: u64, output: u64) -> String {
    let answer = json!({"type": "message", "role": "assistant", "phase": "final", "text": text});
    let usage = json!({"type": "usage", "input_tokens": input, "output_tokens": output});
    format!("emit {answer}\nemit {usage}")
}

/// A directory with a `skillgym.yaml` (the `fake` runner, `snapshots` as given) and a suite
/// `bench` whose cases (id, prompt, extra case.yaml lines) each assert that the answer says
/// `done`.
struct Bench {
    dir: TempDir,
}

impl Bench {
    fn new(label: &str, snapshots: &str, cases: &[(&str, String, &str)]) -> Bench {
        let dir = temp_dir(label);
        let root = dir.path();
        let state = root.join("state");
        fs::create_dir_all(&state).unwrap();
        let yaml = format!(
            "{snapshots}\nsuites: [bench]\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env: {{ FAKE_AGENT_SCRIPT: \"-\", FAKE_AGENT_STATE_DIR: {} }}\n",
            state.display()
        );
        fs::write(root.join("skillgym.yaml"), yaml).unwrap();
        fs::create_dir_all(root.join("bench/cases")).unwrap();
        fs::write(
            root.join("bench/EVAL.yaml"),
            "name: bench\nassertions: [{ type: contains, value: done }]\ntests: ./cases/\n",
        )
        .unwrap();
        for (id, prompt, extra) in cases {
            let case = root.join("bench/cases").join(id);
            fs::create_dir_all(&case).unwrap();
            let indented = prompt.replace('\n', "\n  ");
            fs::write(
                case.join("case.yaml"),
                format!("input: |\n  {indented}\n{extra}"),
            )
            .unwrap();
        }
        Bench { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn baseline(&self) -> PathBuf {
        self.root().join("skillgym.snapshots.json")
    }

    fn pending(&self) -> PathBuf {
        self.root().join("skillgym.snapshots.json.new")
    }

    /// Runs the suite's cases on `fake`; `CI` is unset unless `env` sets it.
    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut all = args.to_vec();
        all.push("bench::");
        let mut vars = vec![("CI", "")];
        vars.extend_from_slice(env);
        let (config, runs) = (self.root().join("skillgym.yaml"), self.root().join("runs"));
        run_examples_on(&config, "fake", &runs, &all, &vars)
    }

    /// `cargo skillgym review ARGS` in the bench directory, `input` piped to it.
    fn review(&self, args: &[&str], input: &str) -> Output {
        let mut child = Command::new(cargo_skillgym())
            .arg("review")
            .args(args)
            .current_dir(self.root())
            .env_remove("SKILLGYM_CONFIG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cargo-skillgym runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Writes the baseline with these (key, value) entries of `total_tokens`.
    fn write_baseline(&self, entries: &[(&str, u64)]) {
        let entries: serde_json::Map<String, Value> = entries
            .iter()
            .map(|(key, value)| {
                let entry = json!({"metric": "total_tokens", "value": value, "agent": "command", "updated_at": "2026-01-01T00:00:00.000Z"});
                ((*key).to_owned(), entry)
            })
            .collect();
        let text = serde_json::to_string_pretty(&json!({"version": 1, "entries": entries}));
        fs::write(self.baseline(), text.unwrap()).unwrap();
    }

    /// The value of `key` in the file at `path`, `None` when the file or entry is missing.
    fn value(path: &Path, key: &str) -> Option<f64> {
        let text = fs::read_to_string(path).ok()?;
        let file: Value = serde_json::from_str(&text).unwrap();
        file["entries"][key]["value"].as_f64()
    }

    /// The execution of `case` in the latest run's `results.json`.
    fn execution(&self, case: &str) -> Value {
        let runs = self.root().join("runs");
        let latest = runs.join(fs::read_link(runs.join("latest")).unwrap());
        let results: Value =
            serde_json::from_str(&fs::read_to_string(latest.join("results.json")).unwrap())
                .unwrap();
        results["executions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["case_id"] == case)
            .unwrap_or_else(|| panic!("no execution of {case}"))
            .clone()
    }
}

const ABSOLUTE: &str = "snapshots: { tolerance: { absolute: 100 } }";
const PERCENT: &str = "snapshots: { tolerance: { percent: 10 } }";

fn small() -> (&'static str, String, &'static str) {
    ("small", script("done", 900, 100), "")
}

#[test]
fn a_new_value_waits_for_review_and_is_then_the_baseline() {
    let bench = Bench::new("snap-create", ABSOLUTE, &[small()]);
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stdout(&output)
            .contains("skillgym: 1 snapshot value pending review: run `cargo skillgym review`"),
        "{}",
        stdout(&output)
    );
    assert!(!bench.baseline().exists(), "nothing is baselined silently");
    assert_eq!(
        Bench::value(&bench.pending(), "bench::small::fake"),
        Some(1000.0)
    );
    let snapshot = &bench.execution("bench::small")["snapshot"];
    assert_eq!(
        snapshot,
        &json!({"key": "bench::small::fake", "metric": "total_tokens", "value": 1000.0, "verdict": "missing", "pending": true})
    );

    let review = bench.review(&[], "a\n");
    assert!(review.status.success(), "{}", stderr(&review));
    let text = stdout(&review);
    assert!(
        text.contains("[1/1] bench::small::fake\n  total_tokens: no baseline -> 1,000"),
        "{text}"
    );
    assert!(
        text.contains("accept? [a]ccept / [r]eject / [s]kip: "),
        "{text}"
    );
    assert!(
        text.contains("skillgym review: 1 accepted, 0 rejected, 0 skipped; baseline: "),
        "{text}"
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(1000.0)
    );
    assert!(!bench.pending().exists(), "an empty .new file is removed");

    // Now it passes against the baseline, and nothing more waits.
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(!stdout(&output).contains("pending review"));
    assert_eq!(
        bench.execution("bench::small")["snapshot"]["verdict"],
        "passed"
    );
    let review = bench.review(&[], "");
    assert!(review.status.success());
    assert!(
        stdout(&review).contains("skillgym review: no snapshot values pending review"),
        "{}",
        stdout(&review)
    );
}

#[test]
fn an_absolute_tolerance_passes_within_and_fails_beyond() {
    let bench = Bench::new("snap-absolute", ABSOLUTE, &[small()]);
    bench.write_baseline(&[("bench::small::fake", 900)]);
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        bench.execution("bench::small")["snapshot"]["allowed"],
        json!({"low": 800.0, "high": 1000.0})
    );

    bench.write_baseline(&[("bench::small::fake", 899)]);
    let output = bench.run(&[], &[]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains("snapshot `bench::small::fake`: total_tokens 1,000 is above the allowed 999 (baseline 899, +101, +11.2%)\n  tolerance: ±100\n  accept it: `cargo skillgym review` (the value waits in "),
        "{text}"
    );
    assert!(
        text.contains("skillgym: Snapshot verification (snapshot): 1"),
        "{text}"
    );
    let execution = bench.execution("bench::small");
    assert_eq!(execution["status"], "failed");
    assert_eq!(execution["failure"]["origin"], "snapshot");
    assert_eq!(execution["snapshot"]["verdict"], "exceeded");
    assert_eq!(
        Bench::value(&bench.pending(), "bench::small::fake"),
        Some(1000.0)
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(899.0),
        "the baseline is untouched"
    );
}

#[test]
fn a_percent_tolerance_passes_within_and_fails_beyond() {
    let bench = Bench::new("snap-percent", PERCENT, &[small()]);
    bench.write_baseline(&[("bench::small::fake", 910)]);
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    bench.write_baseline(&[("bench::small::fake", 900)]);
    let output = bench.run(&[], &[]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("total_tokens 1,000 is above the allowed 990 (baseline 900, +100, +11.1%)\n  tolerance: ±10%"),
        "{}",
        stdout(&output)
    );
    // A drop beyond the tolerance passes and is proposed as the new baseline.
    bench.write_baseline(&[("bench::small::fake", 1200)]);
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        bench.execution("bench::small")["snapshot"]["verdict"],
        "improved"
    );
    assert!(stdout(&output).contains("1 snapshot value pending review"));
}

#[test]
fn update_snapshots_rewrites_the_baseline_even_under_ci() {
    let bench = Bench::new(
        "snap-update",
        ABSOLUTE,
        &[small(), ("other", script("done", 40, 2), "")],
    );
    bench.write_baseline(&[("bench::small::fake", 100), ("bench::gone::fake", 7)]);
    fs::write(bench.pending(), fs::read(bench.baseline()).unwrap()).unwrap();
    let output = bench.run(&["--update-snapshots"], &[("CI", "true")]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(1000.0)
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::other::fake"),
        Some(42.0)
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::gone::fake"),
        Some(7.0),
        "other keys are kept"
    );
    assert_eq!(
        Bench::value(&bench.pending(), "bench::small::fake"),
        None,
        "an updated key leaves .new"
    );
    let small = bench.execution("bench::small");
    assert_eq!(
        (
            &small["snapshot"]["verdict"],
            &small["snapshot"]["baseline"]
        ),
        (&json!("updated"), &json!(100.0))
    );
    assert_eq!(
        bench.execution("bench::other")["snapshot"]["verdict"],
        "created"
    );
    let text = fs::read_to_string(bench.baseline()).unwrap();
    let keys: Vec<usize> = ["bench::gone", "bench::other", "bench::small"]
        .iter()
        .map(|key| text.find(key).unwrap())
        .collect();
    assert!(keys.is_sorted(), "keys sorted: {text}");
    assert!(text.contains("\"value\": 1000,"), "{text}");

    // The variable does the same.
    bench.write_baseline(&[("bench::small::fake", 100)]);
    let output = bench.run(&[], &[("SKILLGYM_UPDATE_SNAPSHOTS", "1")]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(1000.0)
    );
}

#[test]
fn review_rejects_skips_and_accepts_all() {
    let bench = Bench::new(
        "snap-review",
        ABSOLUTE,
        &[small(), ("other", script("done", 40, 2), "")],
    );
    bench.write_baseline(&[("bench::other::fake", 500)]);
    let output = bench.run(&[], &[]);
    assert!(
        output.status.success(),
        "an improvement passes: {}",
        stdout(&output)
    );
    assert!(
        stdout(&output).contains("2 snapshot values pending review"),
        "{}",
        stdout(&output)
    );
    // Sorted by key: `other` first (an improvement), then `small` (new).
    let review = bench.review(&[], "x\nr\ns\n");
    assert!(review.status.success(), "{}", stderr(&review));
    let text = stdout(&review);
    assert!(
        text.contains("[1/2] bench::other::fake\n  total_tokens: 500 -> 42 (-458, -91.6%)"),
        "{text}"
    );
    assert!(
        text.contains("`x` is not an answer: type a, r or s"),
        "{text}"
    );
    assert!(
        text.contains("skillgym review: 0 accepted, 1 rejected, 1 skipped"),
        "{text}"
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::other::fake"),
        Some(500.0)
    );
    assert_eq!(Bench::value(&bench.pending(), "bench::other::fake"), None);
    assert_eq!(
        Bench::value(&bench.pending(), "bench::small::fake"),
        Some(1000.0)
    );

    let review = bench.review(&["--accept"], "");
    assert!(review.status.success(), "{}", stderr(&review));
    assert!(
        stdout(&review).contains("1 accepted, 0 rejected, 0 skipped"),
        "{}",
        stdout(&review)
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(1000.0)
    );
    assert!(!bench.pending().exists());

    // `--reject` drops without asking; `--snapshots` names the file directly.
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        Bench::value(&bench.pending(), "bench::other::fake"),
        Some(42.0),
        "the rejected improvement is proposed again"
    );
    let review = bench.review(&["--reject", "--snapshots", "skillgym.snapshots.json"], "");
    assert!(stdout(&review).contains("0 accepted, 1 rejected, 0 skipped"));
    assert!(!bench.pending().exists());
}

#[test]
fn under_ci_a_missing_baseline_fails_and_nothing_is_written() {
    let bench = Bench::new("snap-ci", ABSOLUTE, &[small()]);
    let output = bench.run(&[], &[("CI", "1")]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "snapshot `bench::small::fake`: no total_tokens baseline in {}; the value was 1,000, and under CI none is recorded",
            bench.baseline().display()
        )),
        "{text}"
    );
    assert!(!bench.baseline().exists() && !bench.pending().exists());
    // A value beyond the tolerance is not written either.
    bench.write_baseline(&[("bench::small::fake", 10)]);
    let output = bench.run(&[], &[("CI", "1")]);
    assert_eq!(output.status.code(), Some(101));
    assert!(!bench.pending().exists());
    assert_eq!(
        bench.execution("bench::small")["snapshot"]["verdict"],
        "exceeded"
    );
}

#[test]
fn failed_executions_are_never_baselined_and_keep_their_failure() {
    let bench = Bench::new(
        "snap-failed",
        ABSOLUTE,
        &[small(), ("wrong", script("nope", 5000, 5000), "")],
    );
    bench.write_baseline(&[("bench::small::fake", 10), ("bench::wrong::fake", 10)]);
    let output = bench.run(&[], &[]);
    assert_eq!(output.status.code(), Some(101));
    let text = stdout(&output);
    // Both failures are shown, each under its own class.
    assert!(
        text.contains("skillgym: Snapshot verification (snapshot): 1"),
        "{text}"
    );
    assert!(text.contains("(grader): 1"), "{text}");
    let wrong = bench.execution("bench::wrong");
    assert_eq!(wrong["failure"]["origin"], "grader", "not replaced");
    assert!(wrong.get("snapshot").is_none(), "{wrong}");
    assert_eq!(Bench::value(&bench.pending(), "bench::wrong::fake"), None);

    let output = bench.run(&["--update-snapshots"], &[]);
    assert_eq!(output.status.code(), Some(101));
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::wrong::fake"),
        Some(10.0),
        "not even with --update-snapshots"
    );
    assert_eq!(
        Bench::value(&bench.baseline(), "bench::small::fake"),
        Some(1000.0)
    );
}

#[test]
fn repeats_compare_the_mean_of_their_final_attempts() {
    // Call 1 passes with 1,000 tokens; call 2 fails its check with 90,000 (retried, not
    // counted); call 3 passes with 2,000: the figure is 1,500.
    let prompt = format!(
        "count calls\non 1 {}\non 2 {}\non 3 {}",
        script("done", 900, 100).replace('\n', "\non 1 "),
        script("nope", 90_000, 0).replace('\n', "\non 2 "),
        script("done", 1900, 100).replace('\n', "\non 3 "),
    );
    let bench = Bench::new(
        "snap-repeat",
        ABSOLUTE,
        &[("twice", prompt, "repeat: 2\nrepeat_failure: 1\n")],
    );
    bench.write_baseline(&[("bench::twice::fake", 1450)]);
    let output = bench.run(&[], &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    let execution = bench.execution("bench::twice");
    assert_eq!(execution["attempts"]["total"], 3);
    assert_eq!(execution["snapshot"]["value"], 1500.0);
    assert_eq!(execution["snapshot"]["verdict"], "passed");
}

#[test]
fn bad_snapshot_setups_stop_the_run_before_any_agent() {
    let bench = Bench::new("snap-bad", ABSOLUTE, &[small()]);
    fs::write(bench.baseline(), "{\n  \"version\": 1,\n  \"entries\": [\n").unwrap();
    let output = bench.run(&[], &[]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "error: {}:3:13: invalid snapshots file: invalid type: sequence, expected a map",
            bench.baseline().display()
        )),
        "{err}"
    );
    assert!(!bench.root().join("runs").exists(), "nothing ran");

    let bench = Bench::new("snap-off", "", &[small()]);
    let output = bench.run(&["--update-snapshots"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("`--update-snapshots` has nothing to update: token snapshots are off"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_book_page_shows_a_valid_config() {
    use skillgym_harness::config::{Config, Improvements, SnapshotMetric, Tolerance};

    let section =
        fs::read_to_string(skillgym_e2e::workspace_root().join("docs/src/snapshots.md")).unwrap();
    let yaml = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a yaml block");
    let config = Config::parse(Path::new("/repo/skillgym.yaml"), yaml).unwrap();
    let snapshots = config.snapshots.expect("the section");
    assert_eq!(
        snapshots.path,
        PathBuf::from("/repo/skillgym.snapshots.json")
    );
    assert_eq!(snapshots.metric, SnapshotMetric::TotalTokens);
    assert_eq!(snapshots.tolerance, Tolerance::new(Some(200.0), Some(10.0)));
    assert_eq!(snapshots.improvements, Improvements::Pass);
}
