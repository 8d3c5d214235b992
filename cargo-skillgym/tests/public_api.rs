//! `cargo-skillgym` is published: it may use only the harness's documented public API. This
//! test reads the harness's `lib.rs` for its `#[doc(hidden)]` modules and fails when any
//! source file of `cargo-skillgym` names one of them (`skillgym_harness::<hidden>`), or
//! reaches into `skillgym::__private`.

use std::fs;
use std::path::{Path, PathBuf};

/// The modules `skillgym-harness/src/lib.rs` declares `pub` under `#[doc(hidden)]`.
fn hidden_harness_modules() -> Vec<String> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skillgym-harness/src/lib.rs");
    let text = fs::read_to_string(&lib).unwrap();
    let mut hidden = Vec::new();
    let mut after_doc_hidden = false;
    for line in text.lines().map(str::trim) {
        if line == "#[doc(hidden)]" {
            after_doc_hidden = true;
            continue;
        }
        if after_doc_hidden && let Some(name) = line.strip_prefix("pub mod ") {
            hidden.push(name.trim_end_matches(';').to_owned());
        }
        after_doc_hidden = false;
    }
    hidden
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// The first path segment after each `skillgym_harness::` in `line`, also inside a brace group
/// (`skillgym_harness::{config, doctor}`).
fn named_modules(line: &str) -> Vec<&str> {
    let is_ident = |c: char| c == '_' || c.is_ascii_alphanumeric();
    let mut names = Vec::new();
    for (start, path) in line.match_indices("skillgym_harness::") {
        let rest = &line[start + path.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = group.split('}').next().unwrap_or(group);
                names.extend(group.split(',').map(|item| {
                    let item = item.trim();
                    &item[..item.find(|c: char| !is_ident(c)).unwrap_or(item.len())]
                }));
            }
            None => names.push(&rest[..rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())]),
        }
    }
    names
}

#[test]
fn cargo_skillgym_uses_no_hidden_module_of_the_harness() {
    let hidden = hidden_harness_modules();
    assert!(
        hidden.iter().any(|name| name == "fuzzing"),
        "the reading of lib.rs found no hidden module: {hidden:?}"
    );
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(!files.is_empty());
    let mut uses = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let at = |what: &str| format!("{}:{}: {what}", file.display(), number + 1);
            if line.contains("__private") {
                uses.push(at("`__private`"));
            }
            for name in named_modules(line) {
                if hidden.iter().any(|hidden| *hidden == name) {
                    uses.push(at(&format!("the hidden module `skillgym_harness::{name}`")));
                }
            }
        }
    }
    assert!(uses.is_empty(), "{}", uses.join("\n"));
}
