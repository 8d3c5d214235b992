//! Workspace modes: `none` (run in `run.cwd`), `shared` (prepared and bootstrapped once per
//! run), `isolated` (a fresh template copy per attempt, removed when it passes, kept when it
//! fails), a case's own template, and the bootstrap's environment and logs; where workspaces
//! live (the run's workspace root, outside the repository, `run.workspace_root`), their own
//! repository boundary, and a Rust fixture crate building in one.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Check;
use crate::{Run, Spec, read_json};

pub const CHECKS: &[(&str, Check)] = &[
    ("workspaces::none_runs_in_the_configured_cwd", none),
    (
        "workspaces::isolated_copies_the_template_per_attempt_and_bootstraps_it",
        isolated,
    ),
    (
        "workspaces::isolated_keeps_failed_and_removes_passed_workspaces",
        kept_on_failure,
    ),
    (
        "workspaces::shared_is_prepared_once_for_the_whole_run",
        shared,
    ),
    (
        "workspaces::a_case_template_makes_the_case_isolated",
        case_template,
    ),
    (
        "workspaces::an_empty_workspace_gets_a_repository_of_its_own",
        own_repository,
    ),
    (
        "workspaces::a_configured_root_is_used_and_named_when_inside_a_repository",
        configured_root,
    ),
    (
        "workspaces::a_root_that_cannot_be_made_fails_the_attempt_saying_why",
        bad_root,
    ),
    (
        "workspaces::processes_of_one_run_share_one_root",
        one_root_per_run,
    ),
    (
        "workspaces::a_rust_fixture_crate_builds_and_is_formatted_in_an_attempt",
        rust_fixture,
    ),
    (
        "workspaces::the_layout_of_passed_and_failed_attempts_is_flat_and_keeps_every_failed_file",
        layout,
    ),
];

