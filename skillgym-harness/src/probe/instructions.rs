//! Which instruction files' contents reached a model request, and the instruction files the
//! probe plants (`--instructions`).
//!
//! Every string of the request is read (the probe's prompt and the scripted model's answers
//! hold none of what follows). Two things are looked for:
//!
//! - **The CLIs' own headers**, each at the start of a line; the header's block runs to its end
//!   line, else to the next header, else to the end of the string:
//!
//! | CLI | header | the file as reported | the block ends at |
//! |---|---|---|---|
//! | Claude Code | `Contents of PATH (what it is):` | `PATH` | the next header |
//! | Codex | `# AGENTS.md instructions for DIR` | `DIR/AGENTS.md` | `</INSTRUCTIONS>` |
//! | OpenCode | `Instructions from: PATH` | `PATH` | the next header |
//! | Gemini CLI, Qwen Code | `--- Context from: PATH ---` | `PATH` (Qwen Code's relative to its workspace) | `--- End of Context from: …` |
//! | Copilot | `<custom_instruction>` (names no file) | `<custom_instruction>`, or the planted file whose marker it holds | `</custom_instruction>` |
//!
//! - **The marker line of a planted file**: [`MARKER`] followed by the file's path relative to
//!   the workspace, which the probe writes into each of [`PLANTED`] it plants. A marker inside
//!   a header's block makes that file's entry name what was planted (`planted`); a marker
//!   outside any block is an entry of its own, named by the marker.
//!
//! The headers are those of the pinned versions (`tests/fixtures/probe-instructions/`: each
//! CLI's request with the five files planted). Entries are the distinct (file, planted) pairs,
//! in request order, each with the JSON pointers of the strings it is in. A header without a
//! marker is still an entry (`planted` null): an instruction file the probe did not plant (the
//! CLI's own, or one leaking from a user-level configuration).

use std::path::Path;

use serde_json::Value;

use super::InstructionFile;

/// What opens the marker line of a planted instruction file; the file's workspace-relative
/// path follows it.
pub const MARKER: &str = "skillgym-probe-planted:";

/// The instruction files `--instructions` plants in each workspace, relative to it.
pub const PLANTED: [&str; 5] = [
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    "QWEN.md",
    ".github/copilot-instructions.md",
];

/// Copilot's header, which names no file.
const UNNAMED: &str = "<custom_instruction>";

/// Writes each of [`PLANTED`] into `workspace`: a heading and its marker line.
pub(super) fn plant(workspace: &Path) -> std::io::Result<()> {
    for file in PLANTED {
        let path = workspace.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(
            &path,
            format!("# Instructions planted by cargo skillgym probe\n\n{MARKER} {file}\n"),
        )?;
    }
    Ok(())
}

/// The instruction files whose contents `body`, a model request, holds.
pub fn instruction_files(body: &Value) -> Vec<InstructionFile> {
    let mut found: Vec<InstructionFile> = Vec::new();
    let mut strings = Vec::new();
    collect_strings(body, String::new(), &mut strings);
    for (place, text) in strings {
        for (file, planted) in read_text(text) {
            match found
                .iter_mut()
                .find(|entry| entry.file == file && entry.planted == planted)
            {
                Some(entry) if entry.places.contains(&place) => {}
                Some(entry) => entry.places.push(place.clone()),
                None => found.push(InstructionFile {
                    file,
                    planted,
                    places: vec![place.clone()],
                }),
            }
        }
    }
    found
}

