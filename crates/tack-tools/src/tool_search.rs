//! The ranking index behind tool search: which of many tool definitions
//! fit a query, best first.
//!
//! Key decision: BM25F over five fields of a definition — the tool's own
//! name (split on `_`, `-`, `.` and camelCase), its server, its description,
//! the names of its parameters and their descriptions — with everything
//! that does not depend on the query worked out once, when the index is
//! built. A posting holds the saturated, length-normalised weight of its
//! term in its document, so a query adds `idf × weight` per posting and
//! touches nothing else: it allocates per query, never per document.
//!
//! The index is immutable. On `tools/list_changed` the caller builds a new
//! one ([`ToolIndex::new`] over the session's tools again, or
//! [`ToolIndex::into_docs`], change, [`ToolIndex::new`]): 10,000 tools build
//! in tens of milliseconds (`cargo bench -p tack-tools --bench
//! tool_search`), a session's few hundred in well under one.
//!
//! ```
//! use serde_json::json;
//! use tack_tools::tool_search::{SearchDoc, ToolIndex};
//!
//! let docs = vec![
//!     SearchDoc::mcp("github", "create_issue", "Open a new issue in a repository.", json!({})),
//!     SearchDoc::mcp("github", "list_pull_requests", "List the pull requests of a repository.", json!({})),
//! ];
//! let index = ToolIndex::new(docs);
//! let hits = index.search("open issues", 5);
//! assert_eq!(index.doc(hits[0].doc).tool, "mcp__github__create_issue");
//! ```
//!
//! Query language (see [`ToolIndex::search`]): `select:A,B` loads exact
//! tools; `+term` is a required word; `mcp__server` restricts the search to
//! that server, and a server's name alone lists its tools (in a sentence it
//! is a word like any other: `time` and `memory` are servers too); a tool's
//! exact name written as an identifier (`create_issue`, `getUser`) anywhere
//! in the query, or any tool name alone, ranks that tool first — in any
//! case style (`createIssue`, `create-issue`) or as `server:name`. Query
//! words also find their synonyms and related words (`synonyms.rs`), then
//! their nearest neighbours in word-vector space (`related.rs`, a table
//! derived from GloVe vectors), each at a lower weight; a user's word or
//! two-word phrase also finds the words tools use for what it asks
//! (`lexicon.rs`: "storm" finds `weather`, "sea level" `elevation`; a
//! phrase reads past a pronoun or an article, so "save it to" is "save
//! to"); a tool counts only the best match of each query word. A word the catalog lacks is split
//! into two words it has ("healthcheck"), and two query words are joined
//! when the catalog writes them as one ("log in"), both at the synonyms'
//! weight. With the cargo feature `semantic` and
//! `TACK_TOOL_SEARCH_MODEL` naming a sentence-embedding model's directory,
//! the cosine of the query's and each tool's embeddings is fused in too
//! (`semantic.rs`).
//! Values the request passes on — a URL, a file name, an id, quoted text,
//! a dotted name (`crm.accounts`), the name after `called`, a name written
//! as an identifier before a repo, table, channel … ("the web-frontend
//! repo") — count less than the words of what to do, and
//! bring the word for their kind (`url`, `file`, `directory` for
//! `~/Downloads`, `email`, `issue` for `ENG-482`, `time` for `9am`; a sum
//! such as `17.5%` brings `calculate`). "Move" or "mark" in a request that
//! names an issue key asks for a transition ("move ENG-412 to In Review"),
//! and "show me" to get something, not for `git show`.
//! The message of "remember that …", "tell the team that …" or of the
//! words after a colon that follows the ask ("file a bug: the export
//! times out") counts less still: it is what to keep or say, not what to
//! do. A verb after "can't", "don't", "do not" asks for nothing ("I can't
//! make the meeting" creates no event). A question ("which tickets are
//! assigned to me?") adds the words of looking up to the tools its other
//! words found. "Pull" but in "pull request" is to get; "where" but as a
//! request's first word filters ("every doc where tier is 'gold'") and
//! asks for nothing. A request of several steps ("read the changelog and
//! post it to Slack") is searched step by step (each step with the rest of
//! the request at a lower weight): the whole request's best three tools,
//! each step's best, then the steps' other tools by how close each comes
//! to its own step's best. A part that opens with a preposition ("in mongo
//! crm.accounts, set …") is where the next part is done, no step of its
//! own; a verb and what it acts on ("then restart it") is a step. A URL's
//! words count a quarter; an address or a `#channel` something goes `to`
//! asks for sending; a call in JavaScript for the tools that run it; a
//! verb's particle may stand a few words after it ("set my changes
//! aside"); "don't send it yet" asks for a draft; "push my 1:1 to Friday"
//! moves a meeting.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

pub mod eval;
mod lexicon;
mod related;
#[cfg(feature = "semantic")]
pub mod semantic;
mod synonyms;
pub mod tool;

use lexicon::{ASKS_FOR, PLAIN_WORDS, RECURRING, SECOND_CATALOG, WRITTEN_BLIND};
use synonyms::{RELATED, SYNONYMS};

/// One tool as the index sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    /// The name the model sees, e.g. `mcp__github__create_issue`.
    pub tool: String,
    /// The MCP server it comes from; `None` for a tool of tack's own.
    pub server: Option<String>,
    /// The tool's own name (the MCP name, unprefixed; `tool` otherwise).
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

impl SearchDoc {
    /// A tool of tack's own (built-in, declared, skills): its own name is
    /// the name the model sees.
    pub fn local(name: &str, description: &str, input_schema: Value) -> Self {
        Self {
            tool: name.to_owned(),
            server: None,
            name: name.to_owned(),
            description: description.to_owned(),
            input_schema,
        }
    }

    /// A tool of an MCP server, seen by the model as `mcp__SERVER__NAME`.
    pub fn mcp(server: &str, name: &str, description: &str, input_schema: Value) -> Self {
        Self {
            tool: format!("mcp__{server}__{name}"),
            server: Some(server.to_owned()),
            name: name.to_owned(),
            description: description.to_owned(),
            input_schema,
        }
    }
}

/// One result: the document's position in the index and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: usize,
    /// The BM25F score (0 for a tool listed by `select:` or as its
    /// server's). A tool named exactly in the query comes first whatever
    /// its score.
    pub score: f32,
}

/// The fields of a definition, in the order of [`Scoring::fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name = 0,
    Server = 1,
    Description = 2,
    ParamNames = 3,
    ParamDescriptions = 4,
}

const FIELDS: usize = 5;

/// Whether searches use a sentence-embedding model (the feature `semantic`
/// with a model configured): then building an index can take seconds and a
/// search milliseconds.
fn uses_model() -> bool {
    #[cfg(feature = "semantic")]
    return semantic::model().is_some();
    #[cfg(not(feature = "semantic"))]
    false
}

/// Runs `work` (building an index, searching it) where it belongs: on
/// tokio's blocking pool when searches use a model, else right here (a
/// lexical search takes microseconds). The error says the work did not
/// finish.
pub async fn run_search<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    if uses_model() {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| format!("the tool search did not finish: {e}"))
    } else {
        Ok(work())
    }
}

/// Words of a query that are read; the rest are not. A request is a
/// sentence or a few, and each step of one is searched with the whole as
/// context, so without a bound a query's cost would grow with the square of
/// its length, and the model writes the query (3,000 steps took minutes).
pub const MAX_QUERY_WORDS: usize = 64;

/// `text` up to its `n`th word (the whole when it has no more).
fn first_words(text: &str, n: usize) -> std::borrow::Cow<'_, str> {
    match text.split_whitespace().nth(n) {
        None => text.into(),
        Some(past) => {
            let end = past.as_ptr() as usize - text.as_ptr() as usize;
            text[..end].into()
        }
    }
}

/// The weight of a field and how strongly its length normalises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldScoring {
    /// How much one occurrence in this field counts.
    pub weight: f32,
    /// BM25's `b` for this field: 0 ignores the field's length, 1
    /// normalises fully by it.
    pub b: f32,
}

/// The parameters of the ranking. [`Scoring::default`] (name 3, server 3,
/// description 1, parameter names 1.5, parameter descriptions 0.5; k1 2;
/// synonyms on at 0.7, related words at 0.4, word-vector neighbours at 0.3
/// × their similarity from 0.5 up, the lexicon's words at 0.5; values at
/// 0.5, a message's words at 0.15; a step sees the rest of its request at
/// 0.3; a question's words of looking up at 0.3; a name word not asked for
/// costs 0.1; a name written as an identifier before a repo, table … is a
/// value; semantic fusion, where
/// configured, at 2) is what the labelled sets in `eval/toolsearch`
/// measured best (BENCHMARKS.md, "Tool search"); re-measure there, on the
/// held-out sets too, before changing it: `TACK_TUNE_QUERIES=…/heldout/a.jsonl
/// cargo test -p tack-tools --lib tune -- --ignored --nocapture`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scoring {
    /// BM25's term-frequency saturation.
    pub k1: f32,
    /// By [`Field`]: name, server, description, parameter names,
    /// parameter descriptions.
    pub fields: [FieldScoring; FIELDS],
    /// Light suffix stripping (plurals, -ing, -ed, a final e) on both
    /// sides.
    pub stem: bool,
    /// Query words also find their synonyms and related words (fixed
    /// tables of word groups).
    pub synonyms: bool,
    /// How much a synonym of a query word counts against the word itself
    /// (`find` for `search`), scored at the query word's rarity when the
    /// catalog has the word.
    pub synonym_weight: f32,
    /// The same for a related word (`remember` for `memory`).
    pub related_weight: f32,
    /// How much a word of a value counts: a URL, path or file name, e-mail
    /// address, number or id, quoted text, the name after `called`,
    /// `named`, `titled`. It finds no synonyms.
    pub value_weight: f32,
    /// How much a word of what is to be said or kept counts: the words
    /// after `that` in "remember that Carol prefers email" or "tell the
    /// team that the deploy is done" are the message, not the ask.
    pub message_weight: f32,
    /// When a request is searched step by step, how much the words of its
    /// other steps count in each step's search.
    pub context_weight: f32,
    /// How much a query word's nearest neighbours in word-vector space
    /// count (`related.rs`): a neighbour at cosine similarity `s` counts
    /// `neighbour_weight × s`, scored at the query word's rarity as a
    /// synonym is. 0 turns them off.
    pub neighbour_weight: f32,
    /// The least cosine similarity at which a neighbour counts.
    pub neighbour_floor: f32,
    /// How much a word a tool's description would use for a user's word
    /// or two-word phrase (`lexicon.rs`: `weather` for "storm",
    /// `elevation` for "sea level") counts, scored as a synonym is.
    pub lexicon_weight: f32,
    /// How much each word of a tool's name that the query does not ask
    /// for (nor a synonym or related word of it) costs: the score is
    /// divided by `1 + name_penalty × such words`. Words most of the
    /// server's tool names share (`jira_`, `browser_`) are not counted.
    pub name_penalty: f32,
    /// With the cargo feature `semantic` and a model configured
    /// (`semantic.rs`): how much the cosine similarity of the query's and
    /// a tool's embeddings counts, against BM25F scaled to its best. 0
    /// turns it off.
    pub semantic_weight: f32,
    /// How much the words of looking something up (`search`, `list`,
    /// `find`, `get`) count for a request put as a question ("which
    /// tickets are assigned to me?", "any emails from Stripe?"): it asks
    /// to be told, not for the verb in it to be done. 0 turns it off.
    pub question_weight: f32,
    /// Whether the words after a colon that follows the ask (its fourth
    /// word or later) are what is to be said, at `message_weight`.
    pub colon_opens_message: bool,
    /// Whether the lexicon written blind (`lexicon.rs`, `WRITTEN_BLIND`)
    /// is read too, at `lexicon_weight`.
    pub blind_lexicon: bool,
    /// Whether the word before a place a tool works in ("the web-frontend
    /// repo") is a value: 1 when it is written as an identifier, 2 any word.
    pub container_names: u8,
}

impl Default for Scoring {
    fn default() -> Self {
        let f = |weight, b| FieldScoring { weight, b };
        Self {
            k1: 2.0,
            fields: [
                f(3.0, 0.3),
                f(3.0, 0.0),
                f(1.0, 0.75),
                f(1.5, 0.5),
                f(0.5, 0.75),
            ],
            stem: true,
            synonyms: true,
            synonym_weight: 0.7,
            related_weight: 0.4,
            value_weight: 0.5,
            message_weight: 0.15,
            context_weight: 0.3,
            neighbour_weight: 0.3,
            neighbour_floor: 0.5,
            lexicon_weight: 0.5,
            name_penalty: 0.1,
            semantic_weight: 2.0,
            question_weight: 0.3,
            colon_opens_message: true,
            blind_lexicon: true,
            container_names: 1,
        }
    }
}

/// A posting: a document holding a term, and the term's saturated BM25F
/// weight there, `tf / (k1 + tf)` with `tf` the length-normalised,
/// field-weighted frequency.
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    weight: f32,
}

/// The index over a set of tools. Immutable: rebuild it when the tools
/// change (see the module's documentation).
#[derive(Debug)]
pub struct ToolIndex {
    docs: Vec<SearchDoc>,
    scoring: Scoring,
    terms: FxHashMap<Box<str>, u32>,
    /// By term: its inverse document frequency.
    idf: Vec<f32>,
    /// By term: the documents holding it, in document order.
    postings: Vec<Vec<Posting>>,
    /// By document: its server's number in `servers`.
    server_of: Vec<Option<u32>>,
    /// By server: whether it runs queries (a tool of its is named for
    /// `query` or `sql`): a database one.
    runs_queries: Vec<bool>,
    /// The words of the servers' names (`aws` and `cloudwatch` of
    /// `aws-cloudwatch`): a path under one (`/aws/lambda/orders`) is the
    /// service's, not a file's on this machine.
    server_words: FxHashSet<String>,
    /// Lowercase server names, `mcp__` prefixes included, to a server's
    /// number.
    servers: FxHashMap<String, u32>,
    /// Lowercase names (the model's and the tool's own) to the documents
    /// so named.
    exact: FxHashMap<String, Vec<u32>>,
    /// The same names with only their letters and digits (`createissue`
    /// for `create_issue`), for a name written in another case style.
    loose: FxHashMap<String, Vec<u32>>,
    /// A query term to the catalog's terms of its groups in [`SYNONYMS`]
    /// and [`RELATED`], with the weight each counts at (both stemmed as
    /// the index stems).
    synonyms: FxHashMap<Box<str>, Vec<(u32, f32)>>,
    /// By document: its name's terms, but those most of its server's
    /// names share.
    name_terms: NameTerms,
    /// The documents' mean word vectors, when vectors are configured.
    #[cfg(feature = "semantic")]
    semantic: Option<semantic::DocVectors>,
}

impl ToolIndex {
    /// Builds the index with the default [`Scoring`].
    pub fn new(docs: Vec<SearchDoc>) -> Self {
        Self::with_scoring(docs, Scoring::default())
    }

