//! Reading judged, composite and field-accuracy graders from suites: shapes and exact errors.

use std::fs;
use std::path::Path;

use crate::grade::spec::{
    Aggregator, FieldMatch, GraderCommand, GraderKind, GraderSpec, JudgePrompt, RubricOperator,
    ScoreRange,
};
use crate::suite::yaml::load::load_suite;
use crate::suite::yaml::model::Loaded;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
}

fn no_env(_: &str) -> Option<String> {
    None
}

/// Loads `EVAL.yaml` (and `files`) from a fresh directory.
fn load(suite: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, Loaded) {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", suite);
    for (rel, text) in files {
        write(t.path(), rel, text);
    }
    let loaded = load_suite(t.path(), &no_env).unwrap_or_else(|e| panic!("{e}"));
    (t, loaded)
}

/// The graders of the first case of a suite whose only case has `assertions`.
fn graders(assertions: &str) -> Vec<GraderSpec> {
    let suite = format!(
        "tests:\n  - id: a\n    input: hi\n    criteria: be right\n    assertions:\n{assertions}"
    );
    load(&suite, &[]).1.suite.cases[0].assertions.clone()
}

/// Every error of `suite` as `line:column: message`.
fn errors(suite: &str) -> Vec<String> {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", suite);
    let err = load_suite(t.path(), &no_env).expect_err("should fail");
    err.errors
        .iter()
        .map(|e| {
            let (_, line, col) = e.location().expect("located");
            format!("{line}:{col}: {}", e.message())
        })
        .collect()
}

/// The errors of one case whose `assertions:` are `assertions` (indented six spaces).
fn case_errors(assertions: &str) -> Vec<String> {
    errors(&format!(
        "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    assertions:\n{assertions}"
    ))
}

#[test]
fn an_llm_grader_prompt_is_inline_or_a_file() {
    let suite = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    assertions:\n      - {name: inline, type: llm-grader, prompt: Check the tone, model: gpt-4}\n      - {name: explicit, type: llm-grader, prompt: 'file://prompts/g.md'}\n      - {name: plain, type: llm_grader, prompt: prompts/g.md, rubrics: [Is polite]}\n";
    let (t, loaded) = load(suite, &[("prompts/g.md", "Grade {{ output }}\n")]);
    let graders = &loaded.suite.cases[0].assertions;
    let prompt = |i: usize| match &graders[i].kind {
        GraderKind::LlmGrader(llm) => (llm.prompt.clone(), llm.items.len()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        prompt(0),
        (Some(JudgePrompt::Inline("Check the tone".into())), 0)
    );
    let file = JudgePrompt::File {
        path: t.path().join("prompts/g.md"),
        text: "Grade {{ output }}\n".into(),
    };
    assert_eq!(prompt(1), (Some(file.clone()), 0));
    assert_eq!(prompt(2), (Some(file), 1));
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(
        loaded.warnings[0].message,
        "6:66: `model` in an assertion is ignored (the judge is `judge:` in skillgym.yaml)"
    );
}

#[test]
fn a_bare_llm_grader_judges_criteria_and_needs_some() {
    let graders = graders("      - {type: llm-grader, name: judged}\n");
    let GraderKind::LlmGrader(llm) = &graders[0].kind else {
        panic!("{:?}", graders[0].kind)
    };
    assert_eq!((&llm.prompt, llm.items.len()), (&None, 0));
    assert!(graders[0].kind.needs_judge());
    // A suite-level bare grader is checked against each case.
    let suite = "assertions: [{type: composite, assertions: [{type: llm-grader}], aggregator: {type: threshold, threshold: 1}}]\ntests:\n  - {id: a, input: hi, criteria: ok}\n  - {id: b, input: hi, assertions: [{type: is-json}]}\n";
    assert_eq!(
        errors(suite),
        [
            "4:5: grader `llm-grader` is an `llm-grader` without `prompt` or `rubrics`: it judges the case's `criteria` or `expected_output`, and this case has neither"
        ]
    );
}

#[test]
fn judge_keys_skillgym_does_not_implement_are_errors() {
    assert_eq!(
        case_errors(
            "      - {type: llm-grader, target: big, temperature: 0, max_steps: 3, preprocessors: [], prompt: {command: [node, p.js]}}\n"
        ),
        [
            "6:36: a judge `target` per grader is not supported by skillgym: the judge is `judge:` in skillgym.yaml",
            "6:54: a judge `temperature` is not supported by skillgym: the judge runner's own settings apply",
            "6:68: a judge `max_steps` (agentv's built-in grader agent) is not supported by skillgym",
            "6:86: `preprocessors` (converting an answer's files to text for the judge) are not supported by skillgym",
            "6:98: a prompt `command` (an executable prompt generator) is not supported by skillgym: write the prompt inline or in a file",
        ]
    );
    assert_eq!(
        case_errors("      - {type: rubrics, criteria: [x], target: big}\n"),
        [
            "6:48: a judge `target` per grader is not supported by skillgym: the judge is `judge:` in skillgym.yaml"
        ]
    );
    let missing = case_errors("      - {type: llm-grader, prompt: 'file://nope.md'}\n");
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].starts_with("6:36: file `nope.md` not found (looked at `"),
        "{missing:?}"
    );
}

