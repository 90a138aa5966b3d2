//! A JSON schema as a TypeScript type: objects with their optional fields
//! and documented properties, unions, tuples, recursive parts as named
//! aliases; and the names JavaScript accepts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::schema::{resolve_refs, word_chars};

/// Deeper than this, a type is written `unknown` (schemas nest without end
/// only by mistake; recursion itself goes through named aliases).
const MAX_DEPTH: usize = 12;

/// A JSON schema as a TypeScript type (`string`, `{ a: number; b?: string }`,
/// `("x" | "y")[]`…); `unknown` where the schema allows anything.
pub fn ts_type(schema: &Value) -> String {
    let types = Types::new(schema);
    types.render(&types.root, 0)
}

/// A schema with its `$ref`s resolved, and the named parts left behind
/// references (recursive types).
pub(super) struct Types {
    pub(super) root: Value,
    defs: BTreeMap<String, Value>,
}

impl Types {
    pub(super) fn new(schema: &Value) -> Self {
        let resolved = resolve_refs(schema);
        let mut root = resolved.schema;
        let defs = match root.as_object_mut().and_then(|o| o.remove("$defs")) {
            Some(Value::Object(defs)) => defs.into_iter().collect(),
            _ => BTreeMap::new(),
        };
        Types { root, defs }
    }

    /// `type NAME = …;` for each part kept behind a reference.
    pub(super) fn aliases(&self) -> Vec<String> {
        self.defs
            .iter()
            .map(|(name, schema)| {
                format!("type {} = {};", alias_name(name), self.render(schema, 1))
            })
            .collect()
    }

    pub(super) fn render(&self, schema: &Value, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "unknown".into();
        }
        let Some(obj) = schema.as_object() else {
            return if schema == &Value::Bool(false) {
                "never"
            } else {
                "unknown"
            }
            .into();
        };
        if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
            return match target.strip_prefix("#/$defs/") {
                Some(name) if self.defs.contains_key(name) => alias_name(name),
                _ => "unknown".into(),
            };
        }
        if let Some(value) = obj.get("const") {
            return literal(value);
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            return union(values.iter().map(literal));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(members) = obj.get(key).and_then(Value::as_array) {
                return union(members.iter().map(|m| self.render(m, depth + 1)));
            }
        }
        if let Some(members) = obj.get("allOf").and_then(Value::as_array) {
            let parts: Vec<String> = members.iter().map(|m| self.render(m, depth + 1)).collect();
            return match parts.len() {
                0 => "unknown".into(),
                1 => parts.into_iter().next().unwrap_or_default(),
                _ => parts
                    .iter()
                    .map(|p| wrap(p))
                    .collect::<Vec<_>>()
                    .join(" & "),
            };
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(t, obj, depth),
            Some(Value::Array(types)) => union(
                types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(t, obj, depth)),
            ),
            _ if obj.contains_key("properties") => self.object(obj, depth),
            _ if obj.contains_key("items") => self.typed("array", obj, depth),
            _ => "unknown".into(),
        }
    }

    fn typed(&self, t: &str, obj: &Map<String, Value>, depth: usize) -> String {
        match t {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "object" => self.object(obj, depth),
            "array" => {
                if let Some(items) = obj.get("prefixItems").and_then(Value::as_array) {
                    let parts: Vec<String> =
                        items.iter().map(|i| self.render(i, depth + 1)).collect();
                    return format!("[{}]", parts.join(", "));
                }
                match obj.get("items") {
                    Some(Value::Array(items)) => {
                        let parts: Vec<String> =
                            items.iter().map(|i| self.render(i, depth + 1)).collect();
                        format!("[{}]", parts.join(", "))
                    }
                    Some(items) => format!("{}[]", wrap(&self.render(items, depth + 1))),
                    None => "unknown[]".into(),
                }
            }
            _ => "unknown".into(),
        }
    }

    fn object(&self, obj: &Map<String, Value>, depth: usize) -> String {
        let properties = obj.get("properties").and_then(Value::as_object);
        let extra = match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => Some(self.render(schema, depth + 1)),
            Some(_) => Some("unknown".to_owned()),
            // `properties: {}` is how tools without arguments say so.
            None if properties.is_some() => None,
            None => Some("unknown".to_owned()),
        };
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            return match extra {
                None => "{}".into(),
                Some(value) => format!("{{ [key: string]: {value} }}"),
            };
        };
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let pad = "  ".repeat(depth + 1);
        let mut out = String::from("{\n");
        for (name, schema) in properties {
            doc_comment(&mut out, &property_doc(schema), &pad);
            let key = if is_identifier_name(name) {
                name.clone()
            } else {
                serde_json::to_string(name).unwrap_or_default()
            };
            let mark = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let _ = writeln!(out, "{pad}{key}{mark}: {};", self.render(schema, depth + 1));
        }
        out.push_str(&"  ".repeat(depth));
        out.push('}');
        out
    }
}

