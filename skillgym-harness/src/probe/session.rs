//! One runner's probe: its CLI started once in a fresh workspace with the skills installed,
//! against a scripted model session answering [`ANSWER`](super::ANSWER), and what its requests
//! listed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillgym::InstalledSkill;

use serde_json::Value;

use super::instructions::{PLANTED, instruction_files};
use super::{ListingSize, ProbeOptions, Rendering, RunnerProbe, SkillProbe};
use crate::agent::{ApiKey, Provider, SessionSpec};
use crate::config::WireApi;
use crate::execute::{SessionLimits, run_session};
use crate::mock::listing::{ListedSkill, Listing, skill_listing};
use crate::mock::{MockServer, Script, SessionSetup};
use crate::runner::Runner;
use crate::skills::Skill;

/// The prompt the CLI is started with.
const PROMPT: &str = "Say done.";

impl RunnerProbe {
    /// The probe of runner `runner` (agent `kind`, skills installed in `installed_in`) before
    /// anything is known of its requests.
    pub(super) fn empty(runner: &str, kind: &str, installed_in: &str) -> RunnerProbe {
        RunnerProbe {
            runner: runner.to_owned(),
            agent: kind.to_owned(),
            version: None,
            installed_in: installed_in.to_owned(),
            requests: 0,
            failure: None,
            listing: ListingSize::default(),
            skills: Vec::new(),
            discovered_from: Vec::new(),
            other_skills: Vec::new(),
            duplicates: Vec::new(),
            planted_instructions: Vec::new(),
            instruction_files: Vec::new(),
        }
    }
}

/// Probes `runner`: never fails, a problem is the entry's `failure`.
pub(super) fn probe_runner(
    server: &MockServer,
    runner: &Runner,
    skills: &[Arc<Skill>],
    options: &ProbeOptions,
) -> RunnerProbe {
    let kind = runner.agent.kind();
    let installed_in = crate::agent::project_skills(kind);
    let mut probe = RunnerProbe::empty(&runner.id, kind, installed_in);
    let dir = options.dir.join(crate::artifacts::sanitize(&runner.id));
    let requests = match run(server, runner, skills, options, &dir) {
        Ok((requests, failure)) => {
            probe.failure = failure;
            requests
        }
        Err(failure) => {
            probe.failure = Some(failure);
            Vec::new()
        }
    };
    probe.requests = requests.len();
    let api = runner.agent.wire_api().unwrap_or(WireApi::OpenaiChat);
    let listed = requests
        .iter()
        .map(|body| (body, skill_listing(api, body)))
        .find(|(_, listing)| !listing.skills.is_empty());
    let (probed, listing) = match listed {
        Some((body, listing)) => (Some(body), listing),
        None => (requests.first(), Listing::default()),
    };
    describe(&mut probe, &listing, skills);
    probe.instruction_files = probed.map(instruction_files).unwrap_or_default();
    if options.instructions {
        let workspace = dir.join("workspace");
        probe.planted_instructions = PLANTED
            .iter()
            .filter(|file| workspace.join(file).is_file())
            .map(|file| (*file).to_owned())
            .collect();
    }
    if probe.failure.is_none() && probe.requests == 0 {
        probe.failure = Some("the CLI sent no model request".to_owned());
    }
    probe
}

