//! `cargo skillgym probe`: what each agent CLI shows its model of the skills under test, at
//! zero model tokens. Each runner's CLI starts once in a fresh workspace (an empty repository
//! of its own, a private home as in a run: `crate::agent::isolation`) with the skills installed
//! where it discovers project skills, against the scripted model server, which answers every
//! request with [`ANSWER`]; the report is read from the requests the CLI sent
//! (`mock-requests.jsonl`), by [`skill_listing`](crate::mock::listing::skill_listing) and
//! [`instruction_files`](instructions::instruction_files) on the first request holding a skill
//! listing (else the first request). With [`ProbeOptions::instructions`] the workspace also
//! holds a marked `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `QWEN.md` and
//! `.github/copilot-instructions.md` ([`instructions::PLANTED`]), so the report shows which of
//! them each CLI sends its model.
//!
//! The JSON form ([`render::json`]), schema version [`SCHEMA`]:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `schema` | number | [`SCHEMA`]; a change that removes or renames a key raises it |
//! | `runners[]` | array | one entry per runner, in the order probed |
//! | `runners[].runner` / `.agent` / `.version` | string / string / string or null | the runner id, the agent type, the CLI's `--version` answer (or its start-up record's) |
//! | `runners[].installed_in` | string | where the skills were installed, relative to the workspace |
//! | `runners[].requests` | number | model requests the CLI sent |
//! | `runners[].failure` | string or null | why the session or the probe failed; the other keys then say what was seen |
//! | `runners[].listing.chars` / `.tokens` | number / number | the size of the skill listing (all of it, the CLI's own skills included) in characters, and in tokens estimated as `chars / 4` rounded up (no tokenizer is run) |
//! | `runners[].listing.estimate` | string | how tokens were counted: `chars/4` |
//! | `runners[].listing.places` | array of strings | JSON pointers to where the listing is in the request |
//! | `runners[].skills[]` | array | one entry per skill under test |
//! | `….skills[].name` / `.description` | string / string | the skill's name and its `SKILL.md` description |
//! | `….skills[].listed` | bool | whether the request lists it |
//! | `….skills[].shown` | string or null | the description exactly as the request shows it |
//! | `….skills[].rendering` | string | how `shown` relates to `description`: `exact`, `escaped` (equal once XML entities are decoded), `annotated` (something added after it), `cut` (a prefix of it, with or without an ellipsis), `changed`, `not-shown` (listed by name only, or not listed) |
//! | `….skills[].places` | array of strings | where it is listed (JSON pointers) |
//! | `….skills[].location` | string or null | the skill file's location as the listing gives it (Codex's short path expanded with its skill roots) |
//! | `runners[].discovered_from` | array of strings | the skill directories the listed locations are in (the CLI's own, the workspace's): which directories the CLI reads skills from |
//! | `runners[].other_skills` | array of strings | listed names that are not skills under test: the CLI's built-in skills, or skills leaking from elsewhere |
//! | `runners[].duplicates` | array of strings | names listed more than once in one place |
//! | `runners[].planted_instructions` | array of strings | the instruction files planted in the workspace (`--instructions`), relative to it; empty without |
//! | `runners[].instruction_files[]` | array | the instruction files whose contents the request holds, planted or not, in request order ([`instructions`] says how they are found) |
//! | `….instruction_files[].file` | string | the file as the request names it (a path, a name, Codex's `DIR/AGENTS.md`), else the planted file whose marker it holds, else `<custom_instruction>` (Copilot names none) |
//! | `….instruction_files[].planted` | string or null | the planted file whose marker its contents hold; null: not planted by the probe (the CLI's own, or leaking from a user-level configuration) |
//! | `….instruction_files[].places` | array of strings | where its contents are (JSON pointers) |

pub mod instructions;
mod render;
mod session;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::config::{AgentKind, Config, ConfigError};
use crate::runner::Runner;
use crate::skills::Skill;

pub use render::{console, html, json};

/// What the scripted model answers every request of a probe with.
pub const ANSWER: &str = "skillgym probe: done";
/// The version of the JSON form's schema.
pub const SCHEMA: u32 = 1;

