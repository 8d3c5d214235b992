//! Two cases with the same id: the harness refuses to plan, naming both declarations.
//!
//! This target is its own harness (`harness = false`): run as a child (`DUPLICATE_IDS_CHILD=1`)
//! it is a skillgym benchmark binary with a duplicate id; run by cargo it runs that child with
//! `--list` and checks the error.

use std::process::{Command, ExitCode};

use skillgym_harness::{CommandAgent, Harness};

#[skillgym::case(prompt = "one", id = "same")]
fn first(_report: &skillgym::SessionReport) {}

#[skillgym::case(prompt = "two", id = "same")]
fn second(_report: &skillgym::SessionReport) {}

fn main() -> ExitCode {
    if std::env::var_os("DUPLICATE_IDS_CHILD").is_some() {
        return Harness::new()
            .runner("r", CommandAgent::new("/bin/true"))
            .run();
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .env("DUPLICATE_IDS_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let checks = [
        ("exit code 2", output.status.code() == Some(2)),
        ("nothing listed", output.stdout.is_empty()),
        (
            "names the id",
            stderr.contains("error: duplicate case id `same`:"),
        ),
        (
            "first location",
            stderr.contains("first declared at tests/duplicate_ids.rs:12"),
        ),
        (
            "second location",
            stderr.contains("again declared at tests/duplicate_ids.rs:15"),
        ),
        (
            "suggests a fix",
            stderr.contains("help: give one of them an explicit `id = \"...\"`"),
        ),
    ];
    let failed: Vec<&str> = checks
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(name, _)| *name)
        .collect();
    println!("\nrunning 1 test");
    if failed.is_empty() {
        println!("test duplicate_case_ids_are_an_error ... ok\n");
        println!("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n");
        ExitCode::SUCCESS
    } else {
        println!("test duplicate_case_ids_are_an_error ... FAILED\n");
        println!("failed checks: {failed:?}\nstderr:\n{stderr}");
        println!(
            "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
        );
        ExitCode::from(101)
    }
}
