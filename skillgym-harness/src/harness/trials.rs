//! The libtest trials: one per planned execution, named `[runner] case_id`, with `--exact`
//! matched by case id, and each trial's verdict.

use std::collections::HashMap;
use std::sync::{Arc, Once, OnceLock};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use super::context::RunContext;
use super::process_per_test;
use crate::config::Variant;
use crate::execute::{run_execution, run_triggers, run_variants};
use crate::results::{ExecutionResult, Status};
use crate::runner::Runner;
use crate::schedule::GateGuard;
use crate::secrets;
use crate::suite::{CaseCheck, CaseSpec, Plan, PlannedExecution};
use crate::terminal_text::{self, eprintln_escaped};

/// The libtest name of a trial: `[runner] case_id`, or `[runner/variant] case_id` under a
/// variant. The runner is part of the name (not libtest-mimic's "kind"), so that failure
/// headers, `--format json` events and nextest name it.
pub(super) fn trial_name(runner_id: &str, variant: Option<&str>, case_id: &str) -> String {
    crate::results::trial_name(runner_id, variant, case_id)
}

/// The name of the planned execution `planned`.
fn planned_name(planned: &PlannedExecution, cases: &[CaseSpec], runners: &[Runner]) -> String {
    trial_name(
        &runners[planned.runner].id,
        planned.variant.as_ref().map(|v| v.name.as_str()),
        &cases[planned.case].id,
    )
}

/// Whether `name` is the name of the planned execution `planned` (nothing is built).
fn is_planned_name(
    name: &str,
    planned: &PlannedExecution,
    cases: &[CaseSpec],
    runners: &[Runner],
) -> bool {
    crate::results::is_trial_name(
        name,
        &runners[planned.runner].id,
        planned.variant.as_ref().map(|v| v.name.as_str()),
        &cases[planned.case].id,
    )
}

/// Trials that this process runs together, by whichever of them starts first; the others
/// wait for it and report their own.
struct Group {
    /// The plan positions of the group's trials, in plan order.
    positions: Vec<usize>,
    /// What the group is.
    kind: GroupKind,
    /// The results, in the order of `positions`, once the group ran; or why it could not.
    results: OnceLock<Result<Vec<ExecutionResult>, String>>,
}

/// What ties a group's trials together.
enum GroupKind {
    /// The variants of one case × runner (in the order of `positions`), run interleaved.
    Variants(Vec<Arc<Variant>>),
    /// The trigger prompts of one skill on one runner (under one variant), run one after
    /// another, then held to the skill's gates when `complete`: every prompt of the skill on
    /// the runner is in the group. `members`: each trial's case and variant, in the order of
    /// `positions`.
    Triggers {
        complete: bool,
        members: Vec<(usize, Option<Arc<Variant>>)>,
    },
}

/// One trial per planned execution, named by [`trial_name`]. The trials of one case × runner
/// under variants that `arguments` selects form a group that runs interleaved.
pub(super) fn trials(plan: &Plan, context: &Arc<RunContext>, arguments: &Arguments) -> Vec<Trial> {
    let names: Vec<String> = plan
        .executions
        .iter()
        .map(|planned| planned_name(planned, &context.cases, &context.runners))
        .collect();
    let groups = groups(plan, &context.cases, &names, arguments);
    plan.executions
        .iter()
        .zip(names)
        .enumerate()
        .map(|(position, (planned, name))| {
            let context = Arc::clone(context);
            let group = groups.get(&position).cloned();
            let (case_index, runner_index) = (planned.case, planned.runner);
            Trial::ignorable_test(name, move || {
                let at = TrialAt {
                    position,
                    case: case_index,
                    runner: runner_index,
                };
                run_trial(&context, at, group.as_deref())
            })
        })
        .collect()
}

/// The groups of the selected trials (under variants; of one skill's trigger prompts), by
/// plan position.
fn groups(
    plan: &Plan,
    cases: &[CaseSpec],
    names: &[String],
    arguments: &Arguments,
) -> HashMap<usize, Arc<Group>> {
    if arguments.list {
        // `--list` runs nothing.
        return HashMap::new();
    }
    let selected = |position: usize| {
        !arguments.is_filtered_out(&Trial::test(names[position].clone(), || Ok(())))
    };
    let mut groups = trigger_groups(plan, cases, &selected);
    groups.extend(variant_groups(plan, cases, &selected));
    groups
}

