//! Gemini function declarations: the OpenAPI 3.0 subset Gemini accepts.

use serde_json::{Map, Value, json};

use super::rules::GEMINI_KEYS;
use crate::schema::visit::{self, Definitions};
use crate::tool::Tool;

pub(super) fn spec(tool: &Tool) -> (Value, Vec<(String, String)>) {
    let (parameters, notes) = gemini_parameters(tool.input_schema());
    let mut spec = json!({"name": tool.name(), "description": tool.description()});
    if let Some(parameters) = parameters {
        spec["parameters"] = parameters;
    }
    (spec, notes)
}

/// A function's `parameters` for Gemini, and what could not be kept as
/// written. `None` for a tool without parameters: Gemini refuses an
/// object parameter list with no properties.
pub(super) fn gemini_parameters(schema: &Value) -> (Option<Value>, Vec<(String, String)>) {
    let resolved = crate::schema::resolve_refs(schema);
    let mut notes = resolved.notes;
    let mut root = resolved.schema;
    // A function's parameters are one object: a composition around it is
    // described in words.
    super::fit::lift_root_composition(&mut root, &mut notes);
    let defs = root.get("$defs").cloned().unwrap_or(Value::Null);
    let mut walk = Walk {
        root: &root,
        defs: &defs,
        notes: &mut notes,
    };
    let mut out = walk.node(&root, "", &mut Vec::new());
    let empty = out
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if empty {
        return (None, notes);
    }
    super::fit::open_bad_names(&mut out, super::rules::gemini_key, false, &mut notes);
    (Some(out), notes)
}

/// Formats Gemini accepts on strings.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Rewrites a schema into Gemini's OpenAPI subset: `$ref`s inlined (a
/// recursive type is described one level deep, then as "the same shape",
/// since Gemini cannot refer to itself), `oneOf` → `anyOf`, `allOf` merged,
/// `const` → one-value `enum`, type lists with `null` → `nullable`, values
/// of any shape as a union of every type, and other keywords
/// (`additionalProperties`, `not`, …) removed, with the meaningful ones
/// moved into the description. The result only ever takes more values
/// than the schema did, never fewer.
pub fn gemini_schema(schema: &Value) -> Value {
    let resolved = crate::schema::resolve_refs(schema);
    let mut notes = resolved.notes;
    let defs = resolved.schema.get("$defs").cloned().unwrap_or(Value::Null);
    Walk {
        root: &resolved.schema,
        defs: &defs,
        notes: &mut notes,
    }
    .node(&resolved.schema, "", &mut Vec::new())
}

struct Walk<'a> {
    root: &'a Value,
    defs: &'a Value,
    notes: &'a mut Vec<(String, String)>,
}

