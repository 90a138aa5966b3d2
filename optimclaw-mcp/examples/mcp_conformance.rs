//! The fixture tools of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written as ordinary `#[tool]`
//! functions and served over streamable HTTP:
//!
//! ```text
//! OPTIMCLAW_MCP_TOKEN=$(openssl rand -hex 32) \
//!   cargo run --release --example mcp_conformance -- --http 127.0.0.1:8931 [--stateless] [--lazy]
//! ```
//!
//! The key is taken as `assistant serve` takes it: `OPTIMCLAW_MCP_TOKEN`,
//! or `--token-file FILE`. Tools are served eagerly (the suite reads every
//! schema from `tools/list`); `--lazy` serves them lazily instead (every
//! tool is still callable by its name). Sampling and elicitation are not
//! offered (see `docs/mcp.md`).

use std::time::Duration;

use optimclaw::{
    Content, DynamicTool, LazyConfig, LogLevel, Registry, ToolContext, ToolOutput, tool,
};
use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A 1×1 red PNG.
const RED_PIXEL: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A short silent WAV: 8 kHz, 8-bit mono, 80 samples.
fn silent_wav() -> Vec<u8> {
    let samples = [128u8; 80];
    let data_len = u32::try_from(samples.len()).unwrap_or(0);
    let mut wav = Vec::with_capacity(44 + samples.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // the format chunk's size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // one channel
    wav.extend_from_slice(&8000u32.to_le_bytes()); // samples per second
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// Returns a fixed line of text.
#[tool(deferred, keywords = ["text", "simple"])]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Returns a one-pixel red PNG image.
#[tool(deferred, keywords = ["image", "png"])]
fn test_image_content() -> ToolOutput {
    ToolOutput::new().with_content(Content::image(RED_PIXEL, "image/png"))
}

/// Returns a short silent WAV recording.
#[tool(deferred, keywords = ["audio", "wav"])]
fn test_audio_content() -> ToolOutput {
    ToolOutput::new().with_content(Content::audio(silent_wav(), "audio/wav"))
}

/// Returns an embedded text resource.
#[tool(deferred, keywords = ["resource", "embedded"])]
fn test_embedded_resource() -> ToolOutput {
    ToolOutput::new().with_content(Content::resource_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource in one result.
#[tool(deferred, keywords = ["mixed", "multiple"])]
fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::text("Multiple content types test:")
        .with_content(Content::image(RED_PIXEL, "image/png"))
        .with_content(Content::resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Sends three log messages while it runs.
#[tool(deferred, keywords = ["logging", "log"])]
async fn test_tool_with_logging(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    "Tool with logging executed successfully".to_owned()
}

/// Reports progress three times (0, 50 and 100 of 100) while it runs.
#[tool(deferred, keywords = ["progress"])]
async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for done in [0.0, 50.0, 100.0] {
        ctx.progress(done, Some(100.0), Some("working")).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "Progress test completed".to_owned()
}

/// Always fails, to show how a tool's error reaches the client.
#[tool(deferred, keywords = ["error", "failure"])]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// The suite's tool whose input schema uses JSON Schema 2020-12 keywords
/// (`$schema`, `$defs`, `additionalProperties`): written as data because
/// the suite fixes the schema itself.
fn json_schema_tool() -> DynamicTool {
    DynamicTool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {
                        "street": { "type": "string" },
                        "city": { "type": "string" }
                    }
                }
            },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" }
            },
            "additionalProperties": false
        }),
    )
    .keywords(["schema", "2020-12"])
    .handler(|_ctx, args| async move { Ok(json!({ "received": args })) })
}

struct Args {
    http: String,
    stateless: bool,
    lazy: bool,
    token_file: Option<std::path::PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    const USAGE: &str =
        "usage: mcp_conformance --http ADDR [--stateless] [--lazy] [--token-file FILE]";
    let mut args = std::env::args().skip(1);
    let (mut http, mut stateless, mut lazy, mut token_file) = (None, false, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                http = Some(
                    args.next()
                        .ok_or("--http needs an address, e.g. 127.0.0.1:8931")?,
                )
            }
            "--stateless" => stateless = true,
            "--lazy" => lazy = true,
            "--token-file" => {
                token_file = Some(args.next().ok_or("--token-file needs a path")?.into())
            }
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    Ok(Args {
        http: http.ok_or(USAGE)?,
        stateless,
        lazy,
        token_file,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let auth = match &args.token_file {
        Some(path) => HttpAuth::from_file(path)?,
        None => HttpAuth::from_env().ok_or(
            "set OPTIMCLAW_MCP_TOKEN (e.g. to the output of `openssl rand -hex 32`) or pass --token-file FILE",
        )??,
    };
    let mode = if args.lazy {
        LazyConfig::lazy()
    } else {
        LazyConfig::eager()
    };
    let registry = Registry::builder()
        .tool(json_schema_tool())
        .lazy(mode)
        .build()?;
    let server = McpServer::new(registry, ToolContext::new()).named("optimclaw-conformance");
    let listener = tokio::net::TcpListener::bind(&args.http).await?;
    eprintln!(
        "serving the conformance fixtures on http://{}/mcp{}",
        listener.local_addr()?,
        if args.stateless { " (stateless)" } else { "" }
    );
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    let limits = HttpLimits::default().with_stateless(args.stateless);
    server
        .serve_http_with(listener, shutdown, auth, limits)
        .await?;
    Ok(())
}
