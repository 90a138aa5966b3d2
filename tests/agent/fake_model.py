#!/usr/bin/env python3
"""A rule-following stand-in for a model endpoint, for `assistant chat` in CI.

Speaks OpenAI chat completions (POST /v1/chat/completions) and Anthropic
messages (POST /v1/messages). Every request body is first validated with
the provider's SDK types (a 400 names the problem), then answered by rules
that play a model using lazy tools:

1. the user asks something: call `tool_info` to find a calculator;
2. `tool_info` answered (or `calculate` came attached to the message) and
   `calculate` is now among the request's tools
   (appended, or referenced by a `tool_reference` block under Anthropic's
   native deferral): call `calculate` with the numbers from the user's
   message; if it is not but the bridge `call_tool` is, call it through
   `call_tool`;
3. the calculator answered: reply with its result.

In code mode (`run_code` among the request's tools) it sends one program
that calls `tools.calculate` and replies with the program's `result`.

It is as strict as the real APIs where the loop depends on them:

- Anthropic: at most 4 `cache_control` breakpoints (a top-level one
  counts), none on a tool sent with `defer_loading`, none on an empty text
  block, a 1-hour breakpoint never after a 5-minute one, every
  `tool_reference` naming a tool of the request, every `tool_result`
  answering a `tool_use` of the message before: each refused with a 400
  as the API words it.
- Anthropic prompt caching as the API does it: only marked prefixes are
  written (and only when as long as the model's minimum: 1,024 tokens,
  2,048 for Sonnet 4.6, 4,096 for Opus 4.5 and later and Haiku 4.5), a
  breakpoint reads the longest written prefix ending at it or up to 20
  blocks before it, entries live 5 minutes (or 1 hour) from their last
  use; usage reports `cache_creation_input_tokens`,
  `cache_read_input_tokens` and the rest as `input_tokens`.
- OpenAI prompt caching: automatic for prompts of 1,024 tokens or more, in
  steps of 128, per `prompt_cache_key`; usage reports
  `prompt_tokens_details.cached_tokens` within `prompt_tokens`.

Tokens are counted as a quarter of the JSON characters (no tokenizer is
installed here); the bench prices with o200k.

It also serves OpenAI-compatible embeddings (POST /v1/embeddings, body
checked with the SDK's types) for `--embed-url`: a stand-in for a model
that knows synonyms, so that a query sharing no word with a tool can still
be near it. Each text becomes counts over word groups (`MEANINGS`) plus a
hashed bag of its other words.

Usage: fake_model.py PORT_FILE   (binds 127.0.0.1:0, writes the port there)
"""
import hashlib
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import TypeAdapter

from anthropic.types.message_create_params import MessageCreateParamsNonStreaming, MessageCreateParamsStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming, CompletionCreateParamsStreaming
from openai.types.embedding_create_params import EmbeddingCreateParams

OPENAI = TypeAdapter(CompletionCreateParamsNonStreaming)
OPENAI_STREAM = TypeAdapter(CompletionCreateParamsStreaming)
ANTHROPIC = TypeAdapter(MessageCreateParamsNonStreaming)
ANTHROPIC_STREAM = TypeAdapter(MessageCreateParamsStreaming)
EMBEDDINGS = TypeAdapter(EmbeddingCreateParams)

# Words that mean alike, for the stand-in embedder.
MEANINGS = [
    {"clock", "hour", "hours", "time", "timezone", "zone", "zones", "tokyo", "o'clock"},
    {"arithmetic", "sum", "multiply", "math", "calculate", "expression", "total", "totals", "tally"},
]
HASHED = 64


def embed(text):
    words = re.findall(r"[a-z']+", text.lower())
    vector = [0.0] * (len(MEANINGS) + HASHED)
    for word in words:
        groups = [i for i, group in enumerate(MEANINGS) if word in group]
        for i in groups:
            vector[i] += 4.0
        if not groups:
            vector[len(MEANINGS) + sum(word.encode()) % HASHED] += 1.0
    return vector


def tokens(text):
    return (len(text) + 3) // 4


def min_cacheable(model):
    m = model.lower()
    if any(v in m for v in ("opus-4-5", "opus-4-6", "opus-4-7", "opus-5", "haiku-4-5")):
        return 4096
    if "sonnet-4-6" in m or "haiku-3" in m or "3-haiku" in m:
        return 2048
    return 1024


