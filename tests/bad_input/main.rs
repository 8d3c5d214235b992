//! Every bad input the README's "Bad input" table lists, each given to a real harness binary as
//! a user would give it, with the exit code and the error it must print.
//!
//! This target is its own harness (`harness = false`). Run as a child (`BAD_INPUT_CHILD=1`) it
//! is a skillgym benchmark binary with two cases: `good` (tag `ok`) and `missing_prompt` (tag
//! `broken`, whose prompt file does not exist). Run by cargo it is the driver: one libtest trial
//! per row, each writing its `skillgym.yaml` into a fresh directory and running the child.

use std::path::Path;
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Failed, Trial};
use skillgym::SessionReport;
use skillgym_e2e::temp_dir;

const CHILD: &str = "BAD_INPUT_CHILD";
const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

#[skillgym::case(tags = ["ok"], prompt = "echo-prompt")]
fn good(_report: &SessionReport) {}

#[skillgym::case(tags = ["broken"], prompt_file = "tests/bad_input/no-such-prompt.md")]
fn missing_prompt(_report: &SessionReport) {}

/// One bad input: what is given, and what must come out.
struct Row {
    name: &'static str,
    /// Flags after `--config <file> --output-dir <dir>`.
    args: &'static [&'static str],
    /// `skillgym.yaml` (`{fake}` is the fake agent, `{dir}` the row's directory).
    config: &'static str,
    code: i32,
    /// Lines (or parts of lines) stderr must hold.
    stderr: &'static [&'static str],
}

/// A valid runner, for rows about something else.
const RUNNER: &str = "runners:\n  fake: { agent: { type: command, command: '{fake}', env: { FAKE_AGENT_SCRIPT: '-' } } }\n";

const ROWS: &[Row] = &[
    Row {
        name: "malformed_yaml",
        args: &[],
        config: "run:\n  tags: [smoke\n",
        code: 2,
        stderr: &[
            "skillgym.yaml:2:9: unclosed bracket '['",
            " 2 |   tags: [smoke",
        ],
    },
    Row {
        name: "tab_indentation",
        args: &[],
        config: "run:\n\trepeat: 2\n",
        code: 2,
        stderr: &["skillgym.yaml:2:2: tabs disallowed within this context (block indentation)"],
    },
    Row {
        name: "duplicate_key",
        args: &[],
        config: "run:\n  repeat: 1\n  repeat: 2\n",
        code: 2,
        stderr: &["skillgym.yaml:3:3: duplicate key `repeat`"],
    },
    Row {
        name: "wrong_type",
        args: &[],
        config: "run:\n  repeat: three\n",
        code: 2,
        stderr: &["skillgym.yaml:2:11: `repeat` must be an integer, found `three`"],
    },
    Row {
        name: "runner_id_with_a_newline",
        args: &[],
        config: "runners:\n  \"fa\\nke\": { agent: { type: command, command: '{fake}' } }\n",
        code: 2,
        stderr: &[
            "skillgym.yaml:2:3: runner id `fa\\nke` holds a newline (U+000A): it names a trial",
            "help: write it without, e.g. `fa-ke`",
        ],
    },
    Row {
        name: "unknown_key",
        args: &[],
        config: "run:\n  max_paralel: 3\n",
        code: 2,
        stderr: &[
            "skillgym.yaml:2:3: unknown field `max_paralel`",
            "help: did you mean `max_parallel`?",
        ],
    },
    Row {
        name: "zero_count",
        args: &[],
        config: "run:\n  repeat: 0\n",
        code: 2,
        stderr: &["skillgym.yaml:2:11: `repeat` must be at least 1, found 0"],
    },
    Row {
        name: "negative_count",
        args: &[],
        config: "run:\n  max_parallel: -1\n",
        code: 2,
        stderr: &["skillgym.yaml:2:17: `max_parallel` must be at least 1, found -1"],
    },
    Row {
        name: "huge_count",
        args: &[],
        config: "run:\n  repeat: 99999999999\n",
        code: 2,
        stderr: &["skillgym.yaml:2:11: `repeat` is too large, found 99999999999"],
    },
    Row {
        name: "duration_without_unit",
        args: &[],
        config: "defaults:\n  timeout: 5\n",
        code: 2,
        stderr: &["skillgym.yaml:2:12: invalid duration `5`: a unit is missing"],
    },
    Row {
        name: "unknown_duration_unit",
        args: &[],
        config: "defaults:\n  timeout: 5x\n",
        code: 2,
        stderr: &["skillgym.yaml:2:12: invalid duration `5x`: unknown unit `x`"],
    },
    Row {
        name: "zero_size",
        args: &[],
        config: "run:\n  max_output: 0\n",
        code: 2,
        stderr: &["skillgym.yaml:2:15: invalid size `0`: it must be more than zero"],
    },
    Row {
        name: "alias_bomb",
        args: &[],
        config: "run:
  tags: [&a [lol, lol, lol, lol, lol, lol, lol, lol, lol], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b, *b], &d [*c, *c, *c, *c, *c, *c, *c, *c, *c], &e [*d, *d, *d, *d, *d, *d, *d, *d, *d], &f [*e, *e, *e, *e, *e, *e, *e, *e, *e], &g [*f, *f, *f, *f, *f, *f, *f, *f, *f], &h [*g, *g, *g, *g, *g, *g, *g, *g, *g], &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]]
