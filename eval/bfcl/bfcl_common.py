"""What bfcl_server.py, check_state.py, convert.py and selfcheck.py share:
BFCL's entries and ground truth, its function docs as MCP tool definitions,
its execution of a call, and the state file the server leaves behind.

Everything that decides an outcome is BFCL's own code from the installed
bfcl-eval package (pinned in requirements.txt):

- execution: `execute_multi_turn_func_call` (multi_turn_utils.py), the
  function BFCL's inference and its checker both run calls through;
- a call as the model made it: the string BFCL's FC handlers build from a
  tool call (`convert_to_function_call` in model_handler/utils.py);
- tool definitions: `convert_to_tool(..., GORILLA_TO_OPENAPI,
  ModelStyle.ANTHROPIC)` from model_handler/utils.py, the definitions BFCL
  sends Claude. That module imports BFCL's model SDK stack at its top, so
  the two functions are read out of its source and run here, unchanged;
- comparison: `state_checker` and `response_checker` (multi_turn_checker.py).
"""

from __future__ import annotations

import ast
import base64
import copy
import inspect
import json
import os
import pickle
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import bfcl_eval
from bfcl_eval.constants import executable_backend_config as backend_config
from bfcl_eval.constants.enums import ModelStyle
from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
    execute_multi_turn_func_call,
)

STATE_FILE = "bfcl_state.json"
STATE_FORMAT = 1
# The model name BFCL's code files instances under (its globals are per
# process: one server, one entry).
SERVER_MODEL = "tack"
GROUND_TRUTH_MODEL = "tack_ground_truth"
# Categories whose entries have the same shape as multi_turn_base: every turn
# a user message, every tool available from the start.
CATEGORIES = ["base", "long_context", "miss_param", "miss_func"]
SUPPORTED = ["base", "long_context", "miss_param"]

try:
    from importlib.metadata import version as _version

    BFCL_VERSION = _version("bfcl-eval")
except Exception:  # pragma: no cover - an unusual install
    BFCL_VERSION = "unknown"


class UsageError(Exception):
    """A wrong argument or a missing file: exit 2."""


# ---- data ----------------------------------------------------------------


def data_dir(override: str | None = None) -> Path:
    if override:
        return Path(override)
    return Path(bfcl_eval.__file__).parent / "data"


def category_of(entry_id: str) -> str:
    """`multi_turn_base` for `multi_turn_base_12` (BFCL's own rule)."""
    return entry_id.rsplit("_", 1)[0]


def is_long_context(category: str) -> bool:
    """BFCL loads a scenario with long_context=True for these categories."""
    return "long_context" in category or "composite" in category


def _load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@lru_cache(maxsize=None)
def _category_file(path: str) -> dict[str, dict]:
    return {e["id"]: e for e in _load_jsonl(Path(path))}


def entry_files(category: str, data: Path) -> tuple[Path, Path]:
    name = f"BFCL_v4_{category}.json"
    return data / name, data / "possible_answer" / name


def load_entry(entry_id: str, data: str | None = None) -> tuple[dict, list[list[str]]]:
    """The entry (question, initial_config, involved_classes, ...) and its
    ground truth: one list of call strings per turn."""
    category = category_of(entry_id)
    if not category.startswith("multi_turn_"):
        raise UsageError(f"{entry_id}: not a multi_turn entry id (e.g. multi_turn_base_0)")
    questions, answers = entry_files(category, data_dir(data))
    if not questions.exists():
        raise UsageError(f"{entry_id}: no data file {questions}")
    entry = _category_file(str(questions)).get(entry_id)
    if entry is None:
        raise UsageError(f"{entry_id}: not in {questions}")
    truth = _category_file(str(answers)).get(entry_id)
    if truth is None:
        raise UsageError(f"{entry_id}: no ground truth in {answers}")
    return copy.deepcopy(entry), copy.deepcopy(truth["ground_truth"])


def entry_ids(category: str, data: str | None = None) -> list[str]:
    questions, _ = entry_files(category, data_dir(data))
    return [e["id"] for e in _load_jsonl(questions)]


# ---- tool definitions ----------------------------------------------------


