//! Offline evaluation of tool search: a catalog of tool definitions, a set
//! of labelled queries, and how well [`ToolIndex::search`] finds the tools
//! each query needs.
//!
//! A catalog is a JSON array of MCP tool definitions `{"server", "name",
//! "description", "inputSchema"}`; the model sees each as
//! `mcp__{server}__{name}`. A query set is JSON lines `{"id", "query",
//! "kind", "steps": [[{"server", "name"}, …], …]}`: each step lists every
//! tool that would do for it; `"steps": []` means no tool serves the query.
//! A line without `steps` is ranked and listed but counts in no figure, so
//! a set labelled some other way can be scored from each query's results.
//!
//! Every query is searched once, whole. Per step: is one of its tools in the
//! top k (recall@k, averaged over steps) and at which rank is the first
//! (reciprocal rank, 0 when none is found). Per query: did every step have
//! a tool in the top 5 (success@5). For a query no tool serves there is no
//! success, only the score of the best tool found, to hold against the
//! best scores of the queries that have an answer. Tokens: the definitions
//! of the top 5 against all definitions, at 4 bytes a token of the JSON of
//! `{name, description, input_schema}`.

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{SearchDoc, ToolIndex};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a catalog (a JSON array of {{\"server\", \"name\", \"description\", \"inputSchema\"}}, or a server's tools/list result {{\"tools\": […]}}): {source}"
    )]
    Catalog {
        path: String,
        source: serde_json::Error,
    },
    #[error(
        "{path}:{line} is not a labelled query ({{\"id\", \"query\", \"kind\", \"steps\": [[{{\"server\", \"name\"}}, …], …]}}): {source}"
    )]
    Query {
        path: String,
        line: usize,
        source: serde_json::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

/// One tool of a catalog file.
#[derive(Debug, Deserialize)]
struct CatalogTool {
    /// None: a tool of no server (a built-in), searched by its name alone.
    #[serde(default)]
    server: Option<String>,
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, rename = "inputSchema", alias = "input_schema")]
    input_schema: Value,
}

/// The tools of a catalog file.
pub fn read_catalog(path: &Path) -> Result<Vec<SearchDoc>> {
    let text = read(path)?;
    parse_catalog(&text, &path.display().to_string())
}

/// A `tools/list` result as a server sends it (`{"tools": […]}`), alone
/// or in its JSON-RPC response (`{"result": {"tools": […]}}`); `server`,
/// if given, is the server of its tools that name none.
#[derive(Debug, Deserialize)]
struct ToolsList {
    #[serde(default)]
    server: Option<String>,
    tools: Vec<CatalogTool>,
}

#[derive(Debug, Deserialize)]
struct ToolsListResponse {
    result: ToolsList,
}

/// The tools of a catalog's text; `path` names it in errors. The text is a
/// JSON array of tools, or one server's `tools/list` result.
pub fn parse_catalog(text: &str, path: &str) -> Result<Vec<SearchDoc>> {
    let list = |list: ToolsList| {
        let server = list.server;
        list.tools
            .into_iter()
            .map(|t| CatalogTool {
                server: t.server.or_else(|| server.clone()),
                ..t
            })
            .collect()
    };
    let tools: Vec<CatalogTool> = match serde_json::from_str(text) {
        Ok(tools) => tools,
        Err(source) => {
            if let Ok(tools) = serde_json::from_str::<ToolsList>(text) {
                list(tools)
            } else if let Ok(response) = serde_json::from_str::<ToolsListResponse>(text) {
                list(response.result)
            } else {
                return Err(Error::Catalog {
                    path: path.to_owned(),
                    source,
                });
            }
        }
    };
    Ok(tools
        .into_iter()
        .map(|t| {
            let description = t.description.as_deref().unwrap_or("");
            match &t.server {
                Some(server) => SearchDoc::mcp(server, &t.name, description, t.input_schema),
                None => SearchDoc::local(&t.name, description, t.input_schema),
            }
        })
        .collect())
}

/// A query and the tools that answer it.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct LabelledQuery {
    /// Its id; a line without one is named by its line number.
    #[serde(default, deserialize_with = "id_text")]
    pub id: String,
    pub query: String,
    #[serde(default)]
    pub kind: String,
    /// Per step, every tool that would do; empty: no tool serves the query;
    /// None: not labelled (ranked and listed, not measured).
    #[serde(default)]
    pub steps: Option<Vec<Vec<ToolRef>>>,
}

/// A tool of the catalog by server and own name. Written as an object
/// (`{"server", "name"}`, or `{"tool"}` with the name the model sees) or as
/// text: `SERVER:NAME`, `SERVER/NAME`, `mcp__SERVER__NAME`, or a name alone
/// for a tool of no server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(try_from = "ToolRefForm")]
pub struct ToolRef {
    #[serde(default)]
    pub server: Option<String>,
    pub name: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ToolRefForm {
    Text(String),
    Fields {
        #[serde(default)]
        server: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        tool: Option<String>,
    },
}

impl TryFrom<ToolRefForm> for ToolRef {
    type Error = String;

