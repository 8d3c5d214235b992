//! `EVAL.yaml` → [`SuiteDef`]: the suite's fields, `tests:` resolution and discovery, each case.
//!
//! | `tests:` | Cases |
//! |---|---|
//! | a list | inline case mappings; a string entry (`file://` optional) is resolved like a bare `tests:` string |
//! | a directory (inside the suite's directory) | each immediate subdirectory with `case.yaml` (else `case.yml`), byte order of names; id = directory name unless `id:`; no case file → a [`Warning`]; a symlinked directory or `case.yaml` only if it resolves inside the suite's directory (else an error); a name that cannot name a trial is an error |
//! | a `.yaml`/`.yml` file | a list of case mappings |
//! | a `.jsonl` file | one case object a line |

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::fields::{Fields, Source};
use super::graders::{self, Dirs, command_of, duration};
use super::interpolate::{Env, interpolate};
use super::links::{Escape, escape, link_escape};
use super::model::*;
use super::node::{Node, Value, parse_document};
use super::paths::{resolve_dir, resolve_file};
use super::vars;
use crate::config::ConfigError;
use crate::grade::spec::{GraderCommand, GraderSpec};
use crate::trial_name;

/// Suite-level parts every case uses.
#[derive(Debug, Default)]
struct SuiteParts {
    tags: Vec<String>,
    metadata: serde_json::Value,
    input: Vec<Message>,
    input_files: Vec<PathBuf>,
    workspace: WorkspaceDef,
    targets: Vec<TargetDef>,
    threshold: Option<f64>,
    assertions: Vec<GraderSpec>,
    /// The suite's `min_pass_rate`: every case's gate unless it has its own.
    min_pass_rate: Option<f64>,
    /// The suite's `min_lift`: every case's gate unless it has its own.
    min_lift: Option<f64>,
    /// `execution.trials`: every case's samples and gate unless it has its own.
    trials: Option<Trials>,
}

/// `execution.trials` (pass@k): `count` samples, passing when one of them passes, none started
/// once an execution's sessions cost `cost_limit_usd`.
#[derive(Debug, Clone, Copy)]
struct Trials {
    count: u64,
    cost_limit_usd: Option<f64>,
}

/// A case mapping waiting to be converted: which file it is in and its directory.
#[derive(Debug)]
struct RawCase {
    source: usize,
    node: Node,
    dir: PathBuf,
    default_id: Option<String>,
}

