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
//! (`read_only`, not `open_world`): unknown fields that stand where missing
//! required fields should be are read under those fields' names, values
//! untouched. Two ways are taken, in this order: by name, when the words of
//! one name are all words of the other (`start_date` for `start`,
//! `text` for `input_text`) and that pairing is the only one either field
//! has; then the one unknown field left for the one missing required field
//! left (`{"input": "hi"}` for a tool that takes `text`). Either way the
//! value must have the field's type, and a field whose name is of a path,
//! an address, a scope or a secret ([`GUARDED`]) is never filled: those are
//! only ever taken as the model named them.

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
        rename_by_words(map, props, schema, &mut taken);
        rename_lone_field(map, props, schema, &mut taken);
    }
    let required_present = schema::required(schema).all(|name| map.contains_key(name));
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

/// Each unknown field read as the missing required field it names: the
/// words of one name are all words of the other, no other unknown field
/// pairs so with that required field, and no other required field with
/// that unknown one.
fn rename_by_words(
    map: &mut serde_json::Map<String, Value>,
    props: &serde_json::Map<String, Value>,
    schema: &Value,
    taken: &mut Vec<String>,
) {
    let missing: Vec<&str> = schema::required(schema)
        .filter(|name| !map.contains_key(*name))
        .collect();
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !props.contains_key(*k))
        .cloned()
        .collect();
    let pairs = |target: &str, sent: &str| {
        let (a, b) = (words(target), words(sent));
        !a.is_empty()
            && !b.is_empty()
            && (a.iter().all(|w| b.contains(w)) || b.iter().all(|w| a.contains(w)))
    };
    for target in &missing {
        let mut senders = unknown.iter().filter(|sent| pairs(target, sent));
        let (Some(sent), None) = (senders.next(), senders.next()) else {
            continue;
        };
        if missing.iter().filter(|other| pairs(other, sent)).count() == 1 {
            move_field(map, props, sent, target, taken);
        }
    }
}

/// The one unknown field read as the one missing required field.
fn rename_lone_field(
    map: &mut serde_json::Map<String, Value>,
    props: &serde_json::Map<String, Value>,
    schema: &Value,
    taken: &mut Vec<String>,
) {
    let mut missing = schema::required(schema).filter(|name| !map.contains_key(*name));
    let (Some(target), None) = (missing.next(), missing.next()) else {
        return;
    };
    let mut unknown = map.keys().filter(|k| !props.contains_key(*k));
    let (Some(sent), None) = (unknown.next(), unknown.next()) else {
        return;
    };
    let sent = sent.clone();
    move_field(map, props, &sent, target, taken);
}

/// Moves `sent` to `target` when its value is of the type `target` asks
/// for and `target`'s name is not [`GUARDED`].
fn move_field(
    map: &mut serde_json::Map<String, Value>,
    props: &serde_json::Map<String, Value>,
    sent: &str,
    target: &str,
    taken: &mut Vec<String>,
) {
    let lower = target.to_ascii_lowercase();
    if GUARDED.iter().any(|word| lower.contains(word)) {
        return;
    }
    let fits = match (props.get(target).and_then(single_type), map.get(sent)) {
        // An integer field given a fraction is still refused, by the check
        // that follows.
        (Some(wanted), Some(value)) => schema::json_type_name(value) == article(wanted),
        _ => false,
    };
    if fits && let Some(value) = map.remove(sent) {
        taken.push(format!("`{sent}` read as `{target}`"));
        map.insert(target.to_owned(), value);
    }
}

/// The words of a field name: split at `_`, `-` and lower-to-upper case
/// changes, lower-cased (`startDate` and `start_date` are `start`, `date`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == ' ' {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    out.extend((!current.is_empty()).then_some(current));
    out
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
    fn fields_named_with_the_parameters_words_are_read_under_their_names() {
        let span = json!({
            "type": "object",
            "properties": {"start": {"type": "string"}, "end": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["start", "end"],
            "additionalProperties": false
        });
        let mut args = json!({"start_date": "2025-02-01", "endDate": "2025-03-01"});
        let mut taken = repair(&mut args, &span, true);
        taken.sort();
        assert_eq!(args, json!({"start": "2025-02-01", "end": "2025-03-01"}));
        assert_eq!(
            taken,
            ["`endDate` read as `end`", "`start_date` read as `start`"]
        );
        // The other way round: a shorter name for a longer parameter.
        let long = json!({
            "type": "object",
            "properties": {"input_text": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["input_text", "count"],
            "additionalProperties": false
        });
        let mut args = json!({"text": "hi", "count": 2});
        repair(&mut args, &long, true);
        assert_eq!(args, json!({"input_text": "hi", "count": 2}));
        // Two fields that could be `start`, or one that could be either
        // field: left as sent, to be refused with every problem named.
        for sent in [
            json!({"start_date": "a", "start_time": "b", "end": "c"}),
            json!({"start_end": "a"}),
        ] {
            let mut args = sent.clone();
            assert!(repair(&mut args, &span, true).is_empty(), "{sent}");
            assert_eq!(args, sent);
        }
        // Not for a tool that may change things.
        let mut args = json!({"start_date": "a", "end_date": "b"});
        assert!(repair(&mut args, &span, false).is_empty());
        assert_eq!(words("startDate"), ["start", "date"]);
        assert_eq!(words("max_lines-2"), ["max", "lines", "2"]);
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
            // Nor by a name holding the parameter's words.
            let sent = json!({(format!("{name}_value")): "../etc/passwd"});
            let mut args = sent.clone();
            assert!(repair(&mut args, &schema, true).is_empty(), "{name}");
            assert_eq!(args, sent);
        }
    }
}