    fn try_from(form: ToolRefForm) -> std::result::Result<Self, String> {
        match form {
            ToolRefForm::Fields {
                server,
                name: Some(name),
                ..
            } => Ok(ToolRef { server, name }),
            ToolRefForm::Fields {
                tool: Some(tool), ..
            }
            | ToolRefForm::Text(tool) => Ok(ToolRef::parse(&tool)),
            ToolRefForm::Fields { .. } => {
                Err("a tool is {\"server\", \"name\"}, {\"tool\"} or \"SERVER:NAME\"".into())
            }
        }
    }
}

impl ToolRef {
    /// `mcp__SERVER__NAME`, `SERVER:NAME`, `SERVER/NAME`, or a bare name.
    fn parse(text: &str) -> Self {
        let split = super::tool::mcp_parts(text)
            .or_else(|| text.split_once(':'))
            .or_else(|| text.split_once('/'));
        match split {
            Some((server, name)) if !server.is_empty() && !name.is_empty() => ToolRef {
                server: Some(server.to_owned()),
                name: name.to_owned(),
            },
            _ => ToolRef {
                server: None,
                name: text.to_owned(),
            },
        }
    }
}

fn id_text<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

/// The queries of a JSON-lines file (blank lines skipped).
pub fn read_queries(path: &Path) -> Result<Vec<LabelledQuery>> {
    let text = read(path)?;
    parse_queries(&text, &path.display().to_string())
}

pub fn parse_queries(text: &str, path: &str) -> Result<Vec<LabelledQuery>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let mut query: LabelledQuery =
                serde_json::from_str(l).map_err(|source| Error::Query {
                    path: path.to_owned(),
                    line: i + 1,
                    source,
                })?;
            if query.id.is_empty() {
                query.id = format!("line {}", i + 1);
            }
            Ok(query)
        })
        .collect()
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.display().to_string(),
        source,
    })
}

/// The estimated tokens of a definition as sent: 4 bytes a token of the
/// JSON of `{name, description, input_schema}`.
pub fn definition_tokens(doc: &SearchDoc) -> u64 {
    let bytes = json!({
        "name": doc.tool,
        "description": doc.description,
        "input_schema": doc.input_schema,
    })
    .to_string()
    .len() as u64;
    bytes.div_ceil(4)
}

/// The figures of one kind of query (or of all: kind `all`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KindReport {
    pub kind: String,
    /// Queries with an answer.
    pub queries: usize,
    pub steps: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    /// Of the queries with an answer, the share whose every step had a tool
    /// in the top 5.
    pub success_at_5: f64,
    /// Mean reciprocal rank of each step's first tool.
    pub mrr: f64,
    /// Mean score of the best tool, over the queries with an answer.
    pub top_score: f64,
    /// Queries no tool serves.
    pub none_queries: usize,
    /// Mean and highest score of the best tool found for those.
    pub none_top_score: f64,
    pub none_top_score_max: f64,
    /// Mean tokens of the top 5 definitions, per query.
    pub top5_tokens: f64,
    /// Tokens of every definition of the catalog.
    pub all_tokens: u64,
}

/// How one query fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    pub id: String,
    pub query: String,
    pub kind: String,
    /// Per step, the rank (from 1) of its first tool found, if any.
    pub ranks: Vec<Option<usize>>,
    /// The names of the top 5, as the model sees them.
    pub top: Vec<String>,
    pub top_score: f32,
    /// False for a query without labels: it counts in no figure.
    pub labelled: bool,
    /// The top 10, best first.
    pub results: Vec<Found>,
}

/// A tool a query found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub server: Option<String>,
    /// The tool's own name.
    pub name: String,
    /// The name the model sees.
    pub tool: String,
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// One per kind, in name order, then `all`.
    pub kinds: Vec<KindReport>,
    pub queries: Vec<QueryResult>,
    /// Tools the labels name that are not in the catalog (`server/name`).
    pub unknown_tools: Vec<String>,
}

impl Report {
    /// The figures over every query.
    pub fn overall(&self) -> Option<&KindReport> {
        self.kinds.last()
    }
}

