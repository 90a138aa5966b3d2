//! What each provider's API accepts in a tool's parameters, written down
//! as checks. Every rendered tool is checked against its dialect's rules;
//! a tool that breaks one is sent in a looser form or left out (see
//! `describe.rs`), never sent to be refused.
//!
//! Sources: OpenAI's structured-outputs guide (the strict subset and its
//! limits) and the function-calling errors its API returns (`array schema
//! missing items`, a root that is not `type: object`); Gemini's `Schema`
//! reference (an OpenAPI 3.0 subset whose unknown fields are refused,
//! string-only enums, `properties` only on objects, parameter names of
//! letters, digits and `_`, no empty parameter object); Anthropic's tool
//! docs and API errors (`input_schema` is `type: object`, no
//! `oneOf`/`allOf`/`anyOf` at its top level, property keys matching
//! `^[a-zA-Z0-9_.-]{1,64}$`).

use std::fmt;

use serde_json::Value;

use super::Dialect;

/// OpenAI strict mode: at most this many levels of nested objects.
pub const STRICT_MAX_DEPTH: usize = 10;
/// OpenAI strict mode: at most this many object properties in a schema.
pub const STRICT_MAX_PROPERTIES: usize = 5_000;
/// OpenAI strict mode: at most this many enum values in a schema.
pub const STRICT_MAX_ENUM_VALUES: usize = 1_000;
/// OpenAI strict mode: an enum of more than 250 values may hold at most
/// this many characters.
pub const STRICT_MAX_LONG_ENUM_CHARS: usize = 15_000;
/// OpenAI strict mode: property names, definition names, enum and const
/// values together hold at most this many characters.
pub const STRICT_MAX_CHARS: usize = 120_000;

/// The keywords OpenAI's strict mode takes (what `strict_schema` keeps).
pub(super) const STRICT_KEYS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "description",
    "title",
    "$defs",
    "$ref",
];

/// The fields of Gemini's `Schema` (its API refuses any other).
pub(super) const GEMINI_KEYS: &[&str] = &[
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

const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// One thing a provider's API would refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer of the node, inside the parameters.
    pub path: String,
    /// What the API refuses there.
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "the root"
        } else {
            &self.path
        };
        write!(f, "{at}: {}", self.rule)
    }
}

/// Every rule of `dialect` that `parameters` breaks (`None`: a tool sent
/// without parameters, which only Gemini uses). `strict` says whether an
/// OpenAI tool is sent with `strict: true`.
pub fn violations(dialect: Dialect, parameters: Option<&Value>, strict: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(schema) = parameters else {
        return out;
    };
    let mut add = |path: &str, rule: String| {
        out.push(Violation {
            path: path.to_owned(),
            rule,
        })
    };
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict | Dialect::OpenAiResponses => {
            root_object(schema, &mut add);
            walk(schema, "", 0, &mut |node, path, _| {
                if declares(node, "array") && node.get("items").is_none() {
                    add(path, "an array schema needs `items`".into());
                }
                items_is_a_schema(node, path, &mut add);
                check_ref(schema, node, path, &mut add);
            });
            if strict {
                strict_rules(schema, &mut add);
            }
        }
        Dialect::Anthropic => {
            root_object(schema, &mut add);
            for key in ["anyOf", "oneOf", "allOf"] {
                if schema.get(key).is_some() {
                    add("", format!("`{key}` is not allowed at the top level"));
                }
            }
            walk(schema, "", 0, &mut |node, path, _| {
                items_is_a_schema(node, path, &mut add);
                for name in property_names(node) {
                    if !anthropic_key(name) {
                        add(
                            path,
                            format!(
                                "property key `{name}` does not match ^[a-zA-Z0-9_.-]{{1,64}}$"
                            ),
                        );
                    }
                }
                check_ref(schema, node, path, &mut add);
            });
        }
        Dialect::Gemini => gemini_rules(schema, &mut add),
        Dialect::Mcp | Dialect::Text => {}
    }
    out
}

/// Anthropic's property keys.
pub(super) fn anthropic_key(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Gemini's parameter names: a letter or `_`, then letters, digits, `_`.
pub(super) fn gemini_key(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= 64
        && bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn root_object(schema: &Value, add: &mut impl FnMut(&str, String)) {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        add("", "the parameters must be `type: object`".into());
    }
}

/// `items` as a list is draft-07's tuple, which 2020-12 readers refuse.
fn items_is_a_schema(node: &Value, path: &str, add: &mut impl FnMut(&str, String)) {
    if matches!(node.get("items"), Some(Value::Array(_))) {
        add(
            path,
            "`items` must be one schema (a tuple is `prefixItems`)".into(),
        );
    }
}

fn check_ref(root: &Value, node: &Value, path: &str, add: &mut impl FnMut(&str, String)) {
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        let found = r == "#"
            || r.strip_prefix("#/$defs/")
                .is_some_and(|name| root.get("$defs").and_then(|d| d.get(name)).is_some());
        if !found {
            add(
                path,
                format!("`$ref: {r}` must point into the root `$defs` (or be `#`)"),
            );
        }
    }
}

