//! Reports of real agent sessions: the captured transcripts of every agent CLI, normalized by
//! skillgym-harness's adapters and kept as reviewed insta snapshots in
//! `skillgym-harness/tests/golden/` (see the golden tests there).

use std::path::Path;

use skillgym::SessionReport;

/// The report normalized from the transcript `<name>.jsonl`, e.g. `codex` or
/// `claude-code-2.1.197`. The sessions ran in `/home/dev/demo/wd`.
pub(crate) fn load(name: &str) -> SessionReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgym-harness/tests/golden")
        .join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    // An insta snapshot: a `---` delimited metadata header, then the JSON.
    let json = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, json)| json)
        .unwrap_or_else(|| panic!("{}: not an insta snapshot", path.display()));
    let snapshot: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_value(snapshot["report"].clone())
        .unwrap_or_else(|err| panic!("{}: not a report: {err}", path.display()))
}
