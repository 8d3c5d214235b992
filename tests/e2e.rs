//! End-to-end tests: the example suite's harness binary driven as `cargo test` and nextest
//! drive it, with the example agent and the scriptable fake agent.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use skillgym_e2e::{
    examples_dir, examples_harness, execution_names, process_exists, run_examples,
    run_examples_on_terminal, screen_lines, stderr, stdout, temp_dir, trial_lines,
    without_outer_runner_env, without_styles,
};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// Writes a `skillgym.yaml` into `dir` and returns its path.
fn write_config(dir: &Path, yaml: &str) -> PathBuf {
    let path = dir.join("skillgym.yaml");
    fs::write(&path, yaml).unwrap();
    path
}

/// A config with one fake-agent runner `fake` running `script`.
fn fake_runner_config(dir: &Path, script: &str, extra: &str) -> PathBuf {
    let yaml = format!(
        "{extra}runners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env:\n        FAKE_AGENT_SCRIPT: {}\n",
        serde_json::to_string(script).unwrap()
    );
    write_config(dir, &yaml)
}

/// Runs the example harness with the config in `dir`, writing artifacts to `<dir>/runs`.
fn run_with_config(dir: &Path, config: &Path, args: &[&str]) -> std::process::Output {
    let output_dir = dir.join("runs");
    let mut all = vec![
        "--config",
        config.to_str().unwrap(),
        "--output-dir",
        output_dir.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run_examples(&all, &[])
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The single run directory under an output directory (`latest` excluded).
fn only_run_dir(output_dir: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = fs::read_dir(output_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "latest" && p.is_dir() && !p.is_symlink())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.into_iter().next().unwrap()
}

const ALL_TRIALS: [&str; 14] = [
    "[careful] always_passes",
    "[careful] known_gap_explicit_skill_load",
    "[careful] showcase::appends-changelog",
    "[careful] showcase::finds-expo-skill",
    "[careful] showcase::greets",
    "[careful] skills::find_skills_expo",
    "[careful] skills::suggests_install_command",
    "[careful] summarizes_from_prompt_file",
    "[hasty] always_passes",
    "[hasty] known_gap_explicit_skill_load",
    "[hasty] showcase::appends-changelog",
    "[hasty] showcase::greets",
    "[hasty] skills::suggests_install_command",
    "[hasty] summarizes_from_prompt_file",
];

#[test]
fn list_prints_every_trial_sorted_by_case_then_runner() {
    let out = temp_dir("list");
    let output_dir = out.path().join("runs");
    let output = run_examples(
        &["--list", "--output-dir", output_dir.to_str().unwrap()],
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "\
[careful] always_passes: test
[hasty] always_passes: test
[careful] known_gap_explicit_skill_load: test
[hasty] known_gap_explicit_skill_load: test
[careful] showcase::appends-changelog: test
[hasty] showcase::appends-changelog: test
[careful] showcase::finds-expo-skill: test
[careful] showcase::greets: test
[hasty] showcase::greets: test
[careful] skills::find_skills_expo: test
[careful] skills::suggests_install_command: test
[hasty] skills::suggests_install_command: test
[careful] summarizes_from_prompt_file: test
[hasty] summarizes_from_prompt_file: test
"
    );
    assert!(!output_dir.exists(), "--list must not write anything");
    let terse = run_examples(&["--list", "--format", "terse", "--ignored"], &[]);
    assert!(terse.status.success());
    assert_eq!(stdout(&terse), "", "no case is ignored");
}

#[test]
fn full_run_prints_every_trial_and_a_summary() {
    let out = temp_dir("full");
    let output = run_examples(&["--output-dir", out.path().to_str().unwrap()], &[]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let expected: Vec<String> = ALL_TRIALS.iter().map(|t| format!("{t} ok")).collect();
    assert_eq!(trial_lines(&output), expected);
    let text = stdout(&output);
    assert!(
        text.contains("test result: ok. 14 passed; 0 failed"),
        "{text}"
    );
    assert!(
        text.contains(
            "skillgym: 14 executions: 12 passed, 0 failed, 2 expected-failed, 0 unexpected-passed"
        ),
        "{text}"
    );
}

#[test]
fn name_filter_selects_cases_on_every_runner() {
    let output = run_examples(&["--list", "skills::"], &[]);
    assert_eq!(
        stdout(&output),
        "[careful] skills::find_skills_expo: test\n[careful] skills::suggests_install_command: test\n[hasty] skills::suggests_install_command: test\n"
    );
    let out = temp_dir("filter");
    let run = run_examples(
        &["summarizes", "--output-dir", out.path().to_str().unwrap()],
        &[],
    );
    assert_eq!(
        trial_lines(&run),
        [
            "[careful] summarizes_from_prompt_file ok",
            "[hasty] summarizes_from_prompt_file ok"
        ]
    );
}

#[test]
fn exact_matches_the_case_id_or_the_full_trial_name() {
    let by_id = run_examples(&["--list", "--exact", "always_passes"], &[]);
    assert_eq!(
        stdout(&by_id),
        "[careful] always_passes: test\n[hasty] always_passes: test\n"
    );
    let by_name = run_examples(&["--list", "--exact", "[hasty] always_passes"], &[]);
    assert_eq!(stdout(&by_name), "[hasty] always_passes: test\n");
    let prefix = run_examples(&["--list", "--exact", "always"], &[]);
    assert_eq!(stdout(&prefix), "");
    let out = temp_dir("exact");
    let run = run_examples(
        &[
            "--exact",
            "always_passes",
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        trial_lines(&run),
        ["[careful] always_passes ok", "[hasty] always_passes ok"]
    );
    assert!(
        stdout(&run).contains(
            "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out"
        ),
        "{}",
        stdout(&run)
    );
}

#[test]
fn filter_on_the_runner_kind_and_runner_flag() {
    let by_kind = run_examples(&["--list", "[hasty]"], &[]);
    let lines: Vec<&str> = stdout(&by_kind)
        .lines()
        .map(str::to_owned)
        .collect::<Vec<_>>()
        .leak()
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l.starts_with("[hasty] ")), "{lines:?}");
    let by_flag = run_examples(&["--list", "--runner", "hasty"], &[]);
    assert_eq!(stdout(&by_flag), stdout(&by_kind));
    let by_env = run_examples(&["--list"], &[("SKILLGYM_RUNNER", "hasty")]);
    assert_eq!(stdout(&by_env), stdout(&by_kind));
    let unknown = run_examples(&["--list", "--runner", "hsty"], &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("did you mean `hasty`?"),
        "{}",
        stderr(&unknown)
    );
    let from_env = run_examples(&["--list"], &[("SKILLGYM_RUNNER", "hsty")]);
    assert_eq!(from_env.status.code(), Some(2));
    assert!(
        stderr(&from_env).contains(
            "`SKILLGYM_RUNNER=hsty` names unknown runner `hsty` (configured runners: `careful`, `hasty`); did you mean `hasty`?"
        ),
        "the variable is named: {}",
        stderr(&from_env)
    );
}

#[test]
fn tags_are_or_matched_from_flags_and_environment() {
    let smoke = run_examples(&["--list", "--tag", "smoke"], &[]);
    assert_eq!(
        stdout(&smoke),
        "[careful] always_passes: test\n[hasty] always_passes: test\n[careful] summarizes_from_prompt_file: test\n[hasty] summarizes_from_prompt_file: test\n"
    );
    let both = run_examples(&["--list", "--tag", "smoke,skills"], &[]);
    // `skills` also tags the showcase suite's finds-expo-skill case.
    assert_eq!(stdout(&both).lines().count(), 10);
    let repeated = run_examples(&["--list", "--tag", "smoke", "--tag=skills"], &[]);
    assert_eq!(stdout(&repeated), stdout(&both));
    let from_env = run_examples(&["--list"], &[("SKILLGYM_TAG", "smoke")]);
    assert_eq!(stdout(&from_env), stdout(&smoke));
    let flag_beats_env = run_examples(&["--list", "--tag", "skills"], &[("SKILLGYM_TAG", "smoke")]);
    assert_eq!(stdout(&flag_beats_env).lines().count(), 6);
    let none = run_examples(&["--list", "--tag", "nothing-has-this"], &[]);
    assert_eq!(stdout(&none), "");
}

#[test]
fn config_tags_apply_when_no_tag_flag_is_given() {
    let dir = temp_dir("config-tags");
    let config = write_config(dir.path(), "run:\n  tags: [smoke]\n");
    let listed = run_examples(&["--list", "--config", config.to_str().unwrap()], &[]);
    assert_eq!(stdout(&listed).lines().count(), 4, "{}", stderr(&listed));
    let overridden = run_examples(
        &[
            "--list",
            "--config",
            config.to_str().unwrap(),
            "--tag",
            "skills",
        ],
        &[],
    );
    assert_eq!(stdout(&overridden).lines().count(), 6);
}

#[test]
fn config_errors_show_file_line_column_and_a_suggestion() {
    let dir = temp_dir("config-error");
    let config = write_config(dir.path(), "run:\n  max_paralel: 2\n");
    let output = run_examples(&["--list", "--config", config.to_str().unwrap()], &[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains(&format!(
            "{}:2:3: unknown field `max_paralel`",
            config.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("help: did you mean `max_parallel`?"),
        "{text}"
    );
    assert_eq!(stdout(&output), "", "errors never go to stdout");
}

#[test]
fn unknown_or_malformed_flags_exit_with_code_2() {
    let unknown = run_examples(&["--tgs", "smoke"], &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown flag `--tgs`; did you mean `--tag`?"),
        "{}",
        stderr(&unknown)
    );
    let malformed = run_examples(&["--repeat", "zero"], &[]);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        stderr(&malformed).contains("`--repeat`"),
        "{}",
        stderr(&malformed)
    );
    let bad_env = run_examples(&["--list"], &[("SKILLGYM_SCHEDULE", "sometimes")]);
    assert_eq!(bad_env.status.code(), Some(2));
    assert!(
        stderr(&bad_env).contains("SKILLGYM_SCHEDULE"),
        "{}",
        stderr(&bad_env)
    );
}

#[test]
fn artifact_layout_and_latest_pointer() {
    let out = temp_dir("layout");
    let output = run_examples(
        &[
            "skills::find_skills_expo",
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", stdout(&output));
    let run_dir = only_run_dir(out.path());
    let latest = fs::read_link(out.path().join("latest")).unwrap();
    assert_eq!(out.path().join(latest), run_dir);
    let execution = run_dir.join("skills.find_skills_expo").join("careful");
    assert!(execution.join("result.json").is_file());
    for repetition in 1..=2 {
        let attempt = execution.join(format!("repeat-{repetition}/attempt-1"));
        for file in ["stdout.log", "report.json", "result.json", "prompt.md"] {
            assert!(
                attempt.join(file).is_file(),
                "missing {}",
                attempt.join(file).display()
            );
        }
        // The example agent writes nothing to stderr: no empty log, no empty state directory.
        assert!(!attempt.join("stderr.log").exists());
        assert!(!attempt.join("agent-state").exists());
    }
    assert!(!execution.join("repeat-3").exists());
    let report = read_json(&execution.join("repeat-1/attempt-1/report.json"));
    assert_eq!(report["runner"]["id"], "careful");
    assert_eq!(report["runner"]["agent"]["type"], "command");
    assert_eq!(report["installed_skills"][0]["name"], "find-skills");
    assert!(
        report["installed_skills"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("examples/skills/find-skills")
    );
    assert_eq!(report["detected_skills"][0]["skill"], "find-skills");
    assert_eq!(report["detected_skills"][0]["confidence"], "strong");
    let skill_read = report["files"]["observed_skill_reads"][0].as_str().unwrap();
    let workspace = read_json(&execution.join("repeat-1/attempt-1/workspace.json"));
    let cwd = workspace["cwd"].as_str().unwrap();
    assert_eq!(
        skill_read,
        format!("{cwd}/.agents/skills/find-skills/SKILL.md")
    );
    // The workspace lives outside the run directory (and the repository).
    assert!(!Path::new(cwd).starts_with(&run_dir), "{cwd}");
    assert!(Path::new(cwd).starts_with(std::env::temp_dir()), "{cwd}");
    let stdout_log = fs::read_to_string(execution.join("repeat-1/attempt-1/stdout.log")).unwrap();
    assert!(stdout_log.contains(r#""type":"command""#));
    // The isolated workspaces of passing attempts are removed.
    assert_eq!(workspace["preserved"], false);
    assert!(!Path::new(cwd).exists());
}

#[test]
fn results_json_holds_every_execution_in_plan_order() {
    let out = temp_dir("results");
    let output = run_examples(&["--output-dir", out.path().to_str().unwrap()], &[]);
    assert!(output.status.success());
    let results = read_json(&only_run_dir(out.path()).join("results.json"));
    assert_eq!(results["summary"]["executions"], 14);
    assert_eq!(results["summary"]["passed"], 12);
    assert_eq!(results["summary"]["expected_failed"], 2);
    assert_eq!(results["summary"]["failed"], 0);
    let names = execution_names(&results);
    let mut expected: Vec<String> = ALL_TRIALS.iter().map(|t| (*t).to_owned()).collect();
    expected.sort_by_key(|t| (t.split("] ").nth(1).unwrap().to_owned(), t.clone()));
    assert_eq!(names, expected);
    let gap = results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["case_id"] == "known_gap_explicit_skill_load")
        .unwrap();
    assert_eq!(gap["status"], "expected-failed");
    assert_eq!(gap["passed"], true);
    assert_eq!(gap["failure"]["origin"], "assertion");
    let message = gap["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "expected the skill \"upgrading-expo\" to be used (at least explicit)\nobserved "
        ),
        "{message}"
    );
    assert_eq!(gap["failure"]["class"]["id"], "no-explicit-load");
    let expo = results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["case_id"] == "skills::find_skills_expo")
        .unwrap();
    assert_eq!(expo["repeat_target"], 2);
    assert_eq!(expo["completed_repetitions"], 2);
    assert_eq!(expo["successful_repetitions"], 2);
    assert_eq!(expo["repetitions"][1]["attempts"][0]["status"], "passed");
    assert!(
        results["executions"][0].get("report").is_none(),
        "reports stay in report.json"
    );
}

#[test]
fn assertion_failures_show_the_message_location_and_artifacts() {
    let dir = temp_dir("assertion");
    let config = fake_runner_config(dir.path(), "echo-prompt", "");
    let output = run_with_config(
        dir.path(),
        &config,
        &["--runner", "fake", "--test-threads", "1"],
    );
    assert_eq!(output.status.code(), Some(101));
    let text = stdout(&output);
    assert!(
        trial_lines(&output).contains(&"[fake] always_passes FAILED".to_owned()),
        "{text}"
    );
    assert!(
        trial_lines(&output).contains(&"[fake] known_gap_explicit_skill_load ok".to_owned()),
        "{text}"
    );
    assert!(
        text.contains(
            "expected the final output to be \"skillgym ready\" (trimmed)\n\
             final output (24 chars):\n  Say only: skillgym ready\n  at "
        ),
        "{text}"
    );
    assert!(
        text.contains("at examples/tests/benchmarks/main.rs:10:30")
            || text.contains("at tests/benchmarks/main.rs:10:30"),
        "{text}"
    );
    assert!(
        text.contains("status: failed · origin: assertion · class: assertion"),
        "{text}"
    );
    assert!(text.contains("artifacts: "), "{text}");
    assert!(
        text.contains("---- [fake] always_passes ----\n"),
        "the failure header names the runner: {text}"
    );
    assert!(
        text.contains("expected a summary, got \"Summarize what this repository is for"),
        "{text}"
    );
    assert!(
        text.contains(
            "the answer must tell the user how to install the skill\n\
             expected the final output to contain \"npx skills add expo/upgrading-expo\""
        ),
        "{text}"
    );
}

#[test]
fn crashing_agents_fail_their_trial_without_taking_the_harness_down() {
    let dir = temp_dir("crash");
    let config = fake_runner_config(dir.path(), "stderr about to crash\ncrash", "");
    let output = run_with_config(dir.path(), &config, &["--runner", "fake"]);
    assert_eq!(output.status.code(), Some(101));
    let text = stdout(&output);
    assert_eq!(trial_lines(&output).len(), 4, "{text}");
    assert!(text.contains("the agent was killed by signal 6"), "{text}");
    assert!(
        text.contains("about to crash"),
        "stderr tail is shown: {text}"
    );
    assert!(
        text.contains("origin: runner · class: runner-crash"),
        "{text}"
    );
    let results = read_json(&only_run_dir(&dir.path().join("runs")).join("results.json"));
    assert_eq!(
        results["summary"]["failed"], 4,
        "expected_fail does not cover a crash"
    );
}

/// Whether a process is gone or a zombie.
fn is_dead(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => !process_exists(pid),
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn timeouts_kill_the_agent_and_all_its_descendants() {
    let dir = temp_dir("timeout");
    let pidfile = dir.path().join("pids");
    let config = write_config(
        dir.path(),
        &format!(
            "defaults:\n  timeout: 1s\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env:\n        FAKE_AGENT_SCRIPT: \"emit {{\\\"type\\\":\\\"message\\\",\\\"role\\\":\\\"assistant\\\",\\\"text\\\":\\\"working\\\"}}\\nfork 2\\nhang\"\n        FAKE_AGENT_PIDFILE: {}\n",
            pidfile.display()
        ),
    );
    let started = Instant::now();
    let output = run_with_config(dir.path(), &config, &["--exact", "[fake] always_passes"]);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(101), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("the agent did not finish within 1s; its process group was killed"),
        "{text}"
    );
    assert!(text.contains("origin: timeout · class: timeout"), "{text}");
    let pids: Vec<i32> = fs::read_to_string(&pidfile)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|&pid| !is_dead(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in pids {
        assert!(is_dead(pid), "grandchild {pid} survived the timeout");
    }
    let attempt =
        only_run_dir(&dir.path().join("runs")).join("always_passes/fake/repeat-1/attempt-1");
    let log = fs::read_to_string(attempt.join("stdout.log")).unwrap();
    assert!(
        log.contains("working"),
        "output before the kill is kept: {log}"
    );
    let report = read_json(&attempt.join("report.json"));
    assert_eq!(
        report["final_output"], "working",
        "a partial report is kept"
    );
}

#[test]
fn max_steps_stops_the_agent() {
    let dir = temp_dir("max-steps");
    let step = r#"emit {"type":"message","role":"assistant","text":"step"}"#;
    let script = format!("{step}\n{step}\n{step}\nhang");
    let config = fake_runner_config(dir.path(), &script, "run:\n  max_steps: 2\n");
    stopped_at_three_steps_of_two(dir.path(), &config);
}

/// Runs `always_passes` with `config` (`max_steps: 2`): it fails on its third step.
fn stopped_at_three_steps_of_two(dir: &Path, config: &Path) {
    let output = run_with_config(dir, config, &["--exact", "[fake] always_passes"]);
    assert_eq!(output.status.code(), Some(101));
    let text = stdout(&output);
    assert!(
        text.contains("exceeded max_steps: observed 3 steps with a limit of 2"),
        "{text}"
    );
    assert!(text.contains("origin: max-steps"), "{text}");
}

#[test]
fn max_steps_stops_a_quiet_agent_after_a_long_output() {
    // The steps over the limit come after 2 MB of other records (past the point where a long
    // output's log moves to a thread of its own and its pipe widens), and then the agent goes
    // quiet: the stop still kills it at once, not at the timeout.
    let dir = temp_dir("max-steps-long");
    let filler = dir.path().join("filler.jsonl");
    let record = format!(
        "{{\"type\":\"message\",\"role\":\"user\",\"text\":\"{}\"}}\n",
        "x".repeat(1000)
    );
    fs::write(&filler, record.repeat(2000)).unwrap();
    let step = r#"emit {"type":"message","role":"assistant","text":"step"}"#;
    let script = format!("replay {}\n{step}\n{step}\n{step}\nhang", filler.display());
    let extra = "run:\n  max_steps: 2\ndefaults: { timeout: 60s }\n";
    let config = fake_runner_config(dir.path(), &script, extra);
    stopped_at_three_steps_of_two(dir.path(), &config);
    let attempt =
        only_run_dir(&dir.path().join("runs")).join("always_passes/fake/repeat-1/attempt-1");
    let logged = fs::metadata(attempt.join("stdout.log")).unwrap().len();
    assert!(
        logged > 2_000_000,
        "the whole output is logged: {logged} bytes"
    );
}

#[test]
fn nextest_style_processes_write_into_one_run_directory() {
    let out = temp_dir("nextest");
    let env = [
        ("NEXTEST_RUN_ID", "e2e-run-1"),
        ("NEXTEST_EXECUTION_MODE", "process-per-test"),
    ];
    let output_dir = out.path().to_str().unwrap();
    for name in [
        "[careful] always_passes",
        "[hasty] summarizes_from_prompt_file",
    ] {
        let output = run_examples(
            &["--exact", name, "--nocapture", "--output-dir", output_dir],
            &env,
        );
        assert!(output.status.success(), "{}", stdout(&output));
        assert_eq!(
            trial_lines(&output).len(),
            1,
            "exactly one trial per process"
        );
    }
    let run_dir = out.path().join("e2e-run-1");
    assert!(run_dir.join("always_passes/careful/result.json").is_file());
    assert!(
        run_dir
            .join("summarizes_from_prompt_file/hasty/result.json")
            .is_file()
    );
    assert!(
        !run_dir.join("results.json").exists(),
        "no per-process run summary under nextest"
    );
    assert_eq!(
        fs::read_link(out.path().join("latest")).unwrap(),
        Path::new("e2e-run-1")
    );
}

#[test]
fn the_processes_of_a_nextest_run_ask_the_agent_its_version_once() {
    let dir = temp_dir("versions");
    let state = dir.path().join("state");
    fs::create_dir_all(&state).unwrap();
    // The version command counts its calls, and takes a while: the processes overlap.
    let config = write_config(
        dir.path(),
        &format!(
            "runners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      version_args: [--version]\n      env:\n        FAKE_AGENT_STATE_DIR: {}\n        FAKE_AGENT_VERSION_SCRIPT: \"count version-calls\\nsleep 300\\nprint fake-agent 3.1.4\"\n",
            state.display()
        ),
    );
    let runs = dir.path().join("runs");
    let cases = ["always_passes", "summarizes_from_prompt_file"];
    let children: Vec<std::process::Child> = cases
        .iter()
        .map(|case| {
            let mut command = std::process::Command::new(examples_harness());
            command
                .args(["--config", config.to_str().unwrap()])
                .args(["--output-dir", runs.to_str().unwrap()])
                .args(["--runner", "fake", "--exact", &format!("[fake] {case}")])
                .current_dir(examples_dir())
                .env("CARGO_MANIFEST_DIR", examples_dir())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            without_outer_runner_env(&mut command);
            command.envs([
                ("NEXTEST_RUN_ID", "versions-1"),
                ("NEXTEST_EXECUTION_MODE", "process-per-test"),
            ]);
            command.spawn().expect("the example harness starts")
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(trial_lines(&output).len(), 1, "{}", stderr(&output));
    }
    assert_eq!(
        fs::read_to_string(state.join("version-calls"))
            .unwrap()
            .trim(),
        "1",
        "asked once for the whole run"
    );
    let run = runs.join("versions-1");
    let agent = serde_json::json!({"type": "command", "version": "3.1.4"});
    for case in cases {
        let execution = run.join(case).join("fake");
        assert_eq!(read_json(&execution.join("result.json"))["agent"], agent);
        let report = read_json(&execution.join("repeat-1/attempt-1/report.json"));
        assert_eq!(report["runner"]["agent"], agent, "{case}");
    }
    assert_eq!(
        read_json(&run.join("run.json"))["runners"],
        serde_json::json!([{"id": "fake", "agent": agent}])
    );
}

#[test]
fn an_agent_whose_version_command_fails_still_runs_its_sessions() {
    let dir = temp_dir("version-fails");
    let config = write_config(
        dir.path(),
        &format!(
            "runners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      version_args: [--version]\n      env:\n        FAKE_AGENT_SCRIPT: {}\n        FAKE_AGENT_VERSION_SCRIPT: \"stderr no such flag\\nexit 2\"\n",
            serde_json::to_string(r#"emit {"type":"message","role":"assistant","phase":"final","text":"skillgym ready"}"#).unwrap()
        ),
    );
    let output = run_with_config(dir.path(), &config, &["--exact", "[fake] always_passes"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let warning = format!(
        "skillgym: warning: runner `fake`: the agent's version is unknown: `{FAKE_AGENT} --version` exited with code 2: no such flag"
    );
    assert!(stderr(&output).contains(&warning), "{}", stderr(&output));
    let run = only_run_dir(&dir.path().join("runs"));
    let report = read_json(&run.join("always_passes/fake/repeat-1/attempt-1/report.json"));
    assert_eq!(
        report["runner"]["agent"],
        serde_json::json!({"type": "command"})
    );
    assert_eq!(
        report.get("warnings"),
        None,
        "the warning is the run's, not the report's"
    );
    assert_eq!(
        read_json(&run.join(".versions/fake.json"))["warning"],
        warning.trim_start_matches("skillgym: warning: runner `fake`: "),
        "kept for the other processes of the run"
    );
}

#[test]
fn help_lists_skillgym_flags() {
    let output = run_examples(&["--help"], &[]);
    assert!(output.status.success());
    let text = stdout(&output);
    for flag in [
        "--tag",
        "--runner",
        "--repeat-failure",
        "--schedule",
        "SKILLGYM_TAG",
        "--exact",
    ] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
}

#[test]
fn libtest_output_formats_work_and_json_stays_machine_readable() {
    let out = temp_dir("formats");
    let output_dir = out.path().to_str().unwrap();
    let quiet = run_examples(&["-q", "--tag", "smoke", "--output-dir", output_dir], &[]);
    assert!(quiet.status.success());
    let text = stdout(&quiet);
    assert!(text.contains("...."), "terse dots: {text}");
    assert!(
        !text.contains("skillgym:"),
        "-q keeps the summary out: {text}"
    );
    let json = run_examples(
        &[
            "--format",
            "json",
            "--exact",
            "[careful] always_passes",
            "--output-dir",
            output_dir,
        ],
        &[],
    );
    assert!(json.status.success());
    // JSON events name the trial with its runner.
    let events: Vec<Value> = stdout(&json)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect();
    assert!(
        events.iter().any(|e| e["type"] == "test"
            && e["event"] == "ok"
            && e["name"] == "[careful] always_passes"),
        "{events:?}"
    );
    let serial = run_examples(
        &[
            "--test-threads",
            "1",
            "--skip",
            "skills",
            "--include-ignored",
            "--output-dir",
            output_dir,
        ],
        &[],
    );
    assert!(serial.status.success());
    assert_eq!(trial_lines(&serial).len(), 11, "{}", stdout(&serial));
}

/// The fake agent's script for the progress tests: one assistant message (a model step), a
/// pause long enough to be shown running, then the answer `always_passes` wants.
const SLOW_STEP_SCRIPT: &str = concat!(
    "emit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"commentary\",\"text\":\"looking\"}\n",
    "sleep 1500\n",
    "emit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"skillgym ready\"}\n",
);

/// The arguments of a progress test's run: `[fake] always_passes` alone.
fn slow_run_args<'a>(config: &'a Path, output_dir: &'a Path) -> Vec<&'a str> {
    vec![
        "--config",
        config.to_str().unwrap(),
        "--output-dir",
        output_dir.to_str().unwrap(),
        "--runner",
        "fake",
        "always_passes",
    ]
}

/// On a terminal, each running execution has a live status line at the bottom (runner, case,
/// repetition and attempt, elapsed time, model steps), dimmed, redrawn while it runs, never
/// inside one of libtest's lines, and erased at the end; libtest still colours its own output.
#[test]
fn a_terminal_shows_a_live_status_line_erased_at_the_end() {
    let dir = temp_dir("progress-tty");
    let config = fake_runner_config(dir.path(), SLOW_STEP_SCRIPT, "");
    let output_dir = dir.path().join("runs");
    let (status, transcript) = run_examples_on_terminal(
        &slow_run_args(&config, &output_dir),
        &[
            ("TERM", "xterm-256color"),
            ("NO_COLOR", ""),
            ("CLICOLOR", ""),
        ],
    );
    assert!(status.success(), "{status}:\n{transcript}");
    let plain = without_styles(&transcript);
    let status_prefix = "running [fake] always_passes (rep 1/1 attempt 1, ";
    let shown: Vec<&str> = plain
        .split(['\r', '\n'])
        .filter_map(|line| line.find(status_prefix).map(|at| &line[at..]))
        .collect();
    assert!(!shown.is_empty(), "no status line:\n{transcript:?}");
    for line in &shown {
        let rest = &line[status_prefix.len()..];
        let seconds = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        assert!(
            seconds.len() < rest.len() && seconds.starts_with("s, ") && line.ends_with(')'),
            "an elapsed time in whole seconds: {line:?}"
        );
    }
    assert!(
        shown.iter().any(|line| line.ends_with(", 1 step)")),
        "the live step count: {shown:?}"
    );
    assert!(
        transcript.contains("\x1b[2mrunning [fake] always_passes"),
        "the status is dimmed: {transcript:?}"
    );
    assert!(
        transcript.contains("\x1b[32m"),
        "libtest colours `ok` though its stdout is now a pipe: {transcript:?}"
    );
    // Each of libtest's lines is whole: after the status is erased, nothing but the line.
    let trial_lines: Vec<&str> = plain
        .split('\n')
        .filter_map(|line| {
            line.find("test [")
                .map(|at| line[at..].trim_end_matches('\r'))
        })
        .collect();
    assert_eq!(
        trial_lines,
        ["test [fake] always_passes ... ok"],
        "{transcript:?}"
    );
    let screen = screen_lines(&transcript);
    assert!(
        screen.iter().all(|line| !line.contains("running [fake]")),
        "the status is erased at the end:\n{}",
        screen.join("\n")
    );
    assert!(
        screen
            .iter()
            .any(|line| line == "test [fake] always_passes ... ok"),
        "{}",
        screen.join("\n")
    );
    assert!(
        screen
            .iter()
            .any(|line| line.starts_with("skillgym: 1 executions: 1 passed")),
        "skillgym's summary follows on the restored stdout:\n{}",
        screen.join("\n")
    );
}

/// Off a terminal, an execution running past the notice threshold (a minute; lowered here)
/// gets a notice line, as libtest does for slow tests, never inside libtest's
/// `test [fake] always_passes ... ` (which, with one test thread, waits for the trial's end).
#[test]
fn off_a_terminal_a_slow_execution_gets_notices_between_whole_lines() {
    let dir = temp_dir("progress-notices");
    let config = fake_runner_config(dir.path(), SLOW_STEP_SCRIPT, "");
    let output_dir = dir.path().join("runs");
    let mut args = slow_run_args(&config, &output_dir);
    args.extend(["--test-threads", "1"]);
    let run = run_examples(&args, &[("SKILLGYM_PROGRESS_NOTICE_MS", "300")]);
    assert!(run.status.success(), "{}{}", stdout(&run), stderr(&run));
    let out = stdout(&run);
    let lines: Vec<&str> = out.lines().collect();
    let notice = "skillgym: [fake] always_passes has been running for ";
    let notices: Vec<usize> = (0..lines.len())
        .filter(|&index| lines[index].contains("has been running for"))
        .collect();
    // The run takes 1.5 s: any notice at all shows the threshold lowered from a minute.
    assert!(!notices.is_empty(), "no notice:\n{out}");
    for &index in &notices {
        let line = lines[index];
        assert!(
            line.starts_with(notice)
                && line.contains(" s (repetition 1/1, attempt 1, ")
                && (line.ends_with(" step)") || line.ends_with(" steps)")),
            "a notice on a line of its own: {line:?}\n{out}"
        );
    }
    assert!(
        notices
            .iter()
            .any(|&index| lines[index].ends_with(", 1 step)")),
        "the live step count:\n{out}"
    );
    let test_line = lines
        .iter()
        .position(|line| line.contains("test [fake]"))
        .unwrap_or_else(|| panic!("no trial line:\n{out}"));
    assert_eq!(
        lines[test_line], "test [fake] always_passes ... ok",
        "{out}"
    );
    assert!(
        notices[0] < test_line,
        "the first notice came while the trial ran, before its line was complete:\n{out}"
    );
    assert!(
        !stderr(&run).contains("has been running"),
        "{}",
        stderr(&run)
    );
}
