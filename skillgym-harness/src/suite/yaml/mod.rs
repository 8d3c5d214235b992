//! Declarative suites: agentv-compatible `EVAL.yaml` / `*.eval.yaml` with inline cases, a cases
//! file, or `tests: ./cases/` discovery of `case.yaml` directories (agentv v4.42.4; v5 names as
//! aliases), loaded into typed, validated [`SuiteDef`]s.
//!
//! | Module | Role |
//! |---|---|
//! | `node` | the YAML document as a tree of positioned nodes (YAML 1.2 core schema, merge keys) |
//! | `interpolate` | `${{ NAME }}` environment interpolation with exact-placeholder coercion |
//! | `fields` | reading mappings by hand: every error of a file is collected, unknown keys get "did you mean" |
//! | `graders` | `assertions:` entries → `grade::spec::GraderSpec` |
//! | `ids` | case ids and suite names that can name a trial: no control, line-separator or bidirectional characters |
//! | `links` | symlinks are followed only while they stay inside the suite's directory |
//! | `paths` | relative paths: the case directory first, then the suite directory |
//! | `vars` | a case's `vars:` filled into its input, criteria and expected output (`{{ a.b }}`) |
//! | `turns` | a multi-turn case's `mode: conversation`, `turns`, `aggregation`, `on_turn_failure` |
//! | `load` | the suite's fields, `tests:` resolution and discovery, each case, merging |
//! | `model` | the output: [`SuiteDef`], [`CaseDef`], [`Message`], [`WorkspaceDef`](model::WorkspaceDef), [`Warning`], [`SuiteErrors`] |
//!
//! Differences from agentv, on purpose:
//!
//! | agentv | skillgym |
//! |---|---|
//! | unknown keys warn and are ignored | unknown keys are errors with file:line:column and a suggestion |
//! | incomplete cases and bad graders are skipped with a message | they are errors; every error of every file is reported at once ([`SuiteErrors`]) |
//! | unknown grader types run custom graders | an error: skillgym runs no custom graders |
//! | symlinked case directories are ignored | followed when they resolve inside the suite's directory; any symlink that leads out of it (a case directory, a `case.yaml`, a template, an input file) is an error |
//! | relative paths in a case resolve against the eval file's search roots | the case directory first, then the suite directory; a missing file is an error |
//! | `regex` is ECMAScript | Rust `regex` (checked at load) |
//! | a case is complete with its own `assertions`/`criteria`/`expected_output` | the suite's assertions count too |
//! | `workspace:` string = an external workspace YAML file | the same for `*.yaml`/`*.yml`; another string is a template directory |
//! | `isolation: shared` (the default): one workspace for the suite | every attempt gets its own copy of the template; `per_test` is accepted, `shared` is an error |
//! | `EVAL.yaml` without `name:` is named `EVAL` | it takes its directory's name |
//! | a case without graders gets the implicit `llm-grader` | the same, as a rubric grader `criteria` answered by the judge runner |
//! | a conversation's turn is one more model call with the whole history | the agent's session resumed (its adapter's resume command line); a runner that cannot resume is an error at start |
//! | `turns` / `aggregation` / `on_turn_failure` without `mode: conversation` are ignored | errors |
//! | keys it reads and ignores (a suite's `defaults`, an assertion's `id`, ...) pass silently | a warning, once per run, with the place |
//! | `execution.trials` aggregates trial scores (`pass_at_k`: the best) | `count` samples gated at `min_pass_rate: 1/count` (pass@k on pass/fail); `mean` / `confidence_interval` are errors |
//! | a shared `before_all` workspace gets `{{workspace_path}}` | an error: each attempt's workspace is made after `before_all` |
//!
//! Not supported (errors naming the feature; `docs/src/suites.md` lists them): custom and
//! v5-only grader types, `include:` assertions, a judge's per-grader `target`, `temperature`,
//! `max_steps`, prompt `command` and `preprocessors`, `workspace.docker/env/path`,
//! `workspace.mode: static`, `isolation: shared`, `{{workspace_path}}` in a suite-wide hook,
//! `before_all` / `after_all` in a case, `trials.strategy: mean / confidence_interval`,
//! `window_size`, `depends_on`.
//!
//! skillgym's own case keys: `repeat`, `repeat_failure` (`retry_failed`), `samples`, `min_pass_rate`, `stop_when_decided`, `expected_fail`,
//! `timeout` (a duration such as `5m`), `max_steps`, `runners`, `skills`, `mock`, `tags`,
//! `variants` (names of `skillgym.yaml`'s variants); a turn's `mock` (its script under `--mock`).

mod fields;
mod graders;
mod interpolate;
mod links;
mod load;
mod model;
mod node;
mod paths;
mod turns;
mod vars;

#[cfg(test)]
mod tests;

pub(crate) use load::{load_suite, load_suite_only};
pub use model::SuiteErrors;
pub(crate) use model::{
    CaseDef, Content, HookDef, Hooks, Loaded, Message, RepoSpec, Role, SuiteDef, Warning,
    WorkspaceDef,
};
#[cfg(test)]
pub(crate) use turns::Aggregation;
pub(crate) use turns::{Conversation, OnTurnFailure};

/// [`load_suite`] with the process environment.
pub(crate) fn load_suite_from_env(path: &std::path::Path) -> Result<Loaded, SuiteErrors> {
    load_suite(path, &|name| std::env::var(name).ok())
}
