//! Tool search on 10,000 tools: how long the index takes to build and a
//! query to answer (issue 17: build < 100 ms, query p99 < 1 ms), and what
//! registering them as deferred tools costs a session before that (each
//! schema checked against its meta-schema; compiled only when called), with
//! what compiling every schema up front costs for comparison.
//! `cargo bench -p tack-tools --bench tool_search`
//!
//! With `--features semantic` and `TACK_TOOL_SEARCH_MODEL` naming a model
//! (`eval/toolsearch/minilm/setup.sh` installs all-MiniLM-L6-v2), also the
//! semantic ranker on the labelled set's 1,165 real tools: embedding them
//! with an empty vector cache and with a full one, and its 225 queries.
//!
//! The catalog is synthetic and the same on every run: 40 servers of 250
//! tools, names `verb_object[_qualifier]`, descriptions of three or four
//! sentences, two to six described parameters each, all from word lists.

use std::hint::black_box;
use std::time::{Duration, Instant};

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tack_testkit::tools::Listed;
use tack_tool::{Exposure, Tool, ToolRegistry};
use tack_tools::tool_search::{Scoring, SearchDoc, ToolIndex};

/// Registering `docs` as deferred tools, and compiling each schema (what
/// registering cost when it compiled them all): the medians of 5 runs.
fn registering(docs: &[SearchDoc]) {
    let mut registers = Vec::new();
    let mut compiles = Vec::new();
    let mut refused = 0usize;
    for _ in 0..5 {
        let tools: Vec<Arc<dyn Tool>> = docs
            .iter()
            .map(|d| {
                Arc::new(Listed {
                    name: d.tool.clone(),
                    description: d.description.clone(),
                    schema: d.input_schema.clone(),
                }) as Arc<dyn Tool>
            })
            .collect();
        let started = Instant::now();
        let mut registry = ToolRegistry::new();
        for tool in tools {
            refused += usize::from(registry.register_as(tool, Exposure::Deferred).is_err());
        }
        registers.push(started.elapsed());
        black_box(registry);
        let started = Instant::now();
        for doc in docs {
            refused +=
                usize::from(black_box(jsonschema::validator_for(&doc.input_schema)).is_err());
        }
        compiles.push(started.elapsed());
    }
    registers.sort();
    compiles.sort();
    println!(
        "  registering them as deferred tools: median {:.1} ms; compiling every schema too would add {:.1} ms ({refused} refused)",
        registers[registers.len() / 2].as_secs_f64() * 1e3,
        compiles[compiles.len() / 2].as_secs_f64() * 1e3,
    );
}

const SERVERS: &[&str] = &[
    "github",
    "gitlab",
    "jira",
    "linear",
    "slack",
    "discord",
    "notion",
    "confluence",
    "stripe",
    "shopify",
    "postgres",
    "mysql",
    "mongodb",
    "redis",
    "s3",
    "gcs",
    "azure-blob",
    "kubernetes",
    "docker",
    "terraform",
    "datadog",
    "sentry",
    "pagerduty",
    "grafana",
    "salesforce",
    "hubspot",
    "zendesk",
    "intercom",
    "gmail",
    "outlook",
    "calendar",
    "drive",
    "dropbox",
    "figma",
    "airtable",
    "asana",
    "trello",
    "twilio",
    "sendgrid",
    "filesystem",
];

const VERBS: &[(&str, &str)] = &[
    ("create", "Creates a new"),
    ("get", "Fetches one"),
    ("list", "Lists every"),
    ("update", "Updates the fields of an existing"),
    ("delete", "Deletes an existing"),
    ("search", "Searches by keyword for a"),
    ("archive", "Archives a"),
    ("export", "Exports as CSV a"),
    ("import", "Imports from a file a"),
    ("sync", "Synchronises with the remote source a"),
    ("assign", "Assigns to a person a"),
    ("comment_on", "Adds a comment to a"),
    ("close", "Closes an open"),
    ("reopen", "Reopens a closed"),
    ("move", "Moves to another folder or project a"),
    ("copy", "Duplicates a"),
    ("tag", "Adds labels to a"),
    ("watch", "Subscribes to the changes of a"),
    ("count", "Counts, with filters, each"),
    ("summarize", "Summarises the recent activity of a"),
];

