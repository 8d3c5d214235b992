//! The real-agent tier: the six installable agent CLIs (Claude Code, Codex, OpenCode, Copilot,
//! Gemini CLI, Qwen Code) run through the real harness with `--mock`, against skillgym's
//! scripted model server, inside a loopback-only network namespace (`unshare -n`), each
//! session in a bubblewrap sandbox of its own (`sandbox: { mode: bubblewrap, network:
//! loopback }`) that reaches the scripted model through the sandbox's forwarder.
//!
//! This target is its own harness (`harness = false`). Run as a child (`REAL_AGENTS_CHILD=1`)
//! it is a skillgym benchmark binary whose cases (`cases.rs`) are the scenarios, one runner per
//! agent found on `PATH`; it refuses to start an agent unless its network namespace holds
//! nothing but `lo`. Run by cargo it is the driver: it starts the child under `unshare -n`,
//! twice (the scenarios in parallel; then the provider-rejection scenario, serially, so that
//! each runner's rejected execution comes before the one it skips); then once more with
//! `--replay` of the scenarios' run directory (the same verdicts and reports, no agent
//! started); then once per agent in explain mode (`--explain <attempt dir> --mock`: the failed
//! `explain_why` attempt's question asked by resuming the agent's session); then once to probe
//! every agent (`probe.rs`: what `cargo skillgym probe --instructions` reports of two skills and
//! the planted instruction files). Each agent's result for each scenario, and its replay, is
//! one trial.
//!
//! The child runs as a benchmark author's would: from a temporary "author repository" (a
//! `.git`, the config and the output directory inside it) whose root holds the author's own
//! skills and instructions (`.claude/skills`, `.agents/skills`, `.opencode/skills`,
//! `.github/skills`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `QWEN.md`), each naming a marker
//! of its own. Workspaces go to the default root, the temporary directory (the child's
//! `TMPDIR`, one of the driver's): no model request of any agent may mention a marker. A
//! control run (one scenario, every agent) puts the workspace root inside the author
//! repository, with instruction files in the template naming markers of their own: every agent
//! must show its workspace's (so the check would see a leak), and exactly the author files the
//! README says an agent reads past its workspace's own repository.
//!
//! The CLIs come from `PATH`; `.ci/install-agents` installs the pinned versions and prints
//! their directory: `PATH="$(.ci/install-agents):$PATH" cargo test --test real_agents`. Without
//! them (and without root, which `unshare -n` needs) the trials are ignored with the reason,
//! unless `CI` is set: then a missing CLI fails its trials.

mod cases;
mod probe;
mod triggers;
mod usage;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::sync::OnceLock;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;
use skillgym_e2e::{stderr, stdout, temp_dir, without_outer_runner_env, workspace_root};
use skillgym_harness::Harness;

const CHILD: &str = "REAL_AGENTS_CHILD";
/// What the child prints once it has checked its network namespace.
const LOOPBACK_ONLY: &str = "real-agents: network interfaces: lo";

/// An agent CLI of the tier: runner id (= agent type), program, model.
struct AgentCli {
    runner: &'static str,
    program: &'static str,
    model: &'static str,
}

const AGENTS: [AgentCli; 6] = [
    AgentCli {
        runner: "claude-code",
        program: "claude",
        model: "claude-sonnet-4-6",
    },
    AgentCli {
        runner: "codex",
        program: "codex",
        model: "gpt-5.5",
    },
    AgentCli {
        runner: "opencode",
        program: "opencode",
        model: "mock-model",
    },
    AgentCli {
        runner: "copilot",
        program: "copilot",
        model: "gpt-5.4",
    },
    AgentCli {
        runner: "gemini-cli",
        program: "gemini",
        model: "gemini-2.5-pro",
    },
    AgentCli {
        runner: "qwen-code",
        program: "qwen",
        model: "qwen3-coder-plus",
    },
];

/// A skill planted in the child's home, in every user-level skill directory an agent reads:
/// it must never reach a model request (`run.user_skills` defaults to `isolated`).
const USER_SKILL: &str = "user-home-skill";

/// The user-level skill directories of the six agents, relative to the home.
const USER_SKILL_DIRS: [&str; 8] = [
    ".claude/skills",
    ".agents/skills",
    ".codex/skills",
    ".copilot/skills",
    ".gemini/skills",
    ".qwen/skills",
    ".config/opencode/skills",
    ".opencode/skills",
];

/// The author's own files at the root of the author repository: (tag, path), `{name}` being
/// the skill's name, which is its marker.
const AUTHOR_FILES: [(&str, &str); 8] = [
    ("claude-skill", ".claude/skills/{name}/SKILL.md"),
    ("agents-skill", ".agents/skills/{name}/SKILL.md"),
    ("opencode-skill", ".opencode/skills/{name}/SKILL.md"),
    ("github-skill", ".github/skills/{name}/SKILL.md"),
    ("agents-md", "AGENTS.md"),
    ("claude-md", "CLAUDE.md"),
    ("gemini-md", "GEMINI.md"),
    ("qwen-md", "QWEN.md"),
];

