#!/usr/bin/env bash
# tool_info on dev catalogs of several shapes (bench/data/dev/sets.json),
# next to rank_bm25 over the same catalogs and requests in the same run.
# Usage: bash bench/catalogs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
data=${OPTIMCLAW_BENCH_DATA:-corpora}
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q rank-bm25
fi
cargo build -q --release -p optimclaw-bench --bin catalogs
./target/release/catalogs bench/data/dev/sets.json
echo
"$venv/bin/python" bench/peer_catalogs.py bench/data/dev/sets.json target/dev-catalogs "$data"
