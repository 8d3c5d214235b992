//! Running the trials (with their live progress) and what follows: `results.json`, the summary,
//! the suites' `after_all` hooks, the exit code.
//!
//! A file that cannot be written (a full disk) costs nothing else: the summary, every other
//! reporter and the `--format junit` document still come out, the verdicts still decide the
//! exit code, and a run that lost a file exits 101 even when every verdict passed.

use std::process::ExitCode;
use std::sync::{Arc, PoisonError};
use std::time::SystemTime;

use libtest_mimic::{Arguments, Trial};

use super::context::RunContext;
use super::{junit_format, process_per_test};
use crate::execute::suite_hooks;
use crate::interrupt;
use crate::progress;
use crate::reaper;
use crate::report::{RunReport, console};
use crate::results::{Counts, ExecutionResult, RunResults};
use crate::suite::CaseCheck;
use crate::suite::declared::SuiteScope;
use crate::summary;
use crate::terminal_text::{self, eprintln_escaped, println_escaped};
use crate::time::Timestamp;
use crate::unwritten;

/// `--list`: libtest's lines (`<name>: test`, the trials the filters keep; with `--ignored`
/// only the ignored ones), written through one buffer where libtest-mimic writes a line at a
/// time (10,000 trials: 10,000 writes to a pipe). With `--logfile` libtest-mimic writes them.
fn list(arguments: &Arguments, trials: Vec<Trial>) -> ExitCode {
    use std::io::Write as _;
    if arguments.logfile.is_some() {
        return libtest_mimic::run(arguments, trials).exit_code();
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let listed = trials
        .iter()
        .filter(|trial| !arguments.is_filtered_out(trial))
        .try_for_each(|trial| {
            let kind = trial.kind();
            let kind = if kind.is_empty() {
                String::new()
            } else {
                format!("[{kind}] ")
            };
            let what = if trial.is_bench() { "bench" } else { "test" };
            writeln!(out, "{kind}{}: {what}", trial.name())
        });
    match listed.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`| head`) is no failure of the listing.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write the list: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the trials; after an in-process run, writes `results.json` and prints the summary.
pub(super) fn execute(
    arguments: &Arguments,
    context: Arc<RunContext>,
    trials: Vec<Trial>,
) -> ExitCode {
    let started = SystemTime::now();
    if arguments.list {
        return list(arguments, trials);
    }
    if let Err(error) = interrupt::install() {
        eprintln_escaped!("skillgym: cannot handle SIGINT/SIGTERM/SIGHUP: {error}");
    }
    reaper::become_subreaper();
    // What a killed run left of the secret files it kept out of the run directory, removed
    // while the trials run (a temporary directory can hold thousands of entries to read).
    let sweeping = crate::private_dir::sweep_in_background();
    // The live status (or the slow-execution notices) while the trials run; it is erased and
    // the real stdout restored before skillgym's own lines.
    let mut libtest_arguments = arguments.clone();
    let progress = progress::start(
        &mut libtest_arguments,
        &context.engine.progress,
        process_per_test(),
    );
    let muted = context.format_junit.then(junit_format::Muted::stdout);
    let conclusion = libtest_mimic::run(&libtest_arguments, trials);
    interrupt::yield_to_an_immediate_exit();
    // The agents' versions, asked while the trials ran: none of their processes outlives the run.
    context.engine.versions.wait();
    sweeping.wait();
    progress.finish();
    drop(muted);
    if !process_per_test() {
        run_after_all(&context);
    }
    let escaped = reaper::end_run();
    crate::workspace::root::end_run();
    if escaped > 0 {
        eprintln!(
            "skillgym: killed {escaped} agent process(es) still running at the end of the run"
        );
    }
    let mut failed_reports = FailedReports::default();
    let mut results = std::mem::take(
        &mut *context
            .results
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    if !process_per_test() && !results.is_empty() {
        results.sort_by_key(|(position, _)| *position);
        let executions: Vec<&ExecutionResult> = results.iter().map(|(_, r)| r).collect();
        failed_reports = write_and_print(arguments, &context, started, executions);
    }
    if context.format_junit && results.is_empty() {
        junit_format::print(&RunReport::new(
            vec![context.engine.run_dir.run_id().to_owned()],
            vec![context.engine.run_dir.path()],
            Vec::new(),
        ));
    }
    if process_per_test() {
        // nextest shows a test's output with its result: say what the one execution did.
        let lines: String = results
            .iter()
            .map(|(_, result)| format!("skillgym: {}\n", summary::execution_line(result)))
            .collect();
        print!("{}", terminal_text::masked(&lines));
    }
    if let Some(signal) = interrupt::received() {
        eprintln_escaped!(
            "skillgym: interrupted by {}; the results gathered so far are in {}",
            signal.name(),
            context.engine.run_dir.path().display()
        );
        return ExitCode::from(signal.exit_code());
    }
    exit_code(&conclusion, failed_reports)
}

/// The exit code of a run that was not interrupted: the verdicts' (libtest's), but 101 when a
/// file or report could not be written, which the last line says.
fn exit_code(conclusion: &libtest_mimic::Conclusion, failed_reports: FailedReports) -> ExitCode {
    let lost = unwritten::tally();
    if lost.files == 0 && failed_reports.count == 0 {
        return conclusion.exit_code();
    }
    eprintln!(
        "{}",
        lost_line(lost, failed_reports, conclusion.has_failed())
    );
    match conclusion.has_failed() {
        true => conclusion.exit_code(),
        false => ExitCode::from(101),
    }
}

/// After an in-process run: writes `results.json`, prints the summary (unless quiet), has the
/// reporters write and prints the `--format junit` document. A file that cannot be written
/// stops nothing after it; the reporters that failed are returned.
fn write_and_print(
    arguments: &Arguments,
    context: &RunContext,
    started: SystemTime,
    executions: Vec<&ExecutionResult>,
) -> FailedReports {
    let counts = Counts::of(executions.iter().copied());
    let ended = SystemTime::now();
    let (started_at, ended_at) = (
        Timestamp::from(started).rfc3339(),
        Timestamp::from(ended).rfc3339(),
    );
    let report = RunReport::new(
        vec![context.engine.run_dir.run_id().to_owned()],
        vec![context.engine.run_dir.path()],
        executions.iter().map(|e| (*e).clone()).collect(),
    )
    .with_times(started_at.clone(), ended_at.clone())
    .with_dry_run(context.engine.dry_run.is_some());
    let run_results = RunResults {
        run_id: context.engine.run_dir.run_id(),
        run_dir: context.engine.run_dir.path(),
        started_at,
        ended_at,
        duration_ms: ended
            .duration_since(started)
            .map_or(0, |d| d.as_millis() as u64),
        selected_tags: &context.engine.settings.tags,
        summary: counts,
        experiment: report.experiment.clone(),
        triggers: &report.triggers,
        dry_run: report.is_dry_run(),
        executions,
    };
    let results_path = context.engine.run_dir.path().join("results.json");
    let written = summary::write_results(&context.engine.run_dir, &run_results);
    if let Err(error) = &written {
        unwritten::note_named(&results_path, error);
    }
    let quiet = arguments.quiet
        || context.format_junit
        || matches!(arguments.format, Some(libtest_mimic::FormatSetting::Json));
    if !quiet {
        let mut lines = summary::repetition_lines(run_results.executions.iter().copied());
        lines.push_str(&console::summary(&report));
        lines.push_str(&replay_line(&context.runners));
        let results = match &written {
            Ok(path) => Ok(path.as_path()),
            Err(error) => Err((results_path.as_path(), error)),
        };
        lines.push_str(&summary::count_lines(counts, results));
        print!("{}", terminal_text::masked(&lines));
    }
    let failed_reports = write_reports(context, &report, quiet);
    if context.format_junit {
        junit_format::print(&report);
    }
    failed_reports
}

/// The closing line of a run that could not write everything: how much, why when the disk
/// is full, and, when every verdict passed, that the run fails all the same.
fn lost_line(lost: unwritten::Tally, reports: FailedReports, verdicts_failed: bool) -> String {
    let mut parts = Vec::new();
    if lost.files > 0 {
        parts.push(format!("{} file(s)", lost.files));
    }
    if reports.count > 0 {
        parts.push(format!("{} report(s)", reports.count));
    }
    let mut line = format!("skillgym: {} could not be written", parts.join(" and "));
    if lost.disk_full || reports.disk_full {
        line.push_str(" (the disk is full)");
    }
    if lost.unnamed > 0 {
        line.push_str(&format!(
            "; {} of the files are not named above (each attempt's failure names its own)",
            lost.unnamed
        ));
    }
    if !verdicts_failed {
        line.push_str("; every verdict passed, but what the run was to keep is lost: it fails");
    }
    line
}

/// The reporters that failed.
#[derive(Debug, Default, Clone, Copy)]
struct FailedReports {
    count: usize,
    /// Whether one of them met a full disk.
    disk_full: bool,
}

/// Has every reporter of the run write into the run directory (one failing stops no other),
/// names what each wrote, and says which failed.
fn write_reports(context: &RunContext, report: &RunReport, quiet: bool) -> FailedReports {
    let dir = context.engine.run_dir.path();
    let mut failed = FailedReports::default();
    for reporter in &context.reporters {
        match reporter.write(report, &dir) {
            Ok(paths) if !quiet => {
                for path in paths {
                    println_escaped!("skillgym: {}: {}", reporter.name(), path.display());
                }
            }
            Ok(_) => {}
            Err(error) => {
                failed.count += 1;
                failed.disk_full |= unwritten::is_disk_full(&error);
                eprintln_escaped!(
                    "skillgym: the {} reporter cannot write into {}: {error}",
                    reporter.name(),
                    dir.display()
                );
            }
        }
    }
    failed
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
    let run_dir = context.engine.run_dir.path();
    for (suite, runners) in suites {
        suite_hooks::after_all(&run_dir, context.engine.run_dir.run_id(), &suite, &runners);
    }
}

/// Says that replaying runners started no agent, and where their sessions came from.
fn replay_line(runners: &[crate::runner::Runner]) -> String {
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
