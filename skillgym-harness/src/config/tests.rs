//! Tests of the config schema, its error messages and discovery.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;

const FILE: &str = "/proj/bench/skillgym.yaml";

fn parse(yaml: &str) -> Config {
    Config::parse(Path::new(FILE), yaml).unwrap_or_else(|err| panic!("{err}"))
}

fn fail(yaml: &str) -> ConfigError {
    match Config::parse(Path::new(FILE), yaml) {
        Ok(config) => panic!("expected an error, got {config:?}"),
        Err(err) => err,
    }
}

/// Asserts line, column, message and help of an error.
#[track_caller]
fn assert_error(err: &ConfigError, line: u32, column: u32, message: &str, help: Option<&str>) {
    assert_eq!(
        err.location(),
        Some((PathBuf::from(FILE), line, column)),
        "location of: {err}"
    );
    assert_eq!(err.message(), message, "{err}");
    assert_eq!(err.help(), help, "{err}");
}

fn p(path: &str) -> PathBuf {
    PathBuf::from(path)
}

#[test]
fn every_key_parses() {
    let config = parse(
        r#"
run:
  schedule: isolated-by-runner
  max_parallel: 4
  repeat: 2
  repeat_failure: 1
  retry_failed: 3
  max_steps: 40
  tags: [smoke, " slow "]
  output_dir: target/skillgym/runs
  reporter: standard
  workspace:
    mode: isolated
    template_dir: fixtures/app
    bootstrap:
      command: npm
      args: [ci]
      timeout: 2m
      env: { K: V, N: 1 }
defaults: { timeout: 90s }
runners:
  claude: { agent: { type: claude-code, model: claude-sonnet-4-6 } }
  local:
    agent:
      type: command
      command: ./bin/agent
      args: ["--json", "{prompt}"]
      env: { K: V }
      model: x
"#,
    );
    let run = &config.run;
    assert_eq!(run.schedule, Some(Schedule::IsolatedByRunner));
    assert_eq!(run.max_parallel, Some(4));
    assert_eq!(run.repeat, Some(2));
    // `retry_failed: 3` is the legacy alias, folded in at parse time; `repeat_failure` wins.
    assert_eq!(run.repeat_failure, Some(1));
    assert_eq!(run.max_steps, Some(40));
    assert_eq!(run.tags, Some(vec!["smoke".to_owned(), "slow".to_owned()]));
    assert_eq!(run.output_dir, Some(p("/proj/bench/target/skillgym/runs")));
    assert_eq!(run.reporters, ["standard"]);
    assert_eq!(run.cwd, None);
    assert_eq!(
        run.workspace,
        Some(WorkspaceConfig {
            mode: WorkspaceMode::Isolated,
            template_dir: Some(p("/proj/bench/fixtures/app")),
            cwd: None,
            bootstrap: Some(BootstrapConfig {
                command: "npm".to_owned(),
                args: vec!["ci".to_owned()],
                timeout: Some(Duration::from_secs(120)),
                env: BTreeMap::from([
                    ("K".to_owned(), "V".to_owned()),
                    ("N".to_owned(), "1".to_owned()),
                ]),
            }),
        })
    );
    assert_eq!(config.defaults.timeout, Some(Duration::from_secs(90)));
    assert_eq!(config.runner_ids().collect::<Vec<_>>(), ["claude", "local"]);
    let claude = &config.runners[0].1.agent;
    assert_eq!(claude.kind, AgentKind::ClaudeCode);
    assert_eq!(claude.model.as_deref(), Some("claude-sonnet-4-6"));
    assert_eq!(
        (
            claude.command.as_deref(),
            claude.args.len(),
            claude.env.len()
        ),
        (None, 0, 0)
    );
    let local = &config.runners[1].1.agent;
    assert_eq!(
        *local,
        AgentConfig {
            kind: AgentKind::Command,
            model: Some("x".to_owned()),
            command: Some("/proj/bench/bin/agent".to_owned()),
            args: vec!["--json".to_owned(), "{prompt}".to_owned()],
            resume_args: None,
            version_args: None,
            env: BTreeMap::from([("K".to_owned(), "V".to_owned())]),
            provider: None,
            recording: None,
            replay_runner: None,
        }
    );
    assert_eq!(config.path, Some(p(FILE)));
    assert_eq!(config.dir, p("/proj/bench"));
}

#[test]
fn every_alias_parses() {
    let config = parse(
        "
run:
  maxParallel: 2
  repeatFailure: 1
  retryFailed: 2
  maxSteps: 9
  outputDir: out
  workspace: { mode: shared, templateDir: tpl, bootstrap: { command: ./setup.sh, timeoutMs: 1500 } }
defaults: { timeoutMs: 30000 }
runners:
  a: { agent: { type: command, command: agent, commandArgs: [x] } }
  b: { agent: { type: cursor, model: m } }
  c: { agent: { type: gemini, model: m } }
  d: { agent: { type: qwen, model: m } }
  e: { agent: { type: cursor-agent, model: m } }
  f: { agent: { type: gemini-cli, model: m } }
  g: { agent: { type: qwen-code, model: m } }
  h: { agent: { type: codex, model: m } }
  i: { agent: { type: opencode, model: m } }
  j: { agent: { type: copilot, model: m } }
",
    );
    let run = &config.run;
    assert_eq!((run.max_parallel, run.repeat_failure), (Some(2), Some(1)));
    assert_eq!(run.max_steps, Some(9));
    assert_eq!(run.output_dir, Some(p("/proj/bench/out")));
    let workspace = run.workspace.as_ref().unwrap();
    assert_eq!(workspace.mode, WorkspaceMode::Shared);
    assert_eq!(workspace.template_dir, Some(p("/proj/bench/tpl")));
    let bootstrap = workspace.bootstrap.as_ref().unwrap();
    assert_eq!(bootstrap.command, "/proj/bench/setup.sh");
    assert_eq!(bootstrap.timeout, Some(Duration::from_millis(1500)));
    assert_eq!(config.defaults.timeout, Some(Duration::from_secs(30)));
    let kinds: Vec<AgentKind> = config.runners.iter().map(|(_, r)| r.agent.kind).collect();
    assert_eq!(
        kinds,
        [
            AgentKind::Command,
            AgentKind::CursorAgent,
            AgentKind::GeminiCli,
            AgentKind::QwenCode,
            AgentKind::CursorAgent,
            AgentKind::GeminiCli,
            AgentKind::QwenCode,
            AgentKind::Codex,
            AgentKind::Opencode,
            AgentKind::Copilot,
        ]
    );
    assert_eq!(config.runners[0].1.agent.args, ["x"]);
    assert_eq!(
        config.runners[0].1.agent.command.as_deref(),
        Some("agent"),
        "bare names stay"
    );
}

