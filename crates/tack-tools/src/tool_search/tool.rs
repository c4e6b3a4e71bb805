//! The `ToolSearch` tool: the model's way to the session's deferred tools.
//!
//! Key decision: the tool holds no tool list of its own. Each call takes the
//! session's registry from its host handle, searches the `Deferred` tools
//! (an index built on the first call and again only when the registry has
//! grown, e.g. after an MCP server's `tools/list_changed`), and loads what
//! it found through [`HostHandle::reveal`](tack_tool::HostHandle::reveal),
//! which only ever appends: the tools part of every later request keeps
//! the bytes it had, so the prompt cache holds.
//!
//! How found tools reach the model depends on the API
//! ([`HostHandle::tool_references`](tack_tool::HostHandle::tool_references)):
//! Anthropic's Messages API gets every deferred tool in `tools` marked
//! `"defer_loading": true` and the result as `tool_reference` blocks, which
//! the API expands into the definitions; any other API gets the result as
//! text (name, server, one line of description) and the definitions appended
//! to `tools` from the next request on. Tools a deny rule refuses whatever
//! their input are never offered.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Discovery, ToolDefinition};
use tack_tool::{
    Exposure, Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolRegistry,
};

use super::{SearchDoc, ToolIndex};

/// The tool's name, as Claude Code names its own.
pub const NAME: &str = "ToolSearch";
/// Matches returned when the call does not say.
pub const DEFAULT_LIMIT: usize = 5;
/// The most matches one call returns.
pub const MAX_LIMIT: usize = 20;
/// The characters the list of servers may take in the description.
const CATALOG_BUDGET: usize = 2_000;
/// The characters of one server's line in that list.
const SERVER_LINE: usize = 140;
/// The characters of a match's description line in a text result.
const DESCRIPTION_LINE: usize = 150;

/// Searches the session's deferred tools and loads the ones it finds.
pub struct ToolSearch {
    description: String,
    index: Arc<IndexCell>,
    /// What each call found, until its audit record takes it.
    discoveries: Mutex<HashMap<String, Discovery>>,
}

impl std::fmt::Debug for ToolSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearch").finish_non_exhaustive()
    }
}

/// The index, once built, shared with the thread that builds or searches it.
type IndexCell = Mutex<Option<Arc<Indexed>>>;

/// The index over the deferred tools of a registry of `registry_len` tools.
struct Indexed {
    registry_len: usize,
    index: ToolIndex,
}

impl ToolSearch {
    /// A search over the deferred tools of the session whose registry is
    /// `registry` now; its description lists their servers (a count and a
    /// line each, within a budget). `refused`: tools a deny rule refuses
    /// outright, left out of the list.
    pub fn new(registry: &ToolRegistry, refused: &dyn Fn(&str) -> bool) -> Self {
        let deferred: Vec<&ToolDefinition> = registry
            .iter()
            .filter(|t| t.exposure == Exposure::Deferred && !refused(&t.definition.name))
            .map(|t| &t.definition)
            .collect();
        Self {
            description: describe(&deferred),
            index: Arc::new(Mutex::new(None)),
            discoveries: Mutex::new(HashMap::new()),
        }
    }

    /// The index over `registry`'s deferred tools, built again only when
    /// the registry has grown since (tools are never removed in a session).
    fn index(
        cell: &IndexCell,
        registry: &ToolRegistry,
        refused: &dyn Fn(&str) -> bool,
    ) -> Arc<Indexed> {
        let mut cached = cell.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(indexed) = cached.as_ref()
            && indexed.registry_len == registry.len()
        {
            return Arc::clone(indexed);
        }
        let docs = registry
            .iter()
            .filter(|t| t.exposure == Exposure::Deferred && !refused(&t.definition.name))
            .map(|t| search_doc(&t.definition))
            .collect();
        let indexed = Arc::new(Indexed {
            registry_len: registry.len(),
            index: ToolIndex::new(docs),
        });
        *cached = Some(Arc::clone(&indexed));
        indexed
    }
}

