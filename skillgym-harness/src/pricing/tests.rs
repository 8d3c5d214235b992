use skillgym::{AgentInfo, RunnerInfo, SessionReport, TokenCount, Usage, UsageSource};

use super::{ModelPrice, PriceTable, builtin, without_date};

/// 10,000 input tokens (8,000 of them cached), 500 output, 200 reasoning.
fn usage() -> Usage {
    Usage {
        input_tokens: Some(TokenCount::provider(10_000)),
        cache_tokens: Some(TokenCount::provider(8_000)),
        output_tokens: Some(TokenCount::provider(500)),
        reasoning_tokens: Some(TokenCount::provider(200)),
        ..Usage::default()
    }
}

fn report(model: Option<&str>, usage: Usage) -> SessionReport {
    SessionReport {
        runner: RunnerInfo {
            id: "r".into(),
            agent: AgentInfo {
                kind: "codex".into(),
                model: model.map(str::to_owned),
                version: None,
            },
        },
        usage,
        ..SessionReport::default()
    }
}

fn close(actual: Option<f64>, expected: f64) {
    let actual = actual.expect("a cost");
    assert!((actual - expected).abs() < 1e-12, "{actual} != {expected}");
}

#[test]
fn the_cost_prices_each_kind_of_token_at_its_own_rate() {
    let table = PriceTable::builtin();
    // gpt-5.5: (2,000 × 5 + 8,000 × 0.5 + 500 × 30 + 200 × 30) / 10^6 = $0.035.
    close(table.lookup("gpt-5.5").unwrap().cost(&usage()), 0.035);
    // gemini-2.5-pro: (2,000 × 1.25 + 8,000 × 0.125 + 700 × 10) / 10^6 = $0.0105.
    close(
        table.lookup("gemini-2.5-pro").unwrap().cost(&usage()),
        0.0105,
    );
    // qwen3-coder-plus: (2,000 × 1 + 8,000 × 0.2 + 700 × 5) / 10^6 = $0.0071.
    close(
        table.lookup("qwen3-coder-plus").unwrap().cost(&usage()),
        0.0071,
    );
    // Reasoning at its own price: (2,000 + 8,000 × 0 + 500 × 2 + 200 × 100) / 10^6.
    close(ModelPrice::new(1.0, 0.0, 2.0, 100.0).cost(&usage()), 0.023);
}

#[test]
fn missing_cache_and_reasoning_count_as_zero_but_input_and_output_are_needed() {
    let price = ModelPrice::new(3.0, 0.3, 15.0, 15.0);
    let plain = Usage {
        input_tokens: Some(TokenCount::provider(1_000)),
        output_tokens: Some(TokenCount::provider(100)),
        ..Usage::default()
    };
    // (1,000 × 3 + 100 × 15) / 10^6.
    close(price.cost(&plain), 0.0045);
    let no_output = Usage {
        output_tokens: None,
        ..plain.clone()
    };
    assert_eq!(price.cost(&no_output), None);
    let no_input = Usage {
        input_tokens: None,
        ..plain.clone()
    };
    assert_eq!(price.cost(&no_input), None);
    // A cache figure above the input (a malformed stream) prices no negative input.
    let odd = Usage {
        cache_tokens: Some(TokenCount::provider(5_000)),
        ..plain.clone()
    };
    close(price.cost(&odd), (1_000.0 * 0.3 + 100.0 * 15.0) / 1e6);
    // Figures estimated from characters are no basis for a price.
    let chars = Usage {
        input_tokens: Some(TokenCount {
            value: 1_000,
            source: UsageSource::Chars,
        }),
        ..plain
    };
    assert_eq!(price.cost(&chars), None);
}

#[test]
fn the_builtin_prices_are_sane() {
    // The models the adapters' examples name (the book's runner examples are checked by
    // `cargo-skillgym/tests/book.rs`).
    for model in [
        "claude-sonnet-4-6",
        "gpt-5.5",
        "gpt-5.4",
        "gemini-2.5-pro",
        "qwen3-coder-plus",
    ] {
        assert!(PriceTable::builtin().lookup(model).is_some(), "{model}");
    }
    for (id, price) in builtin() {
        for value in [
            price.input,
            price.cached_input,
            price.output,
            price.reasoning,
        ] {
            assert!(value.is_finite() && value >= 0.0, "{id}");
        }
        assert!(
            price.cached_input < price.input,
            "{id}: cache reads are cheaper"
        );
        assert_eq!(
            price.reasoning, price.output,
            "{id}: reasoning is billed as output"
        );
    }
}

#[test]
fn ids_match_as_written_then_without_provider_then_without_date() {
    let table = PriceTable::builtin();
    let gpt = table.lookup("gpt-5.5").copied();
    assert!(gpt.is_some());
    assert_eq!(table.lookup("openai/gpt-5.5").copied(), gpt);
    assert_eq!(table.lookup("azure/openai/gpt-5.5").copied(), gpt);
    let sonnet = table.lookup("claude-sonnet-4-6").copied();
    assert!(sonnet.is_some());
    assert_eq!(table.lookup("anthropic/claude-sonnet-4-6").copied(), sonnet);
    assert_eq!(table.lookup("claude-sonnet-4-6-20260217").copied(), sonnet);
    assert_eq!(
        table
            .lookup("anthropic/claude-sonnet-4-6-20260217")
            .copied(),
        sonnet
    );
    assert_eq!(
        table.lookup("qwen3-coder-plus-2025-07-22").copied(),
        table.lookup("qwen3-coder-plus").copied()
    );
    // Nothing beyond the rule: no prefix of a name, no other case, no other suffix.
    for unknown in [
        "gpt-5",
        "gpt-5.5-mini",
        "GPT-5.5",
        "claude-sonnet-4",
        "claude-sonnet-4-6-2026",
        "gemini-2.5-pro-preview",
        "mock-model",
        "",
    ] {
        assert_eq!(table.lookup(unknown), None, "{unknown}");
    }
}

