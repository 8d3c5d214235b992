//! [`ConfigError`]: a problem in a YAML file (or finding/reading it), pointing at file:line:column.

use std::path::{Path, PathBuf};

/// A problem with a configuration (or other skillgym YAML) file.
///
/// Its `Display` is the complete, multi-line text for the user; printed as `error: {err}` it reads:
///
/// ```text
/// error: /abs/path/skillgym.yaml:2:3: unknown field `max_paralel`, expected one of `schedule`, ...
///   help: did you mean `max_parallel`?
///    |
///  2 |   max_paralel: 3
///    |   ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", render(self))]
#[non_exhaustive]
pub struct ConfigError {
    path: Option<PathBuf>,
    /// 1-based line and column.
    position: Option<(u32, u32)>,
    message: String,
    help: Option<String>,
    /// The text of the line at `position`, for the snippet.
    source_line: Option<String>,
}

impl ConfigError {
    /// An error about `path` (or about no file at all), without a position.
    pub fn new(path: Option<&Path>, message: impl Into<String>) -> Self {
        ConfigError {
            path: path.map(Path::to_path_buf),
            position: None,
            message: message.into(),
            help: None,
            source_line: None,
        }
    }

    /// An error at 1-based `line`/`column` of `path`, whose text is `source` (used for the snippet).
    pub fn at(
        path: &Path,
        source: &str,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Self {
        let source_line = (line > 0)
            .then(|| source.lines().nth(line as usize - 1))
            .flatten()
            .map(|text| text.trim_end_matches('\r').to_owned());
        ConfigError {
            path: Some(path.to_path_buf()),
            position: (line > 0).then_some((line, column.max(1))),
            message: message.into(),
            help: None,
            source_line,
        }
    }

    /// Adds (or replaces) the `help:` line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// File, 1-based line and 1-based column, when the error points into a file.
    pub fn location(&self) -> Option<(PathBuf, u32, u32)> {
        let (line, column) = self.position?;
        Some((self.path.clone()?, line, column))
    }

    /// The file the error is about, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The one-line message, without file, position, help or snippet.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `help:` text (e.g. "did you mean `max_parallel`?"), if any.
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }
}

/// The most characters of a source line a snippet shows.
const SNIPPET_WIDTH: usize = 120;

/// The complete text of `error`: `path:line:column: message`, the `help:` line, the snippet.
fn render(error: &ConfigError) -> String {
    let mut out = String::new();
    if let Some(path) = &error.path {
        out.push_str(&path.display().to_string());
        if let Some((line, column)) = error.position {
            out.push_str(&format!(":{line}:{column}"));
        }
        out.push_str(": ");
    }
    out.push_str(&error.message);
    if let Some(help) = &error.help {
        out.push_str(&format!("\n  help: {help}"));
    }
    if let (Some((line, column)), Some(text)) = (error.position, &error.source_line) {
        let number = line.to_string();
        let gutter = " ".repeat(number.len());
        // A long line shows only the part around the column.
        let chars: Vec<char> = text.chars().collect();
        let caret = (column as usize - 1).min(chars.len());
        let start = caret
            .saturating_sub(SNIPPET_WIDTH / 2)
            .min(chars.len().saturating_sub(SNIPPET_WIDTH));
        let end = (start + SNIPPET_WIDTH).min(chars.len());
        let mut shown: String = chars[start..end].iter().collect();
        // Keep tabs so the caret lines up with the text above it.
        let mut pad: String = chars[start..caret]
            .iter()
            .map(|&c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        if start > 0 {
            shown.insert(0, '…');
            pad.insert(0, ' ');
        }
        if end < chars.len() {
            shown.push('…');
        }
        out.push_str(&format!(
            "\n {gutter} |\n {number} | {shown}\n {gutter} | {pad}^"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_position_help_and_snippet() {
        let source = "run:\n  max_paralel: 3\n";
        let err = ConfigError::at(Path::new("/p/skillgym.yaml"), source, 2, 3, "unknown field")
            .with_help("did you mean `max_parallel`?");
        assert_eq!(
            err.to_string(),
            "/p/skillgym.yaml:2:3: unknown field\n  help: did you mean `max_parallel`?\n   |\n 2 |   max_paralel: 3\n   |   ^"
        );
        assert_eq!(
            err.location(),
            Some((PathBuf::from("/p/skillgym.yaml"), 2, 3))
        );
    }

    #[test]
    fn a_long_line_shows_the_part_around_the_column() {
        let line = format!("tags: [{}, oops]", "x".repeat(1_000_000));
        let column = line.find("oops").unwrap() as u32 + 1;
        let error = ConfigError::at(Path::new("s.yaml"), &line, 1, column, "bad");
        let text = error.to_string();
        assert!(text.len() < 600, "{}", text.len());
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[2].starts_with(" 1 | …xxx") && lines[2].ends_with("oops]"),
            "{}",
            lines[2]
        );
        let caret = lines[3].find('^').unwrap();
        let under: String = lines[2].chars().skip(caret).take(4).collect();
        assert_eq!(under, "oops");
    }

    #[test]
    fn renders_without_position() {
        let err = ConfigError::new(Some(Path::new("/p/x.yaml")), "cannot read it");
        assert_eq!(err.to_string(), "/p/x.yaml: cannot read it");
        assert_eq!(err.location(), None);
        let err = ConfigError::new(None, "no file");
        assert_eq!(err.to_string(), "no file");
    }
}
