//! What reaches the real stdout and stderr while the run's own output goes through a pipe:
//! only complete lines (a partial one is held until its end arrives), the slow-execution
//! notices between them, and on a terminal the status block, erased before each write and
//! redrawn after it.
//!
//! The status block is drawn at the bottom of stdout, its lines joined by `\n` with none
//! after the last one: the cursor stays at the end of the block. Erasing it clears each line
//! (`\r\x1b[2K`, then `\x1b[1A\x1b[2K` for each line above) and leaves the cursor at the start
//! of its first line, where the next output goes.

use std::io::{self, Write};

/// A partial line longer than this is written as it is (a stream without newlines must not
/// grow without end); no status or notice is drawn until that line ends.
pub(super) const HELD_MAX: usize = 64 * 1024;

/// Which of the process's streams bytes were written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stream {
    /// File descriptor 1.
    Out,
    /// File descriptor 2.
    Err,
}

/// The real stdout (and stderr, when it is forwarded too) and what is drawn on it.
#[derive(Debug)]
pub(super) struct Screen<W: Write> {
    out: Target<W>,
    err: Option<Target<W>>,
    /// Bytes for `out` gathered by the current operation, written at its end in one call.
    buffer: Vec<u8>,
    /// The status lines to show.
    status: Vec<String>,
    /// The status lines on the screen now.
    shown: Vec<String>,
    /// Set at the end of the run: no status is drawn any more.
    stopped: bool,
    /// Notices waiting for a line to end.
    deferred: Vec<String>,
}

/// One real stream and the partial line held for it.
#[derive(Debug)]
struct Target<W> {
    writer: W,
    held: Vec<u8>,
    /// Whether the last bytes written to it did not end a line (a partial line over
    /// [`HELD_MAX`]).
    mid_line: bool,
}

impl<W> Target<W> {
    fn new(writer: W) -> Self {
        Target {
            writer,
            held: Vec::new(),
            mid_line: false,
        }
    }

    /// How many of the held bytes may be written now: up to the last newline, or all of an
    /// overlong partial line.
    fn ready(&self) -> usize {
        match memchr::memrchr(b'\n', &self.held) {
            Some(index) => index + 1,
            None if self.held.len() > HELD_MAX => self.held.len(),
            None => 0,
        }
    }
}

impl<W: Write> Screen<W> {
    /// A screen over the real stdout and, when it is forwarded too, the real stderr.
    pub(super) fn new(out: W, err: Option<W>) -> Self {
        Screen {
            out: Target::new(out),
            err: err.map(Target::new),
            buffer: Vec::new(),
            status: Vec::new(),
            shown: Vec::new(),
            stopped: false,
            deferred: Vec::new(),
        }
    }

    /// Takes bytes the process wrote to `stream`; writes the complete lines among them (and
    /// any held before), keeping a partial last line for later.
    pub(super) fn forward(&mut self, stream: Stream, bytes: &[u8]) -> io::Result<()> {
        let to_err = stream == Stream::Err && self.err.is_some();
        let target = match (to_err, self.err.as_mut()) {
            (true, Some(err)) => err,
            _ => &mut self.out,
        };
        target.held.extend_from_slice(bytes);
        let ready = target.ready();
        if ready == 0 {
            return Ok(());
        }
        self.erase();
        let written = match (to_err, self.err.as_mut()) {
            (true, Some(err)) => {
                let flushed = flush(&mut self.out.writer, &mut self.buffer);
                let written = err.writer.write_all(&err.held[..ready]);
                err.mid_line = err.held[ready - 1] != b'\n';
                err.held.drain(..ready);
                flushed.and(written)
            }
            _ => {
                let out = &mut self.out;
                self.buffer.extend_from_slice(&out.held[..ready]);
                out.mid_line = out.held[ready - 1] != b'\n';
                out.held.drain(..ready);
                Ok(())
            }
        };
        self.settle();
        written.and(self.flush())
    }

    /// Prints a notice line: now when no line is half written, else as soon as it ends.
    pub(super) fn notice(&mut self, line: &str) -> io::Result<()> {
        self.deferred.push(line.to_owned());
        if self.mid_line() {
            return Ok(());
        }
        self.erase();
        self.settle();
        self.flush()
    }

