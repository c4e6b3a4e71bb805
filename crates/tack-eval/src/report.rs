//! The report of a `runs.jsonl`: the numbers per variant ([`summarize`]) and
//! a Markdown page a person reads ([`markdown`]).
//!
//! ```text
//! # market-analyst            header: harness, source, counts
//! ## By variant               one row per variant: success, pass@k, pass^k, tokens, turns, time, failures
//! ## By task                  task × variant: one mark per repeat (✓ ✗ ↯ ⚠) and passed/judged
//! ## Failures                 each run that did not pass: class, detail, the calls that showed it
//! ## Observed in passing runs what passing runs still did wrong (a retried invalid call, …)
//! ```
//!
//! **Key decision: a run the model is not to blame for is not judged.** A
//! diverged run (the harness sent something its cassette did not hold) and
//! an errored one (the harness could not run the task) count in the run
//! totals but not in success rates, pass@k or the means: they stopped early
//! and say nothing about the model or the interface.
//!
//! Everything is ordered by name (variants by interface, then name), never by
//! the order runs finished in, so the same runs give the same page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::record::{Call, Failure, FailureClass, RunRecord, Status};
use crate::suite::INTERFACES;

/// What the report says about where the runs came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReportMeta {
    pub suite: String,
    pub description: String,
    /// The harness that ran them (`tack 0.1.0`).
    pub harness: String,
    /// Where the model's responses came from: `cassette`, `script` or `live`.
    pub source: String,
    /// When the report was made (RFC 3339), or any text the caller gives.
    pub generated: String,
    /// The chart's SVG, relative to the report, to link; None for no chart.
    pub chart: Option<String>,
}

impl ReportMeta {
    /// Suite, harness and source as the records say (several distinct values
    /// are joined with `, `); description, generated and chart left empty.
    pub fn from_runs(runs: &[RunRecord]) -> ReportMeta {
        let distinct = |f: fn(&RunRecord) -> &str| {
            let set: BTreeSet<&str> = runs.iter().map(f).filter(|s| !s.is_empty()).collect();
            set.into_iter().collect::<Vec<_>>().join(", ")
        };
        ReportMeta {
            suite: distinct(|r| &r.suite),
            harness: distinct(|r| &r.harness),
            source: distinct(|r| &r.source),
            ..ReportMeta::default()
        }
    }
}

/// The numbers behind one row of the report's variant table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantSummary {
    pub variant: String,
    pub interface: String,
    pub tool_search: bool,
    pub skill: bool,
    pub code_mode: bool,
    pub runs: u32,
    pub passed: u32,
    pub failed: u32,
    pub diverged: u32,
    pub errors: u32,
    /// passed / (runs − diverged − errors); None when no run was judged.
    pub success_rate: Option<f64>,
    /// Tasks with at least one judged run: the denominator of pass@k and pass^k.
    pub tasks: u32,
    /// The fewest and most judged repeats of a task (k; equal when every
    /// task ran as often).
    pub k_min: u32,
    pub k_max: u32,
    /// Share of tasks where at least one of its k repeats passed.
    pub pass_at_k: Option<f64>,
    /// Share of tasks where all of its k repeats passed (pass^k).
    pub pass_all_k: Option<f64>,
    /// Means over the judged runs (None when there are none).
    pub mean_tokens: Option<f64>,
    /// Over the judged runs whose requests were seen (None when none were).
    pub mean_tool_definition_tokens: Option<f64>,
    pub mean_discovery_tokens: Option<f64>,
    /// Share of input tokens read from the prompt cache, per run, averaged.
    pub mean_cached_share: Option<f64>,
    pub mean_turns: Option<f64>,
    pub mean_wall_s: Option<f64>,
    /// The classes that explain the failed runs, in [`FailureClass`] order.
    pub failures: Vec<ClassCount>,
    /// The classes observed in passing runs (each observation counted).
    pub observed_in_passing: Vec<ClassCount>,
}

/// How often a failure class was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClassCount {
    pub class: FailureClass,
    pub count: u32,
}

