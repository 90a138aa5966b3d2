#!/usr/bin/env bash
# tool_info with the real small model as its judge: `ChatReranker` against
# llama-server (the model's own chat template) over each catalog of a sets
# file, next to keywords alone in the same run. The judge's picks are the
# strong matches and an empty pick is "no match", so it alone decides false
# no-match and no-match detected.
# Usage: bash bench/judge.sh [SIZE] [SETS_JSON]
#   SIZE 0.5b or 1.5b (default); SETS_JSON default the held-out sets
#   (bench/data/held-out/sets.json).
# Sets the model up first (bench/llm/setup.sh, cached); skipped with a
# message when that cannot run here.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1.5b}
sets=${2:-bench/data/held-out/sets.json}
threads=${LLM_THREADS:-2}
port=${LLM_PORT:-8090}
if ! dir=$(bash bench/llm/setup.sh); then
  echo "judge benchmark skipped: the model or its server cannot be set up here" >&2
  exit 0
fi
cargo build -q --release -p optimclaw-bench --bin catalogs
name=qwen2.5-coder-$size-instruct
LD_LIBRARY_PATH=$dir/lcpp-build/bin "$dir/lcpp-build/bin/llama-server" \
  -m "$dir/models/$name-q4_k_m.gguf" --jinja --host 127.0.0.1 --port "$port" \
  -c 8192 -t "$threads" -np 1 --temp 0 --alias "$name" > /dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null 2>&1 && break
  sleep 1
done
echo "## keywords alone"
./target/release/catalogs "$sets" | sed '/^- /,$d'
echo
echo "## keywords, then $name judging the best 10"
CATALOG_RERANK_CHAT="http://127.0.0.1:$port/v1" CATALOG_RERANK_MODEL="$name" \
  ./target/release/catalogs "$sets" | sed '/^- /,$d'
