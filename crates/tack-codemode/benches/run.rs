//! What one Code call costs before it does anything: a fresh runtime and
//! context, the globals, compiling and running `return 1+1`. Median (and
//! spread) over 200 runs; plus one nested call's overhead over calling the
//! bridge directly.
//!
//! `cargo bench -p tack-codemode --bench run`

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_codemode::{BridgeError, Limits, ToolBridge};

struct Echo;

#[async_trait::async_trait]
impl ToolBridge for Echo {
    fn names(&self) -> Vec<String> {
        vec!["Echo".to_owned()]
    }
    async fn call(&self, _name: &str, input: Value) -> Result<Value, BridgeError> {
        Ok(input)
    }
}

const RUNS: usize = 200;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let limits = Limits::default();
    let bridge: Arc<dyn ToolBridge> = Arc::new(Echo);

    let time = |code: &'static str| -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
        let mut times = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let started = Instant::now();
            let out = runtime.block_on(tack_codemode::run(code, &limits, bridge.clone()))?;
            times.push(started.elapsed());
            std::hint::black_box(out);
        }
        times.sort();
        Ok(times)
    };

    let start = time("return 1+1")?;
    report("run `return 1+1` (fresh runtime)", &start);

    let hundred = time("for (let i = 0; i < 100; i++) await tools.Echo({ i }); return 1")?;
    report("run 100 sequential Echo calls", &hundred);
    let per_call = hundred[RUNS / 2].saturating_sub(start[RUNS / 2]) / 100;

    let mut direct = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        for i in 0..100 {
            std::hint::black_box(runtime.block_on(bridge.call("Echo", json!({ "i": i })))?);
        }
        direct.push(started.elapsed() / 100);
    }
    direct.sort();
    println!(
        "one call from code: {per_call:?} (median, over the start); the bridge called directly: {:?}",
        direct[RUNS / 2]
    );
    Ok(())
}

fn report(what: &str, times: &[Duration]) {
    println!(
        "{what}: median {:?}, p10 {:?}, p90 {:?}, min {:?} ({} runs)",
        times[times.len() / 2],
        times[times.len() / 10],
        times[times.len() * 9 / 10],
        times[0],
        times.len()
    );
}
