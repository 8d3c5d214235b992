//! Publish-ready: the crates that go to crates.io carry the metadata crates.io shows, their
//! packages ship a README and both license files, everything else is `publish = false`, and the
//! package READMEs' examples are the Quick start crate's code (`.ci/run` runs
//! `cargo publish --workspace --dry-run` itself; this test keeps the fast parts of it checked
//! on every `cargo test`).
//!
//! | package | checked |
//! |---|---|
//! | published crates | description, documentation, homepage, repository, license, rust-version, keywords, categories; `cargo package --list` ships `README.md`, `LICENSE-MIT`, `LICENSE-APACHE` and the sources only |
//! | the other members, `skillgym-dylib`, `fuzz` | `publish = false` |
//! | package READMEs | their Rust blocks are code of `examples/quickstart`; their version requirements are this version's |

use serde_json::Value;
use skillgym_e2e::workspace_root;
use std::process::Command;

/// The crates published to crates.io, in publishing order (each depends only on earlier ones).
const PUBLISHED: [&str; 5] = [
    "skillgym-grammar",
    "skillgym-macros",
    "skillgym",
    "skillgym-harness",
    "cargo-skillgym",
];

/// The repository, which is also every crate's homepage.
const REPOSITORY: &str = "https://github.com/skillgym/skillgym-rs";

/// The crates.io category slugs the crates use (crates.io refers unknown slugs at upload).
const CATEGORIES: [&str; 4] = [
    "command-line-utilities",
    "development-tools::cargo-plugins",
    "development-tools::testing",
    "parsing",
];

/// The files a published package holds besides its sources under `src/`.
const PACKAGE_FILES: [&str; 7] = [
    ".cargo_vcs_info.json",
    "Cargo.lock",
    "Cargo.toml",
    "Cargo.toml.orig",
    "LICENSE-APACHE",
    "LICENSE-MIT",
    "README.md",
];

/// The standard output of cargo run with `args` (split at spaces) in the workspace root.
fn cargo(args: &str) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args.split(' '))
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo {args}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The workspace members as `cargo metadata` reads their manifests.
fn members() -> Vec<Value> {
    let metadata = cargo("metadata --no-deps --format-version 1 --offline");
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    metadata["packages"].as_array().unwrap().clone()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace_root().join(path))
        .unwrap_or_else(|error| panic!("{path}: {error}"))
}

#[test]
fn every_member_is_published_or_says_it_is_not() {
    let mut published: Vec<String> = members()
        .iter()
        .filter(|package| package["publish"] != serde_json::json!([]))
        .map(|package| package["name"].as_str().unwrap().to_owned())
        .collect();
    published.sort();
    let mut expected = PUBLISHED.map(str::to_owned).to_vec();
    expected.sort();
    assert_eq!(published, expected, "publish = false on every other member");
    // Outside the workspace (the root manifest excludes them), so `cargo metadata` lists neither.
    for manifest in ["skillgym-dylib/Cargo.toml", "fuzz/Cargo.toml"] {
        assert!(
            read(manifest).lines().any(|line| line == "publish = false"),
            "{manifest}: publish = false"
        );
    }
}

