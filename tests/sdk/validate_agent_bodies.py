#!/usr/bin/env python3
"""Validates the agent loop's request bodies, and the scripted replies it
was tested with, against the providers' own SDK types.

Usage: validate_agent_bodies.py DIR
DIR holds `openai/` and `anthropic/` folders of `*-request.json` and
`*-response.json` files (written by tests/tests/agent.rs), and a `gemini/`
folder of `*-part.json` tool results (functionResponse parts, written by
tests/tests/rich.rs). A body passes when
the SDK type accepts it and keeps every key: pydantic drops keys a typed
dict does not declare, so a key lost in validation is a key the SDK does
not know.
"""
import json
import pathlib
import sys

from pydantic import TypeAdapter

from anthropic.types import Message
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from google.genai import types as genai_types
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming


def lost_keys(original, validated, path="$"):
    """Paths of keys in `original` that `validated` no longer has."""
    if isinstance(original, dict):
        if not isinstance(validated, dict):
            return [f"{path} (became {type(validated).__name__})"]
        out = []
        for key, value in original.items():
            if key not in validated:
                out.append(f"{path}.{key}")
            else:
                out.extend(lost_keys(value, validated[key], f"{path}.{key}"))
        return out
    if isinstance(original, list) and isinstance(validated, (list, tuple)):
        out = []
        for i, (a, b) in enumerate(zip(original, validated)):
            out.extend(lost_keys(a, b, f"{path}[{i}]"))
        return out
    return []


def plain(value):
    """Pydantic models and iterables to plain JSON-like values."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_unset=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    # `Iterable[...]` fields validate lazily: consuming them validates.
    return [plain(v) for v in value]


# Kept alive: lazily validated iterables need their adapter's definitions.
OPENAI_REQUEST = TypeAdapter(CompletionCreateParamsNonStreaming)
ANTHROPIC_REQUEST = TypeAdapter(MessageCreateParamsNonStreaming)

CHECKS = {
    ("openai", "request"): OPENAI_REQUEST.validate_python,
    ("openai", "response"): lambda b: ChatCompletion.model_validate(b),
    ("anthropic", "request"): ANTHROPIC_REQUEST.validate_python,
    ("anthropic", "response"): lambda b: Message.model_validate(b),
}


def main(root):
    root = pathlib.Path(root)
    total = 0
    for (fmt, kind), check in CHECKS.items():
        files = sorted((root / fmt).glob(f"*-{kind}.json"))
        if not files:
            sys.exit(f"no {fmt} {kind} bodies in {root / fmt}: run `cargo test -p optimclaw-tests --test agent` first")
        for path in files:
            body = json.loads(path.read_text())
            try:
                validated = plain(check(body))
            except Exception as e:  # the SDK's complaint, with the file
                sys.exit(f"{path.name}: {fmt} SDK rejects the {kind}: {e}")
            lost = lost_keys(body, validated)
            if lost:
                sys.exit(f"{path.name}: keys the {fmt} SDK does not know: {lost}")
            total += 1
        print(f"{fmt} {kind}s: {len(files)} valid")
    # google-genai reads bytes as base64 only from JSON text, and names
    # fields in camelCase only when dumped by alias.
    files = sorted((root / "gemini").glob("*-part.json"))
    if not files:
        sys.exit(f"no gemini parts in {root / 'gemini'}: run `cargo test -p optimclaw-tests --test rich` first")
    for path in files:
        text = path.read_text()
        try:
            part = genai_types.Part.model_validate_json(text)
        except Exception as e:
            sys.exit(f"{path.name}: the google-genai SDK rejects the part: {e}")
        validated = json.loads(part.model_dump_json(by_alias=True, exclude_unset=True))
        lost = lost_keys(json.loads(text), validated)
        if lost:
            sys.exit(f"{path.name}: keys the google-genai SDK does not know: {lost}")
        total += 1
    print(f"gemini parts: {len(files)} valid")
    print(f"agent bodies: {total} valid")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/agent-bodies")
