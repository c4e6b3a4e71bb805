//! Bounded fuzzing of the files a repository brings: `.tack/settings.json`,
//! `.claude/settings.json`, `.mcp.json`, read the way a session reads them.
//! Whatever they hold, loading ends in a context or a clear error, never a
//! panic, and quickly. `PROPTEST_CASES=20000` for a longer run.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tack_policy::LoadOptions;
use tack_session::ProjectContext;

/// Keys the settings and `.mcp.json` use, and near misses.
const KEYS: &[&str] = &[
    "permissions",
    "allow",
    "deny",
    "ask",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
    "hooks",
    "PreToolUse",
    "matcher",
    "command",
    "type",
    "mcpServers",
    "args",
    "env",
    "url",
    "headers",
    "transport",
    "outputBudget",
    "webFetch",
    "allowPrivate",
    "webSearch",
    "provider",
    "blockedDomains",
    "allowedDomains",
    "apiKeyEnv",
    "enabledMcpjsonServers",
    "enableAllProjectMcpServers",
    "permisions",
    "",
];

/// Values a rule or setting takes, and near misses.
const WORDS: &[&str] = &[
    "Bash",
    "Bash(ls *)",
    "Bash(",
    "Read(./.env)",
    "Read(//**)",
    "Edit(**)",
    "Raed(x)",
    "WebFetch(domain:*)",
    "searxng",
    "brave",
    "http://127.0.0.1:1",
    "mcp__s__t",
    "mcp__a__b__c",
    "bypassPermissions",
    "plan",
    "acceptEdits",
    "stdio",
    "http",
    "sse",
    "${HOME}",
    "${UNSET:-x}",
    "~/x",
    "/",
    "..",
    "disable",
    "*",
    "\u{0}",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        "[ -~]{0,12}".prop_map(Value::String),
        (0..WORDS.len()).prop_map(|i| Value::String(WORDS[i].into())),
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

/// Lay the files out and load the project as a session would.
fn load(settings: &str, claude: &str, mcp: &str) {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    for (path, text) in [
        (".tack/settings.json", settings),
        (".claude/settings.json", claude),
        (".mcp.json", mcp),
    ] {
        let path = project.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let started = Instant::now();
    if let Ok(ctx) = ProjectContext::load_with(
        project.path(),
        state.path().to_owned(),
        LoadOptions::default(),
    ) {
        let _ = ctx.warnings.len();
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "loading took {:?}",
        started.elapsed()
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200),
        ..ProptestConfig::default()
    })]

    #[test]
    fn settings_and_mcp_json_never_panic(
        settings in json_value(),
        claude in json_value(),
        mcp in json_value(),
    ) {
        load(&settings.to_string(), &claude.to_string(), &mcp.to_string());
    }

    #[test]
    fn settings_shaped_documents_never_panic(
        permissions in json_value(),
        hooks in json_value(),
        servers in json_value(),
    ) {
        let settings = json!({"permissions": permissions, "hooks": hooks, "mcpServers": servers});
        let mcp = json!({"mcpServers": {"s": servers}});
        load(&settings.to_string(), "{}", &mcp.to_string());
    }

    #[test]
    fn any_text_never_panics(text in any::<String>()) {
        load(&text, &text, &text);
    }
}