/// The groups of the selected trials of each skill's trigger prompts on each runner (under
/// each variant).
fn trigger_groups(
    plan: &Plan,
    cases: &[CaseSpec],
    selected: &dyn Fn(usize) -> bool,
) -> HashMap<usize, Arc<Group>> {
    // Per skill × runner × variant: the planned positions, and whether each is selected.
    type Key<'a> = (&'a str, usize, Option<&'a str>);
    let mut by_key: HashMap<Key<'_>, (Vec<usize>, usize)> = HashMap::new();
    for (position, planned) in plan.executions.iter().enumerate() {
        let CaseCheck::Trigger(trigger) = &cases[planned.case].check else {
            continue;
        };
        let key = (
            trigger.expectation.skill.as_str(),
            planned.runner,
            planned.variant.as_ref().map(|v| v.name.as_str()),
        );
        let (positions, planned) = by_key.entry(key).or_default();
        *planned += 1;
        if selected(position) {
            positions.push(position);
        }
    }
    let mut groups = HashMap::new();
    for (positions, planned) in by_key.into_values() {
        let group = Arc::new(Group {
            kind: GroupKind::Triggers {
                complete: positions.len() == planned,
                members: positions
                    .iter()
                    .map(|&p| {
                        let planned = &plan.executions[p];
                        (planned.case, planned.variant.clone())
                    })
                    .collect(),
            },
            positions: positions.clone(),
            results: OnceLock::new(),
        });
        for position in positions {
            groups.insert(position, Arc::clone(&group));
        }
    }
    groups
}

/// The groups of the selected trials of each case × runner under variants (trigger cases
/// aside).
fn variant_groups(
    plan: &Plan,
    cases: &[CaseSpec],
    selected: &dyn Fn(usize) -> bool,
) -> HashMap<usize, Arc<Group>> {
    // The selected trials of each case × runner: their plan positions and variants.
    type Members = Vec<(usize, Arc<Variant>)>;
    let mut by_pair: HashMap<(usize, usize), Members> = HashMap::new();
    let under_variants = plan
        .executions
        .iter()
        .enumerate()
        .filter(|(_, planned)| !matches!(cases[planned.case].check, CaseCheck::Trigger(_)))
        .filter_map(|(position, planned)| Some((position, planned, planned.variant.as_ref()?)));
    for (position, planned, variant) in under_variants {
        if selected(position) {
            by_pair
                .entry((planned.case, planned.runner))
                .or_default()
                .push((position, Arc::clone(variant)));
        }
    }
    let mut groups = HashMap::new();
    for members in by_pair.into_values() {
        let (positions, variants): (Vec<usize>, Vec<Arc<Variant>>) = members.into_iter().unzip();
        let group = Arc::new(Group {
            positions: positions.clone(),
            kind: GroupKind::Variants(variants),
            results: OnceLock::new(),
        });
        for position in positions {
            groups.insert(position, Arc::clone(&group));
        }
    }
    groups
}

/// Which trial: its plan position, case and runner.
#[derive(Debug, Clone, Copy)]
pub(super) struct TrialAt {
    pub(super) position: usize,
    pub(super) case: usize,
    pub(super) runner: usize,
}

/// `--exact <case id>` (or, for a Rust case, its function's path, which IDEs' Run buttons
/// send) selects the case on every runner, as `--exact "[runner] case id"` selects one trial:
/// the matching is done here, and libtest-mimic is told to skip (exactly) every other trial,
/// so that its counts stay right. When one trial matches (one runner, or a trial's own name),
/// it becomes libtest-mimic's exact filter instead: skipping the others by name would compare
/// every trial with every skipped name, which costs milliseconds in a binary of 1,000 cases.
pub(super) fn select_exact(
    arguments: &mut Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
) {
    if !arguments.exact {
        return;
    }
    let Some(filter) = arguments.filter.take() else {
        return;
    };
    let mut selected = Vec::new();
    // The others' names are only needed when several trials match.
    let mut others = Vec::new();
    for planned in &plan.executions {
        if exact_match(&filter, &cases[planned.case], || {
            is_planned_name(&filter, planned, cases, runners)
        }) {
            selected.push(planned_name(planned, cases, runners));
        } else {
            others.push(planned);
        }
    }
    match selected.len() {
        // Nothing matches: the filter, exact, skips every trial as it is.
        0 => arguments.filter = Some(filter),
        1 => arguments.filter = selected.pop(),
        _ => {
            let names = others.into_iter().map(|p| planned_name(p, cases, runners));
            arguments.skip.extend(names);
        }
    }
}

