//! Checking a call's arguments against a tool's schema, every problem at
//! once: a model that learns of one mistake per round trip pays a request
//! for each.
//!
//! Not a full JSON Schema validator (formats, string patterns and lengths
//! are not checked): it covers what decides whether a call is well formed —
//! `type`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `const`, `anyOf`/`oneOf`, `minimum`/`maximum` and local `$ref`s.
//! Written here rather than taken from a validator crate because those
//! stop short of what a model needs (the nearest field names, one sentence
//! per problem) and add a large dependency tree for the rest.

use std::fmt;

use serde_json::Value;

use super::json_type_name;

/// At most this many problems are listed; the rest are counted.
pub const MAX_PROBLEMS: usize = 20;

/// How deep the check follows a value; deeper parts are left to the tool.
const MAX_CHECK_DEPTH: usize = 64;

/// One thing wrong with a call's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// Where, as a JSON path (`a.b[2]`; empty for the arguments as a whole).
    pub path: String,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.path, self.message)
        }
    }
}

/// Every problem of `value` against `schema` (at most [`MAX_PROBLEMS`]
/// listed, plus how many more there were).
pub fn argument_problems(value: &Value, schema: &Value) -> (Vec<ArgumentProblem>, usize) {
    let mut found = Found::default();
    check(value, schema, schema, &mut String::new(), 0, &mut found);
    (found.listed, found.more)
}

/// The first problem of `value` against `schema`, as (JSON path, what is
/// wrong): for checking examples, where one reason is enough.
pub fn check_instance(value: &Value, schema: &Value) -> Result<(), (String, String)> {
    let (problems, _) = argument_problems(value, schema);
    match problems.into_iter().next() {
        None => Ok(()),
        Some(p) => Err((p.path, p.message)),
    }
}

#[derive(Default)]
struct Found {
    listed: Vec<ArgumentProblem>,
    more: usize,
}

impl Found {
    fn push(&mut self, path: &str, message: String) {
        if self.listed.len() < MAX_PROBLEMS {
            self.listed.push(ArgumentProblem {
                path: path.to_owned(),
                message,
            });
        } else {
            self.more += 1;
        }
    }

    fn total(&self) -> usize {
        self.listed.len() + self.more
    }
}

/// Whether `value` matches `schema` at all (for `anyOf`/`oneOf` options).
fn matches(value: &Value, schema: &Value, root: &Value, depth: usize) -> bool {
    let mut found = Found::default();
    check(value, schema, root, &mut String::new(), depth, &mut found);
    found.total() == 0
}

fn check(
    value: &Value,
    schema: &Value,
    root: &Value,
    path: &mut String,
    depth: usize,
    found: &mut Found,
) {
    if depth > MAX_CHECK_DEPTH {
        return;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix('#')
            .and_then(|p| root.pointer(p))
            .unwrap_or(schema),
        None => schema,
    };
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array)
            && !options.iter().any(|o| matches(value, o, root, depth + 1))
        {
            // Say what the nearest option wanted: for `Option<T>` (T or
            // null) that is T's problems, not "matches no shape".
            let typed: Vec<&Value> = options
                .iter()
                .filter(|o| o.get("type") != Some(&Value::String("null".into())))
                .collect();
            if let [only] = typed[..] {
                check(value, only, root, path, depth + 1, found);
            } else {
                found.push(
                    path,
                    format!(
                        "{} matches none of the {} allowed shapes",
                        json_type_name(value),
                        options.len()
                    ),
                );
            }
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        found.push(
            path,
            format!(
                "{} is not one of {}",
                super::preview(value, 80),
                super::preview(&Value::Array(allowed.clone()), 200)
            ),
        );
        return;
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        found.push(
            path,
            format!("expected {constant}, got {}", super::preview(value, 80)),
        );
        return;
    }
    if let Some(types) = schema.get("type")
        && !type_accepts(types, value)
    {
        found.push(
            path,
            match value {
                Value::Null => format!("expected {}, got null", type_words(types)),
                _ => format!(
                    "expected {}, got {} {}",
                    type_words(types),
                    json_type_name(value),
                    super::preview(value, 60)
                ),
            },
        );
        return;
    }
    match value {
        Value::Object(map) => check_object(map, schema, root, path, depth, found),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    check(item, item_schema, root, path, depth + 1, found);
                    path.truncate(len);
                }
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && x < min
            {
                found.push(path, format!("{n} is below the minimum {min}"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && x > max
            {
                found.push(path, format!("{n} is above the maximum {max}"));
            }
        }
        _ => {}
    }
}

