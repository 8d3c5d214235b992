//! Side-by-side benchmark of this project against the TypeScript skillgym 0.8.1, both driving
//! the repository's fake agent as a `claude-code` runner in isolated workspaces.
//!
//! ```text
//! cargo bench -p skillgym-e2e --bench compare
//! ```
//!
//! | module | concern |
//! |---|---|
//! | `generate` | transcripts, the generated Cargo workspace, this project's configs |
//! | `tsside` | installing, configuring and running the TypeScript skillgym |
//! | `measure` | one timed process (wall time, peak RSS), the floor, sizes on disk |
//! | `scenarios` | S1–S6 and FLOOD in rounds |
//! | `table` | medians, ratios, the Markdown report, the targets |
//!
//! | variable | default | effect |
//! |---|---|---|
//! | `SKILLGYM_COMPARE_RUNS` | 5 | rounds per scenario (S6: at most 3; FLOOD: 1) |
//! | `SKILLGYM_COMPARE_SCENARIOS` | all | a subset, e.g. `S1,S3,FLOOD` |
//! | `SKILLGYM_COMPARE_TS_DIR` | `~/.cache/skillgym-compare/ts-0.8.1` | where npm installs skillgym 0.8.1 |
//! | `SKILLGYM_COMPARE_FLOOD_MB` | 1024 | size of the FLOOD transcript in MiB |
//!
//! The report is printed on stdout and written to `target/skillgym-compare/report.md`; each
//! measured run's stderr is kept in `target/skillgym-compare/logs/`, its output directory goes
//! under `$TMPDIR` and is removed after the run. The exit code is 0 whether targets hold or not,
//! 1 when a run failed that should have passed.

mod generate;
mod measure;
mod scenarios;
mod table;
mod tsside;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    if !std::env::args().any(|arg| arg == "--bench") {
        // `cargo test --benches` runs bench targets too: this one takes many minutes.
        eprintln!("compare: skipped (run it with `cargo bench -p skillgym-e2e --bench compare`)");
        return ExitCode::SUCCESS;
    }
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .map(|value| {
                value
                    .parse()
                    .unwrap_or_else(|_| panic!("{name} must be a number, found `{value}`"))
            })
            .unwrap_or(default)
    };
    let runs = number("SKILLGYM_COMPARE_RUNS", 5).max(1);
    let flood_mb = number("SKILLGYM_COMPARE_FLOOD_MB", 1024).max(1) as u64;
    let wanted: Vec<String> = std::env::var("SKILLGYM_COMPARE_SCENARIOS")
        .unwrap_or_default()
        .split(',')
        .map(|id| id.trim().to_owned())
        .filter(|id| !id.is_empty())
        .collect();
    let wants = |id: &str| wanted.is_empty() || wanted.iter().any(|w| w.eq_ignore_ascii_case(id));

    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = checkout.join("target/skillgym-compare");
    let work = root.join("work");
    let small = checkout.join("skillgym-harness/tests/fixtures/transcripts/claude-code.jsonl");
    let big = root.join("claude-20MiB.jsonl");
    let flood = root.join(format!("flood-{flood_mb}MiB.jsonl"));
    eprintln!("compare: generating files under {}", root.display());
    generate::claude_stream(&small, 20 << 20, &big);
    if wants("FLOOD") {
        generate::claude_stream(&small, flood_mb << 20, &flood);
    }
    generate::workspace(&work, checkout);

    let ts_dir = std::env::var_os("SKILLGYM_COMPARE_TS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/skillgym-compare/ts-0.8.1"));
    let ts = tsside::prepare(&ts_dir);
    if let Err(why) = &ts {
        eprintln!("compare: the TypeScript column stays empty: {why}");
    }

    // Not under the checkout: the output directories hold only what the tools write.
    let scratch = tempfile::Builder::new()
        .prefix("skillgym-compare-")
        .tempdir()
        .expect("create a scratch directory for the runs' output");
    let cargo = PathBuf::from(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let context = scenarios::Context {
        release: build(&cargo, &work, true),
        debug: build(&cargo, &work, false),
        root: root.clone(),
        scratch: scratch.path().to_owned(),
        run_count: std::cell::Cell::new(0),
        work,
        agent: PathBuf::from(env!("CARGO_BIN_EXE_fake-agent")),
        cargo,
        ts_missing: ts.as_ref().err().cloned(),
        ts: ts.ok(),
        small,
        big,
        flood,
        runs,
    };
    let load = || {
        let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        text.split(' ').take(3).collect::<Vec<_>>().join(" ")
    };
    let load_before = load();
    let outcome = context.run_all(&wanted);

    let header = table::Header {
        date: first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        node: tsside::node_version().unwrap_or_else(|| "missing".to_owned()),
        rustc: first_line("rustc", &["--version"]),
        runs,
        ts_missing: context.ts_missing.clone(),
        load: [load_before, load()],
        scratch: std::env::temp_dir().display().to_string(),
    };
    let report = table::render(&header, &outcome);
    print!("{report}");
    let path = root.join("report.md");
    std::fs::write(&path, &report).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    eprintln!("compare: report written to {}", path.display());
    if outcome.failures > 0 {
        eprintln!(
            "compare: {} run(s) failed where a pass was expected (see above)",
            outcome.failures
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Builds the `bench` package's test targets; the test binaries by target name.
fn build(cargo: &Path, work: &Path, release: bool) -> HashMap<String, PathBuf> {
    let profile = if release { "release" } else { "debug" };
    eprintln!(
        "compare: building the generated workspace ({profile}); the first time takes minutes"
    );
    let mut command = Command::new(cargo);
    command
        .current_dir(work)
        .args([
            "build",
            "--tests",
            "-p",
            "bench",
            "--message-format=json",
            "--target-dir",
        ])
        .arg(work.join("target"))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    if release {
        command.arg("--release");
    }
    let output = command.output().expect("run cargo");
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    if !output.status.success() {
        // With `--message-format=json` the compiler's errors are on stdout.
        for message in &messages {
            if let Some(rendered) = message["message"]["rendered"].as_str() {
                eprint!("{rendered}");
            }
        }
        panic!("cargo build of {} ({profile}) failed", work.display());
    }
    let mut binaries = HashMap::new();
    for message in &messages {
        let is_test = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|kind| kind == "test"));
        if let (true, Some(name), Some(executable)) = (
            is_test,
            message["target"]["name"].as_str(),
            message["executable"].as_str(),
        ) {
            binaries.insert(name.to_owned(), PathBuf::from(executable));
        }
    }
    for (name, _) in generate::TARGETS {
        assert!(
            binaries.contains_key(name),
            "cargo built no test binary `{name}` ({profile})"
        );
    }
    binaries
}

fn home() -> PathBuf {
    std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
}

/// The first line a program prints, or `?`.
fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| text.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
