//! Estimated cost: what a session cost at list prices, from its token figures, when the agent
//! reports no cost of its own (Codex, Copilot, Gemini CLI and Qwen Code report none; Claude
//! Code and OpenCode do, and theirs is kept).
//!
//! A price is in US dollars per million tokens, for four kinds of token:
//!
//! | kind | tokens priced | default in `skillgym.yaml` |
//! |---|---|---|
//! | `input` | input tokens not read from the cache (`input - cache`) | required |
//! | `cached_input` | cache-read tokens | `input` (no discount assumed) |
//! | `output` | output tokens, reasoning excluded | required |
//! | `reasoning` | reasoning tokens | `output` (providers bill them as output) |
//!
//! so `cost = ((input - cache) × input + cache × cached_input + output × output + reasoning ×
//! reasoning) / 10^6`. A session is priced only when its input and output figures are known
//! and came from the provider (or were derived from its figures), never when they are
//! estimated from characters; a missing cache or reasoning figure counts as 0.
//!
//! Built-in prices ([`builtin()`]), for the models the adapters and examples name: list prices,
//! standard tier, the shortest context tier, as the providers published them and
//! [models.dev](https://models.dev) records them, checked on 2026-11-27. Prices change, and
//! long-context tiers (a request beyond 200K or 272K input tokens costs more), batch and
//! priority tiers, cache writes and negotiated discounts are not modelled: `pricing:` in
//! `skillgym.yaml` overrides an entry or adds a model ([`PriceTable::with`]).
//!
//! | model | input | cached input | output | reasoning | provider |
//! |---|---:|---:|---:|---:|---|
//! | `claude-sonnet-4-6` | 3.00 | 0.30 | 15.00 | 15.00 | Anthropic |
//! | `gpt-5.5` | 5.00 | 0.50 | 30.00 | 30.00 | OpenAI |
//! | `gpt-5.4` | 2.50 | 0.25 | 15.00 | 15.00 | OpenAI |
//! | `gemini-2.5-pro` | 1.25 | 0.125 | 10.00 | 10.00 | Google |
//! | `qwen3-coder-plus` | 1.00 | 0.20 | 5.00 | 5.00 | Alibaba Cloud (international, up to 32K input) |
//!
//! Which entry prices a model id ([`PriceTable::lookup`]), first match wins:
//!
//! 1. the id as written (`gpt-5.5`);
//! 2. without a provider prefix, the text after the last `/` (`openai/gpt-5.5`,
//!    `anthropic/claude-sonnet-4-6`);
//! 3. that without a trailing release date, `-YYYYMMDD` or `-YYYY-MM-DD`
//!    (`claude-sonnet-4-6-20260217`).
//!
//! At each step the entries of `skillgym.yaml` come before the built-in ones. Nothing else
//! matches: `gpt-5` does not price `gpt-5.5`, and an unknown model leaves the cost unknown.
//! The model is the runner's configured one (`agent.model`, recorded in the session's report).
//! A cost so estimated carries [`Usage::cost_estimated`]: reports show it as `~$0.0123`, and
//! a sum or mean with any estimate in it is estimated too.

mod builtin;

use std::collections::BTreeMap;

use skillgym::{SessionReport, TokenCount, Usage, UsageSource};

pub use builtin::builtin;

/// A model's prices in US dollars per million tokens.
///
/// ```
/// use skillgym_harness::pricing::ModelPrice;
///
/// let price = ModelPrice::new(2.0, 0.5, 8.0, 8.0);
/// assert_eq!(price.output, 8.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ModelPrice {
    /// Input tokens not read from the cache.
    pub input: f64,
    /// Cache-read input tokens.
    pub cached_input: f64,
    /// Output tokens, reasoning excluded.
    pub output: f64,
    /// Reasoning tokens.
    pub reasoning: f64,
}

impl ModelPrice {
    /// Prices per million tokens: input, cached input, output, reasoning.
    pub const fn new(input: f64, cached_input: f64, output: f64, reasoning: f64) -> ModelPrice {
        ModelPrice {
            input,
            cached_input,
            output,
            reasoning,
        }
    }