def function_docs(entry: dict, data: str | None = None) -> list[dict]:
    """The function docs BFCL gives the model for an entry: those of its
    involved classes, in that order (populate_test_cases_with_predefined_functions
    in bfcl_eval/utils.py). Held-out functions (miss_func) are included: an
    MCP server has no turn to add them at."""
    docs: list[dict] = []
    for class_name in entry["involved_classes"]:
        path = (
            data_dir(data)
            / "multi_turn_func_doc"
            / backend_config.MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
        )
        docs.extend(_load_jsonl(path))
    return docs


@lru_cache(maxsize=1)
def _bfcl_convert_to_tool():
    """BFCL's `convert_to_tool` and `_cast_to_openai_type`, read out of
    bfcl_eval/model_handler/utils.py (whose imports pull in tenacity, the
    tree-sitter parsers and every model SDK) and run as they are written."""
    source_path = Path(bfcl_eval.__file__).parent / "model_handler" / "utils.py"
    tree = ast.parse(source_path.read_text(encoding="utf-8"))
    wanted = {"convert_to_tool", "_cast_to_openai_type"}
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    if {n.name for n in found} != wanted:
        raise RuntimeError(f"{source_path}: convert_to_tool/_cast_to_openai_type not found")
    module = ast.Module(body=found, type_ignores=[])
    namespace: dict[str, Any] = {
        "copy": copy,
        "json": json,
        "re": re,
        "ModelStyle": ModelStyle,
        "GORILLA_TO_OPENAPI": GORILLA_TO_OPENAPI,
    }
    exec(compile(module, str(source_path), "exec"), namespace)
    return namespace["convert_to_tool"]


def mcp_tools(docs: list[dict]) -> list[dict]:
    """MCP tool definitions {name, description, inputSchema}: exactly what
    BFCL sends Claude for these docs (types mapped by GORILLA_TO_OPENAPI:
    dict→object, float→number with format "float" and a note in the
    description, tuple→array, any→string; the response schema appended to
    the description)."""
    convert_to_tool = _bfcl_convert_to_tool()
    tools = []
    seen = set()
    for tool in convert_to_tool(docs, GORILLA_TO_OPENAPI, ModelStyle.ANTHROPIC):
        if tool["name"] in seen:  # never happens in BFCL's docs; MCP names are unique
            continue
        seen.add(tool["name"])
        tools.append(
            {
                "name": tool["name"],
                "description": tool["description"],
                "inputSchema": tool["input_schema"],
            }
        )
    return tools


# ---- execution -----------------------------------------------------------


def call_string(name: str, arguments: dict) -> str:
    """A tool call as BFCL's FC handlers turn one into Python
    (convert_to_function_call in bfcl_eval/model_handler/utils.py)."""
    return f"{name}({','.join([f'{k}={repr(v)}' for k, v in arguments.items()])})"


def execute(
    calls: list[str], entry: dict, model_name: str
) -> tuple[list[str], dict[str, Any]]:
    """Runs call strings on the entry's instances with BFCL's own
    execute_multi_turn_func_call; the instances live on in that module's
    globals (per model name and entry) as they do in BFCL."""
    return execute_multi_turn_func_call(
        func_call_list=calls,
        initial_config=entry["initial_config"],
        involved_classes=entry["involved_classes"],
        model_name=model_name,
        test_entry_id=entry["id"],
        long_context=is_long_context(category_of(entry["id"])),
        is_evaL_run=False,
    )


def instance_name(model_name: str, entry_id: str, class_name: str) -> str:
    """Where execute_multi_turn_func_call keeps an instance (its own rule)."""
    return re.sub(r"[-./:]", "_", f"{model_name}_{entry_id}_{class_name}_instance")


def adopt_instances(instances: dict[str, Any], model_name: str, entry_id: str) -> None:
    """Makes execute_multi_turn_func_call go on with these instances (a
    restarted server resuming a saved state)."""
    for class_name, instance in instances.items():
        setattr(multi_turn_utils, instance_name(model_name, entry_id, class_name), instance)


def ground_truth_instances(entry: dict, truth: list[list[str]]) -> tuple[dict[str, Any], list[list[str]]]:
    """BFCL's expected instances after the whole ground truth, executed turn
    by turn as multi_turn_checker does, and each turn's results."""
    results: list[list[str]] = []
    instances: dict[str, Any] = {}
    if not truth:
        _, instances = execute([], entry, GROUND_TRUTH_MODEL)
    for turn in truth:
        turn_results, instances = execute(turn, entry, GROUND_TRUTH_MODEL)
        results.append(turn_results)
    return instances, results