/// Searches every query over `index` and measures the results.
pub fn evaluate(index: &ToolIndex, queries: &[LabelledQuery]) -> Report {
    let mut by_ref: FxHashMap<(Option<&str>, &str), Vec<usize>> = FxHashMap::default();
    for (d, doc) in index.docs().iter().enumerate() {
        by_ref
            .entry((doc.server.as_deref(), doc.name.as_str()))
            .or_default()
            .push(d);
    }
    let tokens: Vec<u64> = index.docs().iter().map(definition_tokens).collect();
    let all_tokens: u64 = tokens.iter().sum();
    let mut unknown: Vec<String> = Vec::new();
    let mut results = Vec::with_capacity(queries.len());
    let mut sums: BTreeMap<String, Sums> = BTreeMap::new();
    let mut all = Sums::default();
    for q in queries {
        let hits = index.search(&q.query, index.len());
        let rank_of = |d: usize| hits.iter().position(|h| h.doc == d).map(|r| r + 1);
        let ranks: Vec<Option<usize>> = q
            .steps
            .iter()
            .flatten()
            .map(|step| {
                step.iter()
                    .flat_map(|t| {
                        let found = by_ref.get(&(t.server.as_deref(), t.name.as_str()));
                        if found.is_none() {
                            let name = format!("{}/{}", t.server.as_deref().unwrap_or(""), t.name);
                            if !unknown.contains(&name) {
                                unknown.push(name);
                            }
                        }
                        found.into_iter().flatten().filter_map(|&d| rank_of(d))
                    })
                    .min()
            })
            .collect();
        let top_score = hits.first().map_or(0.0, |h| h.score);
        let top5: u64 = hits.iter().take(5).map(|h| tokens[h.doc]).sum();
        // A query of no kind counts only in the whole; one without labels
        // in nothing.
        if q.steps.is_some() {
            if !q.kind.is_empty() {
                sums.entry(q.kind.clone())
                    .or_default()
                    .add(&ranks, top_score, top5);
            }
            all.add(&ranks, top_score, top5);
        }
        results.push(QueryResult {
            id: q.id.clone(),
            query: q.query.clone(),
            kind: q.kind.clone(),
            ranks,
            top: hits
                .iter()
                .take(5)
                .map(|h| index.doc(h.doc).tool.clone())
                .collect(),
            top_score,
            labelled: q.steps.is_some(),
            results: hits
                .iter()
                .take(10)
                .map(|h| {
                    let doc = index.doc(h.doc);
                    Found {
                        server: doc.server.clone(),
                        name: doc.name.clone(),
                        tool: doc.tool.clone(),
                        score: h.score,
                    }
                })
                .collect(),
        });
    }
    let mut kinds: Vec<KindReport> = sums
        .into_iter()
        .map(|(kind, s)| s.report(kind, all_tokens))
        .collect();
    kinds.push(all.report("all".to_owned(), all_tokens));
    Report {
        kinds,
        queries: results,
        unknown_tools: unknown,
    }
}

#[derive(Debug, Default)]
struct Sums {
    queries: usize,
    steps: usize,
    at: [usize; 3],
    successes: usize,
    reciprocal: f64,
    top_score: f64,
    none: usize,
    none_top: f64,
    none_top_max: f64,
    top5_tokens: u64,
}

impl Sums {
    fn add(&mut self, ranks: &[Option<usize>], top_score: f32, top5_tokens: u64) {
        self.top5_tokens += top5_tokens;
        if ranks.is_empty() {
            self.none += 1;
            self.none_top += f64::from(top_score);
            self.none_top_max = self.none_top_max.max(f64::from(top_score));
            return;
        }
        self.queries += 1;
        self.top_score += f64::from(top_score);
        self.steps += ranks.len();
        for (k, at) in [1, 5, 10].into_iter().zip(&mut self.at) {
            *at += ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
        }
        if ranks.iter().all(|r| r.is_some_and(|r| r <= 5)) {
            self.successes += 1;
        }
        self.reciprocal += ranks
            .iter()
            .map(|r| r.map_or(0.0, |r| 1.0 / r as f64))
            .sum::<f64>();
    }

