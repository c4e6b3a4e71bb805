//! What a model costs: the one price table of tack (USD per million tokens,
//! as Anthropic and OpenAI publish them), for `total_cost_usd` and
//! `modelUsage` in `--output-format json`.
//!
//! A model is found by its name or a dated/suffixed variant of it
//! (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`; the longest
//! matching name wins, so `gpt-4o-mini` is not `gpt-4o`). A model that is
//! not in the table has no price: [`price`] says `None`, and callers must
//! say so rather than report a cost of zero as if it were real.
//!
//! ```
//! use tack_model::pricing;
//! use tack_protocol::Usage;
//!
//! let price = pricing::price("claude-sonnet-4-5-20250929").unwrap();
//! let usage = Usage { input_tokens: 1_000_000, output_tokens: 0, ..Default::default() };
//! assert_eq!(price.cost_usd(&usage), 3.0);
//! assert!(pricing::price("my-local-model").is_none());
//! ```

use tack_protocol::Usage;

/// The price of one model, in USD per million tokens, and its limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// The table's name for the model.
    pub model: &'static str,
    pub input: f64,
    pub output: f64,
    /// Writing the prompt cache (Anthropic: 1.25 × input for 5-minute
    /// entries; OpenAI does not charge it: the input price).
    pub cache_write: f64,
    /// Reading the prompt cache.
    pub cache_read: f64,
    /// Context window, in tokens.
    pub context_window: u64,
    /// The most output tokens one response may have.
    pub max_output_tokens: u64,
}

impl ModelPrice {
    /// The cost of `usage`, in USD.
    pub fn cost_usd(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        per_token(usage.input_tokens, self.input)
            + per_token(usage.output_tokens, self.output)
            + per_token(usage.cache_creation_input_tokens, self.cache_write)
            + per_token(usage.cache_read_input_tokens, self.cache_read)
    }
}

const fn anthropic(
    model: &'static str,
    input: f64,
    output: f64,
    context_window: u64,
    max_output_tokens: u64,
) -> ModelPrice {
    ModelPrice {
        model,
        input,
        output,
        cache_write: input * 1.25,
        cache_read: input / 10.0,
        context_window,
        max_output_tokens,
    }
}

const fn openai(
    model: &'static str,
    input: f64,
    cached: f64,
    output: f64,
    context_window: u64,
    max_output_tokens: u64,
) -> ModelPrice {
    ModelPrice {
        model,
        input,
        output,
        cache_write: input,
        cache_read: cached,
        context_window,
        max_output_tokens,
    }
}

/// Anthropic's and OpenAI's list prices (standard tier, no batch discount).
pub const TABLE: &[ModelPrice] = &[
    // Anthropic (https://docs.anthropic.com/en/docs/about-claude/pricing).
    anthropic("claude-opus-4-5", 5.0, 25.0, 200_000, 64_000),
    anthropic("claude-opus-4-1", 15.0, 75.0, 200_000, 32_000),
    anthropic("claude-opus-4", 15.0, 75.0, 200_000, 32_000),
    anthropic("claude-sonnet-4-5", 3.0, 15.0, 200_000, 64_000),
    anthropic("claude-sonnet-4", 3.0, 15.0, 200_000, 64_000),
    anthropic("claude-3-7-sonnet", 3.0, 15.0, 200_000, 64_000),
    anthropic("claude-3-5-sonnet", 3.0, 15.0, 200_000, 8_192),
    anthropic("claude-haiku-4-5", 1.0, 5.0, 200_000, 64_000),
    anthropic("claude-3-5-haiku", 0.8, 4.0, 200_000, 8_192),
    anthropic("claude-3-opus", 15.0, 75.0, 200_000, 4_096),
    anthropic("claude-3-haiku", 0.25, 1.25, 200_000, 4_096),
    // OpenAI (https://openai.com/api/pricing).
    openai("gpt-5", 1.25, 0.125, 10.0, 400_000, 128_000),
    openai("gpt-5-mini", 0.25, 0.025, 2.0, 400_000, 128_000),
    openai("gpt-5-nano", 0.05, 0.005, 0.4, 400_000, 128_000),
    openai("gpt-4.1", 2.0, 0.5, 8.0, 1_047_576, 32_768),
    openai("gpt-4.1-mini", 0.4, 0.1, 1.6, 1_047_576, 32_768),
    openai("gpt-4.1-nano", 0.1, 0.025, 0.4, 1_047_576, 32_768),
    openai("gpt-4o", 2.5, 1.25, 10.0, 128_000, 16_384),
    openai("gpt-4o-mini", 0.15, 0.075, 0.6, 128_000, 16_384),
    openai("o3", 2.0, 0.5, 8.0, 200_000, 100_000),
    openai("o3-mini", 1.1, 0.55, 4.4, 200_000, 100_000),
    openai("o4-mini", 1.1, 0.275, 4.4, 200_000, 100_000),
];

/// The price of `model`: its entry, or the longest entry it is a variant
/// of (`<entry>-<suffix>`, e.g. a date). None when the table has no entry.
pub fn price(model: &str) -> Option<&'static ModelPrice> {
    let model = model.trim();
    let model = model.rsplit_once('/').map_or(model, |(_, name)| name);
    TABLE
        .iter()
        .filter(|p| {
            model == p.model
                || model
                    .strip_prefix(p.model)
                    .is_some_and(|rest| rest.starts_with(['-', '@', ':']))
        })
        .max_by_key(|p| p.model.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_find_their_model_and_the_longest_name_wins() {
        assert_eq!(
            price("claude-sonnet-4-5-20250929").unwrap().model,
            "claude-sonnet-4-5"
        );
        assert_eq!(
            price("claude-sonnet-4-20250514").unwrap().model,
            "claude-sonnet-4"
        );
        assert_eq!(
            price("gpt-4o-mini-2024-07-18").unwrap().model,
            "gpt-4o-mini"
        );
        assert_eq!(price("gpt-4o").unwrap().model, "gpt-4o");
        assert_eq!(price("openai/gpt-4.1-nano").unwrap().model, "gpt-4.1-nano");
        assert_eq!(price("o3-mini").unwrap().model, "o3-mini");
        assert!(price("gpt-4o3").is_none());
        assert!(price("mock").is_none());
        assert!(price("qwen3").is_none());
    }

    #[test]
    fn the_cost_counts_every_kind_of_token() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            cache_creation_input_tokens: 1_000_000,
            cache_read_input_tokens: 1_000_000,
        };
        let cost = price("claude-haiku-4-5").unwrap().cost_usd(&usage);
        assert!((cost - (1.0 + 5.0 + 1.25 + 0.1)).abs() < 1e-9, "{cost}");
    }
}