const OBJECTS: &[&str] = &[
    "issue",
    "pull_request",
    "repository",
    "branch",
    "commit",
    "user",
    "team",
    "channel",
    "message",
    "invoice",
    "customer",
    "subscription",
    "order",
    "product",
    "table",
    "row",
    "query",
    "bucket",
    "object",
    "pod",
    "deployment",
    "dashboard",
    "alert",
    "incident",
    "ticket",
    "contact",
    "deal",
    "email",
    "event",
    "file",
    "folder",
    "page",
    "database",
    "record",
    "task",
    "board",
    "card",
    "webhook",
    "secret",
    "metric",
];

const QUALIFIERS: &[&str] = &[
    "", "", "", "by_id", "batch", "v2", "async", "details", "history", "settings",
];

const PARAMS: &[(&str, &str)] = &[
    ("id", "The identifier of the item, e.g. 12345."),
    (
        "owner",
        "The account or organisation that owns it, e.g. acme.",
    ),
    ("name", "A human-readable name, at most 100 characters."),
    ("query", "Search text; supports quotes for exact phrases."),
    (
        "limit",
        "How many results to return at most (1-100, default 20).",
    ),
    ("cursor", "The page cursor returned by the previous call."),
    ("state", "Filter by state: open, closed or all."),
    ("labels", "Labels to apply, comma separated."),
    ("assignee", "The login of the person responsible."),
    ("body", "Markdown text of the content."),
    ("path", "Absolute path of the file or folder."),
    ("since", "Only items changed after this ISO 8601 timestamp."),
    ("project", "The project key, e.g. PROJ."),
    ("channel", "The channel name or id, e.g. #general."),
    (
        "amount",
        "An amount in the smallest currency unit, e.g. cents.",
    ),
    ("region", "The cloud region, e.g. eu-west-1."),
    ("namespace", "The namespace to act in; default: default."),
    ("format", "Output format: json, csv or markdown."),
    (
        "dry_run",
        "When true, report what would change and change nothing.",
    ),
    ("recursive", "Whether to descend into sub-folders."),
];

const EXTRAS: &[&str] = &[
    "Use it when the user names the item explicitly.",
    "Returns a JSON object with the fields the API gives.",
    "Rate limited to 60 calls a minute per token.",
    "Requires write access to the workspace.",
    "Results are sorted newest first.",
    "Fails with not_found when the item does not exist.",
    "Safe to retry: a repeated call changes nothing more.",
    "Large results are paginated; pass the cursor to continue.",
];

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, list: &'a [T]) -> &'a T {
        &list[self.below(list.len())]
    }
}

fn catalog(rng: &mut Rng) -> Vec<SearchDoc> {
    let mut docs = Vec::with_capacity(10_000);
    for server in SERVERS {
        let mut names = std::collections::HashSet::new();
        while names.len() < 250 {
            let (verb, phrase) = *rng.pick(VERBS);
            let object = *rng.pick(OBJECTS);
            let qualifier = *rng.pick(QUALIFIERS);
            let name = if qualifier.is_empty() {
                format!("{verb}_{object}")
            } else {
                format!("{verb}_{object}_{qualifier}")
            };
            if !names.insert(name.clone()) {
                continue;
            }
            let thing = object.replace('_', " ");
            let mut description = format!("{phrase} {thing} in {server}.");
            for _ in 0..2 + rng.below(3) {
                description.push(' ');
                let extra = EXTRAS[rng.below(EXTRAS.len())];
                description.push_str(extra);
            }
            let mut properties = Map::new();
            for _ in 0..2 + rng.below(5) {
                let (p, d) = *rng.pick(PARAMS);
                properties.insert(p.to_owned(), json!({"type": "string", "description": d}));
            }
            let schema = json!({"type": "object", "properties": Value::Object(properties)});
            docs.push(SearchDoc::mcp(server, &name, &description, schema));
        }
    }
    docs
}

