//! Invariants checked on generated input (proptest).

use std::collections::BTreeSet;

use optimclaw::provider::{check_strict, gemini_schema, parse_text_call, strict_schema};
use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Random schemas in the shape tool parameters take: objects of scalars,
/// arrays, enums, nested objects and (sometimes) free-form maps, with
/// random `required` subsets, defaults and descriptions.
fn schema(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": "number", "default": 1.5})),
        Just(json!({"type": "boolean", "default": false})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": "string", "format": "date-time", "maxLength": 30})),
        Just(json!({"const": "fixed"})),
    ];
    leaf.prop_recursive(depth, 24, 5, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|i| json!({"type": "array", "items": i})),
            inner
                .clone()
                .prop_map(|i| json!({"anyOf": [i, {"type": "null"}]})),
            inner
                .clone()
                .prop_map(|i| json!({"type": "object", "additionalProperties": i})),
            (
                proptest::collection::btree_map("[a-z]{1,6}", inner, 0..5),
                any::<u8>()
            )
                .prop_map(|(props, mask)| object(props, mask)),
        ]
    })
}

fn object(props: std::collections::BTreeMap<String, Value>, mask: u8) -> Value {
    let required: Vec<Value> = props
        .keys()
        .enumerate()
        .filter(|(i, _)| mask & (1 << (i % 8)) != 0)
        .map(|(_, k)| json!(k))
        .collect();
    let mut map = Map::new();
    map.insert("type".into(), json!("object"));
    map.insert(
        "properties".into(),
        Value::Object(props.into_iter().collect()),
    );
    map.insert("required".into(), Value::Array(required));
    map.insert("description".into(), json!("generated"));
    Value::Object(map)
}

fn root() -> impl Strategy<Value = Value> {
    (
        proptest::collection::btree_map("[a-z]{1,8}", schema(3), 0..6),
        any::<u8>(),
    )
        .prop_map(|(p, m)| object(p, m))
}

fn has_free_map(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("additionalProperties").is_some_and(Value::is_object)
                || m.values().any(has_free_map)
        }
        Value::Array(a) => a.iter().any(has_free_map),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(400) })]

    /// Every strict schema we emit passes the strict checker; the only
    /// schemas refused are those with free-form maps.
    #[test]
    fn strict_schemas_pass_the_strict_checker(s in root()) {
        match strict_schema(&s) {
            Ok(strict) => prop_assert!(check_strict(&strict).is_ok(), "{:?}", check_strict(&strict)),
            Err(_) => prop_assert!(has_free_map(&s)),
        }
    }

    /// Gemini schemas never carry keywords outside its subset.
    #[test]
    fn gemini_schemas_stay_in_the_subset(s in root()) {
        let g = gemini_schema(&s);
        let text = g.to_string();
        for banned in ["\"$ref\"", "\"$defs\"", "\"additionalProperties\"", "\"const\"", "\"oneOf\""] {
            prop_assert!(!text.contains(banned), "{banned} in {text}");
        }
    }

    /// Reading a model's reply never panics.
    #[test]
    fn text_replies_never_panic(reply in ".{0,300}", fenced in any::<bool>()) {
        let reply = if fenced { format!("```json\n{reply}\n```") } else { reply };
        let _ = parse_text_call(&reply);
    }
}

