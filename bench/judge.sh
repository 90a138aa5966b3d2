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
port=${LLM_PORT:-8090}
if ! dir=$(bash bench/llm/setup.sh); then
  echo "judge benchmark skipped: the model or its server cannot be set up here" >&2
  exit 0
fi
cargo build -q --release -p optimclaw-bench --bin catalogs
. bench/llm/serve.sh
trap 'kill ${server:-} 2>/dev/null || true' EXIT
serve "$dir" "$size" "$port" 8192 /dev/null
name=$model_name
echo "## keywords alone"
./target/release/catalogs "$sets" | sed '/^- /,$d'
echo
echo "## keywords, then $name judging the best 10"
CATALOG_RERANK_CHAT="http://127.0.0.1:$port/v1" CATALOG_RERANK_MODEL="$name" \
  ./target/release/catalogs "$sets" | sed '/^- /,$d'