/// A template with a dotfile, a `.git` directory and symlinks (inside and out of it).
fn template(dir: &Path) -> PathBuf {
    let template = dir.join("template");
    std::fs::create_dir_all(template.join(".git/refs/heads")).unwrap();
    std::fs::create_dir_all(template.join("src")).unwrap();
    std::fs::write(template.join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(template.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(template.join(".git/refs/heads/main"), "0123\n").unwrap();
    std::fs::write(template.join("src/lib.rs"), "// lib\n").unwrap();
    std::os::unix::fs::symlink("src/lib.rs", template.join("README.link")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", template.join("outside.link")).unwrap();
    template
}

const BOOTSTRAP: &str = r#"env | grep ^SKILLGYM_ | grep -v ^SKILLGYM_RUN_ID | sort > "$SKILLGYM_ARTIFACT_DIR/bootstrap-env.txt"; echo boot-out; echo boot-err >&2; touch bootstrapped; echo once >> "$BOOTS""#;

/// Runs `workspace::` cases with this workspace config; `{template}` becomes the template.
fn run(label: &str, filter: &[&str], workspace: &str) -> Run {
    let staging = skillgym_e2e::temp_dir("workspace-template");
    let template = template(staging.path());
    // The config is written by Run::new; the template must outlive the run.
    let config = format!(
        "run:\n  workspace: {}\n",
        workspace
            .replace("{template}", &template.display().to_string())
            .replace("{bootstrap}", &serde_json::to_string(BOOTSTRAP).unwrap())
    );
    let mut args = vec!["--runner", "a"];
    args.extend(filter);
    let run = Run::new(
        label,
        Spec {
            args: &args,
            config: &config,
            env: &[],
        },
    );
    drop(staging);
    run
}

fn attempt_dir(run: &Run, case: &str, repetition: u32, attempt: u32) -> PathBuf {
    run.execution_dir(&format!("workspace::{case}"), "a")
        .join(format!("repeat-{repetition}/attempt-{attempt}"))
}

/// The workspace root `<run>/workspace-root.json` names.
fn recorded_root(run: &Run) -> PathBuf {
    let record = read_json(&run.run_dir().join("workspace-root.json"));
    PathBuf::from(record["root"].as_str().expect("a root"))
}

/// The entries of a directory, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The nearest directory at or above `dir` holding a `.git`.
fn repository_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|dir| dir.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf)
}

fn none() {
    let run = Run::new(
        "workspace-none",
        Spec {
            args: &["--runner", "a", "--exact", "cases::workspace::records_cwd"],
            config: "run:\n  workspace: { mode: none, cwd: '{dir}/state' }\n",
            ..Spec::default()
        },
    );
    let project = run.dir().join("state");
    let result = run.execution("workspace::records_cwd", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    let agent = read_json(&project.join("agent.json"));
    assert_eq!(agent["cwd"], project.display().to_string());
    let workspace = read_json(&attempt_dir(&run, "records_cwd", 1, 1).join("workspace.json"));
    assert_eq!(workspace["mode"], "none");
    assert_eq!(workspace["cwd"], project.display().to_string());
    assert_eq!(workspace["preserved"], true);
    assert!(workspace.get("template_dir").is_none());
    assert!(workspace.get("repository").is_none(), "{workspace}");
    assert!(
        !project.join(".git").exists(),
        "your own tree is left as it is"
    );
    assert!(
        !run.run_dir().join("workspace-root.json").exists(),
        "no workspace root without a workspace to put in it"
    );
}

fn isolated() {
    let run = run(
        "workspace-isolated",
        &["--exact", "cases::workspace::template_copied"],
        "{ mode: isolated, template_dir: {template}, bootstrap: { command: sh, args: [-c, {bootstrap}], env: { BOOTS: /dev/null } } }",
    );
    let result = run.execution("workspace::template_copied", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    let attempt = attempt_dir(&run, "template_copied", 1, 1);
    // By default the run's root is in the temporary directory: outside the run directory and
    // out of any repository.
    let root = recorded_root(&run);
    let base = run.workspace_base();
    assert_eq!(root.parent(), Some(base.as_path()));
    assert!(
        root.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("run-"),
        "named after the run: {}",
        root.display()
    );
    let workspace_dir = root.join("cases.workspace.template_copied+a+repeat-1+attempt-1");
    assert!(!workspace_dir.starts_with(run.run_dir()));
    assert_eq!(repository_of(&base), None, "{}", base.display());
    let workspace = read_json(&attempt.join("workspace.json"));
    assert_eq!(workspace["mode"], "isolated");
    assert_eq!(workspace["cwd"], workspace_dir.display().to_string());
    assert_eq!(workspace["preserved"], false);
    assert_eq!(workspace["bootstrap"]["exit_code"], 0);
    // The template's own `.git` (checked by the case) is kept.
    assert_eq!(workspace["repository"], "existing");
    assert!(
        !workspace_dir.exists(),
        "a passed attempt's workspace is removed"
    );
    assert!(!root.exists(), "and the root it left empty");
    assert_eq!(names(&base), Vec::<String>::new());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&base).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "the base is private");
    // The bootstrap's environment and logs.
    // (`SKILLGYM_PROCESS`, the process tag every spawned process carries, varies per run.)
    let env: String = std::fs::read_to_string(attempt.join("bootstrap-env.txt"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("SKILLGYM_PROCESS="))
        .map(|line| format!("{line}\n"))
        .collect();
    let expected = format!(
        "SKILLGYM_ARTIFACT_DIR={}\nSKILLGYM_CASE_ID=cases::workspace::template_copied\nSKILLGYM_OUTPUT_DIR={}\nSKILLGYM_RUNNER_ID=a\nSKILLGYM_WORKSPACE={}\n",
        attempt.display(),
        run.run_dir().display(),
        workspace_dir.display()
    );
    assert_eq!(env, expected);
    assert_eq!(
        std::fs::read_to_string(attempt.join("bootstrap.stdout.log")).unwrap(),
        "boot-out\n"
    );
    assert_eq!(
        std::fs::read_to_string(attempt.join("bootstrap.stderr.log")).unwrap(),
        "boot-err\n"
    );
}

fn kept_on_failure() {
    let run = run(
        "workspace-kept",
        &[
            "cases::workspace::",
            "--skip",
            "bootstrapped",
            "--skip",
            "own_template",
            "--skip",
            "records_cwd",
            "--skip",
            "template_copied",
        ],
        "{ mode: isolated, template_dir: {template} }",
    );
    let result = run.execution("workspace::kept_then_removed", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    let root = recorded_root(&run);
    let failed = root.join("cases.workspace.kept_then_removed+a+repeat-1+attempt-1");
    assert!(
        failed.join("agent-was-here").is_file(),
        "the failed attempt's workspace is kept"
    );
    assert!(failed.join(".git/HEAD").is_file());
    assert!(
        !root
            .join("cases.workspace.kept_then_removed+a+repeat-1+attempt-2")
            .exists(),
        "the passed retry's is removed"
    );
    let first = read_json(&attempt_dir(&run, "kept_then_removed", 1, 1).join("workspace.json"));
    assert_eq!(first["preserved"], true);
    assert_eq!(first["cwd"], failed.display().to_string());
    let second = read_json(&attempt_dir(&run, "kept_then_removed", 1, 2).join("workspace.json"));
    assert_eq!(second["preserved"], false);
    let attempts = |result: &Value| -> Vec<Value> {
        result["repetitions"][0]["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|attempt| attempt["kept_workspace"].clone())
            .collect()
    };
    assert_eq!(
        attempts(&result),
        [Value::from(failed.display().to_string()), Value::Null],
        "result.json names the kept workspace"
    );

    // A failed execution names where its workspace is kept: in its trial's failure and in the
    // summary.
    let failing = run.execution("workspace::always_fails", "a");
    assert_eq!(failing["status"], "failed", "{}", run.context());
    let kept = root.join("cases.workspace.always_fails+a+repeat-1+attempt-1");
    assert!(kept.join("agent-was-here").is_file());
    assert_eq!(
        attempts(&failing),
        [Value::from(kept.display().to_string())]
    );
    let line = format!("workspace kept: {}", kept.display());
    assert!(
        run.stdout().contains(&format!("\n  {line}")),
        "the trial's failure names it:\n{}",
        run.context()
    );
    assert!(
        run.context().contains(&format!("skillgym:     {line}")),
        "the summary names it:\n{}",
        run.context()
    );
    assert!(
        !run.context().contains("warning: the workspace root"),
        "no warning for a root outside any repository:\n{}",
        run.context()
    );
}

fn shared() {
    let staging = skillgym_e2e::temp_dir("workspace-template");
    let template = template(staging.path());
    let config = format!(
        "run:\n  workspace: {{ mode: shared, template_dir: {}, bootstrap: {{ command: sh, args: [-c, {}], env: {{ BOOTS: '{{dir}}/state/boots' }} }} }}\n",
        template.display(),
        serde_json::to_string(BOOTSTRAP).unwrap()
    );
    let run = Run::new(
        "workspace-shared",
        Spec {
            args: &[
                "cases::workspace::",
                "--skip",
                "own_template",
                "--skip",
                "kept_then_removed",
                "--skip",
                "always_fails",
            ],
            config: &config,
            ..Spec::default()
        },
    );
    let shared = recorded_root(&run).join("shared");
    assert!(shared.starts_with(run.workspace_base()));
    for case in ["bootstrapped", "records_cwd", "template_copied"] {
        for runner in ["a", "b", "c"] {
            let result = run.execution(&format!("workspace::{case}"), runner);
            assert_eq!(
                result["status"],
                "passed",
                "{case} {runner}: {}",
                run.context()
            );
            let attempt = run
                .execution_dir(&format!("workspace::{case}"), runner)
                .join("repeat-1/attempt-1");
            let workspace = read_json(&attempt.join("workspace.json"));
            assert_eq!(workspace["mode"], "shared");
            assert_eq!(workspace["cwd"], shared.display().to_string());
        }
    }
    let boots = std::fs::read_to_string(run.state("boots")).unwrap();
    assert_eq!(boots, "once\n", "bootstrapped once for 9 executions");
    let setup = run.run_dir().join("shared-setup");
    let env = std::fs::read_to_string(setup.join("bootstrap-env.txt")).unwrap();
    assert!(!env.contains("SKILLGYM_CASE_ID"), "{env}");
    assert!(
        env.contains(&format!("SKILLGYM_WORKSPACE={}", shared.display())),
        "{env}"
    );
    assert_eq!(
        std::fs::read_to_string(setup.join("bootstrap.stdout.log")).unwrap(),
        "boot-out\n"
    );
    assert_eq!(
        read_json(&setup.join("workspace.json"))["repository"],
        "existing"
    );
    assert!(
        shared.join("agent.json").is_file(),
        "the shared workspace stays"
    );
}

fn case_template() {
    let template = skillgym_e2e::workspace_root().join("target/e2e-tmp/execution-case-template");
    std::fs::create_dir_all(&template).unwrap();
    std::fs::write(template.join("case-template.txt"), "from the case\n").unwrap();
    let run = Run::new(
        "workspace-case",
        Spec {
            args: &["--runner", "a", "--exact", "cases::workspace::own_template"],
            ..Spec::default()
        },
    );
    let result = run.execution("workspace::own_template", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    let workspace = read_json(&attempt_dir(&run, "own_template", 1, 1).join("workspace.json"));
    assert_eq!(workspace["mode"], "isolated");
    assert_eq!(workspace["template_dir"], template.display().to_string());
}

/// Without a template (the default: an empty directory), the agent runs in an empty git
/// repository of its own, which `workspace.json` says skillgym made.
fn own_repository() {
    let run = Run::new(
        "workspace-repository",
        Spec {
            args: &["--runner", "a", "--exact", "cases::workspace::always_fails"],
            ..Spec::default()
        },
    );
    let attempt = attempt_dir(&run, "always_fails", 1, 1);
    let workspace = read_json(&attempt.join("workspace.json"));
    assert_eq!(workspace["mode"], "isolated", "{}", run.context());
    assert_eq!(workspace["repository"], "created");
    let cwd = PathBuf::from(workspace["cwd"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(cwd.join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    assert_eq!(repository_of(&cwd), Some(cwd.clone()));
    let mut entries = names(&cwd);
    entries.retain(|name| name != ".git");
    assert_eq!(entries, ["agent-was-here"], "nothing else is added");
}

/// `run.workspace_root` (relative to the config file) holds the run's root; one inside a git
/// repository is allowed, and the run says so once.
fn configured_root() {
    let run = Run::new(
        "workspace-configured",
        Spec {
            args: &[
                "--runner",
                "a,b",
                "--exact",
                "cases::workspace::always_fails",
            ],
            config: "run:\n  workspace_root: author/scratch\n",
            env: &[],
        },
    );
    let author = run.dir().join("author");
    let root = recorded_root(&run);
    assert_eq!(
        root.parent(),
        Some(author.join("scratch").as_path()),
        "{}",
        run.context()
    );
    for runner in ["a", "b"] {
        let attempt = run
            .execution_dir("workspace::always_fails", runner)
            .join("repeat-1/attempt-1");
        let cwd = read_json(&attempt.join("workspace.json"))["cwd"].clone();
        assert_eq!(
            cwd,
            root.join(format!(
                "cases.workspace.always_fails+{runner}+repeat-1+attempt-1"
            ))
            .display()
            .to_string()
        );
    }

    let repository = skillgym_e2e::temp_dir("workspace-author");
    std::fs::create_dir_all(repository.path().join(".git")).unwrap();
    let config = format!(
        "run:\n  workspace_root: {}\n",
        repository.path().join("target/ws").display()
    );
    let inside = Run::new(
        "workspace-inside",
        Spec {
            args: &[
                "--runner",
                "a,b",
                "--exact",
                "cases::workspace::always_fails",
            ],
            config: &config,
            env: &[],
        },
    );
    let record = read_json(&inside.run_dir().join("workspace-root.json"));
    let real = std::fs::canonicalize(repository.path()).unwrap();
    assert_eq!(
        record["inside_repository"],
        real.display().to_string(),
        "{}",
        inside.context()
    );
    let warning = format!(
        "skillgym: warning: the workspace root {} is inside the git repository {}",
        recorded_root(&inside).display(),
        real.display()
    );
    assert_eq!(
        inside.stderr().matches(&warning).count(),
        1,
        "said once:\n{}",
        inside.context()
    );
}

/// A `run.workspace_root` that is a file: each attempt fails with origin `workspace`, naming
/// the path and the setting.
fn bad_root() {
    let dir = skillgym_e2e::temp_dir("workspace-bad-root");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let config = format!("run:\n  workspace_root: {}\n", file.display());
    let run = Run::new(
        "workspace-bad",
        Spec {
            args: &["--runner", "a", "--exact", "cases::workspace::records_cwd"],
            config: &config,
            env: &[],
        },
    );
    let result = run.execution("workspace::records_cwd", "a");
    assert_eq!(result["status"], "failed", "{}", run.context());
    assert_eq!(result["failure"]["origin"], "workspace");
    let message = result["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "cannot create the workspace root {} (`run.workspace_root`): ",
            file.display()
        )),
        "{message}"
    );
}

/// Under nextest every trial is its own process: they all put their workspaces in the one
/// root the run's record names.
fn one_root_per_run() {
    let trials: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|runner| format!("[{runner}] cases::workspace::always_fails"))
        .collect();
    let run = Run::per_process("workspace-processes", &trials, Spec::default());
    let root = recorded_root(&run);
    for runner in ["a", "b", "c"] {
        let attempt = run
            .execution_dir("workspace::always_fails", runner)
            .join("repeat-1/attempt-1");
        let workspace = read_json(&attempt.join("workspace.json"));
        let cwd = PathBuf::from(workspace["cwd"].as_str().unwrap());
        assert!(
            cwd.starts_with(&root) && cwd.join("agent-was-here").is_file(),
            "{runner}: {} not in {}\n{}",
            cwd.display(),
            root.display(),
            run.context()
        );
    }
    let base = run.workspace_base();
    assert_eq!(
        names(&base),
        [root.file_name().unwrap().to_string_lossy().into_owned()],
        "one root for the run"
    );
    assert_eq!(
        names(&root),
        [
            ".skillgym-workspace-root",
            "cases.workspace.always_fails+a+repeat-1+attempt-1",
            "cases.workspace.always_fails+b+repeat-1+attempt-1",
            "cases.workspace.always_fails+c+repeat-1+attempt-1",
        ],
        "one directory per attempt's workspace"
    );
}

/// The flags that run `records_cwd` on runner `a`.
const RECORDS_CWD: &[&str] = &["--runner", "a", "--exact", "cases::workspace::records_cwd"];

/// A zero-dependency Rust crate as the template: in an attempt's workspace, `cargo fmt --check`
/// and `cargo build --offline` pass (under the author's Cargo workspace, cargo refuses: "believes
/// it's in a workspace when it's not"; shown with a root inside this repository's workspace).
fn rust_fixture() {
    let staging = skillgym_e2e::temp_dir("workspace-crate");
    let template = staging.path().join("crate");
    std::fs::create_dir_all(template.join("src")).unwrap();
    std::fs::write(
        template.join("Cargo.toml"),
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        template.join("src/lib.rs"),
        "/// The answer.\npub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    let bootstrap =
        r#"cargo="${CARGO:-cargo}"; "$cargo" fmt --check && "$cargo" build --offline --quiet"#;
    let config = |root: &str| {
        format!(
            "run:\n  workspace: {{ mode: isolated, template_dir: {}, bootstrap: {{ command: sh, args: [-c, {}], timeout: 5m }} }}\n{root}",
            template.display(),
            serde_json::to_string(bootstrap).unwrap()
        )
    };
    fn spec(config: &str) -> Spec<'_> {
        Spec {
            args: RECORDS_CWD,
            config,
            env: &[],
        }
    }
    let plain = config("");
    let run = Run::new("workspace-crate", spec(&plain));
    let result = run.execution("workspace::records_cwd", "a");
    let attempt = attempt_dir(&run, "records_cwd", 1, 1);
    let log = |attempt: &Path| {
        std::fs::read_to_string(attempt.join("bootstrap.stderr.log")).unwrap_or_default()
    };
    assert_eq!(
        result["status"],
        "passed",
        "{}\n{}",
        log(&attempt),
        run.context()
    );

    // The same crate under this repository's Cargo workspace (where workspaces used to be).
    let inside = skillgym_e2e::workspace_root().join("target/e2e-tmp");
    let under_cargo = config(&format!("  workspace_root: {}\n", inside.display()));
    let control = Run::new("workspace-crate-inside", spec(&under_cargo));
    let result = control.execution("workspace::records_cwd", "a");
    let attempt = attempt_dir(&control, "records_cwd", 1, 1);
    assert_eq!(
        result["failure"]["origin"],
        "bootstrap",
        "{}",
        control.context()
    );
    assert!(
        log(&attempt).contains("believes it's in a workspace"),
        "{}",
        log(&attempt)
    );
    let kept = recorded_root(&control);
    let _ = std::fs::remove_dir_all(&kept);
}

/// Every file and directory under `dir`, relative, sorted; directories end with `/`.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(dir).unwrap().display().to_string();
            if path.symlink_metadata().unwrap().is_dir() {
                found.push(format!("{relative}/"));
                stack.push(path);
            } else {
                found.push(relative);
            }
        }
    }
    found.sort();
    found
}

/// The layout of one run, exactly: two passed repetitions and a failed attempt. Each attempt
/// directory holds its five files and nothing empty (no `stderr.log`, no `agent-state/`); each
/// isolated workspace is one directory in the run's root. The passed ones are gone (the first
/// served the second as a spare), the failed one is kept with everything its agent wrote and
/// its empty repository, and so are all its files in the run directory.
fn layout() {
    let run = Run::new(
        "workspace-layout",
        Spec {
            args: &[
                "--runner",
                "a",
                "--repeat",
                "2",
                "cases::status::passes",
                "cases::workspace::always_fails",
            ],
            config: "run:\n  workspace: { mode: isolated }\n",
            env: &[],
        },
    );
    let attempt_files = [
        "prompt.md",
        "report.json",
        "result.json",
        "stdout.log",
        "workspace.json",
    ];
    let expected = |repetitions: &[u32], extra: &[&str]| -> Vec<String> {
        let mut expected = vec!["result.json".to_owned()];
        for repetition in repetitions {
            expected.push(format!("repeat-{repetition}/"));
            expected.push(format!("repeat-{repetition}/attempt-1/"));
            for file in attempt_files.iter().chain(extra) {
                expected.push(format!("repeat-{repetition}/attempt-1/{file}"));
            }
        }
        expected.sort();
        expected
    };
    let passed = run.execution_dir("status::passes", "a");
    assert_eq!(tree(&passed), expected(&[1, 2], &[]), "{}", run.context());
    let failed = run.execution_dir("workspace::always_fails", "a");
    // `always_fails` stops at its first failed repetition; its failed check's questions are
    // kept for `cargo skillgym explain`.
    assert_eq!(
        tree(&failed),
        expected(&[1], &["explain.json"]),
        "{}",
        run.context()
    );
    let failed_attempt = failed.join("repeat-1/attempt-1");
    assert!(
        std::fs::read_to_string(failed_attempt.join("stdout.log"))
            .unwrap()
            .contains(r#""text":"no""#),
        "the failed session's output is kept"
    );
    assert_eq!(
        read_json(&failed_attempt.join("result.json"))["status"],
        "failed"
    );

    let root = recorded_root(&run);
    let kept = root.join("cases.workspace.always_fails+a+repeat-1+attempt-1");
    assert_eq!(
        tree(&root),
        [
            ".skillgym-workspace-root",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/.git/",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/.git/HEAD",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/.git/objects/",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/.git/refs/",
            "cases.workspace.always_fails+a+repeat-1+attempt-1/agent-was-here",
        ],
        "one directory per workspace; the passed ones and the spare are gone"
    );
    let workspace = read_json(&failed_attempt.join("workspace.json"));
    assert_eq!(workspace["cwd"], kept.display().to_string());
    assert_eq!(workspace["preserved"], true);
    for repetition in [1, 2] {
        let workspace = read_json(
            &passed
                .join(format!("repeat-{repetition}/attempt-1"))
                .join("workspace.json"),
        );
        assert_eq!(
            workspace["cwd"],
            root.join(format!(
                "cases.status.passes+a+repeat-{repetition}+attempt-1"
            ))
            .display()
            .to_string()
        );
        assert_eq!(workspace["repository"], "created");
        assert_eq!(workspace["preserved"], false);
    }
}
