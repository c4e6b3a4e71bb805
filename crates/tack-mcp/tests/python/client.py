"""An MCP client on the official Python SDK (mcp==2.3.0), for tests of
`tack mcp serve`: it connects, lists the tools, makes the calls it is given
and prints one JSON object on stdout:

    {"protocol": "...", "tools": [<tools/list entries>],
     "calls": [{"name": ..., "arguments": ..., "result": <CallToolResult>}],
     "elicitations": [<elicitation/create params>]}

Usage:
    client.py --http URL [--token TOKEN] CALLS_JSON
    client.py --stdio -- COMMAND ARGS... (CALLS_JSON in TACK_TEST_CALLS)

CALLS_JSON: [{"name": "Bash", "arguments": {"command": "echo hi"}}, ...]

Environment:
    TACK_TEST_ELICIT   how to answer elicitation/create: "allow_once",
                       "allow_session", "deny:<reason>", "decline"; unset: the
                       client declares no elicitation capability at all.
"""

import json
import os
import sys

import anyio
import httpx2
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

elicitations = []


async def answer(context, params):
    elicitations.append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
    how = os.environ["TACK_TEST_ELICIT"]
    if how == "decline":
        return types.ElicitResult(action="decline")
    if how.startswith("deny:"):
        return types.ElicitResult(action="accept", content={"decision": "deny", "reason": how[5:]})
    return types.ElicitResult(action="accept", content={"decision": how})


async def session_run(read, write, calls):
    callback = answer if "TACK_TEST_ELICIT" in os.environ else None
    async with ClientSession(read, write, elicitation_callback=callback) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        out = {
            "protocol": init.protocol_version,
            "tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools.tools],
            "list": tools.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"tools"}),
            "calls": [],
        }
        for call in calls:
            try:
                result = await session.call_tool(call["name"], call.get("arguments", {}))
            except Exception as e:  # a protocol error answers the call
                out["calls"].append({**call, "error": str(e)})
                continue
            out["calls"].append(
                {**call, "result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}
            )
        return out


async def main():
    args = sys.argv[1:]
    if args[0] == "--http":
        url = args[1]
        rest = args[2:]
        headers = {}
        if rest and rest[0] == "--token":
            headers["Authorization"] = f"Bearer {rest[1]}"
            rest = rest[2:]
        calls = json.loads(rest[0])
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                out = await session_run(read, write, calls)
    else:
        command = args[args.index("--") + 1 :]
        calls = json.loads(os.environ["TACK_TEST_CALLS"])
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await session_run(read, write, calls)
    out["elicitations"] = elicitations
    print(json.dumps(out))


anyio.run(main)
