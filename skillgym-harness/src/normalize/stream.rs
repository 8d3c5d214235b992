//! Normalizing a recorded stream (a file, a replay, a benchmark input) without running an agent.

use std::io::{self, BufRead};
use std::path::Path;

use skillgym::SessionReport;

use super::{ProviderError, ReportBuilder};
use crate::lines::{Line, LineAssembler, utf8_line};

/// Parses one session's stdout, line by line.
pub trait StreamParser: Send {
    /// Parses one line (without its terminator), pushing what it finds into `out`. Must never
    /// panic: malformed input becomes a warning via [`ReportBuilder::warn`].
    fn parse_line(&mut self, line: &str, out: &mut ReportBuilder);

    /// Called once at the end of the stream.
    fn finish(&mut self, _out: &mut ReportBuilder) {}
}

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
/// lack its terminator, and a line longer than [`MAX_LINE`](crate::lines::MAX_LINE) is not parsed (a warning gives its
/// length). Only one line, at most [`MAX_LINE`](crate::lines::MAX_LINE) bytes, is held in memory at a time.
pub fn normalize_stream(
    parser: &mut dyn StreamParser,
    input: impl BufRead,
    cwd: &Path,
    prompt: &str,
) -> io::Result<Normalized> {
    let mut out = ReportBuilder::new(cwd);
    feed_stream(parser, input, &mut out)?;
    parser.finish(&mut out);
    let steps = out.steps();
    let (report, provider_error) = out.finish_with_error(prompt);
    Ok(Normalized {
        report,
        provider_error,
        steps,
    })
}

/// Feeds every line of `input` to `parser` as [`normalize_stream`] does, into `out`, without
/// finishing the parse; returns the bytes read.
pub(crate) fn feed_stream(
    parser: &mut dyn StreamParser,
    input: impl BufRead,
    out: &mut ReportBuilder,
) -> io::Result<u64> {
    feed_stream_until(parser, input, out, &mut |_| false)
}

/// [`feed_stream`], stopping after the first line once `stop` says so (a replayed session that
/// was ended there live): the bytes read up to there.
pub(crate) fn feed_stream_until(
    parser: &mut dyn StreamParser,
    mut input: impl BufRead,
    out: &mut ReportBuilder,
    stop: &mut dyn FnMut(&ReportBuilder) -> bool,
) -> io::Result<u64> {
    let mut line = LineAssembler::default();
    let mut number: u64 = 0;
    let mut bytes: u64 = 0;
    loop {
        let available = input.fill_buf()?;
        let at_end = available.is_empty();
        let (length, terminated) = line.push(available);
        input.consume(length);
        bytes += length as u64;
        if (terminated || at_end) && line.is_pending() {
            number += 1;
            match line.take() {
                Line::Overlong(length) => out.overlong_line(number, length),
                Line::Text(bytes) => parser.parse_line(&utf8_line(bytes), out),
            }
            line.clear();
            if stop(out) {
                return Ok(bytes);
            }
        }
        if at_end {
            return Ok(bytes);
        }
    }
}
