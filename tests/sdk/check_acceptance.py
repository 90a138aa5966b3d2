#!/usr/bin/env python3
"""Arguments a tool took before are still taken after the dialect transforms.

Usage: check_acceptance.py target/provider-specs-catalogs.json

The file (written by examples/tests/provider_rules.rs) holds, per catalog,
every tool's original input schema and its spec in each dialect. For each
tool this script samples argument objects from the original schema, keeps
those the original accepts (jsonschema, the draft the schema names), and
checks that each dialect's parameters accept them too:

- OpenAI chat, Responses and Anthropic: as they are.
- OpenAI strict: after the model's side of the contract, every optional
  field it leaves out sent as null (dispatch reads null as absent).
- Gemini: its Schema read as JSON Schema (`nullable` allows null).

Every spec also passes the providers' SDK types (validate_specs.validate).
Samples hold declared properties only (a free-form object gets none) and
values of any shape are at most two levels deep: Gemini's Schema cannot say
"any value", and its stand-in is a union of every type two levels deep.
"""
import copy
import json
import pathlib
import random
import sys

import jsonschema
from jsonschema.validators import validator_for

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from validate_specs import validate as sdk_validate  # noqa: E402

SAMPLES = 12
ATTEMPTS = 60
WORDS = ["alpha", "beta", "x", "hello world", "42", "2026-01-01", "a-b_c"]
FORMATS = {
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "date-time": "2026-12-04T10:00:00Z",
    "date": "2026-12-04",
    "time": "10:00:00",
    "email": "ada@example.com",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "hostname": "example.com",
    "ipv4": "10.0.0.1",
    "ipv6": "::1",
}


class Skip(Exception):
    pass


