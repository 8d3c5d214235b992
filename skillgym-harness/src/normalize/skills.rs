//! Skill detection from a session's events, the same for every agent.
//!
//! | observed | counts as |
//! |---|---|
//! | a skill load through the agent's skill tool that succeeded | `explicit` evidence for the tool's argument |
//! | a read of a `SKILL.md` that succeeded | `strong` evidence for the skill it names |
//! | a read of another file inside a known skill directory | `medium` evidence |
//! | a skill load or `SKILL.md` read that failed | an attempt: never evidence, listed apart |
//!
//! A `SKILL.md` names its skill by the `name:` of its frontmatter: taken from the skill
//! installed at that path, else from the names recorded for a replay (`skill-manifests.json`),
//! else read from the file at normalization time, else its parent
//! directory's name, unless that directory is the workspace root (then it names nothing).
//! A skill directory is known when it is installed, when its `SKILL.md` was read, or when it
//! sits right under a directory named `skills` (`.claude/skills/<skill>/references/x.md`).
//!
//! One entry per skill, in order of first evidence; the strongest confidence wins and all
//! evidence is kept, without duplicates.

use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use skillgym::{Confidence, SessionEvent, SkillAttempt, SkillDetection};

use crate::skills::manifest;

/// What skill detection knows before reading the stream: the workspace root and the skills
/// installed for the session.
#[derive(Debug, Clone, Default)]
pub struct KnownSkills {
    root: Option<PathBuf>,
    installed: Vec<(PathBuf, String)>,
    manifests: Vec<(PathBuf, String)>,
}

impl KnownSkills {
    /// Skills of a session whose workspace is `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        KnownSkills {
            root: Some(root.into()),
            installed: Vec::new(),
            manifests: Vec::new(),
        }
    }

    /// Adds a skill installed in `dir` under `name`.
    pub fn installed(&mut self, dir: impl Into<PathBuf>, name: impl Into<String>) {
        self.installed.push((dir.into(), name.into()));
    }

    /// Adds the frontmatter `name` the `SKILL.md` at `path` had, so that detection need not
    /// read the file (a replay, whose workspace may be gone).
    pub fn manifest(&mut self, path: impl Into<PathBuf>, name: impl Into<String>) {
        self.manifests.push((path.into(), name.into()));
    }
}

/// What reading `SKILL.md` files gave: the frontmatter name of each path read, `None` when
/// the file could not be read or names no skill.
pub(crate) type ManifestReads = HashMap<PathBuf, Option<String>>;

/// The frontmatter names detection read from `SKILL.md` files on disk (not installed skills'),
/// as they are now: what a replay needs when the workspace is gone. A file already read
/// moments ago by [`detect_skills_reading`] is taken from `reads`, not read and parsed again.
pub(crate) fn manifests_read(
    events: &[SessionEvent],
    known: &KnownSkills,
    reads: &ManifestReads,
) -> Vec<(PathBuf, String)> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    for event in events {
        let SessionEvent::FileRead { path, .. } = event else {
            continue;
        };
        let installed = path
            .parent()
            .is_some_and(|dir| known.installed.iter().any(|(known, _)| known == dir));
        if !is_skill_file(path) || installed || found.iter().any(|(seen, _)| seen == path) {
            continue;
        }
        let name = match reads.get(path) {
            Some(read) => read.clone(),
            None => manifest::name_at(path),
        };
        if let Some(name) = name {
            found.push((path.clone(), name));
        }
    }
    found
}

/// Detects the skills the agent used, and the loads and reads that failed.
pub fn detect_skills(
    events: &[SessionEvent],
    known: &KnownSkills,
) -> (Vec<SkillDetection>, Vec<SkillAttempt>) {
    let (detections, attempts, _) = detect_skills_reading(events, known);
    (detections, attempts)
}

