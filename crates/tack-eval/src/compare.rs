//! What changed between two result sets: two harness builds over the same
//! suite ([`compare`], runs matched by `task/variant/repeat`), or two
//! variants of one set ([`compare_variants`], runs matched by
//! `task/repeat`).
//!
//! ```text
//! per variant   success rate, tokens, turns and wall time of A and B, deltas absolute and in %
//! regressions   runs that passed in A and not in B (with B's failure class)      ← listed first
//! fixes         runs that did not pass in A and pass in B
//! other         status or failure class changed otherwise (failed → diverged, wrong_tool → gave_up)
//! calls         runs whose call sequence changed (tool names, per model turn)
//! unmatched     runs only one side has
//! ```
//!
//! **Key decision: a call sequence is compared per model turn, as a set
//! of names.** Calls a turn makes together finish in any order; the order
//! of turns, and of calls a code-mode program makes, is kept.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::record::{Call, Failure, RunRecord, Status};
use crate::report::{VariantSummary, cell, cut, one_decimal, percent, summarize, thousands};

/// Two result sets compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// What A and B are (`main`, `HEAD`, a variant's name).
    pub a: String,
    pub b: String,
    /// Per variant (or the one pair of variants compared).
    pub variants: Vec<VariantDelta>,
    /// Runs whose status or failure class changed: regressions first, then
    /// fixes, then the others, each by key.
    pub status_changes: Vec<RunChange>,
    /// Matched runs whose call sequence changed.
    pub call_changes: Vec<CallChange>,
    /// Keys of runs only A has, and only B has.
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
}

/// One variant's numbers in A and in B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantDelta {
    /// The variant in A and in B (the same name unless two variants are compared).
    pub a_variant: String,
    pub b_variant: String,
    /// The runs each side has (0: the side has no run of the variant).
    pub a_runs: u32,
    pub b_runs: u32,
    /// passed / judged, as a share (0–1).
    pub success_rate: Delta,
    pub tokens: Delta,
    pub turns: Delta,
    pub wall_s: Delta,
}

/// A number in A and in B and how it moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// b − a.
    pub change: Option<f64>,
    /// (b − a) / a, as a share; None when a is 0 or missing.
    pub relative: Option<f64>,
}

impl Delta {
    pub fn new(a: Option<f64>, b: Option<f64>) -> Delta {
        let change = a.zip(b).map(|(a, b)| b - a);
        let relative = a.zip(change).filter(|(a, _)| *a != 0.0).map(|(a, c)| c / a);
        Delta {
            a,
            b,
            change,
            relative,
        }
    }
}

/// How a run's status moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It passed in A and does not in B.
    Regression,
    /// It did not pass in A and does in B.
    Fix,
    /// Some other move: failed → diverged, or failed with another class.
    Other,
}

/// A run whose status (or failure class) differs between A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunChange {
    pub kind: ChangeKind,
    /// The run's key in B (in A when B's differs only by variant name, see `a_key`).
    pub key: String,
    pub a_key: String,
    pub from: Status,
    pub to: Status,
    /// The failure that explained A's run, and B's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a_failure: Option<Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b_failure: Option<Failure>,
}

/// A run whose calls differ between A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallChange {
    pub key: String,
    pub a_key: String,
    /// The calls' names, per model turn in order, as [`call_sequence`] gives them.
    pub a_calls: Vec<String>,
    pub b_calls: Vec<String>,
}

/// Compares two result sets run by run (matched by `task/variant/repeat`)
/// and variant by variant (matched by name).
pub fn compare(a: &[RunRecord], b: &[RunRecord], a_name: &str, b_name: &str) -> Comparison {
    let a_summaries = summarize(a);
    let b_summaries = summarize(b);
    let mut names: Vec<&str> = a_summaries.iter().map(|s| s.variant.as_str()).collect();
    for s in &b_summaries {
        if !names.contains(&s.variant.as_str()) {
            names.push(&s.variant);
        }
    }
    let find =
        |list: &'_ [VariantSummary], name: &str| list.iter().find(|s| s.variant == name).cloned();
    let variants = names
        .iter()
        .map(|name| {
            variant_delta(
                name,
                name,
                find(&a_summaries, name).as_ref(),
                find(&b_summaries, name).as_ref(),
            )
        })
        .collect();
    let pairs = pair(a.iter(), b.iter(), RunRecord::key);
    runs_compared(a_name, b_name, variants, pairs)
}