/// How the index sees a definition: an MCP tool (`mcp__SERVER__NAME`) by
/// its server and own name, any other by its name.
pub fn search_doc(definition: &ToolDefinition) -> SearchDoc {
    let description = definition.description.as_deref().unwrap_or_default();
    let schema = definition.input_schema.clone();
    match mcp_parts(&definition.name) {
        Some((server, name)) => SearchDoc::mcp(server, name, description, schema),
        None => SearchDoc::local(&definition.name, description, schema),
    }
}

/// `mcp__SERVER__NAME` → (SERVER, NAME).
pub(crate) fn mcp_parts(tool: &str) -> Option<(&str, &str)> {
    let rest = tool.strip_prefix("mcp__")?;
    let (server, name) = rest.split_once("__")?;
    (!server.is_empty() && !name.is_empty()).then_some((server, name))
}

/// The tool's description: what it does and how to query, then the
/// deferred tools by server within [`CATALOG_BUDGET`].
fn describe(deferred: &[&ToolDefinition]) -> String {
    let mut text = String::from(
        "Finds tools that are available in this session but not loaded yet, and loads them. \
         Many tools are deferred: their definitions are not in your tool list until a search \
         finds them, so search here before concluding that no tool can do something. Query \
         with words for what you want to do (\"create github issue\"); `+word` requires a \
         word; `mcp__SERVER` searches one server's tools, and a server's name alone lists \
         them; `select:NAME,NAME` loads tools whose names you know. An exact tool name in \
         the query always comes first. Returns up to `limit` matches (default 5), best \
         first, each with its server and a line of its description; the tools found can be \
         called from your next turn on, for the rest of the session. If nothing matches, no \
         such tool exists here: do not search again with the same words.",
    );
    if deferred.is_empty() {
        return text;
    }
    let mut servers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for d in deferred {
        let (server, name) = mcp_parts(&d.name).unwrap_or(("other tools", d.name.as_str()));
        servers.entry(server).or_default().push(name);
    }
    let _ = write!(
        text,
        "\n\nDeferred tools ({} in all), by server:",
        deferred.len()
    );
    let full: Vec<String> = servers
        .iter()
        .map(|(server, names)| server_line(server, names, SERVER_LINE))
        .collect();
    let lines = if full.iter().map(|l| l.len() + 1).sum::<usize>() <= CATALOG_BUDGET {
        full
    } else {
        servers
            .iter()
            .map(|(server, names)| server_line(server, names, 0))
            .collect()
    };
    let mut used = 0;
    for (shown, line) in lines.iter().enumerate() {
        if used + line.len() + 1 > CATALOG_BUDGET {
            let _ = write!(
                text,
                "\n… and {} more servers (a search finds their tools too)",
                lines.len() - shown
            );
            break;
        }
        used += line.len() + 1;
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// `- server (N tools): a, b, c, …` within `width` characters (0: the
/// count alone).
fn server_line(server: &str, names: &[&str], width: usize) -> String {
    let count = match names.len() {
        1 => "1 tool".to_owned(),
        n => format!("{n} tools"),
    };
    let mut line = format!("- {server} ({count})");
    if width == 0 {
        return line;
    }
    line.push(':');
    for (i, name) in names.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        if line.len() + sep.len() + name.len() > width {
            line.push_str(if i == 0 { " …" } else { ", …" });
            break;
        }
        line.push_str(sep);
        line.push_str(name);
    }
    line
}

/// The first line of a description, cut to `max` characters.
fn one_line(description: &str, max: usize) -> String {
    let line = description
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let line = match line.find(". ") {
        Some(end) if end < max => &line[..=end],
        _ => line,
    };
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[async_trait]
impl Tool for ToolSearch {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What you want to do, in words (\"list open pull requests\"), or `select:NAME,NAME` to load tools by name, or `mcp__SERVER` to list one server's tools."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "The most tools to return (default 5)."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn discovery(&self, tool_use_id: &str) -> Option<Discovery> {
        self.discoveries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(tool_use_id)
    }

    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let query = input
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        if query.is_empty() || query == "select:" {
            return Err(ToolError::InvalidInput(
                "the query is empty: give words for what you want to do, or select:NAME".into(),
            ));
        }
        let limit = input
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_LIMIT, |n| (n as usize).clamp(1, MAX_LIMIT));
        let Some(registry) = ctx.host.registry() else {
            return Err(ToolError::Unavailable(
                "tool search runs inside a session; this call has no session's tools to search"
                    .into(),
            ));
        };
        let host = &ctx.host;
        let refused = |name: &str| host.refused_outright(name);
        let rank = {
            let (cell, registry, host) =
                (Arc::clone(&self.index), Arc::clone(&registry), host.clone());
            let query = query.clone();
            move || {
                let refused = |name: &str| host.refused_outright(name);
                let indexed = Self::index(&cell, &registry, &refused);
                let hits = indexed.index.search(&query, limit);
                (indexed, hits)
            }
        };
        let (indexed, hits) = super::run_search(rank)
            .await
            .map_err(ToolError::Unavailable)?;
        let index = &indexed.index;
        let hits: Vec<&SearchDoc> = hits
            .into_iter()
            .map(|hit| index.doc(hit.doc))
            .filter(|doc| !refused(&doc.tool))
            .take(limit)
            .collect();
        let found: Vec<&str> = hits.iter().map(|d| d.tool.as_str()).collect();
        let loaded = host.reveal(&found);
        self.discoveries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                ctx.tool_use_id.clone(),
                Discovery {
                    query: query.clone(),
                    found: found.iter().map(|s| (*s).to_owned()).collect(),
                    loaded: loaded.clone(),
                    searched: index.len(),
                },
            );
        let structured = json!({
            "query": query,
            "tools": hits.iter().map(|d| json!({
                "tool": d.tool,
                "server": d.server,
                "name": d.name,
            })).collect::<Vec<_>>(),
            "loaded": loaded,
        });
        if hits.is_empty() {
            let text = nothing_found(&query, &registry, index, &refused);
            return Ok(ToolOutput::text(text).with_structured(structured));
        }
        let content = if host.tool_references() {
            found
                .iter()
                .map(|name| ContentBlock::tool_reference(*name))
                .collect()
        } else {
            let mut text = listing(&hits, &loaded);
            // `select:` names that were not found are said (in text only:
            // references go alone).
            if let Some(names) = query.strip_prefix("select:") {
                let missing: Vec<&str> = names
                    .split(',')
                    .map(str::trim)
                    .filter(|n| {
                        !n.is_empty()
                            && !index
                                .tools_named(n)
                                .any(|named| hits.iter().any(|d| d.tool == named.tool))
                    })
                    .collect();
                if !missing.is_empty() {
                    let rest = format!("select:{}", missing.join(","));
                    text.push('\n');
                    text.push_str(&nothing_found(&rest, &registry, index, &refused));
                }
            }
            vec![ContentBlock::text(text)]
        };
        Ok(ToolOutput {
            content,
            structured: Some(structured),
            response: None,
        })
    }
}

