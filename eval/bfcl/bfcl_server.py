"""An MCP server (stdio) over one BFCL multi-turn entry's backends.

    bfcl_server.py --entry multi_turn_base_0 [--data DIR] [--state FILE] [--fresh]

It instantiates the entry's `involved_classes` with its `initial_config` the
way BFCL does (bfcl-eval's execute_multi_turn_func_call: `_load_scenario`
with a deep copy, long_context for the long-context categories), offers
exactly the functions of those classes from BFCL's function docs
(bfcl_eval/data/multi_turn_func_doc, converted as BFCL converts them for
Claude), and runs each call through BFCL's own execution: the call becomes
`name(k=repr(v),...)` as BFCL's FC handlers write it, and its result is the
string BFCL gives the model (a str as it is, a dict as JSON, anything else
str(); an exception as "Error during execution: ..."; never an MCP error).

After every call (and once at start) it writes the state of all instances to
./bfcl_state.json (--state): readable, pickled for check_state.py, and the
calls so far with their results. A server started where that file already
holds this entry's state goes on from it (a restart, or a series of `tack mcp
call`s); --fresh starts from the initial config instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

import bfcl_common as bfcl


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entry", required=True, help="a BFCL id, e.g. multi_turn_base_0")
    parser.add_argument("--data", help="BFCL's data directory (default: the installed bfcl-eval's)")
    parser.add_argument("--state", default=bfcl.STATE_FILE, help="the state file (default ./%(default)s)")
    parser.add_argument("--fresh", action="store_true", help="ignore a saved state of this entry")
    args = parser.parse_args()

    try:
        entry, _truth = bfcl.load_entry(args.entry, args.data)
    except bfcl.UsageError as e:
        bfcl.log(f"bfcl_server: {e}")
        return 2
    if entry.get("missed_function"):
        bfcl.log(
            f"bfcl_server: {args.entry}: all functions are offered from the start "
            "(BFCL holds some back until a later turn)"
        )
    tools = bfcl.mcp_tools(bfcl.function_docs(entry, args.data))
    names = {t["name"] for t in tools}
    state_path = Path(args.state)

    calls: list[dict] = []
    if state_path.exists() and not args.fresh:
        try:
            document, instances = bfcl.read_state(state_path, args.entry)
        except bfcl.UsageError as e:
            bfcl.log(f"bfcl_server: not resuming: {e}")
        else:
            bfcl.adopt_instances(instances, bfcl.SERVER_MODEL, args.entry)
            calls = document.get("calls", [])
            bfcl.log(f"bfcl_server: resuming {args.entry} after {len(calls)} calls")
    _, instances = bfcl.execute([], entry, bfcl.SERVER_MODEL)
    bfcl.write_state(state_path, entry, instances, calls)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
                for t in tools
            ]
        )

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        arguments = dict(params.arguments or {})
        if name not in names:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"Unknown tool: {name}")],
                is_error=True,
            )
        bad = [k for k in arguments if not k.isidentifier()]
        if bad:
            # BFCL would paste the key into Python source; refuse instead.
            text = f"Error during execution: invalid parameter name(s) {bad}"
        else:
            # Synchronous on purpose: calls run one at a time, in arrival order.
            call = bfcl.call_string(name, arguments)
            results, current = bfcl.execute([call], entry, bfcl.SERVER_MODEL)
            text = results[0]
            calls.append({"name": name, "arguments": arguments, "call": call, "result": text})
            bfcl.write_state(state_path, entry, current, calls)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server(
        "bfcl",
        version=bfcl.BFCL_VERSION,
        # No instructions: BFCL tells the model nothing beyond the function docs.
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