/// Finds the suite file: `path` itself, or in a directory `EVAL.yaml`, `eval.yaml`, or its
/// only `*.eval.yaml`.
pub(crate) fn find_suite_file(path: &Path) -> Result<PathBuf, SuiteErrors> {
    let fail = |m: String| SuiteErrors::of_one(vec![ConfigError::new(Some(path), m)]);
    if !path.is_dir() {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(fail("no such suite file".to_owned()))
        };
    }
    for name in ["EVAL.yaml", "eval.yaml", "EVAL.yml", "eval.yml"] {
        if path.join(name).is_file() {
            return Ok(path.join(name));
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| fail(format!("cannot read the directory: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".eval.yaml") || n.ends_with(".eval.yml"))
        })
        .collect();
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(fail(
            "no EVAL.yaml or *.eval.yaml in this directory".to_owned(),
        )),
        _ => Err(fail(format!(
            "several *.eval.yaml files here ({}): name one",
            found
                .iter()
                .filter_map(|p| p.file_name()?.to_str().map(trial_name::escaped))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Loads the suite at `path` (a suite file or a directory holding one); `env` answers
/// `${{ NAME }}`. Returns every error of every file, not the first.
pub(crate) fn load_suite(path: &Path, env: Env<'_>) -> Result<Loaded, SuiteErrors> {
    load_suite_only(path, env, None)
}

/// [`load_suite`], reading of the discovered case directories only those in `only` (each
/// `<tests dir>/<name>`, as [`Reads`] and the suite index name them) when it is given: the
/// suite file, its inline cases and its cases files are read whole.
pub(crate) fn load_suite_only(
    path: &Path,
    env: Env<'_>,
    only: Option<&[PathBuf]>,
) -> Result<Loaded, SuiteErrors> {
    let file = find_suite_file(path)?;
    let file = std::path::absolute(&file).unwrap_or(file);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    if let Some(escape) = escape(&dir, &file) {
        return Err(SuiteErrors::of_one(vec![escape.error()]));
    }
    let mut sources: Vec<Source> = Vec::new();
    let mut warnings = Vec::new();
    let Some(root) = read(&file, env, &mut sources) else {
        return Err(collect(sources));
    };
    let suite_index = sources.len() - 1;
    let (suite, parts, raws) = {
        let source = &mut sources[suite_index];
        suite_fields(source, &root, &file, &dir, env)
    };
    let mut gather = Gather {
        env,
        sources: &mut sources,
        cases: Vec::new(),
        warnings: &mut warnings,
        only,
        dirs: Vec::new(),
    };
    if let Some(tests) = raws {
        gather.tests(&tests, suite_index, &dir);
    }
    let mut reads = Reads {
        dirs: gather.dirs,
        ..Reads::default()
    };
    let raws = (gather.cases, dir.as_path(), &parts, env);
    let mut suite = cases_of(suite, raws, &mut sources, &mut reads.discovered);
    for source in &mut sources {
        // Stable: errors at one position keep the order they were found in.
        source
            .errors
            .sort_by_key(|e| e.location().map(|(_, l, c)| (l, c)));
    }
    if sources.iter().any(|s| !s.errors.is_empty()) {
        return Err(collect(sources));
    }
    suite.tags = parts.tags;
    suite.metadata = parts.metadata;
    suite.input = parts.input;
    suite.input_files = parts.input_files;
    suite.workspace = parts.workspace;
    suite.targets = parts.targets;
    suite.threshold = parts.threshold;
    suite.assertions = parts.assertions;
    warnings.extend(ignored_keys(&mut sources));
    for source in &mut sources {
        reads.files.push(std::mem::take(&mut source.path));
        reads.files.append(&mut source.also_read);
    }
    Ok(Loaded {
        suite,
        warnings,
        reads,
    })
}

/// `suite` with the cases of `raws` (each case mapping, the suite's directory and parts),
/// their errors in `sources`; the ids of the discovered ones go to `discovered`.
fn cases_of(
    mut suite: SuiteDef,
    (raws, dir, parts, env): (Vec<RawCase>, &Path, &SuiteParts, Env<'_>),
    sources: &mut [Source],
    discovered: &mut Vec<String>,
) -> SuiteDef {
    let mut seen: HashSet<String> = HashSet::with_capacity(raws.len());
    for raw in raws {
        let source = &mut sources[raw.source];
        let Some(case) = case_of(source, &raw, dir, parts, env) else {
            continue;
        };
        if seen.contains(&case.id) {
            let id_node = raw_id_node(&raw.node).unwrap_or(&raw.node);
            source.error(id_node, format!("duplicate case id `{}`", case.id));
            continue;
        }
        seen.insert(case.id.clone());
        if raw.default_id.is_some() {
            discovered.push(case.id.clone());
        }
        suite.cases.push(case);
    }
    suite
}

fn raw_id_node(node: &Node) -> Option<&Node> {
    let Value::Map(entries) = &node.value else {
        return None;
    };
    entries
        .iter()
        .find(|(k, _)| k.as_str() == Some("id"))
        .map(|(_, v)| v)
}

/// The ignored-key warnings of every file, the first of each message only (a key ignored in
/// every case of a suite is named once, at its first place).
fn ignored_keys(sources: &mut [Source]) -> Vec<Warning> {
    let mut out: Vec<Warning> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for warning in sources.iter_mut().flat_map(|s| s.warnings.drain(..)) {
        let what = match warning.message.split_once(": ") {
            Some((_, what)) => what.to_owned(),
            None => warning.message.clone(),
        };
        if !said.contains(&what) {
            said.push(what);
            out.push(warning);
        }
    }
    out
}

fn collect(sources: Vec<Source>) -> SuiteErrors {
    SuiteErrors::of_one(sources.into_iter().flat_map(|s| s.errors).collect())
}

/// Reads and parses one YAML file into `sources` (its errors go there too).
fn read(path: &Path, env: Env<'_>, sources: &mut Vec<Source>) -> Option<Node> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let mut s = Source::new(path, String::new());
            s.errors.push(ConfigError::new(
                Some(path),
                format!("cannot read the file: {e}"),
            ));
            sources.push(s);
            return None;
        }
    };
    let parsed = parse_document(path, &text, 0);
    let mut source = Source::new(path, text);
    let node = match parsed {
        Ok(mut n) => {
            interpolate(&mut n, env);
            Some(n)
        }
        Err(e) => {
            source.errors.push(e);
            None
        }
    };
    sources.push(source);
    node
}

/// The suite file's own fields: the [`SuiteDef`] without cases, the parts every case uses, and
/// its `tests:` node (`None` when missing).
fn suite_fields(
    source: &mut Source,
    root: &Node,
    file: &Path,
    dir: &Path,
    env: Env<'_>,
) -> (SuiteDef, SuiteParts, Option<Node>) {
    let mut suite = empty_suite(file, dir);
    let mut parts = SuiteParts {
        metadata: suite.metadata.clone(),
        ..SuiteParts::default()
    };
    let Some(mut f) = Fields::of(source, root, "a suite") else {
        return (suite, parts, None);
    };
    let dirs = Dirs {
        case: dir,
        suite: dir,
    };
    annotations(source, &mut f);
    let name_node = f.take_some(source, "name", &[]);
    suite_name(source, name_node, &mut suite.name, file);
    suite.description = f
        .take_some(source, "description", &[])
        .and_then(|n| source.string("description", n));
    parts.tags = f
        .take_some(source, "tags", &[])
        .and_then(|n| source.strings("tags", n))
        .unwrap_or_default();
    parts.metadata = suite_metadata(source, &mut f);
    if let Some(n) = f.take_some(source, "input", &[]) {
        parts.input = messages(source, "input", n, Role::User).unwrap_or_default();
    }
    if let Some(n) = f.take_some(source, "input_files", &[]) {
        parts.input_files = files(source, n, dirs);
    }
    let tests = f
        .take_some(source, "tests", &["eval_cases", "evalcases"])
        .cloned();
    if tests.is_none() {
        f.missing(source, "tests");
    }
    let legacy_target = f
        .take_some(source, "target", &[])
        .and_then(|n| source.string("target", n));
    let execution_assertions = f
        .take_some(source, "execution", &[])
        .and_then(|n| suite_execution(source, n, dir, &mut suite, &mut parts));
    suite.target = suite.target.or(legacy_target);
    if let Some(n) = f.take_some(source, "threshold", &[]) {
        parts.threshold = source.fraction("threshold", n);
    }
    parts.min_pass_rate = f
        .take_some(source, "min_pass_rate", &[])
        .and_then(|n| source.fraction("min_pass_rate", n));
    parts.min_lift = f
        .take_some(source, "min_lift", &[])
        .and_then(|n| lift_gate(source, n));
    if let Some(n) = f.take_some(source, "providers", &[]) {
        parts.targets = targets(source, n, dir);
    }
    let assertions = f
        .take_some(source, "assertions", &["assert"])
        .or(execution_assertions);
    if let Some(n) = assertions {
        parts.assertions = graders::parse_list(source, "assertions", n, dirs);
    }
    if let Some(n) = f.take_some(source, "workspace", &[]) {
        parts.workspace = workspace(source, n, dirs, WorkspaceDef::default(), (true, env));
    }
    f.finish(source);
    (suite, parts, tests)
}

/// The suite's keys that describe it and change nothing: `$schema`, `version`, `author`,
/// `license`, `category` (strings), `requires`, and `defaults` (warned about: agentv ignores it).
fn annotations(source: &mut Source, f: &mut Fields<'_>) {
    f.take(source, "$schema");
    for key in ["version", "author", "license", "category"] {
        if let Some(n) = f.take_some(source, key, &[]) {
            source.string(key, n);
        }
    }
    f.take(source, "requires");
    if let Some(n) = f.take(source, "preprocessors") {
        let message = "`preprocessors` (converting an answer's files to text for the judge) are not supported by skillgym";
        source.error(n, message);
    }
    f.ignore(
        source,
        "defaults",
        "a place for YAML anchors; agentv reads nothing from it",
    );
}

/// The suite at `file` before its fields are read: named after its file, nothing else set.
fn empty_suite(file: &Path, dir: &Path) -> SuiteDef {
    SuiteDef {
        name: default_suite_name(file, dir).to_owned(),
        file: file.to_path_buf(),
        dir: dir.to_path_buf(),
        description: None,
        tags: Vec::new(),
        metadata: serde_json::Value::Object(Default::default()),
        input: Vec::new(),
        input_files: Vec::new(),
        workspace: WorkspaceDef::default(),
        targets: Vec::new(),
        target: None,
        threshold: None,
        workers: None,
        cost_limit_usd: None,
        assertions: Vec::new(),
        cases: Vec::new(),
    }
}

/// The suite's name when it has no `name:`: `EVAL.yaml` takes its directory's name;
/// `x.eval.yaml` and `x.yaml` are `x`.
fn default_suite_name<'a>(file: &'a Path, dir: &'a Path) -> &'a str {
    let file_name = file.file_name().and_then(|n| n.to_str()).unwrap_or("suite");
    let file_name = if matches!(
        file_name.to_ascii_lowercase().as_str(),
        "eval.yaml" | "eval.yml"
    ) {
        dir.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(file_name)
    } else {
        file_name
    };
    file_name
        .strip_suffix(".eval.yaml")
        .or_else(|| file_name.strip_suffix(".eval.yml"))
        .or_else(|| file_name.strip_suffix(".yaml"))
        .or_else(|| file_name.strip_suffix(".yml"))
        .unwrap_or(file_name)
}

/// Checks the suite's `name:` (1 to 64 of a-z, 0-9, `-`) and sets `name` to it; without one,
/// checks that the default `name` (from `file`) can name a trial.
fn suite_name(source: &mut Source, node: Option<&Node>, name: &mut String, file: &Path) {
    let Some(n) = node else {
        if let Some(c) = trial_name::bad_char(name) {
            // Named after its file or directory, whose name cannot name a trial.
            source.errors.push(
                ConfigError::new(
                    None,
                    trial_name::problem("suite file", &file.to_string_lossy(), c),
                )
                .with_help("give the suite a `name:` of a-z, 0-9 and `-`, or rename it"),
            );
        }
        return;
    };
    let Some(written) = source.non_empty("name", n) else {
        return;
    };
    if written.len() > 64
        || !written
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        source.error(
            n,
            format!(
                "`name` must be 1 to 64 characters of a-z, 0-9 and `-`, found `{}`",
                trial_name::escaped(&written)
            ),
        );
    } else {
        *name = written;
    }
}

/// The suite's `metadata:` mapping, with its `governance:` added under that key.
fn suite_metadata(source: &mut Source, f: &mut Fields<'_>) -> serde_json::Value {
    let mut metadata = serde_json::Map::new();
    if let Some(n) = f.take_some(source, "metadata", &[])
        && source.mapping("metadata", n).is_some()
        && let serde_json::Value::Object(m) = n.to_json()
    {
        metadata = m;
    }
    if let Some(n) = f.take_some(source, "governance", &[]) {
        metadata.insert("governance".to_owned(), n.to_json());
    }
    serde_json::Value::Object(metadata)
}

/// The suite's `execution:` mapping: its `target`, `targets` and `threshold` go into `suite` and
/// `parts`; returns its `assertions` (alias `evaluators`), used when the suite has none of its
/// own. `workers` and `trials` are refused with what to use instead.
fn suite_execution<'n>(
    source: &mut Source,
    n: &'n Node,
    dir: &Path,
    suite: &mut SuiteDef,
    parts: &mut SuiteParts,
) -> Option<&'n Node> {
    let mut e = Fields::of(source, n, "`execution`")?;
    suite.target = e
        .take_some(source, "target", &[])
        .and_then(|n| source.string("target", n));
    if let Some(n) = e.take_some(source, "targets", &[]) {
        parts.targets = targets(source, n, dir);
    }
    suite.workers = e
        .take_some(source, "workers", &[])
        .and_then(|n| source.integer("workers", n, 1))
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    parts.threshold = e
        .take_some(source, "threshold", &[])
        .and_then(|n| source.fraction("threshold", n));
    let assertions = e.take_some(source, "assertions", &["evaluators"]);
    if let Some(n) = e.take_some(source, "trials", &[]) {
        parts.trials = trials(source, n);
        suite.cost_limit_usd = parts.trials.and_then(|trials| trials.cost_limit_usd);
    }
    e.finish(source);
    assertions
}

/// `execution.trials`: `count` (at least 1), `strategy` (`pass_at_k`, the default; agentv's
/// `mean` and `confidence_interval` score mean scores, which skillgym does not gate on) and
/// `cost_limit_usd`.
fn trials(source: &mut Source, n: &Node) -> Option<Trials> {
    let mut f = Fields::of(source, n, "`execution.trials`")?;
    let count = f.take_some(source, "count", &[]);
    let strategy = f.take_some(source, "strategy", &[]);
    let cost_limit = f
        .take_some(source, "cost_limit_usd", &["costLimitUsd"])
        .and_then(|n| source.non_negative("cost_limit_usd", n));
    f.finish(source);
    if let Some(n) = strategy {
        match source.string("strategy", n)?.as_str() {
            "pass_at_k" => {}
            written @ ("mean" | "confidence_interval") => {
                source.error_help(
                    n,
                    format!(
                        "`strategy: {written}` is not supported: it scores the mean of the trials' \
                         scores, and skillgym gates the pass rate of samples"
                    ),
                    "write `strategy: pass_at_k`, or give the cases `samples:` and `min_pass_rate:`",
                );
                return None;
            }
            other => {
                source.error(
                    n,
                    format!("`strategy` must be `pass_at_k`, `mean` or `confidence_interval`, found `{other}`"),
                );
                return None;
            }
        }
    }
    let Some(count) = count else {
        source.error(n, "`execution.trials` is missing `count`");
        return None;
    };
    let count = source.integer("count", count, 1)?;
    Some(Trials {
        count,
        cost_limit_usd: cost_limit,
    })
}

fn targets(source: &mut Source, n: &Node, dir: &Path) -> Vec<TargetDef> {
    let Value::Seq(items) = &n.value else {
        source.error(n, format!("`targets` must be a list, found {}", n.kind()));
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        if let Some(name) = item.as_str() {
            out.push(TargetDef {
                name: name.to_owned(),
                ..TargetDef::default()
            });
            continue;
        }
        let Some(mut f) = Fields::of(source, item, "a target") else {
            continue;
        };
        let name = f
            .take_some(source, "name", &[])
            .and_then(|n| source.non_empty("name", n));
        let use_target = f
            .take_some(source, "use_target", &[])
            .and_then(|n| source.non_empty("use_target", n));
        let hooks = f
            .take_some(source, "hooks", &[])
            .map(|n| {
                hooks(
                    source,
                    n,
                    Dirs {
                        case: dir,
                        suite: dir,
                    },
                    false,
                    true,
                )
            })
            .unwrap_or_default();
        if name.is_none() && f.take_some(source, "name", &[]).is_none() {
            f.missing(source, "name");
        }
        f.finish(source);
        if let Some(name) = name {
            out.push(TargetDef {
                name,
                use_target,
                hooks,
            });
        }
    }
    out
}

/// `hooks:` of a suite's workspace or target (`suite_level`), or of a case's workspace, where
/// `before_all` and `after_all` have no place.
fn hooks(source: &mut Source, n: &Node, dirs: Dirs<'_>, split: bool, suite_level: bool) -> Hooks {
    let mut out = Hooks::default();
    let Some(mut f) = Fields::of(source, n, "`hooks`") else {
        return out;
    };
    if let Some(n) = f.take_some(source, "enabled", &[]) {
        out.enabled = source.bool("enabled", n).unwrap_or(true);
    }
    for (name, slot) in [
        ("before_all", &mut out.before_all),
        ("before_each", &mut out.before_each),
        ("after_each", &mut out.after_each),
        ("after_all", &mut out.after_all),
    ] {
        let Some(n) = f.take_some(source, name, &[]) else {
            continue;
        };
        if !suite_level && name.ends_with("_all") {
            source.error_help(
                n,
                format!("`{name}` runs once for the whole suite: a case cannot have one"),
                "move it to the suite's `workspace.hooks`",
            );
            continue;
        }
        *slot = hook(source, n, dirs, split);
        if name.ends_with("_all") {
            refuse_workspace_path(source, n, name);
        }
    }
    f.finish(source);
    out
}

/// The first string value under `n` that contains `needle`.
fn string_containing<'n>(n: &'n Node, needle: &str) -> Option<&'n Node> {
    match &n.value {
        Value::Str(s) if s.contains(needle) => Some(n),
        Value::Seq(items) => items.iter().find_map(|i| string_containing(i, needle)),
        Value::Map(entries) => entries
            .iter()
            .find_map(|(_, v)| string_containing(v, needle)),
        _ => None,
    }
}