fn check_object(
    map: &serde_json::Map<String, Value>,
    schema: &Value,
    root: &Value,
    path: &str,
    depth: usize,
    found: &mut Found,
) {
    let props = schema.get("properties").and_then(Value::as_object);
    let field_path = |path: &str, key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(name) {
            let expected = props
                .and_then(|p| p.get(name))
                .and_then(|s| s.get("type"))
                .map(|t| format!(" (expected {})", type_words(t)))
                .unwrap_or_default();
            found.push(
                &field_path(path, name),
                format!("the required field `{name}` is missing{expected}"),
            );
        }
    }
    for (key, item) in map {
        let mut sub = field_path(path, key);
        match props.and_then(|p| p.get(key)) {
            Some(prop) => check(item, prop, root, &mut sub, depth + 1, found),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let known: Vec<&str> = props
                        .map(|p| {
                            p.keys()
                                .map(String::as_str)
                                .filter(|k| !map.contains_key(*k))
                                .collect()
                        })
                        .unwrap_or_default();
                    let expected = if known.is_empty() {
                        "this tool takes no other fields".to_owned()
                    } else {
                        format!("expected one of: {}", known.join(", "))
                    };
                    found.push(&sub, format!("unknown field `{key}`; {expected}"));
                }
                Some(extra @ Value::Object(_)) => {
                    check(item, extra, root, &mut sub, depth + 1, found);
                }
                _ => {}
            },
        }
    }
}

fn type_accepts(types: &Value, value: &Value) -> bool {
    let accepts = |t: &str| match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        _ => true,
    };
    match types {
        Value::String(t) => accepts(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(accepts),
        _ => true,
    }
}

/// `"integer"`, or `"string" or null` for a list of types.
fn type_words(types: &Value) -> String {
    match types {
        Value::Array(ts) => ts
            .iter()
            .map(|t| match t.as_str() {
                Some("null") => "null".to_owned(),
                _ => t.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string"},
                "priority": {"type": "integer", "minimum": 0, "maximum": 255},
                "mode": {"enum": ["fast", "slow"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["prompt"],
            "additionalProperties": false
        })
    }

    #[test]
    fn every_problem_is_listed_with_its_path() {
        let args = json!({"priority": "high", "mode": "medium", "tags": ["a", 3], "colour": "red", "note": 4});
        let (problems, more) = argument_problems(&args, &job_schema());
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(more, 0);
        assert_eq!(problems.len(), 6, "{text:#?}");
        assert!(
            text.contains(
                &"`prompt`: the required field `prompt` is missing (expected \"string\")"
                    .to_owned()
            ),
            "{text:#?}"
        );
        assert!(
            text.contains(&"`priority`: expected \"integer\", got a string \"high\"".to_owned()),
            "{text:#?}"
        );
        assert!(
            text.iter()
                .any(|t| t.starts_with("`mode`: \"medium\" is not one of")),
            "{text:#?}"
        );
        assert!(
            text.contains(&"`tags[1]`: expected \"string\", got a number 3".to_owned()),
            "{text:#?}"
        );
        assert!(
            text.iter()
                .any(|t| t.starts_with("`colour`: unknown field `colour`; expected one of:")),
            "{text:#?}"
        );
        assert!(
            text.contains(&"`note`: expected \"string\", got a number 4".to_owned()),
            "{text:#?}"
        );
    }

    #[test]
    fn bounds_refs_and_the_cap() {
        let schema = json!({
            "type": "object",
            "$defs": {"n": {"type": "integer", "maximum": 9}},
            "additionalProperties": {"$ref": "#/$defs/n"}
        });
        let mut args = serde_json::Map::new();
        for i in 0..(MAX_PROBLEMS + 5) {
            args.insert(format!("k{i}"), json!(10 + i));
        }
        let (problems, more) = argument_problems(&Value::Object(args), &schema);
        assert_eq!((problems.len(), more), (MAX_PROBLEMS, 5));
        assert!(problems[0].message.contains("above the maximum 9"));
        assert_eq!(check_instance(&json!({"k": 3}), &schema), Ok(()));
    }
}
