//! Load strategies: append (loaded specs join the `tools` array), bridge
//! (the array never changes; deferred tools are called through
//! `call_tool`) and native (the provider's own deferral fed by our search),
//! in every dialect; and `tool_info` answers that keep history small.

use optimclaw::provider::{Dialect, RenderOptions, tool_references, tool_search_output};
use optimclaw::{
    DynamicTool, LazyConfig, LoadStrategy, Registry, Session, ToolContext, ToolErrorKind,
    ToolInfoAnswer, ToolKind,
};
use serde_json::{Value, json};

fn tool(name: &str, description: &str, core: bool) -> DynamicTool {
    let t = DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": {"n": {"type": "integer", "description": "A number."}}, "required": ["n"], "additionalProperties": false}),
    )
    .handler(|_ctx, args: Value| async move { Ok(json!(args["n"].as_i64().unwrap_or(0) * 2)) });
    if core { t.kind(ToolKind::Core) } else { t }
}

fn registry(strategy: LoadStrategy) -> Registry {
    let mut tools = vec![tool("echo", "Echo a number.", true)];
    for (name, what) in [
        ("double_number", "Double a number."),
        ("github__create_issue", "Create a GitHub issue numbered n."),
        ("github__close_issue", "Close GitHub issue n."),
        ("weather_forecast", "Forecast the weather for n days."),
        ("number_square", "Square a number."),
        ("number_cube", "Cube a number."),
        ("number_negate", "Negate a number."),
    ] {
        tools.push(tool(name, what, false));
    }
    Registry::builder()
        .lazy(LazyConfig::lazy().with_strategy(strategy))
        .tools(tools)
        .build()
        .unwrap()
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| {
            t.get("name")
                .or_else(|| t.pointer("/function/name"))
                .or_else(|| t.get("type"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn bridge_keeps_the_tools_array_byte_identical() {
    let session = Session::new(registry(LoadStrategy::Bridge));
    let ctx = ToolContext::new();
    let before: Vec<String> = Dialect::ALL
        .iter()
        .map(|d| {
            let r = session.render(*d, RenderOptions::default());
            serde_json::to_string(&json!({"tools": r.tools, "system": r.system})).unwrap()
        })
        .collect();
    let openai = session.render(Dialect::OpenAi, RenderOptions::default());
    assert!(
        names(&openai.tools).contains(&"call_tool".to_owned()),
        "{:?}",
        names(&openai.tools)
    );
    session
        .call("tool_info", json!({"query": "double a number"}), &ctx)
        .await
        .unwrap();
    let out = session
        .call(
            "call_tool",
            json!({"name": "double_number", "arguments": {"n": 21}}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out, json!(42));
    let after: Vec<String> = Dialect::ALL
        .iter()
        .map(|d| {
            let r = session.render(*d, RenderOptions::default());
            serde_json::to_string(&json!({"tools": r.tools, "system": r.system})).unwrap()
        })
        .collect();
    assert_eq!(before, after, "no dialect's tools or system text changed");
}

#[tokio::test]
async fn bridge_calls_are_checked_and_errors_carry_the_schema() {
    let session = Session::new(registry(LoadStrategy::Bridge));
    let ctx = ToolContext::new();
    // Loaded or not, an invalid call through the bridge gets the schema.
    session
        .call("tool_info", json!({"query": "double_number"}), &ctx)
        .await
        .unwrap();
    let err = session
        .call(
            "call_tool",
            json!({"name": "double_number", "arguments": {"n": "two"}}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(
        err.data().unwrap()["tool"]["name"],
        "double_number",
        "{err}"
    );
    let unknown = session
        .call(
            "call_tool",
            json!({"name": "double_numbr", "arguments": {"n": 1}}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.kind(), ToolErrorKind::UnknownTool);
    assert!(
        unknown.to_string().contains("double_number"),
        "nearest names: {unknown}"
    );
    for (args, field) in [
        (json!({"arguments": {"n": 1}}), "name"),
        (
            json!({"name": "double_number", "arguments": [1]}),
            "arguments",
        ),
        (json!({"name": "double_number", "n": 1}), "n"),
        (json!({"name": "call_tool", "arguments": {}}), "name"),
    ] {
        let err = session
            .call("call_tool", args.clone(), &ctx)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArguments, "{args}: {err}");
        assert!(err.to_string().contains(field), "{args}: {err}");
    }
    // Registry::call takes the bridge too (no session).
    let registry = registry(LoadStrategy::Bridge);
    let out = registry
        .call(
            "call_tool",
            json!({"name": "number_square", "arguments": {"n": 3}}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out, json!(6));
}

#[tokio::test]
async fn append_still_appends() {
    let session = Session::new(registry(LoadStrategy::Append));
    let ctx = ToolContext::new();
    let before = names(
        &session
            .render(Dialect::Anthropic, RenderOptions::default())
            .tools,
    );
    assert!(!before.contains(&"call_tool".to_owned()));
    session
        .call("tool_info", json!({"query": "weather_forecast"}), &ctx)
        .await
        .unwrap();
    let after = names(
        &session
            .render(Dialect::Anthropic, RenderOptions::default())
            .tools,
    );
    assert_eq!(after.last().map(String::as_str), Some("weather_forecast"));
    assert_eq!(after.len(), before.len() + 1);
}

#[tokio::test]
async fn keyword_answers_give_full_schemas_to_the_top_hits_only() {
    let registry = registry(LoadStrategy::Append);
    let full = LazyConfig::default().full_schemas;
    let answer = registry.tool_info("number", 5).unwrap();
    assert!(answer.tools.len() > full, "{answer:?}");
    assert!(answer.tools[..full].iter().all(|t| t.parameters.is_some()));
    assert!(answer.tools[full..].iter().all(|t| t.parameters.is_none()));
    assert!(
        answer
            .message
            .as_deref()
            .unwrap()
            .contains("ask tool_info for one by name")
    );
    // Exact names always come with schemas.
    let named = registry
        .tool_info(
            "number_square, number_cube, number_negate, double_number",
            5,
        )
        .unwrap();
    assert!(named.tools.iter().all(|t| t.parameters.is_some()));
    // A session loads only what came with a schema.
    let session = Session::new(registry);
    session
        .call("tool_info", json!({"query": "number"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(session.loaded().len(), full, "{:?}", session.loaded());
}

#[test]
fn native_uses_the_providers_deferral_and_falls_back_to_the_bridge() {
    let session = Session::new(registry(LoadStrategy::Native));
    let anthropic = session.render(Dialect::Anthropic, RenderOptions::default());
    let deferred: Vec<&Value> = anthropic
        .tools
        .iter()
        .filter(|t| t["defer_loading"] == true)
        .collect();
    assert_eq!(deferred.len(), 7);
    let sent = names(&anthropic.tools);
    assert!(
        sent.contains(&"tool_info".to_owned()) && !sent.contains(&"call_tool".to_owned()),
        "{sent:?}"
    );
    assert!(anthropic.system.is_some(), "the note stays");
    let responses = session.render(Dialect::OpenAiResponses, RenderOptions::default());
    let namespace = responses
        .tools
        .iter()
        .find(|t| t["type"] == "namespace")
        .unwrap();
    assert_eq!(namespace["name"], "github");
    assert_eq!(namespace["tools"].as_array().unwrap().len(), 2);
    assert!(
        namespace["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["defer_loading"] == true)
    );
    let search = responses
        .tools
        .iter()
        .find(|t| t["type"] == "tool_search")
        .unwrap();
    assert_eq!(search["execution"], "client");
    assert_eq!(search["parameters"]["required"], json!(["query"]));
    // Dialects without deferral get the bridge.
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Gemini,
        Dialect::Mcp,
    ] {
        let rendered = session.render(dialect, RenderOptions::default());
        assert!(
            names(&rendered.tools).contains(&"call_tool".to_owned()),
            "{dialect}"
        );
    }
}

#[test]
fn native_answers_are_references_and_tool_search_outputs() {
    let registry = registry(LoadStrategy::Native);
    let answer: ToolInfoAnswer = registry.tool_info("number", 5).unwrap();
    let blocks = tool_references(&answer);
    let refs: Vec<&Value> = blocks
        .iter()
        .filter(|b| b["type"] == "tool_reference")
        .collect();
    let full = LazyConfig::default().full_schemas;
    assert_eq!(refs.len(), full);
    assert!(refs.iter().all(|b| b["tool_name"].is_string()));
    let text = blocks.iter().find(|b| b["type"] == "text").unwrap();
    assert!(
        text["text"].as_str().unwrap().contains("ask tool_info"),
        "{text}"
    );
    let output = tool_search_output("call_1", &answer, &registry);
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["call_id"], "call_1");
    assert_eq!(output["execution"], "client");
    assert_eq!(output["tools"].as_array().unwrap().len(), full);
}

#[test]
fn strict_mode_sends_the_bridge_with_strict_false() {
    let session = Session::new(registry(LoadStrategy::Bridge));
    let strict = session.render(Dialect::OpenAiStrict, RenderOptions::default());
    for spec in &strict.tools {
        let strict_flag = &spec["function"]["strict"];
        if spec["function"]["name"] == "call_tool" {
            // `arguments` is the one open object: strict mode cannot
            // describe it, so the bridge alone goes without strict mode.
            assert_eq!(strict_flag, false);
        } else {
            assert_eq!(strict_flag, true, "{spec}");
        }
    }
}

/// Every strategy's requests in every dialect, for the providers' SDK
/// types (`tests/sdk/validate_specs.py`, run by `.ci/run`).
#[tokio::test]
async fn every_strategy_in_every_dialect_is_written_for_the_sdks() {
    let mut dump = serde_json::Map::new();
    for strategy in LoadStrategy::ALL {
        let session = Session::new(registry(strategy));
        session
            .call(
                "tool_info",
                json!({"query": "github issue"}),
                &ToolContext::new(),
            )
            .await
            .unwrap();
        for dialect in Dialect::ALL {
            if dialect == Dialect::Text {
                continue;
            }
            let rendered = session.render(dialect, RenderOptions::default());
            let entry = dump
                .entry(dialect.name().to_owned())
                .or_insert_with(|| Value::Array(Vec::new()));
            entry.as_array_mut().unwrap().extend(rendered.tools);
        }
        // Anthropic's programmatic tool calling, beside ours.
        let options = RenderOptions::default().with_programmatic(true);
        let rendered = session.render(Dialect::Anthropic, options);
        assert!(
            rendered
                .tools
                .iter()
                .any(|t| t["type"] == "code_execution_20250825")
        );
        for spec in &rendered.tools {
            let own = ["tool_info", "call_tool"].contains(&spec["name"].as_str().unwrap_or(""));
            let marked = spec.get("allowed_callers").is_some();
            assert_eq!(marked, !own && spec.get("input_schema").is_some(), "{spec}");
        }
        dump["anthropic"]
            .as_array_mut()
            .unwrap()
            .extend(rendered.tools);
    }
    // What native deferral sends back: Anthropic tool_result content and the
    // Responses API's tool-search output item.
    let registry = registry(LoadStrategy::Native);
    let answer = registry.tool_info("github issue", 5).unwrap();
    dump.insert(
        "anthropic-content".into(),
        Value::Array(tool_references(&answer)),
    );
    dump.insert(
        "openai-responses-input".into(),
        json!([tool_search_output("call_1", &answer, &registry)]),
    );
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("provider-specs-strategies.json"),
        serde_json::to_string_pretty(&Value::Object(dump)).unwrap(),
    )
    .unwrap();
}
