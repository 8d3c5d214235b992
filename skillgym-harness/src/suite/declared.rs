//! Declarative cases as trials: each case of a loaded suite becomes a [`CaseSpec`] whose check
//! is its graders ([`DeclaredCheck`]).
//!
//! | case field | becomes |
//! |---|---|
//! | suite `name` + case `id` | the trial name `<suite>::<id>` |
//! | `input` (after the suite's prefix), `input_files` | the prompt: a list of the input files to read first, then each message's text, blank-line separated (a block list gives its `text` blocks' values; any other structure its JSON) |
//! | `workspace` template (`<case>/workspace/` first) | the case's template, copied afresh for every attempt |
//! | `workspace.hooks`, a target's `hooks` | run around each attempt (see [`crate::execute`]'s hooks) |
//! | `execution.targets` (the case's, else the suite's), `execution.target` | the runners the case runs on: a target's `use_target`, else its `name`, names a runner; skillgym's `runners:` wins |
//! | several targets sharing one runner (`use_target`) | that runner's variants, named by the targets, the first listed the baseline, each with its target's hooks |
//! | `tags` | the suite's tags, then the case's |
//! | `assertions`, `criteria`, `threshold` | the graders and the pass threshold |
//! | `repeat`, `repeat_failure`, `samples`, `min_pass_rate`, `min_lift`, `stop_when_decided`, `expected_fail`, `timeout`, `max_steps`, `skills`, `mock` | as the `#[skillgym::case]` arguments of the same names |
//! | the case's file and line | the case's source (`cases/fix/case.yaml:1`) |
//! | `mode: conversation`, `turns` | the prompt: the case's input then the first turn's; the first turn's `mock` (else the case's) is the first session's script; the later turns are resumed sessions (see `crate::execute`'s conversations) |

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use skillgym::SourceLocation;

use super::registry::{CaseCheck, CaseSpec, PromptSpec};
use super::yaml::{CaseDef, Content, Conversation, Hooks, Message, Role, SuiteDef};
use crate::config::Variant;
use crate::grade::spec::GraderSpec;

/// What a declarative case checks, and what its graders and hooks are told.
pub struct DeclaredCheck {
    /// The case's file.
    pub(crate) file: PathBuf,
    /// Where the case starts (a grader failure's location).
    pub(crate) location: SourceLocation,
    /// The suite it belongs to.
    pub(crate) suite: Arc<SuiteScope>,
    /// The graders, in order (the case's, then the suite's).
    pub(crate) graders: Vec<GraderSpec>,
    /// The pass threshold of the weighted score.
    pub(crate) threshold: f64,
    /// The case's `criteria` (string or null).
    pub(crate) criteria: Value,
    /// The case's `expected_output` (string, messages, or null).
    pub(crate) expected_output: Value,
    /// The case's `input` (string or messages).
    pub(crate) input: Value,
    /// The case's `metadata` (or null).
    pub(crate) metadata: Value,
    /// The workspace hooks of the case (the suite's, merged with its own).
    pub(crate) hooks: Hooks,
    /// `workspace.repos`: checked out into each attempt's workspace.
    pub(crate) repos: Vec<super::yaml::RepoSpec>,
    /// `mode: conversation`: the turns after the first session, each a resumed session
    /// (`graders` then grade the whole conversation).
    pub(crate) conversation: Option<Conversation>,
    /// A stub from the suite index: nothing but the plan's fields until its case file is read
    /// ([`super::sources::hydrate`]).
    pub(crate) stub: bool,
}

/// What the cases of one suite share: its name, directory and run-wide hooks.
#[derive(Debug)]
pub(crate) struct SuiteScope {
    /// The suite's name.
    pub(crate) name: String,
    /// The suite file.
    pub(crate) file: PathBuf,
    /// The suite file's directory (hooks run there unless they set `cwd`).
    pub(crate) dir: PathBuf,
    /// The suite's own workspace hooks (`before_all`, `after_all`).
    pub(crate) hooks: Hooks,
    /// Each target: the runner it maps onto, its name, its hooks.
    pub(crate) targets: Vec<TargetScope>,
    /// `execution.workers`: at most this many of the suite's executions at once.
    pub(crate) workers: Option<usize>,
    /// `execution.trials.cost_limit_usd`: an execution starts no more samples once its
    /// sessions cost this much.
    pub(crate) cost_limit_usd: Option<f64>,
}

/// One target of a suite.
#[derive(Debug)]
pub(crate) struct TargetScope {
    /// The runner it maps onto (its `use_target`, else its name).
    pub(crate) runner: String,
    /// Its name: a variant's name when several targets share one runner.
    pub(crate) name: String,
    /// Its hooks.
    pub(crate) hooks: Hooks,
}

