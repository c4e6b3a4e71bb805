#!/usr/bin/env bash
# Installs what eval/bfcl runs on: a virtualenv with bfcl-eval (BFCL's
# multi-turn backends, data and checker), mpmath and the MCP Python SDK, all
# pinned with hashes by requirements.txt. Idempotent and fast when nothing
# changed (a stamp of the lockfile's hash in the venv).
#   BFCL_VENV  where the venv goes (default: target/bfcl-venv in the repo root)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${BFCL_VENV:-$root/target/bfcl-venv}"
lock="$here/requirements.txt"
stamp="$venv/.bfcl-requirements.sha256"
want="$(sha256sum "$lock" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
echo "eval/bfcl/setup.sh: creating $venv" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
# --no-deps: the lockfile is the whole closure (bfcl-eval's own declared
# dependencies are deliberately left out; see requirements.txt).
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  --require-hashes --no-deps -r "$lock"
"$venv/bin/python" - <<'EOF'
import mcp.server.lowlevel, mcp.client.stdio  # noqa: F401
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import state_checker  # noqa: F401
from bfcl_eval.eval_checker.multi_turn_eval.func_source_code import math_api  # noqa: F401
EOF
echo "$want" > "$stamp"
echo "eval/bfcl/setup.sh: $venv ready" >&2