    /// What `usage` cost at these prices, in US dollars; `None` unless its input and output
    /// figures are known and not estimated from characters.
    ///
    /// ```
    /// use skillgym::{TokenCount, Usage};
    /// use skillgym_harness::pricing::ModelPrice;
    ///
    /// let usage = Usage {
    ///     input_tokens: Some(TokenCount::provider(10_000)), // 8,000 of them cached
    ///     cache_tokens: Some(TokenCount::provider(8_000)),
    ///     output_tokens: Some(TokenCount::provider(500)),
    ///     ..Usage::default()
    /// };
    /// // 2,000 × $1.25 + 8,000 × $0.125 + 500 × $10, per million tokens.
    /// let cost = ModelPrice::new(1.25, 0.125, 10.0, 10.0).cost(&usage).unwrap();
    /// assert!((cost - 0.0085).abs() < 1e-12);
    /// ```
    pub fn cost(&self, usage: &Usage) -> Option<f64> {
        let input = measured(usage.input_tokens)?;
        let output = measured(usage.output_tokens)?;
        let cache = measured(usage.cache_tokens).unwrap_or(0).min(input);
        let reasoning = measured(usage.reasoning_tokens).unwrap_or(0);
        let dollars = (input - cache) as f64 * self.input
            + cache as f64 * self.cached_input
            + output as f64 * self.output
            + reasoning as f64 * self.reasoning;
        let cost = dollars / 1e6;
        cost.is_finite().then_some(cost)
    }
}

/// A figure counted by the provider (or derived from its figures); `None` for one estimated
/// from characters.
fn measured(count: Option<TokenCount>) -> Option<u64> {
    count
        .filter(|count| count.source != UsageSource::Chars)
        .map(|count| count.value)
}

/// The prices a run estimates costs with: the configured entries over the built-in ones.
///
/// ```
/// use skillgym_harness::pricing::{ModelPrice, PriceTable};
///
/// let table = PriceTable::builtin().with([("my-model".to_owned(), ModelPrice::new(1.0, 0.1, 2.0, 2.0))]);
/// assert_eq!(table.lookup("acme/my-model").unwrap().output, 2.0);
/// assert_eq!(table.lookup("gpt-5.5").unwrap().input, 5.0);
/// assert!(table.lookup("gpt-5").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PriceTable {
    configured: BTreeMap<String, ModelPrice>,
    builtin: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// The built-in prices only.
    pub fn builtin() -> PriceTable {
        PriceTable {
            configured: BTreeMap::new(),
            builtin: builtin()
                .iter()
                .map(|&(id, price)| (id.to_owned(), price))
                .collect(),
        }
    }

    /// This table with `entries` (from `pricing:` in `skillgym.yaml`) added; an entry for a
    /// model that has a built-in price replaces it.
    pub fn with(mut self, entries: impl IntoIterator<Item = (String, ModelPrice)>) -> PriceTable {
        self.configured.extend(entries);
        self
    }

    /// The price of `model` by the matching rule of the [module docs](self): the id as
    /// written, then without a provider prefix, then without a release date.
    pub fn lookup(&self, model: &str) -> Option<&ModelPrice> {
        let unprefixed = model.rsplit('/').next().unwrap_or(model);
        let undated = without_date(unprefixed);
        [model, unprefixed, undated]
            .into_iter()
            .find_map(|id| self.configured.get(id).or_else(|| self.builtin.get(id)))
    }

    /// Fills in `report`'s cost from its token figures when the agent reported none and its
    /// model has a price, and marks it [estimated](Usage::cost_estimated). A reported cost,
    /// an unknown model or missing figures leave the report as it is.
    pub fn estimate(&self, report: &mut SessionReport) {
        if report.usage.cost_usd.is_some() {
            return;
        }
        let Some(model) = report.runner.agent.model.as_deref() else {
            return;
        };
        let cost = self
            .lookup(model)
            .and_then(|price| price.cost(&report.usage));
        if let Some(cost) = cost {
            report.usage.cost_usd = Some(cost);
            report.usage.cost_estimated = true;
        }
    }
}

/// `id` without a trailing `-YYYYMMDD` or `-YYYY-MM-DD`.
fn without_date(id: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let strip = |len: usize| -> Option<&str> {
        let cut = id.len().checked_sub(len + 1)?;
        // `get`: `None` when the cut falls inside a character (an id in another script).
        let (head, tail) = (id.get(..cut)?, id.get(cut..)?);
        let date = tail.strip_prefix('-')?;
        let parts: Vec<&str> = date.split('-').collect();
        let dated = match parts.as_slice() {
            [ymd] => ymd.len() == 8 && digits(ymd),
            [y, m, d] => {
                y.len() == 4 && m.len() == 2 && d.len() == 2 && parts.iter().all(|p| digits(p))
            }
            _ => false,
        };
        (dated && !head.is_empty()).then_some(head)
    };
    strip(8).or_else(|| strip(10)).unwrap_or(id)
}

#[cfg(test)]
mod tests;