#[test]
fn score_ranges_operators_and_gates_are_read() {
    let graders = graders(
        "      - type: rubrics\n        criteria:\n          - id: acc\n            weight: 2\n            min_score: 0.8\n            score_ranges: {0: bad, 4: fair, 8: good}\n          - id: brief\n            outcome: Short\n            required_min_score: 7\n            score_ranges:\n              - {score_range: [0, 5], outcome: long}\n              - {score_range: [6, 10], outcome: short}\n          - {id: fact, outcome: No contradiction, operator: contradiction}\n",
    );
    let GraderKind::Rubrics { items } = &graders[0].kind else {
        panic!("{:?}", graders[0].kind)
    };
    let band = |lo, hi, outcome: &str| ScoreRange {
        lo,
        hi,
        outcome: outcome.into(),
    };
    assert_eq!(
        items[0].score_ranges,
        [band(0, 3, "bad"), band(4, 7, "fair"), band(8, 10, "good")]
    );
    assert_eq!(
        (
            items[0].outcome.as_str(),
            items[0].min_score,
            items[0].required
        ),
        ("", Some(0.8), false)
    );
    assert_eq!(items[1].min_score, Some(0.7));
    assert_eq!(items[1].score_ranges[1], band(6, 10, "short"));
    assert_eq!(items[2].operator, Some(RubricOperator::Contradiction));
    assert!(
        items[2].required,
        "a checklist item stays required by default"
    );
}

#[test]
fn bad_score_ranges_and_rubric_fields_are_errors() {
    assert_eq!(
        case_errors(
            "      - type: rubrics\n        criteria:\n          - {id: a, score_ranges: [{score_range: [0, 5], outcome: x}, {score_range: [5, 10], outcome: y}]}\n          - {id: b, score_ranges: [{score_range: [0, 5], outcome: x}, {score_range: [7, 10], outcome: y}]}\n          - {id: c, score_ranges: {2: x, 6: y}}\n          - {id: d, outcome: x, operator: sameness}\n          - {id: e, outcome: x, required_min_score: 11, score_ranges: {0: x}}\n          - {id: f, outcome: x, min_score: 0.5, required_min_score: 5}\n          - {id: g, score_ranges: [{score_range: [0, 12], outcome: x}]}\n          - {id: h, score_ranges: {0: x, eleven: y}}\n          - {id: i, score_ranges: [{score_range: [6, 2], outcome: x}]}\n"
        ),
        [
            "8:35: score ranges [0, 5] and [5, 10] overlap",
            "9:35: score ranges leave out 6: they must cover every score from 0 to 10",
            "10:35: `score_ranges` must start at 0, found 2",
            "11:43: unknown rubric operator `sameness`, expected `correctness` or `contradiction`",
            "12:53: `required_min_score` must be an integer from 0 to 10, found 11",
            "13:69: `required_min_score` and `min_score` are the same gate, set only one (`min_score`, in (0, 1])",
            "14:54: `score_range` bounds must be integers from 0 to 10, found 12",
            "15:42: `score_ranges` keys must be integers from 0 to 10, found `eleven`",
            "16:50: `score_range` [6, 2] must not end before it starts",
        ]
    );
}

#[test]
fn min_score_on_a_checklist_item_warns() {
    let (_t, loaded) = load(
        "tests:\n  - id: a\n    input: hi\n    rubrics: [{id: a, outcome: x, min_score: 0.5}]\n",
        &[],
    );
    assert_eq!(
        loaded.warnings[0].message,
        "4:46: `min_score` in a rubric item is ignored: it gates only items of a grader with `score_ranges` (a checklist item is satisfied or not)"
    );
}

#[test]
fn a_composite_reads_its_members_and_aggregator() {
    let graders = graders(
        "      - name: gate\n        type: composite\n        evaluators:\n          - {name: polite, type: contains, value: please}\n          - {name: nested, type: composite, assertions: [{type: is-json}], aggregator: {type: threshold, threshold: 0.5}}\n        aggregator: {type: weighted_average, weights: {polite: 3}}\n      - {type: composite, assertions: [{type: is-json}], aggregator: {type: code_grader, path: node agg.js}}\n      - {type: composite, assertions: [{type: is-json}], aggregator: {type: llm-grader, prompt: 'Weigh {{EVALUATOR_RESULTS_JSON}}'}}\n",
    );
    let GraderKind::Composite(gate) = &graders[0].kind else {
        panic!("{:?}", graders[0].kind)
    };
    assert_eq!(gate.members[0].name, "polite");
    assert!(matches!(gate.members[1].kind, GraderKind::Composite(_)));
    assert_eq!(
        gate.aggregator,
        Aggregator::WeightedAverage {
            weights: vec![("polite".into(), 3.0)]
        }
    );
    let GraderKind::Composite(code) = &graders[1].kind else {
        panic!()
    };
    let Aggregator::Command { command, .. } = &code.aggregator else {
        panic!()
    };
    assert_eq!(command, &GraderCommand::Shell("node agg.js".into()));
    let GraderKind::Composite(judged) = &graders[2].kind else {
        panic!()
    };
    assert_eq!(
        judged.aggregator,
        Aggregator::Judge {
            prompt: Some(JudgePrompt::Inline(
                "Weigh {{EVALUATOR_RESULTS_JSON}}".into()
            ))
        }
    );
    assert!(!graders[1].kind.needs_judge() && graders[2].kind.needs_judge());
}

