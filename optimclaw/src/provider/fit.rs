//! Loosening a schema until a provider takes it: each step only widens
//! what is valid (an argument the tool took before is still taken), and
//! says in the description what the provider can no longer check.

use serde_json::{Map, Value, json};

use crate::schema::visit::{self, Definitions};
use crate::schema::{MAX_DEPTH, preview, push_note};

/// Properties whose names `ok` refuses are taken out of `properties` and
/// `required` and their object left open, so they are still accepted; the
/// description lists them. Only the root unless `every_level`.
pub(super) fn open_bad_names(
    schema: &mut Value,
    ok: fn(&str) -> bool,
    every_level: bool,
    notes: &mut Vec<(String, String)>,
) {
    open_node(schema, "", ok, every_level, notes);
}

fn open_node(
    node: &mut Value,
    path: &str,
    ok: fn(&str) -> bool,
    every_level: bool,
    notes: &mut Vec<(String, String)>,
) {
    let Value::Object(map) = node else { return };
    let mut moved = Vec::new();
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        let bad: Vec<String> = props.keys().filter(|k| !ok(k)).cloned().collect();
        for name in bad {
            if let Some(schema) = props.remove(&name) {
                moved.push((name, schema));
            }
        }
    }
    if !moved.is_empty() {
        let names: Vec<&str> = moved.iter().map(|(n, _)| n.as_str()).collect();
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(|r| !r.as_str().is_some_and(|r| names.contains(&r)));
        }
        if map.get("additionalProperties") == Some(&Value::Bool(false)) {
            map.remove("additionalProperties");
        }
        let listed: Vec<String> = moved
            .iter()
            .map(|(n, s)| format!("`{n}`: {}", preview(s, 200)))
            .collect();
        let mut value = Value::Object(std::mem::take(map));
        push_note(
            &mut value,
            &format!(
                "also takes these fields, not listed above: {}",
                listed.join("; ")
            ),
        );
        if let Value::Object(m) = value {
            *map = m;
        }
        notes.push((
            path.to_owned(),
            format!("property names {names:?} are not allowed here; described in words"),
        ));
    }
    if !every_level {
        return;
    }
    visit::each_mut(map, Definitions::Visit, |slot, child| {
        open_node(child, &format!("{path}{}", slot.pointer()), ok, true, notes);
    });
}

/// `anyOf` / `oneOf` / `allOf` at the root (which Anthropic refuses):
/// `allOf` parts merged where they can be, the rest dropped with the
/// constraint in words; properties named only in the branches become
/// optional root properties, so the model still sees them.
pub(super) fn lift_root_composition(schema: &mut Value, notes: &mut Vec<(String, String)>) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(parts)) = map.get("allOf").cloned() {
        let mut merged = map.clone();
        merged.remove("allOf");
        if super::strict::merge_all_of(&mut merged, parts) {
            *map = merged;
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        let Some(Value::Array(branches)) = map.remove(key) else {
            continue;
        };
        let props = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = props {
            for branch in &branches {
                for (name, s) in branch
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    props.entry(name.clone()).or_insert_with(|| s.clone());
                }
            }
        }
        let words = match key {
            "allOf" => "must also match all of",
            "oneOf" => "must also match exactly one of",
            _ => "must also match at least one of",
        };
        let mut value = Value::Object(std::mem::take(map));
        push_note(
            &mut value,
            &format!(
                "the arguments {words}: {}",
                preview(&Value::Array(branches), 600)
            ),
        );
        if let Value::Object(m) = value {
            *map = m;
        }
        notes.push((
            String::new(),
            format!("`{key}` at the top level is described in words"),
        ));
    }
}

/// Arrays without `items` get `items: {}` (any value: what no `items`
/// meant), which OpenAI requires to be written.
pub(super) fn add_missing_items(node: &mut Value) {
    visit::walk_mut(node, MAX_DEPTH, &mut |_, node| {
        if let Value::Object(map) = node {
            let is_array = match map.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
                _ => false,
            };
            if is_array && !map.contains_key("items") {
                map.insert("items".into(), json!({}));
            }
        }
        true
    });
}
