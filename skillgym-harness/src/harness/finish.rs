//! Running the trials (with their live progress) and what follows: `results.json`, the summary,
//! the suites' `after_all` hooks, the exit code.

use std::process::ExitCode;
use std::sync::{Arc, PoisonError};
use std::time::SystemTime;

use libtest_mimic::{Arguments, Trial};

use super::{junit_format, process_per_test};
use crate::execute::ExecutionResult;
use crate::execute::suite_hooks;
use crate::interrupt;
use crate::progress;
use crate::reaper;
use crate::report::{RunReport, console};
use crate::run::RunContext;
use crate::secrets;
use crate::suite::CaseCheck;
use crate::suite::declared::SuiteScope;
use crate::summary::{self, Counts, RunResults};
use crate::time::Timestamp;

/// Runs the trials; after an in-process run, writes `results.json` and prints the summary.
pub(super) fn execute(
    arguments: &Arguments,
    context: Arc<RunContext>,
    trials: Vec<Trial>,
) -> ExitCode {
    let started = SystemTime::now();
    if arguments.list {
        return libtest_mimic::run(arguments, trials).exit_code();
    }
    if let Err(error) = interrupt::install() {
        eprintln!("skillgym: cannot handle SIGINT/SIGTERM/SIGHUP: {error}");
    }
    reaper::become_subreaper();
    // What a killed run left of the secret files it kept out of the run directory.
    crate::private_dir::sweep();
    // The live status (or the slow-execution notices) while the trials run; it is erased and
    // the real stdout restored before skillgym's own lines.
    let mut libtest_arguments = arguments.clone();
    let progress = progress::start(
        &mut libtest_arguments,
        &context.progress,
        process_per_test(),
    );
    let muted = context.format_junit.then(junit_format::Muted::stdout);
    let conclusion = libtest_mimic::run(&libtest_arguments, trials);
    interrupt::yield_to_an_immediate_exit();
    progress.finish();
    drop(muted);
    if !process_per_test() {
        run_after_all(&context);
    }
    let escaped = reaper::end_run();
    if escaped > 0 {
        eprintln!(
            "skillgym: killed {escaped} agent process(es) still running at the end of the run"
        );
    }
    let mut results = std::mem::take(
        &mut *context
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    if !process_per_test() && !results.is_empty() {
        results.sort_by_key(|(position, _)| *position);
        let executions: Vec<&ExecutionResult> = results.iter().map(|(_, r)| r).collect();
        let counts = Counts::of(executions.iter().copied());
        let ended = SystemTime::now();
        let run_results = RunResults {
            run_id: context.run_dir.run_id(),
            run_dir: context.run_dir.path(),
            started_at: Timestamp::from(started).rfc3339(),
            ended_at: Timestamp::from(ended).rfc3339(),
            duration_ms: ended
                .duration_since(started)
                .map_or(0, |d| d.as_millis() as u64),
            selected_tags: &context.settings.tags,
            summary: counts,
            executions,
        };
        match summary::write_results(&context.run_dir, &run_results) {
            Ok(path) => {
                let quiet = arguments.quiet
                    || context.format_junit
                    || matches!(arguments.format, Some(libtest_mimic::FormatSetting::Json));
                let report = RunReport::new(
                    vec![context.run_dir.run_id().to_owned()],
                    vec![context.run_dir.path()],
                    run_results
                        .executions
                        .iter()
                        .map(|e| (*e).clone())
                        .collect(),
                )
                .with_times(run_results.started_at.clone(), run_results.ended_at.clone());
                if !quiet {
                    let mut lines =
                        summary::repetition_lines(run_results.executions.iter().copied());
                    lines.push_str(&console::summary(&report));
                    lines.push_str(&replay_line(&context.runners));
                    lines.push_str(&summary::count_lines(counts, &path));
                    print!("{}", secrets::mask(&lines));
                }
                write_reports(&context, &report, quiet);
                if context.format_junit {
                    junit_format::print(&report);
                }
            }
            Err(error) => eprintln!("skillgym: cannot write results.json: {error}"),
        }
    }
    if context.format_junit && results.is_empty() {
        junit_format::print(&RunReport::new(
            vec![context.run_dir.run_id().to_owned()],
            vec![context.run_dir.path()],
            Vec::new(),
        ));
    }
    if process_per_test() {
        // nextest shows a test's output with its result: say what the one execution did.
        let lines: String = results
            .iter()
            .map(|(_, result)| format!("skillgym: {}\n", summary::execution_line(result)))
            .collect();
        print!("{}", secrets::mask(&lines));
    }
    if let Some(signal) = interrupt::received() {
        eprintln!(
            "skillgym: interrupted by {}; the results gathered so far are in {}",
            signal.name(),
            context.run_dir.path().display()
        );
        return ExitCode::from(signal.exit_code());
    }
    conclusion.exit_code()
}

/// Has every reporter of the run write into the run directory, and names what each wrote.
fn write_reports(context: &RunContext, report: &RunReport, quiet: bool) {
    let dir = context.run_dir.path();
    for reporter in &context.reporters {
        match reporter.write(report, &dir) {
            Ok(paths) if !quiet => {
                for path in paths {
                    println!("skillgym: {}: {}", reporter.name(), path.display());
                }
            }
            Ok(_) => {}
            Err(error) => eprintln!("skillgym: the {} reporter failed: {error}", reporter.name()),
        }
    }
}

/// Runs the `after_all` hooks of every declarative suite whose cases ran in this run, with
/// the runners they ran on.
pub(super) fn run_after_all(context: &RunContext) {
    let results = context
        .results
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let mut suites: Vec<(Arc<SuiteScope>, Vec<&str>)> = Vec::new();
    for (_, result) in results.iter().filter(|(_, r)| !r.repetitions.is_empty()) {
        let Some(CaseCheck::Declared(check)) = context
            .cases
            .iter()
            .find(|case| case.id == result.case_id)
            .map(|case| &case.check)
        else {
            continue;
        };
        match suites
            .iter_mut()
            .find(|(s, _)| Arc::ptr_eq(s, &check.suite))
        {
            Some((_, runners)) if !runners.contains(&result.runner_id.as_str()) => {
                runners.push(&result.runner_id);
            }
            Some(_) => {}
            None => suites.push((Arc::clone(&check.suite), vec![&result.runner_id])),
        }
    }
    let run_dir = context.run_dir.path();
    for (suite, runners) in suites {
        suite_hooks::after_all(&run_dir, context.run_dir.run_id(), &suite, &runners);
    }
}

/// Says that replaying runners started no agent, and where their sessions came from.
fn replay_line(runners: &[crate::run::Runner]) -> String {
    let mut recordings: Vec<String> = runners
        .iter()
        .filter_map(|runner| runner.replay.as_ref())
        .map(|replay| replay.recording.root().display().to_string())
        .collect();
    recordings.sort();
    recordings.dedup();
    if recordings.is_empty() {
        return String::new();
    }
    format!(
        "skillgym: replayed from {}: no agent was started; usage and durations are the recording's\n",
        recordings.join(", ")
    )
}