    /// Shows these status lines in place of the current ones (nothing is written when they
    /// are the ones shown, nor while a line is half written).
    pub(super) fn status(&mut self, lines: Vec<String>) -> io::Result<()> {
        if self.stopped {
            return Ok(());
        }
        self.status = lines;
        if self.status == self.shown || self.mid_line() {
            return Ok(());
        }
        self.erase();
        self.draw();
        self.flush()
    }

    /// Sets the status lines the next redraw shows (after the next output), without drawing.
    pub(super) fn set_status(&mut self, lines: Vec<String>) {
        if !self.stopped {
            self.status = lines;
        }
    }

    /// Erases the status for good: what follows is written without it.
    pub(super) fn stop_status(&mut self) -> io::Result<()> {
        self.stopped = true;
        self.status.clear();
        self.erase();
        self.flush()
    }

    /// The end: erases the status, writes the notices still waiting (unless a line is half
    /// written) and the partial lines held.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        self.stopped = true;
        self.status.clear();
        self.erase();
        if !self.mid_line() {
            self.write_deferred();
        }
        self.deferred.clear();
        let out = &mut self.out;
        self.buffer.extend_from_slice(&out.held);
        out.held.clear();
        let flushed = self.flush();
        let err = match self.err.as_mut() {
            Some(err) => {
                let written = err.writer.write_all(&err.held).and(err.writer.flush());
                err.held.clear();
                written
            }
            None => Ok(()),
        };
        flushed.and(err)
    }

    /// Whether a stream was left in the middle of a line.
    fn mid_line(&self) -> bool {
        self.out.mid_line || self.err.as_ref().is_some_and(|err| err.mid_line)
    }

    /// After output: the waiting notices, then the status, unless a line is half written.
    fn settle(&mut self) {
        if self.mid_line() {
            return;
        }
        self.write_deferred();
        self.draw();
    }

    fn write_deferred(&mut self) {
        for line in self.deferred.drain(..) {
            self.buffer.extend_from_slice(line.as_bytes());
            self.buffer.push(b'\n');
        }
    }

    /// Draws the status lines (the screen holds none).
    fn draw(&mut self) {
        if self.stopped {
            return;
        }
        for (index, line) in self.status.iter().enumerate() {
            if index > 0 {
                self.buffer.push(b'\n');
            }
            self.buffer.extend_from_slice(line.as_bytes());
        }
        self.shown.clone_from(&self.status);
    }

    /// Erases the status lines on the screen, leaving the cursor at the start of the first.
    fn erase(&mut self) {
        if self.shown.is_empty() {
            return;
        }
        self.buffer.extend_from_slice(b"\r\x1b[2K");
        for _ in 1..self.shown.len() {
            self.buffer.extend_from_slice(b"\x1b[1A\x1b[2K");
        }
        self.shown.clear();
    }

    /// Writes what the operation gathered for stdout.
    fn flush(&mut self) -> io::Result<()> {
        flush(&mut self.out.writer, &mut self.buffer)
    }
}

