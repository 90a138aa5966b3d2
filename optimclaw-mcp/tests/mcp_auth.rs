//! Access keys for MCP over HTTP, tried as an intruder would: no key, a
//! wrong key, a key in the wrong scheme get HTTP 401 with a
//! `WWW-Authenticate` challenge and learn nothing; a server cannot start
//! without a key; a scoped key lists, finds and calls only its tools —
//! also through `call_tool`, the server's instructions and `tool_info`'s
//! "did you mean" hints.

// Code mode's `run_code` over MCP.
use optimclaw_code as _;
use std::time::Duration;

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolKind, ToolScope};
use optimclaw_mcp::{HttpAuth, McpServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const ADMIN: &str = "admin-key-0123456789abcdef";
const NOTES: &str = "notes-key-0123456789abcdef";

fn tool(name: &str, description: &str, kind: ToolKind) -> DynamicTool {
    let answer = name.to_owned();
    DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": {}}),
    )
    .kind(kind)
    .handler(move |_ctx, _args: Value| {
        let answer = answer.clone();
        async move { Ok(json!(answer)) }
    })
}

fn registry() -> Registry {
    registry_with(LazyConfig::lazy())
}

fn registry_with(lazy: LazyConfig) -> Registry {
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(lazy)
        .tools([
            tool("echo", "Echo a text.", ToolKind::Core),
            tool(
                "notes_add",
                "Add a note to the notebook.",
                ToolKind::Deferred,
            ),
            tool(
                "notes_list",
                "List the notes of the notebook.",
                ToolKind::Deferred,
            ),
            tool(
                "secrets_dump",
                "Dump every stored secret and note.",
                ToolKind::Deferred,
            ),
        ])
        .build()
        .unwrap()
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

async fn serve() -> Served {
    serve_registry(registry()).await
}

async fn serve_registry(registry: Registry) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let auth = HttpAuth::token(ADMIN)
        .unwrap()
        .key(NOTES, ToolScope::new(["notes_*"]).unwrap())
        .unwrap();
    let server = McpServer::new(registry, ToolContext::new());
    tokio::spawn(server.serve_http(listener, stop.clone(), auth));
    Served { url, stop }
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// A stateless (2026-07-28) JSON-RPC request with `authorization`.
async fn rpc(
    url: &str,
    authorization: Option<&str>,
    method: &str,
    params: Value,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut req = http()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18");
    if let Some(value) = authorization {
        req = req.header("authorization", value);
    }
    let reply = req
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap();
    let status = reply.status().as_u16();
    let headers = reply.headers().clone();
    (status, headers, reply.text().await.unwrap())
}

/// Opens a session with `token`: its id and the `initialize` reply.
async fn open(url: &str, token: &str) -> (String, Value) {
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}});
    let reply = http()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let id = reply.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body = message(&reply.text().await.unwrap());
    (id, body)
}

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

async fn call(url: &str, token: &str, session: &str, method: &str, params: Value) -> Value {
    let reply = http()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .header("mcp-session-id", session)
        .header("authorization", format!("Bearer {token}"))
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}))
        .send()
        .await
        .unwrap();
    message(&reply.text().await.unwrap())
}

#[tokio::test]
async fn requests_without_a_valid_key_get_401_and_nothing_else() {
    let served = serve().await;
    for (authorization, error) in [
        (None, None),
        (Some("Bearer not-the-key-0123456789"), Some("invalid_token")),
        (Some(&*format!("Basic {ADMIN}")), Some("invalid_token")),
        (Some(&*format!("Bearer {ADMIN}x")), Some("invalid_token")),
        (Some("Bearer"), Some("invalid_token")),
    ] {
        let (status, headers, body) =
            rpc(&served.url, authorization, "tools/list", json!({})).await;
        assert_eq!(status, 401, "{authorization:?}: {body}");
        let challenge = headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer realm="), "{challenge}");
        if let Some(error) = error {
            assert!(challenge.contains(error), "{challenge}");
        }
        assert!(!body.contains("echo") && !body.contains("notes"), "{body}");
    }
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}});
    let (status, _, body) = rpc(
        &served.url,
        Some(&format!("bearer {ADMIN}")),
        "initialize",
        init,
    )
    .await;
    assert_eq!(status, 200, "the scheme is case-insensitive: {body}");
}

#[tokio::test]
async fn a_server_without_a_key_does_not_start_and_weak_keys_are_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = McpServer::new(registry(), ToolContext::new());
    let err = server
        .serve_http(listener, CancellationToken::new(), HttpAuth::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("without an access key"), "{err}");
    assert!(HttpAuth::token("short").is_err());
    assert!(HttpAuth::token("has a space in it 0123456789").is_err());
    let dir = std::env::temp_dir().join(format!("optimclaw-keys-{}", std::process::id()));
    std::fs::write(&dir, format!("# keys\n{ADMIN}\n{NOTES} notes_* echo\n")).unwrap();
    assert_eq!(HttpAuth::from_file(&dir).unwrap().len(), 2);
    std::fs::write(&dir, format!("{NOTES} notes/*\n")).unwrap();
    let bad = HttpAuth::from_file(&dir).unwrap_err();
    assert!(
        matches!(bad, optimclaw_mcp::AuthError::Pattern { line: 1, .. }),
        "{bad}"
    );
    let source = std::error::Error::source(&bad).expect("the bad pattern is the cause");
    assert!(source.to_string().contains("notes/*"), "{source}");
    let text = bad.to_string();
    assert!(
        text.contains("line 1") && text.contains("notes/*"),
        "{text}"
    );
    std::fs::remove_file(&dir).unwrap();
}

