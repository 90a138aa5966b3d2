#!/usr/bin/env python3
"""A bounded soak of `assistant serve --http` on loopback: two waves of 50 sessions x 200
mixed requests (tools/list, tool_info, valid and invalid calls, unknown
tools, cancellations), abrupt disconnects in between, then every session
ended with DELETE. Checks that every request got an answer, that the server
never panicked and is still serving, and that its resident memory is back
near where it started.
Usage: soak.py ASSISTANT_BINARY"""
import asyncio
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time

import httpx2 as httpx

from loopback import free_port, wait_port

SESSIONS, REQUESTS, WAVES = 50, 200, 2
VERSION = "2025-06-18"
TOKEN = secrets.token_hex(16)
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": VERSION, "authorization": f"Bearer {TOKEN}"}


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def reply_of(text):
    """The JSON-RPC reply in an SSE or JSON body (None if there is none)."""
    import json
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                msg = json.loads(line[5:])
            except ValueError:
                continue
            if "id" in msg:
                return msg
    return None


async def open_session(client, url):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "soak", "version": "0"}}}
    r = await client.post(url, json=init, headers=HEADERS)
    r.raise_for_status()
    sid = r.headers["mcp-session-id"]
    await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                      headers={**HEADERS, "mcp-session-id": sid})
    return sid


def mixed(i):
    kind = i % 7
    if kind == 0:
        return "list", {"method": "tools/list"}
    if kind == 1:
        return "tool_info", {"method": "tools/call", "params": {"name": "tool_info", "arguments": {"query": "calculate"}}}
    if kind == 2:
        return "valid", {"method": "tools/call", "params": {"name": "calculate", "arguments": {"expression": f"{i} * 2"}}}
    if kind == 3:
        return "invalid", {"method": "tools/call", "params": {"name": "calculate", "arguments": {"expresion": "1"}}}
    if kind == 4:
        return "unknown", {"method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}}
    if kind == 5:
        return "echo", {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": f"m{i}"}}}
    return "cancel", {"method": "tools/call", "params": {"name": "tool_info", "arguments": {"query": "jobs"}}}


async def session_run(url, n, stats):
    async with httpx.AsyncClient(timeout=30) as client:
        sid = await open_session(client, url)
        h = {**HEADERS, "mcp-session-id": sid}
        for i in range(REQUESTS):
            kind, body = mixed(i + n)
            rid = n * 10_000 + i + 1
            msg = {"jsonrpc": "2.0", "id": rid, **body}
            if kind == "cancel":
                # Send the call, then cancel it at once; the server answers
                # the call or drops it, and must go on either way.
                task = asyncio.create_task(client.post(url, json=msg, headers=h))
                await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/cancelled",
                                             "params": {"requestId": rid, "reason": "soak"}}, headers=h)
                try:
                    await asyncio.wait_for(task, 30)
                    stats["answered"] += 1
                except Exception as e:  # noqa: BLE001
                    stats["errors"].append(f"cancelled call: {e!r}")
                continue
            r = await client.post(url, json=msg, headers=h)
            reply = reply_of(r.text)
            if r.status_code != 200 or reply is None or reply.get("id") != rid:
                stats["errors"].append(f"{kind}: HTTP {r.status_code} {r.text[:200]!r}")
                continue
            stats["answered"] += 1
            if kind in ("valid", "echo", "list", "tool_info") and "error" in reply:
                stats["errors"].append(f"{kind} failed: {reply}")
            if kind == "unknown" and "error" not in reply:
                stats["errors"].append(f"unknown tool accepted: {reply}")
            if kind == "invalid" and not reply.get("result", {}).get("isError"):
                stats["errors"].append(f"invalid arguments accepted: {reply}")
            if i % 50 == 25:
                await abrupt_disconnect(url)
        d = await client.delete(url, headers=h)
        if d.status_code >= 400:
            stats["errors"].append(f"DELETE: HTTP {d.status_code}")


async def abrupt_disconnect(url):
    """A client that sends half a request and hangs up."""
    host, port = re.match(r"http://([^:]+):(\d+)", url).groups()
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
    await writer.drain()
    writer.close()


async def main():
    binary = sys.argv[1]
    home = tempfile.mkdtemp()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = open(os.path.join(home, "stderr.log"), "w+")
    server = subprocess.Popen([binary, "--home", home, "serve", "--http", f"127.0.0.1:{port}", "--lazy",
                               "--session-idle", "5"], stdout=subprocess.DEVNULL, stderr=log,
                              env={**os.environ, "OPTIMCLAW_MCP_TOKEN": TOKEN})
    try:
        wait_port(port)
        async with httpx.AsyncClient(timeout=30) as client:
            sid = await open_session(client, url)
            await client.delete(url, headers={**HEADERS, "mcp-session-id": sid})
        baseline = rss_mib(server.pid)
        stats = {"answered": 0, "errors": []}
        start = time.time()
        # Two waves: memory a wave leaves behind would show as growth in
        # the second.
        waves = []
        for wave in range(WAVES):
            await asyncio.wait_for(asyncio.gather(*(session_run(url, wave * SESSIONS + n, stats)
                                                    for n in range(SESSIONS))), 300)
            peak = rss_mib(server.pid)
            time.sleep(7)  # past the idle timeout: anything left over expires
            waves.append((peak, rss_mib(server.pid)))
        elapsed = time.time() - start
        end = waves[-1][1]
        # Still serving after it all.
        async with httpx.AsyncClient(timeout=30) as client:
            sid = await open_session(client, url)
        log.seek(0)
        stderr = log.read()
        problems = list(stats["errors"])
        if stats["answered"] != WAVES * SESSIONS * REQUESTS:
            problems.append(f"answered {stats['answered']} of {WAVES * SESSIONS * REQUESTS}")
        if "panicked" in stderr:
            problems.append("the server panicked:\n" + stderr[-2000:])
        if server.poll() is not None:
            problems.append(f"the server exited with {server.returncode}")
        # "Near the baseline": allocator caches keep some pages; a leak of
        # the sessions (tens of KiB each) would not fit in this margin.
        if end > baseline + 48:
            problems.append(f"resident memory {end:.0f} MiB at the end vs {baseline:.0f} MiB at the start")
        print(f"soak: {stats['answered']} requests answered in {elapsed:.1f} s over {WAVES} waves of {SESSIONS} sessions; "
              f"resident {baseline:.0f} MiB at start, then per wave (peak / after expiry) "
              + ", ".join(f"{p:.0f} / {e:.0f}" for p, e in waves))
        for p in problems[:20]:
            print("PROBLEM:", p)
        print(f"{WAVES * SESSIONS * REQUESTS - len(problems) if not problems else 0} passed, {len(problems)} failed")
        return 1 if problems else 0
    finally:
        server.kill()


sys.exit(asyncio.run(main()))
