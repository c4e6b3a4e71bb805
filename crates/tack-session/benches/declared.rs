//! What a declared command tool costs over running its argv directly: 300
//! calls of `echo TEXT` through the whole pipeline (schema validation, the
//! argv built from the input, permission rules matched on it, audit event,
//! output budget), against the same argv spawned by tack's process runner
//! and by `std::process::Command`, interleaved.
//!
//! `cargo bench -p tack-session --bench declared`. Prints mean, p50 and p99
//! per call, and the overhead at p50.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "measures a bare std spawn against the declared tool"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_agent::permission::PolicyStage;
use tack_agent::{EventBus, Pipeline};
use tack_tool::{CallOptions, ToolCall, ToolHost, ToolRegistry};
use tack_tools::declared::{Declaration, DeclaredTool, LoadContext, Places};
use tokio_util::sync::CancellationToken;

const CALLS: usize = 300;
const WARMUP: usize = 20;

fn stats(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap();
    let pick = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<40} mean {:>8.2?}  p50 {:>8.2?}  p99 {:>8.2?}",
        mean,
        pick(0.50),
        pick(0.99)
    );
    pick(0.50)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let cx = LoadContext {
        places: Places::new(&root, &root, None),
        project_root: root.clone(),
        path: None,
        taken: Vec::new(),
    };
    let decl = Declaration::parse(
        "say",
        &json!({
            "description": "Prints the text.",
            "command": ["echo", "{text}"],
            "inputSchema": {"type": "object", "required": ["text"],
                            "properties": {"text": {"type": "string"}}},
            "readOnly": true
        }),
        &cx,
    )
    .unwrap();
    let program = decl.program.clone();
    let mut registry = ToolRegistry::new();
    registry
        .register(Arc::new(DeclaredTool::new(decl, None)))
        .unwrap();
    let policy = tack_policy::PolicyBuilder::new(root.clone())
        .project_root(root.clone())
        .allow("say(echo *)")
        .deny("say(echo *secret*)")
        .build()
        .unwrap();
    let permission = PolicyStage::new(policy, root.clone(), root.clone(), None, None);
    let pipeline: Pipeline = Pipeline::builder(Arc::new(registry), root.clone(), "bench")
        .events(EventBus::new())
        .permission(Arc::new(permission))
        .build();

    let mut declared = Vec::new();
    let mut runner = Vec::new();
    let mut bare = Vec::new();
    rt.block_on(async {
        for i in 0..CALLS + WARMUP {
            let started = Instant::now();
            let result = pipeline
                .call(
                    ToolCall {
                        id: format!("toolu_{i}"),
                        name: "say".into(),
                        input: json!({"text": "hello world"}),
                    },
                    CallOptions::new(CancellationToken::new()),
                )
                .await;
            let took = started.elapsed();
            assert!(!result.block.is_error, "{:?}", result.block);
            if i >= WARMUP {
                declared.push(took);
            }

            let started = Instant::now();
            let spec = tack_process::Spec::new(&program)
                .arg("hello world")
                .streams(tack_process::Streams::Separate);
            let process = tack_process::spawn(spec).unwrap();
            process.wait(Some(Duration::from_secs(10)), None).await;
            process.output_closed(Duration::from_secs(1)).await;
            let out = process.stdout().take(tack_process::Hold::Nothing);
            assert_eq!(out.head, "hello world\n");
            if i >= WARMUP {
                runner.push(started.elapsed());
            }

            let started = Instant::now();
            let out = std::process::Command::new(&program)
                .arg("hello world")
                .output()
                .unwrap();
            assert!(out.status.success());
            if i >= WARMUP {
                bare.push(started.elapsed());
            }
        }
    });
    println!("{CALLS} calls each after {WARMUP} warm-up calls, the three kinds interleaved:");
    let d = stats("declared tool through the pipeline", declared);
    let r = stats("same argv, tack's process runner", runner);
    let b = stats("same argv, std::process::Command", bare);
    println!(
        "overhead at p50: {:.2?} over the process runner, {:.2?} over std",
        d.saturating_sub(r),
        d.saturating_sub(b)
    );
}
