//! Declarative suites end to end: an agentv-style `EVAL.yaml` with `tests: ./cases/` and its
//! `case.yaml` directories, listed in `skillgym.yaml`, run by the example harness beside its
//! Rust cases with the scriptable fake agent (its script is the case's prompt).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillgym_e2e::{run_examples_on, stderr, stdout, temp_dir, trial_lines};

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

/// A fake-agent event line saying `text` as the final answer.
fn say(text: &str) -> String {
    format!(
        "emit {}",
        serde_json::json!({"type": "message", "role": "assistant", "phase": "final", "text": text})
    )
}

/// Writes `files` (path, content) under `root`.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
}

/// A `skillgym.yaml` in `dir` with the fake-agent runner `fake` (whose script is the prompt)
/// and `extra` YAML; returns its path.
fn config(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("skillgym.yaml");
    let yaml = format!(
        "{extra}\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env: {{ FAKE_AGENT_SCRIPT: \"-\" }}\n"
    );
    fs::write(&path, yaml).unwrap();
    path
}

/// Runs the example harness with `config`, artifacts in `<dir>/runs`.
fn run(dir: &Path, config: &Path, args: &[&str]) -> std::process::Output {
    run_env(dir, config, args, &[])
}

fn run_env(dir: &Path, config: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    // The example harness adds its own runners in code; these tests run on `fake` only.
    run_examples_on(config, "fake", &dir.join("runs"), args, env)
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The run directory `latest` points at.
fn latest(dir: &Path) -> PathBuf {
    let runs = dir.join("runs");
    runs.join(fs::read_link(runs.join("latest")).unwrap())
}

/// The suite of the discovery tests: four case directories (one `case.yml`, one with its own
/// `id`), one without a case file and a symlink inside the suite (one leading outside it is an
/// error: `tests/bad_input`).
fn discovery_suite(root: &Path) -> PathBuf {
    let suite = root.join("bench");
    let pass = say("all good");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "name: bench\ntags: [yaml]\nassertions:\n  - type: contains\n    value: good\ntests: ./cases/\n",
            ),
            ("cases/b-second/case.yaml", &format!("input: |\n  {pass}\n")),
            ("cases/a-first/case.yml", &format!("input: |\n  {pass}\n")),
            (
                "cases/c-named/case.yaml",
                &format!("id: custom-id\ntags: [special]\ninput: |\n  {pass}\n"),
            ),
            ("cases/notes/README.md", "not a case\n"),
            ("shared/linked/case.yaml", &format!("input: |\n  {pass}\n")),
        ],
    );
    std::os::unix::fs::symlink(suite.join("shared/linked"), suite.join("cases/d-link")).unwrap();
    suite
}