/// Compares variant `va` with variant `vb` of one result set: their runs
/// matched by task and repeat.
pub fn compare_variants(runs: &[RunRecord], va: &str, vb: &str) -> Comparison {
    let of =
        |v: &str| -> Vec<RunRecord> { runs.iter().filter(|r| r.variant == v).cloned().collect() };
    let (a, b) = (of(va), of(vb));
    let a_summary = summarize(&a).into_iter().next();
    let b_summary = summarize(&b).into_iter().next();
    let variants = vec![variant_delta(
        va,
        vb,
        a_summary.as_ref(),
        b_summary.as_ref(),
    )];
    let pairs = pair(a.iter(), b.iter(), |r| format!("{}/{}", r.task, r.repeat));
    runs_compared(va, vb, variants, pairs)
}

/// Runs of A and B by a matching key: (A's run, B's run), either missing.
type Pairs<'a> = BTreeMap<String, (Option<&'a RunRecord>, Option<&'a RunRecord>)>;

fn pair<'a>(
    a: impl Iterator<Item = &'a RunRecord>,
    b: impl Iterator<Item = &'a RunRecord>,
    key: impl Fn(&RunRecord) -> String,
) -> Pairs<'a> {
    let mut pairs: Pairs<'a> = BTreeMap::new();
    for run in a {
        pairs.entry(key(run)).or_default().0 = Some(run);
    }
    for run in b {
        pairs.entry(key(run)).or_default().1 = Some(run);
    }
    pairs
}

fn variant_delta(
    a_variant: &str,
    b_variant: &str,
    a: Option<&VariantSummary>,
    b: Option<&VariantSummary>,
) -> VariantDelta {
    let d = |f: fn(&VariantSummary) -> Option<f64>| Delta::new(a.and_then(f), b.and_then(f));
    VariantDelta {
        a_variant: a_variant.to_owned(),
        b_variant: b_variant.to_owned(),
        a_runs: a.map_or(0, |s| s.runs),
        b_runs: b.map_or(0, |s| s.runs),
        success_rate: d(|s| s.success_rate),
        tokens: d(|s| s.mean_tokens),
        turns: d(|s| s.mean_turns),
        wall_s: d(|s| s.mean_wall_s),
    }
}

fn runs_compared(
    a_name: &str,
    b_name: &str,
    variants: Vec<VariantDelta>,
    pairs: Pairs<'_>,
) -> Comparison {
    let mut status_changes = Vec::new();
    let mut call_changes = Vec::new();
    let mut only_in_a = Vec::new();
    let mut only_in_b = Vec::new();
    for (_, sides) in pairs {
        let (ra, rb) = match sides {
            (Some(ra), Some(rb)) => (ra, rb),
            (Some(ra), None) => {
                only_in_a.push(ra.key());
                continue;
            }
            (None, Some(rb)) => {
                only_in_b.push(rb.key());
                continue;
            }
            (None, None) => continue,
        };
        let class = |r: &RunRecord| r.failure.as_ref().map(|f| f.class);
        if ra.status != rb.status || class(ra) != class(rb) {
            let kind = match (ra.passed(), rb.passed()) {
                (true, false) => ChangeKind::Regression,
                (false, true) => ChangeKind::Fix,
                _ => ChangeKind::Other,
            };
            status_changes.push(RunChange {
                kind,
                key: rb.key(),
                a_key: ra.key(),
                from: ra.status,
                to: rb.status,
                a_failure: ra.failure.clone(),
                b_failure: rb.failure.clone(),
            });
        }
        let (sa, sb) = (call_sequence(&ra.calls), call_sequence(&rb.calls));
        if sa != sb {
            call_changes.push(CallChange {
                key: rb.key(),
                a_key: ra.key(),
                a_calls: sa,
                b_calls: sb,
            });
        }
    }
    status_changes.sort_by(|x, y| (x.kind, &x.key).cmp(&(y.kind, &y.key)));
    Comparison {
        a: a_name.to_owned(),
        b: b_name.to_owned(),
        variants,
        status_changes,
        call_changes,
        only_in_a,
        only_in_b,
    }
}

