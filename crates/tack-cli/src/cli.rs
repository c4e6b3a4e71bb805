//! Raw command-line flags (step one of two: flags → configuration → run).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  tack run \"list the TODOs in src/\"            run with the provider found in the environment
  echo \"summarise\" | tack run --output-format json
  tack -p \"fix the test\" --output-format json | jq -r .result     Claude Code's -p and result shape
  tack -p --allowedTools \"Bash(git *)\" --mcp-config servers.json --permission-prompt-tool mcp__approver__check \"…\"
  tack -p --input-format stream-json --output-format stream-json < turns.jsonl
  tack run --provider openai --base-url http://127.0.0.1:8080 --model qwen3 \"hi\"
  tack run --continue \"and now the tests\"       continue the latest session of this directory
  tack run --append-system-prompt \"Answer in French.\" \"what does main.rs do?\"
  tack mock-server --port 8787                  a local mock API to try tack without a key

Environment:
  ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL   Anthropic Messages API
  OPENAI_API_KEY, OPENAI_BASE_URL                               OpenAI-compatible Chat Completions
  OLLAMA_HOST        where to look for Ollama (default 127.0.0.1:11434)
  TACK_MODEL         default model;  TACK_STATE_DIR  where sessions are kept
  TACK_CONFIG_DIR    user settings.json and AGENTS.md (default ~/.config/tack)
  CLAUDE_CONFIG_DIR  the user's CLAUDE.md (default ~/.claude)
  TACK_LOG           log filter (e.g. debug);  NO_COLOR  disables colour";

const MCP_EXAMPLES: &str = "\
Examples:
  tack mcp list --json
  tack mcp approve db                      approve a server from the project's .mcp.json
  tack mcp call fs read_file '{\"path\": \"/tmp/x\"}'
  tack mcp serve --http 127.0.0.1:8765     streamable HTTP; prints the bearer token clients need
  tack mcp login linear                    OAuth login to an HTTP server (--device without a browser)
  tack mcp logout linear                   delete (and revoke) its tokens
  TACK_MCP_TOKEN=$(cat token) tack mcp serve --http 127.0.0.1:8765   a token of your choosing

Environment:
  TACK_MCP_TOKEN   the bearer token of tack mcp serve --http (else --token-file, else generated)";

const SETTINGS_EXAMPLES: &str = "\
Examples:
  tack settings review                     what the project file asks for that is not approved
  tack settings approve                    approve it as it is now (asked again when it changes)
  tack settings approve --cwd ../repo --json