#[test]
fn discovered_case_directories_are_trials_named_suite_and_id() {
    let dir = temp_dir("suite-list");
    let suite = discovery_suite(dir.path());
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["--list", "bench::"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let listed: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("bench::"))
        .collect();
    assert_eq!(
        listed,
        [
            "[fake] bench::a-first: test",
            "[fake] bench::b-second: test",
            "[fake] bench::custom-id: test",
            "[fake] bench::d-link: test",
        ],
        "sorted by name; `id:` wins over the directory name; the inner symlink is followed"
    );
    // `--list` writes nothing, so it prints no warnings; a run prints each once.
    let output = run(dir.path(), &config, &["bench::"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let err = stderr(&output);
    assert_eq!(
        err.matches("skipping directory `notes`: no case.yaml found")
            .count(),
        1,
        "{err}"
    );
    assert_eq!(
        trial_lines(&output),
        [
            "[fake] bench::a-first ok",
            "[fake] bench::b-second ok",
            "[fake] bench::custom-id ok",
            "[fake] bench::d-link ok",
        ]
    );
    let warnings = fs::read_to_string(latest(dir.path()).join("suite-warnings.txt")).unwrap();
    let ours = warnings
        .lines()
        .filter(|line| line.contains("/bench/cases/"));
    assert_eq!(ours.count(), 1, "{warnings}");
}

#[test]
fn tags_exact_and_runner_filters_select_declared_cases() {
    let dir = temp_dir("suite-filter");
    let suite = discovery_suite(dir.path());
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["--list", "--tag", "special"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let listed: Vec<&str> = text
        .lines()
        .filter(|line| line.ends_with(": test"))
        .collect();
    assert_eq!(listed, ["[fake] bench::custom-id: test"]);
    let output = run(dir.path(), &config, &["--exact", "bench::b-second"]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(trial_lines(&output), ["[fake] bench::b-second ok"]);
    // Targets restrict a suite's cases to runners: to `careful`, which is not selected here.
    fs::write(
        suite.join("EVAL.yaml"),
        "name: bench\nexecution:\n  targets: [careful]\nassertions: [{ type: contains, value: good }]\ntests: ./cases/\n",
    )
    .unwrap();
    let output = run(dir.path(), &config, &["--list", "bench::"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stdout(&output).contains("bench::"), "{}", stdout(&output));
}

#[test]
fn graders_decide_the_verdict_and_the_results_keep_their_evidence() {
    let dir = temp_dir("suite-grade");
    let suite = dir.path().join("grading");
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/passes/case.yaml",
                &format!(
                    "input: |\n  {}\nassertions:\n  - type: contains\n    value: parser\n  - type: regex\n    value: \"fixed .* parser\"\n",
                    say("I fixed the parser.")
                ),
            ),
            (
                "cases/fails/case.yaml",
                &format!(
                    "input: |\n  {}\nthreshold: 0.5\nassertions:\n  - type: contains\n    value: tests pass\n    weight: 3\n  - type: is-json\n",
                    say("I fixed the parser.")
                ),
            ),
        ],
    );
    let output = run(
        dir.path(),
        &config(dir.path(), &format!("suites: [{}]", suite.display())),
        &["grading::"],
    );
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert_eq!(
        trial_lines(&output),
        ["[fake] grading::fails FAILED", "[fake] grading::passes ok"]
    );
    let out = stdout(&output);
    assert!(
        out.contains(
            "score 0.00 < threshold 0.50\nfailed graders:\n- contains-tests pass: score 0.00"
        ),
        "{out}"
    );
    assert!(out.contains("- is-json: score 0.00"), "{out}");
    assert!(out.contains("origin: grader · class: grader"), "{out}");
    assert!(
        out.contains("at "),
        "the case file is the failure's location: {out}"
    );
    assert!(out.contains("cases/fails/case.yaml:1:1"), "{out}");

    let run_dir = latest(dir.path());
    let results = read_json(&run_dir.join("results.json"));
    let executions = results["executions"].as_array().unwrap();
    let failed = executions
        .iter()
        .find(|e| e["case_id"] == "grading::fails")
        .unwrap();
    let grading = &failed["repetitions"][0]["attempts"][0]["grading"];
    assert_eq!(grading["threshold"], 0.5);
    assert_eq!(grading["passed"], false);
    assert_eq!(grading["graders"][0]["type"], "contains");
    assert_eq!(grading["graders"][0]["weight"], 3.0);
    assert_eq!(grading["graders"][0]["verdict"], "fail");
    assert_eq!(grading["graders"][1]["name"], "is-json");
    let attempt = run_dir.join("grading.fails/fake/repeat-1/attempt-1");
    assert_eq!(&read_json(&attempt.join("grading.json")), grading);
    let passed = executions
        .iter()
        .find(|e| e["case_id"] == "grading::passes")
        .unwrap();
    let grading = &passed["repetitions"][0]["attempts"][0]["grading"];
    assert_eq!(
        (grading["score"].as_f64(), &grading["passed"]),
        (Some(1.0), &Value::Bool(true))
    );
}

#[test]
fn each_attempt_gets_a_fresh_copy_of_its_case_workspace_with_hooks_around_it() {
    let dir = temp_dir("suite-workspace");
    let suite = dir.path().join("ws");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "workspace:\n  hooks:\n    before_each:\n      command: [sh, -c, 'cd \"$SKILLGYM_WORKSPACE_PATH\" && test ! -e done.txt && echo {{test_id}} > hook.txt']\n    after_each:\n      command: [sh, -c, 'echo teardown >&2']\ntests: ./cases/\n",
            ),
            (
                "cases/edits/case.yaml",
                &format!(
                    "input: |\n  write done.txt finished\n  {}\nrepeat: 2\nassertions:\n  - type: code-grader\n    command: grep -q original template.txt && grep -q finished done.txt && grep -q ws::edits hook.txt\n",
                    say("done")
                ),
            ),
            ("cases/edits/workspace/template.txt", "original\n"),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["ws::"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let run_dir = latest(dir.path());
    for repetition in 1..=2 {
        let attempt = run_dir.join(format!("ws.edits/fake/repeat-{repetition}/attempt-1"));
        let hooks = read_json(&attempt.join("hooks.json"));
        assert_eq!(hooks[0]["hook"], "workspace-before_each");
        assert_eq!(hooks[0]["exit_code"], 0);
        assert_eq!(hooks[1]["hook"], "workspace-after_each");
        let teardown =
            fs::read_to_string(attempt.join("hook-workspace-after_each.stderr.log")).unwrap();
        assert_eq!(teardown, "teardown\n");
        let workspace = read_json(&attempt.join("workspace.json"));
        assert_eq!(workspace["mode"], "isolated");
        assert_eq!(
            workspace["preserved"], false,
            "a passing attempt's copy is removed"
        );
    }
    assert!(
        suite
            .join("cases/edits/workspace")
            .read_dir()
            .unwrap()
            .count()
            == 1,
        "the template itself is never touched"
    );

    // A failing `before_each` fails the attempt before the agent starts.
    fs::write(suite.join("cases/edits/workspace/done.txt"), "left over\n").unwrap();
    let output = run(dir.path(), &config, &["ws::"]);
    assert_eq!(output.status.code(), Some(101));
    let out = stdout(&output);
    assert!(
        out.contains("the workspace hook `before_each` exited with 1; the agent did not run"),
        "{out}"
    );
    assert!(out.contains("origin: workspace"), "{out}");
    let attempt = latest(dir.path()).join("ws.edits/fake/repeat-1/attempt-1");
    assert!(!attempt.join("stdout.log").exists(), "no agent session");
}

#[test]
fn suite_assertions_follow_the_case_own_unless_it_skips_defaults() {
    let dir = temp_dir("suite-defaults");
    let suite = dir.path().join("defaults");
    let answer = say("hello");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "assertions:\n  - type: contains\n    value: goodbye\n    required: true\ntests: ./cases/\n",
            ),
            (
                "cases/held/case.yaml",
                &format!(
                    "input: |\n  {answer}\nassertions:\n  - type: contains\n    value: hello\n"
                ),
            ),
            (
                "cases/skips/case.yaml",
                &format!(
                    "input: |\n  {answer}\nexecution:\n  skip_defaults: true\nassertions:\n  - type: contains\n    value: hello\n"
                ),
            ),
            (
                "cases/expected/case.yaml",
                &format!(
                    "input: |\n  {answer}\nexpected_fail: true\nassertions:\n  - type: equals\n    value: hello\n"
                ),
            ),
        ],
    );
    let output = run(
        dir.path(),
        &config(dir.path(), &format!("suites: [{}]", suite.display())),
        &["defaults::"],
    );
    assert_eq!(
        trial_lines(&output),
        [
            "[fake] defaults::expected ok",
            "[fake] defaults::held FAILED",
            "[fake] defaults::skips ok",
        ]
    );
    let out = stdout(&output);
    assert!(
        out.contains("(forced to 0 by the required grader \"contains-goodbye\")"),
        "{out}"
    );
    let results = read_json(&latest(dir.path()).join("results.json"));
    let expected = results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["case_id"] == "defaults::expected")
        .unwrap();
    assert_eq!(expected["status"], "expected-failed");
    assert_eq!(expected["failure"]["origin"], "grader");
    let graders = &expected["repetitions"][0]["attempts"][0]["grading"]["graders"];
    assert_eq!(
        graders.as_array().unwrap().len(),
        2,
        "the case's, then the suite's"
    );
}

#[test]
fn expected_fail_does_not_forgive_a_grader_that_cannot_grade() {
    let dir = temp_dir("suite-broken-graders");
    let suite = dir.path().join("broken");
    let answer = say("hello");
    let case = |assertion: &str| {
        format!("input: |\n  {answer}\nexpected_fail: true\nassertions:\n  - {assertion}\n")
    };
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/missing-program/case.yaml",
                &case("{ type: code-grader, command: [no-such-grader-program, check] }"),
            ),
            (
                "cases/shell-not-found/case.yaml",
                &case("{ type: code-grader, command: \"no-such-grader-program --check\" }"),
            ),
            ("cases/judge-crashes/case.yaml", &case("Says hello")),
            (
                "cases/really-fails/case.yaml",
                &case("{ type: equals, value: goodbye }"),
            ),
        ],
    );
    let config = config(
        dir.path(),
        &format!(
            "suites: [{}]\njudge: {{ runner: crashing }}\nrunners:\n  crashing:\n    agent: {{ type: command, command: /bin/false }}",
            suite.display()
        ),
    );
    // `config` appends its own `runners:`; keep one mapping with both runners.
    let text = fs::read_to_string(&config).unwrap();
    let text = text.replacen("\nrunners:\n  fake:", "\n  fake:", 1);
    fs::write(&config, text).unwrap();
    let output = run(dir.path(), &config, &["broken::"]);
    assert_eq!(
        trial_lines(&output),
        [
            "[fake] broken::judge-crashes FAILED",
            "[fake] broken::missing-program FAILED",
            "[fake] broken::really-fails ok",
            "[fake] broken::shell-not-found FAILED",
        ],
        "{}",
        stderr(&output)
    );
    assert!(!output.status.success());
    let out = stdout(&output);
    for expected in [
        "cannot start \"no-such-grader-program\"",
        "its shell could not run the command (exit 127: command not found)",
        "the judge runner `crashing` failed",
        "origin: grader-error",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    let results = read_json(&latest(dir.path()).join("results.json"));
    for execution in results["executions"].as_array().unwrap() {
        let (status, origin) = (&execution["status"], &execution["failure"]["origin"]);
        if execution["case_id"] == "broken::really-fails" {
            assert_eq!(
                (status, origin),
                (&"expected-failed".into(), &"grader".into())
            );
        } else {
            assert_eq!((status, origin), (&"failed".into(), &"grader-error".into()));
            let grader = &execution["repetitions"][0]["attempts"][0]["grading"]["graders"][0];
            assert_eq!(grader["verdict"], "error", "{execution}");
        }
    }
}