/// A run the model is to be judged by: it passed or failed.
fn judged(run: &RunRecord) -> bool {
    matches!(run.status, Status::Passed | Status::Failed)
}

/// Variants in report order: by interface (as the suite lists them), then name.
fn variant_order(a: &RunRecord, b: &RunRecord) -> std::cmp::Ordering {
    interface_rank(&a.interface)
        .cmp(&interface_rank(&b.interface))
        .then_with(|| a.variant.cmp(&b.variant))
}

fn interface_rank(interface: &str) -> usize {
    INTERFACES
        .iter()
        .position(|i| *i == interface)
        .unwrap_or(INTERFACES.len())
}

/// The runs of each variant, variants in report order.
fn by_variant(runs: &[RunRecord]) -> Vec<(&str, Vec<&RunRecord>)> {
    let mut groups: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
    for run in runs {
        groups.entry(&run.variant).or_default().push(run);
    }
    let mut out: Vec<(&str, Vec<&RunRecord>)> = groups.into_iter().collect();
    out.sort_by(|(_, a), (_, b)| variant_order(a[0], b[0]));
    out
}

fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

fn ratio(num: u32, den: u32) -> Option<f64> {
    (den > 0).then(|| f64::from(num) / f64::from(den))
}

fn count_classes<'a>(failures: impl IntoIterator<Item = &'a Failure>) -> Vec<ClassCount> {
    let mut counts: BTreeMap<FailureClass, u32> = BTreeMap::new();
    for f in failures {
        *counts.entry(f.class).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(class, count)| ClassCount { class, count })
        .collect()
}

/// The share of a run's input tokens read from the cache; None without input.
fn cached_share(run: &RunRecord) -> Option<f64> {
    let input = run.tokens.input_uncached + run.tokens.input_cached;
    (input > 0).then(|| run.tokens.input_cached as f64 / input as f64)
}

/// The numbers of each variant, variants by interface then name.
pub fn summarize(runs: &[RunRecord]) -> Vec<VariantSummary> {
    by_variant(runs)
        .into_iter()
        .map(|(name, runs)| summarize_variant(name, &runs))
        .collect()
}

fn summarize_variant(name: &str, runs: &[&RunRecord]) -> VariantSummary {
    let count = |status: Status| runs.iter().filter(|r| r.status == status).count() as u32;
    let (passed, failed) = (count(Status::Passed), count(Status::Failed));
    let judged_runs: Vec<&RunRecord> = runs.iter().copied().filter(|r| judged(r)).collect();

    // pass@k and pass^k: per task, over its judged repeats.
    let mut per_task: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for run in &judged_runs {
        let (n, ok) = per_task.entry(&run.task).or_default();
        *n += 1;
        *ok += u32::from(run.passed());
    }
    let tasks = per_task.len() as u32;
    let any = per_task.values().filter(|(_, ok)| *ok > 0).count() as u32;
    let all = per_task.values().filter(|(n, ok)| ok == n).count() as u32;
    let ks = per_task.values().map(|(n, _)| *n);

    let first = runs.first();
    let mean_of = |f: fn(&RunRecord) -> Option<u64>| {
        mean(judged_runs.iter().filter_map(|r| f(r)).map(|v| v as f64))
    };
    VariantSummary {
        variant: name.to_owned(),
        interface: first.map(|r| r.interface.clone()).unwrap_or_default(),
        tool_search: first.is_some_and(|r| r.tool_search),
        skill: first.is_some_and(|r| r.skill),
        code_mode: first.is_some_and(|r| r.code_mode),
        runs: runs.len() as u32,
        passed,
        failed,
        diverged: count(Status::Diverged),
        errors: count(Status::Error),
        success_rate: ratio(passed, passed + failed),
        tasks,
        k_min: ks.clone().min().unwrap_or(0),
        k_max: ks.max().unwrap_or(0),
        pass_at_k: ratio(any, tasks),
        pass_all_k: ratio(all, tasks),
        mean_tokens: mean_of(|r| Some(r.tokens.total())),
        mean_tool_definition_tokens: mean_of(|r| r.tokens.tool_definitions),
        mean_discovery_tokens: mean_of(|r| r.tokens.discovery),
        mean_cached_share: mean(judged_runs.iter().filter_map(|r| cached_share(r))),
        mean_turns: mean_of(|r| Some(u64::from(r.turns))),
        mean_wall_s: mean(judged_runs.iter().map(|r| r.wall_ms as f64 / 1000.0)),
        failures: count_classes(
            runs.iter()
                .filter(|r| r.status == Status::Failed)
                .filter_map(|r| r.failure.as_ref()),
        ),
        observed_in_passing: count_classes(
            runs.iter()
                .filter(|r| r.passed())
                .flat_map(|r| r.observed.iter()),
        ),
    }
}

