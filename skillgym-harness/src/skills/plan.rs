//! Which skills each attempt installs, settled at start. The configuration's skills (`run.skills`,
//! a runner's `skills`) are loaded and validated before anything runs: a problem there stops
//! the run. A case's own skills are loaded at start too, but a problem with them (a bad
//! `SKILL.md`, a name clash, a workspace that is not isolated) fails only that case's
//! executions, so filtered-out cases never stop a run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Skill, SkillCache, merge};
use crate::config::yaml::Located;
use crate::config::{ConfigError, Variant, VariantSkills, WorkspaceMode};
use crate::settings::Settings;
use crate::skills::SkillError;
use crate::suite::CaseSpec;

/// The skills under test of a run: the configuration's, each runner's, each case's.
#[derive(Debug, Default)]
pub(crate) struct SkillPlan {
    run: Vec<Arc<Skill>>,
    runners: HashMap<String, Vec<Arc<Skill>>>,
    /// Each case's own skills, or why the case cannot have them.
    cases: HashMap<String, Result<Vec<Arc<Skill>>, SkillError>>,
    /// The skills of each variant that lists its own directories, or why it cannot have them.
    variants: HashMap<String, Result<Vec<Arc<Skill>>, SkillError>>,
    /// Whether attempts run in their own workspace (else only cases with a template do).
    isolated: bool,
}

impl SkillPlan {
    /// Loads the configuration's skills (an error stops the run) and each case's (an error
    /// fails the case's executions).
    pub(crate) fn build(settings: &Settings, cases: &[CaseSpec]) -> Result<SkillPlan, SkillError> {
        let mut cache = SkillCache::default();
        let from_config = |cache: &mut SkillCache, listed: &[Located<PathBuf>]| {
            listed
                .iter()
                .map(|dir| load_listed(cache, dir, settings.config_path.as_deref()))
                .collect::<Result<Vec<_>, ConfigError>>()
        };
        let mut plan = SkillPlan {
            run: from_config(&mut cache, &settings.skills)?,
            isolated: settings.workspace.mode == WorkspaceMode::Isolated,
            ..SkillPlan::default()
        };
        for (id, runner) in &settings.runners {
            let skills = from_config(&mut cache, &runner.skills)?;
            plan.runners.insert(id.clone(), skills);
        }
        let any_configured = !plan.run.is_empty() || plan.runners.values().any(|s| !s.is_empty());
        if any_configured && !plan.isolated {
            return Err(needs_isolation(
                "`run.skills` or a runner's `skills`",
                settings,
            ));
        }
        for variant in &settings.variants {
            if let VariantSkills::Dirs(dirs) = &variant.skills {
                let skills = dirs
                    .iter()
                    .map(|dir| cache.get(dir).map_err(SkillError::InvalidForCase))
                    .collect::<Result<Vec<_>, SkillError>>()
                    .and_then(|skills| merge([skills.as_slice()]));
                plan.variants.insert(variant.name.clone(), skills);
            }
        }
        for case in cases {
            let skills = case
                .skills
                .iter()
                .map(|dir| cache.get(dir).map_err(SkillError::InvalidForCase))
                .collect::<Result<Vec<_>, SkillError>>()
                .and_then(|skills| {
                    if !skills.is_empty() && !plan.isolated && case.workspace.is_none() {
                        return Err(needs_isolation("the case's `skills`", settings));
                    }
                    Ok(skills)
                });
            plan.cases.insert(case.id.clone(), skills);
        }
        Ok(plan)
    }

    /// The skills an attempt of `case` on `runner` under `variant` installs: the variant's
    /// (none, or its own directories), else the skills under test in order: the run's, the
    /// runner's, the case's; or why the case cannot have them.
    pub(crate) fn for_attempt(
        &self,
        case: &str,
        runner: &str,
        variant: Option<&Variant>,
    ) -> Result<Vec<Arc<Skill>>, SkillError> {
        match variant.map(|v| (&v.skills, &v.name)) {
            Some((VariantSkills::Without, _)) => return Ok(Vec::new()),
            Some((VariantSkills::Dirs(_), name)) => {
                return self.variants.get(name).cloned().unwrap_or(Ok(Vec::new()));
            }
            _ => {}
        }
        let none: &[Arc<Skill>] = &[];
        let own = match self.cases.get(case) {
            Some(Ok(skills)) => skills.as_slice(),
            Some(Err(problem)) => return Err(problem.clone()),
            None => none,
        };
        merge([
            self.run.as_slice(),
            self.runners.get(runner).map_or(none, Vec::as_slice),
            own,
        ])
    }
}

/// Loads a skill listed in the config; a directory that is missing is reported at its entry
/// (the config file is read again, for the snippet, only then).
fn load_listed(
    cache: &mut SkillCache,
    dir: &Located<PathBuf>,
    config_path: Option<&Path>,
) -> Result<Arc<Skill>, ConfigError> {
    cache.get(&dir.value).map_err(|error| {
        let points_into_skill = error
            .path()
            .is_some_and(|path| path.file_name().is_some_and(|name| name == "SKILL.md"));
        match config_path {
            Some(path) if !points_into_skill && dir.line > 0 => {
                let config_text = std::fs::read_to_string(path).unwrap_or_default();
                let located = ConfigError::at(
                    path,
                    &config_text,
                    dir.line,
                    dir.column,
                    format!("skill {}: {}", dir.value.display(), error.message()),
                );
                match error.help() {
                    Some(help) => located.with_help(help),
                    None => located,
                }
            }
            _ => error,
        }
    })
}

fn needs_isolation(what: &str, settings: &Settings) -> SkillError {
    let place = match settings.workspace.mode {
        WorkspaceMode::None => format!(
            "with workspace mode `none` the agent runs in {} and the skills would be written there",
            settings
                .workspace
                .cwd
                .as_deref()
                .unwrap_or(&settings.cwd)
                .display()
        ),
        _ => {
            "with workspace mode `shared` every case would see the skills of the others".to_owned()
        }
    };
    SkillError::NeedsIsolation {
        what: what.to_owned(),
        place,
    }
}
