//! `tack tools search`: ranking a catalog file's tools and a session's,
//! and the offline evaluation over labelled queries. Each test has its own
//! home, config and state directories, so nothing of the real home is read.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use super::{stderr, stdout};

/// A private home and project, with a catalog of six tools of three
/// servers.
struct Dir {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Dir {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (home, root) = (base.join("home"), base.join("project"));
        for dir in [&home, &root.join(".git")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let catalog = json!([
            tool(
                "github",
                "create_issue",
                "Create a new issue in a GitHub repository.",
                &[
                    ("owner", "Repository owner"),
                    ("repo", "Repository name"),
                    ("title", "Issue title")
                ]
            ),
            tool(
                "github",
                "list_pull_requests",
                "List the pull requests of a repository, newest first.",
                &[("state", "open, closed or all")]
            ),
            tool(
                "github",
                "search_code",
                "Search code across GitHub repositories.",
                &[("q", "Search query in GitHub code search syntax")]
            ),
            tool(
                "slack",
                "post_message",
                "Post a message to a Slack channel.",
                &[
                    ("channel", "Channel id or name"),
                    ("text", "The message text")
                ]
            ),
            tool(
                "slack",
                "list_channels",
                "List the channels of the workspace.",
                &[]
            ),
            tool(
                "filesystem",
                "read_file",
                "Read the complete contents of a file.",
                &[("path", "Absolute path of the file")]
            ),
        ]);
        std::fs::write(root.join("catalog.json"), catalog.to_string()).unwrap();
        Self {
            _tmp: tmp,
            root,
            home,
        }
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `tack tools search ARGS` in the project, no terminal.
    fn search(&self, args: &[&str]) -> Output {
        let mut cmd = super::isolated_tack(&self.home, &self.home.join("state"), &self.root);
        cmd.args(["tools", "search"]).args(args);
        cmd.output().unwrap()
    }

    /// The `--json` answer over the catalog.
    fn ranked(&self, query: &str, extra: &[&str]) -> Vec<Value> {
        let mut args = vec![query, "--catalog", "catalog.json", "--json"];
        args.extend(extra);
        let out = self.search(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str::<Vec<Value>>(&stdout(&out)).unwrap()
    }
}

fn tool(server: &str, name: &str, description: &str, params: &[(&str, &str)]) -> Value {
    let properties: serde_json::Map<String, Value> = params
        .iter()
        .map(|(p, d)| ((*p).to_owned(), json!({"type": "string", "description": d})))
        .collect();
    json!({"server": server, "name": name, "description": description,
           "inputSchema": {"type": "object", "properties": properties}})
}

fn tools(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["tool"].as_str().unwrap()).collect()
}

#[test]
fn a_catalog_is_ranked_best_first_with_server_name_tool_and_score() {
    let dir = Dir::new();
    let rows = dir.ranked("open a new issue", &[]);
    assert_eq!(tools(&rows)[0], "mcp__github__create_issue");
    assert_eq!(rows[0]["server"], "github");
    assert_eq!(rows[0]["name"], "create_issue");
    let scores: Vec<f64> = rows.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores[0] > 0.0);

    // --limit, a required word, a server, an exact name, select:.
    assert_eq!(dir.ranked("list", &["--limit", "1"]).len(), 1);
    assert_eq!(
        tools(&dir.ranked("list +workspace", &[])),
        ["mcp__slack__list_channels"]
    );
    assert_eq!(
        tools(&dir.ranked("slack", &[])),
        ["mcp__slack__post_message", "mcp__slack__list_channels"]
    );
    assert_eq!(
        tools(&dir.ranked("read message read_file", &[]))[0],
        "mcp__filesystem__read_file"
    );
    assert_eq!(
        tools(&dir.ranked("select:post_message,mcp__github__search_code,nothing", &[])),
        ["mcp__slack__post_message", "mcp__github__search_code"]
    );
}

#[test]
fn text_output_is_a_table_and_no_match_is_said_on_stderr() {
    let dir = Dir::new();
    let out = dir.search(&["pull requests", "--catalog", "catalog.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("TOOL") && lines[0].contains("SCORE"),
        "{text}"
    );
    assert!(
        lines[1].contains("mcp__github__list_pull_requests") && lines[1].ends_with("github"),
        "{text}"
    );
    let out = dir.search(&["kubernetes pods", "--catalog", "catalog.json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("no tool of the 6 tools matches"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_sessions_own_tools_are_searched_without_a_catalog() {
    let dir = Dir::new();
    let out = dir.search(&[
        "edit a file by replacing a string",
        "--json",
        "--limit",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rows[0]["tool"], "Edit", "{rows:?}");
    assert_eq!(rows[0]["name"], "Edit");
    assert_eq!(rows[0]["server"], Value::Null);
}

#[test]
fn queries_are_evaluated_per_kind() {
    let dir = Dir::new();
    let queries = [
        json!({"id": "1", "query": "report a bug as a new issue", "kind": "direct",
               "steps": [[{"server": "github", "name": "create_issue"}]]}),
        json!({"id": "2", "query": "tell the team on slack", "kind": "direct",
               "steps": [[{"server": "slack", "name": "post_message"}]]}),
        json!({"id": "3", "query": "grep the github code for TODO and post the count to a slack channel",
               "kind": "multi",
               "steps": [[{"server": "github", "name": "search_code"}],
                         [{"server": "slack", "name": "post_message"}]]}),
        json!({"id": "4", "query": "book a flight", "kind": "none", "steps": []}),
    ];
    let text: String = queries.iter().map(|q| format!("{q}\n")).collect();
    dir.write("queries.jsonl", &text);
    let args = ["--catalog", "catalog.json", "--queries", "queries.jsonl"];
    let out = dir.search(&[&args[..], &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let kinds: Vec<&str> = report["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["direct", "multi", "none", "all"]);
    let all = &report["kinds"][3];
    assert_eq!(all["queries"], 3);
    assert_eq!(all["steps"], 4);
    assert_eq!(all["none_queries"], 1);
    assert_eq!(all["recall_at_5"], 1.0, "{report}");
    assert_eq!(all["success_at_5"], 1.0, "{report}");
    assert!(all["top5_tokens"].as_f64().unwrap() < all["all_tokens"].as_f64().unwrap());
    assert_eq!(report["queries"][0]["ranks"], json!([1]));

    let out = dir.search(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("KIND"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("all ")), "{text}");
}

#[test]
fn bad_files_are_usage_errors_naming_the_file() {
    let dir = Dir::new();
    let bad = dir.write("bad.json", "{\"not\": \"an array\"}");
    let out = dir.search(&["x", "--catalog", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.json is not a catalog"),
        "{}",
        stderr(&out)
    );
    dir.write("q.jsonl", "{\"id\": 1}\n");
    let out = dir.search(&["--catalog", "catalog.json", "--queries", "q.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("q.jsonl:1 is not a labelled query"),
        "{}",
        stderr(&out)
    );
    // --queries needs --catalog.
    let out = dir.search(&["--queries", "q.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let missing = Path::new("missing.json");
    let out = dir.search(&["x", "--catalog", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read missing.json"),
        "{}",
        stderr(&out)
    );
}
