//! Every built-in tool definition exactly as the model sees it (insta
//! snapshots), and their total size: every request carries them.

use std::sync::Arc;

use tack_protocol::ToolDefinition;
use tack_testkit::cache::estimate_tokens;
use tack_tool::{INPUT_EXAMPLES, ToolContext, ToolRegistry};
use tack_tools::artifacts::ArtifactStore;
use tack_tools::web::search::{SearchProvider, WebSearchOptions};
use tack_tools::{BuiltinOptions, builtin_tools};
use tokio_util::sync::CancellationToken;

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
        program_roots: Vec::new(),
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

/// Schemas compile when a call first needs them, not when registered: every
/// built-in's compiles (an input that fails is refused as input, not
/// because the schema is unusable).
#[test]
fn every_builtin_schema_compiles() {
    let registry = registry();
    for tool in registry.iter() {
        match tool.check_input(&serde_json::json!({})) {
            Ok(()) | Err(tack_tool::ToolError::InvalidInput(_)) => {}
            Err(other) => panic!("{}: {other}", tool.definition.name),
        }
    }
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

/// The definitions without their example inputs.
fn without_examples(defs: &[ToolDefinition]) -> Vec<ToolDefinition> {
    let mut defs = defs.to_vec();
    for def in &mut defs {
        def.extra.shift_remove(INPUT_EXAMPLES);
    }
    defs
}

#[test]
fn all_definitions_stay_small() {
    // WebSearch is offered only with a backend configured: the default set.
    let defs = registry_with(None).definitions();
    let bytes = serde_json::to_vec(&without_examples(&defs)).unwrap().len();
    // About 4 bytes a token: keep the whole set near 4,000 tokens (the
    // examples have a budget of their own, below).
    assert!(
        bytes < 17_000,
        "built-in tool definitions take {bytes} bytes without their examples"
    );
}

/// What the examples add to every request, per tool and in all (tokens as
/// the mock counts them, bytes / 4):
/// `cargo test -p tack-tools --test all input_examples_cost -- --nocapture`.
#[test]
fn input_examples_cost_few_tokens() {
    let defs = registry_with(None).definitions();
    let size = |v: &[ToolDefinition]| serde_json::to_vec(v).unwrap().len();
    let mut with = Vec::new();
    for def in &defs {
        let added =
            size(std::slice::from_ref(def)) - size(&without_examples(std::slice::from_ref(def)));
        if added > 0 {
            let n = def.extra[INPUT_EXAMPLES].as_array().unwrap().len();
            println!(
                "{:<6} {n} examples: {added:>4} bytes (~{} tokens)",
                def.name,
                estimate_tokens(added)
            );
            with.push(def.name.as_str());
        }
    }
    let added = size(&defs) - size(&without_examples(&defs));
    println!(
        "all: {added} bytes (~{} tokens) on {} bytes of definitions",
        estimate_tokens(added),
        size(&defs)
    );
    assert_eq!(with, ["Bash", "Edit", "Grep"]);
    assert!(
        estimate_tokens(added) <= 300,
        "the examples add {added} bytes to every request"
    );
}

/// Each example is an input the tool itself takes: its typed input parses
/// (unknown keys refused) and its own checks pass (absolute paths,
/// old_string ≠ new_string, a timeout in range, a pattern that compiles).
#[test]
fn every_example_is_an_input_the_tool_takes() {
    let r = registry();
    let ctx = ToolContext::new(std::env::temp_dir(), "s", "t", CancellationToken::new());
    let mut seen = 0;
    for def in r.definitions() {
        let tool = r.get(&def.name).unwrap();
        for example in def
            .extra
            .get(INPUT_EXAMPLES)
            .and_then(|e| e.as_array())
            .into_iter()
            .flatten()
        {
            tool.check_input(example).unwrap();
            tool.tool
                .validate(example, &ctx)
                .unwrap_or_else(|e| panic!("{}: {example}: {e}", def.name));
            seen += 1;
        }
    }
    assert_eq!(seen, 7);
}
