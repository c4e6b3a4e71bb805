//! What tool search saves: the bytes of tool definitions in each request
//! of a session with ten real MCP servers' tools (their definitions as the
//! servers listed them, from `eval/toolsearch/catalog.json`) beside tack's
//! built-in tools, sent all in every request against deferred to search.
//!
//! `cargo bench -p tack-session --bench tool_search_bytes`. The encodings
//! are tack's own (`EncodedTools`, what the providers send); a search is a
//! real `ToolSearch` call through the pipeline. Prints, per provider: the
//! bytes of `tools` in a request and the estimated tokens the model's
//! context holds of them, with everything sent, with the MCP tools deferred
//! before any search, and after two searches that load 5 tools each.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::sync::Arc;

use serde_json::{Value, json};
use tack_agent::{EventBus, Pipeline};
use tack_model::encoded::{EncodedTools, WireFormat};
use tack_testkit::tools::Listed;
use tack_tool::artifacts::ArtifactStore;
use tack_tool::{CallOptions, ToolCall, ToolHost, ToolRegistry};
use tack_tools::tool_search::tool::ToolSearch;
use tokio_util::sync::CancellationToken;

/// Ten servers of the catalog, of the kinds a team connects.
const SERVERS: [&str; 10] = [
    "github",
    "slack",
    "filesystem",
    "notion",
    "sentry",
    "playwright",
    "brave-search",
    "postgres-henkey",
    "google-calendar",
    "memory",
];

const SEARCHES: [&str; 2] = [
    "create an issue in a github repository",
    "post a message to a slack channel",
];

fn tokens(bytes: usize) -> usize {
    (bytes as f64 / tack_agent::context::DEFAULT_BYTES_PER_TOKEN).round() as usize
}

fn bytes(format: WireFormat, definitions: Vec<tack_protocol::ToolDefinition>) -> usize {
    EncodedTools::new(format, definitions).bytes().len()
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let catalog: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("eval/toolsearch/catalog.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let builtins = tack_tools::builtin_tools(&tack_tools::BuiltinOptions {
        cwd: dir.path().to_owned(),
        program_roots: Vec::new(),
        artifacts: Arc::new(ArtifactStore::new(dir.path().join("artifacts"))),
        web: Default::default(),
        web_search: None,
        read_filter: None,
        sandbox: None,
    });
    let mut all = ToolRegistry::new();
    for tool in builtins {
        all.register(tool).unwrap();
    }
    let mut mcp = 0;
    for entry in &catalog {
        let server = entry["server"].as_str().unwrap();
        if !SERVERS.contains(&server) {
            continue;
        }
        let name = tack_mcp::client::model_tool_name(server, entry["name"].as_str().unwrap());
        all.register(Arc::new(Listed {
            name,
            description: entry["description"].as_str().unwrap_or_default().to_owned(),
            schema: entry["inputSchema"].clone(),
        }))
        .unwrap();
        mcp += 1;
    }
    let mut deferred = all.clone();
    for name in all.names() {
        if name.starts_with("mcp__") {
            deferred.defer(&name);
        }
    }
    deferred
        .register(Arc::new(ToolSearch::new(&deferred, &|_| false)))
        .unwrap();
    println!(
        "{} built-in tools and {mcp} tools of {} MCP servers ({})",
        all.len() - mcp,
        SERVERS.len(),
        SERVERS.join(", ")
    );

    // Two searches through the pipeline (a text result: OpenAI's way).
    let pipeline = Pipeline::builder(Arc::new(deferred.clone()), dir.path().to_owned(), "bench")
        .events(EventBus::new())
        .build();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut found = Vec::new();
    rt.block_on(async {
        for (i, query) in SEARCHES.iter().enumerate() {
            let result = pipeline
                .call(
                    ToolCall {
                        id: format!("toolu_{i}"),
                        name: "ToolSearch".into(),
                        input: json!({"query": query}),
                    },
                    CallOptions::new(CancellationToken::new()),
                )
                .await;
            assert!(!result.block.is_error, "{:?}", result.block);
            found.push(result.block.text());
        }
    });
    let searched = pipeline.registry();
    assert_eq!(searched.revealed().len(), 10, "{found:?}");

    println!(
        "{:<44} {:>12} {:>12} {:>16}",
        "", "tools bytes", "in context", "vs all sent"
    );
    let row = |label: &str, sent: usize, context: usize, base: usize| {
        println!(
            "{label:<44} {sent:>12} {:>9} tok {:>15.1}%",
            tokens(context),
            100.0 * context as f64 / base as f64
        );
    };
    for (provider, format) in [
        ("Anthropic", WireFormat::Messages),
        ("OpenAI-compatible", WireFormat::ChatCompletions),
    ] {
        let everything = bytes(format, all.definitions());
        row(
            &format!("{provider}: all sent"),
            everything,
            everything,
            everything,
        );
        let direct = bytes(format, deferred.definitions());
        let after = bytes(format, searched.definitions());
        match format {
            WireFormat::Messages => {
                // Every tool is in the request, deferred ones marked; the
                // context holds the direct ones and those referenced.
                let sent = bytes(format, deferred.deferring_definitions(&Default::default()));
                row("  deferred, before a search", sent, direct, everything);
                row(
                    "  deferred, after 2 searches (10 loaded)",
                    bytes(format, searched.deferring_definitions(&Default::default())),
                    after,
                    everything,
                );
            }
            _ => {
                row("  deferred, before a search", direct, direct, everything);
                row(
                    "  deferred, after 2 searches (10 loaded)",
                    after,
                    after,
                    everything,
                );
            }
        }
    }
}
