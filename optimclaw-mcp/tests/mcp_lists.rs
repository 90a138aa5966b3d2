//! What `tools/list` holds and what `initialize` promises about it: one
//! fixed list by default (core tools, `tool_info`, `call_tool`), lists that
//! grow per connection only when asked for, and `listChanged` announced
//! only where the list can change.

mod common;

use common::weather_registry as registry;
use optimclaw::ToolContext;
use optimclaw_mcp::McpServer;
use serde_json::{Value, json};

fn names(server: &McpServer) -> Vec<String> {
    let mut names: Vec<String> = server
        .list()
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    names
}

/// `tool_info` for the weather tool on the server's first connection.
async fn ask_for_weather(server: &McpServer) -> Value {
    server
        .session()
        .call(
            "tool_info",
            json!({"query": "weather forecast"}),
            &ToolContext::default(),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn the_default_list_is_fixed_and_holds_the_bridge() {
    let server = McpServer::new(registry(), ToolContext::default());
    let before = names(&server);
    assert_eq!(before, ["call_tool", "echo", "tool_info"]);
    let found = ask_for_weather(&server).await;
    assert_eq!(found["tools"][0]["name"], "weather_forecast");
    assert_eq!(
        names(&server),
        before,
        "tool_info leaves the fixed list alone"
    );
}

#[tokio::test]
async fn per_connection_lists_grow_with_what_tool_info_finds() {
    // The registry's strategy is the bridge (the default); a growing list
    // is appending, whatever the lazy setting said.
    let server = McpServer::new(registry(), ToolContext::default()).per_connection_lists();
    assert_eq!(names(&server), ["echo", "tool_info"]);
    ask_for_weather(&server).await;
    assert_eq!(names(&server), ["echo", "tool_info", "weather_forecast"]);
    // Another connection starts from the core tools again.
    assert_eq!(names(&server.for_new_connection()), ["echo", "tool_info"]);
}
