//! `max_steps` and timeouts kill the agent's whole process group and keep its logs; the
//! timeout comes from the case, else `defaults.timeout`.

use std::time::{Duration, Instant};

use super::Check;
use crate::{Run, Spec};

pub const CHECKS: &[(&str, Check)] = &[
    (
        "limits::max_steps_and_timeouts_kill_every_process_and_keep_the_logs",
        kills,
    ),
    (
        "limits::a_descendant_that_escaped_its_group_ends_with_its_session",
        escaped,
    ),
];

/// `fork-escaped` calls `setsid`: the child leaves the agent's process group, yet is gone when
/// the next session starts.
fn escaped() {
    let run = Run::new(
        "escape",
        Spec {
            args: &["--schedule", "serial", "--runner", "a", "cases::escape::"],
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    assert_eq!(
        run.trials(),
        [
            "[a] cases::escape::a_leaves ok",
            "[a] cases::escape::b_finds_none ok"
        ],
        "{}",
        run.context()
    );
    assert_eq!(
        std::fs::read_to_string(run.state("pids"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

fn kills() {
    let run = Run::new(
        "limits",
        Spec {
            args: &["--runner", "a", "cases::limits::"],
            config: "defaults:\n  timeout: 700ms\n",
            ..Spec::default()
        },
    );
    let attempt = |case: &str| {
        run.execution_dir(&format!("limits::{case}"), "a")
            .join("repeat-1/attempt-1")
    };

    let steps = run.execution("limits::max_steps_kill", "a");
    assert_eq!(steps["failure"]["origin"], "max-steps", "{}", run.context());
    let stdout = std::fs::read_to_string(attempt("max_steps_kill").join("stdout.log")).unwrap();
    assert_eq!(
        stdout.lines().count(),
        3,
        "raw output kept up to the kill: {stdout}"
    );
    let stderr = std::fs::read_to_string(attempt("max_steps_kill").join("stderr.log")).unwrap();
    assert!(stderr.contains("about to exceed"), "{stderr}");
    // The partial report is kept.
    let report = crate::read_json(&attempt("max_steps_kill").join("report.json"));
    assert_eq!(report["events"].as_array().unwrap().len(), 3);

    let timeout = run.execution("limits::timeout_kill", "a");
    assert_eq!(timeout["failure"]["origin"], "timeout");
    let message = timeout["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("within 400ms"),
        "the case's own timeout: {message}"
    );
    let default = run.execution("limits::default_timeout", "a");
    let message = default["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("within 700ms"),
        "defaults.timeout: {message}"
    );

    // Both agents forked two grandchildren into their process group: all are gone.
    let pids: Vec<i32> = std::fs::read_to_string(run.state("pids"))
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 4);
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in pids {
        while skillgym_e2e::process_exists(pid) && !is_zombie(pid) {
            assert!(
                Instant::now() < deadline,
                "process {pid} survived its session"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A zombie has exited; it only waits for its (re)parent to reap it.
fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(") ")
            .next()
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}