A checked-in .tack/settings.json is the repository's, not yours: its hooks,
defaultMode acceptEdits/bypassPermissions, additionalDirectories outside the
project and allow rules that reach past it (Bash, Read, Bash(python *),
Read(~/**), …) apply only once approved. Its other rules always apply.
Approvals are kept in the state directory (TACK_STATE_DIR), never in the
repository. Your own .tack/settings.local.json needs no approval.";

const SKILLS_EXAMPLES: &str = "\
Examples:
  tack skills list                         every skill found here: scope, catalog tokens, shadowing
  tack skills list --json | jq '.catalog'
  tack skills show pdf                     its frontmatter, trust, bundled files and instructions
  tack skills check                        validate every skill found here (strict, like skills-ref)
  tack skills check .claude/skills/pdf     one skill folder, a SKILL.md, or a folder of skills
  tack skills trust pdf                    trust a project skill as it is now (--all: every one)

Skills are read from /etc/tack/skills (managed), ~/.config/tack/skills,
~/.claude/skills and ~/.agents/skills (user), then .tack/skills,
.claude/skills and .agents/skills from the working directory up to the
project root and in folders below it (project). The first of a name wins.
A project skill is loaded only once you trust it (asked on a terminal;
`tack skills trust NAME`, or --trust-project-skills for one run).";

const TOOLS_EXAMPLES: &str = "\
Examples:
  tack tools list                          every tool of a session here: source, exposure, read-only, tokens
  tack tools list --json | jq -c '.[] | select(.left_out)'    the declared tools left out, and why
  tack tools show git_log                  its definition as the Anthropic API receives it
  tack tools show git_log --provider openai
  tack tools call git_log '{\"limit\": 3}'    one call through rules, hooks, budget and audit; no model
  echo '{\"limit\": 3}' | tack tools call git_log -
  tack tools call Read '{\"file_path\": \"/etc/hostname\"}' --allowed-tools Read --json
  tack tools search \"open a pull request\"    the tools tool search would offer, best first
  tack tools search \"+label issue github\" --limit 10 --json
  tack tools search \"send message\" --catalog catalog.json
  tack tools search --catalog catalog.json --queries queries.jsonl    recall, success@5, MRR, tokens

The session is assembled as tack run assembles it: built-in tools, the
command tools declared in settings (\"tools\"), MCP servers (approvals apply;
--approve-mcp), skills, the Agent tool. tack tools list ends with the
declared tools that were left out and why (exit 2 when one was).
tack tools call prints the result on stdout (an error result on stderr) and
exits with its class: 15 invalid input, 16 denied, 17 timeout, 18
unavailable or transient, 9 any other failure, 10 no such tool, 130
interrupted. An input that is not JSON at all is a usage error (2): the
tool is not called. Without a terminal, a call a rule would ask about is
denied: allow it with --allowed-tools or a rule in the settings.";

const MOCK_SCRIPT_HELP: &str = r#"Script format (--script FILE): a JSON array of steps, one per model request:
  [
    {"reply": {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Read",
                            "input": {"file_path": "/tmp/notes.txt"}}],
               "stop_reason": "tool_use"}},
    {"reply": {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}},
    {"error": {"status": 529, "error_type": "overloaded_error"}, "headers": [["retry-after", "1"]]}
  ]
A step is a "reply" (content blocks as the Messages API has them and a
stop_reason) or an "error" (an HTTP status, optional error_type and message),
with optional modifiers: "usage" {"input_tokens", "output_tokens", ...},
"headers" [[name, value]], "delay_ms", "cut_after" (close the stream after N
events), "stream_error_after" {"after": N, "error_type": "..."},
"raw_tool_arguments" {"toolu_1": "{not json"} and "expect" {"api":
"anthropic"|"openai", "stream", "last_user_contains", "tool_results_for"}.
The mock answers both POST /v1/messages and POST /v1/chat/completions, checks
requests as strictly as the real APIs (every tool_use answered, roles
alternating, the prompt within the context window) and caches prompt
prefixes as the Messages API does. When the steps run out, requests get a 500.

Examples:
  tack mock-server --port 8787 &
  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=x tack run "hi"
  tack mock-server --port 0 --script steps.json    prints the URL it listens on"#;

pub fn settings_after_help() -> String {
    format!("{SETTINGS_EXAMPLES}\n\n{}", exit_codes())
}

/// The exit codes of every subcommand, one table (tack_protocol::exit).
fn exit_codes() -> String {
    let mut text = String::from("Exit codes: (one table for every subcommand)");
    for (code, meaning) in tack_protocol::exit::TABLE {
        text.push_str(&format!("\n  {code:<4} {meaning}"));
    }
    text
}

pub fn after_help() -> String {
    format!("{EXAMPLES}\n\n{}", exit_codes())
}

pub fn skills_after_help() -> String {
    format!("{SKILLS_EXAMPLES}\n\n{}", exit_codes())
}

pub fn mcp_after_help() -> String {
    format!("{MCP_EXAMPLES}\n\n{}", exit_codes())
}

pub fn tools_after_help() -> String {
    format!("{TOOLS_EXAMPLES}\n\n{}", exit_codes())
}

/// tack: a fast, strict harness between language models and tools.
#[derive(Debug, Parser)]
#[command(
    name = "tack",
    version,
    about,
    after_help = after_help(),
    override_usage = "tack <COMMAND>\n       tack [FLAGS OF tack run] [PROMPT]      on a terminal: the interactive session (/help inside)\n       tack -p [FLAGS OF tack run] [PROMPT]   Claude Code's print mode: the same as tack run"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on a prompt until the model stops asking for tools.
    #[command(after_help = after_help())]
    Run(Box<RunArgs>),
    /// List saved sessions, newest first.
    Sessions(SessionsArgs),
    /// Show the audit trail of a session: every tool call, its input as run,
    /// what allowed or denied it, its outcome and artifacts.
    Log(LogArgs),
    /// Permission rules: explain what a call would meet.
    Permissions(PermissionsArgs),
    /// MCP servers: list, inspect, call, approve; and `tack mcp serve`.
    #[command(after_help = mcp_after_help())]
    Mcp(McpArgs),
    /// Project settings: review and approve what .tack/settings.json asks for
    /// that would run without asking (hooks, a permissive mode, directories
    /// and wide allow rules outside the project).
    #[command(after_help = settings_after_help())]
    Settings(SettingsArgs),
    /// The OS sandbox commands run in: what this machine supports and what
    /// the settings here would enforce.
    Sandbox(SandboxArgs),
    /// Agent Skills (SKILL.md folders): list, show, check, trust.
    #[command(after_help = skills_after_help())]
    Skills(SkillsArgs),
    /// The tools of a session here (built-in, declared in settings, MCP,
    /// skills): list them, show a definition as the model receives it, call
    /// one through the full pipeline without a model.
    #[command(after_help = tools_after_help())]
    Tools(ToolsArgs),
    /// Serve a local mock of the Anthropic and OpenAI APIs (try tack without a key).
    #[command(after_help = MOCK_SCRIPT_HELP)]
    MockServer(MockServerArgs),
    /// Run an evaluation suite: the same tasks through every tool interface,
    /// every call recorded, failures classified; from cassettes (no key),
    /// a script of mock steps, or the live API.
    #[command(after_help = EVAL_EXAMPLES, args_conflicts_with_subcommands = true)]
    Eval(EvalArgs),
    /// The interactive session: what `tack` and `tack "first prompt"` open
    /// on a terminal (the flags of `tack run`).
    #[command(hide = true)]
    Chat(Box<RunArgs>),
}

const EVAL_EXAMPLES: &str = "\
Examples:
  tack eval examples/market-analyst/eval/suite.toml          replay its cassettes (no key needed)
  tack eval suite.toml --from live --model claude-sonnet-4-5 --parallel 4 --repeats 3
  tack eval suite.toml --from script --record                record cassettes from the tasks' scripts
  tack eval suite.toml --resume                              continue an interrupted evaluation
  tack eval suite.toml --shard 2/8 --out results/shard-2     one shard of eight (merge them after)
  tack eval merge results/shard-* --out results/all
  tack eval compare before/runs.jsonl after/runs.jsonl
  tack eval export results/all --out trajectories.jsonl      ATIF trajectories

Exit: 0 when every run was recorded (passed or failed); 19 when a run diverged from its cassette or
could not run (and with --strict, when a run failed); 2 for a bad suite or flags; 130 on Ctrl-C
(what finished is kept: --resume runs the rest).";

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub command: Option<EvalCommand>,
    /// The suite file (TOML).
    pub suite: Option<PathBuf>,
    /// Only this variant (repeatable).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Only this task (repeatable).
    #[arg(long = "task", value_name = "ID")]
    pub tasks: Vec<String>,
    /// The model, over the suite's and the cassettes'.
    #[arg(long)]
    pub model: Option<String>,
    /// The provider (anthropic or openai), over the suite's.
    #[arg(long)]
    pub provider: Option<String>,
    /// Runs at a time.
    #[arg(long, short = 'j', default_value_t = 2)]
    pub parallel: usize,
    /// Repeats per task (pass@k and pass^k), over the suite's.
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Where responses come from: cassette (default when the suite has
    /// cassettes), script (the tasks' mock steps) or live (the API in the
    /// environment).
    #[arg(long = "from", value_name = "SOURCE")]
    pub source: Option<String>,
    /// Write each run's cassette (with --from script or live).
    #[arg(long)]
    pub record: bool,
    /// The results directory (default .tack-eval/<suite name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue the evaluation in the results directory.
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Replace the evaluation in the results directory.
    #[arg(long)]
    pub force: bool,
    /// Run one shard: I/N (0-based), e.g. `--shard $JOB_COMPLETION_INDEX/8`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Exit 19 when any run failed, not only when one diverged or errored.
    #[arg(long)]
    pub strict: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Write report.md and chart.svg again from a results directory's runs.jsonl.
    Report {
        /// The results directory.
        dir: PathBuf,
    },
    /// What changed between two evaluations (two harness builds, two models):
    /// each a runs.jsonl or a results directory.
    Compare {
        /// The earlier evaluation: a runs.jsonl or a results directory.
        before: PathBuf,
        /// The later one.
        after: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Join the results of shards into one directory with one report.
    Merge {
        /// The shards' results directories (or runs.jsonl files).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The directory to write the joined runs.jsonl and report into.
        #[arg(long)]
        out: PathBuf,
    },
    /// Export runs as ATIF trajectories (Harbor's Agent Trajectory
    /// Interchange Format), one JSON object per line.
    Export {
        /// The results directory.
        dir: PathBuf,
        /// Where to write (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct SkillsArgs {
    #[command(subcommand)]
    pub command: SkillsCommand,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Project directory (default: the current directory).
    #[arg(long, global = true)]
    pub cwd: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Every skill found here (model-invocable or not): its scope, the
    /// tokens of its line in the model's catalog, where it is, its trust;
    /// then the shadowed ones, the catalog's total against its budget, and
    /// the SKILL.md files that were skipped, with file and line.
    List {
        /// The model's context window, for the catalog's budget (2% of it;
        /// default 200000 tokens, so 4000).
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<u64>,
    },
    /// One skill: its frontmatter (every field), location, trust, bundled
    /// files and instructions. Exit 10 when there is no such skill.
    Show {
        /// The skill's name (`tack skills list`).
        name: String,
    },
    /// Validate SKILL.md files strictly, as the spec's reference validator
    /// does: each problem as file:line: message, then the catalog's tokens.
    /// Exit 12 when a file cannot be read as a skill, 13 when a required
    /// field is invalid, 14 when an optional field is invalid or a key is
    /// unknown (the most severe decides); 0 when every one is valid.
    Check {
        /// A skill folder, a SKILL.md, or a folder of skill folders (each
        /// */SKILL.md). Default: every skill found here.
        path: Option<PathBuf>,
        /// The model's context window, for the catalog's budget (2% of it;
        /// default 200000 tokens, so 4000).
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<u64>,
    },
    /// Trust a project skill as it is now (recorded in the state directory,
    /// never in the repository): the model may load it without asking until
    /// its SKILL.md changes.
    Trust {
        /// The skill's name (`tack skills list`).
        #[arg(required_unless_present = "all")]
        name: Option<String>,
        /// Every project skill found here.
        #[arg(long, conflicts_with = "name")]
        all: bool,
    },
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(subcommand)]
    pub command: ToolsCommand,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Project directory (default: the current directory).
    #[arg(long, global = true)]
    pub cwd: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Every tool of the session: its source (built-in, declared,
    /// mcp:SERVER, skills), exposure (direct, deferred, hidden), whether it
    /// is read-only, the tokens of its definition; a total; then the tools
    /// declared in settings that were left out, with file:line and why.
    /// --json: an array of {name, source, exposure, read_only, tokens}, a
    /// declaration left out with exposure "left_out" and left_out {at,
    /// message}. Exit 2 when a declaration has a problem.
    List {
        #[command(flatten)]
        session: ToolSessionArgs,
    },
    /// One tool's definition exactly as the model's API receives it
    /// (pretty-printed; --json: the bytes sent, on one line). Exit 10 when
    /// the session has no such tool.
    Show {
        /// The tool's name (`tack tools list`).
        name: String,
        /// The API whose encoding to show.
        #[arg(long, value_enum, default_value_t = WireProvider::Anthropic)]
        provider: WireProvider,
        #[command(flatten)]
        session: ToolSessionArgs,
    },
    /// Run one call through the full pipeline (input validation, hooks,
    /// permission rules, timeout, output budget, audit) without a model.
    /// Prints the result (--json: content, is_error, outcome, structured)
    /// and exits with the outcome's code (0, 15, 16, 17, 18, 9, 10, 130).
    /// The call is recorded as a session of its own (`tack log`).
    Call {
        /// The tool's name (`tack tools list`).
        name: String,
        /// The input: one JSON object, or - to read it from stdin. Text
        /// that is not JSON exits 2 without calling the tool; JSON that does
        /// not fit the tool's schema exits 15.
        #[arg(default_value = "{}")]
        input: String,
        #[command(flatten)]
        session: ToolSessionArgs,
    },
    /// Rank the session's tools for a query as tool search does, best
    /// first: keywords (`+word` required), a server's name or mcp__SERVER
    /// (only that server's tools; alone, all of them), a tool's exact name
    /// (always first), or select:A,B (exactly those). --catalog FILE ranks
    /// a catalog's tools instead: a JSON array of MCP definitions {server,
    /// name, description, inputSchema} (no server: a built-in tool, by its
    /// name). --json: an array of {server, name,
    /// tool, score}. With --queries FILE.jsonl (lines {id?, query, kind?,
    /// steps: [[TOOL, …], …]}: each step lists every tool that does it, a
    /// TOOL being {server, name}, "server:name" or "mcp__server__name")
    /// prints recall@1/5/10, success@5,
    /// MRR and the tokens of the top 5 per kind of query (--json: the
    /// figures, and each query's ranks and top 10); a line without steps is
    /// ranked and listed, not measured.
    Search {
        /// The query.
        #[arg(required_unless_present = "queries")]
        query: Option<String>,
        /// How many tools to show.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Rank the tools of this catalog file instead of the session's.
        #[arg(long, value_name = "FILE")]
        catalog: Option<PathBuf>,
        /// Evaluate this set of labelled queries over --catalog.
        #[arg(
            long,
            value_name = "FILE.jsonl",
            requires = "catalog",
            conflicts_with = "query"
        )]
        queries: Option<PathBuf>,
        #[command(flatten)]
        session: ToolSessionArgs,
    },
}