    pub fn with_scoring(docs: Vec<SearchDoc>, scoring: Scoring) -> Self {
        let mut terms: FxHashMap<Box<str>, u32> = FxHashMap::default();
        // Words seen so far, to their term (`None`: a stop word).
        let mut seen: FxHashMap<Box<str>, Option<u32>> = FxHashMap::default();
        // Pass 1: every document's (term, field) counts and field lengths.
        let mut entries: Vec<(u32, u32, u8)> = Vec::new(); // (doc, term, field)
        let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(docs.len());
        let mut word = String::new();
        let mut scratch: Vec<(u32, u8)> = Vec::new();
        let siblings = sibling_names(&docs);
        let mut names = NameTerms::default();
        for (d, doc) in docs.iter().enumerate() {
            scratch.clear();
            let mut len = [0u32; FIELDS];
            let mut add = |text: &str, field: Field, scratch: &mut Vec<(u32, u8)>| {
                // Each distinct word is looked at once: stop word or which
                // term, after stemming.
                let mut term_of = |w: &str, term: &mut String| match seen.get(w) {
                    Some(&id) => id,
                    None => {
                        let id = (!is_stop_word(w)).then(|| {
                            term.clear();
                            term.push_str(w);
                            if scoring.stem {
                                stem(term);
                            }
                            let next = terms.len() as u32;
                            *terms.entry(term.as_str().into()).or_insert(next)
                        });
                        seen.insert(w.into(), id);
                        id
                    }
                };
                // A word written in camelCase (`GitHub`, `MongoDB`) is also
                // the whole word, as the server's name and a query in
                // lowercase write it; it does not lengthen the field.
                let mut wholes: Vec<&str> = Vec::new();
                for_each_word_and_whole(
                    text,
                    &mut word,
                    |w, term| {
                        if let Some(id) = term_of(w, term) {
                            scratch.push((id, field as u8));
                            len[field as usize] += 1;
                        }
                    },
                    |whole| wholes.push(whole),
                );
                let mut term = String::new();
                for whole in wholes {
                    word.clear();
                    word.extend(whole.chars().flat_map(char::to_lowercase));
                    if let Some(id) = term_of(&word, &mut term) {
                        scratch.push((id, field as u8));
                    }
                }
            };
            let name_start = scratch.len();
            add(&doc.name, Field::Name, &mut scratch);
            names.push(scratch[name_start..].iter().map(|e| e.0));
            if let Some(server) = &doc.server {
                add(server, Field::Server, &mut scratch);
            }
            let own = (doc.server.as_deref(), doc.name.as_str());
            let description = without_siblings(&doc.description, own, &siblings);
            add(&description, Field::Description, &mut scratch);
            let mut takes_a_key = shows_an_issue_key(&doc.description);
            for_each_parameter(&doc.input_schema, 0, &mut |name, text| {
                takes_a_key |= shows_an_issue_key(text);
                add(name, Field::ParamNames, &mut scratch);
                add(
                    &without_siblings(text, own, &siblings),
                    Field::ParamDescriptions,
                    &mut scratch,
                );
            });
            // A tool whose text shows an issue key (`PROJ-123`) takes one:
            // a term no word can be, which a key in a request finds; in
            // the server's field, whose length does not count, so it
            // weighs the same in every tool.
            // So does a tool that takes a path on this machine, which a
            // path written from a root (`/etc/nginx.conf`, `~/code`) finds.
            let takes_a_path = takes_a_local_path(&doc.input_schema);
            for (marker, has) in [
                (TAKES_AN_ISSUE_KEY, takes_a_key),
                (TAKES_A_LOCAL_PATH, takes_a_path),
            ] {
                if has {
                    let next = terms.len() as u32;
                    let id = *terms.entry(marker.into()).or_insert(next);
                    scratch.push((id, Field::Server as u8));
                }
            }
            scratch.sort_unstable();
            entries.extend(scratch.iter().map(|&(t, f)| (d as u32, t, f)));
            lengths.push(len);
        }
        // Field length averages.
        let n = docs.len().max(1) as f32;
        let mut average = [0f32; FIELDS];
        for len in &lengths {
            for (a, &l) in average.iter_mut().zip(len) {
                *a += l as f32;
            }
        }
        for a in &mut average {
            *a = (*a / n).max(1.0);
        }
        // Pass 2: one posting per (doc, term), fields folded in.
        let mut postings: Vec<Vec<Posting>> = vec![Vec::new(); terms.len()];
        let mut i = 0;
        while i < entries.len() {
            let (doc, term, _) = entries[i];
            let mut tf = 0f32;
            while i < entries.len() && entries[i].0 == doc && entries[i].1 == term {
                let field = entries[i].2 as usize;
                let FieldScoring { weight, b } = scoring.fields[field];
                let norm = 1.0 - b + b * lengths[doc as usize][field] as f32 / average[field];
                tf += weight / norm;
                i += 1;
            }
            if tf > 0.0 {
                postings[term as usize].push(Posting {
                    doc,
                    weight: tf / (scoring.k1 + tf),
                });
            }
        }
        let idf: Vec<f32> = postings
            .iter()
            .map(|p| {
                let df = p.len() as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        // Servers and exact names.
        let mut servers: FxHashMap<String, u32> = FxHashMap::default();
        let mut server_names: Vec<&str> = Vec::new();
        let mut server_of = Vec::with_capacity(docs.len());
        let mut runs_queries: Vec<bool> = Vec::new();
        let mut server_words = FxHashSet::default();
        let mut exact: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut loose: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        for (d, doc) in docs.iter().enumerate() {
            let id = doc.server.as_deref().map(|server| {
                if let Some(id) = server_names.iter().position(|s| *s == server) {
                    return id as u32;
                }
                server_names.push(server);
                let id = server_names.len() as u32 - 1;
                let lower = server.to_lowercase();
                servers.entry(format!("mcp__{lower}")).or_insert(id);
                server_words.extend(
                    lower
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .map(str::to_owned),
                );
                servers.entry(lower).or_insert(id);
                // The prefix as the model sees it (sanitised by the client).
                if let Some(prefix) = doc
                    .tool
                    .strip_suffix(doc.name.as_str())
                    .and_then(|p| p.strip_suffix("__"))
                    .filter(|p| p.starts_with("mcp__"))
                {
                    let prefix = prefix.to_lowercase();
                    if let Some(bare) = prefix.strip_prefix("mcp__") {
                        servers.entry(bare.to_owned()).or_insert(id);
                    }
                    servers.entry(prefix).or_insert(id);
                }
                id
            });
            server_of.push(id);
            if let Some(id) = id {
                let id = id as usize;
                if runs_queries.len() <= id {
                    runs_queries.resize(id + 1, false);
                }
                let name = doc.name.to_ascii_lowercase();
                runs_queries[id] |= name.contains("query") || name.contains("sql");
            }
            for name in [&doc.tool, &doc.name] {
                let lower = name.to_lowercase();
                for (map, key) in [(&mut loose, loose_name(&lower)), (&mut exact, lower)] {
                    let list = map.entry(key).or_default();
                    if list.last() != Some(&(d as u32)) {
                        list.push(d as u32);
                    }
                }
            }
        }
        let name_terms = names.without_shared(&server_of);
        let synonyms = synonym_terms(&terms, &scoring);
        #[cfg(feature = "semantic")]
        let semantic = semantic::model()
            .filter(|_| scoring.semantic_weight > 0.0)
            .map(|model| {
                let texts: Vec<String> = docs.iter().map(semantic_text).collect();
                semantic::DocVectors::new(model, &texts)
            });
        Self {
            docs,
            scoring,
            terms,
            idf,
            postings,
            server_of,
            runs_queries,
            servers,
            server_words,
            exact,
            loose,
            synonyms,
            name_terms,
            #[cfg(feature = "semantic")]
            semantic,
        }
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The document a [`Hit`] points at.
    pub fn doc(&self, doc: usize) -> &SearchDoc {
        &self.docs[doc]
    }

    pub fn docs(&self) -> &[SearchDoc] {
        &self.docs
    }

    /// The documents back, to change and build a new index from.
    pub fn into_docs(self) -> Vec<SearchDoc> {
        self.docs
    }

    pub fn scoring(&self) -> &Scoring {
        &self.scoring
    }

    /// The tools that fit `query`, best first, at most `limit` (but every
    /// tool `select:` names).
    ///
    /// - `select:A,B` returns exactly the tools named (the model's name or
    ///   the tool's own, any case), in that order; unknown names are
    ///   skipped. Nothing else in the query counts.
    /// - Otherwise the words are keywords ranked by BM25F. `+word` is
    ///   required: a tool without it is not returned.
    /// - `mcp__server` restricts the results to that server's tools
    ///   (several: to any of them); a server's name alone lists its tools
    ///   in their order. A bare server name among other words is a word:
    ///   the server field ranks that server's tools up. `mcp__X` where X is
    ///   no server of the index restricts to no tool (exact names aside).
    /// - A tool's exact name (either name, any case) puts that tool first,
    ///   whatever its score and `+` words (but not outside a server named
    ///   in the query), when written as an identifier (with `_`, `-`, `.`,
    ///   a digit or camelCase) or alone: a plain word such as `search` in a
    ///   sentence stays a word, though a tool is named `search`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        if let Some(names) = query.trim_start().strip_prefix("select:") {
            return self.select(names);
        }
        let query = first_words(query, MAX_QUERY_WORDS);
        let query = query.as_ref();
        let parts = steps(query);
        if parts.len() < 2 {
            return self.search_one(query, limit);
        }
        // A request of several steps: the whole request's best three
        // tools, then each step's best, then the steps' next tools by how
        // close each comes to its own step's best: a step whose runner-up
        // scores near its best gets the slot before a step whose best
        // stands alone (eval/toolsearch: round robin over the steps after
        // the whole request's best two gave 915 of 1,075 on the test sets,
        // this 932 with the step rules of its round; BENCHMARKS.md, "Four
        // more sets, x, y, z, za").
        // Each step is searched with the rest of the request at a lower
        // weight, so "check which alarms fire" after "search CloudWatch
        // logs" still leans to CloudWatch.
        // The words alone rank a request of several steps: with the
        // sentence model fused too, multi-step requests lose more than
        // single ones gain (BENCHMARKS.md, "Tenth session").
        let lists: Vec<Vec<Hit>> = parts
            .iter()
            .map(|p| self.search_in(p, Some(query), limit * 2, false))
            .collect();
        let whole = self.search_in(query, None, WHOLE_REQUEST_FIRST, false);
        merge_steps(whole, &lists, limit)
    }

    fn search_one(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_in(query, None, limit, true)
    }

    /// Searches `query`; the words of `context` (the whole request a step
    /// is part of) count too, at [`Scoring::context_weight`]. `fuse`:
    /// whether the sentence model's ranking (feature `semantic`) is fused
    /// in, when one is loaded.
    fn search_in(&self, query: &str, context: Option<&str>, limit: usize, fuse: bool) -> Vec<Hit> {
        #[cfg(not(feature = "semantic"))]
        let _ = fuse;
        let mut parsed = self.parse(query);
        if let Some(context) = context
            && self.scoring.context_weight > 0.0
        {
            let base = parsed.terms.iter().map(|t| t.group + 1).max().unwrap_or(0);
            let whole = self.parse(context);
            for t in whole.terms {
                if !parsed.terms.iter().any(|p| p.id == t.id) {
                    parsed.terms.push(QueryTerm {
                        required: false,
                        weight: t.weight * self.scoring.context_weight,
                        group: base + t.group,
                        ..t
                    });
                }
            }
        }
        let allowed = |d: u32| {
            parsed.servers.is_empty()
                || self.server_of[d as usize].is_some_and(|s| parsed.servers.contains(&s))
        };
        let mut exact: Vec<u32> = parsed
            .exact
            .iter()
            .copied()
            .filter(|&d| allowed(d))
            .collect();
        exact.sort_unstable();
        exact.dedup();

        if parsed.terms.is_empty() && !parsed.missing_required {
            // Only names: the named tools, then the servers' tools.
            let mut out: Vec<Hit> = exact.iter().map(|&d| hit(d, 0.0)).collect();
            if !parsed.servers.is_empty() {
                out.extend(
                    (0..self.docs.len() as u32)
                        .filter(|&d| allowed(d) && !exact.contains(&d))
                        .map(|d| hit(d, 0.0)),
                );
            }
            out.truncate(limit.max(exact.len()));
            return out;
        }

        let mut scores = vec![0f32; self.docs.len()];
        let mut required = if parsed.required > 0 {
            vec![0u8; self.docs.len()]
        } else {
            Vec::new()
        };
        let mut touched: Vec<u32> = Vec::new();
        if !parsed.missing_required {
            // A document scores the best of each query word's terms (the
            // word, its synonyms, its related words), not their sum: a
            // description that says `create`, `add` and `new` matches
            // "make" once. (Measured on eval/toolsearch: summing instead
            // loses 0.03 success@5.)
            let mut best = vec![0f32; self.docs.len()];
            let mut seen: Vec<u32> = Vec::new();
            let mut groups: Vec<u32> = parsed.terms.iter().map(|t| t.group).collect();
            groups.sort_unstable();
            groups.dedup();
            for g in groups {
                for term in parsed.terms.iter().filter(|t| t.group == g) {
                    for p in &self.postings[term.id as usize] {
                        let d = p.doc as usize;
                        if best[d] == 0.0 {
                            seen.push(p.doc);
                        }
                        best[d] = best[d].max(term.idf * p.weight * term.weight);
                        if term.required {
                            required[d] = required[d].saturating_add(1);
                        }
                    }
                }
                for d in seen.drain(..) {
                    let d = d as usize;
                    if scores[d] == 0.0 {
                        touched.push(d as u32);
                    }
                    scores[d] += best[d];
                    best[d] = 0.0;
                }
            }
        }
        // A boost adds to what other words found, the best of its terms.
        let mut boost = vec![
            0f32;
            if parsed.boosts.is_empty() {
                0
            } else {
                self.docs.len()
            }
        ];
        for term in &parsed.boosts {
            for p in &self.postings[term.id as usize] {
                let d = p.doc as usize;
                if scores[d] > 0.0 {
                    boost[d] = boost[d].max(term.idf * p.weight * term.weight);
                }
            }
        }
        for (score, b) in scores.iter_mut().zip(boost) {
            *score += b;
        }
        if self.scoring.name_penalty > 0.0 {
            // A tool named for more than was asked ("get issue watchers"
            // for "read the Jira ticket") yields to one named for it.
            let mut asked = vec![0u64; self.idf.len().div_ceil(64)];
            for t in parsed.terms.iter().chain(&parsed.boosts) {
                asked[t.id as usize / 64] |= 1 << (t.id % 64);
            }
            for &d in &touched {
                let unasked = self
                    .name_terms
                    .of(d)
                    .iter()
                    .filter(|&&t| asked[t as usize / 64] & (1 << (t % 64)) == 0)
                    .count();
                if unasked > 0 {
                    scores[d as usize] /= 1.0 + self.scoring.name_penalty * unasked as f32;
                }
            }
        }
        #[cfg(feature = "semantic")]
        if fuse && !parsed.missing_required {
            self.fuse_semantic(query, &mut scores, &mut touched);
        }
        let mut ranked: Vec<Hit> = touched
            .into_iter()
            .filter(|&d| {
                allowed(d)
                    && (parsed.required == 0 || required[d as usize] as usize >= parsed.required)
                    && exact.binary_search(&d).is_err()
            })
            .map(|d| hit(d, scores[d as usize]))
            .collect();
        let wanted = limit.saturating_sub(exact.len());
        if ranked.len() > wanted && wanted > 0 {
            ranked.select_nth_unstable_by(wanted - 1, better);
        }
        ranked.truncate(wanted);
        ranked.sort_unstable_by(better);

        let mut first: Vec<Hit> = exact.iter().map(|&d| hit(d, scores[d as usize])).collect();
        first.sort_unstable_by(better);
        first.extend(ranked);
        first
    }

    /// Fuses the cosine similarity of the query's and each tool's
    /// embeddings into `scores`: where positive, the cosine times
    /// [`Scoring::semantic_weight`] and the best BM25F score (so BM25F
    /// scaled to its best, plus the weighted cosine, ranks the same). A
    /// tool it lifts above 0 joins `touched`.
    #[cfg(feature = "semantic")]
    fn fuse_semantic(&self, query: &str, scores: &mut [f32], touched: &mut Vec<u32>) {
        let Some(semantic) = &self.semantic else {
            return;
        };
        let Some(q) = semantic.query(query) else {
            return;
        };
        let best = touched
            .iter()
            .map(|&d| scores[d as usize])
            .fold(0f32, f32::max);
        let scale = self.scoring.semantic_weight * if best > 0.0 { best } else { 1.0 };
        for (d, c) in semantic.cosines(&q).into_iter().enumerate() {
            if c > 0.0 {
                if scores[d] == 0.0 {
                    touched.push(d as u32);
                }
                scores[d] += scale * c;
            }
        }
    }

    /// `select:A,B,…`: the named tools in order, each once.
    /// The tools a lowercase word names: a tool's name as the model sees
    /// it or its own (`mcp__github__create_issue`, `create_issue`), its
    /// server and name (`github:create_issue`, `github/create_issue`), or
    /// either in another case style (`createIssue`, `create-issue`).
    fn named(&self, lower: &str) -> Option<&[u32]> {
        if let Some(docs) = self.exact.get(lower) {
            return Some(docs);
        }
        let docs = match mcp_name(lower) {
            Some(full) => self
                .exact
                .get(&full)
                .or_else(|| self.loose.get(&loose_name(&full))),
            None => self.loose.get(&loose_name(lower)),
        };
        docs.map(Vec::as_slice)
    }

    /// The tools `name` names, as `select:` reads a name: the model's name
    /// or the tool's own, `server:name`, or either in another case style.
    pub fn tools_named(&self, name: &str) -> impl Iterator<Item = &SearchDoc> {
        self.named(&name.to_lowercase())
            .unwrap_or_default()
            .iter()
            .map(|&d| &self.docs[d as usize])
    }

    fn select(&self, names: &str) -> Vec<Hit> {
        let mut out: Vec<Hit> = Vec::new();
        for name in names
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|n| !n.is_empty())
        {
            let Some(docs) = self.named(&name.to_lowercase()) else {
                continue;
            };
            // The model's name wins over another tool's own name.
            let by_tool: Vec<u32> = docs
                .iter()
                .copied()
                .filter(|&d| self.docs[d as usize].tool.eq_ignore_ascii_case(name))
                .collect();
            let chosen = if by_tool.is_empty() { docs } else { &by_tool };
            for &d in chosen {
                if !out.iter().any(|h| h.doc == d as usize) {
                    out.push(hit(d, 0.0));
                }
            }
        }
        out
    }

    /// The catalog's terms for the two parts of `word`, when the catalog
    /// does not have the word but has both parts (each of 3 letters or
    /// more, not stop words): the split with the longest first part.
    fn split_compound(&self, word: &str) -> Option<[u32; 2]> {
        if word.len() < 7 || !word.is_ascii() {
            return None;
        }
        let mut part = String::new();
        let term = |text: &str, part: &mut String| {
            if is_stop_word(text) {
                return None;
            }
            part.clear();
            part.push_str(text);
            self.stemmed_term(part)
        };
        (3..=word.len() - 3).rev().find_map(|at| {
            let (head, tail) = word.split_at(at);
            Some([term(head, &mut part)?, term(tail, &mut part)?])
        })
    }

    /// Whether some tool's text has every search term of `word` (as a
    /// `+word` needs): `false` for a word no tool uses.
    pub fn has_word(&self, word: &str) -> bool {
        let mut buf = String::new();
        let mut all = true;
        for_each_term(word, self.scoring.stem, &mut buf, |t| {
            all &= self.terms.contains_key(t);
        });
        all
    }

    /// The catalog's term for `word`, stemmed in place as the index stems.
    fn stemmed_term(&self, word: &mut String) -> Option<u32> {
        if self.scoring.stem {
            stem(word);
        }
        self.terms.get(word.as_str()).copied()
    }

    /// With `word` (stemmed) after `last`, the previous word: the tool
    /// words of the two as a phrase ("sea level"), as the query's own (two
    /// words in a row are a surer sign than one). `last` becomes `word`.
    /// Adds `words` (those the catalog has) as one more group of the
    /// query at full weight, as a phrase's words are.
    fn add_words(&self, parsed: &mut Parsed, group: &mut u32, words: &[&str]) {
        self.add_words_at(parsed, group, words, 1.0);
    }

    /// Adds `words` as one group, each at `weight`.
    fn add_words_at(&self, parsed: &mut Parsed, group: &mut u32, words: &[&str], weight: f32) {
        *group += 1;
        for word in words {
            if let Some(id) = self.stemmed_term(&mut (*word).to_owned()) {
                parsed.add(QueryTerm {
                    id,
                    required: false,
                    weight,
                    group: *group,
                    idf: self.idf[id as usize],
                });
            }
        }
    }

    /// Adds the words of running a query in SQL (three groups: `sql`,
    /// `query`, `run`/`execute`), which a request for figures of a
    /// database's rows asks for without saying.
    fn add_sql_query(&self, parsed: &mut Parsed, group: &mut u32) {
        self.add_words(parsed, group, &["sql"]);
        self.add_words(parsed, group, &["query"]);
        self.add_words(parsed, group, &["run", "execute"]);
    }

    fn add_phrase(&self, parsed: &mut Parsed, group: &mut u32, phrase: &mut Phrase, word: &str) {
        let Phrase {
            last,
            earlier,
            passed,
            buf,
        } = phrase;
        // A word read past ("cut a", "my tickets") may itself open or
        // close a phrase.
        if let Some(passed) = passed.take() {
            if !last.is_empty() {
                self.add_lexicon_group(parsed, group, two_words(buf, last, passed));
            }
            self.add_lexicon_group(parsed, group, two_words(buf, passed, word));
        }
        if !last.is_empty() {
            self.add_lexicon_group(parsed, group, two_words(buf, last, word));
        }
        if PARTICLES.contains(&word) {
            for verb in earlier.iter() {
                self.add_lexicon_group(parsed, group, two_words(buf, verb, word));
            }
        }
        if !last.is_empty() {
            // At most SEPARATED words, their buffers reused.
            if earlier.len() == SEPARATED {
                earlier.rotate_left(1);
                earlier[SEPARATED - 1].clone_from(last);
            } else {
                earlier.push(last.clone());
            }
        }
        last.clear();
        last.push_str(word);
    }

    /// The words tools use for a user's phrase (`lexicon.rs`), as one
    /// more group of the query at full weight.
    fn add_lexicon_group(&self, parsed: &mut Parsed, group: &mut u32, phrase: &str) {
        if let Some(list) = self.synonyms.get(phrase) {
            *group += 1;
            for &(id, _) in list {
                parsed.add(QueryTerm {
                    id,
                    required: false,
                    weight: 1.0,
                    group: *group,
                    idf: self.idf[id as usize],
                });
            }
        }
    }

