//! `snapshots:`, the token snapshots section: which figure of each execution is compared with a
//! committed baseline, and how far it may move.
//!
//! ```yaml
//! snapshots:
//!   path: skillgym.snapshots.json   # vs the config dir; this is the default
//!   metric: total_tokens            # input_tokens | output_tokens | total_tokens | cost | duration
//!   tolerance: { percent: 10, absolute: 200 }   # at least one; with both, the larger allowance
//!   improvements: pass              # pass (default) | fail: whether a drop beyond it fails
//! ```

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use super::yaml::{self, Located};
use crate::results::SnapshotMetric;

/// The default baseline file, in the config file's directory.
pub const DEFAULT_SNAPSHOTS_FILE: &str = "skillgym.snapshots.json";

/// `snapshots:` token snapshots are on when the section is there.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SnapshotsConfig {
    /// `path`: the baseline file (absolute after [`Config::parse`](super::Config::parse);
    /// default `<config dir>/skillgym.snapshots.json`).
    pub path: PathBuf,
    /// `metric`: the figure compared (default `total_tokens`).
    pub metric: SnapshotMetric,
    /// `tolerance`: how far the figure may move from its baseline.
    pub tolerance: Tolerance,
    /// `improvements`: whether a figure below the tolerance fails.
    pub improvements: Improvements,
}

/// `snapshots.tolerance`: at least one of the two. With both, a figure may move by the larger
/// of the two allowances (`absolute: 200, percent: 10` allows 200 on a baseline of 1,000 and
/// 1,000 on one of 10,000).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Tolerance {
    /// `absolute`: in the metric's unit (tokens, US dollars, milliseconds), >= 0.
    pub absolute: Option<f64>,
    /// `percent`: of the baseline, >= 0.
    pub percent: Option<f64>,
}

impl Tolerance {
    /// A tolerance of `absolute` units and/or `percent` percent.
    pub fn new(absolute: Option<f64>, percent: Option<f64>) -> Tolerance {
        Tolerance { absolute, percent }
    }

    /// How far a figure may move from `baseline`: the larger of the two allowances given.
    pub fn allowance(&self, baseline: f64) -> f64 {
        let relative = self.percent.map(|p| baseline.abs() * p / 100.0);
        match (self.absolute, relative) {
            (Some(a), Some(r)) => a.max(r),
            (Some(a), None) => a,
            (None, Some(r)) => r,
            (None, None) => 0.0,
        }
    }
}

/// `snapshots.improvements`: what a figure below its baseline by more than the tolerance does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Improvements {
    /// It passes, and the lower figure is proposed as the new baseline (the default).
    #[default]
    Pass,
    /// It fails until the lower baseline is accepted, so the baseline always follows a gain.
    Fail,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSnapshots {
    #[serde(default)]
    path: Option<Located<PathBuf>>,
    #[serde(default)]
    metric: Option<SnapshotMetric>,
    #[serde(default)]
    tolerance: Option<Located<Option<RawTolerance>>>,
    #[serde(default)]
    improvements: Option<Improvements>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    #[serde(default)]
    absolute: Option<Located<f64>>,
    #[serde(default)]
    percent: Option<Located<f64>>,
}

const TOLERANCE_HELP: &str =
    "e.g. `tolerance: { percent: 10 }`, `tolerance: { absolute: 500 }`, or both";

/// `snapshots:` as an optional section that, when present, must say its tolerance.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<SnapshotsConfig>, D::Error> {
    let section = Located::<Option<RawSnapshots>>::deserialize(deserializer)?;
    let at = |message: &str| {
        de::Error::custom(yaml::locate(
            section.line,
            section.column,
            yaml::with_help(message, TOLERANCE_HELP),
        ))
    };
    let Some(raw) = section.value else {
        return Err(at("`snapshots` needs a `tolerance`"));
    };
    let tolerance = match raw.tolerance {
        None => return Err(at("`snapshots` needs a `tolerance`")),
        Some(Located {
            value: None,
            line,
            column,
        }) => {
            return Err(de::Error::custom(yaml::locate(
                line,
                column,
                yaml::with_help("`tolerance` needs `absolute` or `percent`", TOLERANCE_HELP),
            )));
        }
        Some(Located {
            value: Some(tolerance),
            line,
            column,
        }) => tolerance_of(tolerance, line, column).map_err(de::Error::custom)?,
    };
    let path = match raw.path {
        Some(path) if path.value.as_os_str().is_empty() => {
            return Err(de::Error::custom(path.error("`path` must not be empty")));
        }
        Some(path) => path.value,
        None => PathBuf::from(DEFAULT_SNAPSHOTS_FILE),
    };
    Ok(Some(SnapshotsConfig {
        path,
        metric: raw.metric.unwrap_or_default(),
        tolerance,
        improvements: raw.improvements.unwrap_or_default(),
    }))
}

fn tolerance_of(raw: RawTolerance, line: u32, column: u32) -> Result<Tolerance, String> {
    if raw.absolute.is_none() && raw.percent.is_none() {
        return Err(yaml::locate(
            line,
            column,
            yaml::with_help("`tolerance` needs `absolute` or `percent`", TOLERANCE_HELP),
        ));
    }
    for (key, value) in [("absolute", &raw.absolute), ("percent", &raw.percent)] {
        if let Some(value) = value
            && !(value.value.is_finite() && value.value >= 0.0)
        {
            return Err(value.error(format!(
                "`{key}` must be a number >= 0, found {}",
                value.value
            )));
        }
    }
    Ok(Tolerance {
        absolute: raw.absolute.map(|a| a.value),
        percent: raw.percent.map(|p| p.value),
    })
}
