//! The checks, one libtest trial each, grouped by concern.

mod dry_run;
mod experiment;
mod figures;
mod ids;
mod interrupt;
mod limits;
mod origins;
mod rejections;
mod repeat;
mod samples;
#[cfg(target_os = "linux")]
mod sandbox;
mod schedules;
mod secrets;
mod skills;
mod statuses;
mod triggers;
mod workspaces;

use serde_json::Value;

/// A check: panics with a message when the behaviour is wrong.
pub type Check = fn();

/// Every check with its trial name.
pub fn all() -> Vec<(&'static str, Check)> {
    [
        repeat::CHECKS,
        samples::CHECKS,
        experiment::CHECKS,
        statuses::CHECKS,
        origins::CHECKS,
        schedules::CHECKS,
        limits::CHECKS,
        workspaces::CHECKS,
        rejections::CHECKS,
        dry_run::CHECKS,
        skills::CHECKS,
        triggers::CHECKS,
        interrupt::CHECKS,
        ids::CHECKS,
        secrets::CHECKS,
        figures::CHECKS,
        #[cfg(target_os = "linux")]
        sandbox::CHECKS,
    ]
    .concat()
}

/// How many attempts each repetition of an execution result took.
pub fn attempts_per_repetition(result: &Value) -> Vec<usize> {
    result["repetitions"]
        .as_array()
        .unwrap_or_else(|| panic!("no repetitions in {result:#}"))
        .iter()
        .map(|r| r["attempts"].as_array().map_or(0, Vec::len))
        .collect()
}

/// A JSON number as u64.
pub fn number(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}