#[test]
fn execution_workers_caps_the_suite_s_executions_at_once() {
    let dir = temp_dir("suite-workers");
    let state = dir.path().join("state");
    fs::create_dir_all(&state).unwrap();
    let suite = dir.path().join("workers");
    let case = |name: &str| {
        format!(
            "input: |\n  log events start-{name}\n  sleep 150\n  log events end-{name}\n  {}\n",
            say("done")
        )
    };
    let mut files: Vec<(String, String)> = vec![(
        "EVAL.yaml".into(),
        "execution:\n  workers: 1\nassertions: [{ type: contains, value: done }]\ntests: ./cases/\n".into(),
    )];
    for name in ["a", "b", "c", "d"] {
        files.push((format!("cases/{name}/case.yaml"), case(name)));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    write_tree(&suite, &files);
    let config = dir.path().join("skillgym.yaml");
    fs::write(
        &config,
        format!(
            "suites: [{}]\nrun: {{ max_parallel: 4 }}\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env: {{ FAKE_AGENT_SCRIPT: \"-\", FAKE_AGENT_STATE_DIR: {} }}\n",
            suite.display(),
            state.display()
        ),
    )
    .unwrap();
    let output = run(dir.path(), &config, &["workers::"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let events = fs::read_to_string(state.join("events")).unwrap();
    let events: Vec<&str> = events.lines().map(str::trim).collect();
    assert_eq!(events.len(), 8, "{events:?}");
    for pair in events.chunks(2) {
        let (start, end) = (pair[0].strip_prefix("start-"), pair[1].strip_prefix("end-"));
        assert!(
            start.is_some() && start == end,
            "one execution at a time though max_parallel is 4: {events:?}"
        );
    }
}

#[test]
fn execution_trials_sample_each_case_pass_at_k_within_the_cost_limit() {
    let dir = temp_dir("suite-trials");
    let state = dir.path().join("state");
    fs::create_dir_all(&state).unwrap();
    let suite = dir.path().join("trials");
    let usage = r#"emit {"type":"usage","cost_usd":0.4}"#;
    let (good, bad) = (say("good"), say("bad"));
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "execution:\n  trials: { count: 5, strategy: pass_at_k, cost_limit_usd: 1.0 }\nassertions: [{ type: contains, value: good }]\ntests: ./cases/\n",
            ),
            // Passes on its third session only: pass@5.
            (
                "cases/late/case.yaml",
                &format!("input: |\n  count late\n  on 3 {good}\n  not 3 {bad}\n"),
            ),
            // Never passes, and each session costs $0.40: the third would pass the $1.00 limit.
            (
                "cases/costly/case.yaml",
                &format!("input: |\n  count costly\n  {usage}\n  {bad}\n"),
            ),
        ],
    );
    let config = dir.path().join("skillgym.yaml");
    fs::write(
        &config,
        format!(
            "suites: [{}]\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      env: {{ FAKE_AGENT_SCRIPT: \"-\", FAKE_AGENT_STATE_DIR: {} }}\n",
            suite.display(),
            state.display()
        ),
    )
    .unwrap();
    let output = run(dir.path(), &config, &["trials::"]);
    assert_eq!(
        trial_lines(&output),
        ["[fake] trials::costly FAILED", "[fake] trials::late ok"],
        "{}",
        stdout(&output)
    );
    let results = read_json(&latest(dir.path()).join("results.json"));
    let execution = |id: &str| {
        results["executions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["case_id"] == id)
            .unwrap()
            .clone()
    };
    let late = execution("trials::late");
    assert_eq!(
        late["repetitions"].as_array().unwrap().len(),
        5,
        "five samples"
    );
    let costly = execution("trials::costly");
    assert_eq!(
        costly["repetitions"].as_array().unwrap().len(),
        3,
        "sampling stops once $1.00 is spent: after the third $0.40 session, not the fifth"
    );
}

/// Runs git in `dir` with a fixed identity.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[test]
fn workspace_repos_are_checked_out_into_every_attempt_at_their_pin() {
    let dir = temp_dir("suite-repos");
    let origin = dir.path().join("origin");
    fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "--quiet", "--initial-branch=main"]);
    fs::write(origin.join("VERSION"), "1\n").unwrap();
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "--quiet", "-m", "one"]);
    let first = git(&origin, &["rev-parse", "HEAD"]);
    fs::write(origin.join("VERSION"), "2\n").unwrap();
    git(&origin, &["commit", "--quiet", "-am", "two"]);
    let suite = dir.path().join("repos");
    let answer = say("done");
    let check = |path: &str, version: &str| {
        format!("{{ type: code-grader, command: \"grep -qx {version} {path}/VERSION\" }}")
    };
    write_tree(
        &suite,
        &[(
            "EVAL.yaml",
            &format!(
                "workspace:\n  repos:\n    - {{ path: pinned, repo: {origin}, base_commit: {first} }}\n    - {{ path: deps/latest, repo: {origin} }}\n\
                 tests:\n  - id: both\n    input: |\n      {answer}\n    assertions:\n      - {}\n      - {}\n",
                check("pinned", "1"),
                check("deps/latest", "2"),
                origin = origin.display(),
            ),
        )],
    );
    let config = config(
        dir.path(),
        &format!(
            "suites: [{}]\nrun: {{ workspace_root: {} }}",
            suite.display(),
            dir.path().join("ws").display()
        ),
    );
    let output = run(dir.path(), &config, &["repos::", "--repeat", "2"]);
    assert_eq!(
        trial_lines(&output),
        ["[fake] repos::both ok"],
        "{}",
        stdout(&output)
    );
    let mirrors = fs::read_dir(dir.path().join("ws/repos")).unwrap().count();
    assert_eq!(
        mirrors, 2,
        "one mirror and its lock, for both paths and both attempts"
    );
}