    fn report(self, kind: String, all_tokens: u64) -> KindReport {
        let share = |n: f64, of: usize| if of == 0 { 0.0 } else { n / of as f64 };
        KindReport {
            kind,
            queries: self.queries,
            steps: self.steps,
            recall_at_1: share(self.at[0] as f64, self.steps),
            recall_at_5: share(self.at[1] as f64, self.steps),
            recall_at_10: share(self.at[2] as f64, self.steps),
            success_at_5: share(self.successes as f64, self.queries),
            mrr: share(self.reciprocal, self.steps),
            top_score: share(self.top_score, self.queries),
            none_queries: self.none,
            none_top_score: share(self.none_top, self.none),
            none_top_score_max: self.none_top_max,
            top5_tokens: share(self.top5_tokens as f64, self.queries + self.none),
            all_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = r#"[
      {"server": "github", "name": "create_issue", "description": "Create a new issue in a GitHub repository.",
       "inputSchema": {"type": "object", "properties": {"repo": {"type": "string", "description": "owner/name"},
                                                        "title": {"type": "string"}}}},
      {"server": "github", "name": "search_code", "description": "Search code across GitHub repositories.",
       "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "search query"}}}},
      {"server": "slack", "name": "post_message", "description": "Post a message to a Slack channel.",
       "inputSchema": {"type": "object", "properties": {"channel": {"type": "string"}, "text": {"type": "string"}}}}
    ]"#;

    const QUERIES: &str = r#"
{"id": "q1", "query": "open an issue about the crash", "kind": "single", "steps": [[{"server": "github", "name": "create_issue"}]]}
{"id": 2, "query": "find the code that posts to a slack channel and file a github issue", "kind": "multi", "steps": [[{"server": "github", "name": "search_code"}], [{"server": "slack", "name": "post_message"}], [{"server": "github", "name": "create_issue"}]]}
{"id": "q3", "query": "juggle three oranges at dawn", "kind": "none", "steps": []}
{"id": "q4", "query": "send an email", "kind": "single", "steps": [[{"server": "mail", "name": "send"}]]}
"#;

    #[test]
    fn figures_per_kind_and_overall() {
        let index = ToolIndex::new(parse_catalog(CATALOG, "catalog.json").unwrap());
        let queries = parse_queries(QUERIES, "queries.jsonl").unwrap();
        let report = evaluate(&index, &queries);
        assert_eq!(report.unknown_tools, ["mail/send"]);
        let kinds: Vec<&str> = report.kinds.iter().map(|k| k.kind.as_str()).collect();
        assert_eq!(kinds, ["multi", "none", "single", "all"]);
        let single = &report.kinds[2];
        assert_eq!((single.queries, single.steps), (2, 2));
        // q1 found first; q4's tool is not in the catalog.
        assert_eq!(single.recall_at_1, 0.5);
        assert_eq!(single.success_at_5, 0.5);
        assert_eq!(single.mrr, 0.5);
        let multi = &report.kinds[0];
        assert_eq!(multi.steps, 3);
        assert_eq!(multi.recall_at_5, 1.0);
        assert_eq!(multi.success_at_5, 1.0);
        let none = &report.kinds[1];
        assert_eq!((none.queries, none.none_queries), (0, 1));
        assert_eq!(none.none_top_score, 0.0, "nothing matches juggling");
        let all = report.overall().unwrap();
        assert_eq!((all.queries, all.steps, all.none_queries), (3, 5, 1));
        assert!(all.top5_tokens < all.all_tokens as f64);
        assert_eq!(report.queries[0].ranks, [Some(1)]);
        assert_eq!(report.queries[1].id, "2");
    }

    #[test]
    fn a_tool_of_no_server_is_found_by_its_name() {
        let docs = parse_catalog(
            r#"[{"name": "Grep", "description": "Search file contents.", "input_schema": {}},
                {"server": "fs", "name": "read", "description": null}]"#,
            "catalog.json",
        )
        .unwrap();
        assert_eq!(
            (docs[0].tool.as_str(), docs[0].server.as_deref()),
            ("Grep", None)
        );
        assert_eq!(docs[1].tool, "mcp__fs__read");
        let index = ToolIndex::new(docs);
        let queries = parse_queries(
            r#"{"id": 1, "query": "search the contents of files", "steps": [[{"name": "Grep"}]]}"#,
            "q.jsonl",
        )
        .unwrap();
        let report = evaluate(&index, &queries);
        assert!(
            report.unknown_tools.is_empty(),
            "{:?}",
            report.unknown_tools
        );
        assert_eq!(report.queries[0].ranks, [Some(1)]);
    }

    #[test]
    fn a_servers_tools_list_result_is_a_catalog() {
        let result = r#"{"tools": [{"name": "get_forecast", "description": "Weather forecast."}]}"#;
        let docs = parse_catalog(result, "list.json").unwrap();
        assert_eq!(docs[0].tool, "get_forecast");
        let named = r#"{"server": "weather", "tools": [{"name": "get_forecast"}]}"#;
        assert_eq!(
            parse_catalog(named, "list.json").unwrap()[0].tool,
            "mcp__weather__get_forecast"
        );
        let response = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}]}}"#;
        assert_eq!(parse_catalog(response, "r.json").unwrap().len(), 1);
        // Anything else is refused with the array's error.
        let err = parse_catalog(r#"{"tool": []}"#, "bad.json").unwrap_err();
        assert!(
            err.to_string().contains("bad.json is not a catalog"),
            "{err}"
        );
    }

    #[test]
    fn a_tool_is_named_as_an_object_or_as_text_and_an_id_may_be_left_out() {
        let text = r#"{"query": "q", "steps": [["github:create_issue", "mcp__git__git_log", "sqlite/read_query", {"tool": "mcp__a__b"}, {"server": "s", "name": "n"}, "Read"]]}"#;
        let queries = parse_queries(&format!("\n{text}\n"), "q.jsonl").unwrap();
        assert_eq!(queries[0].id, "line 2");
        let refs: Vec<String> = queries[0].steps.as_ref().unwrap()[0]
            .iter()
            .map(|t| format!("{:?}/{}", t.server, t.name))
            .collect();
        assert_eq!(
            refs,
            [
                r#"Some("github")/create_issue"#,
                r#"Some("git")/git_log"#,
                r#"Some("sqlite")/read_query"#,
                r#"Some("a")/b"#,
                r#"Some("s")/n"#,
                "None/Read"
            ]
        );
        let err = parse_queries(r#"{"query": "q", "steps": [[{"server": "s"}]]}"#, "q.jsonl")
            .unwrap_err();
        assert!(err.to_string().contains("SERVER:NAME"), "{err}");
    }

    #[test]
    fn a_query_without_labels_is_ranked_not_measured() {
        let index = ToolIndex::new(parse_catalog(CATALOG, "catalog.json").unwrap());
        let text = format!(
            "{}\n{}",
            QUERIES.trim().lines().next().unwrap(),
            r#"{"id": "u1", "query": "post to the slack channel"}"#
        );
        let queries = parse_queries(&text, "q.jsonl").unwrap();
        let report = evaluate(&index, &queries);
        let all = report.overall().unwrap();
        assert_eq!((all.queries, all.none_queries), (1, 0), "{all:?}");
        let u1 = &report.queries[1];
        assert!(!u1.labelled && u1.ranks.is_empty(), "{u1:?}");
        assert_eq!(u1.results[0].tool, "mcp__slack__post_message");
        assert_eq!(u1.results[0].server.as_deref(), Some("slack"));
        assert_eq!(u1.results[0].name, "post_message");
        assert_eq!(
            u1.results.len(),
            index.search("post to the slack channel", 10).len()
        );
        assert!(report.queries[0].labelled);
    }

    #[test]
    fn a_bad_line_is_named() {
        let err = parse_queries("\n{\"id\": 1}\n", "q.jsonl").unwrap_err();
        assert!(err.to_string().starts_with("q.jsonl:2 is not"), "{err}");
        let err = parse_catalog("{}", "c.json").unwrap_err();
        assert!(
            err.to_string().starts_with("c.json is not a catalog"),
            "{err}"
        );
    }
}