/// `{{workspace_path}}` in a `before_all` / `after_all` hook (`n`) is an error: those run once
/// for the suite, and every attempt has a workspace of its own, made after `before_all`.
fn refuse_workspace_path(source: &mut Source, n: &Node, name: &str) {
    if let Some(at) = string_containing(n, "{{workspace_path}}") {
        source.error_help(
            at,
            format!(
                "`{{{{workspace_path}}}}` has no value in `{name}`: it runs once for the suite, and every attempt gets a workspace of its own, copied from the template after `before_all`"
            ),
            "prepare each attempt's workspace in `before_each`, which gets its path",
        );
    }
}

fn hook(source: &mut Source, n: &Node, dirs: Dirs<'_>, split: bool) -> Option<HookDef> {
    let mut f = Fields::of(source, n, "a hook")?;
    let command = f.take_some(source, "command", &["script"]);
    let timeout = f
        .take_some(source, "timeout_ms", &["timeoutMs"])
        .and_then(|n| source.integer("timeout_ms", n, 1));
    let cwd = f.take_some(source, "cwd", &[]).and_then(|n| {
        source
            .non_empty("cwd", n)
            .and_then(|s| resolve_dir(source, n, &s, dirs))
    });
    // agentv's `reset` puts a shared workspace back between cases; every attempt here starts
    // from a fresh copy of the template, which is what `fast` and `strict` ask for.
    let reset = f.take_some(source, "reset", &[]);
    if let Some(n) = reset
        && !matches!(n.as_str(), Some("none" | "fast" | "strict"))
    {
        source.error(n, "`reset` must be `none`, `fast` or `strict`");
    }
    let command = match command {
        Some(c) => command_of(source, "command", c),
        // A hook that only resets runs nothing.
        None if reset.is_some() => {
            f.finish(source);
            return None;
        }
        None => {
            f.missing(source, "command");
            None
        }
    };
    f.finish(source);
    let command = match command? {
        GraderCommand::Shell(s) if split => {
            GraderCommand::Argv(s.split_whitespace().map(str::to_owned).collect())
        }
        c => c,
    };
    Some(HookDef {
        command,
        timeout: timeout.map(std::time::Duration::from_millis),
        cwd,
    })
}

