"""Checks a run against BFCL: is the backend state the run left in
./bfcl_state.json the state BFCL expects for the entry?

    check_state.py --entry multi_turn_base_0 [--state FILE] [--data DIR] [--state-only] [--json]

The expected state is computed here by BFCL's own code: the entry's ground
truth, turn by turn, through execute_multi_turn_func_call on fresh
instances. The comparison is BFCL's own `state_checker` (multi_turn_checker.py:
every public attribute of every involved instance compared with `!=`), on the
instances the server pickled, so nothing is lost in a JSON round trip.

BFCL also checks that each turn's ground-truth results appear among the
model's results (`response_checker`, order ignored). That check runs here too,
on all the run's results, since the state file does not know where one user
turn ended: a result the model produced only in a later turn counts here, and
BFCL would fail it. --state-only skips it.

BFCL checks state and results after every turn with ground truth; this
checks the end. A run that breaks the state midway and repairs it by the end
passes here and would fail in BFCL. BFCL's irrelevance check (no call in a
turn whose ground truth is empty: miss_param, miss_func) needs turns too and
is not made.

Exit 0: match. 1: mismatch, with a readable diff. 2: usage or setup error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import bfcl_common as bfcl


def diff(model: Any, truth: Any, path: str, out: list[str], limit: int = 40) -> None:
    """Where two JSON renderings differ, as `path: model … expected …` lines."""
    if len(out) >= limit:
        return
    if isinstance(model, dict) and isinstance(truth, dict):
        for key in list(truth.keys()) + [k for k in model if k not in truth]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in model:
                out.append(f"  {sub}: missing (expected {short(truth[key])})")
            elif key not in truth:
                out.append(f"  {sub}: unexpected {short(model[key])}")
            else:
                diff(model[key], truth[key], sub, out, limit)
            if len(out) >= limit:
                out.append("  …")
                return
        return
    if isinstance(model, list) and isinstance(truth, list) and len(model) == len(truth):
        for i, (m, t) in enumerate(zip(model, truth)):
            diff(m, t, f"{path}[{i}]", out, limit)
        return
    if model != truth or type(model) is not type(truth):
        out.append(f"  {path}: {short(model)} (expected {short(truth)})")


def short(value: Any, width: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entry", required=True)
    parser.add_argument("--state", default=bfcl.STATE_FILE)
    parser.add_argument("--data")
    parser.add_argument("--state-only", action="store_true", help="skip BFCL's response check")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    args = parser.parse_args()

    try:
        entry, truth = bfcl.load_entry(args.entry, args.data)
        document, model_instances = bfcl.read_state(Path(args.state), args.entry)
    except bfcl.UsageError as e:
        print(f"check_state: {e}", file=sys.stderr)
        return 2

    # Imported here: the checker is BFCL's, from the installed package.
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (
        response_checker,
        state_checker,
    )

    truth_instances, truth_results = bfcl.ground_truth_instances(entry, truth)
    problems: list[str] = []
    verdict: dict[str, Any] = {"entry": args.entry, "calls": len(document.get("calls", []))}

    if set(model_instances) != set(truth_instances):
        print(
            f"check_state: the state has {sorted(model_instances)}, BFCL expects {sorted(truth_instances)}",
            file=sys.stderr,
        )
        return 2
    state = state_checker(model_instances, truth_instances)
    verdict["state"] = state["valid"]
    if not state["valid"]:
        lines: list[str] = []
        for attr, pair in state["details"]["differences"].items():
            diff(
                bfcl.to_jsonable(pair["model"]),
                bfcl.to_jsonable(pair["ground_truth"]),
                attr,
                lines,
            )
        problems.append(state["error_message"] + "\n" + "\n".join(lines))

    if not args.state_only:
        model_results = [c["result"] for c in document.get("calls", [])]
        missing_all = []
        for turn_index, (turn, results) in enumerate(zip(truth, truth_results)):
            if not turn:
                continue
            check = response_checker(model_results, results, turn_index)
            if not check["valid"]:
                missing_all.append((turn_index, check["details"]["missing_items"]))
        verdict["responses"] = not missing_all
        for turn_index, missing in missing_all:
            problems.append(
                f"Turn {turn_index}: ground-truth results missing from the run's results:\n"
                + "\n".join(f"  {short(m)}" for m in missing)
            )

    verdict["match"] = not problems
    if args.json:
        verdict["problems"] = problems
        print(json.dumps(verdict))
    elif problems:
        print(f"{args.entry}: MISMATCH after {verdict['calls']} calls")
        print("\n".join(problems))
    else:
        print(f"{args.entry}: state matches BFCL's expected state ({verdict['calls']} calls)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
