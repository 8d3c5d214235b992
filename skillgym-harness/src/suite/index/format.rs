//! The index file's text: one record a line, fields tab-separated, lists joined by U+001F,
//! `\` escaping tab, newline, carriage return, U+001F and itself.
//!
//! | record | fields |
//! |---|---|
//! | `skillgym-suite-index` | format version, the harness's version |
//! | `started` | the file time the load began at (seconds, nanoseconds) |
//! | `exe`, `config`, `file`, `dir` | stamp (`-`: missing), path |
//! | `env` | a variable the suite's `${{ NAME }}` read, `=value` or `!` (unset) |
//! | `warn` | a loading warning: path, message |
//! | `root` | the suite's directory, which the case directories are relative to |
//! | `case` | a discovered case: its id, its case file's stamp, its plan's fields ([`CASE_FIELDS`]) |

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::suite::yaml::{CaseDef, WorkspaceDef};

/// The format's version: an index of another version is rebuilt.
pub(super) const VERSION: &str = "1";

/// The fields of a `case` record after its id and its case file's stamp, in order; `dir` is
/// relative to the suite's directory (the `root` record), `file` the case file's name in it.
pub(super) const CASE_FIELDS: [&str; 18] = [
    "dir",
    "file",
    "line",
    "tags",
    "targets",
    "runners",
    "skills",
    "variants",
    "mock",
    "repeat",
    "repeat_failure",
    "samples",
    "min_pass_rate",
    "min_lift",
    "stop_when_decided",
    "expected_fail",
    "timeout",
    "max_steps",
];

const LIST: char = '\u{1f}';

/// `text` with tab, newline, carriage return, U+001F and `\` escaped.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            LIST => out.push_str("\\u"),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`escape`]; `None` for a dangling or unknown escape.
pub(super) fn unescape(text: &str) -> Option<String> {
    if !text.contains('\\') {
        return Some(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'u' => LIST,
            _ => return None,
        });
    }
    Some(out)
}

/// A path as index text; `None` when it is not UTF-8 (the suite is then not indexed).
pub(super) fn path_text(path: &std::path::Path) -> Option<String> {
    path.to_str().map(escape)
}

/// A discovered case's [`CASE_FIELDS`]; `None` when a path is not UTF-8 or its directory is
/// not in `root`.
pub(super) fn encode_case(case: &CaseDef, root: &Path) -> Option<String> {
    let paths = |paths: &[PathBuf]| -> Option<String> {
        let texts: Option<Vec<String>> = paths.iter().map(|p| path_text(p)).collect();
        Some(texts?.join(&LIST.to_string()))
    };
    let fields: [String; 18] = [
        path_text(case.dir.strip_prefix(root).ok()?)?,
        escape(case.file.file_name()?.to_str()?),
        case.line.to_string(),
        list(&case.tags),
        list(&case.targets),
        list(&case.runners),
        paths(&case.skills)?,
        list(&case.variants),
        match &case.mock {
            Some(mock) => path_text(mock)?,
            None => String::new(),
        },
        number(case.repeat),
        number(case.repeat_failure),
        number(case.samples),
        share(case.min_pass_rate),
        share(case.min_lift),
        flag(case.stop_when_decided),
        flag(case.expected_fail),
        number(
            case.timeout
                .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
        ),
        number(case.max_steps),
    ];
    Some(fields.join("\t"))
}

