//! Loader tests: discovery, schema, aliases, merging, and exact error texts.

use std::fs;
use std::path::{Path, PathBuf};

use super::model::DEFAULT_THRESHOLD;
use super::*;
use crate::grade::spec::{GraderCommand, GraderKind};

pub(super) fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn env(name: &str) -> Option<String> {
    match name {
        "TARGET" => Some("claude".to_owned()),
        "STRICT" => Some("true".to_owned()),
        _ => None,
    }
}

pub(super) fn load(root: &Path) -> Loaded {
    match load_suite(root, &env) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    }
}

/// Every error as `file:line:column: message [help]`, file relative to `root`.
pub(super) fn errors(root: &Path) -> Vec<String> {
    let err = load_suite(root, &env).expect_err("should fail");
    err.errors
        .iter()
        .map(|e| {
            let (file, line, col) = e.location().expect("located");
            let rel = file.strip_prefix(root).unwrap().display().to_string();
            match e.help() {
                Some(h) => format!("{rel}:{line}:{col}: {} [{h}]", e.message()),
                None => format!("{rel}:{line}:{col}: {}", e.message()),
            }
        })
        .collect()
}

const SUITE: &str = "name: demo\nassertions:\n  - Response is polite\ntests: ./cases/\n";

#[test]
fn discovery_orders_by_bytes_and_warns_about_skipped_dirs() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(root, "EVAL.yaml", SUITE);
    for name in ["b", "a", "Z", "10", "9"] {
        write(root, &format!("cases/{name}/case.yaml"), "input: hi\n");
    }
    write(root, "cases/yml/case.yml", "input: hi\n");
    fs::create_dir_all(root.join("cases/empty")).unwrap();
    write(root, "cases/file.txt", "not a case");
    let loaded = load(root);
    let ids: Vec<&str> = loaded.suite.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["10", "9", "Z", "a", "b", "yml"]);
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(
        loaded.warnings[0].message,
        "skipping directory `empty`: no case.yaml found"
    );
    assert_eq!(loaded.suite.name, "demo");
    assert_eq!(loaded.suite.cases[3].dir, root.join("cases/a"));
}

#[cfg(unix)]
#[test]
fn symlinks_are_followed_only_inside_the_suite_root() {
    let t = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = t.path();
    write(root, "EVAL.yaml", SUITE);
    write(root, "shared/inside/case.yaml", "input: in\n");
    write(outside.path(), "out/case.yaml", "input: out\n");
    fs::create_dir_all(root.join("cases")).unwrap();
    std::os::unix::fs::symlink(root.join("shared/inside"), root.join("cases/linked")).unwrap();
    let ids =
        |loaded: Loaded| -> Vec<String> { loaded.suite.cases.into_iter().map(|c| c.id).collect() };
    assert_eq!(ids(load(root)), ["linked"]);
    std::os::unix::fs::symlink(outside.path().join("out"), root.join("cases/escaped")).unwrap();
    let errors = load_suite(root, &env).unwrap_err().errors;
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [format!(
            "`{}` is a symlink to `{}`, outside the suite directory `{}`: skillgym follows no symlink out of a suite\n  help: {}",
            root.join("cases/escaped").display(),
            outside.path().join("out").display(),
            root.display(),
            super::links::Escape::HELP
        )]
    );
}

