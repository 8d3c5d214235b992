//! Workspace modes: `none` (run in `run.cwd`), `shared` (prepared and bootstrapped once per
//! run), `isolated` (a fresh template copy per attempt, removed when it passes, kept when it
//! fails), a case's own template, and the bootstrap's environment and logs.

use std::path::{Path, PathBuf};

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
    let workspace_dir = run
        .run_dir()
        .join("workspaces/cases.workspace.template_copied/a/repeat-1/attempt-1");
    let workspace = read_json(&attempt.join("workspace.json"));
    assert_eq!(workspace["mode"], "isolated");
    assert_eq!(workspace["cwd"], workspace_dir.display().to_string());
    assert_eq!(workspace["preserved"], false);
    assert_eq!(workspace["bootstrap"]["exit_code"], 0);
    assert!(
        !workspace_dir.exists(),
        "a passed attempt's workspace is removed"
    );
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
        &["--exact", "cases::workspace::kept_then_removed"],
        "{ mode: isolated, template_dir: {template} }",
    );
    let result = run.execution("workspace::kept_then_removed", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    let workspaces = run
        .run_dir()
        .join("workspaces/cases.workspace.kept_then_removed/a/repeat-1");
    let failed = workspaces.join("attempt-1");
    assert!(
        failed.join("agent-was-here").is_file(),
        "the failed attempt's workspace is kept"
    );
    assert!(failed.join(".git/HEAD").is_file());
    assert!(
        !workspaces.join("attempt-2").exists(),
        "the passed retry's is removed"
    );
    let first = read_json(&attempt_dir(&run, "kept_then_removed", 1, 1).join("workspace.json"));
    assert_eq!(first["preserved"], true);
    assert_eq!(first["cwd"], failed.display().to_string());
    let second = read_json(&attempt_dir(&run, "kept_then_removed", 1, 2).join("workspace.json"));
    assert_eq!(second["preserved"], false);
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
            ],
            config: &config,
            ..Spec::default()
        },
    );
    let shared = run.run_dir().join("workspaces/shared");
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
    let setup = run.run_dir().join("workspaces/shared-setup");
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