",
        code: 2,
        stderr: &["skillgym.yaml:2:13: expected string scalar"],
    },
    Row {
        name: "cwd_without_workspace_mode_none",
        args: &[],
        config: "run:\n  cwd: app\n",
        code: 2,
        stderr: &[
            "skillgym.yaml:2:8: `cwd` runs the agent in that directory itself, which needs workspace mode `none`",
        ],
    },
    Row {
        name: "unknown_runner_flag",
        args: &["--runner", "nope"],
        config: RUNNER,
        code: 2,
        stderr: &["error: `--runner` names unknown runner `nope` (configured runners: `fake`)"],
    },
    Row {
        name: "unknown_flag",
        args: &["--bogus"],
        config: RUNNER,
        code: 2,
        stderr: &["error: unknown flag `--bogus`"],
    },
    Row {
        name: "zero_repeat_flag",
        args: &["--repeat", "0"],
        config: RUNNER,
        code: 2,
        stderr: &["error: `--repeat` expects an integer >= 1, found `0`"],
    },
    Row {
        name: "missing_agent_programs",
        args: &["--tag", "ok", "--require-agents"],
        config: "runners:\n  gone: { agent: { type: command, command: /nonexistent/agent } }\n  unknown: { agent: { type: claude-code, model: m, command: no-such-agent-cli } }\n",
        code: 2,
        stderr: &[
            "error: runner `gone`: the agent program `/nonexistent/agent` is not an executable file",
            "error: runner `unknown`: the agent program `no-such-agent-cli` is not on PATH",
            "`cargo skillgym doctor` checks every runner",
        ],
    },
    Row {
        name: "a_missing_agent_program_skips_its_runner_unless_required",
        args: &["--tag", "ok", "--require-agents=false"],
        config: "runners:\n  fake: { agent: { type: command, command: '{fake}', env: { FAKE_AGENT_SCRIPT: '-' } } }\n  gone: { agent: { type: command, command: /nonexistent/agent } }\n",
        code: 0,
        stderr: &[
            "skillgym: warning: runner `gone`: the agent program `/nonexistent/agent` is not an executable file",
            "its executions are skipped; the other runners run (`--require-agents`, or `CI` set, stops the run instead)",
        ],
    },
    Row {
        name: "non_executable_agent_program",
        args: &["--tag", "ok", "--require-agents"],
        config: "runners:\n  plain: { agent: { type: command, command: '{dir}/skillgym.yaml' } }\n",
        code: 2,
        stderr: &[
            "error: runner `plain`: the agent program `{dir}/skillgym.yaml` is not an executable file",
        ],
    },
    Row {
        name: "replay_symlink_out_of_the_recording",
        args: &["--tag", "ok", "--replay", "{dir}/recording"],
        config: RUNNER,
        code: 2,
        stderr: &[
            "{dir}/recording/good/fake/repeat-1/attempt-1 is a symbolic link to `{dir}/outside`",
            "outside the recording {dir}/recording: a recording is read only inside its own directory",
        ],
    },
    Row {
        name: "replay_runner_symlink_out_of_the_recording",
        args: &["--tag", "ok"],
        config: "runners:\n  fake: { agent: { type: replay, recording: '{dir}/recording' } }\n",
        code: 2,
        stderr: &[
            "{dir}/recording/good/fake/repeat-1/attempt-1 is a symbolic link to `{dir}/outside`",
            "outside the recording {dir}/recording: a recording is read only inside its own directory",
        ],
    },
    Row {
        name: "no_runners",
        args: &[],
        config: "run:\n  repeat: 1\n",
        code: 2,
        stderr: &["error: no runners configured"],
    },
];