/// The instruction files the control run's template adds to each workspace: (tag, path).
const WORKSPACE_FILES: [(&str, &str); 4] = [
    ("agents-md", "AGENTS.md"),
    ("claude-md", "CLAUDE.md"),
    ("gemini-md", "GEMINI.md"),
    ("qwen-md", "QWEN.md"),
];

/// Which author files each agent reads when its workspace root is inside the author
/// repository (the control run), though the workspace is a repository of its own: Claude Code
/// reads every `CLAUDE.md` up to `/` (README, "Where workspaces live").
const SEEN_FROM_INSIDE: [(&str, &[&str]); 6] = [
    ("claude-code", &["claude-md"]),
    ("codex", &[]),
    ("opencode", &[]),
    ("copilot", &[]),
    ("gemini-cli", &[]),
    ("qwen-code", &[]),
];

/// The scenario of the control run.
const CONTROL_SCENARIO: &str = "cases::shell_read_answer";

/// The scenarios, and the status each agent's execution must end with.
const SCENARIOS: [(&str, &str); 10] = [
    ("shell_read_answer", "passed"),
    ("skill_tool", "passed"),
    ("if_listed", "passed"),
    ("missing_skill", "passed"),
    ("root_skill_named_by_frontmatter", "passed"),
    ("failing_command", "passed"),
    ("runs_in_the_workspace", "passed"),
    ("explain_why", "failed"),
    ("rejection::first", "failed"),
    ("rejection::second", "skipped"),
];

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let arguments = Arguments::from_args();
    let mut trials = vec![Trial::ignorable_test(
        "tier::loopback_only_namespace",
        || {
            if let Some(reason) = skip_reason(None) {
                return Ok(Completion::ignored_with(reason));
            }
            let run = tier_run()?;
            for output in &run.outputs {
                if !stdout(output).contains(LOOPBACK_ONLY) {
                    return Err(format!(
                        "the child did not confirm a loopback-only namespace (exit {:?}):\n{}\n{}",
                        output.status.code(),
                        stdout(output),
                        stderr(output)
                    )
                    .into());
                }
            }
            Ok(Completion::Completed)
        },
    )];
    for agent in &AGENTS {
        for (scenario, status) in SCENARIOS {
            trials.push(Trial::ignorable_test(
                format!("{}::{scenario}", agent.runner),
                move || check(agent, scenario, status),
            ));
        }
        trials.push(Trial::ignorable_test(
            format!("{}::probe_shows_the_skills", agent.runner),
            move || check_probe(agent),
        ));
        trials.push(Trial::ignorable_test(
            format!("{}::trigger_suite", agent.runner),
            move || check_triggers(agent),
        ));
        trials.push(Trial::ignorable_test(
            format!("{}::replayed_as_recorded", agent.runner),
            move || check_replay(agent),
        ));
        trials.push(Trial::ignorable_test(
            format!("{}::sees_nothing_of_the_authors_repository", agent.runner),
            move || check_no_leak(agent),
        ));
        trials.push(Trial::ignorable_test(
            format!(
                "{}::control_root_inside_the_authors_repository",
                agent.runner
            ),
            move || check_control(agent),
        ));
    }
    let conclusion = libtest_mimic::run(&arguments, trials);
    // The runs' artifacts (and the workspaces they kept) stay for a look when something failed.
    if let Some(Ok(run)) = RUN.get() {
        if conclusion.has_failed() {
            eprintln!(
                "real-agents: artifacts kept in {}, workspaces in {}",
                run.dir.display(),
                run.tmp.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&run.dir);
            let _ = std::fs::remove_dir_all(&run.tmp);
        }
    }
    conclusion.exit_code()
}

/// The child: a skillgym harness, only inside a loopback-only network namespace.
fn child() -> ExitCode {
    // The sandbox's forwarder (this executable again, inside each agent's sandbox): its
    // stdout is the agent's, so straight to the harness, which runs it.
    if skillgym_harness::sandbox::is_forwarder() {
        return Harness::new().run();
    }
    let interfaces = network_interfaces();
    if interfaces != ["lo"] {
        eprintln!(
            "real-agents: refusing to run agent CLIs outside a loopback-only network namespace (interfaces: {interfaces:?})"
        );
        return ExitCode::from(3);
    }
    println!("{LOOPBACK_ONLY}");
    if let Some(config) = std::env::var_os(probe::PROBE_CONFIG) {
        return probe::child(Path::new(&config));
    }
    Harness::new().run()
}

