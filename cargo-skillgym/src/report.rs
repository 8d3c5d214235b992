//! `cargo skillgym report`: the summary and the reporters' files of finished runs, rebuilt from
//! their run directories and merged — nextest's runs (a process per trial, no run-level
//! summary of their own) and shards run on several machines alike.

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::report::{self, LoadOptions, RunReport};

/// Rebuild the summary and the reporters' output of one or more run directories.
///
/// Each run directory holds `<case>/<runner>/result.json` per execution (every process of a
/// run writes its own). Several directories (the shards of a partitioned run) are merged; an
/// execution found in more than one is taken from the last given; a runner whose agent ran in
/// different versions in the runs merged gets a warning; dry runs (`--mock`) and live runs are
/// not merged unless `--mix-dry-runs` says so. Exits 0 when every
/// execution passed (or was skipped), 1 when one failed, 2 on a usage error or an unreadable
/// directory.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// Run directories (e.g. `target/skillgym/runs/RUN_ID`, or its `latest`)
    #[arg(value_name = "RUN_DIR", required = true)]
    run_dirs: Vec<PathBuf>,
    /// Reporters to write (default: every built-in one); repeatable, comma lists
    #[arg(
        long = "reporter",
        value_name = "NAME[,NAME...]",
        value_delimiter = ','
    )]
    reporters: Vec<String>,
    /// Where the reporters write (default: the run directory, when there is one)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Merge dry runs (`--mock`: invented tokens and costs) with live runs; refused without it
    #[arg(long)]
    mix_dry_runs: bool,
}

pub(crate) fn run(args: &ReportArgs) -> ExitCode {
    let out = match (&args.out, args.run_dirs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [only]) => only.clone(),
        (None, _) => {
            return crate::fail(
                "several run directories are merged: say where the reports go with `--out <DIR>`",
            );
        }
    };
    let reporters = match reporters_of(args) {
        Ok(reporters) => reporters,
        Err(message) => return crate::fail(message),
    };
    let options = LoadOptions::default().dry_runs_mixed(args.mix_dry_runs);
    let merged = match RunReport::load_with(&args.run_dirs, options) {
        Ok(merged) => merged,
        Err(error) => return crate::fail(error),
    };
    if let Err(error) = std::fs::create_dir_all(&out) {
        return crate::fail(format!("cannot create {}: {error}", out.display()));
    }
    print!("{}", report::summary_text(&merged));
    for warning in &merged.warnings {
        eprintln!("{}", crate::escape(&format!("warning: {warning}")));
    }
    let written = write_all(&reporters, &merged, &out);
    let mut failed_reporters = false;
    for (reporter, written) in reporters.iter().zip(written) {
        match written {
            Ok(paths) => {
                for path in paths {
                    let line = format!("skillgym: {}: {}", reporter.name(), path.display());
                    println!("{}", crate::escape(&line));
                }
            }
            Err(error) => {
                let line = format!("error: the {} reporter failed: {error}", reporter.name());
                eprintln!("{}", crate::escape(&line));
                failed_reporters = true;
            }
        }
    }
    let counts = merged.counts();
    if failed_reporters {
        ExitCode::from(2)
    } else if counts.failed + counts.unexpected_passed + counts.interrupted > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The reporters `--reporter` names (every built-in one without it); `standard` is the summary
/// printed anyway.
fn reporters_of(args: &ReportArgs) -> Result<Vec<Box<dyn report::Reporter>>, String> {
    let names: Vec<String> = if args.reporters.is_empty() {
        report::BUILT_IN
            .iter()
            .map(|name| (*name).to_owned())
            .collect()
    } else {
        args.reporters.clone()
    };
    let mut reporters = Vec::with_capacity(names.len());
    for name in names.iter().filter(|name| name.as_str() != "standard") {
        match report::built_in(name) {
            Some(reporter) => reporters.push(reporter),
            None => {
                return Err(format!(
                    "`--reporter` names unknown reporter `{name}` (built-in reporters: {})",
                    report::BUILT_IN.join(", ")
                ));
            }
        }
    }
    Ok(reporters)
}

/// Each reporter in a thread of its own (they only read the report); their results in order.
fn write_all(
    reporters: &[Box<dyn report::Reporter>],
    merged: &RunReport,
    out: &std::path::Path,
) -> Vec<std::io::Result<Vec<PathBuf>>> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = reporters
            .iter()
            .map(|reporter| scope.spawn(|| reporter.write(merged, out)))
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the reporter panicked")))
            })
            .collect()
    })
}
