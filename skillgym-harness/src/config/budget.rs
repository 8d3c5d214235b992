//! `run.budget`: what a run may spend before it starts no more sessions.
//!
//! ```yaml
//! run:
//!   budget: { sessions: 200, tokens: 5000000, cost_usd: 20 }   # at least one
//! ```

use serde::Deserialize;
use serde::de::{self, Deserializer};

use super::yaml::{self, Located};

/// `run.budget`: each limit, when given, stops the run from starting sessions once reached.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct BudgetConfig {
    /// `sessions`: agent sessions started (retries and samples count).
    pub sessions: Option<u64>,
    /// `tokens`: total tokens the sessions reported.
    pub tokens: Option<u64>,
    /// `cost_usd`: US dollars the sessions cost (reported, or estimated from their tokens).
    pub cost_usd: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    #[serde(default)]
    sessions: Option<Located<u64>>,
    #[serde(default)]
    tokens: Option<Located<u64>>,
    #[serde(default)]
    cost_usd: Option<Located<f64>>,
}

const HELP: &str = "e.g. `budget: { sessions: 200 }`, `budget: { tokens: 5000000, cost_usd: 20 }`";

/// `run.budget` as an optional mapping of at least one positive limit.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<BudgetConfig>, D::Error> {
    let section = Located::<Option<RawBudget>>::deserialize(deserializer)?;
    let empty = || {
        de::Error::custom(yaml::locate(
            section.line,
            section.column,
            yaml::with_help("`budget` needs `sessions`, `tokens` or `cost_usd`", HELP),
        ))
    };
    let Some(raw) = section.value else {
        return Err(empty());
    };
    if raw.sessions.is_none() && raw.tokens.is_none() && raw.cost_usd.is_none() {
        return Err(empty());
    }
    for (key, value) in [("sessions", &raw.sessions), ("tokens", &raw.tokens)] {
        if let Some(limit) = value.as_ref().filter(|v| v.value == 0) {
            return Err(de::Error::custom(
                limit.error(format!("`budget.{key}` must be at least 1")),
            ));
        }
    }
    if let Some(cost) = raw
        .cost_usd
        .as_ref()
        .filter(|c| !(c.value.is_finite() && c.value > 0.0))
    {
        return Err(de::Error::custom(cost.error(format!(
            "`budget.cost_usd` must be a positive number of US dollars, found {}",
            cost.value
        ))));
    }
    Ok(Some(BudgetConfig {
        sessions: raw.sessions.map(|s| s.value),
        tokens: raw.tokens.map(|t| t.value),
        cost_usd: raw.cost_usd.map(|c| c.value),
    }))
}
