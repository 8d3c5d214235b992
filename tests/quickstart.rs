//! The book's Quick start (`docs/src/quick-start.md`) is the crate `examples/quickstart`: every
//! file the page shows is that crate's file, byte for byte, and its dependencies are the two
//! crates of this repository; and the blocks, copied as a new user would into a fresh crate
//! outside the repository (beside a checkout named `skillgym-rs`, as the page's paths assume),
//! run.

use skillgym_e2e::workspace_root;

/// The fenced blocks of `text` after `## Quick start` and before the next `## ` heading, as
/// (language, label line, body: the lines after the label, or the whole script when the label
/// follows a shebang).
fn quick_start_blocks(page: &str) -> Vec<(String, String, String)> {
    section_blocks(page, "# Quick start")
}

/// A page of the book.
fn page(name: &str) -> String {
    std::fs::read_to_string(workspace_root().join("docs/src").join(name)).unwrap()
}

/// The fenced blocks of the section under `heading`, as in [`quick_start_blocks`].
fn section_blocks(text: &str, heading: &str) -> Vec<(String, String, String)> {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("a section {heading:?}"));
    let section = &text[start..];
    let end = section[3..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 3);
    let mut blocks = Vec::new();
    let mut lines = section[..end].lines();
    while let Some(line) = lines.next() {
        let Some(language) = line.strip_prefix("```").filter(|rest| !rest.is_empty()) else {
            continue;
        };
        let mut body: Vec<&str> = Vec::new();
        for line in lines.by_ref() {
            if line == "```" {
                break;
            }
            body.push(line);
        }
        // A script's label is its second line: its first is the shebang, and stays in the file.
        let labelled = usize::from(body.first().is_some_and(|line| line.starts_with("#!")));
        let first = body.get(labelled).copied().unwrap_or_default().to_owned();
        let rest: String = body
            .iter()
            .enumerate()
            .filter(|(index, _)| labelled == 1 || *index != 0)
            .map(|(_, line)| format!("{line}\n"))
            .collect();
        blocks.push((language.to_owned(), first, rest));
    }
    blocks
}

#[test]
fn the_book_shows_the_quickstart_crate_as_it_is() {
    let root = workspace_root();
    let shown_page = page("quick-start.md");
    let crate_dir = root.join("examples/quickstart");
    let blocks = quick_start_blocks(&shown_page);
    let shown = |label: &str| {
        blocks
            .iter()
            .find(|(_, first, _)| first.contains(label))
            .map(|(_, _, body)| body.as_str())
            .unwrap_or_else(|| panic!("the Quick start shows no block labelled {label:?}"))
    };
    let file = |path: &str| {
        std::fs::read_to_string(crate_dir.join(path))
            .unwrap_or_else(|error| panic!("examples/quickstart/{path}: {error}"))
    };
    assert_eq!(shown("tests/benchmarks.rs"), file("tests/benchmarks.rs"));
    assert_eq!(shown("skillgym.yaml"), file("skillgym.yaml"));
    assert_eq!(shown("bin/my-agent"), file("bin/my-agent"));
    assert_eq!(shown("prompts/legacy.md"), file("prompts/legacy.md"));

    let manifest = shown("Cargo.toml");
    let crate_manifest = file("Cargo.toml");
    for line in ["[[test]]", "name = \"benchmarks\"", "harness = false"] {
        assert!(manifest.contains(line), "page Cargo.toml: {line}");
        assert!(crate_manifest.contains(line), "crate Cargo.toml: {line}");
    }
    for name in ["skillgym", "skillgym-harness"] {
        let readme_dep = format!("{name} = {{ path = \"../skillgym-rs/{name}\" }}");
        let crate_dep = format!("{name} = {{ path = \"../../{name}\" }}");
        assert!(manifest.contains(&readme_dep), "page: {readme_dep}");
        assert!(crate_manifest.contains(&crate_dep), "crate: {crate_dep}");
        assert!(
            root.join(name).join("Cargo.toml").is_file(),
            "{name} is a crate of this repository"
        );
    }
    assert!(
        !shown_page.contains("skillgym = \"0.1\""),
        "the crates are not published: no version requirement can resolve"
    );
}