/// A run's calls as compared: one entry per call, model turn by model
/// turn; the calls a turn made sorted by name (they finish in any order),
/// each followed by the calls made from inside it in the order they ran.
/// A nested call reads `outer>inner`.
pub fn call_sequence(calls: &[Call]) -> Vec<String> {
    let by_id: BTreeMap<&str, &Call> = calls.iter().map(|c| (c.id.as_str(), c)).collect();
    // The top-level call a call was made under (itself when top-level).
    let root = |call: &Call| -> String {
        let mut current = call;
        let mut hops = 0;
        while let Some(outer) = current.caller.as_deref().and_then(|id| by_id.get(id)) {
            current = outer;
            hops += 1;
            if hops > calls.len() {
                break;
            }
        }
        current.id.clone()
    };
    let mut top: Vec<&Call> = calls.iter().filter(|c| c.caller.is_none()).collect();
    top.sort_by(|x, y| (x.turn, &x.name).cmp(&(y.turn, &y.name)));
    let mut out = Vec::new();
    for outer in &top {
        out.push(outer.name.clone());
        for inner in calls
            .iter()
            .filter(|c| c.caller.is_some() && root(c) == outer.id)
        {
            out.push(format!("{}>{}", outer.name, inner.name));
        }
    }
    // Nested calls whose outer call is not recorded, at the end as they ran.
    for orphan in calls
        .iter()
        .filter(|c| c.caller.is_some() && !by_id.contains_key(root(c).as_str()))
    {
        out.push(format!("?>{}", orphan.name));
    }
    out
}

impl Comparison {
    /// The comparison as JSON (the shape of the `Comparison` fields).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Whether B lost a run A passed.
    pub fn has_regressions(&self) -> bool {
        self.status_changes
            .iter()
            .any(|c| c.kind == ChangeKind::Regression)
    }

    /// The comparison for a person.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let (a, b) = (cell(&self.a), cell(&self.b));
        let _ = writeln!(out, "# {a} → {b}\n");
        let count = |k: ChangeKind| self.status_changes.iter().filter(|c| c.kind == k).count();
        let _ = writeln!(
            out,
            "{} regression(s), {} fix(es), {} other status change(s), {} run(s) with other calls.\n",
            count(ChangeKind::Regression),
            count(ChangeKind::Fix),
            count(ChangeKind::Other),
            self.call_changes.len()
        );

        let sections = [
            (
                ChangeKind::Regression,
                "Regressions",
                "passed in A, not in B",
            ),
            (ChangeKind::Fix, "Fixes", "did not pass in A, passes in B"),
            (
                ChangeKind::Other,
                "Other status changes",
                "neither passed, or both did",
            ),
        ];
        for (kind, heading, what) in sections {
            let changes: Vec<&RunChange> = self
                .status_changes
                .iter()
                .filter(|c| c.kind == kind)
                .collect();
            if changes.is_empty() && kind != ChangeKind::Regression {
                continue;
            }
            let _ = writeln!(out, "## {heading}\n");
            if changes.is_empty() {
                let _ = writeln!(out, "None: every run that passed in {a} passes in {b}.\n");
                continue;
            }
            let _ = writeln!(out, "Runs that {what}.\n");
            for c in changes {
                let _ = writeln!(
                    out,
                    "- `{}` {}{} → {}{}",
                    self.key_text(&c.a_key, &c.key),
                    c.from.as_str(),
                    failure_text(c.a_failure.as_ref()),
                    c.to.as_str(),
                    failure_text(c.b_failure.as_ref()),
                );
            }
            let _ = writeln!(out);
        }

        let _ = writeln!(out, "## By variant\n");
        let _ = writeln!(
            out,
            "| variant | runs | success | Δ | tokens/run | Δ | turns | Δ | time (s) | Δ |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
        );
        for v in &self.variants {
            let name = if v.a_variant == v.b_variant {
                cell(&v.a_variant)
            } else {
                format!("{} → {}", cell(&v.a_variant), cell(&v.b_variant))
            };
            let _ = writeln!(
                out,
                "| {name} | {} → {} | {} → {} | {} | {} → {} | {} | {} → {} | {} | {} → {} | {} |",
                v.a_runs,
                v.b_runs,
                percent(v.success_rate.a),
                percent(v.success_rate.b),
                points(v.success_rate.change),
                thousands(v.tokens.a),
                thousands(v.tokens.b),
                signed(v.tokens, |c| thousands(Some(c))),
                one_decimal(v.turns.a),
                one_decimal(v.turns.b),
                signed(v.turns, |c| format!("{c:.1}")),
                one_decimal(v.wall_s.a),
                one_decimal(v.wall_s.b),
                signed(v.wall_s, |c| format!("{c:.1}")),
            );
        }
        let _ = writeln!(
            out,
            "\nSuccess Δ in percentage points; the other Δ are B − A and, in brackets, relative to A.\n"
        );

