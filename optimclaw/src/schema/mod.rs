//! The canonical JSON Schema of a tool: made by schemars, then cleaned of
//! what no provider wants (`$schema`, the generated root `title`,
//! non-standard integer/float `format`s).

mod check;
mod refs;
pub(crate) mod visit;

pub use check::{ArgumentProblem, MAX_PROBLEMS, argument_problems, check_instance};
pub use refs::{MAX_DEPTH, Resolved, has_ref, push_note, resolve_refs, word_chars};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// `format` values schemars emits for Rust number types; they are not JSON
/// Schema formats and several providers reject them. The bounds schemars
/// emits beside them (`minimum: 0` for unsigned types) are kept.
const NUMBER_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The canonical schema of `T`, cleaned.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    // Subschemas are inlined: a parameter type used once costs fewer tokens
    // in place than behind `$defs` + `$ref`. Recursive types keep a `$ref`.
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    clean_root(&mut value);
    value
}

/// Cleans a root schema in place: drops `$schema` and `title`, drops
/// number formats everywhere, turns documented unit enums into compact
/// string enums, and gives an object without properties an empty
/// `properties` map.
pub fn clean_root(schema: &mut Value) {
    if let Value::Object(map) = schema {
        map.remove("$schema");
        map.remove("title");
    }
    drop_number_formats(schema);
    compact_string_enums(schema, 0);
    if let Value::Object(map) = schema {
        let is_object = map.get("type").and_then(Value::as_str) == Some("object");
        if is_object && !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
    }
}

fn drop_number_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| NUMBER_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            map.values_mut().for_each(drop_number_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_number_formats),
        _ => {}
    }
}

/// `oneOf: [{const: "a", type: string, description}, …]` (what schemars
/// makes of an enum whose variants have doc comments) becomes
/// `{type: string, enum: ["a", …]}`, with the variant docs that say more
/// than the name kept in the description: the same contract in a third of
/// the tokens.
fn compact_string_enums(schema: &mut Value, depth: usize) {
    if depth > 64 {
        return;
    }
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            items
                .iter_mut()
                .for_each(|v| compact_string_enums(v, depth + 1));
        }
        return;
    };
    let variants = map
        .get("oneOf")
        .and_then(Value::as_array)
        .and_then(|options| {
            options
                .iter()
                .map(|o| {
                    let o = o.as_object()?;
                    let value = o.get("const")?.as_str()?;
                    let only_known = o
                        .keys()
                        .all(|k| matches!(k.as_str(), "const" | "type" | "description"));
                    let is_string = o.get("type").is_none_or(|t| t == "string");
                    (only_known && is_string).then(|| {
                        (
                            value.to_owned(),
                            o.get("description")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                        )
                    })
                })
                .collect::<Option<Vec<_>>>()
        });
    if let Some(variants) = variants.filter(|v| !v.is_empty()) {
        map.remove("oneOf");
        map.insert("type".into(), Value::String("string".into()));
        let notes: Vec<String> = variants
            .iter()
            .filter_map(|(value, doc)| {
                let doc = doc.as_deref()?.trim().trim_end_matches('.');
                (!doc.eq_ignore_ascii_case(value)).then(|| format!("{value}: {doc}"))
            })
            .collect();
        map.insert(
            "enum".into(),
            Value::Array(
                variants
                    .into_iter()
                    .map(|(v, _)| Value::String(v))
                    .collect(),
            ),
        );
        if !notes.is_empty() {
            let joined = notes.join("; ");
            let description = match map.get("description").and_then(Value::as_str) {
                Some(d) if !d.is_empty() => format!("{d} ({joined})"),
                _ => joined,
            };
            map.insert("description".into(), Value::String(description));
        }
    }
    map.values_mut()
        .for_each(|v| compact_string_enums(v, depth + 1));
}

/// Removes `additionalProperties: false` everywhere: dispatch rejects
/// unknown fields anyway, so models need not read it in every request.
pub fn drop_closed_objects(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            map.values_mut().for_each(drop_closed_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_closed_objects),
        _ => {}
    }
}

/// Whether a schema lists `name` in `required`.
pub fn is_required(schema: &Value, name: &str) -> bool {
    required(schema).any(|r| r == name)
}

/// The names a schema lists in `required`, in its order.
pub fn required(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// The JSON type of a value, for error messages ("a string", "an array").
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Compact JSON text of `value`, cut at `max` characters, for messages.
pub fn preview(value: &Value, max: usize) -> String {
    let text = value.to_string();
    match text.char_indices().nth(max) {
        None => text,
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// Puts the keys of every object in `value` in sorted order, at every
/// depth.
///
/// serde_json keeps insertion order when any crate in the build turns on
/// its `preserve_order` feature (rig-core does), and sorts keys otherwise.
/// Sorting once when a tool is built makes its schemas and examples the
/// same bytes in both builds, so what a model is sent (and what a prompt
/// cache holds) does not depend on which other crates a binary links.
pub fn sort_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (key, mut child) in entries {
                sort_keys(&mut child);
                map.insert(key, child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

#[cfg(test)]
mod sort_tests {
    use serde_json::json;

    #[test]
    fn keys_come_out_sorted_at_every_depth() {
        let mut value: serde_json::Value =
            serde_json::from_str(r#"{"b": 1, "a": {"d": [{"z": 0, "y": 1}], "c": 2}}"#).unwrap();
        super::sort_keys(&mut value);
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"a":{"c":2,"d":[{"y":1,"z":0}]},"b":1}"#
        );
        assert_eq!(
            value,
            json!({"a": {"c": 2, "d": [{"y": 1, "z": 0}]}, "b": 1})
        );
    }
}
