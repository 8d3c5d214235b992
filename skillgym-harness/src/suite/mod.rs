//! What to run: the registered cases and the plan of trials (case x runner).

pub mod declared;
pub(crate) mod index;
pub mod plan;
pub mod registry;
pub(crate) mod sources;
pub mod triggers;
pub(crate) mod yaml;

pub use declared::DeclaredCheck;
pub(crate) use declared::WorkerGroups;
pub use plan::{Plan, PlannedExecution};
pub use registry::{CaseCheck, CaseSpec, PromptSpec, collect_registered};
pub(crate) use yaml::RepoSpec;

/// Loads the declarative suite at `path` and returns its number of cases (panics on errors):
/// the entry point of `benches/suites.rs`. Not a stable API.
pub fn bench_load(path: &std::path::Path) -> usize {
    match yaml::load_suite(path, &|_| None) {
        Ok(loaded) => loaded.suite.cases.len(),
        Err(errors) => panic!("{errors}"),
    }
}
