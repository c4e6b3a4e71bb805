//! Words that ask for the same action or thing in requests and tool
//! descriptions, in groups: a query word also finds the tools described
//! with another word of its group, at a lower weight (and a document counts
//! only the best word of each query word's group, so a big group costs
//! nothing where the query's own word is found).
//!
//! Two tiers: [`SYNONYMS`] are words a tool's author and a user choose
//! between freely for the same thing (`find` and `search`, `ticket` and
//! `issue`, `folder` and `directory`); [`RELATED`] are words that often
//! ask for the same tool without meaning the same (`open` a ticket,
//! `remember` for a memory store, `big` for a size). The groups are general
//! English of software tools — verbs of what to do, nouns of what it is done
//! to, the everyday words for a kind of product — not words picked to fix
//! one request. Words are matched after stemming, so one form of each is
//! enough.

/// Interchangeable words.
pub(super) const SYNONYMS: &[&[&str]] = &[
    // What to do.
    &["get", "fetch", "retrieve", "obtain", "read"],
    &["create", "add", "new", "make", "insert"],
    &["delete", "remove", "erase", "destroy"],
    &["update", "edit", "modify", "change", "alter"],
    &["list", "enumerate"],
    &[
        "search", "find", "query", "lookup", "look", "locate", "seek",
    ],
    &["send", "post"],
    &["run", "execute", "exec", "launch", "invoke"],
    &["stop", "terminate", "kill", "halt", "abort", "cancel"],
    &["navigate", "go", "visit", "goto"],
    &["copy", "duplicate"],
    &["move", "relocate"],
    &["convert", "transform"],
    &["save", "store", "persist"],
    &["summarize", "summary"],
    &["approve", "accept"],
    &["reject", "decline"],
    &["respond", "reply", "answer"],
    &["click", "press", "tap"],
    &["compare", "diff"],
    // What it is done to.
    &["bug", "issue", "ticket", "defect"],
    &["repo", "repository"],
    &["folder", "directory", "dir"],
    &["page", "webpage", "website", "site"],
    &["image", "picture", "photo", "screenshot"],
    &["user", "member"],
    &["merge", "pull", "pr", "mr"],
    &["meeting", "event", "appointment"],
    &["email", "mail", "e-mail"],
    &[
        "chart",
        "graph",
        "plot",
        "diagram",
        "visualize",
        "visualization",
    ],
    &["database", "db"],
    &["alert", "alarm"],
    &["kubernetes", "k8s"],
    &["info", "information", "detail", "metadata"],
    &["stats", "statistics", "metric"],
];

/// Words that often ask for the same tool.
pub(super) const RELATED: &[&[&str]] = &[
    &[
        "get", "read", "download", "load", "view", "inspect", "describe", "see", "show",
    ],
    &[
        "create", "add", "open", "file", "post", "submit", "generate", "put", "book", "schedule",
    ],
    &[
        "delete", "remove", "drop", "trash", "purge", "discard", "clear", "unlink",
    ],
    &[
        "update", "edit", "patch", "set", "rename", "adjust", "revise", "replace",
    ],
    &["list", "show", "all", "browse", "display"],
    &["search", "grep", "filter", "discover"],
    &[
        "send", "message", "write", "reply", "notify", "tell", "share", "publish", "forward",
    ],
    &["run", "start", "trigger", "perform"],
    &["stop", "end", "interrupt"],
    &["navigate", "browse", "open"],
    &["copy", "clone", "mirror"],
    &["move", "rename", "transfer"],
    &["convert", "turn", "export", "translate"],
    &["save", "write", "keep", "record"],
    &[
        "remember",
        "memory",
        "memorize",
        "recall",
        "knowledge",
        "note",
    ],
    &["upload", "attach", "push", "put"],
    &["compare", "difference"],
    &["approve", "confirm"],
    &["reject", "deny"],
    &["respond", "rsvp"],
    &["type", "fill", "enter", "input"],
    &["summarize", "overview"],
    &["count", "number", "total", "many"],
    &["link", "relate", "relation", "connect", "associate"],
    &["watch", "follow", "subscribe", "watcher"],
    &["assign", "assignee", "owner"],
    &["close", "resolve", "complete", "finish", "done"],
    &["login", "signin", "authenticate", "auth"],
    &["deploy", "release", "ship", "rollout"],
    &["parse", "extract", "scrape", "crawl"],
    &["grant", "permission", "access", "privilege", "role"],
    &["schedule", "plan", "book"],
    &["mention", "contain", "include"],
    &["bug", "issue", "task", "story"],
    &["repo", "project", "codebase"],
    &["file", "document", "doc"],
    &["page", "url", "web", "link"],
    &["image", "snapshot", "capture"],
    &[
        "user",
        "person",
        "people",
        "account",
        "profile",
        "teammate",
        "colleague",
    ],
    &["comment", "note", "reply", "remark", "feedback"],
    &["table", "collection"],
    &["calendar", "event", "meeting", "invite", "invitation"],
    &["email", "inbox", "gmail"],
    &["message", "chat", "dm", "conversation"],
    &["channel", "room", "thread"],
    &["weather", "forecast", "temperature"],
    &["time", "timezone", "clock", "date"],
    &["database", "sql"],
    &["record", "row", "entry", "item"],
    &["schema", "structure", "column", "field"],
    &["content", "text", "body"],
    &["log", "output", "print", "stdout", "console"],
    &["size", "big", "large", "bytes"],
    &["error", "exception", "failure", "crash", "fail", "broken"],
    &["alert", "incident"],
    &["build", "pipeline", "job", "ci", "workflow"],
    &["commit", "revision"],
    &["label", "tag"],
    &["status", "state", "health"],
    &["recent", "latest", "newest", "last"],
    &["history", "past", "previous"],
    &["cost", "billing", "price", "usage", "spend"],
    &["paper", "article", "publication"],
    &["location", "place", "address", "map"],
    &["direction", "route"],
    &["wiki", "documentation", "docs", "knowledge"],
    &["tracker", "issue", "ticket"],
    &["pod", "container"],
    &["process", "program", "command"],
];