fn strict_rules(schema: &Value, add: &mut impl FnMut(&str, String)) {
    if schema.get("anyOf").is_some() {
        add("", "the root must not be `anyOf`".into());
    }
    let (mut properties, mut enum_values, mut chars) = (0usize, 0usize, 0usize);
    if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
        chars += defs.keys().map(|k| k.chars().count()).sum::<usize>();
    }
    walk(schema, "", 0, &mut |node, path, depth| {
        let Value::Object(map) = node else { return };
        for key in map.keys() {
            if !STRICT_KEYS.contains(&key.as_str()) {
                add(path, format!("`{key}` is not supported in strict mode"));
            }
        }
        let typed = ["type", "anyOf", "$ref"]
            .iter()
            .any(|k| map.contains_key(*k));
        if !typed {
            add(path, "a schema without a type".into());
        }
        for t in type_names(node) {
            if !JSON_TYPES.contains(&t) {
                add(path, format!("unknown type `{t}`"));
            }
        }
        if declares(node, "object") || map.contains_key("properties") {
            if depth >= STRICT_MAX_DEPTH {
                add(
                    path,
                    format!("more than {STRICT_MAX_DEPTH} levels of nested objects"),
                );
            }
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                add(path, "objects need `additionalProperties: false`".into());
            }
            let required = map.get("required").and_then(Value::as_array);
            for name in property_names(node) {
                properties += 1;
                chars += name.chars().count();
                if !required.is_some_and(|r| r.iter().any(|v| v == name)) {
                    add(path, format!("property `{name}` is not in `required`"));
                }
            }
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            enum_values += values.len();
            let len: usize = values.iter().map(value_chars).sum();
            chars += len;
            if values.len() > 250 && len > STRICT_MAX_LONG_ENUM_CHARS {
                add(
                    path,
                    format!(
                        "an enum of {} values holds {len} characters (at most {STRICT_MAX_LONG_ENUM_CHARS} past 250 values)",
                        values.len()
                    ),
                );
            }
        }
        if let Some(c) = map.get("const") {
            chars += value_chars(c);
        }
    });
    if properties > STRICT_MAX_PROPERTIES {
        add(
            "",
            format!("{properties} properties (at most {STRICT_MAX_PROPERTIES})"),
        );
    }
    if enum_values > STRICT_MAX_ENUM_VALUES {
        add(
            "",
            format!("{enum_values} enum values (at most {STRICT_MAX_ENUM_VALUES})"),
        );
    }
    if chars > STRICT_MAX_CHARS {
        add(
            "",
            format!("{chars} characters of names and enum values (at most {STRICT_MAX_CHARS})"),
        );
    }
}

fn gemini_rules(schema: &Value, add: &mut impl FnMut(&str, String)) {
    root_object(schema, add);
    if property_names(schema).next().is_none() {
        add(
            "",
            "an object parameter list needs properties (send no parameters instead)".into(),
        );
    }
    for name in property_names(schema) {
        if !gemini_key(name) {
            add(
                "",
                format!(
                    "parameter name `{name}` must be a letter or `_`, then letters, digits or `_`"
                ),
            );
        }
    }
    walk(schema, "", 0, &mut |node, path, _| {
        let Value::Object(map) = node else { return };
        for key in map.keys() {
            if !GEMINI_KEYS.contains(&key.as_str()) {
                add(path, format!("`{key}` is not a field of Gemini's Schema"));
            }
        }
        let t = match map.get("type") {
            Some(Value::String(t)) if JSON_TYPES.contains(&t.as_str()) && t != "null" => {
                Some(t.as_str())
            }
            Some(other) => {
                add(path, format!("type {other} is not one Gemini type"));
                None
            }
            None if map.contains_key("anyOf") => None,
            None => {
                add(path, "a schema without a type".into());
                None
            }
        };
        if t == Some("array") && !map.contains_key("items") {
            add(path, "an array schema needs `items`".into());
        }
        if t != Some("object") {
            for key in ["properties", "required"] {
                if map.contains_key(key) {
                    add(path, format!("`{key}` is only allowed on objects"));
                }
            }
        }
        if let Some(required) = map.get("required").and_then(Value::as_array) {
            for r in required {
                let listed = r
                    .as_str()
                    .is_some_and(|r| property_names(node).any(|p| p == r));
                if !listed {
                    add(
                        path,
                        format!("`required` names {r}, which is not a property"),
                    );
                }
            }
        }
        if let Some(values) = map.get("enum") {
            let strings = values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string));
            if t != Some("string") || !strings {
                add(path, "an enum must be a list of strings on a string".into());
            }
        }
        if let Some(f) = map.get("format").and_then(Value::as_str) {
            let ok = match t {
                Some("string") => matches!(f, "enum" | "date-time"),
                Some("number") => matches!(f, "float" | "double"),
                Some("integer") => matches!(f, "int32" | "int64"),
                _ => false,
            };
            if !ok {
                add(path, format!("format `{f}` is not one Gemini takes here"));
            }
        }
    });
}

/// Calls `visit(node, pointer, object_depth)` on every subschema.
fn walk(node: &Value, path: &str, depth: usize, visit: &mut impl FnMut(&Value, &str, usize)) {
    let Value::Object(map) = node else { return };
    visit(node, path, depth);
    let inner = depth + usize::from(declares(node, "object") || map.contains_key("properties"));
    for (key, value) in map {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "patternProperties", Value::Object(children)) => {
                for (name, child) in children {
                    walk(child, &format!("{path}/{key}/{name}"), inner, visit);
                }
            }
            ("items" | "additionalProperties" | "not", Value::Object(_)) => {
                walk(value, &format!("{path}/{key}"), inner, visit);
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(list)) => {
                for (i, child) in list.iter().enumerate() {
                    walk(child, &format!("{path}/{key}/{i}"), depth, visit);
                }
            }
            _ => {}
        }
    }
}

fn type_names(node: &Value) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a node's `type` is or includes `t`.
pub(super) fn declares(node: &Value, t: &str) -> bool {
    type_names(node).contains(&t)
}

fn property_names(node: &Value) -> impl Iterator<Item = &String> {
    node.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
}

fn value_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        other => other.to_string().len(),
    }
}
