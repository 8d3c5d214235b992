//! `skillgym-dylib` (the book's Performance page, "Debug builds"): the example crate `examples/dynamic` takes it
//! under the harness's name, and its benchmark binary links the harness dynamically and runs
//! its cases like any other.

use skillgym_e2e::{
    built_package_executable, stderr, stdout, temp_dir, trial_lines, without_outer_runner_env,
    workspace_root,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The variables through which cargo, nextest and the loader find shared libraries.
const LIBRARY_PATHS: [&str; 3] = [
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "DYLD_FALLBACK_LIBRARY_PATH",
];

/// The benchmark binary of `examples/dynamic`, built as `cargo test --workspace` builds it.
///
/// The shared library's file name carries no hash, so a build with another selection of
/// packages or targets (`-p`, or `--test benchmarks`, which leaves out other packages'
/// dev-dependencies and so can give shared dependencies other features) would relink it in
/// place under the binaries `cargo test --workspace` built and is about to run: the same
/// selection as that command is a no-op.
fn dynamic_example_binary() -> PathBuf {
    built_package_executable(
        &["test", "--workspace", "--no-run"],
        "examples/dynamic",
        "benchmarks",
    )
}

fn run(binary: &Path, args: &[&str], library_path: bool) -> Output {
    let crate_dir = workspace_root().join("examples/dynamic");
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(&crate_dir)
        .env("CARGO_MANIFEST_DIR", &crate_dir);
    without_outer_runner_env(&mut command);
    if !library_path {
        for name in LIBRARY_PATHS {
            command.env_remove(name);
        }
    }
    command.output().expect("the benchmark binary starts")
}

#[test]
fn a_crate_on_skillgym_dylib_links_the_harness_dynamically_and_runs_its_cases() {
    let binary = dynamic_example_binary();
    assert!(
        LIBRARY_PATHS
            .iter()
            .any(|name| std::env::var_os(name).is_some()),
        "cargo runs tests with the library path set"
    );

    // The harness is not in the binary: without the library path it cannot even start.
    let alone = run(&binary, &["--list"], false);
    assert!(
        !alone.status.success(),
        "started without its shared libraries:\n{}",
        stdout(&alone)
    );
    assert!(
        stderr(&alone).contains("lib"),
        "the loader names a missing library: {}",
        stderr(&alone)
    );

    // With it (as cargo and nextest run it), the cases run on the harness in the library.
    let out = temp_dir("dylib");
    let output = run(
        &binary,
        &["--output-dir", out.path().to_str().unwrap()],
        true,
    );
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let mut trials = trial_lines(&output);
    trials.sort();
    assert_eq!(
        trials,
        ["[local] always_passes ok", "[local] finds_the_skill ok"]
    );
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("latest/results.json"))
            .expect("the run wrote results.json"),
    )
    .unwrap();
    assert_eq!(results["summary"]["passed"], 2, "{results:#}");
}

#[test]
fn the_book_shows_the_dependencies_of_examples_dynamic() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("docs/src/performance.md")).unwrap();
    let manifest = std::fs::read_to_string(root.join("examples/dynamic/Cargo.toml")).unwrap();
    let section = readme
        .split("# Linking the harness dynamically: `skillgym-dylib`")
        .nth(1)
        .expect("the Performance page has the section on skillgym-dylib");
    for line in [
        "skillgym = { path = \"../skillgym-rs/skillgym\" }",
        "skillgym-harness = { package = \"skillgym-dylib\", path = \"../skillgym-rs/skillgym-dylib\" }",
    ] {
        assert!(section.contains(line), "docs/src/performance.md: {line}");
        let in_crate = line.replace("../skillgym-rs/", "../../");
        assert!(manifest.contains(&in_crate), "examples/dynamic: {in_crate}");
    }
    let dylib = std::fs::read_to_string(root.join("skillgym-dylib/Cargo.toml")).unwrap();
    assert!(dylib.contains("crate-type = [\"dylib\"]"));
}