    fn parse(&self, query: &str) -> Parsed {
        let mut parsed = Parsed::default();
        let mut word_buf = String::new();
        let words: Vec<&str> = query.split_whitespace().collect();
        let alone = words.len() == 1;
        // Each query word (and the terms it is expanded with) is a group.
        let mut group = 0u32;
        let mut in_quote = false;
        let mut after_name = false;
        let mut neighbour = String::new();
        // The query's previous word, to join with the next.
        let mut previous = String::new();
        // The previous word stemmed, and a phrase of two (`lexicon.rs`).
        let mut phrase = Phrase::default();
        // The last word of the query that was no stop word, and whether a
        // clause of content has begun ("remember that …").
        let mut verb = String::new();
        let mut content = false;
        // Where the last verb of telling was ("remind", "tell").
        let mut told: Option<usize> = None;
        // After "can't", "don't", "not": the verb it negates asks for no
        // tool ("I can't make the meeting" creates nothing).
        let mut negated = false;
        let mut before = String::new();
        // Whether the request names an issue by its key (`ENG-412`).
        let names_an_issue = || words.iter().any(|w| is_issue_key(bare_key(w)));
        // "If 1.8 TB is split across 48 partitions, how many GB each?":
        // a sum put in words.
        // "Run document.querySelectorAll('img').length in the page":
        // JavaScript to run.
        if words.iter().any(|w| is_script(w)) {
            self.add_words(&mut parsed, &mut group, &["javascript"]);
        }
        if is_sum_in_words(&words) || is_spaced_sum(&words) {
            self.add_words(&mut parsed, &mut group, &["calculate"]);
        }
        // "Pull daily signups for the last 30 days from Postgres": figures
        // by the day (hour, month) of a database that runs queries are a
        // query.
        if words.iter().any(|w| is_time_series(&bare_word(w)))
            && words.iter().any(|w| {
                self.servers
                    .get(&bare_word(w))
                    .is_some_and(|&s| self.runs_queries[s as usize])
            })
        {
            self.add_sql_query(&mut parsed, &mut group);
        }
        let reported = reported_speech(&words);
        for (i, &raw) in words.iter().enumerate() {
            // After a colon that follows the ask, what the thing made is
            // to say: "file a bug: CSV export times out" exports nothing.
            // So after a colon that follows whom it is said to, however
            // early: "sms +14155550100: disk full on db1", "slack #ops:
            // rolled back checkout".
            if self.scoring.colon_opens_message
                && i >= 1
                && words[i - 1].ends_with(':')
                && !words[i - 1].contains("://")
                && (i >= 3 || names_a_recipient(words[i - 1]))
                && !opens_an_ask(raw)
            {
                content = true;
            }
            // `+word` requires the word; `+3M` is an amount.
            let (required, raw) = match raw.strip_prefix('+') {
                Some(rest) if rest.starts_with(char::is_alphabetic) => (true, rest),
                _ => (false, raw),
            };
            let trimmed = raw
                .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
            let trimmed = trimmed.trim_end_matches('.');
            // A possessive's or contraction's tail is no word: "Friday's"
            // is `friday`, "what's" `what`, not `s` (which matches `S3`);
            // a negation ("can't", "don't") asks for no tool.
            let trimmed = match trimmed.rsplit_once(['\'', '\u{2019}']) {
                Some((head, tail)) if !head.is_empty() => match tail {
                    "s" | "re" | "ll" | "ve" | "d" | "m" => head,
                    "t" => {
                        negated |= is_auxiliary(&head.to_lowercase());
                        continue;
                    }
                    _ => trimmed,
                },
                _ => trimmed,
            };
            // A path as written ("~/Downloads", "/var/log/"), not the
            // letters `trimmed` keeps.
            let written = as_written(raw).unwrap_or(trimmed);
            // What someone said, and who ("Customer says \"uploads
            // broke\" — roll back web"), is what the ask is about.
            let message = content || reported[i];
            let value = is_value(written, raw, &mut in_quote, after_name) || message;
            if trimmed.is_empty() {
                continue;
            }
            let lower = trimmed.to_lowercase();
            let prior = std::mem::replace(&mut before, lower.clone());
            // "where" but first asks for nothing: "every doc where tier
            // is 'gold'" filters, it does not look for a place.
            if lower == "where" && i > 0 {
                continue;
            }
            // A negation typed without its apostrophe ("dont send it").
            let unmarked = matches!(
                lower.as_str(),
                "cant" | "couldnt" | "didnt" | "doesnt" | "dont" | "shouldnt" | "wont" | "wouldnt"
            );
            if lower == "cannot" || unmarked || (lower == "not" && is_auxiliary(&prior)) {
                negated = true;
                continue;
            }
            if negated && !is_stop_word(&lower) {
                negated = false;
                // "Don't send it yet": written, kept to send later.
                if matches!(lower.as_str(), "send" | "post" | "publish" | "submit") {
                    self.add_words(&mut parsed, &mut group, &["draft"]);
                }
                continue;
            }
            // "Tell the team chat that …": who is told may come between
            // the verb and its `that` ("say yes to that invite" has none:
            // `that` before a noun picks the thing).
            let opens_clause = || {
                words
                    .get(i + 1)
                    .is_some_and(|next| is_stop_word(&bare_word(next)))
            };
            if lower == "that"
                && (TELLING.contains(&verb.as_str())
                    || told.is_some_and(|at| i - at <= TOLD_WITHIN && opens_clause()))
            {
                content = true;
            } else if !is_stop_word(&lower) {
                if TELLING.contains(&lower.as_str()) || SENDING.contains(&lower.as_str()) {
                    told = Some(i);
                }
                verb.clone_from(&lower);
            }
            // The name of a thing a tool works in ("the web-frontend
            // repo", "the users table", "our checkout service") is a
            // value, not what to do.
            let value = value
                || (self.scoring.container_names > 0
                    && !self.servers.contains_key(&lower)
                    && !is_stop_word(&lower)
                    && (self.scoring.container_names > 1
                        || is_identifier(trimmed)
                        || matches!(
                            prior.as_str(),
                            "the" | "our" | "my" | "your" | "their" | "this" | "that"
                        ))
                    && names_a_container(words.get(i + 1)));
            let named = self.named(&lower);
            // A tool's own name (`fs.read`) is no value.
            let value = value && !required && named.is_none();
            after_name = matches!(lower.as_str(), "called" | "named" | "titled");
            // A tool's name put first: an identifier (`create_issue`,
            // `getUser`, `mcp__github__…`) anywhere, or any name alone; a
            // plain word (`search`, `fetch`) in a sentence is a word.
            if (alone || is_identifier(trimmed))
                && let Some(docs) = named
            {
                parsed.exact.extend(docs);
            }
            // A server restricts when named as such (`mcp__github`) or
            // alone; its bare name in a sentence (`time`, `memory`) is a
            // word, which the server field scores.
            // (`mcp__github__`, the prefix of its tools, is the server too.)
            let as_server = if lower.starts_with("mcp__") {
                lower.trim_end_matches('_')
            } else {
                lower.as_str()
            };
            if let Some(&server) = self.servers.get(as_server)
                && (alone || lower.starts_with("mcp__"))
            {
                if !parsed.servers.contains(&server) {
                    parsed.servers.push(server);
                }
                continue;
            }
            // `mcp__X` where X is no server restricts to no tool: only
            // exact names are found (and ToolSearch says which servers
            // there are), not tools that say "mcp" somewhere.
            if lower.starts_with("mcp__") && named.is_none() && tool::mcp_parts(&lower).is_none() {
                parsed.missing_required = true;
                continue;
            }
            let word_weight = if message {
                self.scoring.message_weight
            } else if value {
                self.scoring.value_weight
            } else {
                1.0
            };
            // A path written from a root, on this machine: not under a
            // service's name (`/aws/lambda/orders` is a log group's).
            let local_path = as_written(raw).filter(|path| {
                path.split('/')
                    .find(|part| !part.is_empty() && !matches!(*part, "~" | "." | ".."))
                    .is_none_or(|first| !self.server_words.contains(&first.to_lowercase()))
            });
            // AWS names its services' log groups from `/aws/`
            // (`/aws/lambda/order-sync`, `/aws/ecs/web`).
            if value && as_written(raw).is_some_and(|path| path.starts_with("/aws/")) {
                self.add_words(&mut parsed, &mut group, &["log"]);
                self.add_words(&mut parsed, &mut group, &["group"]);
            }
            // A value's kind a word's letters do not show: a phone
            // number, an HTTP status (`5xx`, `503s`), a pattern
            // (`session:*`), a spreadsheet's cell (`B2`, `A1:C10`),
            // a point's coordinates.
            let shape = shape_of(raw, &words, i);
            if let Some(words_of) = shape {
                self.add_words_at(&mut parsed, &mut group, words_of, self.scoring.value_weight);
                if words_of[0] == "phone"
                    && matches!(prior.as_str(), "to" | "text" | "sms" | "message" | "msg")
                {
                    self.add_words(&mut parsed, &mut group, &["send", "message"]);
                }
                continue;
            }
            let kind = if is_arithmetic(raw) {
                Some("calculate")
            } else if is_channel(raw) {
                Some("channel")
            } else if local_path.is_none() && value_kind(written) == Some("directory") {
                // A path under a service's name is no folder to list.
                None
            } else {
                value_kind(written)
            };
            if value && let Some(kind) = kind {
                // A URL asks for a tool that takes one, a sum ("17.5%",
                // "3*4") one that calculates, and so on.
                if let Some(id) = self.stemmed_term(&mut kind.to_owned()) {
                    parsed.add_group(&mut group, id, word_weight, self.idf[id as usize]);
                }
                // Something sent to an address or a channel ("email a
                // summary to sre@acme.io", "paste it into #inc-5521").
                if (matches!(prior.as_str(), "to" | "into" | "cc")
                    || matches!(
                        prior.as_str(),
                        "email" | "mail" | "e-mail" | "message" | "msg" | "dm" | "ping"
                    ))
                    && matches!(kind, "email" | "channel")
                {
                    self.add_words(&mut parsed, &mut group, &["send", "post"]);
                }
                // An issue's key, the tools whose text shows one.
                if kind == "issue"
                    && let Some(&id) = self.terms.get(TAKES_AN_ISSUE_KEY)
                {
                    parsed.add_group(&mut group, id, word_weight, self.idf[id as usize]);
                }
                // A path from a root, the tools that take a local path.
                if local_path.is_some()
                    && let Some(&id) = self.terms.get(TAKES_A_LOCAL_PATH)
                {
                    parsed.add_group(&mut group, id, word_weight, self.idf[id as usize]);
                }
            }
            // A word in camelCase the catalog has whole (`GitHub`) is that
            // word, not its parts (`git`, `hub`).
            let whole =
                has_case_boundary(trimmed) && self.stemmed_term(&mut lower.clone()).is_some();
            let text = if whole { lower.as_str() } else { trimmed };
            // "Pull" but for "pull request" is to get ("pull up ENG-482",
            // "pull the signups from Postgres"); as a word it still
            // counts a little (`git pull`).
            let text = if !value && !required && asks_to_get(&lower, words.get(i + 1)) {
                if let Some(id) = self.stemmed_term(&mut lower.clone()) {
                    let weight = self.scoring.lexicon_weight * word_weight;
                    parsed.add_group(&mut group, id, weight, self.idf[id as usize]);
                }
                "get"
            } else {
                text
            };
            // A word written with a hyphen the catalog writes as one
            // ("to-do", "e-mail", "sign-in"): that word too.
            if !value
                && text.contains('-')
                && text.split('-').all(|p| p.chars().all(char::is_alphabetic))
            {
                let mut joined = text.replace('-', "").to_lowercase();
                if let Some(id) = self.stemmed_term(&mut joined) {
                    parsed.add_group(&mut group, id, word_weight, self.idf[id as usize]);
                }
            }
            // "Log 3h on PAY-221", "put 45m against OPS-7": time spent on
            // an issue is a worklog.
            let spent = is_duration(&lower)
                || (is_time_unit(&lower) && prior.parse::<f32>().is_ok_and(|n| n > 0.0));
            if spent && names_an_issue() {
                self.add_words(&mut parsed, &mut group, &["worklog"]);
            }
            // "Push my 1:1 to Friday 10am": a meeting moved to another
            // time (no `git push`).
            if !value
                && matches!(lower.as_str(), "push" | "move" | "bump" | "shift" | "slide")
                && !names_an_issue()
                && moved_to_a_time(&words[i + 1..])
            {
                self.add_words(&mut parsed, &mut group, &["reschedule", "update", "event"]);
                continue;
            }
            // "Open https://…/cart", "hit https://…/health": a page to
            // visit or an address to request; the verb is not a tool's
            // own word ("open" is no `open_nodes`).
            if !value && let Some(ask) = visits_an_address(&lower, &words[i + 1..]) {
                self.add_words(&mut parsed, &mut group, ask);
                continue;
            }
            // "Move ENG-412 to In Review", "mark OPS-7 done": an issue's
            // status changes, which trackers call a transition.
            if !value && matches!(lower.as_str(), "move" | "mark") && names_an_issue() {
                self.add_words(&mut parsed, &mut group, &["transition", "status"]);
            }
            // "How many orders … in the orders table", "total up sales by
            // region from the sales table": figures asked of a table a
            // user names are a query in SQL, and the table only where.
            if !value
                && matches!(lower.as_str(), "table" | "tables" | "column" | "columns")
                && (i > 0 && names_a_thing(&bare_word(words[i - 1]))
                    || words.get(i + 1).is_some_and(|n| {
                        matches!(bare_word(n).as_str(), "called" | "named" | "is")
                    }))
                && words.iter().any(|w| asks_for_figures(&bare_word(w)))
            {
                self.add_sql_query(&mut parsed, &mut group);
                continue;
            }
            // A rooted path's folders say where, its last part what:
            // `config` in `/srv/app/config/settings.yaml` asks for no
            // tool of configuration.
            let text = match local_path {
                Some(path) if value && !message => {
                    match path.trim_end_matches('/').rsplit_once('/') {
                        Some((folders, last)) if !last.is_empty() => {
                            let weight = word_weight * FOLDER_WEIGHT;
                            for_each_word(folders, &mut word_buf, |w, buf| {
                                buf.clear();
                                buf.push_str(w);
                                if let Some(id) = self.stemmed_term(buf) {
                                    parsed.add_group(&mut group, id, weight, self.idf[id as usize]);
                                }
                            });
                            last
                        }
                        _ => text,
                    }
                }
                _ => text,
            };
            // A URL's words (`blog`, `lang`, `html` of a post's address)
            // say where, not what to do; its kind (above) says that.
            let word_weight = if value && !message && kind == Some("url") {
                word_weight * URL_WORD_WEIGHT
            } else {
                word_weight
            };
            let mut first_of_raw = true;
            for_each_word(text, &mut word_buf, |w, buf| {
                // Two words the catalog writes as one ("log in", "sign
                // up", "time zone"): the joined word too.
                let first = std::mem::take(&mut first_of_raw);
                if value || required || !first {
                    previous.clear();
                } else if !previous.is_empty() {
                    // Not two stop words: "in it" is no `init`.
                    if !(is_stop_word(&previous) && is_stop_word(w)) {
                        previous.push_str(w);
                        if let Some(id) = self.stemmed_term(&mut previous) {
                            let weight = self.scoring.synonym_weight;
                            parsed.add_group(&mut group, id, weight, self.idf[id as usize]);
                        }
                    }
                    previous.clear();
                }
                if !value && !required {
                    previous.push_str(w);
                }
                // A phrase reads past a pronoun or an article: "save it
                // to" is "save to", "drop the link" "drop link".
                if !required
                    && !value
                    && let Ok(at) = PASSED_OVER.binary_search(&w)
                {
                    phrase.passed.get_or_insert(PASSED_OVER[at]);
                    return;
                }
                if !required && is_stop_word(w) {
                    // A phrase may hold a stop word ("who changed", "eye
                    // on"); a stop word is never a term of its own.
                    if value || !self.scoring.synonyms {
                        phrase.clear();
                    } else {
                        buf.clear();
                        buf.push_str(w);
                        if self.scoring.stem {
                            stem(buf);
                        }
                        self.add_phrase(&mut parsed, &mut group, &mut phrase, buf);
                    }
                    return;
                }
                buf.clear();
                buf.push_str(w);
                let own = self.stemmed_term(buf);
                // Two words a user says for one thing ("sea level"): the
                // words tools use for it, as a word of the query.
                if value || required || !self.scoring.synonyms {
                    phrase.clear();
                } else {
                    self.add_phrase(&mut parsed, &mut group, &mut phrase, buf);
                }
                group += 1;
                match own {
                    Some(id) => parsed.add(QueryTerm {
                        id,
                        required,
                        weight: word_weight,
                        group,
                        idf: self.idf[id as usize],
                    }),
                    None if required => parsed.missing_required = true,
                    None => {
                        // A compound the catalog writes apart
                        // ("geocoordinates", "healthcheck"): its parts.
                        if !value && let Some(parts) = self.split_compound(w) {
                            let weight = word_weight * self.scoring.synonym_weight;
                            for id in parts {
                                parsed.add_group(&mut group, id, weight, self.idf[id as usize]);
                            }
                            return;
                        }
                    }
                }
                if required || value || !self.scoring.synonyms {
                    return;
                }
                // A synonym scores at the rarity of the query's own word
                // when the catalog has it: `find` is rarer in tool
                // descriptions than `search`, but a user who writes
                // `find` means `search` as much (measured: success@5
                // +0.05).
                let own_idf = own.map(|id| self.idf[id as usize]);
                for &(id, weight) in self.synonyms.get(buf.as_str()).into_iter().flatten() {
                    if !parsed.terms.iter().any(|t| t.id == id) {
                        parsed.terms.push(QueryTerm {
                            id,
                            required: false,
                            weight,
                            group,
                            idf: own_idf.unwrap_or(self.idf[id as usize]),
                        });
                    }
                }
                // Then its neighbours in word-vector space; a term that is
                // also a synonym of this word counts at the better weight.
                if self.scoring.neighbour_weight > 0.0 {
                    let key = if related::has(w) { w } else { buf.as_str() };
                    for (n, similarity) in related::neighbours(key) {
                        if similarity < self.scoring.neighbour_floor {
                            break;
                        }
                        neighbour.clear();
                        neighbour.push_str(n);
                        let Some(id) = self.stemmed_term(&mut neighbour) else {
                            continue;
                        };
                        if neighbour == *buf {
                            continue;
                        }
                        let weight = self.scoring.neighbour_weight * similarity;
                        match parsed.terms.iter_mut().find(|t| t.id == id) {
                            Some(t) if t.group == group => t.weight = t.weight.max(weight),
                            Some(_) => {}
                            None => parsed.terms.push(QueryTerm {
                                id,
                                required: false,
                                weight,
                                group,
                                idf: own_idf.unwrap_or(self.idf[id as usize]),
                            }),
                        }
                    }
                }
            });
        }
        // "Who flipped the flag?", "who merged this?": a change's history.
        if asks_who_did(&words) {
            let weight = self.scoring.lexicon_weight;
            self.add_words_at(&mut parsed, &mut group, WHO_DID, weight);
        }
        if self.scoring.question_weight > 0.0 && is_question(query) {
            // Boosts are scored apart from the groups (the best of them).
            for word in QUESTION_ASKS {
                if let Some(id) = self.stemmed_term(&mut (*word).to_owned()) {
                    parsed.boosts.push(QueryTerm {
                        id,
                        required: false,
                        weight: self.scoring.question_weight,
                        group,
                        idf: self.idf[id as usize],
                    });
                }
            }
        }
        parsed.required = parsed.terms.iter().filter(|t| t.required).count();
        parsed
    }
}

/// Whether the next word is a kind of place a tool works in (a repo, a
/// table, a channel): the word before it is that place's name.
fn names_a_container(next: Option<&&str>) -> bool {
    const CONTAINERS: &[&str] = &[
        "bucket",
        "buckets",
        "channel",
        "cluster",
        "collection",
        "database",
        "db",
        "index",
        "namespace",
        "org",
        "organization",
        "project",
        "repo",
        "repos",
        "repository",
        "service",
        "table",
        "workspace",
    ];
    next.is_some_and(|w| CONTAINERS.contains(&bare_word(w).as_str()))
}

/// Whether a word is one of the verbs requests open with ("in project
/// ENG: list the open bugs"): after a colon it is the ask, not a message.
fn opens_an_ask(word: &str) -> bool {
    const VERBS: &[&str] = &[
        "add", "check", "close", "create", "delete", "edit", "fetch", "find", "get", "list",
        "make", "merge", "move", "open", "post", "read", "remove", "run", "search", "send", "set",
        "show", "start", "stop", "update", "write",
    ];
    VERBS.contains(&bare_word(word).as_str())
}

/// A word without what surrounds its letters, lowercase ("Request," →
/// `request`).
fn bare_word(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphabetic())
        .to_lowercase()
}

/// A path as written (`~/Downloads`, `/var/log/`, `./config/app.yaml`),
/// without what surrounds it in a sentence (quotes, brackets, a comma, a
/// full stop); `None` for any other word.
fn as_written(raw: &str) -> Option<&str> {
    let word = bare_path(raw);
    (word.starts_with(['/', '~', '.']) && word.contains('/')).then_some(word)
}

/// A word without what surrounds a path or a file's name in a sentence
/// ("(CONTRIBUTING.md)," → `CONTRIBUTING.md`).
fn bare_path(raw: &str) -> &str {
    raw.trim_matches(|c: char| !(c.is_alphanumeric() || "_-./~".contains(c)))
        .trim_end_matches('.')
}

/// A word without what surrounds an issue key in a sentence ("(ENG-412)," →
/// `ENG-412`).
fn bare_key(word: &str) -> &str {
    word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '-'))
}

/// Whether a word asks to get something whatever its own meaning: "pull"
/// but in "pull request" ("pull up ENG-482", "pull the signups from
/// Postgres"), "show" before "me" or "us" ("show me what's in
/// nginx.conf", which `git show` is not), "open" before a file's path or
/// name ("open CONTRIBUTING.md").
fn asks_to_get(lower: &str, next: Option<&&str>) -> bool {
    match lower {
        "pull" => !before_request(next),
        "show" => next.is_some_and(|n| matches!(bare_word(n).as_str(), "me" | "us")),
        "open" => next.is_some_and(|n| {
            value_kind(bare_path(n)) == Some("file")
                || matches!(
                    bare_word(n).as_str(),
                    "it" | "them"
                        | "the"
                        | "this"
                        | "that"
                        | "those"
                        | "these"
                        | "its"
                        | "my"
                        | "our"
                        | "your"
                        | "his"
                        | "her"
                        | "their"
                )
        }),
        _ => false,
    }
}

/// Whether a word before a thing's kind ("the orders table") can be its
/// name: no stop word nor a word that counts or picks ("each table").
fn names_a_thing(word: &str) -> bool {
    !is_stop_word(word)
        && !matches!(
            word,
            "each" | "every" | "all" | "any" | "which" | "what" | "some" | "many" | "new" | "one"
        )
}

/// Whether a word asks for a figure worked out of rows ("how many",
/// "total", "average").
fn asks_for_figures(word: &str) -> bool {
    matches!(
        word,
        "many" | "count" | "total" | "sum" | "average" | "avg" | "mean" | "median"
    )
}

/// Where a phrase of two words (`lexicon.rs`) stands in a request: the
/// word it may open with, and a word read past since ("cut a", "my
/// tickets": the lexicon has phrases with one).
#[derive(Default)]
struct Phrase {
    last: String,
    /// The words before `last`, nearest last (a verb a particle may
    /// close: "set my changes aside").
    earlier: Vec<String>,
    passed: Option<&'static str>,
    /// Room to put two words together.
    buf: String,
}

impl Phrase {
    fn clear(&mut self) {
        self.last.clear();
        self.passed = None;
    }
}

/// The particles that close a verb a few words after it ("set my
/// changes aside", "roll the deploy back"), stemmed (`asid`) and as
/// written (for [`Scoring::stem`] off).
const PARTICLES: &[&str] = &[
    "asid", "aside", "away", "back", "down", "off", "out", "over", "up",
];
/// How many words may stand between a verb and its particle.
const SEPARATED: usize = 4;

/// `first second`, put in `buf`.
fn two_words<'b>(buf: &'b mut String, first: &str, second: &str) -> &'b str {
    buf.clear();
    buf.push_str(first);
    buf.push(' ');
    buf.push_str(second);
    buf
}

/// Words a phrase reads past (pronouns, articles, possessives), sorted.
const PASSED_OVER: &[&str] = &[
    "a", "an", "her", "him", "his", "it", "its", "me", "my", "our", "the", "their", "them",
    "these", "this", "those", "us", "your",
];

/// Whether the next word of a request is `request` ("pull request").
fn before_request(next: Option<&&str>) -> bool {
    next.map(|w| bare_word(w))
        .is_some_and(|w| w.starts_with("request") || w == "req" || w == "reqs")
}

/// What a question asks a tool to do: look something up.
const QUESTION_ASKS: &[&str] = &["search", "list", "find", "get"];

