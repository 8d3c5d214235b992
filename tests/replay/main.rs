//! Replay through the whole harness: a run of every adapter (each fed a captured transcript of
//! its real CLI by the fake agent) is recorded, then replayed with `--replay`, with
//! `type: replay` runners and from a recording packed by `cargo skillgym record`; the replays
//! must reach the recorded verdicts and reports without starting any agent, and a changed
//! assertion must change the verdict. Also: the examples' recording of the six real agent CLIs
//! replays to the verdicts and reports it recorded (with estimated costs for the agents that
//! report none). And a recording whose durations and token figures sit at `u64::MAX` replays
//! with saturated sums, its table and reports written. And costs the agents do not report are
//! estimated from their tokens and shown as estimates, live and replayed.
//!
//! This target is its own harness (`harness = false`). Run as a child (`REPLAY_CHILD=1`) it is
//! a skillgym benchmark binary whose runners come from the config each check writes; run by
//! cargo it is the driver, one libtest trial per behaviour.

mod cases;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use skillgym_e2e::{
    TempDir, cargo_skillgym, examples_agents_harness, examples_dir, stderr, stdout, temp_dir,
    without_outer_runner_env, workspace_root,
};

const CHILD: &str = "REPLAY_CHILD";

/// One behaviour checked by the driver.
type Check = fn() -> Result<(), Failed>;

/// The runners of the recorded run: (id = agent type, captured transcript, extra script).
const ADAPTERS: [(&str, &str); 8] = [
    ("claude-code", "claude-code.jsonl"),
    ("codex", "codex.jsonl"),
    ("opencode", "opencode.jsonl"),
    ("copilot", "copilot.jsonl"),
    ("cursor-agent", "cursor"),
    ("gemini-cli", "gemini-cli.jsonl"),
    ("qwen-code", "qwen-code.jsonl"),
    // A provider rejection (HTTP 400) and an exit code: a failed execution to replay.
    ("codex", "codex.error-400.jsonl"),
];

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return skillgym_harness::Harness::new().run();
    }
    let checks: [(&str, Check); 9] = [
        (
            "every_adapter_replays_to_its_recorded_verdicts_and_reports",
            every_adapter_replays_to_its_recorded_verdicts_and_reports,
        ),
        (
            "a_changed_assertion_changes_the_verdict_and_no_agent_starts",
            a_changed_assertion_changes_the_verdict_and_no_agent_starts,
        ),
        (
            "replay_runners_and_packed_recordings_replay_the_same",
            replay_runners_and_packed_recordings_replay_the_same,
        ),
        (
            "what_the_recording_lacks_is_skipped_with_the_reason",
            what_the_recording_lacks_is_skipped_with_the_reason,
        ),
        (
            "attempts_replay_in_recorded_order",
            attempts_replay_in_recorded_order,
        ),
        (
            "the_six_real_agents_recording_replays_as_recorded",
            the_six_real_agents_recording_replays_as_recorded,
        ),
        (
            "no_case_id_takes_a_name_the_run_directory_uses",
            no_case_id_takes_a_name_the_run_directory_uses,
        ),
        (
            "a_recording_of_extreme_figures_replays_with_saturated_sums",
            a_recording_of_extreme_figures_replays_with_saturated_sums,
        ),
        (
            "costs_the_agents_do_not_report_are_estimated_in_every_report",
            costs_the_agents_do_not_report_are_estimated_in_every_report,
        ),
    ];
    let trials = checks
        .into_iter()
        .map(|(name, check)| Trial::test(name, check))
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// The runner id of an entry of [`ADAPTERS`].
fn runner_id(index: usize) -> String {
    match index {
        7 => "codex-rejected".to_owned(),
        _ => ADAPTERS[index].0.to_owned(),
    }
}

/// The config of the recorded run: every adapter's CLI is the fake agent playing a transcript.
fn live_config() -> String {
    let fake = env!("CARGO_BIN_EXE_fake-agent");
    let fixtures = workspace_root().join("skillgym-harness/tests/fixtures/transcripts");
    let mut yaml = String::from("runners:\n");
    for (index, (kind, transcript)) in ADAPTERS.iter().enumerate() {
        let path = if *transcript == "cursor" {
            workspace_root().join("tests/replay/cursor.jsonl")
        } else {
            fixtures.join(transcript)
        };
        let exit = if index == 7 { "\\nexit 1" } else { "" };
        yaml.push_str(&format!(
            "  {}: {{ agent: {{ type: {kind}, model: m, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"replay {}{exit}\" }} }} }}\n",
            runner_id(index),
            path.display()
        ));
    }
    yaml.push_str(&format!(
        "  command: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"-\" }} }} }}\n"
    ));
    yaml
}

