//! Our MCP client against real servers: `mcp-server-time` (PyPI),
//! `@modelcontextprotocol/server-everything` (npm) and a misbehaving
//! server written with the official Python SDK. `.ci/run` installs them and
//! runs these with `--ignored`, passing the programs in environment
//! variables:
//! `OPTIMCLAW_MCP_PYTHON` (a Python with `mcp`), `OPTIMCLAW_MCP_TIME`,
//! `OPTIMCLAW_MCP_EVERYTHING`.

use std::time::{Duration, Instant};

use optimclaw::{LazyConfig, Registry, ToolContext, ToolErrorKind};
use optimclaw_mcp::{McpClient, McpClientOptions, ServerConfig};
use serde_json::json;

fn program(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| panic!("set {var} (see .ci/run)"))
}

fn stdio(command: String, args: &[&str]) -> ServerConfig {
    ServerConfig {
        command: Some(command),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        ..ServerConfig::default()
    }
}

fn fault_server() -> ServerConfig {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/mcp/fault_server.py"
    );
    stdio(program("OPTIMCLAW_MCP_PYTHON"), &[script])
}

fn registry_with(tools: Vec<optimclaw::DynamicTool>) -> Registry {
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(tools)
        .build()
        .unwrap()
}

#[tokio::test]
#[ignore = "needs mcp-server-time; run by .ci/run"]
async fn mcp_server_time_is_imported_found_and_called() {
    let client = McpClient::connect(
        "time",
        stdio(program("OPTIMCLAW_MCP_TIME"), &[]),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    let (tools, skipped) = client.dynamic_tools();
    assert!(skipped.is_empty(), "{skipped:?}");
    let registry = registry_with(tools);
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert!(
        names.contains(&"time__get_current_time") && names.contains(&"time__convert_time"),
        "{names:?}"
    );
    assert!(
        registry.tools().iter().all(|t| !t.is_core()),
        "imported tools are deferred"
    );
    let found = registry.tool_info("current time in a timezone", 5).unwrap();
    assert!(
        found
            .tools
            .iter()
            .any(|t| t.name == "time__get_current_time"),
        "{found:?}"
    );
    let now = registry
        .call(
            "time__get_current_time",
            json!({"timezone": "Europe/Paris"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(now["timezone"], "Europe/Paris", "{now}");
    let converted = registry
        .call(
            "time__convert_time",
            json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert!(converted.to_string().contains("21:00"), "{converted}");
    let err = registry
        .call(
            "time__get_current_time",
            json!({"timezone": "Mars/Base"}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("time__get_current_time"), "{err}");
}

#[tokio::test]
#[ignore = "needs @modelcontextprotocol/server-everything; run by .ci/run"]
async fn server_everything_is_imported_found_and_called() {
    let client = McpClient::connect(
        "everything",
        stdio(program("OPTIMCLAW_MCP_EVERYTHING"), &["stdio"]),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    let (tools, _) = client.dynamic_tools();
    let registry = registry_with(tools);
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert!(names.len() >= 5, "{names:?}");
    assert!(names.contains(&"everything__echo"), "{names:?}");
    let found = registry.tool_info("echo back a message", 3).unwrap();
    assert_eq!(found.tools[0].name, "everything__echo", "{found:?}");
    let echoed = registry
        .call(
            "everything__echo",
            json!({"message": "hello"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert!(echoed.to_string().contains("hello"), "{echoed}");
    let exact = registry.tool_info(&names[0..3].join(","), 5).unwrap();
    assert_eq!(exact.tools.len(), 3);
    // An image the server returns is handed on as one, between its texts.
    let out = registry
        .call_output(
            "everything__get-tiny-image",
            json!({}),
            &ToolContext::new(),
            optimclaw::CallOptions::default(),
        )
        .await
        .unwrap();
    let rich = out.rich.expect("the image result's blocks");
    let kinds: Vec<&str> = rich
        .content
        .iter()
        .map(|c| match c {
            optimclaw::Content::Text { .. } => "text",
            optimclaw::Content::Image { mime_type, .. } => {
                assert_eq!(mime_type, "image/png");
                "image"
            }
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["text", "image", "text"]);
    assert!(
        out.value.to_string().contains("[image image/png"),
        "JSON callers read that there was an image: {}",
        out.value
    );
}

#[tokio::test]
#[ignore = "needs Python with the mcp SDK; run by .ci/run"]
async fn a_server_that_dies_or_hangs_fails_the_call_and_is_restarted() {
    let options = McpClientOptions::default().with_call_timeout(Duration::from_secs(2));
    let client = McpClient::connect("faulty", fault_server(), options)
        .await
        .unwrap();
    let (tools, _) = client.dynamic_tools();
    let registry = registry_with(tools);
    let ctx = ToolContext::new();
    assert_eq!(
        registry
            .call("faulty__ok", json!({"text": "a"}), &ctx)
            .await
            .unwrap(),
        json!({"result": "a"}),
        "structured content, as the server declares it"
    );

    let start = Instant::now();
    let err = registry
        .call("faulty__die", json!({}), &ctx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("MCP server `faulty`"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        registry
            .call("faulty__ok", json!({"text": "b"}), &ctx)
            .await
            .unwrap(),
        json!({"result": "b"}),
        "restarted"
    );

    let start = Instant::now();
    let err = registry
        .call("faulty__hang", json!({}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout, "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        registry
            .call("faulty__ok", json!({"text": "c"}), &ctx)
            .await
            .unwrap(),
        json!({"result": "c"}),
        "restarted"
    );
}

#[tokio::test]
#[ignore = "needs Python with the mcp SDK; run by .ci/run"]
async fn malformed_frames_unknown_tools_and_list_changed() {
    let options = McpClientOptions::default().with_call_timeout(Duration::from_secs(3));
    let client = McpClient::connect("faulty", fault_server(), options)
        .await
        .unwrap();
    let ctx = ToolContext::new();
    // A junk line on the server's stdout: the call ends (with its answer or
    // a clear error), and the client keeps working.
    match client.call("garbage", json!({})).await {
        Ok(v) => assert_eq!(v, json!({"result": "after garbage"})),
        Err(e) => assert!(e.to_string().contains("faulty"), "{e}"),
    }
    assert_eq!(
        client.call("ok", json!({"text": "d"})).await.unwrap(),
        json!({"result": "d"})
    );
    // 20 MB of junk on the server's stdout: the call ends within its time
    // limit (answer or clear error) and the client keeps working.
    let start = Instant::now();
    match client.call("flood", json!({})).await {
        Ok(v) => assert_eq!(v, json!({"result": "after flood"})),
        Err(e) => assert!(e.to_string().contains("faulty"), "{e}"),
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "bounded: {:?}",
        start.elapsed()
    );
    assert_eq!(
        client.call("ok", json!({"text": "e"})).await.unwrap(),
        json!({"result": "e"})
    );
    let err = client.call("no_such_tool", json!({})).await.unwrap_err();
    assert!(err.to_string().contains("no_such_tool"), "{err}");
    let err = client.call("ok", json!([1])).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArguments);

    assert!(!client.tools_changed());
    assert_eq!(
        client.call("grow", json!({})).await.unwrap(),
        json!({"result": "grown"})
    );
    for _ in 0..50 {
        if client.tools_changed() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(client.tools_changed(), "tools/list_changed arrived");
    client.refresh().await.unwrap();
    let (tools, _) = client.dynamic_tools();
    let registry = registry_with(tools);
    assert_eq!(
        registry
            .call("faulty__extra", json!({"x": 21}), &ctx)
            .await
            .unwrap(),
        json!({"result": 42})
    );
}
