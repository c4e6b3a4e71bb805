//! Read of a 100-page PDF (made here with lopdf, 60 lines of text a page):
//! the first call without `pages` (stops within its text allowance), one
//! call of 20 pages, and the whole document in five such calls; and Read of
//! a notebook of 1,000 cells.
//!
//! `cargo bench -p tack-tools --bench pdf`. Prints the median of runs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::{Duration, Instant};

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};
use serde_json::{Value, json};
use tack_tool::ToolContext;
use tokio_util::sync::CancellationToken;

const RUNS: usize = 7;

fn pdf(pages: usize, lines: usize) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids = Vec::new();
    for p in 1..=pages {
        let mut ops = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 8.into()]),
            Operation::new("TL", vec![11.into()]),
            Operation::new("Td", vec![50.into(), 760.into()]),
        ];
        for l in 1..=lines {
            let text = format!("Page {p}, line {l}: the quick brown fox jumps over the lazy dog.");
            ops.push(Operation::new("Tj", vec![Object::string_literal(text)]));
            ops.push(Operation::new("T*", vec![]));
        }
        ops.push(Operation::new("ET", vec![]));
        let content = Content { operations: ops }.encode().unwrap();
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        kids.push(
            doc.add_object(
                dictionary! { "Type" => "Page", "Parent" => pages_id, "Contents" => content_id },
            )
            .into(),
        );
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("book.pdf");
    let bytes = pdf(100, 60);
    std::fs::write(&path, &bytes).unwrap();
    println!("PDF: 100 pages, {} bytes", bytes.len());
    let cells: Vec<Value> = (0..1000)
        .map(|i| {
            json!({"cell_type": "code", "execution_count": i, "id": format!("c{i}"), "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": vec!["row\n"; 5]}],
            "source": ["x = 1\n", "print(x)"]})
        })
        .collect();
    let nb_path = root.join("big.ipynb");
    let nb = serde_json::to_string_pretty(
        &json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
    )
    .unwrap();
    std::fs::write(&nb_path, &nb).unwrap();
    println!("notebook: 1,000 cells, {} bytes", nb.len());

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = tack_tools::files::file_tools();
    let read = &tools[0];
    let ctx = || ToolContext::new(root.clone(), "bench", "bench", CancellationToken::new());
    let median = |label: &str, inputs: &[Value]| {
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                for input in inputs {
                    rt.block_on(read.call(input.clone(), ctx())).unwrap();
                }
                started.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "{label}: median {:.1?} (min {:.1?}, max {:.1?})",
            times[RUNS / 2],
            times[0],
            times[RUNS - 1]
        );
    };
    let file = path.to_str().unwrap();
    let first = rt
        .block_on(read.call(json!({"file_path": file}), ctx()))
        .unwrap();
    let shown = match &first.content[0] {
        tack_protocol::ContentBlock::Text(t) => t.text.matches("--- page ").count(),
        _ => 0,
    };
    median(
        &format!("Read without pages (pages 1-{shown})"),
        &[json!({"file_path": file})],
    );
    median(
        "Read pages 41-60",
        &[json!({"file_path": file, "pages": "41-60"})],
    );
    let all: Vec<Value> = (0..5)
        .map(|i| json!({"file_path": file, "pages": format!("{}-{}", i * 20 + 1, i * 20 + 20)}))
        .collect();
    median("all 100 pages in 5 calls of 20", &all);
    let nb_file = nb_path.to_str().unwrap();
    median(
        "Read of the notebook (2000 cells default limit, 256 KB bound)",
        &[json!({"file_path": nb_file})],
    );
}
