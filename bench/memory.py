#!/usr/bin/env python3
"""Peak RSS (VmHWM) of an MCP server holding a catalog, after initialize
and one full tools/list, over stdio. Runs `assistant serve` (the catalog plus
a manifest of 10k tools) and the Python SDK's low-level server holding the
same manifest. Usage: memory.py ASSISTANT_BINARY TOOLS_JSON"""
import json
import os
import subprocess
import sys
import tempfile

binary, manifest = sys.argv[1], sys.argv[2]


def peak_rss(cmd):
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send = lambda msg: (proc.stdin.write((json.dumps(msg) + "\n").encode()), proc.stdin.flush())
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "memory", "version": "1"}}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    count = None
    while count is None:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"{cmd[0]} closed its output")
        msg = json.loads(line)
        if msg.get("id") == 2:
            count = len(msg["result"]["tools"])
    with open(f"/proc/{proc.pid}/status") as f:
        hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))
    proc.kill()
    proc.wait()
    return count, hwm / 1024


home = tempfile.mkdtemp()
ours = peak_rss([binary, "--home", home, "--manifest", manifest, "serve", "--eager"])
peer = peak_rss([sys.executable, os.path.join(os.path.dirname(__file__), "peer_server.py"), manifest])
print(json.dumps({"system": "optimclaw assistant serve", "tools_listed": ours[0], "peak_rss_mib": round(ours[1], 1)}))
print(json.dumps({"system": "python mcp lowlevel server", "tools_listed": peer[0], "peak_rss_mib": round(peer[1], 1)}))
