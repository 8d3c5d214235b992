//! Cases registered by `#[skillgym::case]` through inventory, and [`CaseSpec`], what the harness
//! plans and runs whatever a case's source.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use skillgym::__private::{CaseDef, PromptSource};

use super::declared::DeclaredCheck;
use crate::config::Variant;
use crate::io_error::IoError;

/// One case, whatever its source, as the harness plans and runs it.
#[derive(Debug, Clone)]
pub struct CaseSpec {
    /// The case id (unique in the suite).
    pub id: String,
    /// Where it was declared, `file:line`.
    pub source: String,
    /// Its tags, deduplicated in first-seen order.
    pub tags: Vec<String>,
    /// The prompt.
    pub prompt: PromptSpec,
    /// `repeat` of the case.
    pub repeat: Option<u32>,
    /// `repeat_failure` of the case.
    pub repeat_failure: Option<u32>,
    /// `samples` of the case: that many independent sessions, none retried.
    pub samples: Option<u32>,
    /// `min_pass_rate` of the case: the gate on its executions' pass rate.
    pub min_pass_rate: Option<f64>,
    /// `min_lift` of the case: the gate on each variant's lift over its baseline.
    pub min_lift: Option<f64>,
    /// `stop_when_decided`: stop sampling once the gate is settled.
    pub stop_when_decided: bool,
    /// Whether a verdict failure is expected.
    pub expected_fail: bool,
    /// The case's timeout.
    pub timeout: Option<Duration>,
    /// The case's `max_steps`.
    pub max_steps: Option<u32>,
    /// The runners the case is restricted to (empty: all).
    pub runners: Vec<String>,
    /// A per-case workspace template directory (absolute).
    pub workspace: Option<PathBuf>,
    /// The scripted model's script for `--mock` runs (absolute).
    pub mock_script: Option<PathBuf>,
    /// The case's skills under test: skill directories (absolute).
    pub skills: Vec<PathBuf>,
    /// The directory relative paths of the case resolve against.
    pub base_dir: PathBuf,
    /// `variants = [...]`: the run's variants (`skillgym.yaml`'s `variants:`) this case runs
    /// under; empty: every one.
    pub variants: Vec<String>,
    /// Variants of the case's own on some runners, by runner id: the targets of an agentv
    /// suite that share one `use_target`.
    pub own_variants: Vec<(String, Vec<Arc<Variant>>)>,
    /// How the session is checked.
    pub check: CaseCheck,
}

/// Where a case's prompt comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptSpec {
    /// Given inline.
    Inline(String),
    /// Read from a file at run time.
    File(PathBuf),
}

impl PromptSpec {
    /// Reads the prompt (a file prompt is read now, so edits apply without a rebuild).
    pub fn load(&self) -> std::io::Result<String> {
        match self {
            PromptSpec::Inline(text) => Ok(text.clone()),
            PromptSpec::File(path) => std::fs::read_to_string(path).map_err(|source| {
                IoError::ReadPrompt {
                    path: path.clone(),
                    source,
                }
                .into()
            }),
        }
    }
}

/// How a case checks a session.
#[derive(Clone)]
pub enum CaseCheck {
    /// A Rust function registered by `#[skillgym::case]`.
    Rust(&'static CaseDef),
    /// The graders of a declarative case (`case.yaml`, `EVAL.yaml`).
    Declared(Arc<DeclaredCheck>),
    /// A trigger prompt's expectation ([`super::triggers`]).
    Trigger(Arc<super::triggers::TriggerCase>),
}

impl fmt::Debug for CaseCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseCheck::Rust(def) => write!(f, "Rust({}::{})", def.module_path, def.name),
            CaseCheck::Declared(check) => check.fmt(f),
            CaseCheck::Trigger(trigger) => trigger.fmt(f),
        }
    }
}

impl CaseSpec {
    /// A case with nothing of its own but its id, source, prompt, directory and check: no
    /// tags, repetitions, samples, gates, limits, runners, workspace, script, skills or
    /// variants (the run's settings apply).
    pub fn new(
        id: String,
        source: String,
        prompt: PromptSpec,
        base_dir: PathBuf,
        check: CaseCheck,
    ) -> Self {
        CaseSpec {
            id,
            source,
            tags: Vec::new(),
            prompt,
            repeat: None,
            repeat_failure: None,
            samples: None,
            min_pass_rate: None,
            min_lift: None,
            stop_when_decided: false,
            expected_fail: false,
            timeout: None,
            max_steps: None,
            runners: Vec::new(),
            workspace: None,
            mock_script: None,
            skills: Vec::new(),
            base_dir,
            variants: Vec::new(),
            own_variants: Vec::new(),
            check,
        }
    }

    /// The spec of a registered Rust case.
    pub fn from_def(def: &'static CaseDef) -> Self {
        Self::from_def_with_id(def, def.case_id())
    }

    /// [`from_def`](Self::from_def) with the case's id already worked out.
    fn from_def_with_id(def: &'static CaseDef, id: String) -> Self {
        let base_dir = Path::new(def.manifest_dir);
        let mut tags: Vec<String> = Vec::with_capacity(def.tags.len());
        for tag in def.tags {
            if !tags.iter().any(|t| t == tag) {
                tags.push((*tag).to_owned());
            }
        }
        CaseSpec {
            id,
            source: source_of(def),
            tags,
            prompt: match def.prompt {
                PromptSource::Inline(text) => PromptSpec::Inline(text.to_owned()),
                PromptSource::File(path) => PromptSpec::File(base_dir.join(path)),
            },
            repeat: def.repeat,
            repeat_failure: def.repeat_failure,
            samples: def.samples,
            min_pass_rate: def.min_pass_rate,
            min_lift: def.min_lift,
            stop_when_decided: def.stop_when_decided,
            expected_fail: def.expected_fail,
            timeout: def.timeout_ms.map(Duration::from_millis),
            max_steps: def.max_steps,
            runners: def.runners.iter().map(|r| (*r).to_owned()).collect(),
            workspace: def.workspace.map(|dir| base_dir.join(dir)),
            mock_script: def.mock.map(|script| base_dir.join(script)),
            skills: def.skills.iter().map(|dir| base_dir.join(dir)).collect(),
            base_dir: base_dir.to_path_buf(),
            variants: def.variants.iter().map(|v| (*v).to_owned()).collect(),
            own_variants: Vec::new(),
            check: CaseCheck::Rust(def),
        }
    }
}

