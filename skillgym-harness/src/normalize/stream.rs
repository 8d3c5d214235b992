//! Normalizing a recorded stream (a file, a replay, a benchmark input) without running an agent.

use std::io::{self, BufRead};
use std::path::Path;

use skillgym::SessionReport;

use super::{ProviderError, ReportBuilder};
use crate::agent::StreamParser;
use crate::process::MAX_LINE;

/// A stream read to its end.
#[derive(Debug)]
#[non_exhaustive]
pub struct Normalized {
    /// The report (runner, timing and raw artifact paths are left empty).
    pub report: SessionReport,
    /// The provider error the stream ended with, if any.
    pub provider_error: Option<ProviderError>,
    /// Model rounds counted.
    pub steps: u32,
}

/// Feeds `input` to `parser` line by line, as the harness does with a live agent: bytes that
/// are not UTF-8 are replaced, `\n` and `\r\n` terminators are stripped, the last line may
/// lack its terminator, and a line longer than [`MAX_LINE`] is not parsed (a warning gives its
/// length). Only one line, at most [`MAX_LINE`] bytes, is held in memory at a time.
pub fn normalize_stream(
    parser: &mut dyn StreamParser,
    mut input: impl BufRead,
    cwd: &Path,
    prompt: &str,
) -> io::Result<Normalized> {
    let mut out = ReportBuilder::new(cwd);
    let mut line = Vec::new();
    // The length so far of a line that outgrew MAX_LINE (0 while it fits).
    let mut overlong: u64 = 0;
    let mut number: u64 = 0;
    loop {
        let available = input.fill_buf()?;
        let at_end = available.is_empty();
        let (chunk, terminated) = match memchr::memchr(b'\n', available) {
            Some(end) => (&available[..=end], true),
            None => (available, at_end),
        };
        let length = chunk.len();
        if overlong == 0 && line.len() + length <= MAX_LINE {
            line.extend_from_slice(chunk);
        } else {
            if overlong == 0 {
                overlong = line.len() as u64;
                line.clear();
            }
            overlong += length as u64;
        }
        input.consume(length);
        if terminated && (overlong > 0 || !line.is_empty()) {
            number += 1;
            if overlong > 0 {
                out.overlong_line(number, overlong);
            } else {
                let mut bytes = line.as_slice();
                if let Some(rest) = bytes.strip_suffix(b"\n") {
                    bytes = rest.strip_suffix(b"\r").unwrap_or(rest);
                }
                parser.parse_line(&utf8_line(bytes), &mut out);
            }
            line.clear();
            overlong = 0;
        }
        if at_end {
            break;
        }
    }
    parser.finish(&mut out);
    let steps = out.steps();
    let (report, provider_error) = out.finish_with_error(prompt);
    Ok(Normalized {
        report,
        provider_error,
        steps,
    })
}

/// A line as text: borrowed when it is valid UTF-8 (checked with the fast validator), else
/// with each invalid sequence replaced by U+FFFD.
pub fn utf8_line(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_lines_are_borrowed_and_invalid_bytes_replaced() {
        assert!(matches!(
            utf8_line("héllo".as_bytes()),
            std::borrow::Cow::Borrowed("héllo")
        ));
        assert_eq!(utf8_line(b"do\xffne"), "do\u{fffd}ne");
        assert_eq!(utf8_line(b"\xe2\x82"), "\u{fffd}");
    }
}
