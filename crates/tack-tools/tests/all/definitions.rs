//! Every built-in tool definition exactly as the model sees it (insta
//! snapshots), and their total size: every request carries them.

use std::sync::Arc;

use tack_tool::ToolRegistry;
use tack_tools::artifacts::ArtifactStore;
use tack_tools::web::search::{SearchProvider, WebSearchOptions};
use tack_tools::{BuiltinOptions, builtin_tools};

fn registry() -> ToolRegistry {
    registry_with(Some(WebSearchOptions::new(
        SearchProvider::Searxng,
        "http://127.0.0.1:8888".parse().unwrap(),
    )))
}

fn registry_with(web_search: Option<WebSearchOptions>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let tools = builtin_tools(&BuiltinOptions {
        cwd: std::env::temp_dir(),
        artifacts: Arc::new(ArtifactStore::new(
            std::env::temp_dir().join("tack-defs-test"),
        )),
        web: tack_tools::web::WebFetchOptions::default(),
        web_search,
        read_filter: None,
        sandbox: None,
    });
    for tool in tools {
        registry.register(tool).unwrap();
    }
    registry
}

#[test]
fn names_match_claude_code_and_read_only_tools_are_marked() {
    let r = registry();
    assert_eq!(
        r.names(),
        [
            "Bash",
            "BashOutput",
            "KillShell",
            "Read",
            "Write",
            "Edit",
            "NotebookEdit",
            "Glob",
            "Grep",
            "WebFetch",
            "WebSearch",
            "TodoWrite",
            "ReadOutput"
        ]
    );
    let safe = |name: &str, input: serde_json::Value| {
        r.get(name).unwrap().tool.is_concurrency_safe(&input)
    };
    assert!(safe("Read", serde_json::json!({"file_path": "/x"})));
    assert!(safe("Glob", serde_json::json!({"pattern": "*"})));
    assert!(safe("Grep", serde_json::json!({"pattern": "x"})));
    assert!(safe(
        "WebFetch",
        serde_json::json!({"url": "https://example.com", "prompt": "x"})
    ));
    assert!(!safe("Bash", serde_json::json!({"command": "ls"})));
    assert!(!safe(
        "Write",
        serde_json::json!({"file_path": "/x", "content": ""})
    ));
    assert!(!safe(
        "Edit",
        serde_json::json!({"file_path": "/x", "old_string": "a", "new_string": "b"})
    ));
    assert!(!safe("TodoWrite", serde_json::json!({"todos": []})));
    assert!(safe("WebSearch", serde_json::json!({"query": "x y"})));
    assert!(!safe(
        "NotebookEdit",
        serde_json::json!({"notebook_path": "/x.ipynb", "new_source": ""})
    ));
}

#[test]
fn web_search_is_offered_only_with_a_backend() {
    let names = registry_with(None).names();
    assert!(!names.iter().any(|n| n == "WebSearch"), "{names:?}");
    assert!(names.iter().any(|n| n == "WebFetch"));
}

#[test]
fn definitions_snapshot() {
    for def in registry().definitions() {
        insta::assert_json_snapshot!(def.name.clone(), def);
    }
}

#[test]
fn all_definitions_stay_small() {
    // WebSearch is offered only with a backend configured: the default set.
    let bytes = serde_json::to_vec(&registry_with(None).definitions())
        .unwrap()
        .len();
    // About 4 bytes a token: keep the whole set near 4,000 tokens.
    assert!(
        bytes < 17_000,
        "built-in tool definitions take {bytes} bytes"
    );
}
