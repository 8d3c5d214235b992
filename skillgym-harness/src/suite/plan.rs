//! The plan: which case runs on which runner, under which variant.
//!
//! | the case has | it runs under |
//! |---|---|
//! | variants of its own on the runner (an agentv suite's targets sharing a `use_target`) | those |
//! | `variants = [...]` (attribute, case.yaml) | those of the run's variants |
//! | neither | every one of the run's variants (`skillgym.yaml`'s `variants:`), or none |
//!
//! `--variant` then keeps only the variants it names. Executions come in case order, then
//! runner order, then variant order, so the variants of one case × runner sit together.

use std::sync::Arc;

use super::CaseSpec;
use crate::config::Variant;
use crate::suggest::did_you_mean;

/// One planned execution: a case (index into the case list) on a runner (index into the
/// runner list), under a variant when the case has variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedExecution {
    /// Index of the case.
    pub case: usize,
    /// Index of the runner.
    pub runner: usize,
    /// The variant, if the case runs under variants.
    pub variant: Option<Arc<Variant>>,
}

/// The executions of a run, in case order, then runner order, then variant order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The executions.
    pub executions: Vec<PlannedExecution>,
    /// Cases (by index) whose `variants = [...]` name a variant the run does not declare: they
    /// are planned without variants, and running one of them is an error (a case the filters
    /// leave out never stops a run).
    pub unknown_variants: Vec<(usize, VariantError)>,
}

/// A variant named where none of that name exists.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// A case's `variants = [...]` names a variant the run does not declare.
    #[error(
        "case `{case}` ({source_location}) runs under variant `{name}`, which is not declared ({known}){}",
        help_line(suggestion.as_deref())
    )]
    UnknownInCase {
        /// The case id.
        case: String,
        /// Where the case is declared.
        source_location: String,
        /// The unknown name.
        name: String,
        /// The declared names, as a phrase.
        known: String,
        /// The closest declared name.
        suggestion: Option<String>,
    },
    /// `--variant` names a variant no planned execution has.
    #[error("names unknown variant `{name}` ({known})")]
    UnknownInFilter {
        /// The unknown name.
        name: String,
        /// The known names, as a phrase.
        known: String,
        /// The closest known name.
        suggestion: Option<String>,
    },
}

fn help_line(suggestion: Option<&str>) -> String {
    match suggestion {
        Some(name) => format!("\n  help: did you mean `{name}`?"),
        None => "\n  help: declare it under `variants:` in skillgym.yaml".to_owned(),
    }
}

fn known_phrase(names: &[&str]) -> String {
    if names.is_empty() {
        return "no variants are declared".to_owned();
    }
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!("variants: {}", names.join(", "))
}

impl Plan {
    /// Plans every selected case on every runner it may run on, without variants (a case's
    /// `variants` are not looked at).
    ///
    /// A case is selected when no tags are selected or it has any selected tag (OR). A case
    /// restricted with `runners = [...]` runs only on those of `runner_ids`.
    pub fn new(cases: &[CaseSpec], runner_ids: &[&str], selected_tags: &[String]) -> Plan {
        let mut executions = Vec::with_capacity(cases.len() * runner_ids.len());
        for (case_index, case) in cases.iter().enumerate() {
            for runner_index in runners_of(case, runner_ids, selected_tags) {
                executions.push(PlannedExecution {
                    case: case_index,
                    runner: runner_index,
                    variant: None,
                });
            }
        }
        Plan {
            executions,
            unknown_variants: Vec::new(),
        }
    }

    /// Plans every selected case on every runner it may run on, under each of its variants
    /// (see the module's table); `only`: the `--variant` names (empty: every variant).
    pub fn with_variants(
        cases: &[CaseSpec],
        runner_ids: &[&str],
        selected_tags: &[String],
        variants: &[Arc<Variant>],
        only: &[String],
    ) -> Result<Plan, VariantError> {
        let mut executions = Vec::with_capacity(cases.len() * runner_ids.len());
        let mut unknown_variants = Vec::new();
        let mut seen_names: Vec<String> = variants.iter().map(|v| v.name.clone()).collect();
        for (case_index, case) in cases.iter().enumerate() {
            let runners = runners_of(case, runner_ids, selected_tags);
            if runners.is_empty() {
                continue;
            }
            let selected = match selected_variants(case, variants) {
                Ok(selected) => selected,
                Err(error) => {
                    unknown_variants.push((case_index, error));
                    Vec::new()
                }
            };
            for runner_index in runners {
                let runner_id = runner_ids[runner_index];
                let own = case.own_variants.iter().find(|(id, _)| id == runner_id);
                let arms = with_baseline(own.map_or(&selected, |(_, own)| own.as_slice()));
                for arm in &arms {
                    if !seen_names.contains(&arm.name) {
                        seen_names.push(arm.name.clone());
                    }
                }
                if arms.is_empty() {
                    executions.push(PlannedExecution {
                        case: case_index,
                        runner: runner_index,
                        variant: None,
                    });
                    continue;
                }
                for arm in arms {
                    if only.is_empty() || only.contains(&arm.name) {
                        executions.push(PlannedExecution {
                            case: case_index,
                            runner: runner_index,
                            variant: Some(arm),
                        });
                    }
                }
            }
        }
        if let Some(name) = only.iter().find(|n| !seen_names.contains(n)) {
            let names: Vec<&str> = seen_names.iter().map(String::as_str).collect();
            return Err(VariantError::UnknownInFilter {
                name: name.clone(),
                known: known_phrase(&names),
                suggestion: did_you_mean(name, names.iter().copied()).map(str::to_owned),
            });
        }
        Ok(Plan {
            executions,
            unknown_variants,
        })
    }
}

/// The indices of the runners `case` runs on: none when no selected tag is among its tags,
/// else those its `runners = [...]` allows.
fn runners_of(case: &CaseSpec, runner_ids: &[&str], selected_tags: &[String]) -> Vec<usize> {
    let tagged =
        selected_tags.is_empty() || case.tags.iter().any(|tag| selected_tags.contains(tag));
    if !tagged {
        return Vec::new();
    }
    (0..runner_ids.len())
        .filter(|&i| case.runners.is_empty() || case.runners.iter().any(|r| r == runner_ids[i]))
        .collect()
}

/// The run's variants `case` runs under: those its `variants = [...]` names, else all.
fn selected_variants(
    case: &CaseSpec,
    variants: &[Arc<Variant>],
) -> Result<Vec<Arc<Variant>>, VariantError> {
    if case.variants.is_empty() {
        return Ok(variants.to_vec());
    }
    case.variants
        .iter()
        .map(|name| {
            variants
                .iter()
                .find(|v| &v.name == name)
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
                    VariantError::UnknownInCase {
                        case: case.id.clone(),
                        source_location: case.source.clone(),
                        name: name.clone(),
                        known: known_phrase(&names),
                        suggestion: did_you_mean(name, names.iter().copied()).map(str::to_owned),
                    }
                })
        })
        .collect()
}

/// The variants of one case × runner with exactly one marked as the baseline: the one
/// marked, else the first (before `--variant` keeps some: a baseline left out leaves the
/// others without one, and no lift is computed).
fn with_baseline(arms: &[Arc<Variant>]) -> Vec<Arc<Variant>> {
    let marked = arms.iter().any(|arm| arm.baseline);
    arms.iter()
        .enumerate()
        .map(|(index, arm)| {
            if index == 0 && !marked {
                Arc::new(Variant::clone(arm).baseline())
            } else {
                Arc::clone(arm)
            }
        })
        .collect()
}