#[test]
fn tests_files_and_inline_lists_keep_working() {
    let dir = temp_dir("suite-files");
    let answer = say("ok");
    write_tree(
        dir.path(),
        &[
            (
                "inline.eval.yaml",
                &format!(
                    "name: files-inline\ntests:\n  - id: one\n    input: |\n      {answer}\n    expected_output: ok\n    assertions: [{{ type: equals, value: ok }}]\n"
                ),
            ),
            (
                "listed/EVAL.yaml",
                "name: files-list\ntests: ./cases.yaml\n",
            ),
            (
                "listed/cases.yaml",
                &format!(
                    "- id: two\n  input: |\n    {answer}\n  assertions: [{{ type: contains, value: ok }}]\n"
                ),
            ),
            (
                "jsonl/EVAL.yaml",
                "name: files-jsonl\ntests: ./cases.jsonl\n",
            ),
            (
                "jsonl/cases.jsonl",
                &format!(
                    "{}\n",
                    serde_json::json!({"id": "three", "input": answer, "assertions": [{"type": "icontains", "value": "OK"}]})
                ),
            ),
        ],
    );
    let config = config(
        dir.path(),
        "suites: [inline.eval.yaml, listed, jsonl/EVAL.yaml]",
    );
    let output = run(dir.path(), &config, &["files-"]);
    assert!(output.status.success(), "{}", stdout(&output));
    assert_eq!(
        trial_lines(&output),
        [
            "[fake] files-inline::one ok",
            "[fake] files-jsonl::three ok",
            "[fake] files-list::two ok",
        ]
    );
}

