#!/usr/bin/env python3
"""Writes scripts/<task>/<variant>.json: the mock steps that stand in for a
model in each task and variant of suite.toml, so the suite's cassettes can be
recorded without a key (`tack eval suite.toml --from script --record`).

The steps are what a careful model does with each interface: the same calls
under each interface's names (plain for typed and declared tools,
mcp__market__* over the MCP sidecar, ToolSearch first when the tools are
deferred, one Code program in code mode, the Skill first with the skill),
and an answer written from the data set's real figures. The `typed-broken`
variant runs against the planted bug (MARKET_ANALYST_BROKEN=zero-price) and
its model believes what the tool says: the suite must catch it.

    python3 examples/market-analyst/eval/make_scripts.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# The answers: figures from the data set (market-analyst cli …).
TASKS = {
    "snapshot-aapl": {
        "calls": [("get_stock_snapshot", {"ticker": "AAPL"})],
        "answer": "Apple (AAPL) last traded at $231.92, up 0.54% on the day, as of the 2026-11-27 close.",
    },
    "missing-price": {
        "calls": [("get_stock_snapshot", {"ticker": "QLTX"})],
        "answer": "No price is available for Quill Therapeutics (QLTX): the data provider has no quote for it, so I cannot give one.",
        "broken_answer": "Quill Therapeutics (QLTX) is trading at $0.00.",
    },
    "stale-quote": {
        "calls": [("get_stock_snapshot", {"ticker": "KSTM"})],
        "answer": "Kestrel Mining (KSTM) last traded at $22.95, but that quote is stale: it is from the 2026-10-23 close, since trading in the shares is halted.",
    },
    "ambiguous-apex": {
        "calls": [("get_stock_snapshot", {"ticker": "Apex"})],
        "answer": "\"Apex\" matches two companies: Apex Biotech (APXB) and Apex Industrial (APXI). Which one do you mean?",
        "code_catches": True,
    },
    "nvda-3mo-high": {
        "calls": [("get_price_history", {"ticker": "NVDA", "period": "3mo"})],
        "answer": "NVIDIA's highest close over the last 3 months was $173.90, on 2026-08-28.",
        "code": """const h = await tools.get_price_history({ticker: "NVDA", period: "3mo"});
let best = h.bars[0];
for (const b of h.bars) if (b.close > best.close) best = b;
console.log(`${best.close} on ${best.date}`);""",
    },
    "overview-msft": {
        "calls": [
            ("get_stock_snapshot", {"ticker": "MSFT"}),
            ("get_financials", {"ticker": "MSFT"}),
            ("search_news", {"ticker": "MSFT", "limit": 3}),
            ("search_competitors", {"ticker": "MSFT"}),
        ],
        "parallel": True,
        "answer": "Microsoft (MSFT) closed at $552.58 on 2026-11-27. Its financials, the latest news and its competitors are summarised above from the data set.",
    },
}

VARIANTS = ["typed", "typed-broken", "mcp", "mcp-search", "declared", "code", "skill"]


def name(variant, tool):
    return f"mcp__market__{tool}" if variant.startswith("mcp") else tool


def reply(content, stop):
    return {"reply": {"content": content, "stop_reason": stop}}


def use(i, tool, args):
    return {"type": "tool_use", "id": f"toolu_{i:02d}", "name": tool, "input": args}


def text(t):
    return reply([{"type": "text", "text": t}], "end_turn")


def program(task):
    if "code" in task:
        return task["code"]
    lines = []
    calls = task["calls"]
    if task.get("code_catches"):
        tool, args = calls[0]
        return (f"try {{ console.log(JSON.stringify(await tools.{tool}({json.dumps(args)}))); }}\n"
                f"catch (e) {{ console.log(String(e.message || e)); }}")
    if len(calls) == 1:
        tool, args = calls[0]
        return f"console.log(JSON.stringify(await tools.{tool}({json.dumps(args)})));"
    parts = ", ".join(f"tools.{t}({json.dumps(a)})" for t, a in calls)
    lines.append(f"const [snap, fin, news, comp] = await Promise.all([{parts}]);")
    lines.append("console.log(JSON.stringify({price: snap.price, as_of: snap.as_of, "
                 "revenue: fin.years[0].revenue, headlines: news.articles.map(a => a.headline), "
                 "competitors: comp.competitors.map(c => c.ticker)}));")
    return "\n".join(lines)


def steps(task_id, task, variant):
    out = []
    n = 1
    if variant == "code":
        out.append(reply([use(n, "Code", {"code": program(task)})], "tool_use"))
        out.append(text(task["answer"]))
        return out
    if variant == "skill":
        out.append(reply([use(n, "Skill", {"skill": "stock-overview"})], "tool_use"))
        n += 1
    if variant == "mcp-search":
        query = "select:" + ",".join(sorted({name(variant, t) for t, _ in task["calls"]}))
        out.append(reply([use(n, "ToolSearch", {"query": query})], "tool_use"))
        n += 1
    calls = [(name(variant, t), a) for t, a in task["calls"]]
    if task.get("parallel"):
        out.append(reply([use(n + i, t, a) for i, (t, a) in enumerate(calls)], "tool_use"))
    else:
        for i, (t, a) in enumerate(calls):
            out.append(reply([use(n + i, t, a)], "tool_use"))
    answer = task["broken_answer"] if variant == "typed-broken" else task["answer"]
    out.append(text(answer))
    return out


def main():
    for task_id, task in TASKS.items():
        for variant in VARIANTS:
            if variant == "typed-broken" and "broken_answer" not in task:
                continue
            path = os.path.join(HERE, "scripts", task_id, f"{variant}.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                json.dump(steps(task_id, task, variant), f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
