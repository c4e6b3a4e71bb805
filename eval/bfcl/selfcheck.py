"""Proves the BFCL MCP server and the state check faithful without tack: for
each entry, an MCP client (the official SDK's stdio client) starts
bfcl_server.py in a fresh directory, makes the entry's ground-truth calls
through it in order (as convert.py scripts them), then runs check_state.py
there. A faithful server and checker match on every entry whose ground truth
BFCL itself can replay.

    selfcheck.py [--category base] [--limit N] [--entry ID ...] [--jobs 2] [--keep DIR]
    selfcheck.py --drop-last ...    the checker's own test: leave out each entry's
                                    last ground-truth call; every entry must then
                                    fail its check (exit 1), state or results

Also checked, per entry: the tools offered are exactly the functions of the
entry's classes in BFCL's docs, every input schema is a valid JSON Schema,
and each ground-truth call's arguments satisfy its tool's schema (a harness
that validates inputs would otherwise refuse them).

Exit 0 when every entry matched, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import jsonschema
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import bfcl_common as bfcl

HERE = Path(__file__).resolve().parent


async def drive(entry_id: str, work: Path, data: str | None, drop_last: bool = False) -> dict:
    entry, truth = bfcl.load_entry(entry_id, data)
    if drop_last:
        last = max(i for i, turn in enumerate(truth) if turn)
        truth[last] = truth[last][:-1]
    expected_names = [d["name"] for d in bfcl.function_docs(entry, data)]
    argv = [str(HERE / "bfcl_server.py"), "--entry", entry_id]
    if data:
        argv += ["--data", data]
    params = StdioServerParameters(command=sys.executable, args=argv, cwd=str(work))
    notes: list[str] = []
    calls = 0
    with open(work / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = (await session.list_tools()).tools
                schemas = {t.name: t.input_schema for t in listed}
                if sorted(schemas) != sorted(expected_names):
                    notes.append(f"tools differ from BFCL's docs: {sorted(set(schemas) ^ set(expected_names))}")
                for name, schema in schemas.items():
                    try:
                        jsonschema.Draft202012Validator.check_schema(schema)
                    except jsonschema.SchemaError as e:
                        notes.append(f"{name}: invalid input schema: {e.message}")
                for turn in truth:
                    for call in turn:
                        name, arguments = bfcl.parse_call(call, entry)
                        if name in schemas:
                            errors = list(jsonschema.Draft202012Validator(schemas[name]).iter_errors(arguments))
                            if errors:
                                notes.append(f"{call}: arguments outside the schema: {errors[0].message}")
                        result = await session.call_tool(name, arguments)
                        calls += 1
                        if result.is_error:
                            notes.append(f"{call}: MCP error {result.content}")
    check = subprocess.run(
        [sys.executable, str(HERE / "check_state.py"), "--entry", entry_id]
        + (["--data", data] if data else []),
        cwd=work,
        capture_output=True,
        text=True,
    )
    return {
        "entry": entry_id,
        "calls": calls,
        "exit": check.returncode,
        "output": (check.stdout + check.stderr).strip(),
        "notes": notes,
    }


async def run_all(
    ids: list[str], jobs: int, keep: Path | None, data: str | None, drop_last: bool
) -> list[dict]:
    results: dict[str, dict] = {}
    limiter = anyio.CapacityLimiter(jobs)

    async def one(entry_id: str) -> None:
        async with limiter:
            if keep:
                work = keep / entry_id
                work.mkdir(parents=True, exist_ok=True)
                (work / bfcl.STATE_FILE).unlink(missing_ok=True)
                results[entry_id] = await drive(entry_id, work, data, drop_last)
            else:
                with tempfile.TemporaryDirectory(prefix="bfcl-selfcheck-") as tmp:
                    results[entry_id] = await drive(entry_id, Path(tmp), data, drop_last)
            r = results[entry_id]
            r["ok"] = r["exit"] == (1 if drop_last else 0)
            mark = ("ok" if r["ok"] else "UNEXPECTED") + f" (check exit {r['exit']})"
            print(f"{entry_id}: {mark}, {r['calls']} calls", file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        for entry_id in ids:
            tg.start_soon(one, entry_id)
    return [results[i] for i in ids]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--category", action="append", choices=bfcl.CATEGORIES)
    parser.add_argument("--entry", action="append", help="an entry id (repeatable)")
    parser.add_argument("--limit", type=int, help="the first N entries of each category")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", help="keep each entry's working directory under this one")
    parser.add_argument("--data")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--drop-last", action="store_true", help="leave out the last call: every check must fail")
    parser.add_argument("--verbose", action="store_true", help="with --drop-last: print every check's output")
    args = parser.parse_args()

    ids = list(args.entry or [])
    if not ids:
        for category in args.category or ["base"]:
            found = bfcl.entry_ids(f"multi_turn_{category}", args.data)
            ids += found[: args.limit] if args.limit else found
    started = time.monotonic()
    results = anyio.run(
        run_all, ids, args.jobs, Path(args.keep) if args.keep else None, args.data, args.drop_last
    )
    matched = [r for r in results if r["ok"]]
    with_notes = [r for r in results if r["notes"]]
    print()
    for r in results:
        if not r["ok"] or (args.drop_last and args.verbose):
            print(f"--- {r['entry']} ({r['calls']} calls): exit {r['exit']}")
            print(r["output"])
    for r in with_notes:
        print(f"--- {r['entry']}: notes")
        for n in r["notes"]:
            print(f"  {n}")
    share = 100.0 * len(matched) / len(results) if results else 0.0
    what = (
        "fail their check without their last call (the checker notices)"
        if args.drop_last
        else "match BFCL's expected state"
    )
    print(
        f"\nselfcheck: {len(matched)}/{len(results)} entries {what} "
        f"({share:.1f}%), {sum(r['calls'] for r in results)} calls, "
        f"{len(with_notes)} with notes, {time.monotonic() - started:.0f}s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0 if len(matched) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
