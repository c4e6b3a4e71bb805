#!/usr/bin/env bash
# Installs the real MCP clients that tack-cli's tests drive against
# `tack mcp serve`: Claude Code and Codex CLI, pinned by package-lock.json.
# Idempotent; scripts/test runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
stamp="$here/node_modules/.lock.sha256"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup.sh: npm install (locked) in $here" >&2
  # --no-save: install the locked versions, change nothing (npm ci refuses a
  # lockfile npm 11 wrote without the other platforms' optional packages).
  (cd "$here" && npm install --no-audit --no-fund --no-save)
  echo "$want" > "$stamp"
fi
echo "setup.sh: MCP client peers ready" >&2
