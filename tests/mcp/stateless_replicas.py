#!/usr/bin/env python3
"""Two `assistant serve --http --stateless` replicas that share nothing,
behind a round-robin balancer that sends each HTTP request to the next
replica, used by the official Python MCP SDK client: initialize, list,
tool_info and calls all succeed though consecutive requests land on
different processes. Loopback only.
Usage: stateless_replicas.py ASSISTANT_BINARY"""
import asyncio
import itertools
import os
import secrets
import subprocess
import sys
import tempfile

import httpx2
import mcp.types as types
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from checks import check, passed
from loopback import free_port, wait_port

BINARY = sys.argv[1]
TOKEN = secrets.token_hex(16)


def balancer(upstreams, hits):
    """A round-robin reverse proxy: each request to the next upstream."""
    turn = itertools.cycle(range(len(upstreams)))
    client = httpx2.AsyncClient(timeout=30)

    async def forward(request: Request):
        i = next(turn)
        hits[i] += 1
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        headers["host"] = f"127.0.0.1:{upstreams[i]}"
        reply = await client.request(request.method, f"http://127.0.0.1:{upstreams[i]}/mcp",
                                     headers=headers, content=await request.body())
        keep = {k: v for k, v in reply.headers.items()
                if k.lower() not in ("content-length", "transfer-encoding", "connection")}
        return Response(reply.content, status_code=reply.status_code, headers=keep)

    return Starlette(routes=[Route("/mcp", forward, methods=["GET", "POST", "DELETE"])])


async def main():
    home = tempfile.mkdtemp()
    ports = [free_port(), free_port()]
    replicas = [subprocess.Popen([BINARY, "--home", home, "serve", "--http", f"127.0.0.1:{p}", "--lazy",
                                  "--stateless"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**os.environ, "OPTIMCLAW_MCP_TOKEN": TOKEN})
                for p in ports]
    hits = [0, 0]
    lb_port = free_port()
    server = uvicorn.Server(uvicorn.Config(balancer(ports, hits), host="127.0.0.1", port=lb_port,
                                           log_level="error"))
    lb = asyncio.create_task(server.serve())
    try:
        for p in ports + [lb_port]:
            await asyncio.to_thread(wait_port, p)
        keyed = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with streamable_http_client(f"http://127.0.0.1:{lb_port}/mcp", http_client=keyed) as (read, write, *_):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                check(init.server_info.name == "optimclaw-assistant", "server name")
                for round_ in range(3):
                    tools = (await s.list_tools()).tools
                    names = {t.name for t in tools}
                    check("tool_info" in names and "calculate" not in names, f"lazy list: {sorted(names)}")
                    found = await s.call_tool("tool_info", {"query": "calculate"})
                    check(not found.is_error and "calculate" in str(found.structured_content),
                          f"tool_info: {found}")
                    out = await s.call_tool("calculate", {"expression": f"{round_} + 40"})
                    text = "\n".join(c.text for c in out.content if isinstance(c, types.TextContent))
                    check(not out.is_error and text.strip() == str(round_ + 40), f"calculate: {text}")
                    bad = await s.call_tool("calculate", {"expresion": "1"})
                    check(bad.is_error, "invalid arguments are an error result")
        check(hits[0] > 3 and hits[1] > 3, f"both replicas answered: {hits}")
        print(f"stateless replicas: requests per replica {hits}")
        print(f"{passed()} passed, 0 failed")
    finally:
        server.should_exit = True
        await lb
        for r in replicas:
            r.kill()


asyncio.run(main())
