//! A skill's `SKILL.md` on arbitrary text: the strict loader a skill under test goes through
//! (`skills::load`), and the lenient name lookup skill detection uses on a `SKILL.md` an agent
//! read (`detect_skills` over a read of it, and of a file beside it).

use skillgym::SessionEvent;

use super::scratch;
use crate::normalize::{KnownSkills, detect_skills};
use crate::skills::{self, manifest};

/// Writes `bytes` as `skills/demo/SKILL.md` and loads it both ways; checks that a valid skill
/// has a valid name and a description agents accept, that an error is located in the file,
/// that the lenient lookup agrees with the strict loader, and that detection names the skill
/// by it. For fuzz targets; not a stable API.
pub fn skill_manifest(bytes: &[u8]) {
    let dir = scratch::fresh("skill");
    let skill_dir = dir.join("skills/demo");
    let path = skill_dir.join("SKILL.md");
    scratch::write(&path, bytes);
    scratch::write(&skill_dir.join("references/notes.md"), b"notes\n");
    let lenient = manifest::name_at(&path);
    match skills::load(&skill_dir) {
        Ok(skill) => {
            assert_eq!(
                manifest::name_problem(&skill.name),
                None,
                "{:?}",
                skill.name
            );
            let length = skill.description.chars().count();
            assert!(
                (1..=1024).contains(&length),
                "a description of {length} characters"
            );
            assert_eq!(
                lenient.as_deref(),
                Some(skill.name.as_str()),
                "detection reads another name than the loader"
            );
        }
        Err(error) => {
            assert!(!error.message().is_empty(), "an empty skill error");
            assert_eq!(
                error.path(),
                Some(path.as_path()),
                "the error names the SKILL.md"
            );
            if let Some((file, line, _)) = error.location() {
                assert_eq!(file, path, "the error is located in another file");
                let lines = line_count(&String::from_utf8_lossy(bytes));
                assert!(line as usize <= lines, "line {line} of a {lines}-line file");
            }
        }
    }
    let events = [
        SessionEvent::file_read(&path),
        SessionEvent::file_read(skill_dir.join("references/notes.md")),
    ];
    let (detections, attempts) = detect_skills(&events, &KnownSkills::new(dir.join("work")));
    assert!(
        attempts.is_empty(),
        "a successful read is no failed attempt"
    );
    let expected = lenient.unwrap_or_else(|| "demo".to_owned());
    assert_eq!(detections.len(), 1, "one skill read: {detections:?}");
    assert_eq!(
        detections[0].skill, expected,
        "the skill is named by its SKILL.md"
    );
}

/// The lines of `text` as YAML counts them (a line feed, a carriage return alone and the
/// Unicode line breaks each end one), and one more for an error at the very end.
fn line_count(text: &str) -> usize {
    let mut chars = text.chars().peekable();
    let mut lines = 1;
    while let Some(c) = chars.next() {
        let ends_line = match c {
            '\r' => chars.peek() != Some(&'\n'),
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => true,
            _ => false,
        };
        lines += usize::from(ends_line);
    }
    lines + 1
}
