//! MCP over streamable HTTP under load and behind proxies: the session
//! limit (unused sessions evicted, then HTTP 503 with `Retry-After` and a
//! JSON-RPC error), per-key quotas (HTTP 429; the other key is served),
//! `DELETE` ending a session, the body limit (413), calls of one session
//! running concurrently, the limit of calls in flight, the `Host` names
//! answered, `listChanged` only where lists change, each session's own
//! loaded tools, a session's `GET` stream (registry changes told, ended
//! with the session), and stateless replicas answering one client in turn.
//! Raw JSON-RPC over HTTP, as any client sends it.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use optimclaw::{DynamicTool, LazyConfig, Registry, ToolContext, ToolKind, ToolScope};
use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const LEGACY: &str = "2025-06-18";

/// The access key every server here requires and every client sends.
const TOKEN: &str = "test-token-0123456789abcdef";

/// A registry whose `meet` tool returns only once `n` calls wait at once.
fn registry(n: usize) -> Registry {
    registry_counting(n).0
}

/// [`registry`], and how many `hold` calls are running in it now.
fn registry_counting(n: usize) -> (Registry, Arc<AtomicUsize>) {
    let barrier = Arc::new(tokio::sync::Barrier::new(n));
    let gate = Arc::new(tokio::sync::Notify::new());
    let holding = Arc::new(AtomicUsize::new(0));
    let running = Arc::clone(&holding);
    let meet = DynamicTool::new(
        "meet",
        "Wait for the others.",
        json!({"type": "object", "properties": {}}),
    )
    .kind(ToolKind::Core)
    .handler(move |_ctx, _args: Value| {
        let barrier = Arc::clone(&barrier);
        async move {
            barrier.wait().await;
            Ok(json!("met"))
        }
    });
    let hold = DynamicTool::new(
        "hold",
        "Wait until released.",
        json!({"type": "object", "properties": {}}),
    )
    .kind(ToolKind::Core)
    .handler(move |_ctx, _args: Value| {
        let (gate, running) = (Arc::clone(&gate), Arc::clone(&running));
        async move {
            running.fetch_add(1, Ordering::SeqCst);
            tokio::time::timeout(Duration::from_secs(5), gate.notified())
                .await
                .ok();
            running.fetch_sub(1, Ordering::SeqCst);
            Ok(json!("released"))
        }
    });
    let echo = DynamicTool::new(
        "echo",
        "Echo a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    )
    .kind(ToolKind::Core)
    .handler(|_ctx, args: Value| async move { Ok(args["text"].clone()) });
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::eager())
        .tools([meet, hold, echo])
        .build()
        .unwrap();
    (registry, holding)
}