/// A property's description with what its schema adds in words: the
/// default, bounds, format, pattern.
fn property_doc(schema: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        parts.push(d.trim().to_owned());
    }
    let bound = |key: &str| {
        schema
            .get(key)
            .filter(|v| v.is_number())
            .map(Value::to_string)
    };
    // The range of the integer type itself (`u8`: 0 to 255) says nothing.
    let (lo, hi) = match (bound("minimum"), bound("maximum")) {
        (Some(lo), hi) if lo == "0" && hi.as_deref().is_none_or(|h| TYPE_MAXIMA.contains(&h)) => {
            (None, None)
        }
        (Some(lo), Some(hi)) if TYPE_RANGES.contains(&(lo.as_str(), hi.as_str())) => (None, None),
        other => other,
    };
    match (lo, hi) {
        (Some(lo), Some(hi)) => parts.push(format!("From {lo} to {hi}.")),
        (Some(lo), None) => parts.push(format!("At least {lo}.")),
        (None, Some(hi)) => parts.push(format!("At most {hi}.")),
        (None, None) => {}
    }
    for (key, words) in [
        ("minLength", "At least {} characters."),
        ("maxLength", "At most {} characters."),
        ("minItems", "At least {} items."),
        ("maxItems", "At most {} items."),
    ] {
        if let Some(n) = bound(key) {
            parts.push(words.replace("{}", &n));
        }
    }
    if let Some(f) = schema.get("format").and_then(Value::as_str) {
        parts.push(format!("Format: {f}."));
    }
    if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(format!("Pattern: {p}."));
    }
    if let Some(d) = schema.get("default") {
        parts.push(format!("Default: {}.", literal(d)));
    }
    parts.join(" ")
}

/// Upper bounds of unsigned integer types, as schemas carry them.
const TYPE_MAXIMA: &[&str] = &["255", "65535", "4294967295", "18446744073709551615"];
/// Ranges of signed integer types.
const TYPE_RANGES: &[(&str, &str)] = &[
    ("-128", "127"),
    ("-32768", "32767"),
    ("-2147483648", "2147483647"),
    ("-9223372036854775808", "9223372036854775807"),
];

/// `/** text */` (one line) or a block, before a declaration at `pad`.
pub(super) fn doc_comment(out: &mut String, text: &str, pad: &str) {
    let text = text.trim().replace("*/", "*\\/");
    if text.is_empty() {
        return;
    }
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{pad}/** {} */", lines[0]);
        return;
    }
    let _ = writeln!(out, "{pad}/**");
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{pad} *");
        } else {
            let _ = writeln!(out, "{pad} * {line}");
        }
    }
    let _ = writeln!(out, "{pad} */");
}

fn literal(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "unknown".into())
}

/// `A | B` without repeats; `unknown` when there is nothing, or when any
/// member is `unknown` (it absorbs the rest).
fn union(members: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for m in members {
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    if seen.is_empty() || seen.iter().any(|m| m == "unknown") {
        return "unknown".into();
    }
    seen.join(" | ")
}

/// Parenthesised when it is a union or intersection (before `[]` or `&`).
fn wrap(ty: &str) -> String {
    let top_level = {
        let mut depth = 0i32;
        let mut found = false;
        let mut in_string = false;
        let mut prev = '\0';
        for c in ty.chars() {
            match c {
                '"' if prev != '\\' => in_string = !in_string,
                '{' | '(' | '[' | '<' if !in_string => depth += 1,
                '}' | ')' | ']' | '>' if !in_string => depth -= 1,
                '|' | '&' if !in_string && depth == 0 => found = true,
                _ => {}
            }
            prev = c;
        }
        found
    };
    if top_level {
        format!("({ty})")
    } else {
        ty.to_owned()
    }
}

/// A `$defs` name as a type alias name (letters, digits, `_`).
fn alias_name(name: &str) -> String {
    let mut out = word_chars(name);
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Words JavaScript does not accept as a function's name.
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// Whether `name` can be written as a JavaScript identifier (tool names
/// are ASCII letters, digits, `_` and `-`).
pub(super) fn is_identifier(name: &str) -> bool {
    is_identifier_name(name) && !RESERVED.contains(&name)
}

/// Whether `name` can be written unquoted as a property key (reserved
/// words can).
fn is_identifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_enums_unions_and_arrays() {
        assert_eq!(ts_type(&json!({"type": "string"})), "string");
        assert_eq!(ts_type(&json!({"type": "integer"})), "number");
        assert_eq!(ts_type(&json!({"enum": ["a", "b"]})), "\"a\" | \"b\"");
        assert_eq!(
            ts_type(&json!({"type": ["string", "null"]})),
            "string | null"
        );
        assert_eq!(
            ts_type(&json!({"type": "array", "items": {"enum": [1, 2]}})),
            "(1 | 2)[]"
        );
        assert_eq!(
            ts_type(
                &json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]})
            ),
            "[string, number]"
        );
        assert_eq!(ts_type(&json!({})), "unknown");
        assert_eq!(
            ts_type(&json!({"type": "object", "additionalProperties": {"type": "number"}})),
            "{ [key: string]: number }"
        );
    }

    #[test]
    fn objects_mark_optional_fields_and_say_defaults_and_bounds() {
        let ty = ts_type(&json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "What to do."},
                "priority": {"type": "integer", "minimum": 0, "maximum": 9, "default": 5},
                "my-key": {"type": "boolean"}
            },
            "required": ["prompt"],
            "additionalProperties": false
        }));
        assert!(ty.contains("/** What to do. */\n  prompt: string;"), "{ty}");
        assert!(
            ty.contains("/** From 0 to 9. Default: 5. */\n  priority?: number;"),
            "{ty}"
        );
        assert!(ty.contains("\"my-key\"?: boolean;"), "{ty}");
        let plain = ts_type(&json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 255},
            "default": {"type": "string"}
        }}));
        assert!(
            plain.contains("  n?: number;") && !plain.contains("255"),
            "{plain}"
        );
        assert!(
            plain.contains("  default?: string;"),
            "a reserved word is a key: {plain}"
        );
    }
}