#[test]
fn composite_errors_are_located() {
    assert_eq!(
        case_errors(
            "      - {type: composite, assertions: [{name: a, type: is-json}], aggregator: {type: weighted_average, weights: {b: 1}}}\n      - {type: composite, assertions: [{type: is-json}]}\n      - {type: composite, assertions: [{type: is-json}], aggregator: {type: majority}}\n      - {type: composite, assertions: [], aggregator: {type: threshold, threshold: 2}}\n"
        ),
        [
            "6:114: `weights` names `b`, which is no member of the composite (`a`)",
            "7:9: `composite` needs `aggregator` (`weighted_average`, `threshold`, `code-grader` or `llm-grader`)",
            "8:77: unknown aggregator type `majority`, expected `weighted_average`, `threshold`, `code-grader` or `llm-grader`",
            "9:39: a composite's `assertions` must be a non-empty list of graders, found a list",
        ]
    );
}

#[test]
fn field_accuracy_reads_its_fields() {
    let graders = graders(
        "      - type: field-accuracy\n        aggregation: all_or_nothing\n        fields:\n          - {path: invoice.total, match: numeric_tolerance, tolerance: 0.5, relative: true, weight: 2}\n          - {path: 'items[0].date', match: date, formats: [DD/MM/YYYY], required: false}\n          - {path: id, match: exact}\n",
    );
    let GraderKind::FieldAccuracy(spec) = &graders[0].kind else {
        panic!("{:?}", graders[0].kind)
    };
    assert!(spec.all_or_nothing);
    assert_eq!(
        spec.fields[0].matcher,
        FieldMatch::Numeric {
            tolerance: 0.5,
            relative: true
        }
    );
    assert_eq!(spec.fields[0].weight, 2.0);
    assert_eq!(
        spec.fields[1].matcher,
        FieldMatch::Date {
            formats: vec!["DD/MM/YYYY".into()]
        }
    );
    assert!(!spec.fields[1].required && spec.fields[2].required);
}

#[test]
fn field_accuracy_errors_are_located() {
    assert_eq!(
        case_errors(
            "      - {type: field-accuracy, fields: [{path: a, match: exact, tolerance: 1}, {path: b, match: fuzzy}], aggregation: mean}\n      - {type: field-accuracy}\n      - {type: field-accuracy, fields: []}\n"
        ),
        [
            "6:76: `tolerance` applies only to `match: numeric_tolerance`, not `exact`",
            "6:97: unknown field match `fuzzy`, expected `exact`, `numeric_tolerance` or `date` (fuzzy matching: use a `code-grader`)",
            "6:119: unknown aggregation `mean`, expected `weighted_average` or `all_or_nothing`",
            "7:9: `field-accuracy` needs `fields` (a list of `{path, match}`)",
            "8:40: `fields` must be a non-empty list of fields, found a list",
        ]
    );
}

#[test]
fn malformed_shapes_are_errors() {
    assert_eq!(
        case_errors(
            "      - {type: rubrics, criteria: [{id: a, score_ranges: high}]}\n      - {type: rubrics, criteria: [{id: b, score_ranges: [{score_range: 5, outcome: x}]}]}\n      - {type: composite, aggregator: {type: threshold, threshold: 1}}\n"
        ),
        [
            "6:58: `score_ranges` must be a list of `{score_range: [lo, hi], outcome}` or a map of lower bounds, found a string",
            "7:73: `score_range` must be `[lo, hi]`, found a number",
            "8:9: `composite` needs `assertions` (its member graders)",
        ]
    );
}

#[test]
fn an_unreadable_prompt_file_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    assertions: [{type: llm-grader, prompt: 'file://p.md'}]\n",
    );
    fs::write(t.path().join("p.md"), [0xff, 0xfe, 0x00]).unwrap();
    let err = load_suite(t.path(), &no_env).expect_err("should fail");
    let message = err.errors[0].message();
    assert!(
        message.starts_with("cannot read prompt file `")
            && message.ends_with("p.md`: stream did not contain valid UTF-8"),
        "{message}"
    );
}
