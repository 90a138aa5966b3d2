#!/usr/bin/env bash
# tool_info with a reranker on every dev catalog: `HttpReranker` against a
# `/rerank` stand-in on loopback that answers as Cohere and Jina do and
# scores with all-MiniLM-L6-v2 (bench/src/bin/rerank_standin.rs), next to
# the same catalogs without it in the same run. Prints quality per catalog,
# tool_info latency, and the o200k tokens a search sends to the endpoint.
# Then the same with `ChatReranker` against the stand-in's OpenAI-compatible
# chat route (a judge that reads the same cosines), for its tokens per
# search and latency.
# Usage: bash bench/rerank.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .ci/venv/bin/python ] && python=.ci/venv/bin/python
model=$(PYTHON=$python bash tests/embed/fetch_minilm.sh target/models)
cargo build -q --release -p optimclaw-bench --features rerank --bin catalogs --bin rerank_standin
port_file=$(mktemp)
./target/release/rerank_standin "$model" "$port_file" &
standin=$!
trap 'kill $standin 2>/dev/null || true; rm -f "$port_file"' EXIT
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.2; done
url="http://127.0.0.1:$(cat "$port_file")"
echo "## keywords alone"
./target/release/catalogs bench/data/dev/sets.json | sed -n '1,10p'
echo
echo "## keywords, then the reranker over the best 10"
CATALOG_RERANK="$url/v1/rerank" ./target/release/catalogs bench/data/dev/sets.json \
  | sed '/^- bfcl-short/,$d'
echo
echo "## keywords, then the chat reranker over the best 10 (the stand-in judges by MiniLM cosine)"
CATALOG_RERANK_CHAT="$url/v1" ./target/release/catalogs bench/data/dev/sets.json \
  | sed '/^- bfcl-short/,$d'
stats=$(curl -s "$url/stats")
echo
echo "stand-in: $stats (/rerank requests and the o200k tokens of their queries and documents; chat requests and their prompt and completion tokens)"
