//! `cargo skillgym init --ci github`: a GitHub Actions workflow that runs the benchmarks in
//! shards (nextest partitions), merges the shards' run directories with
//! `cargo skillgym report`, uploads the HTML report and writes the job summary.
//!
//! | job | does |
//! |---|---|
//! | `bench` (matrix `shard: [1, 2, 3]`) | `cargo nextest run --test benchmarks --partition hash:N/3`, each shard's run directory uploaded as `run-N` |
//! | `report` (after every shard, also when one failed) | installs `cargo-skillgym` (crates.io, or the git repository of a checkout), downloads the shards, `cargo skillgym report` into `merged/` (JUnit, HTML, JSON summary, GitHub annotations and the job summary), uploads `merged/` as `skillgym-report` |
//!
//! It runs on demand (`workflow_dispatch`) and weekly: agent sessions cost tokens, so it does
//! not run on every push unless the author says so.

use std::path::Path;

use super::manifest::Source;

/// Where the workflow goes, relative to the repository root.
pub(super) const PATH: &str = ".github/workflows/skillgym.yml";

/// The workflow for the crate at `crate_dir` (relative to the repository root, `.` for the
/// root), depending on the skillgym crates from `source`.
pub(super) fn workflow(crate_dir: &Path, source: &Source, repository: &str) -> String {
    let dir = crate_dir.display().to_string().replace('\\', "/");
    let dir = if dir.is_empty() { ".".to_owned() } else { dir };
    let install = match source {
        Source::Version(version) => {
            format!("cargo install cargo-skillgym --version {version} --locked")
        }
        // A checkout's crates are not in CI: the dependencies must come from git (or
        // crates.io), and so does the tool.
        Source::Path(_) => format!("cargo install --git {repository} cargo-skillgym --locked"),
    };
    let which = match dir.as_str() {
        "." => "the crate at the repository's root".to_owned(),
        dir => format!("the crate in {dir}"),
    };
    TEMPLATE
        .replace("{which}", &which)
        .replace("{dir}", &dir)
        .replace("{install}", &install)
}

const TEMPLATE: &str = r#"# Written by `cargo skillgym init --ci github`: the benchmarks of {which}, in three shards
# (nextest partitions), merged into one report (HTML artifact `skillgym-report`, JUnit, the job
# summary and annotations).
name: skillgym
on:
  workflow_dispatch:
  schedule:
    # Weekly: agent sessions cost tokens, so they run when asked for or on this schedule.
    - cron: "0 3 * * 1"
jobs:
  bench:
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2, 3]
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: {dir}
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - uses: taiki-e/install-action@nextest
      # Install the agent CLIs your runners use, e.g.:
      # - run: npm install -g @anthropic-ai/claude-code
      - run: cargo nextest run --test benchmarks --partition hash:${{ matrix.shard }}/3 --no-fail-fast
        env:
          SKILLGYM_RUN_ID: shard-${{ matrix.shard }}
          SKILLGYM_OUTPUT_DIR: ${{ github.workspace }}/skillgym-runs
          # Each runner's key, e.g.: ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: run-${{ matrix.shard }}
          path: skillgym-runs/shard-${{ matrix.shard }}
  report:
    needs: bench
    if: always()
    runs-on: ubuntu-latest
    steps:
      - uses: dtolnay/rust-toolchain@stable
      - run: {install}
      - uses: actions/download-artifact@v4
        with:
          path: runs
      - run: cargo skillgym report runs/run-1 runs/run-2 runs/run-3 --out merged --reporter junit,html,json-summary,github-actions
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: skillgym-report
          path: merged
"#;
