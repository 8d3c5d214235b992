//! Skills under test: installed from `run.skills` and a case's `skills` into every attempt's
//! workspace where the agent finds them, listed in the report, named by their frontmatter; a
//! workspace that is not isolated and a bad skill directory are clear errors; what
//! `cargo skillgym lint` finds in them is printed once as a warning.

use super::Check;
use crate::{Run, Spec, read_json};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "skills::installed_from_the_config_and_the_case_in_every_attempt",
        installed,
    ),
    (
        "skills::a_case_with_skills_needs_an_isolated_workspace",
        needs_isolation,
    ),
    (
        "skills::a_bad_configured_skill_stops_the_run_at_its_entry",
        bad_config_skill,
    ),
];

/// A skill directory `src-dir` named `listed` by its frontmatter, under `dir`, with a link to
/// a file it does not have.
fn listed_skill(dir: &std::path::Path) -> std::path::PathBuf {
    let skill = dir.join("src-dir");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: listed\ndescription: A skill listed in run.skills.\n---\nSee [the guide](guide.md).\n",
    )
    .unwrap();
    skill
}

fn installed() {
    let staging = skillgym_e2e::temp_dir("skills-source");
    let listed = listed_skill(staging.path());
    let config = format!(
        "run:\n  workspace: {{ mode: isolated }}\n  skills: [{}]\n",
        listed.display()
    );
    let run = Run::new(
        "skills-installed",
        Spec {
            args: &[
                "--runner",
                "a",
                "--repeat",
                "2",
                "--exact",
                "cases::skills::installed",
            ],
            config: &config,
            ..Spec::default()
        },
    );
    let result = run.execution("skills::installed", "a");
    assert_eq!(result["status"], "passed", "{}", run.context());
    // The path is printed relative to the current directory.
    let warning = "/src-dir/SKILL.md: the link target `guide.md` does not exist (line 5, column 17; `cargo skillgym lint` rule `broken-link`)\n";
    let printed = run.stderr();
    let lines: Vec<&str> = printed
        .lines()
        .filter(|line| line.starts_with("skillgym: warning: "))
        .collect();
    assert_eq!(lines.len(), 1, "{printed}");
    assert!(format!("{}\n", lines[0]).ends_with(warning), "{printed}");
    for repetition in [1, 2] {
        let attempt = run
            .execution_dir("skills::installed", "a")
            .join(format!("repeat-{repetition}/attempt-1"));
        let report = read_json(&attempt.join("report.json"));
        let workspace = std::path::PathBuf::from(
            read_json(&attempt.join("workspace.json"))["cwd"]
                .as_str()
                .unwrap(),
        );
        assert!(workspace.ends_with(format!(
            "cases.skills.installed+a+repeat-{repetition}+attempt-1"
        )));
        let installed: Vec<(String, String, String)> = report["installed_skills"]
            .as_array()
            .unwrap_or_else(|| panic!("no installed_skills: {report:#}"))
            .iter()
            .map(|skill| {
                let text = |key: &str| skill[key].as_str().unwrap().to_owned();
                (text("name"), text("source"), text("path"))
            })
            .collect();
        let case_dir = skillgym_e2e::workspace_root().join("tests/execution/skills/case-dir");
        assert_eq!(
            installed,
            [
                (
                    "listed".to_owned(),
                    listed.display().to_string(),
                    workspace
                        .join(".agents/skills/listed")
                        .display()
                        .to_string()
                ),
                (
                    "case-skill".to_owned(),
                    case_dir.display().to_string(),
                    workspace
                        .join(".agents/skills/case-skill")
                        .display()
                        .to_string()
                ),
            ]
        );
        let detected: Vec<(&str, &str)> = report["detected_skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["skill"].as_str().unwrap(),
                    d["confidence"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(detected, [("listed", "strong"), ("case-skill", "strong")]);
        assert_eq!(report["skill_attempts"][0]["skill"], "ghost", "{report:#}");
        assert_eq!(report["skill_attempts"][0]["error"], "File not found");
    }
    drop(staging);
}

fn needs_isolation() {
    let run = Run::new(
        "skills-not-isolated",
        Spec {
            args: &["--runner", "a", "cases::skills::"],
            config: "run:\n  workspace: { mode: none, cwd: '{dir}/state' }\n",
            ..Spec::default()
        },
    );
    let result = run.execution("skills::installed", "a");
    assert_eq!(result["status"], "failed", "{}", run.context());
    let failure = &result["failure"];
    assert_eq!(failure["origin"], "workspace", "{result:#}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("the case's `skills` lists skills under test")
            && message.contains("with workspace mode `none` the agent runs in")
            && message.contains("help: set `run.workspace: { mode: isolated }`"),
        "{message}"
    );
    assert!(
        !run.dir().join("state/.agents").exists(),
        "nothing was written into the `none` directory"
    );
    assert_eq!(
        run.code(),
        Some(101),
        "a failed trial, not a stopped run: {}",
        run.context()
    );
}

fn bad_config_skill() {
    let run = Run::new(
        "skills-bad-config",
        Spec {
            args: &["--runner", "a", "cases::repeat::all_pass"],
            config: "run:\n  workspace: { mode: isolated }\n  skills:\n    - '{dir}/missing'\n",
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(2), "{}", run.context());
    let context = run.context();
    assert!(
        context.contains("skillgym.yaml:4:7: skill ")
            && context.contains("missing: the skill directory does not exist"),
        "{context}"
    );
}
