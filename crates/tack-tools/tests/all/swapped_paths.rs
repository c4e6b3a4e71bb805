//! A directory on a checked path swapped for a link between the permission
//! check and the tool's open (red team round 12, hole 1): the tools open
//! the path that was judged, following no link, so the swap sends nothing
//! to the denied file.
//!
//! The swap is `renameat2(RENAME_EXCHANGE)` of a real directory `g` and a
//! link `gl` to `secrets`, as a sandboxed background command inside the
//! project can do.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_tool::{ToolContext, ToolError, ToolOutput, ToolRegistry};

use crate::files::{Env, text};

const SECRET: &str = "SECRETKEY123";

/// A project with `g/` (harmless files), `gl -> secrets`, `secrets/`
/// (the same names, holding [`SECRET`]), `w/` and `wl -> locked`.
fn project() -> Env {
    let env = Env::new();
    for name in ["key", "nb.ipynb", "doc.pdf"] {
        env.put(&format!("g/{name}"), harmless(name));
        env.put(&format!("secrets/{name}"), secret(name));
    }
    env.put("w/.keep", "");
    env.put("locked/ci.yml", "on: push\n");
    std::os::unix::fs::symlink(env.path("secrets"), env.path("gl")).unwrap();
    std::os::unix::fs::symlink(env.path("locked"), env.path("wl")).unwrap();
    env
}

fn harmless(name: &str) -> Vec<u8> {
    content(name, "nothing here")
}

fn secret(name: &str) -> Vec<u8> {
    content(name, SECRET)
}

fn content(name: &str, text: &str) -> Vec<u8> {
    match name {
        "nb.ipynb" => json!({
            "cells": [{"cell_type": "code", "id": "c1", "execution_count": 1, "metadata": {},
                       "outputs": [], "source": [format!("token = '{text}'")]}],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5
        })
        .to_string()
        .into_bytes(),
        "doc.pdf" => crate::pdf::make_pdf(&[vec![format!("PDF {text}")]]),
        _ => format!("{text}\n").into_bytes(),
    }
}

/// Swaps the names `a` and `b` (a directory and a link) in one step.
fn exchange(a: &Path, b: &Path) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}

/// Calls `tool` as the pipeline does once the permission check judged
/// `checked` (the file's physical path when the check ran).
async fn call_checked(
    registry: &ToolRegistry,
    ctx: ToolContext,
    tool: &str,
    input: Value,
    checked: &[PathBuf],
) -> Result<ToolOutput, ToolError> {
    let registered = registry.get(tool).unwrap();
    let mut ctx = ctx;
    ctx.checked_files = checked.to_vec();
    registered.tool.call(input, ctx).await
}