        if !self.call_changes.is_empty() {
            let _ = writeln!(out, "## Calls changed\n");
            for c in &self.call_changes {
                let _ = writeln!(out, "- `{}`", self.key_text(&c.a_key, &c.key));
                let _ = writeln!(out, "  - {a}: {}", sequence_text(&c.a_calls));
                let _ = writeln!(out, "  - {b}: {}", sequence_text(&c.b_calls));
            }
            let _ = writeln!(out);
        }
        for (side, keys) in [(&a, &self.only_in_a), (&b, &self.only_in_b)] {
            if !keys.is_empty() {
                let list: Vec<String> = keys.iter().map(|k| format!("`{}`", cell(k))).collect();
                let _ = writeln!(out, "Only in {side}: {}\n", list.join(", "));
            }
        }
        out
    }

    fn key_text(&self, a_key: &str, b_key: &str) -> String {
        if a_key == b_key {
            cell(b_key)
        } else {
            format!("{} → {}", cell(a_key), cell(b_key))
        }
    }
}

fn failure_text(failure: Option<&Failure>) -> String {
    failure.map_or_else(String::new, |f| {
        format!(" (`{}`: {})", f.class.as_str(), cell(&cut(&f.detail, 200)))
    })
}

fn sequence_text(calls: &[String]) -> String {
    if calls.is_empty() {
        return "no calls".to_owned();
    }
    calls
        .iter()
        .map(|c| format!("`{}`", cell(c)))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// A success-rate change in percentage points: `+12 pp`.
fn points(change: Option<f64>) -> String {
    change.map_or_else(|| "–".to_owned(), |c| format!("{:+.0} pp", c * 100.0))
}

/// `+1,234 (+12%)`; `–` when either side is missing.
fn signed(delta: Delta, format: impl Fn(f64) -> String) -> String {
    let Some(change) = delta.change else {
        return "–".to_owned();
    };
    let sign = if change >= 0.0 { "+" } else { "" };
    let mut text = format!("{sign}{}", format(change));
    if let Some(r) = delta.relative {
        let _ = write!(text, " ({:+.0}%)", r * 100.0);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::FailureClass;
    use crate::report::tests::{call, run};

    fn base() -> Vec<RunRecord> {
        vec![
            run("quote", "mcp", 0, Status::Passed),
            run("quote", "mcp", 1, Status::Passed),
            run("report", "mcp", 0, Status::Failed),
            run("quote", "typed", 0, Status::Passed),
        ]
    }

    #[test]
    fn a_run_that_stops_passing_is_a_regression_listed_first_with_its_new_class() {
        let a = base();
        let mut b = base();
        b[1] = run("quote", "mcp", 1, Status::Failed);
        b[1].failure = Some(Failure {
            class: FailureClass::InvalidArguments,
            detail: "symbol is required".into(),
            call_id: None,
        });
        b[2] = run("report", "mcp", 0, Status::Passed);
        let c = compare(&a, &b, "main", "HEAD");
        assert_eq!(c.status_changes.len(), 2);
        let first = &c.status_changes[0];
        assert_eq!(first.kind, ChangeKind::Regression);
        assert_eq!(first.key, "quote/mcp/1");
        assert_eq!((first.from, first.to), (Status::Passed, Status::Failed));
        assert_eq!(
            first.b_failure.as_ref().unwrap().class,
            FailureClass::InvalidArguments
        );
        assert_eq!(c.status_changes[1].kind, ChangeKind::Fix);
        assert_eq!(c.status_changes[1].key, "report/mcp/0");
        assert!(c.has_regressions());

        let md = c.markdown();
        assert!(
            md.starts_with("# main → HEAD\n\n1 regression(s), 1 fix(es)"),
            "{md}"
        );
        let regressions = md.find("## Regressions").unwrap();
        let fixes = md.find("## Fixes").unwrap();
        assert!(regressions < fixes, "{md}");
        assert!(
            md.contains(
                "- `quote/mcp/1` passed → failed (`invalid_arguments`: symbol is required)"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "- `report/mcp/0` failed (`wrong_tool`: called Bash \\| not get_quote) → passed"
            ),
            "{md}"
        );
    }

    #[test]
    fn variant_deltas_are_absolute_and_relative() {
        let a = base();
        let mut b = base();
        for r in b.iter_mut().filter(|r| r.variant == "mcp") {
            r.tokens.output += 4200; // 4,200 → 8,400 tokens per run
            r.turns = 6;
            r.wall_ms = 9000;
        }
        b[2] = {
            let mut r = run("report", "mcp", 0, Status::Passed);
            r.tokens.output += 4200;
            r.turns = 6;
            r.wall_ms = 9000;
            r
        };
        let c = compare(&a, &b, "A", "B");
        let mcp = c.variants.iter().find(|v| v.a_variant == "mcp").unwrap();
        assert_eq!(mcp.success_rate.a, Some(2.0 / 3.0));
        assert_eq!(mcp.success_rate.b, Some(1.0));
        assert_eq!(mcp.tokens.change, Some(4200.0));
        assert_eq!(mcp.tokens.relative, Some(1.0));
        assert_eq!(mcp.turns.change, Some(3.0));
        assert_eq!(mcp.wall_s.change, Some(4.5));
        let typed = c.variants.iter().find(|v| v.a_variant == "typed").unwrap();
        assert_eq!(typed.tokens.change, Some(0.0));
        let md = c.markdown();
        assert!(
            md.contains("| mcp | 3 → 3 | 67% → 100% | +33 pp | 4,200 → 8,400 | +4,200 (+100%) | 3.0 → 6.0 | +3.0 (+100%) | 4.5 → 9.0 | +4.5 (+100%) |"),
            "{md}"
        );
        assert!(md.contains("## Regressions\n\nNone"), "{md}");
        let json = c.to_json();
        assert_eq!(json["variants"][1]["a_variant"], "mcp");
        assert_eq!(json["variants"][1]["tokens"]["relative"], 1.0);
        assert_eq!(json["status_changes"][0]["kind"], "fix");
    }

    #[test]
    fn calls_that_changed_are_listed_but_parallel_calls_in_another_order_are_not() {
        let mut a = base();
        let mut b = base();
        // quote/mcp/0: the same two calls of turn 1, finished the other way round.
        a[0].calls = vec![
            call("1", "get_quote", "ok", 1),
            call("2", "get_news", "ok", 1),
        ];
        b[0].calls = vec![
            call("2", "get_news", "ok", 1),
            call("1", "get_quote", "ok", 1),
        ];
        // quote/typed/0: another tool in turn 2.
        b[3].calls[1].name = "Read".into();
        let c = compare(&a, &b, "A", "B");
        assert_eq!(c.call_changes.len(), 1, "{:?}", c.call_changes);
        let change = &c.call_changes[0];
        assert_eq!(change.key, "quote/typed/0");
        assert_eq!(change.a_calls, ["mcp__market__get_quote", "Bash"]);
        assert_eq!(change.b_calls, ["mcp__market__get_quote", "Read"]);
        let md = c.markdown();
        assert!(
            md.contains("  - B: `mcp__market__get_quote` → `Read`"),
            "{md}"
        );
    }

    #[test]
    fn nested_calls_follow_their_outer_call_in_the_order_they_ran() {
        let mut inner_b = call("n2", "get_news", "ok", 0);
        inner_b.caller = Some("code".into());
        let mut inner_a = call("n1", "get_quote", "ok", 0);
        inner_a.caller = Some("code".into());
        let calls = vec![
            inner_a,
            inner_b,
            call("code", "Code", "ok", 1),
            call("x", "Read", "ok", 2),
        ];
        assert_eq!(
            call_sequence(&calls),
            ["Code", "Code>get_quote", "Code>get_news", "Read"]
        );
    }

    #[test]
    fn two_variants_of_one_set_are_matched_by_task_and_repeat() {
        let mut runs = base();
        runs.push(run("quote", "typed", 1, Status::Failed));
        let c = compare_variants(&runs, "mcp", "typed");
        assert_eq!(c.variants.len(), 1);
        assert_eq!(c.variants[0].a_variant, "mcp");
        assert_eq!(c.variants[0].b_variant, "typed");
        let keys: Vec<(&str, &str)> = c
            .status_changes
            .iter()
            .map(|s| (s.a_key.as_str(), s.key.as_str()))
            .collect();
        assert_eq!(keys, [("quote/mcp/1", "quote/typed/1")]);
        assert_eq!(c.status_changes[0].kind, ChangeKind::Regression);
        assert_eq!(c.only_in_a, ["report/mcp/0"]);
        assert!(c.only_in_b.is_empty());
        let md = c.markdown();
        assert!(
            md.contains("- `quote/mcp/1 → quote/typed/1` passed → failed"),
            "{md}"
        );
        assert!(md.contains("| mcp → typed | 3 → 2 |"), "{md}");
        assert!(md.contains("Only in mcp: `report/mcp/0`"), "{md}");
    }
}