// ---- formatting ---------------------------------------------------------

/// `83%`; `–` for none.
pub(crate) fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{:.0}%", v * 100.0))
}

/// `12,345`; `–` for none.
pub(crate) fn thousands(value: Option<f64>) -> String {
    let Some(v) = value else {
        return "–".to_owned();
    };
    let rounded = v.round();
    let digits = format!("{:.0}", rounded.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if rounded < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// One decimal (`4.5`); `–` for none.
pub(crate) fn one_decimal(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"))
}

fn classes(counts: &[ClassCount]) -> String {
    if counts.is_empty() {
        return "–".to_owned();
    }
    counts
        .iter()
        .map(|c| format!("{} {}", c.class.as_str(), c.count))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text made safe for one Markdown table cell or list line.
pub(crate) fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// Text cut to about `max` bytes at a character boundary, `…` marking the cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The mark of one run in the task matrix.
fn mark(status: Status) -> &'static str {
    match status {
        Status::Passed => "✓",
        Status::Failed => "✗",
        Status::Diverged => "↯",
        Status::Error => "⚠",
    }
}

fn call_line(call: &Call) -> String {
    format!("`{}` {}", cell(&call.name), call.outcome)
}

/// The Markdown report of `runs`.
pub fn markdown(runs: &[RunRecord], meta: &ReportMeta) -> String {
    let summaries = summarize(runs);
    let mut out = String::new();
    let title = if meta.suite.is_empty() {
        "tack eval"
    } else {
        meta.suite.as_str()
    };
    let _ = writeln!(out, "# {}\n", cell(title));
    if !meta.description.trim().is_empty() {
        let _ = writeln!(out, "{}\n", meta.description.trim());
    }
    header(&mut out, runs, meta);
    if let Some(chart) = &meta.chart {
        let _ = writeln!(out, "![success rate against tokens per run]({chart})\n");
    }
    variant_table(&mut out, &summaries);
    task_matrix(&mut out, runs, &summaries);
    failures(&mut out, runs);
    observed(&mut out, runs, &summaries);
    out
}

fn header(out: &mut String, runs: &[RunRecord], meta: &ReportMeta) {
    let from_runs = ReportMeta::from_runs(runs);
    let or = |given: &str, found: String| {
        if given.is_empty() {
            found
        } else {
            given.to_owned()
        }
    };
    let count = |status: Status| runs.iter().filter(|r| r.status == status).count();
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| Harness | {} |",
        cell(&or(&meta.harness, from_runs.harness))
    );
    let _ = writeln!(
        out,
        "| Model responses | {} |",
        cell(&or(&meta.source, from_runs.source))
    );
    let models: BTreeSet<String> = runs
        .iter()
        .map(|r| format!("{} {}", r.provider, r.model).trim().to_owned())
        .filter(|m| !m.is_empty())
        .collect();
    if !models.is_empty() {
        let list: Vec<String> = models.into_iter().collect();
        let _ = writeln!(out, "| Model | {} |", cell(&list.join(", ")));
    }
    if !meta.generated.is_empty() {
        let _ = writeln!(out, "| Generated | {} |", cell(&meta.generated));
    }
    let _ = writeln!(
        out,
        "| Runs | {}: {} passed, {} failed, {} diverged, {} error |\n",
        runs.len(),
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Diverged),
        count(Status::Error),
    );
}