/// The same runners, each with a program that does not exist: starting one fails the attempt.
fn poisoned_config() -> String {
    let mut yaml = String::from("runners:\n");
    for (index, (kind, _)) in ADAPTERS.iter().enumerate() {
        yaml.push_str(&format!(
            "  {}: {{ agent: {{ type: {kind}, model: m, command: /nonexistent/agent }} }}\n",
            runner_id(index)
        ));
    }
    yaml.push_str("  command: { agent: { type: command, command: /nonexistent/agent } }\n");
    yaml
}

/// One child run in `dir` (config written there, output in `dir/out/<run_id>`).
fn child(dir: &Path, run_id: &str, config: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let config_path = dir.join(format!("{run_id}.yaml"));
    std::fs::write(&config_path, config).unwrap();
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--config".as_ref(), config_path.as_os_str()])
        .args(["--output-dir".as_ref(), dir.join("out").as_os_str()])
        .args(args)
        .current_dir(dir);
    without_outer_runner_env(&mut command);
    command
        .env(CHILD, "1")
        .env("SKILLGYM_RUN_ID", run_id)
        .env("FAKE_AGENT_STATE_DIR", dir.join("state"))
        .envs(env.iter().copied());
    command.output().expect("the child harness runs")
}

/// The recorded run every check starts from, in a fresh directory.
fn recorded(label: &str) -> Result<TempDir, Failed> {
    let dir = temp_dir(label);
    let output = child(dir.path(), "live", &live_config(), &[], &[]);
    // The rejected runner fails its execution: the live run exits 101.
    if !stdout(&output).contains("test [claude-code] cases::transcript")
        || stdout(&output).contains("replayed from")
    {
        return Err(format!("the live run did not run:\n{}", context(&output)).into());
    }
    Ok(dir)
}