/// Gemini's stand-in for "any value", which its `Schema` cannot say: a
/// union of every type, two levels deep (an array of scalars or objects).
fn any_value() -> Value {
    let scalar_or_object = json!([
        {"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "object"}
    ]);
    let mut any = scalar_or_object.clone();
    if let Value::Array(list) = &mut any {
        list.push(json!({"type": "array", "items": {"anyOf": scalar_or_object, "nullable": true}}));
    }
    json!({"anyOf": any, "nullable": true})
}

impl Walk<'_> {
    fn node(&mut self, node: &Value, path: &str, stack: &mut Vec<String>) -> Value {
        let Value::Object(src) = node else {
            return any_value();
        };
        if let Some(reference) = src.get("$ref").and_then(Value::as_str) {
            let name = reference
                .strip_prefix("#/$defs/")
                .unwrap_or(reference)
                .to_owned();
            let target = if reference == "#" {
                Some(self.root)
            } else {
                self.defs.get(&name)
            };
            let Some(target) = target else {
                return any_value();
            };
            if stack.contains(&name) {
                self.notes.push((
                    path.to_owned(),
                    format!("the recursive `{name}` is cut here: Gemini cannot refer back to it"),
                ));
                let t = target.get("type").filter(|t| t.is_string()).cloned();
                let mut cut = json!({"type": t.unwrap_or_else(|| json!("object"))});
                if cut["type"] == "array" {
                    cut["items"] = any_value();
                }
                push_note(
                    cut.as_object_mut().expect("an object"),
                    "the same shape as the enclosing value, nested; not described further",
                );
                return cut;
            }
            stack.push(name);
            let mut inlined = self.node(target, path, stack);
            stack.pop();
            if let (Some(d), Value::Object(m)) = (src.get("description"), &mut inlined) {
                m.insert("description".into(), d.clone());
            }
            return inlined;
        }
        let mut map = src.clone();
        if let Some(Value::Array(parts)) = map.remove("allOf")
            && !super::strict::merge_all_of(&mut map, parts.clone())
        {
            push_note(
                &mut map,
                &format!(
                    "must also match all of: {}",
                    crate::schema::preview(&Value::Array(parts), 400)
                ),
            );
        }
        // A tuple: Gemini has lists of one item type, so the items are any
        // of the tuple's types, and the order is said in words.
        if let Some(Value::Array(mut prefix)) = map.remove("prefixItems") {
            push_note(
                &mut map,
                &format!(
                    "in this order: {}",
                    crate::schema::preview(&Value::Array(prefix.clone()), 300)
                ),
            );
            prefix.dedup();
            if !map.contains_key("items") && !prefix.is_empty() {
                let items = if prefix.len() == 1 {
                    prefix.remove(0)
                } else {
                    json!({"anyOf": prefix})
                };
                map.insert("items".into(), items);
            }
        }
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
                [] => {
                    map.insert("type".into(), json!("null"));
                }
                many => {
                    // One branch per type, each with the keywords of its type.
                    let branches: Vec<Value> = many
                        .iter()
                        .map(|t| {
                            let mut branch = json!({"type": t});
                            let keys: &[&str] = match t.as_str() {
                                Some("object") => {
                                    &["properties", "required", "additionalProperties"]
                                }
                                Some("array") => &["items", "minItems", "maxItems"],
                                Some("string") => &["minLength", "maxLength", "pattern", "format"],
                                _ => &["minimum", "maximum"],
                            };
                            for key in keys {
                                if let Some(v) = map.get(*key) {
                                    branch[*key] = v.clone();
                                }
                            }
                            branch
                        })
                        .collect();
                    for key in [
                        "type",
                        "properties",
                        "required",
                        "additionalProperties",
                        "items",
                        "minItems",
                        "maxItems",
                        "minLength",
                        "maxLength",
                        "pattern",
                        "format",
                        "minimum",
                        "maximum",
                    ] {
                        map.remove(key);
                    }
                    map.insert("anyOf".into(), Value::Array(branches));
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
        if let Some(f) = map.get("format").and_then(Value::as_str) {
            let allowed: &[&str] = match map.get("type").and_then(Value::as_str) {
                Some("string") => GEMINI_STRING_FORMATS,
                Some("number") => &["float", "double"],
                Some("integer") => &["int32", "int64"],
                _ => &[],
            };
            if !allowed.contains(&f) {
                let f = f.to_owned();
                map.remove("format");
                push_note(&mut map, &format!("format: {f}"));
            }
        }
        // The subschemas Gemini keeps, converted (found by the crate's one
        // table of where subschemas sit); the others are dropped below.
        let map = visit::map(&map, Definitions::Skip, |slot, child| {
            match slot.keyword() {
                "properties" | "items" | "anyOf" => {
                    self.node(child, &format!("{path}{}", slot.pointer()), stack)
                }
                _ => child.clone(),
            }
        });
        let mut out = Map::new();
        let mut dropped = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "properties" | "items" => {
                    out.insert(key, value);
                }
                "anyOf" => {
                    let mut list = Vec::new();
                    for child in value.as_array().into_iter().flatten().cloned() {
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
            if out.contains_key("properties") {
                out.insert("type".into(), json!("object"));
            } else if out.contains_key("items") {
                out.insert("type".into(), json!("array"));
            } else if let Value::Object(any) = any_value() {
                // A value of any shape: every type Gemini has.
                out.extend(any);
            }
        }
        if out.get("type") == Some(&json!("array")) && !out.contains_key("items") {
            out.insert("items".into(), any_value());
        }
        if out.get("type").is_some_and(|t| t != "object") {
            out.remove("properties");
            out.remove("required");
        }
        if let Some(Value::Array(required)) = out.get("required").cloned() {
            let props = out.get("properties").and_then(Value::as_object);
            let kept: Vec<Value> = required
                .into_iter()
                .filter(|r| {
                    r.as_str()
                        .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
                })
                .collect();
            out.insert("required".into(), Value::Array(kept));
        }
        Value::Object(out)
    }
}

fn push_note(map: &mut Map<String, Value>, note: &str) {
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(description));
}
