"""An MCP client on the official Python SDK (mcp==2.3.0) that knows nothing
of the skills extension: it reads a server's skills as prompts (and their
files as resources), for tests of `tack mcp serve`. It prints one JSON object:

    {"capabilities": {...}, "prompts": [<prompts/list entries>],
     "got": {NAME: <prompts/get result>}, "resources": [<resources/list>],
     "read": {URI: <resources/read result>}}

Usage:
    prompts_client.py --http URL [--token TOKEN] ARGS
    prompts_client.py --stdio ARGS -- COMMAND ARGS...

Each prompt is got with {"args": ARGS}; each resource whose URI ends in
SKILL.md is read.
"""

import json
import os
import sys

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(value):
    return value.model_dump(by_alias=True, mode="json", exclude_none=True)


async def session_run(read, write, args):
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        prompts = await session.list_prompts()
        out = {
            "capabilities": dump(init.capabilities),
            "prompts": [dump(p) for p in prompts.prompts],
            "got": {},
            "resources": [],
            "read": {},
        }
        for prompt in prompts.prompts:
            got = await session.get_prompt(prompt.name, {"args": args})
            out["got"][prompt.name] = dump(got)
        resources = await session.list_resources()
        out["resources"] = [dump(r) for r in resources.resources]
        for resource in resources.resources:
            uri = str(resource.uri)
            if uri.endswith("SKILL.md"):
                out["read"][uri] = dump(await session.read_resource(uri))
        return out


async def main():
    argv = sys.argv[1:]
    if argv[0] == "--http":
        url = argv[1]
        rest = argv[2:]
        headers = {}
        if rest and rest[0] == "--token":
            headers["Authorization"] = f"Bearer {rest[1]}"
            rest = rest[2:]
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                out = await session_run(read, write, rest[0])
    else:
        args = argv[1]
        command = argv[argv.index("--") + 1 :]
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await session_run(read, write, args)
    print(json.dumps(out))


anyio.run(main)
