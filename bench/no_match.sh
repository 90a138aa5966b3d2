#!/usr/bin/env bash
# No-match detection of `tool_info` on bfcl-dev: (re)builds the no-match set
# (each query with its relevant tools left out of the catalog) and prints the
# strength curve. Usage: bash bench/no_match.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-corpora/bfcl-dev}"
name="$(basename "$corpus")"
python3 bench/no_match_set.py "$corpus" "bench/data/$name-no-match.jsonl"
cargo build --release -q -p optimclaw-bench --bin no_match
./target/release/no_match "$corpus" "bench/data/$name-no-match.jsonl"
