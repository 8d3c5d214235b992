//! Finding what the sandbox refused a session, in what the session says: the text of every
//! event (tool outputs, command results, messages) and the end of its stderr log, line by line.
//!
//! | kind | a line with | when |
//! |---|---|---|
//! | `write` | `Read-only file system`, `EROFS` | always |
//! | `read` | `No such file or directory`, `ENOENT`, `not found`, `does not exist`, and a path in a hidden home | always |
//! | `network` | `Network is unreachable`, `ENETUNREACH`, `Connection refused`, `ECONNREFUSED`, `Could not resolve host`, `Temporary failure in name resolution`, `Name or service not known`, `EAI_AGAIN`, `ENOTFOUND` | `network: loopback` |
//!
//! A failed read event (`file_read` with an `error`) of a path in a hidden home is a `read`
//! too. At most [`MAX_DENIALS`] lines are kept, each once.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillgym::SessionReport;

use crate::config::SandboxNetwork;
use crate::results::{Denial, DenialKind};

/// The most denials kept for one session.
pub(super) const MAX_DENIALS: usize = 10;

/// How much of the end of the stderr log is read.
const STDERR_TAIL: u64 = 64 * 1024;

/// The longest evidence line kept, in characters.
const EVIDENCE: usize = 240;

const WRITE: [&str; 2] = ["Read-only file system", "EROFS"];
const MISSING: [&str; 4] = [
    "No such file or directory",
    "ENOENT",
    "not found",
    "does not exist",
];
const NETWORK: [&str; 9] = [
    "Network is unreachable",
    "ENETUNREACH",
    "Connection refused",
    "ECONNREFUSED",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "EAI_AGAIN",
    "ENOTFOUND",
];

/// The denials `report` and the stderr log at `stderr_log` show; `homes` are the hidden
/// homes.
pub(super) fn scan(
    report: &SessionReport,
    stderr_log: &Path,
    network: SandboxNetwork,
    homes: &[PathBuf],
) -> Vec<Denial> {
    let homes: Vec<String> = homes.iter().map(|h| h.display().to_string()).collect();
    let mut texts = Vec::new();
    if let Ok(events) = serde_json::to_value(&report.events) {
        strings(&events, &mut texts);
    }
    texts.push(stderr_tail(stderr_log));
    let mut denials: Vec<Denial> = Vec::new();
    // A failed read of the agent's own tool: its path and error are apart.
    for event in &report.events {
        if let skillgym::SessionEvent::FileRead {
            path,
            error: Some(error),
            ..
        } = event
        {
            let line = format!("{}: {error}", path.display());
            if homes.iter().any(|home| names_path_in(&line, home)) {
                push(&mut denials, DenialKind::Read, &line);
            }
        }
    }
    for line in texts.iter().flat_map(|text| text.lines()) {
        if denials.len() == MAX_DENIALS {
            break;
        }
        if let Some(kind) = kind(line, network, &homes) {
            push(&mut denials, kind, line);
        }
    }
    denials
}

/// Adds the denial `line` shows, unless it is there already or the list is full.
fn push(denials: &mut Vec<Denial>, kind: DenialKind, line: &str) {
    let evidence = evidence(line);
    if denials.len() < MAX_DENIALS && !denials.iter().any(|d| d.evidence == evidence) {
        denials.push(Denial { kind, evidence });
    }
}

/// What `line` shows the sandbox refusing, if anything.
fn kind(line: &str, network: SandboxNetwork, homes: &[String]) -> Option<DenialKind> {
    let has = |needles: &[&str]| needles.iter().any(|needle| line.contains(needle));
    if has(&WRITE) {
        return Some(DenialKind::Write);
    }
    if has(&MISSING) && homes.iter().any(|home| names_path_in(line, home)) {
        return Some(DenialKind::Read);
    }
    if network == SandboxNetwork::Loopback && has(&NETWORK) {
        return Some(DenialKind::Network);
    }
    None
}

/// Whether `line` names `dir` or a path inside it (not merely a longer name that starts
/// alike: `/root` is not in `/rootfs`).
fn names_path_in(line: &str, dir: &str) -> bool {
    line.match_indices(dir).any(|(at, _)| {
        let after = line[at + dir.len()..].chars().next();
        after.is_none_or(|c| c == '/' || !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
    })
}

/// `line` trimmed, cut to [`EVIDENCE`] characters, secrets masked.
fn evidence(line: &str) -> String {
    let line = line.trim();
    let cut: String = line.chars().take(EVIDENCE).collect();
    let cut = if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut
    };
    crate::secrets::mask(&cut).into_owned()
}

/// Every string in `value`.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|field| strings(field, out)),
        _ => {}
    }
}

/// The last [`STDERR_TAIL`] bytes of the log (empty when there is none).
fn stderr_tail(path: &Path) -> String {
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let length = file.metadata().map_or(0, |m| m.len());
    let _ = file.seek(SeekFrom::Start(length.saturating_sub(STDERR_TAIL)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(outputs: &[&str]) -> SessionReport {
        let mut report = SessionReport::default();
        for output in outputs {
            report.events.push(skillgym::SessionEvent::ToolResult {
                id: None,
                tool: Some("bash".to_owned()),
                output: (*output).to_owned(),
                is_error: true,
                at: None,
            });
        }
        report
    }

    #[test]
    fn each_kind_is_found_by_its_error_text() {
        let dir = tempfile::tempdir().unwrap();
        let stderr = dir.path().join("stderr.log");
        std::fs::write(
            &stderr,
            "cat: /home/me/.ssh/id_ed25519: No such file or directory\ncat: /home/me2/x: No such file or directory\n",
        )
        .unwrap();
        let homes = [PathBuf::from("/home/me")];
        let session = report(&[
            "touch: cannot touch '/etc/x': Read-only file system",
            "curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused",
            "all good",
        ]);
        let found = scan(&session, &stderr, SandboxNetwork::Loopback, &homes);
        let kinds: Vec<DenialKind> = found.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [DenialKind::Write, DenialKind::Network, DenialKind::Read],
            "{found:?}"
        );
        assert_eq!(
            found[2].evidence,
            "cat: /home/me/.ssh/id_ed25519: No such file or directory"
        );
        let mut read = report(&[]);
        read.events.push(skillgym::SessionEvent::FileRead {
            path: PathBuf::from("/home/me/.aws/credentials"),
            error: Some("File not found".to_owned()),
            at: None,
        });
        let found = scan(&read, Path::new("/x"), SandboxNetwork::Host, &homes);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, DenialKind::Read);
        assert_eq!(
            found[0].evidence,
            "/home/me/.aws/credentials: File not found"
        );
        // On the host's network a refused connection is no denial of the sandbox's.
        let host = scan(&session, &stderr, SandboxNetwork::Host, &homes);
        assert!(
            host.iter().all(|d| d.kind != DenialKind::Network),
            "{host:?}"
        );
    }

    #[test]
    fn evidence_is_cut_and_kept_once() {
        let long = format!("{} Read-only file system", "x".repeat(300));
        let session = report(&[&long, &long]);
        let found = scan(
            &session,
            Path::new("/nonexistent"),
            SandboxNetwork::Host,
            &[],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].evidence.chars().count(), EVIDENCE + 1);
        assert!(found[0].evidence.ends_with('…'));
        let many: Vec<String> = (0..20).map(|i| format!("{i}: EROFS")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let found = scan(&report(&many), Path::new("/x"), SandboxNetwork::Host, &[]);
        assert_eq!(found.len(), MAX_DENIALS);
    }
}