/// Every error's message and help of the suite at `root`, in order (located or not).
#[cfg(unix)]
fn messages(root: &Path) -> Vec<String> {
    let errors = load_suite(root, &env).expect_err("should fail").errors;
    errors
        .iter()
        .map(|e| match e.location() {
            Some((file, line, column)) => format!(
                "{}:{line}:{column}: {}",
                file.strip_prefix(root).unwrap().display(),
                e.message()
            ),
            None => e.message().to_owned(),
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn no_symlink_leads_a_suite_out_of_its_directory_and_no_content_behind_one_is_shown() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("suite");
    let outside = t.path().join("outside");
    // What the links point at: a file whose first line would show in a parse error's snippet.
    write(&outside, "secret.yaml", "password: hunter2 [\n");
    write(&outside, "template/id_rsa", "PRIVATE KEY\n");
    write(
        &outside,
        "cases.jsonl",
        "{\"id\": \"x\", \"input\": \"hunter2\", \"criteria\": \"ok\"}\n",
    );
    write(
        &root,
        "EVAL.yaml",
        "tests:\n  - ./cases/\n  - linked-cases.jsonl\n  - id: inline\n    input: hi\n    criteria: ok\n    input_files: [notes.md]\n    workspace: {template: ./tpl}\n",
    );
    write(&root, "cases/a/case.yaml", "input: hi\ncriteria: ok\n");
    write(&root, "cases/b/placeholder", "");
    symlink(outside.join("secret.yaml"), root.join("cases/b/case.yaml")).unwrap();
    symlink(outside.join("template"), root.join("cases/a/workspace")).unwrap();
    symlink(outside.join("cases.jsonl"), root.join("linked-cases.jsonl")).unwrap();
    symlink(outside.join("secret.yaml"), root.join("notes.md")).unwrap();
    symlink(outside.join("template"), root.join("tpl")).unwrap();
    let link = |name: &str, to: &str| {
        format!(
            "`{}` is a symlink to `{}`, outside the suite directory `{}`: skillgym follows no symlink out of a suite",
            root.join(name).display(),
            outside.join(to).display(),
            root.display()
        )
    };
    let found = messages(&root);
    assert_eq!(
        found,
        [
            format!(
                "EVAL.yaml:3:5: {}",
                link("linked-cases.jsonl", "cases.jsonl")
            ),
            format!("EVAL.yaml:7:19: {}", link("notes.md", "secret.yaml")),
            format!("EVAL.yaml:8:27: {}", link("tpl", "template")),
            link("cases/a/workspace", "template"),
            link("cases/b/case.yaml", "secret.yaml"),
        ],
    );
    assert!(!found.concat().contains("hunter2") && !found.concat().contains("PRIVATE"));

    // The suite file itself.
    let other = t.path().join("other");
    fs::create_dir_all(&other).unwrap();
    symlink(outside.join("secret.yaml"), other.join("EVAL.yaml")).unwrap();
    assert_eq!(
        messages(&other),
        [format!(
            "`{}` is a symlink to `{}`, outside the suite directory `{}`: skillgym follows no symlink out of a suite",
            other.join("EVAL.yaml").display(),
            outside.join("secret.yaml").display(),
            other.display()
        )]
    );

    // Paths written outside the suite are used as written.
    let plain = t.path().join("plain");
    write(
        &plain,
        "EVAL.yaml",
        "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    workspace: ../outside/template\n",
    );
    assert_eq!(
        load(&plain).suite.cases[0].workspace.template,
        Some(plain.join("../outside/template"))
    );
}

#[test]
fn workspace_dir_paths_and_resolution_order() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(
        root,
        "EVAL.yaml",
        "workspace: {template: ./base}\nassertions: [ok]\ntests: ./cases/\n",
    );
    fs::create_dir_all(root.join("base")).unwrap();
    write(root, "prompt.md", "suite copy");
    write(root, "shared.md", "suite only");
    write(root, "cases/a/prompt.md", "case copy");
    fs::create_dir_all(root.join("cases/a/workspace")).unwrap();
    write(
        root,
        "cases/a/case.yaml",
        "input: hi\ninput_files: [prompt.md, shared.md]\n",
    );
    write(root, "cases/b/case.yaml", "input: hi\n");
    let cases = load(root).suite.cases;
    assert_eq!(
        cases[0].input_files,
        [root.join("cases/a/prompt.md"), root.join("shared.md")]
    );
    assert_eq!(
        cases[0].workspace.template,
        Some(root.join("cases/a/workspace"))
    );
    assert_eq!(cases[1].workspace.template, Some(root.join("base")));
}

#[test]
fn inline_yaml_and_jsonl_tests() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(
        root,
        "inline.eval.yaml",
        "tests:\n  - id: one\n    input: hi\n    criteria: says hi\n  - file://more.yaml\n  - more.jsonl\n",
    );
    write(
        root,
        "more.yaml",
        "- id: two\n  input: [{role: user, content: hello}]\n  expected_output: hello\n",
    );
    write(
        root,
        "more.jsonl",
        "{\"id\": \"three\", \"input\": \"x\", \"criteria\": \"y\"}\n\n{\"id\": \"four\", \"input\": \"x\", \"criteria\": \"y\"}\n",
    );
    let suite = load(root).suite;
    assert_eq!(suite.name, "inline");
    let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["one", "two", "three", "four"]);
    assert_eq!(
        suite.cases[1].expected_output,
        [Message {
            role: Role::Assistant,
            content: Content::Text("hello".to_owned())
        }]
    );
}

