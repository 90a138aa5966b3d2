//! The MCP endpoint mounted in an axum app of the user's own, beside the
//! app's other routes: the same key, `Host` and `Origin` checks and
//! sessions as `serve_http`, and a tool called through a session.

mod common;

use axum::Router;
use axum::routing::get;
use optimclaw::ToolContext;
use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
use serde_json::{Value, json};

const TOKEN: &str = "mount-token-0123456789abcdef";

/// The app: `/health` of its own, MCP at `/mcp`; its base URL.
async fn app() -> String {
    let server = McpServer::new(common::weather_registry(), ToolContext::new());
    let mcp = server
        .http_service(HttpAuth::token(TOKEN).unwrap(), HttpLimits::default())
        .unwrap();
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/mcp", mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A plain client (reqwest is built without a TLS provider of its own).
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

fn post(url: &str, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .json(body)
}

/// The JSON-RPC message of a reply (plain JSON or one SSE event).
fn message(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| {
        let data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| !d.is_empty())
            .unwrap_or_else(|| panic!("no data in {text}"));
        serde_json::from_str(data).unwrap()
    })
}

fn initialize() -> Value {
    rpc(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_mounts_in_an_axum_app_with_its_checks() {
    let base = app().await;
    let mcp = format!("{base}/mcp");
    // The app's own route is the app's.
    let health = client().get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    // No key: 401.
    assert_eq!(
        post(&mcp, &initialize()).send().await.unwrap().status(),
        401
    );
    // A page elsewhere: 403, key or not.
    let foreign = post(&mcp, &initialize())
        .bearer_auth(TOKEN)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    // A name the app was not given: 403 (DNS rebinding).
    let rebound = post(&mcp, &initialize())
        .bearer_auth(TOKEN)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    // With the key: a session, and a call through it.
    let opened = post(&mcp, &initialize())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .unwrap()
        .to_owned();
    let init = message(&opened.text().await.unwrap());
    assert_eq!(init["result"]["serverInfo"]["name"], "optimclaw");
    let called = post(
        &mcp,
        &rpc(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "mounted"}}),
        ),
    )
    .bearer_auth(TOKEN)
    .header("mcp-session-id", &session)
    .send()
    .await
    .unwrap();
    assert_eq!(called.status(), 200);
    let result = message(&called.text().await.unwrap());
    assert_eq!(result["result"]["content"][0]["text"], "mounted");
    // Ending the session ends it.
    let ended = client()
        .delete(&mcp)
        .bearer_auth(TOKEN)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
}