/// Whether a request is put as a question: it ends with `?` or opens with
/// a question word ("which", "any", "did", "what's").
fn is_question(query: &str) -> bool {
    let first = query
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
        .to_lowercase();
    let first = first.split(['\'', '\u{2019}']).next().unwrap_or_default();
    query.trim_end().ends_with('?')
        || matches!(
            first,
            "which"
                | "what"
                | "who"
                | "whose"
                | "where"
                | "when"
                | "how"
                | "any"
                | "is"
                | "are"
                | "was"
                | "were"
                | "did"
                | "does"
                | "do"
                | "has"
                | "have"
        )
}

/// Whether a word (or a negation's head: `don` of "don't") is a verb that
/// a negation turns against the next verb: "can't make", "do not send";
/// not "isn't staged", where the next word says what a thing is.
fn is_auxiliary(word: &str) -> bool {
    matches!(
        word,
        "can"
            | "could"
            | "did"
            | "didn"
            | "do"
            | "does"
            | "doesn"
            | "don"
            | "must"
            | "should"
            | "shouldn"
            | "won"
            | "would"
            | "wouldn"
            | "couldn"
            | "will"
    )
}

/// Verbs whose `that` opens what is to be said or kept ("remember that
/// Carol prefers email", "tell the team that the deploy is done"): the
/// words after it are a value, not what to do.
const TELLING: &[&str] = &[
    "announce", "comment", "confirm", "explain", "mention", "memorize", "note", "remember",
    "remind", "reply", "say", "tell", "write",
];

/// Verbs of sending a message to someone ("text +1 415 555 0123 that the
/// API is back up", "ping the on-call that …"): their `that` opens what is
/// to be said when it opens a clause. Unlike [`TELLING`], not a `that`
/// right after the verb: "email that file to Bob" sends the file.
const SENDING: &[&str] = &[
    "dm", "email", "inform", "know", "message", "msg", "notify", "ping", "sms", "text", "warn",
];

/// How many words after a verb of telling its `that` may come: who is told
/// stands between ("tell the team in chat that …").
const TOLD_WITHIN: usize = 6;

/// Whether a request asks who did something ("who flipped the dark-mode
/// flag?", "who bumped the estimate on sc-3412"): it opens with `who` and a
/// verb in the past tense.
fn asks_who_did(words: &[&str]) -> bool {
    let [who, verb, ..] = words else {
        return false;
    };
    if bare_word(who) != "who" {
        return false;
    }
    let verb = bare_word(verb);
    verb.ends_with("ed")
        || matches!(
            verb.as_str(),
            "broke"
                | "cut"
                | "did"
                | "gave"
                | "left"
                | "made"
                | "put"
                | "ran"
                | "sent"
                | "set"
                | "shut"
                | "took"
                | "wrote"
        )
}

/// What a request that asks who did something is looking for: the
/// history of changes.
const WHO_DID: &[&str] = &["history", "audit", "activity", "changelog"];

/// The steps of a request that asks for several things in turn ("read the
/// changelog and post it to Slack", "open the page, then take a
/// screenshot"): its parts between `then`, `and`, commas and semicolons.
fn steps(query: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in query.split_whitespace() {
        let bare = word.trim_end_matches([',', ';']);
        // A sentence's end ("What's on my calendar tomorrow? Email it to
        // me"), but an abbreviation's full stop or a value's.
        let bare = match bare.trim_end_matches(['.', '?', '!']) {
            head if head.len() < bare.len()
                && !head.is_empty()
                && value_kind(head).is_none()
                && !head.contains('.')
                && !matches!(head.to_ascii_lowercase().as_str(), "etc" | "vs" | "approx") =>
            {
                head
            }
            _ => bare,
        };
        let lower = bare.to_ascii_lowercase();
        if lower == "then" || lower == "and" {
            if !current.trim().is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(bare);
        if bare.len() < word.len() && !current.trim().is_empty() {
            parts.push(std::mem::take(&mut current));
        }
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    // A part that starts with a value ("read package.json and
    // tsconfig.json", "fetch https://a and https://b") names one more
    // thing for the step before it; one that says when to hear back ("keep
    // an eye on the page and tell me when it changes", "… and let us know
    // once it is done") is that step's condition. Neither is a step.
    let mut i = 1;
    while i < parts.len() {
        let first = parts[i].split_whitespace().next().unwrap_or_default();
        if value_kind(first).is_some()
            || first.starts_with(OPEN_QUOTES)
            || is_report_condition(&parts[i])
        {
            let part = parts.remove(i);
            parts[i - 1].push_str(" and ");
            parts[i - 1].push_str(&part);
        } else {
            i += 1;
        }
    }
    // A part that opens with a preposition ("in mongo crm.accounts, set
    // …") says where or with what the next part is done: no step.
    let mut i = 0;
    while i + 1 < parts.len() {
        let first = parts[i].split_whitespace().next().unwrap_or_default();
        if ADJUNCTS.contains(&first.to_ascii_lowercase().as_str()) {
            let next = parts.remove(i + 1);
            parts[i].push(' ');
            parts[i].push_str(&next);
            // Only the next: "in /srv/edge: stage everything, commit,
            // push" is three steps in one place.
            i += 1;
        } else {
            i += 1;
        }
    }
    // A part of one word ("issues and PRs") is no step of its own, but a
    // verb and what it acts on is ("then restart it", "plot them").
    let words = |p: &str| {
        p.split_whitespace()
            .filter(|w| !is_stop_word(&w.to_ascii_lowercase()))
            .count()
    };
    let acts = |p: &str| {
        let mut ws = p.split_whitespace().map(bare_word);
        ws.next().is_some_and(|verb| !is_stop_word(&verb))
            && p.split_whitespace().count() >= 2
            && ws.all(|w| ACTED_ON.contains(&w.as_str()))
    };
    if parts.iter().any(|p| words(p) < 2 && !acts(p)) {
        return vec![query.to_owned()];
    }
    parts
}

/// Whether `part` asks to hear back when something happens: "tell me
/// when …", "let us know once …", "flag me if …", "ping me as soon as …".
fn is_report_condition(part: &str) -> bool {
    let words: Vec<String> = part.split_whitespace().take(5).map(bare_word).collect();
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or_default();
    if !matches!(
        w(0),
        "tell" | "let" | "flag" | "ping" | "notify" | "alert" | "warn" | "message"
    ) || !matches!(w(1), "me" | "us")
    {
        return false;
    }
    let at = if w(2) == "know" { 3 } else { 2 };
    matches!(w(at), "when" | "whenever" | "once" | "if") || (w(at) == "as" && w(at + 1) == "soon")
}

/// The words that may follow a verb in a step of two words ("restart it",
/// "push everything up").
const ACTED_ON: &[&str] = &[
    "again",
    "all",
    "back",
    "down",
    "everything",
    "it",
    "out",
    "that",
    "them",
    "these",
    "this",
    "those",
    "up",
];

/// The results of a request of several steps: `whole` (the whole
/// request's best), each step's best from `lists` (one list a step, best
/// first), then the steps' other tools by their score over their own
/// step's best, at most `limit`.
fn merge_steps(mut out: Vec<Hit>, lists: &[Vec<Hit>], limit: usize) -> Vec<Hit> {
    let push = |out: &mut Vec<Hit>, hit: &Hit| {
        if !out.iter().any(|h| h.doc == hit.doc) {
            out.push(*hit);
        }
    };
    for best in lists.iter().filter_map(|list| list.first()) {
        push(&mut out, best);
    }
    let mut rest: Vec<(f32, &Hit)> = lists
        .iter()
        .flat_map(|list| {
            let best = list.first().map_or(f32::MIN_POSITIVE, |h| h.score);
            list.iter()
                .skip(1)
                .map(move |hit| (hit.score / best.max(f32::MIN_POSITIVE), hit))
        })
        .collect();
    rest.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, hit) in rest {
        if out.len() >= limit {
            break;
        }
        push(&mut out, hit);
    }
    out.truncate(limit);
    out
}

/// What a URL's words count for, against a value's other words.
const URL_WORD_WEIGHT: f32 = 0.25;

/// How many of the whole request's best tools lead the results of a
/// request of several steps.
const WHOLE_REQUEST_FIRST: usize = 3;

/// The prepositions that open a part of a request saying where, from
/// what or with what the next part is done.
const ADJUNCTS: &[&str] = &[
    "at", "for", "from", "in", "inside", "on", "under", "using", "via", "within",
];

/// The marks that open and close quoted text in a request.
const OPEN_QUOTES: [char; 5] = ['\'', '"', '`', '\u{2018}', '\u{201c}'];
const CLOSE_QUOTES: [char; 5] = ['\'', '"', '`', '\u{2019}', '\u{201d}'];

/// The name the model sees for a tool written as `server:name` or
/// `server/name`: `mcp__server__name`.
fn mcp_name(word: &str) -> Option<String> {
    let (server, name) = word.split_once([':', '/'])?;
    Some(format!("mcp__{server}__{name}"))
}

/// A name with only its letters and digits: `create_issue`,
/// `create-issue` and `createissue` (from `createIssue`) are one.
fn loose_name(lower: &str) -> String {
    lower.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Whether a query word is a value the request passes on rather than a
/// word of what to do: quoted text (`in_quote` carries an open quote to
/// the next words), the word after `called`/`named`/`titled`, a URL, path,
/// e-mail address or file name, a number, or an id (`WEB-55`, `node-3`, a
/// commit hash). A short word with a digit (`k8s`, `s3`, `ec2`) is a word.
fn is_value(word: &str, raw: &str, in_quote: &mut bool, after_name: bool) -> bool {
    let opens = raw.starts_with(OPEN_QUOTES);
    let closes = closes_a_quote(raw);
    let quoted = *in_quote || opens;
    if opens && !closes {
        *in_quote = true;
    } else if *in_quote && closes {
        *in_quote = false;
    }
    let digits = word.chars().any(|c| c.is_ascii_digit());
    quoted
        || after_name
        || is_channel(raw)
        || word.contains(['/', '\\', '@', ':'])
        || (digits
            && (word.chars().all(|c| c.is_ascii_digit())
                || word.contains(['-', '_', '.'])
                || word.len() >= 7))
        || matches!(value_kind(word), Some("file" | "time"))
        || dotted_name(word)
}

/// Whether a word is a chat channel's name as written (`#data-alerts`),
/// not a number (`#88`, a pull request's).
fn is_channel(raw: &str) -> bool {
    raw.strip_prefix('#')
        .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// Whether a word, as written (`ana@acme.io:`), is whom something is sent
/// to: an e-mail address, a phone number, a `#channel` or an `@handle`.
fn names_a_recipient(raw: &str) -> bool {
    let word = raw.trim_end_matches(':');
    value_kind(word) == Some("email")
        || is_phone_number(word)
        || is_channel(word)
        || word
            .strip_prefix('@')
            .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// Whether a word, as written, ends a quotation (before any punctuation
/// that follows it: `broke".`).
fn closes_a_quote(raw: &str) -> bool {
    raw.trim_end_matches(['.', ',', '?', '!', ';', ':'])
        .ends_with(CLOSE_QUOTES)
}

/// A name with a dot inside (`crm.accounts`, `api.example`): a thing's
/// name (a database's collection, a host), not words.
fn dotted_name(word: &str) -> bool {
    word.split_once('.')
        .is_some_and(|(head, tail)| !head.is_empty() && !tail.is_empty())
}

/// The word for the kind of a value, when it is a URL, an e-mail address,
/// a file name or path (`notes.txt`, `src/main.rs`; `directory` for a
/// path written from a root with no extension: `~/Downloads`, `/var/log/`),
/// or an issue's key
/// (`ENG-482`).
fn value_kind(word: &str) -> Option<&'static str> {
    let extension = word.rsplit_once('.').is_some_and(|(name, ext)| {
        !name.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && !ext.chars().all(|c| c.is_ascii_digit())
    });
    if word.contains("://") || word.to_ascii_lowercase().starts_with("www.") {
        Some("url")
    } else if word.contains('@') && word.contains('.') {
        Some("email")
    } else if extension || word.contains('/') {
        if extension {
            Some("file")
        } else if word.starts_with(['/', '~', '.']) || word.ends_with('/') {
            Some("directory")
        } else {
            // `acme/web`, `data/warehouse`: a repository's or project's
            // path more often than a file's.
            None
        }
    } else if is_issue_key(word) {
        Some("issue")
    } else if is_clock_time(word) {
        Some("time")
    } else {
        None
    }
}

/// What a verb asks for when its object is a URL ("open https://…",
/// "go to https://…", "curl https://…/health"): a browser's visit, or a
/// request for what the address returns.
fn visits_an_address(verb: &str, rest: &[&str]) -> Option<&'static [&'static str]> {
    const VISIT: &[&str] = &[
        "browse", "go", "head", "load", "navigate", "open", "reload", "revisit", "visit",
    ];
    const REQUEST: &[&str] = &["call", "curl", "hit", "ping", "poll", "query", "request"];
    let ask: &'static [&'static str] = if VISIT.contains(&verb) {
        &["navigate"]
    } else if REQUEST.contains(&verb) {
        &["fetch"]
    } else {
        return None;
    };
    rest.iter()
        .take(3)
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(c, ',' | '.' | ';' | '(' | ')' | '"' | '\'' | '<' | '>')
            })
        })
        .find(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "to" | "up" | "the" | "this" | "that" | "page" | "site" | "url"
            )
        })
        .filter(|w| value_kind(w) == Some("url"))
        .map(|_| ask)
}

/// Whether the words after a verb of moving put its object at another day
/// or time: "… to Friday 10am", "… to next week", "… to 3pm".
fn moved_to_a_time(rest: &[&str]) -> bool {
    const DAYS: &[&str] = &[
        "friday",
        "monday",
        "saturday",
        "sunday",
        "thursday",
        "today",
        "tomorrow",
        "tuesday",
        "wednesday",
        "next",
        "later",
        "noon",
    ];
    rest.iter()
        .take(8)
        .position(|w| bare_word(w) == "to")
        .and_then(|at| rest.get(at + 1))
        .is_some_and(|next| {
            let word = bare_word(next);
            DAYS.contains(&word.as_str())
                || value_kind(next.trim_end_matches(['.', ',', '?', '!'])) == Some("time")
        })
}

/// Whether a word is a span of time as trackers log it (`3h`, `45m`,
/// `1d`, `90min`).
fn is_duration(word: &str) -> bool {
    let unit = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    unit.len() < word.len()
        && word.starts_with(|c: char| c.is_ascii_digit())
        && matches!(unit, "h" | "m" | "d" | "w" | "hr" | "hrs" | "min" | "mins")
}

/// Whether a word is a unit trackers log time in, after a number: "3
/// hours", "45 min".
fn is_time_unit(word: &str) -> bool {
    matches!(
        word,
        "hr" | "hrs" | "hour" | "hours" | "min" | "mins" | "minute" | "minutes" | "day" | "days"
    )
}

/// The term of the tools whose text shows an issue's key: no word of a
/// text can be it.
const TAKES_AN_ISSUE_KEY: &str = "#issue-key";

/// How much a folder's name in a path counts against the path's last part.
const FOLDER_WEIGHT: f32 = 0.5;

/// The term of the tools that take a path on the machine they run on.
const TAKES_A_LOCAL_PATH: &str = "#local-path";

/// Whether a tool takes a path on the machine it runs on: a parameter
/// named for a path (`path`, `file_path`, `repo_path`), required, or
/// described as a file's, a directory's or a repository's; not one a
/// service's API is called at (`jira_get`'s `path`), nor a tool that also
/// needs a remote repository or project (GitHub's `get_file_contents`).
fn takes_a_local_path(schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(|n| loose_name(&n.to_lowercase()))
                .collect()
        })
        .unwrap_or_default();
    let remote = required.iter().any(|name| {
        matches!(
            name.as_str(),
            "owner" | "repo" | "repository" | "project" | "projectid" | "bucket" | "url"
        )
    });
    !remote
        && properties.iter().any(|(name, property)| {
            let name = loose_name(&name.to_lowercase());
            let described = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_lowercase();
            let says = |words: &[&str]| {
                described
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| words.contains(&w))
            };
            let pathlike = matches!(
                name.as_str(),
                "path" | "paths" | "repopath" | "directory" | "dir" | "folder" | "cwd"
            );
            let file = matches!(
                name.as_str(),
                "filepath" | "filepaths" | "sourcepath" | "targetpath" | "outputpath"
            );
            (pathlike || file)
                && !says(&["api", "endpoint", "url", "group", "namespace"])
                && (required.contains(&name)
                    || pathlike && says(&["file", "files", "directory", "folder", "repository"]))
        })
}

/// Whether a text shows an issue's key (`PROJ-123`), as a tool that takes
/// one does in its parameters' examples.
fn shows_an_issue_key(text: &str) -> bool {
    text.split_whitespace().any(|w| is_issue_key(bare_key(w)))
}

/// Whether a word is an issue tracker's key: a project's capitals, a
/// hyphen and a number (`ENG-482`, `PAY-221`, `DES-88`), but a standard's
/// name (`UTF-8`, `SHA-256`, `ISO-8601`) or a time zone's offset (`UTC-5`).
fn is_issue_key(word: &str) -> bool {
    word.split_once('-').is_some_and(|(project, number)| {
        !matches!(
            project,
            "AES" | "CP" | "GMT" | "ISO" | "MD" | "RFC" | "SHA" | "UTC" | "UTF"
        ) && (2..=10).contains(&project.len())
            && project
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && project.starts_with(|c: char| c.is_ascii_uppercase())
            && !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit())
    })
}

/// By word, whether it tells who said a quotation: a verb of saying
/// ("says", "wrote", "asked") before one, and the clause's words before
/// the verb (who said it). "Finance lead wrote \"the
/// dashboard looks wrong\" — revert dashboard 17" asks nothing of
/// finance; the quotation stays a value, which the ask may refer to
/// ("Analyst asks \"what's in ClickHouse?\" — show me its databases").
fn reported_speech(words: &[&str]) -> Vec<bool> {
    // Not "say", "write": an ask ("write 'maintenance tonight' to motd").
    const SAYING: &[&str] = &[
        "asked",
        "asks",
        "claimed",
        "claims",
        "complained",
        "complains",
        "mentioned",
        "mentions",
        "noticed",
        "notices",
        "reported",
        "reports",
        "said",
        "says",
        "tells",
        "told",
        "wrote",
        "writes",
    ];
    let mut reported = vec![false; words.len()];
    let mut clause = 0;
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let says = i > clause
            && SAYING.contains(&bare_word(word).as_str())
            && words.get(i + 1).is_some_and(|n| n.starts_with(OPEN_QUOTES));
        if says {
            // Past the quotation: its first word may close it too
            // (`"broke"`), but not as the opening mark alone.
            let mut end = i + 1;
            while end < words.len() {
                let w = words[end];
                end += 1;
                if (end > i + 2 || w.len() > 1) && closes_a_quote(w) {
                    break;
                }
            }
            reported[clause..=i].fill(true);
            i = end;
            clause = end;
            continue;
        }
        // Who said it is the words after the last break or "and":
        // "sent an invite and wrote …" says what was sent.
        if word.ends_with(['.', '!', '?', ';', ','])
            || matches!(word, "—" | "–" | "-" | "--" | "and" | "but" | "so" | "then")
        {
            clause = i + 1;
        }
        i += 1;
    }
    reported
}

/// Whether a word asks for figures by a span of time ("daily",
/// "hourly", "monthly").
fn is_time_series(word: &str) -> bool {
    matches!(
        word,
        "hourly" | "daily" | "weekly" | "monthly" | "quarterly" | "yearly"
    )
}

/// Whether a word is a call in JavaScript: `document.querySelector(…)`,
/// `window.scrollTo(0,0)`, `console.log(x)`.
fn is_script(raw: &str) -> bool {
    raw.split_once('(').is_some_and(|(head, _)| {
        let head = head.trim_start_matches(['`', '\'', '"']);
        head.split_once('.').is_some_and(|(object, method)| {
            matches!(
                object,
                "document" | "window" | "console" | "localStorage" | "sessionStorage" | "navigator"
            ) && !method.is_empty()
                && method
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        })
    })
}

/// A sum written with spaces: "what's 1440 * 9 / 16?".
fn is_spaced_sum(words: &[&str]) -> bool {
    let number = |w: &str| {
        let w =
            w.trim_matches(|c: char| matches!(c, '?' | '!' | ',' | ';' | ':' | '(' | ')' | '$'));
        !w.is_empty()
            && w.chars().all(|c| c.is_ascii_digit() || c == '.')
            && w.starts_with(|c: char| c.is_ascii_digit())
    };
    words.windows(3).any(|w| {
        number(w[0])
            && matches!(w[1], "+" | "-" | "*" | "/" | "x" | "×" | "÷" | "^")
            && number(w[2])
    })
}

/// Whether a request puts a sum in words: two amounts or more (`1.8`,
/// `$0.023`, `48`, `3M`) and a word of arithmetic ("split", "per",
/// "plus", "times", "=").
fn is_sum_in_words(words: &[&str]) -> bool {
    const ARITHMETIC: &[&str] = &[
        "divided",
        "math",
        "minus",
        "multiplied",
        "per",
        "plus",
        "split",
        "times",
    ];
    let amount = |w: &&&str| {
        let w = w.trim_end_matches(['?', '!', '.', ',', ';', ':', ')']);
        let w = w.trim_start_matches(['$', '€', '£', '(', '+', '-']);
        let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
        !digits.is_empty()
            && w.len() - digits.len() <= 3
            && digits.starts_with(|c: char| c.is_ascii_digit())
            && digits
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    };
    words.iter().filter(amount).nth(1).is_some()
        && words
            .iter()
            .any(|w| ARITHMETIC.contains(&bare_word(w).as_str()) || *w == "=")
}