/// Waits until `n` `hold` calls run (so the slots they take are taken).
async fn until_holding(holding: &AtomicUsize, n: usize) {
    for _ in 0..2_000 {
        if holding.load(Ordering::SeqCst) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{n} hold calls never ran at once");
}

struct Served {
    url: String,
    stop: CancellationToken,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A second key, for quotas: what one key does must not stop the other.
const OTHER_TOKEN: &str = "other-token-fedcba9876543210";

async fn serve(server: McpServer, limits: HttpLimits) -> Served {
    let auth = HttpAuth::token(TOKEN)
        .unwrap()
        .key(OTHER_TOKEN, ToolScope::all())
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    tokio::spawn(server.serve_http_with(listener, stop.clone(), auth, limits));
    Served { url, stop }
}

fn client() -> reqwest::Client {
    client_of(TOKEN)
}

fn client_of(token: &str) -> reqwest::Client {
    // reqwest is built without a TLS provider of its own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {token}").parse().unwrap(),
    );
    reqwest::Client::builder()
        .default_headers(headers)
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// The JSON-RPC message of a reply, SSE or JSON.
fn message(body: &str) -> Value {
    if let Ok(v) = serde_json::from_str(body) {
        return v;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC reply in {body:?}"))
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> reqwest::Response {
    let mut req = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", LEGACY);
    if let Some(id) = session {
        req = req.header("mcp-session-id", id);
    }
    req.json(&body).send().await.unwrap()
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
}

/// Opens a session (initialize + initialized); its id.
async fn open(http: &reqwest::Client, url: &str) -> Result<String, reqwest::Response> {
    let reply = post(http, url, None, initialize(1)).await;
    if !reply.status().is_success() {
        return Err(reply);
    }
    let id = reply.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = reply.text().await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = post(http, url, Some(&id), note).await;
    assert!(ack.status().is_success(), "{}", ack.status());
    Ok(id)
}

async fn call(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    id: u64,
    name: &str,
    args: Value,
) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
    let reply = post(http, url, session, body).await;
    assert!(reply.status().is_success(), "{}", reply.status());
    message(&reply.text().await.unwrap())
}

/// `tools/list` on session `id`: the session is in use.
async fn list(http: &reqwest::Client, url: &str, id: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 90, "method": "tools/list"});
    let reply = post(http, url, Some(id), body).await;
    assert!(reply.status().is_success(), "{}", reply.status());
    message(&reply.text().await.unwrap())
}

fn server(n: usize) -> McpServer {
    McpServer::new(registry(n), ToolContext::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_over_the_limit_get_503_and_delete_frees_one() {
    let limits = HttpLimits::default()
        .with_max_sessions(3)
        .with_retry_after(Duration::from_secs(7));
    let served = serve(server(1), limits).await;
    let http = client();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = open(&http, &served.url).await.expect("under the limit");
        // In use: a session that made a request is never evicted for room.
        list(&http, &served.url, &id).await;
        ids.push(id);
    }
    let refused = open(&http, &served.url).await.expect_err("over the limit");
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "7");
    let error = refused.json::<Value>().await.unwrap();
    assert_eq!(error["id"], 1);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("limit of 3 live MCP sessions, all in use"),
        "{error}"
    );
    // Requests of live sessions still go through while the server is full.
    let out = call(
        &http,
        &served.url,
        Some(&ids[0]),
        2,
        "echo",
        json!({"text": "hi"}),
    )
    .await;
    assert_eq!(out["result"]["content"][0]["text"], "hi", "{out}");
    // DELETE ends a session at once; a new one fits again.
    let deleted = http
        .delete(&served.url)
        .header("mcp-session-id", &ids[0])
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let mut reopened = None;
    for _ in 0..50 {
        match open(&http, &served.url).await {
            Ok(id) => {
                reopened = Some(id);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(reopened.is_some(), "a session fits after DELETE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_expire() {
    let limits = HttpLimits::default()
        .with_max_sessions(1)
        .with_session_idle(Duration::from_secs(2));
    let served = serve(server(1), limits).await;
    let http = client();
    let id = open(&http, &served.url).await.unwrap();
    list(&http, &served.url, &id).await;
    // Idle time long enough that a loaded machine still refuses here.
    assert_eq!(open(&http, &served.url).await.unwrap_err().status(), 503);
    let mut reopened = false;
    for _ in 0..400 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if open(&http, &served.url).await.is_ok() {
            reopened = true;
            break;
        }
    }
    assert!(reopened, "the idle session was closed and its place freed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_gets_413() {
    let limits = HttpLimits::default().with_max_body_bytes(1024);
    let served = serve(server(1), limits).await;
    let http = client();
    let id = open(&http, &served.url).await.unwrap();
    let big = "x".repeat(4096);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": big}}});
    let reply = post(&http, &served.url, Some(&id), body).await;
    assert_eq!(reply.status(), 413);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_of_one_session_run_concurrently() {
    // `meet` returns only when 8 calls wait at once: sequential handling
    // would never finish (the client times out instead).
    let served = serve(server(8), HttpLimits::default()).await;
    let http = client();
    let id = open(&http, &served.url).await.unwrap();
    let calls = (0..8u64).map(|i| {
        let (http, url, id) = (http.clone(), served.url.clone(), id.clone());
        async move { call(&http, &url, Some(&id), 10 + i, "meet", json!({})).await }
    });
    for out in futures_util::future::join_all(calls).await {
        assert_eq!(out["result"]["content"][0]["text"], "met", "{out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_over_the_in_flight_limit_are_refused_at_once() {
    let (registry, holding) = registry_counting(1);
    let server = McpServer::new(registry, ToolContext::new()).max_in_flight_calls(2);
    let served = serve(server, HttpLimits::default()).await;
    let http = client();
    let id = open(&http, &served.url).await.unwrap();
    let holds: Vec<_> = (0..2u64)
        .map(|i| {
            let (http, url, id) = (http.clone(), served.url.clone(), id.clone());
            tokio::spawn(
                async move { call(&http, &url, Some(&id), 20 + i, "hold", json!({})).await },
            )
        })
        .collect();
    // Both hold a slot: a third call is refused at once.
    until_holding(&holding, 2).await;
    let refused = call(
        &http,
        &served.url,
        Some(&id),
        30,
        "echo",
        json!({"text": "x"}),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("limit of 2 tool calls"), "{text}");
    for hold in holds {
        assert_eq!(
            hold.await.unwrap()["result"]["content"][0]["text"],
            "released"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_replicas_answer_one_client_in_turn() {
    // Two servers sharing nothing; the client sends each request to the
    // next one, with no session id, as through a round-robin balancer.
    let a = serve(server(1), HttpLimits::stateless()).await;
    let b = serve(server(1), HttpLimits::stateless()).await;
    let http = client();
    let urls = [&a.url, &b.url];
    let init = post(&http, urls[0], None, initialize(1)).await;
    assert!(init.status().is_success());
    assert!(
        init.headers().get("mcp-session-id").is_none(),
        "stateless: no session"
    );
    assert_eq!(
        message(&init.text().await.unwrap())["result"]["serverInfo"]["name"],
        "optimclaw"
    );
    for i in 0..6u64 {
        let url = urls[(i % 2) as usize];
        let list = json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/list"});
        let reply = post(&http, url, None, list).await;
        assert!(reply.status().is_success(), "{}", reply.status());
        let listed = message(&reply.text().await.unwrap());
        assert_eq!(
            listed["result"]["tools"].as_array().unwrap().len(),
            3,
            "{listed}"
        );
        let out = call(
            &http,
            url,
            None,
            200 + i,
            "echo",
            json!({"text": format!("n{i}")}),
        )
        .await;
        assert_eq!(
            out["result"]["content"][0]["text"],
            format!("n{i}"),
            "{out}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_the_oldest_unused_session_makes_room() {
    let served = serve(server(1), HttpLimits::default().with_max_sessions(3)).await;
    let (flood, other) = (client(), client_of(OTHER_TOKEN));
    // One key fills the server with sessions it never uses.
    let mut unused = Vec::new();
    for _ in 0..3 {
        unused.push(open(&flood, &served.url).await.unwrap());
    }
    // Another key still gets in, in place of the oldest unused session.
    let fresh = open(&other, &served.url)
        .await
        .expect("an unused session is evicted for a new one");
    let listed = list(&other, &served.url, &fresh).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    let evicted = post(
        &flood,
        &served.url,
        Some(&unused[0]),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    )
    .await;
    assert_eq!(evicted.status(), 404, "the oldest unused session is gone");
    // The newer unused ones were kept.
    list(&flood, &served.url, &unused[1]).await;
    list(&flood, &served.url, &unused[2]).await;
    // Now every session is in use: nothing to evict, 503.
    let refused = open(&other, &served.url).await.unwrap_err();
    assert_eq!(refused.status(), 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_key_over_its_session_quota_gets_429_and_the_other_is_served() {
    let limits = HttpLimits::default()
        .with_max_sessions_per_key(2)
        .with_retry_after(Duration::from_secs(3));
    let served = serve(server(1), limits).await;
    let (flood, other) = (client(), client_of(OTHER_TOKEN));
    let first = open(&flood, &served.url).await.unwrap();
    open(&flood, &served.url).await.unwrap();
    let refused = open(&flood, &served.url).await.unwrap_err();
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "3");
    let error = refused.json::<Value>().await.unwrap();
    assert_eq!(error["id"], 1, "{error}");
    assert_eq!(error["error"]["data"]["max_sessions_per_key"], 2, "{error}");
    let text = error["error"]["message"].as_str().unwrap();
    assert!(
        text.contains("quota of 2 live MCP sessions") && text.contains("max_sessions_per_key"),
        "{text}"
    );
    // The other key is unaffected.
    for _ in 0..2 {
        open(&other, &served.url).await.unwrap();
    }
    // A session of one key is not the other's.
    let foreign = post(
        &other,
        &served.url,
        Some(&first),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    )
    .await;
    assert_eq!(foreign.status(), 404);
    // Ending one frees the key's place.
    let deleted = flood
        .delete(&served.url)
        .header("mcp-session-id", &first)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success());
    open(&flood, &served.url)
        .await
        .expect("a place after DELETE");
}

/// Starts `n` `hold` calls of `http` and waits until the server runs them
/// (the key's quota is then full).
async fn hold_calls(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    n: u64,
    holding: &AtomicUsize,
) -> Vec<tokio::task::JoinHandle<Value>> {
    let holds = (0..n)
        .map(|i| {
            let (http, url, id) = (http.clone(), url.to_owned(), session.map(str::to_owned));
            tokio::spawn(async move {
                call(&http, &url, id.as_deref(), 40 + i, "hold", json!({})).await
            })
        })
        .collect();
    until_holding(holding, usize::try_from(n).unwrap()).await;
    holds
}

async fn call_quota_holds(limits: HttpLimits, sessions: bool) {
    let (registry, holding) = registry_counting(1);
    let server = McpServer::new(registry, ToolContext::new());
    let served = serve(server, limits.with_max_calls_per_key(2)).await;
    let (busy, other) = (client(), client_of(OTHER_TOKEN));
    let (busy_id, other_id) = if sessions {
        (
            Some(open(&busy, &served.url).await.unwrap()),
            Some(open(&other, &served.url).await.unwrap()),
        )
    } else {
        (None, None)
    };
    let holds = hold_calls(&busy, &served.url, busy_id.as_deref(), 2, &holding).await;
    let body = json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    let refused = post(&busy, &served.url, busy_id.as_deref(), body).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let error = refused.json::<Value>().await.unwrap();
    assert_eq!(error["id"], 50, "{error}");
    assert_eq!(error["error"]["data"]["max_calls_per_key"], 2, "{error}");
    // Other requests of the busy key go through; so do the other key's
    // calls.
    if let Some(id) = &busy_id {
        list(&busy, &served.url, id).await;
    }
    let out = call(
        &other,
        &served.url,
        other_id.as_deref(),
        51,
        "echo",
        json!({"text": "served"}),
    )
    .await;
    assert_eq!(out["result"]["content"][0]["text"], "served", "{out}");
    for hold in holds {
        assert_eq!(
            hold.await.unwrap()["result"]["content"][0]["text"],
            "released"
        );
    }
    // Finished calls no longer count.
    let out = call(
        &busy,
        &served.url,
        busy_id.as_deref(),
        52,
        "echo",
        json!({"text": "again"}),
    )
    .await;
    assert_eq!(out["result"]["content"][0]["text"], "again", "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_key_over_its_call_quota_gets_429_and_the_other_is_served() {
    call_quota_holds(HttpLimits::default(), true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_quota_holds_in_stateless_mode() {
    call_quota_holds(HttpLimits::stateless(), false).await;
}

/// `initialize` with `Host: host`.
async fn initialize_as(url: &str, host: &str) -> reqwest::Response {
    client()
        .post(url)
        .header("host", host)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", LEGACY)
        .json(&initialize(1))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn addresses_and_listed_names_are_answered_other_names_refused() {
    let served = serve(server(1), HttpLimits::default()).await;
    // A client using the machine's address, or a proxy forwarding to it.
    for host in ["10.0.0.11:8931", "192.168.1.5", "[fd00::5]:80", "localhost"] {
        let reply = initialize_as(&served.url, host).await;
        assert!(reply.status().is_success(), "{host}: {}", reply.status());
    }
    let refused = initialize_as(&served.url, "mcp.example.com:8931").await;
    assert_eq!(refused.status(), 403);
    let body = refused.json::<Value>().await.unwrap();
    let text = body["message"].as_str().unwrap();
    assert!(
        text.contains("\"mcp.example.com:8931\"")
            && text.contains("Add `mcp.example.com` to the server's allowed hosts"),
        "{text}"
    );
    let named = serve(
        server(1),
        HttpLimits::default().with_allowed_hosts(["mcp.example.com"]),
    )
    .await;
    let reply = initialize_as(&named.url, "mcp.example.com:8931").await;
    assert!(reply.status().is_success(), "{}", reply.status());
    assert_eq!(
        initialize_as(&named.url, "evil.example").await.status(),
        403
    );
    // A typo fails the start, not each client.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = server(1)
        .serve_http_with(
            listener,
            CancellationToken::new(),
            HttpAuth::token(TOKEN).unwrap(),
            HttpLimits::default().with_allowed_hosts(["https://mcp.example.com/"]),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("https://mcp.example.com/"),
        "{err}"
    );
}

/// The status of an `initialize` sent from a browser page at `origin`.
async fn status_from_origin(url: &str, origin: &str) -> u16 {
    client()
        .post(url)
        .header("origin", origin)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", LEGACY)
        .json(&initialize(1))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_are_refused_unless_listed() {
    // Nothing listed: pages on this machine only.
    let served = serve(server(1), HttpLimits::default()).await;
    assert_eq!(
        status_from_origin(&served.url, "http://localhost:5173").await,
        200
    );
    assert_eq!(
        status_from_origin(&served.url, "https://evil.example").await,
        403
    );
    assert_eq!(status_from_origin(&served.url, "null").await, 403);
    let refused = client()
        .post(&served.url)
        .header("origin", "https://evil.example")
        .json(&initialize(1))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        refused.contains("evil.example") && refused.contains("allowed origins"),
        "{refused}"
    );
    // Listed: that origin too, and still no other.
    let limits = HttpLimits::default().with_allowed_origins(["https://app.example.com:443"]);
    let served = serve(server(1), limits).await;
    assert_eq!(
        status_from_origin(&served.url, "https://app.example.com").await,
        200
    );
    assert_eq!(
        status_from_origin(&served.url, "https://evil.example").await,
        403
    );
}

/// What `initialize` says of `tools.listChanged`.
async fn announces_list_changed(server: McpServer, limits: HttpLimits) -> Value {
    let served = serve(server, limits).await;
    let reply = post(&client(), &served.url, None, initialize(1)).await;
    assert!(reply.status().is_success());
    let init = message(&reply.text().await.unwrap());
    init["result"]["capabilities"]["tools"]
        .get("listChanged")
        .cloned()
        .unwrap_or(Value::Bool(false))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_is_announced_only_where_lists_change() {
    assert_eq!(
        announces_list_changed(server(1), HttpLimits::default()).await,
        false,
        "a fixed list"
    );
    assert_eq!(
        announces_list_changed(server(1).announce_list_changes(), HttpLimits::default()).await,
        true
    );
    assert_eq!(
        announces_list_changed(server(1).per_connection_lists(), HttpLimits::default()).await,
        true
    );
    assert_eq!(
        announces_list_changed(server(1).announce_list_changes(), HttpLimits::stateless()).await,
        false,
        "no notification reaches a stateless client"
    );
}

fn listed(reply: &Value) -> Vec<String> {
    let mut names: Vec<String> = reply["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_keeps_its_own_loaded_tools_across_requests() {
    let server =
        McpServer::new(common::weather_registry(), ToolContext::new()).per_connection_lists();
    let served = serve(server, HttpLimits::default()).await;
    let http = client();
    let (a, b) = (
        open(&http, &served.url).await.unwrap(),
        open(&http, &served.url).await.unwrap(),
    );
    assert_ne!(a, b);
    let before = listed(&list(&http, &served.url, &a).await);
    assert!(
        !before.contains(&"weather_forecast".to_owned()),
        "{before:?}"
    );
    let found = call(
        &http,
        &served.url,
        Some(&a),
        2,
        "tool_info",
        json!({"query": "weather forecast"}),
    )
    .await;
    assert!(found["result"]["isError"] != json!(true), "{found}");
    let after = listed(&list(&http, &served.url, &a).await);
    assert!(after.contains(&"weather_forecast".to_owned()), "{after:?}");
    let other = listed(&list(&http, &served.url, &b).await);
    assert_eq!(other, before, "another session loaded nothing");
}

/// Reads `stream` until `needle` shows up (or 5 s pass); whether it did.
async fn heard(stream: &mut reqwest::Response, needle: &str) -> bool {
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !seen.contains(needle) {
        match tokio::time::timeout_at(deadline, stream.chunk()).await {
            Ok(Ok(Some(bytes))) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            _ => return false,
        }
    }
    true
}

async fn listen(http: &reqwest::Client, url: &str, id: &str) -> reqwest::Response {
    http.get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_get_stream_hears_registry_changes_and_ends_with_it() {
    let server =
        McpServer::new(common::weather_registry(), ToolContext::new()).announce_list_changes();
    let served = serve(server.clone(), HttpLimits::default()).await;
    let http = client();
    let id = open(&http, &served.url).await.unwrap();
    let mut stream = listen(&http, &served.url, &id).await;
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    // Opened: the first keep-alive comment arrives at once.
    assert!(heard(&mut stream, ": keep-alive").await);
    server.set_registry(common::weather_registry()).await;
    assert!(
        heard(&mut stream, "notifications/tools/list_changed").await,
        "the change was told on the session's stream"
    );
    // Another key cannot listen in; an unknown id is not found.
    let foreign = listen(&client_of(OTHER_TOKEN), &served.url, &id).await;
    assert_eq!(foreign.status(), 404);
    assert_eq!(
        listen(&http, &served.url, "no-such-session").await.status(),
        404
    );
    let deleted = http
        .delete(&served.url)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream ended with its session");
    let gone = post(
        &http,
        &served.url,
        Some(&id),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    )
    .await;
    assert_eq!(gone.status(), 404, "the deleted session is not found");
}
