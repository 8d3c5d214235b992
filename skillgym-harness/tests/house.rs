//! The house rules of the harness, read from the workspace's sources so that they stay true.
//!
//! Layering: every path a file names through `crate::`, `super::` or `self::` (in `use` lines
//! and in code, test modules included) is resolved to the top-level module it reaches.
//!
//! | rule | why |
//! |---|---|
//! | `src/results/` reaches only `results`, `artifacts` (the [`sanitize`] re-export, JSON writing) and the leaves `figures` and `stats` | the result data model is the bottom floor: the engine fills it in, reporters read it |
//! | `src/report/` does not reach `execute` | reporters read results, not the engine that made them |
//! | `src/config/` reaches none of `cli`, `suite`, `settings`, `harness` | `config/` is the file's schema and its validation; the harness resolves settings |
//! | `src/workspace/` and `src/skills/` reach neither `harness` (the run context) nor `execute` (the engine) | they take the narrow arguments they use |
//! | the top-level modules form no cycle | arrows one way, so a module can be read (and moved) with what is below it |
//!
//! Size: no non-test function of the workspace's crates is longer than [`LONG`] lines (from
//! `fn` to its closing brace) unless a comment right above it says why it `stays whole:`, and
//! at most [`MAX_WHOLE`] do.
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
const RESULTS_MAY_REACH: &[&str] = &["results", "artifacts", "figures", "stats"];

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
    let found = reached_under("report", |module| module == "execute");
    assert!(
        found.is_empty(),
        "src/report/ may not reach the engine (execute); it does:\n{}",
        found.join("\n")
    );
}

/// What `src/config/` may not reach.
const CONFIG_MAY_NOT_REACH: &[&str] = &["cli", "suite", "settings", "harness"];

#[test]
fn config_is_the_file_schema_only() {
    let found = reached_under("config", |module| CONFIG_MAY_NOT_REACH.contains(&module));
    assert!(
        found.is_empty(),
        "src/config/ is the file's schema and validation and may not reach {CONFIG_MAY_NOT_REACH:?}; it does:\n{}",
        found.join("\n")
    );
}

#[test]
fn workspaces_and_skills_take_no_run_context() {
    for dir in ["workspace", "skills"] {
        let found = reached_under(dir, |module| matches!(module, "harness" | "execute"));
        assert!(
            found.is_empty(),
            "src/{dir}/ takes the narrow arguments it uses, not the run context (harness) or the engine (execute); it reaches:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let graph = module_graph();
    assert!(graph.len() > 30, "the graph has every top-level module");
    let tangles: Vec<String> = cycles(&graph)
        .into_iter()
        .map(|component| {
            let edges: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| component.contains(to))
                        .map(move |(to, at)| format!("  {from} -> {to} ({at})"))
                })
                .collect();
            format!("{component:?}:\n{}", edges.join("\n"))
        })
        .collect();
    assert!(
        tangles.is_empty(),
        "top-level modules that reach each other:\n{}",
        tangles.join("\n")
    );
}

#[test]
fn cycles_are_found_and_a_layered_graph_has_none() {
    let graph = |edges: &[(&str, &str)]| {
        let mut graph = BTreeMap::<String, BTreeMap<String, String>>::new();
        for (from, to) in edges {
            graph.entry((*to).to_owned()).or_default();
            graph
                .entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned(), String::new());
        }
        graph
    };
    let layered = graph(&[
        ("harness", "execute"),
        ("execute", "results"),
        ("harness", "results"),
    ]);
    assert!(cycles(&layered).is_empty());
    let tangled = graph(&[
        ("harness", "execute"),
        ("execute", "report"),
        ("report", "explain"),
        ("explain", "execute"),
        ("a", "b"),
        ("b", "a"),
    ]);
    let mut found = cycles(&tangled);
    found.sort();
    assert_eq!(
        found,
        [vec!["a", "b"], vec!["execute", "explain", "report"]]
    );
}

/// The most functions that may stay longer than [`LONG`] lines, each with its reason.
const MAX_WHOLE: usize = 5;

#[test]
fn no_long_function_without_a_reason() {
    let (unexplained, whole) = long_functions();
    assert!(
        unexplained.is_empty(),
        "functions over {LONG} lines; split them, or say right above one why it `stays whole:`\n{}",
        unexplained.join("\n")
    );
    assert!(
        whole.len() <= MAX_WHOLE,
        "at most {MAX_WHOLE} functions may stay whole; these do:\n{}",
        whole.join("\n")
    );
}

#[test]
fn the_length_check_skips_tests_and_reads_the_reason_above_a_function() {
    let source = "
/// Short.
fn short() {
    let x = 1;
}

#[cfg(test)]
mod tests {
    fn helper() {
LINES    }
}

// stays whole: one flat match.
#[inline]
fn kept() {
LINES}

fn long() {
    fn inner() {}
LINES}
"
    .replace("LINES", &"    let _ = 0;\n".repeat(LONG));
    let line_of = |start: &str| {
        1 + source
            .lines()
            .position(|line| line.starts_with(start))
            .unwrap()
    };
    let (unexplained, whole) = long_in("x.rs", &source);
    assert_eq!(
        unexplained,
        [format!(
            "x.rs:{}: long ({} lines)",
            line_of("fn long()"),
            LONG + 3
        )]
    );
    assert_eq!(
        whole,
        [format!(
            "x.rs:{}: kept ({} lines)",
            line_of("fn kept()"),
            LONG + 2
        )]
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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

/// The workspace's crates whose functions are measured.
const CRATES: &[&str] = &[
    "skillgym-grammar",
    "skillgym-macros",
    "skillgym",
    "skillgym-harness",
    "cargo-skillgym",
];

/// Functions longer than this many lines (from `fn` to its closing brace) need a reason.
const LONG: usize = 80;

/// The non-test functions of the workspace's crates longer than [`LONG`] lines, as
/// `path:line: name (N lines)`: those without a reason, and those that say why they stay whole.
fn long_functions() -> (Vec<String>, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let (mut unexplained, mut whole) = (Vec::new(), Vec::new());
    for krate in CRATES {
        for file in rust_files(&root.join(krate).join("src")) {
            let rel = relative(&file, root);
            if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
                continue;
            }
            let (u, w) = long_in(&rel, &std::fs::read_to_string(&file).unwrap());
            unexplained.extend(u);
            whole.extend(w);
        }
    }
    (unexplained, whole)
}

/// [`long_functions`] of one file's source.
fn long_in(name: &str, source: &str) -> (Vec<String>, Vec<String>) {
    let tokens = TokenStream::from_str(source).expect("the source tokenizes");
    let mut functions = Vec::new();
    functions_in(tokens, &mut functions);
    let lines: Vec<&str> = source.lines().collect();
    let (mut unexplained, mut whole) = (Vec::new(), Vec::new());
    for (function, start, end) in functions {
        let length = end - start + 1;
        if length <= LONG {
            continue;
        }
        let entry = format!("{name}:{start}: {function} ({length} lines)");
        // The comments and attributes right above the `fn` line.
        let reason = lines[..start - 1]
            .iter()
            .rev()
            .map(|line| line.trim())
            .take_while(|line| line.starts_with("//") || line.starts_with("#["))
            .any(|line| line.contains("stays whole:"));
        if reason {
            whole.push(entry);
        } else {
            unexplained.push(entry);
        }
    }
    (unexplained, whole)
}

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
