//! `cargo skillgym report`: the runs of nextest's processes, and the shards of a partitioned
//! run, merged into one summary and one set of reporter files.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use skillgym_e2e::{cargo_skillgym, execution_names, run_examples, stderr, stdout, temp_dir};

/// One "shard": each trial of `names` in its own process, as nextest runs them, sharing the
/// run `run_id` under `output_dir`.
fn shard(output_dir: &Path, run_id: &str, names: &[&str], env: &[(&str, &str)]) {
    let mut env: Vec<(&str, &str)> = env.to_vec();
    env.extend([
        ("NEXTEST_RUN_ID", run_id),
        ("NEXTEST_EXECUTION_MODE", "process-per-test"),
    ]);
    for name in names {
        let output = run_examples(
            &[
                "--exact",
                name,
                "--nocapture",
                "--output-dir",
                output_dir.to_str().unwrap(),
            ],
            &env,
        );
        let text = stdout(&output);
        assert!(
            text.contains(&format!("skillgym: {name}: ")),
            "each process says what its execution did: {text}"
        );
    }
}

fn report(args: &[&str]) -> Output {
    Command::new(cargo_skillgym())
        .arg("skillgym")
        .arg("report")
        .args(args)
        .output()
        .expect("cargo-skillgym runs")
}

#[test]
fn two_nextest_shards_merge_into_one_report() {
    let out = temp_dir("report-merge");
    let runs = out.path().join("runs");
    shard(
        &runs,
        "shard-1",
        &["[careful] always_passes", "[careful] showcase::greets"],
        &[],
    );
    shard(
        &runs,
        "shard-2",
        &[
            "[hasty] always_passes",
            "[hasty] known_gap_explicit_skill_load",
        ],
        &[],
    );
    let merged = out.path().join("merged");
    let output = report(&[
        runs.join("shard-1").to_str().unwrap(),
        runs.join("shard-2").to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(
        text.contains(
            "skillgym: careful  command  -        -           2       0      0      0        0"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "skillgym: hasty    command  -        -           1       0      1      0        0"
        ),
        "{text}"
    );
    assert!(
        text.contains("skillgym: 4 executions: 3 passed, 0 failed, 1 expected-failed, 0 unexpected-passed, 0 skipped"),
        "{text}"
    );
    let results: Value =
        serde_json::from_str(&fs::read_to_string(merged.join("results.json")).unwrap()).unwrap();
    assert_eq!(
        results["run_ids"],
        serde_json::json!(["shard-1", "shard-2"])
    );
    let names = execution_names(&results);
    assert_eq!(
        names,
        [
            "[careful] always_passes",
            "[hasty] always_passes",
            "[hasty] known_gap_explicit_skill_load",
            "[careful] showcase::greets",
        ]
    );
    assert!(
        text.contains(&format!(
            "skillgym: json-summary: {}",
            merged.join("summary.json").display()
        )),
        "{text}"
    );
}

#[test]
fn a_failed_execution_makes_the_report_exit_1_and_bad_input_exit_2() {
    let out = temp_dir("report-fail");
    let dir = out.path();
    let config = dir.join("skillgym.yaml");
    fs::write(
        &config,
        format!(
            "runners:\n  fake:\n    agent:\n      type: command\n      command: {}\n      env: {{ FAKE_AGENT_SCRIPT: echo-prompt }}\n",
            env!("CARGO_BIN_EXE_fake-agent")
        ),
    )
    .unwrap();
    let runs = dir.join("runs");
    let output = run_examples(
        &[
            "--config",
            config.to_str().unwrap(),
            "--runner",
            "fake",
            "--exact",
            "always_passes",
            "--output-dir",
            runs.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(101));
    let latest = runs.join("latest");
    let output = report(&[latest.to_str().unwrap(), "--reporter", "json-summary"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains("skillgym: Assertion failure (assertion): 1"),
        "{text}"
    );
    assert!(text.contains("skillgym:   [fake] always_passes: expected the final output to be \"skillgym ready\" (trimmed)"), "{text}");
    assert!(latest.join("summary.json").is_file());

    let two = report(&[latest.to_str().unwrap(), latest.to_str().unwrap()]);
    assert_eq!(two.status.code(), Some(2));
    assert!(stderr(&two).contains("--out <DIR>"), "{}", stderr(&two));
    let unknown = report(&[latest.to_str().unwrap(), "--reporter", "jsn"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown reporter `jsn`"),
        "{}",
        stderr(&unknown)
    );
    let empty = report(&[dir.join("nothing").to_str().unwrap()]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(stderr(&empty).contains("cannot read"), "{}", stderr(&empty));
}

/// `cargo nextest run --partition hash:<k>/<of>` of the example suite into the run `run_id`,
/// with more `env` (and nextest's test-name `filters`).
fn nextest_partition_of(
    (k, of): (u32, u32),
    run_id: &str,
    output_dir: &Path,
    env: &[(&str, &OsStr)],
    filters: &[&str],
) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "nextest",
            "run",
            "-p",
            "skillgym-examples",
            "--test",
            "benchmarks",
        ])
        .args(["--partition", &format!("hash:{k}/{of}"), "--no-fail-fast"])
        .args(filters)
        .current_dir(skillgym_e2e::workspace_root());
    // The outer test runner's SKILLGYM_* and NEXTEST* variables must not leak in.
    skillgym_e2e::without_outer_runner_env(&mut command);
    command
        .env("SKILLGYM_RUN_ID", run_id)
        .env("SKILLGYM_OUTPUT_DIR", output_dir)
        .envs(env.iter().copied())
        .output()
        .expect("cargo nextest runs (cargo install cargo-nextest; .ci/run does)")
}

/// `cargo nextest run --partition hash:<k>/2` of the example suite into the run `run_id`.
fn nextest_partition(k: u32, run_id: &str, output_dir: &Path) -> Output {
    nextest_partition_of((k, 2), run_id, output_dir, &[], &[])
}

#[test]
fn two_real_nextest_partitions_merge_into_the_whole_run() {
    let out = temp_dir("report-nextest");
    let runs = out.path().join("runs");
    for k in [1, 2] {
        let output = nextest_partition(k, &format!("part-{k}"), &runs);
        assert!(
            output.status.success(),
            "partition {k}:\n{}\n{}",
            stdout(&output),
            stderr(&output)
        );
    }
    let merged = out.path().join("merged");
    let output = report(&[
        runs.join("part-1").to_str().unwrap(),
        runs.join("part-2").to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "--reporter",
        "json",
    ]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(
        text.contains("skillgym: 14 executions: 12 passed, 0 failed, 2 expected-failed, 0 unexpected-passed, 0 skipped"),
        "the two partitions together are the whole suite: {text}"
    );
    let results: Value =
        serde_json::from_str(&fs::read_to_string(merged.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["executions"].as_array().unwrap().len(), 14);
    for k in [1, 2] {
        let part = results["executions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                e["artifact_dir"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("/part-{k}/"))
            })
            .count();
        assert!(part > 0, "partition {k} ran something");
    }
}

#[test]
fn merged_runs_with_different_versions_of_an_agent_get_a_warning() {
    let out = temp_dir("report-versions");
    let dir = out.path();
    let runs = dir.join("runs");
    // One run per version of the fake agent, each of another case.
    for (run, version, case) in [
        ("v1", "1.0.0", "always_passes"),
        ("v2", "2.0.0", "summarizes_from_prompt_file"),
    ] {
        let config = dir.join(format!("{run}.yaml"));
        fs::write(
            &config,
            format!(
                "runners:\n  fake:\n    agent:\n      type: command\n      command: {}\n      version_args: [--version]\n      env: {{ FAKE_AGENT_VERSION_SCRIPT: \"print fake-agent {version}\" }}\n",
                env!("CARGO_BIN_EXE_fake-agent")
            ),
        )
        .unwrap();
        run_examples(
            &[
                "--config",
                config.to_str().unwrap(),
                "--runner",
                "fake",
                "--exact",
                case,
                "--output-dir",
                runs.to_str().unwrap(),
            ],
            &[("SKILLGYM_RUN_ID", run)],
        );
        assert!(runs.join(run).join(case).join("fake/result.json").is_file());
    }
    let merged = dir.join("merged");
    let output = report(&[
        runs.join("v1").to_str().unwrap(),
        runs.join("v2").to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "--reporter",
        "junit",
    ]);
    assert_eq!(
        stderr(&output),
        "warning: runner `fake` ran different versions of its agent in the merged runs: command 1.0.0 (run v1); command 2.0.0 (run v2); their results may not be comparable\n"
    );
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|line| line.starts_with("skillgym: fake "))
        .unwrap_or_else(|| panic!("a row for `fake`: {text}"));
    assert!(row.contains("  command  1.0.0, 2.0.0  -  "), "{row}");
    let junit = fs::read_to_string(merged.join("junit.xml")).unwrap();
    assert!(
        junit.contains("    <properties>\n      <property name=\"agent\" value=\"command\"/>\n      <property name=\"agent.version\" value=\"1.0.0, 2.0.0\"/>\n    </properties>\n"),
        "{junit}"
    );

    let one = report(&[runs.join("v1").to_str().unwrap(), "--reporter", "junit"]);
    assert_eq!(stderr(&one), "", "one run: one version");
}

/// Each execution's trial name and status in a `results.json`, sorted by name.
fn trial_verdicts(results: &Path) -> Vec<(String, String)> {
    let results: Value = serde_json::from_str(&fs::read_to_string(results).unwrap()).unwrap();
    let names = execution_names(&results);
    let statuses = results["executions"].as_array().unwrap().iter();
    let mut verdicts: Vec<(String, String)> = names
        .into_iter()
        .zip(statuses.map(|e| e["status"].as_str().unwrap().to_owned()))
        .collect();
    verdicts.sort();
    verdicts
}

/// The recipe of the book's "Running" page at scale: a suite of 2,000 discovered cases run as
/// four nextest partitions into four run directories, each trial in its own process (each
/// reading the suite's index and its own case file only), merged by `cargo skillgym report`:
/// the same verdicts as the whole suite run in one process.
#[test]
fn four_nextest_partitions_of_a_2000_case_suite_merge_into_the_in_process_verdicts() {
    const CASES: usize = 2_000;
    let out = temp_dir("report-scale");
    let suite = out.path().join("big");
    fs::create_dir_all(suite.join("cases")).unwrap();
    fs::write(
        suite.join("EVAL.yaml"),
        "name: big\nassertions:\n  - type: contains\n    value: good\ntests: ./cases/\n",
    )
    .unwrap();
    for i in 0..CASES {
        // Every seventh case's agent answers without the word the grader wants.
        let said = if i % 7 == 3 { "nope" } else { "all good" };
        let event = serde_json::json!({"type": "message", "role": "assistant", "phase": "final", "text": said});
        let dir = suite.join(format!("cases/case-{i:04}"));
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("case.yaml"), format!("input: |\n  emit {event}\n")).unwrap();
    }
    let config = out.path().join("skillgym.yaml");
    fs::write(
        &config,
        format!(
            "suites: [big]\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {}\n      env: {{ FAKE_AGENT_SCRIPT: \"-\" }}\n",
            env!("CARGO_BIN_EXE_fake-agent")
        ),
    )
    .unwrap();
    let runs = out.path().join("runs");
    let env: [(&str, &OsStr); 2] = [
        ("SKILLGYM_CONFIG", config.as_os_str()),
        ("SKILLGYM_RUNNER", OsStr::new("fake")),
    ];
    for k in 1..=4 {
        let output = nextest_partition_of((k, 4), &format!("part-{k}"), &runs, &env, &["big::"]);
        assert_eq!(
            output.status.code(),
            Some(100),
            "partition {k} runs, and fails on the failing cases:\n{}",
            stderr(&output)
        );
    }
    let merged = out.path().join("merged");
    let parts: Vec<String> = (1..=4)
        .map(|k| runs.join(format!("part-{k}")).display().to_string())
        .collect();
    let mut args: Vec<&str> = parts.iter().map(String::as_str).collect();
    args.extend(["--out", merged.to_str().unwrap(), "--reporter", "json"]);
    let output = report(&args);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let failing = (0..CASES).filter(|i| i % 7 == 3).count();
    let summary = format!(
        "skillgym: {CASES} executions: {} passed, {failing} failed, 0 expected-failed",
        CASES - failing
    );
    assert!(stdout(&output).contains(&summary), "{}", stdout(&output));
    let in_process = out.path().join("in-process");
    let whole = skillgym_e2e::run_examples_on(&config, "fake", &in_process, &["big::"], &[]);
    assert_eq!(whole.status.code(), Some(101), "{}", stderr(&whole));
    let whole_results = fs::read_link(in_process.join("latest")).unwrap();
    let whole_verdicts = trial_verdicts(&in_process.join(whole_results).join("results.json"));
    assert_eq!(whole_verdicts.len(), CASES);
    assert_eq!(trial_verdicts(&merged.join("results.json")), whole_verdicts);
}

/// What each execution of a `results.json` ended as: (case, runner, variant, status, passed).
fn verdicts(results: &Value) -> Vec<(String, String, String, String, bool)> {
    results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_owned();
            (
                text("case_id"),
                text("runner_id"),
                text("variant"),
                text("status"),
                e["passed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn partitions_merge_into_the_verdicts_of_one_run() {
    let out = temp_dir("report-partitions");
    let one = skillgym_e2e::big_runs::write_partitions(&out.path().join("one"), 2_000, 1);
    let four = skillgym_e2e::big_runs::write_partitions(&out.path().join("four"), 2_000, 4);
    let mut documents = Vec::new();
    for (name, runs) in [("one", &one), ("four", &four)] {
        let dir = out.path().join(format!("{name}-report"));
        let mut args = vec![
            "--reporter",
            "json,json-summary",
            "--out",
            dir.to_str().unwrap(),
        ];
        args.extend(runs.iter().map(|r| r.to_str().unwrap()));
        let output = report(&args);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let read = |file: &str| -> Value {
            serde_json::from_str(&fs::read_to_string(dir.join(file)).unwrap()).unwrap()
        };
        documents.push((stdout(&output), read("results.json"), read("summary.json")));
    }
    let (one, four) = (&documents[0], &documents[1]);
    assert_eq!(verdicts(&four.1), verdicts(&one.1));
    assert_eq!(verdicts(&four.1).len(), 2_001);
    assert_eq!(four.1["summary"], one.1["summary"]);
    assert_eq!(four.2["runners"], one.2["runners"]);
    assert_eq!(four.1["experiment"], one.1["experiment"]);
    assert_eq!(four.2["executions"].as_array().unwrap().len(), 2_001);
    // The console summary counts the same (the run ids aside).
    let counts = |text: &str| -> String {
        text.lines()
            .filter(|line| line.contains("executions") || line.contains("passed"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(counts(&four.0), counts(&one.0));
    assert!(four.1["run_ids"].as_array().unwrap().len() == 4);
}
