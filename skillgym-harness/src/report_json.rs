//! A long session's `report.json`, its events serialised on two threads: serde_json escapes a
//! string a byte at a time, and a long session's events (its tools' outputs) are most of the
//! report, so one thread alone keeps the end of the attempt waiting for milliseconds.
//!
//! | part | serialised by |
//! |---|---|
//! | the report without its events (a small shell, cut at its top-level `"events":[]`) | the caller |
//! | events `0..256`, `512..768`, … | the caller, straight into the writer |
//! | events `256..512`, `768..1024`, … | a thread (`skillgym-json`), into buffers handed over in order, at most [`AHEAD`] waiting |
//!
//! The bytes written are exactly those of `serde_json::to_writer(report)`, compact, as
//! [`crate::artifacts::write_json`] writes a document this long. Where no thread can be had,
//! every event is serialised on the caller's thread.

use std::io::{self, Write};
use std::sync::mpsc::sync_channel;

use skillgym::{SessionEvent, SessionReport};

/// Events serialised together, by one thread or the other.
const CHUNK: usize = 256;

/// Buffers of the thread's chunks serialised and not yet written, at most.
const AHEAD: usize = 2;

/// The key of the events in the shell: the report serialised without them.
const EVENTS_KEY: &[u8] = b"\"events\":[]";

/// Writes `report` into `out` as compact JSON, as `serde_json::to_writer` would. Its events
/// are taken out while the shell is serialised and put back.
pub(crate) fn write(out: &mut impl Write, report: &mut SessionReport) -> io::Result<()> {
    let events = std::mem::take(&mut report.events);
    let shell = serde_json::to_vec(&*report);
    report.events = events;
    let shell = shell.map_err(io::Error::other)?;
    let at = top_level_key(&shell, EVENTS_KEY)
        .ok_or_else(|| io::Error::other("the report's shell has no top-level `events` key"))?;
    // Up to and including `[`, the events, then from `]` on.
    let (head, tail) = shell.split_at(at + EVENTS_KEY.len() - 1);
    out.write_all(head)?;
    write_events(out, &report.events)?;
    out.write_all(tail)
}

/// Where `key` (a quoted key, its colon and value) starts in the JSON object `json`, outside
/// every string and nested value.
fn top_level_key(json: &[u8], key: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &byte) in json.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' if depth == 1 && json[at..].starts_with(key) => return Some(at),
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Writes `events` comma-separated: every other chunk serialised here, the others on a thread.
fn write_events(out: &mut impl Write, events: &[SessionEvent]) -> io::Result<()> {
    let chunks: Vec<&[SessionEvent]> = events.chunks(CHUNK).collect();
    std::thread::scope(|scope| {
        let (to_writer, serialised) = sync_channel::<io::Result<Vec<u8>>>(AHEAD);
        let theirs = chunks.iter().skip(1).step_by(2).copied();
        let helper = std::thread::Builder::new()
            .name("skillgym-json".to_owned())
            .spawn_scoped(scope, move || {
                for chunk in theirs {
                    let mut bytes = Vec::new();
                    let done = serialise(&mut bytes, chunk).map(|()| bytes);
                    // The writer stopped (it failed): nothing more is wanted.
                    if to_writer.send(done).is_err() {
                        return;
                    }
                }
            });
        for (index, chunk) in chunks.iter().enumerate() {
            if index > 0 {
                out.write_all(b",")?;
            }
            match (&helper, index % 2) {
                (Ok(_), 1) => {
                    let bytes = serialised
                        .recv()
                        .map_err(|_| io::Error::other("the report's serialising thread ended"))??;
                    out.write_all(&bytes)?;
                }
                _ => serialise(out, chunk)?,
            }
        }
        Ok(())
    })
}

/// Writes `events` comma-separated, as serde_json writes the elements of a sequence.
fn serialise(out: &mut impl Write, events: &[SessionEvent]) -> io::Result<()> {
    for (index, event) in events.iter().enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, event).map_err(io::Error::other)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The reports of the golden snapshots (`tests/golden/*.snap`: every agent's captured
    /// sessions), their events one after the other until there are `count`, with a warning
    /// that looks like the key.
    fn report(count: usize) -> SessionReport {
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
        let mut snapshots: Vec<_> = std::fs::read_dir(golden)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        snapshots.sort();
        let reports: Vec<SessionReport> = snapshots
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(path).unwrap();
                // The snapshot's header, then its JSON.
                let json = &text[text.find("\n---\n").expect("an insta header") + 5..];
                let value: serde_json::Value = serde_json::from_str(json).unwrap();
                serde_json::from_value(value["report"].clone()).unwrap()
            })
            .collect();
        let mut report = reports[0].clone();
        report.warnings = vec!["\"events\":[] in a string".to_owned()];
        report.events = reports
            .iter()
            .flat_map(|report| report.events.iter().cloned())
            .cycle()
            .take(count)
            .collect();
        report
    }

    #[test]
    fn the_bytes_are_those_of_serde_json_whatever_the_number_of_events() {
        for count in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 5000] {
            let mut report = report(count);
            let expected = serde_json::to_vec(&report).unwrap();
            let mut written = Vec::new();
            write(&mut written, &mut report).unwrap();
            assert!(
                written == expected,
                "{count} events: {} bytes against {}",
                written.len(),
                expected.len()
            );
            assert_eq!(report.events.len(), count, "the events are put back");
        }
    }

    #[test]
    fn only_the_top_level_key_counts() {
        let json = br#"{"a":"\"events\":[]","b":{"events":[]},"c":["\\"],"events":[],"d":1}"#;
        let at = top_level_key(json, EVENTS_KEY).unwrap();
        assert_eq!(&json[at..at + 12], br#""events":[],"#);
        assert_eq!(top_level_key(br#"{"a":{"events":[]}}"#, EVENTS_KEY), None);
    }

    /// A writer that fails after `room` bytes.
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if bytes.len() > self.room {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            self.room -= bytes.len();
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_writer_ends_the_write_and_its_thread() {
        let mut report = report(5000);
        let error = write(&mut Full { room: 100_000 }, &mut report).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::StorageFull);
        assert_eq!(report.events.len(), 5000);
    }
}
