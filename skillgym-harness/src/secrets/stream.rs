//! Masking on the way to a file, for streams of any size.
//!
//! | piece | what |
//! |---|---|
//! | [`MaskingWriter`] | masks what goes through it; holds back at most the longest secret less one byte (a secret split across two writes is still found), and nothing at all while no secret is remembered |
//! | [`write_file`] | `fs::write`, masked |
//! | [`copy_file`] | a streaming copy, masked (`fs::copy` while no secret is remembered) |

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;

use super::Masker;

/// Size of the copy buffer.
const COPY_BUFFER: usize = 64 * 1024;

/// A writer that masks every remembered secret in what passes through it (those remembered
/// when it was made). [`flush`](Write::flush) passes on what is safe to pass; the bytes that
/// may begin a secret are written by [`finish`](Self::finish), or when it is dropped.
#[derive(Debug)]
pub(crate) struct MaskingWriter<W: Write> {
    inner: W,
    masker: Option<Arc<Masker>>,
    /// What was received and not yet passed on.
    held: Vec<u8>,
    /// Bytes passed on to `inner`.
    written: u64,
}

impl<W: Write> MaskingWriter<W> {
    /// Masks what `inner` receives with the secrets remembered now.
    pub(crate) fn new(inner: W) -> Self {
        Self::with(inner, super::masker())
    }

    /// Masks what `inner` receives with `masker` (none: passes everything on as it comes).
    pub(crate) fn with(inner: W, masker: Option<Arc<Masker>>) -> Self {
        MaskingWriter {
            inner,
            masker,
            held: Vec::new(),
            written: 0,
        }
    }

    /// Passes on what is held back, then flushes: the end of the stream.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.release()?;
        self.inner.flush()
    }

    /// Bytes written to the inner writer so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Passes on, masked, everything held back.
    fn release(&mut self) -> io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let Some(masker) = &self.masker else {
            return Ok(());
        };
        let masked = masker.mask_bytes(&self.held);
        self.inner.write_all(&masked)?;
        self.written += masked.len() as u64;
        self.held.clear();
        Ok(())
    }
}

impl<W: Write> Write for MaskingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let MaskingWriter {
            inner,
            masker,
            held,
            written,
        } = self;
        match masker {
            None => {
                inner.write_all(buf)?;
                *written += buf.len() as u64;
                Ok(())
            }
            Some(masker) => {
                held.extend_from_slice(buf);
                *written += pass_on(masker, held, inner)?;
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for MaskingWriter<W> {
    fn drop(&mut self) {
        let _ = self.release();
    }
}

/// Passes on to `out`, masked, what `held` holds that can no longer be the beginning of a
/// secret: everything but its last `longest - 1` bytes, and a secret that starts before them
/// even when it reaches into them (a match that starts before that tail has all the bytes it
/// could span). Returns the bytes written.
fn pass_on(masker: &Masker, held: &mut Vec<u8>, out: &mut impl Write) -> io::Result<u64> {
    let keep = masker.longest_pattern.saturating_sub(1);
    let safe = held.len().saturating_sub(keep);
    let mut written = 0;
    let mut done = 0;
    for found in masker.matcher.find_iter(held.as_slice()) {
        if found.start() >= safe {
            break;
        }
        let replacement = masker.replacements[found.pattern().as_usize()].as_bytes();
        out.write_all(&held[done..found.start()])?;
        out.write_all(replacement)?;
        written += found.start() - done + replacement.len();
        done = found.end();
    }
    let upto = done.max(safe);
    out.write_all(&held[done..upto])?;
    written += upto - done;
    held.drain(..upto);
    Ok(written as u64)
}

/// Writes `bytes` to `path` (as `fs::write`), every remembered secret masked.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match super::masker() {
        Some(masker) => fs::write(path, masker.mask_bytes(bytes)),
        None => fs::write(path, bytes),
    }
}

/// Copies the file `from` to `to` (created or truncated), every remembered secret masked,
/// streaming; returns the bytes written.
pub(crate) fn copy_file(from: &Path, to: &Path) -> io::Result<u64> {
    let Some(masker) = super::masker() else {
        return fs::copy(from, to);
    };
    let mut source = File::open(from)?;
    let target = BufWriter::with_capacity(COPY_BUFFER, File::create(to)?);
    let mut target = MaskingWriter::with(target, Some(masker));
    let mut buffer = vec![0; COPY_BUFFER];
    loop {
        match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => target.write_all(&buffer[..read])?,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    target.finish()?;
    Ok(target.written())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::masker_of;

    const SECRET: &str = "sk-stream-0123456789";

    /// What `chunks` become written one by one through a writer masking [`SECRET`].
    fn through(chunks: &[&[u8]]) -> String {
        let masker = masker_of(&[
            ("STREAM_API_KEY", SECRET),
            ("OTHER_TOKEN", "tok-other-value"),
        ]);
        let mut out = Vec::new();
        {
            let mut writer = MaskingWriter::with(&mut out, Some(masker));
            for chunk in chunks {
                writer.write_all(chunk).unwrap();
            }
            writer.finish().unwrap();
            assert_eq!(writer.written() as usize, writer.inner.len());
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_secret_split_anywhere_across_writes_is_masked() {
        let text = format!("before {SECRET} between tok-other-value after {SECRET}");
        let expected = "before [masked:STREAM_API_KEY] between [masked:OTHER_TOKEN] after [masked:STREAM_API_KEY]";
        for split in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(split);
            assert_eq!(through(&[a, b]), expected, "split at {split}");
        }
        let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        assert_eq!(through(&bytes), expected, "a byte at a time");
    }

    #[test]
    fn a_prefix_at_the_end_is_written_as_it_is() {
        assert_eq!(
            through(&[b"ends with sk-stream-01"]),
            "ends with sk-stream-01"
        );
        assert_eq!(through(&[b"sk-stream-", b"01234"]), "sk-stream-01234");
    }

    #[test]
    fn nothing_is_held_without_a_masker_and_dropping_releases_what_is() {
        let mut out = Vec::new();
        let mut writer = MaskingWriter::with(&mut out, None);
        writer.write_all(b"sk-stream-0").unwrap();
        assert_eq!(writer.inner.len(), 11, "passed on at once");
        drop(writer);
        let masker = masker_of(&[("STREAM_API_KEY", SECRET)]);
        let mut out = Vec::new();
        {
            let mut writer = MaskingWriter::with(&mut out, Some(masker));
            writer.write_all(b"line\nsk-stream-0").unwrap();
        }
        assert_eq!(out, b"line\nsk-stream-0", "dropped: everything written");
    }
}
