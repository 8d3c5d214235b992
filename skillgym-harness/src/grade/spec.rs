//! What a declarative case checks, as data: each entry of an agentv-style `assertions:` list
//! (and `criteria`) becomes one [`GraderSpec`]. The suite loader builds them from YAML; the
//! graders evaluate them against a session. Field names follow agentv v4.42.4
//! (`../reference/agentv.md` §3).

use std::path::PathBuf;
use std::time::Duration;

/// One grader of a case, with the fields every grader shares.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GraderSpec {
    /// `name:`, else generated from the kind and value (`contains-<value>`, `skill-trigger-<skill>`, ...).
    pub(crate) name: String,
    /// `weight:` (finite, >= 0; default 1).
    pub(crate) weight: f64,
    /// `required:`: a score under the gate forces the case's score to 0.
    pub(crate) required: bool,
    /// `min_score:` in (0, 1]: the required gate (default: the case's threshold).
    pub(crate) min_score: Option<f64>,
    /// `negate:`: score becomes 1 - score, pass and fail swap.
    pub(crate) negate: bool,
    /// What is checked.
    pub(crate) kind: GraderKind,
}

/// The kinds of grader.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum GraderKind {
    /// `contains` / `icontains`: the final output holds `value`.
    Contains { value: String, ignore_case: bool },
    /// `contains-any` / `icontains-any`: the output holds at least one of `values`.
    ContainsAny {
        values: Vec<String>,
        ignore_case: bool,
    },
    /// `contains-all` / `icontains-all`: the output holds every one of `values`.
    ContainsAll {
        values: Vec<String>,
        ignore_case: bool,
    },
    /// `starts-with`: the trimmed output starts with the trimmed value.
    StartsWith { value: String },
    /// `ends-with`: the trimmed output ends with the trimmed value.
    EndsWith { value: String },
    /// `equals`: trimmed output equals trimmed value.
    Equals { value: String },
    /// `regex`: an unanchored search; `flags` of `i`, `m`, `s` map to the inline flags.
    Regex { pattern: String, flags: String },
    /// `is-json`: the output parses as any JSON value.
    IsJson,
    /// `code-grader`: a command that reads the grading document on stdin.
    CodeGrader(CodeGraderSpec),
    /// `execution-metrics`: limits on the session's figures; score = checks passed / checks.
    ExecutionMetrics(MetricLimits),
    /// `token-usage`: binary, every configured limit met.
    TokenUsage {
        max_total: Option<u64>,
        max_input: Option<u64>,
        max_output: Option<u64>,
    },
    /// `latency`: the session's duration is at most `threshold_ms`.
    Latency { threshold_ms: u64 },
    /// `cost`: the session's cost is at most `budget_usd`.
    Cost { budget_usd: f64 },
    /// `tool-trajectory`: the tool calls against an expected sequence or minimums.
    ToolTrajectory(TrajectorySpec),
    /// `skill-trigger`: whether the skill was used (the same evidence as the Rust assertions;
    /// failed loads never count).
    SkillTrigger { skill: String, should_trigger: bool },
    /// Plain strings of an `assertions:` list and `criteria`, graded by the judge runner.
    Rubrics { items: Vec<RubricItem> },
    /// `llm-grader` with a `prompt:`, or with neither `prompt` nor `rubrics` (judged on the
    /// case's `criteria`, else its `expected_output`).
    LlmGrader(LlmGraderSpec),
    /// `composite`: member graders and how their outcomes combine.
    Composite(CompositeSpec),
    /// `field-accuracy`: fields of the JSON answer against the expected output's.
    FieldAccuracy(FieldAccuracySpec),
}

impl GraderKind {
    /// Whether grading it asks the judge runner (a composite: when its aggregator or a member
    /// does).
    pub(crate) fn needs_judge(&self) -> bool {
        match self {
            GraderKind::Rubrics { .. } | GraderKind::LlmGrader(_) => true,
            GraderKind::Composite(composite) => {
                matches!(composite.aggregator, Aggregator::Judge { .. })
                    || composite.members.iter().any(|m| m.kind.needs_judge())
            }
            _ => false,
        }
    }

