//! The graders a judge answers: rubric items and `llm-grader`'s own keys.
//!
//! | Key | Read as |
//! |---|---|
//! | rubric item | a string (a required checklist item), or `{id, outcome (criteria), weight, required, operator, min_score, required_min_score, score_ranges}` |
//! | `operator` | `correctness` or `contradiction` (agentv's guidance goes into the prompt) |
//! | `min_score` / `required_min_score` | (0, 1] / an integer 0–10 (deprecated, read as / 10): the gate of a scored item; on an item of a grader without `score_ranges` it does nothing and warns |
//! | `score_ranges` | `[{score_range: [lo, hi], outcome}]` or the map `{0: ..., 3: ..., 7: ...}` (keys are lower bounds; must start at 0); integers 0–10, no overlap, every score 0–10 covered. An item with them needs no `outcome` |
//! | `prompt` | `file://<path>`: the file (case dir, then suite dir) is the whole template; a plain string naming an existing file there: the same; other text: inline. `{command: ...}` is an error |
//! | `model` | warns once: agentv reads it and does nothing with it |
//! | [`JUDGE_KEYS`] | errors naming the feature: the judge is skillgym's `judge:` runner (on `rubrics`, `rubric` and `llm-rubric` too) |
//! | `config` | warns once: agentv passes it only to a prompt `command` |
//!
//! `llm-grader` with `rubrics` and no `prompt` is the `rubrics` grader; with neither it judges the
//! case's `criteria` (else its `expected_output`).

use std::path::Path;

use super::super::fields::{Fields, Source};
use super::super::node::{Node, Value};
use super::super::paths::resolve_file;
use super::Dirs;
use crate::grade::spec::{
    GraderKind, JudgePrompt, LlmGraderSpec, RubricItem, RubricOperator, ScoreRange,
};

/// `llm-grader` keys agentv gives a meaning skillgym does not implement, each with the error's
/// reason.
pub(crate) const JUDGE_KEYS: &[(&str, &str)] = &[
    (
        "target",
        "a judge `target` per grader is not supported by skillgym: the judge is `judge:` in skillgym.yaml",
    ),
    (
        "temperature",
        "a judge `temperature` is not supported by skillgym: the judge runner's own settings apply",
    ),
    (
        "max_steps",
        "a judge `max_steps` (agentv's built-in grader agent) is not supported by skillgym",
    ),
    (
        "maxSteps",
        "a judge `max_steps` (agentv's built-in grader agent) is not supported by skillgym",
    ),
    (
        "preprocessors",
        "`preprocessors` (converting an answer's files to text for the judge) are not supported by skillgym",
    ),
];

/// The prefix of an explicit prompt file.
const FILE_PREFIX: &str = "file://";

/// `llm-grader`: `prompt`, `rubrics`, the judge keys.
pub(super) fn llm_grader(
    source: &mut Source,
    f: &mut Fields<'_>,
    dirs: Dirs<'_>,
) -> Option<GraderKind> {
    judge_keys(source, f);
    let prompt = f.take_some(source, "prompt", &[]);
    let rubrics = f.take_some(source, "rubrics", &[]);
    let items = match rubrics {
        Some(n) => rubric_items(source, "rubrics", n)?,
        None => Vec::new(),
    };
    let Some(prompt) = prompt else {
        if items.is_empty() {
            return Some(GraderKind::LlmGrader(LlmGraderSpec {
                prompt: None,
                items,
            }));
        }
        return Some(GraderKind::Rubrics { items });
    };
    let prompt = judge_prompt(source, prompt, dirs)?;
    Some(GraderKind::LlmGrader(LlmGraderSpec {
        prompt: Some(prompt),
        items,
    }))
}

/// `model` and `config` warn; [`JUDGE_KEYS`] are errors (every judged grader type).
pub(super) fn judge_keys(source: &mut Source, f: &mut Fields<'_>) {
    f.ignore(source, "model", "the judge is `judge:` in skillgym.yaml");
    f.ignore(
        source,
        "config",
        "agentv passes it only to a prompt `command`",
    );
    for (key, why) in JUDGE_KEYS {
        if let Some(n) = f.take(source, key) {
            source.error(n, *why);
        }
    }
}

/// A `prompt:` value: a file (see the module's table) or inline text.
pub(super) fn judge_prompt(source: &mut Source, n: &Node, dirs: Dirs<'_>) -> Option<JudgePrompt> {
    if matches!(n.value, Value::Map(_)) {
        source.error(
            n,
            "a prompt `command` (an executable prompt generator) is not supported by skillgym: write the prompt inline or in a file",
        );
        return None;
    }
    let text = source.non_empty("prompt", n)?;
    let written = match text.strip_prefix(FILE_PREFIX) {
        Some(path) => path.to_owned(),
        None if names_a_file(&text, dirs) => text.clone(),
        None => return Some(JudgePrompt::Inline(text)),
    };
    let path = resolve_file(source, n, &written, dirs)?;
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(JudgePrompt::File { path, text }),
        Err(error) => {
            source.error(
                n,
                format!("cannot read prompt file `{}`: {error}", path.display()),
            );
            None
        }
    }
}

