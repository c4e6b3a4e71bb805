"""Generates the tack eval suite of BFCL's multi-turn entries from the
installed bfcl-eval package's data:

    convert.py [--category base] [--category long_context ...] [--limit N] [--out DIR]

Writes, in eval/bfcl (--out):
  suite.toml          one task per entry: its user turns as `prompts`, a
                      .mcp.json starting the BFCL server on the entry, a
                      .tack/settings.json allowing its tools, and the state
                      check (check_state.py) as the task's check command
  scripts/<id>.json   the entry's ground truth as mock model steps: per user
                      turn, each ground-truth call as one tool_use step, in
                      order, then a text step that ends the turn

Categories: base (the default), long_context, miss_param. miss_func is
refused: BFCL adds its held-out functions at a later turn, which an MCP
server (whose tools are listed once) cannot reproduce.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tomllib
from pathlib import Path

import bfcl_common as bfcl

HERE = Path(__file__).resolve().parent
DONE = "Done."
NOTHING = "I cannot do that with the functions I have."


def script_for(entry: dict, truth: list[list[str]]) -> list[dict]:
    steps: list[dict] = []
    for turn_index, turn in enumerate(truth):
        for call_index, call in enumerate(turn):
            name, arguments = bfcl.parse_call(call, entry)
            steps.append(
                {
                    "reply": {
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"toolu_bfcl_{turn_index:02d}_{call_index:02d}",
                                "name": f"mcp__bfcl__{name}",
                                "input": arguments,
                            }
                        ],
                        "stop_reason": "tool_use",
                    }
                }
            )
        steps.append(
            {
                "reply": {
                    "content": [{"type": "text", "text": DONE if turn else NOTHING}],
                    "stop_reason": "end_turn",
                }
            }
        )
    return steps


def prompts_of(entry: dict) -> list[str]:
    prompts = []
    for turn in entry["question"]:
        texts = [m["content"] for m in turn if m.get("role") == "user"]
        if not texts:
            raise ValueError(f"{entry['id']}: a turn without a user message")
        prompts.append("\n\n".join(texts))
    return prompts


def toml_string(value: str) -> str:
    # A JSON string is a TOML basic string (same escapes; no "\/" from json.dumps).
    return json.dumps(value, ensure_ascii=False)


def toml_array(values: list[str]) -> str:
    return "[" + ", ".join(toml_string(v) for v in values) + "]"


def task_toml(entry_id: str, prompts: list[str]) -> str:
    mcp_json = json.dumps(
        {"mcpServers": {"bfcl": {"command": "bfcl-server", "args": ["--entry", entry_id]}}}
    )
    settings_json = json.dumps({"permissions": {"allow": ["mcp__bfcl"]}})
    lines = [
        "[[task]]",
        f"id = {toml_string(entry_id)}",
        "prompts = [",
        *[f"  {toml_string(p)}," for p in prompts],
        "]",
        "tools = []",
        f"script = {toml_string(f'scripts/{entry_id}.json')}",
        "[task.files]",
        f"\".mcp.json\" = {toml_string(mcp_json)}",
        f"\".tack/settings.json\" = {toml_string(settings_json)}",
        "[task.check]",
        f"command = {toml_array(['bfcl-check', '--entry', entry_id])}",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--category",
        action="append",
        choices=bfcl.CATEGORIES,
        help="a multi_turn category (repeatable; default: base)",
    )
    parser.add_argument("--limit", type=int, help="the first N entries of each category only")
    parser.add_argument("--data", help="BFCL's data directory (default: the installed bfcl-eval's)")
    parser.add_argument("--out", default=str(HERE), help="where suite.toml and scripts/ go")
    args = parser.parse_args()
    categories = args.category or ["base"]
    if "miss_func" in categories:
        print(
            "convert: miss_func is not supported: BFCL adds its held-out functions at a later "
            "turn, and the BFCL MCP server lists its tools once",
            file=sys.stderr,
        )
        return 2

    out = Path(args.out)
    scripts = out / "scripts"
    if scripts.exists():
        shutil.rmtree(scripts)
    scripts.mkdir(parents=True)

    tasks: list[str] = []
    most_requests = 0
    counts: dict[str, int] = {}
    for category in categories:
        ids = bfcl.entry_ids(f"multi_turn_{category}", args.data)
        if args.limit:
            ids = ids[: args.limit]
        counts[category] = len(ids)
        for entry_id in ids:
            entry, truth = bfcl.load_entry(entry_id, args.data)
            prompts = prompts_of(entry)
            if len(prompts) != len(truth):
                raise ValueError(f"{entry_id}: {len(prompts)} turns but {len(truth)} ground-truth turns")
            steps = script_for(entry, truth)
            most_requests = max(most_requests, len(steps))
            (scripts / f"{entry_id}.json").write_text(
                "[\n" + ",\n".join(json.dumps(s, ensure_ascii=False) for s in steps) + "\n]\n",
                encoding="utf-8",
            )
            tasks.append(task_toml(entry_id, prompts))

    # tack's --max-turns counts model requests; leave room for a real model
    # that takes more steps than the ground truth.
    max_turns = max(60, 2 * most_requests)
    header = f"""# Generated by eval/bfcl/convert.py from bfcl-eval {bfcl.BFCL_VERSION}
# (categories: {", ".join(categories)}); do not edit, run the converter.
# BFCL's data and backends: Apache-2.0, Berkeley Function Calling Leaderboard
# (ShishirPatil/gorilla). See eval/bfcl/README.md.
name = "bfcl-multi-turn"
description = "BFCL multi-turn entries through tack: the backends as an MCP server, scored by BFCL's state comparison"
# bin/ holds bfcl-server and bfcl-check, which find the venv of setup.sh.
path = ["bin"]
max_turns = {max_turns}
timeout_secs = 600

[[variant]]
name = "mcp"
interface = "mcp"
args = ["--approve-mcp"]

"""
    suite = out / "suite.toml"
    suite.write_text(header + "\n".join(tasks), encoding="utf-8")
    tomllib.loads(suite.read_text(encoding="utf-8"))  # it parses
    total = sum(counts.values())
    print(
        f"convert: {total} entries ({', '.join(f'{c}: {n}' for c, n in counts.items())}) "
        f"-> {suite} and {scripts}/ (max_turns {max_turns})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
