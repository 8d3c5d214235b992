//! The README's test command is the one that sets up what the tests need: its second set-up
//! command is `.ci/test`, CI runs that same script (not a `cargo test` of its own), and the
//! script installs every tool a test fails without.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use skillgym_e2e::workspace_root;

/// The commands of the README's first `sh` block, comments cut.
fn readme_commands(root: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README opens with an sh block");
    block
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn the_readme_test_command_is_the_script_ci_runs() {
    let root = workspace_root();
    let commands = readme_commands(root);
    assert_eq!(
        commands.len(),
        2,
        "the README keeps exactly two set-up commands: {commands:?}"
    );
    assert_eq!(commands[1], ".ci/test");
    let script = root.join(".ci/test");
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert!(mode & 0o111 != 0, ".ci/test is executable");

    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let ci_lines: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert!(
        ci_lines.contains(&".ci/test"),
        ".ci/run runs the README's test command"
    );
    assert!(
        !ci_lines.iter().any(|line| line.starts_with("cargo test")),
        ".ci/run runs no tests of its own beside .ci/test"
    );
}

#[test]
fn the_test_command_installs_every_tool_a_test_needs() {
    let script = std::fs::read_to_string(workspace_root().join(".ci/test")).unwrap();
    // What each tool is for: the test that fails without it.
    for (installs, needed_by) in [
        ("chromium", "tests/html_report.rs"),
        ("libxml2-utils", "tests/reporters.rs (xmllint)"),
        ("ripgrep", "OpenCode in tests/real_agents"),
        (
            "bubblewrap",
            "tests/execution (sandbox) and tests/real_agents",
        ),
        (
            "rustup component add rust-analyzer",
            "tests/ide.rs (rust-analyzer)",
        ),
        (
            "--features default-no-update cargo-nextest",
            "tests/report.rs",
        ),
        (".ci/install-agents", "tests/real_agents"),
        ("cargo test --workspace", "every test"),
    ] {
        assert!(
            script.contains(installs),
            ".ci/test must run `{installs}` for {needed_by}"
        );
    }
}
