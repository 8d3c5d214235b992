//! Which skills each attempt installs, settled at start. The configuration's skills (`run.skills`,
//! a runner's `skills`) are loaded and validated before anything runs: a problem there stops
//! the run. A case's own skills are loaded at start too, but a problem with them (a bad
//! `SKILL.md`, a name clash, a workspace that is not isolated) fails only that case's
//! executions, so filtered-out cases never stop a run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Skill, SkillCache, git_version, merge};
use crate::config::yaml::Located;
use crate::config::{ConfigError, Variant, VariantSkills, WorkspaceMode};
use crate::settings::Settings;
use crate::skills::SkillError;
use crate::suite::CaseSpec;
use crate::suite::yaml::Warning;

/// Skills under test at a variant's git revision, by variant name and source directory.
type GitVersions = HashMap<(String, PathBuf), Result<Arc<Skill>, SkillError>>;

/// The skills under test of a run: the configuration's, each runner's, each case's.
#[derive(Debug, Default)]
pub(crate) struct SkillPlan {
    run: Vec<Arc<Skill>>,
    runners: HashMap<String, Vec<Arc<Skill>>>,
    /// Each case's own skills, or why the case cannot have them.
    cases: HashMap<String, Result<Vec<Arc<Skill>>, SkillError>>,
    /// The skills of each variant that lists its own directories, or why it cannot have them.
    variants: HashMap<String, Result<Vec<Arc<Skill>>, SkillError>>,
    /// Skills under test as committed at a variant's git revision, written on first use, by
    /// variant and source directory.
    git_versions: Mutex<GitVersions>,
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
        let installs = |v: &Variant| {
            matches!(v.skills, VariantSkills::Dirs(_) | VariantSkills::Git(_))
                || !v.files.is_empty()
        };
        if !plan.isolated && settings.variants.iter().any(|v| installs(v)) {
            return Err(needs_isolation("a variant's `skills` or `files`", settings));
        }
        if let Some((variant, source)) = settings.variants.iter().find_map(|v| {
            v.files
                .values()
                .find(|source| !source.is_file())
                .map(|source| (v, source))
        }) {
            return Err(SkillError::Invalid(
                ConfigError::new(
                    settings.config_path.as_deref(),
                    format!(
                        "variant `{}`: its file {} is not a file",
                        variant.name,
                        source.display()
                    ),
                )
                .with_help("`files` copies existing files into each attempt's workspace"),
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
        // A case without skills of its own has none in the plan: `under_test` reads that as
        // the empty list.
        for case in cases.iter().filter(|case| !case.skills.is_empty()) {
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

    /// The `cargo skillgym lint` findings of every skill under test (the run's, the runners',
    /// the cases' and the variants' directories), as warnings to print once a run.
    pub(crate) fn lint_warnings(&self) -> Vec<Warning> {
        let listed = self.run.iter().chain(self.runners.values().flatten());
        let own = self
            .cases
            .values()
            .chain(self.variants.values())
            .filter_map(|skills| skills.as_ref().ok())
            .flatten();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for skill in listed.chain(own) {
            if !dirs.contains(&skill.source) {
                dirs.push(skill.source.clone());
            }
        }
        dirs.sort();
        super::lint::install_warnings(&dirs)
            .into_iter()
            .map(|(path, message)| Warning { path, message })
            .collect()
    }

    /// The skills an attempt of `case` on `runner` under `variant` installs: the variant's
    /// (none, or its own directories), else the skills under test in order: the run's, the
    /// runner's, the case's; or why the case cannot have them.
    ///
    /// A variant's `{ git: REF }` skills are written below `<run_dir>/.variants/` on first use.
    pub(crate) fn for_attempt(
        &self,
        case: &str,
        runner: &str,
        variant: Option<&Variant>,
        run_dir: &Path,
    ) -> Result<Vec<Arc<Skill>>, SkillError> {
        let Some(variant) = variant else {
            return self.under_test(case, runner);
        };
        match &variant.skills {
            VariantSkills::UnderTest => self.under_test(case, runner),
            VariantSkills::Without => Ok(Vec::new()),
            VariantSkills::Dirs(_) => self
                .variants
                .get(&variant.name)
                .cloned()
                .unwrap_or(Ok(Vec::new())),
            VariantSkills::Git(revision) => self
                .under_test(case, runner)?
                .iter()
                .enumerate()
                .map(|(index, skill)| self.at_revision(skill, variant, revision, index, run_dir))
                .collect(),
        }
    }

    /// `skill` as committed at `revision`, for `variant` (written once a run).
    fn at_revision(
        &self,
        skill: &Skill,
        variant: &Variant,
        revision: &str,
        index: usize,
        run_dir: &Path,
    ) -> Result<Arc<Skill>, SkillError> {
        let mut versions = self
            .git_versions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = (variant.name.clone(), skill.source.clone());
        versions
            .entry(key)
            .or_insert_with(|| {
                let dir_name = skill
                    .source
                    .file_name()
                    .map_or_else(|| skill.name.clone(), |n| n.to_string_lossy().into_owned());
                let into = run_dir
                    .join(".variants")
                    .join(crate::artifacts::sanitize(&variant.name))
                    .join(format!("{index}-{dir_name}"));
                git_version::materialize(&skill.source, revision, &into)
                    .and_then(|dir| super::load(&dir))
                    .map(Arc::new)
                    .map_err(SkillError::Invalid)
            })
            .clone()
    }

    /// The skills under test of `case` on `runner`, in order: the run's, the runner's, the
    /// case's; or why the case cannot have them.
    fn under_test(&self, case: &str, runner: &str) -> Result<Vec<Arc<Skill>>, SkillError> {
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