/// The text result: each match with its server and a line of description.
fn listing(hits: &[&SearchDoc], loaded: &[String]) -> String {
    let mut text = format!(
        "Found {} tool{}; {} can be called from your next turn on:",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" },
        if hits.len() == 1 { "it" } else { "they" }
    );
    for doc in hits {
        let server = doc
            .server
            .as_deref()
            .map(|s| format!(" (server {s})"))
            .unwrap_or_default();
        let again = if loaded.iter().any(|l| l == &doc.tool) {
            ""
        } else {
            " [loaded before]"
        };
        let _ = write!(
            text,
            "\n- {}{server}{again}: {}",
            doc.tool,
            one_line(&doc.description, DESCRIPTION_LINE)
        );
    }
    text
}

/// The tools a text result of a search listed ([`listing`]'s lines), for
/// a resumed conversation: they are loaded again.
pub fn listed(text: &str) -> Vec<String> {
    if !text.starts_with("Found ") {
        return Vec::new();
    }
    text.lines()
        .skip(1)
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(|line| line.split([' ', ':']).next())
        .filter(|name| tack_protocol::is_valid_tool_name(name))
        .map(str::to_owned)
        .collect()
}

/// The refused tool `asked` names in another case style (`deleteRepo` or
/// `github:deleteRepo` for `mcp__github__delete_repo`), which the index,
/// holding no refused tool, cannot resolve.
fn refused_named(
    asked: &str,
    registry: &ToolRegistry,
    refused: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let lower = asked.to_lowercase();
    // `deleteRepo` is the tool's own name; `github:deleteRepo` its full one.
    let (wanted, whole) = match super::mcp_name(&lower) {
        Some(full) => (super::loose_name(&full), true),
        None => (super::loose_name(&lower), false),
    };
    registry
        .iter()
        .map(|t| t.definition.name.as_str())
        .find(|name| {
            let own = if whole {
                name
            } else {
                mcp_parts(name).map_or(*name, |(_, own)| own)
            };
            super::loose_name(&own.to_lowercase()) == wanted && refused(name)
        })
        .map(str::to_owned)
}