#[cfg(test)]
thread_local! {
    /// Entries of the blind lexicon left out, by number (the `ablate` run).
    pub(super) static SKIP_BLIND: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Which scoring choices help: each variant's figures over
/// `eval/toolsearch` when the set is there, else over a small set of the
/// kind of tools and requests it holds. Run with
/// `cargo test -p tack-tools --lib tune -- --ignored --nocapture`.
#[cfg(test)]
mod tune {
    use super::*;
    use crate::tool_search::{FieldScoring, Scoring};
    use std::path::PathBuf;

    const CATALOG: &str = r#"[
      {"server": "github", "name": "create_issue", "description": "Create a new issue in a GitHub repository.", "inputSchema": {"properties": {"owner": {"description": "Repository owner"}, "repo": {"description": "Repository name"}, "title": {"description": "Issue title"}, "body": {"description": "Issue body"}, "labels": {"description": "Labels to apply"}}}},
      {"server": "github", "name": "list_issues", "description": "List issues in a GitHub repository with filtering options.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "state": {"enum": ["open", "closed", "all"]}, "labels": {"description": "Filter by labels"}}}},
      {"server": "github", "name": "add_issue_comment", "description": "Add a comment to an existing issue.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "issue_number": {"description": "Issue number"}, "body": {"description": "Comment text"}}}},
      {"server": "github", "name": "create_pull_request", "description": "Create a new pull request in a GitHub repository.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "title": {}, "head": {"description": "The branch where your changes are implemented"}, "base": {"description": "The branch you want the changes pulled into"}}}},
      {"server": "github", "name": "merge_pull_request", "description": "Merge a pull request.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "pull_number": {"description": "Pull request number"}, "merge_method": {"enum": ["merge", "squash", "rebase"]}}}},
      {"server": "github", "name": "search_code", "description": "Search for code across GitHub repositories.", "inputSchema": {"properties": {"q": {"description": "Search query using GitHub code search syntax"}}}},
      {"server": "github", "name": "get_file_contents", "description": "Get the contents of a file or directory from a GitHub repository.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "path": {"description": "Path to the file or directory"}, "branch": {"description": "Branch to get contents from"}}}},
      {"server": "github", "name": "create_branch", "description": "Create a new branch in a GitHub repository.", "inputSchema": {"properties": {"owner": {}, "repo": {}, "branch": {"description": "Name for the new branch"}, "from_branch": {"description": "Source branch (defaults to the repository default)"}}}},
      {"server": "slack", "name": "slack_post_message", "description": "Post a new message to a Slack channel.", "inputSchema": {"properties": {"channel_id": {"description": "The ID of the channel to post to"}, "text": {"description": "The message text to post"}}}},
      {"server": "slack", "name": "slack_list_channels", "description": "List public channels in the workspace with pagination.", "inputSchema": {"properties": {"limit": {"description": "Maximum number of channels to return"}, "cursor": {"description": "Pagination cursor for next page"}}}},
      {"server": "slack", "name": "slack_reply_to_thread", "description": "Reply to a specific message thread in Slack.", "inputSchema": {"properties": {"channel_id": {}, "thread_ts": {"description": "The timestamp of the parent message"}, "text": {"description": "The reply text"}}}},
      {"server": "slack", "name": "slack_get_users", "description": "Get a list of all users in the workspace with their basic profile information.", "inputSchema": {"properties": {"limit": {}, "cursor": {}}}},
      {"server": "slack", "name": "slack_add_reaction", "description": "Add a reaction emoji to a message.", "inputSchema": {"properties": {"channel_id": {}, "timestamp": {"description": "The timestamp of the message to react to"}, "reaction": {"description": "The name of the emoji reaction (without ::)"}}}},
      {"server": "filesystem", "name": "read_text_file", "description": "Read the complete contents of a file from the file system as text.", "inputSchema": {"properties": {"path": {}, "head": {"description": "If provided, returns only the first N lines of the file"}}}},
      {"server": "filesystem", "name": "write_file", "description": "Create a new file or completely overwrite an existing file with new content.", "inputSchema": {"properties": {"path": {}, "content": {}}}},
      {"server": "filesystem", "name": "edit_file", "description": "Make line-based edits to a text file. Each edit replaces exact line sequences with new content.", "inputSchema": {"properties": {"path": {}, "edits": {"items": {"properties": {"oldText": {"description": "Text to search for - must match exactly"}, "newText": {"description": "Text to replace with"}}}}}}},
      {"server": "filesystem", "name": "list_directory", "description": "Get a detailed listing of all files and directories in a specified path.", "inputSchema": {"properties": {"path": {}}}},
      {"server": "filesystem", "name": "search_files", "description": "Recursively search for files and directories matching a pattern.", "inputSchema": {"properties": {"path": {}, "pattern": {}, "excludePatterns": {}}}},
      {"server": "filesystem", "name": "move_file", "description": "Move or rename files and directories.", "inputSchema": {"properties": {"source": {}, "destination": {}}}},
      {"server": "postgres", "name": "query", "description": "Run a read-only SQL query.", "inputSchema": {"properties": {"sql": {}}}},
      {"server": "memory", "name": "create_entities", "description": "Create multiple new entities in the knowledge graph.", "inputSchema": {"properties": {"entities": {"items": {"properties": {"name": {"description": "The name of the entity"}, "entityType": {"description": "The type of the entity"}, "observations": {"description": "An array of observation contents"}}}}}}},
      {"server": "memory", "name": "search_nodes", "description": "Search for nodes in the knowledge graph based on a query.", "inputSchema": {"properties": {"query": {"description": "The search query to match against entity names, types, and observation content"}}}},
      {"server": "fetch", "name": "fetch", "description": "Fetches a URL from the internet and optionally extracts its contents as markdown.", "inputSchema": {"properties": {"url": {"description": "URL to fetch"}, "max_length": {}, "raw": {"description": "Get the actual HTML content without simplification"}}}},
      {"server": "time", "name": "get_current_time", "description": "Get current time in a specific timezone.", "inputSchema": {"properties": {"timezone": {"description": "IANA timezone name (e.g. 'America/New_York')"}}}},
      {"server": "time", "name": "convert_time", "description": "Convert time between timezones.", "inputSchema": {"properties": {"source_timezone": {}, "time": {"description": "Time to convert in 24-hour format (HH:MM)"}, "target_timezone": {}}}}
    ]"#;

    const QUERIES: &str = r#"
{"id": "d1", "kind": "direct", "query": "create an issue", "steps": [[{"server": "github", "name": "create_issue"}]]}
{"id": "d2", "kind": "direct", "query": "merge pull request", "steps": [[{"server": "github", "name": "merge_pull_request"}]]}
{"id": "d3", "kind": "direct", "query": "post message to slack channel", "steps": [[{"server": "slack", "name": "slack_post_message"}]]}
{"id": "d4", "kind": "direct", "query": "read file", "steps": [[{"server": "filesystem", "name": "read_text_file"}, {"server": "github", "name": "get_file_contents"}]]}
{"id": "d5", "kind": "direct", "query": "current time in a timezone", "steps": [[{"server": "time", "name": "get_current_time"}]]}
{"id": "p1", "kind": "paraphrase", "query": "file a bug report", "steps": [[{"server": "github", "name": "create_issue"}]]}
{"id": "p2", "kind": "paraphrase", "query": "what time is it in Tokyo", "steps": [[{"server": "time", "name": "get_current_time"}]]}
{"id": "p3", "kind": "paraphrase", "query": "rename config.yaml to settings.yaml", "steps": [[{"server": "filesystem", "name": "move_file"}]]}
{"id": "p4", "kind": "paraphrase", "query": "download the web page at https://example.com", "steps": [[{"server": "fetch", "name": "fetch"}]]}
{"id": "p5", "kind": "paraphrase", "query": "react with a thumbs up emoji to that message", "steps": [[{"server": "slack", "name": "slack_add_reaction"}]]}
{"id": "p6", "kind": "paraphrase", "query": "run a SQL select on the database", "steps": [[{"server": "postgres", "name": "query"}]]}
{"id": "p7", "kind": "paraphrase", "query": "who are the members of the workspace", "steps": [[{"server": "slack", "name": "slack_get_users"}]]}
{"id": "p8", "kind": "paraphrase", "query": "replace a line in a file", "steps": [[{"server": "filesystem", "name": "edit_file"}]]}
{"id": "p9", "kind": "paraphrase", "query": "remember that Ada prefers tea", "steps": [[{"server": "memory", "name": "create_entities"}]]}
{"id": "p10", "kind": "paraphrase", "query": "open a PR from my feature branch", "steps": [[{"server": "github", "name": "create_pull_request"}]]}
{"id": "m1", "kind": "multi", "query": "find the files matching *.rs in src and read the first one", "steps": [[{"server": "filesystem", "name": "search_files"}], [{"server": "filesystem", "name": "read_text_file"}]]}
{"id": "m2", "kind": "multi", "query": "create a branch, then open a pull request for it", "steps": [[{"server": "github", "name": "create_branch"}], [{"server": "github", "name": "create_pull_request"}]]}
{"id": "m3", "kind": "multi", "query": "list the open issues and comment on the oldest one", "steps": [[{"server": "github", "name": "list_issues"}], [{"server": "github", "name": "add_issue_comment"}]]}
{"id": "m4", "kind": "multi", "query": "reply in the thread and add a reaction", "steps": [[{"server": "slack", "name": "slack_reply_to_thread"}], [{"server": "slack", "name": "slack_add_reaction"}]]}
{"id": "n1", "kind": "none", "query": "book a flight to Lisbon", "steps": []}
{"id": "n2", "kind": "none", "query": "transcribe this audio recording", "steps": []}
"#;

    fn variants() -> Vec<(&'static str, Scoring)> {
        let base = Scoring::default();
        let with = |f: &dyn Fn(&mut Scoring)| {
            let mut s = base;
            f(&mut s);
            s
        };
        vec![
            ("default", base),
            ("no stemming", with(&|s| s.stem = false)),
            ("name weight 1", with(&|s| s.fields[0].weight = 1.0)),
            ("name weight 5", with(&|s| s.fields[0].weight = 5.0)),
            ("server weight 0", with(&|s| s.fields[1].weight = 0.0)),
            ("server weight 2", with(&|s| s.fields[1].weight = 2.0)),
            ("server weight 3", with(&|s| s.fields[1].weight = 3.0)),
            ("description weight 2", with(&|s| s.fields[2].weight = 2.0)),
            ("param names 0.5", with(&|s| s.fields[3].weight = 0.5)),
            ("param names 3", with(&|s| s.fields[3].weight = 3.0)),
            ("param descriptions 0", with(&|s| s.fields[4].weight = 0.0)),
            ("param descriptions 1", with(&|s| s.fields[4].weight = 1.0)),
            (
                "no length normalisation",
                with(&|s| {
                    for f in &mut s.fields {
                        *f = FieldScoring { b: 0.0, ..*f };
                    }
                }),
            ),
            (
                "full length normalisation",
                with(&|s| {
                    for f in &mut s.fields {
                        *f = FieldScoring { b: 1.0, ..*f };
                    }
                }),
            ),
            ("k1 0.6", with(&|s| s.k1 = 0.6)),
            ("k1 3", with(&|s| s.k1 = 3.0)),
            ("no synonyms", with(&|s| s.synonyms = false)),
            ("synonyms 0.4", with(&|s| s.synonym_weight = 0.4)),
            ("synonyms 1", with(&|s| s.synonym_weight = 1.0)),
            ("related words 0.2", with(&|s| s.related_weight = 0.2)),
            ("related words 0.6", with(&|s| s.related_weight = 0.6)),
            ("values 1 (as words)", with(&|s| s.value_weight = 1.0)),
            ("values 0.2", with(&|s| s.value_weight = 0.2)),
            (
                "messages as values",
                with(&|s| s.message_weight = s.value_weight),
            ),
            ("messages 0", with(&|s| s.message_weight = 0.0)),
            ("no context for steps", with(&|s| s.context_weight = 0.0)),
            ("context for steps 0.6", with(&|s| s.context_weight = 0.6)),
            ("no vector neighbours", with(&|s| s.neighbour_weight = 0.0)),
            ("vector neighbours 0.2", with(&|s| s.neighbour_weight = 0.2)),
            ("vector neighbours 0.4", with(&|s| s.neighbour_weight = 0.4)),
            ("neighbour floor 0.6", with(&|s| s.neighbour_floor = 0.6)),
            ("no lexicon", with(&|s| s.lexicon_weight = 0.0)),
            ("lexicon 0.3", with(&|s| s.lexicon_weight = 0.3)),
            ("lexicon 0.7", with(&|s| s.lexicon_weight = 0.7)),
            ("lexicon 1", with(&|s| s.lexicon_weight = 1.0)),
            ("no blind lexicon", with(&|s| s.blind_lexicon = false)),
            ("no colon message", with(&|s| s.colon_opens_message = false)),
            ("no question words", with(&|s| s.question_weight = 0.0)),
            ("question words 0.15", with(&|s| s.question_weight = 0.15)),
            ("question words 0.5", with(&|s| s.question_weight = 0.5)),
            ("no name penalty", with(&|s| s.name_penalty = 0.0)),
            ("name penalty 0.05", with(&|s| s.name_penalty = 0.05)),
            ("name penalty 0.2", with(&|s| s.name_penalty = 0.2)),
            // Only with the `semantic` feature and TACK_TOOL_SEARCH_MODEL.
            ("semantic 0", with(&|s| s.semantic_weight = 0.0)),
            ("semantic 1", with(&|s| s.semantic_weight = 1.0)),
            ("semantic 2", with(&|s| s.semantic_weight = 2.0)),
            ("semantic 4", with(&|s| s.semantic_weight = 4.0)),
            ("semantic 6", with(&|s| s.semantic_weight = 6.0)),
        ]
    }

    /// Each entry of the blind lexicon left out in turn, over the sets
    /// TACK_ABLATE names (comma-separated files of queries): the entries
    /// whose absence gains, with the gain (successes at 5, then MRR).
    #[test]
    #[ignore = "prints figures for tuning; not a check"]
    fn ablate() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch");
        let docs = read_catalog(&dir.join("catalog.json")).unwrap();
        let sets: Vec<Vec<LabelledQuery>> = std::env::var("TACK_ABLATE")
            .unwrap_or_default()
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|p| read_queries(Path::new(p)).unwrap())
            .collect();
        let measure = |skip: Vec<usize>| {
            SKIP_BLIND.with(|s| *s.borrow_mut() = skip);
            let index = ToolIndex::new(docs.clone());
            let mut wins = 0.0;
            let mut mrr = 0.0;
            for set in &sets {
                let r = evaluate(&index, set);
                let all = r.overall().unwrap();
                wins += all.success_at_5 * all.queries as f64;
                mrr += all.mrr * all.queries as f64;
            }
            (wins.round() as i64, mrr)
        };
        let base = measure(Vec::new());
        println!("base {base:?}");
        let mut harmful = Vec::new();
        use crate::tool_search::lexicon::{PLAIN_WORDS, WRITTEN_BLIND};
        let entries: Vec<&str> = WRITTEN_BLIND
            .iter()
            .chain(PLAIN_WORDS)
            .map(|e| e.0)
            .collect();
        // TACK_ABLATE_FROM=N: only entries from N on (the plain words'
        // table starts at WRITTEN_BLIND's length).
        let from = std::env::var("TACK_ABLATE_FROM")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        for (n, key) in entries.iter().enumerate().skip(from) {
            let (w, m) = measure(vec![n]);
            if (w, m) > base && (w > base.0 || m > base.1 + 0.5) {
                println!(
                    "  drop {n} {key:?}: {:+} wins, {:+.2} MRR",
                    w - base.0,
                    m - base.1
                );
                harmful.push(n);
            }
        }
        println!(
            "without all {} : {:?}",
            harmful.len(),
            measure(harmful.clone())
        );
        println!("{harmful:?}");
    }

    #[test]
    #[ignore = "prints figures for tuning; not a check"]
    fn tune() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch");
        // TACK_TUNE_QUERIES=FILE.jsonl: another labelled set over the same
        // catalog (a held-out one).
        let set = std::env::var("TACK_TUNE_QUERIES")
            .map(PathBuf::from)
            .unwrap_or_else(|_| dir.join("queries.jsonl"));
        let (docs, queries, source) =
            match (read_catalog(&dir.join("catalog.json")), read_queries(&set)) {
                (Ok(docs), Ok(queries)) => (docs, queries, "eval/toolsearch"),
                _ => (
                    parse_catalog(CATALOG, "catalog").unwrap(),
                    parse_queries(QUERIES, "queries").unwrap(),
                    "the built-in tuning set",
                ),
            };
        println!(
            "{} tools, {} queries from {source}",
            docs.len(),
            queries.len()
        );
        // The queries split in two by their id's number, odd and even: tune
        // on one half, and keep a change only if the other gains too.
        let number = |q: &LabelledQuery| {
            q.id.trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse::<u64>()
                .unwrap_or(0)
        };
        let (odd, even): (Vec<LabelledQuery>, Vec<LabelledQuery>) =
            queries.iter().cloned().partition(|q| number(q) % 2 == 1);
        println!(
            "{:<28} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8}",
            "variant", "S@5", "R@5", "R@1", "MRR", "odd S@5", "even S@5"
        );
        // TACK_TUNE=semantic: only the default and the semantic weights.
        let only = std::env::var("TACK_TUNE").unwrap_or_default();
        for (name, scoring) in variants()
            .into_iter()
            .filter(|(name, _)| *name == "default" || name.contains(only.as_str()))
        {
            let index = ToolIndex::with_scoring(docs.clone(), scoring);
            let report = evaluate(&index, &queries);
            let all = report.overall().unwrap();
            let half = |qs: &[LabelledQuery]| {
                evaluate(&index, qs)
                    .overall()
                    .map_or(0.0, |k| k.success_at_5)
            };
            println!(
                "{name:<28} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>8.3} {:>8.3}",
                all.success_at_5,
                all.recall_at_5,
                all.recall_at_1,
                all.mrr,
                half(&odd),
                half(&even)
            );
            if name == "default" {
                for q in report
                    .queries
                    .iter()
                    .filter(|q| q.ranks.iter().any(|r| r.is_none_or(|r| r > 5)))
                {
                    println!("    miss {} {:?} top {:?}", q.id, q.ranks, q.top);
                }
            }
        }
    }
}