/// Per case (by index), whether one of its trials runs under the selection [`select`] left in
/// `arguments`.
pub(super) fn chosen_cases(
    arguments: &Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
) -> Vec<bool> {
    let mut chosen = vec![false; cases.len()];
    // An exact filter leaves out every trial of another name: only the others are asked.
    let exact = arguments.filter.as_deref().filter(|_| arguments.exact);
    for planned in &plan.executions {
        let named = || exact.is_none_or(|name| is_planned_name(name, planned, cases, runners));
        if !chosen[planned.case] && named() {
            let name = planned_name(planned, cases, runners);
            chosen[planned.case] = !arguments.is_filtered_out(&Trial::test(name, || Ok(())));
        }
    }
    chosen
}

/// Whether `filter`, under `--exact`, selects the trial `name` of `case`: its case id, its name,
/// or (a Rust case) its function's path, which an IDE's Run button sends.
fn exact_match(filter: &str, case: &CaseSpec, is_name: impl FnOnce() -> bool) -> bool {
    case.id == filter
        || is_name()
        || matches!(&case.check, CaseCheck::Rust(def) if def.has_rust_path(filter))
}

/// Several name filters (libtest-mimic takes one; the others are `more`): a trial runs when
/// any of them selects it, as each alone would (a substring of its name, or under `--exact`
/// as [`select_exact`] matches), and no `--skip` skips it. libtest-mimic is then told to skip,
/// exactly, every other trial, so that its counts stay right. With one filter or none this is
/// [`select_exact`].
pub(super) fn select(
    arguments: &mut Arguments,
    more: &[String],
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
) {
    if more.is_empty() {
        return select_exact(arguments, plan, cases, runners);
    }
    let filters: Vec<String> = arguments
        .filter
        .take()
        .into_iter()
        .chain(more.iter().cloned())
        .collect();
    let mut others = Vec::new();
    for planned in &plan.executions {
        let case = &cases[planned.case];
        let name = planned_name(planned, cases, runners);
        let chosen = filters.iter().any(|filter| match arguments.exact {
            true => exact_match(filter, case, || name == *filter),
            false => name.contains(filter.as_str()),
        });
        // The `--skip`s as given (substrings unless `--exact`), on the trials chosen.
        let skipped = arguments.is_filtered_out(&Trial::test(name.clone(), || Ok(())));
        if !chosen || skipped {
            others.push(name);
        }
    }
    arguments.exact = true;
    arguments.skip = others;
}

/// One trial: one execution, once the schedule's gates let it start; under variants, its
/// group's executions run together by the first of its trials to start.
fn run_trial(
    context: &RunContext,
    at: TrialAt,
    group: Option<&Group>,
) -> Result<Completion, Failed> {
    static MARK_LATEST: Once = Once::new();
    MARK_LATEST.call_once(|| {
        if let Err(error) = context.engine.run_dir.mark_latest() {
            eprintln_escaped!("skillgym: cannot update the `latest` pointer: {error}");
        }
    });
    let result = match group {
        Some(group) => {
            // The first trial of the group to get here runs it; the others wait here.
            let results = group
                .results
                .get_or_init(|| run_group(context, at, group))
                .as_ref()
                .map_err(|error| Failed::from(error.as_str()))?;
            let index = group.positions.iter().position(|&p| p == at.position);
            index
                .and_then(|index| results.get(index).cloned())
                .ok_or("skillgym: the trial is missing from its group")?
        }
        None => {
            let _gate = enter(context, at)?;
            let case = &context.cases[at.case];
            let runner = &context.runners[at.runner];
            run_execution(&context.engine, case, runner)
        }
    };
    let outcome = trial_outcome(&result);
    context.record(at.position, result);
    outcome
}

/// Runs the executions of `group` (variants interleaved; trigger prompts one after another),
/// inside the schedule's gates.
fn run_group(
    context: &RunContext,
    at: TrialAt,
    group: &Group,
) -> Result<Vec<ExecutionResult>, String> {
    let _gate = enter(context, at)?;
    let case = &context.cases[at.case];
    let runner = &context.runners[at.runner];
    match &group.kind {
        GroupKind::Variants(variants) => {
            let variants: Vec<Option<&Variant>> =
                variants.iter().map(|v| Some(v.as_ref())).collect();
            Ok(run_variants(&context.engine, case, runner, &variants))
        }
        GroupKind::Triggers { complete, members } => {
            let members: Vec<(&CaseSpec, Option<&Variant>)> = members
                .iter()
                .map(|(case, variant)| (&context.cases[*case], variant.as_deref()))
                .collect();
            Ok(run_triggers(&context.engine, &members, runner, *complete))
        }
    }
}