/// What a call showed: its text and its response (Write's originalFile),
/// or its error.
fn shown(result: &Result<ToolOutput, ToolError>) -> String {
    match result {
        Ok(out) => format!("{}\n{:?}", text(out), out.response),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn read_of_a_file_whose_directory_became_a_link_after_the_check_shows_nothing_of_the_link_target()
 {
    let mut leaks = Vec::new();
    for name in ["key", "nb.ipynb", "doc.pdf"] {
        let env = project();
        let path = env.path(&format!("g/{name}"));
        // Judged while g was the real directory; swapped before the read.
        let checked = vec![path.clone()];
        exchange(&env.path("g"), &env.path("gl"));
        let result = call_checked(
            &env.registry,
            env.ctx(),
            "Read",
            json!({"file_path": path}),
            &checked,
        )
        .await;
        if result.is_ok() || shown(&result).contains(SECRET) {
            leaks.push(format!("{name}: {}", shown(&result)));
        }
        // Swapped back: read as judged.
        exchange(&env.path("g"), &env.path("gl"));
        let result = call_checked(
            &env.registry,
            env.ctx(),
            "Read",
            json!({"file_path": path}),
            &checked,
        )
        .await;
        assert!(shown_ok(&result).contains("nothing here"), "{name}");
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
}

fn shown_ok(result: &Result<ToolOutput, ToolError>) -> String {
    match result {
        Ok(out) => text(out),
        Err(e) => panic!("failed: {e}"),
    }
}

/// Grep whose read filter judges each file found by its name (`secrets/`
/// denied), then calls `also` with it.
fn grep_with_filter(also: impl Fn(&Path) + Send + Sync + 'static, root: &Path) -> ToolRegistry {
    let secrets = root.join("secrets");
    let filter: tack_tools::search::ReadFilter = Arc::new(move |_tool: &str, path: &Path| {
        // As the policy does: the path as found and where it leads.
        let leads = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let shown = !path.starts_with(&secrets) && !leads.starts_with(&secrets);
        also(path);
        shown
    });
    let mut registry = ToolRegistry::new();
    for tool in tack_tools::search::search_tools_filtered(Some(filter)) {
        registry.register(tool).unwrap();
    }
    registry
}

#[tokio::test]
async fn grep_does_not_search_a_file_whose_directory_became_a_link_after_the_filter_judged_it() {
    let env = project();
    let (g, gl, key) = (env.path("g"), env.path("gl"), env.path("g/key"));
    let swapped = Arc::new(AtomicBool::new(false));
    let registry = {
        let swapped = Arc::clone(&swapped);
        grep_with_filter(
            move |path| {
                // Judged as g/key in the real g; then g becomes the link.
                if path == key && !swapped.swap(true, Ordering::SeqCst) {
                    exchange(&g, &gl);
                }
            },
            &env.root,
        )
    };
    let result = call_checked(
        &registry,
        env.ctx(),
        "Grep",
        json!({"pattern": "SECRET|nothing", "output_mode": "content", "path": env.root}),
        &[],
    )
    .await;
    assert!(swapped.load(Ordering::SeqCst), "the filter saw g/key");
    let shown = shown(&result);
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(
        shown.contains("it changed while it was being opened"),
        "{shown}"
    );
}

/// The red team's race, in-process: a thread swaps `g`/`gl` and `w`/`wl`
/// as fast as it can while Read, Grep and Write run again and again, each
/// as judged with the real directories in place. The secret never shows
/// and nothing lands in `locked/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_swaps_never_show_the_secret_nor_write_into_the_locked_directory() {
    let env = project();
    let root = env.root.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (Arc::clone(&stop), root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&root.join("g"), &root.join("gl"));
                exchange(&root.join("w"), &root.join("wl"));
                swaps += 1;
            }
            // Back as they were (an even number of swaps).
            if swaps % 2 == 1 {
                exchange(&root.join("g"), &root.join("gl"));
                exchange(&root.join("w"), &root.join("wl"));
            }
        })
    };
    let grep = grep_with_filter(|_| {}, &root);
    let key = root.join("g/key");
    let notebook = root.join("g/nb.ipynb");
    let started = Instant::now();
    let mut tries = 0;
    let mut leaks = Vec::new();
    while started.elapsed() < Duration::from_secs(3) {
        tries += 1;
        let evil = root.join(format!("w/evil-{tries}.yml"));
        let calls = [
            ("Read", json!({"file_path": key}), vec![key.clone()]),
            (
                "Read",
                json!({"file_path": notebook}),
                vec![notebook.clone()],
            ),
            (
                "Write",
                json!({"file_path": evil, "content": "on: push\n"}),
                vec![evil.clone()],
            ),
        ];
        for (tool, input, checked) in calls {
            let result = call_checked(&env.registry, env.ctx(), tool, input, &checked).await;
            if shown(&result).contains(SECRET) {
                leaks.push(format!("{tool} at try {tries}: {}", shown(&result)));
            }
        }
        let result = call_checked(
            &grep,
            env.ctx(),
            "Grep",
            json!({"pattern": "SECRET", "output_mode": "content", "path": root.join("g")}),
            &[],
        )
        .await;
        if shown(&result).contains(SECRET) {
            leaks.push(format!("Grep at try {tries}: {}", shown(&result)));
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let locked: Vec<String> = std::fs::read_dir(root.join("locked"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(tries > 20, "only {tries} tries in the time given");
    let written = locked.len() - 1;
    assert!(
        leaks.is_empty() && written == 0,
        "in {tries} tries, {} leaks and {written} files written into locked/ ({locked:?}): {leaks:#?}",
        leaks.len()
    );
}