/// Writes `buffer` to `writer` and empties it (also when the write fails: the real stream may
/// be gone, the run goes on).
fn flush(writer: &mut impl Write, buffer: &mut Vec<u8>) -> io::Result<()> {
    if buffer.is_empty() {
        return Ok(());
    }
    let written = writer.write_all(buffer).and(writer.flush());
    buffer.clear();
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERASE_ONE: &str = "\r\x1b[2K";

    fn text(screen: &Screen<Vec<u8>>) -> String {
        String::from_utf8(screen.out.writer.clone()).unwrap()
    }

    fn lines(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| (*line).to_owned()).collect()
    }

    #[test]
    fn only_complete_lines_are_written_and_a_notice_waits_for_none() {
        let mut screen = Screen::new(Vec::new(), None);
        screen.forward(Stream::Out, b"test a ... ").unwrap();
        assert_eq!(text(&screen), "", "a partial line is held");
        screen
            .notice("skillgym: [r] a has been running for 60 s")
            .unwrap();
        screen.forward(Stream::Out, b"ok\ntest b").unwrap();
        screen.forward(Stream::Out, b" ... ok\n").unwrap();
        assert_eq!(
            text(&screen),
            "skillgym: [r] a has been running for 60 s\ntest a ... ok\ntest b ... ok\n"
        );
    }

    #[test]
    fn a_notice_never_splits_a_line_wherever_the_chunks_break() {
        let transcript = "\nrunning 2 tests\ntest [r] a ... ok\ntest [r] b ... FAILED\n";
        for split in 0..=transcript.len() {
            let mut screen = Screen::new(Vec::new(), None);
            screen
                .forward(Stream::Out, &transcript.as_bytes()[..split])
                .unwrap();
            screen.notice("NOTICE").unwrap();
            screen
                .forward(Stream::Out, &transcript.as_bytes()[split..])
                .unwrap();
            screen.finish().unwrap();
            let written = text(&screen);
            assert_eq!(
                written.replacen("NOTICE\n", "", 1),
                transcript,
                "split at {split}"
            );
            assert!(
                written
                    .lines()
                    .all(|line| line == "NOTICE"
                        || transcript.lines().any(|original| original == line)),
                "split at {split}: {written:?}"
            );
        }
    }

    #[test]
    fn the_status_is_erased_before_each_line_and_redrawn_after() {
        let mut screen = Screen::new(Vec::new(), None);
        screen.status(lines(&["running a"])).unwrap();
        screen.forward(Stream::Out, b"test a ... ").unwrap();
        screen.status(lines(&["running a"])).unwrap();
        screen
            .status(lines(&["running a 1s", "running b 0s"]))
            .unwrap();
        screen.forward(Stream::Out, b"ok\ntest b ... ").unwrap();
        screen.finish().unwrap();
        assert_eq!(
            text(&screen),
            [
                "running a",
                ERASE_ONE,
                "running a 1s\nrunning b 0s",
                ERASE_ONE,
                "\x1b[1A\x1b[2K",
                "test a ... ok\n",
                "running a 1s\nrunning b 0s",
                ERASE_ONE,
                "\x1b[1A\x1b[2K",
                "test b ... ",
            ]
            .concat(),
            "an unchanged status is not redrawn; the partial line is written at the end"
        );
    }

    #[test]
    fn output_redraws_the_latest_status_set() {
        let mut screen = Screen::new(Vec::new(), None);
        screen.status(lines(&["running a"])).unwrap();
        screen.set_status(lines(&["running b"]));
        assert_eq!(text(&screen), "running a", "set, not drawn");
        screen.forward(Stream::Out, b"test a ... ok\n").unwrap();
        screen.status(lines(&["running b"])).unwrap();
        assert_eq!(
            text(&screen),
            ["running a", ERASE_ONE, "test a ... ok\n", "running b"].concat(),
            "the redraw after the line shows the new status, and it is not drawn again"
        );
    }

    #[test]
    fn stderr_lines_go_between_an_erase_and_a_redraw() {
        let mut screen = Screen::new(Vec::new(), Some(Vec::new()));
        screen.status(lines(&["running a"])).unwrap();
        screen.forward(Stream::Err, b"warning: x\nwar").unwrap();
        assert_eq!(
            text(&screen),
            ["running a", ERASE_ONE, "running a"].concat()
        );
        assert_eq!(screen.err.as_ref().unwrap().writer, b"warning: x\n");
        screen.stop_status().unwrap();
        screen.finish().unwrap();
        assert_eq!(screen.err.as_ref().unwrap().writer, b"warning: x\nwar");
        assert!(text(&screen).ends_with(&["running a", ERASE_ONE].concat()));
    }

    #[test]
    fn an_overlong_partial_line_passes_and_holds_the_notices_until_it_ends() {
        let mut screen = Screen::new(Vec::new(), None);
        let long = vec![b'x'; HELD_MAX + 1];
        screen.forward(Stream::Out, &long).unwrap();
        assert_eq!(screen.out.writer.len(), HELD_MAX + 1);
        screen.notice("NOTICE").unwrap();
        screen.status(lines(&["running a"])).unwrap();
        assert_eq!(screen.out.writer.len(), HELD_MAX + 1, "nothing mid-line");
        screen.forward(Stream::Out, b"y\n").unwrap();
        assert!(text(&screen).ends_with("xy\nNOTICE\nrunning a"));
    }
}
