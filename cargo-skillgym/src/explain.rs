//! `cargo skillgym explain DIR`: runs the benchmark binary that made DIR's run (named in the
//! run's `run.json`) in explain mode, `<binary> --explain DIR [--rerun] [--mock]`, from its
//! crate's directory, and passes its exit code through.
//!
//! A run directory is data, and `run.json` names a program: explain runs it only when
//! [`RunRecord::check`] accepts it (an absolute path to an executable file outside the run
//! directory, likewise its crate directory and configuration), and says which binary it runs
//! before running it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use skillgym_harness::run_record::{RUN_FILE, RunRecord, run_dir_of};

/// Ask the agent of a failed attempt why, by resuming its session once per question of the
/// attempt's failed assertions.
///
/// DIR is an attempt directory (`<run>/<case>/<runner>/repeat-N/attempt-M`, holding
/// `explain.json`), or an execution or run directory: then every failed attempt below it that
/// recorded questions. Each question's session runs in the attempt's kept workspace with its
/// artifacts in `<attempt>/explain/question-NN/`; the answers go to
/// `<attempt>/explanations.json`. Stored answers are printed again unless `--rerun`. Exits 0
/// when every question was answered, 1 when a question's session failed, 2 when an attempt
/// could not be explained.
#[derive(Debug, clap::Args)]
pub(crate) struct ExplainArgs {
    /// An attempt, execution or run directory of a finished run
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Ask again even when explanations.json holds answers (replaces them)
    #[arg(long)]
    rerun: bool,
    /// Have the scripted model server answer (the default when the run was a --mock run)
    #[arg(long)]
    mock: bool,
}

pub(crate) fn run(args: &ExplainArgs) -> ExitCode {
    let dir = match std::path::absolute(&args.dir) {
        Ok(dir) if dir.is_dir() => dir,
        _ => {
            return crate::fail(format!(
                "{} is not a directory: give an attempt, execution or run directory",
                args.dir.display()
            ));
        }
    };
    let Some(run_dir) = run_dir_of(&dir) else {
        return crate::fail(format!(
            "no {RUN_FILE} in {} or above it: it is not inside a run directory of a benchmark binary (runs made before skillgym recorded their binary have none); run the binary yourself: `cargo test --test <name> -- --explain {}`",
            dir.display(),
            dir.display()
        ));
    };
    let record = match RunRecord::read(&run_dir) {
        Ok(record) => record,
        Err(error) => return crate::fail(error),
    };
    let by_hand = by_hand(&record, &dir, args);
    if record.executable.is_absolute() && !record.executable.exists() {
        return crate::fail(format!(
            "the benchmark binary of run {} is gone ({}); build it and explain with `{by_hand}`",
            run_dir.display(),
            record.executable_text()
        ));
    }
    if let Err(refusal) = record.check(&run_dir) {
        return crate::fail(refusal);
    }
    eprintln!(
        "skillgym: running {} (the benchmark binary recorded in {})",
        record.executable_text(),
        run_dir.join(RUN_FILE).display()
    );
    if rebuilt_since(&record.executable, &run_dir) {
        let line = format!(
            "skillgym: {} was rebuilt after the run; explaining with the new build",
            record.executable_text()
        );
        eprintln!("{}", crate::escape(&line));
    }
    let mut command = Command::new(&record.executable);
    command
        .arg("--explain")
        .arg(&dir)
        .current_dir(&record.crate_dir)
        .env("CARGO_MANIFEST_DIR", &record.crate_dir);
    if let Some(config) = &record.config {
        command.arg("--config").arg(config);
    }
    if args.rerun {
        command.arg("--rerun");
    }
    if args.mock || record.mock {
        command.arg("--mock");
    }
    match command.status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::from(1),
        },
        Err(error) => crate::fail(format!(
            "cannot run {}: {error}; explain with `{by_hand}`",
            record.executable_text()
        )),
    }
}

/// The command that explains without `run.json`'s binary: through cargo.
fn by_hand(record: &RunRecord, dir: &Path, args: &ExplainArgs) -> String {
    let mut line = format!(
        "cargo test --test {} -- --explain {}",
        record.test_target(),
        dir.display()
    );
    if args.rerun {
        line.push_str(" --rerun");
    }
    if args.mock || record.mock {
        line.push_str(" --mock");
    }
    line
}

/// Whether the binary changed after the run began (its `run.json` was written then).
fn rebuilt_since(executable: &Path, run_dir: &Path) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    match (modified(executable), modified(&run_dir.join(RUN_FILE))) {
        (Some(binary), Some(run)) => binary > run,
        _ => false,
    }
}