/// The API encodings `tack tools show` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WireProvider {
    /// The Anthropic Messages API.
    Anthropic,
    /// OpenAI-compatible Chat Completions (OpenAI, Ollama, llama.cpp, vLLM).
    #[value(alias = "ollama")]
    Openai,
}

/// How a session without a model is assembled (`tack mcp serve`, `tack
/// tools`): the permission flags and which tool sources to trust.
#[derive(Debug, Clone, Default, Args)]
pub struct ToolSessionArgs {
    #[command(flatten)]
    pub permissions: PermissionArgs,
    /// Start project MCP servers (.mcp.json) that were not approved yet.
    #[arg(long)]
    pub approve_mcp: bool,
    /// Let the Skill tool load the project's skills without the user's trust.
    #[arg(long)]
    pub trust_project_skills: bool,
    /// Add test fixture tools.
    #[arg(long, hide = true)]
    pub fixture_tools: bool,
    /// Tool search: auto (defer MCP tools over 10% of the window), on, off.
    #[arg(long, value_enum, value_name = "MODE")]
    pub tool_search: Option<ToolSearchArg>,
    /// Add the Code tool (a program that calls tools; see `codeMode`).
    #[arg(long)]
    pub code_mode: bool,
}

#[derive(Debug, Args)]
pub struct SandboxArgs {
    #[command(subcommand)]
    pub command: SandboxCommand,
    /// Project directory (default: the current directory).
    #[arg(long, global = true)]
    pub cwd: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// What this machine can enforce (Landlock, namespaces, seccomp) and
    /// what the sandbox settings here would: the writable roots, what stays
    /// read-only, what is hidden, the network. Exit 1 when commands would be
    /// refused because the machine cannot enforce them.
    Check,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The answer as text on stdout; tool calls and progress on stderr.
    Text,
    /// Claude Code's result object on stdout when the run ends (`jq -r
    /// .result`); with --verbose an array of every message.
    Json,
    /// Claude Code's stream: system/init, assistant and user messages, one
    /// result per turn, one JSON object per line.
    StreamJson,
    /// tack's own result event (text, status, session totals…).
    TackJson,
    /// tack's own events, one per line, as they happen (audit records,
    /// tool progress, text deltas…).
    TackStreamJson,
}

