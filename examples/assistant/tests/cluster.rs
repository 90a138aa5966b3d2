//! Two nodes in one process, each with its own registry and its own lazy
//! setting: node B imports node A's tools over streamable HTTP on
//! 127.0.0.1, with an access key, and finds them through its own
//! `tool_info`. A wrong key is refused; a key scoped to some tools sees,
//! finds and calls only those.

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolScope, linked_tools};
use optimclaw_mcp::{HttpAuth, McpClient, McpClientOptions, McpServer, ServerConfig};

const FULL: &str = "node-b-full-key-0123456789";
const JOBS_ONLY: &str = "node-c-jobs-key-0123456789";

fn keyed(url: &str, token: &str) -> ServerConfig {
    ServerConfig {
        url: Some(url.to_owned()),
        headers: [("Authorization".to_owned(), format!("Bearer {token}"))].into(),
        ..ServerConfig::default()
    }
}
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_b_finds_and_calls_node_a_tools_through_tool_info() {
    // Node A: the assistant's catalog, lazy for its own model sessions; its
    // peer endpoint lists every tool so other nodes can import them.
    let home = tempfile::tempdir().unwrap();
    let app = assistant::App::open(assistant::AppConfig::new(home.path())).unwrap();
    let registry_a = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    let ctx_a = app.context();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let server =
        McpServer::with_lazy(registry_a.clone(), LazyConfig::eager(), ctx_a).named("node-a");
    let auth = HttpAuth::token(FULL)
        .unwrap()
        .key(JOBS_ONLY, ToolScope::new(["job_*"]).unwrap())
        .unwrap();
    let serving = tokio::spawn(server.clone().serve_http(listener, shutdown.clone(), auth));
    let url = format!("http://{addr}/mcp");

    // No key, or a wrong one: no connection.
    for config in [
        ServerConfig {
            url: Some(url.clone()),
            ..ServerConfig::default()
        },
        keyed(&url, "a-wrong-key-0123456789"),
    ] {
        let refused = McpClient::connect("intruder", config, McpClientOptions::default()).await;
        let message = refused.expect_err("refused").to_string();
        assert!(
            message.contains("refused the access key (HTTP 401)"),
            "{message}"
        );
    }

    // A key scoped to `job_*`: only those tools are listed, found and run.
    let jobs_only = McpClient::connect(
        "node_a",
        keyed(&url, JOBS_ONLY),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    let (seen, _) = jobs_only.dynamic_tools();
    let names: Vec<&str> = seen.iter().map(DynamicTool::name).collect();
    assert!(names.contains(&"node_a__job_create"), "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("node_a__job_") || *n == "node_a__tool_info"),
        "{names:?}"
    );
    let found = jobs_only
        .call("tool_info", json!({"query": "run a shell command"}))
        .await
        .unwrap();
    let found_names: Vec<&str> = found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(found_names.iter().all(|n| n.starts_with("job_")), "{found}");
    let shell = jobs_only
        .call("shell", json!({"command": "id"}))
        .await
        .unwrap_err()
        .to_string();
    assert!(shell.contains("unknown tool"), "{shell}");
    let bridged = jobs_only
        .call(
            "call_tool",
            json!({"name": "shell", "arguments": {"command": "id"}}),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(bridged.contains("unknown tool"), "{bridged}");

    // Node B: a different tool set (one local tool plus tool_info), lazy.
    let client = McpClient::connect("node_a", keyed(&url, FULL), McpClientOptions::default())
        .await
        .unwrap();
    let (imported, skipped) = client.dynamic_tools();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert!(
        imported.len() >= 52,
        "node A's whole catalog: {}",
        imported.len()
    );
    let tool_info = linked_tools().find(|d| d.name == "tool_info").unwrap();
    let local = DynamicTool::new(
        "weather",
        "Report the weather.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_ctx, _args| async { Ok(json!("sunny")) });
    let registry_b = Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tool(local)
        .tools(imported)
        .build()
        .unwrap();
    assert_ne!(
        registry_a.len(),
        registry_b.len(),
        "the nodes have different tools"
    );
    assert!(
        registry_b
            .get("node_a__job_create")
            .is_some_and(|t| !t.is_core()),
        "imported tools are deferred"
    );

    // B's model sees only tool_info, the bridge and the note; A's setting
    // does not leak.
    let session_b = Session::new(registry_b);
    assert_eq!(session_b.prompt().tool_names(), ["call_tool", "tool_info"]);
    assert!(
        session_b
            .prompt()
            .note
            .unwrap()
            .contains("node_a__job_create")
    );
    let ctx_b = ToolContext::new();
    let answer = session_b
        .call(
            "tool_info",
            json!({"query": "create a background job"}),
            &ctx_b,
        )
        .await
        .unwrap();
    assert_eq!(answer["tools"][0]["name"], "node_a__job_create", "{answer}");
    // Loaded in B's session (under the bridge the `tools` array stays
    // fixed; the tool is called through `call_tool`).
    assert!(
        session_b
            .loaded()
            .contains(&"node_a__job_create".to_owned())
    );

    // The call runs on node A, against A's own state.
    let job = session_b
        .call(
            "node_a__job_create",
            json!({"prompt": "Summarize today's news", "priority": 3}),
            &ctx_b,
        )
        .await
        .unwrap();
    let id = job["id"].as_str().unwrap();
    assert_eq!(app.jobs.get(id).unwrap().unwrap().priority, 3);
    assert_eq!(
        session_b.call("weather", json!({}), &ctx_b).await.unwrap(),
        json!("sunny")
    );

    // Node A gains a tool: B's client hears tools/list_changed, refreshes,
    // and B's rebuilt registry has it.
    let extra = DynamicTool::new(
        "node_a_status",
        "Report node A's status.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_ctx, _args| async { Ok(json!("healthy")) });
    let grown = Registry::builder()
        .lazy(LazyConfig::lazy())
        .tool(extra)
        .build()
        .unwrap();
    let watching = client.clone();
    let change = tokio::spawn(async move { watching.next_change().await });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    server.set_registry(grown).await;
    let (refreshed, _) = tokio::time::timeout(std::time::Duration::from_secs(10), change)
        .await
        .expect("list_changed reached node B")
        .unwrap()
        .unwrap();
    let registry_b2 = Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools(refreshed)
        .build()
        .unwrap();
    let found = registry_b2.tool_info("node status", 3).unwrap();
    assert_eq!(found.tools[0].name, "node_a__node_a_status", "{found:?}");
    assert_eq!(
        registry_b2
            .call("node_a__node_a_status", json!({}), &ctx_b)
            .await
            .unwrap(),
        json!("healthy")
    );

    shutdown.cancel();
    serving.await.unwrap().unwrap();
}