def resolve(root, ref):
    if not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            try:
                node = node[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def any_value(rng, depth):
    choices = [None, True, 3, 2.5, "text", {}]
    if depth < 1:
        choices.append([1, "a"])
        choices.append({"k": "v"})
    return copy.deepcopy(rng.choice(choices))


def sample(s, root, rng, depth=0):
    if s is True or s == {}:
        return any_value(rng, depth)
    if not isinstance(s, dict):
        raise Skip()
    if "$ref" in s:
        target = resolve(root, s["$ref"])
        if target is None:
            return any_value(rng, depth)
        rest = {k: v for k, v in s.items() if k != "$ref"}
        if isinstance(target, dict):
            return sample({**target, **{k: v for k, v in rest.items() if k not in target}}, root, rng, depth)
        return sample(target, root, rng, depth)
    if "const" in s:
        return copy.deepcopy(s["const"])
    if "enum" in s and s["enum"]:
        return copy.deepcopy(rng.choice(s["enum"]))
    for key in ("oneOf", "anyOf"):
        if s.get(key):
            branch = rng.choice(s[key])
            rest = {k: v for k, v in s.items() if k != key}
            if isinstance(branch, dict):
                merged = {**rest, **branch}
                if "properties" in rest and "properties" in branch:
                    merged["properties"] = {**rest["properties"], **branch["properties"]}
                merged["required"] = list(set(rest.get("required", [])) | set(branch.get("required", [])))
                return sample(merged, root, rng, depth)
            return sample(rest, root, rng, depth)
    if s.get("allOf"):
        merged = {k: v for k, v in s.items() if k != "allOf"}
        for part in s["allOf"]:
            if "$ref" in part:
                part = resolve(root, part["$ref"]) or {}
            for k, v in part.items():
                if k == "properties":
                    merged.setdefault("properties", {}).update(v)
                elif k == "required":
                    merged["required"] = list(set(merged.get("required", [])) | set(v))
                else:
                    merged.setdefault(k, v)
        return sample(merged, root, rng, depth)
    t = s.get("type")
    if isinstance(t, list):
        t = rng.choice(t) if t else None
    if t is None:
        t = "object" if "properties" in s else "array" if "items" in s or "prefixItems" in s else None
    if t is None:
        return any_value(rng, depth)
    if t == "object":
        out = {}
        required = set(s.get("required", []))
        for name, sub in s.get("properties", {}).items():
            if name in required or (depth < 5 and rng.random() < 0.6):
                out[name] = sample(sub, root, rng, depth + 1)
        return out
    if t == "array":
        if "prefixItems" in s:
            return [sample(p, root, rng, depth + 1) for p in s["prefixItems"]]
        items = s.get("items", {})
        if isinstance(items, list):
            return [sample(p, root, rng, depth + 1) for p in items]
        low = s.get("minItems", 0)
        high = max(low, min(s.get("maxItems", 3), 3))
        n = 0 if depth > 4 else rng.randint(low, high)
        return [sample(items, root, rng, depth + 1) for _ in range(n)]
    if t == "string":
        if s.get("format") in FORMATS:
            return FORMATS[s["format"]]
        word = rng.choice(WORDS)
        low, high = s.get("minLength", 0), s.get("maxLength", 1000)
        while len(word) < low:
            word += "x"
        return word[:high]
    if t == "integer":
        low = s.get("minimum", s.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in s else 0)
        high = s.get("maximum", low + 10)
        return rng.randint(int(low), int(max(low, high)))
    if t == "number":
        low = s.get("minimum", s.get("exclusiveMinimum", 0) + 0.5 if "exclusiveMinimum" in s else 0)
        return float(low) + rng.random()
    if t == "boolean":
        return rng.random() < 0.5
    if t == "null":
        return None
    raise Skip()


def fill_nulls(value, schema, root):
    """The strict-mode model's version of `value`: absent fields as null."""
    if not isinstance(schema, dict):
        return value
    if "$ref" in schema:
        target = resolve(root, schema["$ref"])
        return fill_nulls(value, target, root) if target is not None else value
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            filled = fill_nulls(copy.deepcopy(value), branch, root)
            if jsonschema_ok({**branch, **({"$defs": root["$defs"]} if "$defs" in root else {})}, filled) is True:
                return filled
        return value
    if isinstance(value, dict) and "properties" in schema:
        out = {}
        for name, sub in schema["properties"].items():
            out[name] = fill_nulls(value[name], sub, root) if name in value else None
        for name in value:
            out.setdefault(name, value[name])
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [fill_nulls(v, schema["items"], root) for v in value]
    return value


def gemini_as_json_schema(node):
    if isinstance(node, list):
        return [gemini_as_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k == "properties":
            out[k] = {name: gemini_as_json_schema(sub) for name, sub in v.items()}
        elif k in ("items",):
            out[k] = gemini_as_json_schema(v)
        elif k == "anyOf":
            out[k] = [gemini_as_json_schema(b) for b in v]
        elif k in ("nullable", "example", "propertyOrdering", "format"):
            continue
        else:
            out[k] = v
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def jsonschema_ok(schema, value):
    """True or False; None when the schema itself cannot be read."""
    try:
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        cls(schema).validate(value)
        return True
    except jsonschema.ValidationError:
        return False
    except Exception:  # an unreadable schema (a draft-07 tuple read as 2020-12, a bad $ref)
        return None


def parameters(dialect, spec):
    if dialect in ("openai", "openai-strict"):
        return spec["function"].get("parameters")
    if dialect == "anthropic":
        return spec["input_schema"]
    return spec.get("parameters")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    catalogs = json.loads(pathlib.Path(sys.argv[1]).read_text())
    rng = random.Random(7)
    failures = []
    for catalog, tools in catalogs.items():
        tested = {}
        for tool in tools:
            original = tool["schema"]
            samples = []
            for _ in range(ATTEMPTS):
                if len(samples) >= SAMPLES:
                    break
                try:
                    value = sample(original, original, rng)
                except (Skip, RecursionError, ValueError):
                    continue
                if isinstance(value, dict) and jsonschema_ok(original, value) is True:
                    samples.append(value)
            for dialect in ("openai", "openai-strict", "openai-responses", "anthropic", "gemini", "mcp"):
                spec = tool.get(dialect)
                if spec is None:
                    failures.append(f"{catalog} {tool['name']}: no {dialect} spec")
                    continue
                try:
                    sdk_validate(dialect, spec)
                except Exception as e:
                    failures.append(f"{catalog} {tool['name']} {dialect}: the SDK types refuse it: {e}")
                if dialect == "mcp":
                    continue
                params = parameters(dialect, spec)
                strict = spec.get("function", spec).get("strict") is True
                for value in samples:
                    if params is None:
                        ok = value == {}
                        checked = value
                    else:
                        schema = gemini_as_json_schema(params) if dialect == "gemini" else params
                        checked = fill_nulls(copy.deepcopy(value), schema, schema) if strict else value
                        ok = jsonschema_ok(schema, checked) is True
                    tested[dialect] = tested.get(dialect, 0) + 1
                    if not ok:
                        failures.append(
                            f"{catalog} {tool['name']} {dialect}: refuses {json.dumps(checked)[:300]}"
                        )
        summary = ", ".join(f"{d} {n}" for d, n in sorted(tested.items()))
        print(f"{catalog}: {len(tools)} tools; sampled arguments checked per dialect: {summary}")
    if failures:
        print("\n".join(failures[:40]))
        sys.exit(f"FAILED: {len(failures)} problems")
    print("every sampled argument the original schemas take is taken in every dialect")


if __name__ == "__main__":
    main()