/// The stub of the discovered case `id` from its [`CASE_FIELDS`]: its plan's fields, nothing
/// it is checked with ([`CaseDef::stub`]).
pub(super) fn decode_case(id: String, fields: &[&str], root: &Path) -> Option<CaseDef> {
    let [
        dir,
        file,
        line,
        tags,
        targets,
        runners,
        skills,
        variants,
        mock,
        repeat,
        repeat_failure,
        samples,
        min_pass_rate,
        min_lift,
        stop_when_decided,
        expected_fail,
        timeout,
        max_steps,
    ] = fields
    else {
        return None;
    };
    let dir = root.join(unescape(dir)?);
    Some(CaseDef {
        id,
        file: dir.join(unescape(file)?),
        line: line.parse().ok()?,
        dir,
        input: Vec::new(),
        input_files: Vec::new(),
        criteria: None,
        expected_output: Vec::new(),
        assertions: Vec::new(),
        metadata: serde_json::Value::Null,
        tags: unlist(tags)?,
        workspace: WorkspaceDef::default(),
        threshold: 0.0,
        targets: unlist(targets)?,
        skip_defaults: false,
        repeat: unnumber(repeat)?,
        repeat_failure: unnumber(repeat_failure)?,
        samples: unnumber(samples)?,
        min_pass_rate: unshare(min_pass_rate)?,
        min_lift: unshare(min_lift)?,
        stop_when_decided: unflag(stop_when_decided)?,
        expected_fail: unflag(expected_fail)?,
        timeout: unnumber(timeout)?.map(Duration::from_nanos),
        max_steps: unnumber(max_steps)?,
        runners: unlist(runners)?,
        skills: unlist(skills)?.into_iter().map(PathBuf::from).collect(),
        variants: unlist(variants)?,
        mock: match *mock {
            "" => None,
            text => Some(PathBuf::from(unescape(text)?)),
        },
        conversation: None,
        stub: true,
    })
}

fn list(items: &[String]) -> String {
    let escaped: Vec<String> = items.iter().map(|item| escape(item)).collect();
    escaped.join(&LIST.to_string())
}

fn unlist(text: &str) -> Option<Vec<String>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(LIST).map(unescape).collect()
}

fn number(value: Option<u64>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

fn unnumber(text: &str) -> Option<Option<u64>> {
    match text {
        "" => Some(None),
        text => text.parse().ok().map(Some),
    }
}

/// A float by its bits: read back exactly.
fn share(value: Option<f64>) -> String {
    value
        .map(|v| format!("{:x}", v.to_bits()))
        .unwrap_or_default()
}

fn unshare(text: &str) -> Option<Option<f64>> {
    match text {
        "" => Some(None),
        text => u64::from_str_radix(text, 16)
            .ok()
            .map(|bits| Some(f64::from_bits(bits))),
    }
}

fn flag(value: bool) -> String {
    if value { "1" } else { "0" }.to_owned()
}

fn unflag(text: &str) -> Option<bool> {
    match text {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips_every_separator() {
        let text = "a\tb\nc\rd\u{1f}e\\f";
        assert_eq!(escape(text), "a\\tb\\nc\\rd\\ue\\\\f");
        assert_eq!(unescape(&escape(text)).as_deref(), Some(text));
        assert_eq!(unescape("dangling\\"), None);
        assert_eq!(unescape("\\x"), None);
    }

    #[test]
    fn a_case_record_keeps_every_plan_field() {
        let root = Path::new("/s");
        let minimal = [
            "cases/fix",
            "case.yaml",
            "1",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "0",
            "0",
            "",
            "",
        ];
        let mut case = decode_case("fix\tit".into(), &minimal, root).expect("a minimal record");
        assert_eq!(case.dir, Path::new("/s/cases/fix"));
        assert_eq!(case.file, Path::new("/s/cases/fix/case.yaml"));
        case.tags = vec!["a".into(), "b\u{1f}c".into()];
        case.targets = vec!["t".into()];
        case.runners = vec!["codex".into()];
        case.skills = vec![PathBuf::from("/s/skills/x")];
        case.variants = vec!["with".into()];
        case.mock = Some(PathBuf::from("/s/mock.yaml"));
        case.repeat = Some(3);
        case.samples = Some(20);
        case.min_pass_rate = Some(0.1 + 0.2);
        case.min_lift = Some(-0.25);
        case.stop_when_decided = true;
        case.expected_fail = true;
        case.timeout = Some(Duration::from_millis(1500));
        case.max_steps = Some(7);
        let text = encode_case(&case, root).expect("UTF-8 paths under the root");
        let fields: Vec<&str> = text.split('\t').collect();
        assert_eq!(fields.len(), CASE_FIELDS.len());
        assert_eq!(
            decode_case(case.id.clone(), &fields, root),
            Some(case.clone())
        );
        case.dir = PathBuf::from("/elsewhere/fix");
        assert_eq!(
            encode_case(&case, root),
            None,
            "a directory outside the suite"
        );
    }
}