/// The network interfaces of this process's namespace, sorted (from `/proc/self/net/dev`,
/// which follows the namespace; `/sys/class/net` shows the one sysfs was mounted in).
fn network_interfaces() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_to_string("/proc/self/net/dev")
        .unwrap_or_default()
        .lines()
        .skip(2)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, _)| name.trim().to_owned())
        .collect();
    names.sort();
    names
}

/// Why a trial cannot run here (for `agent`, or for the tier as a whole), when it cannot and
/// `CI` is not set; under `CI` nothing is skipped: a missing CLI fails its trials.
fn skip_reason(agent: Option<&AgentCli>) -> Option<String> {
    if std::env::var_os("CI").is_some_and(|value| !value.is_empty()) {
        return None;
    }
    let missing: Vec<&str> = AGENTS
        .iter()
        .filter(|cli| agent.is_none_or(|agent| agent.runner == cli.runner))
        .filter(|cli| find_program(cli.program).is_none())
        .map(|cli| cli.program)
        .collect();
    let all_missing = agent.is_some() || missing.len() == AGENTS.len();
    if !missing.is_empty() && all_missing {
        return Some(format!(
            "{} not on PATH (install: PATH=\"$(.ci/install-agents):$PATH\")",
            missing.join(", ")
        ));
    }
    static CAN_UNSHARE: OnceLock<bool> = OnceLock::new();
    let can_unshare = *CAN_UNSHARE.get_or_init(|| {
        Command::new("unshare")
            .args(["-n", "true"])
            .output()
            .is_ok_and(|output| output.status.success())
    });
    (!can_unshare).then(|| "`unshare -n` is not permitted here (it needs root)".to_owned())
}

/// Whether `agent`'s trials can run: `Some` completion when they are skipped here, an error
/// when its CLI is missing under `CI`.
fn not_ready(agent: &AgentCli) -> Result<Option<Completion>, Failed> {
    if let Some(reason) = skip_reason(Some(agent)) {
        return Ok(Some(Completion::ignored_with(reason)));
    }
    if find_program(agent.program).is_none() {
        return Err(format!(
            "`{}` is not on PATH (CI is set, so the real-agent tier must run); install the pinned CLIs with `PATH=\"$(.ci/install-agents):$PATH\"`",
            agent.program
        )
        .into());
    }
    Ok(None)
}

/// The probe shows `agent`'s CLI listing both probe skills as the pinned version shows them,
/// with the listing's token figure, and the planted instruction files it sends (`probe.rs`).
fn check_probe(agent: &AgentCli) -> Result<Completion, Failed> {
    if let Some(skipped) = not_ready(agent)? {
        return Ok(skipped);
    }
    let run = tier_run()?;
    let figures = probe::check(agent.runner, &stdout(&run.probe), USER_SKILL)
        .map_err(|problem| format!("{problem}\n  probe stderr:\n{}", stderr(&run.probe)))?;
    eprintln!("real-agents: probe: {figures}");
    Ok(Completion::Completed)
}

/// The trigger suite found beside the skill under test ran on `agent`'s CLI: the skill fired
/// on one prompt (the session ended there) and not on the other (`triggers.rs`).
fn check_triggers(agent: &AgentCli) -> Result<Completion, Failed> {
    if let Some(skipped) = not_ready(agent)? {
        return Ok(skipped);
    }
    let run = tier_run()?;
    let summary = triggers::check(agent.runner, &run.results[0], &run.results[2])?;
    eprintln!("real-agents: triggers: {summary}");
    Ok(Completion::Completed)
}