fn variant_table(out: &mut String, summaries: &[VariantSummary]) {
    let _ = writeln!(out, "## By variant\n");
    let _ = writeln!(
        out,
        "| variant | interface | tool search | skill | runs | success | k | pass@k | pass^k | tokens/run | tool defs | discovery | cached | turns | time | failures |"
    );
    let _ = writeln!(
        out,
        "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
    );
    for s in summaries {
        let k = if s.k_min == s.k_max {
            s.k_max.to_string()
        } else {
            format!("{}–{}", s.k_min, s.k_max)
        };
        let runs = if s.diverged + s.errors > 0 {
            format!("{} ({} not judged)", s.runs, s.diverged + s.errors)
        } else {
            s.runs.to_string()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {runs} | {} | {k} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&s.variant),
            cell(&s.interface),
            yes(s.tool_search),
            yes(s.skill),
            percent(s.success_rate),
            percent(s.pass_at_k),
            percent(s.pass_all_k),
            thousands(s.mean_tokens),
            thousands(s.mean_tool_definition_tokens),
            thousands(s.mean_discovery_tokens),
            percent(s.mean_cached_share),
            one_decimal(s.mean_turns),
            s.mean_wall_s
                .map_or_else(|| "–".to_owned(), |v| format!("{v:.1} s")),
            classes(&s.failures),
        );
    }
    let _ = writeln!(
        out,
        "\nSuccess: passed / (runs − diverged − error). k: the judged repeats of each task; \
         pass@k: share of tasks where at least one of its k repeats passed; pass^k: where all did. \
         Means (tokens: input cached or not, and output; tool defs and discovery: the part of input \
         that was tool definitions and tool search; cached: share of input read from the cache; \
         time: wall time) are per judged run.\n"
    );
}

