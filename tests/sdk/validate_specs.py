#!/usr/bin/env python3
"""Validates optimclaw's emitted tool specs with the providers' own SDK types.

Usage: validate_specs.py SPECS.json [SPECS.json ...]
Each file maps a dialect name to a list of specs (see the `shapes` test and
`assistant prompt --provider`). Prints one line per dialect and fails on the
first spec an SDK rejects, naming the tool and the SDK's complaint.
"""
import json
import sys
import typing

from pydantic import TypeAdapter

import anthropic.types as at
import mcp.types as mt
from google.genai import types as gt
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam, NamespaceToolParam, ToolSearchToolParam
from openai.types.responses.namespace_tool_param import ToolFunction as NamespaceFunction
from openai.types.shared_params import FunctionDefinition


def typed_dict_keys(td):
    return set(typing.get_type_hints(td).keys())


def check_keys(spec, td, where):
    extra = set(spec) - typed_dict_keys(td)
    if extra:
        raise ValueError(f"{where}: keys {sorted(extra)} are not in {td.__name__}")


def validate_typed_dict(td, spec, where):
    check_keys(spec, td, where)
    TypeAdapter(td).validate_python(spec)


STRICT_UNSUPPORTED = {
    "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "oneOf",
}


def check_strict(schema, path="#"):
    """OpenAI strict mode: every object closed and fully required."""
    if not isinstance(schema, dict):
        return
    bad = STRICT_UNSUPPORTED & set(schema)
    if bad:
        raise ValueError(f"{path}: unsupported in strict mode: {sorted(bad)}")
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            raise ValueError(f"{path}: object without additionalProperties: false")
        props = schema.get("properties", {})
        if set(schema.get("required", [])) != set(props):
            raise ValueError(f"{path}: required {schema.get('required')} != properties {sorted(props)}")
        for name, sub in props.items():
            check_strict(sub, f"{path}/properties/{name}")
    for key in ("items", "not"):
        if key in schema:
            check_strict(schema[key], f"{path}/{key}")
    for key in ("anyOf", "allOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key, [])):
            check_strict(sub, f"{path}/{key}/{i}")
    for name, sub in schema.get("$defs", {}).items():
        check_strict(sub, f"{path}/$defs/{name}")


def validate(dialect, spec):
    name = spec.get("name") or spec.get("function", {}).get("name") or spec.get("type")
    where = f"{dialect} {name}"
    if dialect in ("openai", "openai-strict"):
        validate_typed_dict(ChatCompletionFunctionToolParam, spec, where)
        validate_typed_dict(FunctionDefinition, spec["function"], where)
        if dialect == "openai-strict" and spec["function"].get("strict"):
            check_strict(spec["function"]["parameters"])
    elif dialect == "openai-responses":
        if spec.get("type") == "tool_search":
            validate_typed_dict(ToolSearchToolParam, spec, where)
        elif spec.get("type") == "namespace":
            validate_typed_dict(NamespaceToolParam, spec, where)
            for inner in spec["tools"]:
                validate_typed_dict(NamespaceFunction, inner, f"{where}/{inner.get('name')}")
                if inner.get("strict"):
                    check_strict(inner["parameters"])
        else:
            validate_typed_dict(FunctionToolParam, spec, where)
            if spec.get("strict"):
                check_strict(spec["parameters"])
    elif dialect == "openai-responses-input":
        # Input items the client sends back (a client tool search's answer).
        from openai.types.responses.response_tool_search_output_item_param_param import (
            ResponseToolSearchOutputItemParamParam,
        )
        validate_typed_dict(ResponseToolSearchOutputItemParamParam, spec, where)
        for inner in spec["tools"]:
            validate_typed_dict(FunctionToolParam, inner, f"{where}/{inner.get('name')}")
    elif dialect == "anthropic-content":
        # Content blocks of a tool result (native deferral's references).
        block = at.ToolReferenceBlockParam if spec.get("type") == "tool_reference" else at.TextBlockParam
        validate_typed_dict(block, spec, where)
    elif dialect == "anthropic":
        if spec.get("type", "").startswith("tool_search_tool_regex"):
            validate_typed_dict(at.ToolSearchToolRegex20251119Param, spec, where)
        elif spec.get("type") == "code_execution_20250825":
            validate_typed_dict(at.CodeExecutionTool20250825Param, spec, where)
        else:
            validate_typed_dict(at.ToolParam, spec, where)
    elif dialect == "gemini":
        decl = gt.FunctionDeclaration.model_validate(spec)
        if decl.name != spec["name"]:
            raise ValueError(f"{where}: name changed to {decl.name}")
        text = json.dumps(spec.get("parameters", {}))
        for banned in ('"$ref"', '"$defs"', '"additionalProperties"', '"const"', '"oneOf"'):
            if banned in text:
                raise ValueError(f"{where}: {banned} is outside Gemini's schema subset")
    elif dialect == "mcp":
        tool = mt.Tool.model_validate(spec)
        if tool.input_schema.get("type") != "object":
            raise ValueError(f"{where}: inputSchema must be an object schema")
        if tool.output_schema is not None and tool.output_schema.get("type") != "object":
            raise ValueError(f"{where}: outputSchema must be an object schema")
    else:
        raise ValueError(f"unknown dialect {dialect}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    total = 0
    for path in sys.argv[1:]:
        with open(path) as f:
            specs = json.load(f)
        for dialect, items in specs.items():
            for spec in items:
                try:
                    validate(dialect, spec)
                except Exception as e:  # report which spec, then fail
                    sys.exit(f"FAILED {path}: {dialect}: {json.dumps(spec)[:300]}\n{e}")
            total += len(items)
            print(f"ok {path}: {dialect}: {len(items)} specs accepted by the SDK types")
    print(f"{total} passed, 0 failed")


if __name__ == "__main__":
    main()
