//! Gemini function declarations: the OpenAPI 3.0 subset Gemini accepts.

use serde_json::{Map, Value, json};

use crate::tool::Tool;

pub(super) fn spec(tool: &Tool) -> Result<Value, (String, String)> {
    let parameters = gemini_schema(tool.input_schema())?;
    Ok(json!({"name": tool.name(), "description": tool.description(), "parameters": parameters}))
}

/// Keywords of Gemini's `Schema` (the OpenAPI 3.0 subset).
const GEMINI_KEYS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
    "title",
];

/// Formats Gemini accepts on strings.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Rewrites a schema into Gemini's OpenAPI subset: `$ref`s inlined (a
/// recursive type is an error: Gemini cannot express it), `oneOf` → `anyOf`,
/// `const` → one-value `enum`, type lists with `null` → `nullable`, and
/// other keywords (`additionalProperties`, `$defs`, …) removed, with the
/// meaningful ones moved into the description.
pub fn gemini_schema(schema: &Value) -> Result<Value, (String, String)> {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let mut stack = Vec::new();
    gemini_node(schema, &defs, "", &mut stack)
}

fn gemini_node(
    node: &Value,
    defs: &Value,
    path: &str,
    stack: &mut Vec<String>,
) -> Result<Value, (String, String)> {
    let Value::Object(src) = node else {
        // `true` / `{}`-like schemas: any value. Gemini needs a type; a
        // string is the closest it can take.
        return Ok(json!({"type": "string"}));
    };
    if let Some(reference) = src.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        if stack.contains(&name) {
            return Err((
                path.to_owned(),
                format!(
                    "the type `{name}` is recursive and Gemini schemas cannot refer to themselves; bound the nesting with a non-recursive type"
                ),
            ));
        }
        let Some(target) = defs.get(&name) else {
            return Err((
                path.to_owned(),
                format!("`$ref` to unknown definition `{reference}`"),
            ));
        };
        stack.push(name);
        let mut inlined = gemini_node(target, defs, path, stack)?;
        stack.pop();
        if let (Some(d), Value::Object(m)) = (src.get("description"), &mut inlined) {
            m.insert("description".into(), d.clone());
        }
        return Ok(inlined);
    }
    let mut map = src.clone();
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), json!([c]));
        if !map.contains_key("type") {
            let t = match &c {
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                Value::Number(_) => "number",
                _ => "string",
            };
            map.insert("type".into(), json!(t));
        }
    }
    // `type: [T, "null"]` → `type: T, nullable: true`.
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if non_null.len() < types.len() {
            map.insert("nullable".into(), Value::Bool(true));
        }
        match non_null.as_slice() {
            [one] => {
                map.insert("type".into(), (*one).clone());
            }
            _ => {
                map.remove("type");
                map.insert(
                    "anyOf".into(),
                    Value::Array(non_null.iter().map(|t| json!({"type": t})).collect()),
                );
            }
        }
    }
    if map.get("type") == Some(&json!("null")) {
        map.insert("type".into(), json!("string"));
        map.insert("nullable".into(), Value::Bool(true));
    }
    // Gemini's enums are string enums.
    if let Some(Value::Array(values)) = map.get("enum").cloned() {
        if values.iter().all(Value::is_string) {
            map.insert("type".into(), json!("string"));
        } else {
            map.remove("enum");
            let note: Vec<String> = values.iter().map(Value::to_string).collect();
            push_note(&mut map, &format!("one of: {}", note.join(", ")));
        }
    }
    if map.get("type") == Some(&json!("string"))
        && let Some(f) = map.get("format").and_then(Value::as_str)
        && !GEMINI_STRING_FORMATS.contains(&f)
    {
        let f = f.to_owned();
        map.remove("format");
        push_note(&mut map, &format!("format: {f}"));
    }
    let mut out = Map::new();
    let mut dropped = Vec::new();
    for (key, value) in map {
        match key.as_str() {
            "properties" => {
                let mut props = Map::new();
                for (name, child) in value.as_object().into_iter().flatten() {
                    props.insert(
                        name.clone(),
                        gemini_node(child, defs, &format!("{path}/properties/{name}"), stack)?,
                    );
                }
                out.insert(key, Value::Object(props));
            }
            "items" => {
                out.insert(
                    key,
                    gemini_node(&value, defs, &format!("{path}/items"), stack)?,
                );
            }
            "anyOf" => {
                let mut list = Vec::new();
                for (i, child) in value.as_array().into_iter().flatten().enumerate() {
                    let child = gemini_node(child, defs, &format!("{path}/anyOf/{i}"), stack)?;
                    if child.get("type") == Some(&json!("string"))
                        && child.get("nullable") == Some(&Value::Bool(true))
                        && child.as_object().is_some_and(|m| m.len() == 2)
                    {
                        out.insert("nullable".into(), Value::Bool(true));
                        continue;
                    }
                    list.push(child);
                }
                if list.len() == 1 {
                    if let Value::Object(only) = list.remove(0) {
                        for (k, v) in only {
                            out.entry(k).or_insert(v);
                        }
                    }
                } else {
                    out.insert(key, Value::Array(list));
                }
            }
            k if GEMINI_KEYS.contains(&k) => {
                out.insert(key, value);
            }
            "$defs" | "additionalProperties" | "$schema" | "$id" | "$comment" => {}
            _ => dropped.push(format!("{key}: {value}")),
        }
    }
    if !dropped.is_empty() {
        push_note(&mut out, &dropped.join("; "));
    }
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        out.insert(
            "type".into(),
            json!(if out.contains_key("properties") {
                "object"
            } else {
                "string"
            }),
        );
    }
    Ok(Value::Object(out))
}

fn push_note(map: &mut Map<String, Value>, note: &str) {
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(description));
}