def _method_signatures(entry: dict) -> dict[str, inspect.Signature]:
    import importlib

    out: dict[str, inspect.Signature] = {}
    for class_name in entry["involved_classes"]:
        module = importlib.import_module(backend_config.CLASS_FILE_PATH_MAPPING[class_name])
        cls = getattr(module, class_name)
        for name, fn in inspect.getmembers(cls, predicate=inspect.isfunction):
            if not name.startswith("_"):
                out[name] = inspect.signature(fn)
    return out


def parse_call(call: str, entry: dict) -> tuple[str, dict]:
    """A ground-truth call string (`cd(folder='document')`, `sort('a.txt')`)
    as a tool name and its arguments by name (positional ones named after the
    backend method's parameters)."""
    node = ast.parse(call.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain function call: {call}")
    name = node.func.id
    arguments: dict[str, Any] = {}
    if node.args:
        signature = _method_signatures(entry).get(name)
        if signature is None:
            raise ValueError(f"positional arguments to unknown function: {call}")
        params = [p for p in signature.parameters.values() if p.name != "self"]
        for param, arg in zip(params, node.args):
            arguments[param.name] = ast.literal_eval(arg)
    for kw in node.keywords:
        if kw.arg is None:
            raise ValueError(f"**kwargs in a ground-truth call: {call}")
        arguments[kw.arg] = ast.literal_eval(kw.value)
    return name, arguments


# ---- the state file ------------------------------------------------------


def public_state(instance: Any) -> dict[str, Any]:
    """The attributes BFCL compares: every instance attribute not starting
    with `_` (state_checker / _compare_instances)."""
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


def to_jsonable(value: Any, depth: int = 0) -> Any:
    """A readable JSON rendering of backend state (for people and diffs; the
    comparison itself is on the Python objects)."""
    if depth > 60:
        return repr(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, depth + 1) for v in value]
    cls = type(value).__name__
    if cls == "Directory" and hasattr(value, "contents"):
        return {
            "type": "directory",
            "contents": {k: to_jsonable(v, depth + 1) for k, v in value.contents.items()},
        }
    if cls == "File" and hasattr(value, "content"):
        return {"type": "file", "content": value.content}
    if hasattr(value, "__dict__"):
        return {
            "__class__": cls,
            **{k: to_jsonable(v, depth + 1) for k, v in public_state(value).items() if k != "parent"},
        }
    return repr(value)


def write_state(path: Path, entry: dict, instances: dict[str, Any], calls: list[dict]) -> None:
    """Writes the state file atomically: the instances (pickled, for an exact
    comparison; and readable), and every call with its result."""
    document = {
        "bfcl_state": STATE_FORMAT,
        "bfcl_eval": BFCL_VERSION,
        "entry": entry["id"],
        "involved_classes": entry["involved_classes"],
        "calls": calls,
        "state": {name: to_jsonable(public_state(inst)) for name, inst in instances.items()},
        "instances_pickle": base64.b64encode(
            pickle.dumps(instances, protocol=pickle.HIGHEST_PROTOCOL)
        ).decode("ascii"),
    }
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def read_state(path: Path, entry_id: str) -> tuple[dict, dict[str, Any]]:
    """The state file's document and its instances. Raises UsageError when
    it is missing, of another entry or another bfcl-eval."""
    if not path.exists():
        raise UsageError(f"no {path}: the BFCL server did not run here")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise UsageError(f"{path}: not JSON: {e}") from e
    if document.get("bfcl_state") != STATE_FORMAT:
        raise UsageError(f"{path}: state format {document.get('bfcl_state')!r}, want {STATE_FORMAT}")
    if document.get("entry") != entry_id:
        raise UsageError(f"{path}: the state of {document.get('entry')!r}, not {entry_id!r}")
    if document.get("bfcl_eval") != BFCL_VERSION:
        raise UsageError(
            f"{path}: written with bfcl-eval {document.get('bfcl_eval')}, this is {BFCL_VERSION}"
        )
    # The file is one this project's server wrote in the run's own directory.
    instances = pickle.loads(base64.b64decode(document["instances_pickle"]))
    return document, instances


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