/// Whether a word is a time of day (`9am`, `3:30pm`, `14:00`).
fn is_clock_time(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    let digits = lower.trim_end_matches("am").trim_end_matches("pm");
    let meridiem = digits.len() < lower.len();
    let (hours, minutes) = digits.split_once(':').unwrap_or((digits, "00"));
    (meridiem || digits.contains(':'))
        && (1..=2).contains(&hours.len())
        && hours.chars().all(|c| c.is_ascii_digit())
        && minutes.len() == 2
        && minutes.chars().all(|c| c.is_ascii_digit())
}

/// Whether a query word, as written, is arithmetic: digits with an
/// operator or a percent sign (`17.5%`, `3*4`, `2^10`, `(1+2)/3`).
/// A phone number as written: `+14155550123`, `+44-20-7946-0958`,
/// `415-555-0100`, `(415)555-0100`.
fn is_phone_number(raw: &str) -> bool {
    let word = raw.trim_end_matches(['?', '!', '.', ',', ';', ':']);
    let digits = word.chars().filter(char::is_ascii_digit).count();
    let shaped = word
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '(' | ')' | '.'));
    // Not a date (`2026-12-05`, `05-12-2026`): its parts are 2 digits
    // but one of 4.
    let groups: Vec<usize> = word.split('-').map(str::len).collect();
    let date = groups.len() == 3 && groups.iter().filter(|&&n| n == 2).count() == 2;
    shaped
        && !date
        && (7..=15).contains(&digits)
        && (word.starts_with('+') && digits >= 8
            || word.matches('-').count() >= 2
            || word.starts_with('('))
        && !word.contains("--")
}

/// The words of a value whose kind its shape shows (see the caller), as
/// one group.
fn shape_of(raw: &str, words: &[&str], i: usize) -> Option<&'static [&'static str]> {
    let word = raw
        .trim_matches(|c: char| matches!(c, ',' | ';' | '?' | '!' | '(' | ')' | '"' | '\'' | '`'));
    let word = word.strip_suffix('.').unwrap_or(word);
    if is_phone_number(raw) {
        return Some(&["phone"]);
    }
    let lower = word.to_ascii_lowercase();
    // `5xx`, `4xx`, `503s`, `404s`: errors by their HTTP status.
    let status = |w: &str| {
        let w = w.strip_suffix('s').unwrap_or(w);
        w.len() == 3
            && w.starts_with(['4', '5'])
            && (w[1..].chars().all(|c| c.is_ascii_digit())
                && raw.trim_end_matches([',', '.', '?', '!']).ends_with('s')
                || &w[1..] == "xx")
    };
    if status(&lower) {
        return Some(&["error", "status"]);
    }
    // A pattern: `session:*`, `*.log`, `app-*` (not a sum: `3*4`).
    if word.contains('*') && !raw.contains(['(', ')']) && word.chars().any(char::is_alphabetic) {
        return Some(&["pattern", "glob", "wildcard"]);
    }
    // A cell or a range of a spreadsheet (`B2`, `A1:C10`, `Sheet1!A1`),
    // in a request about one.
    let cell = |w: &str| {
        let w = w.rsplit_once('!').map_or(w, |(_, c)| c).trim_matches('$');
        let letters = w.chars().take_while(char::is_ascii_uppercase).count();
        (1..=3).contains(&letters)
            && w.len() > letters
            && w.len() - letters <= 7
            && w[letters..].chars().all(|c| c.is_ascii_digit())
    };
    let about_a_sheet = || {
        words.iter().any(|w| {
            let w = w.to_ascii_lowercase();
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.');
            matches!(
                w,
                "sheet"
                    | "sheets"
                    | "spreadsheet"
                    | "spreadsheets"
                    | "cell"
                    | "cells"
                    | "workbook"
                    | "excel"
                    | "column"
                    | "row"
                    | "tab"
            ) || w.ends_with(".xlsx")
                || w.ends_with(".xls")
                || w.ends_with(".csv")
                || w.ends_with(".ods")
        })
    };
    let range = word
        .split_once(':')
        .is_some_and(|(a, b)| cell(a) && cell(b));
    if range || (cell(word) && about_a_sheet()) {
        return Some(&["cell", "range"]);
    }
    // `37.7749, -122.4194`: a point's latitude and longitude.
    let degrees = |w: &str| {
        let w = w.trim_end_matches([',', ';', ')']).trim_start_matches('(');
        // Three decimals or more (`1.31, 1.32` are versions), within a
        // longitude's range.
        w.split_once('.').is_some_and(|(whole, frac)| {
            frac.len() >= 3
                && whole
                    .trim_start_matches('-')
                    .parse::<u32>()
                    .is_ok_and(|d| d <= 180)
                && frac.chars().all(|c| c.is_ascii_digit())
                && whole.trim_start_matches('-').len() <= 3
                && !whole.trim_start_matches('-').is_empty()
                && whole
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit())
        })
    };
    if degrees(raw)
        && (words.get(i + 1).is_some_and(|n| degrees(n)) || i > 0 && degrees(words[i - 1]))
    {
        return Some(&["coordinates", "latitude", "longitude"]);
    }
    None
}

fn is_arithmetic(raw: &str) -> bool {
    let word = raw.trim_end_matches(['?', '!', '.', ',', ';', ':']);
    let operator = |c: char| matches!(c, '+' | '*' | '/' | '^' | '%' | '=' | '×' | '÷');
    word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(operator)
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '(' | ')') || operator(c))
}

/// By document, the terms of its name that tell it from its server's
/// other tools: a word most of the server's names share (`jira_`,
/// `browser_`) says nothing of what one tool does. Flat: document `d`'s
/// terms are `terms[ends[d - 1]..ends[d]]`.
#[derive(Debug, Default)]
struct NameTerms {
    terms: Vec<u32>,
    ends: Vec<u32>,
}

impl NameTerms {
    /// Adds the next document's name terms, each once.
    fn push(&mut self, name: impl Iterator<Item = u32>) {
        let start = self.terms.len();
        self.terms.extend(name);
        self.terms[start..].sort_unstable();
        let mut kept = start;
        for i in start..self.terms.len() {
            if kept == start || self.terms[i] != self.terms[kept - 1] {
                self.terms[kept] = self.terms[i];
                kept += 1;
            }
        }
        self.terms.truncate(kept);
        self.ends.push(self.terms.len() as u32);
    }

    /// Without the terms that half or more of a server's names share (a
    /// server of four tools or more).
    fn without_shared(self, server_of: &[Option<u32>]) -> Self {
        let mut shared: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut size: FxHashMap<u32, u32> = FxHashMap::default();
        for (d, server) in server_of.iter().enumerate() {
            if let &Some(server) = server {
                *size.entry(server).or_default() += 1;
                for &t in self.of(d as u32) {
                    *shared.entry((server, t)).or_default() += 1;
                }
            }
        }
        let mut out = Self::default();
        for (d, server) in server_of.iter().enumerate() {
            let common =
                |t: u32| server.is_some_and(|s| size[&s] >= 4 && shared[&(s, t)] * 2 >= size[&s]);
            out.push(self.of(d as u32).iter().copied().filter(|&t| !common(t)));
        }
        out
    }

    fn of(&self, doc: u32) -> &[u32] {
        let d = doc as usize;
        let start = if d == 0 { 0 } else { self.ends[d - 1] };
        &self.terms[start as usize..self.ends[d] as usize]
    }
}

/// Each server's tools' names written as identifiers (`search_papers`,
/// `getUser`), lowercase, to find in its tools' descriptions; whether
/// any is in camelCase only (no `_`, `-` to look for).
#[derive(Default)]
struct Siblings {
    names: FxHashSet<String>,
    camel: bool,
}

fn sibling_names(docs: &[SearchDoc]) -> FxHashMap<Option<&str>, Siblings> {
    let mut out: FxHashMap<Option<&str>, Siblings> = FxHashMap::default();
    for doc in docs.iter().filter(|d| is_identifier(&d.name)) {
        let siblings = out.entry(doc.server.as_deref()).or_default();
        siblings.camel |= !doc.name.contains(['_', '-']);
        siblings.names.insert(doc.name.to_lowercase());
    }
    out
}

/// `text` without the names of the other tools of its tool's server: a
/// description's "Workflow: search_papers -> download_paper -> read_paper"
/// or "use get_abstract first" tells what those tools do, not this one.
fn without_siblings<'t>(
    text: &'t str,
    (server, name): (Option<&str>, &str),
    siblings: &FxHashMap<Option<&str>, Siblings>,
) -> std::borrow::Cow<'t, str> {
    let Some(siblings) = siblings.get(&server) else {
        return text.into();
    };
    let part = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-' || *b >= 0x80;
    let bytes = text.as_bytes();
    // Where to look: every token, or (faster) only those with `_` or `-`.
    let at: Box<dyn Iterator<Item = usize>> = if siblings.camel {
        Box::new((0..bytes.len()).filter(move |&i| part(&bytes[i])))
    } else {
        Box::new(memchr::memchr2_iter(b'_', b'-', bytes))
    };
    let mut out: Option<String> = None;
    let mut lower = String::new();
    let mut end = 0;
    for i in at {
        if i < end {
            continue;
        }
        let start = bytes[..i]
            .iter()
            .rposition(|b| !part(b))
            .map_or(0, |p| p + 1);
        end = bytes[i..]
            .iter()
            .position(|b| !part(b))
            .map_or(bytes.len(), |p| i + p);
        let token = text[start..end].trim_matches('-');
        if token.len() < 3 || !is_identifier(token) {
            continue;
        }
        lower.clear();
        lower.extend(token.chars().flat_map(char::to_lowercase));
        if siblings.names.contains(&lower) && !lower.eq_ignore_ascii_case(name) {
            let from = token.as_ptr() as usize - text.as_ptr() as usize;
            out.get_or_insert_with(|| text.to_owned())
                .replace_range(from..from + token.len(), &" ".repeat(token.len()));
        }
    }
    out.map_or(text.into(), Into::into)
}

/// Whether a query word is written as an identifier, not a plain word: it
/// has `_`, `-`, `.`, a digit, or a capital after a lowercase letter.
fn is_identifier(word: &str) -> bool {
    word.contains(['_', '-', '.'])
        || word.chars().any(|c| c.is_ascii_digit())
        || word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// What the semantic ranker embeds of a tool: its server's and its
/// name's words, and its description ("github: add issue comment. Add a
/// comment to an existing issue").
#[cfg(feature = "semantic")]
fn semantic_text(doc: &SearchDoc) -> String {
    let server = doc.server.as_deref().map(words).unwrap_or_default();
    format!(
        "{}: {}. {}",
        server.join(" "),
        words(&doc.name).join(" "),
        doc.description
    )
}

fn hit(doc: u32, score: f32) -> Hit {
    Hit {
        doc: doc as usize,
        score,
    }
}

/// Higher score first, then document order.
fn better(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc))
}

#[derive(Debug, Default)]
struct Parsed {
    terms: Vec<QueryTerm>,
    /// How many of `terms` are required.
    required: usize,
    /// A required word no tool has, or a server (`mcp__X`) the catalog
    /// has not: nothing but exact names can match.
    missing_required: bool,
    servers: Vec<u32>,
    exact: Vec<u32>,
    /// Terms that only add to a tool some other term found: the words of
    /// looking things up, for a question.
    boosts: Vec<QueryTerm>,
}

impl Parsed {
    /// Adds a term of the query's own words; one already there (as another
    /// word's synonym, or with less weight) takes this word's place.
    /// `id` as a group of its own (the next after `group`), not required.
    fn add_group(&mut self, group: &mut u32, id: u32, weight: f32, idf: f32) {
        *group += 1;
        self.add(QueryTerm {
            id,
            required: false,
            weight,
            group: *group,
            idf,
        });
    }

    fn add(&mut self, term: QueryTerm) {
        match self.terms.iter_mut().find(|t| t.id == term.id) {
            Some(t) => {
                t.required |= term.required;
                if t.weight < term.weight {
                    *t = QueryTerm {
                        required: t.required,
                        ..term
                    };
                }
            }
            None => self.terms.push(term),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    id: u32,
    required: bool,
    /// 1 for a word of the query, less for a value's word or a word it was
    /// expanded with.
    weight: f32,
    /// The query word it stands for: a document scores the best term of
    /// each group, not their sum.
    group: u32,
    /// The inverse document frequency it scores at: its own, or for a
    /// synonym the query word's.
    idf: f32,
}

/// A query term (stemmed) to the catalog's terms of its groups in
/// [`SYNONYMS`] (at [`Scoring::synonym_weight`]) and [`RELATED`] (at
/// [`Scoring::related_weight`]); the higher weight where a term is in both.
fn synonym_terms(
    terms: &FxHashMap<Box<str>, u32>,
    scoring: &Scoring,
) -> FxHashMap<Box<str>, Vec<(u32, f32)>> {
    let mut out: FxHashMap<Box<str>, Vec<(u32, f32)>> = FxHashMap::default();
    let stemmed = |w: &str| {
        let mut w = w.to_owned();
        if scoring.stem {
            stem(&mut w);
        }
        w
    };
    for (table, weight) in [
        (SYNONYMS, scoring.synonym_weight),
        (RELATED, scoring.related_weight),
    ] {
        for group in table {
            let members: Vec<String> = group.iter().map(|w| stemmed(w)).collect();
            for m in &members {
                let list = out.entry(m.as_str().into()).or_default();
                for other in members.iter().filter(|o| *o != m) {
                    let Some(&id) = terms.get(other.as_str()) else {
                        continue;
                    };
                    match list.iter_mut().find(|(t, _)| *t == id) {
                        Some(e) => e.1 = e.1.max(weight),
                        None => list.push((id, weight)),
                    }
                }
            }
        }
    }
    // A user's word or phrase to the words tools use for it, one way.
    let lexicon = scoring.lexicon_weight > 0.0;
    let own: &[(&str, &[&str])] = if lexicon { ASKS_FOR } else { &[] };
    let blind: &[(&str, &[&str])] = if lexicon && scoring.blind_lexicon {
        WRITTEN_BLIND
    } else {
        &[]
    };
    let plain: &[(&str, &[&str])] = if lexicon && scoring.blind_lexicon {
        PLAIN_WORDS
    } else {
        &[]
    };
    // Ablation numbers the two blind tables' entries in a row.
    let blind = blind
        .iter()
        .chain(plain)
        .enumerate()
        .filter(|&(n, _)| !left_out_by_ablation(n))
        .map(|(_, entry)| entry);
    let recurring: &[(&str, &[&str])] = if lexicon { RECURRING } else { &[] };
    let second: &[(&str, &[&str])] = if lexicon { SECOND_CATALOG } else { &[] };
    for (key, words) in own.iter().chain(blind).chain(recurring).chain(second) {
        let key = key.split(' ').map(stemmed).collect::<Vec<_>>().join(" ");
        let list = out.entry(key.into()).or_default();
        for w in *words {
            let Some(&id) = terms.get(stemmed(w).as_str()) else {
                continue;
            };
            match list.iter_mut().find(|(t, _)| *t == id) {
                Some(e) => e.1 = e.1.max(scoring.lexicon_weight),
                None => list.push((id, scoring.lexicon_weight)),
            }
        }
    }
    out
}

/// Whether entry `n` of [`WRITTEN_BLIND`] is left out: only ever by the
/// `ablate` run of the tests, which leaves each out in turn.
#[cfg(test)]
fn left_out_by_ablation(n: usize) -> bool {
    eval::SKIP_BLIND.with(|s| s.borrow().contains(&n))
}

#[cfg(not(test))]
fn left_out_by_ablation(_: usize) -> bool {
    false
}

/// Words that carry nothing in a request for a tool, sorted.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "does", "for",
    "from", "have", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "please", "should", "some", "that", "the", "their", "them", "then", "there", "these",
    "this", "to", "tool", "tools", "use", "want", "was", "we", "what", "when", "which", "who",
    "will", "with", "would", "you", "your",
];

fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// Calls `f` with each search term of `text`: its words (see
/// [`for_each_word`]) without stop words, stemmed when `stem`.
fn for_each_term(text: &str, stem_words: bool, buf: &mut String, mut f: impl FnMut(&str)) {
    for_each_word(text, buf, |w, term| {
        if is_stop_word(w) {
            return;
        }
        term.clear();
        term.push_str(w);
        if stem_words {
            stem(term);
        }
        f(term);
    });
}

/// The words of `text`, lowercase, as a list (for tests and tools).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for_each_word(text, &mut buf, |w, _| out.push(w.to_owned()));
    out
}

/// The search terms of `text`: its words without stop words, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for_each_term(text, true, &mut buf, |t| out.push(t.to_owned()));
    out
}

/// Whether `word` is one run of letters that turns case inside, as
/// [`for_each_word`] splits it (`GitHub`, `createIssue`, `HTTPServer`; not
/// `Leave` or `README`).
fn has_case_boundary(word: &str) -> bool {
    let mut found = false;
    for_each_word_and_whole(
        word,
        &mut String::new(),
        |_, _| {},
        |whole| found |= whole.len() == word.len(),
    );
    found
}

/// Calls `f` with each lowercase word of `text`: runs of letters and
/// digits, split again where camelCase turns (`getUserByID` → get, user,
/// by, id; `HTTPServer` → http, server) and between letters and digits.
/// `f` gets a scratch buffer back for its own use.
fn for_each_word(text: &str, buf: &mut String, f: impl FnMut(&str, &mut String)) {
    for_each_word_and_whole(text, buf, f, |_| {});
}

/// As [`for_each_word`], and calls `whole` with each run of letters that
/// was split where its case turns (`GitHub`, `getUser`), as written.
fn for_each_word_and_whole<'t>(
    text: &'t str,
    buf: &mut String,
    mut f: impl FnMut(&str, &mut String),
    mut whole: impl FnMut(&'t str),
) {
    let mut scratch = String::new();
    buf.clear();
    let mut chars = text.char_indices().peekable();
    // The previous character, when it is part of the same run.
    let mut prev: Option<char> = None;
    // The run's start, whether its case turned, whether it is all letters.
    let mut start = 0;
    let mut case_turned = false;
    let mut letters = true;
    while let Some((i, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if !buf.is_empty() {
                f(buf, &mut scratch);
                buf.clear();
            }
            if prev.is_some() && case_turned && letters {
                whole(&text[start..i]);
            }
            prev = None;
            continue;
        }
        match prev {
            None => {
                start = i;
                case_turned = false;
                letters = true;
            }
            Some(prev) => {
                let case = (prev.is_lowercase() && c.is_uppercase())
                    || (prev.is_uppercase()
                        && c.is_uppercase()
                        && chars.peek().is_some_and(|(_, n)| n.is_lowercase()));
                case_turned |= case;
                if (case || prev.is_numeric() != c.is_numeric()) && !buf.is_empty() {
                    f(buf, &mut scratch);
                    buf.clear();
                }
            }
        }
        letters &= c.is_alphabetic();
        if c.is_ascii() {
            buf.push(c.to_ascii_lowercase());
        } else {
            buf.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    if !buf.is_empty() {
        f(buf, &mut scratch);
        buf.clear();
    }
    if prev.is_some() && case_turned && letters {
        whole(&text[start..]);
    }
}

/// A light English suffix stripper, the same on both sides of a match:
/// plurals (`issues` → issue, `entries` → entry), -ing and -ed (with a
/// doubled consonant undone: `running` → run), then a final e, so
/// `create`, `creates`, `created` and `creating` all become `creat`.
/// Words of under four letters, and any with digits or other scripts, are
/// left alone.
pub fn stem(w: &mut String) {
    if w.len() < 4 || !w.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with('s') && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is")) {
        w.pop();
    }
    if w.len() >= 6 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
        undouble(w);
    } else if w.len() >= 5 && w.ends_with("ed") && !w.ends_with("eed") {
        w.truncate(w.len() - 2);
        undouble(w);
    }
    if w.len() >= 4 && w.ends_with('e') {
        w.pop();
    }
}

fn undouble(w: &mut String) {
    let b = w.as_bytes();
    let n = b.len();
    if n >= 3
        && b[n - 1] == b[n - 2]
        && !matches!(
            b[n - 1],
            b'a' | b'e' | b'i' | b'o' | b'u' | b'l' | b's' | b'z'
        )
    {
        w.pop();
    }
}