#[test]
fn the_book_shows_the_showcase_suite_as_it_is() {
    let root = workspace_root();
    let blocks = section_blocks(&page("suites.md"), "# Declarative suites");
    let mut shown = 0;
    for (_, first, body) in &blocks {
        let Some(path) = first.strip_prefix("# examples/") else {
            continue;
        };
        let file = std::fs::read_to_string(root.join("examples").join(path))
            .unwrap_or_else(|error| panic!("examples/{path}: {error}"));
        assert_eq!(body, &file, "the page's examples/{path}");
        shown += 1;
    }
    assert_eq!(shown, 2, "EVAL.yaml and one case.yaml");
    let tree = &blocks
        .iter()
        .find(|(language, _, _)| language == "text")
        .expect("the suite's layout")
        .2;
    let mut listed = 0;
    for line in tree.lines() {
        let path = line.split_whitespace().next().unwrap();
        let file = root.join("examples/evals/showcase").join(path);
        assert!(file.exists(), "the layout shows {path}");
        listed += 1;
    }
    assert_eq!(listed, 6, "{tree}");
}

/// The Quick start as a new user copies it: the page's blocks written into a fresh crate
/// outside this repository, beside a "checkout" (`skillgym-rs`, a link to this repository) as
/// its path dependencies expect; `cargo test --test benchmarks` runs the three cases as the
/// page shows, and a plain `cargo test` runs none (`test = false`).
#[test]
fn the_quick_start_runs_as_copied_in_a_fresh_crate() {
    let root = workspace_root();
    let blocks = quick_start_blocks(&page("quick-start.md"));
    // The whole block, its label line included, as one copies it.
    let shown = |label: &str| {
        blocks
            .iter()
            .find(|(_, first, _)| first.contains(label))
            .map(|(_, first, body)| match body.starts_with("#!") {
                true => body.clone(),
                false => format!("{first}\n{body}"),
            })
            .unwrap_or_else(|| panic!("the Quick start shows no block labelled {label:?}"))
    };
    // A fixed place outside the repository: the path dependencies' paths stay the same from
    // one run to the next, so the warm target directory is reused instead of growing.
    let scratch = std::env::temp_dir().join("skillgym-quickstart-copy");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    std::os::unix::fs::symlink(root, scratch.join("skillgym-rs")).unwrap();
    let dir = scratch.join("my-skills");
    let manifest = format!(
        "[package]\nname = \"my-skills\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}",
        shown("Cargo.toml")
    );
    let files = [
        ("Cargo.toml", manifest),
        ("tests/benchmarks.rs", shown("tests/benchmarks.rs")),
        ("skillgym.yaml", shown("skillgym.yaml")),
        ("bin/my-agent", shown("bin/my-agent")),
        ("prompts/legacy.md", shown("prompts/legacy.md")),
    ];
    for (path, text) in &files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    // Copied whole, the script must start with its shebang: the kernel reads the first line
    // (glibc's execvp would run a script without one through /bin/sh, hiding the mistake
    // here; other spawns fail with "Exec format error").
    assert!(
        files[3].1.starts_with("#!/bin/sh\n"),
        "bin/my-agent as copied: {}",
        files[3].1
    );
    // `chmod +x bin/my-agent`, as the page says.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("bin/my-agent"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // The repository's lock file pins the dependencies; a target directory inside the
    // repository's keeps the build warm from one run to the next.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", root.join("target/quickstart-copy"))
            .env_remove("SKILLGYM_OUTPUT_DIR")
            .env_remove("SKILLGYM_CONFIG")
            .env_remove("SKILLGYM_RUN_ID")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), stdout, stderr)
    };
    let (ok, stdout, stderr) = cargo(&["test", "--test", "benchmarks"]);
    assert!(ok, "{stdout}\n{stderr}");
    for line in [
        "test [local] always_passes    ... ok",
        "test [local] known_gap        ... ok",
        "test [local] find_skills_expo ... ok",
        "skillgym: 3 executions: 2 passed, 0 failed, 1 expected-failed, 0 unexpected-passed",
    ] {
        assert!(stdout.contains(line), "{line:?} in\n{stdout}");
    }
    let (ok, stdout, stderr) = cargo(&["test"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        !stdout.contains("[local]"),
        "a plain `cargo test` runs no agent:\n{stdout}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
