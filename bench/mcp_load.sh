#!/usr/bin/env bash
# MCP over streamable HTTP under load: `assistant serve --http` against the
# official Python SDK's MCPServer serving the same `calculate` tool, driven
# in the same run by the same load generator (`bench/src/bin/mcp_load.rs`).
# Both servers close sessions idle for IDLE seconds (default 30) so memory
# after expiry can be read. Loopback only; every loop is bounded.
# Usage: bash bench/mcp_load.sh   (LOAD_SECS=5 per one-session row)
set -euo pipefail
cd "$(dirname "$0")/.."
idle=${IDLE:-30}
venv=.ci/venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mcp==2.3.0
fi
cargo build -q --release --example assistant
cargo build -q --release -p optimclaw-bench --bin mcp_load
home=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
ours=$(port)
# The key our server requires; the load generator sends it to both servers.
OPTIMCLAW_MCP_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
export OPTIMCLAW_MCP_TOKEN
# One key drives every scenario here: its quota is set above the global cap
# so the flood meets the cap (where unused sessions are evicted), not the
# per-key 429 (tested in optimclaw/tests/mcp_http.rs).
./target/release/examples/assistant --home "$home" serve --http "127.0.0.1:$ours" --session-idle "$idle" --max-sessions-per-key 20000 2>/dev/null &
ours_pid=$!
peer=$(port)
"$venv/bin/python" bench/mcp_http_peer.py "$peer" "$idle" > /dev/null 2>&1 &
peer_pid=$!
trap 'kill $ours_pid $peer_pid 2>/dev/null || true; rm -rf "$home"' EXIT
wait_port "$ours"; wait_port "$peer"
echo "| server | scenario | requests/s | p50 ms | p99 ms | failed |"
echo "|---|---|---|---|---|---|"
./target/release/mcp_load "http://127.0.0.1:$ours/mcp" "$ours_pid" "optimclaw" "$idle" > target/mcp_load_ours.txt
./target/release/mcp_load "http://127.0.0.1:$peer/mcp" "$peer_pid" "Python SDK" "$idle" > target/mcp_load_peer.txt
grep -hv '^MEM' target/mcp_load_ours.txt target/mcp_load_peer.txt
echo
echo "| server | resident at start (MiB) | 1,000 live sessions | 10,000 live sessions | after a 20 s initialize flood | after idle expiry |"
echo "|---|---|---|---|---|---|"
grep -h '^MEM' target/mcp_load_ours.txt target/mcp_load_peer.txt | sed 's/^MEM //'