#[test]
fn every_error_of_every_bad_file_is_reported_at_start() {
    let dir = temp_dir("suite-errors");
    let suite = dir.path().join("broken");
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/one/case.yaml",
                "input: hi\nasertions: []\ncriteria: fine\n",
            ),
            (
                "cases/two/case.yaml",
                "input: hi\nassertions:\n  - type: contians\n    value: x\n  - type: regex\n    value: \"(\"\n",
            ),
        ],
    );
    let config = config(
        dir.path(),
        &format!("suites:\n  - {}\n  - missing/EVAL.yaml", suite.display()),
    );
    let output = run(dir.path(), &config, &["--list"]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let err = stderr(&output);
    for expected in [
        "one/case.yaml:2:1: unknown field `asertions`",
        "did you mean `assertions`?",
        "two/case.yaml:3:11: unknown grader type `contians`",
        "two/case.yaml:6:12:",
        "skillgym.yaml:3:5: suite `",
        "missing/EVAL.yaml` does not exist",
        // Two suites: the broken one and the missing one.
        "4 errors in 2 suites",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    assert!(
        !dir.path().join("runs").exists(),
        "a run stopped at start writes nothing"
    );
}

#[test]
fn runners_and_the_judge_must_exist() {
    let dir = temp_dir("suite-runners");
    let suite = dir.path().join("targets");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "execution:\n  targets: [fake, { name: claude-baseline, use_target: claud }]\ntests: ./cases/\n",
            ),
            ("cases/a/case.yaml", "input: hi\ncriteria: says hi\n"),
        ],
    );
    let config_path = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config_path, &["--list"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("case `targets::a` (")
            && err.contains(
                "/targets/cases/a/case.yaml:1) names runner `claud`, which is not configured (configured runners: `fake`, `careful`, `hasty`)\n"
            ),
        "{err}"
    );
    fs::write(
        suite.join("EVAL.yaml"),
        "execution:\n  targets: [fake]\ntests: ./cases/\n",
    )
    .unwrap();
    // The examples harness configures a judge in code: a file without `judge:` uses it; a
    // `judge:` naming no runner is an error at its position.
    let config_path = config(
        dir.path(),
        &format!("suites: [{}]\njudge: {{ runner: fak }}", suite.display()),
    );
    let output = run(dir.path(), &config_path, &["--list"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("skillgym.yaml:2:18: `judge.runner` names unknown runner `fak`")
            && err.contains("did you mean `fake`?"),
        "{err}"
    );
    // The judge's program is checked before anything runs, like the runners'.
    let config_path = config(
        dir.path(),
        &format!(
            "suites: [{}]\njudge: {{ agent: {{ type: command, command: /nonexistent/judge }} }}",
            suite.display()
        ),
    );
    let output = run(dir.path(), &config_path, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let err = stderr(&output);
    assert!(
        err.contains("runner `judge`") && err.contains("/nonexistent/judge"),
        "{err}"
    );
}

#[test]
fn the_judge_runner_grades_rubric_items_and_under_mock_the_scripted_model_answers() {
    let dir = temp_dir("suite-judge");
    let suite = dir.path().join("judged");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "tests: ./cases/\nexecution:\n  targets: [fake]\n",
            ),
            (
                "cases/rubric/case.yaml",
                &format!(
                    "input: |\n  {}\ncriteria: The answer is polite\nassertions:\n  - Says hello\n  - Names the user\n",
                    say("hello")
                ),
            ),
        ],
    );
    let answer = r#"{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "it does"}, {"id": "rubric-2", "satisfied": false, "reasoning": "no name given"}]}"#;
    let judge = format!(
        "judge:\n  agent:\n    type: command\n    command: {FAKE_AGENT}\n    env: {{ FAKE_AGENT_SCRIPT: {} }}\n",
        serde_json::to_string(&say(answer)).unwrap()
    );
    let config_path = config(
        dir.path(),
        &format!("suites: [{}]\n{judge}", suite.display()),
    );
    let output = run(dir.path(), &config_path, &["judged::"]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    let out = stdout(&output);
    assert!(out.contains("score 0.50 < threshold 0.80"), "{out}");
    assert!(
        out.contains("- rubrics: score 0.50\n  rubric-2: Names the user — no name given"),
        "{out}"
    );
    let attempt = latest(dir.path()).join("judged.rubric/fake/repeat-1/attempt-1");
    let prompt = fs::read_to_string(attempt.join("judge-rubrics/prompt.md")).unwrap();
    assert!(
        prompt.contains("## Success criteria\nThe answer is polite"),
        "{prompt}"
    );
    assert!(
        prompt.contains("- rubric-1: Says hello\n- rubric-2: Names the user"),
        "{prompt}"
    );
    assert!(attempt.join("judge-rubrics/report.json").is_file());

    // Under --mock the judge asks the scripted model, which plays `judge.mock`.
    write_tree(
        dir.path(),
        &[(
            "judge.mock.yaml",
            &format!(
                "- say: '{}'\n",
                r#"{"checks": [{"id": "rubric-1", "satisfied": true}, {"id": "rubric-2", "satisfied": true}]}"#
            ),
        )],
    );
    let judge = format!(
        "judge:\n  mock: judge.mock.yaml\n  agent:\n    type: command\n    command: {FAKE_AGENT}\n    env: {{ FAKE_AGENT_SCRIPT: chat }}\n"
    );
    let config_path = config(
        dir.path(),
        &format!("suites: [{}]\n{judge}", suite.display()),
    );
    let output = run(dir.path(), &config_path, &["judged::", "--mock"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let attempt = latest(dir.path()).join("judged.rubric/fake/repeat-1/attempt-1");
    let requests = fs::read_to_string(attempt.join("judge-rubrics/mock-requests.jsonl")).unwrap();
    assert!(requests.contains("rubric-2: Names the user"), "{requests}");
}

#[test]
fn warnings_are_printed_once_per_nextest_run() {
    let dir = temp_dir("suite-nextest");
    let suite = discovery_suite(dir.path());
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let env = [
        ("NEXTEST_RUN_ID", "suite-run-1"),
        ("NEXTEST_EXECUTION_MODE", "process-per-test"),
    ];
    let mut printed = 0;
    for name in ["[fake] bench::a-first", "[fake] bench::b-second"] {
        let output = run_env(dir.path(), &config, &["--exact", name], &env);
        assert!(output.status.success(), "{}", stdout(&output));
        printed += stderr(&output)
            .matches("skipping directory `notes`")
            .count();
    }
    assert_eq!(printed, 1, "one process of the run prints the warnings");
}

#[test]
fn before_all_and_after_all_run_once_per_run() {
    let dir = temp_dir("suite-all");
    let suite = dir.path().join("once");
    let answer = say("ok");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "workspace:\n  hooks:\n    before_all:\n      command: [sh, -c, 'echo {{test_id}} >> before_all.log']\n    after_all:\n      command: [sh, -c, 'echo {{test_id}} >> after_all.log']\ntests: ./cases/\n",
            ),
            (
                "cases/a/case.yaml",
                &format!(
                    "input: |\n  {answer}\nrepeat: 2\nassertions: [{{ type: equals, value: ok }}]\n"
                ),
            ),
            (
                "cases/b/case.yaml",
                &format!("input: |\n  {answer}\nassertions: [{{ type: equals, value: ok }}]\n"),
            ),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["once::"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let log = |name: &str| fs::read_to_string(suite.join(name)).unwrap_or_default();
    assert_eq!(log("before_all.log"), "__before_all__\n");
    assert_eq!(log("after_all.log"), "__after_all__\n");
    let record = read_json(&latest(dir.path()).join("suites/once/workspace-before_all.json"));
    assert_eq!(record["exit_code"], 0);

    // Under nextest, processes share the run: `before_all` still runs once...
    fs::remove_file(suite.join("before_all.log")).unwrap();
    fs::write(
        suite.join("EVAL.yaml"),
        "workspace:\n  hooks:\n    before_all:\n      command: [sh, -c, 'echo {{test_id}} >> before_all.log; exit 3']\ntests: ./cases/\n",
    )
    .unwrap();
    let env = [
        ("NEXTEST_RUN_ID", "all-run-1"),
        ("NEXTEST_EXECUTION_MODE", "process-per-test"),
    ];
    for name in ["[fake] once::a", "[fake] once::b"] {
        let output = run_env(dir.path(), &config, &["--exact", name], &env);
        assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
        let out = stdout(&output);
        assert!(
            out.contains("the suite `once`'s workspace hook `before_all` exited with 3; none of its cases runs"),
            "{out}"
        );
    }
    assert_eq!(
        log("before_all.log"),
        "__before_all__\n",
        "one run, one before_all"
    );
    // ...and a suite with `after_all` is refused: no process knows it is the last.
    fs::write(
        suite.join("EVAL.yaml"),
        "workspace:\n  hooks:\n    after_all: { command: [sh, -c, 'true'] }\ntests: ./cases/\n",
    )
    .unwrap();
    let output = run_env(dir.path(), &config, &["--exact", "[fake] once::a"], &env);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the suite `once` has an `after_all` hook, which cannot run under nextest's process per test"),
        "{}",
        stderr(&output)
    );
    let output = run_env(dir.path(), &config, &["--list", "once::"], &env);
    assert!(
        output.status.success(),
        "listing runs nothing: {}",
        stderr(&output)
    );
}

#[test]
fn a_case_mock_script_is_what_the_scripted_model_plays_under_mock() {
    let dir = temp_dir("suite-mock");
    let suite = dir.path().join("mocked");
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/chats/case.yaml",
                "input: chat\nmock: model.yaml\nassertions:\n  - type: equals\n    value: scripted hello\n",
            ),
            ("cases/chats/model.yaml", "- say: scripted hello\n"),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["mocked::", "--mock"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let attempt = latest(dir.path()).join("mocked.chats/fake/repeat-1/attempt-1");
    assert!(attempt.join("mock-requests.jsonl").is_file());
    // Without --mock the prompt goes nowhere: the fake agent has no endpoint.
    let output = run(dir.path(), &config, &["mocked::"]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
}

#[test]
fn replay_runs_no_grader_in_a_workspace_the_recording_names_outside_a_run() {
    let dir = temp_dir("suite-replay-cwd");
    let suite = dir.path().join("rp");
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/marks/case.yaml",
                &format!(
                    "input: |\n  {}\nassertions:\n  - type: code-grader\n    command: touch graded-here\n",
                    say("done")
                ),
            ),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["rp::"]);
    assert!(output.status.success(), "{}", stdout(&output));
    let recorded = latest(dir.path());
    // The recording is edited: its workspace.json sends the graders elsewhere.
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let file = recorded.join("rp.marks/fake/repeat-1/attempt-1/workspace.json");
    let mut workspace = read_json(&file);
    workspace["cwd"] = Value::from(elsewhere.to_str().unwrap());
    fs::write(&file, workspace.to_string()).unwrap();

    let output = run(
        dir.path(),
        &config,
        &["rp::", "--replay", recorded.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert!(
        !elsewhere.join("graded-here").exists(),
        "the grader ran there"
    );
    let out = stdout(&output);
    assert!(
        out.contains(&format!(
            "whose workspace.json names {}, which is not a workspace skillgym made",
            elsewhere.display()
        )),
        "{out}"
    );
}

#[test]
fn a_secret_interpolated_into_a_suite_is_masked_in_every_file_and_in_the_recording() {
    const NAME: &str = "SUITE_LEAK_API_KEY";
    const SECRET: &str = "sk-suite-leak-0123456789abcdef";
    let dir = temp_dir("suite-secret");
    let suite = dir.path().join("leaky");
    // The fake agent sends its prompt to the scripted model (`chat`), then prints it; a hook
    // and a code grader print the key on stderr.
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "workspace:\n  hooks:\n    after_each:\n      command: [sh, -c, 'echo \"hook saw $SUITE_LEAK_API_KEY\" >&2']\ntests: ./cases/\n",
            ),
            (
                "cases/echoes/case.yaml",
                "input: |\n  chat\n  echo-prompt\n  # the key: ${{ SUITE_LEAK_API_KEY }}\nassertions:\n  - type: code-grader\n    command: echo \"grader saw $SUITE_LEAK_API_KEY\" >&2\n",
            ),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let env = [(NAME, SECRET)];
    let output = run_env(dir.path(), &config, &["leaky::", "--mock"], &env);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let run_dir = latest(dir.path());
    let attempt = run_dir.join("leaky.echoes/fake/repeat-1/attempt-1");
    let mask = format!("[masked:{NAME}]");
    for file in [
        "prompt.md",
        "mock-requests.jsonl",
        "stdout.log",
        "hook-workspace-after_each.stderr.log",
        "grader-code-grader.stderr.log",
    ] {
        let text = fs::read_to_string(attempt.join(file))
            .unwrap_or_else(|error| panic!("{file}: {error}: {:?}", listing(&attempt)));
        assert!(text.contains(&mask), "{file}: {text}");
    }
    assert_no_secret(&run_dir, SECRET);

    // `record` masks what it packs, even a file written unmasked (by an older skillgym, or by
    // the agent itself).
    fs::write(
        attempt.join("usage.json"),
        format!("{{\"key\":\"{SECRET}\"}}"),
    )
    .unwrap();
    let recording = dir.path().join("recording");
    let record = std::process::Command::new(skillgym_e2e::cargo_skillgym())
        .args(["skillgym", "record"])
        .arg(&run_dir)
        .arg(&recording)
        .env(NAME, SECRET)
        .output()
        .unwrap();
    assert!(record.status.success(), "{}", stderr(&record));
    let packed = recording.join("leaky.echoes/fake/repeat-1/attempt-1");
    assert_eq!(
        fs::read_to_string(packed.join("usage.json")).unwrap(),
        format!("{{\"key\":\"{mask}\"}}")
    );
    assert!(
        fs::read_to_string(packed.join("prompt.md"))
            .unwrap()
            .contains(&mask)
    );
    assert_no_secret(&recording, SECRET);
}

/// The names in `dir`, for failure messages.
fn listing(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// No file under `dir` holds `secret` (symbolic links are not followed).
fn assert_no_secret(dir: &Path, secret: &str) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            assert_no_secret(&entry.path(), secret);
        } else if kind.is_file() {
            let text = String::from_utf8_lossy(&fs::read(entry.path()).unwrap()).into_owned();
            assert!(
                !text.contains(secret),
                "the secret is in {}:\n{text}",
                entry.path().display()
            );
        }
    }
}