/// Starts the CLI in `<dir>/workspace` with the skills installed and its artifacts in
/// `<dir>/artifacts`; the bodies of the requests it sent, and the session's failure.
fn run(
    server: &MockServer,
    runner: &Runner,
    skills: &[Arc<Skill>],
    options: &ProbeOptions,
    dir: &Path,
) -> Result<(Vec<Value>, Option<String>), String> {
    let Some(wire_api) = runner.agent.wire_api() else {
        return Err(format!(
            "runner `{}` ({}) cannot be pointed at the scripted model server: its CLI has no endpoint setting",
            runner.id,
            runner.agent.kind()
        ));
    };
    let (cwd, artifacts, installed) = prepare(runner, skills, dir, options.instructions)?;
    let prompt_md = artifacts.join("prompt.md");
    let (prompt_file, _private) = crate::agent::isolation::write_prompt(&prompt_md, PROMPT)
        .map_err(|error| format!("cannot write {}: {error}", prompt_md.display()))?;
    let log = artifacts.join(crate::artifacts::REQUEST_LOG);
    let session = server.open_session(SessionSetup {
        script: Arc::new(Script::answer(super::ANSWER)),
        cwd: Some(cwd.clone()),
        log: Some(log.clone()),
        model: runner.agent.model().map(str::to_owned),
    });
    let provider = Provider {
        base_url: session.base_url(wire_api),
        api_key: ApiKey::Value(session.api_key().to_owned()),
        wire_api,
        offline: true,
    };
    let state_dir = artifacts.join("agent-state");
    let spec = SessionSpec {
        runner_id: &runner.id,
        prompt: PROMPT,
        prompt_file: &prompt_file,
        cwd: &cwd,
        artifact_dir: &artifacts,
        state_dir: &state_dir,
        provider: Some(&provider),
        skills: &installed,
        env: &[],
    };
    let limits = SessionLimits {
        timeout: options.timeout,
        max_steps: None,
        max_output: 64 << 20,
        live_steps: None,
        sandbox: None,
        trigger: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start a runtime: {error}"))?;
    let output = runtime.block_on(run_session(runner.agent.as_ref(), &spec, limits));
    drop(session);
    let failure = output.failure.map(|failure| failure.message);
    Ok((read_requests(&log), failure))
}

/// A fresh `<dir>/workspace` (an empty repository) with the skills installed where the
/// runner's agent discovers project skills (and, with `instructions`, the planted instruction
/// files), and `<dir>/artifacts`.
fn prepare(
    runner: &Runner,
    skills: &[Arc<Skill>],
    dir: &Path,
    instructions: bool,
) -> Result<(PathBuf, PathBuf, Vec<InstalledSkill>), String> {
    let cwd = dir.join("workspace");
    let artifacts = dir.join("artifacts");
    if dir.exists() {
        return Err(format!(
            "{} exists already; the probe writes only into new directories",
            dir.display()
        ));
    }
    std::fs::create_dir_all(&cwd)
        .and_then(|()| std::fs::create_dir_all(&artifacts))
        .and_then(|()| crate::workspace::boundary::ensure_repository(&cwd))
        .map_err(|error| format!("cannot make the workspace {}: {error}", cwd.display()))?;
    let into = crate::agent::project_skills(runner.agent.kind());
    let installed =
        crate::skills::install::install(skills, &cwd, into).map_err(|error| error.to_string())?;
    if instructions {
        super::instructions::plant(&cwd).map_err(|error| {
            format!(
                "cannot plant the instruction files in {}: {error}",
                cwd.display()
            )
        })?;
    }
    Ok((cwd, artifacts, installed))
}

/// The request bodies of a request log file (none when it cannot be read).
fn read_requests(log: &Path) -> Vec<Value> {
    parse_requests(&std::fs::read_to_string(log).unwrap_or_default())
}

/// The request bodies of a request log's text (lines that do not parse are skipped).
pub(super) fn parse_requests(log: &str) -> Vec<Value> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|mut entry| entry["body"].take())
        .filter(|body| !body.is_null())
        .collect()
}

/// Fills `probe` in from `listing`, the skills under test being `skills`.
pub(super) fn describe(probe: &mut RunnerProbe, listing: &Listing, skills: &[Arc<Skill>]) {
    let places: BTreeSet<&str> = listing
        .skills
        .iter()
        .map(|skill| skill.place.as_str())
        .collect();
    probe.listing = ListingSize {
        chars: listing.chars,
        tokens: listing.estimated_tokens(),
        estimate: "chars/4",
        places: places.into_iter().map(str::to_owned).collect(),
    };
    probe.skills = skills
        .iter()
        .map(|skill| skill_probe(skill, &listing.skills))
        .collect();
    let under_test: BTreeSet<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    let mut seen = BTreeSet::new();
    let mut duplicates = BTreeSet::new();
    let mut discovered = BTreeSet::new();
    for entry in &listing.skills {
        if !seen.insert((entry.name.as_str(), entry.place.as_str())) {
            duplicates.insert(entry.name.clone());
        }
        if let Some(dir) = entry.location.as_deref().and_then(skills_dir) {
            discovered.insert(dir);
        }
    }
    probe.other_skills = listing
        .names()
        .into_iter()
        .filter(|name| !under_test.contains(name.as_str()))
        .collect();
    probe.duplicates = duplicates.into_iter().collect();
    probe.discovered_from = discovered.into_iter().collect();
}

/// What the listing shows of `skill`.
fn skill_probe(skill: &Skill, listed: &[ListedSkill]) -> SkillProbe {
    let entries: Vec<&ListedSkill> = listed
        .iter()
        .filter(|entry| entry.name == skill.name)
        .collect();
    let shown = entries.iter().find_map(|entry| entry.description.clone());
    let mut places: Vec<String> = Vec::new();
    for entry in &entries {
        if !places.contains(&entry.place) {
            places.push(entry.place.clone());
        }
    }
    SkillProbe {
        name: skill.name.clone(),
        description: skill.description.clone(),
        listed: !entries.is_empty(),
        rendering: shown.as_deref().map_or(Rendering::NotShown, |shown| {
            rendering(&skill.description, shown)
        }),
        shown,
        places,
        location: entries.iter().find_map(|entry| entry.location.clone()),
    }
}