/// What a search that found nothing says: for `select:`, the closest
/// names; otherwise what there is to search.
fn nothing_found(
    query: &str,
    registry: &ToolRegistry,
    index: &ToolIndex,
    refused: &dyn Fn(&str) -> bool,
) -> String {
    if let Some(names) = query.strip_prefix("select:") {
        let known: Vec<&str> = index.docs().iter().map(|d| d.tool.as_str()).collect();
        let mut text = String::new();
        for asked in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            // `github:create_issue` or `createIssue` is the tool it names
            // (a refused tool is not indexed: the registry says which it is).
            let full = super::mcp_name(asked)
                .filter(|full| registry.contains(full))
                .or_else(|| refused_named(asked, registry, refused));
            let name = index
                .tools_named(asked)
                .next()
                .map(|d| d.tool.as_str())
                .or(full.as_deref())
                .unwrap_or(asked);
            if registry
                .get(name)
                .is_some_and(|t| t.exposure == Exposure::Direct)
            {
                let _ = write!(text, "{name} is loaded already: call it directly. ");
                continue;
            }
            // A tool refused outright is not in the session's tools at all;
            // the rule still says why.
            if refused(name) {
                let _ = write!(
                    text,
                    "{name} is not offered: a deny rule refuses every call of it. "
                );
                continue;
            }
            let hint = tack_protocol::suggest::closest(name, &known)
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            let _ = write!(text, "No deferred tool is named {asked}{hint}. ");
        }
        return text.trim_end().to_owned();
    }
    let mut servers: Vec<&str> = index
        .docs()
        .iter()
        .filter_map(|d| d.server.as_deref())
        .collect();
    servers.dedup();
    let mut text = format!(
        "No deferred tool matches \"{query}\" among {} tools. ",
        index.len()
    );
    for word in query.split_whitespace() {
        let word = word
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
            .to_ascii_lowercase();
        let Some(server) = word.strip_prefix("mcp__").map(|s| s.trim_end_matches('_')) else {
            continue;
        };
        if server.is_empty()
            || mcp_parts(&word).is_some()
            || servers.iter().any(|s| s.eq_ignore_ascii_case(server))
        {
            continue;
        }
        let hint = tack_protocol::suggest::closest(server, &servers)
            .map(|s| format!(" (did you mean mcp__{s}?)"))
            .unwrap_or_default();
        let _ = write!(text, "No server is named {server}{hint}. ");
    }
    let missing: Vec<&str> = query
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('+'))
        .filter(|w| w.starts_with(char::is_alphabetic) && !index.has_word(w))
        .collect();
    if !missing.is_empty() {
        let _ = write!(
            text,
            "No tool says {}: search without the `+`. ",
            missing
                .iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        );
    }
    if !servers.is_empty() {
        let _ = write!(
            text,
            "Their servers: {}; `mcp__SERVER` lists one server's tools. ",
            servers.join(", ")
        );
    }
    text.push_str("Search again only with different words: the tool may not exist here.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_tool::{CallOptions, HostHandle, ToolCall, ToolCallResult, ToolHost};

    /// A session's host as far as search needs one: its registry (which
    /// `grow` adds to, as `tools/list_changed` does) and reveal.
    struct Host {
        registry: Mutex<Arc<ToolRegistry>>,
        references: bool,
    }

    #[async_trait]
    impl ToolHost for Host {
        fn definitions(&self) -> Vec<ToolDefinition> {
            Vec::new()
        }
        fn annotations(&self, _name: &str) -> Option<ToolAnnotations> {
            None
        }
        async fn call(&self, _call: ToolCall, _options: CallOptions) -> ToolCallResult {
            unreachable!("search calls no tool")
        }
        fn registry(&self) -> Option<Arc<ToolRegistry>> {
            Some(Arc::clone(&self.registry.lock().unwrap()))
        }
        fn refused_outright(&self, name: &str) -> bool {
            name.ends_with("delete_repository")
        }
        fn reveal(&self, names: &[&str]) -> Vec<String> {
            let mut registry = self.registry.lock().unwrap();
            let mut next = ToolRegistry::clone(&registry);
            let revealed = names
                .iter()
                .filter(|n| next.reveal(n))
                .map(|n| (*n).to_owned())
                .collect();
            *registry = Arc::new(next);
            revealed
        }
        fn tool_references(&self) -> bool {
            self.references
        }
    }

    struct Listed(&'static str, &'static str);

    #[async_trait]
    impl Tool for Listed {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            self.1
        }
        fn input_schema(&self) -> Value {
            json!({"type": "object"})
        }
        async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text("ok"))
        }
    }

    fn host(references: bool) -> Arc<Host> {
        let mut registry = ToolRegistry::new();
        registry
            .register(Arc::new(Listed("Read", "Reads a file.")))
            .unwrap();
        for (name, description) in [
            (
                "mcp__github__create_issue",
                "Create a new issue in a repository.",
            ),
            ("mcp__github__delete_repository", "Delete a repository."),
            ("mcp__slack__post_message", "Post a message to a channel."),
        ] {
            registry
                .register_as(Arc::new(Listed(name, description)), Exposure::Deferred)
                .unwrap();
        }
        Arc::new(Host {
            registry: Mutex::new(Arc::new(registry)),
            references,
        })
    }

    async fn search(tool: &ToolSearch, host: &Arc<Host>, id: &str, query: &str) -> ToolOutput {
        let mut ctx = ToolContext::new("/", "s", id, tokio_util::sync::CancellationToken::new());
        ctx.host = HostHandle::new(
            Arc::clone(host) as Arc<dyn ToolHost>,
            tack_protocol::Caller {
                tool: NAME.into(),
                tool_use_id: id.into(),
            },
            0,
        );
        tool.call(json!({"query": query}), ctx).await.unwrap()
    }

    #[tokio::test]
    async fn a_search_loads_what_it_finds_and_sees_tools_that_join_later() {
        let host = host(false);
        let tool = ToolSearch::new(&host.registry().unwrap(), &|n| host.refused_outright(n));
        assert!(
            tool.description()
                .contains("- github (1 tool): create_issue"),
            "{}",
            tool.description()
        );
        let out = search(&tool, &host, "t1", "open an issue").await;
        let text = out.content[0].clone();
        assert!(format!("{text:?}").contains("mcp__github__create_issue (server github)"));
        assert_eq!(
            host.registry().unwrap().revealed()[0],
            "mcp__github__create_issue"
        );
        let discovery = tool.discovery("t1").unwrap();
        assert_eq!(discovery.found[0], "mcp__github__create_issue");
        assert_eq!(discovery.loaded, host.registry().unwrap().revealed());
        assert_eq!(discovery.searched, 2, "the refused tool is not indexed");
        assert!(tool.discovery("t1").is_none(), "taken once");
        // select: says which names it did not find.
        let out = search(
            &tool,
            &host,
            "t1b",
            "select:mcp__slack__post_message,mcp__slack__nope",
        )
        .await;
        let text = format!("{:?}", out.content);
        assert!(
            text.contains("mcp__slack__post_message (server slack)"),
            "{text}"
        );
        assert!(
            text.contains("No deferred tool is named mcp__slack__nope"),
            "{text}"
        );
        // A name as server:name (or in another case style) is the tool.
        let out = search(&tool, &host, "t1c", "select:slack:postMessage,nope").await;
        let text = format!("{:?}", out.content);
        assert!(
            text.contains("mcp__slack__post_message (server slack)"),
            "{text}"
        );
        assert!(!text.contains("named slack:postMessage"), "{text}");
        assert!(text.contains("No deferred tool is named nope"), "{text}");
        // A refused tool is not found even by name.
        for name in [
            "mcp__github__delete_repository",
            "github:delete_repository",
            "deleteRepository",
            "github/delete-repository",
        ] {
            let out = search(&tool, &host, "t2", &format!("select:{name}")).await;
            assert!(format!("{:?}", out.content).contains("a deny rule refuses every call of it"));
        }
        // A server announces a tool: the next search finds it.
        {
            let mut registry = host.registry.lock().unwrap();
            let mut next = ToolRegistry::clone(&registry);
            next.register_as(
                Arc::new(Listed("mcp__jira__create_ticket", "Create a Jira ticket.")),
                Exposure::Deferred,
            )
            .unwrap();
            *registry = Arc::new(next);
        }
        let out = search(&tool, &host, "t3", "jira ticket").await;
        assert!(format!("{:?}", out.content).contains("mcp__jira__create_ticket"));
    }

    #[tokio::test]
    async fn with_references_the_result_is_references_only() {
        let host = host(true);
        let tool = ToolSearch::new(&host.registry().unwrap(), &|_| false);
        let out = search(&tool, &host, "t1", "mcp__slack").await;
        assert_eq!(
            out.content,
            [ContentBlock::tool_reference("mcp__slack__post_message")]
        );
        // Nothing found: text, not an empty list of references.
        let out = search(&tool, &host, "t2", "spotify playlist").await;
        assert!(
            matches!(&out.content[..], [ContentBlock::Text(t)] if t.text.starts_with("No deferred tool matches"))
        );
        // A required word no tool has is named.
        let out = search(&tool, &host, "t4", "post +carrier-pigeon").await;
        assert!(
            matches!(&out.content[..], [ContentBlock::Text(t)] if t.text.contains("No tool says \"carrier-pigeon\": search without the `+`.")),
            "{:?}",
            out.content
        );
        // A server that is not there is named, with the closest that is.
        let out = search(&tool, &host, "t3", "mcp__slak post").await;
        assert!(
            matches!(&out.content[..], [ContentBlock::Text(t)] if t.text.contains("No server is named slak (did you mean mcp__slack?)")),
            "{:?}",
            out.content
        );
    }

    #[test]
    fn one_line_takes_the_first_sentence_within_the_width() {
        assert_eq!(
            one_line("Create an issue. Needs a repo.", 80),
            "Create an issue."
        );
        assert_eq!(one_line("\n  Lists pulls\nmore", 80), "Lists pulls");
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
    }

    #[test]
    fn a_text_result_lists_its_tools_again() {
        let hits = [
            SearchDoc::mcp("github", "create_issue", "Create an issue.", json!({})),
            SearchDoc::local("git_log", "Show the log.", json!({})),
        ];
        let refs: Vec<&SearchDoc> = hits.iter().collect();
        let text = listing(&refs, &["git_log".to_owned()]);
        assert_eq!(listed(&text), ["mcp__github__create_issue", "git_log"]);
        assert!(
            text.contains(
                "mcp__github__create_issue (server github) [loaded before]: Create an issue."
            ),
            "{text}"
        );
        assert!(listed("No deferred tool matches").is_empty());
    }

    #[test]
    fn mcp_names_split_at_the_first_double_underscore() {
        assert_eq!(
            mcp_parts("mcp__github__create_issue"),
            Some(("github", "create_issue"))
        );
        assert_eq!(mcp_parts("mcp__a__b__c"), Some(("a", "b__c")));
        assert_eq!(mcp_parts("Read"), None);
        assert_eq!(mcp_parts("mcp____x"), None);
    }

    #[test]
    fn the_server_list_keeps_within_its_budget() {
        let defs: Vec<ToolDefinition> = (0..400)
            .map(|i| ToolDefinition {
                name: format!("mcp__server{}__tool_number_{i}", i % 80),
                description: Some("Does a thing.".into()),
                input_schema: json!({"type": "object"}),
                extra: Default::default(),
            })
            .collect();
        let refs: Vec<&ToolDefinition> = defs.iter().collect();
        let text = describe(&refs);
        let list = &text[text.find("Deferred tools").unwrap()..];
        assert!(list.len() <= CATALOG_BUDGET + 200, "{}", list.len());
        assert!(list.contains("(400 in all)"), "{list}");
        assert!(list.contains("- server0 (5 tools)"), "{list}");
    }
}
