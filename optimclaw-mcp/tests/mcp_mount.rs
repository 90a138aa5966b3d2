//! The MCP endpoint mounted in an axum app of the user's own, beside the
//! app's other routes: the same key, `Host` and `Origin` checks and
//! sessions as `serve_http`, and a tool called through a session; and the
//! endpoint in parts (`http_endpoint`), stacked with a layer of the
//! user's own between the checks, or without the key layer.

mod common;

use axum::Router;
use axum::routing::get;
use optimclaw::ToolContext;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use optimclaw_mcp::layers::Authorized;
use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
use serde_json::{Value, json};
use tower_layer::Layer;

const TOKEN: &str = "mount-token-0123456789abcdef";

/// The app: `/health` of its own, MCP at `/mcp`; its base URL.
async fn app() -> String {
    let server = McpServer::new(common::weather_registry(), ToolContext::new());
    let mcp = server
        .http_service(HttpAuth::token(TOKEN).unwrap(), HttpLimits::default())
        .unwrap();
    serve(mcp).await
}

/// An axum app with `/health` and `mcp` at `/mcp`; its base URL.
async fn serve<S>(mcp: S) -> String
where
    S: tower_service::Service<
            axum::extract::Request,
            Response = hyper::Response<optimclaw_mcp::HttpBody>,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
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

/// A user's own layer: counts the requests that reach it, and those of
/// them that carry a checked key.
#[derive(Clone)]
struct Counting<S> {
    inner: S,
    seen: Arc<AtomicUsize>,
    keyed: Arc<AtomicUsize>,
}

impl<S, B> tower_service::Service<hyper::Request<B>> for Counting<S>
where
    S: tower_service::Service<hyper::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: hyper::Request<B>) -> S::Future {
        self.seen.fetch_add(1, Ordering::SeqCst);
        if req.extensions().get::<Authorized>().is_some() {
            self.keyed.fetch_add(1, Ordering::SeqCst);
        }
        self.inner.call(req)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layer_of_the_users_own_sits_between_the_checks() {
    let server = McpServer::new(common::weather_registry(), ToolContext::new());
    let limits = HttpLimits::default().with_max_body_bytes(4096);
    let parts = server
        .http_endpoint(HttpAuth::token(TOKEN).unwrap(), limits)
        .unwrap();
    let (seen, keyed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    // After the key, before the body is read.
    let counted = Counting {
        inner: parts.body.layer(parts.quota.layer(parts.sessions)),
        seen: Arc::clone(&seen),
        keyed: Arc::clone(&keyed),
    };
    let mcp = parts.host_origin.layer(parts.key.layer(counted));
    let url = format!("{}/mcp", serve(mcp).await);
    // Refused before it: no key, a foreign page.
    assert_eq!(
        post(&url, &initialize()).send().await.unwrap().status(),
        401
    );
    let foreign = post(&url, &initialize())
        .bearer_auth(TOKEN)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    // A body too large, without a key, is refused before it is read.
    let huge = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "x".repeat(10_000)});
    assert_eq!(post(&url, &huge).send().await.unwrap().status(), 401);
    assert_eq!(seen.load(Ordering::SeqCst), 0);
    // With the key: through the user's layer, keyed; too large is 413.
    let refused = post(&url, &huge).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(refused.status(), 413);
    let opened = post(&url, &initialize())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200);
    assert!(opened.headers().contains_key("mcp-session-id"));
    assert_eq!(seen.load(Ordering::SeqCst), 2);
    assert_eq!(keyed.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stack_without_the_key_layer_answers_nothing() {
    let server = McpServer::new(common::weather_registry(), ToolContext::new());
    let parts = server
        .http_endpoint(HttpAuth::token(TOKEN).unwrap(), HttpLimits::default())
        .unwrap();
    let keyless = parts
        .host_origin
        .layer(parts.body.layer(parts.quota.layer(parts.sessions.clone())));
    let url = format!("{}/mcp", serve(keyless).await);
    let refused = post(&url, &initialize())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert!(
        refused
            .text()
            .await
            .unwrap()
            .contains("KeyLayer is missing"),
        "the refusal names the missing layer"
    );
    // Without the quota layer too: the sessions service refuses alone.
    let bare = parts.body.layer(parts.sessions);
    let url = format!("{}/mcp", serve(bare).await);
    let call = rpc(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    let refused = post(&url, &call).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(refused.status(), 401);
}
