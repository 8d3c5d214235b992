//! The rules that read the body and the skill's files: links, mentioned files, scripts.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::rules::{Context, Hit, SkillFile};

/// An inline Markdown link or image: `[text](target "title")`; group 1 is the target.
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).expect("valid")
});

/// A path under one of the spec's skill folders; group 1 is the path.
static MENTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:^|[^A-Za-z0-9_./-])((?:scripts|references|assets)/[A-Za-z0-9_][A-Za-z0-9_./-]*)",
    )
    .expect("valid")
});

/// A place in the body that names a file of the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    line: u32,
    column: u32,
    /// The path as written, relative to the skill directory.
    target: String,
    /// A Markdown link outside code, rather than a bare mention.
    link: bool,
}

/// The links (outside fenced code and inline code) and the mentions of `scripts/`,
/// `references/` and `assets/` paths (anywhere) in `body`, whose first line is `first_line`.
fn references(body: &str, first_line: u32) -> Vec<Reference> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    for (index, line) in body.lines().enumerate() {
        let number = first_line + index as u32;
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(marker)) => fence = Some(marker),
            (Some(open), Some(marker)) if open == marker => fence = None,
            _ => {}
        }
        let column = |at: usize| line[..at].chars().count() as u32 + 1;
        let mut link_starts = Vec::new();
        if fence.is_none() && marker.is_none() {
            for capture in LINK.captures_iter(&blank_inline_code(line)) {
                let target = capture.get(1).expect("group 1");
                link_starts.push(target.start());
                found.push(Reference {
                    line: number,
                    column: column(target.start()),
                    target: target.as_str().to_owned(),
                    link: true,
                });
            }
        }
        for capture in MENTION.captures_iter(line) {
            let path = capture.get(1).expect("group 1");
            if link_starts.contains(&path.start()) {
                continue;
            }
            found.push(Reference {
                line: number,
                column: column(path.start()),
                target: path.as_str().trim_end_matches('.').to_owned(),
                link: false,
            });
        }
    }
    found
}

/// `line` with its inline code spans blanked (same byte length), so links in them are not read.
fn blank_inline_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else if in_code {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// The local file a link target names, or `None` for URLs, anchors and absolute paths.
fn local_target(target: &str) -> Option<String> {
    let has_scheme = target.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    if has_scheme || target.starts_with(['#', '/', '{', '$', '~']) {
        return None;
    }
    let path = target.split(['#', '?']).next().unwrap_or_default();
    (!path.is_empty()).then(|| path.replace("%20", " "))
}

pub(super) fn broken_links(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    references(skill.body(), skill.body_at.1)
        .into_iter()
        .filter(|reference| reference.link)
        .filter_map(|reference| {
            let path = local_target(&reference.target)?;
            (!skill.dir.join(&path).exists()).then(|| {
                Hit::at(
                    reference.line,
                    reference.column,
                    format!("the link target `{}` does not exist", reference.target),
                )
                .help("links are relative to the skill directory: fix the path or add the file")
            })
        })
        .collect()
}

pub(super) fn missing_files(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let mut seen = Vec::new();
    let mut hits = Vec::new();
    for reference in references(skill.body(), skill.body_at.1) {
        if reference.link || seen.contains(&reference.target) {
            continue;
        }
        seen.push(reference.target.clone());
        if !skill.dir.join(&reference.target).exists() {
            hits.push(
                Hit::at(
                    reference.line,
                    reference.column,
                    format!("`{}` is not a file of the skill", reference.target),
                )
                .help("add it to the skill directory, or fix the path (relative to the skill directory)"),
            );
        }
    }
    hits
}

/// The files under `dir` (symlinks not followed), in name order.
fn files_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => files_under(&entry.path(), found),
            Ok(kind) if kind.is_file() => found.push(entry.path()),
            _ => {}
        }
    }
}

/// Whether the file at `path` starts with `#!` and has no executable bit.
#[cfg(unix)]
fn unrunnable_script(path: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let executable =
        std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0);
    let mut start = [0u8; 2];
    let shebang = std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| &start == b"#!");
    shebang && !executable
}

/// Without Unix permissions there is no executable bit to check.
#[cfg(not(unix))]
fn unrunnable_script(_: &Path) -> bool {
    false
}

pub(super) fn scripts_not_executable(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let mut files = Vec::new();
    files_under(&skill.dir.join("scripts"), &mut files);
    files
        .into_iter()
        .filter(|path| unrunnable_script(path))
        .map(|path| {
            let relative = path
                .strip_prefix(&skill.dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            let mut hit = Hit::at(
                1,
                1,
                format!("`{relative}` starts with `#!` but is not executable"),
            )
            .help(format!(
                "chmod +x {relative} (and `git add --chmod=+x {relative}`)"
            ));
            hit.file = Some(path);
            hit
        })
        .collect()
}