/// `workspace:`: a template directory path, a workspace file (`*.yaml`), or a mapping; merged
/// over `base` field by field. `suite_level` says whether `before_all`/`after_all` may be set.
fn workspace(
    source: &mut Source,
    n: &Node,
    dirs: Dirs<'_>,
    base: WorkspaceDef,
    (suite_level, env): (bool, Env<'_>),
) -> WorkspaceDef {
    let mut out = base;
    if let Some(s) = n.as_str() {
        if s.ends_with(".yaml") || s.ends_with(".yml") {
            return workspace_file(source, n, s, dirs, out, (suite_level, env));
        }
        out.template = resolve_dir(source, n, s, dirs).or(out.template);
        return out;
    }
    let Some(mut f) = Fields::of(source, n, "`workspace`") else {
        return out;
    };
    if let Some(t) = f.take_some(source, "template", &[]) {
        out.template = source
            .non_empty("template", t)
            .and_then(|s| resolve_dir(source, t, &s, dirs));
    }
    if let Some(i) = f.take_some(source, "isolation", &[]) {
        match i.as_str() {
            Some("per_test" | "per-test" | "per_case") => {}
            Some("shared") => source.error_help(
                i,
                "`isolation: shared` is not supported: skillgym gives every attempt its own copy \
                 of the template, so attempts never see each other's changes",
                "remove `isolation`, or write `isolation: per_test`",
            ),
            _ => source.error(
                i,
                "`isolation` must be `per_test` (`shared` is not supported)",
            ),
        }
    }
    if let Some(h) = f.take_some(source, "hooks", &[]) {
        let new = hooks(source, h, dirs, true, suite_level);
        merge_hooks(&mut out.hooks, new, None);
    }
    if let Some(n) = f.take_some(source, "repos", &[]) {
        out.repos = repos(source, n, dirs);
    }
    if let Some(n) = f.take_some(source, "mode", &[]) {
        workspace_mode(source, n);
    }
    for key in ["path", "docker", "env"] {
        if let Some(n) = f.take_some(source, key, &[]) {
            source.error(n, format!("`workspace.{key}` is not supported by skillgym"));
        }
    }
    f.finish(source);
    out
}

/// `workspace.repos`: `[{path, repo, commit | base_commit, ancestor, sparse}]` (agentv
/// v4.42.4); `repo` a clone URL, GitHub's `org/name`, or a local path (`./`, `../`, `/`),
/// resolved like the case's other paths.
fn repos(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Vec<RepoSpec> {
    let Value::Seq(items) = &n.value else {
        source.error(n, format!("`repos` must be a list, found {}", n.kind()));
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| repo(source, item, dirs))
        .collect()
}

fn repo(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Option<RepoSpec> {
    let mut f = Fields::of(source, n, "a repository")?;
    let path = f.take_some(source, "path", &[]);
    let repo = f.take_some(source, "repo", &[]);
    let commit = f.take_some(source, "commit", &[]);
    let base_commit = f.take_some(source, "base_commit", &[]);
    let ancestor = f
        .take_some(source, "ancestor", &[])
        .and_then(|n| source.integer("ancestor", n, 0));
    let sparse = f
        .take_some(source, "sparse", &[])
        .and_then(|n| source.strings("sparse", n));
    for (key, instead) in [
        ("source", "`repo`"),
        ("checkout", "`commit`, `base_commit` and `ancestor`"),
        ("clone", "`sparse`"),
    ] {
        if let Some(n) = f.take(source, key) {
            source.error(
                n,
                format!("`repos[].{key}` was removed from agentv's format: use {instead}"),
            );
        }
    }
    let path = match path {
        Some(p) => source
            .non_empty("path", p)
            .filter(|written| inside(source, p, written)),
        None => {
            f.missing(source, "path");
            None
        }
    };
    let repo = match repo {
        Some(r) => source.non_empty("repo", r).and_then(|written| {
            let local = ["/", "./", "../"].iter().any(|p| written.starts_with(p));
            if !local {
                return Some(written);
            }
            resolve_dir(source, r, &written, dirs).map(|dir| dir.display().to_string())
        }),
        None => {
            f.missing(source, "repo");
            None
        }
    };
    let commit = commit.and_then(|n| source.non_empty("commit", n));
    let base_commit = base_commit.and_then(|n| source.non_empty("base_commit", n));
    if let (Some(a), Some(b)) = (&commit, &base_commit)
        && a != b
    {
        source.error(
            n,
            "`commit` and `base_commit` name one pin: when both are set they must match",
        );
    }
    f.finish(source);
    Some(RepoSpec {
        path: path?,
        repo: repo?,
        commit: commit.or(base_commit),
        ancestor: u32::try_from(ancestor.unwrap_or(0)).unwrap_or(u32::MAX),
        sparse: sparse.unwrap_or_default(),
    })
}

/// Whether `written` (a repository's `path`) stays inside the workspace: relative, no `..`.
fn inside(source: &mut Source, n: &Node, written: &str) -> bool {
    let path = Path::new(written);
    let ok = path.is_relative()
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    if !ok {
        source.error(
            n,
            format!("`path` must stay inside the workspace, found `{written}`"),
        );
    }
    ok
}

/// `new` over `into`, hook by hook (and `enabled`); a hook without a `cwd` of its own gets
/// `cwd`, when given.
fn merge_hooks(into: &mut Hooks, new: Hooks, cwd: Option<&Path>) {
    into.enabled = new.enabled;
    for (slot, hook) in [
        (&mut into.before_all, new.before_all),
        (&mut into.before_each, new.before_each),
        (&mut into.after_each, new.after_each),
        (&mut into.after_all, new.after_all),
    ] {
        if let Some(mut hook) = hook {
            if let Some(cwd) = cwd {
                hook.cwd.get_or_insert_with(|| cwd.to_path_buf());
            }
            *slot = Some(hook);
        }
    }
}

/// `workspace.mode`: agentv's `pooled` (its default) and `temp` both give each case a clean
/// checkout, as every attempt here gets its own copy (`repos` come from a cached mirror);
/// `static`, one existing directory for every case, is an error.
fn workspace_mode(source: &mut Source, n: &Node) {
    match n.as_str() {
        Some("pooled" | "temp") => {}
        Some("static") => source.error_help(
            n,
            "`workspace.mode: static` (one existing directory for every case) is not supported: \
             skillgym gives every attempt its own copy of the template",
            "remove `mode` (and `path`)",
        ),
        _ => source.error(n, "`workspace.mode` must be `pooled`, `temp` or `static`"),
    }
}

/// `workspace: ../workspace.yaml`: a workspace mapping kept in a file of its own (agentv's
/// external workspace file), read like the inline one with its paths, and its hooks' default
/// `cwd`, relative to that file's directory. Its errors name that file.
fn workspace_file(
    source: &mut Source,
    n: &Node,
    written: &str,
    dirs: Dirs<'_>,
    base: WorkspaceDef,
    (suite_level, env): (bool, Env<'_>),
) -> WorkspaceDef {
    let Some(path) = resolve_file(source, n, written, dirs) else {
        return base;
    };
    let path = std::path::absolute(&path).unwrap_or(path);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut read_into = Vec::new();
    let root = read(&path, env, &mut read_into);
    let mut file_source = read_into.pop().expect("read pushes the file's source");
    source.also_read.push(path.clone());
    let mut out = base;
    match root {
        Some(root) if matches!(root.value, Value::Map(_)) => {
            let file_dirs = Dirs {
                case: &dir,
                suite: &dir,
            };
            let own = workspace(
                &mut file_source,
                &root,
                file_dirs,
                WorkspaceDef::default(),
                (suite_level, env),
            );
            out.template = own.template.or(out.template);
            let enabled = out.hooks.enabled && own.hooks.enabled;
            merge_hooks(&mut out.hooks, own.hooks, Some(&dir));
            out.hooks.enabled = enabled;
        }
        Some(root) => file_source.error(
            &root,
            format!("a workspace file must be a mapping, found {}", root.kind()),
        ),
        None => {}
    }
    source.errors.append(&mut file_source.errors);
    source.warnings.append(&mut file_source.warnings);
    out
}

fn files(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Vec<PathBuf> {
    path_list(
        source,
        n,
        dirs,
        "input_files",
        "a list of strings",
        resolve_file,
    )
}

/// A list of paths under `key`, each resolved by `resolve` (`expected` says what the list
/// holds when it is not one).
fn path_list(
    source: &mut Source,
    n: &Node,
    dirs: Dirs<'_>,
    key: &str,
    expected: &str,
    resolve: fn(&mut Source, &Node, &str, Dirs<'_>) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let Value::Seq(items) = &n.value else {
        source.error(n, format!("`{key}` must be {expected}, found {}", n.kind()));
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| {
            source
                .non_empty(key, i)
                .and_then(|s| resolve(source, i, &s, dirs))
        })
        .collect()
}

/// `input` / `expected_output`: a string, a message, a list of messages, or another value.
pub(super) fn messages(
    source: &mut Source,
    key: &str,
    n: &Node,
    role: Role,
) -> Option<Vec<Message>> {
    match &n.value {
        Value::Str(s) => Some(vec![Message { role, content: Content::Text(s.clone()) }]),
        Value::Map(entries) if entries.iter().any(|(k, _)| k.as_str() == Some("role")) => {
            Some(vec![message(source, n)?])
        }
        Value::Seq(items)
            if items.first().is_some_and(|i| matches!(&i.value, Value::Map(e) if e.iter().any(|(k, _)| k.as_str() == Some("role")))) =>
        {
            let all: Vec<Option<Message>> = items.iter().map(|i| message(source, i)).collect();
            all.into_iter().collect()
        }
        Value::Map(_) | Value::Seq(_) if key != "input" || matches!(n.value, Value::Map(_)) => {
            Some(vec![Message { role, content: Content::Json(n.to_json()) }])
        }
        _ => {
            source.error(n, format!("`{key}` must be a string, a message or a list of messages, found {}", n.kind()));
            None
        }
    }
}

fn message(source: &mut Source, n: &Node) -> Option<Message> {
    let mut f = Fields::of(source, n, "a message")?;
    let role = f.take_some(source, "role", &[]);
    let content = f.take_some(source, "content", &[]);
    let tool_calls = f.take_some(source, "tool_calls", &[]);
    f.ignore(source, "name", "no grader reads a message's name");
    f.finish(source);
    let role = match role.and_then(|r| r.as_str()) {
        Some("system") => Role::System,
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("tool") => Role::Tool,
        _ => {
            source.error(
                role.unwrap_or(n),
                "`role` must be `system`, `user`, `assistant` or `tool`",
            );
            return None;
        }
    };
    let content = match (content, tool_calls) {
        (Some(c), _) => match &c.value {
            Value::Str(s) => Content::Text(s.clone()),
            _ => Content::Json(c.to_json()),
        },
        (None, Some(t)) => Content::Json(serde_json::json!({ "tool_calls": t.to_json() })),
        (None, None) => {
            source.error(n, "a message is missing `content`");
            return None;
        }
    };
    Some(Message { role, content })
}

/// Where the raw cases of a suite are gathered from `tests:`, with the files read on the way.
struct Gather<'a> {
    env: Env<'a>,
    sources: &'a mut Vec<Source>,
    cases: Vec<RawCase>,
    warnings: &'a mut Vec<Warning>,
    /// The discovered case directories to read (all when `None`).
    only: Option<&'a [PathBuf]>,
    /// The directories whose entries decided the cases ([`Reads::dirs`]).
    dirs: Vec<PathBuf>,
}

impl Gather<'_> {
    /// `tests:` of the file `sources[source_index]`: a path, or a list of cases and paths.
    fn tests(&mut self, tests: &Node, source_index: usize, dir: &Path) {
        match &tests.value {
            Value::Str(s) => self.tests_path(tests, s, source_index, dir),
            Value::Seq(items) => {
                for item in items {
                    match &item.value {
                        Value::Str(s) => self.tests_path(item, s, source_index, dir),
                        _ => self.cases.push(RawCase {
                            source: source_index,
                            node: item.clone(),
                            dir: dir.to_path_buf(),
                            default_id: None,
                        }),
                    }
                }
            }
            _ => self.sources[source_index].error(
                tests,
                format!(
                    "`tests` must be a list of cases or a path, found {}",
                    tests.kind()
                ),
            ),
        }
    }

    /// One path of `tests:`: a directory to discover, or a `.yaml`/`.yml`/`.jsonl` cases file.
    fn tests_path(&mut self, node: &Node, written: &str, source_index: usize, dir: &Path) {
        let written = written.strip_prefix("file://").unwrap_or(written);
        let path: PathBuf = dir
            .join(written)
            .components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect();
        if let Some(escape) = escape(dir, &path) {
            self.sources[source_index].error_help(node, escape.message(), Escape::HELP);
            return;
        }
        if path.is_dir() {
            if !lexically_inside(dir, &path) {
                self.sources[source_index].error_help(
                    node,
                    format!("`tests`: the directory `{written}` is outside the suite directory: its case directories are discovered only inside it"),
                    "move the cases under the suite's directory, or list a cases file (`.yaml`, `.jsonl`) instead",
                );
                return;
            }
            self.discover(&path, dir);
            return;
        }
        if !path.is_file() {
            self.sources[source_index].error(
                node,
                format!("`tests`: `{written}` is neither a directory nor a file"),
            );
            return;
        }
        let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext {
        "yaml" | "yml" => {
            let Some(root) = read(&path, self.env, self.sources) else { return };
            let index = self.sources.len() - 1;
            match root.value {
                Value::Seq(items) => self.cases.extend(items.into_iter().map(|node| RawCase {
                    source: index,
                    node,
                    dir: file_dir.clone(),
                    default_id: None,
                })),
                Value::Null => {}
                _ => self.sources[index].error(&root, format!("a cases file must be a list of cases, found {}", root.kind())),
            }
        }
        "jsonl" => {
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => {
                    self.sources[source_index].error(node, format!("cannot read `{written}`: {e}"));
                    return;
                }
            };
            let mut source = Source::new(&path, text.clone());
            let index = self.sources.len();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                match parse_document(&path, line, i as u32) {
                    Ok(mut n) => {
                        interpolate(&mut n, self.env);
                        self.cases.push(RawCase { source: index, node: n, dir: file_dir.clone(), default_id: None });
                    }
                    Err(e) => source.errors.push(
                        ConfigError::at(&path, &text, i as u32 + 1, 1, e.message().to_owned()),
                    ),
                }
            }
            self.sources.push(source);
        }
        _ => self.sources[source_index].error(node, format!("`tests`: unsupported cases file `{written}` (use .yaml, .yml or .jsonl, or a directory)")),
    }
    }

    /// Records `error` about `path`, a file or directory the suite does not read.
    fn refuse(&mut self, path: &Path, error: ConfigError) {
        let mut source = Source::new(path, String::new());
        source.errors.push(error);
        self.sources.push(source);
    }

    /// Directory discovery (agentv §2.2, with symlinks followed inside the suite root).
    fn discover(&mut self, cases_dir: &Path, suite_dir: &Path) {
        let dirs = match self.only {
            Some(only) => chosen_dirs(only, cases_dir),
            None => {
                self.dirs.push(cases_dir.to_path_buf());
                let Some(dirs) = self.case_dirs(cases_dir) else {
                    return;
                };
                dirs
            }
        };
        for (_, path, name, is_link) in dirs {
            if is_link && let Some(escape) = link_escape(suite_dir, &path) {
                self.refuse(&path, escape.error());
                continue;
            }
            let file = ["case.yaml", "case.yml"]
                .iter()
                .map(|f| path.join(f))
                .find(|f| f.is_file());
            // A case's directory names its trial; a directory holding no case only gets a
            // warning, which names it escaped.
            if file.is_some()
                && let Some(c) = trial_name::bad_char(&name)
            {
                let help = format!("rename it, e.g. to `{}`", trial_name::suggestion(&name));
                let problem = trial_name::problem("case directory", &path.to_string_lossy(), c);
                self.refuse(&path, ConfigError::new(None, problem).with_help(help));
                continue;
            }
            let Some(file) = file else {
                self.dirs.push(path.clone());
                self.warnings.push(Warning {
                    path: path.clone(),
                    message: format!("skipping directory `{name}`: no case.yaml found"),
                });
                continue;
            };
            if let Some(escape) = escape(suite_dir, &file) {
                self.refuse(&file, escape.error());
                continue;
            }
            let Some(node) = read(&file, self.env, self.sources) else {
                continue;
            };
            let index = self.sources.len() - 1;
            if !matches!(node.value, Value::Map(_)) {
                self.sources[index].error(
                    &node,
                    format!("a case.yaml must be a mapping, found {}", node.kind()),
                );
                continue;
            }
            self.cases.push(RawCase {
                source: index,
                node,
                dir: path,
                default_id: Some(name),
            });
        }
    }
}

impl Gather<'_> {
    /// The directories in `cases_dir` (symlinks to directories too), sorted by name.
    fn case_dirs(&mut self, cases_dir: &Path) -> Option<Vec<CaseDir>> {
        let Ok(entries) = std::fs::read_dir(cases_dir) else {
            self.warnings.push(Warning {
                path: cases_dir.to_path_buf(),
                message: "cannot read the cases directory".to_owned(),
            });
            return None;
        };
        let mut dirs: Vec<CaseDir> = Vec::new();
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if (kind.is_symlink() && path.is_dir()) || kind.is_dir() {
                let bytes = entry.file_name().as_encoded_bytes().to_vec();
                dirs.push((bytes, path, name, kind.is_symlink()));
            }
        }
        dirs.sort();
        Some(dirs)
    }
}