/// How `shown` relates to `written`.
pub(super) fn rendering(written: &str, shown: &str) -> Rendering {
    if shown == written {
        return Rendering::Exact;
    }
    let decoded = decode_entities(shown);
    if decoded == written {
        return Rendering::Escaped;
    }
    if decoded.len() > written.len() && decoded.starts_with(written) {
        return Rendering::Annotated;
    }
    let stem = decoded.trim_end_matches(['…', '.']).trim_end();
    if !stem.is_empty() && stem.len() < written.len() && written.starts_with(stem) {
        return Rendering::Cut;
    }
    Rendering::Changed
}

/// `text` with the XML entities agents write (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`,
/// `&#39;`) decoded.
fn decode_entities(text: &str) -> String {
    [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&apos;", "'"),
        ("&#39;", "'"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_owned(), |text, (entity, plain)| {
        text.replace(entity, plain)
    })
}

/// The skills directory a listed location is in: the directory above the skill's own
/// (`/w/.claude/skills/demo/SKILL.md` → `/w/.claude/skills`); `None` for a location that is
/// not a path to a `SKILL.md` (`project`, `<built-in>`).
fn skills_dir(location: &str) -> Option<String> {
    let path = Path::new(location);
    if path.file_name()? != "SKILL.md" {
        return None;
    }
    let dir = path.parent()?.parent()?;
    Some(dir.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_exact_escaped_annotated_cut_or_changed() {
        let written = "The author's <b> skill & more.";
        let cases = [
            (written, Rendering::Exact),
            (
                "The author&apos;s &lt;b&gt; skill &amp; more.",
                Rendering::Escaped,
            ),
            ("The author&#39;s <b> skill & more.", Rendering::Escaped),
            (
                "The author's <b> skill & more. (project)",
                Rendering::Annotated,
            ),
            ("The author's <b> sk…", Rendering::Cut),
            ("The author's <b> skill...", Rendering::Cut),
            ("The author's", Rendering::Cut),
            ("Another text.", Rendering::Changed),
            ("…", Rendering::Changed),
        ];
        for (shown, expected) in cases {
            assert_eq!(rendering(written, shown), expected, "{shown}");
        }
    }

    fn entry(
        name: &str,
        description: Option<&str>,
        location: Option<&str>,
        place: &str,
    ) -> ListedSkill {
        ListedSkill {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            location: location.map(str::to_owned),
            place: place.to_owned(),
        }
    }

    #[test]
    fn the_report_names_places_other_skills_duplicates_and_skill_directories() {
        let skills = [
            Arc::new(Skill {
                name: "mine".to_owned(),
                description: "Mine.".to_owned(),
                source: PathBuf::from("/src/mine"),
            }),
            Arc::new(Skill {
                name: "absent".to_owned(),
                description: "Absent.".to_owned(),
                source: PathBuf::from("/src/absent"),
            }),
        ];
        let listing = Listing {
            chars: 401,
            skills: vec![
                entry("mine", None, None, "/tools/0/enum"),
                entry(
                    "mine",
                    Some("Mine."),
                    Some("/w/.gemini/skills/mine/SKILL.md"),
                    "/system",
                ),
                entry(
                    "builtin",
                    Some("B."),
                    Some("/opt/cli/builtin/builtin/SKILL.md"),
                    "/system",
                ),
                entry("builtin", Some("B."), Some("<built-in>"), "/system"),
            ],
        };
        let mut probe = RunnerProbe::empty("r", "gemini-cli", ".gemini/skills");
        probe.requests = 1;
        describe(&mut probe, &listing, &skills);
        assert_eq!(probe.listing.chars, 401);
        assert_eq!(probe.listing.tokens, 101);
        assert_eq!(probe.listing.places, ["/system", "/tools/0/enum"]);
        let mine = &probe.skills[0];
        assert!(mine.listed);
        assert_eq!(mine.shown.as_deref(), Some("Mine."));
        assert_eq!(mine.rendering, Rendering::Exact);
        assert_eq!(mine.places, ["/tools/0/enum", "/system"]);
        assert_eq!(
            mine.location.as_deref(),
            Some("/w/.gemini/skills/mine/SKILL.md")
        );
        let absent = &probe.skills[1];
        assert!(!absent.listed);
        assert_eq!(absent.rendering, Rendering::NotShown);
        assert!(absent.places.is_empty());
        assert_eq!(probe.other_skills, ["builtin"]);
        assert_eq!(probe.duplicates, ["builtin"]);
        assert_eq!(
            probe.discovered_from,
            ["/opt/cli/builtin", "/w/.gemini/skills"]
        );
    }
}
