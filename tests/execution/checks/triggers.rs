//! Trigger suites: a stand-in agent that loads the skill whose subject the prompt names
//! (`triggers/agent.txt`), a `triggers.yaml` beside a skill under test and another in
//! `triggers.files`, a distractor skill. Each prompt is a trial; every session ends at its
//! first skill load or its third action; the figures are exact; under `min_recall` the
//! prompts that misfired fail and the others pass.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "triggers::each_prompt_is_a_trial_and_sessions_end_at_the_decision",
        trials_and_early_end,
    ),
    (
        "triggers::precision_recall_and_f1_are_exact_with_their_misfires",
        figures,
    ),
    (
        "triggers::under_min_recall_the_prompts_that_did_not_fire_fail",
        gates,
    ),
    ("triggers::the_console_prints_the_trigger_table", console),
    (
        "triggers::agentv_skill_used_cases_count_and_end_at_their_skill",
        agentv,
    ),
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/execution/triggers")
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = fixtures();
        let config = format!(
            r#"
run:
  workspace: {{ mode: isolated }}
  skills: [{skills}/pdf-forms, {skills}/release-notes]
defaults: {{ timeout: 60s }}
triggers:
  files: [{dir}/release-notes.triggers.yaml]
  distractors: [{dir}/distractors/docx-edit]
  samples: 2
runners:
  t: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: "@{dir}/agent.txt" }} }} }}
"#,
            skills = dir.join("skills").display(),
            dir = dir.display(),
            fake = env!("CARGO_BIN_EXE_fake-agent"),
        );
        Run::new(
            "triggers",
            Spec {
                args: &[
                    "--runner",
                    "t",
                    "--reporter",
                    "junit,github-actions,html",
                    "triggers::",
                ],
                config: Box::leak(config.into_boxed_str()),
                ..Spec::default()
            },
        )
    })
}

/// The `result.json` of trigger case `case` on runner `t`.
fn execution(run: &Run, case: &str, runner: &str) -> Value {
    let dir = run.run_dir().join(case.replace("::", ".")).join(runner);
    crate::read_json(&dir.join("result.json"))
}