/// Whether `path` is `dir` or under it once its `..` are resolved (no symlink is followed).
fn lexically_inside(dir: &Path, path: &Path) -> bool {
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                resolved.pop();
            }
            std::path::Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(dir)
}

/// A directory in a `tests:` directory: its name's bytes (the sort key), path, name, and
/// whether it is a symlink.
type CaseDir = (Vec<u8>, PathBuf, String, bool);

/// The directories of `only` in `cases_dir`, sorted by name as discovery sorts them.
fn chosen_dirs(only: &[PathBuf], cases_dir: &Path) -> Vec<CaseDir> {
    let mut dirs: Vec<CaseDir> = only
        .iter()
        .filter(|dir| dir.parent() == Some(cases_dir))
        .filter_map(|dir| {
            let name = dir.file_name()?;
            let is_link = dir.symlink_metadata().is_ok_and(|m| m.is_symlink());
            let bytes = name.as_encoded_bytes().to_vec();
            Some((
                bytes,
                dir.clone(),
                name.to_string_lossy().into_owned(),
                is_link,
            ))
        })
        .collect();
    dirs.sort();
    dirs
}

/// agentv's implicit `llm-grader` for a case without graders (§3.1): one rubric grader
/// `criteria` judging the case's `criteria`, else agreement with its `expected_output`.
fn implicit_grader(criteria: Option<&str>, has_expected_output: bool) -> Option<GraderSpec> {
    let outcome = match criteria {
        Some(criteria) => criteria.to_owned(),
        None if has_expected_output => crate::grade::judge::REFERENCE_AGREEMENT.to_owned(),
        None => return None,
    };
    Some(GraderSpec {
        name: "criteria".to_owned(),
        weight: 1.0,
        required: false,
        min_score: None,
        negate: false,
        kind: crate::grade::spec::GraderKind::Rubrics {
            items: vec![crate::grade::spec::RubricItem::checklist(
                "criteria", outcome,
            )],
        },
    })
}

