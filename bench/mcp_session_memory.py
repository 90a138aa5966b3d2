#!/usr/bin/env python3
"""Is an expired session's memory freed? `assistant serve --http` with a 5 s
idle timeout gets waves of 3,000 sessions (initialize + initialized, then
idle); resident memory after each wave and after each expiry. If expired
sessions leaked, every wave would add as much as the first; if their memory
is freed and reused, later waves add nothing. With `delete`, each session is
ended with DELETE at once instead.
Usage: mcp_session_memory.py ASSISTANT_BINARY [idle|delete]"""
import concurrent.futures as cf
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time

import httpx2 as httpx

binary, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "idle")
home = tempfile.mkdtemp()
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
TOKEN = secrets.token_hex(16)
server = subprocess.Popen([binary, "--home", home, "serve", "--http", f"127.0.0.1:{port}", "--session-idle", "5",
                           "--max-sessions-per-key", "10000"],
                          stderr=subprocess.DEVNULL, env={**os.environ, "OPTIMCLAW_MCP_TOKEN": TOKEN})
url = f"http://127.0.0.1:{port}/mcp"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2025-06-18", "authorization": f"Bearer {TOKEN}"}


def rss():
    with open(f"/proc/{server.pid}/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS"))


def session(_):
    with httpx.Client() as c:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "0"}}}
        sid = c.post(url, headers=HEADERS, json=init).headers["mcp-session-id"]
        c.post(url, headers={**HEADERS, "mcp-session-id": sid}, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        if mode == "delete":
            c.delete(url, headers={**HEADERS, "mcp-session-id": sid})


try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    print(f"| {mode} | start | {rss()} MiB |")
    for wave in range(1, 4):
        with cf.ThreadPoolExecutor(32) as pool:
            list(pool.map(session, range(3000)))
        print(f"| {mode} | after wave {wave} of 3,000 sessions | {rss()} MiB |")
        time.sleep(12)
        print(f"| {mode} | after they expired | {rss()} MiB |")
finally:
    server.kill()
