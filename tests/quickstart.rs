//! The README's Quick start is the crate `examples/quickstart` (which `cargo test --workspace`
//! runs): every file the README shows is that crate's file, byte for byte, and its
//! dependencies are the two crates of this repository.

use skillgym_e2e::workspace_root;

/// The fenced blocks of `text` after `## Quick start` and before the next `## ` heading, as
/// (language, first line, body after the first line).
fn quick_start_blocks(readme: &str) -> Vec<(String, String, String)> {
    section_blocks(readme, "## Quick start")
}

/// The fenced blocks of the README section under `heading`, as in [`quick_start_blocks`].
fn section_blocks(readme: &str, heading: &str) -> Vec<(String, String, String)> {
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("a section {heading:?}"));
    let section = &readme[start..];
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
        let first = body.first().copied().unwrap_or_default().to_owned();
        let rest: String = body
            .iter()
            .skip(1)
            .map(|line| format!("{line}\n"))
            .collect();
        blocks.push((language.to_owned(), first, rest));
    }
    blocks
}

#[test]
fn the_readme_shows_the_quickstart_crate_as_it_is() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let crate_dir = root.join("examples/quickstart");
    let blocks = quick_start_blocks(&readme);
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
        assert!(manifest.contains(line), "README Cargo.toml: {line}");
        assert!(crate_manifest.contains(line), "crate Cargo.toml: {line}");
    }
    for name in ["skillgym", "skillgym-harness"] {
        let readme_dep = format!("{name} = {{ path = \"../skillgym-rs/{name}\" }}");
        let crate_dep = format!("{name} = {{ path = \"../../{name}\" }}");
        assert!(manifest.contains(&readme_dep), "README: {readme_dep}");
        assert!(crate_manifest.contains(&crate_dep), "crate: {crate_dep}");
        assert!(
            root.join(name).join("Cargo.toml").is_file(),
            "{name} is a crate of this repository"
        );
    }
    assert!(
        !readme.contains("skillgym = \"0.1\""),
        "the crates are not published: no version requirement can resolve"
    );
}

#[test]
fn the_readme_shows_the_showcase_suite_as_it_is() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = section_blocks(&readme, "## Declarative suites");
    let mut shown = 0;
    for (_, first, body) in &blocks {
        let Some(path) = first.strip_prefix("# examples/") else {
            continue;
        };
        let file = std::fs::read_to_string(root.join("examples").join(path))
            .unwrap_or_else(|error| panic!("examples/{path}: {error}"));
        assert_eq!(body, &file, "the README's examples/{path}");
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