/// agentv's variant pattern: targets sharing one `use_target`, differing in their hooks,
/// become variants of that runner (named by the targets, the first the baseline), each
/// attempt running its own target's hooks, compared in the run's experiment.
#[test]
fn targets_sharing_a_use_target_are_variants_of_one_runner() {
    let dir = temp_dir("suite-variants");
    let suite = dir.path().join("exp");
    let hook = |mode: &str| {
        format!(
            "{{ before_each: {{ command: [sh, -c, 'echo {mode} > \"$SKILLGYM_WORKSPACE_PATH/mode.txt\"'] }} }}"
        )
    };
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                &format!(
                    "name: exp\nmin_lift: 0.5\nexecution:\n  targets:\n    - {{ name: baseline, use_target: fake, hooks: {} }}\n    - {{ name: with-skills, use_target: fake, hooks: {} }}\ntests: ./cases/\n",
                    hook("plain"),
                    hook("skills")
                ),
            ),
            (
                "cases/uses/case.yaml",
                &format!(
                    "input: |\n  {}\nsamples: 6\nassertions:\n  - type: code-grader\n    command: grep -q skills mode.txt\n",
                    say("done")
                ),
            ),
            // The same whatever the hook wrote: no lift, so the suite's gate fails it.
            (
                "cases/same/case.yaml",
                &format!(
                    "input: |\n  {}\nsamples: 6\nassertions:\n  - type: code-grader\n    command: test -s mode.txt\n",
                    say("done")
                ),
            ),
        ],
    );
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let listed = stdout(&run(dir.path(), &config, &["--list", "exp::"]));
    assert!(
        listed.contains("[fake/baseline] exp::uses: test")
            && listed.contains("[fake/with-skills] exp::uses: test"),
        "{listed}"
    );
    let output = run(dir.path(), &config, &["exp::"]);
    let out = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(101),
        "the gate fails `same`:\n{out}"
    );
    let run_dir = latest(dir.path());
    for (variant, passed, mode) in [("baseline", 0, "plain"), ("with-skills", 6, "skills")] {
        let execution = run_dir.join("exp.uses/fake").join(variant);
        let result = read_json(&execution.join("result.json"));
        assert_eq!(result["variant"], variant);
        assert_eq!(result["samples"]["passed"], passed, "{result:#}");
        // The suite's `min_lift`: the treatment meets it, the baseline is the measure.
        assert_eq!(result["status"], "passed", "{result:#}");
        assert_eq!(result["min_lift"], 0.5);
        let hooks = read_json(&execution.join("repeat-1/attempt-1/hooks.json"));
        assert_eq!(hooks[0]["hook"], "target-before_each", "{hooks:#}");
        assert!(
            hooks[0]["command"]
                .to_string()
                .contains(&format!("echo {mode}")),
            "the variant's own target hook ran: {hooks:#}"
        );
    }
    let same = read_json(&run_dir.join("exp.same/fake/with-skills/result.json"));
    assert_eq!(same["status"], "failed", "{same:#}");
    assert_eq!(same["failure"]["origin"], "lift");
    let message = same["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("lift 0% (6/6 against the baseline's 6/6"),
        "{message}"
    );
    let results = read_json(&run_dir.join("results.json"));
    let lift = results["experiment"]["lifts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["case_id"] == "exp::uses")
        .unwrap();
    assert_eq!(lift["baseline"]["variant"], "baseline", "{lift:#}");
    assert_eq!(lift["treatment"]["variant"], "with-skills");
    assert_eq!(lift["lift"]["difference"], 1.0);
    assert_eq!(lift["lift"]["verdict"], "helps");
    assert!(out.contains("exp::uses") && out.contains("helps"), "{out}");
}

/// A `skillgym.yaml` whose fake-agent runner `fake` resumes a session (`--resume <id>`, the
/// prompt last, which the fake agent runs as its script).
fn resumable_config(dir: &Path, suite: &Path, extra: &str) -> PathBuf {
    let path = dir.join("resumable.yaml");
    let yaml = format!(
        "{extra}\nsuites: [{}]\nrunners:\n  fake:\n    agent:\n      type: command\n      command: {FAKE_AGENT}\n      resume_args: [--resume, \"{{session_id}}\"]\n      env: {{ FAKE_AGENT_SCRIPT: \"-\" }}\n",
        suite.display()
    );
    fs::write(&path, yaml).unwrap();
    path
}

/// The multi-turn suite: `stops` fails its second turn under `on_turn_failure: stop`;
/// `averages` scores the mean of two turns and of the whole conversation.
fn conversation_suite(root: &Path) -> PathBuf {
    let suite = root.join("talk");
    let session = r#"emit {"type":"session","id":"s-1"}"#;
    let argv = root.join("turn-2-argv.json");
    let stops = format!(
        "id: stops\nmode: conversation\non_turn_failure: stop\ninput:\n  - role: system\n    content: \"# You are a careful tutor.\"\nturns:\n  - input: |\n      {session}\n      {}\n    assertions:\n      - type: contains\n        value: four\n  - input: |\n      record {}\n      {}\n    assertions:\n      - type: contains\n        value: twelve\n  - input: |\n      {}\n",
        say("four"),
        argv.display(),
        say("eleven"),
        say("done"),
    );
    let averages = format!(
        "id: averages\nmode: conversation\naggregation: mean\ninput: \"# a conversation\"\nturns:\n  - input: |\n      {session}\n      {}\n    assertions:\n      - type: contains\n        value: alpha\n      - type: contains\n        value: beta\n  - input: |\n      {}\n    assertions:\n      - type: contains\n        value: gamma\nassertions:\n  - type: contains\n    value: alpha\n",
        say("alpha"),
        say("gamma"),
    );
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            ("cases/stops/case.yaml", &stops),
            ("cases/averages/case.yaml", &averages),
        ],
    );
    suite
}