/// What to probe.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeOptions {
    /// The configuration: its runners and `run.skills`.
    pub config: Config,
    /// The runners to probe (ids of the config); empty: all of them, or, when the config has
    /// none, one per built-in agent type whose program is on `PATH`.
    pub runners: Vec<String>,
    /// The skill directories to install; empty: the config's `run.skills`.
    pub skills: Vec<PathBuf>,
    /// Where each runner's workspace and artifacts go (`<dir>/<runner>/`).
    pub dir: PathBuf,
    /// How long one CLI may take.
    pub timeout: Duration,
    /// Whether to plant the marked instruction files of [`instructions::PLANTED`] in each
    /// workspace.
    pub instructions: bool,
}

impl ProbeOptions {
    /// Options probing `config`'s runners with its skills, working in `dir`, 180 s per CLI.
    pub fn new(config: Config, dir: PathBuf) -> ProbeOptions {
        ProbeOptions {
            config,
            runners: Vec::new(),
            skills: Vec::new(),
            dir,
            timeout: Duration::from_secs(180),
            instructions: false,
        }
    }
}

/// What a probe found: one entry per runner.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ProbeReport {
    /// [`SCHEMA`].
    pub schema: u32,
    /// One entry per runner.
    pub runners: Vec<RunnerProbe>,
}

/// What one runner's CLI showed its model.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RunnerProbe {
    /// The runner id.
    pub runner: String,
    /// The agent type.
    pub agent: String,
    /// The CLI's version, when known.
    pub version: Option<String>,
    /// Where the skills were installed, relative to the workspace.
    pub installed_in: String,
    /// Model requests the CLI sent.
    pub requests: usize,
    /// Why the session or the probe failed.
    pub failure: Option<String>,
    /// The size and places of the skill listing.
    pub listing: ListingSize,
    /// The skills under test.
    pub skills: Vec<SkillProbe>,
    /// The skill directories the listed locations are in.
    pub discovered_from: Vec<String>,
    /// Listed names that are not skills under test.
    pub other_skills: Vec<String>,
    /// Names listed more than once in one place.
    pub duplicates: Vec<String>,
    /// The instruction files planted in the workspace, relative to it.
    pub planted_instructions: Vec<String>,
    /// The instruction files whose contents the request holds.
    pub instruction_files: Vec<InstructionFile>,
}

/// An instruction file whose contents a request holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InstructionFile {
    /// The file as the request names it, else the planted file, else `<custom_instruction>`.
    pub file: String,
    /// The planted file (relative to the workspace) whose marker its contents hold.
    pub planted: Option<String>,
    /// JSON pointers to the strings holding its contents.
    pub places: Vec<String>,
}

/// The size of a request's skill listing.
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct ListingSize {
    /// Characters.
    pub chars: usize,
    /// Estimated tokens.
    pub tokens: usize,
    /// How tokens were estimated: `chars/4`.
    pub estimate: &'static str,
    /// JSON pointers to the listing's places in the request.
    pub places: Vec<String>,
}

/// One skill under test as a runner's CLI showed it.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct SkillProbe {
    /// The `name:` of its `SKILL.md`.
    pub name: String,
    /// The `description:` of its `SKILL.md`.
    pub description: String,
    /// Whether the request lists it.
    pub listed: bool,
    /// The description exactly as the request shows it.
    pub shown: Option<String>,
    /// How `shown` relates to `description`.
    pub rendering: Rendering,
    /// JSON pointers to where it is listed.
    pub places: Vec<String>,
    /// The skill file's location as the listing gives it.
    pub location: Option<String>,
}

/// How a listed description relates to the `SKILL.md` one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rendering {
    /// Shown as written.
    Exact,
    /// Equal once XML entities (`&apos;`, `&lt;`, …) are decoded.
    Escaped,
    /// The description with something added after it (Qwen Code's ` (project)`).
    Annotated,
    /// A prefix of the description, with or without an ellipsis.
    Cut,
    /// Something else.
    Changed,
    /// Not shown: listed by name only, or not listed.
    NotShown,
}

