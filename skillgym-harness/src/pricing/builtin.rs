//! The built-in prices (the table in the [module docs](super)): list prices per million
//! tokens, standard tier, shortest context tier, checked on 2026-11-27.

use super::ModelPrice;

/// The built-in prices, by model id: input, cached input, output, reasoning (billed as
/// output), in US dollars per million tokens.
///
/// ```
/// let ids: Vec<&str> = skillgym_harness::pricing::builtin().iter().map(|(id, _)| *id).collect();
/// assert!(ids.contains(&"gpt-5.5"));
/// ```
pub fn builtin() -> &'static [(&'static str, ModelPrice)] {
    const PRICES: &[(&str, ModelPrice)] = &[
        // Anthropic: cache reads at a tenth of input.
        (
            "claude-sonnet-4-6",
            ModelPrice::new(3.00, 0.30, 15.00, 15.00),
        ),
        // OpenAI: up to 272K input tokens.
        ("gpt-5.5", ModelPrice::new(5.00, 0.50, 30.00, 30.00)),
        ("gpt-5.4", ModelPrice::new(2.50, 0.25, 15.00, 15.00)),
        // Google: prompts up to 200K tokens.
        ("gemini-2.5-pro", ModelPrice::new(1.25, 0.125, 10.00, 10.00)),
        // Alibaba Cloud Model Studio, international: requests up to 32K input tokens.
        ("qwen3-coder-plus", ModelPrice::new(1.00, 0.20, 5.00, 5.00)),
    ];
    PRICES
}
