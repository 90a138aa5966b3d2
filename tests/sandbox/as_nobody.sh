#!/usr/bin/env bash
# The shell sandbox for a user who is not root: no pids cgroup to create,
# so processes are capped by RLIMIT_NPROC in a user namespace of the
# sandbox's own. Runs the assistant as `nobody` (needs root to switch, and
# setpriv from util-linux); skipped with a note otherwise.
# Usage: as_nobody.sh ASSISTANT_BINARY
set -euo pipefail
binary=$1
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
  echo "as_nobody: skipped (needs root and setpriv)"; exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$binary" "$dir/assistant"
chmod 755 "$dir"
chown -R nobody "$dir"
run() { (cd "$dir" && setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$dir" PATH=/usr/bin:/bin ./assistant --home "$dir/home" "$@"); }
passed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; exit 1; }
report=$(run report)
grep -q "process cap by RLIMIT_NPROC in a user namespace" <<< "$report" || fail "report: $(tail -1 <<< "$report")"; ok
echo '{"K": {"value": "nobody-secret-0123456789", "allow": []}}' > "$dir/home/secrets.json"
chown nobody "$dir/home/secrets.json"
out=$(run call shell '{"command": "cat ../secrets.json; echo hi > f && cat f; python3 -c \"print(6*7)\""}')
grep -q '"stdout": "hi\\n42\\n"' <<< "$out" || fail "ordinary work: $out"; ok
grep -q "Permission denied" <<< "$out" || fail "secret store: $out"; ok
! grep -q "nobody-secret" <<< "$out" || fail "leaked: $out"; ok
flood=$(run call shell '{"command": "i=0; while [ $i -lt 300 ]; do sleep 9 & i=$((i+1)); done; echo spawned $i"}')
! grep -q "spawned 300" <<< "$flood" || fail "process cap: $flood"; ok
grep -q "fork" <<< "$flood" || fail "process cap: $flood"; ok
net=$(run call shell '{"command": "python3 -c \"import socket; socket.create_connection((\\\"127.0.0.1\\\", 9))\" 2>&1 | tail -1"}')
grep -q "Permission denied" <<< "$net" || fail "network: $net"; ok
echo "sandbox as nobody: $passed passed, 0 failed"