/// Merges suite metadata into a case's (agentv §1.2).
fn merge_metadata(suite: &serde_json::Value, case: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match (suite, case) {
        (J::Object(s), J::Object(mut c)) => {
            for (k, sv) in s {
                let merged = match c.remove(k) {
                    Some(cv) => merge_metadata(sv, cv),
                    None => sv.clone(),
                };
                c.insert(k.clone(), merged);
            }
            J::Object(c)
        }
        (J::Array(s), J::Array(c)) => {
            let mut out: Vec<J> = Vec::new();
            for v in s.iter().cloned().chain(c) {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            J::Array(out)
        }
        (_, c) => c,
    }
}

/// One case mapping → [`CaseDef`], the suite's defaults applied; `None` when it has no usable id
/// (its errors are in `source`).
fn case_of(
    source: &mut Source,
    raw: &RawCase,
    suite_dir: &Path,
    parts: &SuiteParts,
    env: Env<'_>,
) -> Option<CaseDef> {
    let with_vars = vars::filled_case(&raw.node);
    let node = with_vars.as_ref().map_or(&raw.node, |(filled, _)| filled);
    let mut f = Fields::of(source, node, "a case")?;
    let dirs = Dirs {
        case: &raw.dir,
        suite: suite_dir,
    };
    let id = case_id(source, &mut f, raw);
    let CaseTexts {
        criteria,
        input,
        input_files,
        expected_output,
    } = case_texts(source, &mut f, dirs);
    let has_expected_output = !expected_output.is_empty();
    let graders = case_graders(
        source,
        &mut f,
        parts,
        dirs,
        criteria.as_deref(),
        has_expected_output,
    );
    let metadata = case_metadata(source, &mut f);
    let own_tags = f
        .take_some(source, "tags", &[])
        .and_then(|n| source.strings("tags", n));
    let ws = f.take_some(source, "workspace", &[]);
    let ws = case_workspace(source, ws, raw, (suite_dir, env), &parts.workspace);
    let run = case_run(source, &mut f, dirs);
    let skip_defaults = graders.execution.skip_defaults;
    let vars = with_vars.as_ref().map(|(_, vars)| vars);
    let (input, input_files) =
        case_input(source, &f, parts, skip_defaults, input, input_files, vars);
    let (samples, min_pass_rate) = sampling(&run, parts);
    f.finish(source);
    Some(CaseDef {
        id: id?,
        file: source.path.clone(),
        line: raw.node.line,
        dir: raw.dir.clone(),
        input,
        input_files,
        criteria,
        expected_output,
        threshold: graders.threshold(parts),
        assertions: graders.assertions,
        metadata: merge_metadata(&parts.metadata, metadata),
        tags: merge_tags(&parts.tags, own_tags),
        workspace: ws,
        targets: graders.execution.targets,
        skip_defaults,
        repeat: run.repeat,
        repeat_failure: run.repeat_failure,
        samples,
        min_pass_rate,
        min_lift: run.min_lift.or(parts.min_lift),
        stop_when_decided: run.stop_when_decided,
        expected_fail: run.expected_fail,
        timeout: run.timeout,
        max_steps: run.max_steps,
        runners: run.runners,
        skills: run.skills,
        mock: run.mock,
        variants: run.variants,
        conversation: graders.conversation,
        stub: false,
    })
}

/// What a case says and expects: its `criteria`, `input` (the node and its messages),
/// `input_files` and `expected_output`.
struct CaseTexts<'n> {
    criteria: Option<String>,
    input: Option<(&'n Node, Option<Vec<Message>>)>,
    input_files: Option<Vec<PathBuf>>,
    expected_output: Vec<Message>,
}

/// Reads them, with the keys that only say where they come from (`vars`, already filled in,
/// and `conversation_id`).
fn case_texts<'n>(source: &mut Source, f: &mut Fields<'n>, dirs: Dirs<'_>) -> CaseTexts<'n> {
    if let Some(n) = f.take_some(source, "vars", &[]) {
        source.mapping("vars", n);
    }
    if let Some(n) = f.take_some(source, "conversation_id", &[]) {
        source.string("conversation_id", n);
    }
    if let Some(n) = f.take(source, "depends_on") {
        source.error(
            n,
            "`depends_on` (running a case after others) is not supported by skillgym: every case runs on its own",
        );
    }
    let criteria = f
        .take_some(source, "criteria", &["expected_outcome"])
        .and_then(|n| source.non_empty("criteria", n));
    let input_node = f.take_some(source, "input", &[]);
    let input = input_node.map(|n| (n, messages(source, "input", n, Role::User)));
    let input_files = f
        .take_some(source, "input_files", &[])
        .map(|n| files(source, n, dirs));
    let expected_output = f
        .take_some(source, "expected_output", &[])
        .and_then(|n| messages(source, "expected_output", n, Role::Assistant))
        .unwrap_or_default();
    CaseTexts {
        criteria,
        input,
        input_files,
        expected_output,
    }
}

/// A case's samples and pass-rate gate: its own, else the suite's `execution.trials` (pass@k:
/// `count` samples, passing when one passes) unless the case repeats; its own gate, else the
/// suite's `min_pass_rate`.
fn sampling(run: &CaseRun, parts: &SuiteParts) -> (Option<u64>, Option<f64>) {
    let own_gate = run.min_pass_rate.or(parts.min_pass_rate);
    let repeats = run.repeat.is_some() || run.repeat_failure.is_some();
    match parts.trials {
        Some(trials) if run.samples.is_none() && !repeats => (
            Some(trials.count),
            own_gate.or(Some(1.0 / trials.count as f64)),
        ),
        _ => (run.samples, own_gate),
    }
}

/// A case's own `metadata:` (a mapping), else an empty object.
fn case_metadata(source: &mut Source, f: &mut Fields<'_>) -> serde_json::Value {
    match f.take_some(source, "metadata", &[]) {
        Some(n) if source.mapping("metadata", n).is_some() => n.to_json(),
        _ => serde_json::Value::Object(Default::default()),
    }
}

/// A case's `id:`, else its directory's name (discovered cases); `None` after an error.
fn case_id(source: &mut Source, f: &mut Fields<'_>, raw: &RawCase) -> Option<String> {
    let Some(n) = f.take_some(source, "id", &[]) else {
        if raw.default_id.is_none() {
            f.missing(source, "id");
        }
        return raw.default_id.clone();
    };
    let id = source.non_empty("id", n)?;
    let Some(c) = trial_name::bad_char(&id) else {
        return Some(id);
    };
    source.error_help(
        n,
        trial_name::problem("`id`", &id, c),
        &format!(
            "write it without, e.g. `id: {}`",
            trial_name::suggestion(&id)
        ),
    );
    None
}

/// A case's `rubrics:` as one grader named `rubrics`.
fn rubrics_grader(source: &mut Source, n: &Node) -> Option<GraderSpec> {
    let items = graders::rubric_items(source, "rubrics", n)?;
    Some(GraderSpec {
        name: "rubrics".to_owned(),
        weight: 1.0,
        required: false,
        min_score: None,
        negate: false,
        kind: crate::grade::spec::GraderKind::Rubrics { items },
    })
}

/// A case's graders and the `execution:` they are read with.
struct CaseGraders<'n> {
    /// The case's own graders, then the suite's unless `skip_defaults`, else the implicit one.
    assertions: Vec<GraderSpec>,
    /// v5's top-level `threshold` (agentv §9), beside v4's `execution.threshold`.
    top_threshold: Option<f64>,
    execution: CaseExecution<'n>,
    /// `mode: conversation`: the turns, graded on their own (the case's `criteria` are their
    /// judges' context, no grader of its own; the case needs no graders).
    conversation: Option<super::turns::Conversation>,
}

