//! Reading an agent's stdout as JSON lines: line numbers, typed records, warnings.

use std::time::{Duration, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::Value;

use super::ReportBuilder;
use crate::time::Timestamp;

/// Reads JSON lines into typed records, counting lines for warnings.
///
/// Records are parsed as objects whatever their key order. A blank line is skipped; a line
/// that is not a JSON object becomes a warning; an object that does not fit the record type
/// is kept as a raw event, with a warning.
#[derive(Debug, Default)]
pub struct JsonLine {
    line_number: u64,
}

impl JsonLine {
    /// Parses the next line as `T`.
    pub fn parse<'a, T: Deserialize<'a>>(
        &mut self,
        line: &'a str,
        out: &mut ReportBuilder,
    ) -> Option<T> {
        self.line_number += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return None;
        }
        if !trimmed.starts_with('{') {
            self.warn(out, format!("not a JSON object: {}", abbreviate(trimmed)));
            return None;
        }
        match serde_json::from_str::<T>(trimmed) {
            Ok(record) => Some(record),
            Err(error) => {
                match serde_json::from_str::<Value>(trimmed) {
                    Ok(value @ Value::Object(_)) => {
                        self.warn(out, format!("unexpected record shape ({error})"));
                        out.raw(value, None);
                    }
                    _ => self.warn(out, format!("not a JSON object: {}", abbreviate(trimmed))),
                }
                None
            }
        }
    }

    /// Keeps the current line as a raw event (for record types the adapter does not map).
    pub fn keep_raw(&self, line: &str, at: Option<String>, out: &mut ReportBuilder) {
        match serde_json::from_str::<Value>(line.trim()) {
            Ok(value) => out.raw(value, at),
            Err(error) => self.warn(out, format!("cannot keep the record: {error}")),
        }
    }

    /// Records a warning about the current line.
    pub fn warn(&self, out: &mut ReportBuilder, problem: impl std::fmt::Display) {
        out.warn(format!("stdout line {}: {problem}", self.line_number));
    }

    /// The number of the line parsed last (1-based).
    pub fn line_number(&self) -> u64 {
        self.line_number
    }
}

/// The first 200 characters of a line, for warnings.
pub fn abbreviate(line: &str) -> String {
    const MAX: usize = 200;
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}… ({} bytes)", &line[..cut], line.len()),
        None => line.to_owned(),
    }
}

/// Milliseconds since the Unix epoch as RFC 3339 (`2026-11-22T03:05:02.308Z`).
pub fn epoch_millis_to_rfc3339(millis: u64) -> String {
    Timestamp::from(UNIX_EPOCH + Duration::from_millis(millis)).rfc3339()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Record {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        n: u32,
    }

    #[test]
    fn records_warnings_and_raw_fallbacks() {
        let mut out = ReportBuilder::new("/w");
        let mut lines = JsonLine::default();
        let first: Record = lines.parse(r#"{"n": 2, "type": "a"}"#, &mut out).unwrap();
        assert_eq!((first.kind.as_str(), first.n), ("a", 2));
        assert!(lines.parse::<Record>("   ", &mut out).is_none());
        assert!(lines.parse::<Record>("garbage", &mut out).is_none());
        assert!(lines.parse::<Record>(r#"{"type": 7}"#, &mut out).is_none());
        assert!(
            lines
                .parse::<Record>(r#"{"type": "a", "#, &mut out)
                .is_none()
        );
        let report = out.finish("p");
        assert_eq!(report.warnings.len(), 3, "{:?}", report.warnings);
        assert!(report.warnings[0].starts_with("stdout line 3: not a JSON object: garbage"));
        assert!(report.warnings[1].starts_with("stdout line 4: unexpected record shape"));
        assert!(report.warnings[2].starts_with("stdout line 5: not a JSON object"));
        assert_eq!(report.events.len(), 1);
    }

    #[test]
    fn epoch_millis_are_formatted() {
        assert_eq!(
            epoch_millis_to_rfc3339(1_795_316_702_308),
            "2026-11-22T03:05:02.308Z"
        );
    }

    #[test]
    fn long_lines_are_abbreviated() {
        let line = "x".repeat(1000);
        assert_eq!(
            abbreviate(&line),
            format!("{}… (1000 bytes)", "x".repeat(200))
        );
    }
}
