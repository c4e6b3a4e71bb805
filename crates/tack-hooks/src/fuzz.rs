//! Bounded fuzzing of what a hook's author or a settings file controls:
//! hook configuration and hook output. Nothing may panic, and nothing may
//! take long: a hook runs on every tool call. `PROPTEST_CASES=20000` for a
//! longer run.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::config::{Config, HookEvent};
use crate::output::HookOutput;

/// Keys hook configuration and output use, and a few near misses.
const KEYS: &[&str] = &[
    "hooks",
    "matcher",
    "type",
    "command",
    "timeout",
    "PreToolUse",
    "PostToolUse",
    "SessionStart",
    "Stop",
    "UserPromptSubmit",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "continue",
    "stopReason",
    "suppressOutput",
    "decision",
    "reason",
    "systemMessage",
    "hookSpecificOutput",
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "preToolUse",
    "comand",
    "",
    "\u{0}",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        "[ -~]{0,12}".prop_map(Value::String),
        (0..KEYS.len()).prop_map(|i| Value::String(KEYS[i].into())),
        Just(json!("allow")),
        Just(json!("deny")),
        Just(json!("ask")),
        Just(json!("block")),
        Just(json!("true")),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((0..KEYS.len(), inner), 0..6).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (KEYS[k].to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

fn quick(started: Instant) {
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
        ..ProptestConfig::default()
    })]

    #[test]
    fn hook_configuration_never_panics(hooks in json_value(), managed in json_value()) {
        let started = Instant::now();
        let settings = json!({ "hooks": hooks });
        let _ = Config::parse(&[("settings.json".into(), &settings)]);
        let _ = Config::parse(&[("settings.json".into(), &hooks)]);
        let _ = Config::parse_with_managed(
            &[("settings.json".into(), &settings)],
            &[("managed-settings.json".into(), &managed)],
        );
        quick(started);
    }

    #[test]
    fn hook_output_never_panics(output in json_value(), text in any::<String>()) {
        let started = Instant::now();
        let printed = output.to_string();
        for event in HookEvent::ALL {
            if let Ok(parsed) = HookOutput::parse(event, &printed) {
                let _ = (parsed.specific(), parsed.additional_context(), parsed.blocks());
            }
            let _ = HookOutput::parse(event, &text);
            let _ = HookOutput::parse(event, &format!("{{{text}"));
        }
        quick(started);
    }
}