/// Why a probe cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// A skill directory is not a valid skill.
    #[error(transparent)]
    Skill(#[from] ConfigError),
    /// A `--runner` the config does not have.
    #[error("no runner `{id}` in the config (runners: {known})")]
    UnknownRunner {
        /// The id given.
        id: String,
        /// The config's runner ids.
        known: String,
    },
    /// No runner to probe.
    #[error(
        "nothing to probe: the config has no runners and no agent CLI (claude, codex, opencode, copilot, gemini, qwen) is on PATH"
    )]
    NoRunner,
    /// No skill to install.
    #[error(
        "no skill to probe: give skill directories (`--skill DIR`) or list them in `run.skills`"
    )]
    NoSkill,
    /// An agent cannot be built from its config.
    #[error("runner `{id}`: {message}")]
    Agent {
        /// The runner id.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// The scripted model server cannot listen.
    #[error("cannot start the scripted model server on 127.0.0.1: {0}")]
    Server(std::io::Error),
}

/// Probes every selected runner, one after the other.
pub fn probe(options: &ProbeOptions) -> Result<ProbeReport, ProbeError> {
    let skills = load_skills(options)?;
    let runners = select_runners(options)?;
    let server = crate::mock::MockServer::start(crate::mock::ServerOptions::default())
        .map_err(ProbeError::Server)?;
    let refs: Vec<&Runner> = runners.iter().collect();
    let versions = crate::versions::RunVersions::resolve(&options.dir, &refs);
    let runners = runners
        .iter()
        .map(|runner| {
            let mut probe = session::probe_runner(&server, runner, &skills, options);
            probe.version = probe.version.or(versions.agent(runner).version);
            probe
        })
        .collect();
    Ok(ProbeReport {
        schema: SCHEMA,
        runners,
    })
}

/// The skills to install: `--skill` directories, else `run.skills`.
fn load_skills(options: &ProbeOptions) -> Result<Vec<Arc<Skill>>, ProbeError> {
    let dirs: Vec<PathBuf> = if options.skills.is_empty() {
        let run = &options.config.run;
        run.skills.iter().map(|dir| dir.value.clone()).collect()
    } else {
        options.skills.clone()
    };
    if dirs.is_empty() {
        return Err(ProbeError::NoSkill);
    }
    let loaded = dirs
        .iter()
        .map(|dir| crate::skills::load(dir).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    crate::skills::merge([loaded.as_slice()])
        .map_err(|error| ProbeError::Skill(ConfigError::new(None, error.to_string())))
}

/// The runners to probe, built.
fn select_runners(options: &ProbeOptions) -> Result<Vec<Runner>, ProbeError> {
    let config = &options.config;
    let build = |id: &str, kind: AgentKind, agent_options| {
        crate::agent::build(kind, agent_options)
            .map(|agent| Runner {
                id: id.to_owned(),
                agent,
                replay: None,
            })
            .map_err(|error| ProbeError::Agent {
                id: id.to_owned(),
                message: error.to_string(),
            })
    };
    if config.runners.is_empty() {
        let found: Vec<Runner> = INSTALLABLE
            .iter()
            .filter_map(|kind| crate::agent::of_kind(*kind))
            .filter(|spec| {
                crate::process::find_program(std::path::Path::new(spec.program)).is_some()
            })
            .filter(|spec| {
                options.runners.is_empty() || options.runners.iter().any(|id| id == spec.name)
            })
            .map(|spec| {
                build(
                    spec.name,
                    spec.kind,
                    crate::agent::AgentOptions::new(spec.example_model),
                )
            })
            .collect::<Result<_, _>>()?;
        return if found.is_empty() {
            Err(ProbeError::NoRunner)
        } else {
            Ok(found)
        };
    }
    for id in &options.runners {
        if !config.runners.iter().any(|(known, _)| known == id) {
            return Err(ProbeError::UnknownRunner {
                id: id.clone(),
                known: config.runner_ids().collect::<Vec<_>>().join(", "),
            });
        }
    }
    config
        .runners
        .iter()
        .filter(|(id, _)| options.runners.is_empty() || options.runners.contains(id))
        .map(|(id, runner)| {
            build(
                id,
                runner.agent.kind,
                crate::agent::AgentOptions::from_config(&runner.agent),
            )
        })
        .collect()
}

/// The agent types probed when the config has no runners: the six installable CLIs.
const INSTALLABLE: [AgentKind; 6] = [
    AgentKind::ClaudeCode,
    AgentKind::Codex,
    AgentKind::Opencode,
    AgentKind::Copilot,
    AgentKind::GeminiCli,
    AgentKind::QwenCode,
];
