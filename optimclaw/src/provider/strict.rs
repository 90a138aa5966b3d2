//! OpenAI's strict mode (structured outputs): the schema rewrite and the
//! check of its invariants.

use serde_json::{Map, Value, json};

use crate::schema::visit::{self, Definitions};

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

/// Keywords that only narrow what is valid and that strict mode cannot
/// take: dropped into the description (the schema gets looser, never
/// stricter, and the model still reads the constraint).
const STRICT_NARROWING: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Shapes strict mode cannot express at all: a tool that has one is sent
/// with `strict: false`.
const STRICT_IMPOSSIBLE: &[&str] = &["patternProperties", "prefixItems", "additionalItems"];

/// Rewrites a schema for OpenAI's strict mode: local `$ref`s resolved
/// (recursion stays behind `#/$defs/…`), every object closed with
/// `additionalProperties: false` and every property listed in `required`,
/// properties that were optional made nullable (dispatch treats their
/// `null` as absent), `oneOf` turned into `anyOf`, `allOf` of objects
/// merged, `const` into a one-value `enum`, OpenAPI's `nullable` into a
/// `null` type, and unsupported keywords moved into the description.
/// Fails (with the JSON pointer) on what strict mode cannot express: maps
/// with free-form keys, objects or values of any shape, tuples, pattern
/// properties, several types at once.
pub fn strict_schema(schema: &Value) -> Result<Value, (String, String)> {
    let mut out = crate::schema::resolve_refs(schema).schema;
    strict_node(&mut out, "", true)?;
    Ok(out)
}

