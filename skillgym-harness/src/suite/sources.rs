//! The declarative suites of a run — `suites:` in `skillgym.yaml` and
//! [`Harness::suite`](crate::Harness::suite) — loaded into case specs, with the warnings of
//! their loading printed once per run.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::declared::case_specs;
use super::index::{Focus, IndexCache};
use super::registry::{CaseCheck, CaseSpec};
use super::yaml::{self, SuiteErrors, Warning};
use crate::config::ConfigError;
use crate::terminal_text::eprintln_escaped;

/// Where a suite path was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// An entry of `suites:` at this line and column of this config file.
    Config {
        file: PathBuf,
        line: u32,
        column: u32,
    },
    /// `Harness::suite` (relative paths resolved against the test crate's directory).
    Code,
}

/// One suite to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SuitePath {
    /// Absolute: a suite file or a directory holding one.
    pub(crate) path: PathBuf,
    pub(crate) origin: Origin,
}

/// The cases of every suite and what their loading skipped.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    pub(crate) cases: Vec<CaseSpec>,
    pub(crate) warnings: Vec<Warning>,
}

/// Loads every suite; the errors of all of them are reported together. With a `cache`, a
/// suite whose index is fresh is read as its suite file and stubs of its discovered cases
/// ([`super::index`]; with a `focus`, only the cases it accepts); the others are read whole
/// and indexed.
pub(crate) fn load_all(
    paths: &[SuitePath],
    cache: Option<&IndexCache>,
    focus: Option<Focus<'_>>,
) -> Result<Declared, SuiteErrors> {
    let mut declared = Declared::default();
    let mut errors = Vec::new();
    let mut failing = 0;
    let mut seen: Vec<PathBuf> = Vec::new();
    for suite in paths {
        if !suite.path.exists() {
            errors.push(missing(suite));
            failing += 1;
            continue;
        }
        match load_one(&suite.path, cache, focus) {
            Ok(loaded) => {
                // The same suite listed twice (by file and by directory) runs once.
                if seen.contains(&loaded.suite.file) {
                    continue;
                }
                seen.push(loaded.suite.file.clone());
                declared.cases.extend(case_specs(&loaded.suite));
                declared.warnings.extend(loaded.warnings);
            }
            Err(more) => {
                errors.extend(more.errors);
                failing += more.suites;
            }
        }
    }
    if errors.is_empty() {
        Ok(declared)
    } else {
        Err(SuiteErrors {
            errors,
            suites: failing,
        })
    }
}

/// One suite: from its fresh index, else read whole (and indexed when there is a cache).
fn load_one(
    path: &Path,
    cache: Option<&IndexCache>,
    focus: Option<Focus<'_>>,
) -> Result<yaml::Loaded, SuiteErrors> {
    let Some(cache) = cache else {
        return yaml::load_suite_from_env(path);
    };
    if let Some(indexed) = cache.fresh(path, focus) {
        let mut loaded = yaml::load_suite_only(path, &|name| std::env::var(name).ok(), Some(&[]))?;
        loaded.suite.cases.extend(indexed.cases);
        loaded.warnings = indexed.warnings;
        return Ok(loaded);
    }
    let pending = cache.begin(path);
    let looked_up: RefCell<Vec<(String, Option<String>)>> = RefCell::new(Vec::new());
    let env = |name: &str| {
        let value = std::env::var(name).ok();
        looked_up
            .borrow_mut()
            .push((name.to_owned(), value.clone()));
        value
    };
    let loaded = yaml::load_suite(path, &env)?;
    if let Some(pending) = pending {
        pending.finish(&loaded, &looked_up.borrow());
    }
    Ok(loaded)
}

/// Reads the case files of the stubs among `cases` that `wanted` names (by index), and puts
/// each case whole in its stub's place. An error when a case file no longer holds the case
/// its stub was made from (the suite changed since its index was checked).
pub(crate) fn hydrate(
    cases: &mut [CaseSpec],
    wanted: impl Fn(usize) -> bool,
) -> Result<(), SuiteErrors> {
    let mut by_suite: Vec<(PathBuf, Vec<usize>)> = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let CaseCheck::Declared(check) = &case.check else {
            continue;
        };
        if !check.stub || !wanted(index) {
            continue;
        }
        match by_suite
            .iter_mut()
            .find(|(file, _)| *file == check.suite.file)
        {
            Some((_, indexes)) => indexes.push(index),
            None => by_suite.push((check.suite.file.clone(), vec![index])),
        }
    }
    for (suite_file, indexes) in by_suite {
        let dirs: Vec<PathBuf> = indexes.iter().map(|&i| cases[i].base_dir.clone()).collect();
        let env = |name: &str| std::env::var(name).ok();
        let loaded = yaml::load_suite_only(&suite_file, &env, Some(&dirs))?;
        let mut whole: HashMap<String, CaseSpec> = case_specs(&loaded.suite)
            .into_iter()
            .map(|case| (case.id.clone(), case))
            .collect();
        for index in indexes {
            let Some(case) = whole.remove(&cases[index].id) else {
                let message = format!(
                    "case `{}` is no longer in `{}`: the suite changed while the run started; run it again",
                    cases[index].id,
                    cases[index].base_dir.display()
                );
                return Err(SuiteErrors::of_one(vec![ConfigError::new(
                    Some(&suite_file),
                    message,
                )]));
            };
            cases[index] = case;
        }
    }
    Ok(())
}

fn missing(suite: &SuitePath) -> ConfigError {
    let message = format!("suite `{}` does not exist", suite.path.display());
    let help = "a suite is an `EVAL.yaml` or `*.eval.yaml` file, or a directory holding one; relative paths are resolved against the config file's directory";
    match &suite.origin {
        Origin::Config { file, line, column } => {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            ConfigError::at(file, &text, *line, *column, message).with_help(help)
        }
        Origin::Code => ConfigError::new(None, format!("`Harness::suite`: {message}"))
            .with_help("relative paths are resolved against the test crate's directory"),
    }
}

/// Prints the loading warnings once per run: the first process of a run that shares its
/// directory (nextest's process per test) writes `suite-warnings.txt` there and prints them;
/// the others find the file and stay quiet.
pub(crate) fn warn_once(run_dir: &Path, warnings: &[Warning]) {
    if warnings.is_empty() {
        return;
    }
    let path = run_dir.join("suite-warnings.txt");
    let first = std::fs::create_dir_all(run_dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
    });
    let mut file = match first {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => return,
        Err(_) => {
            // Without a run directory to remember it in, printing twice beats not at all.
            print_warnings(warnings);
            return;
        }
    };
    for warning in warnings {
        let _ = writeln!(file, "{warning}");
    }
    print_warnings(warnings);
}

/// Prints each warning, its path relative to the current directory when it is under it.
fn print_warnings(warnings: &[Warning]) {
    let cwd = std::env::current_dir().unwrap_or_default();
    for warning in warnings {
        let path = warning.path.strip_prefix(&cwd).unwrap_or(&warning.path);
        eprintln_escaped!("skillgym: warning: {}: {}", path.display(), warning.message);
    }
}
