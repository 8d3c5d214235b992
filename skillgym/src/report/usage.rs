//! Token usage.

use serde::{Deserialize, Serialize};

/// Token usage of a session. Input includes cached input; `total = input + output + reasoning -
/// cache`, comparable across agents. Each figure says where it came from.
///
/// ```
/// use skillgym::{TokenCount, Usage};
///
/// let usage = Usage { output_tokens: Some(TokenCount::provider(42)), ..Usage::default() };
/// let json = serde_json::to_value(&usage).unwrap();
/// assert_eq!(json["output_tokens"], serde_json::json!({"value": 42, "source": "provider"}));
/// assert!(json.get("input_tokens").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Input tokens, cached ones included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<TokenCount>,
    /// Output tokens, reasoning excluded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<TokenCount>,
    /// Reasoning tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<TokenCount>,
    /// Cache-read tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_tokens: Option<TokenCount>,
    /// `input + output + reasoning - cache`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<TokenCount>,
    /// Cost in US dollars: what the agent reported, else (with
    /// [`cost_estimated`](Self::cost_estimated)) skillgym's estimate from the token figures and
    /// the model's price; `None` when neither is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Whether [`cost_usd`](Self::cost_usd) is an estimate from the token figures at list
    /// prices rather than the agent's own figure; serialized only when `true`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cost_estimated: bool,
    /// Characters of the prompt.
    pub input_chars: u64,
    /// Characters of the final output.
    pub output_chars: u64,
    /// Characters of thinking text.
    pub reasoning_chars: u64,
}

/// Serde's test for a flag left out of the JSON when it is off.
fn is_false(value: &bool) -> bool {
    !value
}

/// A token figure and its source.
///
/// ```
/// use skillgym::{TokenCount, UsageSource};
///
/// let count = TokenCount { value: 1200, source: UsageSource::Chars };
/// assert_eq!(serde_json::to_string(&count).unwrap(), r#"{"value":1200,"source":"chars"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCount {
    /// The number of tokens.
    pub value: u64,
    /// Where the number came from.
    pub source: UsageSource,
}

impl TokenCount {
    /// A figure reported by the provider.
    ///
    /// ```
    /// use skillgym::{TokenCount, UsageSource};
    ///
    /// assert_eq!(TokenCount::provider(42).source, UsageSource::Provider);
    /// ```
    pub fn provider(value: u64) -> Self {
        TokenCount {
            value,
            source: UsageSource::Provider,
        }
    }

    /// A figure computed from other figures.
    ///
    /// ```
    /// use skillgym::{TokenCount, UsageSource};
    ///
    /// let count = TokenCount::derived(7);
    /// assert_eq!((count.value, count.source), (7, UsageSource::Derived));
    /// ```
    pub fn derived(value: u64) -> Self {
        TokenCount {
            value,
            source: UsageSource::Derived,
        }
    }
}

/// Where a token figure came from.
///
/// ```
/// use skillgym::UsageSource;
///
/// let source: UsageSource = serde_json::from_str(r#""derived""#).unwrap();
/// assert_eq!(source, UsageSource::Derived);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UsageSource {
    /// Reported by the model provider through the agent.
    Provider,
    /// Computed from other figures.
    Derived,
    /// Estimated from character counts.
    Chars,
}

impl Usage {
    /// Fills `total_tokens` from the other figures when the provider did not report it.
    /// Needs at least the input and output figures; otherwise leaves it `None`.
    ///
    /// ```
    /// # use skillgym::{TokenCount, Usage};
    /// let mut usage = Usage::default();
    /// usage.input_tokens = Some(TokenCount::provider(1000)); // 800 of them cached
    /// usage.output_tokens = Some(TokenCount::provider(50));
    /// usage.cache_tokens = Some(TokenCount::provider(800));
    /// usage.derive_total();
    /// assert_eq!(usage.total_tokens, Some(TokenCount::derived(250)));
    /// ```
    pub fn derive_total(&mut self) {
        if self.total_tokens.is_some() {
            return;
        }
        let (Some(input), Some(output)) = (self.input_tokens, self.output_tokens) else {
            return;
        };
        let reasoning = self.reasoning_tokens.map_or(0, |c| c.value);
        let cache = self.cache_tokens.map_or(0, |c| c.value);
        let total = input
            .value
            .saturating_add(output.value)
            .saturating_add(reasoning)
            .saturating_sub(cache);
        self.total_tokens = Some(TokenCount::derived(total));
    }
}
