//! `serve`: the catalog over MCP, on stdio or streamable HTTP, rebuilt
//! and re-announced when an imported server's tools change.

use std::sync::Arc;

use std::path::{Path, PathBuf};

use optimclaw::{DynamicTool, LazyConfig, Registry, ToolContext};
use optimclaw_mcp::{HttpAuth, HttpLimits, McpClient, McpServer, TOKEN_ENV};

use super::tools::{SearchStages, build_registry};

/// What `serve` needs besides the registry.
pub struct ServeOptions {
    /// Streamable HTTP on this address instead of stdio.
    pub http: Option<String>,
    /// What MCP clients are sent (lazy or eager).
    pub mode: LazyConfig,
    /// The registry's own setting, for rebuilds.
    pub lazy: LazyConfig,
    /// Manifest and WebAssembly tools, for rebuilds.
    pub extra: Vec<DynamicTool>,
    /// Imported MCP servers.
    pub clients: Vec<Arc<McpClient>>,
    /// Vector search and reranking, for rebuilds.
    pub semantic: SearchStages,
    /// Sessions, idle time, request size and stateless mode (HTTP only).
    pub limits: HttpLimits,
    /// Tool calls running at once, over every client.
    pub max_calls: usize,
    /// Per-connection lists with `list_changed` instead of one fixed list.
    pub list_changed: bool,
    /// Access keys for HTTP (else `OPTIMCLAW_MCP_TOKEN`).
    pub token_file: Option<PathBuf>,
}

/// The access keys HTTP serving requires: the token file, else the
/// environment variable; neither is an error saying how to give one.
pub fn http_auth(token_file: Option<&Path>) -> Result<HttpAuth, String> {
    if let Some(path) = token_file {
        return HttpAuth::from_file(path).map_err(|e| e.to_string());
    }
    match HttpAuth::from_env() {
        Some(auth) => auth.map_err(|e| e.to_string()),
        None => Err(format!(
            "serving MCP over HTTP needs an access key: set {TOKEN_ENV} (e.g. to the output of `openssl rand -hex 32`) or pass --token-file FILE (one token per line, each optionally followed by the tool patterns it may use, e.g. `TOKEN github__* echo`); clients send `Authorization: Bearer TOKEN`"
        )),
    }
}

/// Serves until stdin closes (stdio) or Ctrl-C (HTTP).
pub async fn serve(
    registry: Registry,
    ctx: ToolContext,
    options: ServeOptions,
) -> Result<(), String> {
    let ServeOptions {
        http,
        mode,
        lazy,
        extra,
        clients,
        semantic,
        limits,
        max_calls,
        list_changed,
        token_file,
    } = options;
    let mut server = McpServer::with_lazy(registry, mode, ctx)
        .named("optimclaw-assistant")
        .max_in_flight_calls(max_calls);
    if list_changed {
        server = server.per_connection_lists();
    }
    if !clients.is_empty() {
        // Imported servers' tools may change: the list is rebuilt and
        // clients are told.
        server = server.announce_list_changes();
    }
    // An imported server's tools changed: rebuild and tell our clients.
    for client in &clients {
        let (client, all, server, lazy, extra, semantic) = (
            client.clone(),
            clients.clone(),
            server.clone(),
            lazy.clone(),
            extra.clone(),
            semantic.clone(),
        );
        tokio::spawn(async move {
            while client.next_change().await.is_ok() {
                // Embedding (if any) blocks: off the runtime's threads.
                let (lazy, extra, all, semantic) =
                    (lazy.clone(), extra.clone(), all.clone(), semantic.clone());
                let rebuilt = tokio::task::spawn_blocking(move || {
                    build_registry(lazy, &extra, &all, &semantic)
                })
                .await
                .unwrap_or_else(|e| Err(format!("the rebuild stopped: {e}")));
                match rebuilt {
                    Ok(registry) => server.set_registry(registry).await,
                    Err(e) => eprintln!("warning: the refreshed tools are invalid: {e}"),
                }
            }
        });
    }
    match http {
        None => server.serve_stdio().await.map_err(|e| e.to_string()),
        Some(addr) => {
            // Checked before binding: no port is opened without a key.
            let auth = http_auth(token_file.as_deref())?;
            let listener = tokio::net::TcpListener::bind(&addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let local = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!(
                "serving MCP (streamable HTTP{}) on http://{local}/mcp to {} access key(s); at most {} sessions ({} per key), {} calls running per key, idle sessions closed after {} s; answering IP addresses, localhost{}; Ctrl-C stops",
                if limits.stateless { ", stateless" } else { "" },
                auth.len(),
                limits.max_sessions,
                limits.max_sessions_per_key,
                limits.max_calls_per_key,
                limits.session_idle.as_secs(),
                if limits.allowed_hosts.is_empty() {
                    " (add names with --allowed-host)".to_owned()
                } else {
                    format!(" and {}", limits.allowed_hosts.join(", "))
                }
            );
            let shutdown = tokio_util::sync::CancellationToken::new();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                let _ = tokio::signal::ctrl_c().await;
                stop.cancel();
            });
            server
                .serve_http_with(listener, shutdown, auth, limits)
                .await
                .map_err(|e| e.to_string())
        }
    }
}