/// Every string in `value`, with its JSON pointer, in document order.
fn collect_strings<'a>(value: &'a Value, pointer: String, out: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(text) => out.push((pointer, text)),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                collect_strings(item, format!("{pointer}/{index}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                collect_strings(item, format!("{pointer}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// A header's block in a text: the file it names (`None`: Copilot's), its content's span.
struct Block {
    file: Option<String>,
    start: usize,
    end: usize,
}

/// The (file, planted) pairs of one text, in order.
fn read_text(text: &str) -> Vec<(String, Option<String>)> {
    let headers = headers(text);
    let markers = markers(text);
    if headers.is_empty() && markers.is_empty() {
        return Vec::new();
    }
    let blocks = blocks(text, &headers);
    let mut pairs: Vec<(usize, String, Option<String>)> = Vec::new();
    for block in &blocks {
        let inside: Vec<&(usize, String)> = markers
            .iter()
            .filter(|(at, _)| (block.start..block.end).contains(at))
            .collect();
        if inside.is_empty() {
            let file = block.file.clone().unwrap_or_else(|| UNNAMED.to_owned());
            pairs.push((block.start, file, None));
        }
        for (at, planted) in inside {
            let file = block.file.clone().unwrap_or_else(|| planted.clone());
            pairs.push((*at, file, Some(planted.clone())));
        }
    }
    for (at, planted) in &markers {
        if !blocks
            .iter()
            .any(|block| (block.start..block.end).contains(at))
        {
            pairs.push((*at, planted.clone(), Some(planted.clone())));
        }
    }
    pairs.sort_by_key(|(at, _, _)| *at);
    pairs
        .into_iter()
        .map(|(_, file, planted)| (file, planted))
        .collect()
}

/// A recognised header line: where it starts, where its block starts (after the line), the
/// file it names, and the line that ends its block, when it has one.
struct Header {
    at: usize,
    body: usize,
    file: Option<String>,
    end_line: Option<&'static str>,
}

/// The header lines of `text`, in order.
fn headers(text: &str) -> Vec<Header> {
    let mut found = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = at + line.len();
        let trimmed = line.trim_end();
        if let Some((file, end_line)) = header(trimmed) {
            found.push(Header {
                at,
                body,
                file,
                end_line,
            });
        }
        at = body;
    }
    found
}

/// What a line is, when it is a header: the file it names and its block's end line.
fn header(line: &str) -> Option<(Option<String>, Option<&'static str>)> {
    if let Some(rest) = line.strip_prefix("Contents of ") {
        let (path, _) = rest.strip_suffix("):")?.rsplit_once(" (")?;
        return Some((Some(path.to_owned()), None));
    }
    if let Some(dir) = line.strip_prefix("# AGENTS.md instructions for ") {
        let dir = dir.trim_end_matches('/');
        return Some((Some(format!("{dir}/AGENTS.md")), Some("</INSTRUCTIONS>")));
    }
    if let Some(path) = line.strip_prefix("Instructions from: ") {
        return Some((Some(path.to_owned()), None));
    }
    if let Some(rest) = line.strip_prefix("--- Context from: ") {
        let path = rest.strip_suffix(" ---")?;
        return Some((Some(path.to_owned()), Some("--- End of Context from: ")));
    }
    line.starts_with(UNNAMED)
        .then_some((None, Some("</custom_instruction>")))
}

/// The blocks of `headers`, the header lines of `text`.
fn blocks(text: &str, headers: &[Header]) -> Vec<Block> {
    headers
        .iter()
        .enumerate()
        .map(|(index, header)| {
            let next = headers.get(index + 1).map_or(text.len(), |next| next.at);
            let end = header
                .end_line
                .and_then(|line| text[header.body..].find(line))
                .map_or(next, |offset| (header.body + offset).min(next));
            Block {
                file: header.file.clone(),
                start: header.body.min(end),
                end,
            }
        })
        .collect()
}

/// The markers in `text`: where each is, and the path it names.
fn markers(text: &str) -> Vec<(usize, String)> {
    text.match_indices(MARKER)
        .filter_map(|(at, _)| {
            let path: String = text[at + MARKER.len()..]
                .trim_start_matches([' ', '\t'])
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, '<' | '"' | '\'' | '`'))
                .collect();
            (!path.is_empty()).then_some((at, path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::session::parse_requests;

    macro_rules! capture {
        ($dir:literal, $name:literal) => {
            include_str!(concat!("../../tests/fixtures/", $dir, "/", $name))
        };
    }

    /// The (file, planted, places) of each entry of the first request of `log`.
    fn found(log: &str) -> Vec<(String, Option<String>, Vec<String>)> {
        let requests = parse_requests(log);
        assert!(!requests.is_empty(), "a fixture with a request");
        instruction_files(&requests[0])
            .into_iter()
            .map(|entry| (entry.file, entry.planted, entry.places))
            .collect()
    }

    fn entry(
        file: &str,
        planted: Option<&str>,
        place: &str,
    ) -> (String, Option<String>, Vec<String>) {
        (
            file.to_owned(),
            planted.map(str::to_owned),
            vec![place.to_owned()],
        )
    }

    /// The probe's captures of the pinned CLIs with the five files planted
    /// (`cargo skillgym probe --instructions`, `/tmp/skillgym-probe-kept/<runner>/workspace`).
    const PLANTED_CAPTURES: [(&str, &str); 6] = [
        (
            "claude-code",
            capture!("probe-instructions", "claude-code.jsonl"),
        ),
        ("codex", capture!("probe-instructions", "codex.jsonl")),
        ("opencode", capture!("probe-instructions", "opencode.jsonl")),
        ("copilot", capture!("probe-instructions", "copilot.jsonl")),
        (
            "gemini-cli",
            capture!("probe-instructions", "gemini-cli.jsonl"),
        ),
        (
            "qwen-code",
            capture!("probe-instructions", "qwen-code.jsonl"),
        ),
    ];

    /// What each pinned CLI sent of the planted files: (file, planted, place), with `{ws}` the
    /// runner's workspace; `planted` false: the entry of a file not planted.
    fn expected(runner: &str) -> Vec<(String, bool, &'static str)> {
        let ws = format!("/tmp/skillgym-probe-kept/{runner}/workspace");
        let rows: Vec<(String, bool, &str)> = match runner {
            "claude-code" => vec![(
                format!("{ws}/CLAUDE.md"),
                true,
                "/messages/0/content/6/text",
            )],
            "codex" => vec![(format!("{ws}/AGENTS.md"), true, "/input/2/content/0/text")],
            "opencode" => vec![(format!("{ws}/AGENTS.md"), true, "/messages/0/content")],
            "copilot" => [
                ".github/copilot-instructions.md",
                "AGENTS.md",
                "CLAUDE.md",
                "GEMINI.md",
            ]
            .iter()
            .map(|file| ((*file).to_owned(), true, "/messages/0/content"))
            .collect(),
            "gemini-cli" => vec![(format!("{ws}/GEMINI.md"), true, "/contents/0/parts/0/text")],
            _ => vec![
                ("QWEN.md".to_owned(), true, "/messages/0/content"),
                ("AGENTS.md".to_owned(), true, "/messages/0/content"),
                (
                    "../artifacts/agent-state/qwen/output-language.md".to_owned(),
                    false,
                    "/messages/0/content",
                ),
            ],
        };
        rows
    }

    /// The planted file an expected entry's file is (its last components, as planted).
    fn planted_name(file: &str) -> String {
        PLANTED
            .iter()
            .find(|planted| file == **planted || file.ends_with(&format!("/{planted}")))
            .map(|planted| (*planted).to_owned())
            .unwrap_or_else(|| panic!("{file} is no planted file"))
    }

    #[test]
    fn each_cli_sends_the_planted_files_it_reads_named_as_it_names_them() {
        for (runner, log) in PLANTED_CAPTURES {
            let want: Vec<_> = expected(runner)
                .into_iter()
                .map(|(file, planted, place)| {
                    let planted = planted.then(|| planted_name(&file));
                    entry(&file, planted.as_deref(), place)
                })
                .collect();
            assert_eq!(found(log), want, "{runner}");
        }
    }

    #[test]
    fn without_markers_the_headers_still_name_each_file() {
        for (runner, log) in PLANTED_CAPTURES {
            let unmarked = log.replace(MARKER, "no marker:");
            let mut want: Vec<_> = expected(runner)
                .into_iter()
                .map(|(file, _, place)| entry(&file, None, place))
                .collect();
            if runner == "copilot" {
                // Copilot's blocks name no file: one entry for the four.
                want = vec![entry(UNNAMED, None, "/messages/0/content")];
            }
            assert_eq!(found(&unmarked), want, "{runner}");
        }
    }

    #[test]
    fn requests_without_instruction_files_report_none_but_qwen_codes_own() {
        // The pinned versions' requests in the real-agent tier's workspaces, which hold no
        // instruction file; Qwen Code adds its output-language file from its state directory.
        let captures = [
            capture!("mock-requests", "claude-code-2.1.332.jsonl"),
            capture!("mock-requests", "codex-0.171.0.jsonl"),
            capture!("mock-requests", "opencode-1.18.33.if-listed.jsonl"),
            capture!("mock-requests", "copilot-1.0.102.if-listed.jsonl"),
            capture!("mock-requests", "gemini-cli-0.61.0.if-listed.jsonl"),
        ];
        for log in captures {
            for request in parse_requests(log) {
                assert_eq!(instruction_files(&request), []);
            }
        }
        let qwen = found(capture!("mock-requests", "qwen-code-0.24.4.jsonl"));
        assert_eq!(qwen.len(), 1, "{qwen:?}");
        assert!(qwen[0].0.ends_with("/agent-state/qwen/output-language.md"));
        assert_eq!(qwen[0].1, None);
    }

    #[test]
    fn a_block_ends_at_its_end_line_and_a_lone_marker_is_an_entry_of_its_own() {
        let text = format!(
            "# AGENTS.md instructions for /w/\n\n<INSTRUCTIONS>\n{MARKER} AGENTS.md\n</INSTRUCTIONS>\n\
             After the block: {MARKER} QWEN.md\n\
             Contents of /home/u/.claude/CLAUDE.md (user's private global instructions for all projects):\n\nBe brief.\n\
             Contents of nothing: not a header\n"
        );
        let body = serde_json::json!({"input": [{"content": [{"text": text}]}], "a/b": "x"});
        let place = "/input/0/content/0/text";
        assert_eq!(
            instruction_files(&body),
            [
                InstructionFile {
                    file: "/w/AGENTS.md".to_owned(),
                    planted: Some("AGENTS.md".to_owned()),
                    places: vec![place.to_owned()],
                },
                InstructionFile {
                    file: "QWEN.md".to_owned(),
                    planted: Some("QWEN.md".to_owned()),
                    places: vec![place.to_owned()],
                },
                InstructionFile {
                    file: "/home/u/.claude/CLAUDE.md".to_owned(),
                    planted: None,
                    places: vec![place.to_owned()],
                },
            ]
        );
    }

    #[test]
    fn the_same_file_in_two_strings_is_one_entry_with_both_places() {
        let text = "--- Context from: GEMINI.md ---\nrule\n--- End of Context from: GEMINI.md ---";
        let body = serde_json::json!({"a/b": text, "c~d": [text, text]});
        let found = instruction_files(&body);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].file, "GEMINI.md");
        assert_eq!(found[0].places, ["/a~1b", "/c~0d/0", "/c~0d/1"]);
    }

    #[test]
    fn plant_writes_each_file_with_its_marker() {
        let dir = tempfile::tempdir().unwrap();
        plant(dir.path()).unwrap();
        for file in PLANTED {
            let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
            assert!(
                text.contains(&format!("{MARKER} {file}\n")),
                "{file}: {text}"
            );
            let body = serde_json::json!({ "system": text });
            assert_eq!(instruction_files(&body)[0].planted.as_deref(), Some(file));
        }
    }
}
