//! The harness's layering, read from its sources: every path a file names through `crate::`,
//! `super::` or `self::` (in `use` lines and in code) is resolved to the top-level module it
//! reaches, and the rules below say which ones a directory may reach.
//!
//! | files | may not reach | why |
//! |---|---|---|
//! | `src/results/` | anything but `results` itself and `artifacts` (the [`sanitize`] re-export) | the result data model is the bottom floor: the engine fills it in, reporters read it |
//! | `src/report/` | `execute` | reporters read results, not the engine that made them |
//!
//! Comments, doc comments and string literals are not paths (the sources are tokenized, not
//! searched as text).
//!
//! [`sanitize`]: skillgym_harness::results::sanitize

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The modules `src/results/` may reach.
const RESULTS_MAY_REACH: &[&str] = &["results", "artifacts"];

/// The modules `src/report/` may not reach.
const REPORT_MAY_NOT_REACH: &[&str] = &["execute"];

#[test]
fn results_reaches_no_other_module() {
    let found = reached_under("results", |module| !RESULTS_MAY_REACH.contains(&module));
    assert!(
        found.is_empty(),
        "src/results/ is the bottom floor and may reach only {RESULTS_MAY_REACH:?}; it reaches:\n{}",
        found.join("\n")
    );
}

#[test]
fn report_does_not_reach_the_engine() {
    let found = reached_under("report", |module| REPORT_MAY_NOT_REACH.contains(&module));
    assert!(
        found.is_empty(),
        "src/report/ may not reach {REPORT_MAY_NOT_REACH:?}; it does:\n{}",
        found.join("\n")
    );
}

/// `file:line: crate::module` for every path of a file under `src/<dir>/` reaching a top-level
/// module that `bad` rejects.
fn reached_under(dir: &str, bad: impl Fn(&str) -> bool) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src.join(dir));
    assert!(!files.is_empty(), "no sources under src/{dir}/");
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let module = module_of(&file.strip_prefix(&src).unwrap().to_string_lossy());
        for (top, line) in reached(&text, &module) {
            if bad(&top) {
                found.push(format!(
                    "src/{}:{line}: crate::{top}",
                    relative(&file, &src)
                ));
            }
        }
    }
    found
}

fn relative(file: &Path, src: &Path) -> String {
    file.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The module path of a source file relative to `src/`: `results/mod.rs` is `results`,
/// `results/status.rs` is `results::status`, `lib.rs` the crate root.
fn module_of(relative: &str) -> Vec<String> {
    let relative = relative.replace('\\', "/");
    let stem = relative.strip_suffix(".rs").unwrap_or(&relative);
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The top-level modules a file's paths reach, each with the line it is named on; `module` is
/// the file's module path.
fn reached(source: &str, module: &[String]) -> BTreeSet<(String, usize)> {
    let tokens = TokenStream::from_str(source).expect("the source tokenizes");
    let mut found = BTreeSet::new();
    walk(tokens, module, &mut found);
    found
}

fn walk(tokens: TokenStream, module: &[String], found: &mut BTreeSet<(String, usize)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(ident) if ident == "mod" => {
                // An inline `mod name { … }` is one level deeper for `super::`.
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(body))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                    && body.delimiter() == Delimiter::Brace
                {
                    let mut inner = module.to_vec();
                    inner.push(name.to_string());
                    walk(body.stream(), &inner, found);
                    i += 3;
                    continue;
                }
            }
            TokenTree::Ident(ident) if !follows_path_separator(&tokens, i) => {
                let base = match ident.to_string().as_str() {
                    "crate" => Some(Vec::new()),
                    "self" => Some(module.to_vec()),
                    "super" => Some(module.to_vec()),
                    _ => None,
                };
                if let Some(mut base) = base {
                    let mut j = i;
                    // `super::super::…`: each `super` climbs one level.
                    while let TokenTree::Ident(step) = &tokens[j]
                        && step == "super"
                    {
                        base.pop();
                        if is_separator(&tokens, j + 1)
                            && matches!(tokens.get(j + 3), Some(TokenTree::Ident(next)) if next == "super")
                        {
                            j += 3;
                        } else {
                            break;
                        }
                    }
                    if is_separator(&tokens, j + 1) {
                        let line = ident.span().start().line;
                        match (base.first(), tokens.get(j + 3)) {
                            (Some(top), _) => {
                                found.insert((top.clone(), line));
                            }
                            (None, Some(TokenTree::Ident(next))) => {
                                found.insert((next.to_string(), line));
                            }
                            (None, Some(TokenTree::Group(group))) => {
                                for first in segment_heads(group.stream()) {
                                    found.insert((first, line));
                                }
                            }
                            (None, _) => {}
                        }
                        i = j + 3;
                        continue;
                    }
                }
            }
            TokenTree::Group(group) => walk(group.stream(), module, found),
            _ => {}
        }
        i += 1;
    }
}

