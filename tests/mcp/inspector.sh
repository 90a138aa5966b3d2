#!/usr/bin/env bash
# The MCP Inspector CLI as a client of `assistant serve`, over streamable HTTP
# (one server, a new connection per command) and over stdio: the fixed
# tools/list is byte-identical before and after tool_info, and a deferred
# tool runs through call_tool. (The Inspector calls only listed tools, so
# direct calls of deferred tools by name are tested with the Python SDK.)
# Usage: inspector.sh ASSISTANT_BINARY INSPECTOR_BINARY
set -euo pipefail
assistant=$1
inspector=$2
home=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
OPTIMCLAW_MCP_TOKEN=$token "$assistant" --home "$home" serve --http "127.0.0.1:$port" --lazy 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$home"' EXIT
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port/mcp"
cli() { timeout 60 "$inspector" --cli "$url" --header "Authorization: Bearer $token" "$@"; }
passed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; exit 1; }

# Without the key, and with a wrong one, nothing is listed.
if timeout 60 "$inspector" --cli "$url" --method tools/list > /dev/null 2>&1; then fail "listed without a key"; fi; ok
if timeout 60 "$inspector" --cli "$url" --header "Authorization: Bearer wrong-key-0123456789" --method tools/list > /dev/null 2>&1; then fail "listed with a wrong key"; fi; ok

before=$(cli --method tools/list --strict)
names=$(python3 -c 'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin)["tools"])))' <<< "$before")
[[ " $names " == *" call_tool "* && " $names " == *" tool_info "* && " $names " != *" calculate "* ]] || fail "fixed lazy list: $names"; ok
found=$(cli --method tools/call --tool-name tool_info --tool-arg query=calculate)
grep -q '"calculate"' <<< "$found" || fail "tool_info: $found"; ok
after=$(cli --method tools/list)
[ "$before" = "$after" ] || fail "tools/list changed after tool_info"; ok
bridged=$(cli --method tools/call --tool-name call_tool --tool-arg name=calculate 'arguments={"expression": "6 * 7"}')
grep -q '"text": "42"' <<< "$bridged" || fail "call_tool: $bridged"; ok
stdio=$(timeout 60 "$inspector" --cli "$assistant" --home "$home" serve --lazy --method tools/call --tool-name call_tool --tool-arg name=calculate 'arguments={"expression": "2 + 3"}')
grep -q '"text": "5"' <<< "$stdio" || fail "call_tool over stdio: $stdio"; ok
echo "MCP Inspector CLI: $passed passed, 0 failed"
