//! A log file written on a thread of its own, so that a large output is written to disk while
//! the thread that reads it goes on reading and parsing.
//!
//! | step | what |
//! |---|---|
//! | [`LogThread::start`] | takes over a log's writer; a thread writes what it is sent, in order |
//! | [`LogThread::write`] | gathers bytes into chunks of [`CHUNK`] and sends each full one (at most [`IN_FLIGHT`] wait; the sender waits for room) |
//! | [`LogThread::finish`] | sends the rest, waits for the thread, and gives back how writing failed, if it did |
//!
//! [`Offloading`] writes on the caller's thread until a file grows past a size, then hands it
//! to a [`LogThread`]: a process's log past 1 MiB ([`crate::process`]), a JSON document past
//! 256 KiB ([`crate::artifacts`]), so that the usual small file costs no thread.
//!
//! The writer keeps the rule of [`crate::process`]'s logs: at its first error the file is
//! closed (what its buffer holds is dropped) and later chunks are dropped, so that the output
//! can still be read to its end; the error is what [`LogThread::finish`] returns.

use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use crate::secrets::MaskingWriter;

/// The writer a log thread takes over.
pub(crate) type LogWriter = BufWriter<MaskingWriter<std::fs::File>>;

/// Bytes gathered before a chunk is sent.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Chunks sent and not yet written, at most.
const IN_FLIGHT: usize = 8;

/// A log being written on its own thread.
pub(crate) struct LogThread {
    /// What is gathered for the next chunk.
    chunk: Vec<u8>,
    to_thread: Option<SyncSender<Vec<u8>>>,
    /// Written chunks, cleared, for reuse.
    spare: Receiver<Vec<u8>>,
    thread: JoinHandle<io::Result<()>>,
}

impl LogThread {
    /// Hands `writer` to a new thread; gives it back when no thread can be had.
    pub(crate) fn start(writer: LogWriter) -> Result<LogThread, LogWriter> {
        let (to_thread, chunks) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, spare) = sync_channel::<Vec<u8>>(IN_FLIGHT + 1);
        let spawned = crate::handoff::spawn_with("skillgym-log", writer, move |writer| {
            write_chunks(Some(writer), &chunks, &give_back)
        });
        let thread = spawned?;
        Ok(LogThread {
            chunk: Vec::with_capacity(CHUNK),
            to_thread: Some(to_thread),
            spare,
            thread,
        })
    }

    /// Appends `bytes`: gathered, and sent by the chunk.
    ///
    /// A JSON document comes a token at a time: what leaves the chunk short of full is one
    /// check and one copy, here, without a call.
    #[inline]
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if bytes.len() < CHUNK - self.chunk.len() {
            self.chunk.extend_from_slice(bytes);
        } else {
            self.write_across(bytes);
        }
    }

    /// [`write`](Self::write) of bytes that fill the chunk (and maybe more).
    fn write_across(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = CHUNK - self.chunk.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.chunk.extend_from_slice(now);
            bytes = later;
            if self.chunk.len() == CHUNK {
                self.send();
            }
        }
    }

    /// Sends the chunk gathered, taking a written one (or a new one) in its place.
    fn send(&mut self) {
        let next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        let full = std::mem::replace(&mut self.chunk, next);
        if let Some(to_thread) = &self.to_thread
            && to_thread.send(full).is_err()
        {
            // The thread is gone (it panicked): what is left is dropped; `finish` says why.
            self.to_thread = None;
        }
    }

    /// Sends what is gathered, waits for the thread to write it all and close the file; how
    /// writing failed, if it did.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if !self.chunk.is_empty() {
            self.send();
        }
        drop(self.to_thread.take());
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the log's writing thread panicked")))
    }
}

/// A file written here until `after` bytes, then on a [`LogThread`] of its own (here still
/// when no thread can be had, tried again after as many bytes more).
pub(crate) struct Offloading {
    /// `None` only while the file moves to its thread.
    state: Option<State>,
    after: u64,
}

enum State {
    /// Written here; `written` bytes so far.
    Here { file: LogWriter, written: u64 },
    /// On its thread, which keeps its failure until [`Offloading::finish`].
    Thread(LogThread),
}

impl Offloading {
    /// Writes to `file`, here until `after` bytes.
    pub(crate) fn new(file: LogWriter, after: u64) -> Self {
        Offloading {
            state: Some(State::Here { file, written: 0 }),
            after,
        }
    }