impl CaseGraders<'_> {
    /// The pass threshold: `execution.threshold`, else the top-level one, else the suite's.
    fn threshold(&self, parts: &SuiteParts) -> f64 {
        (self.execution.threshold)
            .or(self.top_threshold)
            .or(parts.threshold)
            .unwrap_or(DEFAULT_THRESHOLD)
    }
}

/// Reads a case's `rubrics:`, `assertions:` (alias `assert`), `threshold:` and `execution:`;
/// `criteria` and whether it has an expected output decide the implicit grader.
fn case_graders<'n>(
    source: &mut Source,
    f: &mut Fields<'n>,
    parts: &SuiteParts,
    dirs: Dirs<'_>,
    criteria: Option<&str>,
    has_expected_output: bool,
) -> CaseGraders<'n> {
    // A conversation's turns are graded on their own: no implicit grader, none needed.
    let conversation = super::turns::take(source, f, dirs);
    let rubrics = f
        .take_some(source, "rubrics", &[])
        .and_then(|n| rubrics_grader(source, n));
    let own_assertions = f.take_some(source, "assertions", &["assert"]);
    let top_threshold = f
        .take_some(source, "threshold", &[])
        .and_then(|n| source.fraction("threshold", n));
    let execution = f
        .take_some(source, "execution", &[])
        .map(|n| case_execution(source, n, parts))
        .unwrap_or_default();
    let mut assertions: Vec<GraderSpec> = rubrics.into_iter().collect();
    let own_list = own_assertions.or(execution.evaluators);
    if let Some(n) = own_list {
        assertions.extend(graders::parse_list(source, "assertions", n, dirs));
    }
    let has_own = !assertions.is_empty() || own_list.is_some();
    if !execution.skip_defaults {
        assertions.extend(parts.assertions.iter().cloned());
    }
    if assertions.is_empty() && conversation.is_none() {
        assertions.extend(implicit_grader(criteria, has_expected_output));
    }
    let has_reference = criteria.is_some() || has_expected_output;
    graders::check_bare_llm_grader(source, f.node(), &assertions, has_reference);
    if conversation.is_none() && !has_reference && assertions.is_empty() && !has_own {
        let message = "a case needs at least one of `criteria`, `expected_output` or `assertions`";
        source.error(f.node(), message);
    }
    CaseGraders {
        assertions,
        top_threshold,
        execution,
        conversation,
    }
}

/// A case's `execution:` mapping.
#[derive(Default)]
struct CaseExecution<'n> {
    /// `skip_defaults`: the suite's graders, input and input files do not apply.
    skip_defaults: bool,
    threshold: Option<f64>,
    /// A subset of the suite's targets (empty: all); `target:` is a list of one, which need
    /// not be among the suite's (as the suite's own `execution.target`).
    targets: Vec<String>,
    /// `evaluators`, used when the case has no `assertions:`.
    evaluators: Option<&'n Node>,
}

