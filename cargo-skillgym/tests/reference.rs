//! `docs/src/reference/cargo-skillgym.md` is `cargo skillgym`'s own `--help`, of the program
//! and of each command: a command or flag added or changed without regenerating the page fails
//! here. `SKILLGYM_UPDATE_DOCS=1 cargo test -p cargo-skillgym --test reference` rewrites it.

use std::path::Path;
use std::process::Command;

fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .arg("skillgym")
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The command names of the top-level help's `Commands:` section, `help` aside.
fn commands(top: &str) -> Vec<String> {
    top.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_cli_reference_is_the_help_text() {
    let top = help(&[]);
    let names = commands(&top);
    assert!(names.len() >= 10, "{names:?}");
    let mut page = String::from(
        "# `cargo skillgym` reference\n\n\
         Generated from the program's own `--help` by `cargo-skillgym/tests/reference.rs`;\n\
         `SKILLGYM_UPDATE_DOCS=1 cargo test -p cargo-skillgym --test reference` rewrites it.\n",
    );
    page.push_str(&format!(
        "\n## `cargo skillgym`\n\n```text\n{}\n```\n",
        top.trim_end()
    ));
    for name in &names {
        page.push_str(&format!(
            "\n## `cargo skillgym {name}`\n\n```text\n{}\n```\n",
            help(&[name]).trim_end()
        ));
    }
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference/cargo-skillgym.md");
    if std::env::var_os("SKILLGYM_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == page,
        "{} is not `cargo skillgym --help`: regenerate it with `SKILLGYM_UPDATE_DOCS=1 cargo test -p cargo-skillgym --test reference`",
        path.display()
    );
}
