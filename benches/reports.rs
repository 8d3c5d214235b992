//! Benchmark (not a timed test) of `cargo skillgym report` at scale: merging 25,000 and 100,000
//! executions written by 4 partitions, and the HTML report of 10,000 opened in headless
//! Chromium.
//!
//! Targets (issue 35): the merge of 100,000 executions (every built-in reporter) in at most 10 s
//! and 1 GB peak RSS; the `report.html` of 10,000 executions opened by headless Chromium within
//! 2 s.
//!
//! Run it with
//!
//! ```text
//! cargo bench -p skillgym-e2e --bench reports                  # release
//! cargo bench -p skillgym-e2e --bench reports --profile dev    # the Quick start's debug build
//! ```
//!
//! `cargo-skillgym` is built in the profile the benchmark runs in. The run directories come from
//! `skillgym_e2e::big_runs` (written once per invocation under `target/skillgym-bench-reports/`,
//! not timed). It prints one table:
//!
//! | row | measures |
//! |---|---|
//! | `merge N (P partitions)` | `cargo skillgym report --out DIR part-0 .. part-P` with every built-in reporter: wall time (spawn to exit), peak RSS (`wait4`), size of `report.html` and `results.json` |
//! | `html N` | `cargo skillgym report --reporter html` of N executions: the same, and the page's size |
//! | `open N` | headless Chromium (inside `unshare -n`) taking a 1280×800 screenshot of that page (loaded, its script run, laid out and painted): the median wall time of 3 opens, and the same for an empty page (Chromium's own start), so the page's share is the difference |
//!
//! Chromium rows are left out (with a note) when `chromium` or `unshare -n` is unavailable.

use std::fs;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Instant;

use skillgym_e2e::{big_runs, built_package_executable, workspace_root};

/// One measured process.
struct Measured {
    seconds: f64,
    peak_rss_mb: f64,
    status: ExitStatus,
}

fn main() {
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    let cargo_skillgym = built_package_executable(
        &[
            "build",
            "--profile",
            profile,
            "-p",
            "cargo-skillgym",
            "--bin",
            "cargo-skillgym",
        ],
        "cargo-skillgym",
        "cargo-skillgym",
    );
    let root = workspace_root()
        .join("target")
        .join("skillgym-bench-reports");
    let _ = fs::remove_dir_all(&root);
    println!("reports benchmark, cargo-skillgym built with the `{profile}` profile\n");
    println!(
        "| {:<28} | {:>8} | {:>9} | {:>12} | {:>12} |",
        "what", "time", "peak RSS", "report.html", "results.json"
    );
    println!(
        "|{:-<30}|{:->10}|{:->11}|{:->14}|{:->14}|",
        "", "", "", "", ""
    );

    for (executions, partitions) in [(25_000, 4), (100_000, 4)] {
        let dir = root.join(format!("merge-{executions}"));
        let runs = big_runs::write_partitions(&dir, executions, partitions);
        let out = dir.join("out");
        let measured = measure(
            Command::new(&cargo_skillgym)
                .args(["skillgym", "report", "--out"])
                .arg(&out)
                .args(&runs),
        );
        assert_eq!(measured.status.code(), Some(1), "failures were planted");
        row(
            &format!("merge {executions} ({partitions} partitions)"),
            &measured,
            &out,
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    let executions = 10_000;
    let dir = root.join(format!("html-{executions}"));
    let runs = big_runs::write_partitions(&dir, executions, 2);
    let out = dir.join("out");
    let measured = measure(
        Command::new(&cargo_skillgym)
            .args(["skillgym", "report", "--reporter", "html", "--out"])
            .arg(&out)
            .args(&runs),
    );
    assert_eq!(measured.status.code(), Some(1), "failures were planted");
    row(&format!("html {executions}"), &measured, &out);
    let page = out.join("report.html");
    match chromium() {
        Some(chromium) => {
            let blank = dir.join("blank.html");
            fs::write(&blank, "<!DOCTYPE html><title>blank</title>").unwrap();
            let empty = median_open(&chromium, &blank, &dir.join("profile-blank"));
            let report = median_open(&chromium, &page, &dir.join("profile-report"));
            println!(
                "| {:<28} | {:>6.2} s | {:>9} | {:>12} | {:>12} |",
                format!("open {executions} in Chromium"),
                report,
                "",
                format!("(empty {empty:.2} s)"),
                format!("(page {:.2} s)", report - empty),
            );
        }
        None => println!("(no Chromium or no `unshare -n`: the page was not opened)"),
    }
    fs::remove_dir_all(&root).unwrap();
}

/// Runs `command` (its output discarded) and measures it.
fn measure(command: &mut Command) -> Measured {
    let started = Instant::now();
    // Reaped by `wait4`, which also reports its peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_rss_kb) = wait4(child.id());
    Measured {
        seconds: started.elapsed().as_secs_f64(),
        peak_rss_mb: peak_rss_kb as f64 / 1024.0,
        status,
    }
}

/// Prints a row of the table for `measured`, with the sizes of the files written to `out`.
fn row(what: &str, measured: &Measured, out: &Path) {
    let size = |name: &str| {
        fs::metadata(out.join(name)).map_or("-".to_owned(), |m| {
            format!("{:.1} MB", m.len() as f64 / 1_000_000.0)
        })
    };
    println!(
        "| {what:<28} | {:>6.2} s | {:>6.0} MB | {:>12} | {:>12} |",
        measured.seconds,
        measured.peak_rss_mb,
        size("report.html"),
        size("results.json"),
    );
}

/// Waits for the child; returns its status and its peak RSS in KiB.
fn wait4(pid: u32) -> (ExitStatus, u64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` are valid out pointers.
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid as libc::pid_t, "wait4 failed");
    (
        ExitStatus::from_raw(status),
        u64::try_from(usage.ru_maxrss).unwrap_or(0),
    )
}

/// Chromium, when it and `unshare -n` can run here.
fn chromium() -> Option<PathBuf> {
    let chromium = skillgym_e2e::chromium::find()?;
    let unshare = Command::new("unshare")
        .args(["-n", "--", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    unshare.then_some(chromium)
}

/// The median wall time (s) of 3 headless opens of `page` to its first screenshot (load, the
/// script's first page of the list, layout and paint) at 1280×800, inside `unshare -n`.
fn median_open(chromium: &Path, page: &Path, profile: &Path) -> f64 {
    let shot = profile.with_extension("png");
    let mut times: Vec<f64> = (0..3)
        .map(|_| {
            let started = Instant::now();
            let output = skillgym_e2e::chromium::offline_headless(chromium, profile)
                .arg("--window-size=1280,800")
                .arg(format!("--screenshot={}", shot.display()))
                .arg(format!("file://{}", page.display()))
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .unwrap();
            assert!(output.status.success(), "Chromium failed on {page:?}");
            started.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[1]
}
