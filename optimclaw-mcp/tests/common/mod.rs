//! What several MCP test binaries share.

use optimclaw::{DynamicTool, LazyConfig, Registry, ToolKind};
use serde_json::{Value, json};

/// A lazy registry of two tools: `echo` (core) and `weather_forecast`
/// (deferred, found by "weather forecast"), with `tool_info`.
pub fn weather_registry() -> Registry {
    let echo = DynamicTool::new(
        "echo",
        "Echo a text back.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    )
    .kind(ToolKind::Core)
    .handler(|_ctx, args: Value| async move { Ok(args["text"].clone()) });
    let forecast = DynamicTool::new(
        "weather_forecast",
        "Forecast the weather of a city for the coming days.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
    .keywords(["weather", "forecast", "rain"])
    .handler(|_ctx, args: Value| async move { Ok(json!(format!("sunny in {}", args["city"]))) });
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .expect("tool_info is linked");
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools([echo, forecast])
        .build()
        .unwrap()
}
