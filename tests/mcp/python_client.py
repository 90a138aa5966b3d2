#!/usr/bin/env python3
"""The official Python MCP SDK as a client of `assistant serve` (stdio).

Usage: python_client.py ASSISTANT_BINARY FAULT_SERVER_SCRIPT
Checks initialize, tools/list in lazy, code and eager modes, tool_info, the
tools/list_changed notification, calling a loaded tool, calling an unloaded
one, and an unknown tool; then the assistant importing another MCP server
(FAULT_SERVER_SCRIPT, run with this Python) and passing its tool-list change
on to us. Prints 'N passed, 0 failed' or exits non-zero.
"""
import asyncio
import json
import os
import sys
import tempfile

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from checks import check, passed

BINARY = sys.argv[1]
FAULT_SERVER = sys.argv[2]


def text_of(result):
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def session_for(mode, home, notes, extra=(), serve_flags=()):
    async def on_message(message):
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            notes.append(root)

    params = StdioServerParameters(command=BINARY, args=["--home", home, *extra, "serve", mode, *serve_flags])
    return stdio_client(params), on_message


async def fixed_list(home):
    """The default: one fixed tools/list (core tools, tool_info, call_tool),
    byte-identical before and after tool_info; deferred tools are called
    through call_tool or directly by name."""
    notes = []
    transport, on_message = await session_for("--lazy", home, notes)
    async with transport as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            await s.initialize()
            before = await s.list_tools()
            names = sorted(t.name for t in before.tools)
            check(len(names) == 13 and "tool_info" in names and "call_tool" in names, f"fixed list: {names}")
            found = await s.call_tool("tool_info", {"query": "job_create"})
            check(not found.is_error, text_of(found))
            # Match strength, select: and an honest no-match reach MCP clients.
            sel = await s.call_tool("tool_info", {"query": "select:regex_find,date_add"})
            picked = sel.structured_content["tools"]
            check([t["name"] for t in picked] == ["regex_find", "date_add"] and all(t["match"] == "exact" for t in picked), f"select: {picked}")
            none = await s.call_tool("tool_info", {"query": "teleport a spaceship to mars"})
            check(none.structured_content.get("no_match") is True and "teleport" in none.structured_content.get("unmatched_words", []), f"no match: {none.structured_content}")
            bridged = await s.call_tool("call_tool", {"name": "job_create", "arguments": {"prompt": "Summarize the news", "priority": 2}})
            check(not bridged.is_error and '"priority":2' in text_of(bridged).replace(" ", ""), text_of(bridged))
            direct = await s.call_tool("calculate", {"expression": "6 * 7"})
            check(not direct.is_error and text_of(direct).strip() == "42", text_of(direct))
            bad = await s.call_tool("call_tool", {"name": "job_status", "arguments": {"job": 1}})
            check(bad.is_error and '"required":["id"]' in text_of(bad).replace(" ", ""), f"bridge error carries the schema: {text_of(bad)}")
            # Every problem of a call at once: the missing field and the wrong type.
            both = await s.call_tool("job_create", {"priority": "high"})
            both_text = text_of(both)
            check(both.is_error and "2 problems" in both_text and "`prompt`" in both_text
                  and '"high"' in both_text and '"problems"' in both_text, f"every problem named: {both_text}")
            after = await s.list_tools()
            check(before.model_dump_json() == after.model_dump_json(), "tools/list is byte-identical after tool_info and calls")
            await asyncio.sleep(0.2)
            check(not notes, "no list_changed in the fixed mode")


async def code_mode(home):
    """serve --code-mode: the fixed list is core tools, tool_info and
    run_code; tool_info answers with TypeScript declarations; one program
    calls several tools and only its result comes back."""
    transport, on_message = await session_for("--lazy", home, [], extra=("--code-mode",))
    async with transport as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            await s.initialize()
            names = sorted(t.name for t in (await s.list_tools()).tools)
            check("run_code" in names and "tool_info" in names and "call_tool" not in names and len(names) == 13, f"code-mode list: {names}")
            found = await s.call_tool("tool_info", {"query": "calculate"})
            entry = found.structured_content["tools"][0]
            check("declaration" in entry and "parameters" not in entry and "function calculate(args: {" in entry["declaration"], f"declaration: {entry}")
            program = "const xs = await Promise.all(['6 * 7', '2 + 3'].map(expression => tools.calculate({expression})));\nconsole.log('values', xs.length);\nreturn Math.max(...xs);"
            ran = await s.call_tool("run_code", {"code": program})
            out = json.loads(text_of(ran))
            check(not ran.is_error and out["result"] == 42 and out["logs"] == ["values 2"], f"run_code: {out}")
            failed = await s.call_tool("run_code", {"code": "return await tools.no_such_tool({});"})
            check("unknown tool" in json.loads(text_of(failed)).get("error", ""), text_of(failed))


