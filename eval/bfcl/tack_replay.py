"""Runs suite.toml's tasks through `tack run` without `tack eval`: each task in
a fresh directory with its files, its script served by `tack mock-server`,
its turns fed as stream-json, then its check command. For debugging one
entry, or checking the suite before tack eval records it.

    tack_replay.py [--tack PATH] [--keep] [ID ...]      (all tasks without IDs)

--tack defaults to $TACK, else `tack` on PATH. Prints one line per task and a
summary; exit 0 when every task's run and check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_task(tack: str, suite: dict, root: Path, task: dict, keep: bool) -> tuple[bool, str]:
    work = Path(tempfile.mkdtemp(prefix=f"bfcl-{task['id']}-"))
    project = work / "project"
    for sub in ("home", "state", "config"):
        (work / sub).mkdir(parents=True)
    project.mkdir()
    for name, text in task.get("files", {}).items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    path_dirs = [str((root / p).resolve()) for p in suite.get("path", [])]
    env = dict(os.environ)
    env.update(
        PATH=":".join(path_dirs + [os.environ.get("PATH", "")]),
        HOME=str(work / "home"),
        TACK_STATE_DIR=str(work / "state"),
        TACK_CONFIG_DIR=str(work / "config"),
        TACK_EVAL_SUITE_DIR=str(root),
        NO_COLOR="1",
    )
    mock = subprocess.Popen(
        [tack, "mock-server", "--port", "0", "--script", str(root / task["script"])],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        first = mock.stdout.readline()
        found = re.search(r"http://[0-9.:]+", first)
        if not found:
            return False, f"mock-server said {first!r}"
        env.update(ANTHROPIC_BASE_URL=found.group(0), ANTHROPIC_API_KEY="tack-replay")
        turns = "".join(
            json.dumps({"type": "user", "message": {"role": "user", "content": p}}) + "\n"
            for p in task["prompts"]
        )
        argv = [
            tack, "run",
            "--input-format", "stream-json", "--output-format", "stream-json",
            "--max-turns", str(suite.get("max_turns", 30)),
            "--provider", "anthropic", "--model", "claude-sonnet-4-5",
            *suite["variant"][0].get("args", []),
        ]
        run = subprocess.run(
            argv, input=turns, capture_output=True, text=True, env=env, cwd=project,
            timeout=suite.get("timeout_secs", 300),
        )
    finally:
        mock.terminate()
        mock.wait()
    (work / "run.jsonl").write_text(run.stdout)
    (work / "run.stderr").write_text(run.stderr)
    check = subprocess.run(
        task["check"]["command"], capture_output=True, text=True, env=env, cwd=project
    )
    passed = run.returncode == 0 and check.returncode == 0
    detail = f"run exit {run.returncode}, check exit {check.returncode}"
    if not passed:
        detail += f" (kept in {work})\n{check.stdout}{check.stderr}{run.stderr[-2000:]}"
    elif not keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        detail += f" ({work})"
    return passed, detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--tack", default=os.environ.get("TACK") or shutil.which("tack"))
    parser.add_argument("--suite", default=str(HERE / "suite.toml"))
    parser.add_argument("--keep", action="store_true", help="keep the directories of passing tasks too")
    args = parser.parse_args()
    if not args.tack:
        print("tack_replay: no tack (--tack PATH or $TACK)", file=sys.stderr)
        return 2
    suite_path = Path(args.suite).resolve()
    suite = tomllib.loads(suite_path.read_text())
    tasks = [t for t in suite["task"] if not args.ids or t["id"] in args.ids]
    failed = []
    for task in tasks:
        passed, detail = run_task(args.tack, suite, suite_path.parent, task, args.keep)
        print(f"{task['id']}: {'ok' if passed else 'FAIL'}, {detail}", flush=True)
        if not passed:
            failed.append(task["id"])
    print(f"\ntack_replay: {len(tasks) - len(failed)}/{len(tasks)} tasks passed" + (f"; failed: {failed}" if failed else ""))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
