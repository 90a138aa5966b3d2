#!/usr/bin/env python3
"""The memory peer: the official Python MCP SDK's low-level server holding
the tools of a tools.json (as an MCP `tools/list` result) over stdio.
Usage: peer_server.py TOOLS_JSON"""
import asyncio
import json
import sys

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

raw = json.load(open(sys.argv[1]))["tools"]
TOOLS = [types.Tool(name=t["name"], description=t.get("description", ""), input_schema=t["inputSchema"]) for t in raw]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


async def main():
    server = Server("peer", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


asyncio.run(main())
