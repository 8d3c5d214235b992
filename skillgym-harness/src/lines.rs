//! Cutting a byte stream into lines with one line in memory at most: what the live pump
//! (`process.rs`) and the recorded-stream reader (`normalize/stream.rs`) share, so a replayed
//! stream is cut exactly as the live one was.
//!
//! | input | becomes |
//! |---|---|
//! | bytes up to and including `\n` | one [`Line::Text`], its `\n` or `\r\n` stripped |
//! | a last line without `\n` | a [`Line::Text`] too, once the caller reaches the end |
//! | a line longer than [`MAX_LINE`] bytes | [`Line::Overlong`] with its length: not kept |

use crate::process::MAX_LINE;

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

    /// Forgets the line, keeping at most `keep` bytes of buffer capacity.
    pub(crate) fn clear(&mut self, keep: usize) {
        self.line.clear();
        self.overlong = 0;
        if self.line.capacity() > keep {
            self.line.shrink_to(keep);
        }
    }
}

/// `line` without its `\n` or `\r\n`.
fn strip_terminator(line: &[u8]) -> &[u8] {
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
            assembler.clear(64);
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