impl SuiteScope {
    /// The target hooks of an execution on `runner_id` under `variant`: the target of that
    /// name when the variant is one of the suite's targets, else the first target mapping onto
    /// the runner.
    pub(crate) fn target_hooks(&self, runner_id: &str, variant: Option<&str>) -> Option<&Hooks> {
        self.target(runner_id, variant).map(|target| &target.hooks)
    }

    /// The targets mapping onto one of `runner_ids`, with their hook level's name
    /// (`target-<runner>`, or `target-<name>` when targets share the runner).
    pub(crate) fn targets_on<'a>(
        &'a self,
        runner_ids: &'a [&'a str],
    ) -> impl Iterator<Item = (String, &'a Hooks)> + 'a {
        self.targets
            .iter()
            .filter(|t| runner_ids.contains(&t.runner.as_str()))
            .map(|t| (self.level_of(t), &t.hooks))
    }

    /// The hook level's name of `target`: `target-<runner>`, or `target-<name>` when several
    /// targets share its runner (variants).
    pub(crate) fn level_of(&self, target: &TargetScope) -> String {
        let shared = self
            .targets
            .iter()
            .filter(|t| t.runner == target.runner)
            .count()
            > 1;
        if shared {
            format!("target-{}", target.name)
        } else {
            format!("target-{}", target.runner)
        }
    }

    /// The target of an execution on `runner_id` under `variant`: the target of that name when
    /// the variant is one of the suite's targets, else the first target mapping onto the runner.
    pub(crate) fn target(&self, runner_id: &str, variant: Option<&str>) -> Option<&TargetScope> {
        let on_runner = || self.targets.iter().filter(move |t| t.runner == runner_id);
        variant
            .and_then(|name| on_runner().find(|t| t.name == name))
            .or_else(|| on_runner().next())
    }

    /// Whether an `after_all` hook would run for one of `runner_ids`.
    pub(crate) fn has_after_all(&self, runner_ids: &[&str]) -> bool {
        let enabled = |hooks: &Hooks| hooks.enabled && hooks.after_all.is_some();
        enabled(&self.hooks) || self.targets_on(runner_ids).any(|(_, hooks)| enabled(hooks))
    }
}

impl fmt::Debug for DeclaredCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Declared({}, {} graders)",
            self.file.display(),
            self.graders.len()
        )
    }
}

impl DeclaredCheck {
    /// Whether a grader needs the judge runner.
    pub(crate) fn needs_judge(&self) -> bool {
        let turns = self.conversation.iter().flat_map(|c| &c.turns);
        self.graders
            .iter()
            .chain(turns.flat_map(|turn| &turn.assertions))
            .any(|grader| grader.kind.needs_judge())
    }
}

/// The gates' groups of a run: the suites with `execution.workers`, and each case's group.
#[derive(Debug, Default)]
pub(crate) struct WorkerGroups {
    /// Each group: the suite's name and its `workers`.
    pub(crate) suites: Vec<(String, usize)>,
    /// Per case (by index in the run's cases), its group's index in `suites`.
    pub(crate) of_case: Vec<Option<usize>>,
}

impl WorkerGroups {
    /// The groups of `cases`.
    pub(crate) fn of(cases: &[CaseSpec]) -> WorkerGroups {
        let mut suites: Vec<(String, usize)> = Vec::new();
        let of_case = cases
            .iter()
            .map(|case| {
                let CaseCheck::Declared(check) = &case.check else {
                    return None;
                };
                let workers = check.suite.workers?;
                let name = &check.suite.name;
                Some(match suites.iter().position(|(g, _)| g == name) {
                    Some(index) => index,
                    None => {
                        suites.push((name.clone(), workers));
                        suites.len() - 1
                    }
                })
            })
            .collect();
        WorkerGroups { suites, of_case }
    }
}

/// The trials' specs of every case of `suite`, in the suite's order.
pub(crate) fn case_specs(suite: &SuiteDef) -> Vec<CaseSpec> {
    let scope = Arc::new(SuiteScope {
        name: suite.name.clone(),
        file: suite.file.clone(),
        dir: suite.dir.clone(),
        hooks: suite.workspace.hooks.clone(),
        targets: suite
            .targets
            .iter()
            .map(|target| TargetScope {
                runner: target.use_target.as_ref().unwrap_or(&target.name).clone(),
                name: target.name.clone(),
                hooks: target.hooks.clone(),
            })
            .collect(),
        workers: suite.workers,
        cost_limit_usd: suite.cost_limit_usd,
    });
    suite
        .cases
        .iter()
        .map(|case| case_spec(suite, &scope, case))
        .collect()
}