#[test]
fn conversation_turns_resume_the_session_and_their_scores_aggregate() {
    let dir = temp_dir("suite-conversation");
    let suite = conversation_suite(dir.path());
    let config = resumable_config(dir.path(), &suite, "");
    let output = run(dir.path(), &config, &["talk::"]);
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert_eq!(
        trial_lines(&output),
        ["[fake] talk::averages ok", "[fake] talk::stops FAILED"]
    );
    let out = stdout(&output);
    assert!(
        out.contains("score 0.33 < threshold 0.80 (mean of turn 1: 1.00, turn 2: 0.00 failed (contains-twelve), turn 3: skipped)"),
        "{out}"
    );

    // Turn 2 resumed turn 1's session with its own input.
    let argv = read_json(&dir.path().join("turn-2-argv.json"));
    let argv: Vec<&str> = argv["argv"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(argv[1..3], ["--resume", "s-1"], "{argv:?}");
    assert!(argv.last().unwrap().starts_with("record "), "{argv:?}");

    let run_dir = latest(dir.path());
    let stops = run_dir.join("talk.stops/fake/repeat-1/attempt-1");
    let grading = read_json(&stops.join("grading.json"));
    assert_eq!(grading["aggregation"], "mean");
    assert_eq!(grading["score"].as_f64(), Some(1.0 / 3.0));
    let turns = grading["turns"].as_array().unwrap();
    let summary: Vec<(u64, f64, bool, bool)> = turns
        .iter()
        .map(|t| {
            (
                t["turn"].as_u64().unwrap(),
                t["score"].as_f64().unwrap(),
                t["passed"].as_bool().unwrap(),
                t["skipped"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, 1.0, true, false),
            (2, 0.0, false, false),
            (3, 0.0, false, true)
        ]
    );
    assert_eq!(read_json(&stops.join("turn-2/grading.json")), turns[1]);
    let turn_2 = read_json(&stops.join("turn-2/report.json"));
    assert_eq!(turn_2["final_output"], "eleven");
    assert!(!stops.join("turn-3").exists(), "turn 3 did not run");
    // The first session was told the case's input, then its first turn's.
    let prompt = fs::read_to_string(stops.join("prompt.md")).unwrap();
    assert!(
        prompt.starts_with("# You are a careful tutor.\n\nemit "),
        "{prompt}"
    );

    // Mean of turn 1 (0.5: one of two graders), turn 2 (1) and the whole conversation (1: its
    // transcript holds turn 1's "alpha" though the last answer is "gamma").
    let averages = run_dir.join("talk.averages/fake/repeat-1/attempt-1");
    let grading = read_json(&averages.join("grading.json"));
    assert_eq!(grading["score"].as_f64(), Some((0.5 + 1.0 + 1.0) / 3.0));
    assert_eq!(grading["passed"], true);
    assert_eq!(grading["graders"][0]["verdict"], "pass");
    assert_eq!(grading["turns"][0]["score"].as_f64(), Some(0.5));
    assert_eq!(grading["turns"][1]["score"].as_f64(), Some(1.0));
    // The attempt's usage is the whole conversation's: every turn's answer counted.
    let chars = |report: &Path| read_json(report)["usage"]["output_chars"].as_u64().unwrap();
    let turns: u64 =
        chars(&averages.join("report.json")) + chars(&averages.join("turn-2/report.json"));
    let results = read_json(&run_dir.join("results.json"));
    let execution = results["executions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["case_id"] == "talk::averages")
        .unwrap();
    let attempt = &execution["repetitions"][0]["attempts"][0];
    assert_eq!(
        attempt["usage"]["output_chars"].as_u64(),
        Some(turns),
        "{attempt}"
    );
    assert!(turns > chars(&averages.join("report.json")));

    // Replay re-normalizes each recorded turn and grades them again, from a recording made by
    // `cargo skillgym record` (which keeps each later turn's session).
    let recording = dir.path().join("recording");
    skillgym_harness::replay::pack(&run_dir, &recording, false).unwrap();
    let output = run(
        dir.path(),
        &config,
        &["talk::", "--replay", recording.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(101), "{}", stdout(&output));
    assert_eq!(
        trial_lines(&output),
        ["[fake] talk::averages ok", "[fake] talk::stops FAILED"],
        "{}",
        stdout(&output)
    );
    let replayed = latest(dir.path());
    assert_ne!(replayed, run_dir);
    let again = read_json(&replayed.join("talk.stops/fake/repeat-1/attempt-1/grading.json"));
    assert_eq!(again["turns"], grading_turns(&stops));
    assert_eq!(
        read_json(&replayed.join("talk.stops/fake/repeat-1/attempt-1/turn-2/report.json"))["final_output"],
        "eleven"
    );
}

fn grading_turns(attempt: &Path) -> Value {
    read_json(&attempt.join("grading.json"))["turns"].clone()
}

#[test]
fn a_conversation_on_a_runner_that_cannot_resume_is_refused_at_start() {
    let dir = temp_dir("suite-conversation-resume");
    let suite = conversation_suite(dir.path());
    let config = config(dir.path(), &format!("suites: [{}]", suite.display()));
    let output = run(dir.path(), &config, &["talk::stops"]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "error: case `talk::stops` ({}:1) is a conversation, and runner `fake` (command) cannot resume a session, which each turn after the first is\n  help: give the runner `agent.resume_args` (e.g. `[--resume, \"{{session_id}}\"]`), or run the case on other runners (`runners:` in the case)",
            suite.join("cases/stops/case.yaml").display()
        )),
        "{err}"
    );
    assert!(!dir.path().join("turn-2-argv.json").exists(), "nothing ran");
}

#[test]
fn under_mock_each_turn_plays_its_own_script_else_the_case_s() {
    let dir = temp_dir("suite-conversation-mock");
    let suite = dir.path().join("mocktalk");
    let session = r#"emit {"type":"session","id":"s-1"}"#;
    let case = format!(
        "mode: conversation\ninput: \"# three turns\"\nmock: model.yaml\nturns:\n  - input: |\n      {session}\n      chat\n    mock: one.yaml\n    assertions:\n      - type: equals\n        value: four\n  - input: chat\n    mock: two.yaml\n    assertions:\n      - type: equals\n        value: twelve\n      - Says twelve\n  - input: chat\n    assertions:\n      - type: equals\n        value: from the case\n"
    );
    write_tree(
        &suite,
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            ("cases/chats/case.yaml", &case),
            ("cases/chats/one.yaml", "- say: four\n"),
            ("cases/chats/two.yaml", "- say: twelve\n"),
            ("cases/chats/model.yaml", "- say: from the case\n"),
            (
                "judge.mock.yaml",
                "- say: '{\"checks\": [{\"id\": \"rubric-1\", \"satisfied\": true}]}'\n",
            ),
        ],
    );
    let judge = format!(
        "judge:\n  mock: {}\n  agent:\n    type: command\n    command: {FAKE_AGENT}\n    env: {{ FAKE_AGENT_SCRIPT: chat }}\n",
        suite.join("judge.mock.yaml").display()
    );
    let config = resumable_config(dir.path(), &suite, &judge);
    let output = run(dir.path(), &config, &["mocktalk::", "--mock"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let attempt = latest(dir.path()).join("mocktalk.chats/fake/repeat-1/attempt-1");
    for log in ["", "turn-2", "turn-3"] {
        assert!(
            attempt.join(log).join("mock-requests.jsonl").is_file(),
            "{log}"
        );
    }
    let grading = read_json(&attempt.join("grading.json"));
    let scores: Vec<f64> = grading["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores, [1.0, 1.0, 1.0]);
    // Turn 2's judge, in the turn's directory, was told the conversation so far.
    let prompt = fs::read_to_string(attempt.join("turn-2/judge-rubrics/prompt.md")).unwrap();
    assert!(
        prompt.contains("    \"content\": \"four\",\n    \"role\": \"assistant\"\n"),
        "{prompt}"
    );
    assert!(
        prompt.contains("## The agent's final answer\ntwelve\n"),
        "{prompt}"
    );
    assert!(prompt.contains("- rubric-1: Says twelve"), "{prompt}");
}

/// The suite indexes in the target directory that index the suite at `root`.
fn indexes_of(root: &Path) -> Vec<PathBuf> {
    let target = Path::new(FAKE_AGENT)
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .expect("the target directory")
        .join("skillgym");
    let wanted = format!("root\t{}\n", root.display());
    let mut found = Vec::new();
    let mut dirs = vec![target];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "idx")
                && fs::read_to_string(&path).is_ok_and(|text| text.contains(&wanted))
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn the_suite_index_sees_edits_additions_and_removals_in_list_and_one_trial_processes() {
    let dir = temp_dir("suite-index");
    let suite = dir.path().join("idx");
    let (pass, fail) = (say("all good"), say("nope"));
    let case = |text: &str| format!("input: |\n  {text}\n");
    write_tree(
        &suite,
        &[
            (
                "EVAL.yaml",
                "name: idx\nassertions:\n  - type: contains\n    value: good\ntests: ./cases/\n",
            ),
            ("cases/a/case.yaml", &case(&pass)),
            ("cases/b/case.yaml", &case(&pass)),
            ("cases/c/case.yaml", &case(&pass)),
        ],
    );
    let config = config(dir.path(), "suites: [idx]");
    let listed = || -> Vec<String> {
        // A file changed in the clock tick a load begins in is never trusted: wait one out.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let output = run(dir.path(), &config, &["--list", "--format", "terse"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        text.lines()
            .filter(|line| line.contains("idx::"))
            .map(str::to_owned)
            .collect()
    };
    let expected = |ids: &[&str]| -> Vec<String> {
        ids.iter()
            .map(|id| format!("[fake] idx::{id}: test"))
            .collect()
    };
    assert_eq!(listed(), expected(&["a", "b", "c"]), "indexed");
    assert_eq!(listed(), expected(&["a", "b", "c"]), "from the index");
    assert_eq!(indexes_of(&suite).len(), 1, "one index of the suite");
    // An edit (a new id), an addition and a removal.
    fs::write(
        suite.join("cases/b/case.yaml"),
        format!("id: bee\n{}", case(&pass)),
    )
    .unwrap();
    assert_eq!(
        listed(),
        expected(&["a", "bee", "c"]),
        "an edited case file"
    );
    write_tree(&suite, &[("cases/d/case.yaml", &case(&pass))]);
    fs::remove_dir_all(suite.join("cases/c")).unwrap();
    assert_eq!(
        listed(),
        expected(&["a", "bee", "d"]),
        "one added, one removed"
    );
    // A process running one trial, as nextest runs each, reads its own case's file as it is.
    let one_trial = |name: &str| {
        let env = [("NEXTEST_EXECUTION_MODE", "process-per-test")];
        run_env(dir.path(), &config, &["--exact", name], &env)
    };
    let passed = one_trial("[fake] idx::a");
    assert!(passed.status.success(), "{}", stdout(&passed));
    assert_eq!(trial_lines(&passed), ["[fake] idx::a ok"]);
    fs::write(suite.join("cases/a/case.yaml"), case(&fail)).unwrap();
    let failed = one_trial("[fake] idx::a");
    assert_eq!(failed.status.code(), Some(101), "{}", stdout(&failed));
    assert_eq!(trial_lines(&failed), ["[fake] idx::a FAILED"]);
    let gone = one_trial("[fake] idx::c");
    assert!(trial_lines(&gone).is_empty(), "{}", stdout(&gone));
    // A changed skillgym.yaml: the suite is read whole again, and listed the same.
    let yaml = fs::read_to_string(&config).unwrap();
    fs::write(&config, format!("{yaml}# edited\n")).unwrap();
    assert_eq!(
        listed(),
        expected(&["a", "bee", "d"]),
        "after a config change"
    );
}