/// Whether `tokens[at]` and `tokens[at + 1]` are the two colons of `::`.
fn is_separator(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at), tokens.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// Whether the token at `at` is preceded by `::` (then it does not start a path).
fn follows_path_separator(tokens: &[TokenTree], at: usize) -> bool {
    at >= 2 && is_separator(tokens, at - 2)
}

/// The first name of each comma-separated path of a `{ … }` use group (`self` left out).
fn segment_heads(group: TokenStream) -> Vec<String> {
    let mut heads = Vec::new();
    let mut at_start = true;
    for token in group {
        match token {
            TokenTree::Punct(punct) if punct.as_char() == ',' => at_start = true,
            TokenTree::Ident(ident) if at_start => {
                if ident != "self" {
                    heads.push(ident.to_string());
                }
                at_start = false;
            }
            _ => at_start = false,
        }
    }
    heads
}

/// The names `reached` finds in `source`, for the scanner's own tests.
fn names(source: &str, module: &str) -> Vec<String> {
    let module: Vec<String> = module
        .split("::")
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    reached(source, &module)
        .into_iter()
        .map(|(name, _)| name)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn the_scanner_resolves_crate_paths_use_groups_and_inline_paths() {
    let source = "
        use crate::{report, execute::Status, self};
        use crate::results::Counts;
        fn f() -> u64 { crate::snapshot::figure() + skillgym::x::y() }
        type T = crate::agent::Agent;
    ";
    assert_eq!(
        names(source, "results::counts"),
        ["agent", "execute", "report", "results", "snapshot"]
    );
}

#[test]
fn the_scanner_resolves_super_and_self_against_the_file_and_inline_modules() {
    let source = "
        use super::Status;
        use self::inner::X;
        mod tests { use super::super::super::execute::run; }
    ";
    // In `results/status.rs`: `super` is `results`, `self` too; the test module's three
    // `super`s climb to the crate root, whence `execute`.
    assert_eq!(names(source, "results::status"), ["execute", "results"]);
    // In `results/mod.rs`, `super` is already the crate root.
    assert_eq!(names("use super::report::X;", "results"), ["report"]);
}

#[test]
fn the_scanner_ignores_comments_strings_and_paths_inside_other_paths() {
    let source = r#"
        //! See crate::execute for how they are made.
        /// [`crate::report::Reporter`] reads it.
        fn f() -> &'static str { /* crate::harness::x */ "crate::agent::Agent" }
        use skillgym::crate_like::super_thing;
        use serde::Serialize;
    "#;
    assert!(names(source, "results").is_empty());
}

#[test]
fn module_paths_follow_the_file_layout() {
    assert_eq!(module_of("results/mod.rs"), ["results"]);
    assert_eq!(module_of("results/status.rs"), ["results", "status"]);
    assert_eq!(module_of("lib.rs"), Vec::<String>::new());
    assert_eq!(module_of("summary.rs"), ["summary"]);
}

/// Every top-level module of the crate with the top-level modules its files reach (itself left
/// out), and for each edge the first `file:line` naming it.
fn module_graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let src = match std::env::var_os("OLD") {
        Some(d) => PathBuf::from(d).join("skillgym-harness/src"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    };
    let mut graph = BTreeMap::<String, BTreeMap<String, String>>::new();
    for file in rust_files(&src) {
        let rel = relative(&file, &src);
        let module = module_of(&rel);
        let Some(top) = module.first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(top.clone()).or_default();
        for (target, line) in reached(&text, &module) {
            if target != top {
                edges
                    .entry(target)
                    .or_insert_with(|| format!("src/{rel}:{line}"));
            }
        }
    }
    graph
}

#[test]
fn print_graph() {
    let g = module_graph();
    for (m, e) in &g {
        println!("{m}: {:?}", e.keys().collect::<Vec<_>>());
    }
    for f in long_functions() {
        println!("{f}");
    }
}

/// Every non-test function of the workspace's crates longer than [`LONG`] lines, as
/// `path:line: name (N lines)`.
fn long_functions() -> Vec<String> {
    let root = match std::env::var_os("OLD") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf(),
    };
    let root = root.as_path();
    let mut found = Vec::new();
    for krate in [
        "skillgym-grammar",
        "skillgym-macros",
        "skillgym",
        "skillgym-harness",
        "cargo-skillgym",
    ] {
        for file in rust_files(&root.join(krate).join("src")) {
            let rel = relative(&file, root);
            if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let tokens = TokenStream::from_str(&text).expect("the source tokenizes");
            let mut functions = Vec::new();
            functions_in(tokens, &mut functions);
            for (name, start, end) in functions {
                let lines = end - start + 1;
                if lines > LONG {
                    found.push(format!("{rel}:{start}: {name} ({lines} lines)"));
                }
            }
        }
    }
    found
}