#[test]
fn graders_aliases_defaults_and_metadata_merge() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(
        root,
        "EVAL.yaml",
        "input: [{role: system, content: be brief}]\nmetadata: {team: a, labels: [x, y], nested: {k: 1, j: 2}}\ntags: [suite]\nexecution: {targets: [claude, {name: codex, use_target: '${{ TARGET }}'}], threshold: 0.6}\nassert:\n  - Suite rubric\n  - {type: is_json}\ntests: ./cases/\n",
    );
    write(
        root,
        "cases/a/case.yaml",
        "input: fix it\nexpected_outcome: fixed\nassertions:\n  - type: contains\n    value: done\n  - first rubric\n  - {type: code_grader, command: [bun, test], extra: 1, config: {extra: 2}, timeout: 30s}\n  - second rubric\n  - {type: not-contains, value: error, required: 0.5, weight: 2}\n  - {type: execution_metrics, maxToolCalls: 20}\n  - {type: skill-used, value: find-skills}\n  - {type: tool-trajectory, mode: any_order, minimums: {Read: 2}}\nmetadata: {team: b, labels: [y, z], nested: {k: 9}}\ntags: [mine]\nretry_failed: 2\ntimeout: 5m\nexecution: {targets: [codex]}\n",
    );
    write(
        root,
        "cases/b/case.yaml",
        "input: x\nexecution: {skip_defaults: true, threshold: 1}\nassertions: [{type: regex, value: '^ok', flags: i}]\n",
    );
    let suite = load(root).suite;
    let a = &suite.cases[0];
    let names: Vec<&str> = a.assertions.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "contains-done",
            "rubrics",
            "code-grader",
            "contains-error",
            "execution-metrics",
            "skill-trigger-find-skills",
            "tool-trajectory",
            "rubrics",
            "is-json"
        ]
    );
    assert_eq!(a.assertions[1].weight, 2.0);
    let GraderKind::Rubrics { items } = &a.assertions[1].kind else {
        panic!()
    };
    assert_eq!(items[1].id, "rubric-2");
    assert_eq!(items[1].outcome, "second rubric");
    let GraderKind::CodeGrader(cg) = &a.assertions[2].kind else {
        panic!()
    };
    assert_eq!(
        cg.command,
        GraderCommand::Argv(vec!["bun".into(), "test".into()])
    );
    assert_eq!(cg.config, serde_json::json!({"extra": 2}));
    assert_eq!(cg.timeout, Some(std::time::Duration::from_secs(30)));
    let neg = &a.assertions[3];
    assert!(neg.negate && neg.required);
    assert_eq!((neg.min_score, neg.weight), (Some(0.5), 2.0));
    assert_eq!(a.criteria.as_deref(), Some("fixed"));
    assert_eq!(
        a.metadata,
        serde_json::json!({"team": "b", "labels": ["x", "y", "z"], "nested": {"k": 9, "j": 2}})
    );
    assert_eq!(a.tags, ["suite", "mine"]);
    assert_eq!(a.repeat_failure, Some(2));
    assert_eq!(a.timeout, Some(std::time::Duration::from_secs(300)));
    assert_eq!(a.threshold, 0.6);
    assert_eq!(a.input.len(), 2);
    assert_eq!(suite.targets[1].use_target.as_deref(), Some("claude"));
    let b = &suite.cases[1];
    assert_eq!(b.assertions.len(), 1, "skip_defaults drops the suite's");
    assert_eq!(b.input.len(), 1, "skip_defaults drops the suite's input");
    assert_eq!(b.threshold, 1.0);
}

#[test]
fn default_threshold_and_suite_name_from_file() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    write(
        root,
        "smoke.eval.yaml",
        "tests: [{id: a, input: hi, criteria: ok}]\n",
    );
    let suite = load(root).suite;
    assert_eq!(suite.name, "smoke");
    assert_eq!(suite.cases[0].threshold, DEFAULT_THRESHOLD);
}

/// One malformed suite: file contents and the exact errors.
fn check(files: &[(&str, &str)], expected: &[&str]) {
    let t = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        write(t.path(), rel, text);
    }
    assert_eq!(errors(t.path()), expected);
}

#[test]
fn error_unknown_key_with_suggestion() {
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            ("cases/a/case.yaml", "inptu: hi\ncriteria: ok\n"),
        ],
        &[
            "cases/a/case.yaml:1:1: a case is missing `input`",
            "cases/a/case.yaml:1:1: unknown field `inptu` in a case [did you mean `input`?]",
        ],
    );
}

#[test]
fn error_wrong_type() {
    check(
        &[(
            "EVAL.yaml",
            "tags: smoke\ntests: [{id: a, input: hi, criteria: ok}]\n",
        )],
        &["EVAL.yaml:1:7: `tags` must be a list of strings, found a string"],
    );
}

#[test]
fn error_contains_without_value() {
    check(
        &[(
            "EVAL.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions:\n      - type: contains\n",
        )],
        &["EVAL.yaml:5:9: `contains` needs a non-empty string `value`"],
    );
}