/// [`detect_skills`], also handing back what reading `SKILL.md` files gave.
pub(crate) fn detect_skills_reading(
    events: &[SessionEvent],
    known: &KnownSkills,
) -> (Vec<SkillDetection>, Vec<SkillAttempt>, ManifestReads) {
    let mut names = Names::new(known);
    let skill_dirs = skill_dirs(events, &mut names);
    let mut detections: Vec<SkillDetection> = Vec::new();
    let mut attempts: Vec<SkillAttempt> = Vec::new();
    // Evidence already weighed: the same evidence again changes nothing.
    let mut clean_reads: HashSet<&Path> = HashSet::default();
    let mut clean_loads: HashSet<(&str, &str)> = HashSet::default();
    for event in events {
        let (skill, confidence, evidence) = match event {
            SessionEvent::FileRead {
                path, error: None, ..
            } if !clean_reads.insert(path) => continue,
            SessionEvent::SkillSignal {
                skill,
                signal,
                error: None,
                ..
            } if !clean_loads.insert((skill, signal)) => continue,
            SessionEvent::SkillSignal {
                skill,
                signal,
                error,
                ..
            } => {
                let via = via(signal);
                if let Some(error) = error {
                    push_attempt(&mut attempts, SkillAttempt::new(skill, via, error));
                    continue;
                }
                (
                    skill.clone(),
                    Confidence::Explicit,
                    format!("Loaded via {via}"),
                )
            }
            SessionEvent::FileRead { path, error, .. } if is_skill_file(path) => {
                let Some(skill) = names.of_manifest(path) else {
                    continue;
                };
                let read = format!("Read {}", path.display());
                if let Some(error) = error {
                    push_attempt(&mut attempts, SkillAttempt::new(skill, read, error));
                    continue;
                }
                (skill, Confidence::Strong, read)
            }
            SessionEvent::FileRead {
                path, error: None, ..
            } => {
                let Some(skill) = inside_skill(path, &skill_dirs, &mut names) else {
                    continue;
                };
                (
                    skill,
                    Confidence::Medium,
                    format!("Read {} inside the skill's directory", path.display()),
                )
            }
            _ => continue,
        };
        add_evidence(&mut detections, skill, confidence, evidence);
    }
    (detections, attempts, names.read)
}

/// The known skill directories: the installed skills', then the directory of each `SKILL.md`
/// read without error, named by it.
fn skill_dirs(events: &[SessionEvent], names: &mut Names<'_>) -> Vec<(PathBuf, String)> {
    let mut skill_dirs: Vec<(PathBuf, String)> = names.known.installed.clone();
    // A path read again without error gives what its first read gave: it is looked at once.
    let mut clean_reads: HashSet<&Path> = HashSet::default();
    for event in events {
        if let SessionEvent::FileRead {
            path, error: None, ..
        } = event
            && is_skill_file(path)
            && clean_reads.insert(path)
            && let (Some(dir), Some(name)) = (path.parent(), names.of_manifest(path))
            && !skill_dirs.iter().any(|(known, _)| known == dir)
        {
            skill_dirs.push((dir.to_path_buf(), name));
        }
    }
    skill_dirs
}

/// Adds `evidence` of `skill` at `confidence`: to its detection, whose strongest confidence
/// wins, or as a new one.
fn add_evidence(
    detections: &mut Vec<SkillDetection>,
    skill: String,
    confidence: Confidence,
    evidence: String,
) {
    match detections.iter_mut().find(|d| d.skill == skill) {
        Some(existing) => {
            existing.confidence = existing.confidence.max(confidence);
            if !existing.evidence.contains(&evidence) {
                existing.evidence.push(evidence);
            }
        }
        None => detections.push(SkillDetection {
            skill,
            confidence,
            evidence: vec![evidence],
        }),
    }
}

/// `Skill tool` for the signal `tool:Skill`.
fn via(signal: &str) -> String {
    match signal.strip_prefix("tool:") {
        Some(tool) => format!("{tool} tool"),
        None => signal.to_owned(),
    }
}

fn push_attempt(attempts: &mut Vec<SkillAttempt>, attempt: SkillAttempt) {
    if !attempts.contains(&attempt) {
        attempts.push(attempt);
    }
}

/// The name of the skill a file inside a skill directory belongs to: the nearest known skill
/// directory above it, else a directory right under one named `skills`.
fn inside_skill(
    path: &Path,
    skill_dirs: &[(PathBuf, String)],
    names: &mut Names,
) -> Option<String> {
    for dir in path.ancestors().skip(1) {
        if let Some((_, name)) = skill_dirs.iter().find(|(known, _)| known == dir) {
            return Some(name.clone());
        }
        if dir.parent().and_then(Path::file_name) == Some("skills".as_ref()) {
            return names.of_manifest(&manifest::manifest_path(dir));
        }
    }
    None
}

/// Names skills by their `SKILL.md`, reading each file at most once.
struct Names<'a> {
    known: &'a KnownSkills,
    read: HashMap<PathBuf, Option<String>>,
}

impl<'a> Names<'a> {
    fn new(known: &'a KnownSkills) -> Self {
        Names {
            known,
            read: HashMap::default(),
        }
    }

