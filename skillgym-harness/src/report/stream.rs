//! Reporters' files written as they are made: through a buffer into a temporary file beside
//! the target, renamed over it when whole, so a report of 100,000 executions is never held in
//! memory as a whole, and readers never see half a file.

use std::fs;
use std::io::{self, BufWriter, Write as _};
use std::path::Path;

/// Writes `path` through `write`, which gets a buffered writer to `<name>.tmp-<pid>` beside it
/// (renamed to `path` when `write` and the flush succeed, removed when either fails).
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let temporary = path.with_file_name(name);
    let written = fs::File::create(&temporary).and_then(|file| {
        let mut buffered = BufWriter::with_capacity(256 * 1024, file);
        write(&mut buffered)?;
        buffered.flush()
    });
    let renamed = written.and_then(|()| fs::rename(&temporary, path));
    if renamed.is_err() {
        // Half a file, or a whole one that could not take its name: either is litter.
        let _ = fs::remove_file(&temporary);
    }
    renamed
}

/// Writes the JSON object `head` with `"<key>": [items...]` added as its last member, each
/// item serialized by itself and masked (`secrets::mask_bytes`), then a newline: one item in
/// memory at a time.
pub(crate) fn json_with_array<T: serde::Serialize>(
    out: &mut dyn io::Write,
    head: &impl serde::Serialize,
    key: &str,
    items: impl IntoIterator<Item = T>,
) -> io::Result<()> {
    let head = crate::secrets::mask_bytes(serde_json::to_vec(head).map_err(io::Error::other)?);
    let open = head
        .strip_suffix(b"}")
        .ok_or_else(|| io::Error::other("the head of a JSON document is not an object"))?;
    out.write_all(open)?;
    if open.len() > 1 {
        out.write_all(b",")?;
    }
    out.write_all(&serde_json::to_vec(key).map_err(io::Error::other)?)?;
    out.write_all(b":[")?;
    let mut buffer = Vec::with_capacity(4096);
    for (n, item) in items.into_iter().enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        buffer.clear();
        serde_json::to_writer(&mut buffer, &item).map_err(io::Error::other)?;
        out.write_all(&crate::secrets::mask_bytes(std::mem::take(&mut buffer)))?;
    }
    out.write_all(b"]}\n")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn the_array_is_added_to_the_head_and_the_whole_is_one_document() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let head = json!({"a": 1, "z": [2]});
        write_atomically(&path, |out| {
            json_with_array(out, &head, "items", [json!({"n": 1}), json!({"n": 2})])
        })
        .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("]}\n"));
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({"a": 1, "z": [2], "items": [{"n": 1}, {"n": 2}]})
        );
        let empty = dir.path().join("empty.json");
        write_atomically(&empty, |out| {
            json_with_array(out, &json!({}), "items", Vec::<Value>::new())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&empty).unwrap(), "{\"items\":[]}\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "no litter");
    }

    #[test]
    fn a_failed_write_leaves_neither_file_nor_litter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let error = write_atomically(&path, |out| {
            out.write_all(b"{\"half\":")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "disk full");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
