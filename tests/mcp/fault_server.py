#!/usr/bin/env python3
"""An MCP server (official Python SDK) that misbehaves on request, for the
client's fault tests: it hangs, dies mid-call, writes a malformed frame, and
grows its tool list (announcing it with tools/list_changed)."""
import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("faulty")


@server.tool()
def ok(text: str) -> str:
    """Return the text."""
    return text


@server.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.sleep(3600)
    return "late"


@server.tool()
def die() -> str:
    """Exit in the middle of the call."""
    os._exit(3)


@server.tool()
def garbage() -> str:
    """Write a malformed frame on stdout, then answer."""
    sys.stdout.write("this is not a JSON-RPC frame\n")
    sys.stdout.flush()
    return "after garbage"


@server.tool()
def flood() -> str:
    """Write 20 MB of junk lines on stdout, then answer."""
    junk = ("x" * 1023 + "\n").encode()
    for _ in range(20 * 1024):
        sys.stdout.buffer.write(junk)
    sys.stdout.flush()
    return "after flood"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add a tool and announce the change."""

    def extra(x: int) -> int:
        """Double a number."""
        return 2 * x

    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


server.run()
