//! Experiments: a case under variants (`variants:` in the config, `variants = [...]` on the
//! case): one trial per variant named `[runner/variant] case`, the variants interleaved, each
//! variant's `env` reaching the agent, the `experiment` section of `results.json` and the
//! console's lift table.

use std::sync::OnceLock;

use serde_json::Value;

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "experiment::each_variant_is_a_trial_named_by_it",
        trials_named_by_variant,
    ),
    (
        "experiment::variants_run_interleaved_in_their_own_directories",
        interleaved,
    ),
    (
        "experiment::the_lift_is_in_results_json_with_its_interval",
        lift_in_results,
    ),
    ("experiment::the_console_prints_a_lift_table", lift_table),
    (
        "experiment::stop_when_decided_stops_once_the_lift_s_sign_is_settled",
        decided,
    ),
    (
        "experiment::variant_selects_variants_and_an_unknown_one_is_a_usage_error",
        variant_flag,
    ),
    ("experiment::min_lift_gates_the_treatment", min_lift),
    (
        "experiment::gate_failures_reach_junit_and_github_annotations",
        gates_in_reports,
    ),
    (
        "experiment::a_variant_s_files_are_in_its_workspaces_only",
        variant_files,
    ),
    (
        "experiment::a_git_variant_installs_the_skill_as_committed_at_its_revision",
        git_variant,
    ),
    (
        "experiment::the_run_s_budget_stops_new_sessions_and_says_what_is_undecided",
        budget,
    ),
];

/// Without the skill the stand-in passes 20% of its sessions, with it 90%.
const CONFIG: &str = r#"
variants:
  without: { env: { PASS_RATE: "0.2", EXTRA_TOKENS: "0", FAKE_AGENT_SEED: without } }
  with: { env: { PASS_RATE: "0.9", EXTRA_TOKENS: "1", FAKE_AGENT_SEED: with } }
"#;

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        Run::new(
            "experiment",
            Spec {
                args: &[
                    "--runner",
                    "a",
                    "--reporter",
                    "junit,github-actions",
                    "--skip",
                    "cases::experiment::git_version",
                    "cases::experiment::",
                ],
                config: CONFIG,
                ..Spec::default()
            },
        )
    })
}