impl OutputFormat {
    /// One JSON object per line on stdout.
    pub fn is_stream(self) -> bool {
        matches!(
            self,
            OutputFormat::StreamJson | OutputFormat::TackStreamJson
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// The prompt as text (the argument, or all of stdin).
    Text,
    /// User messages as JSON lines on stdin, each starting a turn with its
    /// own result (needs --output-format stream-json).
    StreamJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolChoiceArg {
    Auto,
    Any,
    None,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The prompt; read from stdin when absent or "-".
    pub prompt: Option<String>,
    /// Model name (default: TACK_MODEL, or the provider's default).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// anthropic, openai or ollama (default: picked from the environment).
    #[arg(long)]
    pub provider: Option<String>,
    /// Base URL of the API (e.g. http://127.0.0.1:11434 for Ollama).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Replace the whole system prompt: tack's own text (environment, how
    /// to use the tools) and the instruction files (CLAUDE.md, AGENTS.md…)
    /// are not sent, only TEXT.
    #[arg(long, value_name = "TEXT", aliases = ["system", "systemPrompt"])]
    pub system_prompt: Option<String>,
    /// Add TEXT at the end of the system prompt (after the instruction
    /// files, or after --system-prompt).
    #[arg(long, value_name = "TEXT", alias = "appendSystemPrompt")]
    pub append_system_prompt: Option<String>,
    /// Stop after this many model requests.
    #[arg(long, alias = "maxTurns")]
    pub max_turns: Option<u32>,
    /// The model's context window in tokens, when tack's table does not
    /// know the model or has it wrong (settings: compaction.contextWindow).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Compact when a request would pass this: a share of the window
    /// ("80%", the default) or tokens ("150000", "150k"), up or down
    /// (settings: compaction.threshold).
    #[arg(long, value_name = "PERCENT|TOKENS", value_parser = parse_threshold)]
    pub compact_threshold: Option<tack_agent::Threshold>,
    /// Never compact at the threshold (a request the API refuses as too
    /// long is still compacted and sent again once).
    #[arg(long)]
    pub no_auto_compact: bool,
    /// Compact the resumed conversation now (old tool results cleared,
    /// older turns summarised), then run the prompt if one is given.
    #[arg(long, requires = "resume_or_continue")]
    pub compact_now: bool,
    /// Added to the summary request of a compaction (what to keep).
    #[arg(long, value_name = "TEXT")]
    pub compact_instructions: Option<String>,
    /// max_tokens of each request.
    #[arg(long, default_value_t = tack_agent::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Comma-separated names of the tools the model may use (default: all).
    #[arg(long, value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// How the model may use tools.
    #[arg(long, value_enum)]
    pub tool_choice: Option<ToolChoiceArg>,
    /// Make the model use this tool (tool_choice {type: tool}).
    #[arg(long, conflicts_with = "tool_choice")]
    pub tool: Option<String>,
    /// At most one tool call per response.
    #[arg(long)]
    pub no_parallel_tools: bool,
    /// Ask for whole responses instead of streams.
    #[arg(long)]
    pub no_stream: bool,
    /// Send no prompt-cache breakpoints (Anthropic `cache_control`) and no
    /// OpenAI `prompt_cache_key`: every request pays full input price.
    /// Also TACK_NO_PROMPT_CACHE=1.
    #[arg(long)]
    pub no_prompt_cache: bool,
    /// How results are printed.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, alias = "outputFormat")]
    pub output_format: OutputFormat,
    /// How the prompt is read.
    #[arg(long, value_enum, default_value_t = InputFormat::Text, alias = "inputFormat")]
    pub input_format: InputFormat,
    /// With --output-format json: an array of every message, the result
    /// last (as Claude Code prints it).
    #[arg(long)]
    pub verbose: bool,
    /// Send each permission ask to this MCP tool (mcp__server__tool)
    /// instead of the terminal: it gets {"tool_name", "input",
    /// "tool_use_id"} and answers {"behavior":"allow","updatedInput":{…}}
    /// or {"behavior":"deny","message":"…"}. Any other answer, or none, is a
    /// deny; a changed input meets the rules again.
    #[arg(long, value_name = "MCP_TOOL", alias = "permissionPromptTool")]
    pub permission_prompt_tool: Option<String>,
    /// Resume a session by id (a unique prefix is enough).
    #[arg(
        long,
        short = 'r',
        conflicts_with = "continue_",
        group = "resume_or_continue"
    )]
    pub resume: Option<String>,
    /// Continue the most recent session of this directory.
    #[arg(long = "continue", short = 'c', group = "resume_or_continue")]
    pub continue_: bool,
    /// Working directory of the session (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Talk to tack's built-in mock API (it echoes the prompt): try tack without a key.
    #[arg(long, conflicts_with_all = ["provider", "base_url"])]
    pub mock: bool,
    /// Permissions, MCP approval, skills trust, tool search and code mode:
    /// the same flags as `tack tools` and `tack mcp serve`.
    #[command(flatten)]
    pub session: ToolSessionArgs,
}

/// `--tool-search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolSearchArg {
    Auto,
    On,
    Off,
}