/// Functions longer than this many lines (from `fn` to its closing brace) need a reason.
const LONG: usize = 80;

/// The non-test functions of a token stream (nested ones too): name, first and last line.
fn functions_in(tokens: TokenStream, found: &mut Vec<(String, usize, usize)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut test_only = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(attr)) = tokens.get(i + 1)
                    && attr.delimiter() == Delimiter::Bracket
                {
                    let text = attr.stream().to_string().replace(' ', "");
                    if text == "test" || text.starts_with("cfg(test") || text.ends_with("::test") {
                        test_only = true;
                    }
                    i += 2;
                    continue;
                }
            }
            TokenTree::Punct(p) if p.as_char() == ';' => test_only = false,
            TokenTree::Ident(ident) if ident == "fn" => {
                if let Some(TokenTree::Ident(name)) = tokens.get(i + 1) {
                    let start = ident.span().start().line;
                    let mut j = i + 2;
                    while j < tokens.len() {
                        match &tokens[j] {
                            TokenTree::Punct(p) if p.as_char() == ';' => break,
                            TokenTree::Group(body) if body.delimiter() == Delimiter::Brace => {
                                if !test_only {
                                    found.push((name.to_string(), start, body.span().end().line));
                                    functions_in(body.stream(), found);
                                }
                                break;
                            }
                            _ => j += 1,
                        }
                    }
                    test_only = false;
                    i = j + 1;
                    continue;
                }
            }
            TokenTree::Group(group) => {
                if !test_only {
                    functions_in(group.stream(), found);
                }
                test_only = false;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        state.on_stack.insert(node);
        let graph = state.graph;
        for next in graph.get(node).into_iter().flat_map(|edges| edges.keys()) {
            let next = next.as_str();
            if !graph.contains_key(next) {
                continue;
            }
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[test]
fn print_cycles() {
    let g = module_graph();
    for c in cycles(&g) {
        let inside: Vec<String> = c
            .iter()
            .flat_map(|m| {
                g[m].iter()
                    .filter(|(t, _)| c.contains(t))
                    .map(move |(t, at)| format!("{m}->{t} ({at})"))
            })
            .collect();
        println!("{} modules, {} edges: {c:?}", c.len(), inside.len());
        for e in inside {
            println!("   {e}");
        }
    }
}
