"""A 2026-07-28 MCP server that runs calls as tasks (`io.modelcontextprotocol/tasks`).

The pinned Python SDK (mcp==2.3.0) does not implement the tasks extension on
the server side, so this is raw JSON-RPC over stdio (newline-delimited),
following ext-tasks' draft schema: a `tools/call` from a client that
declared the extension answers `resultType: "task"`; `tasks/get`,
`tasks/update` and `tasks/cancel` drive it.

Tools:
    brew     a task that reports `statusMessage` step 1..3 and completes with
             "brewed <kind>" after `steps` polls (pollIntervalMs 50)
    approve  a task that goes `input_required` (an elicitation) and completes with
             the action the client sent through tasks/update
    forever  a task that never completes; `tasks/cancel` marks it cancelled and
             writes $TACK_TEST_MARKERS/task-cancelled
    broken   a task that fails with a JSON-RPC error
    plain    answers at once, no task

Every request line is appended to $TACK_TEST_MARKERS/requests (JSON). Tasks are
kept in $TACK_TEST_MARKERS/tasks.json, so a restarted server still knows them
(as a server whose tasks outlive its process would).
"""

import datetime
import json
import os
import sys

TASKS = "io.modelcontextprotocol/tasks"
MARKERS = os.environ.get("TACK_TEST_MARKERS")

tasks = {}
counter = 0


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def mark(name, text):
    if MARKERS:
        with open(os.path.join(MARKERS, name), "a") as f:
            f.write(text + "\n")


def tool(name, description, properties=None):
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties or {}},
    }


TOOLS = [
    tool("brew", "Brews slowly, as a task.", {"kind": {"type": "string"}, "steps": {"type": "integer"}}),
    tool("approve", "Asks for approval inside a task."),
    tool("forever", "Never finishes."),
    tool("broken", "Fails inside its task."),
    tool("plain", "Answers at once."),
]


def text_result(text):
    return {"content": [{"type": "text", "text": text}], "isError": False}


def base(task):
    out = {
        "taskId": task["id"],
        "status": task["status"],
        "createdAt": task["created"],
        "lastUpdatedAt": now(),
        "ttlMs": 600000,
        "pollIntervalMs": 50,
    }
    if task.get("message"):
        out["statusMessage"] = task["message"]
    return out


def advance(task):
    """One poll's worth of progress."""
    if task["status"] != "working":
        return
    task["polls"] += 1
    kind = task["tool"]
    if kind == "brew":
        steps = task["args"].get("steps", 3)
        if task["polls"] >= steps:
            task["status"] = "completed"
            task["result"] = text_result(f"brewed {task['args'].get('kind', 'tea')}")
            task["message"] = "done"
        else:
            task["message"] = f"step {task['polls']} of {steps}"
    elif kind == "approve":
        if task.get("answer") is not None:
            task["status"] = "completed"
            task["result"] = text_result(f"approve: the client answered {task['answer'].get('action')}")
        else:
            task["status"] = "input_required"
            task["message"] = "waiting for approval"
    elif kind == "broken":
        task["status"] = "failed"
        task["error"] = {"code": -32603, "message": "the kettle exploded"}
    elif kind == "forever":
        task["message"] = f"still going ({task['polls']})"


def detailed(task):
    out = base(task)
    if task["status"] == "completed":
        out["result"] = task["result"]
    elif task["status"] == "failed":
        out["error"] = task["error"]
    elif task["status"] == "input_required":
        out["inputRequests"] = {
            "ok": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Deploy to production?",
                    "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
                },
            }
        }
    return out


def caps_of(params):
    meta = params.get("_meta") or {}
    return meta.get("io.modelcontextprotocol/clientCapabilities") or {}


def handle(req):
    global counter
    method = req.get("method")
    params = req.get("params") or {}
    if method == "server/discover":
        return {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "extensions": {TASKS: {}}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tack-test-tasks", "version": "1.0.0"}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
    if method == "tools/list":
        return {"resultType": "complete", "tools": TOOLS, "ttlMs": 0, "cacheScope": "private"}
    if method == "tools/call":
        name = params.get("name")
        if name == "plain":
            return text_result("plain answer")
        if TASKS not in (caps_of(params).get("extensions") or {}):
            return text_result(f"{name}: the client did not opt in to tasks")
        counter += 1
        task = {
            "id": f"task-{counter}",
            "tool": name,
            "args": params.get("arguments") or {},
            "status": "working",
            "message": "queued",
            "created": now(),
            "polls": 0,
        }
        tasks[task["id"]] = task
        mark("task-ids", task["id"])
        return dict(base(task), resultType="task")
    if method in ("tasks/get", "tasks/update", "tasks/cancel"):
        task = tasks.get(params.get("taskId"))
        if task is None:
            raise LookupError(params.get("taskId"))
        if method == "tasks/get":
            advance(task)
            return dict(detailed(task), resultType="complete")
        if method == "tasks/update":
            task["answer"] = (params.get("inputResponses") or {}).get("ok")
            task["status"] = "working"
            return {"resultType": "complete"}
        task["status"] = "cancelled"
        mark("task-cancelled", task["id"])
        return {"resultType": "complete"}
    raise NotImplementedError(method)


def load():
    global counter
    if MARKERS and os.path.exists(os.path.join(MARKERS, "tasks.json")):
        with open(os.path.join(MARKERS, "tasks.json")) as f:
            tasks.update(json.load(f))
        counter = len(tasks)


def save():
    if MARKERS:
        tmp = os.path.join(MARKERS, "tasks.json.tmp")
        with open(tmp, "w") as f:
            json.dump(tasks, f)
        os.replace(tmp, os.path.join(MARKERS, "tasks.json"))


def main():
    load()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        if "method" not in req or "id" not in req:
            continue  # notifications and responses
        mark("requests", line)
        try:
            result = handle(req)
            save()
            send({"jsonrpc": "2.0", "id": req["id"], "result": result})
        except LookupError as e:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32602, "message": f"unknown task {e}"}})
        except NotImplementedError as e:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": f"method not found: {e}"}})


if __name__ == "__main__":
    main()