#[test]
fn only_a_trailing_date_is_cut() {
    assert_eq!(without_date("m-20250929"), "m");
    assert_eq!(without_date("m-2025-09-29"), "m");
    assert_eq!(without_date("m-2025-0929"), "m-2025-0929");
    assert_eq!(without_date("m-2025092"), "m-2025092");
    assert_eq!(
        without_date("-20250929"),
        "-20250929",
        "a date alone is an id"
    );
    assert_eq!(without_date("20250929"), "20250929");
    assert_eq!(without_date("m-2025-09-2x"), "m-2025-09-2x");
    assert_eq!(without_date("模型-20250929"), "模型");
    assert_eq!(
        without_date("模型模型模型"),
        "模型模型模型",
        "no cut inside a character"
    );
}

#[test]
fn configured_prices_replace_and_extend_the_builtin_ones() {
    let mine = ModelPrice::new(1.0, 1.0, 1.0, 1.0);
    let cheap = ModelPrice::new(0.5, 0.05, 1.0, 1.0);
    let table =
        PriceTable::builtin().with([("gpt-5.5".to_owned(), cheap), ("my-model".to_owned(), mine)]);
    assert_eq!(table.lookup("gpt-5.5"), Some(&cheap), "replaced");
    assert_eq!(
        table.lookup("openai/gpt-5.5"),
        Some(&cheap),
        "by every rule"
    );
    assert_eq!(table.lookup("my-model-20260101"), Some(&mine), "added");
    assert_eq!(
        table.lookup("gpt-5.4"),
        PriceTable::builtin().lookup("gpt-5.4"),
        "the others kept"
    );
    // An exact built-in id beats a configured one that only matches without its prefix.
    let table = PriceTable::builtin().with([("5.5".to_owned(), mine)]);
    assert_eq!(
        table.lookup("gpt-5.5"),
        PriceTable::builtin().lookup("gpt-5.5")
    );
    assert_eq!(table.lookup("openai/5.5"), Some(&mine));
}

#[test]
fn a_session_without_a_cost_gets_an_estimate_marked_as_such() {
    let table = PriceTable::builtin();
    let mut codex = report(Some("gpt-5.5"), usage());
    table.estimate(&mut codex);
    close(codex.usage.cost_usd, 0.035);
    assert!(codex.usage.cost_estimated);

    // The agent's own figure stays, unmarked.
    let mut claude = report(
        Some("claude-sonnet-4-6"),
        Usage {
            cost_usd: Some(0.5),
            ..usage()
        },
    );
    table.estimate(&mut claude);
    assert_eq!(
        (claude.usage.cost_usd, claude.usage.cost_estimated),
        (Some(0.5), false)
    );

    // No model, an unknown one or no figures: no number is made up.
    for (model, usage) in [
        (None, usage()),
        (Some("mock-model"), usage()),
        (Some("gpt-5.5"), Usage::default()),
    ] {
        let mut session = report(model, usage);
        table.estimate(&mut session);
        assert_eq!(
            (session.usage.cost_usd, session.usage.cost_estimated),
            (None, false),
            "{model:?}"
        );
    }
}

#[test]
fn the_marker_is_written_only_when_set_and_old_results_still_load() {
    let mut estimated = usage();
    estimated.cost_usd = Some(0.035);
    estimated.cost_estimated = true;
    let json = serde_json::to_value(&estimated).unwrap();
    assert_eq!(json["cost_estimated"], serde_json::json!(true));
    let reported = Usage {
        cost_usd: Some(0.5),
        ..usage()
    };
    let json = serde_json::to_value(&reported).unwrap();
    assert!(json.get("cost_estimated").is_none(), "{json}");
    let old: Usage = serde_json::from_str(r#"{"cost_usd": 0.5, "input_chars": 3}"#).unwrap();
    assert_eq!((old.cost_usd, old.cost_estimated), (Some(0.5), false));
}

#[test]
fn the_module_docs_table_is_the_builtin_table() {
    let rows: Vec<(String, [f64; 4])> = include_str!("mod.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("//! | `"))
        .map(|row| row.split('|').map(str::trim).collect::<Vec<&str>>())
        // The price table's rows: model, four prices, provider (the kinds table has three).
        .filter(|cells| cells.len() == 7)
        .map(|cells| {
            let price = |i: usize| cells[i].parse::<f64>().unwrap();
            (
                cells[0].trim_end_matches('`').to_owned(),
                [price(1), price(2), price(3), price(4)],
            )
        })
        .collect();
    let builtin: Vec<(String, [f64; 4])> = builtin()
        .iter()
        .map(|(id, p)| {
            (
                (*id).to_owned(),
                [p.input, p.cached_input, p.output, p.reasoning],
            )
        })
        .collect();
    assert_eq!(rows, builtin);
}
