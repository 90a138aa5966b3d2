#!/usr/bin/env python3
"""Writes nasty-schemas.json: tool schemas of the shapes real MCP servers
publish and providers refuse, one tool per shape, as an MCP tools/list
result (load it with `assistant --manifest`). Run it again after editing:
python3 tests/data/make_nasty_schemas.py
"""
import json
import pathlib


def deep(levels):
    node = {"type": "string"}
    for i in range(levels):
        node = {"type": "object", "properties": {f"level{levels - i}": node}, "required": [f"level{levels - i}"]}
    return node


TOOLS = {
    "recursive_defs": ("A tree of nodes (recursive $defs).", {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
        "$defs": {"Node": {"type": "object", "properties": {
            "label": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["label"]}},
    }),
    "draft07_definitions": ("Draft-07 definitions.", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"point": {"$ref": "#/definitions/Point"}, "points": {"type": "array", "items": {"$ref": "#/definitions/Point"}}},
        "required": ["point"],
        "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"], "additionalProperties": False}},
    }),
    "json_pointer_refs": ("Reuses a sibling's schema by JSON pointer, as zod-to-json-schema writes.", {
        "type": "object",
        "properties": {
            "data": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string", "description": "A label."}, "value": {"type": "number"}}, "required": ["name", "value"], "additionalProperties": False}},
            "title": {"$ref": "#/properties/data/items/properties/name"},
            "highlight": {"$ref": "#/properties/data/items"},
        },
        "required": ["data"],
        "additionalProperties": False,
    }),
    "all_of": ("Two objects joined by allOf.", {
        "type": "object",
        "properties": {"target": {"allOf": [
            {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["user", "group"]}}}]}},
        "required": ["target"],
    }),
    "one_of_not": ("oneOf between shapes, and a not.", {
        "type": "object",
        "properties": {
            "shape": {"oneOf": [
                {"type": "object", "properties": {"radius": {"type": "number"}}, "required": ["radius"], "additionalProperties": False},
                {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"], "additionalProperties": False}]},
            "name": {"type": "string", "not": {"enum": ["admin", "root"]}},
        },
        "required": ["shape"],
    }),
    "type_arrays": ("Type lists, with and without null.", {
        "type": "object",
        "properties": {
            "limit": {"type": ["integer", "null"]},
            "id": {"type": ["string", "number"]},
            "filter": {"type": ["object", "null"], "properties": {"q": {"type": "string"}}},
            "ids": {"type": ["array", "string"], "items": {"type": "string"}},
        },
    }),
    "openapi_nullable": ("OpenAPI's nullable keyword.", {
        "type": "object",
        "properties": {"cursor": {"type": "string", "nullable": True}, "page": {"type": "integer"}},
        "required": ["cursor"],
    }),
    "const_values": ("const, also without a type.", {
        "type": "object",
        "properties": {"version": {"const": 2}, "mode": {"type": "string", "const": "fast"}},
        "required": ["version", "mode"],
    }),
    "prefix_items": ("A tuple with prefixItems, and a draft-07 tuple.", {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "old_pair": {"type": "array", "items": [{"type": "string"}, {"type": "boolean"}]},
        },
        "required": ["pair"],
    }),
    "forty_deep": ("An object nested forty levels deep.", {
        "type": "object", "properties": {"top": deep(40)}, "required": ["top"],
    }),
    "huge_enum": ("An enum of 3,000 values.", {
        "type": "object",
        "properties": {"code": {"type": "string", "enum": [f"code-{i:04}-{'x' * 4}" for i in range(3000)]}},
        "required": ["code"],
    }),
    "empty_root": ("An empty root schema: takes anything.", {}),
    "typeless_root": ("A root with properties but no type.", {
        "properties": {"q": {"type": "string"}}, "required": ["q"],
    }),
    "non_ascii_names": ("Property names that are not ASCII, or have spaces and brackets.", {
        "type": "object",
        "properties": {"名前": {"type": "string"}, "größe": {"type": "integer"}, "tags[]": {"type": "array", "items": {"type": "string"}}, "ok_name": {"type": "string"}},
        "required": ["名前", "ok_name"],
    }),
    "dangling_ref": ("A $ref to a definition that does not exist.", {
        "type": "object",
        "properties": {"config": {"$ref": "#/$defs/Missing", "description": "Settings."}, "name": {"type": "string"}},
        "required": ["name"],
    }),
    "free_forms": ("Maps, any-valued fields, arrays without items, pattern properties.", {
        "type": "object",
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "payload": {},
            "meta": {"type": "object"},
            "rows": {"type": "array"},
            "headers": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
            "anything": True,
        },
    }),
    "root_any_of": ("At least one field must be given (a root anyOf).", {
        "type": "object",
        "properties": {"title": {"type": "string"}, "body": {"type": "string"}, "id": {"type": "string"}},
        "required": ["id"],
        "anyOf": [{"required": ["title"]}, {"required": ["body"]}],
    }),
    "conditionals": ("if/then/else and dependentRequired.", {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["file", "url"]}, "path": {"type": "string"}, "url": {"type": "string", "format": "uri"}},
        "required": ["kind"],
        "if": {"properties": {"kind": {"const": "file"}}},
        "then": {"required": ["path"]},
        "else": {"required": ["url"]},
        "dependentRequired": {"url": ["kind"]},
    }),
    "ref_with_siblings": ("$ref beside other keywords.", {
        "type": "object",
        "properties": {"name": {"$ref": "#/$defs/Name", "description": "Who.", "maxLength": 20}},
        "required": ["name"],
        "$defs": {"Name": {"type": "string", "minLength": 1}},
    }),
    "mixed_enum": ("An enum of numbers and strings, and formats.", {
        "type": "object",
        "properties": {
            "level": {"enum": [1, 2, "max"]},
            "id": {"type": "string", "format": "uuid"},
            "when": {"type": "string", "format": "date-time"},
            "ratio": {"type": "number", "format": "float", "exclusiveMinimum": 0},
        },
        "required": ["level"],
    }),
}

out = {"tools": [{"name": n, "description": d, "inputSchema": s} for n, (d, s) in TOOLS.items()]}
path = pathlib.Path(__file__).with_name("nasty-schemas.json")
path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
print(f"{path}: {len(TOOLS)} tools")
