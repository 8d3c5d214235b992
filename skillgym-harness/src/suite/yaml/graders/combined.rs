//! `composite` and `field-accuracy`.
//!
//! | Key | Read as |
//! |---|---|
//! | `composite` `assertions` (`assert`, `evaluators`) | a non-empty list of grader mappings, each read as an `assertions:` entry (composites nest) |
//! | `aggregator: {type: weighted_average, weights}` | `weights`: member name → number >= 0; a name no member has is an error |
//! | `aggregator: {type: threshold, threshold}` | `threshold` in [0, 1] |
//! | `aggregator: {type: code-grader, path}` | `path`: a command line (`sh -c`), run in the suite's directory |
//! | `aggregator: {type: llm-grader, prompt}` | `prompt`: text, or a file as an `llm-grader`'s; `{{EVALUATOR_RESULTS_JSON}}` in it becomes the members' results |
//! | `field-accuracy` `fields` | a non-empty list of `{path, match: exact / numeric_tolerance / date, required, weight, tolerance, relative, formats}`; `tolerance`/`relative` only with `numeric_tolerance`, `formats` only with `date` |
//! | `field-accuracy` `aggregation` | `weighted_average` (default) or `all_or_nothing` |

use super::super::fields::{Fields, Source};
use super::super::node::{Node, Value};
use super::judged::judge_prompt;
use super::{Dirs, parse_one};
use crate::grade::spec::{
    Aggregator, CompositeSpec, FieldAccuracySpec, FieldMatch, FieldSpec, GraderCommand, GraderKind,
    GraderSpec,
};

/// `composite`: its members and its aggregator.
pub(super) fn composite(
    source: &mut Source,
    f: &mut Fields<'_>,
    dirs: Dirs<'_>,
) -> Option<GraderKind> {
    let list = f.take_some(source, "assertions", &["assert", "evaluators"]);
    let aggregator = f.take_some(source, "aggregator", &[]);
    let Some(list) = list else {
        source.error(
            f.node(),
            "`composite` needs `assertions` (its member graders)",
        );
        return None;
    };
    let members = members(source, list, dirs)?;
    let Some(aggregator) = aggregator else {
        source.error(
            f.node(),
            "`composite` needs `aggregator` (`weighted_average`, `threshold`, `code-grader` or `llm-grader`)",
        );
        return None;
    };
    let aggregator = aggregator_of(source, aggregator, &members, dirs)?;
    Some(GraderKind::Composite(CompositeSpec {
        members,
        aggregator,
    }))
}

fn members(source: &mut Source, list: &Node, dirs: Dirs<'_>) -> Option<Vec<GraderSpec>> {
    let items = match &list.value {
        Value::Seq(items) if !items.is_empty() => items,
        _ => {
            source.error(
                list,
                format!(
                    "a composite's `assertions` must be a non-empty list of graders, found {}",
                    list.kind()
                ),
            );
            return None;
        }
    };
    let parsed: Vec<Option<GraderSpec>> = items
        .iter()
        .map(|item| parse_one(source, item, dirs))
        .collect();
    parsed.into_iter().collect()
}

fn aggregator_of(
    source: &mut Source,
    n: &Node,
    members: &[GraderSpec],
    dirs: Dirs<'_>,
) -> Option<Aggregator> {
    let mut f = Fields::of(source, n, "an aggregator")?;
    let Some(ty) = f.take_some(source, "type", &[]) else {
        f.missing(source, "type");
        return None;
    };
    let written = source.string("type", ty)?;
    let aggregator = match written.replace('_', "-").as_str() {
        "weighted-average" => weighted(source, &mut f, members),
        "threshold" => match f.take_some(source, "threshold", &[]) {
            Some(t) => source
                .fraction("threshold", t)
                .map(|threshold| Aggregator::Threshold { threshold }),
            None => {
                f.missing(source, "threshold");
                None
            }
        },
        "code-grader" => match f.take_some(source, "path", &["command"]) {
            Some(p) => source.non_empty("path", p).map(|line| Aggregator::Command {
                command: GraderCommand::Shell(line),
                cwd: dirs.suite.to_path_buf(),
            }),
            None => {
                f.missing(source, "path");
                None
            }
        },
        "llm-grader" => {
            let prompt = match f.take_some(source, "prompt", &[]) {
                Some(p) => Some(judge_prompt(source, p, dirs)?),
                None => None,
            };
            Some(Aggregator::Judge { prompt })
        }
        _ => {
            source.error(
                ty,
                format!("unknown aggregator type `{written}`, expected `weighted_average`, `threshold`, `code-grader` or `llm-grader`"),
            );
            None
        }
    };
    f.finish(source);
    aggregator
}

