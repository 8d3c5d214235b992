//! `docs/src/reference/flags.md` is a benchmark binary's `--help` as the harness renders it:
//! a flag added or changed without regenerating the page fails here. And
//! `docs/src/reference/configuration.md` is [`SECTIONS`], whose keys are those the schema
//! accepts, section by section: a key added to the schema and not here fails.
//! `SKILLGYM_UPDATE_DOCS=1 cargo test -p skillgym-harness --test reference` rewrites them.

use std::path::Path;

#[test]
fn the_flags_reference_is_the_help_text() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference/flags.md");
    let page = format!(
        "# Flags of a benchmark binary\n\n\
         Generated from the harness's own `--help` (`cargo test --test benchmarks -- --help`) by\n\
         `skillgym-harness/tests/reference.rs`; `SKILLGYM_UPDATE_DOCS=1 cargo test -p\n\
         skillgym-harness --test reference` rewrites it. Every skillgym flag has its\n\
         `SKILLGYM_*` variable; a flag beats its variable, which beats `skillgym.yaml`.\n\n\
         ```text\n{}```\n",
        skillgym_harness::command_line_help().trim_end().to_owned() + "\n"
    );
    assert_committed(&path, &page, "the harness's --help");
}

/// `page` is the committed file at `path` (`SKILLGYM_UPDATE_DOCS` set: it is written there
/// first); `what` names where the page comes from.
fn assert_committed(path: &Path, page: &str, what: &str) {
    if std::env::var_os("SKILLGYM_UPDATE_DOCS").is_some() {
        std::fs::write(path, page).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == page,
        "{} is not {what}: regenerate it with `SKILLGYM_UPDATE_DOCS=1 cargo test -p skillgym-harness --test reference`",
        path.display()
    );
}

/// A section of `skillgym.yaml`: where it is, a file that puts an unknown key `zz` in it (so
/// that the schema names the keys it takes), what it is for, and its keys.
struct Section {
    path: &'static str,
    probe: &'static str,
    about: &'static str,
    keys: &'static [Key],
}

/// A key: its name, its values, its default and its meaning.
struct Key(&'static str, &'static str, &'static str, &'static str);

