//! [`ConfigError`]: a problem in a YAML file (or finding/reading it), pointing at file:line:column.

use std::fmt;
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let Some((line, column)) = self.position {
                write!(f, ":{line}:{column}")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        if let (Some((line, column)), Some(text)) = (self.position, &self.source_line) {
            let number = line.to_string();
            let gutter = " ".repeat(number.len());
            // Keep tabs so the caret lines up with the text above it.
            let pad: String = text
                .chars()
                .take(column as usize - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n {gutter} |\n {number} | {text}\n {gutter} | {pad}^")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

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
    fn renders_without_position() {
        let err = ConfigError::new(Some(Path::new("/p/x.yaml")), "cannot read it");
        assert_eq!(err.to_string(), "/p/x.yaml: cannot read it");
        assert_eq!(err.location(), None);
        let err = ConfigError::new(None, "no file");
        assert_eq!(err.to_string(), "no file");
    }
}
