//! Size of all built-in tool definitions together: every request carries them.
//! `cargo bench -p tack-tools --bench definitions`

use std::sync::Arc;

use tack_tools::artifacts::ArtifactStore;
use tack_tools::{BuiltinOptions, builtin_tools};

fn main() {
    let tools = builtin_tools(&BuiltinOptions {
        cwd: std::env::temp_dir(),
        program_roots: Vec::new(),
        artifacts: Arc::new(ArtifactStore::new(std::env::temp_dir())),
        web: tack_tools::web::WebFetchOptions::default(),
        web_search: None,
        read_filter: None,
        sandbox: None,
    });
    let mut registry = tack_tool::ToolRegistry::new();
    for tool in tools {
        if let Err(e) = registry.register(tool) {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
    let mut total = 0;
    for def in registry.definitions() {
        let bytes = serde_json::to_vec(&def).map(|v| v.len()).unwrap_or(0);
        total += bytes;
        println!("{:<12} {bytes:>6} bytes", def.name);
    }
    let all = serde_json::to_vec(&registry.definitions())
        .map(|v| v.len())
        .unwrap_or(0);
    println!(
        "all {} built-in definitions: {all} bytes as sent (~{} tokens at 4 bytes/token); sum of parts {total}",
        registry.len(),
        all / 4
    );
}