fn results(run: &Run) -> Value {
    let text = std::fs::read_to_string(run.run_dir().join("results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn trials_and_early_end() {
    let run = run();
    let mut trials = run.trials();
    trials.sort();
    let expected = [
        "[t] triggers::pdf-forms::should-not::1",
        "[t] triggers::pdf-forms::should-not::2",
        "[t] triggers::pdf-forms::should-not::3",
        "[t] triggers::pdf-forms::should::1",
        "[t] triggers::pdf-forms::should::2",
        "[t] triggers::pdf-forms::should::3",
        "[t] triggers::pdf-forms::should::4",
        "[t] triggers::release-notes::should-not::1",
        "[t] triggers::release-notes::should::1",
    ];
    let names: Vec<&str> = trials
        .iter()
        .map(|t| t.trim_end_matches(" ok").trim_end_matches(" FAILED"))
        .collect();
    assert_eq!(names, expected, "{}", run.context());
    // A session that loaded the skill was ended right after the read; one that did not, at
    // its third tool call: the stand-in's last lines never ran.
    let fired = execution(run, "triggers::pdf-forms::should::1", "t");
    let attempt = &fired["repetitions"][0]["attempts"][0];
    assert_eq!(attempt["trigger"]["ended"], "fired", "{fired:#}");
    assert_eq!(
        attempt["trigger"]["fired"],
        serde_json::json!(["pdf-forms"])
    );
    assert!(attempt.get("failure").is_none(), "{attempt:#}");
    let quiet = execution(run, "triggers::pdf-forms::should-not::1", "t");
    let attempt = &quiet["repetitions"][1]["attempts"][0];
    assert_eq!(attempt["trigger"]["ended"], "quiet", "{quiet:#}");
    assert_eq!(attempt["trigger"]["fired"], serde_json::json!([]));
    let dir = PathBuf::from(attempt["artifact_dir"].as_str().unwrap());
    let stdout = std::fs::read_to_string(dir.join("stdout.log")).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(!stdout.contains("not ended early"), "{stdout}");
}

fn figures() {
    let run = run();
    let results = results(run);
    let scores = results["triggers"].as_array().expect("a triggers section");
    let pdf = scores
        .iter()
        .find(|s| s["skill"] == "pdf-forms")
        .expect("pdf-forms");
    let counts = [
        "true_positives",
        "false_negatives",
        "false_positives",
        "true_negatives",
    ]
    .map(|key| pdf[key].as_u64().unwrap());
    assert_eq!(counts, [4, 4, 2, 4], "{pdf:#}");
    assert_eq!(pdf["runner_id"], "t");
    assert_eq!(pdf["prompts"], serde_json::json!([4, 3]));
    assert_eq!(pdf["recall"]["value"], 0.5);
    let low = pdf["recall"]["interval"]["low"].as_f64().unwrap();
    assert!((low - 0.2152).abs() < 1e-3, "Wilson 4/8: {pdf:#}");
    let precision = pdf["precision"]["value"].as_f64().unwrap();
    assert!((precision - 4.0 / 6.0).abs() < 1e-12);
    let f1 = pdf["f1"]["value"].as_f64().unwrap();
    assert!((f1 - 8.0 / 14.0).abs() < 1e-12, "{pdf:#}");
    assert_eq!(pdf["ended_early"], 14);
    let misfires: Vec<(&str, u64, u64)> = pdf["misfires"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["case_id"].as_str().unwrap(),
                m["misfired"].as_u64().unwrap(),
                m["sessions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        misfires,
        [
            ("triggers::pdf-forms::should-not::2", 2, 2),
            ("triggers::pdf-forms::should::3", 2, 2),
            ("triggers::pdf-forms::should::4", 2, 2),
        ],
        "{pdf:#}"
    );
    assert_eq!(pdf["near_misses"], serde_json::json!({"docx-edit": 2}));
    let notes = scores
        .iter()
        .find(|s| s["skill"] == "release-notes")
        .expect("release-notes, from triggers.files");
    assert_eq!(notes["recall"]["value"], 1.0);
    assert_eq!(
        notes["true_negatives"], 2,
        "the pdf prompt fired pdf-forms only"
    );
}

fn gates() {
    let run = run();
    for (case, passed) in [
        ("triggers::pdf-forms::should::1", true),
        ("triggers::pdf-forms::should::3", false),
        ("triggers::pdf-forms::should::4", false),
        // Its misfires are forgiven: precision 4/6 meets min_precision 0.5.
        ("triggers::pdf-forms::should-not::2", true),
        ("triggers::release-notes::should::1", true),
    ] {
        let result = execution(run, case, "t");
        assert_eq!(result["passed"], passed, "{case}: {result:#}");
    }
    let failed = execution(run, "triggers::pdf-forms::should::3", "t");
    assert_eq!(failed["failure"]["origin"], "trigger");
    assert_eq!(
        failed["failure"]["message"],
        "recall 50% (4/8 sessions, 95% CI 21.5% to 78.5%) of skill `pdf-forms` is below min_recall 60%: this prompt did not fire it in 2 of 2 sessions"
    );
    assert_ne!(run.code(), Some(0), "{}", run.context());
    let junit = std::fs::read_to_string(run.run_dir().join("junit.xml")).unwrap();
    let case = junit
        .split("<testcase ")
        .find(|c| c.contains("name=\"[t] triggers::pdf-forms::should::3\""))
        .unwrap_or_else(|| panic!("no testcase:\n{junit}"));
    assert!(
        case.contains("<failure") && case.contains("type=\"trigger/trigger\""),
        "{case}"
    );
    let annotations = std::fs::read_to_string(run.run_dir().join("github-actions.txt")).unwrap();
    assert!(
        annotations
            .lines()
            .any(|l| l.starts_with("::error ") && l.contains("min_recall 60%")),
        "{annotations}"
    );
    let html = std::fs::read_to_string(run.run_dir().join("report.html")).unwrap();
    let section = &html[html
        .find("<section id=\"triggers\">")
        .expect("a triggers section")..];
    assert!(
        section.contains("50% [22%, 78%] <span class=\"badge s-failed\">below 60%</span>")
            && section.contains("href=\"#exec:triggers.pdf-forms.should.4:t\""),
        "{}",
        &section[..section.len().min(3000)]
    );
}

fn console() {
    let run = run();
    let stdout = run.stdout();
    assert!(
        stdout.contains("skillgym: triggers (sessions; 95% Wilson intervals"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|l| l.contains("pdf-forms") && l.contains(" t "))
        .unwrap_or_else(|| panic!("{stdout}"));
    for part in ["4/8", "4/6", "50% [22%, 78%] < 60%", "67% [30%, 90%]"] {
        assert!(row.contains(part), "{part} in {row}");
    }
    assert!(
        stdout.contains("skillgym:   pdf-forms on t: triggers::pdf-forms::should::4 did not fire in 2 of 2 sessions (fired instead: docx-edit x2): \"Turn this document into a fillable form.\""),
        "{stdout}"
    );
}

/// agentv's `skill-used` / `not-skill-used` cases count in the skill's figures; a session
/// ends when its skill loads, never as quiet (the stand-in's four tool calls first).
fn agentv() {
    let dir = fixtures();
    let config = format!(
        r#"
run:
  workspace: {{ mode: isolated }}
  skills: [{skills}/pdf-forms]
suites: [{dir}/agentv/EVAL.yaml]
runners:
  t: {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: "@{dir}/agent-whole.txt" }} }} }}
"#,
        skills = dir.join("skills").display(),
        dir = dir.display(),
        fake = env!("CARGO_BIN_EXE_fake-agent"),
    );
    let run = Run::new(
        "triggers-agentv",
        Spec {
            args: &["--runner", "t", "agentv-triggers::"],
            config: &config,
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    let results = results(&run);
    let pdf = &results["triggers"][0];
    assert_eq!(pdf["skill"], "pdf-forms", "{results:#}");
    assert_eq!(
        (
            pdf["true_positives"].as_u64(),
            pdf["true_negatives"].as_u64()
        ),
        (Some(1), Some(1)),
        "{pdf:#}"
    );
    assert_eq!(pdf["ended_early"], 1, "the load ended one session: {pdf:#}");
    let fill = execution(&run, "agentv-triggers::fill", "t");
    let attempt = &fill["repetitions"][0]["attempts"][0];
    assert_eq!(attempt["trigger"]["ended"], "fired", "{fill:#}");
    let rename = execution(&run, "agentv-triggers::rename", "t");
    let attempt = &rename["repetitions"][0]["attempts"][0];
    assert_eq!(attempt["trigger"]["ended"], "finished", "{rename:#}");
}