async def lazy_mode(home):
    notes = []
    transport, on_message = await session_for("--lazy", home, notes, serve_flags=("--list-changed",))
    async with transport as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            init = await s.initialize()
            check(init.server_info.name == "optimclaw-assistant", "server name")
            check("use tool_info to load" in (init.instructions or ""), "the note is in the instructions")
            tools = (await s.list_tools()).tools
            names = sorted(t.name for t in tools)
            check(len(names) == 12 and "tool_info" in names and "job_create" not in names, f"lazy list: {names}")
            check(all(t.input_schema.get("type") == "object" for t in tools), "object input schemas")

            found = await s.call_tool("tool_info", {"query": "job_create"})
            check(not found.is_error, text_of(found))
            check(found.structured_content["tools"][0]["name"] == "job_create", "tool_info answers job_create")
            for _ in range(400):
                if notes:
                    break
                await asyncio.sleep(0.05)
            check(len(notes) >= 1, "tools/list_changed was sent")
            names = sorted(t.name for t in (await s.list_tools()).tools)
            check("job_create" in names and len(names) == 13, f"list after loading: {names}")

            job = await s.call_tool("job_create", {"prompt": "Summarize today's news", "priority": 3})
            check(not job.is_error, text_of(job))
            check('"priority":3' in text_of(job).replace(" ", ""), text_of(job))

            bad = await s.call_tool("job_status", {"job": 1})
            check(bad.is_error, "invalid arguments are a tool error")
            check("was not loaded yet" in text_of(bad) and '"required":["id"]' in text_of(bad).replace(" ", ""), text_of(bad))
            ran = await s.call_tool("job_status", {"id": "job-none"})
            check(ran.is_error and "no job has id" in text_of(ran), text_of(ran))
            names = sorted(t.name for t in (await s.list_tools()).tools)
            check("job_status" in names, "a valid direct call loads the tool")

            try:
                await s.call_tool("no_such_tool", {})
                check(False, "unknown tools are protocol errors")
            except MCPError as e:
                check("unknown tool" in str(e), str(e))


async def eager_mode(home):
    transport, on_message = await session_for("--eager", home, [])
    async with transport as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            await s.initialize()
            names = [t.name for t in (await s.list_tools()).tools]
            check(len(names) >= 52 and "tool_info" not in names, f"eager list has {len(names)} tools")
            echo = await s.call_tool("echo", {"text": "hi"})
            check(text_of(echo) == "hi", text_of(echo))
            t = await s.call_tool("time", {"timezone": "UTC"})
            check(t.structured_content and t.structured_content["timezone"] == "UTC", "structured content")


async def wait_for(notes, count):
    for _ in range(400):
        if len(notes) >= count:
            return True
        await asyncio.sleep(0.05)
    return False


async def imported_server(home):
    config = os.path.join(home, "servers.json")
    with open(config, "w") as f:
        json.dump({"mcpServers": {"faulty": {"command": sys.executable, "args": [FAULT_SERVER]}}}, f)
    notes = []
    transport, on_message = await session_for("--lazy", home, notes, ["--mcp-config", config])
    async with transport as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            init = await s.initialize()
            check("faulty__grow" in (init.instructions or ""), "imported tools are in the note")
            found = await s.call_tool("tool_info", {"query": "faulty__ok"})
            check(found.structured_content["tools"][0]["name"] == "faulty__ok", "tool_info finds an imported tool")
            listed = await s.call_tool("tool_info", {"query": "ns:faulty"})
            entries = listed.structured_content["tools"]
            check(entries and all(t["name"].startswith("faulty__") and t["match"] == "listed" for t in entries), f"ns:faulty lists the imported server: {entries}")
            ok = await s.call_tool("faulty__ok", {"text": "via the assistant"})
            check(not ok.is_error and "via the assistant" in text_of(ok), text_of(ok))
            seen = len(notes)
            grown = await s.call_tool("faulty__grow", {})
            check(not grown.is_error, text_of(grown))
            # The fixed list changes only when the tools do: one
            # notification, for the refresh (none for loading faulty__grow).
            check(await wait_for(notes, seen + 1), "the imported server's change reached us")
            extra = None
            for _ in range(400):
                found = await s.call_tool("tool_info", {"query": "faulty__extra"})
                named = [t for t in found.structured_content["tools"] if t["name"] == "faulty__extra"]
                if named:
                    extra = named[0]
                    break
                await asyncio.sleep(0.05)
            check(extra and extra["name"] == "faulty__extra", "the new remote tool is discoverable")
            doubled = await s.call_tool("faulty__extra", {"x": 21})
            check("42" in text_of(doubled), text_of(doubled))


def malformed_frames(home):
    """Garbage, invalid UTF-8 and a truncated frame on the server's stdin:
    it keeps serving, and answers the next valid request."""
    import queue
    import subprocess
    import threading
    import time

    proc = subprocess.Popen(
        [BINARY, "--home", home, "serve", "--lazy"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    # A thread reads whole lines: select() on a buffered pipe misses lines
    # that one readline() already pulled into Python's buffer.
    lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        for junk in (b"this is not json\n", b"\xff\xfe not utf-8\n", b'{"jsonrpc": "2.0", "id": 7, "meth\n', b"[]\n"):
            proc.stdin.write(junk)
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                         b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n')
        proc.stdin.flush()
        answer, seen = None, []
        deadline = time.monotonic() + 60
        while answer is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            reply = json.loads(line)
            if reply.get("id") == 1:
                answer = reply
        check(proc.poll() is None, "the server is still running")
        check(answer is not None, f"the valid request is answered; the server wrote {seen}")
        check(answer["result"]["serverInfo"]["name"] == "optimclaw-assistant", f"the initialize reply names the server: {answer}")
    finally:
        proc.kill()
        proc.wait()


async def main():
    with tempfile.TemporaryDirectory() as home:
        await fixed_list(home)
        await code_mode(home)
        await lazy_mode(home)
        await eager_mode(home)
        await imported_server(home)
        malformed_frames(home)
    print(f"{passed()} passed, 0 failed")


asyncio.run(main())
