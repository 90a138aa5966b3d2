//! Results beyond text and what a tool reports while it runs, through a
//! real rmcp client connected in process: image, audio and resource
//! blocks with structured content, `notifications/progress`,
//! `notifications/message` at the level the client set (through the
//! output filter), and `notifications/cancelled` stopping the call.

#![allow(deprecated)] // MCP logging, deprecated by SEP-2577, still spoken

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use optimclaw::{Content, DynamicTool, LazyConfig, LogLevel, Registry, ToolContext, ToolOutput};
use optimclaw_mcp::McpServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

/// Collects the notifications a client is sent.
#[derive(Clone, Default)]
struct Heard {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
}

impl ClientHandler for Heard {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }
}

const PIXEL: &[u8] = b"\x89PNG\r\n\x1a\n-not-a-real-image";

/// Set when the `wait` tool saw its call cancelled.
static CANCEL_SEEN: AtomicBool = AtomicBool::new(false);

fn registry() -> Registry {
    let object = json!({"type": "object", "properties": {}});
    let chart = DynamicTool::new("chart", "Draws a chart.", object.clone())
        .keywords(["chart"])
        .handler(|ctx: ToolContext, _args| async move {
            Ok(ToolOutput::text("a chart of hunter2")
                .with_content(Content::image(PIXEL, "image/png"))
                .with_content(Content::audio(b"RIFF", "audio/wav"))
                .with_content(Content::resource_text("memo://1", "text/plain", "the memo"))
                .with_structured(json!({"points": 3}))
                .deliver(&ctx))
        });
    let steps = DynamicTool::new("steps", "Works in three steps.", object.clone())
        .keywords(["steps"])
        .handler(|ctx: ToolContext, _args| async move {
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), Some("step with hunter2"))
                    .await;
            }
            ctx.log(LogLevel::Debug, "a detail").await;
            ctx.log(LogLevel::Info, "the password is hunter2").await;
            ctx.log(LogLevel::Error, "something failed").await;
            Ok(json!("done"))
        });
    let wait = DynamicTool::new("wait", "Waits until cancelled.", object)
        .keywords(["wait"])
        .handler(|ctx: ToolContext, _args| async move {
            tokio::select! {
                () = ctx.cancellation().cancelled() => {
                    CANCEL_SEEN.store(true, Ordering::SeqCst);
                    Ok(json!("cancelled"))
                }
                () = tokio::time::sleep(Duration::from_secs(30)) => Ok(json!("never cancelled")),
            }
        });
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::eager())
        .tools([chart, steps, wait])
        .build()
        .unwrap()
}

/// A client connected in process to a server for [`registry`] whose
/// output filter hides `hunter2`.
async fn connect() -> (RunningService<RoleClient, Heard>, Heard) {
    let ctx = ToolContext::new().with_output_filter(Arc::new(|text: &str| {
        text.contains("hunter2")
            .then(|| text.replace("hunter2", "[secret]"))
    }));
    let server = McpServer::new(registry(), ctx);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let heard = Heard::default();
    let client = heard.clone().serve(client_io).await.unwrap();
    (client, heard)
}

fn call(name: &str) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = Some(serde_json::Map::new());
    params
}

#[tokio::test]
async fn images_audio_and_resources_reach_the_client_with_structured_content() {
    let (client, _) = connect().await;
    let result = client.call_tool(call("chart")).await.unwrap();
    let blocks = serde_json::to_value(&result.content).unwrap();
    assert_eq!(
        blocks[0],
        json!({"type": "text", "text": "a chart of [secret]"})
    );
    assert_eq!(blocks[1]["type"], "image");
    assert_eq!(blocks[1]["mimeType"], "image/png");
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(blocks[1]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, PIXEL, "the image's bytes arrive unchanged");
    assert_eq!(blocks[2]["type"], "audio");
    assert_eq!(blocks[2]["mimeType"], "audio/wav");
    assert_eq!(
        blocks[3],
        json!({"type": "resource", "resource": {"uri": "memo://1", "mimeType": "text/plain", "text": "the memo"}})
    );
    assert_eq!(result.structured_content, Some(json!({"points": 3})));
    assert_ne!(result.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_and_logs_reach_the_client_at_the_level_it_set() {
    let (client, heard) = connect().await;
    // The default level (info): the debug line stays back.
    client.call_tool(call("steps")).await.unwrap();
    let progress = heard.progress.lock().unwrap().clone();
    let values: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(values, [1.0, 2.0, 3.0]);
    assert!(progress.iter().all(|p| p.total == Some(3.0)));
    assert_eq!(
        progress[0].message.as_deref(),
        Some("step with [secret]"),
        "progress messages pass the output filter"
    );
    let logs: Vec<(LoggingLevel, Value)> = heard
        .logs
        .lock()
        .unwrap()
        .drain(..)
        .map(|l| (l.level, l.data))
        .collect();
    assert_eq!(
        logs,
        [
            (LoggingLevel::Info, json!("the password is [secret]")),
            (LoggingLevel::Error, json!("something failed")),
        ]
    );
    // Errors only: one line.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .unwrap();
    client.call_tool(call("steps")).await.unwrap();
    let levels: Vec<LoggingLevel> = heard
        .logs
        .lock()
        .unwrap()
        .drain(..)
        .map(|l| l.level)
        .collect();
    assert_eq!(levels, [LoggingLevel::Error]);
    // Debug: all three.
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    client.call_tool(call("steps")).await.unwrap();
    assert_eq!(heard.logs.lock().unwrap().len(), 3);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_server_says_it_logs() {
    let (client, _) = connect().await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.logging.is_some());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_request_stops_the_running_tool() {
    let (client, _) = connect().await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call("wait")));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Running before it is cancelled.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!CANCEL_SEEN.load(Ordering::SeqCst));
    handle
        .cancel(Some("the user gave up".into()))
        .await
        .unwrap();
    for _ in 0..100 {
        if CANCEL_SEEN.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        CANCEL_SEEN.load(Ordering::SeqCst),
        "notifications/cancelled reached the running call"
    );
    client.cancel().await.unwrap();
}