/// Reads a case's `execution:`; each of `targets` must be one of the suite's (if it names
/// any); `target` names one target, the suite's or not.
fn case_execution<'n>(source: &mut Source, n: &'n Node, parts: &SuiteParts) -> CaseExecution<'n> {
    let mut out = CaseExecution::default();
    let Some(mut e) = Fields::of(source, n, "a case's `execution`") else {
        return out;
    };
    out.skip_defaults = e
        .take_some(source, "skip_defaults", &[])
        .and_then(|n| source.bool("skip_defaults", n))
        .unwrap_or(false);
    out.threshold = e
        .take_some(source, "threshold", &[])
        .and_then(|n| source.fraction("threshold", n));
    if let Some(n) = e.take_some(source, "targets", &[])
        && let Some(list) = source.strings("targets", n)
    {
        for t in &list {
            if !parts.targets.is_empty() && !parts.targets.iter().any(|d| &d.name == t) {
                source.error(
                    n,
                    format!("target `{t}` is not one of the suite's `execution.targets`"),
                );
            }
        }
        out.targets = list;
    }
    if let Some(n) = e.take_some(source, "target", &[])
        && let Some(target) = source.non_empty("target", n)
    {
        if out.targets.is_empty() {
            out.targets = vec![target];
        } else {
            source.error(
                n,
                "`target` and `targets` both name the case's targets: keep one of them",
            );
        }
    }
    out.evaluators = e.take_some(source, "evaluators", &[]);
    e.finish(source);
    out
}

/// The suite's tags, then the case's own not already among them.
fn merge_tags(suite: &[String], own: Option<Vec<String>>) -> Vec<String> {
    let mut tags = suite.to_vec();
    for t in own.into_iter().flatten() {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    tags
}

/// A case's workspace: the suite's, with the case's `workspace:` merged over it, and a
/// discovered case's own `workspace/` directory as the template (if inside the suite).
fn case_workspace(
    source: &mut Source,
    n: Option<&Node>,
    raw: &RawCase,
    (suite_dir, env): (&Path, Env<'_>),
    suite: &WorkspaceDef,
) -> WorkspaceDef {
    let dirs = Dirs {
        case: &raw.dir,
        suite: suite_dir,
    };
    let mut ws = suite.clone();
    if let Some(n) = n {
        ws = workspace(source, n, dirs, ws, (false, env));
    }
    let own_template = raw.dir.join("workspace");
    if raw.default_id.is_some() && own_template.is_dir() {
        match escape(suite_dir, &own_template) {
            Some(escape) => source.errors.push(escape.error()),
            None => ws.template = Some(own_template),
        }
    }
    ws
}

/// How a case is run and repeated, and what it runs with.
struct CaseRun {
    repeat: Option<u64>,
    repeat_failure: Option<u64>,
    samples: Option<u64>,
    min_pass_rate: Option<f64>,
    min_lift: Option<f64>,
    stop_when_decided: bool,
    max_steps: Option<u64>,
    expected_fail: bool,
    timeout: Option<std::time::Duration>,
    runners: Vec<String>,
    /// Skill directories under test.
    skills: Vec<PathBuf>,
    /// The scripted model's script.
    mock: Option<PathBuf>,
    /// The run's variants the case runs under.
    variants: Vec<String>,
}

/// Reads `repeat`, `repeat_failure`, `samples`, `min_pass_rate`, `max_steps`, `expected_fail`, `timeout`,
/// `runners`, `skills` and `mock`.
fn case_run(source: &mut Source, f: &mut Fields<'_>, dirs: Dirs<'_>) -> CaseRun {
    let mut int = |k: &'static str, aliases: &[&'static str], min| {
        f.take_some(source, k, aliases)
            .and_then(|n| source.integer(k, n, min))
    };
    let repeat = int("repeat", &[], 1);
    let repeat_failure = int("repeat_failure", &["retry_failed"], 0);
    let max_steps = int("max_steps", &[], 1);
    let samples_node = f.take_some(source, "samples", &[]);
    let samples = samples_node.and_then(|n| source.integer("samples", n, 1));
    if let Some(node) = samples_node
        && (repeat.is_some() || repeat_failure.is_some())
    {
        source.error(
            node,
            "`samples` conflicts with `repeat`/`repeat_failure`: a case either runs `samples` \
             independent sessions (none retried, none stopping the others) or repeats until \
             `repeat` sessions passed; keep one of them",
        );
    }
    let min_pass_rate = f
        .take_some(source, "min_pass_rate", &[])
        .and_then(|n| source.fraction("min_pass_rate", n));
    let min_lift = f
        .take_some(source, "min_lift", &[])
        .and_then(|n| lift_gate(source, n));
    let stop_node = f.take_some(source, "stop_when_decided", &[]);
    let stop_when_decided = stop_node
        .and_then(|n| source.bool("stop_when_decided", n))
        .unwrap_or(false);
    if let Some(node) = stop_node
        && stop_when_decided
        && samples.is_none()
    {
        source.error(
            node,
            "`stop_when_decided` stops sampling once the pass rate is surely above or below its \
             gate (or each variant's lift surely above or below zero): it needs `samples`, the \
             most sessions",
        );
    }
    CaseRun {
        repeat,
        repeat_failure,
        samples,
        min_pass_rate,
        min_lift,
        stop_when_decided,
        max_steps,
        expected_fail: f
            .take_some(source, "expected_fail", &[])
            .and_then(|n| source.bool("expected_fail", n))
            .unwrap_or(false),
        timeout: f
            .take_some(source, "timeout", &[])
            .and_then(|n| duration(source, "timeout", n)),
        runners: f
            .take_some(source, "runners", &[])
            .and_then(|n| source.strings("runners", n))
            .unwrap_or_default(),
        skills: f
            .take_some(source, "skills", &[])
            .map(|n| skill_dirs(source, n, dirs))
            .unwrap_or_default(),
        mock: f.take_some(source, "mock", &[]).and_then(|n| {
            source
                .non_empty("mock", n)
                .and_then(|s| resolve_file(source, n, &s, dirs))
        }),
        variants: f
            .take_some(source, "variants", &[])
            .and_then(|n| variant_names(source, n))
            .unwrap_or_default(),
    }
}

/// `min_lift:`: a difference of two pass rates, from -1 to 1.
fn lift_gate(source: &mut Source, n: &Node) -> Option<f64> {
    let value = source.number("min_lift", n)?;
    if !(-1.0..=1.0).contains(&value) {
        source.error(
            n,
            format!("`min_lift` is a difference of two pass rates, from -1 to 1, found {value}"),
        );
        return None;
    }
    Some(value)
}

/// `variants:`: names of the run's variants, each fit for a trial's name.
fn variant_names(source: &mut Source, n: &Node) -> Option<Vec<String>> {
    let names = source.strings("variants", n)?;
    for name in &names {
        if let Some(problem) = crate::config::variant_name_problem(name) {
            source.error(n, &problem);
            return None;
        }
    }
    Some(names)
}

/// `skills:`: a list of skill directories, each resolved.
fn skill_dirs(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Vec<PathBuf> {
    path_list(
        source,
        n,
        dirs,
        "skills",
        "a list of skill directories",
        resolve_dir,
    )
}

/// The effective input and input files: the suite's (unless `skip_defaults`) then the case's
/// `input:` (its node and messages); the case's `input_files` replace the suite's. Beside input
/// files, `input:` must be a string.
fn case_input(
    source: &mut Source,
    f: &Fields<'_>,
    parts: &SuiteParts,
    skip_defaults: bool,
    input: Option<(&Node, Option<Vec<Message>>)>,
    input_files: Option<Vec<PathBuf>>,
    vars: Option<&serde_json::Value>,
) -> (Vec<Message>, Vec<PathBuf>) {
    let (mut effective, suite_files) = if skip_defaults {
        (Vec::new(), Vec::new())
    } else {
        (parts.input.clone(), parts.input_files.clone())
    };
    // The case's own input is filled already; the suite's is filled with each case's vars.
    if let Some(vars) = vars {
        vars::fill_messages(&mut effective, vars);
    }
    let input_files = input_files.unwrap_or(suite_files);
    match input {
        Some((n, Some(messages))) => {
            if !input_files.is_empty() && !matches!(n.value, Value::Str(_)) {
                source.error(n, "`input` must be a string when `input_files` is set");
            }
            effective.extend(messages);
        }
        Some((_, None)) => {}
        None => f.missing(source, "input"),
    }
    (effective, input_files)
}