#[test]
fn error_bad_regex() {
    check(
        &[(
            "EVAL.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions: [{type: regex, value: 'a(b'}]\n",
        )],
        &["EVAL.yaml:4:39: invalid regex `a(b`: unclosed group"],
    );
}

#[test]
fn error_unknown_grader_type() {
    check(
        &[(
            "EVAL.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions: [{type: contians, value: x}]\n",
        )],
        &[
            "EVAL.yaml:4:25: unknown grader type `contians` [did you mean `contains`? (skillgym runs no custom graders)]",
        ],
    );
}

#[test]
fn error_negative_weight() {
    check(
        &[(
            "EVAL.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions: [{type: is-json, weight: -1}]\n",
        )],
        &["EVAL.yaml:4:42: `weight` must be >= 0, found -1"],
    );
}

#[test]
fn error_required_above_one() {
    check(
        &[(
            "EVAL.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions: [{type: is-json, required: 1.5}]\n",
        )],
        &["EVAL.yaml:4:44: `required` must be `true`, `false` or a number in (0, 1], found 1.5"],
    );
}

#[test]
fn error_missing_tests() {
    check(
        &[("EVAL.yaml", "name: demo\n")],
        &["EVAL.yaml:1:1: a suite is missing `tests`"],
    );
}

#[test]
fn error_missing_input() {
    check(
        &[
            ("EVAL.yaml", "tests: ./cases\n"),
            ("cases/a/case.yaml", "criteria: ok\n"),
        ],
        &["cases/a/case.yaml:1:1: a case is missing `input`"],
    );
}

#[test]
fn error_several_in_one_case_yaml() {
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/a/case.yaml",
                "input: hi\nassertions:\n  - {type: contains}\n  - {type: latency, threshold: -5}\n  - {type: is-json, min_score: 0}\nrepeat: zero\n",
            ),
        ],
        &[
            "cases/a/case.yaml:3:5: `contains` needs a non-empty string `value`",
            "cases/a/case.yaml:4:32: `threshold` must be an integer >= 0, found -5",
            "cases/a/case.yaml:5:32: `min_score` must be in (0, 1], found 0",
            "cases/a/case.yaml:6:9: `repeat` must be an integer >= 1, found a string",
        ],
    );
}

#[test]
fn error_two_bad_case_files_are_both_reported() {
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/a/case.yaml",
                "input: hi\nassertions: [{type: equals, value: ''}]\n",
            ),
            ("cases/b/case.yaml", "input: [1]\ncriteria: ok\n"),
        ],
        &[
            "cases/a/case.yaml:2:36: `value` must not be empty",
            "cases/b/case.yaml:1:8: `input` must be a string, a message or a list of messages, found a list",
        ],
    );
}

#[test]
fn error_duplicate_ids_and_unknown_target() {
    check(
        &[(
            "EVAL.yaml",
            "execution: {targets: [claude]}\ntests:\n  - {id: a, input: hi, criteria: ok}\n  - {id: a, input: hi, criteria: ok, execution: {targets: [codx]}}\n",
        )],
        &[
            "EVAL.yaml:4:10: duplicate case id `a`",
            "EVAL.yaml:4:59: target `codx` is not one of the suite's `execution.targets`",
        ],
    );
}

#[test]
fn multi_error_display_lists_every_error() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", "tests: ./cases/\n");
    write(t.path(), "cases/a/case.yaml", "input: 1\ncriteria: ok\n");
    write(t.path(), "cases/b/case.yaml", "input: hi\n");
    let text = load_suite(t.path(), &env).unwrap_err().to_string();
    assert!(text.contains("cases/a/case.yaml:1:8:"), "{text}");
    assert!(
        text.contains("cases/b/case.yaml:1:1: a case needs at least one of"),
        "{text}"
    );
    assert!(text.ends_with("2 errors in the suite"), "{text}");
}

#[test]
fn error_what_every_attempt_having_its_own_workspace_rules_out() {
    check(
        &[
            (
                "EVAL.yaml",
                "workspace:\n  isolation: shared\n  hooks:\n    after_each: { command: [x], reset: often }\ntests: ./cases/\n",
            ),
            (
                "cases/a/case.yaml",
                "input: hi\ncriteria: ok\nworkspace:\n  hooks:\n    before_all: { command: [x] }\n",
            ),
        ],
        &[
            "EVAL.yaml:2:14: `isolation: shared` is not supported: skillgym gives every attempt its own copy of the template, so attempts never see each other's changes [remove `isolation`, or write `isolation: per_test`]",
            "EVAL.yaml:4:40: `reset` must be `none`, `fast` or `strict`",
            "cases/a/case.yaml:5:17: `before_all` runs once for the whole suite: a case cannot have one [move it to the suite's `workspace.hooks`]",
        ],
    );
}

