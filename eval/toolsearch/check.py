#!/usr/bin/env python3
"""Validate the tool-search retrieval set: catalog.json, queries.jsonl and
the held-out sets in heldout/; catalog2/catalog.json and its sets in
catalog2/heldout/.

    python3 eval/toolsearch/check.py

Exits 1 on any error and prints a summary.
"""
import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("direct", "paraphrase", "ambiguous", "multi", "none")
MIN_TOOLS, MIN_QUERIES = 600, 200


def main():
    errors = []
    keys = check_catalog(HERE / "catalog.json", errors)
    for path in [HERE / "queries.jsonl", *sorted((HERE / "heldout").glob("*.jsonl"))]:
        n = check_queries(path, keys, errors)
        if path.name == "queries.jsonl" and n < MIN_QUERIES:
            errors.append(f"queries: {n} < {MIN_QUERIES}")
    # The second catalog (held out: servers the ranker was never tuned on)
    # and the sets written over it.
    keys2 = check_catalog(HERE / "catalog2" / "catalog.json", errors)
    for server in sorted({k[0] for k in keys2} & {k[0] for k in keys}):
        errors.append(f"catalog2: server {server} is also in the first catalog")
    for path in sorted((HERE / "catalog2" / "heldout").glob("*.jsonl")):
        check_queries(path, keys2, errors)
    if errors:
        print(f"{len(errors)} errors:")
        for e in errors[:200]:
            print("  " + e)
        return 1
    print("OK")
    return 0


def check_catalog(path, errors):
    """Checks a catalog file; prints its servers and returns its tools'
    (server, name) keys."""
    name = path.relative_to(HERE)
    catalog = json.loads(path.read_text())
    keys = set()
    servers = collections.OrderedDict()
    for i, t in enumerate(catalog):
        for f in ("server", "package", "version", "name", "description", "inputSchema"):
            if f not in t:
                errors.append(f"{name}[{i}] lacks {f}")
        k = (t.get("server"), t.get("name"))
        if k in keys:
            errors.append(f"{name}: duplicate tool {k}")
        keys.add(k)
        if not str(t.get("package", "")).startswith(("npm:", "pypi:")):
            errors.append(f"{name}[{i}]: package {t.get('package')!r} is not npm:/pypi:")
        if not isinstance(t.get("inputSchema"), dict):
            errors.append(f"{name}[{i}]: inputSchema is not an object")
        s = servers.setdefault(t.get("server"), {"package": t.get("package"), "version": t.get("version"), "tools": 0})
        s["tools"] += 1
        if (s["package"], s["version"]) != (t.get("package"), t.get("version")):
            errors.append(f"{name}: server {t.get('server')} has several packages/versions")
    if [(t["server"], t["name"]) for t in catalog] != sorted((t["server"], t["name"]) for t in catalog):
        errors.append(f"{name}: not sorted by (server, name)")
    if len(catalog) < MIN_TOOLS:
        errors.append(f"{name}: {len(catalog)} tools < {MIN_TOOLS}")
    print(f"{name}: {len(catalog)} tools from {len(servers)} servers")
    for server, s in servers.items():
        print(f"  {server:30} {s['package']}@{s['version']}: {s['tools']}")
    return keys


def check_queries(path, keys, errors):
    """Checks one file of labelled queries against the catalog's tools;
    prints its summary and returns how many queries it has."""
    name = path.relative_to(HERE)
    ids = set()
    kinds = collections.Counter()
    used = collections.Counter()
    n_labels = []
    queries = []
    for ln, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{name}:{ln}: bad JSON: {e}")
            continue
        queries.append(q)
        qid = q.get("id")
        if not qid or qid in ids:
            errors.append(f"{name}:{ln}: missing or duplicate id {qid!r}")
        ids.add(qid)
        if not isinstance(q.get("query"), str) or not q["query"].strip():
            errors.append(f"{qid}: empty query")
        kind = q.get("kind")
        if kind not in KINDS:
            errors.append(f"{qid}: bad kind {kind!r}")
        kinds[kind] += 1
        steps = q.get("steps")
        if not isinstance(steps, list):
            errors.append(f"{qid}: steps is not a list")
            continue
        if kind == "none" and steps:
            errors.append(f"{qid}: a 'none' query must have no steps")
        if kind == "multi" and not 2 <= len(steps) <= 3:
            errors.append(f"{qid}: a 'multi' query needs 2-3 steps, has {len(steps)}")
        if kind in ("direct", "paraphrase", "ambiguous") and len(steps) != 1:
            errors.append(f"{qid}: a {kind!r} query needs exactly 1 step, has {len(steps)}")
        # The held-out sets' writers also counted several tools of one
        # server as ambiguous (histogram, box plot or violin chart).
        if (kind == "ambiguous" and steps and name.parent == Path(".")
                and len({c.get("server") for c in steps[0]}) < 2):
            errors.append(f"{qid}: an 'ambiguous' query should label tools of at least 2 servers")
        for si, step in enumerate(steps):
            if not step:
                errors.append(f"{qid}: step {si} is empty")
            seen = set()
            for c in step:
                k = (c.get("server"), c.get("name"))
                if k not in keys:
                    errors.append(f"{qid}: step {si}: unknown tool {k}")
                if k in seen:
                    errors.append(f"{qid}: step {si}: tool {k} listed twice")
                seen.add(k)
                used[k] += 1
            n_labels.append(len(step))
    print(f"{name}: {len(queries)} queries: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
    steps_total = len(n_labels)
    if steps_total:
        print(f"  {steps_total} labelled steps, {sum(n_labels)} labels, "
              f"{sum(n_labels) / steps_total:.2f} correct tools per step (max {max(n_labels)}); "
              f"{len(used)} distinct tools labelled from {len({k[0] for k in used})} servers")
    return len(queries)


if __name__ == "__main__":
    sys.exit(main())
