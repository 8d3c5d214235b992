//! `assertions:` entries → [`GraderSpec`]s (agentv §3.1, §3.3; v5 names of §9 as aliases).
//!
//! | Written | Becomes |
//! |---|---|
//! | bare strings of one list | ONE `rubrics` grader at the first string's position, weight = number of strings, items `rubric-1..n` (required) |
//! | `type: contains` / `icontains` / `starts-with` / `ends-with` / `equals` | `value:` a non-empty string |
//! | `type: contains-any` / `-all` / `icontains-any` / `-all` | `value:` a non-empty list of strings |
//! | `type: regex` | `value:` compiled with Rust `regex` (no lookaround/backrefs, unlike agentv's ECMAScript), `flags:` of `i`, `m`, `s` |
//! | `type: is-json` | nothing else |
//! | `type: code-grader` (`script`) | `command:` string (sh -c) or argv, `cwd:` (case dir, then suite dir), `timeout:` duration, `config:`; unknown keys go into `config` |
//! | `type: execution-metrics` | `max_tool_calls`, `max_llm_calls`, `max_tokens`, `max_cost_usd`, `max_duration_ms`, `target_exploration_ratio`, `exploration_tolerance` (camelCase too); at least one limit |
//! | `type: token-usage` / `latency` / `cost` | `max_total`/`max_input`/`max_output` (one at least) / `threshold` ms / `budget` USD |
//! | `type: tool-trajectory` | `mode:` any_order (needs `minimums`) or in_order, exact, subset, superset (need `expected`), `args_match:` |
//! | `type: skill-trigger` (`skill-used`, `not-skill-used` with `value`) | `skill:`, `should_trigger:` (default true) |
//! | `type: rubrics` (`criteria`), `rubric` (`rubrics`), `llm-rubric` (`value`) | rubric items (see `judged`): strings or `{id, outcome (criteria), weight, required, operator, min_score, score_ranges}` |
//! | `type: llm-grader` | `prompt` (inline, `file://path` or a path naming a file), `rubrics`; neither: the case's `criteria`; `model` warns; the other judge keys are errors (see `judged`) |
//! | `type: composite` / `field-accuracy` | members and `aggregator` / `fields` and `aggregation` (see `combined`) |
//! | common | `name` (`metric`), `weight` (finite >= 0), `required` (bool, or (0,1] = required + `min_score`), `min_score` (0,1], `negate`; `not-<type>` = negate |
//!
//! Type names normalise `_` → `-`. Unknown types are errors with a suggestion: skillgym runs no
//! custom graders. agentv's `assert-set`, `inline-assert` and `agent-rubric` are errors naming
//! the type.

mod combined;
pub(crate) mod judged;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::time::Duration;

use super::fields::{Fields, Source};
use super::node::{Node, Value};
use super::paths::resolve_dir;
use crate::grade::spec::{
    ArgsMatch, CodeGraderSpec, ExpectedCall, GraderCommand, GraderKind, GraderSpec, MetricLimits,
    RubricItem, TrajectoryMode, TrajectorySpec,
};
use crate::suggest::did_you_mean;

/// The type names accepted (after `_` → `-` and a `not-` prefix is removed).
const TYPES: &[&str] = &[
    "contains",
    "icontains",
    "contains-any",
    "contains-all",
    "icontains-any",
    "icontains-all",
    "starts-with",
    "ends-with",
    "equals",
    "regex",
    "is-json",
    "code-grader",
    "script",
    "execution-metrics",
    "token-usage",
    "latency",
    "cost",
    "tool-trajectory",
    "skill-trigger",
    "skill-used",
    "rubrics",
    "rubric",
    "llm-grader",
    "llm-rubric",
    "composite",
    "field-accuracy",
];

/// Known to agentv but not run by skillgym.
const UNSUPPORTED: &[&str] = &["assert-set", "inline-assert", "agent-rubric"];

pub(crate) use judged::rubric_items;

/// Directories a relative path of a case is looked up in, in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dirs<'a> {
    pub(crate) case: &'a Path,
    pub(crate) suite: &'a Path,
}

