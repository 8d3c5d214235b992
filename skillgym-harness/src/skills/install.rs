//! Copying skills under test into an attempt's workspace.

use std::io;
use std::path::Path;
use std::sync::Arc;

use skillgym::InstalledSkill;

use super::Skill;
use crate::io_error::IoError;
use crate::workspace::copy_tree;

/// Copies each skill to `<workspace>/<dir>/<name>/` (its whole directory: `SKILL.md`,
/// references, scripts), replacing whatever the template had there, and says where each went.
/// A `triggers.yaml` at the skill's root is the benchmark's, not the skill's: it is left out,
/// so that no agent sees the prompts it is tested on.
pub(crate) fn install(
    skills: &[Arc<Skill>],
    workspace: &Path,
    dir: &str,
) -> io::Result<Vec<InstalledSkill>> {
    let mut installed = Vec::with_capacity(skills.len());
    for skill in skills {
        let target = workspace.join(dir).join(&skill.name);
        if target.exists() {
            std::fs::remove_dir_all(&target).map_err(|source| IoError::ReplaceSkill {
                path: target.clone(),
                source,
            })?;
        }
        copy_tree(&skill.source, &target).map_err(|source| IoError::InstallSkill {
            name: skill.name.clone(),
            from: skill.source.clone(),
            to: target.clone(),
            source,
        })?;
        let triggers = target.join(crate::suite::triggers::FILE_NAME);
        if triggers.is_file() {
            std::fs::remove_file(&triggers).map_err(|source| IoError::InstallSkill {
                name: skill.name.clone(),
                from: skill.source.clone(),
                to: triggers.clone(),
                source,
            })?;
        }
        installed.push(InstalledSkill {
            name: skill.name.clone(),
            source: skill.source.clone(),
            path: target,
        });
    }
    Ok(installed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_the_whole_skill_under_its_name_over_the_template() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-install-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let root = tmp.path();
        let source = root.join("src/odd-dir");
        std::fs::create_dir_all(source.join("references")).unwrap();
        std::fs::write(source.join("SKILL.md"), "---\nname: demo\n---\n").unwrap();
        std::fs::write(source.join("references/notes.md"), "notes").unwrap();
        std::fs::write(source.join("triggers.yaml"), "should_trigger: [x]\n").unwrap();
        let workspace = root.join("ws");
        std::fs::create_dir_all(workspace.join(".claude/skills/demo")).unwrap();
        std::fs::write(workspace.join(".claude/skills/demo/stale.md"), "old").unwrap();
        let skill = Arc::new(Skill {
            name: "demo".into(),
            description: "d".into(),
            source: source.clone(),
        });
        let installed = install(&[skill], &workspace, ".claude/skills").unwrap();
        let target = workspace.join(".claude/skills/demo");
        assert_eq!(
            installed,
            [InstalledSkill {
                name: "demo".into(),
                source,
                path: target.clone()
            }]
        );
        assert_eq!(
            std::fs::read_to_string(target.join("references/notes.md")).unwrap(),
            "notes"
        );
        assert!(!target.join("stale.md").exists());
        assert!(
            !target.join("triggers.yaml").exists(),
            "the prompts the agent is tested on stay out of its reach"
        );
        tmp.close().unwrap();
    }
}
