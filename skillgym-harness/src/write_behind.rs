//! Writing a large file on a thread of its own while it is produced, so that producing it
//! (serialising a report) and the file system's work on it overlap on two cores.
//!
//! | the document | how it is written |
//! |---|---|
//! | shorter than one chunk ([`CHUNK`]) | by the producing thread, in one write at the end: no thread is started |
//! | longer | from its first full chunk on, by a writer thread, in order; at most [`IN_FLIGHT`] chunks wait, so memory stays bounded, and written chunks are reused |
//! | the writer thread cannot be started | by the producing thread, chunk by chunk |
//!
//! The first write error ends the writer; [`WriteBehind::finish`] returns it (the producer
//! only sees that the writer stopped). Dropping a [`WriteBehind`] without finishing it waits
//! for its writer, so that nothing writes to the file afterwards.

use std::io::{self, Write};
use std::mem;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes gathered before they are handed to the writer.
pub(crate) const CHUNK: usize = 256 * 1024;
/// Full chunks that may wait for the writer before the producer waits.
pub(crate) const IN_FLIGHT: usize = 4;

/// A writer that hands what it is given, in chunks, to a thread writing it to `W`.
pub(crate) struct WriteBehind<W: Write + Send + 'static> {
    state: State<W>,
    chunk: Vec<u8>,
}

enum State<W> {
    /// No thread writes yet (or none could be started): the sink is here.
    Here(W),
    /// A writer thread owns the sink.
    Behind {
        full: SyncSender<Vec<u8>>,
        emptied: Receiver<Vec<u8>>,
        writer: JoinHandle<io::Result<W>>,
    },
    /// Finished, or between two states.
    Gone,
}

impl<W: Write + Send + 'static> WriteBehind<W> {
    /// Writes to `sink`, on a thread of its own once a chunk is full.
    pub(crate) fn new(sink: W) -> Self {
        WriteBehind {
            state: State::Here(sink),
            chunk: Vec::with_capacity(CHUNK),
        }
    }

    /// Writes what is left, waits for the writer and returns the sink: the first error of
    /// the writer, if it had one.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        let last = mem::take(&mut self.chunk);
        match mem::replace(&mut self.state, State::Gone) {
            State::Here(mut sink) => sink.write_all(&last).map(|()| sink),
            State::Behind { full, writer, .. } => {
                let sent = full.send(last);
                drop(full);
                let written = join(writer)?;
                sent.map_err(|_| stopped())?;
                Ok(written)
            }
            State::Gone => Err(stopped()),
        }
    }

    /// Hands the full chunk on: to the writer thread, started the first time.
    fn hand_on(&mut self) -> io::Result<()> {
        if let State::Here(_) = self.state {
            self.start_writer();
        }
        match &mut self.state {
            State::Here(sink) => {
                sink.write_all(&self.chunk)?;
                self.chunk.clear();
                Ok(())
            }
            State::Behind { full, emptied, .. } => {
                let next = emptied
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                full.send(mem::replace(&mut self.chunk, next))
                    .map_err(|_| stopped())
            }
            State::Gone => Err(stopped()),
        }
    }

    /// Moves the sink to a new writer thread; when no thread can be started it stays here.
    fn start_writer(&mut self) {
        let (full, to_write) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, emptied) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT + 1);
        let (hand_sink, sink_here) = mpsc::sync_channel::<W>(1);
        let started = std::thread::Builder::new()
            .name("skillgym-write".to_owned())
            .spawn(move || -> io::Result<W> {
                let mut sink = sink_here.recv().map_err(|_| stopped())?;
                for mut chunk in to_write {
                    sink.write_all(&chunk)?;
                    chunk.clear();
                    let _ = give_back.try_send(chunk);
                }
                Ok(sink)
            });
        let Ok(writer) = started else {
            return;
        };
        let State::Here(sink) = mem::replace(&mut self.state, State::Gone) else {
            unreachable!("a writer is started only while the sink is here");
        };
        // The thread waits for the sink: this send cannot fail while it does.
        if hand_sink.send(sink).is_ok() {
            self.state = State::Behind {
                full,
                emptied,
                writer,
            };
        }
    }
}