#[test]
fn agentv_execution_keys_become_workers_samples_and_targets() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "execution:\n  workers: 2\n  trials: { count: 3, strategy: pass_at_k, cost_limit_usd: 1.5 }\n\
         workspace:\n  hooks:\n    after_each: { reset: fast }\n    before_each: { command: [setup], reset: strict }\n\
         tests:\n\
         - { id: sampled, input: hi, criteria: ok, execution: { target: llm } }\n\
         - { id: own-gate, input: hi, criteria: ok, min_pass_rate: 0.5 }\n\
         - { id: repeated, input: hi, criteria: ok, repeat: 2 }\n",
    );
    let suite = load(t.path()).suite;
    assert_eq!(suite.workers, Some(2));
    assert_eq!(suite.cost_limit_usd, Some(1.5));
    let hooks = &suite.workspace.hooks;
    assert!(
        hooks.after_each.is_none(),
        "a hook that only resets runs nothing"
    );
    assert!(
        hooks.before_each.is_some(),
        "reset beside a command keeps the command"
    );
    let [sampled, own_gate, repeated] = &suite.cases[..] else {
        panic!("three cases")
    };
    assert_eq!(
        (sampled.samples, sampled.min_pass_rate),
        (Some(3), Some(1.0 / 3.0))
    );
    assert_eq!(sampled.targets, ["llm"], "a case's `target`");
    assert_eq!(
        (own_gate.samples, own_gate.min_pass_rate),
        (Some(3), Some(0.5))
    );
    assert_eq!(
        (repeated.samples, repeated.repeat),
        (None, Some(2)),
        "a repeating case keeps repeating"
    );
}

#[test]
fn error_trials_agentv_scores_by_mean() {
    check(
        &[(
            "EVAL.yaml",
            "execution:\n  trials: { count: 3, strategy: mean }\ntests: [{id: a, input: hi, criteria: ok, execution: { target: x, targets: [y] }}]\n",
        )],
        &[
            "EVAL.yaml:2:33: `strategy: mean` is not supported: it scores the mean of the trials' scores, and skillgym gates the pass rate of samples [write `strategy: pass_at_k`, or give the cases `samples:` and `min_pass_rate:`]",
            "EVAL.yaml:3:63: `target` and `targets` both name the case's targets: keep one of them",
        ],
    );
    check(
        &[(
            "EVAL.yaml",
            "execution:\n  trials: { strategy: pass_at_k }\ntests: [{id: a, input: hi, criteria: ok}]\n",
        )],
        &["EVAL.yaml:2:11: `execution.trials` is missing `count`"],
    );
}

#[test]
fn keys_agentv_ignores_warn_once_with_their_place() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "defaults:\n  grader: &g { type: contains, value: x }\n\
         tests:\n\
         - id: a\n  input: hi\n  assertions:\n    - { id: first, type: contains, value: x }\n\
         - id: b\n  input: hi\n  assertions:\n    - { id: second, type: contains, value: y }\n",
    );
    let loaded = load(t.path());
    let said: Vec<&str> = loaded.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        said,
        [
            "1:1: `defaults` in a suite is ignored (a place for YAML anchors; agentv reads nothing from it)",
            "7:9: `id` in an assertion is ignored (agentv names a grader by its `name`)",
        ],
        "the second assertion's `id` is not named again"
    );
    assert_eq!(loaded.suite.cases.len(), 2);
}

#[test]
fn a_file_named_eval_yaml_takes_its_directory_name() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("my-bench");
    write(
        &root,
        "EVAL.yaml",
        "tests: [{id: a, input: hi, criteria: ok}]\n",
    );
    assert_eq!(load(&root).suite.name, "my-bench");
    write(
        &root,
        "EVAL.yaml",
        "name: named\ntests: [{id: a, input: hi, criteria: ok}]\n",
    );
    assert_eq!(load(&root).suite.name, "named");
}

