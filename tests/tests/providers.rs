//! Provider dialects: transforms that need their own tools (recursive
//! types), native deferral, the text dialect and its reply parser.

use optimclaw::provider::{
    ANTHROPIC_TOOL_SEARCH, Dialect, Outcome, RenderOptions, TEXT_CALL_INSTRUCTIONS, TextCall,
    check_strict, describe_tool, gemini_schema, parse_text_call, strict_schema, tool_spec,
};
use optimclaw::{LazyConfig, Registry, Session, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A tree of labels.
#[derive(Deserialize, JsonSchema)]
struct Tree {
    /// This node's label.
    label: String,
    /// Child nodes.
    children: Vec<Tree>,
}

/// Count the nodes of a tree.
#[tool]
fn count_nodes(
    /// The tree.
    tree: Tree,
) -> usize {
    fn count(t: &Tree) -> usize {
        usize::from(!t.label.is_empty()) + t.children.iter().map(count).sum::<usize>()
    }
    count(&tree)
}

/// How to sort.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Order {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

/// Filters for a search.
#[derive(Deserialize, JsonSchema)]
struct Filters {
    /// Only these tags.
    tags: Option<Vec<String>>,
    /// Sort order.
    order: Option<Order>,
}

/// Search notes with filters.
#[tool(core)]
fn search_notes(
    /// Words to find.
    query: String,
    /// Optional filters.
    filters: Option<Filters>,
    /// A fixed marker.
    #[arg(default)]
    page: u32,
) -> String {
    let tags = filters
        .as_ref()
        .and_then(|f| f.tags.as_ref())
        .map_or(0, Vec::len);
    let desc = filters
        .and_then(|f| f.order)
        .is_some_and(|o| matches!(o, Order::Desc));
    format!("{query}:{tags}:{desc}:{page}")
}

/// Send a message to a channel.
#[tool(keywords = ["notify"])]
fn post_message(
    /// The channel.
    channel: String,
    /// The text.
    text: String,
) -> String {
    format!("#{channel}: {text}")
}

fn registry(lazy: LazyConfig) -> Registry {
    Registry::builder().lazy(lazy).build().unwrap()
}

#[test]
fn recursive_types_go_to_gemini_one_level_deep_and_whole_elsewhere() {
    let registry = registry(LazyConfig::eager());
    let tool = registry.get("count_nodes").unwrap();
    let described = describe_tool(tool, Dialect::Gemini, RenderOptions::default());
    let gemini = described.spec.expect("Gemini gets the tool");
    assert!(!gemini.to_string().contains("$ref"), "{gemini}");
    let degraded = described.degraded.expect("reported as loosened");
    assert_eq!(degraded.outcome, Outcome::Loosened);
    assert!(
        degraded
            .reasons
            .iter()
            .any(|r| r.contains("recursive `Tree`")),
        "{degraded}"
    );
    assert_eq!(
        registry.degraded(Dialect::Gemini),
        vec![degraded],
        "the registry reports the same"
    );
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::Mcp,
    ] {
        let d = describe_tool(tool, dialect, RenderOptions::default());
        assert!(d.degraded.is_none(), "{dialect}: {:?}", d.degraded);
    }
    let strict = tool_spec(tool, Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        strict["function"]["strict"], true,
        "OpenAI strict takes recursive $refs"
    );
    check_strict(&strict["function"]["parameters"]).unwrap();
}

/// A recursive type (schemars writes `$defs` + `$ref`) in every dialect.
#[test]
fn a_recursive_type_in_every_dialect() {
    let registry = registry(LazyConfig::eager());
    let tool = registry.get("count_nodes").unwrap();
    let mut view = serde_json::Map::new();
    view.insert("input_schema".into(), tool.input_schema().clone());
    for dialect in Dialect::ALL {
        if dialect != Dialect::Text {
            view.insert(dialect.name().into(), tool_spec(tool, dialect).unwrap());
        }
    }
    // Keys sorted as the snapshot stores them, whether or not a crate in the
    // build turns on serde_json's `preserve_order` (rig-core does).
    let mut view = Value::Object(view);
    optimclaw::schema::sort_keys(&mut view);
    insta::assert_json_snapshot!("recursive_in_every_dialect", view);
}

