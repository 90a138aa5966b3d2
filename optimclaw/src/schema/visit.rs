//! Where the subschemas of a JSON Schema node sit: the one table every
//! walker of the crate descends by (reference resolution, the strict and
//! loosened provider forms, Gemini's subset, TypeScript declarations,
//! argument checks), so none of them misses a keyword another knows.

use serde_json::{Map, Value};

/// Keywords whose value is one subschema (`items` too, when it is not a
/// list).
const ONE: &[&str] = &[
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is a list of subschemas (`items` as a draft-07
/// tuple).
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
/// Where definitions are kept.
pub(crate) const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// Where one subschema sits in its parent node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot<'a> {
    /// The value of a keyword (`items`, `not`, `additionalProperties`…).
    One(&'a str),
    /// The `index`th of a list (`anyOf`, `prefixItems`…).
    Item(&'a str, usize),
    /// The one named `name` in a map (`properties`, `$defs`…).
    Named(&'a str, &'a str),
}

impl Slot<'_> {
    /// The keyword it sits under.
    pub(crate) fn keyword(&self) -> &str {
        match self {
            Slot::One(k) | Slot::Item(k, _) | Slot::Named(k, _) => k,
        }
    }

    /// Its JSON pointer from the parent (`/items`, `/anyOf/0`,
    /// `/properties/a~1b`).
    pub(crate) fn pointer(&self) -> String {
        match self {
            Slot::One(k) => format!("/{k}"),
            Slot::Item(k, i) => format!("/{k}/{i}"),
            Slot::Named(k, name) => format!("/{k}/{}", escape(name)),
        }
    }
}

/// A name as a JSON pointer token.
pub(crate) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Whether definitions are among the subschemas a walk visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Definitions {
    /// Visited like any subschema.
    Visit,
    /// Left as they are.
    Skip,
}

fn kind(key: &str, value: &Value, defs: Definitions) -> Option<Kind> {
    match value {
        Value::Object(_) if ONE.contains(&key) => Some(Kind::One),
        Value::Array(_) if LIST.contains(&key) => Some(Kind::List),
        Value::Object(_) if MAP.contains(&key) => Some(Kind::Map),
        Value::Object(_) if defs == Definitions::Visit && DEFINITIONS.contains(&key) => {
            Some(Kind::Map)
        }
        _ => None,
    }
}

enum Kind {
    One,
    List,
    Map,
}

/// Calls `f` on each direct subschema of `node`, in the node's key order.
pub(crate) fn each<'a>(
    node: &'a Map<String, Value>,
    defs: Definitions,
    mut f: impl FnMut(Slot<'_>, &'a Value),
) {
    for (key, value) in node {
        match (kind(key, value, defs), value) {
            (Some(Kind::One), _) => f(Slot::One(key), value),
            (Some(Kind::List), Value::Array(list)) => {
                for (i, child) in list.iter().enumerate() {
                    f(Slot::Item(key, i), child);
                }
            }
            (Some(Kind::Map), Value::Object(map)) => {
                for (name, child) in map {
                    f(Slot::Named(key, name), child);
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on each direct subschema of `node`, which it may change.
pub(crate) fn each_mut(
    node: &mut Map<String, Value>,
    defs: Definitions,
    mut f: impl FnMut(Slot<'_>, &mut Value),
) {
    for (key, value) in node.iter_mut() {
        match kind(key, value, defs) {
            Some(Kind::One) => f(Slot::One(key), value),
            Some(Kind::List) => {
                if let Value::Array(list) = value {
                    for (i, child) in list.iter_mut().enumerate() {
                        f(Slot::Item(key, i), child);
                    }
                }
            }
            Some(Kind::Map) => {
                if let Value::Object(map) = value {
                    for (name, child) in map.iter_mut() {
                        f(Slot::Named(key, name), child);
                    }
                }
            }
            None => {}
        }
    }
}

/// A copy of `node` with each direct subschema replaced by what `f` makes
/// of it (every other keyword copied as it is).
pub(crate) fn map(
    node: &Map<String, Value>,
    defs: Definitions,
    mut f: impl FnMut(Slot<'_>, &Value) -> Value,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in node {
        let value = match (kind(key, value, defs), value) {
            (Some(Kind::One), _) => f(Slot::One(key), value),
            (Some(Kind::List), Value::Array(list)) => Value::Array(
                list.iter()
                    .enumerate()
                    .map(|(i, child)| f(Slot::Item(key, i), child))
                    .collect(),
            ),
            (Some(Kind::Map), Value::Object(map)) => Value::Object(
                map.iter()
                    .map(|(name, child)| (name.clone(), f(Slot::Named(key, name), child)))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    out
}

/// Calls `f` on `schema` and every subschema below it (definitions too),
/// depth first, with each one's JSON pointer; `f` returning `false` stops
/// the descent below that node. Deeper than `max_depth`, nothing is
/// visited.
pub(crate) fn walk_mut(
    schema: &mut Value,
    max_depth: usize,
    f: &mut impl FnMut(&str, &mut Value) -> bool,
) {
    fn go(
        node: &mut Value,
        path: &str,
        depth: usize,
        max_depth: usize,
        f: &mut impl FnMut(&str, &mut Value) -> bool,
    ) {
        if depth > max_depth || !f(path, node) {
            return;
        }
        if let Value::Object(map) = node {
            each_mut(map, Definitions::Visit, |slot, child| {
                go(
                    child,
                    &format!("{path}{}", slot.pointer()),
                    depth + 1,
                    max_depth,
                    f,
                );
            });
        }
    }
    go(schema, "", 0, max_depth, f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_place_a_subschema_sits_is_visited_with_its_pointer() {
        let mut schema = json!({
            "type": "object",
            "properties": {"a/b": {"type": "array", "items": {"type": "string"}}},
            "anyOf": [{"required": ["x"]}, {"not": {"type": "null"}}],
            "additionalProperties": {"type": "integer"},
            "$defs": {"d": {"type": "object", "propertyNames": {"maxLength": 3}}},
            "enum": [{"not": "a schema"}],
            "default": {"items": "not a schema either"},
            "prefixItems": [true],
        });
        let mut seen = Vec::new();
        walk_mut(&mut schema, 64, &mut |path, _| {
            seen.push(path.to_owned());
            true
        });
        seen.sort();
        assert_eq!(
            seen,
            [
                "",
                "/$defs/d",
                "/$defs/d/propertyNames",
                "/additionalProperties",
                "/anyOf/0",
                "/anyOf/1",
                "/anyOf/1/not",
                "/prefixItems/0",
                "/properties/a~1b",
                "/properties/a~1b/items",
            ]
        );
        let mut direct = Vec::new();
        each(schema.as_object().unwrap(), Definitions::Skip, |slot, _| {
            direct.push(slot.pointer());
        });
        assert!(!direct.iter().any(|p| p.starts_with("/$defs")));
        let copied = map(schema.as_object().unwrap(), Definitions::Skip, |slot, _| {
            Value::String(slot.keyword().to_owned())
        });
        assert_eq!(copied["additionalProperties"], "additionalProperties");
        assert_eq!(copied["enum"], schema["enum"], "values are not schemas");
        assert_eq!(copied["$defs"], schema["$defs"], "definitions skipped");
    }
}