/// Parses an `assertions:` list.
pub(crate) fn parse_list(
    source: &mut Source,
    key: &str,
    node: &Node,
    dirs: Dirs<'_>,
) -> Vec<GraderSpec> {
    let Value::Seq(items) = &node.value else {
        source.error(
            node,
            format!("`{key}` must be a list, found {}", node.kind()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rubric_slot: Option<usize> = None;
    for item in items {
        match &item.value {
            Value::Str(text) => {
                if text.trim().is_empty() {
                    source.error(item, "a rubric string must not be empty");
                    continue;
                }
                let slot = *rubric_slot.get_or_insert_with(|| {
                    out.push(GraderSpec {
                        name: "rubrics".to_owned(),
                        weight: 0.0,
                        required: false,
                        min_score: None,
                        negate: false,
                        kind: GraderKind::Rubrics { items: Vec::new() },
                    });
                    out.len() - 1
                });
                let grader = &mut out[slot];
                grader.weight += 1.0;
                if let GraderKind::Rubrics { items } = &mut grader.kind {
                    let id = format!("rubric-{}", items.len() + 1);
                    items.push(RubricItem::checklist(id, text.clone()));
                }
            }
            _ => {
                if let Some(g) = parse_one(source, item, dirs) {
                    out.push(g);
                }
            }
        }
    }
    out
}

/// One `assertions:` mapping → a grader: its type, the fields every grader has, then its
/// kind's own fields.
fn parse_one(source: &mut Source, node: &Node, dirs: Dirs<'_>) -> Option<GraderSpec> {
    let mut f = Fields::of(source, node, "an assertion")?;
    let (ty, negate_prefix) = grader_type(source, &mut f, node)?;
    f.ignore(source, "id", "agentv names a grader by its `name`");
    // Common fields.
    let name = f
        .take_some(source, "name", &["metric"])
        .and_then(|n| source.non_empty("name", n));
    let weight = f
        .take_some(source, "weight", &[])
        .map_or(Some(1.0), |n| source.non_negative("weight", n));
    let (required, mut min_score) = f
        .take_some(source, "required", &[])
        .map_or((false, None), |n| required(source, n));
    if let Some(n) = f.take_some(source, "min_score", &["minScore"]) {
        min_score = source.unit_score("min_score", n).or(min_score);
    }
    let negate = f
        .take_some(source, "negate", &[])
        .map_or(Some(false), |n| source.bool("negate", n))
        .unwrap_or(false)
        ^ negate_prefix;

    let kind = kind(source, &mut f, &ty, dirs);
    f.finish(source);
    let kind = kind?;
    let weight = weight?;
    Some(GraderSpec {
        name: name.unwrap_or_else(|| default_name(&ty, &kind)),
        weight,
        required,
        min_score,
        negate,
        kind,
    })
}

/// `required`: a bool, or a score in (0, 1] (required, with that minimum score).
fn required(source: &mut Source, n: &Node) -> (bool, Option<f64>) {
    match n.value {
        Value::Bool(b) => (b, None),
        Value::Int(_) | Value::Float(_) => {
            let v = n.as_f64().unwrap_or(0.0);
            if v > 0.0 && v <= 1.0 {
                return (true, Some(v));
            }
            source.error(
                n,
                format!("`required` must be `true`, `false` or a number in (0, 1], found {v}"),
            );
            (false, None)
        }
        _ => {
            source.error(
                n,
                format!(
                    "`required` must be `true`, `false` or a number in (0, 1], found {}",
                    n.kind()
                ),
            );
            (false, None)
        }
    }
}

/// An assertion's `type:`, `_` read as `-`, a `not-` prefix stripped (the bool says so);
/// `include:` templates, unsupported and unknown types are errors.
fn grader_type(source: &mut Source, f: &mut Fields<'_>, node: &Node) -> Option<(String, bool)> {
    let Some(type_node) = f.take(source, "type") else {
        if f.take(source, "include").is_some() {
            source.error(
                node,
                "`include:` assertion templates are not supported by skillgym",
            );
        } else {
            f.missing(source, "type");
        }
        return None;
    };
    let written = source.string("type", type_node)?;
    let mut ty = written.replace('_', "-");
    let mut negate_prefix = false;
    if let Some(rest) = ty.strip_prefix("not-")
        && rest != "skill-used"
    {
        negate_prefix = true;
        ty = rest.to_owned();
    }
    if UNSUPPORTED.contains(&ty.as_str()) {
        source.error(
            type_node,
            format!("grader type `{written}` is not supported by skillgym"),
        );
        return None;
    }
    if !TYPES.contains(&ty.as_str()) && ty != "not-skill-used" {
        let help = match did_you_mean(&ty, TYPES.iter().copied()) {
            Some(s) => format!("did you mean `{s}`? (skillgym runs no custom graders)"),
            None => "skillgym runs no custom graders; use `code-grader` with a command".to_owned(),
        };
        source.error_help(type_node, format!("unknown grader type `{written}`"), &help);
        return None;
    }
    Some((ty, negate_prefix))
}

fn default_name(ty: &str, kind: &GraderKind) -> String {
    match kind {
        GraderKind::Contains { value, .. } => format!("{ty}-{value}"),
        GraderKind::ContainsAny { values, .. } | GraderKind::ContainsAll { values, .. } => {
            format!("{ty}-{}", values.len())
        }
        GraderKind::StartsWith { value } => format!("starts-with-{value}"),
        GraderKind::EndsWith { value } => format!("ends-with-{value}"),
        GraderKind::Equals { value } => format!("equals-{value}"),
        GraderKind::Regex { pattern, .. } => {
            format!("regex-{}", pattern.chars().take(30).collect::<String>())
        }
        GraderKind::SkillTrigger { skill, .. } => format!("skill-trigger-{skill}"),
        GraderKind::Rubrics { .. } => "rubrics".to_owned(),
        GraderKind::CodeGrader(_) => "code-grader".to_owned(),
        _ => ty.to_owned(),
    }
}

fn value_string(source: &mut Source, f: &mut Fields<'_>, ty: &str) -> Option<String> {
    match f.take_some(source, "value", &[]) {
        Some(n) => source.non_empty("value", n),
        None => {
            source.error(f.node(), format!("`{ty}` needs a non-empty string `value`"));
            None
        }
    }
}

fn value_list(source: &mut Source, f: &mut Fields<'_>, ty: &str) -> Option<Vec<String>> {
    let Some(n) = f.take_some(source, "value", &[]) else {
        source.error(
            f.node(),
            format!("`{ty}` needs a non-empty list of strings `value`"),
        );
        return None;
    };
    let list = source.strings("value", n)?;
    if list.is_empty() {
        source.error(
            n,
            format!("`{ty}` needs a non-empty list of strings `value`"),
        );
        return None;
    }
    Some(list)
}

/// The fields of grader type `ty` (normalized, without `not-`) → its [`GraderKind`]; types with
/// more than a `value` have a reader of their own.
fn kind(source: &mut Source, f: &mut Fields<'_>, ty: &str, dirs: Dirs<'_>) -> Option<GraderKind> {
    Some(match ty {
        "contains" | "icontains" => GraderKind::Contains {
            value: value_string(source, f, ty)?,
            ignore_case: ty == "icontains",
        },
        "contains-any" | "icontains-any" => GraderKind::ContainsAny {
            values: value_list(source, f, ty)?,
            ignore_case: ty.starts_with('i'),
        },
        "contains-all" | "icontains-all" => GraderKind::ContainsAll {
            values: value_list(source, f, ty)?,
            ignore_case: ty.starts_with('i'),
        },
        "starts-with" => GraderKind::StartsWith {
            value: value_string(source, f, ty)?,
        },
        "ends-with" => GraderKind::EndsWith {
            value: value_string(source, f, ty)?,
        },
        "equals" => GraderKind::Equals {
            value: value_string(source, f, ty)?,
        },
        "regex" => regex(source, f)?,
        "is-json" => GraderKind::IsJson,
        "code-grader" | "script" => code_grader(source, f, dirs)?,
        "execution-metrics" => metrics(source, f)?,
        "token-usage" => token_usage(source, f)?,
        "latency" => match f.take_some(source, "threshold", &[]) {
            Some(n) => GraderKind::Latency {
                threshold_ms: source.integer("threshold", n, 0)?,
            },
            None => {
                source.error(f.node(), "`latency` needs `threshold` (milliseconds)");
                return None;
            }
        },
        "cost" => match f.take_some(source, "budget", &[]) {
            Some(n) => GraderKind::Cost {
                budget_usd: source.non_negative("budget", n)?,
            },
            None => {
                source.error(f.node(), "`cost` needs `budget` (USD)");
                return None;
            }
        },
        "tool-trajectory" => trajectory(source, f)?,
        "skill-trigger" => skill_trigger(source, f)?,
        "skill-used" | "not-skill-used" => GraderKind::SkillTrigger {
            skill: value_string(source, f, ty)?,
            should_trigger: ty == "skill-used",
        },
        "rubrics" | "rubric" | "llm-rubric" => rubrics(source, f, ty)?,
        "llm-grader" => judged::llm_grader(source, f, dirs)?,
        "composite" => combined::composite(source, f, dirs)?,
        "field-accuracy" => combined::field_accuracy(source, f)?,
        _ => return None,
    })
}

/// `regex`: `value` (the pattern) and `flags`, checked for syntax.
fn regex(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let flags_node = f.take_some(source, "flags", &[]);
    let flags = match flags_node {
        Some(n) => source.string("flags", n)?,
        None => String::new(),
    };
    let value_node = f.take_some(source, "value", &[]);
    let Some(value_node) = value_node else {
        source.error(f.node(), "`regex` needs a non-empty string `value`");
        return None;
    };
    let pattern = source.non_empty("value", value_node)?;
    let full = match crate::grade::text::regex_source(&pattern, &flags) {
        Ok(full) => full,
        Err(why) => {
            source.error(flags_node.unwrap_or(value_node), why.to_string());
            return None;
        }
    };
    // Syntax only: compiling the automaton is the grader's work, at grade time.
    if let Err(err) = regex_syntax::Parser::new().parse(&full) {
        let detail = err.to_string();
        let last = detail
            .lines()
            .last()
            .unwrap_or("")
            .trim()
            .trim_start_matches("error: ");
        source.error(value_node, format!("invalid regex `{pattern}`: {last}"));
        return None;
    }
    Some(GraderKind::Regex { pattern, flags })
}

/// `token-usage`: at least one of `max_total`, `max_input`, `max_output`.
fn token_usage(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let mut get = |name, alias| {
        f.take_some(source, name, &[alias])
            .and_then(|n| source.integer(name, n, 0))
    };
    let (max_total, max_input, max_output) = (
        get("max_total", "maxTotal"),
        get("max_input", "maxInput"),
        get("max_output", "maxOutput"),
    );
    if max_total.is_none() && max_input.is_none() && max_output.is_none() {
        source.error(
            f.node(),
            "`token-usage` needs one of `max_total`, `max_input`, `max_output`",
        );
        return None;
    }
    Some(GraderKind::TokenUsage {
        max_total,
        max_input,
        max_output,
    })
}

/// `skill-trigger`: `skill` and `should_trigger` (default `true`).
fn skill_trigger(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let skill = f.take_some(source, "skill", &[]);
    let should = f
        .take_some(source, "should_trigger", &["shouldTrigger"])
        .map_or(Some(true), |n| source.bool("should_trigger", n));
    let Some(skill) = skill else {
        source.error(f.node(), "`skill-trigger` needs `skill`");
        return None;
    };
    Some(GraderKind::SkillTrigger {
        skill: source.non_empty("skill", skill)?,
        should_trigger: should?,
    })
}

/// `rubrics` (items in `criteria`), `llm-rubric` (in `value`), `rubric` (in `rubrics`).
fn rubrics(source: &mut Source, f: &mut Fields<'_>, ty: &str) -> Option<GraderKind> {
    judged::judge_keys(source, f);
    let key = match ty {
        "rubrics" => "criteria",
        "llm-rubric" => "value",
        _ => "rubrics",
    };
    let Some(node) = f.take_some(source, key, &[]) else {
        source.error(f.node(), format!("`{ty}` needs `{key}` (rubric items)"));
        return None;
    };
    Some(GraderKind::Rubrics {
        items: judged::rubric_items(source, key, node)?,
    })
}

fn code_grader(source: &mut Source, f: &mut Fields<'_>, dirs: Dirs<'_>) -> Option<GraderKind> {
    let command = f.take_some(source, "command", &["script"]);
    let cwd = f.take_some(source, "cwd", &[]);
    let timeout = f.take_some(source, "timeout", &[]);
    let config = f.take_some(source, "config", &[]);
    let command = match command {
        None => {
            source.error(
                f.node(),
                "`code-grader` needs `command` (a string or an argv list)",
            );
            None
        }
        Some(n) => command_of(source, "command", n),
    };
    let cwd = cwd.and_then(|n| {
        let s = source.non_empty("cwd", n)?;
        resolve_dir(source, n, &s, dirs)
    });
    let timeout = timeout.and_then(|n| duration(source, "timeout", n));
    let mut map = serde_json::Map::new();
    for (k, v) in f.rest() {
        map.insert(k.key_text(), v.to_json());
    }
    if let Some(n) = config {
        match n.to_json() {
            serde_json::Value::Object(explicit) => map.extend(explicit),
            _ => source.error(n, format!("`config` must be a mapping, found {}", n.kind())),
        }
    }
    Some(GraderKind::CodeGrader(CodeGraderSpec {
        command: command?,
        cwd,
        timeout,
        config: serde_json::Value::Object(map),
    }))
}

/// A command: a non-empty string (shell) or a non-empty argv list.
pub(crate) fn command_of(source: &mut Source, key: &str, n: &Node) -> Option<GraderCommand> {
    match &n.value {
        Value::Str(_) => Some(GraderCommand::Shell(source.non_empty(key, n)?)),
        Value::Seq(_) => {
            let argv = source.strings(key, n)?;
            if argv.is_empty() || argv[0].is_empty() {
                source.error(n, format!("`{key}` must not be empty"));
                return None;
            }
            Some(GraderCommand::Argv(argv))
        }
        _ => {
            source.error(
                n,
                format!(
                    "`{key}` must be a string or a list of strings, found {}",
                    n.kind()
                ),
            );
            None
        }
    }
}

/// A duration written as in `skillgym.yaml` (`90s`, `5m`, ...).
pub(crate) fn duration(source: &mut Source, key: &str, n: &Node) -> Option<Duration> {
    let s = source.string(key, n)?;
    match skillgym_grammar::duration::parse_duration(&s) {
        Ok(d) => Some(d),
        Err(err) => {
            source.error(n, format!("`{key}`: {err}"));
            None
        }
    }
}

fn metrics(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let mut limits = MetricLimits {
        exploration_tolerance: 0.2,
        ..MetricLimits::default()
    };
    let count =
        |name: &'static str, alias: &'static str, f: &mut Fields<'_>, source: &mut Source| {
            f.take_some(source, name, &[alias])
                .and_then(|n| source.integer(name, n, 0))
        };
    limits.max_tool_calls = count("max_tool_calls", "maxToolCalls", f, source);
    limits.max_llm_calls = count("max_llm_calls", "maxLlmCalls", f, source);
    limits.max_tokens = count("max_tokens", "maxTokens", f, source);
    limits.max_duration_ms = count("max_duration_ms", "maxDurationMs", f, source);
    limits.max_cost_usd = f
        .take_some(source, "max_cost_usd", &["maxCostUsd"])
        .and_then(|n| source.non_negative("max_cost_usd", n));
    limits.target_exploration_ratio = f
        .take_some(
            source,
            "target_exploration_ratio",
            &["targetExplorationRatio"],
        )
        .and_then(|n| source.fraction("target_exploration_ratio", n));
    if let Some(n) = f.take_some(source, "exploration_tolerance", &["explorationTolerance"]) {
        limits.exploration_tolerance = source.non_negative("exploration_tolerance", n)?;
    }
    let l = &limits;
    if l.max_tool_calls.is_none()
        && l.max_llm_calls.is_none()
        && l.max_tokens.is_none()
        && l.max_cost_usd.is_none()
        && l.max_duration_ms.is_none()
        && l.target_exploration_ratio.is_none()
    {
        source.error(
            f.node(),
            "`execution-metrics` needs at least one limit (`max_tool_calls`, `max_llm_calls`, `max_tokens`, `max_cost_usd`, `max_duration_ms`, `target_exploration_ratio`)",
        );
        return None;
    }
    Some(GraderKind::ExecutionMetrics(limits))
}

fn args_match(source: &mut Source, n: &Node) -> Option<ArgsMatch> {
    match &n.value {
        Value::Str(s) => match s.as_str() {
            "exact" => Some(ArgsMatch::Exact),
            "superset" => Some(ArgsMatch::Superset),
            "subset" => Some(ArgsMatch::Subset),
            "ignore" => Some(ArgsMatch::Ignore),
            other => {
                source.error(n, format!("`args_match` must be `exact`, `superset`, `subset`, `ignore` or a list of paths, found `{other}`"));
                None
            }
        },
        _ => source.strings("args_match", n).map(ArgsMatch::Paths),
    }
}

/// `tool-trajectory`: `mode`, then `minimums` (mode `any_order`) or `expected` (the others),
/// `args_match` the default for each expected call.
fn trajectory(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let mode_node = f.take_some(source, "mode", &[]);
    let minimums = f.take_some(source, "minimums", &[]);
    let expected = f.take_some(source, "expected", &[]);
    let default_match = f
        .take_some(source, "args_match", &["argsMatch"])
        .map_or(Some(ArgsMatch::Exact), |n| args_match(source, n));
    let Some(mode_node) = mode_node else {
        source.error(
            f.node(),
            "`tool-trajectory` needs `mode` (any_order, in_order, exact, subset or superset)",
        );
        return None;
    };
    let mode = trajectory_mode(source, mode_node)?;
    let mut spec = TrajectorySpec {
        mode,
        minimums: Vec::new(),
        expected: Vec::new(),
        args_match: default_match?,
    };
    if mode == TrajectoryMode::AnyOrder {
        let Some(n) = minimums else {
            source.error(
                f.node(),
                "`tool-trajectory` with `mode: any_order` needs `minimums`",
            );
            return None;
        };
        for (k, v) in source.mapping("minimums", n)? {
            let count = source.integer("minimums", v, 0)?;
            spec.minimums.push((k.key_text(), count));
        }
    } else {
        let Some(n) = expected else {
            source.error(
                f.node(),
                format!(
                    "`tool-trajectory` with `mode: {}` needs `expected`",
                    mode_node.as_str().unwrap_or("")
                ),
            );
            return None;
        };
        let Value::Seq(items) = &n.value else {
            source.error(n, format!("`expected` must be a list, found {}", n.kind()));
            return None;
        };
        for item in items {
            spec.expected.push(expected_call(source, item)?);
        }
    }
    Some(GraderKind::ToolTrajectory(spec))
}

/// A trajectory's `mode` (`-` read as `_`).
fn trajectory_mode(source: &mut Source, mode_node: &Node) -> Option<TrajectoryMode> {
    Some(
        match source.string("mode", mode_node)?.replace('-', "_").as_str() {
            "any_order" => TrajectoryMode::AnyOrder,
            "in_order" => TrajectoryMode::InOrder,
            "exact" => TrajectoryMode::Exact,
            "subset" => TrajectoryMode::Subset,
            "superset" => TrajectoryMode::Superset,
            other => {
                source.error(mode_node, format!("unknown trajectory mode `{other}`, expected one of `any_order`, `in_order`, `exact`, `subset`, `superset`"));
                return None;
            }
        },
    )
}

/// One entry of a trajectory's `expected`: `tool`, `args` (a mapping or `any`), `args_match`,
/// `max_duration_ms`.
fn expected_call(source: &mut Source, item: &Node) -> Option<ExpectedCall> {
    let mut g = Fields::of(source, item, "an expected tool call")?;
    let tool = g.take_some(source, "tool", &[]);
    let args = g.take_some(source, "args", &[]);
    let am = g
        .take_some(source, "args_match", &["argsMatch"])
        .map(|n| args_match(source, n));
    let max = g
        .take_some(source, "max_duration_ms", &["maxDurationMs"])
        .map(|n| source.integer("max_duration_ms", n, 0));
    for key in ["input", "output"] {
        g.ignore(
            source,
            key,
            "a trajectory compares a call's tool and `args` only",
        );
    }
    let tool = match tool {
        Some(t) => source.non_empty("tool", t),
        None => {
            g.missing(source, "tool");
            None
        }
    };
    g.finish(source);
    let args = match args {
        Some(a) if a.as_str() == Some("any") => None,
        Some(a) if matches!(a.value, Value::Map(_)) => Some(a.to_json()),
        Some(a) => {
            source.error(
                a,
                format!("`args` must be a mapping or `any`, found {}", a.kind()),
            );
            return None;
        }
        None => None,
    };
    Some(ExpectedCall {
        tool: tool?,
        args,
        args_match: am.flatten(),
        max_duration_ms: max.flatten(),
    })
}

/// The name of a bare `llm-grader` (no `prompt`, no `rubrics`) among `graders` or their
/// composites' members: it judges the case's `criteria`, else its `expected_output`.
fn bare_llm_grader(graders: &[GraderSpec]) -> Option<&str> {
    graders.iter().find_map(|grader| match &grader.kind {
        GraderKind::LlmGrader(llm) if llm.prompt.is_none() && llm.items.is_empty() => {
            Some(grader.name.as_str())
        }
        GraderKind::Composite(composite) => bare_llm_grader(&composite.members),
        _ => None,
    })
}

/// Records an error at the case `node` when it has neither `criteria` nor `expected_output`
/// and one of its `graders` is a bare `llm-grader`.
pub(crate) fn check_bare_llm_grader(
    source: &mut Source,
    node: &Node,
    graders: &[GraderSpec],
    has_reference: bool,
) {
    if has_reference {
        return;
    }
    if let Some(name) = bare_llm_grader(graders) {
        source.error(
            node,
            format!(
                "grader `{name}` is an `llm-grader` without `prompt` or `rubrics`: it judges the case's `criteria` or `expected_output`, and this case has neither"
            ),
        );
    }
}