#[test]
fn error_ids_that_cannot_name_a_trial() {
    check(
        &[
            (
                "EVAL.yaml",
                "tests:\n  - {id: \"a\\nb\", input: hi, criteria: ok}\n  - {id: \"c\\e[31md\", input: hi, criteria: ok}\n  - cases.jsonl\n",
            ),
            (
                "cases.jsonl",
                "{\"id\": \"fine\", \"input\": \"hi\", \"criteria\": \"ok\"}\n{\"id\": \"n\\u0000ul\", \"input\": \"hi\", \"criteria\": \"ok\"}\n",
            ),
        ],
        &[
            "EVAL.yaml:2:10: `id` `a\\nb` holds a newline (U+000A): it names a trial, and a trial's name must fit on one line of `--list` (test runners such as cargo-nextest read one name a line) and print as written [write it without, e.g. `id: a-b`]",
            "EVAL.yaml:3:10: `id` `c\\u{1b}[31md` holds an escape character (U+001B): it names a trial, and a trial's name must fit on one line of `--list` (test runners such as cargo-nextest read one name a line) and print as written [write it without, e.g. `id: c-[31md`]",
            "cases.jsonl:2:8: `id` `n\\0ul` holds a NUL (U+0000): it names a trial, and a trial's name must fit on one line of `--list` (test runners such as cargo-nextest read one name a line) and print as written [write it without, e.g. `id: n-ul`]",
        ],
    );
}

#[cfg(unix)]
#[test]
fn error_case_directories_and_suite_directories_that_cannot_name_a_trial() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("bench");
    write(&root, "EVAL.yaml", "tests: ./cases/\n");
    write(&root, "cases/good/case.yaml", "input: hi\ncriteria: ok\n");
    write(
        &root,
        "cases/line\nbreak/case.yaml",
        "id: fine\ninput: hi\ncriteria: ok\n",
    );
    let errors = load_suite(&root, &env).unwrap_err().errors;
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let dir = root.join("cases").display().to_string();
    assert_eq!(
        texts,
        [format!(
            "case directory `{dir}/line\\nbreak` holds a newline (U+000A): it names a trial, and a trial's name must fit on one line of `--list` (test runners such as cargo-nextest read one name a line) and print as written\n  help: rename it, e.g. to `line-break`"
        )]
    );

    let odd = t.path().join("odd\u{1b}[2Jdir");
    write(
        &odd,
        "EVAL.yaml",
        "tests: [{id: a, input: hi, criteria: ok}]\n",
    );
    let text = load_suite(&odd, &env).unwrap_err().to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(
        text.contains("odd\\u{1b}[2Jdir/EVAL.yaml` holds an escape character (U+001B)")
            && text.contains("help: give the suite a `name:`"),
        "{text}"
    );
    write(
        &odd,
        "EVAL.yaml",
        "name: odd\ntests: [{id: a, input: hi, criteria: ok}]\n",
    );
    assert_eq!(load(&odd).suite.name, "odd");
}

#[test]
fn a_case_is_sampled_or_repeated_never_both() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", "tests: ./cases/\n");
    write(
        t.path(),
        "cases/a/case.yaml",
        "input: hi\ncriteria: ok\nsamples: 12\nmin_pass_rate: 0.75\n",
    );
    let loaded = load(t.path());
    assert_eq!(loaded.suite.cases[0].samples, Some(12));
    assert_eq!(loaded.suite.cases[0].min_pass_rate, Some(0.75));
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/a/case.yaml",
                "input: hi\ncriteria: ok\nrepeat: 2\nsamples: 12\n",
            ),
        ],
        &[
            "cases/a/case.yaml:4:10: `samples` conflicts with `repeat`/`repeat_failure`: a case either runs `samples` independent sessions (none retried, none stopping the others) or repeats until `repeat` sessions passed; keep one of them",
        ],
    );
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            ("cases/a/case.yaml", "input: hi\ncriteria: ok\nsamples: 0\n"),
        ],
        &["cases/a/case.yaml:3:10: `samples` must be an integer >= 1, found 0"],
    );
}

#[test]
fn stop_when_decided_needs_samples() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", "tests: ./cases/\n");
    write(
        t.path(),
        "cases/a/case.yaml",
        "input: hi\ncriteria: ok\nsamples: 30\nmin_pass_rate: 0.7\nstop_when_decided: true\n",
    );
    assert!(load(t.path()).suite.cases[0].stop_when_decided);
    check(
        &[
            ("EVAL.yaml", "tests: ./cases/\n"),
            (
                "cases/a/case.yaml",
                "input: hi\ncriteria: ok\nmin_pass_rate: 0.7\nstop_when_decided: true\n",
            ),
        ],
        &[
            "cases/a/case.yaml:4:20: `stop_when_decided` stops sampling once the pass rate is surely above or below its gate (or each variant's lift surely above or below zero): it needs `samples`, the most sessions",
        ],
    );
}

