#!/usr/bin/env python3
"""A rule-following stand-in for a model endpoint, for `assistant chat` in CI.

Speaks OpenAI chat completions (POST /v1/chat/completions) and Anthropic
messages (POST /v1/messages). Every request body is first validated with
the provider's SDK types (a 400 names the problem), then answered by rules
that play a model using lazy tools:

1. the user asks something: call `tool_info` to find a calculator;
2. `tool_info` answered and `calculate` is now among the request's tools
   (appended, or referenced by a `tool_reference` block under Anthropic's
   native deferral): call `calculate` with the numbers from the user's
   message; if it is not but the bridge `call_tool` is, call it through
   `call_tool`;
3. the calculator answered: reply with its result.

It also serves OpenAI-compatible embeddings (POST /v1/embeddings, body
checked with the SDK's types) for `--embed-url`: a stand-in for a model
that knows synonyms, so that a query sharing no word with a tool can still
be near it. Each text becomes counts over word groups (`MEANINGS`) plus a
hashed bag of its other words.

Usage: fake_model.py PORT_FILE   (binds 127.0.0.1:0, writes the port there)
"""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import TypeAdapter

from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.embedding_create_params import EmbeddingCreateParams

OPENAI = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC = TypeAdapter(MessageCreateParamsNonStreaming)
EMBEDDINGS = TypeAdapter(EmbeddingCreateParams)

# Words that mean alike, for the stand-in embedder.
MEANINGS = [
    {"clock", "hour", "hours", "time", "timezone", "zone", "zones", "tokyo", "o'clock"},
    {"arithmetic", "sum", "multiply", "math", "calculate", "expression", "total"},
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


def consume(value):
    """Iterables in typed dicts validate lazily: walk them."""
    if isinstance(value, dict):
        for v in value.values():
            consume(v)
    elif not isinstance(value, (str, bytes, int, float, bool)) and value is not None:
        for v in value:
            consume(v)


def decide(user_text, tool_names, tool_outputs):
    """The next move: ("call", name, args) or ("say", text)."""
    numbers = re.findall(r"\d+", user_text)
    expression = " * ".join(numbers) if numbers else "0"
    for name, output in reversed(tool_outputs):
        if name in ("calculate", "call_tool"):
            return ("say", f"The answer is {json.loads(output)}.")
    if "calculate" in tool_names:
        return ("call", "calculate", {"expression": expression})
    found = any(name == "tool_info" and "calculate" in str(output) for name, output in tool_outputs)
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

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Handler.calls += 1
        try:
            if self.path == "/v1/chat/completions":
                if self.headers.get("authorization") != "Bearer sk-fake-key":
                    return self.reply(401, {"error": {"message": "bad key"}})
                consume(OPENAI.validate_python(body))
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
                if self.headers.get("x-api-key") != "sk-fake-key":
                    return self.reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}})
                consume(ANTHROPIC.validate_python(body))
                return self.anthropic(body)
            return self.reply(404, {"error": {"message": f"no route {self.path}"}})
        except Exception as e:  # a body the SDK rejects
            return self.reply(400, {"error": {"message": f"SDK validation: {e}"}})

    def openai(self, body):
        messages = body["messages"]
        user = [m["content"] for m in messages if m["role"] == "user"][-1]
        tools = [t["function"]["name"] for t in body.get("tools", [])]
        names = {}
        for m in messages:
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
        # Only results after the last user message count.
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        outputs = [(names[m["tool_call_id"]], m["content"]) for m in messages[last_user:] if m["role"] == "tool"]
        move = decide(user, tools, outputs)
        if move[0] == "say":
            message = {"role": "assistant", "content": move[1]}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{Handler.calls}", "type": "function",
                "function": {"name": move[1], "arguments": json.dumps(move[2])}}]}
            finish = "tool_calls"
        self.reply(200, {
            "id": f"chatcmpl-{Handler.calls}", "object": "chat.completion", "created": 0,
            "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100 * Handler.calls, "completion_tokens": 10, "total_tokens": 100 * Handler.calls + 10},
        })

    def anthropic(self, body):
        messages = body["messages"]
        # Deferred tools can be called once a tool_reference names them.
        tools = [t["name"] for t in body.get("tools", []) if "name" in t and not t.get("defer_loading")]
        names, outputs, user = {}, [], ""
        for m in messages:
            for block in m["content"]:
                if block["type"] == "tool_use":
                    names[block["id"]] = block["name"]
                elif block["type"] == "text" and m["role"] == "user":
                    user, outputs = block["text"], []
                elif block["type"] == "tool_result":
                    content = block["content"]
                    if isinstance(content, list):
                        tools += [c["tool_name"] for c in content if c.get("type") == "tool_reference"]
                    outputs.append((names[block["tool_use_id"]], content))
        move = decide(user, tools, outputs)
        if move[0] == "say":
            content, stop = [{"type": "text", "text": move[1]}], "end_turn"
        else:
            content = [{"type": "tool_use", "id": f"toolu_{Handler.calls}", "name": move[1], "input": move[2]}]
            stop = "tool_use"
        self.reply(200, {
            "id": f"msg_{Handler.calls}", "type": "message", "role": "assistant", "model": body["model"],
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 100 * Handler.calls, "output_tokens": 10},
        })


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