/// Waits for a slot of the schedule for the execution `at` (its runner's lane, its suite's
/// workers, a global slot).
fn enter(context: &RunContext, at: TrialAt) -> Result<GateGuard<'_>, String> {
    let group = context.case_groups.get(at.case).copied().flatten();
    context.gates.enter(at.runner, group).map_err(|error| {
        format!(
            "skillgym: cannot wait for a {} slot in {}: {error}",
            context.engine.settings.schedule,
            context.engine.run_dir.path().join(".locks").display()
        )
    })
}

/// The trial's verdict and failure text. A skipped execution is an ignored trial; under
/// nextest's process per test, where an ignored result would show as a green PASS, it fails
/// with the reason instead.
pub(super) fn trial_outcome(result: &ExecutionResult) -> Result<Completion, Failed> {
    if result.passed {
        return Ok(Completion::Completed);
    }
    if result.status == Status::Skipped {
        let reason = result
            .failure
            .as_ref()
            .map_or_else(|| "not run".to_owned(), |failure| failure.message.clone());
        if process_per_test() {
            return Err(terminal_text::masked(&format!(
                "skipped: {reason}\n  (nextest cannot show a skip decided while running, so it is a failure here, never a pass)"
            ))
            .into());
        }
        // libtest prints it at the end of the trial's line: it must not break it.
        let reason = terminal_text::escape_one_line(&secrets::mask(&reason));
        return Ok(Completion::ignored_with(reason));
    }
    let mut text = String::new();
    if let Some(failure) = &result.failure {
        text.push_str(&failure.to_string());
        text.push_str(&format!(
            "\n  status: {} · origin: {} · class: {}",
            result.status.as_str(),
            failure.origin,
            failure.class.id
        ));
    } else {
        text.push_str(&format!("status: {}", result.status.as_str()));
    }
    let snapshot = result
        .failure
        .as_ref()
        .is_some_and(|f| f.origin == skillgym::FailureOrigin::Snapshot);
    let repeated =
        result.repeat_target > 1 || result.repetitions.iter().any(|r| r.attempts.len() > 1);
    if let Some(samples) = &result.samples {
        text.push_str(&format!(
            "\n  {}/{} samples passed ({} asked for)",
            samples.passed, samples.sessions, result.repeat_target
        ));
    } else if repeated && !snapshot {
        text.push_str(&format!(
            "\n  stopped at repetition {}/{} ({} passed)",
            result
                .stopped_at_repetition
                .unwrap_or(result.completed_repetitions),
            result.repeat_target,
            result.successful_repetitions
        ));
    }
    text.push_str(&format!("\n  artifacts: {}", result.artifact_dir.display()));
    for kept in result.kept_workspaces() {
        text.push_str(&format!("\n  workspace kept: {}", kept.display()));
    }
    if let Some(hint) = crate::report::hint(result, None) {
        text.push_str(&format!("\n  ask the agent why: {hint}"));
    }
    Err(terminal_text::masked(&text).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommandAgent;
    use crate::suite::collect_registered;

    #[skillgym::case(prompt = "p", id = "custom-name")]
    fn named_by_its_id(_report: &skillgym::SessionReport) {}

    fn runners() -> Vec<Runner> {
        ["a", "b"]
            .into_iter()
            .map(|id| Runner {
                id: id.to_owned(),
                agent: Arc::new(CommandAgent::new("true")),
                replay: None,
            })
            .collect()
    }

    fn kept_for(filter: &str) -> Vec<String> {
        let cases = collect_registered().unwrap();
        let runners = runners();
        let plan = Plan::new(&cases, &["a", "b"], &[]);
        let mut arguments = Arguments {
            exact: true,
            filter: Some(filter.to_owned()),
            ..Arguments::default()
        };
        select_exact(&mut arguments, &plan, &cases, &runners);
        // What libtest-mimic then runs, `--exact`: the trial the filter names (when there is
        // a filter), less the skipped ones.
        let kept: Vec<String> = plan
            .executions
            .iter()
            .map(|p| planned_name(p, &cases, &runners))
            .filter(|name| arguments.filter.as_ref().is_none_or(|only| only == name))
            .filter(|name| !arguments.skip.contains(name))
            .collect();
        kept
    }

    #[test]
    fn exact_selects_a_case_by_id_by_function_path_or_one_trial_by_name() {
        let both = ["[a] custom-name", "[b] custom-name"];
        assert_eq!(kept_for("custom-name"), both);
        assert_eq!(
            kept_for("harness::trials::tests::named_by_its_id"),
            both,
            "what rust-analyzer's Run button sends"
        );
        assert_eq!(kept_for("[b] custom-name"), ["[b] custom-name"]);
        assert!(kept_for("custom").is_empty(), "no prefix match");
        for part in [
            "harness::trials::tests::named_by_its",
            "trials::tests::named_by_its_id",
            "harness::trials::tests::",
            "named_by_its_id",
        ] {
            assert!(kept_for(part).is_empty(), "no part of the path: {part}");
        }
    }

    /// What libtest-mimic runs of this binary's cases on runners `a` and `b` when given
    /// `filters` (the first as its own), `--skip`s and `--exact`.
    fn kept_for_all(filters: &[&str], skip: &[&str], exact: bool) -> Vec<String> {
        let cases = collect_registered().unwrap();
        let runners = runners();
        let plan = Plan::new(&cases, &["a", "b"], &[]);
        let mut arguments = Arguments {
            exact,
            filter: filters.first().map(|first| (*first).to_owned()),
            skip: skip.iter().map(|skip| (*skip).to_owned()).collect(),
            ..Arguments::default()
        };
        let more: Vec<String> = filters.iter().skip(1).map(|f| (*f).to_owned()).collect();
        select(&mut arguments, &more, &plan, &cases, &runners);
        plan.executions
            .iter()
            .map(|p| planned_name(p, &cases, &runners))
            .filter(|name| !arguments.is_filtered_out(&Trial::test(name.clone(), || Ok(()))))
            .collect()
    }

    #[test]
    fn several_filters_select_what_any_of_them_would() {
        let registered = "suite::registry::tests::registered";
        let mut four = vec![
            "[a] custom-name".to_owned(),
            "[b] custom-name".to_owned(),
            format!("[a] {registered}"),
            format!("[b] {registered}"),
        ];
        four.sort();
        let sorted = |mut names: Vec<String>| {
            names.sort();
            names
        };
        assert_eq!(
            sorted(kept_for_all(
                &["custom-name", "registry::tests::reg"],
                &[],
                false
            )),
            four
        );
        assert_eq!(
            sorted(kept_for_all(&["custom", "registered"], &["[b]"], false)),
            ["[a] custom-name".to_owned(), format!("[a] {registered}")],
            "each `--skip` (a substring) still skips"
        );
        assert_eq!(
            sorted(kept_for_all(&["custom-name", registered], &[], true)),
            four,
            "`--exact`: case ids and functions' paths"
        );
        assert_eq!(
            kept_for_all(&["[a] custom-name", "custom"], &[], true),
            ["[a] custom-name"],
            "`--exact`: no substring"
        );
        assert!(kept_for_all(&["no-such", "none-either"], &[], false).is_empty());
    }

    /// An execution that did not pass, with `status` and a failure `message`.
    fn not_passed(status: &str, message: &str) -> ExecutionResult {
        serde_json::from_value(serde_json::json!({
            "case_id": "c", "runner_id": "r", "source": "a.rs:1", "status": status,
            "passed": false, "expected_fail": false, "repeat_target": 1, "repeat_failure": 0,
            "completed_repetitions": 1, "successful_repetitions": 0, "failed_repetitions": 1,
            "flaky": false, "attempts": {"total": 1, "passing": 0, "pass_rate": 0.0,
                "pass_rate_95": {"low": 0.0, "high": 0.8}},
            "duration_ms": 1, "usage": {"input_chars": 0, "output_chars": 0, "reasoning_chars": 0},
            "artifact_dir": "/runs/r1/c/r", "repetitions": [],
            "failure": {"origin": "assertion", "class": {"id": "assertion"}, "message": message},
        }))
        .expect("an ExecutionResult")
    }

    #[test]
    fn the_failure_text_and_the_skip_reason_show_agent_text_escaped() {
        let said = "::add-mask::x\n  ::stop-commands::t\n\x1b[2J\r\x07";
        let failed = trial_outcome(&not_passed("failed", said))
            .err()
            .expect("a failure");
        assert!(
            failed.message().is_some_and(|text| text.starts_with(
                "\\u{3a}:add-mask::x\n  \\u{3a}:stop-commands::t\n\\u{1b}[2J\\r\\u{7}\n  status: failed"
            )),
            "{failed:?}"
        );
        match trial_outcome(&not_passed("skipped", said)) {
            Ok(Completion::Ignored {
                reason: Some(reason),
            }) => assert_eq!(
                reason, r"\u{3a}:add-mask::x\n  ::stop-commands::t\n\u{1b}[2J\r\u{7}",
                "one line, for libtest's trial line"
            ),
            _ => panic!("an ignored trial with its reason"),
        }
    }
}