fn task_matrix(out: &mut String, runs: &[RunRecord], summaries: &[VariantSummary]) {
    let mut cells: BTreeMap<&str, BTreeMap<&str, Vec<&RunRecord>>> = BTreeMap::new();
    for run in runs {
        cells
            .entry(&run.task)
            .or_default()
            .entry(&run.variant)
            .or_default()
            .push(run);
    }
    let _ = writeln!(out, "## By task\n");
    let names: Vec<String> = summaries.iter().map(|s| cell(&s.variant)).collect();
    let _ = writeln!(out, "| task | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(summaries.len()));
    for (task, row) in &cells {
        let mut line = format!("| {} |", cell(task));
        for s in summaries {
            let text = match row.get(s.variant.as_str()) {
                None => "–".to_owned(),
                Some(list) => {
                    let mut list = list.clone();
                    list.sort_by_key(|r| r.repeat);
                    let marks: String = list.iter().map(|r| mark(r.status)).collect();
                    let judged_n = list.iter().filter(|r| judged(r)).count();
                    let passed = list.iter().filter(|r| r.passed()).count();
                    format!("{marks} {passed}/{judged_n}")
                }
            };
            let _ = write!(line, " {text} |");
        }
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(
        out,
        "\nOne mark per repeat: ✓ passed, ✗ failed, ↯ diverged from its cassette, ⚠ harness error; then passed/judged.\n"
    );
}

fn failures(out: &mut String, runs: &[RunRecord]) {
    let mut bad: Vec<&RunRecord> = runs.iter().filter(|r| !r.passed()).collect();
    bad.sort_by(|a, b| (&a.task, &a.variant, a.repeat).cmp(&(&b.task, &b.variant, b.repeat)));
    let _ = writeln!(out, "## Failures\n");
    if bad.is_empty() {
        let _ = writeln!(out, "None: every run passed.\n");
        return;
    }
    for run in bad {
        let _ = write!(out, "- `{}` **{}**", cell(&run.key()), run.status.as_str());
        match (&run.failure, &run.divergence) {
            (Some(f), _) => {
                let _ = write!(
                    out,
                    " · `{}`: {}",
                    f.class.as_str(),
                    cell(&cut(&f.detail, 400))
                );
            }
            (None, Some(d)) => {
                let _ = write!(
                    out,
                    " at request {}: {}",
                    d.request,
                    cell(&cut(&d.detail, 400))
                );
            }
            (None, None) => {
                if let Some(status) = &run.run_status {
                    let _ = write!(out, ": session ended `{}`", cell(status));
                }
                if let Some(code) = run.exit_code {
                    let _ = write!(out, " (exit code {code})");
                }
            }
        }
        let _ = writeln!(out);
        if let Some(d) = run.divergence.as_ref().filter(|_| run.failure.is_some()) {
            let _ = writeln!(
                out,
                "  - diverged at request {}: {}",
                d.request,
                cell(&cut(&d.detail, 400))
            );
        }
        let showing: Vec<&Call> = run
            .failure
            .iter()
            .filter_map(|f| f.call_id.as_deref())
            .filter_map(|id| run.calls.iter().find(|c| c.id == id))
            .collect();
        if let Some(call) = showing.first() {
            let _ = writeln!(
                out,
                "  - shown by: {} — {}",
                call_line(call),
                cell(&cut(&call.result, 200))
            );
        }
        for check in run.checks.iter().filter(|c| !c.passed) {
            let detail = if check.detail.is_empty() {
                String::new()
            } else {
                format!(": {}", cell(&cut(&check.detail, 200)))
            };
            let _ = writeln!(out, "  - check failed: `{}`{detail}", cell(&check.check));
        }
        if !run.calls.is_empty() {
            const SHOWN: usize = 12;
            let mut list: Vec<String> = run.calls.iter().take(SHOWN).map(call_line).collect();
            if run.calls.len() > SHOWN {
                list.push(format!("… {} more", run.calls.len() - SHOWN));
            }
            let _ = writeln!(out, "  - calls: {}", list.join(" → "));
        } else {
            let _ = writeln!(out, "  - calls: none");
        }
    }
    let _ = writeln!(out);
}

fn observed(out: &mut String, runs: &[RunRecord], summaries: &[VariantSummary]) {
    let _ = writeln!(out, "## Observed in passing runs\n");
    let mut by_class: BTreeMap<FailureClass, (u32, BTreeSet<String>)> = BTreeMap::new();
    for run in runs.iter().filter(|r| r.passed()) {
        for f in &run.observed {
            let (n, keys) = by_class.entry(f.class).or_default();
            *n += 1;
            keys.insert(run.key());
        }
    }
    if by_class.is_empty() {
        let _ = writeln!(out, "Nothing: the passing runs made no mistake on the way.");
        return;
    }
    let _ = writeln!(
        out,
        "| class | seen | runs | by variant |\n|---|--:|--:|---|"
    );
    for (class, (n, keys)) in &by_class {
        let per_variant: Vec<String> = summaries
            .iter()
            .filter_map(|s| {
                s.observed_in_passing
                    .iter()
                    .find(|c| c.class == *class)
                    .map(|c| format!("{} {}", cell(&s.variant), c.count))
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {n} | {} | {} |",
            class.as_str(),
            keys.len(),
            per_variant.join(", ")
        );
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{CheckResult, Divergence, RECORD_VERSION, Tokens};
    use serde_json::json;

    /// A run record with everything a report reads set to something plain.
    pub(crate) fn run(task: &str, variant: &str, repeat: u32, status: Status) -> RunRecord {
        RunRecord {
            version: RECORD_VERSION,
            suite: "market".into(),
            task: task.into(),
            variant: variant.into(),
            repeat,
            interface: variant.split('-').next().unwrap_or(variant).into(),
            tool_search: variant.contains("search"),
            skill: false,
            code_mode: false,
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            source: "cassette".into(),
            status,
            checks: vec![CheckResult {
                check: "answer_matches /\\$\\d+/".into(),
                passed: status == Status::Passed,
                detail: String::new(),
            }],
            failure: (status == Status::Failed).then(|| Failure {
                class: FailureClass::WrongTool,
                detail: "called Bash | not get_quote".into(),
                call_id: Some("toolu_2".into()),
            }),
            observed: Vec::new(),
            calls: vec![
                call("toolu_1", "mcp__market__get_quote", "ok", 1),
                call("toolu_2", "Bash", "ok", 2),
            ],
            tokens: Tokens {
                input_uncached: 1000,
                input_cached: 3000,
                output: 200,
                tool_definitions: Some(1500),
                discovery: None,
                retries: 0,
            },
            turns: 3,
            retries: 0,
            wall_ms: 4500,
            model_ms: 3000,
            tool_ms: 500,
            harness_ms: 40,
            exit_code: Some(0),
            run_status: Some("completed".into()),
            answer: "AAPL is at $190.".into(),
            divergence: (status == Status::Diverged).then(|| Divergence {
                request: 1,
                detail: "the tools differ".into(),
            }),
            dir: format!("runs/{task}/{variant}/{repeat}"),
            transcript: Some(format!("runs/{task}/{variant}/{repeat}/transcript.jsonl")),
            started: "2025-11-02T10:00:00Z".into(),
            harness: "tack 0.1.0".into(),
        }
    }

    pub(crate) fn call(id: &str, name: &str, outcome: &str, turn: u32) -> Call {
        Call {
            id: id.into(),
            name: name.into(),
            input: json!({"symbol": "AAPL"}),
            outcome: outcome.into(),
            is_error: outcome != "ok",
            duration_ms: 12,
            decision: String::new(),
            decided_by: String::new(),
            caller: None,
            result: format!("{name} said something"),
            turn,
        }
    }

    fn sample() -> Vec<RunRecord> {
        let mut observed_pass = run("quote", "mcp", 1, Status::Passed);
        observed_pass.observed.push(Failure {
            class: FailureClass::InvalidArguments,
            detail: "symbol missing, retried".into(),
            call_id: Some("toolu_1".into()),
        });
        vec![
            run("quote", "mcp", 0, Status::Passed),
            observed_pass,
            run("report", "mcp", 0, Status::Failed),
            run("report", "mcp", 1, Status::Diverged),
            run("quote", "typed", 0, Status::Passed),
            run("quote", "typed", 1, Status::Passed),
            run("report", "typed", 0, Status::Passed),
            run("report", "typed", 1, Status::Error),
        ]
    }

    #[test]
    fn success_rate_leaves_out_diverged_and_errored_runs() {
        let s = summarize(&sample());
        // typed before mcp: the suite's interface order.
        assert_eq!(s[0].variant, "typed");
        assert_eq!(s[1].variant, "mcp");
        let mcp = &s[1];
        assert_eq!(
            (mcp.runs, mcp.passed, mcp.failed, mcp.diverged),
            (4, 2, 1, 1)
        );
        assert_eq!(mcp.success_rate, Some(2.0 / 3.0));
        assert_eq!(s[0].success_rate, Some(1.0));
        assert_eq!(s[0].errors, 1);
    }

    #[test]
    fn pass_at_k_and_pass_all_k_are_per_task() {
        let s = summarize(&sample());
        let mcp = &s[1];
        // quote: 2/2 passed; report: 0/1 judged (the diverged repeat is not judged).
        assert_eq!(mcp.tasks, 2);
        assert_eq!((mcp.k_min, mcp.k_max), (1, 2));
        assert_eq!(mcp.pass_at_k, Some(0.5));
        assert_eq!(mcp.pass_all_k, Some(0.5));
        let mut runs = sample();
        runs.push(run("report", "mcp", 2, Status::Passed));
        let mcp = &summarize(&runs)[1];
        assert_eq!(mcp.pass_at_k, Some(1.0));
        assert_eq!(mcp.pass_all_k, Some(0.5));
    }

    #[test]
    fn means_are_over_judged_runs() {
        let mut runs = sample();
        runs[3].tokens.output = 1_000_000; // the diverged run: not counted
        let mcp = &summarize(&runs)[1];
        assert_eq!(mcp.mean_tokens, Some(4200.0));
        assert_eq!(mcp.mean_tool_definition_tokens, Some(1500.0));
        assert_eq!(mcp.mean_discovery_tokens, None);
        assert_eq!(mcp.mean_cached_share, Some(0.75));
        assert_eq!(mcp.mean_turns, Some(3.0));
        assert_eq!(mcp.mean_wall_s, Some(4.5));
        assert_eq!(
            mcp.failures,
            [ClassCount {
                class: FailureClass::WrongTool,
                count: 1
            }]
        );
        assert_eq!(
            mcp.observed_in_passing,
            [ClassCount {
                class: FailureClass::InvalidArguments,
                count: 1
            }]
        );
        let json = serde_json::to_value(mcp).unwrap();
        assert_eq!(json["failures"][0]["class"], "wrong_tool");
        assert_eq!(json["mean_discovery_tokens"], serde_json::Value::Null);
    }

    #[test]
    fn the_report_has_a_row_per_variant_a_matrix_failures_and_observations() {
        let meta = ReportMeta {
            suite: "market".into(),
            description: "Stock questions.".into(),
            harness: "tack 0.1.0".into(),
            source: "cassette".into(),
            generated: "2025-11-02T10:00:00Z".into(),
            chart: Some("chart.svg".into()),
        };
        let md = markdown(&sample(), &meta);
        assert!(md.starts_with("# market\n\nStock questions.\n"), "{md}");
        assert!(
            md.contains("| Runs | 8: 5 passed, 1 failed, 1 diverged, 1 error |"),
            "{md}"
        );
        assert!(
            md.contains("![success rate against tokens per run](chart.svg)"),
            "{md}"
        );
        assert!(
            md.contains("| typed | typed | no | no | 4 (1 not judged) | 100% | 1–2 | 100% | 100% | 4,200 | 1,500 | – | 75% | 3.0 | 4.5 s | – |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| mcp | mcp | no | no | 4 (1 not judged) | 67% | 1–2 | 50% | 50% | 4,200 |"
            ),
            "{md}"
        );
        assert!(md.contains("wrong_tool 1 |"), "{md}");
        assert!(md.contains("| task | typed | mcp |"), "{md}");
        assert!(md.contains("| quote | ✓✓ 2/2 | ✓✓ 2/2 |"), "{md}");
        assert!(md.contains("| report | ✓⚠ 1/1 | ✗↯ 0/1 |"), "{md}");
        assert!(
            md.contains(
                "- `report/mcp/0` **failed** · `wrong_tool`: called Bash \\| not get_quote"
            ),
            "{md}"
        );
        assert!(
            md.contains("  - shown by: `Bash` ok — Bash said something"),
            "{md}"
        );
        assert!(
            md.contains("  - calls: `mcp__market__get_quote` ok → `Bash` ok"),
            "{md}"
        );
        assert!(
            md.contains("- `report/mcp/1` **diverged** at request 1: the tools differ"),
            "{md}"
        );
        assert!(
            md.contains("- `report/typed/1` **error**: session ended `completed` (exit code 0)"),
            "{md}"
        );
        assert!(md.contains("| invalid_arguments | 1 | 1 | mcp 1 |"), "{md}");
    }

    #[test]
    fn the_same_runs_in_another_order_give_the_same_report() {
        let meta = ReportMeta::from_runs(&sample());
        assert_eq!(meta.suite, "market");
        assert_eq!(meta.harness, "tack 0.1.0");
        let mut reversed = sample();
        reversed.reverse();
        assert_eq!(markdown(&sample(), &meta), markdown(&reversed, &meta));
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(Some(1234567.4)), "1,234,567");
        assert_eq!(thousands(Some(999.5)), "1,000");
        assert_eq!(thousands(Some(-1234.0)), "-1,234");
        assert_eq!(thousands(None), "–");
        assert_eq!(percent(Some(0.666)), "67%");
        assert_eq!(cut("héllo", 2), "h…");
        assert_eq!(cell("a |\nb"), "a \\| b");
    }
}
