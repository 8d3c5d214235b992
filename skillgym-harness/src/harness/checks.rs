//! What must hold before any trial runs: agent programs, a judge for rubric graders, sandboxes
//! that can be made, and no `after_all` hook where it could not run. (A missing prompt file
//! is not one: only its case fails.)

use libtest_mimic::Arguments;

use super::process_per_test;
use crate::error::{Error, JudgeError};
use crate::preflight::{self, MissingProgram, PreflightError};
use crate::runner::Runner;
use crate::settings::Settings;
use crate::suggest::did_you_mean;
use crate::suite::{CaseCheck, CaseSpec, Plan};
use crate::terminal_text::eprintln_escaped;

/// Planned cases with rubric graders need a judge.
pub(super) fn check_judge(
    plan: &Plan,
    cases: &[CaseSpec],
    judge: Option<&Runner>,
) -> Result<(), Error> {
    if judge.is_some() {
        return Ok(());
    }
    let mut needing: Vec<String> = Vec::new();
    for execution in &plan.executions {
        let case = &cases[execution.case];
        if let CaseCheck::Declared(check) = &case.check
            && check.needs_judge()
            && !needing.contains(&case.id)
        {
            needing.push(case.id.clone());
        }
    }
    if needing.is_empty() {
        Ok(())
    } else {
        Err(JudgeError::Missing { cases: needing }.into())
    }
}

/// The checks made before anything runs (not for `--list`): the agent programs of the runners
/// and of the judge. A runner whose program is missing stops the run when `require_agents`;
/// otherwise it is returned, to be skipped. A planned case whose prompt file is missing gets a
/// note on stderr (its trials fail; the others run).
pub(super) fn check_before_run(
    arguments: &Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
    (judge, require_agents): (Option<&Runner>, bool),
) -> Result<Vec<MissingProgram>, Error> {
    let mut planned_cases: Vec<usize> = plan.executions.iter().map(|e| e.case).collect();
    planned_cases.dedup();
    if !arguments.list {
        for missing in planned_cases
            .iter()
            .filter_map(|&index| preflight::missing_prompt_file(&cases[index]))
        {
            eprintln_escaped!("skillgym: {missing}: its trials fail");
        }
        // The judge's agent is checked too when a planned case has rubric items.
        let judged = planned_cases.iter().any(|&index| {
            matches!(&cases[index].check, CaseCheck::Declared(check) if check.needs_judge())
        });
        let judge = judge.filter(|judge| judged && !runners.iter().any(|r| r.id == judge.id));
        if let Some(judge) = judge {
            preflight::agent_programs(std::slice::from_ref(judge))?;
        }
        let executions = plan.executions.iter().map(|e| (e.case, e.runner));
        preflight::resumable(executions, cases, runners)?;
        let missing = preflight::missing_programs(runners);
        if require_agents && !missing.is_empty() {
            return Err(PreflightError::AgentPrograms(missing).into());
        }
        return Ok(missing);
    }
    Ok(Vec::new())
}

/// The sandboxes of the runners (and of the judge) can be made here, and reach their model
/// (not for `--list`, which starts nothing).
pub(super) fn check_sandboxes(
    arguments: &Arguments,
    settings: &Settings,
    runners: &[Runner],
    judge: Option<&Runner>,
    mock: bool,
) -> Result<(), Error> {
    if arguments.list {
        return Ok(());
    }
    let all: Vec<&Runner> = runners.iter().chain(judge).collect();
    Ok(crate::sandbox::check_runners(settings, &all, mock)?)
}

/// Under nextest's process per test no process knows it runs a suite's last trial, so a
/// suite's `after_all` could not run: such a run is refused (not `--list`, which runs nothing).
pub(super) fn check_after_all(
    arguments: &Arguments,
    plan: &Plan,
    cases: &[CaseSpec],
    runners: &[Runner],
) -> Result<(), Error> {
    if arguments.list || !process_per_test() {
        return Ok(());
    }
    let runner_ids: Vec<&str> = runners.iter().map(|r| r.id.as_str()).collect();
    for execution in &plan.executions {
        if let CaseCheck::Declared(check) = &cases[execution.case].check
            && check.suite.has_after_all(&runner_ids)
        {
            return Err(Error::AfterAllUnderNextest {
                suite: check.suite.name.clone(),
            });
        }
    }
    Ok(())
}

/// Says, on stderr, why a selection runs less than it seems to: each selected tag no case
/// carries (with the tags there are), runners a `--mock` run cannot use, and an empty plan.
pub(super) fn explain_selection(
    tags: &[String],
    cases: &[CaseSpec],
    runners: &[Runner],
    plan: &Plan,
    mock: bool,
) {
    for line in selection_notes(tags, cases, runners, plan, mock) {
        eprintln_escaped!("skillgym: {line}");
    }
}

fn selection_notes(
    tags: &[String],
    cases: &[CaseSpec],
    runners: &[Runner],
    plan: &Plan,
    mock: bool,
) -> Vec<String> {
    let mut known: Vec<&str> = cases
        .iter()
        .flat_map(|case| case.tags.iter().map(String::as_str))
        .collect();
    known.sort_unstable();
    known.dedup();
    let mut notes = Vec::new();
    for tag in tags.iter().filter(|tag| !known.contains(&tag.as_str())) {
        let listed = if known.is_empty() {
            "no case has a tag".to_owned()
        } else {
            let quoted: Vec<String> = known.iter().map(|t| format!("`{t}`")).collect();
            format!("tags in this binary: {}", quoted.join(", "))
        };
        let mut note = format!("no case has tag `{tag}` ({listed})");
        if let Some(close) = did_you_mean(tag, known.iter().copied()) {
            note.push_str(&format!("; did you mean `{close}`?"));
        }
        notes.push(note);
    }
    if mock {
        for runner in runners.iter().filter(|r| r.agent.wire_api().is_none()) {
            notes.push(format!(
                "runner `{}` ({}) cannot be pointed at the scripted model server: its trials are skipped in this --mock run",
                runner.id,
                runner.agent.kind()
            ));
        }
    }
    if plan.executions.is_empty() && !cases.is_empty() {
        notes.push(if tags.is_empty() {
            "nothing to run: no case runs on the selected runners".to_owned()
        } else {
            format!(
                "nothing to run: no case with tag {} runs on the selected runners",
                tags.iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        });
    }
    notes
}