#[test]
fn empty_documents_are_valid() {
    for yaml in [
        "",
        "{}",
        "# only a comment\n",
        "run:\ndefaults:\nrunners:\n",
        "---\n",
    ] {
        let config = parse(yaml);
        assert_eq!(config.run, RunConfig::default(), "{yaml:?}");
        assert!(config.runners.is_empty());
        assert_eq!(config.defaults, DefaultsConfig::default());
    }
    let config = Config::default_for(Path::new("/somewhere"));
    assert_eq!((config.path, config.dir), (None, p("/somewhere")));
}

#[test]
fn unknown_key_at_top_level() {
    let err = fail("rnu:\n  repeat: 2\n");
    assert_error(
        &err,
        1,
        1,
        "unknown field `rnu`, expected one of `run`, `defaults`, `runners`, `suites`, `judge`, `snapshots`, `variants`, `pricing`, `triggers`",
        Some("did you mean `run`?"),
    );
}

#[test]
fn unknown_key_nested_renders_file_line_column_help_and_snippet() {
    let err = fail("run:\n  max_paralel: 3\n");
    assert_error(
        &err,
        2,
        3,
        "unknown field `max_paralel`, expected one of `schedule`, `max_parallel`, `repeat`, \
         `repeat_failure`, `retry_failed`, `samples`, `min_pass_rate`, `min_lift`, `max_steps`, `tags`, `output_dir`, `reporter`, `reporters`, `cwd`, \
         `workspace`, `workspace_root`, `skills`, `user_skills`, `max_output`, `secrets`, `sandbox`, `budget`",
        Some("did you mean `max_parallel`?"),
    );
    assert_eq!(
        err.to_string(),
        "/proj/bench/skillgym.yaml:2:3: unknown field `max_paralel`, expected one of \
         `schedule`, `max_parallel`, `repeat`, `repeat_failure`, `retry_failed`, `samples`, `min_pass_rate`, `min_lift`, `max_steps`, \
         `tags`, `output_dir`, `reporter`, `reporters`, `cwd`, `workspace`, `workspace_root`, `skills`, `user_skills`, `max_output`, `secrets`, `sandbox`, `budget`\n  help: did you mean `max_parallel`?\n   |\n 2 |   max_paralel: 3\n   |   ^"
    );
    // Deeper: workspace and bootstrap.
    let err = fail("run:\n  workspace:\n    mode: isolated\n    template: x\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((4, 5)));
    assert_eq!(
        err.help(),
        None,
        "`template` is too far from `template_dir`"
    );
    let err =
        fail("run:\n  workspace:\n    mode: isolated\n    bootstrap: { command: x, arg: [y] }\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((4, 30)));
    assert_eq!(err.help(), Some("did you mean `args`?"));
}

#[test]
fn a_replay_agent_takes_a_recording_and_nothing_that_starts_a_program() {
    let config = Config::parse(
        Path::new(FILE),
        "runners:\n  claude:\n    agent: { type: replay, recording: recordings/agents }\n  again:\n    agent: { type: replay, recording: /abs/rec, runner: claude }\n",
    )
    .unwrap();
    let agent = &config.runners[0].1.agent;
    assert_eq!(agent.kind, AgentKind::Replay);
    assert_eq!(agent.recording, Some(p("/proj/bench/recordings/agents")));
    assert_eq!(agent.replay_runner, None);
    let agent = &config.runners[1].1.agent;
    assert_eq!(agent.recording, Some(p("/abs/rec")));
    assert_eq!(agent.replay_runner.as_deref(), Some("claude"));

    let err = fail("runners:\n  r:\n    agent: { type: replay }\n");
    assert_error(
        &err,
        3,
        20,
        "agent type `replay` needs a `recording`",
        Some(
            "add `recording: <dir>`: a run directory (target/skillgym/runs/<run-id>) or one made by `cargo skillgym record`",
        ),
    );
    let err = fail("runners:\n  r:\n    agent: { type: replay, recording: x, model: m }\n");
    assert_error(
        &err,
        3,
        20,
        "`model` does nothing for agent type `replay`: no program starts, and the recording says which agent and model ran",
        Some("remove `model`"),
    );
    let err = fail("runners:\n  r:\n    agent: { type: codex, model: m, recording: x }\n");
    assert_error(
        &err,
        3,
        48,
        "`recording` only goes with `type: replay`",
        Some("remove it, or set `type: replay` to replay a recorded run"),
    );
}

#[test]
fn unknown_key_in_a_runner() {
    let err = fail("runners:\n  claude:\n    agent:\n      type: claude-code\n      modle: x\n");
    assert_error(
        &err,
        5,
        7,
        "unknown field `modle`, expected one of `type`, `model`, `command`, `args`, `resume_args`, `version_args`, `env`, `provider`, `recording`, `runner`",
        Some("did you mean `model`?"),
    );
    let err = fail("runners:\n  claude:\n    agnet: { type: codex, model: m }\n");
    assert_error(
        &err,
        3,
        5,
        "unknown field `agnet`, expected one of `agent`, `skills`, `sandbox`, `min_pass_rate`, `min_lift`",
        Some("did you mean `agent`?"),
    );
}

#[test]
fn bad_enum_values_get_suggestions() {
    let err = fail("run:\n  schedule: paralel\n");
    assert_error(
        &err,
        2,
        13,
        "unknown value `paralel`, expected one of `serial`, `parallel`, `isolated-by-runner`",
        Some("did you mean `parallel`?"),
    );
    let err = fail("runners:\n  c: { agent: { type: claud-code } }\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 23)));
    assert_eq!(err.help(), Some("did you mean `claude-code`?"));
    let err = fail("run:\n  workspace: { mode: isolate }\n");
    assert_eq!(err.help(), Some("did you mean `isolated`?"));
}

#[test]
fn out_of_range_integers_are_located() {
    let err = fail("run:\n  repeat: 0\n");
    assert_error(&err, 2, 11, "`repeat` must be at least 1, found 0", None);
    assert_eq!(
        err.to_string(),
        "/proj/bench/skillgym.yaml:2:11: `repeat` must be at least 1, found 0\n   |\n 2 |   repeat: 0\n   |           ^"
    );
    let err = fail("run:\n  max_parallel: 0\n");
    assert_error(
        &err,
        2,
        17,
        "`max_parallel` must be at least 1, found 0",
        None,
    );
    let err = fail("run:\n  max_steps: 0\n");
    assert_error(&err, 2, 14, "`max_steps` must be at least 1, found 0", None);
    let err = fail("run:\n  repeat: 99999999999\n");
    assert_eq!(err.message(), "`repeat` is too large, found 99999999999");
}

#[test]
fn negative_integers_are_rejected() {
    let err = fail("run:\n  repeat_failure: -1\n");
    assert_error(
        &err,
        2,
        19,
        "`repeat_failure` must not be negative, found -1",
        None,
    );
    let err = fail("run:\n  repeat: -2\n");
    assert_error(&err, 2, 11, "`repeat` must be at least 1, found -2", None);
    let err = fail("defaults: { timeout_ms: -5 }\n");
    assert_eq!(err.message(), "`timeout_ms` must be at least 1, found -5");
}

#[test]
fn wrong_types_are_located() {
    let err = fail("run:\n  max_parallel: [1]\n");
    // A wrong type is reported at the key.
    assert_error(
        &err,
        2,
        3,
        "invalid type: sequence, expected `max_parallel` to be an integer >= 1",
        None,
    );
    let err = fail("run:\n  repeat: abc\n");
    assert_error(
        &err,
        2,
        11,
        "`repeat` must be an integer, found `abc`",
        None,
    );
    let err = fail("run:\n  repeat: 1.5\n");
    assert_error(
        &err,
        2,
        11,
        "`repeat` must be a whole number, found 1.5",
        None,
    );
    let err = fail("run: 3\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((1, 6)));
    let err = fail("run:\n  tags: smoke\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 9)));
    let err = fail("run:\n  tags: [a, '']\n");
    assert_error(&err, 2, 13, "expected a non-empty string", None);
    let err = fail("run:\n  reporter: ''\n");
    assert_error(&err, 2, 13, "`reporter` must not be empty", None);
    let err = fail("defaults: { timeout: 90 }\n");
    assert!(
        err.message()
            .starts_with("invalid duration `90`: a unit is missing"),
        "{err}"
    );
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((1, 22)));
}

#[test]
fn duplicate_runner_ids_are_rejected() {
    let err = fail(
        "runners:\n  claude: { agent: { type: claude-code, model: m } }\n  claude: { agent: { type: codex, model: m } }\n",
    );
    assert_error(
        &err,
        3,
        3,
        "duplicate key `claude`",
        Some("a key may appear only once in a mapping"),
    );
}

#[test]
fn runner_order_is_preserved() {
    let config = parse(
        "runners:\n  zeta: { agent: { type: codex, model: m } }\n  alpha: { agent: { type: codex, model: m } }\n  mid: { agent: { type: codex, model: m } }\n",
    );
    assert_eq!(
        config.runner_ids().collect::<Vec<_>>(),
        ["zeta", "alpha", "mid"]
    );
}

#[test]
fn relative_paths_resolve_against_the_config_dir() {
    let config = parse(
        "
run:
  output_dir: ./out/../runs
  cwd: .
  workspace: { mode: none }
runners:
  rel: { agent: { type: command, command: ../bin/agent } }
  dot: { agent: { type: command, command: . } }
  abs: { agent: { type: command, command: /usr/bin/agent } }
  bare: { agent: { type: claude-code, model: m, command: claude-nightly } }
",
    );
    assert_eq!(config.run.output_dir, Some(p("/proj/bench/out/../runs")));
    assert_eq!(config.run.cwd, Some(p("/proj/bench")));
    let commands: Vec<_> = config
        .runners
        .iter()
        .map(|(_, r)| r.agent.command.clone().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "/proj/bench/../bin/agent",
            "/proj/bench",
            "/usr/bin/agent",
            "claude-nightly"
        ]
    );
    // One `reporter`, or a list of `reporters` (which wins).
    assert_eq!(parse("run: { reporter: junit }").run.reporters, ["junit"]);
    assert_eq!(
        parse("run: { reporter: junit, reporters: [json, html] }")
            .run
            .reporters,
        ["json", "html"]
    );
}

#[test]
fn workspace_root_is_a_directory_relative_to_the_config_file() {
    assert_eq!(parse("run: {}").run.workspace_root, None);
    assert_eq!(
        parse("run: { workspace_root: ../scratch/ws }")
            .run
            .workspace_root,
        Some(p("/proj/bench/../scratch/ws"))
    );
    assert_eq!(
        parse("run: { workspaceRoot: /var/tmp/ws }")
            .run
            .workspace_root,
        Some(p("/var/tmp/ws"))
    );
    let err = fail("run:\n  workspace_root: '  '\n");
    assert_error(
        &err,
        2,
        19,
        "`workspace_root` must not be empty",
        Some("remove it to keep workspaces in the temporary directory, or name a directory"),
    );
    let err = fail("run:\n  workspace_root: ~/skillgym\n");
    assert_error(
        &err,
        2,
        19,
        "`workspace_root` starts with `~`, which skillgym does not expand: `~/skillgym`",
        Some("write the home directory out (an absolute path), or a path relative to this file"),
    );
    let err = fail("run:\n  workspace_root: [a]\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 19)), "{err}");
    let err = fail("run:\n  workspace_rot: /tmp\n");
    assert_eq!(err.help(), Some("did you mean `workspace_root`?"), "{err}");
}

#[test]
fn workspace_mode_rules() {
    let err = fail("run:\n  workspace:\n    mode: isolated\n    cwd: app\n");
    assert_error(
        &err,
        4,
        10,
        "`cwd` is only allowed with workspace mode `none`, but `mode` is `isolated`",
        Some("the agent runs in the prepared workspace; remove `cwd` (or use `template_dir`)"),
    );
    assert_eq!(
        err.to_string(),
        "/proj/bench/skillgym.yaml:4:10: `cwd` is only allowed with workspace mode `none`, \
         but `mode` is `isolated`\n  help: the agent runs in the prepared workspace; remove `cwd` \
         (or use `template_dir`)\n   |\n 4 |     cwd: app\n   |          ^"
    );
    let err = fail("run:\n  workspace: { mode: shared, cwd: app }\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 35)));
    let err = fail("run:\n  workspace:\n    mode: none\n    template_dir: tpl\n");
    assert_error(
        &err,
        4,
        19,
        "`template_dir` needs workspace mode `shared` or `isolated`, but `mode` is `none`",
        Some("set `mode: isolated` (a fresh copy per attempt) or `mode: shared`"),
    );
    let err = fail("run:\n  workspace:\n    mode: none\n    bootstrap:\n      command: x\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((5, 7)));
    let err = fail("run:\n  cwd: app\n  workspace: { mode: isolated }\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 8)));
    assert!(
        err.message()
            .starts_with("`cwd` only applies with workspace mode `none`"),
        "{err}"
    );
    let err = fail("run:\n  cwd: app\n  workspace: { mode: none, cwd: other }\n");
    assert_error(
        &err,
        2,
        8,
        "`cwd` is also set in `workspace.cwd`",
        Some("keep only one of them"),
    );
    let err = fail("run:\n  workspace: { template_dir: x }\n");
    assert_eq!(err.message(), "missing field `mode`");
    // mode none with cwd is fine.
    let config = parse("run:\n  workspace: { mode: none, cwd: app }\n");
    assert_eq!(
        config.run.workspace.unwrap().cwd,
        Some(p("/proj/bench/app"))
    );
}

#[test]
fn timeout_rules() {
    let err = fail("defaults:\n  timeout: 2m\n  timeout_ms: 1000\n");
    assert_error(
        &err,
        3,
        15,
        "`timeout_ms` is given together with `timeout`",
        Some("keep only one: `timeout: 2m` or `timeout_ms: 120000`"),
    );
    let err = fail("defaults:\n  timeout_ms: 0\n");
    assert_error(
        &err,
        2,
        15,
        "`timeout_ms` must be at least 1, found 0",
        None,
    );
    let err = fail("defaults:\n  timeout: 0s\n");
    assert_error(&err, 2, 12, "`timeout` must be greater than zero", None);
    let err = fail(
        "run:\n  workspace:\n    mode: isolated\n    bootstrap: { command: x, timeout: 1s, timeoutMs: 5 }\n",
    );
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((4, 54)));
    assert_eq!(
        parse("defaults: { timeout: 1h30m }").defaults.timeout,
        Some(Duration::from_secs(5400))
    );
}

#[test]
fn the_retry_failed_alias_is_folded_into_repeat_failure() {
    for (yaml, expected) in [
        ("run: { retry_failed: 3 }", Some(3)),
        ("run: { retryFailed: 4 }", Some(4)),
        ("run: { retry_failed: 3, repeat_failure: 0 }", Some(0)),
        ("run: { repeat_failure: 2 }", Some(2)),
        ("run: { repeat: 2 }", None),
    ] {
        assert_eq!(parse(yaml).run.repeat_failure, expected, "{yaml}");
    }
}

/// The shared duration table (also run against the macro's `timeout`), through every YAML key
/// that takes a duration.
#[test]
fn duration_keys_follow_the_shared_grammar() {
    use skillgym_grammar::duration::examples::{ACCEPTED, REJECTED, message};
    let documents = |text: &str| {
        let quoted = serde_json::to_string(text).unwrap();
        [
            format!("defaults:\n  timeout: {quoted}\n"),
            format!(
                "run:\n  workspace:\n    mode: isolated\n    bootstrap: {{ command: x, timeout: {quoted} }}\n"
            ),
        ]
    };
    let timeouts = |config: Config| {
        let bootstrap = config
            .run
            .workspace
            .and_then(|w| w.bootstrap)
            .and_then(|b| b.timeout);
        config.defaults.timeout.or(bootstrap)
    };
    for &(text, millis) in ACCEPTED {
        for yaml in documents(text) {
            if millis == 0 {
                assert_eq!(
                    fail(&yaml).message(),
                    "`timeout` must be greater than zero",
                    "{yaml}"
                );
            } else {
                assert_eq!(
                    timeouts(parse(&yaml)),
                    Some(Duration::from_millis(millis)),
                    "{yaml}"
                );
            }
        }
    }
    for &(text, why) in REJECTED {
        for yaml in documents(text) {
            assert_eq!(fail(&yaml).message(), message(text, why), "{yaml}");
        }
    }
}

#[test]
fn snapshots_parse_with_defaults_and_resolve_their_path() {
    assert_eq!(
        parse("run: {}\n").snapshots,
        None,
        "off without the section"
    );
    let config = parse("snapshots:\n  tolerance: { percent: 10 }\n");
    let snapshots = config.snapshots.unwrap();
    assert_eq!(snapshots.path, p("/proj/bench/skillgym.snapshots.json"));
    assert_eq!(snapshots.metric, SnapshotMetric::TotalTokens);
    assert_eq!(snapshots.tolerance, Tolerance::new(None, Some(10.0)));
    assert_eq!(snapshots.improvements, Improvements::Pass);
    let config = parse(
        "snapshots:\n  path: ../baselines/tokens.json\n  metric: cost\n  tolerance: { absolute: 0.05, percent: 2.5 }\n  improvements: fail\n",
    );
    let snapshots = config.snapshots.unwrap();
    assert_eq!(snapshots.path, p("/proj/bench/../baselines/tokens.json"));
    assert_eq!(snapshots.metric, SnapshotMetric::Cost);
    assert_eq!(snapshots.tolerance, Tolerance::new(Some(0.05), Some(2.5)));
    assert_eq!(snapshots.improvements, Improvements::Fail);
    for (name, metric) in [
        ("input_tokens", SnapshotMetric::InputTokens),
        ("output_tokens", SnapshotMetric::OutputTokens),
        ("duration", SnapshotMetric::Duration),
        ("totalTokens", SnapshotMetric::TotalTokens),
    ] {
        let yaml = format!("snapshots: {{ metric: {name}, tolerance: {{ absolute: 1 }} }}\n");
        assert_eq!(parse(&yaml).snapshots.unwrap().metric, metric, "{name}");
    }
}

#[test]
fn snapshots_errors_are_located_with_help() {
    const HELP: Option<&str> =
        Some("e.g. `tolerance: { percent: 10 }`, `tolerance: { absolute: 500 }`, or both");
    assert_error(
        &fail("snapshots:\n  metric: total_tokens\n"),
        2,
        3,
        "`snapshots` needs a `tolerance`",
        HELP,
    );
    assert_error(
        &fail("run: {}\nsnapshots:\n"),
        2,
        10,
        "`snapshots` needs a `tolerance`",
        HELP,
    );
    assert_error(
        &fail("snapshots:\n  tolerance: {}\n"),
        2,
        14,
        "`tolerance` needs `absolute` or `percent`",
        HELP,
    );
    assert_error(
        &fail("snapshots:\n  tolerance: { percent: -5 }\n"),
        2,
        25,
        "`percent` must be a number >= 0, found -5",
        None,
    );
    assert_error(
        &fail("snapshots:\n  tolerance: { percnt: 5 }\n"),
        2,
        16,
        "unknown field `percnt`, expected one of `absolute`, `percent`",
        Some("did you mean `percent`?"),
    );
    assert_error(
        &fail("snapshots:\n  tolerance: { percent: 5 }\n  metrc: cost\n"),
        3,
        3,
        "unknown field `metrc`, expected one of `path`, `metric`, `tolerance`, `improvements`",
        Some("did you mean `metric`?"),
    );
    assert_error(
        &fail("snapshots:\n  tolerance: { percent: 5 }\n  metric: total_token\n"),
        3,
        11,
        "unknown value `total_token`, expected one of `total_tokens`, `input_tokens`, `output_tokens`, `cost`, `duration`",
        Some("did you mean `total_tokens`?"),
    );
    assert_error(
        &fail("snapshots:\n  tolerance: { percent: 5 }\n  improvements: accept\n"),
        3,
        17,
        "unknown value `accept`, expected one of `pass`, `fail`",
        None,
    );
    assert_error(
        &fail("snapshot:\n  tolerance: { percent: 5 }\n"),
        1,
        1,
        "unknown field `snapshot`, expected one of `run`, `defaults`, `runners`, `suites`, `judge`, `snapshots`, `variants`, `pricing`, `triggers`",
        Some("did you mean `snapshots`?"),
    );
}

#[test]
fn suites_and_judge_resolve_against_the_config_dir() {
    let config = Config::parse(
        Path::new("/repo/bench/skillgym.yaml"),
        "suites: [evals/EVAL.yaml, ./more]\njudge: { runner: claude, mock: judge.yaml }\n",
    )
    .unwrap();
    let suites: Vec<&Path> = config.suites.iter().map(|s| s.value.as_path()).collect();
    assert_eq!(
        suites,
        [
            Path::new("/repo/bench/evals/EVAL.yaml"),
            Path::new("/repo/bench/more")
        ]
    );
    assert_eq!((config.suites[0].line, config.suites[0].column), (1, 10));
    let judge = config.judge.unwrap();
    assert_eq!(judge.runner.unwrap().value, "claude");
    assert_eq!(
        judge.mock.as_deref(),
        Some(Path::new("/repo/bench/judge.yaml"))
    );
    let err = fail("judge: { runer: claude }\n");
    assert!(err.message().contains("unknown field `runer`"), "{err}");
}

#[test]
fn agent_rules() {
    let err = fail("runners:\n  local:\n    agent:\n      type: command\n");
    assert_error(
        &err,
        4,
        13,
        "agent type `command` needs a `command`",
        Some(
            "add `command: ./path/to/agent` (with `args:`, where `{prompt}` is replaced by the prompt)",
        ),
    );
    let err = fail("runners:\n  c:\n    agent: { type: codex, model: '' }\n");
    assert_eq!(err.message(), "`model` must not be empty");
    let err = fail("runners:\n  c:\n    agent: { model: x }\n");
    assert_eq!(err.message(), "missing field `type`");
    let err = fail("runners:\n  c: {}\n");
    assert_eq!(err.message(), "missing field `agent`");
}

#[test]
fn syntax_errors_are_located() {
    let err = fail("run:\n  repeat: [1, 2\n");
    assert!(err.location().is_some(), "{err}");
    assert!(!err.message().contains(" at line "), "{err}");
}

/// A fresh, empty directory under the system temp dir, kept when the test fails before
/// [`tempfile::TempDir::close`] removes it.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("skillgym-config-{name}-"))
        .disable_cleanup(true)
        .tempdir()
        .unwrap()
}

#[test]
fn discovery_walks_upward() {
    let tmp = temp_dir("discover");
    let root = tmp.path();
    let deep = root.join("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(root.join("skillgym.yml"), "run: { repeat: 3 }\n").unwrap();
    assert_eq!(discover(&deep), Some(root.join("skillgym.yml")));
    // A nearer file wins.
    std::fs::write(root.join("a/skillgym.yaml"), "run: { repeat: 4 }\n").unwrap();
    assert_eq!(discover(&deep), Some(root.join("a/skillgym.yaml")));
    assert_eq!(
        discover_checked(&deep).unwrap(),
        Some(root.join("a/skillgym.yaml"))
    );
    let config = load_for_run(None, &deep, Path::new("/")).unwrap();
    assert_eq!(config.run.repeat, Some(4));
    assert_eq!(config.dir, root.join("a"));
    // An explicit path is relative to the process cwd.
    let config = load_for_run(Some(Path::new("skillgym.yml")), &deep, root).unwrap();
    assert_eq!(config.run.repeat, Some(3));
    tmp.close().unwrap();
}

#[test]
fn discovery_without_a_file_gives_the_default_config() {
    let tmp = temp_dir("none");
    let root = tmp.path();
    // The temp dir's ancestors are assumed not to hold a skillgym.yaml.
    if discover(root).is_none() {
        let config = load_for_run(None, root, Path::new("/")).unwrap();
        assert_eq!(config, Config::default_for(root));
    }
    tmp.close().unwrap();
}

#[test]
fn two_config_files_in_one_dir_are_an_error() {
    let tmp = temp_dir("two");
    let root = tmp.path();
    std::fs::write(root.join("skillgym.yaml"), "").unwrap();
    std::fs::write(root.join("skillgym.yml"), "").unwrap();
    let expected = format!(
        "found two config files, {} and {}\n  help: keep only one of them",
        root.join("skillgym.yaml").display(),
        root.join("skillgym.yml").display()
    );
    assert_eq!(discover_checked(root).unwrap_err().to_string(), expected);
    assert_eq!(
        load(&root.join("skillgym.yml")).unwrap_err().to_string(),
        expected
    );
    assert_eq!(
        load_for_run(None, root, root).unwrap_err().to_string(),
        expected
    );
    tmp.close().unwrap();
}

#[test]
fn load_reads_the_file_and_reports_missing_ones() {
    let tmp = temp_dir("load");
    let root = tmp.path();
    let path = root.join("skillgym.yaml");
    std::fs::write(&path, "run:\n  schedule: serial\n  repeat: 0\n").unwrap();
    let err = load(&path).unwrap_err();
    assert_eq!(err.location(), Some((path.clone(), 3, 11)));
    std::fs::write(&path, "run:\n  schedule: serial\n").unwrap();
    let config = load(&path).unwrap();
    assert_eq!(
        (config.run.schedule, config.path),
        (Some(Schedule::Serial), Some(path.clone()))
    );
    std::fs::remove_file(&path).unwrap();
    let err = load(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: config file not found", path.display())
    );
    tmp.close().unwrap();
}

#[test]
fn agents_other_than_command_need_a_model() {
    let err = fail("runners:\n  claude:\n    agent: { type: claude-code }\n");
    assert_error(
        &err,
        3,
        20,
        "agent type `claude-code` needs a `model`",
        Some("add `model: claude-sonnet-4-6` (the name the agent's CLI takes)"),
    );
}

#[test]
fn resume_args_are_for_command_agents_only() {
    let config = parse(
        "runners:\n  a: { agent: { type: command, command: agent, resume_args: [--resume, \"{session_id}\"] } }\n",
    );
    assert_eq!(
        config.runners[0].1.agent.resume_args,
        Some(vec!["--resume".to_owned(), "{session_id}".to_owned()])
    );
    let err = fail(
        "runners:\n  c:\n    agent:\n      type: codex\n      model: m\n      resume_args: [x]\n",
    );
    assert_error(
        &err,
        6,
        20,
        "`resume_args` is for agent type `command`; `codex` resumes with its own CLI's flags",
        Some("remove `resume_args`"),
    );
}

#[test]
fn version_args_are_for_command_agents_only_and_not_empty() {
    let config = parse(
        "runners:\n  a: { agent: { type: command, command: agent, version_args: [--version] } }\n",
    );
    assert_eq!(
        config.runners[0].1.agent.version_args,
        Some(vec!["--version".to_owned()])
    );
    let err = fail(
        "runners:\n  c:\n    agent:\n      type: codex\n      model: m\n      version_args: [--version]\n",
    );
    assert_error(
        &err,
        6,
        21,
        "`version_args` is for agent type `command`; skillgym asks `codex` for its version itself",
        Some("remove `version_args`"),
    );
    let err = fail(
        "runners:\n  a:\n    agent:\n      type: command\n      command: agent\n      version_args: []\n",
    );
    assert_error(
        &err,
        6,
        21,
        "`version_args` must not be empty: without arguments the program would start a session",
        Some(
            "give the arguments that make it print its version, e.g. `version_args: [--version]`, or remove the key",
        ),
    );
    let err = fail(
        "runners:\n  r:\n    agent:\n      type: replay\n      recording: /rec\n      version_args: [-V]\n",
    );
    assert!(
        err.to_string()
            .contains("`version_args` does nothing for agent type `replay`"),
        "{err}"
    );
}

#[test]
fn providers_parse_with_each_agents_default_wire() {
    let config = parse(
        r#"
runners:
  claude: { agent: { type: claude-code, model: m, provider: { base_url: "http://127.0.0.1:4000/", api_key_env: LITELLM_KEY } } }
  copilot:
    agent:
      type: copilot
      model: m
      provider: { base_url: https://openrouter.ai/api/v1, api_key_env: OPENROUTER_API_KEY, wire_api: openai-responses }
  local: { agent: { type: qwen-code, model: m, provider: { base_url: "http://localhost:11434/v1" } } }
"#,
    );
    let provider = |index: usize| config.runners[index].1.agent.provider.clone().unwrap();
    assert_eq!(
        provider(0),
        ProviderConfig {
            base_url: "http://127.0.0.1:4000".to_owned(),
            api_key_env: Some("LITELLM_KEY".to_owned()),
            wire_api: WireApi::Anthropic,
        }
    );
    assert_eq!(provider(1).wire_api, WireApi::OpenaiResponses);
    assert_eq!(provider(2).api_key_env, None);
    assert_eq!(provider(2).wire_api, WireApi::OpenaiChat);
}

#[test]
fn bad_providers_are_located_errors() {
    let err = fail(
        "runners:\n  c:\n    agent:\n      type: codex\n      model: m\n      provider: { base_url: http://x/v1, wire_api: openai-chat }\n",
    );
    assert_error(
        &err,
        6,
        52,
        "agent type `codex` cannot speak `openai-chat`; it speaks `openai-responses`",
        None,
    );
    let err = fail(
        "runners:\n  c: { agent: { type: codex, model: m, provider: { base_url: localhost:4000 } } }\n",
    );
    assert_eq!(
        err.message(),
        "`base_url` must be an http:// or https:// URL, found `localhost:4000`"
    );
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 62)));
    let err = fail(
        "runners:\n  c: { agent: { type: codex, model: m, provider: { base_url: http://x/v1, api_key_env: sk-abc123 } } }\n",
    );
    assert_eq!(
        err.message(),
        "`api_key_env` must name an environment variable, found `sk-abc123`"
    );
    assert_eq!(
        err.help(),
        Some("give the variable's name (e.g. `OPENROUTER_API_KEY`), never the key itself")
    );
    let err = fail(
        "runners:\n  c: { agent: { type: cursor-agent, model: m, provider: { base_url: http://x } } }\n",
    );
    assert!(
        err.message()
            .starts_with("agent type `cursor-agent` cannot be pointed at another model endpoint"),
        "{err}"
    );
    let err = fail(
        "runners:\n  c: { agent: { type: codex, model: m, provider: { base_url: http://x, wire_apy: gemini } } }\n",
    );
    assert_eq!(err.help(), Some("did you mean `wire_api`?"));
    let err = fail(
        "runners:\n  c: { agent: { type: opencode, model: m, provider: { base_url: http://x, wire_api: openai-chta } } }\n",
    );
    assert_eq!(err.help(), Some("did you mean `openai-chat`?"));
}

#[test]
fn the_agent_runs_in_the_authors_tree_only_when_asked() {
    assert_eq!(parse("{}").run.workspace, None);
    assert_eq!(WorkspaceMode::default(), WorkspaceMode::Isolated);
    let err = fail("run:\n  cwd: app\n");
    assert_error(
        &err,
        2,
        8,
        "`cwd` runs the agent in that directory itself, which needs workspace mode `none`",
        Some(
            "add `workspace: { mode: none }`; by default each attempt runs in a fresh, empty directory",
        ),
    );
    let config = parse("run:\n  cwd: app\n  workspace: { mode: none }\n");
    assert_eq!(config.run.workspace.unwrap().mode, WorkspaceMode::None);
}

#[test]
fn sandbox_short_and_long_forms_run_wide_and_per_runner() {
    let config = parse(
        "run:\n  sandbox: bubblewrap\nrunners:\n  a: { agent: { type: command, command: x } }\n  b:\n    agent: { type: command, command: x }\n    sandbox: { mode: bubblewrap, network: loopback, read_only: [tools, /abs] }\n  c: { agent: { type: command, command: x }, sandbox: none }\n",
    );
    assert_eq!(
        config.run.sandbox,
        SandboxConfig::bubblewrap(SandboxNetwork::Host)
    );
    assert_eq!(config.runners[0].1.sandbox, None);
    let b = config.runners[1].1.sandbox.clone().unwrap();
    assert_eq!(
        (b.mode, b.network, b.read_only),
        (
            SandboxMode::Bubblewrap,
            SandboxNetwork::Loopback,
            vec![p("/proj/bench/tools"), p("/abs")]
        )
    );
    assert_eq!(parse("").run.sandbox.mode, SandboxMode::None, "the default");
}

#[test]
fn sandbox_mistakes_are_located() {
    let err = fail("run:\n  sandbox: bubblewrp\n");
    assert_eq!(
        err.message(),
        "unknown sandbox `bubblewrp`, expected `none` or `bubblewrap`"
    );
    assert_eq!(err.help(), Some("did you mean `bubblewrap`?"));
    assert_eq!(err.location().map(|l| l.1), Some(2));
    let err = fail("run:\n  sandbox: { mode: none, network: loopback }\n");
    assert_error(
        &err,
        2,
        35,
        "`network` does nothing with `mode: none`",
        Some("remove `network`, or set `mode: bubblewrap`"),
    );
    let err = fail("run:\n  sandbox: { mode: bubblewrap, netwrk: host }\n");
    assert_eq!(err.help(), Some("did you mean `network`?"));
    let err = fail("run:\n  sandbox: { mode: bubblewrap, network: lo }\n");
    assert_eq!(
        err.message(),
        "unknown value `lo`, expected one of `host`, `loopback`"
    );
    let err = fail("run:\n  sandbox: { network: host }\n");
    assert!(err.message().contains("missing field `mode`"), "{err}");
}

#[test]
fn the_run_samples_or_repeats_never_both() {
    assert_eq!(parse("run:\n  samples: 8\n").run.samples, Some(8));
    assert_eq!(parse("{}").run.samples, None);
    for yaml in [
        "run:\n  samples: 8\n  repeat: 2\n",
        "run:\n  repeat_failure: 1\n  samples: 8\n",
        "run:\n  samples: 8\n  retry_failed: 1\n",
    ] {
        let err = fail(yaml);
        assert!(
            err.message()
                .starts_with("`samples` conflicts with `repeat`/`repeat_failure`"),
            "{yaml}: {err}"
        );
    }
    let err = fail("run:\n  samples: 0\n");
    assert!(err.message().contains("samples"), "{err}");
}

#[test]
fn min_pass_rate_is_a_share_for_the_run_and_each_runner() {
    let config = parse(
        "run:\n  min_pass_rate: 0.8\nrunners:\n  a: { agent: { type: command, command: x }, min_pass_rate: 0.5 }\n",
    );
    assert_eq!(config.run.min_pass_rate, Some(0.8));
    assert_eq!(config.runners[0].1.min_pass_rate, Some(0.5));
    assert_eq!(parse("{}").run.min_pass_rate, None);
    let err = fail("run:\n  min_pass_rate: 80\n");
    assert_error(
        &err,
        2,
        18,
        "`min_pass_rate` is a share of sessions, from 0 to 1, found 80",
        None,
    );
}

#[test]
fn variants_parse_in_order_with_their_skills_env_and_baseline() {
    let config = parse(
        "variants:\n  without: { skills: none }\n  with: {}\n  old: { skills: { git: v1.2.0 }, baseline: true }\n  draft: { skills: [../drafts/s], env: { K: V } }\n",
    );
    let names: Vec<&str> = config.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["without", "with", "old", "draft"]);
    assert_eq!(config.variants[0].skills, VariantSkills::Without);
    assert_eq!(config.variants[1].skills, VariantSkills::UnderTest);
    assert_eq!(
        config.variants[2].skills,
        VariantSkills::Git("v1.2.0".into())
    );
    assert!(config.variants[2].baseline && !config.variants[0].baseline);
    assert_eq!(
        config.variants[3].skills,
        VariantSkills::Dirs(vec![p("/proj/bench/../drafts/s")])
    );
    assert_eq!(
        config.variants[3].env.get("K").map(String::as_str),
        Some("V")
    );
}

#[test]
fn bad_variants_are_located_with_help() {
    let err = fail("variants:\n  a/b: {}\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 3)));
    assert!(
        err.message().starts_with("variant name `a/b` holds `/`"),
        "{err}"
    );
    let err = fail("variants:\n  without: { skills: nothing }\n");
    assert_error(
        &err,
        2,
        22,
        "`skills: nothing` is not a variant's skills",
        Some("write `skills: none`, a list of skill directories, or `skills: { git: v1.2.0 }`"),
    );
    let err = fail("variants:\n  a: { baseline: true }\n  b: { baseline: true }\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((3, 3)));
    assert_eq!(err.message(), "variant `b` is a second baseline");
    let err = fail("variants:\n  a: { skils: none }\n");
    assert_eq!(err.help(), Some("did you mean `skills`?"));
}

#[test]
fn budget_and_min_lift_are_checked() {
    let config = parse("run:\n  budget: { sessions: 10, cost_usd: 2.5 }\n  min_lift: -0.05\n");
    let budget = config.run.budget.unwrap();
    assert_eq!(
        (budget.sessions, budget.tokens, budget.cost_usd),
        (Some(10), None, Some(2.5))
    );
    assert_eq!(config.run.min_lift, Some(-0.05));
    let err = fail("run:\n  budget: {}\n");
    assert_eq!(err.location().map(|l| (l.1, l.2)), Some((2, 11)));
    assert_eq!(
        err.message(),
        "`budget` needs `sessions`, `tokens` or `cost_usd`"
    );
    let err = fail("run:\n  budget: { sessions: 0 }\n");
    assert_error(&err, 2, 23, "`budget.sessions` must be at least 1", None);
    let err = fail("run:\n  budget: { cost_usd: -1 }\n");
    assert_error(
        &err,
        2,
        23,
        "`budget.cost_usd` must be a positive number of US dollars, found -1",
        None,
    );
    let err = fail("run:\n  budget: { session: 3 }\n");
    assert_eq!(err.help(), Some("did you mean `sessions`?"));
    let err = fail("run:\n  min_lift: 1.5\n");
    assert!(
        err.message()
            .contains("`min_lift` is a difference of two pass rates, from -1 to 1, found 1.5"),
        "{err}"
    );
}

#[test]
fn triggers_are_read_and_checked() {
    let config = parse(
        "triggers:\n  files: [t/notes.yaml]\n  distractors: [d/pdf]\n  samples: 3\n  quiet_after: 2\n  min_recall: 0.8\n",
    );
    let triggers = &config.triggers;
    assert_eq!(
        triggers.files[0].value,
        Path::new("/proj/bench/t/notes.yaml")
    );
    assert_eq!(
        triggers.distractors[0].value,
        Path::new("/proj/bench/d/pdf")
    );
    assert_eq!(
        (triggers.samples, triggers.quiet_after, triggers.min_recall),
        (Some(3), Some(2), Some(0.8))
    );
    let err = fail("triggers:\n  quiet_after: 0\n");
    assert_eq!(err.location().map(|l| l.1), Some(2));
    assert!(err.message().contains("`quiet_after`"), "{err}");
    let err = fail("triggers:\n  min_precison: 0.9\n");
    assert_eq!(err.help(), Some("did you mean `min_precision`?"));
}