    /// The name of the skill whose `SKILL.md` is at `path`.
    fn of_manifest(&mut self, path: &Path) -> Option<String> {
        let dir = path.parent()?;
        if let Some((_, name)) = self.known.installed.iter().find(|(known, _)| known == dir) {
            return Some(name.clone());
        }
        if let Some((_, name)) = self.known.manifests.iter().find(|(known, _)| known == path) {
            return Some(name.clone());
        }
        let from_file = self
            .read
            .entry(path.to_path_buf())
            .or_insert_with(|| manifest::name_at(path))
            .clone();
        from_file.or_else(|| {
            if self.known.root.as_deref() == Some(dir) {
                return None;
            }
            dir.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
    }
}

fn is_skill_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "SKILL.md")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str) -> SessionEvent {
        SessionEvent::file_read(path)
    }

    fn detect(events: &[SessionEvent]) -> (Vec<SkillDetection>, Vec<SkillAttempt>) {
        detect_skills(events, &KnownSkills::new("/r"))
    }

    #[test]
    fn strongest_confidence_wins_and_evidence_is_merged() {
        let events = vec![
            read("/r/.claude/skills/find-skills/SKILL.md"),
            read("/r/.claude/skills/find-skills/SKILL.md"),
            read("/r/README.md"),
            SessionEvent::SkillSignal {
                skill: "find-skills".into(),
                signal: "tool:Skill".into(),
                error: None,
                at: None,
            },
            read("/r/skills/other/SKILL.md"),
        ];
        let (detected, attempts) = detect(&events);
        assert!(attempts.is_empty());
        assert_eq!(detected.len(), 2);
        assert_eq!(detected[0].skill, "find-skills");
        assert_eq!(detected[0].confidence, Confidence::Explicit);
        assert_eq!(
            detected[0].evidence,
            vec![
                "Read /r/.claude/skills/find-skills/SKILL.md".to_owned(),
                "Loaded via Skill tool".to_owned()
            ]
        );
        assert_eq!(detected[1].skill, "other");
        assert_eq!(detected[1].confidence, Confidence::Strong);
    }

    #[test]
    fn evidence_seen_again_changes_nothing_and_a_failure_after_it_is_still_an_attempt() {
        let load = |error: Option<&str>| SessionEvent::SkillSignal {
            skill: "pdf".into(),
            signal: "tool:Skill".into(),
            error: error.map(str::to_owned),
            at: None,
        };
        let mut failed_read = read("/r/.claude/skills/pdf/SKILL.md");
        if let SessionEvent::FileRead { error, .. } = &mut failed_read {
            *error = Some("EACCES".into());
        }
        let once = vec![
            read("/r/.claude/skills/pdf/references/forms.md"),
            read("/r/.claude/skills/pdf/SKILL.md"),
            load(None),
            failed_read.clone(),
            load(Some("Unknown skill: pdf")),
        ];
        let mut again = Vec::new();
        for _ in 0..3 {
            again.extend(once.iter().cloned());
        }
        again.push(read("/r/.claude/skills/pdf/SKILL.md"));
        let (detected, attempts) = detect(&again);
        assert_eq!((detected.clone(), attempts.clone()), detect(&once));
        assert_eq!(detected.len(), 1);
        assert_eq!(detected[0].confidence, Confidence::Explicit);
        assert_eq!(detected[0].evidence.len(), 3, "{:?}", detected[0].evidence);
        assert_eq!(attempts.len(), 2, "{attempts:?}");
    }

    #[test]
    fn files_inside_a_skill_directory_are_medium_evidence() {
        let events = vec![
            read("/r/.claude/skills/pdf/references/forms.md"),
            read("/r/vendor/tools/lint/SKILL.md"),
            read("/r/vendor/tools/lint/scripts/run.sh"),
            read("/r/skills/README.md"),
            read("/r/src/main.rs"),
        ];
        let (detected, _) = detect(&events);
        let summary: Vec<(&str, Confidence)> = detected
            .iter()
            .map(|d| (d.skill.as_str(), d.confidence))
            .collect();
        assert_eq!(
            summary,
            [("pdf", Confidence::Medium), ("lint", Confidence::Strong)]
        );
        assert_eq!(detected[1].evidence.len(), 2);
        assert_eq!(
            detected[0].evidence,
            ["Read /r/.claude/skills/pdf/references/forms.md inside the skill's directory"]
        );
    }

    #[test]
    fn failed_loads_and_reads_are_attempts_never_evidence() {
        let events = vec![
            SessionEvent::skill_signal("ghost-skill").failed("Unknown skill: ghost-skill"),
            read("/r/skills/ghost/SKILL.md").failed("File not found"),
            read("/r/skills/ghost/notes.md").failed("File not found"),
            read("/r/skills/ghost/SKILL.md").failed("File not found"),
        ];
        let (detected, attempts) = detect(&events);
        assert!(detected.is_empty(), "{detected:?}");
        let attempts: Vec<String> = attempts.iter().map(ToString::to_string).collect();
        assert_eq!(
            attempts,
            [
                "ghost-skill: attempted via skill tool, failed: Unknown skill: ghost-skill",
                "ghost: attempted via Read /r/skills/ghost/SKILL.md, failed: File not found",
            ]
        );
    }

    #[test]
    fn names_come_from_frontmatter_and_never_from_the_workspace_root() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-names-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let root = tmp.path();
        let skill_dir = root.join("tools/odd-dir");
        std::fs::create_dir_all(&skill_dir).unwrap();
        std::fs::write(
            skill_dir.join("SKILL.md"),
            "---\nname: real-name\ndescription: d\n---\n",
        )
        .unwrap();
        let events = vec![
            SessionEvent::file_read(skill_dir.join("SKILL.md")),
            SessionEvent::file_read(skill_dir.join("scripts/run.sh")),
            SessionEvent::file_read(root.join("SKILL.md")),
        ];
        let (detected, _) = detect_skills(&events, &KnownSkills::new(root));
        let names: Vec<(&str, Confidence)> = detected
            .iter()
            .map(|d| (d.skill.as_str(), d.confidence))
            .collect();
        assert_eq!(names, [("real-name", Confidence::Strong)]);

        std::fs::write(
            root.join("SKILL.md"),
            "---\nname: at-root\ndescription: d\n---\n",
        )
        .unwrap();
        let (detected, _) = detect_skills(&events, &KnownSkills::new(root));
        assert_eq!(detected.last().map(|d| d.skill.as_str()), Some("at-root"));

        // What a replay needs: the names read from disk, which name the skills as they did
        // once the files are gone.
        let mut known = KnownSkills::new(root);
        known.installed(root.join("installed"), "installed");
        let mut read_events = events.clone();
        read_events.push(SessionEvent::file_read(root.join("installed/SKILL.md")));
        let names = manifests_read(&read_events, &known, &ManifestReads::default());
        assert_eq!(
            names,
            [
                (skill_dir.join("SKILL.md"), "real-name".to_owned()),
                (root.join("SKILL.md"), "at-root".to_owned()),
            ]
        );
        std::fs::remove_dir_all(root).unwrap();
        // Without them, the directory names the skill (wrongly), and the root names nothing.
        let (gone, _) = detect_skills(&events, &KnownSkills::new(root));
        let guessed: Vec<&str> = gone.iter().map(|d| d.skill.as_str()).collect();
        assert_eq!(guessed, ["odd-dir"]);
        let mut replayed = KnownSkills::new(root);
        for (path, name) in names {
            replayed.manifest(path, name);
        }
        let (detected, _) = detect_skills(&events, &replayed);
        let named: Vec<&str> = detected.iter().map(|d| d.skill.as_str()).collect();
        assert_eq!(named, ["real-name", "at-root"]);
        drop(tmp);
    }

    #[test]
    fn the_manifests_detection_read_are_not_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let skill_dir = root.join("tools/a");
        std::fs::create_dir_all(&skill_dir).unwrap();
        std::fs::write(
            skill_dir.join("SKILL.md"),
            "---\nname: from-disk\ndescription: d\n---\n",
        )
        .unwrap();
        let events = vec![
            SessionEvent::file_read(skill_dir.join("SKILL.md")),
            SessionEvent::file_read(root.join("gone/SKILL.md")),
        ];
        let known = KnownSkills::new(root);
        let (detected, _, reads) = detect_skills_reading(&events, &known);
        assert_eq!(detected[0].skill, "from-disk");
        assert_eq!(
            reads.get(&skill_dir.join("SKILL.md")),
            Some(&Some("from-disk".to_owned()))
        );
        assert_eq!(reads.get(&root.join("gone/SKILL.md")), Some(&None));
        // The same answer as reading again; and what was read is what counts.
        assert_eq!(
            manifests_read(&events, &known, &reads),
            manifests_read(&events, &known, &ManifestReads::default())
        );
        let mut stale = reads.clone();
        stale.insert(skill_dir.join("SKILL.md"), Some("as-read".to_owned()));
        assert_eq!(
            manifests_read(&events, &known, &stale),
            [(skill_dir.join("SKILL.md"), "as-read".to_owned())]
        );
    }

    #[test]
    fn installed_skills_are_named_even_when_their_files_are_gone() {
        let mut known = KnownSkills::new("/ws");
        known.installed("/ws/.claude/skills/demo", "demo-skill");
        let events = vec![
            read("/ws/.claude/skills/demo/references/a.md"),
            read("/ws/.claude/skills/demo/SKILL.md"),
        ];
        let (detected, _) = detect_skills(&events, &known);
        assert_eq!(detected.len(), 1);
        assert_eq!(detected[0].skill, "demo-skill");
        assert_eq!(detected[0].confidence, Confidence::Strong);
    }
}