    /// The grader's `type:` as agentv v4.42.4 spells it (rubrics: `rubrics`).
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            GraderKind::Contains {
                ignore_case: false, ..
            } => "contains",
            GraderKind::Contains {
                ignore_case: true, ..
            } => "icontains",
            GraderKind::ContainsAny {
                ignore_case: false, ..
            } => "contains-any",
            GraderKind::ContainsAny {
                ignore_case: true, ..
            } => "icontains-any",
            GraderKind::ContainsAll {
                ignore_case: false, ..
            } => "contains-all",
            GraderKind::ContainsAll {
                ignore_case: true, ..
            } => "icontains-all",
            GraderKind::StartsWith { .. } => "starts-with",
            GraderKind::EndsWith { .. } => "ends-with",
            GraderKind::Equals { .. } => "equals",
            GraderKind::Regex { .. } => "regex",
            GraderKind::IsJson => "is-json",
            GraderKind::CodeGrader(_) => "code-grader",
            GraderKind::ExecutionMetrics(_) => "execution-metrics",
            GraderKind::TokenUsage { .. } => "token-usage",
            GraderKind::Latency { .. } => "latency",
            GraderKind::Cost { .. } => "cost",
            GraderKind::ToolTrajectory(_) => "tool-trajectory",
            GraderKind::SkillTrigger { .. } => "skill-trigger",
            GraderKind::Rubrics { .. } => "rubrics",
            GraderKind::LlmGrader(_) => "llm-grader",
            GraderKind::Composite(_) => "composite",
            GraderKind::FieldAccuracy(_) => "field-accuracy",
        }
    }
}

/// `code-grader`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CodeGraderSpec {
    /// `command:` as written.
    pub(crate) command: GraderCommand,
    /// `cwd:`, resolved against the case directory; `None`: the attempt's workspace.
    pub(crate) cwd: Option<PathBuf>,
    /// `timeout:`; `None`: the case's timeout.
    pub(crate) timeout: Option<Duration>,
    /// `config:` and every key the grader does not know, passed through as `config`.
    pub(crate) config: serde_json::Value,
}

/// A command: a string run by `sh -c`, or an argv run directly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GraderCommand {
    /// `command: "bun test"`.
    Shell(String),
    /// `command: [bun, test]`.
    Argv(Vec<String>),
}

impl GraderCommand {
    /// The argv it runs, program first: `["sh", "-c", line]` for a shell line.
    pub(crate) fn argv(&self) -> Vec<String> {
        match self {
            GraderCommand::Shell(line) => vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
            GraderCommand::Argv(argv) => argv.clone(),
        }
    }
}

/// `execution-metrics`'s limits (each optional; at least one is set).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MetricLimits {
    pub(crate) max_tool_calls: Option<u64>,
    pub(crate) max_llm_calls: Option<u64>,
    pub(crate) max_tokens: Option<u64>,
    pub(crate) max_cost_usd: Option<f64>,
    pub(crate) max_duration_ms: Option<u64>,
    pub(crate) target_exploration_ratio: Option<f64>,
    /// Default 0.2.
    pub(crate) exploration_tolerance: f64,
}

/// `tool-trajectory`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TrajectorySpec {
    pub(crate) mode: TrajectoryMode,
    /// `minimums:` (any_order): tool name and least count, in file order.
    pub(crate) minimums: Vec<(String, u64)>,
    /// `expected:` (the other modes).
    pub(crate) expected: Vec<ExpectedCall>,
    /// `args_match:` for items without their own.
    pub(crate) args_match: ArgsMatch,
}

/// `tool-trajectory` `mode:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrajectoryMode {
    AnyOrder,
    InOrder,
    Exact,
    Subset,
    Superset,
}

/// One `expected:` item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExpectedCall {
    pub(crate) tool: String,
    /// `args:`; `None` for `any` or absent.
    pub(crate) args: Option<serde_json::Value>,
    pub(crate) args_match: Option<ArgsMatch>,
    pub(crate) max_duration_ms: Option<u64>,
}

/// How expected arguments are compared with a call's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgsMatch {
    Exact,
    Superset,
    Subset,
    Ignore,
    /// Only these dot paths are compared.
    Paths(Vec<String>),
}