fn catalog() -> Registry {
    let tools = (0..60).map(|i| {
        DynamicTool::new(
            format!("tool_{i:02}"),
            format!(
                "Tool number {i} handles {} things.",
                ["file", "web", "mail", "job"][i % 4]
            ),
            json!({"type": "object", "properties": {}}),
        )
        .keywords([["alpha", "beta", "gamma"][i % 3]])
        .handler(move |_ctx, _args| async move { Ok(json!(i)) })
    });
    Registry::builder()
        .without_linked()
        .descriptor(
            optimclaw::linked_tools()
                .find(|d| d.name == "tool_info")
                .unwrap(),
        )
        .lazy(LazyConfig::lazy())
        .tools(tools)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(300) })]

    /// Search never returns more than asked, for any query.
    #[test]
    fn search_never_returns_more_than_max_results(query in "\\PC{0,80}", k in 0usize..40) {
        let registry = catalog();
        prop_assert!(registry.search(&query, k).len() <= k);
        if let Ok(answer) = registry.tool_info(&query, k) {
            prop_assert!(answer.tools.len() <= k.clamp(1, 20));
        }
    }

    /// Two sessions on one registry: each one's loaded tools are exactly
    /// what was loaded through it.
    #[test]
    fn session_state_never_leaks(ops in proptest::collection::vec((any::<bool>(), 0usize..60), 0..40)) {
        let registry = catalog();
        let (a, b) = (Session::new(registry.clone()), Session::new(registry));
        let (mut want_a, mut want_b) = (BTreeSet::new(), BTreeSet::new());
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for (first, i) in ops {
            let name = format!("tool_{i:02}");
            let (session, want) = if first { (&a, &mut want_a) } else { (&b, &mut want_b) };
            rt.block_on(session.call(&name, json!({}), &ToolContext::new())).unwrap();
            want.insert(name);
        }
        prop_assert_eq!(a.loaded().into_iter().collect::<BTreeSet<_>>(), want_a);
        prop_assert_eq!(b.loaded().into_iter().collect::<BTreeSet<_>>(), want_b);
    }
}

/// A value `schema` accepts: `pick` chooses which optional fields, array
/// lengths and nullable branches it takes.
fn valid_instance(schema: &Value, pick: &mut impl FnMut() -> bool) -> Value {
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(first) = schema.get("anyOf").and_then(|a| a.get(0)) {
        return if pick() {
            valid_instance(first, pick)
        } else {
            Value::Null
        };
    }
    match &schema["type"] {
        Value::Array(types) => {
            if pick() {
                Value::Null
            } else {
                valid_instance(&json!({"type": types[0]}), pick)
            }
        }
        Value::String(t) => match t.as_str() {
            "string" => json!("2026-12-04T10:00:00Z"),
            "integer" => json!(3),
            "number" => json!(2.5),
            "boolean" => json!(true),
            "array" => {
                let n = usize::from(pick()) + usize::from(pick());
                Value::Array(
                    (0..n)
                        .map(|_| valid_instance(&schema["items"], pick))
                        .collect(),
                )
            }
            "object" => {
                let mut out = Map::new();
                let required: BTreeSet<&str> = schema["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                if let Some(props) = schema["properties"].as_object() {
                    for (k, s) in props {
                        if required.contains(k.as_str()) || pick() {
                            out.insert(k.clone(), valid_instance(s, pick));
                        }
                    }
                }
                if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object())
                    && pick()
                {
                    out.insert("zz_extra".into(), valid_instance(extra, pick));
                }
                Value::Object(out)
            }
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// Any JSON value, nested.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|n| json!(n)),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(400) })]

    /// What a schema accepts is never reported as a problem (dynamic and
    /// MCP tools are gated on this check), and leaving out a required
    /// field is always named, with its path.
    #[test]
    fn argument_checks_accept_every_valid_value_and_name_a_missing_field(
        s in root(),
        choices in proptest::collection::vec(any::<bool>(), 64),
    ) {
        let mut i = 0;
        let mut pick = || { i += 1; choices[i % choices.len()] };
        let value = valid_instance(&s, &mut pick);
        let (problems, more) = optimclaw::schema::argument_problems(&value, &s);
        prop_assert!(problems.is_empty() && more == 0, "{value} against {s}: {problems:?}");
        if let Some(name) = s["required"].get(0).and_then(Value::as_str) {
            let mut broken = value.clone();
            broken.as_object_mut().unwrap().remove(name);
            let (problems, _) = optimclaw::schema::argument_problems(&broken, &s);
            prop_assert!(problems.iter().any(|p| p.path == name), "{name} not named: {problems:?}");
        }
    }

    /// Any value against any schema: an answer, never a panic, and never
    /// more than the cap listed.
    #[test]
    fn argument_checks_never_panic(s in root(), value in any_json()) {
        let (problems, _) = optimclaw::schema::argument_problems(&value, &s);
        prop_assert!(problems.len() <= optimclaw::schema::MAX_PROBLEMS);
        prop_assert!(problems.iter().all(|p| !p.message.is_empty()));
    }
}
