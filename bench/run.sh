#!/usr/bin/env bash
# Every benchmark of BENCHMARKS.md, each next to its peer in the same run.
# Usage: bash bench/run.sh   (results in bench/results/; takes ~15 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${OPTIMCLAW_BENCH_DATA:-corpora}
results=${BENCH_RESULTS:-bench/results}
mkdir -p "$results"
venv=.ci/venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check rank-bm25==0.2.2 mcp==2.3.0
py="$venv/bin/python"

echo "== build"
cargo build -q --release -p optimclaw-bench --bins
cargo build -q --release -p optimclaw-assistant --example assistant

echo "== 1. prompt tokens (and bench/results/tokens.svg)"
./target/release/tokens | tee "$results/tokens.md"

echo "== 2. tool_info quality on bfcl-dev, next to rank_bm25"
{ ./target/release/retrieval "$data/bfcl-dev"; "$py" bench/baseline_bm25.py "$data/bfcl-dev"; } | tee "$results/quality.jsonl"

echo "== 3. tool_info speed at 1k and 10k tools, next to rank_bm25"
{ ./target/release/search_speed
  for c in 1k 10k; do "$py" bench/bm25_latency.py "target/bench-corpora/$c" "$c"; done; } | tee "$results/speed.jsonl"

echo "== 4. registry build and dispatch"
cargo bench -q -p optimclaw-bench --bench dispatch 2>&1 | tee "$results/dispatch.txt"
cargo bench -q -p optimclaw-bench --features wasm --bench wasm 2>&1 | tee "$results/wasm.txt"

echo "== 6. peak RSS serving 10k tools, next to the Python SDK's server"
"$py" bench/memory.py target/release/examples/assistant target/bench-corpora/serve-10k/tools.json | tee "$results/memory.jsonl"

echo "== 5. compile time of 200 tools, next to rmcp"
bash bench/compile_time.sh | tee "$results/compile.md"

echo "== 10. code mode: declarations against JSON specs, multi-step tasks priced as billed, a run's own cost"
./target/release/declarations | tee "$results/declarations.md"
./target/release/code_tasks | tee "$results/code_tasks.md"
cargo bench -q -p optimclaw-bench --bench code 2>&1 | tee "$results/code.txt"
