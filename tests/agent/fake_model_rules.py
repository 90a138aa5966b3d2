#!/usr/bin/env python3
"""The stand-in model refuses what the APIs refuse and caches only what they cache.

Usage: fake_model_rules.py BASE_URL
"""
import json
import sys
import urllib.error
import urllib.request

base = sys.argv[1]


def post(path, body, key_header=("x-api-key", "sk-fake-key")):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", key_header[0]: key_header[1]})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


big = "x" * 6000  # ~1,500 tokens: above Sonnet 4.5's 1,024 minimum
tool = {"name": "t", "description": big, "input_schema": {"type": "object", "properties": {}}}
mark = {"type": "ephemeral"}


def msgs(*texts):
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in texts]}]


def anthropic(**body):
    return post("/v1/messages", {"model": "claude-sonnet-4-5", "max_tokens": 10, **body})


def refused(status, reply, words):
    assert status == 400, (status, reply)
    assert words in reply["error"]["message"], reply
    assert reply["error"]["type"] == "invalid_request_error", reply


five = [{"type": "text", "text": f"part {i}", "cache_control": mark} for i in range(5)]
refused(*anthropic(messages=[{"role": "user", "content": five}]), "A maximum of 4 blocks with cache_control")
refused(*anthropic(tools=[{**tool, "defer_loading": True, "cache_control": mark}], messages=msgs("hi")), "defer_loading")
refused(*anthropic(messages=[{"role": "user", "content": [{"type": "text", "text": "", "cache_control": mark}, {"type": "text", "text": "x"}]}]), "empty text")
refused(*anthropic(system=[{"type": "text", "text": "a", "cache_control": mark}, {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}}], messages=msgs("hi")), "ttl='1h'")
refused(*anthropic(messages=[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}]), "tool_use_id")
print("anthropic: the 400s of the API")

# Unmarked: nothing cached, ever.
for _ in range(2):
    status, reply = anthropic(tools=[tool], messages=msgs("hello"))
    assert status == 200 and reply["usage"]["cache_read_input_tokens"] == 0 and reply["usage"]["cache_creation_input_tokens"] == 0, reply
# Marked: written once, then read.
status, first = anthropic(tools=[{**tool, "cache_control": mark}], messages=msgs("hello"))
status, second = anthropic(tools=[{**tool, "cache_control": mark}], messages=msgs("hello again"))
assert first["usage"]["cache_creation_input_tokens"] > 1024 and first["usage"]["cache_read_input_tokens"] == 0, first
assert second["usage"]["cache_read_input_tokens"] == first["usage"]["cache_creation_input_tokens"], second
# Below the model's minimum (Opus 4.5: 4,096 tokens): not cached.
status, small = post("/v1/messages", {"model": "claude-opus-4-5", "max_tokens": 10, "tools": [{**tool, "cache_control": mark}], "messages": msgs("hi")})
assert small["usage"]["cache_creation_input_tokens"] == 0, small
print("anthropic: only marked prefixes of the minimum length are cached")

bearer = ("authorization", "Bearer sk-fake-key")
body = {"model": "gpt-4.1-mini", "messages": [{"role": "system", "content": big}, {"role": "user", "content": "hi"}]}
_, one = post("/v1/chat/completions", body, bearer)
_, two = post("/v1/chat/completions", {**body, "messages": body["messages"][:1] + [{"role": "user", "content": "hello"}]}, bearer)
assert one["usage"]["prompt_tokens_details"]["cached_tokens"] == 0, one
cached = two["usage"]["prompt_tokens_details"]["cached_tokens"]
assert cached >= 1024 and (cached - 1024) % 128 == 0, two
_, other = post("/v1/chat/completions", {**body, "prompt_cache_key": "someone-else"}, bearer)
assert other["usage"]["prompt_tokens_details"]["cached_tokens"] == 0, other
print("openai: automatic caching from 1,024 tokens in steps of 128, per prompt_cache_key")
