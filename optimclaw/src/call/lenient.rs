//! The noise small models add to otherwise valid arguments, taken when a
//! call asks for it ([`CallOptions::lenient`](crate::CallOptions)).
//!
//! Only the top level of the arguments is repaired, and only in ways that
//! cannot change what a tool does with a value it reads: a field it does
//! not read is dropped; a value of the wrong JSON type is parsed into the
//! type the schema asks for when its text is exactly such a value. A
//! string the schema asks for is never touched.

use serde_json::Value;

use crate::schema;

/// Repairs `args` against `schema`; returns what was taken, one line each.
pub(crate) fn repair(args: &mut Value, schema: &Value) -> Vec<String> {
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
        let taken = repair(&mut args, &schema());
        assert_eq!(args, json!({"text": "hello world"}));
        assert_eq!(taken, ["`data` is not a parameter: dropped"]);
        // Without a required field, nothing is dropped: the call is wrong.
        let mut args = json!({"data": "base64"});
        assert!(repair(&mut args, &schema()).is_empty());
        assert_eq!(args, json!({"data": "base64"}));
    }

    #[test]
    fn values_sent_as_text_are_read_as_the_schema_asks() {
        let mut args = json!({
            "text": "42", "count": "5", "ratio": " 0.5 ", "loud": "true",
            "filter": "{\"a\": 1}", "tags": "[\"x\"]"
        });
        repair(&mut args, &schema());
        assert_eq!(
            args,
            json!({"text": "42", "count": 5, "ratio": 0.5, "loud": true, "filter": {"a": 1}, "tags": ["x"]})
        );
    }

    #[test]
    fn strings_and_unreadable_values_stay_as_sent() {
        let mut args = json!({"text": "{\"a\": 1}", "path": "../etc/passwd", "count": "five", "filter": "[1]", "loud": "yes"});
        let before = args.clone();
        assert!(repair(&mut args, &schema()).is_empty());
        assert_eq!(args, before);
        // An open schema keeps unknown fields: the tool may read them.
        let open =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let mut args = json!({"a": "x", "b": 1});
        assert!(repair(&mut args, &open).is_empty());
    }
}