/// Calls `f(name, text)` for each parameter of a JSON schema: its name and
/// its description (with its enum values and title), then the parameters
/// of an object parameter (or of an array's object items), one level down.
fn for_each_parameter(schema: &Value, depth: usize, f: &mut impl FnMut(&str, &str)) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let mut text = String::new();
    for (name, property) in properties {
        text.clear();
        for key in ["title", "description"] {
            if let Some(s) = property.get(key).and_then(Value::as_str) {
                text.push_str(s);
                text.push(' ');
            }
        }
        if let Some(values) = property.get("enum").and_then(Value::as_array) {
            for v in values.iter().filter_map(Value::as_str) {
                text.push_str(v);
                text.push(' ');
            }
        }
        f(name, &text);
        if depth == 0 {
            for_each_parameter(property, depth + 1, f);
            if let Some(items) = property.get("items") {
                for_each_parameter(items, depth + 1, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn index() -> ToolIndex {
        ToolIndex::new(vec![
            SearchDoc::mcp(
                "github",
                "create_issue",
                "Open a new issue in a GitHub repository.",
                json!({"properties": {"owner": {"description": "repository owner"},
                                      "repo": {"description": "repository name"},
                                      "title": {"description": "the issue's title"}}}),
            ),
            SearchDoc::mcp(
                "github",
                "list_pull_requests",
                "List the pull requests of a repository, newest first.",
                json!({"properties": {"state": {"enum": ["open", "closed"]}}}),
            ),
            SearchDoc::mcp(
                "jira",
                "createTicket",
                "Create a Jira ticket (an issue) in a project.",
                json!({"properties": {"projectKey": {"description": "e.g. PROJ"}}}),
            ),
            SearchDoc::mcp(
                "filesystem",
                "list-files",
                "List the files of a directory.",
                json!({"properties": {"path": {"description": "absolute path"}}}),
            ),
            SearchDoc::mcp(
                "filesystem",
                "fs.read",
                "Read a file's text.",
                json!({"properties": {"path": {"description": "absolute path of the file"}}}),
            ),
            SearchDoc::local(
                "Grep",
                "Search file contents with a regular expression.",
                json!({"properties": {"pattern": {"type": "string"}}}),
            ),
        ])
    }

    /// Prints how TACK_EXPLAIN (a query) is parsed over eval/toolsearch's
    /// catalog (or the catalog file TACK_EXPLAIN_CATALOG), and what each of
    /// its words gives the tools TACK_EXPLAIN_TOOLS (comma-separated model
    /// names) and the top 5.
    #[test]
    #[ignore = "prints a query's parse and scores; not a check"]
    fn explain() {
        let own;
        let index = match std::env::var("TACK_EXPLAIN_CATALOG") {
            Ok(path) => {
                own = ToolIndex::new(
                    crate::tool_search::eval::read_catalog(std::path::Path::new(&path)).unwrap(),
                );
                &own
            }
            Err(_) => real_tools(),
        };
        let query = std::env::var("TACK_EXPLAIN").unwrap_or_default();
        let name: FxHashMap<u32, &str> = index.terms.iter().map(|(k, &v)| (v, &**k)).collect();
        println!("steps: {:?}", steps(&query));
        let parsed = index.parse(&query);
        for t in parsed.terms.iter().chain(&parsed.boosts) {
            println!(
                "  group {:>2} {:<16} weight {:.2} idf {:.2}{}",
                t.group,
                name[&t.id],
                t.weight,
                t.idf,
                if t.required { " required" } else { "" }
            );
        }
        let hits = index.search(&query, 5);
        let mut tools: Vec<u32> = hits.iter().map(|h| h.doc as u32).collect();
        for t in std::env::var("TACK_EXPLAIN_TOOLS")
            .unwrap_or_default()
            .split(',')
        {
            if let Some(d) = index.docs.iter().position(|d| d.tool == t) {
                tools.push(d as u32);
            }
        }
        for d in tools {
            let mut parts = Vec::new();
            for t in &parsed.terms {
                if let Some(p) = index.postings[t.id as usize].iter().find(|p| p.doc == d) {
                    parts.push(format!(
                        "{}={:.2}",
                        name[&t.id],
                        t.idf * p.weight * t.weight
                    ));
                }
            }
            println!("{} [{}]", index.docs[d as usize].tool, parts.join(" "));
        }
    }

    /// Prints, for each multi-step query of TACK_STUDY (a .jsonl set), its
    /// parts and where each labelled step's best tool ranks in each part's
    /// own list and in the whole request's.
    #[test]
    #[ignore = "prints a study of multi-step queries; not a check"]
    fn study_steps() {
        let index = real_tools();
        let set = std::env::var("TACK_STUDY").unwrap_or_default();
        for line in std::fs::read_to_string(set).unwrap().lines() {
            let q: serde_json::Value = serde_json::from_str(line).unwrap();
            if q["kind"] != "multi" {
                continue;
            }
            let query = q["query"].as_str().unwrap();
            let parts = steps(query);
            let rank_in = |hits: &[Hit], step: &serde_json::Value| {
                hits.iter()
                    .position(|h| {
                        let d = index.doc(h.doc);
                        step.as_array().unwrap().iter().any(|t| {
                            t["server"].as_str() == d.server.as_deref()
                                && t["name"].as_str() == Some(d.name.as_str())
                        })
                    })
                    .map_or(0, |r| r + 1)
            };
            let whole = index.search_in(query, None, 50, false);
            let lists: Vec<Vec<Hit>> = parts
                .iter()
                .map(|p| index.search_in(p, Some(query), 50, false))
                .collect();
            let fin = index.search(query, 50);
            println!("{} {}", q["id"], query);
            println!("   parts {parts:?}");
            for step in q["steps"].as_array().unwrap() {
                let per: Vec<usize> = lists.iter().map(|l| rank_in(l, step)).collect();
                println!(
                    "   step final {:>3} whole {:>3} parts {:?}",
                    rank_in(&fin, step),
                    rank_in(&whole, step),
                    per
                );
            }
        }
    }

    /// The first tool for `q` over `index`'s tools ranked with `scoring`.
    fn first_with(index: &ToolIndex, scoring: Scoring, q: &str) -> String {
        let index = ToolIndex::with_scoring(index.docs().to_vec(), scoring);
        names(&index, &index.search(q, 5)).swap_remove(0)
    }

    fn names(index: &ToolIndex, hits: &[Hit]) -> Vec<String> {
        hits.iter().map(|h| index.doc(h.doc).tool.clone()).collect()
    }

    #[test]
    fn names_split_on_separators_case_and_digits() {
        assert_eq!(words("getUserByID"), ["get", "user", "by", "id"]);
        assert_eq!(words("create_issue"), ["create", "issue"]);
        assert_eq!(words("list-files"), ["list", "files"]);
        assert_eq!(words("fs.read"), ["fs", "read"]);
        assert_eq!(words("HTTPServer v2"), ["http", "server", "v", "2"]);
        assert_eq!(
            words("mcp__github__create_issue"),
            ["mcp", "github", "create", "issue"]
        );
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(PASSED_OVER.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn stemming_joins_forms_of_a_word() {
        let s = |w: &str| {
            let mut w = w.to_owned();
            stem(&mut w);
            w
        };
        for (a, b) in [
            ("issues", "issue"),
            ("created", "create"),
            ("creating", "creates"),
            ("entries", "entry"),
            ("running", "run"),
            ("searches", "search"),
            ("addresses", "address"),
        ] {
            assert_eq!(s(a), s(b), "{a} vs {b}");
        }
        assert_eq!(s("status"), "status");
        assert_eq!(s("id"), "id");
        assert_eq!(terms("the Issues"), ["issu"]);
    }

    #[test]
    fn a_plural_finds_the_singular() {
        let index = index();
        let hits = index.search("issues", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__github__create_issue");
    }

    #[test]
    fn keywords_rank_by_fields() {
        let index = index();
        let hits = index.search("read a file", 3);
        assert_eq!(names(&index, &hits)[0], "mcp__filesystem__fs.read");
        let hits = index.search("search file contents regex", 3);
        assert_eq!(names(&index, &hits)[0], "Grep");
        // A parameter's enum value counts.
        let hits = index.search("closed", 3);
        assert_eq!(names(&index, &hits), ["mcp__github__list_pull_requests"]);
    }

    #[test]
    fn an_exact_name_ranks_first() {
        let index = index();
        // `list-files` scores less for "file read" than fs.read, but is named.
        let hits = index.search("read file list-files", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__filesystem__list-files");
        assert_eq!(names(&index, &hits)[1], "mcp__filesystem__fs.read");
        let hits = index.search("mcp__jira__createTicket", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__jira__createTicket");
        let hits = index.search("grep", 1);
        assert_eq!(names(&index, &hits), ["Grep"]);
        // In another case style, or as server and name.
        for q in [
            "list the open pull requests: listPullRequests",
            "list-pull-requests",
            "github:list_pull_requests",
            "run github/list_pull_requests for me",
            "LIST_PULL_REQUESTS",
        ] {
            let hits = index.search(q, 5);
            assert_eq!(
                names(&index, &hits)[0],
                "mcp__github__list_pull_requests",
                "{q}"
            );
        }
        let hits = index.search("create_ticket", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__jira__createTicket");
        for q in ["read file listFiles", "read file filesystem:list-files"] {
            let hits = index.search(q, 5);
            assert_eq!(
                names(&index, &hits)[0],
                "mcp__filesystem__list-files",
                "{q}"
            );
        }
    }

    #[test]
    fn select_returns_exactly_the_named_tools_in_order() {
        let index = index();
        let hits = index.search("select:Grep,nope,create_issue, mcp__filesystem__fs.read", 1);
        assert_eq!(
            names(&index, &hits),
            [
                "Grep",
                "mcp__github__create_issue",
                "mcp__filesystem__fs.read"
            ]
        );
        let hits = index.search(
            "select:jira:createTicket,listPullRequests,filesystem/fs.read",
            1,
        );
        assert_eq!(
            names(&index, &hits),
            [
                "mcp__jira__createTicket",
                "mcp__github__list_pull_requests",
                "mcp__filesystem__fs.read"
            ]
        );
        assert!(index.search("select:", 5).is_empty());
    }

    #[test]
    fn a_plus_word_is_required() {
        let index = index();
        let all = names(&index, &index.search("issue", 5));
        assert!(
            all.contains(&"mcp__jira__createTicket".to_owned()),
            "{all:?}"
        );
        let hits = index.search("issue +jira", 5);
        // `jira` is a server: the restriction keeps Jira's tools only.
        assert_eq!(names(&index, &hits), ["mcp__jira__createTicket"]);
        let hits = index.search("issue +project", 5);
        assert_eq!(names(&index, &hits), ["mcp__jira__createTicket"]);
        assert!(index.search("issue +nowhere", 5).is_empty());
    }

    #[test]
    fn a_server_name_restricts_or_lists() {
        let index = index();
        // `mcp__github` restricts; a bare server name in a sentence ranks
        // that server's tools up without hiding the rest (`time`, `memory`
        // are servers and everyday words).
        let hits = index.search("mcp__github open", 5);
        assert!(
            names(&index, &hits)
                .iter()
                .all(|n| n.starts_with("mcp__github__")),
            "{hits:?}"
        );
        let hits = index.search("github open", 5);
        assert!(
            names(&index, &hits)[0].starts_with("mcp__github__"),
            "{hits:?}"
        );
        let hits = index.search("list mcp__filesystem", 5);
        assert_eq!(names(&index, &hits), ["mcp__filesystem__list-files"]);
        let hits = index.search("filesystem", 5);
        assert_eq!(
            names(&index, &hits),
            ["mcp__filesystem__list-files", "mcp__filesystem__fs.read"]
        );
        // A server the catalog has not restricts to nothing; an exact
        // name is still found.
        assert_eq!(index.search("mcp__gitlab", 5), []);
        assert_eq!(index.search("mcp__gitlab open issue", 5), []);
        assert_eq!(index.search("mcp__", 5), []);
        let hits = index.search("mcp__github__ open", 5);
        assert!(
            !hits.is_empty()
                && names(&index, &hits)
                    .iter()
                    .all(|n| n.starts_with("mcp__github__")),
            "{hits:?}"
        );
        let hits = index.search("mcp__gitlab create_issue", 5);
        assert_eq!(names(&index, &hits), ["mcp__github__create_issue"]);
    }

    #[test]
    fn a_request_of_several_steps_is_searched_step_by_step() {
        assert_eq!(
            steps("open the page, then take a screenshot and save it to a file"),
            ["open the page", "take a screenshot", "save it to a file"]
        );
        // A part of one word is no step: `issues and PRs` is one request.
        assert_eq!(steps("list issues and PRs"), ["list issues and PRs"]);
        // Nor is a part that starts with a value: it names one more thing.
        assert_eq!(
            steps("read package.json and tsconfig.json together, then open an issue"),
            [
                "read package.json and tsconfig.json together",
                "open an issue"
            ]
        );
        assert_eq!(
            steps("fetch https://a.example/x, 'the b page' and summarize both"),
            [
                "fetch https://a.example/x and 'the b page'",
                "summarize both"
            ]
        );
        // Nor is when to hear back: it is the condition of the step before.
        assert_eq!(
            steps("keep an eye on status.acme.io and tell me when the banner changes"),
            ["keep an eye on status.acme.io and tell me when the banner changes"]
        );
        assert_eq!(
            steps("pull the feed, then let us know as soon as an incident opens"),
            ["pull the feed and let us know as soon as an incident opens"]
        );
        // But telling someone something is a step.
        assert_eq!(
            steps("read the changelog and tell the team in Slack"),
            ["read the changelog", "tell the team in Slack"]
        );
        let index = index();
        let hits = index.search("read the file and create an issue", 5);
        let top: Vec<String> = names(&index, &hits).into_iter().take(2).collect();
        assert!(
            top.iter().any(|n| n == "mcp__github__create_issue"),
            "{top:?}"
        );
        assert!(
            top.iter().any(|n| n == "mcp__filesystem__fs.read"),
            "{top:?}"
        );
    }

    #[test]
    fn only_the_first_words_of_a_query_are_read() {
        assert_eq!(first_words("a b  c", 2), "a b  ");
        assert_eq!(first_words(" a b", 5), " a b");
        assert_eq!(first_words("é ü ö", 1), "é ");
        // 3,000 steps, each searched with the whole as context, took
        // minutes; the words past the bound are not read at all.
        let index = index();
        let long = "read the file, then create an issue, ".repeat(3_000);
        let bounded = first_words(&long, MAX_QUERY_WORDS).into_owned();
        assert!(bounded.split_whitespace().count() == MAX_QUERY_WORDS);
        assert_eq!(
            names(&index, &index.search(&long, 5)),
            names(&index, &index.search(&bounded, 5))
        );
        let many_words: String = (0..50_000).map(|i| format!("issue{i} file ")).collect();
        assert_eq!(
            names(&index, &index.search(&many_words, 5)),
            names(
                &index,
                &index.search(&first_words(&many_words, MAX_QUERY_WORDS), 5)
            )
        );
    }

    #[test]
    fn words_the_catalog_writes_apart_or_together_are_found_either_way() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "maps",
                "geocode",
                "Convert an address into geographic coordinates.",
                json!({}),
            ),
            SearchDoc::mcp("maps", "elevation", "The height of a place.", json!({})),
            SearchDoc::mcp("ops", "probe", "Check the health of a service.", json!({})),
            SearchDoc::mcp("chat", "login", "Sign the bot into the server.", json!({})),
            SearchDoc::mcp("chat", "send", "Send a message to a channel.", json!({})),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 1));
        // A compound the catalog has as two words.
        assert_eq!(top("run a healthcheck on the API"), ["mcp__ops__probe"]);
        // Two words the catalog has as one.
        assert_eq!(top("please log in"), ["mcp__chat__login"]);
        // A compound with no known parts, or a value, finds nothing.
        assert!(index.search("xyzzyplugh", 5).is_empty());
        assert!(index.search("'healthcheck'", 5).is_empty());
    }

    #[test]
    fn a_name_in_camel_case_is_one_word() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "github",
                "add_issue_comment",
                "Add a comment to an existing issue.",
                json!({}),
            ),
            SearchDoc::mcp(
                "git",
                "git_notes",
                "Attach a comment to a git commit, as a code hub would.",
                json!({}),
            ),
            SearchDoc::mcp(
                "tracker",
                "list_issues",
                "List the issues of a GitHub repository.",
                json!({}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 1));
        // `GitHub` is the server's name, not `git` and `hub`.
        assert_eq!(
            top("Leave a comment on GitHub issue 12"),
            ["mcp__github__add_issue_comment"]
        );
        // And a description's `GitHub` is found as `github`.
        assert_eq!(top("github repository"), ["mcp__tracker__list_issues"]);
        // A word the catalog does not have whole is still its parts.
        assert_eq!(top("a GitNotes comment"), ["mcp__git__git_notes"]);
    }

    #[test]
    fn a_sibling_tool_named_in_a_description_lends_it_no_words() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "arxiv",
                "list_papers",
                "List the papers stored here. Workflow: search_papers -> download_paper -> \
                 list_papers.",
                json!({"properties": {"id": {"description": "From search_papers."}}}),
            ),
            SearchDoc::mcp("arxiv", "search_papers", "Query arXiv.", json!({})),
            SearchDoc::mcp("arxiv", "download_paper", "Save one as PDF.", json!({})),
            SearchDoc::mcp("web", "search", "Search the web.", json!({})),
            SearchDoc::mcp(
                "notes",
                "keep",
                "Keep a note; see download_paper and search.",
                json!({}),
            ),
        ]);
        let found = |q: &str| names(&index, &index.search(q, 10));
        // `search_papers` and `download_paper` are the siblings' words, in
        // the description and in a parameter's.
        assert_eq!(
            found("download"),
            ["mcp__arxiv__download_paper", "mcp__notes__keep"]
        );
        assert!(!found("search").contains(&"mcp__arxiv__list_papers".to_owned()));
        // Its own name, a plain word that names a tool (`search`), and
        // another server's tool's name are words as before.
        assert_eq!(found("stored list")[0], "mcp__arxiv__list_papers");
        assert!(found("search").contains(&"mcp__notes__keep".to_owned()));
    }

    #[test]
    fn a_tool_named_for_more_than_was_asked_yields() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "atlassian",
                "jira_get_issue",
                "Get details of a specific Jira issue, with its links and comments.",
                json!({}),
            ),
            SearchDoc::mcp(
                "atlassian",
                "jira_get_issue_watchers",
                "Get the watchers of a Jira issue.",
                json!({}),
            ),
            SearchDoc::mcp(
                "atlassian",
                "jira_get_worklog",
                "Get worklog entries.",
                json!({}),
            ),
            SearchDoc::mcp(
                "atlassian",
                "jira_search",
                "Search Jira with JQL.",
                json!({}),
            ),
            SearchDoc::mcp("atlassian", "confluence_get_page", "Get a page.", json!({})),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 1));
        assert_eq!(
            top("Get Jira issue PROJ-1"),
            ["mcp__atlassian__jira_get_issue"]
        );
        // Asked for, the longer name wins.
        assert_eq!(
            top("get the watchers of a Jira issue"),
            ["mcp__atlassian__jira_get_issue_watchers"]
        );
        let plain = ToolIndex::with_scoring(
            index.docs().to_vec(),
            Scoring {
                name_penalty: 0.0,
                ..Scoring::default()
            },
        );
        assert_eq!(
            names(&plain, &plain.search("Get Jira issue PROJ-1", 1)),
            ["mcp__atlassian__jira_get_issue_watchers"]
        );
    }

    #[test]
    fn a_possessive_or_contraction_leaves_no_letter_behind() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp("aws", "s3_list", "List the buckets of S3.", json!({})),
            SearchDoc::mcp(
                "calendar",
                "respond",
                "Respond to a meeting invitation.",
                json!({}),
            ),
        ]);
        // Not `s` (of S3), nor `t`.
        assert!(index.search("what's on Friday's plan", 5).is_empty());
        assert!(index.search("I don't know", 5).is_empty());
        assert_eq!(
            names(&index, &index.search("I can't make Friday's meeting", 5)),
            ["mcp__calendar__respond"]
        );
        // A quote's apostrophe is no contraction.
        assert_eq!(
            names(&index, &index.search("the 's3' buckets", 1)),
            ["mcp__aws__s3_list"]
        );
    }

    #[test]
    fn a_word_finds_its_synonyms() {
        let index = index();
        // No tool says `lookup`; Grep says `search`.
        let hits = index.search("lookup", 5);
        assert_eq!(names(&index, &hits)[0], "Grep");
        // `folder` is `directory`.
        let hits = index.search("files in a folder", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__filesystem__list-files");
        // To book or schedule a thing is to create it.
        let calendar = ToolIndex::new(vec![
            SearchDoc::mcp(
                "cal",
                "list-events",
                "List the events of a calendar.",
                json!({}),
            ),
            SearchDoc::mcp(
                "cal",
                "create-event",
                "Create a new event in a calendar.",
                json!({}),
            ),
            SearchDoc::mcp("cal", "delete-event", "Delete an event.", json!({})),
        ]);
        for q in ["book a call on my calendar", "schedule an event"] {
            let hits = calendar.search(q, 1);
            assert_eq!(names(&calendar, &hits), ["mcp__cal__create-event"], "{q}");
        }
    }

    #[test]
    fn a_users_word_or_phrase_finds_the_words_tools_use() {
        let docs = vec![
            SearchDoc::mcp(
                "maps",
                "maps_elevation",
                "Get the elevation data for locations on the earth.",
                json!({}),
            ),
            SearchDoc::mcp(
                "weather",
                "get_alerts",
                "Get weather alerts for a US state.",
                json!({}),
            ),
            SearchDoc::mcp("fleet", "list_ships", "List the ships at sea.", json!({})),
        ];
        let index = ToolIndex::new(docs.clone());
        // One word: "storm" is weather.
        let hits = index.search("is there a storm coming to Miami", 5);
        assert_eq!(names(&index, &hits), ["mcp__weather__get_alerts"]);
        // Two words: "sea level" is elevation, though "sea" alone is a ship's.
        let hits = index.search("how high above sea level is Denver", 5);
        assert_eq!(
            names(&index, &hits)[0],
            "mcp__maps__maps_elevation",
            "{hits:?}"
        );
        // The phrase only as two words in a row.
        let hits = index.search("the level of the sea", 5);
        assert_eq!(names(&index, &hits), ["mcp__fleet__list_ships"]);
        // Without the lexicon, nothing of the catalog is a storm.
        let off = ToolIndex::with_scoring(
            docs,
            Scoring {
                lexicon_weight: 0.0,
                ..Scoring::default()
            },
        );
        assert!(off.search("storm", 5).is_empty());
    }

    #[test]
    fn a_phrase_reads_past_pronouns_and_articles() {
        let docs = vec![
            SearchDoc::mcp(
                "fs",
                "write_file",
                "Write text to a file.",
                json!({"properties": {"path": {}}}),
            ),
            SearchDoc::mcp("dash", "save_dashboard", "Save a dashboard.", json!({})),
            SearchDoc::mcp(
                "crawl",
                "map_site",
                "Map a website: the URLs under it.",
                json!({"properties": {"url": {}}}),
            ),
            SearchDoc::mcp(
                "crawl",
                "scrape",
                "Scrape one URL.",
                json!({"properties": {"url": {}}}),
            ),
        ];
        let index = ToolIndex::new(docs);
        // "save to" (the lexicon's phrase for writing a file) with "it"
        // between.
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(top("save it to notes/hn.md"), "mcp__fs__write_file");
        assert_eq!(top("save to notes/hn.md"), "mcp__fs__write_file");
        // "list every URL on" a site is a map of it.
        assert_eq!(top("list every URL on example.dev"), "mcp__crawl__map_site");
        // A word that is no stop word still breaks a phrase.
        assert_ne!(top("save dashboards to notes/hn.md"), "mcp__fs__write_file");
    }

    /// A file server's reader and lister.
    fn file_tools() -> Vec<SearchDoc> {
        vec![
            SearchDoc::mcp(
                "fs",
                "read_text_file",
                "Read the complete contents of a file as text.",
                json!({"properties": {"path": {}}}),
            ),
            SearchDoc::mcp(
                "fs",
                "list_directory",
                "List the files and directories in a directory.",
                json!({"properties": {"path": {}}}),
            ),
        ]
    }

    #[test]
    fn how_a_path_or_an_issue_key_is_put_tells_what_it_asks_for() {
        let mut docs = file_tools();
        docs.extend([
            SearchDoc::mcp(
                "git",
                "git_show",
                "Show the contents of a commit.",
                json!({"properties": {"revision": {}}}),
            ),
            SearchDoc::mcp(
                "jira",
                "jira_move_issue",
                "Move an issue to another project.",
                json!({"properties": {"issue_key": {}, "project": {}}}),
            ),
            SearchDoc::mcp(
                "jira",
                "jira_transition_issue",
                "Transition an issue to a new status.",
                json!({"properties": {"issue_key": {}, "transition_id": {}}}),
            ),
        ]);
        let index = ToolIndex::new(docs);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        // A path with no extension is a directory; with one, a file.
        assert_eq!(
            top("what's inside /var/log/nginx?"),
            "mcp__fs__list_directory"
        );
        assert_eq!(top("check ~/Downloads"), "mcp__fs__list_directory");
        assert_eq!(top("check ~/notes.md"), "mcp__fs__read_text_file");
        assert_eq!(
            top("what's in /etc/nginx/nginx.conf?"),
            "mcp__fs__read_text_file"
        );
        // "show me" asks to see, not for `git show`.
        assert_eq!(
            top("show me /etc/nginx/nginx.conf"),
            "mcp__fs__read_text_file"
        );
        assert_eq!(top("show the commit abc1234"), "mcp__git__git_show");
        // Moving an issue to a status is a transition; to a project, a move.
        assert_eq!(
            top("move ENG-412 to In Review"),
            "mcp__jira__jira_transition_issue"
        );
        assert_eq!(
            top("move the issue to project OPS"),
            "mcp__jira__jira_move_issue"
        );
    }

    #[test]
    fn figures_asked_of_a_named_table_are_a_query() {
        let docs = vec![
            SearchDoc::mcp(
                "pg",
                "query",
                "Run a read-only SQL query",
                json!({"properties": {"sql": {}}}),
            ),
            SearchDoc::mcp(
                "ch",
                "list_tables",
                "List the tables in a database, with their row count and column count.",
                json!({"properties": {"database": {}}}),
            ),
            SearchDoc::mcp(
                "mongo",
                "count",
                "Gets the number of documents in a collection",
                json!({"properties": {"collection": {}}}),
            ),
        ];
        let index = ToolIndex::new(docs);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("how many orders did we get yesterday? count them in the orders table"),
            "mcp__pg__query"
        );
        assert_eq!(
            top("How many orders came in today? The table is called orders."),
            "mcp__pg__query"
        );
        // The tables themselves counted, or a table with no name, are no query.
        assert_eq!(top("how many tables are there?"), "mcp__ch__list_tables");
        assert_eq!(top("count the rows of each table"), "mcp__ch__list_tables");
    }

    #[test]
    fn a_file_opened_is_read_and_two_stop_words_are_no_word() {
        let mut docs = file_tools();
        docs.extend([
            SearchDoc::mcp(
                "git",
                "git_init",
                "Initialize a new repository.",
                json!({"properties": {"path": {}}}),
            ),
            SearchDoc::mcp(
                "browser",
                "open_page",
                "Open a new page in the browser.",
                json!({"properties": {"url": {}}}),
            ),
        ]);
        let index = ToolIndex::new(docs);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        // "in it" is not `init`.
        assert_eq!(
            top("tell me what is in it: ~/notes.md"),
            "mcp__fs__read_text_file"
        );
        // A file opened is read; "open" of anything else still opens.
        assert_eq!(top("open ./config/app.yaml"), "mcp__fs__read_text_file");
        assert_eq!(
            top("open CONTRIBUTING.md in /home/dev/lintkit"),
            "mcp__fs__read_text_file"
        );
        assert_eq!(top("open a new page"), "mcp__browser__open_page");
    }

    #[test]
    fn a_values_shape_says_what_kind_of_value_it_is() {
        let tool = |server: &str, name: &str, description: &str, param: &str| {
            SearchDoc::mcp(
                server,
                name,
                description,
                json!({"properties": {param: {"description": description}}}),
            )
        };
        let docs = vec![
            tool(
                "sms",
                "send_message",
                "Send a message to a phone number.",
                "to",
            ),
            tool(
                "calc",
                "calculate",
                "Calculate the value of an expression.",
                "expression",
            ),
            tool(
                "web",
                "network_errors",
                "List failed requests by HTTP error status.",
                "status",
            ),
            tool(
                "web",
                "network_requests",
                "List the page's requests.",
                "filter",
            ),
            tool(
                "kv",
                "scan_keys",
                "Scan keys matching a glob pattern.",
                "pattern",
            ),
            tool("kv", "get", "Get the value of a key.", "key"),
            tool(
                "sheet",
                "write_range",
                "Write values to a cell range of a sheet.",
                "range",
            ),
            tool(
                "sheet",
                "list_sheets",
                "List the sheets of a workbook.",
                "workbook",
            ),
            tool(
                "maps",
                "reverse_geocode",
                "Find the address at latitude and longitude coordinates.",
                "point",
            ),
            tool("maps", "search_address", "Find a street address.", "query"),
            tool("mail", "send_email", "Send an email.", "to"),
            tool("mail", "read_email", "Read an email by its id.", "id"),
            tool("mail", "search_emails", "Search emails.", "query"),
            tool("mail", "create_draft", "Create an email draft.", "to"),
        ];
        let index = ToolIndex::new(docs);
        let top = |q: &str| {
            names(&index, &index.search(q, 5))
                .first()
                .cloned()
                .unwrap_or_default()
        };
        let mut wrong = Vec::new();
        for (query, want, first) in [
            // A phone number is no sum (`+1…` had asked to calculate).
            (
                "text +14155550123 that the deploy is done",
                "mcp__sms__send_message",
                true,
            ),
            (
                "message 415-555-0100 about it",
                "mcp__sms__send_message",
                true,
            ),
            ("what is 2340*0.175", "mcp__calc__calculate", true),
            // An HTTP status, as errors.
            ("503s on the page", "mcp__web__network_errors", true),
            ("any 5xx on the page?", "mcp__web__network_errors", true),
            // A pattern; `count(*)` is SQL, no pattern.
            (
                "what keys are under session:* here",
                "mcp__kv__scan_keys",
                true,
            ),
            ("SELECT count(*) FROM orders", "mcp__kv__scan_keys", false),
            // A cell or a range; a letter and a digit elsewhere are a name.
            (
                "put 42 into B2 of /reports/daily.xlsx",
                "mcp__sheet__write_range",
                true,
            ),
            ("fill A1:C10 with zeros", "mcp__sheet__write_range", true),
            ("put 42 into S3", "mcp__sheet__write_range", false),
            (
                "what is at -122.4194, 37.7749",
                "mcp__maps__reverse_geocode",
                true,
            ),
            // A date is no phone number; versions are no coordinates.
            ("on 2026-12-05", "mcp__sms__send_message", false),
            ("what is at 1.31, 1.32", "mcp__maps__reverse_geocode", false),
            // "open" of a thing already there reads it.
            (
                "find the invoice email and open it",
                "mcp__mail__read_email",
                true,
            ),
        ] {
            if (top(query) == want) != first {
                wrong.push((query, top(query)));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn a_phrase_may_hold_a_word_passed_over_and_time_on_an_issue_is_a_worklog() {
        let docs = vec![
            SearchDoc::mcp(
                "git",
                "create_branch",
                "Create a new branch.",
                json!({"properties": {"name": {}}}),
            ),
            SearchDoc::mcp(
                "git",
                "cut_file",
                "Cut lines out of a file.",
                json!({"properties": {"path": {}}}),
            ),
            SearchDoc::mcp(
                "jira",
                "jira_add_worklog",
                "Add a worklog entry to an issue.",
                json!({"properties": {"issue_key": {}, "time_spent": {}}}),
            ),
            SearchDoc::mcp(
                "k8s",
                "kubectl_logs",
                "Get the logs of a pod.",
                json!({"properties": {"pod": {}}}),
            ),
        ];
        let index = ToolIndex::new(docs);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        // The lexicon's "cut a" (a release, a branch) holds a word a
        // phrase reads past.
        assert_eq!(top("cut a new one"), "mcp__git__create_branch");
        assert_eq!(
            top("log 45m against INFRA-881"),
            "mcp__jira__jira_add_worklog"
        );
        assert_eq!(
            top("log 3 hours on INFRA-881 for the review"),
            "mcp__jira__jira_add_worklog"
        );
        assert_eq!(top("logs of the INFRA pod"), "mcp__k8s__kubectl_logs");
        assert!(is_duration("3h") && is_duration("90min") && is_duration("1.5h"));
        assert!(!is_duration("h2") && !is_duration("3") && !is_duration("3hours"));
    }

    #[test]
    fn a_sum_in_words_is_calculated_and_who_said_a_quotation_is_no_ask() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "calculator",
                "calculate",
                "Calculates the result of a mathematical expression.",
                json!({"properties": {"expression": {}}}),
            ),
            SearchDoc::mcp(
                "mongodb",
                "find",
                "Finds the documents of a collection that match a filter.",
                json!({"properties": {"collection": {}}}),
            ),
            SearchDoc::mcp(
                "crm",
                "list_customers",
                "List the customers of the workspace and what each says about the product.",
                json!({"properties": {}}),
            ),
            SearchDoc::mcp(
                "kubernetes",
                "kubectl_rollout",
                "Manage a deployment's rollout: status, history, undo to the previous revision.",
                json!({"properties": {"action": {}, "deployment": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5)).first().cloned();
        let calculate = Some("mcp__calculator__calculate".to_owned());
        assert_eq!(
            top("If 1.8 TB is split evenly across 48 partitions, how many GB does each one get?"),
            calculate
        );
        assert_eq!(
            top("we store 18.5 TB at $0.023 per GB, what is that a month?"),
            calculate
        );
        // One amount is no sum.
        assert_ne!(top("count the partitions split across 48 nodes"), calculate);
        // `+3M` is an amount, not a word required of every tool.
        assert!(top("find how ARR went from 10M: +3M new, -1.5M churn").is_some());
        // Who said it asks nothing; what was said stays a value.
        assert_eq!(
            top("Customer says \"uploads broke\" — roll back the web deployment"),
            Some("mcp__kubernetes__kubectl_rollout".to_owned())
        );
        let said = reported_speech(&["Finance", "lead", "wrote", "\"the", "board\"", "—", "undo"]);
        assert_eq!(said, [true, true, true, false, false, false, false]);
        // An ask to write something is no one's saying.
        let ask = ["write", "'maintenance", "tonight'", "to", "/srv/motd"];
        assert!(!reported_speech(&ask).contains(&true));
        // Who said it is named in the verb's clause ("sent an invite and
        // wrote …" names no one after "and").
        let ask = ["sent", "an", "invite", "and", "wrote", "\"confirm\""];
        assert!(!reported_speech(&ask).contains(&true));
    }

    #[test]
    fn figures_by_the_day_of_a_database_are_a_query() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "postgres",
                "query",
                "Run a read-only SQL query.",
                json!({"properties": {"sql": {}}}),
            ),
            SearchDoc::mcp(
                "postgres",
                "pg_monitor_database",
                "Monitor the database: connections, locks, the signups of new roles.",
                json!({"properties": {"database": {}}}),
            ),
            SearchDoc::mcp(
                "weather",
                "get_forecast",
                "Daily forecast for the last and next days.",
                json!({"properties": {"days": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("pull daily signups for the last 30 days out of the postgres db"),
            "mcp__postgres__query"
        );
        // Without a database that runs queries, "daily" is a word.
        assert_eq!(
            top("pull the daily numbers for the last days"),
            "mcp__weather__get_forecast"
        );
        assert!(index.runs_queries.iter().filter(|&&q| q).count() == 1);
    }

    #[test]
    fn back_the_way_it_was_is_a_revert() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "metabase",
                "revert_dashboard",
                "Revert a dashboard to a previous revision.",
                json!({"properties": {"dashboard_id": {}, "revision_id": {}}}),
            ),
            SearchDoc::mcp(
                "metabase",
                "update_dashboard",
                "Update a dashboard's name, layout and cards.",
                json!({"properties": {"dashboard_id": {}, "cards": {}}}),
            ),
            SearchDoc::mcp(
                "gmail",
                "download_attachment",
                "Download an email's attachment to a folder.",
                json!({"properties": {"message_id": {}, "save_path": {}}}),
            ),
            SearchDoc::mcp(
                "fs",
                "write_file",
                "Save text to a file.",
                json!({"properties": {"path": {}, "content": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        let revert = "mcp__metabase__revert_dashboard";
        assert_eq!(top("put dashboard 17 back the way it was before"), revert);
        assert_eq!(top("the dashboard layout broke, put it back"), revert);
        assert_eq!(top("take the dashboard to the version before"), revert);
        assert_eq!(
            top("save the attached pdf to ~/Documents"),
            "mcp__gmail__download_attachment"
        );
    }

    #[test]
    fn the_top_result_is_a_page_to_fetch() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "web",
                "web_search",
                "Search the web and return the top results: their titles and links.",
                json!({"properties": {"query": {}}}),
            ),
            SearchDoc::mcp(
                "fetch",
                "fetch",
                "Fetch a URL and return its content as markdown.",
                json!({"properties": {"url": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(top("then the top result"), "mcp__fetch__fetch");
    }

    #[test]
    fn an_issue_key_finds_the_tools_that_take_one() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "github",
                "search_issues",
                "Search issues and pull requests across repositories.",
                json!({"properties": {"q": {"description": "search query"}}}),
            ),
            SearchDoc::mcp(
                "github",
                "get_issue",
                "Get the details of an issue in a repository.",
                json!({"properties": {"issue_number": {"description": "the issue's number"}}}),
            ),
            SearchDoc::mcp(
                "jira",
                "jira_get_issue",
                "Get the details of a Jira issue.",
                json!({"properties": {"issue_key": {"description": "Jira issue key (e.g. 'PROJ-123')"}}}),
            ),
            SearchDoc::mcp(
                "confluence",
                "confluence_create_page",
                "Create a page; the content is read as UTF-8 text.",
                json!({"properties": {"content": {"description": "UTF-8 text of the page"}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        // A key (`ENG-412`) is what a tool taking `PROJ-123` takes, not
        // an issue number of GitHub's.
        assert_eq!(top("what's ENG-412 about?"), "mcp__jira__jira_get_issue");
        assert_eq!(top("pull details for OPS-77"), "mcp__jira__jira_get_issue");
        // A standard's name is no key, in a tool's text or a request.
        assert!(!is_issue_key("UTF-8") && !is_issue_key("SHA-256") && !is_issue_key("UTC-5"));
        assert!(is_issue_key("ENG-412") && is_issue_key("ACV2-642"));
        let takes = index.terms[TAKES_AN_ISSUE_KEY];
        let docs: Vec<u32> = index.postings[takes as usize]
            .iter()
            .map(|p| p.doc)
            .collect();
        assert_eq!(docs, [2]);
    }

    #[test]
    fn a_path_on_this_machine_finds_the_tools_that_take_one() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "circleci",
                "config_helper",
                "Validate a CircleCI config and explain what is wrong with it.",
                json!({"properties": {"configFile": {"description": "the config's text"}}}),
            ),
            SearchDoc::mcp(
                "github",
                "get_file_contents",
                "Get the contents of a file or directory from a GitHub repository.",
                json!({"properties": {"owner": {}, "repo": {}, "path": {}},
                       "required": ["owner", "repo", "path"]}),
            ),
            SearchDoc::mcp(
                "filesystem",
                "read_text_file",
                "Read the complete contents of a file from the file system as text.",
                json!({"properties": {"path": {}}, "required": ["path"]}),
            ),
            SearchDoc::mcp(
                "jira",
                "jira_get",
                "Call the Jira REST API with GET.",
                json!({"properties": {"path": {"description": "API path, e.g. /rest/api/3/myself"}},
                       "required": ["path"]}),
            ),
            SearchDoc::mcp(
                "aws-cloudwatch",
                "analyze_log_group",
                "Look for anomalies and error patterns in a CloudWatch log group.",
                json!({"properties": {"log_group_name": {}}, "required": ["log_group_name"]}),
            ),
        ]);
        // Only the tool that reads this machine's files takes a local
        // path: not an API's path, nor a file of a remote repository.
        let local = index.terms[TAKES_A_LOCAL_PATH];
        let docs: Vec<u32> = index.postings[local as usize]
            .iter()
            .map(|p| p.doc)
            .collect();
        assert_eq!(docs, [2]);
        // A folder's name (`config`) says where, not what to do.
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("show me what's in /srv/app/config/settings.yaml"),
            "mcp__filesystem__read_text_file"
        );
        // A path under a service's name is the service's.
        let asks_local = |q: &str| index.parse(q).terms.iter().any(|t| t.id == local);
        assert!(asks_local("show me ~/notes/todo.md"));
        assert!(!asks_local(
            "anything unusual in the /aws/lambda/orders logs?"
        ));
        assert_eq!(
            top("anything unusual in the /aws/lambda/orders logs?"),
            "mcp__aws-cloudwatch__analyze_log_group"
        );
    }

    #[test]
    fn a_channel_is_a_value_and_a_sentence_a_step() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "slack",
                "slack_post_message",
                "Post a new message to a Slack channel.",
                json!({"properties": {"channel_id": {}, "text": {}}}),
            ),
            SearchDoc::mcp(
                "weather",
                "get_alerts",
                "Get the weather alerts of a US state.",
                json!({"properties": {"state": {}}}),
            ),
        ]);
        // `#weather-alerts` names a channel: no words of what to do.
        let top = names(
            &index,
            &index.search("send the summary to #weather-alerts", 5),
        );
        assert_eq!(top[0], "mcp__slack__slack_post_message");
        assert!(is_channel("#data-alerts") && !is_channel("#88") && !is_channel("#"));
        // A sentence's end parts the steps; an abbreviation's or a
        // value's full stop does not.
        assert_eq!(
            steps("What's on my calendar tomorrow? Email the rundown to me@acme.io"),
            [
                "What's on my calendar tomorrow",
                "Email the rundown to me@acme.io"
            ]
        );
        assert_eq!(steps("read notes.txt. etc. and more words here").len(), 2);
        assert_eq!(steps("open the docs at acme.io/start.").len(), 1);
    }

    #[test]
    fn steps_share_the_top_five_by_how_close_each_comes_to_its_best() {
        let hit = |doc, score| Hit { doc, score };
        // Step one's best stands alone (10 against 2); step two's
        // runner-up is as good as its best (9 against 9.5): it takes the
        // last slot, though step one's runner-up comes first in rank.
        let lists = [
            vec![hit(0, 10.0), hit(1, 2.0), hit(2, 1.9)],
            vec![hit(3, 9.5), hit(4, 9.0), hit(5, 1.0)],
        ];
        let docs = |hits: Vec<Hit>| hits.iter().map(|h| h.doc).collect::<Vec<_>>();
        assert_eq!(
            docs(merge_steps(vec![hit(6, 5.0)], &lists, 4)),
            [6, 0, 3, 4]
        );
        // The whole request's best lead; a tool is listed once.
        assert_eq!(
            docs(merge_steps(vec![hit(3, 5.0), hit(0, 4.0)], &lists, 5)),
            [3, 0, 4, 1, 2]
        );
        // A verb and what it acts on is a step; a lone noun is not.
        assert_eq!(
            steps("check the checkout logs in the cluster, then restart it"),
            ["check the checkout logs in the cluster", "restart it"]
        );
        assert_eq!(steps("list the open issues and PRs").len(), 1);
        // A place said first belongs to the next step only.
        assert_eq!(
            steps(
                "in ~/code/edge, stage everything, commit it as 'fix jitter', then push to origin"
            ),
            [
                "in ~/code/edge stage everything",
                "commit it as 'fix jitter'",
                "push to origin"
            ]
        );
    }

    /// The index of eval/toolsearch's catalog: 1,165 real tools.
    fn real_tools() -> &'static ToolIndex {
        static INDEX: std::sync::OnceLock<ToolIndex> = std::sync::OnceLock::new();
        INDEX.get_or_init(|| {
            let dir =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/toolsearch");
            ToolIndex::new(
                crate::tool_search::eval::read_catalog(&dir.join("catalog.json")).unwrap(),
            )
        })
    }

    /// Where `tool` ranks for `query` over [`real_tools`] (1 is first).
    fn rank_of(query: &str, tool: &str) -> Option<usize> {
        let index = real_tools();
        names(index, &index.search(query, 20))
            .iter()
            .position(|t| t == tool)
            .map(|r| r + 1)
    }

    #[test]
    fn what_a_request_names_tells_what_to_do() {
        // An address or a channel something goes to: sending.
        assert_eq!(
            rank_of(
                "email a short summary to ops@example.org",
                "mcp__gmail__send_email"
            ),
            Some(1)
        );
        assert!(
            rank_of(
                "paste the error into #deploys",
                "mcp__slack__slack_post_message"
            )
            .is_some_and(|r| r <= 2)
        );
        // A sum written with spaces.
        assert_eq!(
            rank_of(
                "the card is 360 wide, what's 360 * 4 / 3",
                "mcp__calculator__calculate"
            ),
            Some(1)
        );
        // A call in JavaScript: code to run on the page.
        assert!(
            rank_of(
                "count the broken links with document.querySelectorAll('a').length",
                "mcp__playwright__browser_evaluate"
            )
            .is_some_and(|r| r <= 3)
        );
        assert!(is_script("document.querySelector('#x').click()") && !is_script("fix(parser)"));
        // A meeting moved to another time; an issue moved on is a
        // transition.
        assert!(
            rank_of(
                "push my 1:1 with dana to thursday 3pm",
                "mcp__google-calendar__update-event"
            )
            .is_some_and(|r| r <= 3)
        );
        assert!(moved_to_a_time(&["it", "to", "Friday"]) && !moved_to_a_time(&["to", "main"]));
        // A verb's particle a few words after it.
        assert!(
            rank_of(
                "set my unfinished changes aside",
                "mcp__git-cyanheads__git_stash"
            )
            .is_some_and(|r| r <= 3)
        );
        // A negated send keeps a draft, with or without its apostrophe.
        assert!(
            rank_of(
                "reply to ana@acme.io about the renewal but dont send it yet",
                "mcp__gmail__draft_email"
            )
            .is_some_and(|r| r <= 3)
        );
        // A URL's words say where, not what.
        assert!(
            rank_of(
                "read https://news.example.org/blog/search/issues.html for me",
                "mcp__fetch__fetch"
            )
            .is_some_and(|r| r <= 4)
        );
    }

    #[test]
    fn an_address_opened_is_visited_and_one_hit_is_fetched() {
        let navigates = |q: &str| {
            names(real_tools(), &real_tools().search(q, 5))
                .iter()
                .any(|t| t.ends_with("navigate"))
        };
        // Not `open_nodes` (memory) or `playwright_post` for "open" or
        // "load", nor a step lost for it.
        assert_eq!(
            rank_of(
                "open https://shop.example.com/basket",
                "mcp__playwright__browser_navigate"
            ),
            Some(1)
        );
        assert!(navigates(
            "load https://shop.example.com/signup, then read the console errors"
        ));
        assert!(navigates(
            "go to https://docs.example.org and take a screenshot"
        ));
        assert!(
            rank_of(
                "hit https://api.example.com/healthz and tell me what it says",
                "mcp__fetch__fetch"
            )
            .is_some_and(|r| r <= 5)
        );
        // Only a URL makes the verb a visit.
        assert_eq!(visits_an_address("open", &["the", "PR"]), None);
        assert_eq!(
            visits_an_address("curl", &["https://a.example/x"]),
            Some(&["fetch"][..])
        );
        // A path under `/aws/` is a log group, not a folder.
        let top = names(
            real_tools(),
            &real_tools().search("grep ERROR in /aws/lambda/billing-sync since 9am", 5),
        );
        assert!(top[0].starts_with("mcp__aws-cloudwatch__"), "{top:?}");
        assert!(!top.iter().any(|t| t.contains("file")), "{top:?}");
    }

    #[test]
    fn who_is_told_may_stand_between_the_verb_and_what_is_said() {
        let slack = SearchDoc::mcp(
            "slack",
            "slack_post_message",
            "Post a new message to a Slack channel.",
            json!({"properties": {"channel_id": {}, "text": {}}}),
        );
        let index = ToolIndex::new(vec![
            slack.clone(),
            SearchDoc::mcp(
                "linear",
                "linear_createRelease",
                "Create a release in Linear.",
                json!({"properties": {"name": {}, "version": {}}}),
            ),
            SearchDoc::mcp(
                "calendar",
                "respond_to_event",
                "Accept or decline an event's invitation.",
                json!({"properties": {"event_id": {}, "response": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("tell the team channel that the new release is out"),
            "mcp__slack__slack_post_message"
        );
        // Up to six words between: what is said does not ask for a
        // team's release.
        let index = ToolIndex::new(vec![
            slack,
            SearchDoc::mcp(
                "linear",
                "linear_createRelease",
                "Create a new release for a team, out in Linear.",
                json!({"properties": {"team": {}, "name": {}, "version": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("tell the team in eng chat that the new release is out"),
            "mcp__slack__slack_post_message"
        );
    }

    #[test]
    fn a_message_sent_to_someone_is_what_is_said() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "twilio",
                "create_message",
                "Send an SMS message to a phone number.",
                json!({"properties": {"to": {}, "body": {}}}),
            ),
            SearchDoc::mcp(
                "linear",
                "linear_createRelease",
                "Create a new release in Linear.",
                json!({"properties": {"name": {}, "version": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        assert_eq!(
            top("text Dana that the new release is created"),
            "mcp__twilio__create_message"
        );
        // So are the words after a colon after whom it is sent to, however
        // early the colon comes (over the real catalog: without the rule
        // the calendar's tools took the top four, and Slack's post was not
        // among them).
        let real = real_tools();
        let top3 = |q: &str| names(real, &real.search(q, 3));
        let found = top3("text +14155550100: the calendar event moved to 3pm");
        assert!(found.iter().all(|t| !t.contains("calendar")), "{found:?}");
        let found = top3("slack #ops: rolled back the deployment of checkout");
        assert!(
            found.contains(&"mcp__slack__slack_post_message".to_owned()),
            "{found:?}"
        );
        // But not a server's name before the ask ("linear: create a
        // release").
        assert_eq!(
            top("linear: create a new release"),
            "mcp__linear__linear_createRelease"
        );
    }

    #[test]
    fn who_did_something_asks_for_the_history() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "launchdarkly",
                "update_feature_flag",
                "Update a feature flag: turn it on or off in an environment.",
                json!({"properties": {"key": {}, "environment": {}}}),
            ),
            SearchDoc::mcp(
                "launchdarkly",
                "get_audit_log_entries",
                "List the audit log entries of the project.",
                json!({"properties": {"limit": {}}}),
            ),
        ]);
        // Nothing else in the request finds the audit log.
        let found = names(&index, &index.search("who flipped the dark-mode flag", 5));
        assert!(found.contains(&"mcp__launchdarkly__get_audit_log_entries".to_owned()));
    }

    #[test]
    fn plain_words_find_the_operation_they_describe() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "git",
                "git_commit",
                "Record changes to the repository.",
                json!({"properties": {"repo_path": {}, "message": {}}}),
            ),
            SearchDoc::mcp(
                "git",
                "git_stash",
                "Stash the current state of the index and working tree (WIP).",
                json!({"properties": {"repo_path": {}}}),
            ),
            SearchDoc::mcp(
                "git",
                "git_diff_unstaged",
                "Show the changes that are not yet staged.",
                json!({"properties": {"repo_path": {}}}),
            ),
        ]);
        let top = |q: &str| names(&index, &index.search(q, 5))[0].clone();
        // `PLAIN_WORDS`: "half done" work is stashed.
        assert_eq!(top("my half done edits, park them"), "mcp__git__git_stash");
    }

    #[test]
    fn a_word_finds_its_neighbours_in_word_vector_space() {
        let docs = vec![
            SearchDoc::mcp(
                "maps",
                "get_altitude",
                "The altitude of a place.",
                json!({}),
            ),
            SearchDoc::mcp("maps", "get_weather", "The weather at a place.", json!({})),
        ];
        let index = ToolIndex::new(docs.clone());
        let hits = index.search("how high is the elevation of Denver", 5);
        assert_eq!(names(&index, &hits), ["mcp__maps__get_altitude"]);
        // A neighbour counts less than the word itself.
        assert!(hits[0].score < index.search("altitude", 5)[0].score);
        let off = ToolIndex::with_scoring(
            docs,
            Scoring {
                neighbour_weight: 0.0,
                ..Scoring::default()
            },
        );
        assert!(off.search("elevation", 5).is_empty());
    }

    #[test]
    fn values_are_told_from_words() {
        let value = |w: &str| is_value(w, w, &mut false, false);
        for w in [
            "https://example.com/pricing",
            "notes.txt",
            "src/main.rs",
            "ada@example.com",
            "8812",
            "WEB-55",
            "a1b2c3d4",
        ] {
            assert!(value(w), "{w}");
        }
        for w in ["k8s", "s3", "issue", "getUser"] {
            assert!(!value(w), "{w}");
        }
        assert_eq!(value_kind("https://example.com"), Some("url"));
        assert_eq!(value_kind("ada@example.com"), Some("email"));
        assert_eq!(value_kind("notes.txt"), Some("file"));
        assert_eq!(value_kind("src/etl/load.py"), Some("file"));
        assert_eq!(value_kind("/var/log/"), Some("directory"));
        // A slug (`owner/repo`) is no file.
        assert_eq!(value_kind("data/warehouse"), None);
        assert_eq!(value_kind("1.31"), None);
        for w in ["9am", "3:30pm", "14:00", "10PM"] {
            assert_eq!(value_kind(w), Some("time"), "{w}");
            assert!(value(w), "{w}");
        }
        for w in ["am", "pm", "123pm", "1:3", "v2:00x"] {
            assert_eq!(value_kind(w), None, "{w}");
        }
        for w in ["17.5%", "3*4", "2^10?", "(1+2)/3", "6×7"] {
            assert!(is_arithmetic(w), "{w}");
        }
        for w in ["1.31", "2,340", "2026-12-03", "+fetch", "a+b", "50%off"] {
            assert!(!is_arithmetic(w), "{w}");
        }
        // Quoted text, and the name after `called`.
        let mut quote = false;
        let flags: Vec<bool> = ["post", "'open", "issue'", "now"]
            .iter()
            .map(|w| is_value(w.trim_matches('\''), w, &mut quote, false))
            .collect();
        assert_eq!(flags, [false, true, true, false]);
        assert!(is_value("archive", "archive", &mut false, true));
        // A value's words count less: `called issue` names the listing.
        let index = index();
        let hits = index.search("list the files called issue", 5);
        assert_eq!(names(&index, &hits)[0], "mcp__filesystem__list-files");
    }

    #[test]
    fn how_a_request_is_put_tells_what_it_asks_for() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp("gmail", "send_email", "Send a new email.", json!({})),
            SearchDoc::mcp("gmail", "read_email", "Read an email by its id.", json!({})),
            SearchDoc::mcp(
                "gmail",
                "search_emails",
                "Search emails with Gmail's query syntax.",
                json!({}),
            ),
            SearchDoc::mcp(
                "github",
                "get_pull_request",
                "Get details of a pull request.",
                json!({}),
            ),
            SearchDoc::mcp("git", "git_pull", "Pull changes from a remote.", json!({})),
            SearchDoc::mcp(
                "linear",
                "get_issue",
                "Get an issue by its identifier.",
                json!({}),
            ),
            SearchDoc::mcp("fetch", "fetch", "Fetch a URL and get its text.", json!({})),
            SearchDoc::mcp(
                "gitlab",
                "list_todos",
                "List the user's to-do items.",
                json!({}),
            ),
            SearchDoc::mcp(
                "gitlab",
                "wait_for_job",
                "Wait for a job to finish.",
                json!({}),
            ),
            SearchDoc::mcp(
                "github",
                "create_issue",
                "Create an issue in a repository.",
                json!({}),
            ),
            SearchDoc::mcp(
                "postgres",
                "export_table",
                "Export a table to a CSV file.",
                json!({}),
            ),
        ]);
        let first = |scoring: Scoring, q: &str| first_with(&index, scoring, q);
        let on = Scoring::default();
        // A question asks to be told: a tool that looks things up.
        let q = "did stripe email us about payouts?";
        assert_eq!(first(on, q), "mcp__gmail__search_emails");
        let off = Scoring {
            question_weight: 0.0,
            ..on
        };
        assert_ne!(first(off, q), "mcp__gmail__search_emails");
        assert!(is_question("which tickets are assigned to me"));
        assert!(is_question("what's been said in #incidents?"));
        assert!(!is_question("list the open issues"));
        // After a colon that follows the ask: what the issue is to say.
        let q = "open an issue on the repo: CSV export of the table fails";
        assert_eq!(first(on, q), "mcp__github__create_issue");
        // Unless what follows the colon is itself the ask.
        let weight_of = |q: &str, word: &str| {
            let mut w = word.to_owned();
            let id = index.stemmed_term(&mut w).unwrap();
            let parsed = index.parse(q);
            parsed.terms.iter().find(|t| t.id == id).unwrap().weight
        };
        assert_eq!(
            weight_of("for the flaky login test: open an issue", "issue"),
            1.0
        );
        let message = on.message_weight;
        assert_eq!(
            weight_of("open an issue on the repo: the issue list is slow", "list"),
            message
        );
        let off = Scoring {
            colon_opens_message: false,
            ..on
        };
        assert_eq!(first(off, q), "mcp__postgres__export_table");
        // "Pull" but for "pull request" is to get; `git pull` still pulls.
        assert_eq!(first(on, "pull up ENG-482"), "mcp__linear__get_issue");
        assert_eq!(
            first(on, "open pull requests"),
            "mcp__github__get_pull_request"
        );
        assert_eq!(first(on, "git pull from the remote"), "mcp__git__git_pull");
        // An issue's key is an issue; a hyphenated word is its joined form too.
        assert_eq!(value_kind("ENG-482"), Some("issue"));
        assert_eq!(value_kind("node-3"), None);
        assert_eq!(value_kind("WEB-3F1"), None);
        assert_eq!(
            first(on, "anything waiting on my to-do list?"),
            "mcp__gitlab__list_todos"
        );
    }

    #[test]
    fn a_things_name_and_a_filter_ask_for_nothing() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "github",
                "create_issue",
                "Create an issue in a repository.",
                json!({"properties": {"repo": {"description": "repository name"}}}),
            ),
            SearchDoc::mcp(
                "browser",
                "open_page",
                "Open a web frontend in the browser: a page that lists an issue tracker's issues.",
                json!({}),
            ),
            SearchDoc::mcp(
                "mongodb",
                "update_many",
                "Update every document of a collection that matches a filter.",
                json!({}),
            ),
            SearchDoc::mcp(
                "mongodb",
                "find_location",
                "Find where a place is: search locations by name.",
                json!({}),
            ),
            SearchDoc::mcp("crm", "list_accounts", "List the accounts.", json!({})),
        ]);
        let first = |scoring: Scoring, q: &str| first_with(&index, scoring, q);
        let on = Scoring::default();
        // The name of a repo (a table, a channel …) is no word of the ask.
        let q = "open an issue on the web-frontend repo";
        assert_eq!(first(on, q), "mcp__github__create_issue");
        let off = Scoring {
            container_names: 0,
            ..on
        };
        assert_eq!(first(off, q), "mcp__browser__open_page");
        // So is a plain word that names one after "the", "our" …: no
        // `git_checkout` for the checkout service's repo.
        let q = "open an issue on our checkout repo";
        assert!(rank_of(q, "mcp__git__git_checkout").is_none_or(|r| r > 3));
        assert!(rank_of(q, "mcp__github__create_issue").is_some_and(|r| r <= 2));
        // A dotted name is a value; "where" but first filters; a part that
        // opens with a preposition says where the next part is done.
        let mut in_quote = false;
        assert!(is_value(
            "crm.accounts",
            "crm.accounts,",
            &mut in_quote,
            false
        ));
        assert!(!is_value("accounts", "accounts", &mut in_quote, false));
        let q = "in mongo crm.accounts, set discount to 15 on every doc where tier is 'gold'";
        assert_eq!(steps(q).len(), 1);
        assert_eq!(first(on, q), "mcp__mongodb__update_many");
        assert_eq!(steps("read the changelog, then post it to Slack").len(), 2);
        assert_eq!(
            first(on, "where is the Berlin office"),
            "mcp__mongodb__find_location"
        );
    }

    #[test]
    fn what_is_to_be_said_or_worked_out_is_no_ask() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp(
                "memory",
                "add_observations",
                "Add new observations to existing entities in the knowledge graph.",
                json!({}),
            ),
            SearchDoc::mcp("gmail", "send_email", "Send a new email.", json!({})),
            SearchDoc::mcp(
                "calculator",
                "calculate",
                "Calculates the given expression.",
                json!({}),
            ),
        ]);
        let first = |q: &str| names(&index, &index.search(q, 5)).swap_remove(0);
        // The message after "remember that" is kept, not acted on.
        assert_eq!(
            first("remember that Carol prefers email"),
            "mcp__memory__add_observations"
        );
        assert_eq!(first("send Carol an email"), "mcp__gmail__send_email");
        let scoring = Scoring {
            message_weight: Scoring::default().value_weight,
            ..Scoring::default()
        };
        let plain = ToolIndex::with_scoring(index.docs().to_vec(), scoring);
        let hits = plain.search("remember that Carol prefers email", 5);
        assert_eq!(names(&plain, &hits)[0], "mcp__gmail__send_email");
        // A sum asks for a tool that calculates.
        assert_eq!(
            first("what's 17.5% of 2,340?"),
            "mcp__calculator__calculate"
        );
        assert!(index.search("what's 17.5 of 2,340?", 5).is_empty());
    }

    #[test]
    fn a_negated_verb_asks_for_nothing() {
        let index = ToolIndex::new(vec![
            SearchDoc::mcp("cal", "create-event", "Create a new event.", json!({})),
            SearchDoc::mcp(
                "cal",
                "respond-to-event",
                "Respond to an event invitation.",
                json!({}),
            ),
        ]);
        let first = |q: &str| names(&index, &index.search(q, 5)).swap_remove(0);
        for q in [
            "respond that I can't make the event",
            "I do not make this event, respond",
            "I cannot make the event; respond",
        ] {
            assert_eq!(first(q), "mcp__cal__respond-to-event", "{q}");
        }
        // What a thing is, not what to do: "isn't" negates no verb.
        assert_eq!(first("the event isn't created"), "mcp__cal__create-event");
        assert_eq!(first("make an event"), "mcp__cal__create-event");
    }

    #[test]
    fn nothing_to_match_finds_nothing() {
        let index = index();
        assert!(index.search("", 5).is_empty());
        assert!(index.search("the of and", 5).is_empty());
        assert!(index.search("kubernetes", 5).is_empty());
        assert!(ToolIndex::new(Vec::new()).search("issue", 5).is_empty());
    }
}