fn strict_node(node: &mut Value, path: &str, root: bool) -> Result<(), (String, String)> {
    let Value::Object(map) = node else {
        return Err((
            path.to_owned(),
            "a schema that is `true` or `false` cannot be strict".to_owned(),
        ));
    };
    let cannot = |why: &str| Err((path.to_owned(), why.to_owned()));
    for key in STRICT_IMPOSSIBLE {
        if map.contains_key(*key) {
            return cannot(&format!("`{key}` cannot be expressed in strict mode"));
        }
    }
    if matches!(map.get("items"), Some(Value::Array(_))) {
        return cannot("a tuple (`items` as a list) cannot be expressed in strict mode");
    }
    if let Some(one_of) = map.remove("oneOf") {
        if map.contains_key("anyOf") {
            return cannot("`oneOf` beside `anyOf` cannot be expressed in strict mode");
        }
        map.insert("anyOf".into(), one_of);
    }
    if let Some(Value::Array(parts)) = map.remove("allOf")
        && !merge_all_of(map, parts)
    {
        return cannot("an `allOf` whose parts cannot be merged into one schema");
    }
    if let Some(c) = map.remove("const") {
        if !map.contains_key("type") {
            map.insert("type".into(), json!(type_of(&c)));
        }
        map.insert("enum".into(), json!([c]));
    }
    if map.remove("nullable") == Some(Value::Bool(true)) {
        make_nullable_in_place(map);
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !map.contains_key("type")
    {
        let mut types: Vec<&str> = values.iter().map(type_of).collect();
        types.sort_unstable();
        types.dedup();
        let t = match types.as_slice() {
            [one] => json!(one),
            many => json!(many),
        };
        map.insert("type".into(), t);
    }
    move_to_description(map, STRICT_UNSUPPORTED);
    move_to_description(map, STRICT_NARROWING);
    for key in ["$comment", "$id", "$anchor", "$schema", "$dynamicAnchor"] {
        map.remove(key);
    }
    // What strict mode does not know is an annotation: dropped.
    map.retain(|k, _| super::rules::STRICT_KEYS.contains(&k.as_str()));
    let types: Vec<String> = match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let non_null = types.iter().filter(|t| *t != "null").count();
    if non_null > 1 && types.iter().any(|t| t == "object" || t == "array") {
        return cannot("several types at once, one of them an object or array");
    }
    if !map.contains_key("type") && !map.contains_key("anyOf") && !map.contains_key("$ref") {
        return cannot("a value of any shape (a schema without a type) cannot be strict");
    }
    let is_object = types.iter().any(|t| t == "object") || map.contains_key("properties");
    let mut optional: Vec<String> = Vec::new();
    if is_object {
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None if map.contains_key("properties") || root => {}
            None => {
                return cannot(
                    "an object of any shape cannot be strict; give it properties or use a struct",
                );
            }
            Some(_) => {
                return cannot(
                    "a map with free-form keys cannot be strict; use a struct or a list of key/value pairs",
                );
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
        let names: Vec<String> = match map.get("properties") {
            Some(Value::Object(props)) => props.keys().cloned().collect(),
            _ => Vec::new(),
        };
        optional = names
            .iter()
            .filter(|n| !required.contains(n))
            .cloned()
            .collect();
        map.insert(
            "required".into(),
            Value::Array(names.into_iter().map(Value::String).collect()),
        );
    }
    if types.iter().any(|t| t == "array") && !map.contains_key("items") {
        return cannot("an array of values of any shape cannot be strict");
    }
    // Every subschema left (properties, items, anyOf branches,
    // definitions), by the crate's one table of where they sit.
    let mut result = Ok(());
    visit::each_mut(map, Definitions::Visit, |slot, child| {
        if result.is_ok() {
            result = strict_node(child, &format!("{path}{}", slot.pointer()), false);
        }
    });
    result?;
    // An optional property may be null (dispatch takes its null as absent).
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for name in &optional {
            if let Some(prop) = props.get_mut(name) {
                make_nullable(prop);
            }
        }
    }
    Ok(())
}

/// The JSON type name of a value.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Merges `allOf` parts into `map` where that keeps the same meaning:
/// each part's keywords are new to the node, or equal, or are
/// `properties` / `required` (joined; a property named twice must have
/// one schema). Returns false when some part cannot be merged.
pub(super) fn merge_all_of(map: &mut Map<String, Value>, parts: Vec<Value>) -> bool {
    for part in parts {
        let Value::Object(part) = part else {
            return false;
        };
        for (key, value) in part {
            match (key.as_str(), map.get_mut(&key)) {
                (_, None) => {
                    map.insert(key, value);
                }
                (_, Some(existing)) if *existing == value => {}
                ("properties", Some(Value::Object(props))) => {
                    let Value::Object(more) = value else {
                        return false;
                    };
                    for (name, schema) in more {
                        match props.get(&name) {
                            Some(old) if *old != schema => return false,
                            Some(_) => {}
                            None => {
                                props.insert(name, schema);
                            }
                        }
                    }
                }
                ("required", Some(Value::Array(names))) => {
                    for name in value.as_array().into_iter().flatten() {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
                ("description", Some(Value::String(d))) => {
                    if let Some(more) = value.as_str() {
                        d.push(' ');
                        d.push_str(more);
                    }
                }
                _ => return false,
            }
        }
    }
    true
}

fn make_nullable_in_place(map: &mut Map<String, Value>) {
    let mut node = Value::Object(std::mem::take(map));
    make_nullable(&mut node);
    if let Value::Object(m) = node {
        *map = m;
    }
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
    let said = map
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    for key in keys {
        if let Some(v) = map.remove(*key) {
            if *key == "title" {
                continue;
            }
            // A description that already gives the value ("default 5")
            // is not told it again.
            let value = v.to_string().to_lowercase();
            if [
                format!("{key} {value}"),
                format!("{key}: {value}"),
                format!("{key} is {value}"),
            ]
            .iter()
            .any(|s| said.contains(s.as_str()))
            {
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

/// Checks a strict schema against OpenAI's strict-mode rules
/// ([`violations`](super::rules::violations)); returns the JSON pointer
/// and the problem of the first violation.
pub fn check_strict(schema: &Value) -> Result<(), (String, String)> {
    match super::rules::violations(super::Dialect::OpenAiStrict, Some(schema), true)
        .into_iter()
        .next()
    {
        None => Ok(()),
        Some(v) => Err((v.path, v.rule)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_default_the_description_gives_is_not_repeated() {
        let schema = json!({
            "type": "object",
            "properties": {
                "max_results": {"type": "integer", "default": 5, "description": "Maximum tools to return (default 5, at most 20)."},
                "page": {"type": "integer", "default": 1, "description": "Which page."}
            }
        });
        let strict = super::strict_schema(&schema).unwrap();
        assert_eq!(
            strict["properties"]["max_results"]["description"],
            "Maximum tools to return (default 5, at most 20)."
        );
        assert_eq!(
            strict["properties"]["page"]["description"],
            "Which page. (default: 1)"
        );
    }
}