/// One agent's execution of one scenario ended with `status`.
fn check(agent: &AgentCli, scenario: &str, status: &str) -> Result<Completion, Failed> {
    if let Some(skipped) = not_ready(agent)? {
        return Ok(skipped);
    }
    let run = tier_run()?;
    let case_id = format!("cases::{scenario}");
    let execution = run
        .results
        .iter()
        .filter_map(|results| results["executions"].as_array())
        .flatten()
        .find(|execution| {
            execution["case_id"] == case_id.as_str() && execution["runner_id"] == agent.runner
        })
        .ok_or_else(|| format!("no result for {case_id} on {}", agent.runner))?;
    let failure = &execution["failure"];
    let detail = || {
        format!(
            "{} on {}: status {}, expected {status}\n  failure: {}\n  origin: {}\n  artifacts: {}",
            case_id,
            agent.runner,
            execution["status"],
            failure["message"].as_str().unwrap_or("none"),
            failure["origin"],
            execution["artifact_dir"].as_str().unwrap_or_default()
        )
    };
    if execution["status"] != status {
        return Err(detail().into());
    }
    if status != "skipped" {
        // The agent's model requests went to the scripted server, and nowhere else could.
        let log = Path::new(execution["artifact_dir"].as_str().unwrap_or_default())
            .join("repeat-1/attempt-1/mock-requests.jsonl");
        let requests = std::fs::read_to_string(&log).unwrap_or_default();
        if requests.lines().count() == 0 {
            return Err(format!(
                "{}
  no model request reached the scripted server: {}",
                detail(),
                log.display()
            )
            .into());
        }
        let result = std::fs::read_to_string(log.with_file_name("result.json")).unwrap_or_default();
        let result: Value = serde_json::from_str(&result).unwrap_or(Value::Null);
        let sandbox = &result["sandbox"];
        if sandbox["mode"] != "bubblewrap"
            || sandbox["network"] != "loopback"
            || sandbox["forwarded"].as_array().is_none_or(Vec::is_empty)
        {
            return Err(format!(
                "{}
  the session did not run in a loopback-only bubblewrap sandbox with the scripted model forwarded: {sandbox}",
                detail()
            )
            .into());
        }
        if requests.contains(USER_SKILL) {
            return Err(format!(
                "{}
  the agent listed the user's own skill `{USER_SKILL}` to the model: {}",
                detail(),
                log.display()
            )
            .into());
        }
        if let Some(attempt) = log.parent() {
            usage::check(scenario, attempt, &requests)
                .map_err(|problem| format!("{}\n  {problem}", detail()))?;
        }
    }
    if scenario == "explain_why" {
        return check_explain(agent, &run.explains, execution)
            .map_err(|problem| format!("{}\n  {problem}", detail()).into());
    }
    match scenario {
        "rejection::first" if failure["origin"] != "model-rejected" => Err(detail().into()),
        "rejection::second"
            if !failure["message"]
                .as_str()
                .is_some_and(|message| message.contains("was rejected earlier in this run")) =>
        {
            Err(detail().into())
        }
        _ => Ok(Completion::Completed),
    }
}

