//! `cargo skillgym init` through the binary: a new crate whose benchmark then passes under a real
//! `cargo test`, a target added to an existing crate and to a workspace, and refusals.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn init(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "init"])
        .args(args)
        .arg("--skillgym-path")
        .arg(repository())
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_new_crate_runs_its_benchmark_with_cargo_test() {
    let scratch = tempfile::tempdir().unwrap();
    let output = init(scratch.path(), &["my-bench"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains("  cd my-bench && cargo test --test benchmarks\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  cargo skillgym doctor\n"), "{stdout}");
    let dir = scratch.path().join("my-bench");
    let manifest = read(&dir.join("Cargo.toml"));
    for line in [
        "name = \"my-bench\"",
        "[[test]]\nname = \"benchmarks\"\nharness = false\ntest = false",
    ] {
        assert!(manifest.contains(line), "{line:?} missing from\n{manifest}");
    }
    assert!(
        !manifest.contains("[profile"),
        "the fast-dependency profile is offered, not imposed: {manifest}"
    );
    for file in [
        "tests/benchmarks.rs",
        "skillgym.yaml",
        "skills/hello/SKILL.md",
        "bin/stand-in-agent",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }

    // The repository's lock file pins the same dependency versions, and a target directory
    // inside the repository's keeps the build warm from one run to the next.
    std::fs::copy(repository().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["test", "--test", "benchmarks"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", repository().join("target/init-check"))
        .env_remove("SKILLGYM_OUTPUT_DIR")
        .env_remove("SKILLGYM_CONFIG")
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains("test [stand-in] greets_with_the_hello_skill ... ok"),
        "{stdout}"
    );
    // The case is honest: without the skill installed, the stand-in agent cannot read it.
    let config = read(&dir.join("skillgym.yaml")).replace("skills: [skills/hello]", "skills: []");
    std::fs::write(dir.join("skillgym.yaml"), config).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["test", "--test", "benchmarks"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", repository().join("target/init-check"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(101), "{}", text(&output.stdout));

    // A plain `cargo test` (so `cargo test --workspace` too) leaves the agent sessions out;
    // nextest runs the target when it is named.
    let output = Command::new(env!("CARGO"))
        .arg("test")
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", repository().join("target/init-check"))
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(!stdout.contains("[stand-in]"), "{stdout}");
    let config = read(&dir.join("skillgym.yaml")).replace("skills: []", "skills: [skills/hello]");
    std::fs::write(dir.join("skillgym.yaml"), config).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["nextest", "run", "--test", "benchmarks"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", repository().join("target/init-check"))
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("[stand-in] greets_with_the_hello_skill"),
        "{stderr}"
    );
}

#[test]
fn an_existing_crate_gets_a_target_and_keeps_its_manifest() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let original = "[package]\nname = \"mine\"\nversion = \"1.2.3\"\nedition = \"2021\"\n\n\
                    [dev-dependencies]\n# pinned on purpose\nskillgym = { path = \"elsewhere\" }\n";
    std::fs::write(dir.join("Cargo.toml"), original).unwrap();
    let output = init(dir, &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("added a benchmarks target to ."));
    let manifest = read(&dir.join("Cargo.toml"));
    assert!(
        manifest.starts_with(&original[..original.len() - 1]),
        "{manifest}"
    );
    assert!(
        manifest.contains("skillgym = { path = \"elsewhere\" }\nskillgym-harness = { path = "),
        "the existing dependency is kept, the missing one added: {manifest}"
    );
    assert!(
        manifest.contains("[[test]]\nname = \"benchmarks\""),
        "{manifest}"
    );

    // Run again: the target exists; nothing is written.
    let before = read(&dir.join("Cargo.toml"));
    let output = init(dir, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("already has a test target named `benchmarks`"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(read(&dir.join("Cargo.toml")), before);
}

#[test]
fn existing_files_stop_init_before_it_writes() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(dir.join("skillgym.yaml"), "runners: {}\n").unwrap();
    let output = init(dir, &["--name", "b"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("already has skillgym.yaml; `init` overwrites nothing"),
        "{stderr}"
    );
    assert!(!dir.join("Cargo.toml").exists(), "nothing written");
    assert_eq!(read(&dir.join("skillgym.yaml")), "runners: {}\n");
}

#[test]
fn a_crate_in_a_workspace_is_a_workspace_of_its_own_unless_told() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    let workspace = "[workspace]\nmembers = [\"app\"]\nresolver = \"3\"\n";
    std::fs::write(root.join("Cargo.toml"), workspace).unwrap();
    let output = init(root, &["benches/agents"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(read(&root.join("Cargo.toml")), workspace, "untouched");
    let member = read(&root.join("benches/agents/Cargo.toml"));
    assert!(member.contains("\n[workspace]\n"), "{member}");
    assert!(!member.contains("[profile"), "{member}");
    assert!(
        stdout.contains("a workspace of its own ([workspace] in its Cargo.toml), not a member of")
            && stdout.contains("`--workspace-member yes` adds it"),
        "{stdout}"
    );
}

#[test]
fn a_crate_in_a_workspace_is_added_to_it_with_the_profile_at_the_root() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"app\"]\nresolver = \"3\"\n",
    )
    .unwrap();
    let output = init(
        root,
        &[
            "benches/agents",
            "--workspace-member",
            "yes",
            "--fast-deps",
            "yes",
        ],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let workspace = read(&root.join("Cargo.toml"));
    assert!(
        workspace.contains("members = [\"app\", \"benches/agents\"]"),
        "{workspace}"
    );
    assert!(
        workspace.contains("[profile.dev.package.\"*\"]\nopt-level = 3"),
        "{workspace}"
    );
    let member = read(&root.join("benches/agents/Cargo.toml"));
    assert!(member.contains("name = \"agents\""), "{member}");
    assert!(
        !member.contains("[profile"),
        "profiles of members are ignored: {member}"
    );
}

#[test]
fn bad_arguments_name_the_flag() {
    let scratch = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "init", "x", "--skillgym-path"])
        .arg(scratch.path())
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--skillgym-path")
            && text(&output.stderr).contains("no skillgym checkout there"),
        "{}",
        text(&output.stderr)
    );
    let output = init(scratch.path(), &["--name", "9lives"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--name `9lives`"),
        "{}",
        text(&output.stderr)
    );
    let output = init(scratch.path(), &["--fast-deps", "maybe"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--fast-deps"),
        "{}",
        text(&output.stderr)
    );
}

/// The `run:` commands of a workflow job's steps, in order.
fn run_steps(job: &serde_json::Value) -> Vec<&str> {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|step| step["run"].as_str())
        .collect()
}

/// `--ci github` writes a workflow at the repository root whose shards run the crate's
/// benchmarks as nextest partitions and whose report step is a `cargo skillgym report` that
/// works: run here over three shard directories, it writes the merged reports.
#[test]
fn ci_github_writes_a_sharded_workflow_whose_report_step_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let output = init(root, &["benches/agents", "--ci", "github"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let path = root.join(".github/workflows/skillgym.yml");
    assert!(stdout.contains("the GitHub Actions workflow:"), "{stdout}");
    let workflow: serde_json::Value = serde_saphyr::from_str(&read(&path)).unwrap();
    let bench = &workflow["jobs"]["bench"];
    assert_eq!(
        bench["strategy"]["matrix"]["shard"],
        serde_json::json!([1, 2, 3])
    );
    assert_eq!(
        bench["defaults"]["run"]["working-directory"],
        "benches/agents"
    );
    let runs = run_steps(bench);
    assert!(
        runs.iter().any(|run| run.starts_with(
            "cargo nextest run --test benchmarks --partition hash:${{ matrix.shard }}/3"
        )),
        "{runs:?}"
    );
    let report = &workflow["jobs"]["report"];
    assert_eq!(report["needs"], "bench");
    let steps = run_steps(report);
    assert!(
        steps[0].starts_with("cargo install --git https://github.com/"),
        "a checkout's crates are not in CI: {steps:?}"
    );
    let command = steps[1];

    // The report step, as the workflow runs it, over three shards' run directories.
    let template = repository().join("examples/agents/recording/answers_in_one_line/codex");
    for shard in 1..=3 {
        let dir = root.join(format!("runs/run-{shard}/case-{shard}/codex"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut result: serde_json::Value =
            serde_json::from_str(&read(&template.join("result.json"))).unwrap();
        result["case_id"] = serde_json::json!(format!("case-{shard}"));
        result["artifact_dir"] = serde_json::json!(dir);
        std::fs::write(dir.join("result.json"), result.to_string()).unwrap();
    }
    let args: Vec<&str> = command
        .strip_prefix("cargo skillgym ")
        .unwrap_or_else(|| panic!("{command}"))
        .split_whitespace()
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .arg("skillgym")
        .args(&args)
        .current_dir(root)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{command}: {}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    for file in [
        "junit.xml",
        "report.html",
        "summary.json",
        "github-actions.txt",
    ] {
        assert!(root.join("merged").join(file).is_file(), "{file}");
    }
    let again = init(root, &["benches/other", "--ci", "github"]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "an existing workflow is not overwritten"
    );
}

/// The README shows the workflow `--ci github` writes for a crate at the repository's root.
#[test]
fn the_book_shows_the_workflow_as_written() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let output = init(root, &["--name", "my-bench", "--ci", "github"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let written = read(&root.join(".github/workflows/skillgym.yml"));
    let readme = read(&repository().join("docs/src/running.md"));
    let label = "```yaml\n# .github/workflows/skillgym.yml\n";
    let start = readme
        .find(label)
        .expect("the Running page shows the workflow")
        + label.len();
    let shown = &readme[start..start + readme[start..].find("```\n").unwrap()];
    assert_eq!(shown, written);
}
