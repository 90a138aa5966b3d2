#!/usr/bin/env bash
# tool_info quality and speed on a corpus, next to rank_bm25 in the same run.
# Usage: bash bench/retrieval.sh [CORPUS]   (default: bfcl-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-bfcl-dev}
data=${OPTIMCLAW_BENCH_DATA:-corpora}
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q rank-bm25
fi
cargo build -q --release -p optimclaw-bench --bin retrieval
./target/release/retrieval "$data/$corpus"
"$venv/bin/python" bench/baseline_bm25.py "$data/$corpus"