fn results(run: &Run) -> Value {
    let text = std::fs::read_to_string(run.run_dir().join("results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn trials_named_by_variant() {
    let run = run();
    let trials = run.trials();
    for variant in ["without", "with"] {
        assert!(
            trials
                .iter()
                .any(|t| t.starts_with(&format!("[a/{variant}] cases::experiment::lift "))),
            "{trials:?}\n{}",
            run.context()
        );
    }
}

/// The variant's executions sit in `<case>/<runner>/<variant>`, and their sessions alternate:
/// the shared counter numbers them in the order they ran.
fn interleaved() {
    let run = run();
    let dir = run.execution_dir("experiment::lift", "a");
    for variant in ["without", "with"] {
        let result: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(variant).join("result.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(result["variant"], variant, "{result:#}");
        assert_eq!(
            result["baseline"].as_bool().unwrap_or(false),
            variant == "without"
        );
        assert_eq!(result["samples"]["sessions"], 30, "{result:#}");
    }
    // With the extra tokens the `with` variant's sessions report 150, the others' 100; the
    // order of the first four sessions' tokens shows the alternation.
    let tokens = |variant: &str, sample: u32| -> u64 {
        let path = dir
            .join(variant)
            .join(format!("repeat-{sample}/attempt-1/result.json"));
        let attempt: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        attempt["usage"]["total_tokens"]["value"]
            .as_u64()
            .unwrap_or(0)
    };
    assert_eq!(tokens("without", 1), 100);
    assert_eq!(
        tokens("with", 1),
        150,
        "the variant's env reached the agent"
    );
    let started = |variant: &str, sample: u32| {
        let path = dir.join(variant).join(format!("repeat-{sample}/attempt-1"));
        std::fs::metadata(path).unwrap().modified().unwrap()
    };
    assert!(started("without", 1) <= started("with", 1));
    assert!(started("with", 1) <= started("without", 2));
    assert!(started("without", 2) <= started("with", 2));
}

fn lift_in_results() {
    let run = run();
    let results = results(run);
    let lifts = results["experiment"]["lifts"].as_array().expect("lifts");
    let row = lifts
        .iter()
        .find(|r| r["case_id"] == "cases::experiment::lift")
        .expect("the lift of the case");
    assert_eq!(row["baseline"]["variant"], "without");
    assert_eq!(row["treatment"]["variant"], "with");
    assert_eq!(row["baseline"]["sessions"], 30);
    let base = row["baseline"]["pass_rate"].as_f64().unwrap();
    let treat = row["treatment"]["pass_rate"].as_f64().unwrap();
    let difference = row["lift"]["difference"].as_f64().unwrap();
    assert!((difference - (treat - base)).abs() < 1e-12, "{row:#}");
    let low = row["lift"]["interval"]["low"].as_f64().unwrap();
    let high = row["lift"]["interval"]["high"].as_f64().unwrap();
    assert!(low < difference && difference < high, "{row:#}");
    // 0.2 against 0.9 over 30 sessions each: far apart.
    assert_eq!(row["lift"]["verdict"], "helps", "{row:#}");
    assert!(row["lift"]["p_value"].as_f64().unwrap() < 0.001, "{row:#}");
    assert_eq!(row["tokens_delta"].as_f64().unwrap(), 50.0, "{row:#}");
    let pooled = &results["experiment"]["runners"][0];
    assert_eq!(pooled["runner_id"], "a", "{pooled:#}");
    assert_eq!(pooled["treatment"], "with");
    assert_eq!(pooled["verdict"], "helps");
}

fn lift_table() {
    let run = run();
    let stdout = run.stdout();
    let line = stdout
        .lines()
        .find(|l| l.contains("cases::experiment::lift ") && l.contains("without "))
        .unwrap_or_else(|| panic!("no lift row:\n{stdout}"));
    assert!(line.contains("helps"), "{line}");
    assert!(line.contains("+50"), "the token delta: {line}");
    assert!(
        stdout.contains("skillgym: a: with vs without over 5 case(s)"),
        "{stdout}"
    );
}

/// 0.2 against 0.9: the sign of the lift is settled long before 200 pairs.
fn decided() {
    let run = run();
    let dir = run.execution_dir("experiment::decided", "a");
    let sessions: Vec<u64> = ["without", "with"]
        .iter()
        .map(|variant| {
            let result: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(variant).join("result.json")).unwrap(),
            )
            .unwrap();
            result["samples"]["sessions"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(sessions[0], sessions[1], "pairs stop together");
    assert!(sessions[0] < 40, "stopped after {} pairs", sessions[0]);
    assert!(sessions[0] >= 5, "a sign needs a few discordant pairs");
}

fn variant_flag() {
    let only = Run::new(
        "experiment-variant",
        Spec {
            args: &[
                "--runner",
                "a",
                "--variant",
                "with",
                "--list",
                "cases::experiment::",
            ],
            config: CONFIG,
            ..Spec::default()
        },
    );
    let listed = only.stdout();
    assert!(
        listed.contains("[a/with] cases::experiment::lift"),
        "{listed}"
    );
    assert!(!listed.contains("[a/without]"), "{listed}");
    let unknown = Run::new(
        "experiment-variant-unknown",
        Spec {
            args: &["--runner", "a", "--variant", "wiht", "--list"],
            config: CONFIG,
            ..Spec::default()
        },
    );
    assert_eq!(unknown.code(), Some(2), "{}", unknown.context());
    let stderr = unknown.stderr();
    assert!(
        stderr.contains("`--variant` names unknown variant `wiht`")
            && stderr.contains("did you mean `with`"),
        "{stderr}"
    );
    // A case naming a variant the run does not declare stops the run when it runs (only).
    let undeclared = Run::new(
        "experiment-undeclared",
        Spec {
            args: &["--runner", "a", "cases::experiment::lift_met"],
            ..Spec::default()
        },
    );
    assert_eq!(undeclared.code(), Some(2), "{}", undeclared.context());
    assert!(
        undeclared
            .stderr()
            .contains("case `cases::experiment::lift_met` (tests/execution/cases.rs:")
            && undeclared.stderr().contains(
                "runs under variant `without`, which is not declared (no variants are declared)"
            ),
        "{}",
        undeclared.stderr()
    );
}

/// `min_lift`: the treatment passes when its lift meets the gate whatever single samples did,
/// fails with origin `lift` below it; the baseline is the measure and passes once it ran.
fn min_lift() {
    let run = run();
    let result = |case: &str, variant: &str| -> Value {
        let dir = run.execution_dir(case, "a").join(variant);
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
    };
    let met = result("experiment::lift_met", "with");
    assert_eq!(met["status"], "passed", "{met:#}");
    assert_eq!(met["min_lift"], 0.3);
    assert!(
        met["samples"]["passed"].as_u64().unwrap() < 20,
        "some sample failed: {met:#}"
    );
    let baseline = result("experiment::lift_met", "without");
    assert_eq!(baseline["status"], "passed", "{baseline:#}");
    let missed = result("experiment::lift_missed", "with");
    assert_eq!(missed["status"], "failed", "{missed:#}");
    assert_eq!(missed["failure"]["origin"], "lift");
    assert_eq!(missed["failure"]["class"]["id"], "lift");
    let message = missed["failure"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("lift +") && message.ends_with("is below min_lift +95%"),
        "{message}"
    );
    assert!(
        run.trials()
            .contains(&"[a/with] cases::experiment::lift_missed FAILED".to_owned()),
        "{:?}",
        run.trials()
    );
}

/// `run.budget`: the run starts no session past 10; the variants, interleaved, got 5 each, and
/// both executions are skipped as undecided with origin `budget`.
fn budget() {
    let config = format!("{CONFIG}run:\n  budget: {{ sessions: 10 }}\n");
    let run = Run::new(
        "experiment-budget",
        Spec {
            args: &["--runner", "a", "--exact", "cases::experiment::lift"],
            config: &config,
            ..Spec::default()
        },
    );
    let dir = run.execution_dir("experiment::lift", "a");
    for variant in ["without", "with"] {
        let result: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(variant).join("result.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(result["status"], "skipped", "{result:#}");
        assert_eq!(result["failure"]["origin"], "budget");
        assert_eq!(result["samples"]["sessions"], 5, "{result:#}");
        let message = result["failure"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "not decided: the run's budget of 10 sessions was reached after 5 of 30 samples ("
            ),
            "{message}"
        );
    }
    let stdout = run.stdout();
    assert!(
        stdout.contains(
            "skillgym: the run's budget of 10 sessions was reached: 2 of 2 executions not decided (skipped, origin budget)"
        ),
        "{stdout}"
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
}

/// A missed lift gate is a failure like any other in JUnit and in GitHub's annotations, named
/// by the trial.
fn gates_in_reports() {
    let run = run();
    let junit = std::fs::read_to_string(run.run_dir().join("junit.xml")).unwrap();
    let case = junit
        .split("<testcase ")
        .find(|c| c.contains("name=\"[a/with] cases::experiment::lift_missed\""))
        .unwrap_or_else(|| panic!("no testcase:\n{junit}"));
    assert!(
        case.contains("<failure") && case.contains("type=\"lift/lift\""),
        "{case}"
    );
    let annotations = std::fs::read_to_string(run.run_dir().join("github-actions.txt")).unwrap();
    let line = annotations
        .lines()
        .find(|l| l.contains("title=[a/with] cases%3A%3Aexperiment%3A%3Alift_missed"))
        .unwrap_or_else(|| panic!("no annotation:\n{annotations}"));
    assert!(
        line.starts_with("::error ") && line.contains("::lift +"),
        "{line}"
    );
    assert!(
        case.contains("20/20 samples passed") || case.contains("samples passed (20 asked for)"),
        "a sampled execution's failure says its samples: {case}"
    );
}

/// A variant's `files` (an instruction file) are copied into its attempts' workspaces, and
/// only its own: the other variant's agent does not find them.
fn variant_files() {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let config =
        format!("variants:\n  without: {{}}\n  with: {{ files: {{ AGENTS.md: {source} }} }}\n");
    let run = Run::new(
        "experiment-files",
        Spec {
            args: &["--runner", "a", "cases::experiment::briefed"],
            config: &config,
            ..Spec::default()
        },
    );
    let dir = run.execution_dir("experiment::briefed", "a");
    let status = |variant: &str| -> Value {
        let text = std::fs::read_to_string(dir.join(variant).join("result.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["status"].clone()
    };
    assert_eq!(status("with"), "passed", "{}", run.context());
    assert_eq!(status("without"), "failed", "{}", run.context());
    let missing = Run::new(
        "experiment-files-missing",
        Spec {
            args: &["--runner", "a", "cases::experiment::briefed"],
            config: "variants:\n  without: {}\n  with: { files: { AGENTS.md: /nonexistent/brief.md } }\n",
            ..Spec::default()
        },
    );
    assert_eq!(missing.code(), Some(2), "{}", missing.context());
    assert!(
        missing
            .stderr()
            .contains("variant `with`: its file /nonexistent/brief.md is not a file"),
        "{}",
        missing.stderr()
    );
}

/// `skills: { git: v1 }`: the skill under test as committed at the tag, written under
/// `<run>/.variants/old/`, beside the working copy's for the other variant.
fn git_variant() {
    let repo = skillgym_e2e::temp_dir("experiment-git");
    let skill = repo.path().join("skills/demo");
    std::fs::create_dir_all(&skill).unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(repo.path())
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    let manifest =
        |description: &str| format!("---\nname: demo\ndescription: {description}\n---\n");
    git(&["init", "-q"]);
    std::fs::write(skill.join("SKILL.md"), manifest("The committed version.")).unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-qm", "v1"]);
    git(&["tag", "v1"]);
    std::fs::write(skill.join("SKILL.md"), manifest("The working copy.")).unwrap();
    let config = format!(
        "run:\n  workspace: {{ mode: isolated }}\n  skills: [{}]\nvariants:\n  now: {{}}\n  old: {{ skills: {{ git: v1 }} }}\n",
        skill.display()
    );
    let run = Run::new(
        "experiment-git-run",
        Spec {
            args: &["--runner", "a", "cases::experiment::git_version"],
            config: &config,
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    let source = |variant: &str| -> String {
        let report = crate::read_json(
            &run.execution_dir("experiment::git_version", "a")
                .join(variant)
                .join("repeat-1/attempt-1/report.json"),
        );
        report["installed_skills"][0]["source"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(source("now"), skill.display().to_string());
    let old = run.run_dir().join(".variants/old/0-demo");
    assert_eq!(source("old"), old.display().to_string());
    let text = std::fs::read_to_string(old.join("SKILL.md")).unwrap();
    assert!(text.contains("The committed version."), "{text}");
}