#[test]
fn strict_makes_optional_fields_nullable_and_required_at_every_depth() {
    let registry = registry(LazyConfig::eager());
    let schema = registry.get("search_notes").unwrap().input_schema();
    let strict = strict_schema(schema).unwrap();
    check_strict(&strict).unwrap();
    assert_eq!(strict["required"], json!(["filters", "page", "query"]));
    assert_eq!(
        strict["properties"]["page"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(
        strict["properties"]["page"]["description"],
        "A fixed marker. (default: 0; minimum: 0)"
    );
    // Option<Filters>: the inlined object, or null.
    let filters = &strict["properties"]["filters"];
    assert_eq!(filters["type"], json!(["object", "null"]));
    assert_eq!(
        filters["properties"]["order"]["anyOf"][1],
        json!({"type": "null"})
    );
    assert_eq!(filters["additionalProperties"], false);
    assert_eq!(filters["required"], json!(["order", "tags"]));
    // Free-form maps cannot be strict.
    let map = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}}});
    let (path, message) = strict_schema(&map).unwrap_err();
    assert_eq!(path, "/properties/m");
    assert!(message.contains("free-form keys"), "{message}");
}

#[test]
fn gemini_gets_the_openapi_subset() {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "mode": {"const": "fast", "description": "Speed."},
            "level": {"type": ["integer", "null"], "minimum": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "when": {"type": "string", "format": "date"},
            "shape": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"type": "null"}]}
        },
        "$defs": {"Circle": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]}}
    });
    let g = gemini_schema(&schema);
    let text = g.to_string();
    for banned in [
        "$ref",
        "$defs",
        "additionalProperties",
        "const",
        "oneOf",
        "uniqueItems",
    ] {
        assert!(
            !text.contains(&format!("\"{banned}\"")),
            "{banned} in {text}"
        );
    }
    assert_eq!(g["properties"]["mode"]["enum"], json!(["fast"]));
    assert_eq!(
        g["properties"]["level"],
        json!({"type": "integer", "nullable": true, "minimum": 1})
    );
    assert_eq!(
        g["properties"]["tags"]["description"],
        "(uniqueItems: true)"
    );
    assert_eq!(g["properties"]["when"]["description"], "(format: date)");
    assert_eq!(
        g["properties"]["shape"]["properties"]["r"]["type"],
        "number"
    );
    assert_eq!(g["properties"]["shape"]["nullable"], true);
}

#[test]
fn anthropic_and_openai_responses_can_use_native_deferral() {
    let registry = registry(LazyConfig::lazy());
    let session = Session::new(registry.clone());
    let native = RenderOptions::default().with_native_deferral(true);
    let anthropic = session.prompt().render(Dialect::Anthropic, native);
    let names: Vec<&str> = anthropic
        .tools
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        !names.contains(&"tool_info"),
        "the provider's search replaces tool_info"
    );
    let post = anthropic
        .tools
        .iter()
        .find(|t| t["name"] == "post_message")
        .unwrap();
    assert_eq!(post["defer_loading"], true);
    let core = anthropic
        .tools
        .iter()
        .find(|t| t["name"] == "search_notes")
        .unwrap();
    assert!(core.get("defer_loading").is_none());
    assert_eq!(
        anthropic.tools.last().unwrap()["type"],
        ANTHROPIC_TOOL_SEARCH
    );
    assert!(
        anthropic.system.is_none(),
        "no note: the provider lists deferred tools itself"
    );

    let responses = session.prompt().render(Dialect::OpenAiResponses, native);
    assert_eq!(
        responses.tools.last().unwrap(),
        &json!({"type": "tool_search"})
    );
    let post = responses
        .tools
        .iter()
        .find(|t| t["name"] == "post_message")
        .unwrap();
    assert_eq!(post["defer_loading"], true);

    // Chat completions has no deferral: the option changes nothing.
    let chat = session.prompt().render(Dialect::OpenAi, native);
    assert_eq!(
        chat,
        session
            .prompt()
            .render(Dialect::OpenAi, RenderOptions::default())
    );

    // Gemini cannot take the recursive tool; everything else renders.
    let mut dump = serde_json::Map::new();
    dump.insert("anthropic".into(), Value::Array(anthropic.tools));
    dump.insert("openai-responses".into(), Value::Array(responses.tools));
    dump.insert("openai".into(), Value::Array(chat.tools));
    let eager = Registry::builder()
        .lazy(LazyConfig::eager())
        .build()
        .unwrap();
    let strict = Session::new(eager).render(Dialect::OpenAiStrict, RenderOptions::default());
    dump.insert("openai-strict".into(), Value::Array(strict.tools));
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("provider-specs-native.json"),
        serde_json::to_string(&dump).unwrap(),
    )
    .unwrap();
}

