//! Tool search's ranking on the labelled retrieval set of real MCP tools
//! (`eval/toolsearch`: 1,165 tools of 48 servers, 225 queries): a guard, so
//! a change that ranks worse fails here. The figures are in BENCHMARKS.md
//! ("Tool search"); `tack tools search --catalog … --queries …` prints them.

use std::path::Path;

use tack_tools::tool_search::ToolIndex;
use tack_tools::tool_search::eval::{evaluate, read_catalog, read_queries};

#[test]
fn the_labelled_set_ranks_as_measured() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch");
    let catalog = read_catalog(&dir.join("catalog.json")).unwrap();
    let queries = read_queries(&dir.join("queries.jsonl")).unwrap();
    assert!(catalog.len() >= 600, "{} tools", catalog.len());
    assert!(queries.len() >= 200, "{} queries", queries.len());
    let index = ToolIndex::new(catalog);
    let report = evaluate(&index, &queries);
    assert!(
        report.unknown_tools.is_empty(),
        "{:?}",
        report.unknown_tools
    );
    let all = report.overall().unwrap();
    // Measured 0.828 / 0.849 / 0.671 with the default ranker (multi-step
    // 0.645, paraphrased 0.742, direct 1.0).
    assert!(all.success_at_5 >= 0.825, "success@5 {}", all.success_at_5);
    assert!(all.recall_at_5 >= 0.845, "recall@5 {}", all.recall_at_5);
    assert!(all.mrr >= 0.665, "MRR {}", all.mrr);
    let multi = report.kinds.iter().find(|k| k.kind == "multi").unwrap();
    assert!(multi.success_at_5 >= 0.64, "multi {}", multi.success_at_5);
    let paraphrase = report
        .kinds
        .iter()
        .find(|k| k.kind == "paraphrase")
        .unwrap();
    assert!(
        paraphrase.success_at_5 >= 0.74,
        "paraphrase {}",
        paraphrase.success_at_5
    );
    // A search returns well under 1% of the catalog's tokens.
    assert!(
        all.top5_tokens < all.all_tokens as f64 / 100.0,
        "{} of {}",
        all.top5_tokens,
        all.all_tokens
    );
    let direct = report.kinds.iter().find(|k| k.kind == "direct").unwrap();
    assert!(
        direct.success_at_5 >= 0.98,
        "direct {}",
        direct.success_at_5
    );
}
