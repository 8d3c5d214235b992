//! `triggers:`, how the trigger suites of the skills under test run.
//!
//! ```yaml
//! triggers:
//!   files: [triggers/release-notes.yaml]   # trigger sets kept elsewhere than beside SKILL.md
//!   distractors: [distractors/pdf-forms]   # skills installed beside the skills under test
//!   samples: 3                             # sessions per prompt and runner
//!   quiet_after: 3                         # actions without a skill before a session is quiet
//!   min_recall: 0.8                        # gates per skill and runner
//!   min_precision: 0.9
//! ```
//!
//! | key | meaning |
//! |---|---|
//! | `files` | trigger files (`triggers.yaml` form) besides the `triggers.yaml` found beside each skill under test's `SKILL.md` (vs the config file) |
//! | `distractors` | skill directories installed in every trigger session besides the skills under test, so that a skill is chosen among realistic neighbours (vs the config file) |
//! | `samples` | sessions per trigger prompt and runner (default: the run's `samples`, else 1); a trigger file's own `samples` wins |
//! | `quiet_after` | a trigger session ends as *quiet* at the agent's Nth action (a tool call) that loads no skill (default 3); it ends as *fired* at the first skill load |
//! | `min_recall`, `min_precision` | the gates on each skill's recall and precision on each runner (0 to 1); a trigger file's own win |

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::Deserializer;

use super::fields;
use super::yaml::Located;

/// The default `triggers.quiet_after`.
pub const DEFAULT_QUIET_AFTER: u32 = 3;

/// `triggers:` of `skillgym.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TriggersConfig {
    /// `files`: trigger files besides those beside each skill's `SKILL.md` (absolute after
    /// [`Config::parse`](super::Config::parse)).
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub files: Vec<Located<PathBuf>>,
    /// `distractors`: skill directories installed in every trigger session (absolute after
    /// parsing).
    #[serde(default, deserialize_with = "fields::null_as_default")]
    pub distractors: Vec<Located<PathBuf>>,
    /// `samples`: sessions per trigger prompt and runner.
    #[serde(default, deserialize_with = "de_samples")]
    pub samples: Option<u32>,
    /// `quiet_after`: actions without a skill after which a trigger session is quiet.
    #[serde(default, deserialize_with = "de_quiet_after")]
    pub quiet_after: Option<u32>,
    /// `min_recall`: the gate on each skill's recall on each runner.
    #[serde(default, deserialize_with = "de_min_recall")]
    pub min_recall: Option<f64>,
    /// `min_precision`: the gate on each skill's precision on each runner.
    #[serde(default, deserialize_with = "de_min_precision")]
    pub min_precision: Option<f64>,
}

fn de_samples<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    fields::opt_int(deserializer, "samples", 1)
}

fn de_quiet_after<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    fields::opt_int(deserializer, "quiet_after", 1)
}

fn de_min_recall<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    fields::opt_fraction(deserializer, "min_recall")
}

fn de_min_precision<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    fields::opt_fraction(deserializer, "min_precision")
}
