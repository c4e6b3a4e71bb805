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
fn queries_without_labels_are_ranked_and_listed() {
    let dir = Dir::new();
    dir.write(
        "q.jsonl",
        "{\"id\": \"u1\", \"query\": \"tell the team on slack\"}\n",
    );
    let args = ["--catalog", "catalog.json", "--queries", "q.jsonl"];
    let out = dir.search(&[&args[..], &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 query of q.jsonl without \"steps\""),
        "{}",
        stderr(&out)
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let u1 = &report["queries"][0];
    assert_eq!(u1["labelled"], false, "{report}");
    assert_eq!(u1["query"], "tell the team on slack");
    assert_eq!(u1["results"][0]["server"], "slack", "{report}");
    assert_eq!(u1["results"][0]["name"], "post_message");
    assert_eq!(u1["results"][0]["tool"], "mcp__slack__post_message");
    assert_eq!(report["kinds"][0]["queries"], 0, "{report}");

    let out = dir.search(&[&args[..], &["--limit", "1"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "only the query and its best tool: {text}");
    assert_eq!(lines[0], "u1  tell the team on slack");
    assert!(
        lines[1].starts_with("   1  mcp__slack__post_message  "),
        "{text}"
    );
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

// ---------------------------------------------------------------------------
// Tool search in a session: deferred MCP tools found, loaded and called,
// on Anthropic's API (defer_loading + tool_reference) and on an
// OpenAI-compatible one (definitions appended), against the strict mock.

mod in_a_session {
    use std::process::Output;

    use serde_json::{Value, json};
    use tack_testkit::Step;

    use super::super::{World, of_type, python, stderr, stdout};

    /// The labelled set's catalog: the tools real servers listed.
    fn catalog() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch/catalog.json")
    }

    /// `.mcp.json` with `servers` of the catalog, each served by the
    /// Python SDK with the tools it listed (`fixtures/catalog_server.py`).
    fn mcp_json(w: &World, servers: &[&str], extra: Value) {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/all/fixtures/catalog_server.py");
        let mut entries = serde_json::Map::new();
        for server in servers {
            let mut entry = json!({
                "command": python(),
                "args": [script, catalog(), server],
            });
            if let Some(more) = extra.get(*server).and_then(Value::as_object) {
                entry.as_object_mut().unwrap().extend(more.clone());
            }
            entries.insert((*server).to_owned(), entry);
        }
        std::fs::write(
            w.cwd.path().join(".mcp.json"),
            json!({"mcpServers": entries}).to_string(),
        )
        .unwrap();
    }

    async fn run(w: &World, args: &[&str]) -> Output {
        run_with(w.tack(), &[], args).await
    }

    /// [`run`] against the mock's Chat Completions endpoint.
    async fn run_openai(w: &World, args: &[&str]) -> Output {
        let mut cmd = w.tack();
        cmd.env("OPENAI_API_KEY", "k");
        let url = w.mock.url();
        let provider = [
            "--provider",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
            &url,
        ];
        run_with(cmd, &provider, args).await
    }

    async fn run_with(mut cmd: std::process::Command, provider: &[&str], args: &[&str]) -> Output {
        cmd.args([
            "run",
            "--approve-mcp",
            "--permission-mode",
            "bypassPermissions",
        ])
        .args(provider)
        .args(args);
        tokio::task::spawn_blocking(move || cmd.output().unwrap())
            .await
            .unwrap()
    }

    /// The bytes of the request's `tools` array, as sent.
    fn tools_bytes(raw: &str) -> &str {
        let start = raw.find("\"tools\":[").expect("tools") + "\"tools\":".len();
        let bytes = raw.as_bytes();
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return &raw[start..=i];
                    }
                }
                _ => {}
            }
        }
        panic!("unterminated tools array")
    }

    fn names(body: &Value) -> Vec<String> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["name"]
                    .as_str()
                    .or(t["function"]["name"].as_str())
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    fn script() -> Vec<Step> {
        vec![
            Step::tool_use(
                "toolu_search",
                "ToolSearch",
                json!({"query": "create an issue in a github repository", "limit": 3}),
            ),
            Step::tool_use(
                "toolu_issue",
                "mcp__github__create_issue",
                json!({"owner": "o", "repo": "r", "title": "Found by search"}),
            ),
            Step::text("filed"),
        ]
    }

    /// What both providers share: the call ran, the search's audit says
    /// what it found, `tack log` shows the discovery.
    fn check_discovery(w: &World, out: &Output) {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
        assert_eq!(stdout(out), "filed\n");
        assert!(
            w.mock.rejections().is_empty(),
            "{:?}",
            w.mock.rejections().first().map(|r| &r.error)
        );
        let (_, events) = w.transcript();
        let results = of_type(&events, "tool_result");
        let search = results
            .iter()
            .find(|r| r["tool_use_id"] == "toolu_search")
            .unwrap();
        let discovery = &search["audit"]["discovery"];
        assert_eq!(discovery["query"], "create an issue in a github repository");
        assert!(
            discovery["found"]
                .as_array()
                .unwrap()
                .contains(&json!("mcp__github__create_issue")),
            "{discovery}"
        );
        assert!(
            discovery["loaded"]
                .as_array()
                .unwrap()
                .contains(&json!("mcp__github__create_issue"))
        );
        let issue = results
            .iter()
            .find(|r| r["tool_use_id"] == "toolu_issue")
            .unwrap();
        assert!(
            issue.to_string().contains("create_issue called with"),
            "{issue}"
        );
        let log = w.tack().args(["log"]).output().unwrap();
        let log = stdout(&log);
        assert!(
            log.contains("searched \"create an issue in a github repository\""),
            "{log}"
        );
        assert!(
            log.lines()
                .any(|l| l.contains("found: ") && l.contains("mcp__github__create_issue")),
            "{log}"
        );
        assert!(log.contains("(found by search)"), "{log}");
        assert!(
            log.contains(
                "tool search: 1 search found 3 tools; 1 of them called (mcp__github__create_issue)"
            ),
            "{log}"
        );
    }

    #[tokio::test]
    async fn anthropic_gets_every_deferred_tool_marked_and_references_in_the_result() {
        let w = World::new(script()).await;
        mcp_json(&w, &["github", "slack"], json!({}));
        let out = run(&w, &["--tool-search", "on", "file it"]).await;
        check_discovery(&w, &out);
        let requests = w.mock.requests();
        assert_eq!(requests.len(), 3);
        let first = &requests[0].body;
        let tools = first["tools"].as_array().unwrap();
        let deferred: Vec<&Value> = tools
            .iter()
            .filter(|t| t["defer_loading"] == json!(true))
            .collect();
        let mcp: Vec<&Value> = tools
            .iter()
            .filter(|t| t["name"].as_str().unwrap().starts_with("mcp__"))
            .collect();
        assert!(mcp.len() > 20, "{}", mcp.len());
        assert_eq!(deferred.len(), mcp.len(), "every MCP tool is deferred");
        let search = tools.iter().find(|t| t["name"] == "ToolSearch").unwrap();
        assert!(search.get("defer_loading").is_none());
        let description = search["description"].as_str().unwrap();
        assert!(description.contains("- github ("), "{description}");
        assert!(description.contains("- slack ("), "{description}");
        // The search's result is references to the tools it found.
        let result = &requests[1].body["messages"][2]["content"][0];
        assert_eq!(result["type"], "tool_result");
        let references = result["content"].as_array().unwrap();
        assert_eq!(references.len(), 3, "{result}");
        assert!(
            references.iter().all(|r| r["type"] == "tool_reference"),
            "{result}"
        );
        assert!(references.contains(&json!(
            {"type": "tool_reference", "tool_name": "mcp__github__create_issue"}
        )));
        // The tools part never changes: the prompt cache holds.
        let tools0 = tools_bytes(&requests[0].raw_body);
        for r in &requests[1..] {
            assert_eq!(tools_bytes(&r.raw_body), tools0);
        }
    }

    #[tokio::test]
    async fn openai_gets_the_found_definitions_appended_and_a_text_result() {
        let w = World::new(script()).await;
        mcp_json(&w, &["github", "slack"], json!({}));
        let out = run_openai(&w, &["--tool-search", "on", "file it"]).await;
        check_discovery(&w, &out);
        let requests = w.mock.requests();
        assert_eq!(requests.len(), 3);
        let before = names(&requests[0].body);
        assert!(before.contains(&"ToolSearch".to_owned()));
        assert!(!before.iter().any(|n| n.starts_with("mcp__")), "{before:?}");
        let after = names(&requests[1].body);
        assert_eq!(&after[..before.len()], &before[..], "only appended");
        let added = &after[before.len()..];
        assert_eq!(added.len(), 3, "{added:?}");
        assert!(
            added.contains(&"mcp__github__create_issue".to_owned()),
            "{added:?}"
        );
        // The request's tools before the new ones are the same bytes.
        let (t0, t1) = (
            tools_bytes(&requests[0].raw_body),
            tools_bytes(&requests[1].raw_body),
        );
        assert!(t1.starts_with(&t0[..t0.len() - 1]), "the prefix changed");
        assert_eq!(tools_bytes(&requests[2].raw_body), t1, "nothing removed");
        let text = requests[1].body["messages"].to_string();
        assert!(
            text.contains("mcp__github__create_issue (server github)"),
            "{text}"
        );
    }

    fn session_id(w: &World) -> String {
        let (_, events) = w.transcript();
        events[0]["session_id"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_resumed_session_sends_the_tools_its_searches_loaded_the_same_bytes() {
        let mut steps = script();
        steps.push(Step::text("again"));
        let w = World::new(steps).await;
        mcp_json(&w, &["github", "slack"], json!({}));
        let out = run_openai(&w, &["--tool-search", "on", "file it"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let id = session_id(&w);
        let out = run_openai(&w, &["--tool-search", "on", "--resume", &id, "and again"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out), "again\n");
        let requests = w.mock.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(
            tools_bytes(&requests[3].raw_body),
            tools_bytes(&requests[2].raw_body),
            "the found tools come back, in the same order"
        );
    }

    #[tokio::test]
    async fn on_anthropic_a_summary_that_drops_the_references_sends_the_found_tools_whole() {
        let mut steps = script();
        steps.push(Step::text("SUMMARY: an issue was filed"));
        steps.push(Step::text("after compaction"));
        let w = World::new(steps).await;
        mcp_json(&w, &["github", "slack"], json!({}));
        let out = run(&w, &["--tool-search", "on", "file it"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let id = session_id(&w);
        let out = run(
            &w,
            &[
                "--tool-search",
                "on",
                "--resume",
                &id,
                "--compact-now",
                "next",
            ],
        )
        .await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out), "after compaction\n");
        assert!(w.mock.rejections().is_empty(), "{:?}", w.mock.rejections());
        let requests = w.mock.requests();
        let after = &requests.last().unwrap().body;
        assert!(
            !after["messages"].to_string().contains("tool_reference"),
            "the references were summarised away"
        );
        let tools = after["tools"].as_array().unwrap();
        let issue = tools
            .iter()
            .find(|t| t["name"] == "mcp__github__create_issue")
            .unwrap();
        assert!(issue.get("defer_loading").is_none(), "{issue}");
        let other = tools
            .iter()
            .find(|t| t["name"] == "mcp__slack__slack_post_message")
            .unwrap();
        assert_eq!(other["defer_loading"], json!(true));
    }

    /// Three searches with `mcp__github__create_issue` denied: an exact
    /// name, a request the denied tool would serve best, a `select:` of it.
    async fn exact_and_denied(openai: bool) {
        let w = World::new(vec![
            Step::tool_use(
                "toolu_exact",
                "ToolSearch",
                json!({"query": "slack_list_channels"}),
            ),
            Step::tool_use(
                "toolu_denied",
                "ToolSearch",
                json!({"query": "create an issue in a github repository"}),
            ),
            Step::tool_use(
                "toolu_select",
                "ToolSearch",
                json!({"query": "select:mcp__github__create_issue"}),
            ),
            Step::text("done"),
        ])
        .await;
        mcp_json(&w, &["github", "slack"], json!({}));
        std::fs::create_dir_all(w.cwd.path().join(".claude")).unwrap();
        std::fs::write(
            w.cwd.path().join(".claude/settings.local.json"),
            json!({"permissions": {"deny": ["mcp__github__create_issue"]}}).to_string(),
        )
        .unwrap();
        let args = ["--tool-search", "on", "look"];
        let out = if openai {
            run_openai(&w, &args).await
        } else {
            run(&w, &args).await
        };
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(w.mock.rejections().is_empty(), "{:?}", w.mock.rejections());
        let (_, events) = w.transcript();
        let found = |id: &str| -> Vec<String> {
            let result = of_type(&events, "tool_result")
                .into_iter()
                .find(|r| r["tool_use_id"] == id)
                .unwrap();
            serde_json::from_value(result["audit"]["discovery"]["found"].clone()).unwrap()
        };
        assert_eq!(found("toolu_exact")[0], "mcp__slack__slack_list_channels");
        let denied = found("toolu_denied");
        assert!(
            !denied.contains(&"mcp__github__create_issue".to_owned()),
            "{denied:?}"
        );
        assert!(
            denied.iter().any(|t| t.starts_with("mcp__github__")),
            "{denied:?}"
        );
        assert!(found("toolu_select").is_empty());
        // What the model saw: never the denied tool, in the search's
        // description (25 of github's 26 tools) or its results.
        let requests = w.mock.requests();
        let messages = requests.last().unwrap().body["messages"]
            .as_array()
            .unwrap()
            .clone();
        let results: Vec<String> = messages
            .iter()
            .filter(|m| m["role"] == "tool" || m["role"] == "user")
            .map(|m| m["content"].to_string())
            .collect();
        let (searches, select) = (&results[1..results.len() - 1], results.last().unwrap());
        assert!(
            searches
                .iter()
                .all(|r| !r.contains("mcp__github__create_issue")),
            "{searches:?}"
        );
        assert!(searches[0].contains("mcp__slack__slack_list_channels"));
        assert!(
            select.contains("not offered: a deny rule refuses every call of it"),
            "{select}"
        );
        let tools = requests[0].body["tools"].to_string();
        assert!(tools.contains("- github (25 tools)"), "{tools}");
    }

    #[tokio::test]
    async fn an_exact_name_comes_first_and_a_denied_tool_is_never_offered_on_anthropic() {
        exact_and_denied(false).await;
    }

    #[tokio::test]
    async fn an_exact_name_comes_first_and_a_denied_tool_is_never_offered_over_chat_completions() {
        exact_and_denied(true).await;
    }

    #[tokio::test]
    async fn auto_defers_only_over_the_threshold_and_always_load_wins() {
        // Two small servers stay direct under auto (the default)…
        let w = World::new(vec![Step::text("a")]).await;
        mcp_json(&w, &["time", "fetch"], json!({}));
        let out = run(&w, &["hi"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let names0 = names(&w.mock.requests()[0].body);
        assert!(
            names0.iter().any(|n| n.starts_with("mcp__time__")),
            "{names0:?}"
        );
        assert!(!names0.contains(&"ToolSearch".to_owned()));
        // …a big one goes over 10% of a 50k window; alwaysLoad keeps its
        // server direct and deferLoading defers a small one.
        let w = World::new(vec![Step::text("b")]).await;
        mcp_json(
            &w,
            &["atlassian", "time", "fetch"],
            json!({"time": {"alwaysLoad": true}, "fetch": {"deferLoading": true}}),
        );
        let out = run(&w, &["--context-window", "50000", "hi"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let tools = w.mock.requests()[0].body["tools"]
            .as_array()
            .unwrap()
            .clone();
        let deferred = |prefix: &str| {
            tools
                .iter()
                .filter(|t| t["name"].as_str().unwrap().starts_with(prefix))
                .all(|t| t["defer_loading"] == json!(true))
        };
        assert!(deferred("mcp__atlassian__"));
        assert!(deferred("mcp__fetch__"));
        assert!(
            tools
                .iter()
                .any(|t| t["name"].as_str().unwrap().starts_with("mcp__time__")
                    && t.get("defer_loading").is_none())
        );
        assert!(tools.iter().any(|t| t["name"] == "ToolSearch"));
        // --tool-search off: nothing deferred, no ToolSearch.
        let w = World::new(vec![Step::text("c")]).await;
        mcp_json(&w, &["fetch"], json!({"fetch": {"deferLoading": true}}));
        let out = run(&w, &["--tool-search", "off", "hi"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let names2 = names(&w.mock.requests()[0].body);
        assert!(
            names2.contains(&"mcp__fetch__fetch".to_owned()),
            "{names2:?}"
        );
        assert!(!names2.contains(&"ToolSearch".to_owned()));
    }
}