/// Two cases with the same id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "duplicate case id `{id}`:\n  first declared at {first}\n  again declared at {second}\n  help: give one of them an explicit `id = \"...\"`"
)]
pub struct DuplicateCaseId {
    /// The id.
    pub id: String,
    /// Where the first was declared.
    pub first: String,
    /// Where the second was declared.
    pub second: String,
}

/// Every case registered in this binary, sorted by id; duplicate ids are an error naming both
/// declarations.
///
/// The registrations are put in [`sort_and_check`]'s order before any spec is made, so that
/// each spec is made once, in its place (moving a thousand large specs into order cost about
/// 0.2 ms): this is part of the start of every trial's process under nextest.
pub fn collect_registered() -> Result<Vec<CaseSpec>, DuplicateCaseId> {
    let mut defs: Vec<(String, &'static CaseDef)> =
        CaseDef::all().map(|def| (def.case_id(), def)).collect();
    defs.sort_by(|(a_id, a), (b_id, b)| {
        a_id.cmp(b_id).then_with(|| source_of(a).cmp(&source_of(b)))
    });
    let mut cases = Vec::with_capacity(defs.len());
    cases.extend(
        defs.into_iter()
            .map(|(id, def)| CaseSpec::from_def_with_id(def, id)),
    );
    sort_and_check(cases)
}

/// Where a Rust case was declared, `file:line`.
fn source_of(def: &CaseDef) -> String {
    format!("{}:{}", def.file, def.line)
}

/// Sorts cases by id (then source, for a stable error) and rejects duplicates.
///
/// The order is worked out on positions and then applied by swapping in place: a spec is
/// large, and a new vector of a thousand of them is memory touched for the first time.
pub fn sort_and_check(mut cases: Vec<CaseSpec>) -> Result<Vec<CaseSpec>, DuplicateCaseId> {
    let order = |a: &CaseSpec, b: &CaseSpec| a.id.cmp(&b.id).then_with(|| a.source.cmp(&b.source));
    if !cases.is_sorted_by(|a, b| order(a, b).is_le()) {
        let mut positions: Vec<usize> = (0..cases.len()).collect();
        positions.sort_by(|&a, &b| order(&cases[a], &cases[b]));
        permute(&mut cases, positions);
    }
    if let Some(pair) = cases.windows(2).find(|pair| pair[0].id == pair[1].id) {
        return Err(DuplicateCaseId {
            id: pair[0].id.clone(),
            first: pair[0].source.clone(),
            second: pair[1].source.clone(),
        });
    }
    Ok(cases)
}

/// Reorders `items` so that position `i` holds what was at `from[i]` (`from` a permutation),
/// each cycle of the permutation followed by swaps.
fn permute<T>(items: &mut [T], mut from: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut here = start;
        while from[here] != DONE {
            let source = from[here];
            from[here] = DONE;
            if source == start {
                break;
            }
            items.swap(here, source);
            here = source;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_is_applied_in_place() {
        for from in [
            vec![],
            vec![0],
            vec![1, 0],
            vec![2, 0, 1],
            vec![3, 1, 0, 2, 5, 4],
            vec![4, 5, 6, 0, 1, 2, 3],
        ] {
            let mut items: Vec<usize> = (0..from.len()).map(|i| i * 10).collect();
            let expected: Vec<usize> = from.iter().map(|&i| i * 10).collect();
            permute(&mut items, from);
            assert_eq!(items, expected);
        }
    }

    fn case(id: &str, source: &str) -> CaseSpec {
        CaseSpec::new(
            id.to_owned(),
            source.to_owned(),
            PromptSpec::Inline("p".into()),
            PathBuf::new(),
            CaseCheck::Rust(
                CaseDef::all()
                    .next()
                    .expect("this test binary registers a case"),
            ),
        )
    }

    #[skillgym::case(prompt = "registered so that CaseCheck can point somewhere")]
    fn registered(_report: &skillgym::SessionReport) {}

    #[test]
    fn cases_are_sorted_by_id() {
        let sorted = sort_and_check(vec![
            case("b", "x:1"),
            case("a::z", "x:2"),
            case("a", "x:3"),
        ])
        .unwrap();
        let ids: Vec<&str> = sorted.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "a::z", "b"]);
    }

    #[test]
    fn duplicate_ids_name_both_declarations() {
        let error = sort_and_check(vec![
            case("same", "tests/b.rs:9"),
            case("other", "tests/a.rs:1"),
            case("same", "tests/a.rs:4"),
        ])
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "duplicate case id `same`:\n  first declared at tests/a.rs:4\n  again declared at tests/b.rs:9\n  help: give one of them an explicit `id = \"...\"`"
        );
    }

    #[test]
    fn registered_cases_get_their_module_path_as_id() {
        let cases = collect_registered().unwrap();
        assert!(
            cases
                .iter()
                .any(|c| c.id == "suite::registry::tests::registered"),
            "{cases:?}"
        );
    }
}