const SECTIONS: &[Section] = &[
    Section {
        path: "(top level)",
        probe: "zz: 1\n",
        about: "The sections of the file. An empty file is a valid configuration.",
        keys: &[
            Key(
                "run",
                "mapping",
                "",
                "how executions are scheduled, repeated and isolated",
            ),
            Key("defaults", "mapping", "", "per-case defaults"),
            Key(
                "runners",
                "mapping of id to runner",
                "none",
                "the agents every case runs on, in file order",
            ),
            Key(
                "suites",
                "list of paths",
                "none",
                "declarative suites: `EVAL.yaml` / `*.eval.yaml` files, or directories holding one ([Declarative suites](../suites.md))",
            ),
            Key(
                "judge",
                "mapping",
                "none",
                "the agent that grades rubric items",
            ),
            Key(
                "snapshots",
                "mapping",
                "off",
                "token snapshots, on when the section is there ([Token snapshots](../snapshots.md))",
            ),
            Key(
                "variants",
                "mapping of name to variant",
                "none",
                "the ways of setting up each case an experiment compares ([Experiments](../experiments.md))",
            ),
            Key(
                "pricing",
                "mapping of model id to prices",
                "the built-in prices",
                "prices (US dollars per million tokens) for costs estimated from token counts ([Tokens and cost](../cost.md))",
            ),
            Key(
                "triggers",
                "mapping",
                "",
                "how the skills' trigger suites run ([Trigger suites](../triggers.md))",
            ),
        ],
    },
    Section {
        path: "run",
        probe: "run:\n  zz: 1\n",
        about: "How executions are scheduled, repeated and isolated. Flags and `SKILLGYM_*` variables beat these keys ([Precedence](../configuration.md#precedence)).",
        keys: &[
            Key(
                "schedule",
                "`serial`, `parallel`, `isolated-by-runner`",
                "`parallel`",
                "how executions share the machine ([Schedules](../executions.md#schedules))",
            ),
            Key(
                "max_parallel",
                "integer >= 1",
                "available parallelism (1 when `serial`)",
                "executions at once",
            ),
            Key(
                "repeat",
                "integer >= 1",
                "1",
                "repetitions of every execution ([Repetitions and retries](../executions.md#repetitions-and-retries))",
            ),
            Key(
                "repeat_failure",
                "integer >= 0",
                "0",
                "retries of a failed repetition",
            ),
            Key(
                "retry_failed",
                "integer >= 0",
                "0",
                "the legacy name of `repeat_failure`",
            ),
            Key(
                "samples",
                "integer >= 1 (not with `repeat`)",
                "none: cases repeat",
                "independent sessions per execution, none retried ([Samples](../executions.md#samples))",
            ),
            Key(
                "min_pass_rate",
                "0 to 1",
                "none",
                "the gate on every execution's pass rate ([Pass-rate gates](../executions.md#pass-rate-gates))",
            ),
            Key(
                "min_lift",
                "-1 to 1",
                "none",
                "the gate on every variant's lift over its baseline",
            ),
            Key(
                "max_steps",
                "integer >= 1",
                "none",
                "model steps a session may take before it is stopped",
            ),
            Key(
                "tags",
                "list of tags",
                "every case",
                "the tag filter when no `--tag` is given",
            ),
            Key(
                "output_dir",
                "path",
                "`target/skillgym/runs`",
                "where run directories go",
            ),
            Key(
                "reporter",
                "reporter name",
                "`standard`",
                "one reporter (or `reporters`)",
            ),
            Key(
                "reporters",
                "list of reporter names",
                "`standard`",
                "the reporters whose files each run writes ([Reporters](../reports.md#reporters))",
            ),
            Key(
                "cwd",
                "path",
                "the config file's directory",
                "the agents' working directory with workspace mode `none`",
            ),
            Key(
                "workspace",
                "mapping",
                "mode `isolated`",
                "where each attempt runs ([Workspaces](../workspaces.md))",
            ),
            Key(
                "workspace_root",
                "path",
                "`<temporary directory>/skillgym-<uid>`",
                "where the run's workspaces go",
            ),
            Key(
                "skills",
                "list of skill directories",
                "none",
                "skills under test, installed for every runner in every attempt ([Skills under test](../skills.md#skills-under-test))",
            ),
            Key(
                "user_skills",
                "`isolated`, `inherit`",
                "`isolated`",
                "whether agents see the user's own skills",
            ),
            Key(
                "max_output",
                "size (`512MiB`, bytes)",
                "512 MiB",
                "the most stdout an agent may print in one session",
            ),
            Key(
                "secrets",
                "list of variable names",
                "none",
                "variables whose values are masked in everything written, besides names that look secret",
            ),
            Key(
                "sandbox",
                "`none`, `bubblewrap`, or a mapping",
                "`none`",
                "how every runner's agent is confined ([Safety](../safety.md))",
            ),
            Key(
                "budget",
                "mapping",
                "none",
                "what the run may spend before it starts no more sessions",
            ),
        ],
    },
    Section {
        path: "run.workspace",
        probe: "run:\n  workspace:\n    zz: 1\n",
        about: "Where each attempt runs.",
        keys: &[
            Key(
                "mode",
                "`isolated`, `shared`, `none`",
                "`isolated`",
                "a fresh copy per attempt, one copy for the run, or the directory itself",
            ),
            Key(
                "template_dir",
                "path",
                "none: an empty directory",
                "what each workspace starts as",
            ),
            Key(
                "cwd",
                "path",
                "the config file's directory",
                "the directory of mode `none`",
            ),
            Key(
                "bootstrap",
                "mapping",
                "none",
                "a command run in the workspace before the agent",
            ),
        ],
    },
    Section {
        path: "run.workspace.bootstrap",
        probe: "run:\n  workspace:\n    bootstrap:\n      zz: 1\n",
        about: "A command run in each workspace before the agent starts; a failure fails the attempt with origin `workspace`.",
        keys: &[
            Key(
                "command",
                "program or path",
                "required",
                "a program on `PATH`, or a path (resolved against the config file's directory)",
            ),
            Key("args", "list of strings", "none", "its arguments"),
            Key("timeout", "duration (`5m`)", "none", "how long it may take"),
            Key(
                "timeout_ms",
                "milliseconds",
                "none",
                "the same, in milliseconds",
            ),
            Key("env", "mapping", "none", "extra environment variables"),
        ],
    },
    Section {
        path: "run.sandbox, runners.<id>.sandbox",
        probe: "run:\n  sandbox:\n    zz: 1\n",
        about: "How agents are confined (a word is the mode alone). A runner's own `sandbox` replaces the run's as a whole ([Safety](../safety.md)).",
        keys: &[
            Key(
                "mode",
                "`none`, `bubblewrap`",
                "`none`",
                "no sandbox, or `bwrap` (Linux): the host read-only, the workspace and state writable, the home hidden",
            ),
            Key(
                "network",
                "`host`, `loopback`",
                "`host` (`loopback` under `--mock`)",
                "what the agent may reach (bubblewrap only)",
            ),
            Key(
                "read_only",
                "list of paths",
                "none",
                "host paths the agent may read besides what the sandbox shows",
            ),
        ],
    },
    Section {
        path: "run.budget",
        probe: "run:\n  budget:\n    zz: 1\n",
        about: "What the run may spend: once a limit is reached no session starts ([Experiments](../experiments.md)). At least one key.",
        keys: &[
            Key(
                "sessions",
                "integer >= 1",
                "none",
                "agent sessions started (retries and samples count)",
            ),
            Key(
                "tokens",
                "integer >= 1",
                "none",
                "total tokens the sessions reported",
            ),
            Key(
                "cost_usd",
                "number > 0",
                "none",
                "US dollars the sessions cost (reported, or estimated from their tokens)",
            ),
        ],
    },
    Section {
        path: "defaults",
        probe: "defaults:\n  zz: 1\n",
        about: "Per-case defaults; a case's own value beats them.",
        keys: &[
            Key(
                "timeout",
                "duration (`2m`)",
                "2m",
                "how long a session may take",
            ),
            Key(
                "timeout_ms",
                "milliseconds",
                "120000",
                "the same, in milliseconds",
            ),
        ],
    },
    Section {
        path: "runners.<id>",
        probe: "runners:\n  r:\n    zz: 1\n",
        about: "One agent target; the id names it in trial names (`[id] case`), `--runner` and reports.",
        keys: &[
            Key(
                "agent",
                "mapping",
                "required",
                "which agent CLI, with which model and options",
            ),
            Key(
                "skills",
                "list of skill directories",
                "none",
                "skills installed for this runner, after `run.skills`",
            ),
            Key(
                "sandbox",
                "as `run.sandbox`",
                "`run.sandbox`",
                "how this runner's agent is confined",
            ),
            Key(
                "min_pass_rate",
                "0 to 1",
                "`run.min_pass_rate`",
                "the gate on this runner's pass rates (a case's own beats it)",
            ),
            Key(
                "min_lift",
                "-1 to 1",
                "`run.min_lift`",
                "the gate on this runner's lifts (a case's own beats it)",
            ),
        ],
    },
    Section {
        path: "runners.<id>.agent, judge.agent",
        probe: "runners:\n  r:\n    agent:\n      zz: 1\n",
        about: "The agent CLI a runner starts ([Agents](../agents.md)).",
        keys: &[
            Key(
                "type",
                "`claude-code`, `codex`, `opencode`, `copilot`, `cursor-agent`, `gemini-cli`, `qwen-code`, `command`, `replay`",
                "required",
                "the agent",
            ),
            Key(
                "model",
                "model id",
                "required, but for `command` and `replay`",
                "the model the agent uses",
            ),
            Key(
                "command",
                "program or path",
                "the agent's own program",
                "replaces the agent's program (required for `command`)",
            ),
            Key(
                "args",
                "list of strings",
                "none",
                "arguments right after the program (`commandArgs` is accepted)",
            ),
            Key(
                "resume_args",
                "list of strings (`command` only)",
                "none: no resume",
                "the arguments that ask a finished session one more question, with `{session_id}` and `{prompt}` ([Explain](../explain.md))",
            ),
            Key(
                "version_args",
                "list of strings (`command` only)",
                "none: the version is unknown",
                "the arguments that make the program print its version",
            ),
            Key(
                "env",
                "mapping",
                "none",
                "extra environment variables, applied last (never over the model endpoint's)",
            ),
            Key(
                "provider",
                "mapping",
                "the agent's own endpoint",
                "the model endpoint the agent talks to ([Model endpoints](../agents.md#model-endpoints-agentprovider))",
            ),
            Key(
                "recording",
                "path (`replay` only)",
                "required for `replay`",
                "the recorded run whose sessions the runner replays ([Replay](../replay.md))",
            ),
            Key(
                "runner",
                "runner id (`replay` only)",
                "the runner's own id",
                "the recorded runner to replay",
            ),
        ],
    },
    Section {
        path: "runners.<id>.agent.provider",
        probe: "runners:\n  r:\n    agent:\n      provider:\n        zz: 1\n",
        about: "A model endpoint instead of the agent's default one.",
        keys: &[
            Key(
                "base_url",
                "URL",
                "required",
                "the API root in the wire API's convention: with `/v1` for the OpenAI wires, without for Anthropic and Gemini",
            ),
            Key(
                "api_key_env",
                "variable name",
                "none: no key",
                "the environment variable holding the API key",
            ),
            Key(
                "wire_api",
                "`anthropic`, `openai-responses`, `openai-chat`, `gemini`",
                "the agent's own",
                "the API the endpoint speaks",
            ),
        ],
    },
    Section {
        path: "judge",
        probe: "judge:\n  zz: 1\n",
        about: "The agent that grades rubric items of declarative suites (`runner` or `agent`).",
        keys: &[
            Key("runner", "runner id", "none", "a configured runner"),
            Key(
                "agent",
                "as `runners.<id>.agent`",
                "none",
                "an agent of the judge's own",
            ),
            Key(
                "mock",
                "path",
                "none",
                "the script the scripted model plays for judge sessions under `--mock`",
            ),
        ],
    },
    Section {
        path: "snapshots",
        probe: "snapshots:\n  zz: 1\n",
        about: "Token snapshots: each execution's figure against a committed baseline ([Token snapshots](../snapshots.md)).",
        keys: &[
            Key(
                "path",
                "path",
                "`skillgym.snapshots.json` beside the config file",
                "the baseline file",
            ),
            Key(
                "metric",
                "`total_tokens`, `input_tokens`, `output_tokens`, `cost`",
                "`total_tokens`",
                "the figure compared",
            ),
            Key(
                "tolerance",
                "mapping",
                "none: any change",
                "how far the figure may move",
            ),
            Key(
                "improvements",
                "`pass`, `fail`",
                "`pass`",
                "whether a figure below the tolerance fails until accepted",
            ),
        ],
    },
    Section {
        path: "snapshots.tolerance",
        probe: "snapshots:\n  tolerance:\n    zz: 1\n",
        about: "How far a figure may move from its baseline.",
        keys: &[
            Key(
                "absolute",
                "number >= 0",
                "none",
                "in the metric's unit (tokens, US dollars)",
            ),
            Key("percent", "number >= 0", "none", "of the baseline"),
        ],
    },
    Section {
        path: "variants.<name>",
        probe: "variants:\n  a:\n    zz: 1\n",
        about: "One way of setting up each case; an experiment compares the variants on each runner ([Experiments](../experiments.md)).",
        keys: &[
            Key(
                "skills",
                "`none`, a list of skill directories, or `{ git: REF }`",
                "the skills under test",
                "which skills its attempts install",
            ),
            Key(
                "env",
                "mapping",
                "none",
                "extra environment variables for the agent",
            ),
            Key(
                "files",
                "mapping of workspace path to source file",
                "none",
                "files written into each workspace before the agent starts (such as `AGENTS.md`)",
            ),
            Key(
                "baseline",
                "`true`",
                "the first variant",
                "the variant the others are compared with",
            ),
        ],
    },
    Section {
        path: "pricing.<model>",
        probe: "pricing:\n  m:\n    zz: 1\n",
        about: "Prices of one model id, in US dollars per million tokens ([Tokens and cost](../cost.md)).",
        keys: &[
            Key(
                "input",
                "number >= 0",
                "required",
                "input tokens not read from the cache",
            ),
            Key(
                "cached_input",
                "number >= 0",
                "`input`",
                "cache-read input tokens",
            ),
            Key("output", "number >= 0", "required", "output tokens"),
            Key("reasoning", "number >= 0", "`output`", "reasoning tokens"),
        ],
    },
    Section {
        path: "triggers",
        probe: "triggers:\n  zz: 1\n",
        about: "How the skills' trigger suites run ([Trigger suites](../triggers.md)).",
        keys: &[
            Key(
                "files",
                "list of paths",
                "none",
                "trigger files besides the `triggers.yaml` beside each skill's `SKILL.md`",
            ),
            Key(
                "distractors",
                "list of skill directories",
                "none",
                "skills installed in every trigger session beside the skills under test",
            ),
            Key(
                "samples",
                "integer >= 1",
                "`run.samples`, else 1",
                "sessions per trigger prompt and runner (a trigger file's own wins)",
            ),
            Key(
                "quiet_after",
                "integer >= 1",
                "3",
                "tool calls without a skill after which a session counts as quiet",
            ),
            Key(
                "min_recall",
                "0 to 1",
                "none",
                "the gate on each skill's recall on each runner",
            ),
            Key(
                "min_precision",
                "0 to 1",
                "none",
                "the gate on each skill's precision on each runner",
            ),
        ],
    },
];

