//! The bad-input catalogue: what a wrong or hostile caller can send through
//! `Registry::call`, a `Session` and `tool_info`, each answered with a clear
//! error that names the field and what was expected — never a panic. (The
//! MCP server's share, malformed frames on stdio, is in
//! `tests/mcp/python_client.py`.)

use optimclaw::manifest::{ManifestOptions, parse_manifest};
use optimclaw::{LazyConfig, Registry, Session, ToolContext, ToolErrorKind, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A nested part.
#[derive(Deserialize, JsonSchema)]
struct Part {
    /// Its weight.
    weight: u32,
    /// Its label.
    label: String,
}

/// Store an order.
#[tool(keywords = ["order", "store"])]
fn store_order(
    /// The customer's name.
    name: String,
    /// How many items.
    count: u32,
    /// Item ids.
    items: Vec<u32>,
    /// A part.
    part: Part,
    /// Express delivery.
    #[arg(default)]
    express: bool,
    /// Free-form notes.
    notes: Option<String>,
) -> Value {
    json!({"name_len": name.len(), "count": count, "items": items.len(), "weight": part.weight, "label": part.label, "express": express, "notes": notes.map(|n| n.len())})
}

fn registry() -> Registry {
    Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap()
}

fn valid() -> Value {
    json!({"name": "Ada", "count": 2, "items": [1, 2], "part": {"weight": 3, "label": "bolt"}})
}

fn with(key: &str, value: Value) -> Value {
    let mut v = valid();
    v[key] = value;
    v
}

fn without(key: &str) -> Value {
    let mut v = valid();
    v.as_object_mut().unwrap().remove(key);
    v
}

fn deep(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        v = Value::Array(vec![v]);
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_argument_gets_a_clear_error() {
    let r = registry();
    let ctx = ToolContext::new();
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "wrong type: string for u32",
            with("count", json!("two")),
            "at `count`: invalid type: string \"two\", expected an integer from 0 to 4294967295",
        ),
        (
            "wrong type: number for string",
            with("name", json!(7)),
            "at `name`: invalid type: number `7`, expected a string",
        ),
        (
            "wrong type: object for array",
            with("items", json!({})),
            "at `items`: invalid type: object, expected an array",
        ),
        (
            "wrong type: bool for object",
            with("part", json!(true)),
            "at `part`: invalid type: boolean `true`",
        ),
        (
            "negative for unsigned",
            with("count", json!(-1)),
            "at `count`: invalid value: number `-1`, expected an integer from 0 to 4294967295",
        ),
        (
            "float for integer",
            with("count", json!(2.5)),
            "at `count`: invalid type: number `2.5`, expected an integer from 0 to 4294967295",
        ),
        (
            "overflow",
            with("count", json!(1_u64 << 40)),
            "at `count`: invalid value: number `1099511627776`, expected an integer from 0 to 4294967295",
        ),
        (
            "missing required field",
            without("name"),
            "missing field `name`",
        ),
        (
            "missing nested field",
            with("part", json!({"weight": 1})),
            "at `part`: missing field `label`",
        ),
        (
            "unknown field",
            with("colour", json!("red")),
            "at `colour`: unknown field `colour`",
        ),
        (
            "unknown nested field is allowed only where declared",
            with("part", json!({"weight": 1, "label": "x", "extra": 1})),
            "",
        ),
        (
            "null for a required string",
            with("name", Value::Null),
            "at `name`: invalid type: null, expected a string",
        ),
        (
            "null for a required number",
            with("count", Value::Null),
            "at `count`: invalid type: null, expected an integer from 0 to 4294967295",
        ),
        (
            "null inside an array",
            with("items", json!([1, null])),
            "at `items[1]`: invalid type: null, expected an integer from 0 to 4294967295",
        ),
        (
            "wrong element type",
            with("items", json!([1, "x"])),
            "at `items[1]`: invalid type: string \"x\", expected an integer from 0 to 4294967295",
        ),
        (
            "nested wrong type",
            with("part", json!({"weight": "heavy", "label": "x"})),
            "at `part.weight`: invalid type: string \"heavy\"",
        ),
        (
            "arguments are an array",
            json!([1, 2]),
            "expected a JSON object of named arguments, got an array",
        ),
        (
            "arguments are a string",
            json!("name=Ada"),
            "expected a JSON object of named arguments, got a string",
        ),
        (
            "arguments are a number",
            json!(42),
            "expected a JSON object of named arguments, got a number",
        ),
        (
            "arguments are a boolean",
            json!(true),
            "expected a JSON object of named arguments, got a boolean",
        ),
        (
            "empty object",
            json!({}),
            "4 problems: `name`: the required field `name` is missing (expected \"string\"); `count`: the required field `count` is missing",
        ),
        (
            "nesting 10,000 levels deep",
            with("items", deep(10_000)),
            "nest more than 128 levels deep",
        ),
        (
            "a deeply nested unknown field",
            with("zz", deep(10_000)),
            "nest more than 128 levels deep",
        ),
        (
            "nesting 100 levels is read",
            with("items", deep(100)),
            "at `items[0]`: invalid type: array, expected an integer from 0 to 4294967295",
        ),
        (
            "wrong type for the default-able flag",
            with("express", json!("yes")),
            "at `express`: invalid type: string \"yes\", expected a boolean",
        ),
    ];
    assert!(cases.len() >= 20);
    for (what, args, expected) in cases {
        let result = r.call("store_order", args, &ctx).await;
        if expected.is_empty() {
            // serde ignores unknown fields of nested types unless they deny them.
            assert!(result.is_ok(), "{what}: {result:?}");
            continue;
        }
        let err = result.expect_err(what);
        assert_eq!(err.kind(), ToolErrorKind::InvalidArguments, "{what}: {err}");
        let text = err.to_string();
        assert!(
            text.starts_with("invalid arguments for tool `store_order`"),
            "{what}: {text}"
        );
        assert!(text.contains(expected), "{what}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_values_are_answered_without_harm() {
    let r = registry();
    let ctx = ToolContext::new();
    let big = "x".repeat(10 * 1024 * 1024);
    let out = r
        .call("store_order", with("name", json!(big)), &ctx)
        .await
        .unwrap();
    assert_eq!(out["name_len"], 10 * 1024 * 1024);
    let many: Vec<u32> = (0..100_000).collect();
    let out = r
        .call("store_order", with("items", json!(many)), &ctx)
        .await
        .unwrap();
    assert_eq!(out["items"], 100_000);
    let mut dup = valid();
    // serde_json keeps the last of duplicate keys when building a Value;
    // text with duplicate keys is decided before the registry sees it.
    dup["count"] = json!(5);
    assert_eq!(r.call("store_order", dup, &ctx).await.unwrap()["count"], 5);
    let parsed: Result<Value, _> = serde_json::from_str(r#"{"name": "a", "name": "b"}"#);
    assert_eq!(parsed.unwrap()["name"], "b");
}

#[tokio::test]
async fn bad_tool_names_get_clear_errors() {
    let r = registry();
    let ctx = ToolContext::new();
    let names = [
        String::new(),
        "store order".to_owned(),
        "store_ordr".to_owned(),
        "STORE_ORDER".to_owned(),
        "store\u{0}order".to_owned(),
        "store\norder\u{1b}[31m".to_owned(),
        "x".repeat(10_000),
        "../../etc/passwd".to_owned(),
        "🙂".to_owned(),
    ];
    for name in names {
        let err = r.call(&name, valid(), &ctx).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::UnknownTool, "{name:?}");
        let text = err.to_string();
        assert!(text.starts_with("unknown tool \""), "{text}");
        assert!(
            !text.contains('\u{0}') && !text.contains('\n') && !text.contains('\u{1b}'),
            "control characters escaped: {text:?}"
        );
        assert!(text.len() < 400, "bounded: {} bytes", text.len());
    }
    let err = r.call("store_ordr", valid(), &ctx).await.unwrap_err();
    assert!(
        err.to_string().contains("did you mean store_order?"),
        "{err}"
    );
}

#[tokio::test]
async fn bad_tool_info_queries() {
    let r = registry();
    let ctx = ToolContext::new();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"query": ""}), "the query is empty"),
        (json!({"query": " \t\n "}), "the query is empty"),
        (json!({}), "missing field `query`"),
        (
            json!({"query": 5}),
            "at `query`: invalid type: number `5`, expected a string",
        ),
        (
            json!({"query": "order", "max_results": "five"}),
            "at `max_results`: invalid type: string \"five\"",
        ),
        (
            json!({"query": "order", "limit": 3}),
            "unknown field `limit`",
        ),
    ];
    for (args, expected) in cases {
        let err = r.call("tool_info", args.clone(), &ctx).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArguments, "{args}");
        assert!(err.to_string().contains(expected), "{args}: {err}");
    }
    // Odd but valid queries are answered, never an error.
    let long_word = "x".repeat(1_000_000);
    let many_words = "order pizza quickly ".repeat(3_400);
    let control: String = (0u8..32).map(char::from).collect();
    for query in [
        "the of and",
        "🙂🙂",
        "\u{0}\u{1}",
        "order,,,",
        ",",
        "store_order, , nope",
        long_word.as_str(),
        many_words.as_str(),
        control.as_str(),
        "طلب الطعام עברית order",
        ".*+?^${}()|[]\\ (a+)+$ order",
        "\u{202e}redro\u{202c} 🍕🍕🍕",
        "the and of to in is it that was",
    ] {
        let answer = r
            .call(
                "tool_info",
                json!({"query": query, "max_results": -3}),
                &ctx,
            )
            .await;
        let answer = answer.unwrap_or_else(|e| panic!("{query:?}: {e}"));
        assert!(
            answer["tools"].as_array().unwrap().len() <= 1 || query.contains("order"),
            "{query:?}: {answer}"
        );
    }
}