#[test]
fn the_session_renders_every_dialect_with_the_note() {
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    let session = Session::new(registry);
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Mcp,
    ] {
        let r = session.render(dialect, RenderOptions::default());
        assert_eq!(
            r.tools.len(),
            3,
            "{dialect}: search_notes, tool_info and the bridge's call_tool"
        );
        assert!(
            r.system
                .as_deref()
                .unwrap()
                .contains("count_nodes, post_message"),
            "{dialect}"
        );
    }
    let text = session.render(Dialect::Text, RenderOptions::default());
    assert!(text.tools.is_empty());
    let system = text.system.unwrap();
    assert!(system.contains(TEXT_CALL_INSTRUCTIONS));
    assert!(
        system.contains("## search_notes\nSearch notes with filters.\nArguments:\n"),
        "{system}"
    );
    assert!(
        system.contains("- page (integer, optional, default 0): A fixed marker."),
        "{system}"
    );
    assert!(
        system.contains("- query (string, required): Words to find."),
        "{system}"
    );
    assert!(system.contains("## tool_info"), "{system}");
    assert!(
        system.ends_with(
            "Additional tools available (use tool_info to load): count_nodes, post_message\n"
        ),
        "{system}"
    );
}

#[test]
fn text_replies_are_parsed_or_get_errors_that_say_what_to_fix() {
    let ok = "Sure.\n```json\n{\"tool\": \"post_message\", \"arguments\": {\"channel\": \"ops\", \"text\": \"hi\"}}\n```";
    assert_eq!(
        parse_text_call(ok).unwrap(),
        Some(TextCall {
            tool: "post_message".into(),
            arguments: json!({"channel": "ops", "text": "hi"})
        })
    );
    assert_eq!(
        parse_text_call("{\"tool\": \"tool_info\", \"arguments\": {\"query\": \"jobs\"}}")
            .unwrap()
            .unwrap()
            .tool,
        "tool_info"
    );
    let no_args = parse_text_call("```\n{\"tool\": \"search_notes\"}\n```")
        .unwrap()
        .unwrap();
    assert_eq!(no_args.arguments, json!({}));
    assert_eq!(parse_text_call("The answer is 42.").unwrap(), None);
    assert_eq!(parse_text_call("```rust\nfn main() {}\n```").unwrap(), None);

    let cases = [
        (
            "```json\n{\"tool\": \"a\"}\n```\n```json\n{\"tool\": \"b\"}\n```",
            "2 JSON blocks",
        ),
        (
            "```json\n{\"tool\": \"a\", \"arguments\": {\"x\": }\n```",
            "not valid JSON",
        ),
        ("```json\n{\"arguments\": {}}\n```", "no \"tool\" field"),
        (
            "```json\n{\"tool\": 7}\n```",
            "\"tool\" must be a non-empty string",
        ),
        (
            "```json\n{\"tool\": \"a\", \"arguments\": [1]}\n```",
            "\"arguments\" must be a JSON object",
        ),
        ("```json\n[1, 2]\n```", "must be a JSON object"),
        (
            "```json\n{\"tool\": \"a\", \"args\": {}}\n```",
            "unexpected field \"args\"",
        ),
        (
            "```json\n{\"tool\": \"a\", \"arguments\": {\n",
            "not valid JSON",
        ),
    ];
    for (reply, expected) in cases {
        let err = parse_text_call(reply).unwrap_err().to_string();
        assert!(err.contains(expected), "{reply:?}: {err}");
    }
}

#[test]
fn the_one_line_check_reports_what_a_provider_rejects() {
    let err = optimclaw::testing::check_tools().unwrap_err().to_string();
    assert!(
        err.contains("tool `count_nodes` sent loosened for gemini"),
        "{err}"
    );
    assert!(
        err.contains("tests/tests/providers.rs"),
        "the location is named: {err}"
    );
    optimclaw::testing::assert_tools_valid_for(&[
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::Mcp,
    ]);
}