/// Whether a plain `prompt` is a one-line relative path to a file of the case or suite.
fn names_a_file(text: &str, dirs: Dirs<'_>) -> bool {
    let path = Path::new(text.trim());
    !text.contains('\n')
        && path.is_relative()
        && (dirs.case.join(path).is_file() || dirs.suite.join(path).is_file())
}

/// Rubric items: a string (one item), or a list of strings and item mappings (see the
/// module's table).
pub(crate) fn rubric_items(source: &mut Source, key: &str, node: &Node) -> Option<Vec<RubricItem>> {
    let items: Vec<&Node> = match &node.value {
        Value::Str(_) => vec![node],
        Value::Seq(items) if !items.is_empty() => items.iter().collect(),
        _ => {
            source.error(
                node,
                format!(
                    "`{key}` must be a non-empty list of rubric items, found {}",
                    node.kind()
                ),
            );
            return None;
        }
    };
    let mut out = Vec::new();
    let mut gates = Vec::new();
    let mut ok = true;
    for (i, item) in items.into_iter().enumerate() {
        let id = format!("rubric-{}", i + 1);
        if let Some(text) = item.as_str() {
            if text.trim().is_empty() {
                source.error(item, "a rubric item must not be empty");
                ok = false;
            }
            out.push(RubricItem::checklist(id, text));
            continue;
        }
        match rubric_item(source, item, id) {
            Some((parsed, gate)) => {
                gates.extend(gate);
                out.push(parsed);
            }
            None => ok = false,
        }
    }
    if out.iter().all(|item| item.score_ranges.is_empty()) {
        for gate in gates {
            source.warn(
                gate,
                "`min_score` in a rubric item is ignored: it gates only items of a grader with `score_ranges` (a checklist item is satisfied or not)",
            );
        }
    }
    ok.then_some(out)
}

/// One item mapping, and the node of its gate (`min_score` / `required_min_score`) if any.
fn rubric_item<'n>(
    source: &mut Source,
    item: &'n Node,
    id: String,
) -> Option<(RubricItem, Option<&'n Node>)> {
    let mut f = Fields::of(source, item, "a rubric item")?;
    let id = f
        .take_some(source, "id", &[])
        .and_then(|n| source.non_empty("id", n))
        .unwrap_or(id);
    let outcome = f.take_some(source, "outcome", &["criteria"]);
    let weight = f
        .take_some(source, "weight", &[])
        .map_or(Some(1.0), |n| source.non_negative("weight", n));
    let required = f
        .take_some(source, "required", &[])
        .map(|n| source.bool("required", n));
    let operator = f
        .take_some(source, "operator", &[])
        .map(|n| operator(source, n));
    let min = f.take_some(source, "min_score", &[]);
    let legacy = f.take_some(source, "required_min_score", &[]);
    let ranges_node = f.take_some(source, "score_ranges", &[]);
    let scored = ranges_node.is_some();
    let ranges = ranges_node.map_or(Some(Vec::new()), |n| score_ranges(source, n));
    let min_score = gate(source, min, legacy);
    let outcome = match outcome {
        Some(n) => source.non_empty("outcome", n),
        None if scored => Some(String::new()),
        None => {
            f.missing(source, "outcome");
            None
        }
    };
    f.finish(source);
    let parsed = RubricItem {
        id,
        outcome: outcome?,
        weight: weight?,
        // A checklist item is required unless it says otherwise; a scored one is gated only
        // when it says so (agentv).
        required: required.unwrap_or(Some(!scored))?,
        operator: operator.unwrap_or(Some(None))?,
        min_score: min_score?,
        score_ranges: ranges?,
    };
    Some((parsed, min.or(legacy)))
}

/// `min_score` in (0, 1], else `required_min_score` (0–10) / 10; both set is an error.
fn gate(source: &mut Source, min: Option<&Node>, legacy: Option<&Node>) -> Option<Option<f64>> {
    match (min, legacy) {
        (Some(_), Some(n)) => {
            source.error(n, "`required_min_score` and `min_score` are the same gate, set only one (`min_score`, in (0, 1])");
            None
        }
        (Some(n), None) => source.unit_score("min_score", n).map(Some),
        (None, Some(n)) => {
            let raw = source.integer("required_min_score", n, 0)?;
            if raw > 10 {
                source.error(
                    n,
                    format!("`required_min_score` must be an integer from 0 to 10, found {raw}"),
                );
                return None;
            }
            Some(Some(raw as f64 / 10.0))
        }
        (None, None) => Some(None),
    }
}

