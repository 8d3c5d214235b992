//! Nothing is silent: a selection that runs nothing says why, and a skipped execution is never
//! a green pass, under cargo test (an ignored trial with its reason) or nextest (a failure).

use std::fs;
use std::path::{Path, PathBuf};

use skillgym_e2e::{run_examples, stderr, stdout, temp_dir};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// A config with a `cursor-agent` runner (the fake agent stands in for its program: it is never
/// started in these `--mock` runs, which cannot point it at the scripted model) and `extra`
/// YAML.
fn cursor_config(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("skillgym.yaml");
    fs::write(
        &path,
        format!("{extra}runners:\n  cursor:\n    agent: {{ type: cursor-agent, model: sonnet-4, command: {FAKE_AGENT} }}\n"),
    )
    .unwrap();
    path
}

fn run(dir: &Path, config: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let runs = dir.join("runs");
    let mut all = vec![
        "--config",
        config.to_str().unwrap(),
        "--output-dir",
        runs.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run_examples(&all, env)
}

#[test]
fn a_tag_no_case_has_is_named_with_the_tags_there_are() {
    let output = run_examples(&["--list", "--tag", "smok"], &[]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "", "stdout keeps only the list");
    assert!(
        stderr(&output).contains(
            "skillgym: no case has tag `smok` (tags in this binary: `showcase`, `skills`, `smoke`); did you mean `smoke`?\n"
        ),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains(
            "skillgym: nothing to run: no case with tag `smok` runs on the selected runners"
        ),
        "{}",
        stderr(&output)
    );
    let quiet = run_examples(&["--list", "--tag", "smoke"], &[]);
    assert_eq!(
        stderr(&quiet)
            .lines()
            .filter(|line| line.contains("tag"))
            .count(),
        0,
        "a tag that exists is not reported: {}",
        stderr(&quiet)
    );
}

#[test]
fn a_mock_run_names_the_runners_it_cannot_use() {
    let dir = temp_dir("mock-skipped");
    let config = cursor_config(dir.path(), "");
    let output = run(
        dir.path(),
        &config,
        &["--mock", "--runner", "cursor", "always_passes"],
        &[],
    );
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stderr(&output).contains(
            "skillgym: runner `cursor` (cursor-agent) cannot be pointed at the scripted model server: its trials are skipped in this --mock run"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_skip_decided_while_running_fails_under_nextest_instead_of_passing() {
    let dir = temp_dir("nextest-skip");
    let config = cursor_config(dir.path(), "");
    let args = ["--mock", "--exact", "[cursor] always_passes"];
    // In one process it is an ignored trial with its reason...
    let output = run(dir.path(), &config, &args, &[]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(
            "ignored (runner `cursor` (cursor-agent) cannot be pointed at the scripted model server"
        ),
        "{}",
        stdout(&output)
    );
    // ...under nextest's process per test a failure, which nextest shows, never a PASS.
    let env = [
        ("NEXTEST_RUN_ID", "skip-run-1"),
        ("NEXTEST_EXECUTION_MODE", "process-per-test"),
    ];
    let output = run(dir.path(), &config, &args, &env);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(
            "skipped: runner `cursor` (cursor-agent) cannot be pointed at the scripted model server"
        ),
        "{}",
        stdout(&output)
    );
}

/// The trials `--list` prints (`[runner] case`), with `args` before it.
fn listed(args: &[&str]) -> Vec<String> {
    let mut all = args.to_vec();
    all.push("--list");
    let output = run_examples(&all, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn several_name_filters_select_what_any_of_them_would() {
    let every = listed(&[]);
    let either = |names: &[&str]| -> Vec<String> {
        every
            .iter()
            .filter(|trial| names.iter().any(|name| trial.contains(name)))
            .cloned()
            .collect()
    };
    let expected = either(&["always_passes", "summarizes"]);
    assert!(
        expected.len() >= 4 && expected.len() < every.len(),
        "{expected:?} of {every:?}"
    );
    assert_eq!(listed(&["always_passes", "summarizes"]), expected);
    assert_eq!(
        listed(&["always_passes", "summarizes", "--skip", "[hasty]"]),
        expected
            .iter()
            .filter(|trial| !trial.contains("[hasty]"))
            .cloned()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        listed(&[
            "--exact",
            "[hasty] always_passes",
            "summarizes_from_prompt_file"
        ]),
        [
            "[hasty] always_passes",
            "[careful] summarizes_from_prompt_file",
            "[hasty] summarizes_from_prompt_file"
        ],
        "`--exact`: a trial's name or a case id each"
    );
}
