//! The real-agent tier: the six installable agent CLIs (Claude Code, Codex, OpenCode, Copilot,
//! Gemini CLI, Qwen Code) run through the real harness with `--mock`, against skillgym's
//! scripted model server, inside a loopback-only network namespace (`unshare -n`).
//!
//! This target is its own harness (`harness = false`). Run as a child (`REAL_AGENTS_CHILD=1`)
//! it is a skillgym benchmark binary whose cases (`cases.rs`) are the scenarios, one runner per
//! agent found on `PATH`; it refuses to start an agent unless its network namespace holds
//! nothing but `lo`. Run by cargo it is the driver: it starts the child under `unshare -n`,
//! twice (the scenarios in parallel; then the provider-rejection scenario, serially, so that
//! each runner's rejected execution comes before the one it skips); then once more with
//! `--replay` of the scenarios' run directory (the same verdicts and reports, no agent
//! started); then once per agent in explain mode (`--explain <attempt dir> --mock`: the failed
//! `explain_why` attempt's question asked by resuming the agent's session). Each agent's result
//! for each scenario, and its replay, is one trial.
//!
//! The CLIs come from `PATH`; `.ci/install-agents` installs the pinned versions and prints
//! their directory: `PATH="$(.ci/install-agents):$PATH" cargo test --test real_agents`. Without
//! them (and without root, which `unshare -n` needs) the trials are ignored with the reason,
//! unless `CI` is set: then a missing CLI fails its trials.

mod cases;
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

/// The scenarios, and the status each agent's execution must end with.
const SCENARIOS: [(&str, &str); 9] = [
    ("shell_read_answer", "passed"),
    ("skill_tool", "passed"),
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
            format!("{}::replayed_as_recorded", agent.runner),
            move || check_replay(agent),
        ));
    }
    let conclusion = libtest_mimic::run(&arguments, trials);
    // The runs' artifacts stay for a look when something failed.
    if let Some(Ok(run)) = RUN.get() {
        if conclusion.has_failed() {
            eprintln!("real-agents: artifacts kept in {}", run.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&run.dir);
        }
    }
    conclusion.exit_code()
}

/// The child: a skillgym harness, only inside a loopback-only network namespace.
fn child() -> ExitCode {
    let interfaces = network_interfaces();
    if interfaces != ["lo"] {
        eprintln!(
            "real-agents: refusing to run agent CLIs outside a loopback-only network namespace (interfaces: {interfaces:?})"
        );
        return ExitCode::from(3);
    }
    println!("{LOOPBACK_ONLY}");
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

/// One agent's execution of one scenario ended with `status`.
fn check(agent: &AgentCli, scenario: &str, status: &str) -> Result<Completion, Failed> {
    if let Some(reason) = skip_reason(Some(agent)) {
        return Ok(Completion::ignored_with(reason));
    }
    if find_program(agent.program).is_none() {
        return Err(format!(
            "`{}` is not on PATH (CI is set, so the real-agent tier must run); install the pinned CLIs with `PATH=\"$(.ci/install-agents):$PATH\"`",
            agent.program
        )
        .into());
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
    /// Their directory (config, artifacts).
    dir: PathBuf,
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
    let config = dir.path().join("skillgym.yaml");
    let mut yaml = format!(
        "run:\n  output_dir: {out}\n  workspace: {{ mode: isolated, template_dir: {template} }}\n  skills: [{skill}]\ndefaults: {{ timeout: 3m }}\nrunners:\n",
        out = dir.path().join("out").display(),
        template = workspace_root()
            .join("tests/real_agents/workspace")
            .display(),
        skill = workspace_root()
            .join("tests/real_agents/skills/under-test-dir")
            .display(),
    );
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
    for agent in &agents {
        yaml.push_str(&format!(
            "  {}: {{ agent: {{ type: {}, model: {} }} }}\n",
            agent.runner, agent.runner, agent.model
        ));
    }
    std::fs::write(&config, yaml).map_err(|e| e.to_string())?;
    let config = config.display().to_string();
    let started = std::time::Instant::now();
    let home = home.display().to_string();
    let scenarios = child_run(
        &["--config", &config, "--mock", "--skip", "rejection::"],
        &[
            ("SKILLGYM_RUN_ID", "scenarios"),
            ("SKILLGYM_MAX_PARALLEL", "3"),
            ("HOME", &home),
        ],
    )?;
    let scenarios_took = started.elapsed();
    let rejection = child_run(
        &["--config", &config, "--mock", "cases::rejection::"],
        &[
            ("SKILLGYM_RUN_ID", "rejection"),
            // Serial: every runner's `first` runs before its `second` (under
            // `isolated-by-runner` two workers may reach a runner's lane in either order).
            ("SKILLGYM_SCHEDULE", "serial"),
            ("HOME", &home),
        ],
    )?;
    let rejection_took = started.elapsed() - scenarios_took;
    // The scenarios again, replayed from their run directory: no agent starts (the loopback
    // namespace is kept only because the child insists on it).
    let replay_dir = dir.path().join("out/scenarios").display().to_string();
    let replayed = child_run(
        &[
            "--config",
            &config,
            "--replay",
            &replay_dir,
            "--skip",
            "rejection::",
        ],
        &[("SKILLGYM_RUN_ID", "replayed"), ("HOME", &home)],
    )?;
    let explains = explain_runs(&agents, dir.path(), &config, &home)?;
    let runners: Vec<&str> = agents.iter().map(|agent| agent.runner).collect();
    eprintln!(
        "real-agents: {} ran the scenarios in {:.1} s, the rejection in {:.1} s and explain in {:.1} s",
        runners.join(", "),
        scenarios_took.as_secs_f64(),
        rejection_took.as_secs_f64(),
        (started.elapsed() - scenarios_took - rejection_took).as_secs_f64()
    );
    let results = ["scenarios", "rejection", "replayed"]
        .iter()
        .map(|run| {
            let path = dir.path().join("out").join(run).join("results.json");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<Vec<Value>, String>>();
    let outputs = vec![scenarios, rejection, replayed];
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
    Ok(TierRun {
        outputs,
        results,
        explains,
        dir: dir.keep(),
    })
}

/// Runs the child in explain mode for each agent's `explain_why` attempt, three agents at a
/// time, each in its own loopback-only namespace.
fn explain_runs(
    agents: &[&AgentCli],
    dir: &Path,
    config: &str,
    home: &str,
) -> Result<Vec<(&'static str, Output)>, String> {
    let mut explains = Vec::new();
    for group in agents.chunks(3) {
        let outputs: Vec<Result<Output, String>> = std::thread::scope(|scope| {
            let running: Vec<_> = group
                .iter()
                .map(|agent| {
                    scope.spawn(move || {
                        let attempt = dir
                            .join("out/scenarios/cases.explain_why")
                            .join(agent.runner)
                            .join("repeat-1/attempt-1");
                        let attempt = attempt.display().to_string();
                        child_run(
                            &["--config", config, "--explain", &attempt, "--mock"],
                            &[("HOME", home)],
                        )
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

/// Runs the child harness with `args` inside a fresh loopback-only network namespace.
fn child_run(args: &[&str], env: &[(&str, &str)]) -> Result<Output, String> {
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
        .current_dir(workspace_root())
        .env(CHILD, "1");
    without_outer_runner_env(&mut command);
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