#[tokio::test]
async fn session_bad_input() {
    let session = Session::new(registry());
    let ctx = ToolContext::new();
    let err = session
        .call("store_order", json!({"name": 1}), &ctx)
        .await
        .unwrap_err();
    // Under the bridge (the default) the schema goes with the error.
    assert!(
        err.to_string()
            .contains("The schema of `store_order` is attached"),
        "{err}"
    );
    assert_eq!(err.data().unwrap()["tool"]["name"], "store_order");
    let err = session.call("nope", json!({}), &ctx).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::UnknownTool);
    assert!(session.loaded().is_empty(), "failed calls load nothing");
}

/// Every problem of one call, with its JSON path, in one error: for a
/// linked tool (whose decoder stops at the first), a dynamic tool, a
/// session (schema attached) and the bridge `call_tool`.
#[tokio::test]
async fn every_problem_of_a_call_is_named_at_once() {
    let ctx = ToolContext::new();
    let bad = json!({"name": 7, "items": [1, "two"], "part": {"weight": -1}, "colour": "red"});
    let expected = [
        ("name", "expected \"string\", got a number 7"),
        ("count", "the required field `count` is missing"),
        ("items[1]", "expected \"integer\", got a string \"two\""),
        ("part.weight", "-1 is below the minimum 0"),
        ("part.label", "the required field `label` is missing"),
        ("colour", "unknown field `colour`"),
    ];
    let check =
        |err: &optimclaw::ToolError, tool: &str| {
            assert_eq!(err.kind(), ToolErrorKind::InvalidArguments, "{err}");
            let text = err.to_string();
            assert!(
                text.starts_with(&format!(
                    "invalid arguments for tool `{tool}`, 6 problems: "
                )),
                "{text}"
            );
            let problems = err.data().unwrap()["problems"].as_array().unwrap().clone();
            assert_eq!(problems.len(), expected.len(), "{text}");
            for (path, message) in expected {
                assert!(
                    text.contains(&format!("`{path}`: {message}")),
                    "{path}: {text}"
                );
                assert!(
                    problems.iter().any(|p| p["path"] == path
                        && p["message"].as_str().unwrap().starts_with(message)),
                    "{path}: {problems:?}"
                );
            }
        };
    let linked = registry();
    check(
        &linked
            .call("store_order", bad.clone(), &ctx)
            .await
            .unwrap_err(),
        "store_order",
    );
    let schema = linked.get("store_order").unwrap().input_schema().clone();
    let dynamic = Registry::builder()
        .without_linked()
        .tools([
            optimclaw::DynamicTool::new("store_copy", "Store an order.", schema)
                .handler(|_ctx, _args: Value| async move { Ok(json!("stored")) }),
        ])
        .build()
        .unwrap();
    check(
        &dynamic
            .call("store_copy", bad.clone(), &ctx)
            .await
            .unwrap_err(),
        "store_copy",
    );
    let session = Session::new(registry());
    let err = session
        .call("store_order", bad.clone(), &ctx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("6 problems"), "{err}");
    assert_eq!(err.data().unwrap()["tool"]["name"], "store_order");
    assert_eq!(err.data().unwrap()["problems"].as_array().unwrap().len(), 6);
    let bridged = session
        .call(
            "call_tool",
            json!({"name": "store_order", "arguments": bad}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert!(bridged.to_string().contains("6 problems"), "{bridged}");
    assert_eq!(
        bridged.data().unwrap()["problems"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    // One problem keeps the decoder's own words.
    let one = linked
        .call("store_order", with("count", json!("2")), &ctx)
        .await
        .unwrap_err();
    assert!(
        one.to_string()
            .contains("at `count`: invalid type: string \"2\""),
        "{one}"
    );
}

#[test]
fn bad_manifests() {
    let long = "n".repeat(10_000);
    let text = json!({"tools": [
        {"name": "dup", "description": "a"},
        {"name": "dup", "description": "b"},
        {"name": "", "description": "empty"},
        {"name": long, "description": "long"},
        {"name": "ctrl\u{7}", "description": "control"},
        {"description": "no name"},
        {"name": 5},
        "not an object",
        {"name": "bad_schema", "inputSchema": "string"},
    ]})
    .to_string();
    let err = parse_manifest(&text, "hostile.json", &ManifestOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("8 problem(s)"), "{err}");
    for expected in [
        "duplicate tool name \"dup\"",
        "invalid tool name \"\"",
        "invalid tool name \"nnnnnnnn",
        "ctrl\\u{7}",
        "has no \"name\" string",
        "is not an object",
        "\"bad_schema\"): \"inputSchema\" must be an object schema",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    assert!(
        err.len() < 4_000,
        "a 10,000-character name is cut in the message"
    );
    let sanitised = ManifestOptions::default().with_sanitize_names(true);
    let text = json!({"tools": [{"name": long}, {"name": "???"}]}).to_string();
    let err = parse_manifest(&text, "x.json", &sanitised)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid tool name \"???\""),
        "unsanitisable names stay errors: {err}"
    );
}