fn queries(rng: &mut Rng, docs: &[SearchDoc]) -> Vec<String> {
    const ASKS: &[&str] = &[
        "open a new",
        "find the",
        "show me all",
        "remove the old",
        "change the",
        "how many",
        "download a csv of the",
        "who is working on the",
        "subscribe me to the",
        "move the",
    ];
    let mut out = Vec::new();
    for i in 0..400 {
        let object = rng.pick(OBJECTS).replace('_', " ");
        let q = match i % 8 {
            0 => format!("{} {object}", rng.pick(ASKS)),
            1 => format!("{} {object}s in {}", rng.pick(ASKS), rng.pick(SERVERS)),
            2 => format!("{object} +{}", rng.pick(VERBS).0.replace('_', " ")),
            3 => docs[rng.below(docs.len())].name.clone(),
            4 => format!("select:{}", docs[rng.below(docs.len())].tool),
            5 => format!(
                "{} {object} with {} and {}",
                rng.pick(ASKS),
                rng.pick(PARAMS).0,
                rng.pick(PARAMS).0
            ),
            6 => format!("mcp__{} {object}", rng.pick(SERVERS)),
            _ => format!(
                "I need to {} the {object} for the customer, paginated, newest first",
                rng.pick(VERBS).0
            ),
        };
        out.push(q);
    }
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// The default ranker without the semantic one, even where configured.
fn lexical() -> Scoring {
    Scoring {
        semantic_weight: 0.0,
        ..Scoring::default()
    }
}

fn main() {
    #[cfg(feature = "semantic")]
    semantic();
    let mut rng = Rng(17);
    let docs = catalog(&mut rng);
    let queries = queries(&mut rng, &docs);

    let mut builds = Vec::new();
    let mut index = None;
    for _ in 0..7 {
        let docs = docs.clone();
        let started = Instant::now();
        let built = ToolIndex::with_scoring(docs, lexical());
        builds.push(started.elapsed());
        index = Some(black_box(built));
    }
    builds.sort();
    let Some(index) = index else { return };

    let mut times = Vec::new();
    let mut found = 0usize;
    for _ in 0..5 {
        for q in &queries {
            let started = Instant::now();
            let hits = black_box(index.search(black_box(q), 10));
            times.push(started.elapsed());
            found += usize::from(!hits.is_empty());
        }
    }
    times.sort();
    println!(
        "tool search over {} tools ({} distinct queries x5, {} with results):",
        index.len(),
        queries.len(),
        found / 5
    );
    println!(
        "  index build: median {:.1} ms (min {:.1}, max {:.1}) of {}",
        builds[builds.len() / 2].as_secs_f64() * 1e3,
        builds[0].as_secs_f64() * 1e3,
        builds[builds.len() - 1].as_secs_f64() * 1e3,
        builds.len()
    );
    println!(
        "  query: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6
    );
    registering(index.docs());
}

#[cfg(feature = "semantic")]
fn semantic() {
    use tack_tools::tool_search::eval::{read_catalog, read_queries};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch");
    let (Ok(docs), Ok(queries)) = (
        read_catalog(&dir.join("catalog.json")),
        read_queries(&dir.join("queries.jsonl")),
    ) else {
        eprintln!("semantic ranker: eval/toolsearch cannot be read; skipped");
        return;
    };
    let started = Instant::now();
    let Some(model) = tack_tools::tool_search::semantic::model() else {
        return;
    };
    let load = started.elapsed();
    // Cold: the vector cache emptied (it is only a cache).
    if let Some(cache) = model.cache() {
        let _ = std::fs::remove_file(cache);
    }
    let started = Instant::now();
    black_box(ToolIndex::new(docs.clone()));
    let cold = started.elapsed();
    let started = Instant::now();
    let index = black_box(ToolIndex::new(docs.clone()));
    let warm = started.elapsed();
    let lexical_build = {
        let started = Instant::now();
        black_box(ToolIndex::with_scoring(docs.clone(), lexical()));
        started.elapsed()
    };
    let mut times: Vec<Duration> = queries
        .iter()
        .map(|q| {
            let started = Instant::now();
            black_box(index.search(black_box(&q.query), 5));
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "semantic ranker (all-MiniLM-L6-v2 or as configured) over the labelled set's {} tools:",
        docs.len()
    );
    println!("  model load {:.0} ms", load.as_secs_f64() * 1e3);
    println!(
        "  index build: {:.1} s with no cached vectors, {:.1} ms with all cached ({:.1} ms without the model)",
        cold.as_secs_f64(),
        warm.as_secs_f64() * 1e3,
        lexical_build.as_secs_f64() * 1e3
    );
    println!(
        "  query ({} queries, each step embedded): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        times.len(),
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
}
