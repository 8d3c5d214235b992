//! Benchmark (not a timed test) of an agent that prints far too much: the harness's peak memory
//! and the size of the report it writes, whatever the agent prints.
//!
//! Targets: a 1 GB flood of valid event lines and a 1 GB flood of garbage lines each stay under
//! 256 MB peak RSS, with `report.json` under 10 MB; so do four agents printing 256 MB each in
//! parallel.
//!
//! Run it with
//!
//! ```text
//! cargo bench -p skillgym-e2e --bench flood
//! ```
//!
//! `SKILLGYM_FLOOD_MB=<n>` changes the size of one flood (default 1024). The floods are written
//! once into `target/skillgym-flood/` and replayed by the fake agent (streamed, so the agent
//! itself stays small); `run.max_output` is raised above the flood so the whole of it is read.
//!
//! This binary is both sides: with `SKILLGYM_BENCH_CHILD=1` it is a skillgym harness with one
//! case; otherwise it writes the floods and a `skillgym.yaml`, runs itself as the harness once
//! per scenario, and prints, per scenario, the wall time, the peak RSS of the harness (from
//! `wait4`, which counts the largest of the harness and the agents it waited for) and the size
//! of the largest `report.json`.

use std::fs;
use std::io::{BufWriter, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use skillgym::SessionReport;

#[skillgym::case(prompt = "flood")]
fn session(_report: &SessionReport) {}

const FAKE_AGENT: &str = env!("CARGO_BIN_EXE_fake-agent");

fn main() -> ExitCode {
    if std::env::var_os("SKILLGYM_BENCH_CHILD").is_some() {
        return skillgym_harness::main();
    }
    let megabytes: u64 = std::env::var("SKILLGYM_FLOOD_MB")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1024);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/skillgym-flood");
    fs::create_dir_all(&dir).unwrap();
    let valid = flood(&dir, "valid", megabytes << 20, valid_line);
    let garbage = flood(&dir, "garbage", megabytes << 20, garbage_line);
    let quarter = flood(&dir, "valid-quarter", (megabytes << 20) / 4, valid_line);

    println!(
        "{:<34} {:>9} {:>14} {:>16} {:>10}",
        "scenario", "wall", "peak RSS", "report.json", "exit"
    );
    let scenarios: [(&str, Vec<&Path>); 3] = [
        ("1 agent, valid event lines", vec![&valid]),
        ("1 agent, garbage lines", vec![&garbage]),
        ("4 agents in parallel, valid", vec![&quarter; 4]),
    ];
    for (label, floods) in scenarios {
        let size: u64 = floods.iter().map(|f| fs::metadata(f).unwrap().len()).sum();
        let label = format!("{label}, {} MiB", size >> 20);
        let run = run(&dir, &floods);
        println!(
            "{label:<34} {:>7.1} s {:>11} MB {:>13} KB {:>10}",
            run.seconds,
            run.peak_rss_kb / 1024,
            run.largest_report / 1024,
            run.exit,
        );
    }
    ExitCode::SUCCESS
}

/// A result line of one scenario.
struct FloodRun {
    seconds: f64,
    peak_rss_kb: u64,
    largest_report: u64,
    exit: String,
}

/// Runs the harness once with one runner per flood, all in parallel.
fn run(dir: &Path, floods: &[&Path]) -> FloodRun {
    let out = dir.join("runs");
    let _ = fs::remove_dir_all(&out);
    let mut config = format!(
        "run:\n  output_dir: {}\n  max_output: 64GiB\n  max_parallel: {}\ndefaults: {{ timeout: 30m }}\nrunners:\n",
        out.display(),
        floods.len()
    );
    for (index, flood) in floods.iter().enumerate() {
        config.push_str(&format!(
            "  r{index}: {{ agent: {{ type: command, command: {FAKE_AGENT}, env: {{ FAKE_AGENT_SCRIPT: \"replay {}\" }} }} }}\n",
            flood.display()
        ));
    }
    let config_path = dir.join("skillgym.yaml");
    fs::write(&config_path, config).unwrap();
    let started = Instant::now();
    // Reaped by `wait4`, which also reports its peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--config".as_ref(), config_path.as_os_str()])
        .env("SKILLGYM_BENCH_CHILD", "1")
        .env("SKILLGYM_RUN_ID", "flood")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_rss_kb) = wait4(child.id());
    let seconds = started.elapsed().as_secs_f64();
    FloodRun {
        seconds,
        peak_rss_kb,
        largest_report: largest(&out, "report.json"),
        exit: match (status.code(), status.signal()) {
            (Some(code), _) => code.to_string(),
            (None, Some(signal)) => format!("signal {signal}"),
            _ => "?".to_owned(),
        },
    }
}

/// Waits for the child; returns its status and the peak RSS (KiB) of it and what it waited for.
fn wait4(pid: u32) -> (std::process::ExitStatus, u64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` are valid out pointers.
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid as libc::pid_t, "wait4 failed");
    (
        std::process::ExitStatus::from_raw(status),
        u64::try_from(usage.ru_maxrss).unwrap_or(0),
    )
}

/// The size of the largest file called `name` under `dir`.
fn largest(dir: &Path, name: &str) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                largest(&path, name)
            } else if path.file_name().is_some_and(|n| n == name) {
                fs::metadata(&path).map_or(0, |m| m.len())
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0)
}

/// Writes (once) a file of about `size` bytes of lines made by `line`.
fn flood(dir: &Path, name: &str, size: u64, line: fn(u64) -> String) -> PathBuf {
    let path = dir.join(format!("{name}-{}M.jsonl", size >> 20));
    if path.is_file() {
        return path;
    }
    let partial = path.with_extension("partial");
    let mut file = BufWriter::new(fs::File::create(&partial).unwrap());
    let mut written = 0;
    let mut number = 0;
    while written < size {
        let text = line(number);
        file.write_all(text.as_bytes()).unwrap();
        written += text.len() as u64;
        number += 1;
    }
    file.flush().unwrap();
    fs::rename(&partial, &path).unwrap();
    path
}

/// An assistant message in skillgym's event format, about 200 bytes.
fn valid_line(number: u64) -> String {
    format!(
        "{{\"type\":\"message\",\"role\":\"assistant\",\"text\":\"message {number:>10}: {}\"}}\n",
        "lorem ipsum dolor sit amet ".repeat(5)
    )
}

/// A line that is not JSON, about 100 bytes.
fn garbage_line(number: u64) -> String {
    format!("garbage {number:>10} {}\n", "x".repeat(80))
}