#[tokio::test]
async fn a_scoped_key_sees_finds_and_calls_only_its_tools() {
    let served = serve().await;
    let url = &served.url;
    let (admin, _) = open(url, ADMIN).await;
    let (notes, init) = open(url, NOTES).await;

    // The instructions (the lazy note) name only the scope's tools.
    let note = init["result"]["instructions"].as_str().unwrap_or_default();
    assert!(note.contains("notes_add"), "{note}");
    assert!(!note.contains("secrets_dump"), "{note}");

    let names = |list: &Value| -> Vec<String> {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = call(url, ADMIN, &admin, "tools/list", json!({})).await;
    assert!(names(&all).contains(&"echo".to_owned()), "{all}");
    let scoped = call(url, NOTES, &notes, "tools/list", json!({})).await;
    assert!(!names(&scoped).contains(&"echo".to_owned()), "{scoped}");

    let search = call(
        url,
        NOTES,
        &notes,
        "tools/call",
        json!({"name": "tool_info", "arguments": {"query": "dump stored secret notes"}}),
    )
    .await
    .to_string();
    assert!(search.contains("notes_"), "{search}");
    assert!(!search.contains("secrets_dump"), "{search}");
    let by_name = call(
        url,
        NOTES,
        &notes,
        "tools/call",
        json!({"name": "tool_info", "arguments": {"query": "secrets_dump"}}),
    )
    .await;
    let answer = &by_name["result"]["structuredContent"];
    assert_eq!(answer["tools"], json!([]), "{by_name}");
    let hint = answer["message"].as_str().unwrap();
    let nearest = hint.split("nearest names:").nth(1).unwrap();
    assert!(!nearest.contains("secrets_dump"), "not even a hint: {hint}");

    for (name, arguments) in [
        ("secrets_dump", json!({})),
        ("echo", json!({})),
        (
            "call_tool",
            json!({"name": "secrets_dump", "arguments": {}}),
        ),
    ] {
        let refused = call(
            url,
            NOTES,
            &notes,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
        .await;
        let text = refused.to_string();
        assert!(text.contains("unknown tool"), "{name}: {text}");
        assert!(!text.contains("\"secrets_dump\"]"), "{text}");
    }
    let ran = call(
        url,
        NOTES,
        &notes,
        "tools/call",
        json!({"name": "notes_add", "arguments": {}}),
    )
    .await;
    assert_eq!(ran["result"]["content"][0]["text"], "notes_add", "{ran}");
    // The admin key on the same server reaches everything.
    let dumped = call(
        url,
        ADMIN,
        &admin,
        "tools/call",
        json!({"name": "secrets_dump", "arguments": {}}),
    )
    .await;
    assert_eq!(dumped["result"]["content"][0]["text"], "secrets_dump");
}

#[tokio::test]
async fn a_scoped_session_keeps_the_prompt_tool_info_and_calls_in_scope() {
    let session = Session::new(registry()).scoped(ToolScope::new(["notes_*"]).unwrap());
    let prompt = session.prompt();
    assert_eq!(prompt.tool_names(), ["call_tool", "tool_info"]);
    let note = prompt.note.unwrap();
    assert!(
        note.contains("notes_list") && !note.contains("secrets_dump"),
        "{note}"
    );
    let ctx = ToolContext::new();
    let found = session
        .call("tool_info", json!({"query": "dump every secret"}), &ctx)
        .await
        .unwrap();
    assert!(!found.to_string().contains("secrets_dump"), "{found}");
    let refused = session
        .call("secrets_dump", json!({}), &ctx)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("unknown tool"), "{refused}");
    let bridged = session
        .call(
            "call_tool",
            json!({"name": "secrets_dump", "arguments": {}}),
            &ctx,
        )
        .await
        .unwrap_err();
    assert!(bridged.to_string().contains("unknown tool"), "{bridged}");
    assert!(
        !session
            .load(["secrets_dump"])
            .contains(&"secrets_dump".to_owned())
    );
    assert_eq!(
        session.call("notes_list", json!({}), &ctx).await.unwrap(),
        json!("notes_list")
    );
    // The unscoped session of the same conversation sees everything.
    assert!(
        Session::new(registry())
            .prompt()
            .note
            .unwrap()
            .contains("secrets_dump")
    );
}

#[tokio::test]
async fn code_mode_lists_run_code_and_keeps_each_key_in_its_scope_inside_programs() {
    let served = serve_registry(registry_with(LazyConfig::lazy().with_code_mode(true))).await;
    let (session, _) = open(&served.url, NOTES).await;
    let list = call(&served.url, NOTES, &session, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["run_code", "tool_info"], "{list}");
    let program = "const mine = await tools.notes_list({}); let other; try { other = await tools.secrets_dump({}); } catch (e) { other = e.message; } return {mine, other};";
    let out = run_program(&served.url, NOTES, &session, program).await;
    assert_eq!(out["result"]["mine"], "notes_list", "{out}");
    let other = out["result"]["other"].as_str().unwrap();
    assert!(
        other.contains("unknown tool") && !other.contains("secrets_dump\"?"),
        "{other}"
    );
    // The admin key's programs reach every tool.
    let (admin, _) = open(&served.url, ADMIN).await;
    let out = run_program(&served.url, ADMIN, &admin, program).await;
    assert_eq!(out["result"]["other"], "secrets_dump", "{out}");
}

/// `run_code` of `program` in `session`: what the program produced.
async fn run_program(url: &str, token: &str, session: &str, program: &str) -> Value {
    let params = json!({"name": "run_code", "arguments": {"code": program}});
    let reply = call(url, token, session, "tools/call", params).await;
    let text = reply["result"]["content"][0]["text"].as_str();
    serde_json::from_str(text.unwrap_or_else(|| panic!("no text in {reply}"))).unwrap()
}
