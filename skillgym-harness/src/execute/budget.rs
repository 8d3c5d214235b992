//! The run's budget as it is spent: sessions started, tokens and money reported, checked
//! before each session starts (`run.budget`).
//!
//! Each process keeps its own account: under nextest's process per test every trial has the
//! whole budget.

use std::sync::Mutex;

use skillgym::Usage;

use crate::config::BudgetConfig;

/// What the run has spent against its budget.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    limits: Option<BudgetConfig>,
    spent: Mutex<Spent>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Spent {
    sessions: u64,
    tokens: u64,
    cost_usd: f64,
}

impl Budget {
    /// A budget of `limits` (none: unlimited).
    pub(crate) fn new(limits: Option<BudgetConfig>) -> Budget {
        Budget {
            limits,
            spent: Mutex::default(),
        }
    }

    /// Starts a session unless a limit is reached: `Err` says which.
    pub(crate) fn start_session(&self) -> Result<(), String> {
        let Some(limits) = self.limits else {
            return Ok(());
        };
        let mut spent = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(reached) = reached(&limits, &spent) {
            return Err(reached);
        }
        spent.sessions += 1;
        Ok(())
    }

    /// Adds what a finished session reported.
    pub(crate) fn spend(&self, usage: &Usage) {
        if self.limits.is_none() {
            return;
        }
        let mut spent = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        spent.tokens = spent
            .tokens
            .saturating_add(usage.total_tokens.map_or(0, |t| t.value));
        spent.cost_usd += usage.cost_usd.unwrap_or(0.0);
    }
}

/// The limit `spent` has reached, said as the run's budget, if any.
fn reached(limits: &BudgetConfig, spent: &Spent) -> Option<String> {
    if let Some(sessions) = limits.sessions.filter(|&s| spent.sessions >= s) {
        return Some(format!("the run's budget of {sessions} sessions"));
    }
    if let Some(tokens) = limits.tokens.filter(|&t| spent.tokens >= t) {
        return Some(format!(
            "the run's budget of {} tokens ({} spent)",
            crate::figures::thousands(tokens),
            crate::figures::thousands(spent.tokens)
        ));
    }
    if let Some(cost) = limits.cost_usd.filter(|&c| spent.cost_usd >= c) {
        return Some(format!(
            "the run's budget of ${cost:.2} (${:.2} spent)",
            spent.cost_usd
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(tokens: u64, cost: f64) -> Usage {
        serde_json::from_value(serde_json::json!({
            "input_chars": 0, "output_chars": 0, "reasoning_chars": 0,
            "total_tokens": {"value": tokens, "source": "provider"},
            "cost_usd": cost,
        }))
        .unwrap()
    }

    #[test]
    fn sessions_stop_at_the_first_limit_reached() {
        let unlimited = Budget::new(None);
        for _ in 0..1000 {
            assert!(unlimited.start_session().is_ok());
        }
        let budget = Budget::new(Some(BudgetConfig {
            sessions: Some(3),
            tokens: Some(250),
            cost_usd: None,
        }));
        assert!(budget.start_session().is_ok());
        budget.spend(&usage(100, 0.0));
        assert!(budget.start_session().is_ok());
        budget.spend(&usage(100, 0.0));
        assert!(budget.start_session().is_ok());
        budget.spend(&usage(100, 0.0));
        // Both limits are reached; the first one checked is said.
        assert_eq!(
            budget.start_session().unwrap_err(),
            "the run's budget of 3 sessions"
        );
        let money = Budget::new(Some(BudgetConfig {
            sessions: None,
            tokens: None,
            cost_usd: Some(0.05),
        }));
        assert!(money.start_session().is_ok());
        money.spend(&usage(10, 0.06));
        assert_eq!(
            money.start_session().unwrap_err(),
            "the run's budget of $0.05 ($0.06 spent)"
        );
    }
}
