#!/usr/bin/env python3
"""A real nginx (Debian's package) round-robin in front of two
`assistant serve --http --stateless` replicas, configured as the README's
recipe says (`proxy_set_header Host $host;`, each replica started with
`--allowed-host` for the name clients use), and the official Python MCP SDK
as the client. Both replicas answer; then one is killed mid-run and the
client carries on through the other (nginx passes a request whose
connection was refused to the next server). A name no replica was given is
refused with HTTP 403 naming it and the flag. Loopback only.
Usage: nginx_replicas.py ASSISTANT_BINARY [NGINX_BINARY]"""
import asyncio
import os
import re
import secrets
import shutil
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
NGINX = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("nginx") or "/usr/sbin/nginx")
TOKEN = secrets.token_hex(16)
NAME = "mcp.example.test"


def nginx_config(prefix, port, upstreams):
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in upstreams)
    return f"""
worker_processes 1;
error_log {prefix}/error.log warn;
pid {prefix}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    log_format upstreamed '$upstream_addr $status';
    access_log {prefix}/access.log upstreamed;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    upstream optimclaw {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://optimclaw;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


def text_of(result):
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def upstreams_used(prefix):
    with open(f"{prefix}/access.log") as f:
        return re.findall(r"127\.0\.0\.1:(\d+)", f.read())


async def rounds(s, count, start):
    for i in range(start, start + count):
        tools = (await s.list_tools()).tools
        names = {t.name for t in tools}
        check("tool_info" in names and "calculate" not in names, f"lazy list: {sorted(names)}")
        found = await s.call_tool("tool_info", {"query": "calculate"})
        check(not found.is_error and "calculate" in str(found.structured_content), f"tool_info: {found}")
        out = await s.call_tool("calculate", {"expression": f"{i} + 40"})
        check(not out.is_error and text_of(out).strip() == str(i + 40), f"calculate: {text_of(out)}")


async def main():
    home = tempfile.mkdtemp()
    prefix = tempfile.mkdtemp()
    ports = [free_port(), free_port()]
    replicas = [subprocess.Popen([BINARY, "--home", home, "serve", "--http", f"127.0.0.1:{p}", "--lazy",
                                  "--stateless", "--allowed-host", NAME],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**os.environ, "OPTIMCLAW_MCP_TOKEN": TOKEN})
                for p in ports]
    port = free_port()
    with open(f"{prefix}/nginx.conf", "w") as f:
        f.write(nginx_config(prefix, port, ports))
    nginx = subprocess.Popen([NGINX, "-p", prefix, "-c", f"{prefix}/nginx.conf", "-g", "daemon off;"],
                             stderr=subprocess.PIPE)
    try:
        for p in ports + [port]:
            if nginx.poll() is not None:
                raise RuntimeError(f"nginx did not start: {nginx.stderr.read().decode()}")
            await asyncio.to_thread(wait_port, p)
        # The client asks for the name; nginx passes it on as `Host`.
        keyed = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}", "host": NAME}, timeout=30)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=keyed) as (read, write, *_):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                check(init.server_info.name == "optimclaw-assistant", "server name")
                tools_caps = init.capabilities.tools
                check(tools_caps is not None and not tools_caps.list_changed,
                      f"stateless: no listChanged announced ({tools_caps})")
                await rounds(s, 4, 0)
                used = upstreams_used(prefix)
                check(all(str(p) in used for p in ports), f"both replicas answered: {used}")
                # One replica dies mid-run; the client carries on.
                replicas[0].kill()
                replicas[0].wait()
                await rounds(s, 4, 10)
        after = upstreams_used(prefix)
        print(f"nginx replicas: requests per upstream {[after.count(str(p)) for p in ports]} (the first killed mid-run)")
        # A name no replica was told to answer: 403 naming it and the fix.
        stranger = await httpx2.AsyncClient(timeout=30).post(
            f"http://127.0.0.1:{port}/mcp",
            headers={"authorization": f"Bearer {TOKEN}", "host": "other.example.test",
                     "content-type": "application/json", "accept": "application/json, text/event-stream"},
            content=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')
        check(stranger.status_code == 403, f"unknown host: {stranger.status_code}")
        # The library names its setting; the flag is the assistant's, named
        # in `serve`'s first line (the library's texts name no CLI flag).
        check("Add `other.example.test` to the server's allowed hosts" in stranger.text,
              f"403 names the host and the fix: {stranger.text}")
        print(f"{passed()} passed, 0 failed")
    finally:
        nginx.terminate()
        nginx.wait()
        for r in replicas:
            r.kill()


asyncio.run(main())