impl<W: Write + Send + 'static> Write for WriteBehind<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    // serde_json writes a token at a time: one copy each, and a hand-over per chunk.
    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.chunk.extend_from_slice(bytes);
        if self.chunk.len() >= CHUNK {
            self.hand_on()?;
        }
        Ok(())
    }

    /// Does nothing: what is gathered is written by [`WriteBehind::finish`].
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write + Send + 'static> Drop for WriteBehind<W> {
    fn drop(&mut self) {
        if let State::Behind { full, writer, .. } = mem::replace(&mut self.state, State::Gone) {
            drop(full);
            let _ = writer.join();
        }
    }
}

/// The writer's result; a panic of the writer is an error.
fn join<W>(writer: JoinHandle<io::Result<W>>) -> io::Result<W> {
    writer
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the thread writing the file panicked")))
}

fn stopped() -> io::Error {
    io::Error::other("the thread writing the file stopped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A sink that keeps what it is given, on whatever thread, and says which threads wrote.
    #[derive(Clone, Default)]
    struct Kept {
        bytes: Arc<Mutex<Vec<u8>>>,
        threads: Arc<Mutex<Vec<Option<String>>>>,
        fail_after: Option<usize>,
    }

    impl Write for Kept {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut kept = self.bytes.lock().unwrap();
            if self.fail_after.is_some_and(|limit| kept.len() >= limit) {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            kept.extend_from_slice(bytes);
            let name = std::thread::current().name().map(str::to_owned);
            self.threads.lock().unwrap().push(name);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// `n` bytes that show their order.
    fn numbered(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn a_short_document_is_written_here_in_one_write() {
        let kept = Kept::default();
        let mut out = WriteBehind::new(kept.clone());
        for byte in numbered(1000) {
            out.write_all(&[byte]).unwrap();
        }
        out.finish().unwrap();
        assert_eq!(*kept.bytes.lock().unwrap(), numbered(1000));
        let threads = kept.threads.lock().unwrap();
        assert_eq!(threads.len(), 1, "one write");
        assert_ne!(threads[0].as_deref(), Some("skillgym-write"));
    }

    #[test]
    fn a_long_document_is_written_in_order_by_the_writer_thread() {
        let kept = Kept::default();
        let data = numbered(CHUNK * (IN_FLIGHT + 3) + 12_345);
        let mut out = WriteBehind::new(kept.clone());
        for piece in data.chunks(977) {
            out.write_all(piece).unwrap();
        }
        out.finish().unwrap();
        assert_eq!(*kept.bytes.lock().unwrap(), data);
        let threads = kept.threads.lock().unwrap();
        assert!(
            threads
                .iter()
                .all(|name| name.as_deref() == Some("skillgym-write")),
            "{threads:?}"
        );
    }

    #[test]
    fn the_writers_error_is_what_finish_returns() {
        let kept = Kept {
            fail_after: Some(CHUNK),
            ..Kept::default()
        };
        let mut out = WriteBehind::new(kept.clone());
        let data = numbered(CHUNK * (IN_FLIGHT + 4));
        // The producer may or may not see that the writer stopped, depending on timing; if it
        // does, the error only says so.
        let produced = data.chunks(4096).try_for_each(|piece| out.write_all(piece));
        let error = out.finish().err().expect("the write fails");
        assert_eq!(error.kind(), io::ErrorKind::StorageFull, "{error}");
        if let Err(error) = produced {
            assert!(error.to_string().contains("stopped"), "{error}");
        }
    }

    #[test]
    fn dropping_it_unfinished_waits_for_the_writer() {
        let kept = Kept::default();
        let mut out = WriteBehind::new(kept.clone());
        out.write_all(&numbered(CHUNK * 3)).unwrap();
        drop(out);
        let written = kept.bytes.lock().unwrap().len();
        assert_eq!(
            written,
            CHUNK * 3,
            "every chunk handed on is written before drop returns"
        );
    }
}
