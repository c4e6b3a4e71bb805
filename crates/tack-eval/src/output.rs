//! The files an evaluation leaves beside `runs.jsonl`: `report.md` and
//! `chart.svg`, and the ATIF export.

use std::path::Path;

use serde_json::Value;

use crate::record::RunRecord;
use crate::runner::{Meta, now_rfc3339};
use crate::{Error, Result, analyze, atif, chart, report};

/// The chart's file name, next to the report.
pub const CHART: &str = "chart.svg";
/// The report's file name.
pub const REPORT: &str = "report.md";

/// Writes `report.md` and `chart.svg` into `dir` for these runs.
pub fn write_report(dir: &Path, runs: &[RunRecord], meta: &Meta) -> Result<()> {
    let summaries = report::summarize(runs);
    let title = format!("{}: success against tokens per run", meta.suite);
    let chart = match chart::success_vs_tokens_svg(&summaries, &title) {
        Ok(svg) => {
            let path = dir.join(CHART);
            std::fs::write(&path, svg).map_err(|e| io(&path, e))?;
            Some(CHART.to_owned())
        }
        Err(e) => {
            tracing::warn!("no chart: {e}");
            None
        }
    };
    let text = report::markdown(
        runs,
        &report::ReportMeta {
            suite: meta.suite.clone(),
            description: meta.description.clone(),
            harness: meta.harness.clone(),
            source: meta.source.as_str().to_owned(),
            generated: now_rfc3339(),
            chart,
        },
    );
    let path = dir.join(REPORT);
    std::fs::write(&path, text).map_err(|e| io(&path, e))
}

/// The runs as ATIF trajectories, one JSON object per line, each built
/// from its transcript when the results directory still holds it.
pub fn export_atif(dir: &Path, runs: &[RunRecord]) -> String {
    let mut out = String::new();
    for run in runs {
        let events: Option<Vec<Value>> = run
            .transcript
            .as_ref()
            .map(|t| analyze::read_events(&dir.join(t)))
            .filter(|e| !e.is_empty());
        let trajectory = atif::trajectory(run, events.as_deref());
        out.push_str(&trajectory.to_string());
        out.push('\n');
    }
    out
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_owned(),
        source,
    }
}