/// `case_id/runner_id -> status` of a run's results.
fn statuses(results: &Value) -> Vec<(String, String)> {
    let mut statuses: Vec<(String, String)> = results["executions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|execution| {
            (
                format!(
                    "{}/{}",
                    execution["case_id"].as_str().unwrap_or_default(),
                    execution["runner_id"].as_str().unwrap_or_default()
                ),
                execution["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    statuses.sort();
    statuses
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn results(dir: &Path, run_id: &str) -> Value {
    read_json(&dir.join("out").join(run_id).join("results.json"))
}

fn context(output: &Output) -> String {
    format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        stdout(output),
        stderr(output)
    )
}

/// Every attempt's `report.json` under `run`, without the paths of raw artifacts (which
/// differ by run): `<case>/<runner>/repeat-N/attempt-M -> report`.
fn reports(run: &Path) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for case in dirs(run) {
        for runner in dirs(&case) {
            for repeat in dirs(&runner) {
                for attempt in dirs(&repeat) {
                    let path = attempt.join("report.json");
                    if !path.is_file() {
                        continue;
                    }
                    let mut report = read_json(&path);
                    report["raw_artifacts"] = Value::Null;
                    let key = attempt.strip_prefix(run).unwrap().display().to_string();
                    found.push((key, report));
                }
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The replay reached the recorded verdicts, and every attempt's report is the recorded one.
fn same_as_recorded(dir: &Path, run_id: &str) -> Result<(), Failed> {
    let live = results(dir, "live");
    let replayed = results(dir, run_id);
    if statuses(&replayed) != statuses(&live) {
        return Err(format!(
            "{run_id}: statuses differ\n  recorded: {:?}\n  replayed: {:?}",
            statuses(&live),
            statuses(&replayed)
        )
        .into());
    }
    let (live, replayed) = (
        reports(&dir.join("out/live")),
        reports(&dir.join("out").join(run_id)),
    );
    if live.len() != replayed.len() || live.is_empty() {
        return Err(format!(
            "{run_id}: {} recorded attempts, {} replayed",
            live.len(),
            replayed.len()
        )
        .into());
    }
    for ((key, recorded), (replayed_key, replayed)) in live.iter().zip(&replayed) {
        if key != replayed_key || recorded != replayed {
            return Err(format!(
                "{run_id}: the report of {key} differs from the recorded one:\n  recorded: {recorded}\n  replayed: {replayed}"
            )
            .into());
        }
    }
    Ok(())
}

fn every_adapter_replays_to_its_recorded_verdicts_and_reports() -> Result<(), Failed> {
    let dir = recorded("replay-every-adapter")?;
    let live = results(dir.path(), "live");
    let statuses = statuses(&live);
    // Every adapter's transcript passed; the rejected one failed, as a model rejection.
    for (index, _) in ADAPTERS.iter().enumerate() {
        let key = format!("cases::transcript/{}", runner_id(index));
        let expected = if index == 7 { "failed" } else { "passed" };
        if !statuses.contains(&(key.clone(), expected.to_owned())) {
            return Err(format!("recorded run: {key} is not {expected}: {statuses:?}").into());
        }
    }
    let replay_dir = dir.path().join("out/live");
    let replay_dir = replay_dir.to_str().unwrap();
    let output = child(
        dir.path(),
        "replayed",
        &live_config(),
        &["--replay", replay_dir],
        &[],
    );
    same_as_recorded(dir.path(), "replayed").map_err(|error| {
        Failed::from(format!(
            "{}\n{}",
            error.message().unwrap_or_default(),
            context(&output)
        ))
    })
}

fn a_changed_assertion_changes_the_verdict_and_no_agent_starts() -> Result<(), Failed> {
    let dir = recorded("replay-changed-assertion")?;
    let recording = dir.path().join("out/live");
    let recording = recording.to_str().unwrap();
    // The agents' programs do not exist: had replay started one, its attempt would fail.
    let output = child(
        dir.path(),
        "same",
        &poisoned_config(),
        &["--replay", recording],
        &[],
    );
    same_as_recorded(dir.path(), "same")?;
    // The run says it replayed, and each attempt which recorded attempt it replayed.
    let said = format!("skillgym: replayed from {recording}: no agent was started");
    if !stdout(&output).contains(&said) {
        return Err(format!("the summary says `{said}`:\n{}", context(&output)).into());
    }
    let attempt = &read_json(
        &dir.path()
            .join("out/same/cases.transcript/codex/result.json"),
    )["repetitions"][0]["attempts"][0];
    let expected = format!("{recording}/cases.transcript/codex/repeat-1/attempt-1");
    if attempt["replayed_from"] != expected.as_str() {
        return Err(format!("replayed_from: {attempt}").into());
    }
    // Today's check expects an answer no transcript gave: every execution that passed fails
    // now, on the assertion, with the same sessions.
    let output_changed = child(
        dir.path(),
        "changed",
        &poisoned_config(),
        &["--replay", recording, "cases::transcript"],
        &[("REPLAY_EXPECT", "an answer nobody gave")],
    );
    for (index, _) in ADAPTERS.iter().enumerate().take(7) {
        let path = dir
            .path()
            .join("out/changed/cases.transcript")
            .join(runner_id(index))
            .join("result.json");
        let execution = read_json(&path);
        let message = execution["failure"]["message"].as_str().unwrap_or_default();
        if execution["status"] != "failed"
            || execution["failure"]["origin"] != "assertion"
            || !message.contains("an answer nobody gave")
        {
            return Err(format!(
                "{}: {execution}\n{}",
                runner_id(index),
                context(&output_changed)
            )
            .into());
        }
    }
    // The failed check's question is kept, but a replayed session cannot be resumed: no hint.
    let explain = read_json(
        &dir.path()
            .join("out/changed/cases.transcript/claude-code/repeat-1/attempt-1/explain.json"),
    );
    if explain["resumable"] != false || stdout(&output_changed).contains("ask the agent why") {
        return Err(format!("{explain}\n{}", context(&output_changed)).into());
    }
    if stderr(&output).contains("not on PATH") || stderr(&output).contains("not an executable") {
        return Err(format!("replay checked the agents' programs:\n{}", context(&output)).into());
    }
    Ok(())
}

fn replay_runners_and_packed_recordings_replay_the_same() -> Result<(), Failed> {
    let dir = recorded("replay-runners")?;
    let packed = dir.path().join("packed");
    let record = Command::new(cargo_skillgym())
        .args(["skillgym", "record"])
        .arg(dir.path().join("out/live"))
        .arg(&packed)
        .output()
        .unwrap();
    if !record.status.success()
        || !stdout(&record).starts_with("recorded 10 execution(s), 12 attempt(s)")
    {
        return Err(format!("cargo skillgym record:\n{}", context(&record)).into());
    }
    let mut yaml = String::from("runners:\n");
    for index in 0..ADAPTERS.len() {
        yaml.push_str(&format!(
            "  {}: {{ agent: {{ type: replay, recording: packed }} }}\n",
            runner_id(index)
        ));
    }
    yaml.push_str("  command: { agent: { type: replay, recording: packed } }\n");
    let output = child(dir.path(), "from-pack", &yaml, &[], &[]);
    same_as_recorded(dir.path(), "from-pack").map_err(|error| {
        Failed::from(format!(
            "{}\n{}",
            error.message().unwrap_or_default(),
            context(&output)
        ))
    })?;
    // A replay runner may replay a runner recorded under another id.
    let output = child(
        dir.path(),
        "renamed",
        "runners:\n  mine: { agent: { type: replay, recording: packed, runner: cursor-agent } }\n  command: { agent: { type: replay, recording: packed } }\n",
        &["--runner", "mine"],
        &[],
    );
    let renamed = statuses(&results(dir.path(), "renamed"));
    if renamed != [("cases::transcript/mine".to_owned(), "passed".to_owned())] {
        return Err(format!("renamed: {renamed:?}\n{}", context(&output)).into());
    }
    let report = read_json(
        &dir.path()
            .join("out/renamed/cases.transcript/mine/repeat-1/attempt-1/report.json"),
    );
    if report["runner"]["agent"]["type"] != "cursor-agent" || report["session_id"] != "chat_123" {
        return Err(format!("the cursor adapter parsed the replay: {}", report["runner"]).into());
    }
    Ok(())
}

fn what_the_recording_lacks_is_skipped_with_the_reason() -> Result<(), Failed> {
    let dir = recorded("replay-lacks")?;
    let recording = dir.path().join("out/live");
    let recording = recording.to_str().unwrap();
    // A runner the recording lacks, and today's case asking for more repetitions.
    let config = format!(
        "{}  extra: {{ agent: {{ type: command, command: /nonexistent/agent }} }}\n",
        poisoned_config()
    );
    let output = child(
        dir.path(),
        "lacking",
        &config,
        &[
            "--replay",
            recording,
            "--repeat",
            "3",
            "--runner",
            "extra,command",
        ],
        &[],
    );
    let results = results(dir.path(), "lacking");
    let execution = |case: &str, runner: &str| {
        results["executions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["case_id"] == case && e["runner_id"] == runner)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let extra = execution("cases::transcript", "extra");
    let message = extra["failure"]["message"].as_str().unwrap_or_default();
    if extra["status"] != "skipped"
        || !message.contains("holds no session of case `cases::transcript` on runner `extra`")
    {
        return Err(format!("extra: {extra}\n{}", context(&output)).into());
    }
    let retried = execution("cases::retried", "command");
    let message = retried["failure"]["message"].as_str().unwrap_or_default();
    if retried["status"] != "skipped"
        || !message.contains("the recording holds 2 of the 3 repetitions")
        || retried["repetitions"].as_array().map(Vec::len) != Some(2)
    {
        return Err(format!("retried: {retried}\n{}", context(&output)).into());
    }
    Ok(())
}

fn attempts_replay_in_recorded_order() -> Result<(), Failed> {
    let dir = recorded("replay-order")?;
    let recording = dir.path().join("out/live");
    let live = read_json(&recording.join("cases.retried/command/result.json"));
    let attempts = |execution: &Value| -> Vec<(u64, u64, String)> {
        execution["repetitions"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|repetition| {
                repetition["attempts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .map(|attempt| {
                (
                    attempt["repetition"].as_u64().unwrap_or(0),
                    attempt["attempt"].as_u64().unwrap_or(0),
                    attempt["status"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let expected = vec![
        (1, 1, "failed".to_owned()),
        (1, 2, "passed".to_owned()),
        (2, 1, "passed".to_owned()),
    ];
    if attempts(&live) != expected {
        return Err(format!("recorded attempts: {:?}", attempts(&live)).into());
    }
    let output = child(
        dir.path(),
        "ordered",
        &poisoned_config(),
        &["--replay", recording.to_str().unwrap(), "cases::retried"],
        &[],
    );
    let replayed = read_json(
        &dir.path()
            .join("out/ordered/cases.retried/command/result.json"),
    );
    if attempts(&replayed) != expected || replayed["status"] != live["status"] {
        return Err(format!(
            "replayed attempts: {:?} ({})\n{}",
            attempts(&replayed),
            replayed["status"],
            context(&output)
        )
        .into());
    }
    // The replayed attempt took as long as the recorded one did.
    for (repetition, attempt) in [(1, 1), (1, 2), (2, 1)] {
        let path =
            format!("cases.retried/command/repeat-{repetition}/attempt-{attempt}/result.json");
        let recorded = read_json(&recording.join(&path))["duration_ms"].clone();
        let replayed =
            read_json(&dir.path().join("out/ordered").join(&path))["duration_ms"].clone();
        if recorded != replayed {
            return Err(
                format!("{path}: duration {recorded} recorded, {replayed} replayed").into(),
            );
        }
    }
    Ok(())
}

fn the_six_real_agents_recording_replays_as_recorded() -> Result<(), Failed> {
    let recording = examples_dir().join("agents/recording");
    let out = temp_dir("replay-real-agents");
    let mut command = Command::new(examples_agents_harness());
    command
        .args(["--output-dir".as_ref(), out.path().as_os_str()])
        .current_dir(examples_dir())
        .env("CARGO_MANIFEST_DIR", examples_dir())
        .env("SKILLGYM_RUN_ID", "replayed");
    without_outer_runner_env(&mut command);
    let output = command.output().unwrap();
    if !output.status.success() {
        return Err(format!("the agents example failed:\n{}", context(&output)).into());
    }
    let run = out.path().join("replayed");
    let mut checked = 0;
    let mut agents = std::collections::BTreeSet::new();
    let mut estimated = std::collections::BTreeSet::new();
    for (key, mut report) in reports(&run) {
        let recorded_path = recording.join(&key).join("report.json");
        let mut recorded = read_json(&recorded_path);
        recorded["raw_artifacts"] = Value::Null;
        // The recording predates estimated costs: a cost the agent did not report is the
        // replay's estimate from the recorded tokens, and the rest must match.
        if report["usage"]["cost_estimated"] == Value::Bool(true)
            && let Some(usage) = report["usage"].as_object_mut()
        {
            usage.remove("cost_usd");
            usage.remove("cost_estimated");
            estimated.insert(report["runner"]["agent"]["type"].to_string());
        }
        if recorded != report {
            return Err(format!("{key}: the replayed report differs from the recorded one").into());
        }
        let status = |path: &Path| read_json(&path.join("result.json"))["status"].clone();
        if status(&recording.join(&key)) != status(&run.join(&key)) {
            return Err(
                format!("{key}: the replayed verdict differs from the recorded one").into(),
            );
        }
        agents.insert(
            report["runner"]["agent"]["type"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
        checked += 1;
    }
    let expected = [
        "claude-code",
        "codex",
        "copilot",
        "gemini-cli",
        "opencode",
        "qwen-code",
    ];
    if checked != 24 || !agents.iter().eq(expected.iter()) {
        return Err(format!("{checked} attempts of {agents:?} checked").into());
    }
    // Every agent that reports no cost gets one from the model's price.
    let without_cost = [
        "\"codex\"",
        "\"copilot\"",
        "\"gemini-cli\"",
        "\"qwen-code\"",
    ];
    if !estimated.iter().eq(without_cost.iter()) {
        return Err(format!("costs estimated for {estimated:?}").into());
    }
    Ok(())
}

/// The workspace root of the run in `run` (from its `workspace-root.json`).
fn workspaces_root_of(run: &Path) -> PathBuf {
    let record = read_json(&run.join("workspace-root.json"));
    PathBuf::from(record["root"].as_str().unwrap_or_default())
}

/// The names of the entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether some case id would get the directory `name`: the one id whose clean name it is
/// (its `.` read as `::`, the only way a clean name gets one); hashed names hold `~`.
fn an_id_takes(name: &str) -> bool {
    let id = name.replace('.', "::");
    let dir = skillgym_harness::replay::recording::execution_dir(Path::new(""), &id, "r");
    name.contains('~') || dir.starts_with(name)
}

fn no_case_id_takes_a_name_the_run_directory_uses() -> Result<(), Failed> {
    let dir = recorded("replay-layout")?;
    let run = dir.path().join("out/live");
    // Every reporter writes into the run directory too.
    let report = Command::new(cargo_skillgym())
        .args(["skillgym", "report", "--reporter"])
        .arg("json,json-summary,junit,github-actions,html")
        .arg(&run)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    if report.status.code() != Some(1) {
        return Err(format!("cargo skillgym report:\n{}", context(&report)).into());
    }
    let cases: Vec<String> = results(dir.path(), "live")["executions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|execution| {
            let artifacts = Path::new(execution["artifact_dir"].as_str()?);
            let case = artifacts.strip_prefix(&run).ok()?.components().next()?;
            Some(case.as_os_str().to_string_lossy().into_owned())
        })
        .collect();
    let own: Vec<String> = names(&run)
        .into_iter()
        .filter(|name| !cases.contains(name))
        .chain(
            // The run's workspace root (where failed attempts' workspaces are kept).
            names(&workspaces_root_of(&run))
                .into_iter()
                .filter(|name| !cases.contains(name)),
        )
        .collect();
    for expected in [
        "run.json",
        "results.json",
        "junit.xml",
        "report.html",
        "workspace-root.json",
    ] {
        if !own.iter().any(|name| name == expected) {
            return Err(format!("the run directory lacks {expected}: {own:?}").into());
        }
    }
    let taken: Vec<&String> = own.iter().filter(|name| an_id_takes(name)).collect();
    if !taken.is_empty() {
        return Err(
            format!("case ids can take these names of the run directory: {taken:?}").into(),
        );
    }
    Ok(())
}

fn a_recording_of_extreme_figures_replays_with_saturated_sums() -> Result<(), Failed> {
    let dir = recorded("replay-extreme-figures")?;
    let recording = dir.path().join("out/live");
    // Every recorded attempt of `cases::retried` took u64::MAX milliseconds and reported
    // tokens near u64::MAX: the replay's sums and means go past both.
    let execution = recording.join("cases.retried/command");
    let usage = r#"{"type":"usage","input_tokens":18446744073709551614,"output_tokens":18446744073709551614,"total_tokens":18446744073709551614,"cost_usd":1.7e308}"#;
    for attempt in [
        "repeat-1/attempt-1",
        "repeat-1/attempt-2",
        "repeat-2/attempt-1",
    ] {
        let attempt = execution.join(attempt);
        let result = attempt.join("result.json");
        let mut value = read_json(&result);
        value["duration_ms"] = u64::MAX.into();
        std::fs::write(&result, value.to_string()).unwrap();
        let stdout_log = attempt.join("stdout.log");
        let mut log = std::fs::read_to_string(&stdout_log).unwrap();
        log.push_str(usage);
        log.push('\n');
        std::fs::write(&stdout_log, log).unwrap();
    }
    let output = child(
        dir.path(),
        "extreme",
        &poisoned_config(),
        &[
            "--replay",
            recording.to_str().unwrap(),
            "--reporter",
            "json-summary,junit,html",
            "cases::retried",
        ],
        &[],
    );
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|line| line.starts_with("skillgym: command "))
        .unwrap_or_default();
    let saturated = "18,446,744,073,709,551,615";
    if output.status.code() != Some(0)
        || stderr(&output).contains("panicked")
        || row.matches(saturated).count() != 3
        || !row.ends_with("307445734561825m 51s")
        || !text.contains("skillgym: 1 executions: 1 passed")
    {
        return Err(format!("the replay's table row: {row}\n{}", context(&output)).into());
    }
    let run = dir.path().join("out/extreme");
    for file in ["summary.json", "junit.xml", "report.html"] {
        if !run.join(file).is_file() {
            return Err(format!("no {file}\n{}", context(&output)).into());
        }
    }
    let replayed = read_json(&run.join("cases.retried/command/result.json"));
    if replayed["duration_ms"] != u64::MAX
        || replayed["usage"]["input_tokens"]["value"] != u64::MAX - 1
    {
        return Err(format!("the replayed means: {replayed}").into());
    }
    Ok(())
}

/// Codex (`gpt-5.5`, a built-in price) and Gemini CLI (`acme/flash-x`, priced by `pricing:`)
/// report no cost; Claude Code does. The estimates, from the transcripts' token figures, reach
/// `results.json` (marked), the console table, the job summary and the HTML report (as `~$`),
/// run live and replayed alike; Claude Code's own figure stays unmarked.
fn costs_the_agents_do_not_report_are_estimated_in_every_report() -> Result<(), Failed> {
    let fake = env!("CARGO_BIN_EXE_fake-agent");
    let fixtures = workspace_root().join("skillgym-harness/tests/fixtures/transcripts");
    let mut config = String::from("runners:\n");
    for (kind, model) in [
        ("codex", "gpt-5.5"),
        ("gemini-cli", "acme/flash-x"),
        ("claude-code", "claude-sonnet-4-6"),
    ] {
        config.push_str(&format!(
            "  {kind}: {{ agent: {{ type: {kind}, model: {model}, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"replay {}\" }} }} }}\n",
            fixtures.join(format!("{kind}.jsonl")).display()
        ));
    }
    // The child's other case names the `command` runner.
    config.push_str(&format!(
        "  command: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"-\" }} }} }}\n"
    ));
    config.push_str("pricing:\n  flash-x: { input: 2, cached_input: 0.5, output: 8 }\n");
    // Codex: 29,245 input and 21 output tokens at $5 and $30 per million: $0.146855.
    // Gemini CLI: 35,961 input and 21 output tokens at $2 and $8 per million: $0.07209.
    // Claude Code reported $0.151928 itself.
    let expected = [
        ("codex", 0.146855, true),
        ("gemini-cli", 0.07209, true),
        ("claude-code", 0.151928, false),
    ];
    let dir = temp_dir("replay-estimated-costs");
    let summary = dir.path().join("step-summary.md");
    let summary_env = [("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())];
    let args = ["--reporter", "html,github-actions", "transcript"];
    let live = child(dir.path(), "live", &config, &args, &summary_env);
    let recording = dir.path().join("out/live");
    let replay_args = [&args[..], &["--replay", recording.to_str().unwrap()]].concat();
    let replayed = child(dir.path(), "replayed", &config, &replay_args, &summary_env);
    for (run_id, output) in [("live", &live), ("replayed", &replayed)] {
        let fail = |what: String| Failed::from(format!("{run_id}: {what}\n{}", context(output)));
        if !dir
            .path()
            .join("out")
            .join(run_id)
            .join("results.json")
            .is_file()
        {
            return Err(fail("no results.json".to_owned()));
        }
        let results = results(dir.path(), run_id);
        for (runner, cost, estimated) in expected {
            let execution = results["executions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|e| e["runner_id"] == runner)
                .ok_or_else(|| fail(format!("no execution on {runner}")))?;
            let attempt = &execution["repetitions"][0]["attempts"][0]["usage"];
            for usage in [attempt, &execution["usage"]] {
                let found = usage["cost_usd"].as_f64().unwrap_or(f64::NAN);
                let marker = usage.get("cost_estimated").cloned();
                if (found - cost).abs() > 1e-9 || marker != estimated.then_some(Value::Bool(true)) {
                    return Err(fail(format!(
                        "{runner}: cost {found}, marker {marker:?}; expected {cost}, estimated {estimated}"
                    )));
                }
            }
        }
        let text = stdout(output);
        let html = std::fs::read_to_string(dir.path().join("out").join(run_id).join("report.html"))
            .unwrap_or_default();
        for (what, haystack, needles) in [
            (
                "the console table",
                text.as_str(),
                &[
                    "~$0.1469",
                    "~$0.0721",
                    " $0.1519",
                    "skillgym: ~ marks a cost estimated from token counts",
                ][..],
            ),
            (
                "the HTML report",
                html.as_str(),
                &["~$0.1469", "~$0.0721", ">$0.1519<", "estimated from tokens"][..],
            ),
        ] {
            if let Some(missing) = needles.iter().find(|needle| !haystack.contains(*needle)) {
                return Err(fail(format!("{what} lacks `{missing}`")));
            }
        }
        if text.contains("~$0.1519") {
            return Err(fail(
                "Claude Code's own cost is marked as estimated".to_owned(),
            ));
        }
    }
    let job_summary = std::fs::read_to_string(&summary).unwrap_or_default();
    if !job_summary.contains("| \\~$0.1469 |") || !job_summary.contains("\\~ a cost estimated") {
        return Err(format!("the job summary:\n{job_summary}").into());
    }
    Ok(())
}
