//! `cargo skillgym compare RUN_A RUN_B`: what changed between two finished runs — pass rates,
//! experiment lifts, tokens, cost and time — with the interval of each change, A taken as the
//! baseline.

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::report::{self, Comparison, RunReport};

/// Compare two runs: pass rates, experiment lifts, tokens, cost and time, each change with its
/// interval.
///
/// Run A is the baseline. Per case × runner × variant in both runs: each run's pass rate (95%
/// Wilson interval, n), B's change against A (Newcombe's 95% interval, Fisher's p, better / worse / no
/// detectable change) and the change of mean tokens, cost and time per session; each
/// experiment lift in both runs, side by side with its change; the executions found in one run
/// only. A runner whose agent type, version or model differs between the runs gets a warning.
/// Exits 0, or 1 with `--fail-on-regression` when a pass rate surely got worse, 2 on a usage
/// error or a directory that is not a run.
#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    /// The run compared against (e.g. `target/skillgym/runs/RUN_ID`)
    #[arg(value_name = "RUN_A")]
    run_a: PathBuf,
    /// The run compared with it
    #[arg(value_name = "RUN_B")]
    run_b: PathBuf,
    /// Print the comparison as JSON instead of the table
    #[arg(long)]
    json: bool,
    /// Exit 1 when some execution's pass rate surely got worse (the whole 95% interval of the
    /// change below 0)
    #[arg(long)]
    fail_on_regression: bool,
}

pub(crate) fn run(args: &CompareArgs) -> ExitCode {
    let load = |dir: &PathBuf| RunReport::load(std::slice::from_ref(dir));
    let (a, b) = match (load(&args.run_a), load(&args.run_b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(error), _) | (_, Err(error)) => return crate::fail(error),
    };
    let comparison = Comparison::of(&a, &b);
    if args.json {
        println!("{}", comparison.json());
    } else {
        print!("{}", report::comparison_text(&comparison));
    }
    for warning in &comparison.warnings {
        eprintln!("{}", crate::escape(&format!("warning: {warning}")));
    }
    let regressions: Vec<String> = comparison
        .regressions()
        .map(|e| e.key.trial_name())
        .collect();
    if args.fail_on_regression && !regressions.is_empty() {
        let line = format!(
            "error: the pass rate surely got worse (95% interval below 0) for {}",
            regressions.join(", ")
        );
        eprintln!("{}", crate::escape(&line));
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