impl ToolSearchArg {
    pub fn mode(self) -> tack_session::tool_search::ToolSearchMode {
        use tack_session::tool_search::ToolSearchMode;
        match self {
            Self::Auto => ToolSearchMode::Auto,
            Self::On => ToolSearchMode::On,
            Self::Off => ToolSearchMode::Off,
        }
    }
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only sessions started in this directory.
    #[arg(long)]
    pub here: bool,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Session id (a unique prefix is enough); default: the latest of this directory.
    pub session: Option<String>,
    /// One JSON object per call.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MockServerArgs {
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// A JSON file with the scripted responses, served in order to whichever
    /// API asks next (format below); without it the mock echoes the prompt.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// The model's context window in estimated tokens (prompt bytes / 4): a
    /// larger prompt gets the API's 400 "prompt is too long" (Chat
    /// Completions: context_length_exceeded). Default: no limit.
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
}

/// Permission flags, shared by `tack run` and `tack mcp serve`.
#[derive(Debug, Clone, Default, Args)]
pub struct PermissionArgs {
    /// default, acceptEdits, plan, dontAsk or bypassPermissions.
    #[arg(long, alias = "permissionMode")]
    pub permission_mode: Option<String>,
    /// The permission mode bypassPermissions: calls run without asking;
    /// deny rules still hold.
    #[arg(
        long,
        alias = "dangerouslySkipPermissions",
        conflicts_with = "permission_mode"
    )]
    pub dangerously_skip_permissions: bool,
    /// Rules to allow, e.g. --allowed-tools "Bash(git diff *),Read" (comma or
    /// space separated; repeatable).
    #[arg(long, alias = "allowedTools")]
    pub allowed_tools: Vec<String>,
    /// Rules to deny, e.g. --disallowed-tools "Bash(curl *),WebFetch".
    #[arg(long, alias = "disallowedTools")]
    pub disallowed_tools: Vec<String>,
    /// Another directory the read-only tools may use without asking (repeatable).
    #[arg(long = "add-dir", alias = "addDir")]
    pub add_dirs: Vec<std::path::PathBuf>,
    /// A settings file, or inline JSON, as a layer above the local settings
    /// and below the administrator's (repeatable; the later wins).
    #[arg(long, value_name = "FILE_OR_JSON")]
    pub settings: Vec<String>,
    /// MCP servers for this run: a file or inline JSON holding
    /// {"mcpServers": {…}} (repeatable; they need no approval).
    #[arg(long = "mcp-config", value_name = "FILE_OR_JSON", alias = "mcpConfig")]
    pub mcp_config: Vec<String>,
    /// Only the --mcp-config servers: none from .mcp.json or settings files.
    #[arg(long, alias = "strictMcpConfig")]
    pub strict_mcp_config: bool,
    /// Apply what the project's .tack/settings.json asks for that would run
    /// without asking (hooks, acceptEdits/bypassPermissions, directories and
    /// wide allow rules outside the project) without an approval, for this
    /// run only (CI on a repository you control; `tack settings approve`
    /// records an approval instead).
    #[arg(long)]
    pub trust_project_settings: bool,
}

