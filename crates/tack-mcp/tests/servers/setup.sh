#!/usr/bin/env bash
# Installs the third-party MCP servers of tack-mcp's interop tests
# (tests/all/client/real_servers.rs), each as its users run it:
#   npm:  pinned by package-lock.json, install scripts off (desktop-commander's
#         puppeteer would download a browser; the tests need none)
#   PyPI: one virtualenv per server (python/<name>.txt is its `pip freeze`;
#         the servers pin conflicting versions of their dependencies, as uvx allows)
# Idempotent; tests/setup.sh runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
stamp="$here/node_modules/.lock.sha256"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "servers/setup.sh: npm install (locked) in $here" >&2
  (cd "$here" && npm install --no-audit --no-fund --no-save --ignore-scripts)
  echo "$want" > "$stamp"
fi

pids=()
for lock in "$here"/python/*.txt; do
  name="$(basename "$lock" .txt)"
  venv="$here/python/.venv-$name"
  want="$(sha256sum "$lock" | cut -d' ' -f1)"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.lock.sha256" 2>/dev/null)" = "$want" ]; then
    continue
  fi
  echo "servers/setup.sh: creating $venv" >&2
  (
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$lock"
    echo "$want" > "$venv/.lock.sha256"
  ) &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "servers/setup.sh: third-party MCP servers ready" >&2
