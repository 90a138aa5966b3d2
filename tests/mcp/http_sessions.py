#!/usr/bin/env python3
"""The official Python MCP SDK as a client of `assistant serve --http` with
sessions (protocol versions before 2026-07-28), over the server's own
session layer: each session keeps what its `tool_info` loaded across
requests (`--list-changed`: the list grows and the change is told), another
session keeps its own, a session's GET stream answers, and the SDK's DELETE
on leaving ends the session (its id is then unknown: 404). Loopback only.
Usage: http_sessions.py ASSISTANT_BINARY"""
import asyncio
import os
import secrets
import subprocess
import sys
import tempfile

import httpx2
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, passed
from loopback import free_port, wait_port

BINARY = sys.argv[1]
TOKEN = secrets.token_hex(16)


def names_of(listed):
    return sorted(t.name for t in listed.tools)


async def main():
    home = tempfile.mkdtemp()
    port = free_port()
    server = subprocess.Popen([BINARY, "--home", home, "serve", "--http", f"127.0.0.1:{port}", "--lazy",
                               "--list-changed"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "OPTIMCLAW_MCP_TOKEN": TOKEN})
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"authorization": f"Bearer {TOKEN}"}
    notes = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            notes.append(root)

    def recorder(seen):
        async def record(response):
            seen.append((response.request.method, response.status_code,
                         response.headers.get("mcp-session-id") or response.request.headers.get("mcp-session-id")))
        return record

    mine, theirs = [], []
    try:
        await asyncio.to_thread(wait_port, port)
        keyed = httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"response": [recorder(mine)]})
        other_client = httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"response": [recorder(theirs)]})

        def session_id():
            return next((sid for _, _, sid in mine if sid), None)

        def other_id():
            return next((sid for _, _, sid in theirs if sid), None)

        async with streamable_http_client(url, http_client=keyed) as (read, write), \
                streamable_http_client(url, http_client=other_client) as (oread, owrite):
            async with ClientSession(read, write, message_handler=on_message) as s, \
                    ClientSession(oread, owrite) as other:
                init = await s.initialize()
                await other.initialize()
                sid = session_id()
                check(sid and other_id() and sid != other_id(), f"two sessions: {sid}, {other_id()}")
                check(init.capabilities.tools is not None and init.capabilities.tools.list_changed,
                      "per-connection lists announce listChanged")
                before = names_of(await s.list_tools())
                check("tool_info" in before and "job_create" not in before, f"lazy list: {before}")
                found = await s.call_tool("tool_info", {"query": "job_create"})
                check(not found.is_error and found.structured_content["tools"][0]["name"] == "job_create",
                      f"tool_info: {found.structured_content}")
                for _ in range(400):
                    if notes:
                        break
                    await asyncio.sleep(0.05)
                check(len(notes) >= 1, "tools/list_changed was told to the session")
                after = names_of(await s.list_tools())
                check("job_create" in after and len(after) == len(before) + 1,
                      f"the session kept what it loaded: {after}")
                check(names_of(await other.list_tools()) == before, "the other session loaded nothing")
                job = await s.call_tool("job_create", {"prompt": "Summarize the news", "priority": 2})
                check(not job.is_error, f"a loaded tool is called: {job}")
                # The session's GET stream answers (the SDK opens one too).
                async with keyed.stream("GET", url, headers={"accept": "text/event-stream",
                                                              "mcp-session-id": sid,
                                                              "mcp-protocol-version": "2025-06-18"}) as stream:
                    check(stream.status_code == 200 and
                          stream.headers["content-type"].startswith("text/event-stream"),
                          f"GET stream: {stream.status_code} {stream.headers}")
        check(("DELETE", 200, sid) in mine, f"the SDK ended its session: {mine}")
        # Leaving, the SDK ended its session with DELETE: the id is unknown.
        gone = await keyed.post(url, headers={"accept": "application/json, text/event-stream",
                                              "content-type": "application/json",
                                              "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"},
                                content=b'{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}')
        check(gone.status_code == 404, f"after DELETE: {gone.status_code} {gone.text}")
        print("requests of the first session:", [(m, c) for m, c, _ in mine])
        print(f"{passed()} passed, 0 failed")
    finally:
        server.kill()


asyncio.run(main())
