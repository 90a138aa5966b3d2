# Sourced by the real-model benchmarks: starts llama-server on a model set
# up by bench/llm/setup.sh and waits until it answers.
#   serve DIR SIZE PORT CONTEXT LOG [ARGS...]
# DIR is what setup.sh printed; SIZE 0.5b or 1.5b; LOG where the server
# writes (/dev/null for nothing); ARGS more llama-server options. Threads
# come from LLM_THREADS (default 2), the temperature from LLM_TEMP
# (default 0: greedy). Sets `server` (its process id) and `model_name`.
serve() {
  local dir=$1 size=$2 port=$3 context=$4 log=$5
  shift 5
  model_name=qwen2.5-coder-$size-instruct
  LD_LIBRARY_PATH=$dir/lcpp-build/bin "$dir/lcpp-build/bin/llama-server" \
    -m "$dir/models/$model_name-q4_k_m.gguf" --jinja "$@" --host 127.0.0.1 --port "$port" \
    -c "$context" -t "${LLM_THREADS:-2}" -np 1 --temp "${LLM_TEMP:-0}" --alias "$model_name" \
    > "$log" 2>&1 &
  server=$!
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null 2>&1 && return 0
    sleep 1
  done
  echo "llama-server did not answer on port $port within 300 s" >&2
  return 1
}
