//! `cargo skillgym record`: the replayable part of a run, copied where it can be committed.

use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::replay;

/// Pack a finished run for replay: each attempt's streams, prompt, report, result, workspace
/// record and the agent's own session file, without workspaces or agent state.
///
/// Replay it with `cargo test --test benchmarks -- --replay DIR`, or give a runner
/// `agent: { type: replay, recording: DIR }` in skillgym.yaml. The recording holds a
/// `.skillgym-recording` marker. Exits 2 when the run directory holds no executions or a
/// symbolic link out of it, or when DIR is in the way: the run directory itself, inside it or
/// holding it, or not empty (without --force, or not a recording).
#[derive(Debug, clap::Args)]
pub(crate) struct RecordArgs {
    /// The run directory (e.g. `target/skillgym/runs/RUN_ID`, or its `latest`)
    #[arg(value_name = "RUN_DIR")]
    run_dir: PathBuf,
    /// Where the recording goes: an empty or missing directory
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Replace the recording already in DIR: only a directory holding the `.skillgym-recording`
    /// marker that `record` writes (anything else is refused and left alone)
    #[arg(long)]
    force: bool,
}

pub(crate) fn run(args: &RecordArgs) -> ExitCode {
    match replay::pack(&args.run_dir, &args.dir, args.force) {
        Ok(summary) => {
            let text = format!(
                "recorded {} execution(s), {} attempt(s), {} KiB into {}\nreplay: cargo test --test <benchmarks> -- --replay {}",
                summary.executions,
                summary.attempts,
                summary.bytes.div_ceil(1024),
                args.dir.display(),
                args.dir.display()
            );
            println!("{}", crate::escape(&text));
            ExitCode::SUCCESS
        }
        Err(error) => crate::fail(error),
    }
}
