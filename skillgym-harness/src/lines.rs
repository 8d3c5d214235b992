//! Cutting a byte stream into lines with one line in memory at most: what the live pump
//! (`process.rs`) and the recorded-stream reader (`normalize/stream.rs`) share, so a replayed
//! stream is cut exactly as the live one was. This module owns the line limits and imports
//! neither of its users.
//!
//! | input | becomes |
//! |---|---|
//! | bytes up to and including `\n` | one [`Line::Text`], its `\n` or `\r\n` stripped |
//! | a last line without `\n` | a [`Line::Text`] too, once the caller reaches the end |
//! | a line longer than [`MAX_LINE`] bytes | [`Line::Overlong`] with its length: not kept |
//! | a [`Line::Text`]'s bytes | text through [`utf8_line`]: invalid UTF-8 replaced |
//!
//! | limit | value | what it bounds |
//! |---|---|---|
//! | [`MAX_LINE`] | 16 MiB | the longest line handed on; a longer one is only measured |
//! | [`KEPT_LINE_CAPACITY`] | 1 MiB | the line buffer's capacity kept between lines |

use std::borrow::Cow;

/// The longest stdout line handed to a parser or a line sink, in bytes; a longer one is only
/// measured: a live agent's goes to the stdout log only, and the parser or sink hears of its
/// length.
pub const MAX_LINE: usize = 16 << 20;

/// Above this capacity the reused line buffer is shrunk back after a line (a single huge line
/// must not pin its memory for the rest of the session).
const KEPT_LINE_CAPACITY: usize = 1 << 20;

/// One complete line, as [`LineAssembler::take`] hands it out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// The line's bytes without the terminator.
    Text(&'a [u8]),
    /// A line of this many bytes (terminator included) that outgrew [`MAX_LINE`].
    Overlong(u64),
}

/// The line being read; feed it chunks with [`push`](Self::push).
#[derive(Debug, Default)]
pub(crate) struct LineAssembler {
    /// The line so far, up to [`MAX_LINE`] bytes.
    line: Vec<u8>,
    /// The length so far of a line that outgrew [`MAX_LINE`] (0 while it fits).
    overlong: u64,
}

impl LineAssembler {
    /// Takes bytes of `available` up to and including its first `\n`; returns how many were
    /// taken (consume that many from the reader) and whether they ended a line.
    pub(crate) fn push(&mut self, available: &[u8]) -> (usize, bool) {
        let (chunk, terminated) = match memchr::memchr(b'\n', available) {
            Some(end) => (&available[..=end], true),
            None => (available, false),
        };
        if self.overlong == 0 && self.line.len() + chunk.len() <= MAX_LINE {
            self.line.extend_from_slice(chunk);
        } else {
            if self.overlong == 0 {
                self.overlong = self.line.len() as u64;
                self.line.clear();
            }
            self.overlong += chunk.len() as u64;
        }
        (chunk.len(), terminated)
    }

    /// Whether a line has been started and not taken.
    pub(crate) fn is_pending(&self) -> bool {
        self.overlong > 0 || !self.line.is_empty()
    }

    /// The line read so far, as a complete line; call [`clear`](Self::clear) after using it.
    pub(crate) fn take(&self) -> Line<'_> {
        if self.overlong > 0 {
            return Line::Overlong(self.overlong);
        }
        Line::Text(strip_terminator(&self.line))
    }

    /// Forgets the line, keeping at most [`KEPT_LINE_CAPACITY`] bytes of buffer capacity.
    pub(crate) fn clear(&mut self) {
        self.line.clear();
        self.overlong = 0;
        if self.line.capacity() > KEPT_LINE_CAPACITY {
            self.line.shrink_to(KEPT_LINE_CAPACITY);
        }
    }
}

/// A line as text: borrowed when it is valid UTF-8 (checked with the fast validator), else
/// with each invalid sequence replaced by U+FFFD.
pub fn utf8_line(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `line` without its `\n` or `\r\n`.
pub(crate) fn strip_terminator(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r', b'\n'] | [rest @ .., b'\n'] => rest,
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` fed in chunks of `size` bytes, as owned text or a length.
    fn lines(input: &[u8], size: usize) -> Vec<Result<String, u64>> {
        let mut assembler = LineAssembler::default();
        let mut out = Vec::new();
        let mut collect = |assembler: &mut LineAssembler| {
            out.push(match assembler.take() {
                Line::Text(bytes) => Ok(String::from_utf8_lossy(bytes).into_owned()),
                Line::Overlong(length) => Err(length),
            });
            assembler.clear();
        };
        for piece in input.chunks(size) {
            let mut rest = piece;
            while !rest.is_empty() {
                let (taken, ended) = assembler.push(rest);
                rest = &rest[taken..];
                if ended {
                    collect(&mut assembler);
                }
            }
        }
        if assembler.is_pending() {
            collect(&mut assembler);
        }
        out
    }

    #[test]
    fn valid_lines_are_borrowed_and_invalid_bytes_replaced() {
        assert!(matches!(
            utf8_line("héllo".as_bytes()),
            Cow::Borrowed("héllo")
        ));
        assert_eq!(utf8_line(b"do\xffne"), "do\u{fffd}ne");
        assert_eq!(utf8_line(b"\xe2\x82"), "\u{fffd}");
    }

    #[test]
    fn a_huge_line_does_not_pin_its_buffer() {
        let mut assembler = LineAssembler::default();
        let huge = vec![b'z'; KEPT_LINE_CAPACITY * 2];
        assert_eq!(assembler.push(&huge), (huge.len(), false));
        assert!(assembler.line.capacity() >= huge.len());
        assembler.clear();
        assert!(assembler.line.capacity() <= KEPT_LINE_CAPACITY);
        assert!(!assembler.is_pending());
    }

    #[test]
    fn the_module_depends_on_no_other_module_of_the_crate() {
        let source = include_str!("lines.rs");
        let code = &source[..source.find("#[cfg(test)]").expect("a test module")];
        let uses: Vec<&str> = code.lines().filter(|l| l.contains("crate::")).collect();
        assert!(uses.is_empty(), "lines.rs reaches into the crate: {uses:?}");
    }

    #[test]
    fn terminators_are_stripped() {
        assert_eq!(strip_terminator(b"a\r\n"), b"a");
        assert_eq!(strip_terminator(b"a\n"), b"a");
        assert_eq!(strip_terminator(b"a\r"), b"a\r");
        assert_eq!(strip_terminator(b"\n"), b"");
        assert_eq!(strip_terminator(b""), b"");
    }

    #[test]
    fn lines_are_cut_the_same_whatever_the_chunks() {
        let input = b"one\r\ntwo\n\nthree";
        let expected = vec![
            Ok("one".to_owned()),
            Ok("two".to_owned()),
            Ok(String::new()),
            Ok("three".to_owned()),
        ];
        for size in [1, 2, 3, 5, 64] {
            assert_eq!(lines(input, size), expected, "chunks of {size}");
        }
    }

    #[test]
    fn an_overlong_line_is_measured_not_kept() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nafter\n");
        for size in [4096, MAX_LINE + 11] {
            assert_eq!(
                lines(&input, size),
                vec![Err(MAX_LINE as u64 + 11), Ok("after".to_owned())],
                "chunks of {size}"
            );
        }
        let mut exact = vec![b'y'; MAX_LINE - 1];
        exact.push(b'\n');
        assert_eq!(
            lines(&exact, 1 << 20)[0].as_ref().map(String::len),
            Ok(MAX_LINE - 1)
        );
    }
}
