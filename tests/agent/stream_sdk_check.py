#!/usr/bin/env python3
"""The stand-in model's streams, read by the official SDKs' own stream parsers.

Usage: stream_sdk_check.py BASE_URL   (the fake model, e.g. http://127.0.0.1:PORT)

The openai client iterates a streamed chat completion (each chunk parsed as
the SDK's ChatCompletionChunk) and the anthropic client accumulates a
streamed message (MessageStream.get_final_message). Both a tool call (its
arguments split across events) and a text answer are streamed in each
format; the script fails when an SDK cannot read them or they do not add up.
"""
import json
import sys

import anthropic
import openai

base = sys.argv[1]
tools_openai = [{"type": "function", "function": {"name": "tool_info", "description": "Find tools.",
                 "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}]
tools_anthropic = [{"name": "tool_info", "description": "Find tools.",
                    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}]

client = openai.OpenAI(base_url=f"{base}/v1", api_key="sk-fake-key")
calls, finish, usage = {}, None, None
for chunk in client.chat.completions.create(model="fake", stream=True, stream_options={"include_usage": True},
                                            tools=tools_openai, messages=[{"role": "user", "content": "What is 6 times 7?"}]):
    if chunk.usage:
        usage = chunk.usage
    for choice in chunk.choices:
        finish = choice.finish_reason or finish
        for call in choice.delta.tool_calls or []:
            entry = calls.setdefault(call.index, {"name": "", "arguments": ""})
            entry["name"] += (call.function.name or "") if call.function else ""
            entry["arguments"] += (call.function.arguments or "") if call.function else ""
assert finish == "tool_calls", finish
assert calls[0]["name"] == "tool_info", calls
assert json.loads(calls[0]["arguments"])["query"], calls
assert usage is not None and usage.prompt_tokens > 0, usage
text = ""
for chunk in client.chat.completions.create(model="fake", stream=True, messages=[
        {"role": "user", "content": "What is 6 times 7?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "42"}]):
    for choice in chunk.choices:
        text += choice.delta.content or ""
assert text == "The answer is 42.", text
print("openai: the SDK read a streamed tool call and a streamed answer")

client = anthropic.Anthropic(base_url=base, api_key="sk-fake-key")
with client.messages.stream(model="claude-sonnet-4-5", max_tokens=100, tools=tools_anthropic,
                            messages=[{"role": "user", "content": "What is 6 times 7?"}]) as stream:
    message = stream.get_final_message()
use = [b for b in message.content if b.type == "tool_use"]
assert use and use[0].name == "tool_info" and use[0].input["query"], message
assert message.stop_reason == "tool_use", message.stop_reason
with client.messages.stream(model="claude-sonnet-4-5", max_tokens=100, messages=[
        {"role": "user", "content": "What is 6 times 7?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "calculate", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "42"}]}]) as stream:
    text = "".join(stream.text_stream)
    final = stream.get_final_message()
assert text == "The answer is 42.", text
assert final.usage.output_tokens > 0
print("anthropic: the SDK read a streamed tool call and a streamed answer")
