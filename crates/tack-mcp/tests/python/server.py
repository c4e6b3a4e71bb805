"""A small MCP server for tack's client tests, on the official Python SDK (mcp==2.3.0).

It speaks 2026-07-28 (server/discover, no handshake) and the handshake
revisions up to 2025-11-25, over stdio or streamable HTTP on 127.0.0.1.

    server.py                      stdio
    server.py --http PORT_FILE     streamable HTTP at /mcp on 127.0.0.1:<free port>;
                                   the port is written to PORT_FILE once listening

Environment:
    TACK_TEST_DESC     replaces the description of `echo` (pin-change tests)
    TACK_TEST_MARKERS  a directory: each start appends its pid to `started`, and
                       `slow` writes `cancelled` there when it is cancelled
    TACK_TEST_EXTRA    any value: shown by `env` (env-expansion tests); `env`
                       with a `name` shows that variable instead
    TACK_TEST_TOOLS_TTL_MS, TACK_TEST_TOOLS_SCOPE  the `ttlMs` and `cacheScope`
                       (public by default) of `tools/list` results; unset, the
                       SDK's default (ttlMs 0, private)
    TACK_TEST_LEGACY   any value: serve the handshake revisions only, as a
                       pre-2026 server does (server/discover is refused), so
                       the client negotiates 2025-11-25
    TACK_TEST_BOOT_DELAY  seconds (a float) to wait before reading the first
                       message, as a server with a slow start does
"""

import os
import socket
import sys
import time

import anyio
from pydantic import BaseModel

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

def _cache_hints() -> dict:
    ttl = os.environ.get("TACK_TEST_TOOLS_TTL_MS")
    if not ttl:
        return {}
    scope = os.environ.get("TACK_TEST_TOOLS_SCOPE", "public")
    return {"tools/list": CacheHint(ttl_ms=int(ttl), scope=scope)}


server = MCPServer(name="tack-test-python", version="1.0.0", cache_hints=_cache_hints())


@server.tool(
    description=os.environ.get("TACK_TEST_DESC", "Echoes the text back."),
    annotations=ToolAnnotations(read_only_hint=True),
)
def echo(text: str) -> str:
    return f"echo: {text}"


class Sum(BaseModel):
    a: int
    b: int
    sum: int


@server.tool(description="Adds two integers; returns structured content only.")
def add(a: int, b: int) -> Sum:
    return Sum(a=a, b=b, sum=a + b)


@server.tool(
    description="Always fails with the given message.",
    annotations=ToolAnnotations(destructive_hint=True),
)
def fail(message: str) -> str:
    raise ToolError(message)


@server.tool(description="Sleeps for `seconds`, reporting progress every 0.1 s.")
async def slow(seconds: float, ctx: Context) -> str:
    steps = max(1, int(seconds * 10))
    try:
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1}")
            await anyio.sleep(seconds / steps)
    except anyio.get_cancelled_exc_class():
        markers = os.environ.get("TACK_TEST_MARKERS")
        if markers:
            with open(os.path.join(markers, "cancelled"), "w") as f:
                f.write("cancelled\n")
        raise
    return f"slept {seconds}"


@server.tool(description="Returns this server's process id.")
def pid() -> str:
    return str(os.getpid())


@server.tool(description="Returns the value of TACK_TEST_EXTRA (or of the variable named).")
def env(name: str = "TACK_TEST_EXTRA") -> str:
    return os.environ.get(name, "<unset>")


@server.tool(description="Returns the Authorization header of the HTTP request, if any.")
def whoami(ctx: Context) -> str:
    headers = ctx.headers or {}
    return headers.get("authorization", "<none>")


def _added(text: str) -> str:
    return f"added: {text}"


@server.tool(description="Adds a tool named `name` and announces the change (list_changed).")
async def add_tool(name: str, ctx: Context) -> str:
    server.add_tool(_added, name=name, description=f"A tool added at run time: {name}.")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool(description="Removes the tool named `name` and announces the change (list_changed).")
async def remove_tool(name: str, ctx: Context) -> str:
    server.remove_tool(name)
    await ctx.notify_tools_changed()
    return f"removed {name}"


# Names the client must sanitise: two that collide once `.` becomes `_`, and a long one.
@server.tool(name="dotted.name", description="A tool whose name has a dot.")
def dotted_dot() -> str:
    return "dot"


@server.tool(name="dotted_name", description="A tool whose name has an underscore.")
def dotted_underscore() -> str:
    return "underscore"


@server.tool(name="a_tool_name_that_is_much_longer_than_the_model_apis_allow_for_names", description="Long.")
def long_name() -> str:
    return "long"


async def serve_http(port_file: str) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning")
    http = uvicorn.Server(config)
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(port))
    os.replace(tmp, port_file)
    await http.serve(sockets=[sock])


def _legacy_only() -> None:
    import mcp.server.runner as runner

    runner._has_modern_envelope = lambda params: False


def main() -> None:
    if os.environ.get("TACK_TEST_LEGACY"):
        _legacy_only()
    print("tack-test-python starting", file=sys.stderr, flush=True)
    markers = os.environ.get("TACK_TEST_MARKERS")
    if markers:
        with open(os.path.join(markers, "started"), "a") as f:
            f.write(f"{os.getpid()}\n")
    delay = float(os.environ.get("TACK_TEST_BOOT_DELAY", "0") or "0")
    if delay > 0:
        time.sleep(delay)
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        anyio.run(serve_http, sys.argv[2])
    else:
        server.run()


if __name__ == "__main__":
    main()
