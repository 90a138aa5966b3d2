//! rig both ways: a lazy session as a rig agent's fixed tool list (core
//! tools, `tool_info`, `call_tool`), every call going through the session;
//! and rig tools — runtime-defined and typed — as deferred tools of a
//! registry, found by `tool_info` and called like any other.

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolKind};
use rig_core::message::ToolName;
use rig_core::tool::{ToolContext as RigContext, ToolExecutionError, ToolOutput};
use serde_json::{Value, json};

fn registry(extra: Vec<DynamicTool>) -> Registry {
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    let echo = DynamicTool::new(
        "echo",
        "Echo a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    )
    .kind(ToolKind::Core)
    .handler(|_ctx, args: Value| async move { Ok(args["text"].clone()) });
    let convert = DynamicTool::new(
        "unit_convert",
        "Convert a length in metres to feet.",
        json!({"type": "object", "properties": {"metres": {"type": "number"}}, "required": ["metres"]}),
    )
    .handler(|_ctx, args: Value| async move {
        Ok(json!({"feet": args["metres"].as_f64().unwrap_or(0.0) * 3.28084}))
    });
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tool(echo)
        .tool(convert)
        .tools(extra)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_lazy_session_becomes_a_fixed_rig_tool_list() {
    let session = Session::new(registry(Vec::new()));
    let ctx = ToolContext::new();
    let tools = optimclaw_rig::tools(&session, &ctx);
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    assert_eq!(names, ["call_tool", "echo", "tool_info"]);
    let note = optimclaw_rig::preamble(&session).unwrap();
    assert!(note.contains("unit_convert"), "{note}");

    let by_name = |name: &str| tools.iter().find(|t| t.name() == name).unwrap().clone();
    let echoed = by_name("echo")
        .execute(json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(echoed.as_text(), Some("hi"));
    let found = by_name("tool_info")
        .execute(json!({"query": "convert metres to feet"}))
        .await
        .unwrap();
    assert!(
        found.render().contains("unit_convert"),
        "{}",
        found.render()
    );
    assert_eq!(session.loaded(), ["unit_convert"], "tool_info loads");
    let converted = by_name("call_tool")
        .execute(json!({"name": "unit_convert", "arguments": {"metres": 2}}))
        .await
        .unwrap();
    assert!(
        converted.render().contains("6.56"),
        "{}",
        converted.render()
    );
    // Errors reach rig with the model-facing message.
    let bad = by_name("call_tool")
        .execute(json!({"name": "unit_convert", "arguments": {"metres": "two"}}))
        .await
        .unwrap_err();
    assert!(
        bad.model_feedback().unwrap_or_default().contains("metres"),
        "{bad:?}"
    );

    // Eager: every tool in full, no tool_info.
    let eager = Session::with_lazy(registry(Vec::new()), LazyConfig::eager());
    let names: Vec<String> = optimclaw_rig::tools(&eager, &ctx)
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, ["echo", "unit_convert"]);
}

/// A typed rig tool.
struct Shout;

#[derive(serde::Deserialize)]
struct ShoutArgs {
    text: String,
}

#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

impl rig_core::tool::Tool for Shout {
    const NAME: &'static str = "shout";
    type Args = ShoutArgs;
    type Output = String;
    type Error = Never;

    fn description(&self) -> String {
        "Shout a text in capital letters.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }

    async fn call(&self, _context: &mut RigContext, args: ShoutArgs) -> Result<String, Never> {
        Ok(args.text.to_uppercase())
    }
}

#[tokio::test]
async fn rig_tools_join_a_registry_as_deferred_tools() {
    let weather = rig_core::tool::DynamicTool::new(
        ToolName::try_from("weather_report").unwrap(),
        "Report the weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |args: Value| {
            Box::pin(async move {
                match args["city"].as_str() {
                    Some("Atlantis") => {
                        Err(ToolExecutionError::not_found("no such city: Atlantis"))
                    }
                    Some(city) => Ok(ToolOutput::json(json!({"city": city, "sky": "clear"}))),
                    None => Err(ToolExecutionError::invalid_args("city is required")),
                }
            })
        },
    );
    let registry = registry(vec![
        optimclaw_rig::from_rig(weather).unwrap(),
        optimclaw_rig::from_rig_tool(Shout).unwrap(),
    ]);
    let session = Session::new(registry.clone());
    let ctx = ToolContext::new();
    assert!(registry.get("weather_report").is_some_and(|t| !t.is_core()));
    assert!(session.prompt().note.unwrap().contains("weather_report"));
    let found = registry.tool_info("weather in a city", 3).unwrap();
    assert_eq!(found.tools[0].name, "weather_report");

    let report = session
        .call("weather_report", json!({"city": "Oslo"}), &ctx)
        .await
        .unwrap();
    assert_eq!(report, json!({"city": "Oslo", "sky": "clear"}));
    let missing = session
        .call("weather_report", json!({"city": "Atlantis"}), &ctx)
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("Atlantis"), "{missing}");
    // The schema is checked before the rig tool runs.
    let invalid = session
        .call("weather_report", json!({"town": "Oslo"}), &ctx)
        .await
        .unwrap_err();
    assert!(invalid.to_string().contains("city"), "{invalid}");
    assert_eq!(
        session
            .call("shout", json!({"text": "hello"}), &ctx)
            .await
            .unwrap(),
        json!("HELLO")
    );

    let bad_name = rig_core::tool::DynamicTool::new(
        ToolName::try_from("has space").unwrap(),
        "x",
        json!({"type": "object"}),
        |_args: Value| Box::pin(async move { Ok(ToolOutput::text("x")) }),
    );
    let err = optimclaw_rig::from_rig(bad_name).unwrap_err();
    assert!(err.to_string().contains("has space"), "{err}");
}
