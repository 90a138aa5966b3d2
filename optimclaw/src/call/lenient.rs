//! The noise small models add to otherwise valid arguments, taken when a
//! call asks for it ([`CallOptions::lenient`](crate::CallOptions)).
//!
//! Only the top level of the arguments is repaired, and only in ways that
//! cannot change what a tool does with a value it reads: a field it does
//! not read is dropped; a value of the wrong JSON type is parsed into the
//! type the schema asks for when its text is exactly such a value. A
//! string the schema asks for is never touched.
//!
//! One more repair is made for tools that say they change nothing
//! (`read_only`, not `open_world`): a call whose one unknown field stands
//! where its one missing required field should be (`{"input": "hi"}` for
//! a tool that takes `text`) has the field read under its name, value
//! untouched, unless that name is of a path, an address, a scope or a
//! secret ([`GUARDED`]): those are only ever taken as the model named them.

use serde_json::Value;

use crate::schema;

/// Words in a parameter's name that keep it from being filled by another
/// field's value: paths, addresses, scopes, secrets, commands.
const GUARDED: &[&str] = &[
    "path",
    "file",
    "dir",
    "folder",
    "url",
    "uri",
    "host",
    "scope",
    "secret",
    "key",
    "token",
    "password",
    "credential",
    "command",
    "cmd",
];

/// Repairs `args` against `schema`; returns what was taken, one line each.
/// `rename` allows the one-field rename (see the module's docs).
pub(crate) fn repair(args: &mut Value, schema: &Value, rename: bool) -> Vec<String> {
    let mut taken = Vec::new();
    let (Value::Object(map), Some(props)) = (
        &mut *args,
        schema.get("properties").and_then(Value::as_object),
    ) else {
        return taken;
    };
    for (key, value) in map.iter_mut() {
        let Some(wanted) = props.get(key).and_then(single_type) else {
            continue;
        };
        if let Some(parsed) = parse_as(value, wanted) {
            taken.push(format!("`{key}` sent as text, read as {wanted}"));
            *value = parsed;
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    if closed && rename {
        rename_lone_field(map, props, schema, &mut taken);
    }
    let required_present = required(schema).all(|name| map.contains_key(name));
    if closed && required_present {
        let unknown: Vec<String> = map
            .keys()
            .filter(|k| !props.contains_key(*k))
            .cloned()
            .collect();
        for key in unknown {
            map.remove(&key);
            taken.push(format!("`{key}` is not a parameter: dropped"));
        }
    }
    taken
}

/// The one unknown field read as the one missing required field, when
/// its value is of the type that field asks for and the field's name is
/// not [`GUARDED`].
fn rename_lone_field(
    map: &mut serde_json::Map<String, Value>,
    props: &serde_json::Map<String, Value>,
    schema: &Value,
    taken: &mut Vec<String>,
) {
    let mut missing = required(schema).filter(|name| !map.contains_key(*name));
    let (Some(target), None) = (missing.next(), missing.next()) else {
        return;
    };
    let mut unknown = map.keys().filter(|k| !props.contains_key(*k));
    let (Some(sent), None) = (unknown.next(), unknown.next()) else {
        return;
    };
    let lower = target.to_ascii_lowercase();
    if GUARDED.iter().any(|word| lower.contains(word)) {
        return;
    }
    let fits = match props.get(target).and_then(single_type) {
        // An integer field given a fraction is still refused, by the check
        // that follows.
        Some(wanted) => schema::json_type_name(&map[sent]) == article(wanted),
        None => false,
    };
    if fits {
        let sent = sent.clone();
        if let Some(value) = map.remove(&sent) {
            taken.push(format!("`{sent}` read as `{target}`"));
            map.insert(target.to_owned(), value);
        }
    }
}

/// The one JSON type a property schema asks for (`"type": "integer"` or
/// `"type": ["integer", "null"]`), if it names exactly one besides null.
fn single_type(prop: &Value) -> Option<&str> {
    match prop.get("type")? {
        Value::String(t) => Some(t.as_str()),
        Value::Array(types) => {
            let mut named = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null");
            let first = named.next()?;
            named.next().is_none().then_some(first)
        }
        _ => None,
    }
}

/// `value` read as `wanted` when it is a string holding exactly such a
/// value; `None` when it already fits or cannot be read so.
fn parse_as(value: &Value, wanted: &str) -> Option<Value> {
    let Value::String(text) = value else {
        return None;
    };
    let text = text.trim();
    let parsed = match wanted {
        "object" | "array" => serde_json::from_str::<Value>(text).ok()?,
        "integer" => Value::from(text.parse::<i64>().ok()?),
        "number" => serde_json::Number::from_f64(text.parse::<f64>().ok()?).map(Value::Number)?,
        "boolean" => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return None,
        },
        _ => return None,
    };
    (schema::json_type_name(&parsed) == article(wanted)).then_some(parsed)
}

/// [`schema::json_type_name`]'s words for a schema type.
fn article(wanted: &str) -> &'static str {
    match wanted {
        "string" => "a string",
        "null" => "null",
        "object" => "an object",
        "array" => "an array",
        "boolean" => "a boolean",
        _ => "a number",
    }
}

