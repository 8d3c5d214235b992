//! Loading a [`RunReport`] from run directories: each execution's `<case>/<runner>/result.json`
//! (`<case>/<runner>/<variant>/result.json` under variants; written by every process,
//! nextest's included), merged over the directories given.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::RunReport;
use crate::artifacts::is_layout_name;
use crate::results::ExecutionResult;

/// Why run directories cannot be reported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A directory cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The directory or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `result.json` is not an execution's result.
    #[error("{} is not an execution's result: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// No execution result in any of the directories.
    #[error(
        "no execution results (`<case>/<runner>/result.json` or `<case>/<runner>/<variant>/result.json`) in {}",
        joined(dirs)
    )]
    Empty {
        /// The directories.
        dirs: Vec<PathBuf>,
    },
    /// Dry runs (`--mock`) and live runs among the directories, not allowed to mix.
    #[error(
        "{} ran against the scripted model (`--mock`: dry runs, their tokens and costs invented) and {} against real models: merged, their figures would read as one run's",
        joined(dry),
        joined(live)
    )]
    MixedDryRuns {
        /// The dry runs' directories.
        dry: Vec<PathBuf>,
        /// The live runs' directories.
        live: Vec<PathBuf>,
    },
}

/// How [`RunReport::load_with`] merges run directories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Merge dry runs (`--mock`) with live ones (refused by default).
    pub mix_dry_runs: bool,
}

impl LoadOptions {
    /// These options, merging dry runs with live ones when `mix` is true.
    #[must_use]
    pub fn dry_runs_mixed(mut self, mix: bool) -> LoadOptions {
        self.mix_dry_runs = mix;
        self
    }
}

/// Which execution: case, runner and variant.
type Key = (String, String, Option<String>);

/// `dirs` displayed, separated by `, `.
fn joined(dirs: &[PathBuf]) -> String {
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    dirs.join(", ")
}

