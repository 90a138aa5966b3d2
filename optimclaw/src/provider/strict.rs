//! OpenAI's strict mode (structured outputs): the schema rewrite and the
//! check of its invariants.

use serde_json::{Map, Value, json};

/// Keywords OpenAI's strict mode does not accept; their values are kept as
/// text in the description so the model still sees them.
const STRICT_UNSUPPORTED: &[&str] = &[
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "examples",
    "contentEncoding",
    "contentMediaType",
    "deprecated",
    "readOnly",
    "writeOnly",
    "title",
];

/// Rewrites a schema for OpenAI's strict mode: every object closed with
/// `additionalProperties: false` and every property listed in `required`,
/// properties that were optional made nullable (dispatch treats their
/// `null` as absent), `oneOf` turned into `anyOf`, and unsupported keywords
/// moved into the description. Fails (with the JSON pointer) on maps, whose
/// keys strict mode cannot express.
pub fn strict_schema(schema: &Value) -> Result<Value, (String, String)> {
    let mut out = schema.clone();
    strict_node(&mut out, "")?;
    Ok(out)
}

fn strict_node(node: &mut Value, path: &str) -> Result<(), (String, String)> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    move_to_description(map, STRICT_UNSUPPORTED);
    let is_object =
        map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if is_object {
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return Err((
                    path.to_owned(),
                    "a map with free-form keys cannot be strict; use a struct or a list of key/value pairs".to_owned(),
                ));
            }
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut all = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                strict_node(prop, &format!("{path}/properties/{name}"))?;
                if !required.contains(name) {
                    make_nullable(prop);
                }
                all.push(Value::String(name.clone()));
            }
        }
        map.insert("required".into(), Value::Array(all));
    }
    for key in ["items", "not"] {
        if let Some(child) = map.get_mut(key) {
            strict_node(child, &format!("{path}/{key}"))?;
        }
    }
    for key in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            for (i, child) in list.iter_mut().enumerate() {
                strict_node(child, &format!("{path}/{key}/{i}"))?;
            }
        }
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        for (name, child) in defs.iter_mut() {
            strict_node(child, &format!("{path}/$defs/{name}"))?;
        }
    }
    Ok(())
}

/// Lets a schema also accept `null`.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    let accepts_null = |map: &Map<String, Value>| match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    if accepts_null(map) {
        return;
    }
    let simple = map.contains_key("type")
        && !map.contains_key("$ref")
        && !map.contains_key("anyOf")
        && !map.contains_key("allOf");
    if simple {
        let t = map.remove("type").unwrap_or(Value::Null);
        let mut types = match t {
            Value::Array(ts) => ts,
            other => vec![other],
        };
        types.push(json!("null"));
        map.insert("type".into(), Value::Array(types));
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return;
    }
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        if !options
            .iter()
            .any(|o| o.get("type") == Some(&json!("null")))
        {
            options.push(json!({"type": "null"}));
        }
        return;
    }
    // `$ref`, `allOf`, `enum`/`const` without type: wrap.
    let description = map.remove("description");
    let inner = Value::Object(std::mem::take(map));
    map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(d) = description {
        map.insert("description".into(), d);
    }
}

/// Removes `keys` from a schema node and appends them to its description
/// (`… (default: 5; minimum: 0)`), so the model still learns them.
fn move_to_description(map: &mut Map<String, Value>, keys: &[&str]) {
    let mut notes = Vec::new();
    for key in keys {
        if let Some(v) = map.remove(*key) {
            if *key == "title" {
                continue;
            }
            notes.push(format!("{key}: {v}"));
        }
    }
    if notes.is_empty() {
        return;
    }
    let note = notes.join("; ");
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(description));
}

/// Checks the invariants of a strict schema; returns the JSON pointer and
/// the problem of the first violation.
pub fn check_strict(schema: &Value) -> Result<(), (String, String)> {
    fn walk(node: &Value, path: &str) -> Result<(), (String, String)> {
        let Value::Object(map) = node else {
            return Ok(());
        };
        if map.contains_key("oneOf") {
            return Err((path.into(), "`oneOf` is not allowed; use `anyOf`".into()));
        }
        for key in STRICT_UNSUPPORTED {
            if *key != "title" && map.contains_key(*key) {
                return Err((
                    path.into(),
                    format!("`{key}` is not supported in strict mode"),
                ));
            }
        }
        let is_object = map.get("type").and_then(Value::as_str) == Some("object")
            || map.contains_key("properties");
        if is_object {
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Err((
                    path.into(),
                    "objects need additionalProperties: false".into(),
                ));
            }
            let props = map.get("properties").and_then(Value::as_object);
            let required = map.get("required").and_then(Value::as_array);
            for name in props.into_iter().flat_map(|p| p.keys()) {
                if !required.is_some_and(|r| r.iter().any(|v| v == name)) {
                    return Err((
                        path.into(),
                        format!("property `{name}` is not in `required`"),
                    ));
                }
            }
        }
        for (key, child) in map {
            match child {
                Value::Object(o) if key == "properties" || key == "$defs" => {
                    for (k, c) in o {
                        walk(c, &format!("{path}/{key}/{k}"))?;
                    }
                }
                Value::Object(_) if key == "items" || key == "not" => {
                    walk(child, &format!("{path}/{key}"))?
                }
                Value::Array(list) if key == "anyOf" || key == "allOf" || key == "prefixItems" => {
                    for (i, c) in list.iter().enumerate() {
                        walk(c, &format!("{path}/{key}/{i}"))?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err((String::new(), "the root must be an object".into()));
    }
    walk(schema, "")
}