fn required(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "path": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": ["number", "null"]},
                "loud": {"type": "boolean"},
                "filter": {"type": "object"},
                "tags": {"type": "array"}
            },
            "required": ["text"],
            "additionalProperties": false
        })
    }

    #[test]
    fn extra_fields_go_when_the_required_ones_are_there() {
        let mut args = json!({"text": "hello world", "data": "base64"});
        let taken = repair(&mut args, &schema(), false);
        assert_eq!(args, json!({"text": "hello world"}));
        assert_eq!(taken, ["`data` is not a parameter: dropped"]);
        // Without a required field, nothing is dropped: the call is wrong.
        let mut args = json!({"data": "base64"});
        assert!(repair(&mut args, &schema(), false).is_empty());
        assert_eq!(args, json!({"data": "base64"}));
    }

    #[test]
    fn values_sent_as_text_are_read_as_the_schema_asks() {
        let mut args = json!({
            "text": "42", "count": "5", "ratio": " 0.5 ", "loud": "true",
            "filter": "{\"a\": 1}", "tags": "[\"x\"]"
        });
        repair(&mut args, &schema(), false);
        assert_eq!(
            args,
            json!({"text": "42", "count": 5, "ratio": 0.5, "loud": true, "filter": {"a": 1}, "tags": ["x"]})
        );
    }

    #[test]
    fn strings_and_unreadable_values_stay_as_sent() {
        let mut args = json!({"text": "{\"a\": 1}", "path": "../etc/passwd", "count": "five", "filter": "[1]", "loud": "yes"});
        let before = args.clone();
        assert!(repair(&mut args, &schema(), false).is_empty());
        assert_eq!(args, before);
        // An open schema keeps unknown fields: the tool may read them.
        let open =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let mut args = json!({"a": "x", "b": 1});
        assert!(repair(&mut args, &open, false).is_empty());
    }

    #[test]
    fn a_lone_field_under_another_name_is_read_under_its_own_for_read_only_tools() {
        let mut args = json!({"input": "optimclaw rocks"});
        let taken = repair(&mut args, &schema(), true);
        assert_eq!(args, json!({"text": "optimclaw rocks"}));
        assert_eq!(taken, ["`input` read as `text`"]);
        // Not for a tool that may change things.
        let mut args = json!({"input": "optimclaw rocks"});
        assert!(repair(&mut args, &schema(), false).is_empty());
        // Not when the value is of another type, or two fields are unknown.
        for sent in [json!({"input": 5}), json!({"input": "a", "other": "b"})] {
            let mut args = sent.clone();
            assert!(repair(&mut args, &schema(), true).is_empty(), "{sent}");
            assert_eq!(args, sent);
        }
    }

    #[test]
    fn paths_scopes_and_secrets_are_never_filled_from_another_field() {
        for name in [
            "path",
            "file_name",
            "target_dir",
            "url",
            "scope",
            "api_key",
            "token",
            "command",
        ] {
            let schema = json!({
                "type": "object",
                "properties": {(name): {"type": "string"}},
                "required": [name],
                "additionalProperties": false
            });
            let mut args = json!({"input": "../etc/passwd"});
            assert!(repair(&mut args, &schema, true).is_empty(), "{name}");
            assert_eq!(args, json!({"input": "../etc/passwd"}));
        }
    }
}