    /// Appends `bytes`. An error is that of the file written here, which the caller then
    /// [`close`]s ([`Offloading::into_failed`]); a thread keeps its own until
    /// [`Offloading::finish`].
    #[inline]
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.state {
            Some(State::Here { file, written }) => {
                file.write_all(bytes)?;
                *written += bytes.len() as u64;
                if *written > self.after {
                    self.offload();
                }
            }
            Some(State::Thread(thread)) => thread.write(bytes),
            None => {}
        }
        Ok(())
    }

    fn offload(&mut self) {
        if let Some(State::Here { file, .. }) = self.state.take() {
            self.state = Some(match LogThread::start(file) {
                Ok(thread) => State::Thread(thread),
                Err(file) => State::Here { file, written: 0 },
            });
        }
    }

    /// Ends a file whose writing failed: closed without writing its buffer again when it is
    /// here, its thread waited for (nothing writes to it afterwards) when it is not.
    pub(crate) fn into_failed(self) {
        match self.state {
            Some(State::Here { file, .. }) => close(file),
            Some(State::Thread(thread)) => drop(thread.finish()),
            None => {}
        }
    }

    /// Flushes and closes the file, here or on its thread; how writing failed, if it did.
    pub(crate) fn finish(self) -> io::Result<()> {
        match self.state {
            Some(State::Here { mut file, .. }) => {
                let flushed = file.flush().and_then(|()| file.get_mut().finish());
                if flushed.is_err() {
                    close(file);
                }
                flushed
            }
            Some(State::Thread(thread)) => thread.finish(),
            None => Ok(()),
        }
    }
}

impl Write for Offloading {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_bytes(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_bytes(bytes)
    }

    /// Does nothing: [`Offloading::finish`] flushes.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The thread's work: writes each chunk in order until the channel closes, then flushes.
fn write_chunks(
    mut writer: Option<LogWriter>,
    chunks: &Receiver<Vec<u8>>,
    give_back: &SyncSender<Vec<u8>>,
) -> io::Result<()> {
    let mut failure = None;
    for mut chunk in chunks {
        if let Some(file) = &mut writer
            && let Err(error) = file.write_all(&chunk)
        {
            close_failed(&mut writer);
            failure = Some(error);
        }
        chunk.clear();
        // No room (the reader stopped taking them): the chunk is simply freed.
        let _ = give_back.try_send(chunk);
    }
    if let Some(file) = &mut writer
        && let Err(error) = file.flush().and_then(|()| file.get_mut().finish())
    {
        close_failed(&mut writer);
        failure = Some(error);
    }
    failure.map_or(Ok(()), Err)
}

/// [`close`]s the writer in `slot`, which failed: later chunks are dropped.
fn close_failed(slot: &mut Option<LogWriter>) {
    if let Some(writer) = slot.take() {
        close(writer);
    }
}

/// Closes a failed log's file without writing its buffer again (dropping a `BufWriter` would
/// write it, to the same failing disk).
pub(crate) fn close(writer: LogWriter) {
    let (file, _unwritten) = writer.into_parts();
    drop(file);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer_at(path: &std::path::Path) -> LogWriter {
        BufWriter::with_capacity(
            CHUNK,
            MaskingWriter::new(std::fs::File::create(path).unwrap()),
        )
    }

    #[test]
    fn every_byte_arrives_in_order_across_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stdout.log");
        let mut log = LogThread::start(writer_at(&path)).ok().unwrap();
        let mut expected = Vec::new();
        for line in 0..40_000u32 {
            let text = format!(
                "{{\"line\":{line},\"pad\":\"{}\"}}\n",
                "x".repeat((line % 97) as usize)
            );
            log.write(text.as_bytes());
            expected.extend_from_slice(text.as_bytes());
        }
        // A write that fills the chunk exactly, one byte short of it, and one past it.
        for short_by in [0, 1] {
            let fill = vec![b'e'; CHUNK - log.chunk.len() - short_by];
            log.write(&fill);
            expected.extend_from_slice(&fill);
            log.write(b"+");
            expected.push(b'+');
        }
        // One write larger than several chunks.
        let big = vec![b'y'; CHUNK * 3 + 17];
        log.write(&big);
        expected.extend_from_slice(&big);
        log.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), expected);
    }

    /// Below its size a file is written here, in one piece at the end; past it every byte
    /// still arrives in order, the rest through the thread.
    #[test]
    fn an_offloading_file_moves_to_its_thread_past_its_size() {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [("short", 1000), ("long", CHUNK * (IN_FLIGHT + 3) + 12_345)] {
            let path = dir.path().join(name);
            let expected: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8).collect();
            let mut out = Offloading::new(writer_at(&path), 256 * 1024);
            for piece in expected.chunks(977) {
                out.write_all(piece).unwrap();
            }
            let moved = matches!(out.state, Some(State::Thread(_)));
            assert_eq!(moved, name == "long", "{name}");
            out.finish().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), expected, "{name}");
        }
    }

    /// Linux's `/dev/full` takes no byte: the first chunk's write fails.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failing_disk_is_reported_at_finish_and_the_writes_go_on() {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let writer = BufWriter::with_capacity(CHUNK, MaskingWriter::new(file));
        let mut log = LogThread::start(writer).ok().unwrap();
        for _ in 0..(IN_FLIGHT * 4) {
            log.write(&vec![b'z'; CHUNK]);
        }
        let error = log.finish().unwrap_err();
        assert_eq!(error.raw_os_error(), Some(libc::ENOSPC), "{error}");
    }
}