impl PermissionArgs {
    pub fn to_cli(&self) -> Result<tack_policy::CliPermissions, crate::Failure> {
        let split = |list: &[String]| -> Vec<String> {
            list.iter()
                .flat_map(|l| tack_policy::split_rule_list(l))
                .collect()
        };
        let mode = match &self.permission_mode {
            Some(m) => Some(m.parse().map_err(|e| {
                crate::Failure::usage(anyhow::anyhow!("--permission-mode {m}: {e}"))
            })?),
            None if self.dangerously_skip_permissions => Some(tack_policy::Mode::BypassPermissions),
            None => None,
        };
        let settings = self
            .settings
            .iter()
            .map(|s| json_layer("--settings", s))
            .collect::<Result<_, _>>()?;
        Ok(tack_policy::CliPermissions {
            allowed_tools: split(&self.allowed_tools),
            disallowed_tools: split(&self.disallowed_tools),
            mode,
            additional_directories: self.add_dirs.clone(),
            settings,
            mcp_config: self
                .mcp_config
                .iter()
                .map(|s| json_layer("--mcp-config", s))
                .collect::<Result<_, _>>()?,
            strict_mcp_config: self.strict_mcp_config,
        })
    }
}

/// A `--settings` or `--mcp-config` value: inline JSON (it starts with `{`)
/// or the path of a file holding it; a JSON object either way.
pub fn json_layer(flag: &str, value: &str) -> Result<tack_policy::SettingsFile, crate::Failure> {
    let usage = |text: String| crate::Failure::usage(anyhow::anyhow!(text));
    let (path, text) = if value.trim_start().starts_with('{') {
        (
            PathBuf::from(format!("{flag} (inline JSON)")),
            value.to_owned(),
        )
    } else {
        let text = std::fs::read_to_string(value)
            .map_err(|e| usage(format!("{flag} {value}: cannot read the file: {e}")))?;
        (PathBuf::from(value), text)
    };
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| usage(format!("{flag} {}: not valid JSON: {e}", path.display())))?;
    if !json.is_object() {
        return Err(usage(format!(
            "{flag} {}: must be a JSON object",
            path.display()
        )));
    }
    Ok(tack_policy::SettingsFile {
        level: tack_policy::Level::CommandLine,
        path,
        value: json,
        text,
    })
}

#[derive(Debug, Args)]
pub struct PermissionsArgs {
    #[command(subcommand)]
    pub command: PermissionsCommand,
}

#[derive(Debug, Subcommand)]
pub enum PermissionsCommand {
    /// Print the decision for a call and the rule and file that made it, e.g.
    /// tack permissions explain 'Bash(git push origin main)'.
    Explain {
        /// The call: Tool(input), e.g. 'Bash(rm -rf build)', 'Read(./.env)', 'WebFetch(https://x.dev)'.
        spec: String,
        /// Print JSON: the decision, the rule, its file and line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        permissions: PermissionArgs,
    },
}