/// `weighted_average` and its `weights` (names of members).
fn weighted(source: &mut Source, f: &mut Fields<'_>, members: &[GraderSpec]) -> Option<Aggregator> {
    let mut weights = Vec::new();
    if let Some(n) = f.take_some(source, "weights", &[]) {
        for (key, value) in source.mapping("weights", n)? {
            let name = key.key_text();
            if !members.iter().any(|m| m.name == name) {
                let names: Vec<String> = members.iter().map(|m| format!("`{}`", m.name)).collect();
                source.error(
                    key,
                    format!(
                        "`weights` names `{name}`, which is no member of the composite ({})",
                        names.join(", ")
                    ),
                );
                return None;
            }
            weights.push((name, source.non_negative("weights", value)?));
        }
    }
    Some(Aggregator::WeightedAverage { weights })
}

/// `field-accuracy`: `fields` and `aggregation`.
pub(super) fn field_accuracy(source: &mut Source, f: &mut Fields<'_>) -> Option<GraderKind> {
    let fields = f.take_some(source, "fields", &[]);
    let aggregation = f.take_some(source, "aggregation", &[]);
    let all_or_nothing = match aggregation {
        None => Some(false),
        Some(n) => match source.string("aggregation", n)?.as_str() {
            "weighted_average" => Some(false),
            "all_or_nothing" => Some(true),
            other => {
                source.error(
                    n,
                    format!("unknown aggregation `{other}`, expected `weighted_average` or `all_or_nothing`"),
                );
                None
            }
        },
    };
    let list = match fields.map(|n| (n, &n.value)) {
        Some((_, Value::Seq(items))) if !items.is_empty() => items,
        Some((n, _)) => {
            source.error(
                n,
                format!(
                    "`fields` must be a non-empty list of fields, found {}",
                    n.kind()
                ),
            );
            return None;
        }
        None => {
            source.error(
                f.node(),
                "`field-accuracy` needs `fields` (a list of `{path, match}`)",
            );
            return None;
        }
    };
    let parsed: Vec<Option<FieldSpec>> = list.iter().map(|item| field(source, item)).collect();
    Some(GraderKind::FieldAccuracy(FieldAccuracySpec {
        fields: parsed.into_iter().collect::<Option<Vec<_>>>()?,
        all_or_nothing: all_or_nothing?,
    }))
}

/// One `fields:` entry.
fn field(source: &mut Source, item: &Node) -> Option<FieldSpec> {
    let mut f = Fields::of(source, item, "a field")?;
    let path = f.take_some(source, "path", &[]);
    let matcher = f.take_some(source, "match", &[]);
    let required = f
        .take_some(source, "required", &[])
        .map_or(Some(true), |n| source.bool("required", n));
    let weight = f
        .take_some(source, "weight", &[])
        .map_or(Some(1.0), |n| source.non_negative("weight", n));
    let tolerance = f.take_some(source, "tolerance", &[]);
    let relative = f.take_some(source, "relative", &[]);
    let formats = f.take_some(source, "formats", &[]);
    let path = match path {
        Some(p) => source.non_empty("path", p),
        None => {
            f.missing(source, "path");
            None
        }
    };
    let matcher = match matcher {
        Some(m) => match_of(source, m, tolerance, relative, formats),
        None => {
            f.missing(source, "match");
            None
        }
    };
    f.finish(source);
    Some(FieldSpec {
        path: path?,
        matcher: matcher?,
        required: required?,
        weight: weight?,
    })
}

/// `match:` with the keys that belong to it; a key of another match is an error.
fn match_of(
    source: &mut Source,
    m: &Node,
    tolerance: Option<&Node>,
    relative: Option<&Node>,
    formats: Option<&Node>,
) -> Option<FieldMatch> {
    let written = source.string("match", m)?;
    let stray = |source: &mut Source, key: &str, n: Option<&Node>, only: &str| {
        if let Some(n) = n {
            source.error(
                n,
                format!("`{key}` applies only to `match: {only}`, not `{written}`"),
            );
        }
        n.is_none()
    };
    match written.as_str() {
        "exact" => {
            let ok = stray(source, "tolerance", tolerance, "numeric_tolerance")
                & stray(source, "relative", relative, "numeric_tolerance")
                & stray(source, "formats", formats, "date");
            ok.then_some(FieldMatch::Exact)
        }
        "numeric_tolerance" => {
            let ok = stray(source, "formats", formats, "date");
            let tolerance = tolerance.map_or(Some(0.0), |n| source.non_negative("tolerance", n));
            let relative = relative.map_or(Some(false), |n| source.bool("relative", n));
            ok.then_some(FieldMatch::Numeric {
                tolerance: tolerance?,
                relative: relative?,
            })
        }
        "date" => {
            let ok = stray(source, "tolerance", tolerance, "numeric_tolerance")
                & stray(source, "relative", relative, "numeric_tolerance");
            let formats = formats.map_or(Some(Vec::new()), |n| source.strings("formats", n));
            ok.then_some(FieldMatch::Date { formats: formats? })
        }
        other => {
            source.error(
                m,
                format!("unknown field match `{other}`, expected `exact`, `numeric_tolerance` or `date` (fuzzy matching: use a `code-grader`)"),
            );
            None
        }
    }
}
