//! The hint a failed execution's output carries when its failed attempts recorded questions
//! an agent can be asked: `cargo skillgym explain <dir>`.

use std::path::{Path, PathBuf};

use crate::results::ExecutionResult;
use crate::results::explain::ExplainRequest;

/// The command that explains `result`'s failed attempts: the one attempt's directory, or the
/// execution's when several recorded questions; `None` when none did or the agent cannot
/// resume. With `relative_to` (the directory the user is in) the path is made relative to it
/// when that is shorter; a test binary's working directory is its crate's, not the user's, so
/// it passes `None`.
pub(crate) fn hint(result: &ExecutionResult, relative_to: Option<&Path>) -> Option<String> {
    let explainable: Vec<&Path> = result
        .repetitions
        .iter()
        .flat_map(|repetition| &repetition.attempts)
        .filter(|attempt| !attempt.passed)
        .map(|attempt| attempt.artifact_dir.as_path())
        .filter(|dir| ExplainRequest::read(dir).is_ok_and(|request| request.resumable))
        .collect();
    let dir = match explainable.as_slice() {
        [] => return None,
        [one] => one,
        _ => result.artifact_dir.as_path(),
    };
    Some(format!(
        "cargo skillgym explain {}",
        shell_word(&shown(dir, relative_to))
    ))
}

/// The directory the user runs commands in, for paths shown to them: the current directory,
/// unless this process is a test binary run by cargo or nextest (`CARGO_MANIFEST_DIR` set),
/// whose current directory is its crate's, wherever the user is.
pub(crate) fn user_dir() -> Option<PathBuf> {
    if std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        return None;
    }
    std::env::current_dir().ok()
}

/// `path`, relative to `base` when given and shorter.
fn shown(path: &Path, base: Option<&Path>) -> String {
    let full = path.display().to_string();
    let relative = base
        .and_then(|base| path.strip_prefix(base).ok())
        .map(PathBuf::from)
        .filter(|relative| !relative.as_os_str().is_empty())
        .map(|relative| relative.display().to_string());
    match relative {
        Some(relative) if relative.len() < full.len() => relative,
        _ => full,
    }
}

/// `word`, single-quoted for a POSIX shell when it holds anything but safe characters.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-:+=@,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_relative_when_shorter_and_quoted_when_needed() {
        let path = Path::new("/work/target/skillgym/runs/r1/a/fake/repeat-1/attempt-1");
        assert_eq!(
            shown(path, Some(Path::new("/work"))),
            "target/skillgym/runs/r1/a/fake/repeat-1/attempt-1"
        );
        assert_eq!(
            shown(path, Some(Path::new("/elsewhere"))),
            path.display().to_string()
        );
        assert_eq!(shown(path, None), path.display().to_string());
        assert_eq!(shell_word("runs/a::b/x"), "runs/a::b/x");
        assert_eq!(shell_word("my runs/it's"), r"'my runs/it'\''s'");
    }
}