/// Fills a row's directory with what it needs besides `skillgym.yaml`.
type Setup = fn(&Path);

/// The rows that need a [`Setup`], by name.
const SETUPS: &[(&str, Setup)] = &[
    ("replay_symlink_out_of_the_recording", recording_linking_out),
    (
        "replay_runner_symlink_out_of_the_recording",
        recording_linking_out,
    ),
];

/// `recording/`: a run of `good` on `fake` whose attempt directory is a symbolic link to
/// `outside/`.
fn recording_linking_out(dir: &Path) {
    let execution = dir.join("recording/good/fake");
    std::fs::create_dir_all(execution.join("repeat-1")).unwrap();
    std::fs::write(
        execution.join("result.json"),
        r#"{"case_id":"good","runner_id":"fake","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("outside")).unwrap();
    std::fs::write(dir.join("outside/stdout.log"), "not the recording's\n").unwrap();
    std::os::unix::fs::symlink(dir.join("outside"), execution.join("repeat-1/attempt-1")).unwrap();
}

/// One bad declarative suite, listed in `skillgym.yaml` as `suite` and run with `--tag ok`.
struct SuiteRow {
    name: &'static str,
    /// Files (path relative to the row's directory, content).
    files: &'static [(&'static str, &'static str)],
    /// Symlinks (path relative to the row's directory, target; `{dir}` is the row's directory).
    links: &'static [(&'static str, &'static str)],
    /// Lines (or parts of lines) stderr must hold; `{dir}` is the row's directory.
    stderr: &'static [&'static str],
    /// What stderr must not hold: what a link points at.
    never: &'static [&'static str],
}

/// `RUNNER` with the suite `suite` (in the row's directory).
const SUITE_CONFIG: &str = "suites: [suite]\nrunners:\n  fake: { agent: { type: command, command: '{fake}', env: { FAKE_AGENT_SCRIPT: '-' } } }\n";

/// A suite whose cases are directories under `suite/cases/`.
const DISCOVERY: (&str, &str) = ("suite/EVAL.yaml", "tests: ./cases/\n");
const CASE: &str = "input: hi\nassertions: [{type: contains, value: hi}]\n";