/// One rubric item for the judge.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RubricItem {
    /// `id:`, default `rubric-<n>`.
    pub(crate) id: String,
    /// The outcome to check, in words (may be empty on an item with `score_ranges`).
    pub(crate) outcome: String,
    pub(crate) weight: f64,
    /// A checklist item: missing it fails the grader. A scored item: its gate is 1.0 unless
    /// `min_score` says otherwise.
    pub(crate) required: bool,
    /// `operator:`: how the judge reads the outcome.
    pub(crate) operator: Option<RubricOperator>,
    /// `min_score` (0, 1], or deprecated `required_min_score` / 10: a scored item's gate.
    pub(crate) min_score: Option<f64>,
    /// `score_ranges:`: bands of the judge's 0–10 score; non-empty makes the grader scored.
    pub(crate) score_ranges: Vec<ScoreRange>,
}

impl RubricItem {
    /// A required checklist item of weight 1.
    pub(crate) fn checklist(id: impl Into<String>, outcome: impl Into<String>) -> Self {
        RubricItem {
            id: id.into(),
            outcome: outcome.into(),
            weight: 1.0,
            required: true,
            operator: None,
            min_score: None,
            score_ranges: Vec::new(),
        }
    }
}

/// A rubric item's `operator:` (agentv's wording goes into the judge's prompt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RubricOperator {
    /// Satisfied only when the answer positively supports the outcome.
    Correctness,
    /// Satisfied unless the answer contradicts the outcome.
    Contradiction,
}

/// One band of a scored rubric item: the judge's integer score in `lo..=hi` means `outcome`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScoreRange {
    pub(crate) lo: u8,
    pub(crate) hi: u8,
    pub(crate) outcome: String,
}

/// `llm-grader`'s own fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LlmGraderSpec {
    /// `prompt:`; `None`: the default prompt on the case's criteria.
    pub(crate) prompt: Option<JudgePrompt>,
    /// `rubrics:` (empty: the judge answers a score in 0..=1).
    pub(crate) items: Vec<RubricItem>,
}

/// A custom judge prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JudgePrompt {
    /// Inline text: a template when it names a template variable, else the criteria of the
    /// default prompt.
    Inline(String),
    /// A file's text (read at load): always the whole template.
    File { path: PathBuf, text: String },
}

/// `composite`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CompositeSpec {
    /// `assertions:` (`evaluators`), each a grader of its own.
    pub(crate) members: Vec<GraderSpec>,
    pub(crate) aggregator: Aggregator,
}

/// How a composite combines its members.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Aggregator {
    /// `weighted_average`: members' weights by name (default 1); skipped members left out.
    WeightedAverage { weights: Vec<(String, f64)> },
    /// `threshold`: score = members passing / members graded; pass at `threshold`.
    Threshold { threshold: f64 },
    /// `code-grader`: a command reads `{"results": {name: outcome}}` on stdin and prints the
    /// composite's result as a code grader does.
    Command {
        command: GraderCommand,
        cwd: PathBuf,
    },
    /// `llm-grader`: the judge reads the members' results (in `prompt`'s
    /// `{{EVALUATOR_RESULTS_JSON}}`, else agentv's default prompt) and answers a score.
    Judge { prompt: Option<JudgePrompt> },
}

/// `field-accuracy`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldAccuracySpec {
    pub(crate) fields: Vec<FieldSpec>,
    /// `aggregation: all_or_nothing` (else `weighted_average`).
    pub(crate) all_or_nothing: bool,
}

/// One field of `field-accuracy`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldSpec {
    /// A dot path with `[i]` indexes, e.g. `invoice.items[0].amount`.
    pub(crate) path: String,
    pub(crate) matcher: FieldMatch,
    /// Default true: a missing candidate value scores 0 (else it does not count).
    pub(crate) required: bool,
    /// Default 1.
    pub(crate) weight: f64,
}

/// How a field's values are compared.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldMatch {
    /// Deep equality of the JSON values.
    Exact,
    /// Numbers (or numeric strings) within `tolerance`, relative to the expected value if
    /// `relative`.
    Numeric { tolerance: f64, relative: bool },
    /// The same calendar day; `formats` decide day-first or month-first numeric dates.
    Date { formats: Vec<String> },
}