class BadRequest(Exception):
    pass


def anthropic_blocks(body):
    """The request in cache order (tools, system, messages), one entry per
    block: (where, block)."""
    out = [(f"tools.{i}", t) for i, t in enumerate(body.get("tools", []))]
    system = body.get("system")
    if isinstance(system, str):
        out.append(("system", {"type": "text", "text": system}))
    elif isinstance(system, list):
        out += [(f"system.{i}", b) for i, b in enumerate(system)]
    for i, m in enumerate(body["messages"]):
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out += [(f"messages.{i}.content.{j}", b) for j, b in enumerate(content)]
    return out


def anthropic_rules(body):
    """The 400s the Messages API gives for what this loop could get wrong."""
    blocks = anthropic_blocks(body)
    marked = [(where, b["cache_control"]) for where, b in blocks if b.get("cache_control")]
    for m in body["messages"]:
        for b in m["content"] if isinstance(m["content"], list) else []:
            for inner in b.get("content", []) if isinstance(b.get("content"), list) else []:
                if inner.get("cache_control"):
                    marked.append(("tool_result content", inner["cache_control"]))
    if body.get("cache_control"):
        marked.append(("cache_control", body["cache_control"]))
    if len(marked) > 4:
        raise BadRequest(f"A maximum of 4 blocks with cache_control may be provided. Found {len(marked)}.")
    seen_5m = False
    for where, cc in marked:
        ttl = cc.get("ttl", "5m")
        if ttl == "1h" and seen_5m:
            raise BadRequest(f"{where}: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block")
        seen_5m = seen_5m or ttl == "5m"
    for where, b in blocks:
        if where.startswith("tools.") and b.get("defer_loading") and b.get("cache_control"):
            raise BadRequest(f"{where}: cache_control cannot be set on a tool with defer_loading")
        if b.get("type") == "text" and not b.get("text") and b.get("cache_control"):
            raise BadRequest(f"{where}: cache_control cannot be set for empty text blocks")
    names = {t.get("name") for t in body.get("tools", [])}
    messages = body["messages"]
    for i, m in enumerate(messages):
        if not isinstance(m["content"], list):
            continue
        for b in m["content"]:
            if b.get("type") != "tool_result":
                continue
            before = messages[i - 1]["content"] if i > 0 and messages[i - 1]["role"] == "assistant" else []
            ids = {x.get("id") for x in before if isinstance(x, dict) and x.get("type") == "tool_use"}
            if b["tool_use_id"] not in ids:
                raise BadRequest(f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: {b['tool_use_id']}. "
                                 "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
            for inner in b["content"] if isinstance(b["content"], list) else []:
                if inner.get("type") == "tool_reference" and inner.get("tool_name") not in names:
                    raise BadRequest(f"messages.{i}: tool_reference names `{inner.get('tool_name')}`, which is not a tool of this request")


class AnthropicCache:
    """Written prefixes: hash -> (tokens, expires)."""

    def __init__(self):
        self.entries = {}

    def usage(self, body):
        blocks = anthropic_blocks(body)
        running, hashes, ends = hashlib.sha256(body["model"].encode()), [], []
        total = 0
        for _, b in blocks:
            clean = {k: v for k, v in b.items() if k != "cache_control"}
            text = json.dumps(clean, sort_keys=True)
            running.update(text.encode())
            hashes.append(running.hexdigest())
            total += tokens(text)
            ends.append(total)
        points = [i for i, (_, b) in enumerate(blocks) if b.get("cache_control")]
        ttl = {i: blocks[i][1]["cache_control"].get("ttl", "5m") for i in points}
        if body.get("cache_control") and blocks:
            last = len(blocks) - 1
            points.append(last)
            ttl[last] = body["cache_control"].get("ttl", "5m")
        now = time.monotonic()
        self.entries = {h: e for h, e in self.entries.items() if e[1] > now}
        read = 0
        for b in points:
            for j in range(b, max(-1, b - 21), -1):
                if hashes[j] in self.entries:
                    read = max(read, ends[j])
                    break
        written = read
        for b in points:
            if ends[b] < min_cacheable(body["model"]):
                continue
            life = 3600 if ttl[b] == "1h" else 300
            self.entries[hashes[b]] = (ends[b], now + life)
            written = max(written, ends[b])
        # Reads refresh what they read.
        for j, h in enumerate(hashes):
            if h in self.entries and ends[j] <= read:
                self.entries[h] = (ends[j], max(self.entries[h][1], now + 300))
        creation = written - read
        return {"input_tokens": total - written, "cache_creation_input_tokens": creation,
                "cache_read_input_tokens": read}


class OpenAiCache:
    """Automatic: the longest prefix seen before, per prompt_cache_key."""

    def __init__(self):
        self.seen = {}

    def usage(self, body):
        parts = [json.dumps(t, sort_keys=True) for t in body.get("tools", [])]
        parts += [json.dumps(m, sort_keys=True) for m in body["messages"]]
        key = body.get("prompt_cache_key", "")
        hashes, ends, running, total = [], [], hashlib.sha256(body["model"].encode()), 0
        for p in parts:
            running.update(p.encode())
            hashes.append(running.hexdigest())
            total += tokens(p)
            ends.append(total)
        known = self.seen.setdefault(key, set())
        shared = max([ends[i] for i, h in enumerate(hashes) if h in known], default=0)
        known.update(hashes)
        cached = 0
        if total >= 1024 and shared >= 1024:
            cached = 1024 + (shared - 1024) // 128 * 128
        return {"prompt_tokens": total, "completion_tokens": 10, "total_tokens": total + 10,
                "prompt_tokens_details": {"cached_tokens": cached}}


def pieces(text, n=3):
    """Splits text into n parts (as streams split it anywhere)."""
    step = max(1, -(-len(text) // n))
    return [text[i:i + step] for i in range(0, len(text), step)] or [""]


def openai_events(body, message, finish, usage):
    base = {"id": f"chatcmpl-{Handler.calls}", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
    chunk = lambda delta, reason=None: (None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})
    events = [chunk({"role": "assistant", "content": ""})]
    for part in pieces(message.get("content") or ""):
        if part:
            events.append(chunk({"content": part}))
    for i, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        for part in pieces(call["function"]["arguments"]):
            events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}))
    events.append(chunk({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append((None, {**base, "choices": [], "usage": usage}))
    events.append((None, "[DONE]"))
    return events


def anthropic_events(message):
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": start}), ("ping", {"type": "ping"})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}))
            for part in pieces(block["text"]):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": part}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}))
            for part in pieces(json.dumps(block["input"])):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": part}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                     "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


ANTHROPIC_CACHE = AnthropicCache()
OPENAI_CACHE = OpenAiCache()


def consume(value):
    """Iterables in typed dicts validate lazily: walk them."""
    if isinstance(value, dict):
        for v in value.values():
            consume(v)
    elif not isinstance(value, (str, bytes, int, float, bool)) and value is not None:
        for v in value:
            consume(v)


def decide(user_text, tool_names, tool_outputs, attached=""):
    """The next move: ("call", name, args) or ("say", text)."""
    numbers = re.findall(r"\d+", user_text)
    expression = " * ".join(numbers) if numbers else "0"
    for name, output in reversed(tool_outputs):
        if name == "run_code":
            # Code mode: the program's returned value.
            return ("say", f"The answer is {json.loads(output if isinstance(output, str) else output[0]['text'])['result']}.")
        if name in ("calculate", "call_tool"):
            return ("say", f"The answer is {json.loads(output)}.")
    if "run_code" in tool_names:
        # Code mode: one program that calls the calculator and returns its answer.
        program = f"const value = await tools.calculate({{expression: {json.dumps(expression)}}});\nreturn value;"
        return ("call", "run_code", {"code": program})
    if "calculate" in tool_names:
        return ("call", "calculate", {"expression": expression})
    found = any(name == "tool_info" and "calculate" in str(output) for name, output in tool_outputs)
    found = found or '"name":"calculate"' in attached
    if found and "call_tool" in tool_names:
        return ("call", "call_tool", {"name": "calculate", "arguments": {"expression": expression}})
    return ("call", "tool_info", {"query": "calculate arithmetic expression", "max_results": 3})


class Handler(BaseHTTPRequestHandler):
    calls = 0

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, events):
        """Sends server-sent events: (name or None, data) pairs."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        for name, data in events:
            text = (f"event: {name}\n" if name else "") + f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            self.wfile.write(text.encode())
            self.wfile.flush()
        self.close_connection = True

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Handler.calls += 1
        try:
            if self.path == "/v1/chat/completions":
                if self.headers.get("authorization") != "Bearer sk-fake-key":
                    return self.reply(401, {"error": {"message": "bad key"}})
                consume((OPENAI_STREAM if body.get("stream") else OPENAI).validate_python(body))
                return self.openai(body)
            if self.path == "/v1/embeddings":
                if self.headers.get("authorization") != "Bearer sk-fake-key":
                    return self.reply(401, {"error": {"message": "bad key"}})
                EMBEDDINGS.validate_python(body)
                texts = [body["input"]] if isinstance(body["input"], str) else body["input"]
                data = [{"object": "embedding", "index": i, "embedding": embed(t)} for i, t in enumerate(texts)]
                return self.reply(200, {"object": "list", "data": data, "model": body["model"],
                                        "usage": {"prompt_tokens": 0, "total_tokens": 0}})
            if self.path == "/v1/messages":
                # The API takes the key as x-api-key or as a bearer token.
                if "sk-fake-key" not in (self.headers.get("x-api-key"), (self.headers.get("authorization") or "")[7:]):
                    return self.reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}})
                consume((ANTHROPIC_STREAM if body.get("stream") else ANTHROPIC).validate_python(body))
                try:
                    anthropic_rules(body)
                except BadRequest as e:
                    return self.reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}})
                return self.anthropic(body)
            return self.reply(404, {"error": {"message": f"no route {self.path}"}})
        except Exception as e:  # a body the SDK rejects
            return self.reply(400, {"error": {"message": f"SDK validation: {e}"}})

    def openai(self, body):
        messages = body["messages"]
        content = [m["content"] for m in messages if m["role"] == "user"][-1]
        # The user's words, then (as further parts) tools attached to them.
        user = content if isinstance(content, str) else content[0]["text"]
        attached = "" if isinstance(content, str) else "".join(p["text"] for p in content[1:])
        tools = [t["function"]["name"] for t in body.get("tools", [])]
        names = {}
        for m in messages:
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
        # Only results after the last user message count.
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        outputs = [(names[m["tool_call_id"]], m["content"]) for m in messages[last_user:] if m["role"] == "tool"]
        move = decide(user, tools, outputs, attached)
        if move[0] == "say":
            message = {"role": "assistant", "content": move[1]}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{Handler.calls}", "type": "function",
                "function": {"name": move[1], "arguments": json.dumps(move[2])}}]}
            finish = "tool_calls"
        usage = OPENAI_CACHE.usage(body)
        if body.get("stream"):
            return self.stream(openai_events(body, message, finish, usage))
        self.reply(200, {
            "id": f"chatcmpl-{Handler.calls}", "object": "chat.completion", "created": 0,
            "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        })

    def anthropic(self, body):
        messages = body["messages"]
        # Deferred tools can be called once a tool_reference names them.
        tools = [t["name"] for t in body.get("tools", []) if "name" in t and not t.get("defer_loading")]
        names, outputs, user, attached = {}, [], "", ""
        for m in messages:
            first = True
            content = m["content"]
            for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
                if block["type"] == "tool_use":
                    names[block["id"]] = block["name"]
                elif block["type"] == "text" and m["role"] == "user":
                    # The user's words, then tools attached to them.
                    if first:
                        user, outputs, attached, first = block["text"], [], "", False
                    else:
                        attached += block["text"]
                elif block["type"] == "tool_result":
                    content = block["content"]
                    if isinstance(content, list):
                        tools += [c["tool_name"] for c in content if c.get("type") == "tool_reference"]
                    outputs.append((names[block["tool_use_id"]], content))
        move = decide(user, tools, outputs, attached)
        if move[0] == "say":
            content, stop = [{"type": "text", "text": move[1]}], "end_turn"
        else:
            content = [{"type": "tool_use", "id": f"toolu_{Handler.calls}", "name": move[1], "input": move[2]}]
            stop = "tool_use"
        message = {
            "id": f"msg_{Handler.calls}", "type": "message", "role": "assistant", "model": body["model"],
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {**ANTHROPIC_CACHE.usage(body), "output_tokens": 10},
        }
        if body.get("stream"):
            return self.stream(anthropic_events(message))
        self.reply(200, message)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