#[test]
fn published_crates_carry_the_metadata_crates_io_shows() {
    let members = members();
    let root = members
        .iter()
        .find(|package| package["name"] == "skillgym-e2e")
        .unwrap();
    for name in PUBLISHED {
        let package = members
            .iter()
            .find(|package| package["name"] == name)
            .unwrap();
        let text = |key: &str| package[key].as_str().unwrap_or_default().to_owned();
        assert!(!text("description").is_empty(), "{name}: description");
        let documentation = if name == "cargo-skillgym" {
            // A program: docs.rs documents libraries only.
            format!("{REPOSITORY}#readme")
        } else {
            format!("https://docs.rs/{name}")
        };
        assert_eq!(text("documentation"), documentation, "{name}");
        assert_eq!(text("homepage"), REPOSITORY, "{name}: homepage");
        assert_eq!(text("repository"), REPOSITORY, "{name}: repository");
        assert_eq!(text("license"), "MIT OR Apache-2.0", "{name}: license");
        assert_eq!(package["rust_version"], root["rust_version"], "{name}");
        assert_eq!(text("readme"), "README.md", "{name}: readme");
        let keywords = package["keywords"].as_array().unwrap();
        assert!((1..=5).contains(&keywords.len()), "{name}: 1 to 5 keywords");
        for keyword in keywords {
            let keyword = keyword.as_str().unwrap();
            // crates.io's rule: ASCII letters, digits, `-` and `_`, a letter first, at most 20.
            let valid = keyword.len() <= 20
                && keyword.starts_with(|c: char| c.is_ascii_lowercase())
                && keyword
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_".contains(c));
            assert!(valid, "{name}: keyword {keyword:?}");
        }
        let categories = package["categories"].as_array().unwrap();
        assert!((1..=5).contains(&categories.len()), "{name}: categories");
        for category in categories {
            assert!(
                CATEGORIES.contains(&category.as_str().unwrap()),
                "{name}: category {category}"
            );
        }
    }
}

#[test]
fn packages_ship_their_readme_both_licenses_and_the_sources_only() {
    let mit = read("LICENSE-MIT");
    assert!(mit.contains("Copyright (c) 2026 The skillgym developers"));
    let apache = read("LICENSE-APACHE");
    assert!(apache.contains("Apache License\n                           Version 2.0"));
    for name in PUBLISHED {
        let listing = cargo(&format!("package --list --allow-dirty --offline -p {name}"));
        for file in PACKAGE_FILES {
            assert!(
                listing.lines().any(|line| line == file),
                "{name} ships {file}"
            );
        }
        for file in listing.lines() {
            assert!(
                PACKAGE_FILES.contains(&file) || file.starts_with("src/"),
                "{name} ships {file}: tests and fixtures stay in the repository"
            );
        }
        // Links to the root's files: the package holds their text.
        assert_eq!(read(&format!("{name}/LICENSE-MIT")), mit, "{name}");
        assert_eq!(read(&format!("{name}/LICENSE-APACHE")), apache, "{name}");
    }
}

/// The fenced blocks of `markdown` in `language`, each as its lines.
fn blocks(markdown: &str, language: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.strip_prefix("```") == Some(language) {
            let body: Vec<&str> = lines.by_ref().take_while(|line| *line != "```").collect();
            blocks.push(body.join("\n"));
        }
    }
    blocks
}

#[test]
fn package_readmes_show_the_quickstart_code_and_this_version() {
    let quickstart = read("examples/quickstart/tests/benchmarks.rs");
    let version = env!("CARGO_PKG_VERSION");
    // What `"0.1"` means to cargo: this version's major and minor (0.x: the minor breaks).
    let requirement = version.rsplit_once('.').unwrap().0;
    for name in ["skillgym", "skillgym-harness"] {
        let readme = read(&format!("{name}/README.md"));
        let rust = blocks(&readme, "rust,no_run");
        assert!(!rust.is_empty(), "{name}/README.md: a Rust example");
        for block in rust {
            let code = block.strip_prefix("// tests/benchmarks.rs\n").unwrap();
            // Each item (blank-line separated) is the Quick start crate's, as it is there.
            for item in code.split("\n\n") {
                assert!(
                    quickstart.contains(item),
                    "{name}/README.md shows code examples/quickstart does not have:\n{item}"
                );
            }
        }
        let toml = blocks(&readme, "toml").concat();
        for dependency in ["skillgym", "skillgym-harness"] {
            let line = format!("{dependency} = \"{requirement}\"");
            assert!(toml.contains(&line), "{name}/README.md: {line}");
        }
    }
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog.contains("## [Unreleased]") || changelog.contains(&format!("## [{version}]")),
        "CHANGELOG.md: a section for {version}"
    );
}