#[test]
fn variants_name_the_run_s_variants_and_must_fit_a_trial_s_name() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "EVAL.yaml", "tests: ./cases/\n");
    write(
        t.path(),
        "cases/a/case.yaml",
        "input: hi\ncriteria: ok\nvariants: [without, with]\n",
    );
    assert_eq!(load(t.path()).suite.cases[0].variants, ["without", "with"]);
    write(
        t.path(),
        "cases/a/case.yaml",
        "input: hi\ncriteria: ok\nvariants: [a/b]\n",
    );
    let found = errors(t.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("cases/a/case.yaml:3:11: variant name `a/b` holds `/`"),
        "{found:?}"
    );
}

#[test]
fn a_workspace_file_is_read_with_paths_relative_to_it() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "shared/template/README.md", "seed\n");
    write(
        t.path(),
        "shared/workspace.yaml",
        "template: ./template\nhooks:\n  before_each: { command: [setup] }\n  after_each: { reset: fast }\n",
    );
    write(
        t.path(),
        "evals/EVAL.yaml",
        "workspace: ../shared/workspace.yaml\ntests: [{id: a, input: hi, criteria: ok}]\n",
    );
    let suite = load(&t.path().join("evals")).suite;
    let shared = t.path().join("evals/../shared");
    let ws = &suite.cases[0].workspace;
    assert_eq!(
        ws.template.as_deref(),
        Some(shared.join("./template").as_path())
    );
    let hook = ws.hooks.before_each.as_ref().expect("the file's hook");
    assert_eq!(
        hook.cwd.as_deref(),
        Some(shared.as_path()),
        "hooks run beside the file"
    );
    assert!(ws.hooks.after_each.is_none());

    write(
        t.path(),
        "shared/workspace.yaml",
        "isolation: shared\ndocker: { image: x }\n",
    );
    let errors = errors(&t.path().join("evals"));
    assert_eq!(
        errors,
        [
            "../shared/workspace.yaml:1:12: `isolation: shared` is not supported: skillgym gives every attempt its own copy of the template, so attempts never see each other's changes [remove `isolation`, or write `isolation: per_test`]",
            "../shared/workspace.yaml:2:9: `workspace.docker` is not supported by skillgym",
        ],
        "located in the workspace file"
    );
}

#[test]
fn a_case_s_vars_fill_its_input_criteria_and_expected_output() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "input:\n  - { role: system, content: 'Answer {{category}} questions.' }\n\
         tests:\n\
         - id: capital\n  vars: { category: geography, question: Capital of France?, expected: { answer: Paris } }\n  \
         criteria: 'Answers {{question}} correctly'\n  input: 'Question: {{question}}'\n  expected_output: '{{expected.answer}}'\n  \
         assertions: [{ type: contains, value: '{{question}}' }]\n",
    );
    let case = &load(t.path()).suite.cases[0];
    assert_eq!(
        case.criteria.as_deref(),
        Some("Answers Capital of France? correctly")
    );
    let texts: Vec<&Content> = case.input.iter().map(|m| &m.content).collect();
    assert_eq!(
        texts,
        [
            &Content::Text("Answer geography questions.".into()),
            &Content::Text("Question: Capital of France?".into())
        ]
    );
    assert_eq!(
        case.expected_output[0].content,
        Content::Text("Paris".into())
    );
    let crate::grade::spec::GraderKind::Contains { value, .. } = &case.assertions[0].kind else {
        panic!("a contains grader")
    };
    assert_eq!(
        value, "{{question}}",
        "graders are left as written, as agentv does"
    );
    check(
        &[(
            "EVAL.yaml",
            "tests: [{id: a, input: hi, criteria: ok, vars: [x]}]\n",
        )],
        &["EVAL.yaml:1:48: `vars` must be a mapping, found a list"],
    );
}

#[test]
fn error_workspace_path_in_a_suite_wide_hook() {
    check(
        &[(
            "EVAL.yaml",
            "workspace:\n  hooks:\n    before_all:\n      command:\n        - node\n        - \"{{workspace_path}}/scripts/setup.mjs\"\n    before_each: { command: [\"{{workspace_path}}/setup\"] }\ntests: [{id: a, input: hi, criteria: ok}]\n",
        )],
        &[
            "EVAL.yaml:6:11: `{{workspace_path}}` has no value in `before_all`: it runs once for the suite, and every attempt gets a workspace of its own, copied from the template after `before_all` [prepare each attempt's workspace in `before_each`, which gets its path]",
        ],
    );
}

