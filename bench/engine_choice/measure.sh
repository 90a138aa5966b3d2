#!/usr/bin/env bash
# Clean release build of each interpreter, then its run: time per run, peak
# memory, binary size.
set -euo pipefail
cd "$(dirname "$0")"
for engine in rquickjs boa_engine; do
  target=$(mktemp -d)
  start=$(date +%s)
  CARGO_TARGET_DIR=$target cargo build -q --release --features "$engine"
  echo "$engine: clean build $(( $(date +%s) - start )) s, binary $(stat -c %s "$target/release/engine-choice") bytes"
  "$target/release/engine-choice"
  rm -rf "$target"
done
