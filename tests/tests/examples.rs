//! Example calls in tool definitions: declared with `#[tool(examples = …)]`
//! or on dynamic tools, checked when the registry is built, returned by
//! `tool_info`, rendered per dialect and indexed for search.

use optimclaw::provider::{Dialect, EXAMPLES_META_KEY, RenderOptions, tool_spec, tool_spec_with};
use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, tool};
use serde_json::{Value, json};

/// Book a table.
#[tool(
    deferred,
    examples = [{"restaurant": "Chez Nous", "guests": 4, "when": "2026-12-24T19:30"}]
)]
fn book_table(
    /// The restaurant.
    restaurant: String,
    /// How many people.
    guests: u8,
    /// Date and time.
    when: String,
) -> String {
    format!("{restaurant} for {guests} at {when}")
}

fn registry() -> Registry {
    Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .expect("examples of linked tools are valid")
}

fn expected() -> Value {
    json!([{"restaurant": "Chez Nous", "guests": 4, "when": "2026-12-24T19:30"}])
}

#[test]
fn linked_examples_are_kept_as_json() {
    let registry = registry();
    let tool = registry.get("book_table").unwrap();
    assert_eq!(Value::Array(tool.examples().to_vec()), expected());
}

#[tokio::test]
async fn tool_info_returns_examples_and_the_example_is_a_real_call() {
    let registry = registry();
    let session = Session::new(registry.clone());
    let ctx = ToolContext::new();
    let answer = session
        .call("tool_info", json!({"query": "book_table"}), &ctx)
        .await
        .unwrap();
    assert_eq!(answer["tools"][0]["examples"], expected());
    let example = answer["tools"][0]["examples"][0].clone();
    let out = session.call("book_table", example, &ctx).await.unwrap();
    assert_eq!(out, json!("Chez Nous for 4 at 2026-12-24T19:30"));
    // A tool without examples has no `examples` key at all.
    let plain = registry.tool_info("tool_info", 1).unwrap();
    let plain = serde_json::to_value(plain).unwrap();
    assert!(plain["tools"][0].get("examples").is_none(), "{plain}");
}

#[test]
fn dialects_place_examples_where_they_belong() {
    let registry = registry();
    let tool = registry.get("book_table").unwrap();
    let anthropic = tool_spec(tool, Dialect::Anthropic).unwrap();
    assert_eq!(anthropic["input_examples"], expected());
    let mcp = tool_spec(tool, Dialect::Mcp).unwrap();
    assert_eq!(mcp["_meta"][EXAMPLES_META_KEY], expected());
    // Dialects without a field: nothing by default (it costs tokens on
    // every request), an `Example:` line when asked for.
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::OpenAiResponses,
        Dialect::Gemini,
    ] {
        let plain = tool_spec(tool, dialect).unwrap().to_string();
        assert!(!plain.contains("Chez Nous"), "{dialect}: {plain}");
        let options = RenderOptions::default().with_examples_in_description(true);
        let with = tool_spec_with(tool, dialect, options).unwrap();
        let description = with
            .get("function")
            .map_or(&with["description"], |f| &f["description"]);
        assert_eq!(
            description,
            "Book a table.\nExample: {\"guests\":4,\"restaurant\":\"Chez Nous\",\"when\":\"2026-12-24T19:30\"}",
            "{dialect}"
        );
    }
    let session = Session::with_lazy(registry.clone(), LazyConfig::eager());
    let options = RenderOptions::default().with_examples_in_description(true);
    let text = session.render(Dialect::Text, options);
    assert!(text.system.unwrap().contains("Example: {\"guests\":4"));
    let text = session.render(Dialect::Text, RenderOptions::default());
    assert!(!text.system.unwrap().contains("Example:"));
}

#[test]
fn example_values_are_searchable() {
    let registry = registry();
    // "Chez Nous" appears only in the example.
    let hits: Vec<&str> = registry
        .search("chez nous", 3)
        .iter()
        .map(|t| t.name())
        .collect();
    assert_eq!(hits.first(), Some(&"book_table"), "{hits:?}");
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "units": {"enum": ["metric", "imperial"]},
        },
        "required": ["city"],
        "additionalProperties": false,
    })
}

fn dynamic(example: Value) -> Result<Registry, String> {
    Registry::builder()
        .without_linked()
        .tool(DynamicTool::new("forecast", "Weather forecast.", schema()).examples([example]))
        .build()
        .map_err(|e| e.to_string())
}

#[test]
fn dynamic_examples_are_checked_against_the_schema() {
    assert!(dynamic(json!({"city": "Oslo", "days": 3, "units": "metric"})).is_ok());
    let cases = [
        (json!({"days": 3}), "the required field `city` is missing"),
        (
            json!({"city": "Oslo", "day": 3}),
            "at `day`: unknown field `day`",
        ),
        (
            json!({"city": "Oslo", "days": "three"}),
            "at `days`: expected \"integer\", got a string",
        ),
        (
            json!({"city": "Oslo", "units": "kelvin"}),
            "at `units`: \"kelvin\" is not one of",
        ),
        (json!("Oslo"), "expected \"object\", got a string"),
    ];
    for (example, why) in cases {
        let err = dynamic(example.clone()).unwrap_err();
        assert!(
            err.contains("tool `forecast` (dynamic): example 1") && err.contains(why),
            "{example}: {err}"
        );
    }
}

#[test]
fn manifest_examples_are_read_and_checked() {
    use optimclaw::manifest::{ManifestOptions, parse_manifest};
    let good = json!({"tools": [
        {"name": "a", "description": "A.", "inputSchema": schema(), "examples": [{"city": "Oslo"}]},
        {"name": "b", "description": "B.", "inputSchema": schema(),
         "_meta": {EXAMPLES_META_KEY: [{"city": "Rome", "days": 2}]}},
    ]});
    let tools =
        parse_manifest(&good.to_string(), "good.json", &ManifestOptions::default()).unwrap();
    let registry = Registry::builder()
        .without_linked()
        .tools(tools)
        .build()
        .unwrap();
    assert_eq!(
        registry.get("a").unwrap().examples(),
        [json!({"city": "Oslo"})]
    );
    assert_eq!(
        registry.get("b").unwrap().examples(),
        [json!({"city": "Rome", "days": 2})]
    );
    let bad = json!({"tools": [
        {"name": "a", "description": "A.", "inputSchema": schema(), "examples": [{"town": "Oslo"}]},
    ]});
    let err = parse_manifest(&bad.to_string(), "bad.json", &ManifestOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tools[0] (\"a\"): example 1 is not a valid call"),
        "{err}"
    );
}