/// The explain run of `agent` asked `explain_why`'s question by resuming the session: its
/// question directory has the session's logs, its model requests reached the scripted server
/// with the session's history, and the answer stored is what the scripted model said. All six
/// agents resume offline (`claude -r … --fork-session`, `codex exec resume`, `opencode run
/// --session`, `copilot --resume=`, `gemini --resume`, `qwen -r`).
fn check_explain(
    agent: &AgentCli,
    explains: &[(&'static str, Output)],
    execution: &Value,
) -> Result<Completion, String> {
    let (_, output) = explains
        .iter()
        .find(|(runner, _)| *runner == agent.runner)
        .ok_or("no explain run")?;
    let attempt = Path::new(execution["artifact_dir"].as_str().unwrap_or_default())
        .join("repeat-1/attempt-1");
    let question = attempt.join("explain/question-01");
    let transcript = || format!("explain output:\n{}\n{}", stdout(output), stderr(output));
    if !output.status.success() {
        return Err(format!(
            "explain exited with {:?}; {}",
            output.status.code(),
            transcript()
        ));
    }
    if !question.join("stdout.log").is_file() {
        return Err(format!(
            "no {}/stdout.log; {}",
            question.display(),
            transcript()
        ));
    }
    let log = question.join("mock-requests.jsonl");
    let requests = std::fs::read_to_string(&log).unwrap_or_default();
    if !requests.contains(cases::EXPLAIN_QUESTION) {
        return Err(format!(
            "the question did not reach the scripted server: {}; {}",
            log.display(),
            transcript()
        ));
    }
    // The session was resumed: the request carries its history (the command it ran).
    if !requests.contains("echo skillgym-explain") {
        return Err(format!(
            "the question's request lacks the session's history (a fresh session, not a resumed one): {}",
            log.display()
        ));
    }
    let path = attempt.join("explanations.json");
    let explanations: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .ok_or_else(|| format!("cannot read {}; {}", path.display(), transcript()))?;
    let expected = format!(
        "skillgym mock: a scripted answer to \"{}\"",
        cases::EXPLAIN_QUESTION
    );
    let answer = &explanations["questions"][0]["answer"];
    if *answer != expected.as_str() {
        return Err(format!(
            "answer {answer}, expected {expected:?} (in {})",
            path.display()
        ));
    }
    Ok(Completion::Completed)
}

/// The replay of `agent`'s scenario sessions reached the verdicts of the live run, and each
/// attempt's report is the live one (paths of raw artifacts aside).
fn check_replay(agent: &AgentCli) -> Result<Completion, Failed> {
    if let Some(reason) = skip_reason(Some(agent)) {
        return Ok(Completion::ignored_with(reason));
    }
    let run = tier_run()?;
    let executions = |results: &Value| -> Vec<(String, Value)> {
        let mut found: Vec<(String, Value)> = results["executions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|execution| execution["runner_id"] == agent.runner)
            .map(|execution| {
                let case = execution["case_id"].as_str().unwrap_or_default().to_owned();
                (case, execution.clone())
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    };
    let (live, replayed) = (executions(&run.results[0]), executions(&run.results[2]));
    let cases = |list: &[(String, Value)]| list.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
    if live.is_empty() || cases(&live) != cases(&replayed) {
        return Err(format!(
            "{}: live {:?}, replayed {:?}",
            agent.runner,
            cases(&live),
            cases(&replayed)
        )
        .into());
    }
    for ((case, live), (_, replayed)) in live.iter().zip(&replayed) {
        if live["status"] != replayed["status"] {
            return Err(format!(
                "{case} on {}: {} live, {} replayed ({})",
                agent.runner, live["status"], replayed["status"], replayed["failure"]["message"]
            )
            .into());
        }
        let report = |execution: &Value| -> Value {
            let dir = Path::new(execution["artifact_dir"].as_str().unwrap_or_default());
            let text = std::fs::read_to_string(dir.join("repeat-1/attempt-1/report.json"))
                .unwrap_or_default();
            let mut report: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            report["raw_artifacts"] = Value::Null;
            report
        };
        let (live, replayed) = (report(live), report(replayed));
        if live.is_null() || live != replayed {
            return Err(format!(
                "{case} on {}: the replayed report differs from the live one\n  live: {live}\n  replayed: {replayed}",
                agent.runner
            )
            .into());
        }
    }
    Ok(Completion::Completed)
}

/// No model request of `agent`, in the scenarios, the rejection run and the explain sessions,
/// mentions a marker of the author repository's files; every workspace was in the child's
/// temporary directory, outside that repository.
fn check_no_leak(agent: &AgentCli) -> Result<Completion, Failed> {
    if let Some(skipped) = not_ready(agent)? {
        return Ok(skipped);
    }
    let run = tier_run()?;
    let mut requests = 0;
    let mut leaks = Vec::new();
    for run_id in ["scenarios", "rejection"] {
        for log in request_logs(&run.out.join(run_id), agent.runner) {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            requests += text.lines().count();
            let seen = markers_in(&text, &run.author_marker(""), &AUTHOR_FILES);
            if !seen.is_empty() {
                leaks.push(format!("  {}: {}", log.display(), seen.join(", ")));
            }
        }
    }
    if requests == 0 {
        return Err(format!("no model request of {} was logged", agent.runner).into());
    }
    if !leaks.is_empty() {
        return Err(format!(
            "{} sent the author repository's files ({}) to the model:\n{}",
            agent.runner,
            run.author.display(),
            leaks.join("\n")
        )
        .into());
    }
    let workspaces = workspaces_of(&run.out.join("scenarios"), agent.runner);
    if workspaces.is_empty() {
        return Err(format!("no workspace.json of {}", agent.runner).into());
    }
    for cwd in workspaces {
        if !cwd.starts_with(&run.tmp) || cwd.starts_with(&run.author) {
            return Err(format!(
                "a workspace of {} is {}, not in the temporary directory {}",
                agent.runner,
                cwd.display(),
                run.tmp.display()
            )
            .into());
        }
    }
    Ok(Completion::Completed)
}

/// The control run (workspace root inside the author repository): `agent` sent its
/// workspace's own instructions (so a leak would be seen), and exactly the author files
/// [`SEEN_FROM_INSIDE`] says it reads past its workspace's repository.
fn check_control(agent: &AgentCli) -> Result<Completion, Failed> {
    if let Some(skipped) = not_ready(agent)? {
        return Ok(skipped);
    }
    let run = tier_run()?;
    let control = run.out.join("control");
    let status = run.results[3]["executions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|execution| execution["runner_id"] == agent.runner)
        .map(|execution| execution["status"].clone());
    if status != Some(Value::from("passed")) {
        return Err(format!(
            "{CONTROL_SCENARIO} on {} in the control run: status {status:?}, expected passed ({})",
            agent.runner,
            control.display()
        )
        .into());
    }
    let text: String = request_logs(&control, agent.runner)
        .iter()
        .map(|log| std::fs::read_to_string(log).unwrap_or_default())
        .collect();
    let own = markers_in(&text, &run.workspace_marker(""), &WORKSPACE_FILES);
    if own.is_empty() {
        return Err(format!(
            "{}'s requests in {} mention none of its workspace's instruction files: the leak check could not see a leak",
            agent.runner,
            control.display()
        )
        .into());
    }
    let seen = markers_in(&text, &run.author_marker(""), &AUTHOR_FILES);
    let expected: Vec<String> = SEEN_FROM_INSIDE
        .iter()
        .find(|(runner, _)| *runner == agent.runner)
        .map(|(_, tags)| tags.iter().map(|tag| (*tag).to_owned()).collect())
        .unwrap_or_default();
    if seen != expected {
        return Err(format!(
            "with its workspace root inside the author repository, {} sent the author's {seen:?}, expected {expected:?} (its workspace's own: {own:?}); requests in {}",
            agent.runner,
            control.display()
        )
        .into());
    }
    let workspaces = workspaces_of(&control, agent.runner);
    let root = run.author.join("target/skillgym-workspaces");
    if workspaces.is_empty() || !workspaces.iter().all(|cwd| cwd.starts_with(&root)) {
        return Err(format!(
            "{}'s workspaces: {workspaces:?}, expected in {}",
            agent.runner,
            root.display()
        )
        .into());
    }
    Ok(Completion::Completed)
}

/// The tags of `files` whose marker (`prefix` + tag) `text` mentions, in `files`' order.
fn markers_in(text: &str, prefix: &str, files: &[(&str, &str)]) -> Vec<String> {
    files
        .iter()
        .map(|(tag, _)| *tag)
        .filter(|tag| text.contains(&format!("{prefix}{tag}")))
        .map(str::to_owned)
        .collect()
}

/// Every `mock-requests.jsonl` of `runner`'s attempts (and their explain questions) in the
/// run directory `run_dir`.
fn request_logs(run_dir: &Path, runner: &str) -> Vec<PathBuf> {
    let mut logs = Vec::new();
    for case in subdirs(run_dir) {
        files_named(&case.join(runner), "mock-requests.jsonl", &mut logs);
    }
    logs
}

/// The workspaces (`cwd` of each `workspace.json`) of `runner`'s attempts in `run_dir`.
fn workspaces_of(run_dir: &Path, runner: &str) -> Vec<PathBuf> {
    let mut records = Vec::new();
    for case in subdirs(run_dir) {
        files_named(&case.join(runner), "workspace.json", &mut records);
    }
    records
        .iter()
        .filter_map(|record| std::fs::read_to_string(record).ok())
        .filter_map(|text| serde_json::from_str::<Value>(&text).ok())
        .filter_map(|record| record["cwd"].as_str().map(PathBuf::from))
        .collect()
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Appends every file named `name` below `dir` to `found` (links are not followed).
fn files_named(dir: &Path, name: &str, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => files_named(&path, name, found),
            Ok(kind) if kind.is_file() && entry.file_name() == name => found.push(path),
            _ => {}
        }
    }
}

/// The agent's program on `PATH`, found as `skillgym doctor` finds it.
fn find_program(program: &str) -> Option<PathBuf> {
    skillgym_harness::doctor::find_program(Path::new(program))
}

/// Both child runs and the explain runs, made once per process.
struct TierRun {
    outputs: Vec<Output>,
    results: Vec<Value>,
    /// Each agent's explain run of its `explain_why` attempt.
    explains: Vec<(&'static str, Output)>,
    /// The probe run (`probe.rs`): its JSON report on stdout.
    probe: Output,
    /// Their directory (the author repository, the home, the control run's template).
    dir: PathBuf,
    /// The author repository (config, artifacts in `out/`).
    author: PathBuf,
    /// `<author>/out`: the run directories.
    out: PathBuf,
    /// The children's `TMPDIR`, outside every repository: the default workspace root's.
    tmp: PathBuf,
    /// What makes this tier run's markers unique.
    nonce: String,
}

impl TierRun {
    /// The marker of the author file `tag` (`""`: the prefix of every one).
    fn author_marker(&self, tag: &str) -> String {
        format!("sgleak{}-{tag}", self.nonce)
    }

    /// The marker of the control template's instruction file `tag` (`""`: the prefix).
    fn workspace_marker(&self, tag: &str) -> String {
        format!("sgwork{}-{tag}", self.nonce)
    }
}

static RUN: OnceLock<Result<TierRun, String>> = OnceLock::new();

fn tier_run() -> Result<&'static TierRun, Failed> {
    RUN.get_or_init(start_tier)
        .as_ref()
        .map_err(|message| message.clone().into())
}

fn start_tier() -> Result<TierRun, String> {
    let agents: Vec<&AgentCli> = AGENTS
        .iter()
        .filter(|agent| find_program(agent.program).is_some())
        .collect();
    if agents.is_empty() {
        return Err("no agent CLI on PATH".to_owned());
    }
    let dir = temp_dir("real-agents");
    let nonce = format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id())
    );
    // The author repository, where the config and the artifacts are, as a user's would be.
    let author = dir.path().join("author");
    let marker = |prefix: &str, tag: &str| format!("{prefix}{nonce}-{tag}");
    write_files(&author, &author_files(&nonce)).map_err(|e| e.to_string())?;
    // The children's temporary directory: the default workspace root's, outside every
    // repository (the driver's own, in the system's temporary directory).
    let tmp = tempfile::Builder::new()
        .prefix("real-agents-tmp-")
        .tempdir()
        .map_err(|e| e.to_string())?
        .keep();
    let runners_yaml: String = agents
        .iter()
        .map(|agent| {
            format!(
                "  {}: {{ agent: {{ type: {}, model: {} }} }}\n",
                agent.runner, agent.runner, agent.model
            )
        })
        .collect();
    let config_text = |template: &Path, root: &str| {
        format!(
            "run:\n  output_dir: out\n{root}  workspace: {{ mode: isolated, template_dir: {template} }}\n  skills: [{skill}]\n  sandbox: {{ mode: bubblewrap, network: loopback }}\ndefaults: {{ timeout: 3m }}\nrunners:\n{runners_yaml}",
            template = template.display(),
            skill = workspace_root()
                .join("tests/real_agents/skills/under-test-dir")
                .display(),
        )
    };
    let template = workspace_root().join("tests/real_agents/workspace");
    let config = author.join("skillgym.yaml");
    std::fs::write(&config, config_text(&template, "")).map_err(|e| e.to_string())?;
    // The control: workspaces inside the author repository (relative to the config file), in
    // a template whose instruction files name markers of their own.
    let control_template = dir.path().join("control-template");
    skillgym_harness::workspace::copy_tree(&template, &control_template)
        .map_err(|e| e.to_string())?;
    let workspace_files: Vec<(String, String)> = WORKSPACE_FILES
        .iter()
        .map(|(tag, path)| {
            let text = format!(
                "# Workspace instructions\n\nThe workspace's rule {}.\n",
                marker("sgwork", tag)
            );
            ((*path).to_owned(), text)
        })
        .collect();
    write_files(&control_template, &workspace_files).map_err(|e| e.to_string())?;
    let control_config = author.join("control.yaml");
    std::fs::write(
        &control_config,
        config_text(
            &control_template,
            "  workspace_root: target/skillgym-workspaces\n",
        ),
    )
    .map_err(|e| e.to_string())?;
    // A home holding the user's own skills, which no agent may see.
    let home = dir.path().join("home");
    for skills_dir in USER_SKILL_DIRS {
        let skill = home.join(skills_dir).join(USER_SKILL);
        std::fs::create_dir_all(&skill).map_err(|e| e.to_string())?;
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {USER_SKILL}\ndescription: Installed in the user's home.\n---\n"),
        )
        .map_err(|e| e.to_string())?;
    }
    let config = config.display().to_string();
    let started = std::time::Instant::now();
    let home = home.display().to_string();
    let tmp_text = tmp.display().to_string();
    let child = Child {
        cwd: &author,
        env: vec![("HOME", home.as_str()), ("TMPDIR", tmp_text.as_str())],
    };
    let scenarios = child.run(
        &["--config", &config, "--mock", "--skip", "rejection::"],
        &[
            ("SKILLGYM_RUN_ID", "scenarios"),
            ("SKILLGYM_MAX_PARALLEL", "3"),
        ],
    )?;
    let scenarios_took = started.elapsed();
    let rejection = child.run(
        &["--config", &config, "--mock", "cases::rejection::"],
        &[
            ("SKILLGYM_RUN_ID", "rejection"),
            // Serial: every runner's `first` runs before its `second` (under
            // `isolated-by-runner` two workers may reach a runner's lane in either order).
            ("SKILLGYM_SCHEDULE", "serial"),
        ],
    )?;
    let rejection_took = started.elapsed() - scenarios_took;
    let control_config = control_config.display().to_string();
    let control = child.run(
        &[
            "--config",
            &control_config,
            "--mock",
            "--exact",
            CONTROL_SCENARIO,
        ],
        &[
            ("SKILLGYM_RUN_ID", "control"),
            ("SKILLGYM_MAX_PARALLEL", "3"),
        ],
    )?;
    let control_took = started.elapsed() - scenarios_took - rejection_took;
    // The scenarios again, replayed from their run directory: no agent starts (the loopback
    // namespace is kept only because the child insists on it).
    let replay_dir = author.join("out/scenarios").display().to_string();
    let replayed = child.run(
        &[
            "--config",
            &config,
            "--replay",
            &replay_dir,
            "--skip",
            "rejection::",
        ],
        &[("SKILLGYM_RUN_ID", "replayed")],
    )?;
    let explained = started.elapsed();
    let explains = explain_runs(&agents, &author, &config, &child)?;
    let probed = started.elapsed();
    let probe = child.run(&[], &[(probe::PROBE_CONFIG, config.as_str())])?;
    eprintln!(
        "real-agents: probed the six CLIs in {:.1} s",
        (started.elapsed() - probed).as_secs_f64()
    );
    let runners: Vec<&str> = agents.iter().map(|agent| agent.runner).collect();
    eprintln!(
        "real-agents: {} ran the scenarios in {:.1} s, the rejection in {:.1} s, the control in {:.1} s and explain in {:.1} s",
        runners.join(", "),
        scenarios_took.as_secs_f64(),
        rejection_took.as_secs_f64(),
        control_took.as_secs_f64(),
        (started.elapsed() - explained).as_secs_f64()
    );
    let results = ["scenarios", "rejection", "replayed", "control"]
        .iter()
        .map(|run| {
            let path = author.join("out").join(run).join("results.json");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<Vec<Value>, String>>();
    let outputs = vec![scenarios, rejection, replayed, control];
    let results = results.map_err(|message| {
        format!(
            "{message}\n--- child output ---\n{}",
            outputs
                .iter()
                .map(|output| format!("{}\n{}", stdout(output), stderr(output)))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    drop(child);
    Ok(TierRun {
        outputs,
        results,
        explains,
        probe,
        out: author.join("out"),
        author,
        tmp,
        nonce,
        dir: dir.keep(),
    })
}

/// The author repository's files: a `.git` and, at its root, the author's skills and
/// instruction files, each naming its marker (`sgleak<nonce>-<tag>`); a skill is named by it.
fn author_files(nonce: &str) -> Vec<(String, String)> {
    let mut files = vec![
        (".git/HEAD".to_owned(), "ref: refs/heads/main\n".to_owned()),
        (
            ".git/config".to_owned(),
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n".to_owned(),
        ),
        (".git/objects/.keep".to_owned(), String::new()),
        (".git/refs/heads/.keep".to_owned(), String::new()),
    ];
    for (tag, path) in AUTHOR_FILES {
        let marker = format!("sgleak{nonce}-{tag}");
        let (path, text) = if path.contains("{name}") {
            (
                path.replace("{name}", &marker),
                format!(
                    "---\nname: {marker}\ndescription: The author's own skill {marker}, for the author's repository only.\n---\n\n# {marker}\n"
                ),
            )
        } else {
            (
                path.to_owned(),
                format!("# The author's instructions\n\nThe author's rule {marker}.\n"),
            )
        };
        files.push((path, text));
    }
    files
}

/// Writes each `(path, text)` below `dir`, with the missing directories.
fn write_files(dir: &Path, files: &[(String, String)]) -> std::io::Result<()> {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(dir))?;
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// Runs the child in explain mode for each agent's `explain_why` attempt, three agents at a
/// time, each in its own loopback-only namespace.
fn explain_runs(
    agents: &[&AgentCli],
    author: &Path,
    config: &str,
    child: &Child<'_>,
) -> Result<Vec<(&'static str, Output)>, String> {
    let mut explains = Vec::new();
    for group in agents.chunks(3) {
        let outputs: Vec<Result<Output, String>> = std::thread::scope(|scope| {
            let running: Vec<_> = group
                .iter()
                .map(|agent| {
                    scope.spawn(move || {
                        let attempt = author
                            .join("out/scenarios/cases.explain_why")
                            .join(agent.runner)
                            .join("repeat-1/attempt-1");
                        let attempt = attempt.display().to_string();
                        child.run(&["--config", config, "--explain", &attempt, "--mock"], &[])
                    })
                })
                .collect();
            running
                .into_iter()
                .map(|thread| thread.join().unwrap_or_else(|_| Err("panicked".to_owned())))
                .collect()
        });
        for (agent, output) in group.iter().zip(outputs) {
            explains.push((agent.runner, output?));
        }
    }
    Ok(explains)
}

/// How the child runs: its working directory (the author repository) and the environment every
/// run of it gets.
struct Child<'a> {
    cwd: &'a Path,
    env: Vec<(&'a str, &'a str)>,
}

impl Child<'_> {
    /// Runs the child harness with `args` (and `env` over the common environment) inside a
    /// fresh loopback-only network namespace.
    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Result<Output, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut command = Command::new("unshare");
        command
            .args([
                "-n",
                "--",
                "sh",
                "-c",
                r#"ip link set lo up && exec "$@""#,
                "sh",
            ])
            .arg(&exe)
            .args(args)
            .current_dir(self.cwd)
            .env(CHILD, "1");
        without_outer_runner_env(&mut command);
        command.envs(self.env.iter().copied());
        command.envs(env.iter().copied());
        let output = command
            .output()
            .map_err(|e| format!("cannot run `unshare -n` (it needs root and util-linux): {e}"))?;
        if output.status.code() == Some(3) || !stdout(&output).contains(LOOPBACK_ONLY) {
            return Err(format!(
                "the child could not run inside a loopback-only namespace (exit {:?}):\n{}\n{}",
                output.status.code(),
                stdout(&output),
                stderr(&output)
            ));
        }
        Ok(output)
    }
}