fn case_spec(suite: &SuiteDef, scope: &Arc<SuiteScope>, case: &CaseDef) -> CaseSpec {
    let location = SourceLocation {
        file: shown(&case.file),
        line: case.line.max(1),
        column: 1,
    };
    let mut tags: Vec<String> = Vec::with_capacity(case.tags.len());
    for tag in &case.tags {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    let runners = if case.runners.is_empty() {
        target_runners(suite, case)
    } else {
        case.runners.clone()
    };
    let check = DeclaredCheck {
        file: case.file.clone(),
        location: location.clone(),
        suite: Arc::clone(scope),
        graders: case.assertions.clone(),
        threshold: case.threshold,
        criteria: case.criteria.clone().map_or(Value::Null, Value::String),
        expected_output: messages_value(&case.expected_output),
        input: messages_value(&case.input),
        metadata: case.metadata.clone(),
        hooks: case.workspace.hooks.clone(),
        repos: case.workspace.repos.clone(),
        conversation: case.conversation.clone().map(|mut conversation| {
            // A turn without its own script plays the case's.
            for turn in &mut conversation.turns {
                turn.mock = turn.mock.take().or_else(|| case.mock.clone());
            }
            conversation
        }),
        stub: case.stub,
    };
    // A conversation's first session is told the case's input, then its first turn's.
    let first_turn = case.conversation.as_ref().map(|c| &c.turns[0]);
    let input: Vec<Message> = match first_turn {
        Some(turn) => case.input.iter().chain(&turn.input).cloned().collect(),
        None => case.input.clone(),
    };
    CaseSpec {
        id: format!("{}::{}", suite.name, case.id),
        source: format!("{}:{}", location.file, location.line),
        tags,
        prompt: PromptSpec::Inline(prompt(&input, &case.input_files)),
        repeat: case.repeat.map(saturate),
        repeat_failure: case.repeat_failure.map(saturate),
        samples: case.samples.map(saturate),
        min_pass_rate: case.min_pass_rate,
        min_lift: case.min_lift,
        stop_when_decided: case.stop_when_decided,
        expected_fail: case.expected_fail,
        timeout: case.timeout,
        max_steps: case.max_steps.map(saturate),
        runners,
        workspace: case.workspace.template.clone(),
        mock_script: first_turn
            .and_then(|turn| turn.mock.clone())
            .or_else(|| case.mock.clone()),
        skills: case.skills.clone(),
        base_dir: case.dir.clone(),
        variants: case.variants.clone(),
        own_variants: target_variants(scope),
        check: CaseCheck::Declared(Arc::new(check)),
    }
}

/// The suite's targets that share a runner, as that runner's variants (named by the targets,
/// the first listed the baseline); a runner with one target has none.
fn target_variants(scope: &SuiteScope) -> Vec<(String, Vec<Arc<Variant>>)> {
    let mut by_runner: Vec<(String, Vec<Arc<Variant>>)> = Vec::new();
    for target in &scope.targets {
        let variant = Variant::new(target.name.clone());
        match by_runner
            .iter_mut()
            .find(|(runner, _)| *runner == target.runner)
        {
            Some((_, variants)) => variants.push(Arc::new(variant)),
            None => by_runner.push((target.runner.clone(), vec![Arc::new(variant.baseline())])),
        }
    }
    by_runner.retain(|(_, variants)| variants.len() > 1);
    by_runner
}

/// The runners of the case's targets (its own `execution.targets`, else the suite's, else
/// `execution.target`); empty: every runner.
fn target_runners(suite: &SuiteDef, case: &CaseDef) -> Vec<String> {
    let runner_of = |name: &String| {
        suite
            .targets
            .iter()
            .find(|target| &target.name == name)
            .and_then(|target| target.use_target.clone())
            .unwrap_or_else(|| name.clone())
    };
    let mut runners: Vec<String> = if !case.targets.is_empty() {
        case.targets.iter().map(runner_of).collect()
    } else if !suite.targets.is_empty() {
        suite.targets.iter().map(|t| runner_of(&t.name)).collect()
    } else {
        suite.target.iter().map(runner_of).collect()
    };
    let mut seen = Vec::with_capacity(runners.len());
    runners.retain(|runner| {
        let first = !seen.contains(runner);
        seen.push(runner.clone());
        first
    });
    runners
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// `path` relative to the current directory when it is under it (as cargo shows sources).
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

/// The prompt of a case: the input files to read first, then each message's text.
pub(crate) fn prompt(input: &[Message], input_files: &[PathBuf]) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(input.len() + 1);
    if !input_files.is_empty() {
        let mut list = String::from("Read these input files first:");
        for file in input_files {
            list.push_str("\n- ");
            list.push_str(&file.display().to_string());
        }
        parts.push(list);
    }
    for message in input {
        match &message.content {
            Content::Text(text) => parts.push(text.clone()),
            Content::Json(Value::Array(blocks)) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => parts.push(
                            block
                                .get("value")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                        ),
                        _ => parts.push(block.to_string()),
                    }
                }
            }
            Content::Json(other) => parts.push(other.to_string()),
        }
    }
    parts.join("\n\n")
}