fn operator(source: &mut Source, n: &Node) -> Option<Option<RubricOperator>> {
    match source.string("operator", n)?.as_str() {
        "correctness" => Some(Some(RubricOperator::Correctness)),
        "contradiction" => Some(Some(RubricOperator::Contradiction)),
        other => {
            source.error(
                n,
                format!(
                    "unknown rubric operator `{other}`, expected `correctness` or `contradiction`"
                ),
            );
            None
        }
    }
}

/// `score_ranges`: the list or the shorthand map, then checked for overlap and coverage.
fn score_ranges(source: &mut Source, n: &Node) -> Option<Vec<ScoreRange>> {
    let ranges = match &n.value {
        Value::Seq(items) => items
            .iter()
            .map(|item| range_entry(source, item))
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Option<Vec<_>>>()?,
        Value::Map(entries) => shorthand(source, n, entries)?,
        _ => {
            source.error(
                n,
                format!("`score_ranges` must be a list of `{{score_range: [lo, hi], outcome}}` or a map of lower bounds, found {}", n.kind()),
            );
            return None;
        }
    };
    let mut sorted = ranges.clone();
    sorted.sort_by_key(|r| r.lo);
    for pair in sorted.windows(2) {
        if pair[1].lo <= pair[0].hi {
            source.error(
                n,
                format!(
                    "score ranges [{}, {}] and [{}, {}] overlap",
                    pair[0].lo, pair[0].hi, pair[1].lo, pair[1].hi
                ),
            );
            return None;
        }
    }
    let missing: Vec<String> = (0..=10u8)
        .filter(|s| !ranges.iter().any(|r| (r.lo..=r.hi).contains(s)))
        .map(|s| s.to_string())
        .collect();
    if !missing.is_empty() {
        source.error(
            n,
            format!(
                "score ranges leave out {}: they must cover every score from 0 to 10",
                missing.join(", ")
            ),
        );
        return None;
    }
    Some(ranges)
}

/// `{score_range: [lo, hi], outcome}`.
fn range_entry(source: &mut Source, item: &Node) -> Option<ScoreRange> {
    let mut f = Fields::of(source, item, "a score range")?;
    let bounds = f.take_some(source, "score_range", &[]);
    let outcome = f.take_some(source, "outcome", &["criteria"]);
    let outcome = match outcome {
        Some(o) => source.non_empty("outcome", o),
        None => {
            f.missing(source, "outcome");
            None
        }
    };
    let Some(bounds) = bounds else {
        f.missing(source, "score_range");
        f.finish(source);
        return None;
    };
    f.finish(source);
    let pair = match &bounds.value {
        Value::Seq(pair) if pair.len() == 2 => pair,
        _ => {
            source.error(
                bounds,
                format!("`score_range` must be `[lo, hi]`, found {}", bounds.kind()),
            );
            return None;
        }
    };
    let lo = score(source, &pair[0])?;
    let hi = score(source, &pair[1])?;
    if lo > hi {
        source.error(
            bounds,
            format!("`score_range` [{lo}, {hi}] must not end before it starts"),
        );
        return None;
    }
    Some(ScoreRange {
        lo,
        hi,
        outcome: outcome?,
    })
}

/// An integer score 0–10.
fn score(source: &mut Source, n: &Node) -> Option<u8> {
    let raw = source.integer("score_range", n, 0)?;
    if raw > 10 {
        source.error(
            n,
            format!("`score_range` bounds must be integers from 0 to 10, found {raw}"),
        );
        return None;
    }
    Some(raw as u8)
}

/// `{0: "...", 3: "..."}`: keys are lower bounds, each band ends before the next.
fn shorthand(source: &mut Source, n: &Node, entries: &[(Node, Node)]) -> Option<Vec<ScoreRange>> {
    let mut bands = Vec::new();
    for (key, value) in entries {
        let lo = match key.value {
            Value::Int(i) if (0..=10).contains(&i) => i as u8,
            _ => {
                source.error(
                    key,
                    format!(
                        "`score_ranges` keys must be integers from 0 to 10, found `{}`",
                        key.key_text()
                    ),
                );
                return None;
            }
        };
        bands.push((lo, source.non_empty("outcome", value)?));
    }
    bands.sort_by_key(|(lo, _)| *lo);
    if let Some((first, _)) = bands.first().filter(|(lo, _)| *lo != 0) {
        source.error(n, format!("`score_ranges` must start at 0, found {first}"));
        return None;
    }
    let mut ranges = Vec::with_capacity(bands.len());
    for (i, (lo, outcome)) in bands.iter().enumerate() {
        let hi = bands
            .get(i + 1)
            .map_or(10, |(next, _)| next.saturating_sub(1));
        ranges.push(ScoreRange {
            lo: *lo,
            hi,
            outcome: outcome.clone(),
        });
    }
    Some(ranges)
}
