#!/usr/bin/env bash
# Tasks against a real small model (bench/src/bin/real_model.rs), on both
# server behaviours people meet:
#   own      llama-server with the model's own chat template: calls come
#            back as plain text;
#   parsed   a template whose calls llama-server parses (bench/llm/
#            qwen_parsed_calls.jinja): calls come back in tool_calls, and a
#            call to a tool missing from `tools` is refused with HTTP 500.
# Usage: bash bench/real_model.sh [SIZE] [SET] [MODES] [BEHAVIOURS]
#   SIZE 0.5b (default) or 1.5b; SET a task file (default the dev set);
#   MODES e.g. eager,lazy (default: eager,lazy,lazy-no-preload,lazy-append,code,text);
#   BEHAVIOURS own,parsed (default both).
# Sets the model and server up first (bench/llm/setup.sh, cached); skipped
# with a message when that cannot run here. Results: bench/results/real-model/.
# The server decodes greedily (--temp 0, LLM_TEMP to change it), so two
# runs differ by what changed and not by sampling (the server's default
# temperature is 0.8; with 15 tasks a run's luck moves the count).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-0.5b}
set_file=${2:-bench/data/real-model/dev.jsonl}
modes=${3:-eager,lazy,lazy-no-preload,lazy-append,code,text}
behaviours=${4:-own,parsed}
port=${LLM_PORT:-8088}
if ! dir=$(bash bench/llm/setup.sh); then
  echo "real-model benchmark skipped: the model or its server cannot be set up here" >&2
  exit 0
fi
cargo build -q --release -p optimclaw-bench --bin real_model
out=bench/results/real-model
mkdir -p "$out"
. bench/llm/serve.sh
trap 'kill ${server:-} 2>/dev/null || true' EXIT
for behaviour in ${behaviours//,/ }; do
  template=()
  [ "$behaviour" = parsed ] && template=(--chat-template-file bench/llm/qwen_parsed_calls.jinja)
  serve "$dir" "$size" "$port" 16384 "$out/server-$size-$behaviour.log" "${template[@]}"
  name=$model_name
  label="$name/$behaviour"
  ./target/release/real_model --base-url "http://127.0.0.1:$port/v1" --model "$name" \
    --set "$set_file" --modes "$modes" --label "$label" \
    > "$out/$size-$behaviour-$(basename "$set_file" .jsonl).jsonl" 2> >(tee "$out/$size-$behaviour-$(basename "$set_file" .jsonl).md" >&2)
  kill "$server"; wait "$server" 2>/dev/null || true
done