#[derive(Debug, Args)]
pub struct SettingsArgs {
    #[command(subcommand)]
    pub command: SettingsCommand,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Project directory (default: the current directory).
    #[arg(long, global = true)]
    pub cwd: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// What the project settings file asks for that would run without asking
    /// and is not approved (nothing is changed).
    Review,
    /// Approve what the project settings file asks for, exactly as it is
    /// now; it applies from the next run until the file changes it.
    Approve,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: McpCommand,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Project directory (default: the current directory).
    #[arg(long, global = true)]
    pub cwd: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Servers, their state, tool count and the size of their definitions.
    List,
    /// The tools of one server.
    Tools {
        /// The server's name in .mcp.json or settings (`tack mcp list`).
        server: String,
    },
    /// Call one tool: tack mcp call SERVER TOOL '{"arg": 1}'.
    Call {
        /// The server's name in .mcp.json or settings (`tack mcp list`).
        server: String,
        /// The tool's name as the server gives it (`tack mcp tools SERVER`).
        tool: String,
        /// The tool's arguments: one JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Approve a project server, or (--changes) the changed definitions of its tools.
    Approve {
        /// The server's name in the project's .mcp.json.
        server: String,
        /// Approve the server's changed tool definitions (`tack mcp diff SERVER`
        /// shows them) instead of the server itself.
        #[arg(long)]
        changes: bool,
    },
    /// What changed in a server's tool definitions since they were approved.
    Diff {
        /// The server's name in .mcp.json or settings (`tack mcp list`).
        server: String,
    },
    /// Serve tack's tools over MCP (stdio, or streamable HTTP with --http), with
    /// the same rules, hooks, budget and audit as tack run.
    Serve(Box<ServeArgs>),
    /// Log in to an HTTP server that asks for OAuth: opens the browser (and
    /// prints the URL, for ssh), or with --device shows a code to enter on
    /// another device. Tokens go to a 0600 file in tack's state dir.
    Login {
        /// The server's name in .mcp.json or settings (`tack mcp list`).
        server: String,
        /// The device authorization flow (no browser on this machine).
        #[arg(long)]
        device: bool,
        /// Print the URL without opening a browser.
        #[arg(long, conflicts_with = "device")]
        no_browser: bool,
    },
    /// Delete a server's OAuth tokens, revoking them at the authorization
    /// server when it offers revocation.
    Logout {
        /// The server's name in .mcp.json or settings (`tack mcp list`).
        server: String,
    },
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Listen for streamable HTTP at ADDR (path /mcp), e.g. 127.0.0.1:8765.
    /// Every request needs `Authorization: Bearer TOKEN`: the token comes from
    /// --token-file, else TACK_MCP_TOKEN, else one is generated and printed
    /// once on stderr. A loopback address unless --allow-remote.
    #[arg(long)]
    pub http: Option<String>,
    /// Read the bearer token from FILE (its first line; keep it private).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<std::path::PathBuf>,
    /// Serve HTTP without authentication: any process on this machine could
    /// call the tools (Bash included) as you. Loopback only; for tests and
    /// clients that cannot send a header (the MCP conformance suite).
    #[arg(long, requires = "http", conflicts_with_all = ["token_file", "allow_remote"])]
    pub no_auth: bool,
    /// Accept a --http address that is not loopback (e.g. 0.0.0.0:8765):
    /// other machines can then connect, each with the bearer token.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// The most MCP sessions open at once over HTTP (an initialize past it is
    /// refused with 503; an idle session closes after 5 minutes).
    #[arg(long, value_name = "N", default_value_t = tack_mcp::server::DEFAULT_MAX_SESSIONS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_sessions: usize,
    /// Host header values to accept besides loopback (DNS-rebinding protection).
    #[arg(long)]
    pub allowed_hosts: Vec<String>,
    /// Only these tools (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    #[command(flatten)]
    pub session: ToolSessionArgs,
    /// Serve the conformance suite's fixture tools instead of tack's (tests).
    #[arg(long, hide = true)]
    pub conformance_fixtures: bool,
    /// Project directory (default: the current directory).
    #[arg(long)]
    pub cwd: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod help_tests {
    use clap::CommandFactory as _;

    use super::Cli;

    /// Every subcommand and every argument a person can see says what it is.
    #[test]
    fn every_argument_has_help_text() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let path = format!("{path} {}", cmd.get_name());
            if cmd.get_about().is_none() {
                missing.push(format!("{path}: the command"));
            }
            for arg in cmd.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !arg.is_hide_set() && !builtin && arg.get_help().is_none() {
                    missing.push(format!("{path}: {}", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_name() != "help" {
                    walk(sub, &path, missing);
                }
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:#?}");
    }

    #[test]
    fn help_opens_by_saying_what_tack_is() {
        let help = Cli::command().render_help().to_string();
        let first = help.lines().next().unwrap();
        assert!(
            first
                .starts_with("tack: a fast, strict harness between a language model and the tools"),
            "{first}"
        );
        let mock = Cli::command()
            .find_subcommand_mut("mock-server")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(
            mock.contains("Script format") && mock.contains("\"stop_reason\""),
            "{mock}"
        );
    }
}

/// The subcommands, for telling `tack -p …` and `tack PROMPT` from them.
const SUBCOMMANDS: &[&str] = &[
    "run",
    "chat",
    "eval",
    "sessions",
    "log",
    "permissions",
    "mcp",
    "settings",
    "sandbox",
    "skills",
    "tools",
    "mock-server",
    "help",
];

/// Claude Code flags tack does not have (yet): named in a clear error
/// rather than clap's generic one.
const UNSUPPORTED_CLAUDE_FLAGS: &[&str] = &[
    "--include-partial-messages",
    "--replay-user-messages",
    "--fallback-model",
    "--agents",
    "--agent",
    "--setting-sources",
    "--session-id",
    "--fork-session",
    "--json-schema",
    "--max-budget-usd",
    "--betas",
    "--plugin-dir",
    "--ide",
    "--debug",
    "--mcp-debug",
    "--output-style",
    "--disable-slash-commands",
    "--allow-dangerously-skip-permissions",
    "--no-session-persistence",
];

/// `tack` and `tack [FLAGS] "prompt"` on a terminal open the interactive
/// session (`tack chat …`); anything naming a subcommand, asking for help
/// or the version, or Claude Code's print mode (`-p`) is left as it is, and
/// so is everything when `terminal` says stdin and stdout are no terminal.
pub fn interactive_argv(
    args: Vec<std::ffi::OsString>,
    terminal: impl FnOnce() -> bool,
) -> Vec<std::ffi::OsString> {
    let wants = match args.get(1).map(|a| a.to_str()) {
        None => true,
        Some(None) => false,
        Some(Some(first)) => {
            !SUBCOMMANDS.contains(&first)
                && !matches!(first, "-h" | "--help" | "-V" | "--version")
                && !args
                    .iter()
                    .skip(1)
                    .take_while(|a| *a != "--")
                    .any(|a| a == "-p" || a == "--print")
        }
    };
    // The terminal is looked at only when the command line could mean the
    // session (not for `--version` or a subcommand).
    if !wants || !terminal() {
        return args;
    }
    let mut rewritten = args;
    rewritten.insert(1, "chat".into());
    rewritten
}

/// Claude Code's command line on tack's: `tack -p "…"` / `tack --print …`
/// (before any subcommand) is `tack run "…"`; a Claude Code flag tack does
/// not support is an error naming it. Anything else is left to clap.
pub fn claude_code_argv(args: Vec<std::ffi::OsString>) -> Result<Vec<std::ffi::OsString>, String> {
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return Ok(args);
    };
    let is_run = first == "run";
    let print_mode = !SUBCOMMANDS.contains(&first)
        && args
            .iter()
            .skip(1)
            .take_while(|a| *a != "--")
            .any(|a| a == "-p" || a == "--print");
    if !is_run && !print_mode {
        if !first.starts_with('-') && !SUBCOMMANDS.contains(&first) && args.len() == 2 {
            return Err(format!(
                "{first:?} is no command. On a terminal, tack {first:?} opens an interactive session; here (stdin or stdout is not a terminal) run the prompt with tack -p {first:?} (or tack run {first:?}); tack --help lists the commands"
            ));
        }
        return Ok(args);
    }
    for arg in args.iter().skip(1).take_while(|a| *a != "--") {
        let Some(arg) = arg.to_str() else { continue };
        let name = arg.split_once('=').map_or(arg, |(name, _)| name);
        if UNSUPPORTED_CLAUDE_FLAGS.contains(&name) {
            return Err(format!(
                "{name} is a Claude Code flag tack does not support yet; see `tack run --help` for what tack accepts (README: Coming from Claude Code)"
            ));
        }
    }
    if is_run {
        return Ok(args);
    }
    let mut rewritten = Vec::with_capacity(args.len() + 1);
    let mut after_separator = false;
    for (i, arg) in args.into_iter().enumerate() {
        if i == 1 {
            rewritten.push(std::ffi::OsString::from("run"));
        }
        if arg == "--" {
            after_separator = true;
        }
        if i > 0 && !after_separator && (arg == "-p" || arg == "--print") {
            continue;
        }
        rewritten.push(arg);
    }
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::claude_code_argv;

    fn argv(args: &[&str]) -> Vec<std::ffi::OsString> {
        std::iter::once("tack")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect()
    }

    #[test]
    fn on_a_terminal_a_prompt_or_no_command_is_the_interactive_session() {
        let chat = |args: &[&str]| super::interactive_argv(argv(args), || true);
        assert_eq!(chat(&[]), argv(&["chat"]));
        assert_eq!(chat(&["fix the tests"]), argv(&["chat", "fix the tests"]));
        assert_eq!(
            chat(&["--model", "x", "-c"]),
            argv(&["chat", "--model", "x", "-c"])
        );
        assert_eq!(chat(&["-p", "hi"]), argv(&["-p", "hi"]));
        assert_eq!(chat(&["run", "hi"]), argv(&["run", "hi"]));
        assert_eq!(chat(&["eval", "s.toml"]), argv(&["eval", "s.toml"]));
        assert_eq!(chat(&["--version"]), argv(&["--version"]));
        // Not on a terminal: unchanged (help; an unknown command's error).
        assert_eq!(
            super::interactive_argv(argv(&["hi"]), || false),
            argv(&["hi"])
        );
    }

    #[test]
    fn print_mode_becomes_run() {
        assert_eq!(
            claude_code_argv(argv(&["-p", "hi", "--output-format", "json"])).unwrap(),
            argv(&["run", "hi", "--output-format", "json"])
        );
        assert_eq!(
            claude_code_argv(argv(&["--verbose", "--print", "--", "-p"])).unwrap(),
            argv(&["run", "--verbose", "--", "-p"])
        );
        // A subcommand's own -p is left alone.
        assert_eq!(
            claude_code_argv(argv(&["mock-server", "-p", "1"])).unwrap(),
            argv(&["mock-server", "-p", "1"])
        );
        assert_eq!(
            claude_code_argv(argv(&["sessions"])).unwrap(),
            argv(&["sessions"])
        );
    }

    #[test]
    fn unsupported_claude_flags_are_named() {
        let err = claude_code_argv(argv(&["-p", "hi", "--fallback-model=x"])).unwrap_err();
        assert!(
            err.starts_with("--fallback-model is a Claude Code flag"),
            "{err}"
        );
        let err = claude_code_argv(argv(&["run", "--include-partial-messages", "hi"])).unwrap_err();
        assert!(err.contains("--include-partial-messages"), "{err}");
        let err = claude_code_argv(argv(&["fix the tests"])).unwrap_err();
        assert!(err.contains("tack -p \"fix the tests\""), "{err}");
    }
}

fn parse_threshold(text: &str) -> Result<tack_agent::Threshold, String> {
    tack_agent::Threshold::parse(text)
}