/// Loads every execution of `run_dirs`; an execution (case, runner and variant) found in several
/// directories is taken from the last one given.
pub(super) fn load(run_dirs: &[PathBuf], options: LoadOptions) -> Result<RunReport, LoadError> {
    let (dry, live): (Vec<PathBuf>, Vec<PathBuf>) =
        run_dirs.iter().cloned().partition(|dir| is_dry_run(dir));
    if !dry.is_empty() && !live.is_empty() && !options.mix_dry_runs {
        return Err(LoadError::MixedDryRuns { dry, live });
    }
    // Each execution with the index of the run it is taken from, and where each execution
    // (case, runner, variant) is in it: a later run's replaces it in place.
    let mut executions: Vec<ExecutionResult> = Vec::new();
    let mut runs: Vec<usize> = Vec::new();
    let mut at: HashMap<Key, usize> = HashMap::new();
    let mut run_ids = Vec::with_capacity(run_dirs.len());
    let (mut started, mut ended): (Option<String>, Option<String>) = (None, None);
    for dir in run_dirs {
        let dir = fs::canonicalize(dir).map_err(|source| LoadError::Read {
            path: dir.clone(),
            source,
        })?;
        run_ids.push(
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let run = run_ids.len() - 1;
        for execution in executions_in(&dir)? {
            let key = (
                execution.case_id.clone(),
                execution.runner_id.clone(),
                execution.variant.clone(),
            );
            match at.entry(key) {
                Entry::Occupied(found) => {
                    executions[*found.get()] = execution;
                    runs[*found.get()] = run;
                }
                Entry::Vacant(slot) => {
                    slot.insert(executions.len());
                    executions.push(execution);
                    runs.push(run);
                }
            }
        }
        if let Some((start, end)) = run_times(&dir) {
            started = Some(started.map_or(start.clone(), |s| s.min(start)));
            ended = Some(ended.map_or(end.clone(), |e| e.max(end)));
        }
    }
    drop(at);
    if executions.is_empty() {
        return Err(LoadError::Empty {
            dirs: run_dirs.to_vec(),
        });
    }
    let warnings = version_warnings(&executions, &runs, &run_ids);
    executions.shrink_to_fit();
    let mut report = RunReport::new(run_ids, run_dirs.to_vec(), executions);
    report.started_at = started;
    report.ended_at = ended;
    report.warnings = warnings;
    report.dry_runs = run_dirs
        .iter()
        .zip(&report.run_ids)
        .filter(|(dir, _)| dry.contains(dir))
        .map(|(_, id)| id.clone())
        .collect();
    Ok(report)
}

/// Whether the run in `dir` was a dry run: its `run.json` says `mock` (a run without one, made
/// before it was written, counts as live).
fn is_dry_run(dir: &Path) -> bool {
    crate::run_record::RunRecord::read(dir).is_ok_and(|record| record.mock)
}

/// One warning per runner whose agent ran in more than one version among `executions` (each
/// with the index of its run in `run_ids` in `runs`), naming the runs of each version; unknown
/// versions are no difference.
fn version_warnings(
    executions: &[ExecutionResult],
    runs: &[usize],
    run_ids: &[String],
) -> Vec<String> {
    let mut runners: Vec<&str> = Vec::new();
    for execution in executions {
        if !runners.contains(&execution.runner_id.as_str()) {
            runners.push(&execution.runner_id);
        }
    }
    let mut warnings = Vec::new();
    for runner in runners {
        // Each version (with its agent type) and the runs that used it, in order.
        let mut versions: Vec<(String, Vec<&str>)> = Vec::new();
        let of_runner = executions.iter().zip(runs);
        for (execution, run) in of_runner.filter(|(e, _)| e.runner_id == runner) {
            let Some(version) = &execution.agent.version else {
                continue;
            };
            let label = format!("{} {version}", execution.agent.kind);
            let run = run_ids[*run].as_str();
            match versions.iter_mut().find(|(known, _)| *known == label) {
                Some((_, runs)) if runs.contains(&run) => {}
                Some((_, runs)) => runs.push(run),
                None => versions.push((label, vec![run])),
            }
        }
        if versions.len() > 1 {
            let listed: Vec<String> = versions
                .iter()
                .map(|(label, runs)| format!("{label} (run {})", runs.join(", ")))
                .collect();
            warnings.push(format!(
                "runner `{runner}` ran different versions of its agent in the merged runs: {}; their results may not be comparable",
                listed.join("; ")
            ));
        }
    }
    warnings
}

/// The executions of one run directory, from `<case>/<runner>/result.json`, or under variants
/// `<case>/<runner>/<variant>/result.json`: every entry but the run directory's own
/// ([`is_layout_name`], which no case id's directory is), in the order the directory lists
/// them. The case directories are read and parsed by as many threads as there are cores, each
/// over a contiguous share of them with one reused buffer.
fn executions_in(dir: &Path) -> Result<Vec<ExecutionResult>, LoadError> {
    let mut cases = Vec::new();
    for case in read_dir(dir)?.flatten() {
        let name = case.file_name();
        if is_layout_name(&name.to_string_lossy()) {
            continue;
        }
        if case.file_type().is_ok_and(|t| t.is_dir()) || case.path().is_dir() {
            cases.push(case.path());
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let share = cases.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = cases
            .chunks(share)
            .map(|part| {
                scope.spawn(move || {
                    let (mut buffer, mut found) = (Vec::new(), Vec::new());
                    for case in part {
                        executions_of_case(case, &mut buffer, &mut found)?;
                    }
                    Ok(found)
                })
            })
            .collect();
        let mut found = Vec::with_capacity(cases.len());
        for part in parts {
            found.extend(part.join().expect("a thread reading results panicked")?);
        }
        Ok(found)
    })
}

/// `fs::read_dir` of `path`, its error a [`LoadError::Read`].
fn read_dir(path: &Path) -> Result<fs::ReadDir, LoadError> {
    fs::read_dir(path).map_err(|source| LoadError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Adds the executions of the case directory `case` to `found`, each file read into `buffer`.
fn executions_of_case(
    case: &Path,
    buffer: &mut Vec<u8>,
    found: &mut Vec<ExecutionResult>,
) -> Result<(), LoadError> {
    for runner in read_dir(case)?.flatten() {
        let file = runner.path().join("result.json");
        if let Some(execution) = execution_at(&file, buffer)? {
            found.push(execution);
            continue;
        }
        if !runner.path().is_dir() {
            continue;
        }
        for variant in read_dir(&runner.path())?.flatten() {
            let file = variant.path().join("result.json");
            // `repeat-N/` holds no result.json of its own; only a variant's counts.
            if let Some(execution) = execution_at(&file, buffer)?
                && execution.variant.is_some()
            {
                found.push(execution);
            }
        }
    }
    Ok(())
}

/// The execution whose `result.json` is `file` (read into `buffer`), or `None` when there is
/// no such file.
fn execution_at(file: &Path, buffer: &mut Vec<u8>) -> Result<Option<ExecutionResult>, LoadError> {
    let unreadable = |source| LoadError::Read {
        path: file.to_path_buf(),
        source,
    };
    let mut opened = match fs::File::open(file) {
        Ok(opened) => opened,
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(error) => return Err(unreadable(error)),
    };
    buffer.clear();
    opened.read_to_end(buffer).map_err(unreadable)?;
    serde_json::from_slice(buffer)
        .map(Some)
        .map_err(|error| LoadError::Parse {
            path: file.to_path_buf(),
            message: error.to_string(),
        })
}

/// The start and end of an in-process run, from its `results.json`: read as a stream, every
/// other member skipped unparsed (the file of a big run holds every execution).
fn run_times(dir: &Path) -> Option<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Times {
        started_at: String,
        ended_at: String,
    }
    let file = fs::File::open(dir.join("results.json")).ok()?;
    let times: Times = serde_json::from_reader(std::io::BufReader::new(file)).ok()?;
    Some((times.started_at, times.ended_at))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixtures::execution;
    use super::*;

    /// Writes `executions` as the `result.json` files of the run directory `dir`.
    fn run(dir: &Path, executions: &[ExecutionResult]) {
        for e in executions {
            let mut path = dir.join(&e.case_id).join(&e.runner_id);
            if let Some(variant) = &e.variant {
                path = path.join(variant);
            }
            let path = path.join("result.json");
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, serde_json::to_string(e).unwrap()).unwrap();
        }
    }

    fn on(case: &str, runner: &str, version: Option<&str>) -> ExecutionResult {
        execution(
            case,
            runner,
            json!({"agent": {"type": "claude-code", "version": version}}),
        )
    }

    #[test]
    fn merged_runs_with_different_versions_of_a_runners_agent_get_a_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("run-a"),
            tmp.path().join("run-b"),
            tmp.path().join("run-c"),
        );
        run(
            &a,
            &[
                on("x", "claude", Some("2.1.330")),
                on("x", "other", Some("1.0.0")),
            ],
        );
        run(
            &b,
            &[
                on("y", "claude", Some("2.1.332")),
                on("y", "other", Some("1.0.0")),
            ],
        );
        run(
            &c,
            &[on("z", "claude", None), on("w", "claude", Some("2.1.330"))],
        );
        let merged = load(&[a.clone(), b.clone(), c.clone()], LoadOptions::default()).unwrap();
        assert_eq!(
            merged.warnings,
            [
                "runner `claude` ran different versions of its agent in the merged runs: claude-code 2.1.330 (run run-a, run-c); claude-code 2.1.332 (run run-b); their results may not be comparable"
            ],
            "one warning, for the runner whose versions differ; an unknown version is none"
        );
        let rows = merged.runner_rows();
        assert_eq!(rows[0].runner, "claude");
        assert_eq!(rows[0].versions, ["2.1.330", "2.1.332"]);
        assert_eq!(rows[0].agent, "claude-code");
        assert!(
            load(&[a.clone(), c], LoadOptions::default())
                .unwrap()
                .warnings
                .is_empty()
        );
        assert!(
            load(&[a], LoadOptions::default())
                .unwrap()
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn a_result_written_before_versions_were_recorded_loads_without_an_agent() {
        let tmp = tempfile::tempdir().unwrap();
        let mut value = serde_json::to_value(on("x", "r", Some("1.0"))).unwrap();
        value.as_object_mut().unwrap().remove("agent");
        let path = tmp.path().join("x/r/result.json");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, value.to_string()).unwrap();
        let loaded = load(&[tmp.path().to_path_buf()], LoadOptions::default()).unwrap();
        assert_eq!(loaded.executions[0].agent, skillgym::AgentInfo::default());
        let row = &loaded.runner_rows()[0];
        assert_eq!((row.agent.as_str(), row.versions.len()), ("", 0));
    }

    #[test]
    fn executions_under_variants_are_loaded_each_and_merged_by_variant() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("run-a"), tmp.path().join("run-b"));
        let under = |variant: &str, baseline: bool, source: &str| {
            execution(
                "x",
                "r",
                json!({"variant": variant, "baseline": baseline, "source": source}),
            )
        };
        run(
            &a,
            &[under("without", true, "a"), under("with", false, "a")],
        );
        run(&b, &[under("with", false, "b")]);
        let merged = load(&[a, b], LoadOptions::default()).unwrap();
        let found: Vec<(Option<&str>, &str)> = merged
            .executions
            .iter()
            .map(|e| (e.variant.as_deref(), e.source.as_str()))
            .collect();
        assert_eq!(
            found,
            [(Some("without"), "a"), (Some("with"), "b")],
            "the baseline first; the variant found again taken from the last run"
        );
    }

    #[test]
    fn partitions_merge_into_the_executions_of_one_run_in_one_order() {
        let tmp = tempfile::tempdir().unwrap();
        let all: Vec<ExecutionResult> = (0..40)
            .map(|n| {
                let status = if n % 7 == 3 { "failed" } else { "passed" };
                execution(
                    &format!("case-{:02}", n / 2),
                    ["a", "b"][n % 2],
                    json!({"status": status, "passed": status == "passed"}),
                )
            })
            .collect();
        let whole = tmp.path().join("whole");
        run(&whole, &all);
        let parts: Vec<PathBuf> = (0..3)
            .map(|k| tmp.path().join(format!("part-{k}")))
            .collect();
        for (n, e) in all.iter().enumerate() {
            run(&parts[(n * 5) % 3], std::slice::from_ref(e));
        }
        let one = load(&[whole], LoadOptions::default()).unwrap();
        let merged = load(&parts, LoadOptions::default()).unwrap();
        assert_eq!(merged.executions, one.executions);
        assert_eq!(merged.counts(), one.counts());
        assert_eq!(merged.run_ids, ["part-0", "part-1", "part-2"]);
        // An execution in two partitions is taken from the later, in its place.
        let mut again = all[4].clone();
        again.source = "rerun".into();
        run(&parts[2], &[again]);
        let merged = load(&parts, LoadOptions::default()).unwrap();
        assert_eq!(merged.executions.len(), 40);
        assert_eq!(merged.executions[4].source, "rerun");
    }

    #[test]
    fn an_in_process_runs_times_come_from_its_results_json_whatever_else_it_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("run-a"), tmp.path().join("run-b"));
        run(&a, &[on("x", "r", None)]);
        run(&b, &[on("y", "r", None)]);
        let results = |start: &str, end: &str| {
            json!({"executions": [{"case_id": "x", "deep": [[{"a": 1}]]}], "started_at": start,
                   "ended_at": end, "summary": {}})
            .to_string()
        };
        fs::write(
            a.join("results.json"),
            results("2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"),
        )
        .unwrap();
        fs::write(
            b.join("results.json"),
            results("2026-01-01T09:00:00Z", "2026-01-01T09:30:00Z"),
        )
        .unwrap();
        let merged = load(&[a.clone(), b], LoadOptions::default()).unwrap();
        assert_eq!(merged.started_at.as_deref(), Some("2026-01-01T09:00:00Z"));
        assert_eq!(merged.ended_at.as_deref(), Some("2026-01-01T10:05:00Z"));
        fs::write(a.join("results.json"), "{\"started_at\": null}").unwrap();
        let alone = load(&[a], LoadOptions::default()).unwrap();
        assert_eq!((alone.started_at, alone.ended_at), (None, None));
    }
}