#[test]
fn workspace_repos_are_read_and_checked() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "local/repo/README.md", "x\n");
    write(
        t.path(),
        "EVAL.yaml",
        "workspace:\n  repos:\n    - { path: ./app, repo: org/app, base_commit: abc123, sparse: [src] }\n    - { path: vendor/lib, repo: ./local/repo, ancestor: 2 }\n\
         tests:\n- { id: a, input: hi, criteria: ok }\n- { id: b, input: hi, criteria: ok, workspace: { repos: [{ path: only, repo: org/other }] } }\n",
    );
    let suite = load(t.path()).suite;
    let repos = &suite.cases[0].workspace.repos;
    assert_eq!(repos.len(), 2);
    assert_eq!(
        (
            repos[0].path.as_str(),
            repos[0].commit.as_deref(),
            repos[0].sparse.as_slice()
        ),
        ("./app", Some("abc123"), &["src".to_owned()][..])
    );
    assert_eq!(repos[0].clone_url(), "https://github.com/org/app.git");
    assert_eq!(
        repos[1].repo,
        t.path().join("./local/repo").display().to_string()
    );
    assert_eq!(repos[1].ancestor, 2);
    let own: Vec<&str> = suite.cases[1]
        .workspace
        .repos
        .iter()
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(own, ["only"], "a case's list replaces the suite's");
    check(
        &[(
            "EVAL.yaml",
            "workspace:\n  repos:\n    - { path: ../out, repo: a/b, commit: x, base_commit: y }\n    - { repo: a/b, checkout: { ref: main } }\ntests: [{id: a, input: hi, criteria: ok}]\n",
        )],
        &[
            "EVAL.yaml:3:7: `commit` and `base_commit` name one pin: when both are set they must match",
            "EVAL.yaml:3:15: `path` must stay inside the workspace, found `../out`",
            "EVAL.yaml:4:7: a repository is missing `path`",
            "EVAL.yaml:4:30: `repos[].checkout` was removed from agentv's format: use `commit`, `base_commit` and `ancestor`",
        ],
    );
}

#[test]
fn vars_fill_each_turn_and_preprocessors_are_named() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "tests:\n- id: chat\n  input: Be brief.\n  mode: conversation\n  vars: { city: Paris }\n  turns:\n    - { input: 'Where is {{city}}?', expected_output: '{{city}} is in France', assertions: [{ type: contains, value: France }] }\n",
    );
    let case = &load(t.path()).suite.cases[0];
    let turn = &case.conversation.as_ref().expect("a conversation").turns[0];
    assert_eq!(
        turn.input[0].content,
        Content::Text("Where is Paris?".into())
    );
    assert_eq!(
        turn.expected_output[0].content,
        Content::Text("Paris is in France".into())
    );
    check(
        &[(
            "EVAL.yaml",
            "preprocessors:\n  - { type: xlsx, command: [x] }\ntests: [{id: a, input: hi, criteria: ok, depends_on: [b]}]\n",
        )],
        &[
            "EVAL.yaml:2:3: `preprocessors` (converting an answer's files to text for the judge) are not supported by skillgym",
            "EVAL.yaml:3:54: `depends_on` (running a case after others) is not supported by skillgym: every case runs on its own",
        ],
    );
}

#[test]
fn workspace_modes_and_empty_use_targets() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "EVAL.yaml",
        "workspace: { mode: pooled }\ntests: [{id: a, input: hi, criteria: ok, workspace: { mode: temp }}]\n",
    );
    assert_eq!(
        load(t.path()).suite.cases.len(),
        1,
        "pooled and temp: a clean copy each"
    );
    check(
        &[(
            "EVAL.yaml",
            "workspace: { mode: static, path: /srv/ws }\nexecution:\n  targets: [{ name: base, use_target: '${{ UNSET }}' }]\ntests: [{id: a, input: hi, criteria: ok}]\n",
        )],
        &[
            "EVAL.yaml:1:20: `workspace.mode: static` (one existing directory for every case) is not supported: skillgym gives every attempt its own copy of the template [remove `mode` (and `path`)]",
            "EVAL.yaml:1:34: `workspace.path` is not supported by skillgym",
            "EVAL.yaml:3:39: `use_target` must not be empty",
        ],
    );
}

#[test]
fn error_a_tests_directory_outside_the_suite() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "shared/one/case.yaml",
        "input: hi\ncriteria: ok\n",
    );
    write(t.path(), "suite/EVAL.yaml", "tests: ../shared/\n");
    let suite = t.path().join("suite");
    assert_eq!(
        errors(&suite),
        [
            "EVAL.yaml:1:8: `tests`: the directory `../shared/` is outside the suite directory: its case directories are discovered only inside it [move the cases under the suite's directory, or list a cases file (`.yaml`, `.jsonl`) instead]"
        ]
    );
    write(t.path(), "suite/EVAL.yaml", "tests: file:///\n");
    assert_eq!(errors(&suite).len(), 1, "the root is outside too");
}