/// Messages as the graders see them: one user text message as its string, else a list of
/// `{role, content}`; none: null.
pub(crate) fn messages_value(messages: &[Message]) -> Value {
    match messages {
        [] => Value::Null,
        [
            Message {
                role: Role::User | Role::Assistant,
                content: Content::Text(text),
            },
        ] => Value::String(text.clone()),
        many => Value::Array(
            many.iter()
                .map(|message| {
                    json!({
                        "role": role_name(message.role),
                        "content": match &message.content {
                            Content::Text(text) => Value::String(text.clone()),
                            Content::Json(value) => value.clone(),
                        },
                    })
                })
                .collect(),
        ),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::yaml::load_suite;

    fn message(role: Role, text: &str) -> Message {
        Message {
            role,
            content: Content::Text(text.to_owned()),
        }
    }

    #[test]
    fn the_prompt_lists_input_files_then_joins_the_messages() {
        let input = [
            message(Role::System, "You are careful."),
            message(Role::User, "Fix the parser."),
            Message {
                role: Role::User,
                content: Content::Json(json!([
                    {"type": "text", "value": "Keep the tests green."},
                    {"type": "file", "value": "notes.md"}
                ])),
            },
        ];
        let files = [PathBuf::from("/s/a.ts"), PathBuf::from("/s/b.ts")];
        assert_eq!(
            prompt(&input, &files),
            "Read these input files first:\n- /s/a.ts\n- /s/b.ts\n\nYou are careful.\n\nFix the parser.\n\nKeep the tests green.\n\n{\"type\":\"file\",\"value\":\"notes.md\"}"
        );
        assert_eq!(prompt(&input[1..2], &[]), "Fix the parser.");
    }

    #[test]
    fn graders_see_one_user_text_as_a_string_and_messages_as_a_list() {
        assert_eq!(messages_value(&[]), Value::Null);
        assert_eq!(
            messages_value(&[message(Role::User, "hi")]),
            Value::String("hi".into())
        );
        assert_eq!(
            messages_value(&[message(Role::System, "s"), message(Role::User, "hi")]),
            json!([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}])
        );
    }

    #[test]
    fn cases_become_specs_named_suite_and_id_on_their_targets_runners() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("bench");
        std::fs::create_dir_all(root.join("cases/b")).unwrap();
        std::fs::create_dir_all(root.join("cases/a")).unwrap();
        std::fs::write(
            root.join("EVAL.yaml"),
            "tags: [suite]\nexecution:\n  targets: [base, { name: variant, use_target: claude }]\ntests: ./cases/\n",
        )
        .unwrap();
        std::fs::write(
            root.join("cases/a/case.yaml"),
            "input: one\ncriteria: ok\ntags: [suite, own]\nrepeat: 3\ntimeout: 90s\n",
        )
        .unwrap();
        std::fs::write(
            root.join("cases/b/case.yaml"),
            "input: two\ncriteria: ok\nexecution:\n  targets: [variant]\n",
        )
        .unwrap();
        let loaded = load_suite(&root, &|_| None).unwrap();
        let specs = case_specs(&loaded.suite);
        let ids: Vec<&str> = specs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["bench::a", "bench::b"]);
        let (a, b) = (&specs[0], &specs[1]);
        assert_eq!(a.tags, ["suite", "own"]);
        assert_eq!(a.runners, ["base", "claude"], "every target of the suite");
        assert_eq!(
            b.runners,
            ["claude"],
            "the case's own target, as its runner"
        );
        assert_eq!(a.repeat, Some(3));
        assert_eq!(a.timeout, Some(std::time::Duration::from_secs(90)));
        assert_eq!(a.prompt, PromptSpec::Inline("one".into()));
        assert!(a.source.ends_with("cases/a/case.yaml:1"), "{}", a.source);
        let CaseCheck::Declared(check) = &a.check else {
            panic!("a declared case");
        };
        assert!(check.needs_judge(), "criteria alone is judged");
        assert_eq!(check.criteria, Value::String("ok".into()));
        assert!(check.suite.target_hooks("claude", None).is_some());
        assert!(check.suite.target_hooks("codex", None).is_none());
    }
}