/// The keys the schema itself lists for a section: from the error an unknown key `zz` gets.
fn schema_keys(section: &Section) -> Vec<String> {
    let error =
        skillgym_harness::config::Config::parse(Path::new("/p/skillgym.yaml"), section.probe)
            .expect_err(section.probe)
            .to_string();
    let list = error
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("{}: no key list in: {error}", section.path));
    list.lines()
        .next()
        .unwrap()
        .split(", ")
        .map(|key| key.trim().trim_matches('`').to_owned())
        .collect()
}

/// The page, from [`SECTIONS`].
fn configuration_page() -> String {
    let mut page = String::from(
        "# Configuration reference\n\n\
         Every key of `skillgym.yaml`, section by section. Generated by\n\
         `skillgym-harness/tests/reference.rs`, which also checks each section's keys against the\n\
         ones the schema itself accepts (a key added to the schema and not here fails it);\n\
         `SKILLGYM_UPDATE_DOCS=1 cargo test -p skillgym-harness --test reference` rewrites it. How the\n\
         keys work together: [Configuration](../configuration.md).\n\n\
         Unknown keys are errors, with the file, line and column and the closest key; relative paths\n\
         resolve against the config file's directory; the TypeScript skillgym's camelCase names\n\
         (`maxParallel`, `timeoutMs`, …) are accepted too.\n",
    );
    for section in SECTIONS {
        page.push_str(&format!("\n## `{}`\n\n{}\n\n", section.path, section.about));
        page.push_str("| key | value | default | meaning |\n|---|---|---|---|\n");
        for Key(name, value, default, meaning) in section.keys {
            let default = if default.is_empty() { "—" } else { default };
            page.push_str(&format!("| `{name}` | {value} | {default} | {meaning} |\n"));
        }
    }
    page
}

#[test]
fn the_configuration_reference_is_the_schema() {
    for section in SECTIONS {
        let documented: Vec<&str> = section.keys.iter().map(|Key(name, ..)| *name).collect();
        assert_eq!(
            schema_keys(section),
            documented,
            "the keys of `{}` in the schema and in the reference (tests/reference.rs)",
            section.path
        );
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference/configuration.md");
    assert_committed(
        &path,
        &configuration_page(),
        "the reference of tests/reference.rs",
    );
}