const SUITE_ROWS: &[SuiteRow] = &[
    SuiteRow {
        name: "case_id_with_a_newline",
        files: &[(
            "suite/EVAL.yaml",
            "tests:\n  - id: \"a\\nb\"\n    input: hi\n    assertions: [{type: contains, value: hi}]\n",
        )],
        links: &[],
        stderr: &[
            "{dir}/suite/EVAL.yaml:2:9: `id` `a\\nb` holds a newline (U+000A): it names a trial, and a trial's name must fit on one line of `--list`",
            "help: write it without, e.g. `id: a-b`",
        ],
        never: &[],
    },
    SuiteRow {
        name: "case_directory_with_an_escape",
        files: &[DISCOVERY, ("suite/cases/red\u{1b}[31m/case.yaml", CASE)],
        links: &[],
        stderr: &[
            "case directory `{dir}/suite/cases/red\\u{1b}[31m` holds an escape character (U+001B)",
            "help: rename it, e.g. to `red-[31m`",
        ],
        never: &["\u{1b}"],
    },
    SuiteRow {
        name: "case_yaml_symlink_out_of_the_suite",
        files: &[
            DISCOVERY,
            ("suite/cases/a/notes.md", ""),
            ("outside/secret.yaml", "api_key: hunter2 [\n"),
        ],
        links: &[("suite/cases/a/case.yaml", "{dir}/outside/secret.yaml")],
        stderr: &[
            "`{dir}/suite/cases/a/case.yaml` is a symlink to `{dir}/outside/secret.yaml`, outside the suite directory `{dir}/suite`: skillgym follows no symlink out of a suite",
        ],
        never: &["hunter2"],
    },
    SuiteRow {
        name: "workspace_symlink_out_of_the_suite",
        files: &[
            DISCOVERY,
            ("suite/cases/a/case.yaml", CASE),
            ("outside/home/.ssh/id_rsa", "PRIVATE KEY"),
        ],
        links: &[("suite/cases/a/workspace", "{dir}/outside/home")],
        stderr: &[
            "`{dir}/suite/cases/a/workspace` is a symlink to `{dir}/outside/home`, outside the suite directory `{dir}/suite`: skillgym follows no symlink out of a suite",
        ],
        never: &["PRIVATE KEY"],
    },
];

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return skillgym_harness::main();
    }
    let trials = ROWS
        .iter()
        .map(|row| Trial::test(row.name, move || check(row)))
        .chain(
            SUITE_ROWS
                .iter()
                .map(|row| Trial::test(row.name, move || check_suite(row))),
        )
        .chain([Trial::test(
            "missing_prompt_file_fails_only_its_case",
            missing_prompt_file_fails_only_its_case,
        )])
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// Writes the row's suite beside a `skillgym.yaml` naming it, and checks that the harness
/// refuses it before any agent starts.
fn check_suite(row: &SuiteRow) -> Result<(), Failed> {
    let dir = temp_dir(&format!("bad-input-{}", row.name));
    let fill = |text: &str| text.replace("{dir}", &dir.path().display().to_string());
    for (path, content) in row.files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    for (link, target) in row.links {
        std::os::unix::fs::symlink(fill(target), dir.path().join(link)).unwrap();
    }
    let output = run(
        dir.path(),
        &Row {
            name: row.name,
            args: &["--tag", "ok"],
            config: SUITE_CONFIG,
            code: 2,
            stderr: &[],
        },
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let context = format!(
        "exit {:?}\n--- stderr ---\n{stderr}--- stdout ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout)
    );
    if output.status.code() != Some(2) {
        return Err(format!("expected exit code 2\n{context}").into());
    }
    for expected in row.stderr {
        let expected = fill(expected);
        if !stderr.contains(&expected) {
            return Err(format!("stderr lacks `{expected}`\n{context}").into());
        }
    }
    for never in row.never {
        if stderr.contains(never) || String::from_utf8_lossy(&output.stdout).contains(never) {
            return Err(format!("the output shows `{never}`\n{context}").into());
        }
    }
    if dir.path().join("out").exists() {
        return Err(format!("a run stopped at start wrote artifacts\n{context}").into());
    }
    Ok(())
}

fn check(row: &Row) -> Result<(), Failed> {
    let dir = temp_dir(&format!("bad-input-{}", row.name));
    let output = run(dir.path(), row);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let context = format!(
        "exit {:?}\n--- stderr ---\n{stderr}--- stdout ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout)
    );
    if output.status.code() != Some(row.code) {
        return Err(format!("expected exit code {}\n{context}", row.code).into());
    }
    for expected in row.stderr {
        let expected = expected.replace("{dir}", &dir.path().display().to_string());
        if !stderr.contains(&expected) {
            return Err(format!("stderr lacks `{expected}`\n{context}").into());
        }
    }
    if row.code != 0 && dir.path().join("out").exists() {
        return Err(format!("a run stopped at start wrote artifacts\n{context}").into());
    }
    Ok(())
}

/// A missing prompt file is no start-up error: `--list` lists its case, and a run notes it on
/// stderr, fails that case's trial naming the file, and runs the other case.
fn missing_prompt_file_fails_only_its_case() -> Result<(), Failed> {
    const MISSING: &str = "the prompt file of case `missing_prompt` does not exist: ";
    const DECLARED: &str =
        "/tests/bad_input/no-such-prompt.md (declared at tests/bad_input/main.rs:";
    // Runs the child with `args`: its exit, stdout, stderr and what to show of them, and the
    // row's directory.
    let child = |name: &'static str, args: &'static [&'static str]| {
        let row = Row {
            name,
            args,
            config: RUNNER,
            code: 0,
            stderr: &[],
        };
        let dir = temp_dir(&format!("bad-input-{name}"));
        let output = run(dir.path(), &row);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let context = format!(
            "exit {:?}\n--- stderr ---\n{stderr}--- stdout ---\n{stdout}",
            output.status.code()
        );
        (output, stdout, stderr, context, dir)
    };
    let (output, stdout, stderr, context, _dir) = child("missing_prompt_file_listed", &["--list"]);
    if output.status.code() != Some(0)
        || stdout != "[fake] good: test\n[fake] missing_prompt: test\n"
        || stderr.contains(MISSING)
    {
        return Err(format!("`--list` should list both cases, quietly\n{context}").into());
    }
    let (output, stdout, stderr, context, dir) = child("missing_prompt_file_run", &[]);
    let note = stderr
        .lines()
        .find(|line| line.starts_with(&format!("skillgym: {MISSING}")));
    let expected = [
        output.status.code() == Some(101),
        note.is_some_and(|note| note.contains(DECLARED) && note.ends_with(": its trials fail")),
        trial(&stdout, "good", "ok"),
        trial(&stdout, "missing_prompt", "FAILED"),
        stdout.contains(MISSING) && stdout.contains(DECLARED),
        dir.path().join("out/run/good/fake/result.json").is_file(),
    ];
    if expected.contains(&false) {
        return Err(format!("expected [exit 101, the note, good ok, missing_prompt FAILED, its failure naming the file, good's result]: {expected:?}\n{context}").into());
    }
    Ok(())
}

/// Whether libtest's output says the trial of `case` on `fake` ended with `outcome`.
fn trial(stdout: &str, case: &str, outcome: &str) -> bool {
    stdout.lines().any(|line| {
        line.strip_prefix(&format!("test [fake] {case} "))
            .is_some_and(|rest| rest.trim_start() == format!("... {outcome}"))
    })
}

fn run(dir: &Path, row: &Row) -> Output {
    let config = dir.join("skillgym.yaml");
    let text = row
        .config
        .replace("{fake}", FAKE_AGENT)
        .replace("{dir}", &dir.display().to_string());
    std::fs::write(&config, text).unwrap();
    if let Some((_, setup)) = SETUPS.iter().find(|(name, _)| *name == row.name) {
        setup(dir);
    }
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--config".as_ref(), config.as_os_str()])
        .args(["--output-dir".as_ref(), dir.join("out").as_os_str()])
        .args(
            row.args
                .iter()
                .map(|arg| arg.replace("{dir}", &dir.display().to_string())),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    skillgym_e2e::without_outer_runner_env(&mut command);
    command.env(CHILD, "1").env("SKILLGYM_RUN_ID", "run");
    command.output().expect("the child harness runs")
}
